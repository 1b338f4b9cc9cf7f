-- stack, vstack, hstack, dstack, column_stack and the splits (split, array_split, hsplit,
-- vsplit, dsplit): NumPy's, built on concatenate (src/lua/join.c: one kernel launch on the
-- device) and on views, so that they take host and device arrays alike.
--
-- Axes are 1-based, negative from the end.  Split points are 1-based positions: the element
-- at each one starts a new piece (split(a, {3, 5}) gives a[1..2], a[3..4] and a[5..]), NumPy's
-- indices plus one; a negative one counts from the end as in NumPy (-2: the last two elements
-- are the last piece), and points past either end are clamped as NumPy's slices are.  Splits
-- return Lua sequences of views.
local type, ipairs = type, ipairs
local pairs, select = pairs, select
local fmt, concat, min, max = string.format, table.concat, math.min, math.max
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local check_array, is_array =
    support.array_arg, support.is_array
  local concatenate = core.concatenate
  local expand_dims, reshape = core.expand_dims, core.reshape


  local function shape_str(s)
    local t = {}
    for i, n in ipairs(s) do t[i] = n end
    if #t == 1 then return "(" .. t[1] .. ",)" end
    return "(" .. concat(t, ", ") .. ")"
  end

  -- The arrays of the sequence t (a TypeError for anything else), at least one.
  local function arrays_of(name, t)
    if type(t) ~= "table" or is_array(t) then
      raise("TypeError", fmt("%s: argument #1 must be a table of arrays, got %s", name,
        is_array(t) and "an array" or type(t)))
    end
    -- read raw: the table is data, and a hostile __len or __index must not decide its count
    local n = list_len(t)
    if n < 1 then raise("ValueError", "need at least one array to " .. name) end
    local out = {}
    for i = 1, n do
      out[i] = check_array(name, list_get(t, i), "entry " .. i .. " of argument #1")
    end
    return out
  end

  local integer = support.integer

  -- An axis among `positions` (1-based, negative from the end), returned positive.
  local function axis_of(name, v, positions)
    local ax = v == nil and 1 or integer(name, "the axis", v)
    if ax == 0 or ax > positions or ax < -positions then
      raise("IndexError", fmt("%s: axis %d is out of bounds for %d dimensions (axes are 1-based)",
        name, ax, positions))
    end
    return ax < 0 and ax + positions + 1 or ax
  end

  local function atleast_1d(a)
    if a.ndim == 0 then return reshape(a, { 1 }) end
    return a
  end
  local function atleast_2d(a)
    if a.ndim == 0 then return reshape(a, { 1, 1 }) end
    if a.ndim == 1 then return expand_dims(a, 1) end
    return a
  end
  local function atleast_3d(a)
    if a.ndim == 0 then return reshape(a, { 1, 1, 1 }) end
    if a.ndim == 1 then return expand_dims(expand_dims(a, 1), 3) end
    if a.ndim == 2 then return expand_dims(a, 3) end
    return a
  end

  local function map(list, fn)
    local out = {}
    for i, a in ipairs(list) do out[i] = fn(a) end
    return out
  end

  local function check_count(name, n, most, ...)
    if select("#", ...) > most then
      raise("TypeError", fmt("%s takes at most %d arguments, got %d", name, most,
        select("#", ...)))
    end
    return n
  end

  local J = {}

  function J.stack(t, axis, ...)
    check_count("stack", 0, 2, t, axis, ...)
    local arrays = arrays_of("stack", t)
    local first = shape_str(arrays[1].shape)
    for i = 2, #arrays do
      if shape_str(arrays[i].shape) ~= first then
        raise("ValueError", fmt("stack: all input arrays must have the same shape, but array 1 "
          .. "has shape %s and array %d has shape %s", first, i, shape_str(arrays[i].shape)))
      end
    end
    local ax = axis_of("stack", axis, arrays[1].ndim + 1)
    return concatenate(map(arrays, function(a) return expand_dims(a, ax) end), ax)
  end

  function J.vstack(t, ...)
    check_count("vstack", 0, 1, t, ...)
    return concatenate(map(arrays_of("vstack", t), atleast_2d), 1)
  end

  function J.hstack(t, ...)
    check_count("hstack", 0, 1, t, ...)
    local arrays = map(arrays_of("hstack", t), atleast_1d)
    return concatenate(arrays, arrays[1].ndim == 1 and 1 or 2)
  end

  function J.dstack(t, ...)
    check_count("dstack", 0, 1, t, ...)
    return concatenate(map(arrays_of("dstack", t), atleast_3d), 3)
  end

  function J.column_stack(t, ...)
    check_count("column_stack", 0, 1, t, ...)
    return concatenate(map(arrays_of("column_stack", t), function(a)
      if a.ndim < 2 then return expand_dims(atleast_1d(a), 2) end
      return a
    end), 2)
  end

  -- The pieces [bounds[i], bounds[i + 1]) (0-based, half-open) of a along axis ax, as views.
  local function pieces(a, ax, bounds)
    local out = {}
    for i = 1, #bounds - 1 do
      local lo, hi = bounds[i], max(bounds[i], bounds[i + 1])
      local index = {}
      for d = 1, a.ndim do index[d] = {} end
      -- an empty piece at position 0 is the range {2, 1}: {1, 0} would name index 0
      index[ax] = (hi == 0) and { 2, 1 } or { lo + 1, hi }
      out[i] = a[index]
    end
    return out
  end

  -- The 0-based boundary of a 1-based split point on an axis of n elements.
  local function boundary(name, i, n)
    if i == 0 then
      raise("IndexError", name .. ": split point 0 is invalid: positions start at 1")
    end
    if i > 0 then return min(i - 1, n) end
    return max(n + i, 0)
  end

  local MAX_SECTIONS = 1 << 24

  local function split_at(name, a, spec, ax, equal)
    local n = a.shape[ax]
    local bounds = { 0 }
    if type(spec) == "table" and not is_array(spec) then
      for k = 1, list_len(spec) do
        local i = integer(name, "split point " .. k, list_get(spec, k))
        bounds[k + 1] = boundary(name, i, n)
      end
      bounds[#bounds + 1] = n
      return pieces(a, ax, bounds)
    end
    if type(spec) ~= "number" then
      raise("TypeError", fmt("%s: argument #2 must be a number of sections or a table of split "
        .. "points, got %s", name, is_array(spec) and "an array" or type(spec)))
    end
    local sections = integer(name, "the number of sections", spec)
    if sections < 1 then
      raise("ValueError", fmt("%s: the number of sections must be at least 1, got %d", name,
        sections))
    end
    -- Each section is a view in the returned table: past this many the table itself would
    -- exhaust the Lua state's memory, with a plain Lua error rather than cuarr's.
    if sections > MAX_SECTIONS then
      raise("OutOfMemoryError", fmt("%s: %d sections would not fit in memory (at most %d)",
        name, sections, MAX_SECTIONS))
    end
    if equal and n % sections ~= 0 then
      raise("ValueError", fmt("%s: an axis of %d elements does not split into %d equal sections",
        name, n, sections))
    end
    local each, extra = n // sections, n % sections
    for k = 1, sections do
      bounds[k + 1] = bounds[k] + each + (k <= extra and 1 or 0)
    end
    return pieces(a, ax, bounds)
  end

  local function splitter(name, equal)
    return function(a, spec, axis, ...)
      check_count(name, 0, 3, a, spec, axis, ...)
      check_array(name, a, "argument #1")
      local ax = axis_of(name, axis, a.ndim)
      return split_at(name, a, spec, ax, equal)
    end
  end
  J.split = splitter("split", true)
  J.array_split = splitter("array_split", false)

  -- hsplit, vsplit, dsplit: split along a fixed axis, for arrays of at least `need` axes.
  local function fixed_splitter(name, need, axis_for)
    return function(a, spec, ...)
      check_count(name, 0, 2, a, spec, ...)
      check_array(name, a, "argument #1")
      if a.ndim < need then
        raise("ValueError", fmt("%s only works on arrays of %d or more dimensions, got %d", name,
          need, a.ndim))
      end
      return split_at(name, a, spec, axis_for(a), true)
    end
  end
  J.hsplit = fixed_splitter("hsplit", 1, function(a) return a.ndim > 1 and 2 or 1 end)
  J.vsplit = fixed_splitter("vsplit", 2, function() return 1 end)
  J.dsplit = fixed_splitter("dsplit", 3, function() return 3 end)

  for name, fn in pairs(J) do
    M[name] = fn
    cpu[name] = fn
  end
end
