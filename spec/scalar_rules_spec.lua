-- The one rule where a Lua number meets a dtype (issue 28, items 2, 3 and 19): a Lua integer
-- that an integer dtype cannot hold is a ValueError wherever it becomes an element (masks,
-- index arrays, put, kernel arguments too); Lua floats keep the saturating cast and float
-- dtypes round; uint64 elements read back as the Lua integers of their 64 bits and write back
-- unchanged; positional nils in creation functions mean the default.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local function values(a) return a:get():totable() end

describe("a Lua integer out of a dtype's range", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("is a ValueError in masks, index arrays, put and tables assigned", function()
      local a = xp.zeros(3, "uint8")
      H.raises("ValueError", function() a[xp.array({ true, false, true })] = 256 end)
      H.raises("ValueError", function() a[xp.array({ 1, 3 })] = -1 end)
      H.raises("ValueError", function() a[{ { 1, 3 } }] = { 1, 2, 300 } end)
      H.raises("ValueError", function() xp.put(a, { 1 }, 300) end)
      H.raises("ValueError", function() xp.put(a, { 1, 2 }, { 1, 300 }) end)
      H.raises("ValueError", function() xp.full_like(a, 256) end)
      H.raises("ValueError", function() xp.asarray({ { 1 }, { -129 } }, "int8") end)
      H.raises("ValueError", function() a.T:fill(-1) end)
      assert.same({ 0, 0, 0 }, values(a)) -- nothing written
      -- 0-d and empty arrays: the value is converted before anything is written, as NumPy's
      local z = xp.zeros({}, "int16")
      H.raises("ValueError", function() z[{}] = 40000 end)
      H.raises("ValueError", function() xp.zeros({ 0 }, "uint8"):fill(256) end)
      H.raises("ValueError", function() xp.array(128, "int8") end)
      H.raises("ValueError", function() xp.array({}, "int8"):fill(-129) end)
      assert.equal(0, z:item())
    end)

    b.it("names the value and the dtype, as NumPy's OverflowError", function()
      local err = H.raises("ValueError", function() return xp.full({ 2 }, 70000, "int16") end)
      assert.equal("integer 70000 out of bounds for int16", err.message)
    end)

    b.it("keeps the saturating cast of floats and the rounding of float dtypes", function()
      assert.same({ 127, -128 }, values(xp.array({ 300.0, -1e30 }, "int8")))
      assert.same({ 255 }, values(xp.full({ 1 }, 1e9, "uint8")))
      assert.equal(math.huge, xp.full({ 1 }, 1 << 62, "float16")[1])
      assert.same({ true }, values(xp.array({ 300 }, "bool")))
      assert.same({ 255, 0 }, values(xp.array({ 255, 0 }, "uint8")))
    end)
  end

  H.gpu_it("is a ValueError as an ElementwiseKernel's typed argument", function()
    local k = cuarr.ElementwiseKernel("int8 s", "int8 y", "y = s", "scalars_rule_kernel")
    local y = cuarr.zeros(2, "int8")
    H.raises("ValueError", function() k(300, y) end)
    k(-128, y)
    assert.same({ -128, -128 }, values(y))
  end)

  H.gpu_it("is a ValueError as a ReductionKernel's typed argument", function()
    local k = cuarr.ReductionKernel("T x, int8 s", "T y", "x * s", "a + b", "y = a", "0",
      "scalars_rule_reduction")
    H.raises("ValueError", function() return k(cuarr.ones(3, "float32"), 300) end)
    assert.equal(-6.0, k(cuarr.ones(3, "float32"), -2):item())
  end)
end)

describe("uint64 elements from 2^63 on", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("read back as the Lua integers of their 64 bits and write back unchanged", function()
      local bits = { -1, math.mininteger, 0x8000000000000001, 0, math.maxinteger, 5 }
      local a = xp.array(bits, "uint64")
      for i, x in ipairs(bits) do
        assert.equal(x, a[i])
        assert.equal("integer", math.type(a[i]))
        assert.equal(x, a[{ i }])
        assert.equal(x, a[{ { i, i } }]:item())
      end
      assert.same(bits, a:totable())
      assert.equal("ffffffffffffffff", string.format("%x", a[1]))
      assert.is_true(math.ult(a[6], a[2])) -- 5 < 2^63 as unsigned
      local c = xp.zeros(#bits, "uint64")
      for i = 1, #bits do c[i] = a[i] end
      assert.same(bits, c:totable())
      assert.equal("array([18446744073709551615,  9223372036854775808], dtype=uint64)",
        tostring(xp.array({ 0xFFFFFFFFFFFFFFFF, 1 << 63 }, "uint64"):get()))
      assert.equal(-1, xp.full({ 1 }, -1, "uint64")[1])
      assert.equal(-1, a:max():item()) -- 2^64 - 1
      -- in arithmetic and comparisons a Lua integer keeps its value (NumPy's); an element
      -- compares through an array
      assert.same({ true, true, true, true, true, true }, values(a:gt(-1)))
      H.raises("ValueError", function() return a + (-1) end)
      assert.same({ true, false, false, false, false, false },
        values(a:eq(xp.full({}, a[1], "uint64"))))
      local v = a[{ { 2, 3 } }] -- a view
      v[1] = v[2]
      assert.equal(0x8000000000000001, a[2])
    end)
  end
end)

describe("positional nils in creation functions", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("mean the default before a dtype or an options table", function()
      local e = xp.eye(3, nil, nil, "float32")
      assert.equal("float32", e.dtype)
      assert.same({ 3, 3 }, { e.shape[1], e.shape[2] })
      assert.same({ { 0, 1 }, { 0, 0 } }, values(xp.eye(2, nil, 1, "int8")))
      assert.equal("int16", xp.eye(2, nil, nil, nil, { dtype = "int16" }).dtype)
      assert.equal("int8", xp.identity(2, nil, "int8").dtype)
      assert.equal("uint8", xp.zeros({ 2 }, nil, { dtype = "uint8" }).dtype)
      assert.equal("int32", xp.ones({ 2 }, nil, "int32").dtype)
      assert.equal("int8", xp.empty({ 2 }, nil, nil, "int8").dtype)
      assert.equal("int16", xp.full({ 2 }, 7, nil, "int16").dtype)
      local like = xp.zeros({ 2 }, "float32")
      assert.equal("int8", xp.zeros_like(like, nil, "int8").dtype)
      assert.equal("float32", xp.ones_like(like, nil, nil).dtype)
      assert.equal("uint16", xp.full_like(like, 1, nil, "uint16").dtype)
      assert.same({ 0, 1, 2 }, values(xp.arange(3, nil, "int8")))
      assert.equal("int8", xp.arange(0, 4, nil, "int8").dtype)
      local l = xp.linspace(0, 1, nil, "float32")
      assert.equal(50, l.size)
      assert.equal("float32", l.dtype)
      assert.equal("int64", xp.array({ 1 }, nil, { order = "C" }).dtype)
      H.raises("TypeError", function() return xp.eye(3, nil, nil, 5) end)
    end)
  end
end)
