-- astype for every pair of the 12 dtypes, on the host (cuarr.cpu) and on the device (cuarr),
-- against references computed in Lua from cuarr's casting rules:
--  - float -> integer saturates to the type's range and truncates toward zero; NaN -> 0;
--  - integer -> integer wraps (two's complement); bool -> 0/1;
--  - anything -> bool is x ~= 0 (NaN is true);
--  - -> float32/float16 round to nearest even; float16 overflows to inf from 65520 on.
-- Device results are compared with the host's too, so that one script gives one answer.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local cuarr = H.cuarr

-- Globals are looked up through busted's environment, which is slow in loops over millions of
-- elements: the helpers are locals.
local is_float, f32, f16, u64_value = A.is_float, A.f32, A.f16, A.u64_value
local check_list = A.check_list

local INT = { int8 = { 8, true }, int16 = { 16, true }, int32 = { 32, true }, int64 = { 64, true },
              uint8 = { 8, false }, uint16 = { 16, false }, uint32 = { 32, false },
              uint64 = { 64, false } }

-- ---------------------------------------------------------------- the rules, in Lua

-- Integer bits v (a Lua integer, two's complement) as dtype dt: wrap to the width.
local function wrap(v, dt)
  local bits, signed = INT[dt][1], INT[dt][2]
  if bits == 64 then return v end -- uint64 reads back as its bits, a Lua integer
  local m = v & ((1 << bits) - 1)
  if signed and m >= (1 << (bits - 1)) then m = m - (1 << bits) end
  return m
end

-- Float f to integer dtype dt: NaN -> 0, saturate, truncate toward zero.
local function saturate(f, dt)
  if f ~= f then return 0 end
  local bits, signed = INT[dt][1], INT[dt][2]
  local lo = signed and -(2.0 ^ (bits - 1)) or 0.0
  local hi = signed and 2.0 ^ (bits - 1) or 2.0 ^ bits
  if f <= lo then return signed and (bits == 64 and math.mininteger or -(1 << (bits - 1))) or 0 end
  if f >= hi then
    if signed then return bits == 64 and math.maxinteger or (1 << (bits - 1)) - 1 end
    return bits == 64 and -1 or (1 << bits) - 1 -- uint64's maximum reads as -1
  end
  local t = f >= 0 and math.floor(f) or math.ceil(f)
  if t >= 2.0 ^ 63 then return math.tointeger(t - 2.0 ^ 64) end -- uint64: its bits, exactly
  return math.tointeger(t)
end

local function to_float(x, dt)
  if dt == "float64" then return x end
  if dt == "float32" then return f32(x) end
  return f16(x)
end

-- An element, described by its class and payload, converted to dtype dt.
--   {"bool", b} | {"int", bits, dtype} | {"float", f}
local function convert(e, dt)
  local kind = e[1]
  local bits -- for integer sources: the bits of the value as stored in the source dtype
  if kind == "int" then
    bits = INT[e[3]][1] == 64 and e[2] or wrap(e[2], e[3])
  end
  if dt == "bool" then
    if kind == "bool" then return e[2] end
    if kind == "int" then return bits ~= 0 end
    return e[2] ~= 0 -- NaN ~= 0 is true
  end
  if is_float(dt) then
    local x
    if kind == "bool" then x = e[2] and 1.0 or 0.0
    elseif kind == "int" then
      -- the source's own value as a double; every value used here is exact or rounds to the
      -- same float32/float16 directly as through a double
      local v = wrap(e[2], e[3])
      x = (e[3] == "uint64" and u64_value(v) or v) + 0.0
    else x = e[2] end
    return to_float(x, dt)
  end
  if kind == "bool" then return e[2] and 1 or 0 end
  if kind == "int" then return wrap(bits, dt) end
  return saturate(e[2], dt)
end

-- ---------------------------------------------------------------- source values

local INTS = { 0, 1, -1, 2, 127, 128, -128, -129, 200, 255, 256, -300, 32767, 32768, -32768,
               -32769, 65535, 65536, 100000, 2147483647, 2147483648, -2147483648, -2147483649,
               4294967295, 4294967296, 4294967301, 9007199254740993, math.maxinteger,
               math.mininteger, 1234567890123 }

local FLOATS = { 0.0, -0.0, 0.5, 1.5, -1.5, 2.5, -2.75, 100.25, 127.5, 128.0, -128.5, -129.0,
                 255.5, 256.0, -1000.75, 32767.5, 32768.0, -32769.0, 65504.0, 65535.5, 65536.0,
                 1e5, -1e5, 2147483647.5, 2147483648.0, -2147483649.0, 3e9, -3e9, 4294967296.0,
                 5e9, 2.0 ^ 53, 2.0 ^ 63, -2.0 ^ 63, 1.5 * 2.0 ^ 63, 2.0 ^ 64, -2.0 ^ 64, 1e20,
                 -1e20, 1e300, -1e300, 3e-5, 1e-8, 1e-40, math.huge, -math.huge, 0 / 0, 0.1, -0.7 }

local BOOLS = { true, false, false, true, true }

-- The source values of dtype src as a Lua table, and their descriptions after storing them
-- in src (integers wrap, floats round): what the conversions start from.
local function source(src)
  local values, elems = {}, {}
  if src == "bool" then
    for i, v in ipairs(BOOLS) do
      values[i] = v
      elems[i] = { "bool", v }
    end
  elseif INT[src] then
    for i, v in ipairs(INTS) do
      values[i] = v
      elems[i] = { "int", v, src }
    end
  else
    for i, v in ipairs(FLOATS) do
      values[i] = v
      elems[i] = { "float", to_float(v, src) }
    end
  end
  return values, elems
end

-- The source array: integers made as int64 and cast (a cast wraps; a Lua integer written
-- into a narrower dtype must fit it).
local function make_source(xp, values, src)
  if INT[src] then return xp.array(values, "int64"):astype(src) end
  return xp.array(values, src)
end

local function expected(elems, dst)
  local want = {}
  for i, e in ipairs(elems) do want[i] = convert(e, dst) end
  return want
end

-- Source values as they read back from a src array.
local function readback(elems, src)
  local t = {}
  for i, e in ipairs(elems) do
    if e[1] == "int" then t[i] = wrap(e[2], src) else t[i] = e[2] end
  end
  return t
end

-- ---------------------------------------------------------------- specs

describe("astype", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    for _, src in ipairs(H.dtypes) do
      describe("from " .. src, function()
        local values, elems = source(src)

        b.it("stores the source values by the rules", function()
          local a = make_source(xp, values, src)
          check_list(a:totable(), readback(elems, src), src, values)
        end)

        for _, dst in ipairs(H.dtypes) do
          b.it("to " .. dst, function()
            local a = make_source(xp, values, src)
            local r = a:astype(dst)
            assert.are.equal(dst, r.dtype)
            assert.are_not.equal(a, r)
            assert.are.same(a.shape, r.shape)
            assert.is_true(r.flags.c_contiguous and r.flags.owndata)
            local want = expected(elems, dst)
            local got = r:totable()
            check_list(got, want, src .. " -> " .. dst, values)
            if b.name == "gpu" then
              -- the device gives what the host gives
              local host = make_source(cuarr.cpu, values, src):astype(dst):totable()
              check_list(got, host, src .. " -> " .. dst .. " (device vs host)", values)
            end
            -- the source is untouched
            check_list(a:totable(), readback(elems, src), src .. " after astype", values)
          end)
        end
      end)
    end

    b.it("of 2-D and strided views keeps the shape and converts every element", function()
      -- a 3x4 float64 array, viewed transposed and reversed
      local src = { { 1.5, -2.5, 300.75, 0 / 0 }, { -1e10, 65519.0, 7.0, -0.5 },
                    { 1e-3, 255.5, -129.9, math.huge } }
      local a = xp.array(src, "float64")
      local v = a[{ { -1, 1, -1 }, { 1, -1, 3 } }].T -- shape 2x3: columns 1 and 4, rows reversed
      local flat_src = {}
      for i = 1, 2 do
        for j = 1, 3 do flat_src[#flat_src + 1] = src[4 - j][i == 1 and 1 or 4] end
      end
      for _, dst in ipairs({ "int8", "uint8", "int32", "uint64", "float16", "float32", "bool" }) do
        local r = v:astype(dst)
        assert.are.same({ 2, 3 }, r.shape)
        assert.is_true(r.flags.c_contiguous)
        local got = H.flat(r:totable())
        local want = {}
        for k, x in ipairs(flat_src) do want[k] = convert({ "float", x }, dst) end
        check_list(got, want, "float64 view -> " .. dst, flat_src)
      end
      -- and back from a strided integer view
      local ia = xp.array({ { -1, 300 }, { 70000, -129 }, { 5, 2 ^ 40 | 0 } }, "int64")
      local iv = ia[{ { 3, 1, -2 }, {} }] -- rows 3 and 1
      check_list(H.flat(iv:astype("int16"):totable()), { 5, 0, -1, 300 }, "int64 view -> int16")
      check_list(H.flat(iv:astype("uint8"):totable()), { 5, 0, 255, 44 }, "int64 view -> uint8")
    end)

    b.it("of 0-d and empty arrays", function()
      local z = xp.array(-3.75):astype("int16")
      assert.are.same({}, z.shape)
      assert.are.equal(-3, z:item())
      local zb = xp.array(0.0, "float32"):astype("bool")
      assert.are.equal(false, zb:item())
      local e = xp.zeros({ 0, 3 }, "float32"):astype("uint8")
      assert.are.equal("uint8", e.dtype)
      assert.are.same({ 0, 3 }, e.shape)
      assert.are.equal(0, e.nbytes)
    end)

    b.it("copies unless copy = false and the dtype is the same", function()
      local a = xp.array({ 1, 2, 3 }, "int32")
      local c = a:astype("int32")
      assert.are_not.equal(a, c)
      c[1] = 9
      assert.are.equal(1, a[1])
      assert.are.equal(a, a:astype("int32", { copy = false }))
      assert.are.equal(a, xp.astype(a, "int32", { copy = false }))
      local f = a:astype("float32", { copy = false })
      assert.are_not.equal(a, f)
      assert.are.equal("float32", f.dtype)
      assert.are.equal("float64", xp.astype(a, "d").dtype) -- char codes
      H.raises("TypeError", a.astype, a, "float128")
      H.raises("TypeError", a.astype, a)
    end)
  end
end)
