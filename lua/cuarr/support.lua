-- cuarr.support: what the functions written in Lua share (reductions.lua, products.lua,
-- join.lua, the array library's front ends): shapes written as NumPy writes them in messages,
-- arguments checked as the C binding checks them (their count, arrays, integers, axes), and
-- results delivered into a given `out` under NumPy's 'same_kind' rule.
local type, tostring, tointeger, getmetatable, select, rawget, rawlen = type, tostring,
  math.tointeger, getmetatable, select, rawget, rawlen
local fmt, concat = string.format, table.concat
local core = require "cuarr.core"
local raise, ndarray = core.raise, core.metatables.ndarray

local S = {}

-- NumPy's dtype kinds in their casting order: a cast within a kind or to a later one is
-- 'same_kind'.
S.KIND = { bool = 0, uint8 = 1, uint16 = 1, uint32 = 1, uint64 = 1, int8 = 2, int16 = 2,
           int32 = 2, int64 = 2, float16 = 3, float32 = 3, float64 = 3 }

function S.is_array(x) return getmetatable(x) == ndarray end

-- A TypeError when more than `most` arguments follow, as every cuarr function refuses extras.
function S.max_args(name, most, ...)
  local n = select("#", ...)
  if n > most then
    raise("TypeError", fmt("%s takes at most %d arguments, got %d", name, most, n))
  end
end

-- a itself when it is an array, else a TypeError naming `what` (default "argument #1").
function S.array_arg(name, a, what)
  if getmetatable(a) ~= ndarray then
    raise("TypeError", fmt("%s: %s must be an array, got %s", name, what or "argument #1",
      type(a)))
  end
  return a
end

-- v as an array of xp's: an array as it is; a table, number or boolean through xp.array.
function S.as_array(xp, name, v, what)
  if getmetatable(v) == ndarray then return v end
  local t = type(v)
  if t == "table" or t == "number" or t == "boolean" then return xp.array(v) end
  raise("TypeError", fmt("%s: %s must be an array, a table or a number, got %s", name, what, t))
end

-- An axis of an array of ndim axes (1-based, negative from the end), returned positive.
function S.axis(name, v, ndim, what)
  local ax = S.integer(name, what or "the axis", v)
  if ax == 0 or ax > ndim or ax < -ndim then
    raise("IndexError", fmt("%s: axis %d is out of bounds for an array of %d dimensions (axes "
      .. "are 1-based)", name, ax, ndim))
  end
  return ax < 0 and ax + ndim + 1 or ax
end

-- "(2,3)", "(4,)", "()".
-- An index table taking every element of every one of ndim axes (a[S.whole_index(a.ndim)]).
function S.whole_index(ndim)
  local index = {}
  for d = 1, ndim do index[d] = {} end
  return index
end

-- The 1-based inclusive index range of the 0-based half-open [lo, hi), empty when hi <= lo.
function S.range_index(lo, hi)
  if hi <= lo then return { 2, 1 } end
  return { lo + 1, hi }
end

-- The plain table behind a.shape or a.strides (read-only proxies, src/lua/tuple.c), else t
-- itself: the raw length and elements of a list, read so that a hostile __len or __index cannot
-- run, with a shape tuple read as the sequence it shows.
local function items(t)
  local mt = getmetatable(t)
  if type(mt) == "table" and rawget(mt, "__name") == "cuarr.tuple" then
    return rawget(mt, "__index")
  end
  return t
end
function S.list_len(t) return rawlen(items(t)) end
function S.list_get(t, i) return rawget(items(t), i) end

function S.shape_str(shape)
  local parts = {}
  for i = 1, #shape do parts[i] = tostring(shape[i]) end
  return "(" .. concat(parts, ",") .. (#shape == 1 and ",)" or ")")
end

-- v as an integer (a float with an integral value too), else a TypeError naming `what`.
function S.integer(name, what, v)
  local i = type(v) == "number" and tointeger(v)
  if not i then
    raise("TypeError", fmt("%s: %s must be an integer, got %s", name, what,
      type(v) == "number" and tostring(v) or type(v)))
  end
  return i
end

local function where_of(device) return device == "cpu" and "cpu" or device.id end

-- A ValueError unless `out` lies on `device` and has `shape`.
function S.check_out(name, out, device, shape)
  if where_of(out.device) ~= where_of(device) then
    raise("ValueError", name .. ": out is not where the inputs are")
  end
  local have = out.shape
  local same = #have == #shape
  for i = 1, #shape do
    if have[i] ~= shape[i] then same = false end
  end
  if not same then
    raise("ValueError", fmt("%s: out has shape %s but the result has shape %s", name,
      S.shape_str(have), S.shape_str(shape)))
  end
end

-- res written into the given out (its place and shape, a 'same_kind' cast), or res itself.
function S.deliver(name, res, out)
  if out == nil then return res end
  S.check_out(name, out, res.device, res.shape)
  if S.KIND[res.dtype] > S.KIND[out.dtype] then
    raise("TypeError", fmt("%s: cannot cast the result from %s to out's %s with casting rule "
      .. "'same_kind'", name, res.dtype, out.dtype))
  end
  out[{}] = res
  return out
end

-- The name a Lua function is defined under, read from the line of its file where it starts
-- (Lua keeps no name with a function value): `function name(`, `function t.name(`,
-- `function t:name(`, `name = function(`, and with `wrapper` (a function's name, "fuse") also
-- `name = cuarr.fuse(function(`.  nil for a C function, a chunk loaded from a string, or a line
-- that names none (an argument of another call: `benchmark(function() ... end)`).
function S.function_name(fn, wrapper)
  if type(fn) ~= "function" then return nil end
  local info = debug.getinfo(fn, "S")
  if not info or info.what ~= "Lua" or info.source:sub(1, 1) ~= "@" then return nil end
  local file = io.open(info.source:sub(2), "r")
  if not file then return nil end
  local text
  local n = 0
  for line in file:lines() do
    n = n + 1
    if n == info.linedefined then
      text = line
      break
    end
  end
  file:close()
  if not text then return nil end
  local path = text:match("function%s+([%a_][%w_.:]*)%s*%(")
  if path then return path:match("([%a_][%w_]*)$") end
  local name = text:match("([%a_][%w_]*)%s*=%s*function%s*%(")
  if name or not wrapper then return name end
  return text:match("([%a_][%w_]*)%s*=%s*[%w_.:]-" .. wrapper .. "%s*%(%s*function%s*%(")
end

return S
