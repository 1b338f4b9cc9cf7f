-- Helpers shared by the array specs (creation, indexing, views, transfer, random layouts,
-- astype): value comparisons with readable messages, nested-table builders, and references for
-- dtype rounding and slicing computed in Lua.
--
-- A spec takes what it uses into locals, `local check_equal = A.check_equal`: globals are looked
-- up through busted's environment, which is slow in loops over millions of elements.
local assert = require "luassert"

local type, mtype, tostring, error = type, math.type, tostring, error
local floor, abs, huge = math.floor, math.abs, math.huge
local max, min = math.max, math.min
local concat, unpack = table.concat, table.unpack
local pack, unpack_bytes = string.pack, string.unpack

local A = {}

-- ---------------------------------------------------------------- dtypes

A.ITEMSIZE = { bool = 1, int8 = 1, int16 = 2, int32 = 4, int64 = 8, uint8 = 1, uint16 = 2,
               uint32 = 4, uint64 = 8, float16 = 2, float32 = 4, float64 = 8 }

function A.is_float(dt) return dt == "float16" or dt == "float32" or dt == "float64" end

-- The nearest float32 to x, as a Lua float.
function A.f32(x) return (unpack_bytes("<f", pack("<f", x))) end

-- The nearest float16 (round to nearest even), as a Lua float.
function A.f16(x)
  if x ~= x or x == huge or x == -huge then return x end
  local s = x < 0 and -1.0 or 1.0
  local a = abs(x)
  if a >= 65520 then return s * huge end
  local e = -14
  while e < 15 and a >= 2.0 ^ (e + 1) do e = e + 1 end
  local q = 2.0 ^ (e - 10)
  local v = a / q
  local f = floor(v)
  local d = v - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then f = f + 1 end
  return s * f * q
end

-- The value of the uint64 whose bits are the Lua integer v (a float from 2^63 on, as cuarr
-- returns them; the halving keeps a sticky bit so that the rounding is the direct one).
function A.u64_value(v)
  if v >= 0 then return v end
  return ((v >> 1) | (v & 1)) * 2.0
end

-- ---------------------------------------------------------------- comparisons

-- g is w: the same value of the same number subtype; NaN is NaN.
local function same_value(g, w)
  if type(w) == "number" and w ~= w then return type(g) == "number" and g ~= g end
  return g == w and mtype(g) == mtype(w)
end
A.same_value = same_value

local function show(v) return tostring(v) .. " (" .. (mtype(v) or type(v)) .. ")" end
A.show = show

-- The host array h where backend b (of spec/helper.lua's H.backends) keeps its arrays: h itself
-- for the host, a device copy otherwise.
function A.to(b, h)
  if b.name == "cpu" then return h end
  return require("cuarr").asarray(h)
end

-- Exactly the same value: NaN is NaN, the sign of a float zero counts, integer vs float too.
function A.same(g, w)
  if type(w) == "boolean" then return g == w end
  if w ~= w then return type(g) == "number" and g ~= g end
  if g ~= w or mtype(g) ~= mtype(w) then return false end
  if w == 0 and mtype(w) == "float" then return (1 / g < 0) == (1 / w < 0) end
  return true
end

-- The values of a result as a flat Lua list (uint64 through int64: the same 64 bits as Lua
-- integers, where plain reads would give floats from 2^63 on).
function A.values(a)
  if a.dtype == "uint64" then a = a:astype("int64") end
  local t = a:totable()
  if type(t) ~= "table" then return { t } end
  return require("spec.helper").flat(t)
end

-- The first difference between nested tables, or nil; `at` is the index path so far (the
-- message is built only for a difference, so large tables compare quickly).
local function diff(g, w, at)
  if type(w) == "table" then
    if type(g) ~= "table" then return at, "expected a table, got " .. show(g) end
    if #g ~= #w then return at, ("%d entries, expected %d"):format(#g, #w) end
    for i = 1, #w do
      local gi, wi = g[i], w[i]
      if type(wi) == "table" or not same_value(gi, wi) then
        at[#at + 1] = i
        local where, msg = diff(gi, wi, at)
        if where then return where, msg end
        at[#at] = nil
      end
    end
    return nil
  end
  if same_value(g, w) then return nil end
  return at, "got " .. show(g) .. ", expected " .. show(w)
end

-- Raise an error naming the first difference between got and want (values or nested tables).
function A.check_equal(got, want, what)
  local at, msg = diff(got, want, {})
  if at then
    local path = #at > 0 and "[" .. concat(at, "][") .. "]" or ""
    error((what or "value") .. path .. ": " .. msg, 2)
  end
end

-- Compare two long flat lists without building messages per element; `inputs`, when given,
-- are the values each element was made from, named in the message.
function A.check_list(got, want, what, inputs)
  assert.are.equal(#want, #got, what .. ": length")
  for i = 1, #want do
    if not same_value(got[i], want[i]) then
      local from = inputs and " (from " .. tostring(inputs[i]) .. ")" or ""
      error(("%s: element %d%s: got %s, expected %s"):format(what, i, from, show(got[i]),
        show(want[i])), 2)
    end
  end
end

-- ---------------------------------------------------------------- nested tables

-- Nested table of shape `shape` with f(i1, i2, ...) (1-based indices) at each position.
local function build(shape, f)
  local idx = {}
  local function level(d)
    if d > #shape then return f(unpack(idx)) end
    local t = {}
    for i = 1, shape[d] do
      idx[d] = i
      t[i] = level(d + 1)
    end
    return t
  end
  return level(1)
end
A.build = build

-- An int32 array (by default) of shape `shape` holding the digits of each element's 1-based
-- index (10*i + j, 100*i + 10*j + k, ...), and its reference table.
function A.sample(xp, shape, dtype)
  local ref = build(shape, function(...)
    local v = 0
    for _, i in ipairs({ ... }) do v = 10 * v + i end
    return v
  end)
  return xp.array(ref, dtype or "int32"), ref
end

-- 1-based positions a Lua range {start, stop, step} selects along an axis of extent n, with
-- NumPy's clamping (the reference for slicing).
function A.range_positions(n, start, stop, step)
  step = step or 1
  local function pos(i) return i > 0 and i or n + 1 + i end
  local s, e = pos(start), pos(stop)
  local out = {}
  if step > 0 then
    for i = max(s, 1), min(e, n), step do out[#out + 1] = i end
  else
    for i = min(s, n), max(e, 1), step do out[#out + 1] = i end
  end
  return out
end

-- ---------------------------------------------------------------- tensors for references

-- The number of elements of a shape.
function A.count(shape)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return n
end

-- x (an array, or a Lua number for a 0-d one) as { shape = {...}, data = {...} }, the data
-- flat in C order, booleans as 0 and 1: what the Lua references compute on.
function A.tensor(x)
  if type(x) == "number" then return { shape = {}, data = { x } } end
  local shape = {}
  for i, n in ipairs(x.shape) do shape[i] = n end
  local data = require("spec.helper").flat(x:totable())
  for i, v in ipairs(data) do
    if type(v) == "boolean" then data[i] = v and 1 or 0 end
  end
  return { shape = shape, data = data }
end

-- The position in a tensor's data of a 0-based multi-index.
function A.at(shape, idx)
  local o = 0
  for i = 1, #shape do o = o * shape[i] + idx[i] end
  return o + 1
end

-- fn(idx) for every 0-based multi-index of shape, in C order.
function A.each_index(shape, fn)
  local idx = {}
  for i = 1, #shape do idx[i] = 0 end
  for _ = 1, A.count(shape) do
    fn(idx)
    for i = #shape, 1, -1 do
      idx[i] = idx[i] + 1
      if idx[i] < shape[i] then break end
      idx[i] = 0
    end
  end
end

return A
