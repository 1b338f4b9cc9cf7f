-- Lua's operators on arrays, host and device: + - * / // % ^ and unary -, the bitwise
-- & | ~ << >> and unary ~ on integer and bool arrays, with arrays or Lua numbers on either
-- side; comparisons are methods (a:lt(b), ...) because Lua's < and <= must give a boolean: they
-- raise a TypeError naming the methods; == is identity.
--
-- Values are checked against the element references of spec/support/ufunc_ref.lua.  Device
-- kernels: arrays of one dtype reuse the ufunc sweep's loops; each (operator, dtype, side of
-- the Lua number) compiles one more (about 45 in all).
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.ufunc_ref"
local cuarr = H.cuarr

local type, mtype, ipairs, tostring = type, math.type, ipairs, tostring
local fmt = string.format
local NAN, INF = 0 / 0, math.huge

local same = A.same

local values = A.values

-- got (an array) holds f(k) at every position k, of dtype dt.
local function check(got, dt, f, what)
  assert.are.equal(dt, got.dtype, what .. ": dtype")
  local v = values(got)
  for k = 1, #v do
    local w = f(k)
    if not same(v[k], w) then
      error(fmt("%s, element %d: got %s, expected %s", what, k, tostring(v[k]), tostring(w)), 2)
    end
  end
end

local I32 = { 7, -7, 0, 1, -1, 100, -128, 2147483647, -2147483648, 12, 5, -3, 30 }
local I32B = { 2, 2, -3, 0, 5, -7, 3, 2, -1, 0, 31, 4, 1 }
local F32 = { 1.5, -2.25, 0.0, -0.0, 3.0, 1e10, -7.5, 0.125, NAN, INF, 2.0, -1.0, 100.0 }
local F32B = { 2.0, 0.5, -3.0, 4.0, 0.0, -1e-3, 2.0, -8.0, 1.0, 2.0, INF, -0.0, 3.0 }
for k, v in ipairs(F32B) do F32B[k] = A.f32(v) end

-- The arithmetic operators as functions of two operands, with their ufuncs.
local ARITH = {
  { "+", "add", function(x, y) return x + y end },
  { "-", "subtract", function(x, y) return x - y end },
  { "*", "multiply", function(x, y) return x * y end },
  { "/", "divide", function(x, y) return x / y end },
  { "//", "floor_divide", function(x, y) return x // y end },
  { "%", "remainder", function(x, y) return x % y end },
  { "^", "power", function(x, y) return x ^ y end },
}
local BITWISE = {
  { "&", "bitwise_and", function(x, y) return x & y end },
  { "|", "bitwise_or", function(x, y) return x | y end },
  { "~", "bitwise_xor", function(x, y) return x ~ y end },
  { "<<", "left_shift", function(x, y) return x << y end },
  { ">>", "right_shift", function(x, y) return x >> y end },
}

-- int32 / int32 divides in float64.
local function int_divide(x, y) return (x + 0.0) / (y + 0.0) end

describe("arithmetic operators", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("+ - * / // % ^ on two int32 arrays are the ufuncs", function()
      local x, y = xp.array(I32, "int32"), xp.array(I32B, "int32")
      for _, op in ipairs(ARITH) do
        local sym, name, f = op[1], op[2], op[3]
        local r = name ~= "power" and f(x, y)
        if name == "divide" then
          check(r, "float64", function(k) return int_divide(I32[k], I32B[k]) end, "int32 / int32")
        else
          local yb = I32B
          if name == "power" then
            -- non-negative: a negative integer exponent is NumPy's ValueError on the host
            -- (numerics_spec.lua)
            yb = { 2, 0, 3, 9, 1, 4, 2, 1, 6, 5, 0, 7, 1 }
            r = f(x, xp.array(yb, "int32"))
          end
          check(r, "int32", function(k) return R.expected(name, "int32", I32[k], yb[k]) end,
            "int32 " .. sym .. " int32")
        end
      end
    end)

    b.it("+ - * / // % on two float32 arrays are the ufuncs", function()
      local x, y = xp.array(F32, "float32"), xp.array(F32B, "float32")
      for _, op in ipairs(ARITH) do
        local sym, name, f = op[1], op[2], op[3]
        if name ~= "power" then
          check(f(x, y), "float32", function(k)
            return R.expected(name, "float32", A.f32(F32[k]), F32B[k])
          end, "float32 " .. sym .. " float32")
        end
      end
    end)

    b.it("Lua integers on either side of int32 arrays", function()
      local x = xp.array(I32, "int32")
      for _, s in ipairs({ 3, -2 }) do
        for _, op in ipairs(ARITH) do
          local sym, name, f = op[1], op[2], op[3]
          if name == "divide" then
            check(f(x, s), "float64", function(k) return int_divide(I32[k], s) end,
              "int32 / " .. s)
            check(f(s, x), "float64", function(k) return int_divide(s, I32[k]) end,
              s .. " / int32")
          else
            if name == "power" and s < 0 then -- NumPy's ValueError (numerics_spec.lua)
              H.raises("ValueError", f, x, s)
            else
              check(f(x, s), "int32", function(k) return R.expected(name, "int32", I32[k], s) end,
                "int32 " .. sym .. " " .. s)
            end
            local e = I32
            if name == "power" then -- the array as the exponent: its non-negative elements
              e = {}
              for k, v in ipairs(I32) do e[k] = v < 0 and -(v + 1) or v end
            end
            check(f(s, xp.array(e, "int32")), "int32", function(k)
              return R.expected(name, "int32", s, e[k])
            end, s .. " " .. sym .. " int32")
          end
        end
      end
    end)

    b.it("Lua floats on either side of float32 arrays are float32 (NEP 50)", function()
      local x = xp.array(F32, "float32")
      for _, s in ipairs({ 2.5, 0.1, -0.0 }) do
        local s32 = A.f32(s) -- the weak float is converted to the array's dtype
        for _, op in ipairs(ARITH) do
          local sym, name, f = op[1], op[2], op[3]
          if name ~= "power" then
            check(f(x, s), "float32", function(k)
              return R.expected(name, "float32", A.f32(F32[k]), s32)
            end, "float32 " .. sym .. " " .. s)
            check(f(s, x), "float32", function(k)
              return R.expected(name, "float32", s32, A.f32(F32[k]))
            end, s .. " " .. sym .. " float32")
          end
        end
      end
    end)

    b.it("^ is power: integer powers of integer arrays, float powers within ulps", function()
      local xv = { 2, -3, 0, 1, 10, -1, 7 }
      local x = xp.array(xv, "int32")
      check(x ^ 3, "int32", function(k) return R.expected("power", "int32", xv[k], 3) end,
        "int32 ^ 3")
      check(2 ^ xp.array({ 0, 1, 10, 30, 31, 32, 33 }, "int32"), "int32", function(k)
        return ({ 1, 2, 1024, 1073741824, -2147483648, 0, 0 })[k]
      end, "2 ^ int32")
      local f = xp.array({ 1.5, 4.0, 0.25, 9.0, 2.0 }, "float32")
      local r = f ^ 0.5
      assert.are.equal("float32", r.dtype)
      local got = values(r)
      for k, v in ipairs({ 1.5, 4.0, 0.25, 9.0, 2.0 }) do
        local h, l = R.exact("power", v, 0.5)
        assert(R.ulp_error(got[k], h, l, "float32") <= R.tolerance("power", "float32"),
          fmt("%g ^ 0.5 = %.17g", v, got[k]))
      end
      r = x ^ 0.5 -- an integer array with a Lua float: float64
      assert.are.equal("float64", r.dtype)
    end)

    b.it("unary minus negates, wrapping for unsigned and integer minima", function()
      check(-xp.array(I32, "int32"), "int32", function(k) return R.wrap(-I32[k], "int32") end,
        "-int32")
      check(-xp.array({ 0, 1, 255, 128 }, "uint8"), "uint8", function(k)
        return ({ 0, 255, 1, 128 })[k]
      end, "-uint8")
      check(-xp.array(F32, "float32"), "float32", function(k) return -A.f32(F32[k]) end,
        "-float32")
      local err = H.raises("TypeError", function() return -xp.array({ true }, "bool") end)
      assert.truthy(err.message:find("logical_not", 1, true), err.message)
    end)

    b.it("integer // and % by zero give 0", function()
      local x = xp.array(I32, "int32")
      check(x // 0, "int32", function() return 0 end, "int32 // 0")
      check(x % 0, "int32", function() return 0 end, "int32 % 0")
      check(x // xp.zeros(#I32, "int32"), "int32", function() return 0 end, "int32 // zeros")
    end)

    b.it("float16 arrays with Lua floats stay float16", function()
      local h = xp.array({ 0.1, 1.0, 65504.0, -2.0 }, "float16")
      local r = h + h
      assert.are.equal("float16", r.dtype)
      A.check_equal(values(r), { R.f16(2 * R.f16(0.1)), 2.0, INF, -4.0 }, "float16 + float16")
    end)

    b.it("arithmetic operands that are not numbers are TypeErrors", function()
      local x = xp.array({ 1, 2 }, "int32")
      H.raises("TypeError", function() return x + "1" end)
      H.raises("TypeError", function() return "1" * x end)
      H.raises("TypeError", function() return x - {} end)
      H.raises("TypeError", function() return x / print end)
    end)
  end
end)

describe("bitwise operators", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    local I = { 0, 1, -1, 6, -6, 255, -2147483648, 2147483647, 12345, 3 }
    local S = { 0, 1, 31, 32, 33, 5, 1, 4, 40, -1 }
    b.it("& | ~ << >> on two int32 arrays", function()
      local x, y = xp.array(I, "int32"), xp.array(S, "int32")
      for _, op in ipairs(BITWISE) do
        local sym, name, f = op[1], op[2], op[3]
        check(f(x, y), "int32", function(k) return R.expected(name, "int32", I[k], S[k]) end,
          "int32 " .. sym .. " int32")
      end
      check(~x, "int32", function(k) return ~I[k] end, "~int32")
    end)

    b.it("Lua integers on either side of int32 arrays", function()
      local x = xp.array(I, "int32")
      for _, op in ipairs(BITWISE) do
        local sym, name, f = op[1], op[2], op[3]
        check(f(x, 5), "int32", function(k) return R.expected(name, "int32", I[k], 5) end,
          "int32 " .. sym .. " 5")
        local y = xp.array(S, "int32")
        check(f(3, y), "int32", function(k) return R.expected(name, "int32", 3, S[k]) end,
          "3 " .. sym .. " int32")
      end
    end)

    b.it("uint8 and uint64 arrays: wrapping and unsigned shifts", function()
      local u = xp.array({ 0, 1, 128, 255, 15 }, "uint8")
      check(~u, "uint8", function(k) return ({ 255, 254, 127, 0, 240 })[k] end, "~uint8")
      check(u << u, "uint8", function(k) return R.expected("left_shift", "uint8",
        ({ 0, 1, 128, 255, 15 })[k], ({ 0, 1, 128, 255, 15 })[k]) end, "uint8 << uint8")
      local err = H.raises("ValueError", function() return u & 256 end)
      assert.truthy(err.message:find("256", 1, true), err.message)
      H.raises("ValueError", function() return u | -1 end)
      local big = xp.array({ -1, 1 << 63, 5 }, "uint64") -- 2^64 - 1, 2^63, 5
      local r = big >> xp.array({ 60, 63, 1 }, "uint64")
      check(r, "uint64", function(k) return ({ 15, 1, 2 })[k] end, "uint64 >> uint64")
    end)

    b.it("& | ~ on bool arrays are logical, and ~ is not", function()
      local p = xp.array({ true, true, false, false }, "bool")
      local q = xp.array({ true, false, true, false }, "bool")
      check(p & q, "bool", function(k) return ({ true, false, false, false })[k] end, "&")
      check(p | q, "bool", function(k) return ({ true, true, true, false })[k] end, "|")
      check(p ~ q, "bool", function(k) return ({ false, true, true, false })[k] end, "~")
      check(~p, "bool", function(k) return ({ false, false, true, true })[k] end, "unary ~")
    end)

    b.it("bitwise operators on float arrays, or with Lua floats, are TypeErrors", function()
      local f = xp.array({ 1.0, 2.0 }, "float32")
      local i = xp.array({ 1, 2 }, "int32")
      for _, op in ipairs(BITWISE) do
        local err = H.raises("TypeError", op[3], f, f)
        assert.truthy(err.message:find(op[2], 1, true), err.message)
        H.raises("TypeError", op[3], i, 1.5)
        H.raises("TypeError", op[3], 1.5, i)
      end
      H.raises("TypeError", function() return ~f end)
    end)
  end
end)

describe("comparisons", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("< <= > >= raise a TypeError naming the methods", function()
      local x = xp.array({ 1, 2 }, "int32")
      local y = xp.array({ 2, 1 }, "int32")
      local ops = {
        function() return x < y end, function() return x <= y end,
        function() return x > y end, function() return x >= y end,
        function() return x < 1 end, function() return 1 <= x end,
      }
      for _, f in ipairs(ops) do
        local err = H.raises("TypeError", f)
        assert.truthy(err.message:find("a:lt(b)", 1, true), err.message)
        assert.truthy(err.message:find("cuarr.less", 1, true), err.message)
      end
    end)

    b.it("== is identity, not elementwise", function()
      local x = xp.array({ 1, 2 }, "int32")
      local y = x:copy()
      assert.is_true(x == x)
      assert.is_false(x == y)
      assert.is_true(x ~= y)
      assert.is_false(x == 1)
    end)

    b.it("lt le gt ge eq ne give bool arrays, with arrays or Lua numbers", function()
      local xv, yv = { 1, 2, 3, -4 }, { 2, 2, 1, -4 }
      local x, y = xp.array(xv, "int32"), xp.array(yv, "int32")
      local methods = { lt = "less", le = "less_equal", gt = "greater", ge = "greater_equal",
                        eq = "equal", ne = "not_equal" }
      for m, name in pairs(methods) do
        check(x[m](x, y), "bool", function(k) return R.expected(name, "int32", xv[k], yv[k]) end,
          "x:" .. m .. "(y)")
      end
      check(x:lt(2), "bool", function(k) return xv[k] < 2 end, "x:lt(2)")
      check(x:ge(2), "bool", function(k) return xv[k] >= 2 end, "x:ge(2)")
      check(xp.less(2, x), "bool", function(k) return 2 < xv[k] end, "less(2, x)")
    end)
  end
end)

describe("operators on device and host arrays together", function()
  H.gpu_it("are ValueErrors", function()
    local d = cuarr.array({ 1, 2 }, "int32")
    local h = cuarr.cpu.array({ 1, 2 }, "int32")
    H.raises("ValueError", function() return d + h end)
    H.raises("ValueError", function() return h * d end)
    H.raises("ValueError", function() return d & h end)
    H.raises("ValueError", function() return d:lt(h) end)
  end)
end)
