-- tools/fuzz/values.lua -- the fuzzer's arguments: hostile Lua values and fresh cuarr objects.
--
-- Every value is made anew for each call (from math.random, which the fuzzer seeds per call),
-- so that a call can be replayed alone.  Hostile values: tables that change under __len and
-- __index, cyclic, ragged and huge ones, tables with nil gaps, extreme numbers (NaN, infinities,
-- math.mininteger/maxinteger, huge floats), strings with NUL bytes, wrong userdata, light
-- userdata, coroutines, functions; arrays of every dtype, host and device, 0-d, empty, views,
-- freed.  Values whose metamethods or functions raise do so with HOSTILE, so that the fuzzer
-- tells their errors from cuarr's.

local M = {}

-- What a hostile metamethod or callback raises (not a cuarr error, not a finding).
M.HOSTILE = setmetatable({}, { __tostring = function() return "hostile value's own error" end })

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64" }
M.DTYPES = DTYPES
local OPTION_KEYS = { "axis", "keepdims", "dtype", "out", "order", "stream", "copy", "ddof",
                      "endpoint", "pinned", "size", "fraction", "non_blocking", "priority",
                      "timing", "blocking", "preamble", "loop_prep", "after_loop", "options",
                      "reduce_type", "name", "n_repeat", "no_such_option" }
local STRINGS = { "", "C", "F", "A", "K", "fro", "nuc", "inf", "float32\0x", "\0", "int64",
                  "f4", "i8", "?", "b", "T", "float32 x", "T x, T y", "float64 y", "x + y",
                  "y = x", "a + b", "0", "raw T x", "int32 n", string.rep("x", 300) }
local NUMBERS = { 0, 1, -1, 2, 3, -2, 5, 7, 0.5, 1.5, -0.0, 2 ^ 31, 2 ^ 32, 2 ^ 53, 2 ^ 63, 2 ^ 64,
                  1e300, -1e300, 1e-310, 0 / 0, -(0 / 0), math.huge, -math.huge,
                  math.maxinteger, math.mininteger, math.maxinteger - 1, math.mininteger + 1,
                  1 << 31, 1 << 32, 1 << 40, 1 << 62, -(1 << 62), 65536, 1000 }

local random = math.random
local function pick(t) return t[random(#t)] end

-- Small integers most of the time: they make shapes, axes and indices that get past the
-- first checks.
local function small_int() return random(-3, 5) end

local function number()
  local r = random()
  if r < 0.5 then return small_int() end
  if r < 0.6 then return random() * 10 - 5 end
  return pick(NUMBERS)
end
M.number = number

-- The element values of an array: plain, or the extremes.
local function element()
  local r = random()
  if r < 0.7 then return random(-4, 9) end
  if r < 0.85 then return random() * 8 - 4 end
  return pick({ 0 / 0, math.huge, -math.huge, 1e300, -1e300, 255, 256, -129, 65504, 65520,
                math.maxinteger, math.mininteger, 2 ^ 63 })
end

local function shape()
  local r = random()
  if r < 0.1 then return {} end              -- 0-d
  if r < 0.2 then return { 0 } end           -- empty
  if r < 0.55 then return { random(1, 6) } end
  if r < 0.85 then return { random(1, 4), random(1, 4) } end
  if r < 0.95 then return { random(0, 3), random(1, 3), random(1, 3) } end
  return { 1, random(1, 3), 1, random(1, 2) }
end

local function nested(sh, d)
  d = d or 1
  if d > #sh then return element() end
  local t = {}
  for i = 1, sh[d] do t[i] = nested(sh, d + 1) end
  return t
end

-- Bool arrays whose bytes are not all 0/1 (7b: host matmul loaded them as C's bool, undefined
-- behaviour; nonzero is True everywhere): a uint8 device array seen as bool through the
-- interface, or its host copy (copies move bytes); without a device, `empty`'s bytes, whatever
-- the allocator left (ASan fills fresh memory with 0xbe).
local function odd_bools(cuarr, sh)
  local n = 1
  for _, e in ipairs(sh) do n = n * e end
  if cuarr.is_available() then
    local bytes = {}
    for i = 1, n do bytes[i] = random() < 0.3 and 0 or random(2, 255) end
    local ok, v = pcall(function()
      local u = cuarr.array(bytes, "uint8")
      return cuarr.as_cuda_array { keep = u, __cuda_array_interface__ = {
        shape = sh, typestr = "|b1", data = { u.data, false }, version = 3 } }
    end)
    if ok then return random() < 0.5 and v or v:get() end
  end
  return cuarr.cpu.empty(sh, "bool")
end

-- A broadcast view (read-only, stride 0 along its new axes) of a, small enough to be read.
local function broadcast_view(cuarr, a)
  local xp = a.device == "cpu" and cuarr.cpu or cuarr
  local wide = { random(1, 3) }
  for i = 1, a.ndim do wide[i + 1] = a.shape[i] end
  return xp.broadcast_to(a, wide)
end

-- A fresh array: host or device, any dtype and a small shape, maybe a view (a broadcast one
-- among them), maybe bool with bytes other than 0/1, maybe freed.
function M.array(cuarr)
  local sh = shape()
  local dt = pick(DTYPES)
  local a
  if dt == "bool" and random() < 0.3 then
    a = odd_bools(cuarr, sh)
  elseif #sh == 0 then
    a = cuarr.cpu.array(element())
  else
    a = cuarr.cpu.array(nested(sh))
  end
  a = a:astype(dt, { copy = false })
  if a.device == "cpu" and random() < 0.45 and cuarr.is_available() then a = cuarr.asarray(a) end
  local r = random()
  if a.ndim >= 2 and r < 0.15 then
    a = a:transpose()
  elseif a.ndim >= 1 and r < 0.25 and a.shape[1] > 1 then
    a = a[{ { 1, a.shape[1], 2 } }]
  elseif r < 0.3 then
    a = a:reshape(-1)
  elseif r < 0.34 then
    a:free()
  elseif r < 0.42 then
    a = broadcast_view(cuarr, a)
  end
  return a
end

-- A read-only broadcast view of 10^15 elements over one: 7a (a write into it ran its loop
-- 10^15 times: every write must refuse it at once) and 7c (its table cannot be made).  The
-- fuzzer gives it only where a call writes or makes a table (an `out`, a writing method's
-- self): reading all its elements rightly takes that long.
function M.huge_view(cuarr)
  local xp = random() < 0.45 and cuarr.is_available() and cuarr or cuarr.cpu
  return xp.broadcast_to(xp.zeros(1, pick(DTYPES)), { 1000000, 1000000000 })
end

-- Tables a converter may walk: nested numbers, ragged, with gaps, cyclic, and ones whose
-- __len and __index change between reads.
local function hostile_table()
  local r = random(1, 14)
  if r == 1 then return {} end
  if r == 2 then return nested(shape()) end
  if r == 3 then return { { 1, 2 }, { 3 } } end                       -- ragged
  if r == 4 then return { 1, nil, 3 } end                              -- a nil gap
  if r == 5 then local t = { 1, 2 }; t[3] = t; return t end           -- cyclic
  if r == 6 then local t = {}; t[1] = t; return t end
  if r == 7 then                                                       -- __len grows
    local n = 0
    return setmetatable({}, { __len = function() n = n + 1; return n <= 2 and 2 or 100000 end,
                              __index = function() return 1.5 end })
  end
  if r == 8 then                                                       -- element changes type
    local n = 0
    return setmetatable({}, { __len = function() return 2 end, __index = function()
      n = n + 1
      if n <= 2 then return 1 end
      return n % 2 == 0 and { 1, 2, 3 } or "x"
    end })
  end
  if r == 9 then                                                       -- huge __len
    -- With elements behind it only rarely: a converter that reads them all before it checks
    -- the size runs until the time bound, and one such call is enough to show it.
    local mt = { __len = function() return 1 << 40 end }
    if random() < 0.02 then mt.__index = function() return 1 end end
    return setmetatable({}, mt)
  end
  if r == 10 then                                                      -- odd __len results
    local len = pick({ 1.5, -1, "3", 0 / 0, math.maxinteger, math.mininteger })
    return setmetatable({ 1, 2, 3 }, { __len = function() return len end })
  end
  if r == 11 then                                                      -- __index raises
    return setmetatable({}, { __len = function() return 3 end,
                              __index = function() error(M.HOSTILE) end })
  end
  if r == 12 then                                                      -- __len raises
    return setmetatable({ 1 }, { __len = function() error(M.HOSTILE) end })
  end
  if r == 13 then                                                      -- options
    local t = {}
    for _ = 1, random(1, 3) do t[pick(OPTION_KEYS)] = M.scalar() end
    if t.out ~= nil and random() < 0.3 and M.cuarr then t.out = M.huge_view(M.cuarr) end
    return t
  end
  return { small_int(), small_int() }                                  -- an axis list, a shape
end

-- A value that is not an array or an object of a class.
function M.scalar()
  local r = random(1, 10)
  if r <= 4 then return number() end
  if r <= 6 then return pick(STRINGS) end
  if r == 7 then return pick({ true, false }) end
  if r == 8 then return pick(DTYPES) end
  if r == 9 then return nil end
  return hostile_table()
end

-- Wrong userdata and other odd things.
local function odd()
  local r = random(1, 6)
  if r == 1 then return io.stdout end                                  -- a foreign full userdata
  if r == 2 then return debug.upvalueid(M.array, 1) end               -- a light userdata
  if r == 3 then return coroutine.create(function() end) end
  if r == 4 then return function(...) return ... end end
  if r == 5 then return function() error(M.HOSTILE) end end
  return setmetatable({}, { __index = function() error(M.HOSTILE) end,
                            __tostring = function() error(M.HOSTILE) end })
end

-- Any argument: arrays half the time, objects of the classes, scalars, tables, odd things.
function M.value(cuarr, objects)
  local r = random()
  if r < 0.45 then return M.array(cuarr) end
  if r < 0.55 then return objects.any() end
  if r < 0.93 then return M.scalar() end
  return odd()
end

-- Short descriptions for the repro lines.
function M.describe(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "string" then return string.format("%q", #v > 40 and v:sub(1, 40) .. "..." or v) end
  if t == "number" then
    if v ~= v then return "nan" end
    return math.type(v) == "integer" and string.format("%d", v) or string.format("%.17g", v)
  end
  if t == "userdata" then
    local mt = getmetatable(v)
    local name = type(mt) == "table" and rawget(mt, "__name") or "userdata"
    if name == "cuarr.ndarray" then
      local ok, s = pcall(function()
        return string.format("<%s %s %s>", v.device == "cpu" and "cpu" or "dev", v.dtype,
                             table.concat(v.shape, "x"))
      end)
      return ok and s or "<freed array>"
    end
    return "<" .. tostring(name) .. ">"
  end
  if t == "table" then
    if getmetatable(v) then return "<table with metatable>" end
    if depth > 1 then return "{...}" end
    local parts = {}
    for k, x in pairs(v) do
      if #parts >= 6 then parts[#parts + 1] = "..."; break end
      if x == v then x = "<self>" end
      parts[#parts + 1] = (type(k) == "string" and k .. "=" or "") ..
                          (x == "<self>" and x or M.describe(x, depth + 1))
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return "<" .. t .. ">"
end

return M
