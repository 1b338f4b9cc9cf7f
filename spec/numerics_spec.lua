-- Issue 28's numerics, host and device: integer powers with negative exponents raise NumPy's
-- ValueError; n-ary promotion is result_type of all operands at once (cuarr.result_type);
-- linspace floors for integer dtypes; histogram refuses bins too narrow to have a width; clip
-- takes nil for either bound (NumPy's None).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local NEG = "Integers to negative integer powers are not allowed."

local function same(t, a)
  assert.are.same(t, cuarr.cpu.asarray(a):totable())
end

for _, b in ipairs(H.backends) do
  local xp = b.xp

  describe("power with a negative integer exponent " .. b.name, function()
    b.it("raises NumPy's ValueError for a Lua number exponent, every integer dtype and bool",
      function()
        for _, dt in ipairs { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64", "bool" } do
          local a = xp.ones({ 2, 3 }, dt)
          local err = H.raises("ValueError", function() return a ^ -1 end)
          if not dt:match("^uint") then -- there -1 is out of uint's range, as NumPy's error
            assert.matches(NEG, err.message, 1, true)
          end
          H.raises("ValueError", xp.power, a, -2)
          H.raises("ValueError", function() return a:power(-3) end)
          H.raises("ValueError", xp.power, a[{ {}, { 2, 3 } }], -1) -- a view
        end
        H.raises("ValueError", xp.power, xp.array(3, "int32"), -1) -- 0-d
        H.raises("ValueError", xp.power, 2, -1) -- Lua numbers only
      end)
    b.it("leaves out= unchanged", function()
      local out = xp.full({ 3 }, 7, "int64")
      H.raises("ValueError", xp.power, xp.array({ 2, 1, -1 }), -1, out)
      same({ 7, 7, 7 }, out)
      local fout = xp.zeros({ 3 }) -- a float out does not change the integer loop
      H.raises("ValueError", xp.power, xp.array({ 2, 1, -1 }), -1, fout)
    end)
    b.it("computes non-negative and float exponents", function()
      same({ 4, 1, 1 }, xp.array({ 2, 1, -1 }) ^ 2)
      same({ 1, 1, 1 }, xp.array({ 2, 1, -1 }, "int8") ^ 0)
      same({ 0.5, 1, -1 }, xp.array({ 2, 1, -1 }) ^ -1.0)
      assert.equal("float64", (xp.array({ 2 }, "int32") ^ -1.0).dtype)
      same({}, (xp.zeros({ 0 }, "int8") ^ 2):totable())
    end)
  end)

  describe("power with negative integers in an exponent array " .. b.name, function()
    if b.name == "cpu" then
      b.it("raises on host arrays, views and broadcasts included", function()
        local e = xp.array({ { 1, -1 }, { 2, 3 } }, "int8")
        H.raises("ValueError", xp.power, xp.array({ 2, 3 }, "uint8"), e)
        H.raises("ValueError", xp.power, 2, e[{ {}, 2 }])
        H.raises("ValueError", xp.power, xp.array({ true, false }), xp.array({ -1, 0 }))
        same({ { 2, 2 }, { 4, 8 } }, xp.power(2, xp.abs(e)))
        same({ 4, 27 }, xp.power(xp.array({ 2, 3 }), e[{ 2 }]))
      end)
    else
      b.it("computes as CuPy (no read-back): 1, +-1 or 0", function()
        same({ 0, 1, -1, 1 }, xp.power(xp.array({ 2, 1, -1, -1 }), xp.array({ -1, -1, -1, -2 })))
      end)
    end
  end)

  describe("n-ary promotion " .. b.name, function()
    b.it("is result_type of all operands, in any order", function()
      local u8, i8, f16 = xp.zeros(2, "uint8"), xp.zeros(2, "int8"), xp.zeros(2, "float16")
      assert.equal("float16", xp.concatenate({ u8, i8, f16 }).dtype)
      assert.equal("float16", xp.concatenate({ i8, f16, u8 }).dtype)
      assert.equal("float16", xp.stack({ f16, u8, i8 }).dtype)
      assert.equal("float16", xp.hstack({ u8, f16, i8 }).dtype)
      assert.equal("float16", xp.vstack({ u8, i8, f16 }).dtype)
      assert.equal("float16", xp.column_stack({ u8, i8, f16 }).dtype)
      assert.equal("float16", xp.dstack({ u8, i8, f16 }).dtype)
      assert.equal("float32", xp.concatenate({ xp.zeros(1, "uint16"), i8, f16 }).dtype)
      assert.equal("float16", xp.clip(u8, i8, f16).dtype)
      local c1, c2 = xp.array({ true, false }), xp.array({ false, true })
      local s = xp.select({ c1, c2 }, { xp.array({ 1.5, 2 }, "float16"), xp.array({ true, true }) })
      assert.equal("float16", s.dtype)
      same({ 1.5, 1 }, s)
      local t = xp.select({ c1, c2 }, { xp.array({ 1, 2 }, "uint8"), xp.array({ -3, -4 }, "int8") })
      assert.equal("int16", t.dtype)
      same({ 1, -4 }, t)
    end)
    b.it("cuarr.result_type takes arrays, dtypes and Lua numbers (weak)", function()
      assert.equal("float16", xp.result_type("uint8", "int8", "float16"))
      assert.equal("float16", xp.result_type(xp.zeros(1, "float16"), "int8", "uint8"))
      assert.equal("int8", xp.result_type(xp.zeros(1, "int8"), 3))
      assert.equal("float64", xp.result_type(xp.zeros(1, "int8"), 2.5))
      assert.equal("float32", xp.result_type("float32", 2.5, 1))
      assert.equal("int64", xp.result_type(true, 1))
      assert.equal("bool", xp.result_type(true))
      H.raises("ValueError", xp.result_type)
      H.raises("TypeError", xp.result_type, {})
      H.raises("TypeError", xp.result_type, "int9")
    end)
  end)

  describe("linspace with integer dtypes " .. b.name, function()
    b.it("floors as NumPy 2", function()
      same({ 4, 2, 0, -2, -3 }, xp.linspace(4, -3, 5, "int32"))
      same({ -3, -2, 0, 2 }, xp.linspace(-3, 4, 4, "int8", { endpoint = false }))
      same({ 0, 3, 6, 10 }, xp.linspace(0, 10, 4, "uint16"))
      same({ false, true, true }, xp.linspace(0, 1, 3, "bool")) -- bool: no floor
      same({ 4, 2.25, 0.5, -1.25, -3 }, xp.linspace(4, -3, 5, "float64"))
    end)
  end)

  describe("histogram of a range too narrow " .. b.name, function()
    b.it("raises NumPy's ValueError", function()
      local err = H.raises("ValueError", xp.histogram, xp.array({ 4611686018427387904 }), 3)
      assert.equal("Too many bins for data range. Cannot create 3 finite-sized bins.",
        err.message)
      H.raises("ValueError", xp.histogram, xp.array({ 1000 }, "float16"), 1000)
      H.raises("ValueError", xp.histogram_bin_edges, xp.array({ 4611686018427387904 }), 2)
      local counts = xp.histogram(xp.array({ 5 }), 1)
      same({ 1 }, counts)
    end)
  end)

  describe("clip with a nil bound " .. b.name, function()
    b.it("is NumPy's None: no limit on that side", function()
      local a = xp.array({ 1, 5, 9 }, "int8")
      same({ 1, 3, 3 }, xp.clip(a, nil, 3))
      same({ 2, 5, 9 }, xp.clip(a, 2, nil))
      same({ 2, 5, 9 }, a:clip(2, nil))
      same({ 1, 5, 9 }, xp.clip(a, nil, 300))
      same({ 1, 5, 9 }, xp.clip(a, nil, nil)) -- a copy, as NumPy 2
      assert.equal("int8", xp.clip(a, nil, 3).dtype)
      assert.equal("float32", xp.clip(xp.array({ 1, 2 }, "float32"), 1.5, nil).dtype)
      same({ 1 / 0, 2 }, xp.clip(xp.array({ 1 / 0, -1 / 0 }), 2, nil))
      same({ 2, 5 }, xp.clip(xp.array({ 0, 5 }, "uint64"), 2, nil))
      same({ true, true }, xp.clip(xp.array({ true, false }), true, nil))
      local f = xp.clip(xp.array({ 0 / 0, 1 }), nil, 0.5):totable()
      assert.is_true(f[1] ~= f[1])
      local out = xp.zeros(3, "int8")
      xp.clip(a, nil, 4, out)
      same({ 1, 4, 4 }, out)
      H.raises("TypeError", xp.clip, a, 2) -- a bound left out, as NumPy's
    end)
  end)
end
