-- cuarr.newaxis in index tables (NumPy's np.newaxis): b[{ {}, cuarr.newaxis }] is
-- b[:, np.newaxis], a view with a new axis of extent 1 and stride 0 where the entry stands.  It
-- takes no axis of the array, mixes with integers and ranges, and works in assignments.  Each
-- case runs on host arrays ([cpu]) and device arrays ([gpu], #gpu).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local NA = cuarr.newaxis

local function seq(t) return { table.unpack(t) } end

-- {{1,2,3},{4,5,6}} as an int32 array of xp.
local function a23(xp) return xp.array({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32") end

describe("cuarr.newaxis", function()
  it("is one value, in both namespaces, equal to nothing else", function()
    assert.is_not_nil(NA)
    assert.are.equal(NA, cuarr.cpu.newaxis)
    assert.are_not.equal(NA, false)
    assert.are.equal("userdata", type(NA))
  end)

  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("reads: at the front, in the middle, at the end, with strides 0", function()
      local a = a23(xp)
      local cases = {
        { { NA }, { 1, 2, 3 }, { 0, 12, 4 }, { { { 1, 2, 3 }, { 4, 5, 6 } } } },
        { { {}, NA }, { 2, 1, 3 }, { 12, 0, 4 }, { { { 1, 2, 3 } }, { { 4, 5, 6 } } } },
        { { {}, {}, NA }, { 2, 3, 1 }, { 12, 4, 0 },
          { { { 1 }, { 2 }, { 3 } }, { { 4 }, { 5 }, { 6 } } } },
        { { NA, {}, NA, {}, NA }, { 1, 2, 1, 3, 1 }, { 0, 12, 0, 4, 0 },
          { { { { { 1 }, { 2 }, { 3 } } }, { { { 4 }, { 5 }, { 6 } } } } } },
        { { 2, NA }, { 1, 3 }, { 0, 4 }, { { 4, 5, 6 } } },
        { { NA, 2 }, { 1, 3 }, { 0, 4 }, { { 4, 5, 6 } } },
        { { {}, 3, NA }, { 2, 1 }, { 12, 0 }, { { 3 }, { 6 } } },
        { { { 1, 2 }, NA, { 3, 1, -2 } }, { 2, 1, 2 }, { 12, 0, -8 },
          { { { 3, 1 } }, { { 6, 4 } } } },
        { { 1, 2, NA }, { 1 }, { 0 }, { 2 } },
        { { NA, NA, 1, 2 }, { 1, 1 }, { 0, 0 }, { { 2 } } },
      }
      for i, c in ipairs(cases) do
        local key, shape, strides, values = table.unpack(c)
        local v = a[key]
        local what = "case " .. i
        assert.are.same(shape, seq(v.shape), what)
        assert.are.same(strides, seq(v.strides), what)
        assert.are.same(values, v:totable(), what)
        assert.are.equal(a, v.base, what .. ": a view of a")
      end
    end)

    b.it("reads: a plain a[newaxis] key, 0-d and empty arrays, 1-D arrays", function()
      local a = a23(xp)
      local v = a[NA]
      assert.are.same({ 1, 2, 3 }, seq(v.shape))
      assert.are.same({ { { 1, 2, 3 }, { 4, 5, 6 } } }, v:totable())
      local z = xp.full({}, 7, "int32")
      assert.are.same({ 1 }, seq(z[NA].shape))
      assert.are.same({ 7 }, z[{ NA }]:totable())
      assert.are.same({ 1, 1 }, seq(z[{ NA, NA }].shape))
      local e = xp.zeros({ 0, 3 }, "int32")
      assert.are.same({ 0, 1, 3 }, seq(e[{ {}, NA }].shape))
      local r = xp.arange(3)
      local col = r[{ {}, NA }]
      assert.are.same({ 3, 1 }, seq(col.shape))
      assert.are.same({ { 0 }, { 1 }, { 2 } }, col:totable())
      -- the seed's b[:, np.newaxis] broadcasting against a row
      assert.are.same({ { 0, 0, 0 }, { 0, 1, 2 }, { 0, 2, 4 } }, (col * r):totable())
    end)

    b.it("writes through a view with new axes, and in a[{...}] = v", function()
      local a = a23(xp)
      local v = a[{ {}, NA, { 2, 3 } }]
      v[{ 1, 1, 1 }] = 20
      assert.are.same({ { 1, 20, 3 }, { 4, 5, 6 } }, a:totable())
      a[{ NA, 2, {} }] = 9
      assert.are.same({ { 1, 20, 3 }, { 9, 9, 9 } }, a:totable())
      a[{ {}, NA, 1 }] = { { 7 }, { 8 } }
      assert.are.same({ { 7, 20, 3 }, { 8, 9, 9 } }, a:totable())
      a[NA] = xp.array({ { { 1, 1, 1 }, { 2, 2, 2 } } }, "int32")
      assert.are.same({ { 1, 1, 1 }, { 2, 2, 2 } }, a:totable())
      a[{ 1, NA, 3 }] = 5
      assert.are.same({ { 1, 1, 5 }, { 2, 2, 2 } }, a:totable())
      local z = xp.zeros({}, "int32")
      z[{ NA }] = 4
      assert.are.equal(4, z:item())
    end)

    b.it("errors: too many indices counts no newaxis; the dimension limit; other values",
         function()
      local a = a23(xp)
      local e = H.raises("IndexError", function() return a[{ 1, NA, 1, 1 }] end)
      assert.truthy(e.message:find("too many indices: 3", 1, true), e.message)
      H.raises("IndexError", function() a[{ NA, 1, 1, 1 }] = 0 end)
      local key = {}
      for i = 1, 31 do key[i] = NA end -- 33 dimensions: past the limit
      H.raises("ValueError", function() return a[key] end)
      for i = 32, 40 do key[i] = NA end -- more entries than axes and new axes could ever be
      H.raises("IndexError", function() return a[key] end)
      e = H.raises("TypeError", function() return a[{ {}, "newaxis" }] end)
      assert.truthy(e.message:find("cuarr.newaxis", 1, true), e.message)
      H.raises("TypeError", function() return a[{ {}, print }] end)
      assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, a:totable(), "a unchanged")
    end)
  end
end)
