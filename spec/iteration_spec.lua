-- Arrays in Lua's own idioms: pairs(a) and a:iter() walk the first axis, ipairs(a) is refused
-- with a pointer to them, a.shape and a.strides are sequences that print as tuples, a.T is the
-- transposed view as a field, and a freed or closed array still prints (as such).  On the host
-- (cuarr.cpu) and on the device (cuarr).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

-- The pairs of an iterator triple, collected.
local function collect(f, s, c)
  local keys, values = {}, {}
  for i, v in f, s, c do
    keys[#keys + 1] = i
    values[#values + 1] = v
  end
  return keys, values
end

for _, b in ipairs(H.backends) do
  local xp = b.xp
  describe("iteration on " .. b.name, function()
    b.it("pairs over a 1-D array gives i, a[i] as Lua values", function()
      local a = xp.arange(1, 5)
      local keys, values = collect(pairs(a))
      assert.are.same({ 1, 2, 3, 4 }, keys)
      assert.are.same({ 1, 2, 3, 4 }, values)
      assert.is_true(math.type(values[1]) == "integer")
    end)

    b.it("pairs over a bool array gives booleans", function()
      local a = xp.array({ true, false, true })
      local _, values = collect(pairs(a))
      assert.are.same({ true, false, true }, values)
    end)

    b.it("pairs over a 2-D array gives views of its rows", function()
      local a = xp.arange(6):reshape(2, 3)
      local keys, values = collect(pairs(a))
      assert.are.same({ 1, 2 }, keys)
      assert.are.equal(cuarr.ndarray, getmetatable(values[1]))
      assert.are.same({ 0, 1, 2 }, values[1]:totable())
      assert.are.same({ 3, 4, 5 }, values[2]:totable())
      values[2][1] = 30  -- a view: writes reach a
      assert.are.equal(30, a[{ 2, 1 }])
    end)

    b.it("pairs over a 3-D view walks the view's first axis", function()
      local a = xp.arange(24):reshape(2, 3, 4)
      local v = a:transpose(3, 1, 2)
      local keys, values = collect(pairs(v))
      assert.are.same({ 1, 2, 3, 4 }, keys)
      assert.are.same({ 2, 3 }, values[4].shape)
      assert.are.same(v[4]:totable(), values[4]:totable())
    end)

    b.it("pairs over an empty array runs no iteration", function()
      local keys = collect(pairs(xp.zeros({ 0, 3 })))
      assert.are.same({}, keys)
    end)

    b.it("a:iter() gives the same triple as pairs(a)", function()
      local a = xp.arange(3) * 2
      local k1, v1 = collect(a:iter())
      local k2, v2 = collect(pairs(a))
      assert.are.same(k1, k2)
      assert.are.same(v1, v2)
      assert.are.same({ 0, 2, 4 }, v1)
    end)

    b.it("pairs over a 0-d array is a TypeError", function()
      local a = xp.array(5)
      local err = H.raises("TypeError", function() return pairs(a) end)
      assert.matches("iteration over a 0-d array", err.message, 1, true)
      H.raises("TypeError", function() return a:iter() end)
    end)

    b.it("pairs over a freed array is a ValueError", function()
      local a = xp.arange(3)
      a:free()
      H.raises("ValueError", function() return pairs(a) end)
    end)

    b.it("ipairs reads past the end and the IndexError says to use pairs", function()
      local a = xp.arange(3)
      local seen = 0
      local err = H.raises("IndexError", function()
        for _ in ipairs(a) do seen = seen + 1 end
      end)
      assert.are.equal(3, seen)
      assert.matches("use pairs(a) or a:iter()", err.message, 1, true)
      -- a[k] out of range stays an IndexError
      H.raises("IndexError", function() return a[4] end)
    end)
  end)

  describe("shape and strides on " .. b.name, function()
    b.it("print as tuples", function()
      assert.are.equal("(2, 3)", tostring(xp.zeros({ 2, 3 }, "float32").shape))
      assert.are.equal("(12, 4)", tostring(xp.zeros({ 2, 3 }, "float32").strides))
      assert.are.equal("(3,)", tostring(xp.zeros(3).shape))
      assert.are.equal("(8,)", tostring(xp.zeros(3).strides))
      assert.are.equal("()", tostring(xp.array(1.5).shape))
      assert.are.equal("()", tostring(xp.array(1.5).strides))
    end)

    b.it("stay sequences", function()
      local s = xp.zeros({ 2, 3, 4 }).shape
      assert.are.equal("table", type(s))
      assert.are.equal(3, #s)
      assert.are.equal(4, s[3])
      local seen = {}
      for i, v in ipairs(s) do seen[i] = v end
      assert.are.same({ 2, 3, 4 }, seen)
      assert.are.same({ 2, 3, 4 }, { table.unpack(s) })
      local kv = {}
      for k, v in pairs(s) do kv[k] = v end
      assert.are.same({ 2, 3, 4 }, kv)
      assert.are.equal("2x3x4", table.concat(s, "x"))
    end)

    b.it("refuse writes, of an extent or a new entry, with a TypeError", function()
      local a = xp.zeros({ 2, 3 })
      for _, field in ipairs({ "shape", "strides" }) do
        local t = a[field]
        local before = { table.unpack(t) }
        for _, key in ipairs({ 1, 2, 3, "x" }) do
          local ok, e = pcall(function() t[key] = 5 end)
          assert.is_false(ok)
          assert.is_true(cuarr.is_error(e, "TypeError"))
          assert.matches("read%-only", e.message)
        end
        assert.are.same(before, { table.unpack(a[field]) })
        assert.are.same(before, { table.unpack(t) })
      end
      -- a copy is a plain table, free to change, and takes the shape's place anywhere
      local s = { table.unpack(a.shape) }
      s[1] = 4
      assert.are.same({ 4, 3 }, { table.unpack(xp.zeros(s).shape) })
      assert.are.same({ 2, 3 }, { table.unpack(xp.ones(a.shape).shape) })
      assert.are.same({ 2, 2, 3 }, { table.unpack(xp.indices(a.shape).shape) })
      assert.are.same({ 2, 6 }, { table.unpack(xp.tile(xp.ones(2), a.shape).shape) })
      assert.are.same({ 2, 3 }, { table.unpack(xp.random.random(a.shape).shape) })
    end)

    b.it("compare with == to each other and to plain tables", function()
      local a = xp.zeros({ 2, 3 })
      assert.is_true(a.shape == { 2, 3 })
      assert.is_true({ 2, 3 } == a.shape)
      assert.is_true(a.shape == xp.ones({ 2, 3 }).shape)
      assert.is_false(a.shape == { 3, 2 })
      assert.is_false(a.shape == { 2, 3, 1 })
      assert.is_false(a.shape == { 2 })
      assert.is_true(xp.array(1).shape == {})
      assert.is_true(a.strides == { 24, 8 })
    end)

    b.it("their metamethods called on other values give error objects", function()
      local tuple_mt = getmetatable(xp.zeros(2).shape)
      H.raises("TypeError", tuple_mt.__tostring, xp.zeros(2))
      H.raises("TypeError", tuple_mt.__tostring)
      assert.is_false(tuple_mt.__eq(xp.zeros(2), { 2 }))
      assert.is_false(tuple_mt.__eq())
    end)
  end)

  describe("a.T on " .. b.name, function()
    b.it("is a field on 1-D, 2-D and 3-D arrays and on views", function()
      local v = xp.arange(3)
      assert.are.same({ 3 }, v.T.shape)
      assert.are.same({ 0, 1, 2 }, v.T:totable())
      local m = xp.arange(6):reshape(2, 3)
      assert.are.same({ 3, 2 }, m.T.shape)
      assert.are.same({ { 0, 3 }, { 1, 4 }, { 2, 5 } }, m.T:totable())
      local c = xp.arange(24):reshape(2, 3, 4)
      assert.are.same({ 4, 3, 2 }, c.T.shape)
      assert.are.equal(c[{ 2, 3, 1 }], c.T[{ 1, 3, 2 }])
      local s = m[{ {}, { 2, 3 } }]
      assert.are.same({ { 1, 4 }, { 2, 5 } }, s.T:totable())
      assert.are.same(m:totable(), m.T.T:totable())
    end)

    b.it("is a view of the same memory", function()
      local m = xp.zeros({ 2, 3 })
      local t = m.T
      t[{ 3, 1 }] = 9
      assert.are.equal(9, m[{ 1, 3 }])
      assert.are.equal(m, t.base)
    end)

    b.it("of a freed array is a ValueError", function()
      local m = xp.zeros({ 2, 3 })
      m:free()
      H.raises("ValueError", function() return m.T end)
    end)
  end)

  describe("printing a dead array on " .. b.name, function()
    b.it("a freed array prints as freed, with its dtype and shape", function()
      local a = xp.zeros({ 2, 3 }, "float32")
      local v = a[1]
      a:free()
      assert.are.equal("<freed cuarr.ndarray float32 (2, 3)>", tostring(a))
      assert.are.equal("<freed cuarr.ndarray float32 (3,)>", tostring(v))
      assert.are.equal(tostring(a), a:repr())
      assert.are.equal(tostring(a), a:str())
      local z = xp.array(1)
      z:free()
      assert.are.equal("<freed cuarr.ndarray int64 ()>", tostring(z))
    end)

    b.it("a closed array prints as closed", function()
      local x
      do
        local y <close> = xp.arange(3)
        x = y
      end
      assert.are.equal("<closed cuarr.ndarray int64 (3,)>", tostring(x))
    end)

    b.it("print() and string.format of a freed array do not raise", function()
      local a = xp.zeros(2)
      a:free()
      -- print and %s both go through luaL_tolstring, hence __tostring
      assert.are.equal("<freed cuarr.ndarray float64 (2,)>", string.format("%s", a))
    end)
  end)
end
