-- A stand-in for cuarr arrays in specs that must run without the C binding. It offers only the
-- API the front end may rely on: shape/ndim/size/dtype fields, get(), totable() and slicing
-- a[{ {i, j}, {}, ... }] (1-based, inclusive, negative from the end) returning views.
-- "Device" mocks refuse totable(), so code must get() first, and every get() is counted, so a
-- spec can check how many elements were copied.

local M = {}

M.stats = { gets = 0, copied = 0 }

function M.reset_stats()
  M.stats.gets, M.stats.copied = 0, 0
end

local methods = {}
local meta = {}

local function make(flat, shape, strides, offset, dtype, device)
  local size = 1
  for _, n in ipairs(shape) do size = size * n end
  return setmetatable({
    shape = shape, ndim = #shape, size = size, dtype = dtype,
    _flat = flat, _strides = strides, _offset = offset, _device = device,
  }, meta)
end

local function contiguous_strides(shape)
  local strides, step = {}, 1
  for i = #shape, 1, -1 do
    strides[i] = step
    step = step * shape[i]
  end
  return strides
end

-- flat: row-major Lua values; shape: Lua sequence ({} for 0-d).
function M.new(flat, shape, dtype, opts)
  local copy = {}
  for i, v in ipairs(flat) do copy[i] = v end
  return make(copy, shape, contiguous_strides(shape), 0, dtype, opts and opts.device or false)
end

-- Row-major flat values of the view.
local function elements(a)
  local out = {}
  local function walk(axis, pos)
    if axis > a.ndim then
      out[#out + 1] = a._flat[pos + 1]
      return
    end
    for i = 0, a.shape[axis] - 1 do walk(axis + 1, pos + i * a._strides[axis]) end
  end
  walk(1, a._offset)
  return out
end

function methods.get(a)
  local flat = elements(a)
  M.stats.gets = M.stats.gets + 1
  M.stats.copied = M.stats.copied + #flat
  local shape = {}
  for i, n in ipairs(a.shape) do shape[i] = n end
  return make(flat, shape, contiguous_strides(shape), 0, a.dtype, false)
end

function methods.totable(a)
  if a._device then error("totable() of a device array: get() it first", 2) end
  if a.ndim == 0 then return a._flat[a._offset + 1] end
  local function build(axis, pos)
    local t = {}
    for i = 0, a.shape[axis] - 1 do
      local p = pos + i * a._strides[axis]
      -- (not `and/or`: elements may be false)
      if axis == a.ndim then
        t[i + 1] = a._flat[p + 1]
      else
        t[i + 1] = build(axis + 1, p)
      end
    end
    return t
  end
  return build(1, a._offset)
end

local function slice(a, index)
  local shape, strides, offset = {}, {}, a._offset
  for axis = 1, a.ndim do
    local n = a.shape[axis]
    local spec = index[axis] or {}
    if type(spec) ~= "table" then error("mock arrays only take ranges", 3) end
    local start, stop = spec[1] or 1, spec[2] or n
    if start < 0 then start = n + start + 1 end
    if stop < 0 then stop = n + stop + 1 end
    shape[axis] = math.max(stop - start + 1, 0)
    strides[axis] = a._strides[axis]
    offset = offset + (start - 1) * a._strides[axis]
  end
  return make(a._flat, shape, strides, offset, a.dtype, a._device)
end

meta.__index = function(a, key)
  if type(key) == "table" then return slice(a, key) end
  return methods[key]
end

return M
