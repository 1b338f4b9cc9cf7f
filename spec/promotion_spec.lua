-- Type promotion as NumPy 2 does it (NEP 50), from Lua, host and device: the cases that trip
-- people -- int8 with uint8, int64 with float32, uint64 with int64, a Lua float with an int32
-- array, float16 -- and the weak Lua scalars: a Lua integer takes an integer or float array's
-- dtype (and must fit an integer one: uint8 + 300 is a ValueError, NumPy's OverflowError), a
-- Lua float takes a float array's dtype or the default float dtype.  Each case checks the
-- result's dtype against NumPy 2's and its values against Lua arithmetic; device results
-- must equal the host's.
--
-- Device kernels: one per case with mixed dtypes or a scalar (about 40).
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.ufunc_ref"
local cuarr = H.cuarr

local type, mtype, ipairs, tostring = type, math.type, ipairs, tostring
local fmt = string.format
local INF = math.huge
local U63 = 1 << 63 -- as uint64: 2^63

local values = A.values

-- A Lua value of dtype dt as the number it stands for.
local function num(v, dt)
  if type(v) == "boolean" then return v and 1 or 0 end
  if dt == "uint64" then return A.u64_value(v) end
  return v
end

-- The expected element of op(x, y) in result dtype rdt: computed exactly in Lua, then rounded
-- or wrapped to rdt (float16 goes through float32, as cuarr computes it).
local OPS = {
  add = function(x, y) return x + y end,
  subtract = function(x, y) return x - y end,
  multiply = function(x, y) return x * y end,
  divide = function(x, y) return (x + 0.0) / (y + 0.0) end,
}
local function want(op, x, dx, y, dy, rdt)
  if rdt == "bool" then return OPS[op](num(x, dx), num(y, dy)) ~= 0 end
  if R.is_float(rdt) then -- each operand converted to the loop's dtype, then the operation
    local r = R.round_to(rdt)
    local v = OPS[op](r(num(x, dx) + 0.0), r(num(y, dy) + 0.0))
    if rdt == "float16" then return R.f16(A.f32(v)) end
    return r(v)
  end
  local function int(v) -- integers wrap: their bits (uint64 as a Lua integer)
    if type(v) == "boolean" then return v and 1 or 0 end
    return v
  end
  return R.wrap(OPS[op](int(x), int(y)), rdt)
end

-- Operands: {dtype, values} for an array, a Lua number (or boolean) for a weak scalar.
local function operand(xp, o)
  if type(o) == "table" then return xp.array(o[2], o[1]) end
  return o
end
local function element(o, k)
  if type(o) == "table" then return o[2][k], o[1] end
  return o, (mtype(o) == "integer" and "int64") or (mtype(o) == "float" and "float64") or "bool"
end
local function describe_operand(o)
  if type(o) == "table" then return o[1] end
  return tostring(o)
end

local I8 = { "int8", { -128, -1, 0, 1, 127 } }
local U8 = { "uint8", { 255, 255, 0, 1, 128 } }
local I16 = { "int16", { -32768, -1, 0, 300, 32767 } }
local U16 = { "uint16", { 65535, 1, 0, 300, 40000 } }
local I32 = { "int32", { -2147483648, -1, 0, 7, 2147483647 } }
local U32 = { "uint32", { 4294967295, 1, 0, 7, 2147483648 } }
local I64 = { "int64", { math.mininteger, -1, 0, (1 << 53) + 1, math.maxinteger } }
local U64 = { "uint64", { -1, U63, 0, (1 << 53) + 1, 5 } } -- 2^64 - 1, 2^63, ...
local F16 = { "float16", { -65504.0, R.f16(0.1), 0.5, 1.5, 2048.0 } }
local F32 = { "float32", { -3.4028234663852886e38, A.f32(0.1), 0.5, 16777216.0, 3.0 } }
local F64 = { "float64", { -1e300, 0.1, 0.5, 2.0 ^ 53, 1e-300 } }
local B = { "bool", { true, false, true, false, true } }

-- {operand a, operand b, ufunc, NumPy 2's result dtype}
local CASES = {
  -- signed with unsigned: the next wider signed type; 64 bits: float64
  { I8, U8, "add", "int16" }, { U8, I8, "subtract", "int16" }, { I16, U16, "add", "int32" },
  { I32, U32, "add", "int64" }, { U32, I8, "multiply", "int64" },
  { I64, U64, "add", "float64" }, { U64, I64, "subtract", "float64" },
  { U8, U64, "add", "uint64" }, { I8, I64, "add", "int64" },
  -- integers with floats: the smallest float that holds the integer type
  { I64, F32, "add", "float64" }, { F32, I32, "multiply", "float64" }, { I16, F32, "add", "float32" },
  { I8, F16, "add", "float16" }, { U8, F16, "subtract", "float16" }, { I16, F16, "add", "float32" },
  { U16, F16, "add", "float32" }, { I32, F16, "add", "float64" }, { U64, F16, "add", "float64" },
  { F16, F32, "add", "float32" }, { F32, F64, "multiply", "float64" },
  -- bool gives way to everything
  { B, I8, "add", "int8" }, { B, F16, "multiply", "float16" }, { B, U64, "add", "uint64" },
  { B, B, "add", "bool" },
  -- true division of integers is float64, whatever their width
  { I8, U8, "divide", "float64" }, { I16, I16, "divide", "float64" },
  -- weak Lua scalars (NEP 50)
  { I32, 2.5, "add", "float64" }, { 2.5, I32, "subtract", "float64" },
  { F32, 2.5, "multiply", "float32" }, { F16, 1.5, "add", "float16" },
  { I8, 127, "add", "int8" }, { I8, -128, "subtract", "int8" }, { U8, 255, "add", "uint8" },
  { U8, 300.0, "add", "float64" }, { U64, 1, "add", "uint64" }, { I64, 1 << 62, "add", "int64" },
  { F32, 1 << 60, "add", "float32" }, { F16, 100000, "add", "float16" },
  { B, 1, "add", "int64" }, { B, 1.5, "multiply", "float64" }, { B, true, "add", "bool" },
  { U8, true, "add", "uint8" },
}

-- {operand a, operand b, ufunc}: a weak integer that does not fit the array's integer dtype.
local OUT_OF_BOUNDS = {
  { U8, 300, "add" }, { U8, -1, "add" }, { I8, 128, "add" }, { I8, -129, "multiply" },
  { 300, U8, "subtract" }, { U16, 65536, "maximum" }, { I32, 1 << 31, "add" },
  { U64, -1, "add" }, { U32, -1, "bitwise_and" },
}

describe("type promotion", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("gives NumPy 2's dtypes and the values of Lua arithmetic", function()
      local failures = {}
      for _, c in ipairs(CASES) do
        local oa, ob, op, rdt = c[1], c[2], c[3], c[4]
        local what = fmt("%s(%s, %s)", op, describe_operand(oa), describe_operand(ob))
        local r = xp[op](operand(xp, oa), operand(xp, ob))
        if r.dtype ~= rdt then
          failures[#failures + 1] = fmt("%s: dtype %s, NumPy 2 gives %s", what, r.dtype, rdt)
        else
          local got = values(r)
          if b.name == "gpu" then
            local host = values(cuarr.cpu[op](operand(cuarr.cpu, oa), operand(cuarr.cpu, ob)))
            local ok = pcall(A.check_list, got, host, what .. " device vs host")
            if not ok then failures[#failures + 1] = what .. ": device and host differ" end
          end
          for k = 1, #got do
            local x, dx = element(oa, k)
            local y, dy = element(ob, k)
            local w = want(op, x, dx, y, dy, rdt)
            if not A.same_value(got[k], w) then
              failures[#failures + 1] = fmt("%s, element %d: got %s, expected %s", what, k,
                A.show(got[k]), A.show(w))
              break
            end
          end
        end
      end
      assert(#failures == 0, "\n" .. table.concat(failures, "\n"))
    end)

    b.it("a Lua integer out of an integer array's range is a ValueError", function()
      for _, c in ipairs(OUT_OF_BOUNDS) do
        local oa, ob, op = c[1], c[2], c[3]
        local err = H.raises("ValueError", xp[op], operand(xp, oa), operand(xp, ob))
        assert.truthy(err.message:find("out of bounds", 1, true), err.message)
      end
    end)

    b.it("comparisons with an out-of-range Lua integer are decided by the range", function()
      local u8 = xp.array({ 0, 255 }, "uint8")
      local i8 = xp.array({ -128, 127 }, "int8")
      A.check_equal(values(u8:lt(300)), { true, true }, "uint8 < 300")
      A.check_equal(values(u8:ge(300)), { false, false }, "uint8 >= 300")
      A.check_equal(values(u8:eq(-1)), { false, false }, "uint8 == -1")
      A.check_equal(values(u8:ne(256)), { true, true }, "uint8 ~= 256")
      A.check_equal(values(u8:gt(-1)), { true, true }, "uint8 > -1")
      A.check_equal(values(i8:gt(-129)), { true, true }, "int8 > -129")
      A.check_equal(values(i8:lt(128)), { true, true }, "int8 < 128")
      A.check_equal(values(xp.less(-1, u8)), { true, true }, "-1 < uint8")
      A.check_equal(values(xp.array({ 0, -1 }, "uint64"):gt(-1)), { true, true }, "uint64 > -1")
    end)

    b.it("a Lua number's value is read on every call, in range or out of it", function()
      -- The same call kind over and over (the device remembers its decisions per kind):
      -- in-range integers, then ones past the dtype, then in range again.
      local u8 = xp.array({ 0, 7, 255 }, "uint8")
      for round = 1, 3 do
        A.check_equal(values(u8 + 3), { 3, 10, 2 }, "uint8 + 3, round " .. round)
        A.check_equal(values(u8:lt(7)), { true, false, false }, "uint8 < 7, round " .. round)
        H.raises("ValueError", function() return u8 + 300 end)
        A.check_equal(values(u8:lt(300)), { true, true, true }, "uint8 < 300, round " .. round)
        A.check_equal(values(u8:ge(-1)), { true, true, true }, "uint8 >= -1, round " .. round)
        A.check_equal(values(xp.clip(u8, 1, 200)), { 1, 7, 200 }, "clip in range")
        A.check_equal(values(xp.clip(u8, -5, 999)), { 0, 7, 255 }, "clip beyond the range")
        A.check_equal(values(u8 * 2.5), { 0.0, 17.5, 637.5 }, "uint8 * 2.5, round " .. round)
        A.check_equal(values(2 - u8:astype("int16")), { 2, -5, -253 }, "2 - int16")
      end
    end)

    b.it("a Lua float beside integers follows the default float dtype as it changes", function()
      local i = xp.array({ 1, 2 }, "int32")
      local before = cuarr.get_default_dtype and cuarr.get_default_dtype() or "float64"
      local ok, err = pcall(function()
        for _, dt in ipairs({ "float64", "float32", "float64", "float32" }) do
          cuarr.set_default_dtype(dt)
          local r = i * 0.5
          assert.are.equal(dt, r.dtype)
          A.check_equal(values(r), { 0.5, 1.0 }, "int32 * 0.5 as " .. dt)
        end
      end)
      cuarr.set_default_dtype(before)
      assert(ok, err)
    end)

    b.it("int64 and uint64 arrays compare by value", function()
      local i = xp.array({ -1, 5, math.maxinteger, math.mininteger }, "int64")
      local u = xp.array({ U63, 5, math.maxinteger, 0 }, "uint64")
      A.check_equal(values(xp.less(i, u)), { true, false, false, true }, "int64 < uint64")
      A.check_equal(values(xp.equal(u, i)), { false, true, true, false }, "uint64 == int64")
      A.check_equal(values(xp.greater_equal(u, i)), { true, true, true, true }, "uint64 >= int64")
      A.check_equal(values(xp.not_equal(xp.array({ -1 }, "uint64"), xp.array({ -1 }, "int64"))),
        { true }, "2^64-1 ~= -1")
    end)

    b.it("three-operand ufuncs promote their values together", function()
      local r = xp.where(xp.array({ true, false }, "bool"), xp.array({ -1, 2 }, "int8"),
        xp.array({ 200, 255 }, "uint8"))
      assert.are.equal("int16", r.dtype)
      A.check_equal(values(r), { -1, 255 }, "where(bool, int8, uint8)")
      r = xp.clip(xp.array({ -5, 0, 7 }, "int8"), 0, 1.5)
      assert.are.equal("float64", r.dtype)
      A.check_equal(values(r), { 0.0, 0.0, 1.5 }, "clip(int8, 0, 1.5)")
      r = xp.arctan2(xp.array({ 0 }, "int8"), xp.array({ 1 }, "uint8"))
      assert.are.equal("float16", r.dtype) -- NumPy's loop search: e is the first that both fit
      A.check_equal(values(r), { 0.0 }, "arctan2(int8, uint8)")
    end)
  end
end)

describe("the default float dtype", function()
  -- fn() with dt as the default float dtype, restored afterwards whatever happens
  local function with_default(xp, dt, fn)
    local before = xp.get_default_dtype()
    xp.set_default_dtype(dt)
    local ok, err = pcall(fn)
    xp.set_default_dtype(before)
    assert(ok, err)
  end

  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("is what Lua floats become beside integer arrays and alone", function()
      with_default(xp, "float32", function()
        local r = xp.add(xp.array({ 1, 2 }, "int32"), 2.5)
        assert.are.equal("float32", r.dtype)
        A.check_equal(values(r), { 3.5, 4.5 }, "int32 + 2.5 with float32 the default")
        r = xp.multiply(2, 2.5)
        assert.are.equal("float32", r.dtype)
        assert.are.equal(5.0, r:item())
        assert.are.equal("float64", xp.add(xp.array({ 1.0 }, "float64"), 2.5).dtype)
      end)
      H.raises("ValueError", xp.set_default_dtype, "int32")
    end)

    b.it("Lua numbers alone: integers give int64, floats float64, booleans bool", function()
      with_default(xp, "float64", function()
        local r = xp.add(1, 2)
        assert.are.equal("int64", r.dtype)
        assert.are.equal(3, r:item())
        r = xp.add(1, 2.5)
        assert.are.equal("float64", r.dtype)
        assert.are.equal(3.5, r:item())
        r = xp.logical_and(true, false)
        assert.are.equal("bool", r.dtype)
        assert.are.equal(false, r:item())
        assert.are.equal("float64", xp.sqrt(4).dtype)
        assert.are.equal(INF, xp.divide(1, 0):item())
      end)
    end)
  end
end)
