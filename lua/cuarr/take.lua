-- take, put, take_along_axis, put_along_axis, choose and select (NumPy's), for host and device
-- arrays alike, built on the C binding's fancy_gather and fancy_scatter (src/lua/take.c: one
-- kernel launch on the device whatever the number of index arrays), and a:take, a:put.
--
-- Indices are 1-based, negative from the end (-1 the last); mode = "raise" (the default: an
-- index out of range, or 0, is an IndexError, checked on the device), "wrap" (positions taken
-- modulo the extent, so 0 is the last and n + 1 the first) or "clip" (clamped into 1..n; as in
-- NumPy negative values do not count from the end there).  Axes are 1-based, negative from the
-- end, nil flattening the array as NumPy's None.  Indices may be arrays of any integer dtype,
-- Lua integers or Lua sequences of integers; a host index array for a device array is copied to
-- the device.
local type, ipairs = type, ipairs
local fmt = string.format
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local check_count, check_array, axis_of, is_array =
    support.max_args, support.array_arg, support.axis, support.is_array
  local ndarray = core.metatables.ndarray
  local gather, scatter = core.fancy_gather, core.fancy_scatter
  local reshape, ravel = core.reshape, core.ravel
  local check_options = core.check_options
  local integer = support.integer

  local function xp_of(a) return a.device == "cpu" and cpu or M end

  -- indices as an array: an array as it is, a Lua integer as a 0-d int64 array, a sequence of
  -- integers as a 1-D one (a float inside is a TypeError, as cuarr.array's elements are read).
  local function index_array(name, v)
    if is_array(v) then return v end
    if type(v) == "number" then
      return cpu.array(integer(name, "an index", v), "int64")
    end
    if type(v) == "table" then
      -- read raw into a copy, which is what becomes the array: a hostile __len or __index
      -- must not decide the count, nor change an entry between its check and its use
      local list = {}
      for i = 1, list_len(v) do
        local e = list_get(v, i)
        if type(e) ~= "number" then
          raise("TypeError", fmt("%s: entry %d of the indices must be an integer, got %s", name,
            i, type(e)))
        end
        list[i] = integer(name, "entry " .. i .. " of the indices", e)
      end
      return cpu.array(list, "int64")
    end
    raise("TypeError", fmt("%s: indices must be an array, an integer or a table of integers, "
      .. "got %s", name, type(v)))
  end

  local MODES = { raise = true, wrap = true, clip = true }
  local function mode_of(name, m)
    if m == nil then return "raise" end
    if type(m) ~= "string" then
      raise("TypeError", fmt("%s: mode must be a string, got %s", name, type(m)))
    end
    if not MODES[m] then
      raise("ValueError", fmt("%s: mode must be 'raise', 'wrap' or 'clip', got '%s'", name, m))
    end
    return m
  end

  local function options(name, opts, keys)
    if opts == nil then return {} end
    if type(opts) ~= "table" or is_array(opts) then
      raise("TypeError", fmt("%s: options must be a table, got %s", name, type(opts)))
    end
    check_options(opts, name, keys)
    if opts.out ~= nil and not is_array(opts.out) then
      raise("TypeError", fmt("%s: out must be an array, got %s", name, type(opts.out)))
    end
    return opts
  end

  -- a as a flat (1-D) array that writes go through: a view when a is C-contiguous, else a C
  -- copy and the function that writes it back.
  local function flat_target(a)
    if a.flags.c_contiguous then return reshape(a, { a.size }), nil end
    local c = a:copy()
    return reshape(c, { c.size }), function() a[{}] = c end
  end

  -- An arange 1..n (int64, where a is) shaped to run along axis d of ndim axes.
  local function positions(xp, n, d, ndim)
    local shape = {}
    for i = 1, ndim do shape[i] = 1 end
    shape[d] = n
    return reshape(xp.arange(1, n + 1), shape)
  end

  local T = {}

  -- take(a, indices[, axis[, {out=, mode=}]])
  function T.take(a, indices, axis, opts, ...)
    check_count("take", 4, a, indices, axis, opts, ...)
    check_array("take", a, "argument #1")
    opts = options("take", opts, { "out", "mode" })
    local idx = index_array("take", indices)
    local mode = mode_of("take", opts.mode)
    if axis == nil then
      return gather(ravel(a), { idx }, { 1 }, 0, mode, opts.out)
    end
    local ax = axis_of("take", axis, a.ndim)
    return gather(a, { idx }, { ax }, ax - 1, mode, opts.out)
  end

  -- put(a, indices, values[, mode]): a's flat elements at indices = values, repeated (NumPy's
  -- cycle) when fewer than the indices.
  function T.put(a, indices, values, mode, ...)
    check_count("put", 4, a, indices, values, mode, ...)
    check_array("put", a, "argument #1")
    mode = mode_of("put", mode)
    local idx = index_array("put", indices)
    if values == nil then raise("TypeError", "put: values are missing") end
    local n = idx.size
    local v = values
    if type(values) == "table" and not is_array(values) then
      v = cpu.array(values, a.dtype) -- NumPy converts the values to a.dtype
    end
    if is_array(v) then
      v = ravel(v)
      if v.size == 0 then
        if n > 0 then raise("ValueError", "put: no values to put at the indices") end
        return
      end
      if v.size ~= n and v.size ~= 1 then
        v = gather(v, { xp_of(v).arange(1, n + 1) }, { 1 }, 0, "wrap")
      end
    end
    local flat, write_back = flat_target(a)
    scatter(flat, { ravel(idx) }, { 1 }, 0, mode, v)
    if write_back then write_back() end
  end

  -- The index arrays of take_along_axis and put_along_axis: indices along ax, and along every
  -- other axis the positions 1..n broadcast against them.
  local function along(name, a, indices, axis)
    check_array(name, a, "argument #1")
    check_array(name, indices, "the indices")
    local ax
    if axis == nil then
      if indices.ndim ~= 1 then
        raise("ValueError", fmt("%s: when axis is nil, the indices must have one dimension, "
          .. "got %d", name, indices.ndim))
      end
      a, ax = ravel(a), 1
    else
      ax = axis_of(name, axis, a.ndim)
    end
    if indices.ndim ~= a.ndim then
      raise("ValueError", fmt("%s: the indices and the array must have the same number of "
        .. "dimensions (%d and %d)", name, indices.ndim, a.ndim))
    end
    local xp = xp_of(a)
    local list, axes = {}, {}
    for d = 1, a.ndim do
      list[d] = d == ax and indices or positions(xp, a.shape[d], d, a.ndim)
      axes[d] = d
    end
    return a, list, axes
  end

  function T.take_along_axis(a, indices, axis, ...)
    check_count("take_along_axis", 3, a, indices, axis, ...)
    local src, list, axes = along("take_along_axis", a, indices, axis)
    return gather(src, list, axes, 0, "raise")
  end

  function T.put_along_axis(a, indices, values, axis, ...)
    check_count("put_along_axis", 4, a, indices, values, axis, ...)
    if axis == nil then
      check_array("put_along_axis", a, "argument #1")
      local flat, write_back = flat_target(a)
      local _, list, axes = along("put_along_axis", flat, indices, 1)
      scatter(flat, list, axes, 0, "raise", values)
      if write_back then write_back() end
      return
    end
    local dst, list, axes = along("put_along_axis", a, indices, axis)
    scatter(dst, list, axes, 0, "raise", values)
  end

  -- NumPy's broadcast of two shapes (a ValueError naming them otherwise).
  local function broadcast_shape(name, s1, s2)
    local n = math.max(#s1, #s2)
    local out = {}
    for i = 1, n do
      local e1 = s1[#s1 - n + i] or 1
      local e2 = s2[#s2 - n + i] or 1
      if e1 ~= e2 and e1 ~= 1 and e2 ~= 1 then
        raise("ValueError", fmt("%s: shape mismatch: objects cannot be broadcast to a single "
          .. "shape (%s and %s)", name, support.shape_str(s1), support.shape_str(s2)))
      end
      out[i] = e1 == 1 and e2 or e1
    end
    return out
  end

  -- choose(a, choices[, {out=, mode=}]): result[i] = choices[a[i]][i], the choices numbered
  -- from 1; choices a sequence of arrays (or numbers) or an array whose first axis numbers them.
  function T.choose(a, choices, opts, ...)
    check_count("choose", 3, a, choices, opts, ...)
    local idx = index_array("choose", a)
    opts = options("choose", opts, { "out", "mode" })
    local mode = mode_of("choose", opts.mode)
    local xp = is_array(a) and xp_of(a) or (is_array(choices) and xp_of(choices)) or cpu
    local C
    if is_array(choices) then
      if choices.ndim == 0 then raise("ValueError", "choose: the choices need a first axis") end
      C = choices
    elseif type(choices) == "table" then
      local n = list_len(choices) -- raw: the table is data
      if n == 0 then raise("ValueError", "choose: no choices") end
      local list = {}
      for i = 1, n do
        local c = list_get(choices, i)
        if type(c) == "number" then c = xp.array(c) end
        list[i] = check_array("choose", c, "choice " .. i)
      end
      C = xp.stack({ xp.broadcast_arrays(table.unpack(list, 1, n)) })
    else
      raise("TypeError", fmt("choose: the choices must be a table or an array, got %s",
        type(choices)))
    end
    local rest = {}
    for i = 2, C.ndim do rest[i - 1] = C.shape[i] end
    local S = broadcast_shape("choose", idx.shape, rest)
    local full = { C.shape[1] }
    for i, e in ipairs(S) do full[i + 1] = e end
    local Cb = xp.broadcast_to(C, full)
    local list, axes = { idx }, { 1 }
    for d = 1, #S do
      list[d + 1] = positions(xp, S[d], d, #S)
      axes[d + 1] = d + 1
    end
    return gather(Cb, list, axes, 0, mode, opts.out)
  end

  -- select(condlist, choicelist[, default]): where the first true condition's choice, default
  -- (0) where none is.
  function T.select(condlist, choicelist, default, ...)
    check_count("select", 3, condlist, choicelist, default, ...)
    if type(condlist) ~= "table" or is_array(condlist) or type(choicelist) ~= "table"
        or is_array(choicelist) then
      raise("TypeError", "select: condlist and choicelist must be tables")
    end
    -- read raw into copies: the tables are data, and a hostile __len or __index must neither
    -- decide their counts nor change an entry between its check and its use
    local n = list_len(condlist)
    if n ~= list_len(choicelist) then
      raise("ValueError", fmt("select: list of cases must be same length as list of conditions "
        .. "(%d and %d)", list_len(choicelist), n))
    end
    local conds, choices = {}, {}
    for i = 1, n do conds[i], choices[i] = list_get(condlist, i), list_get(choicelist, i) end
    if n == 0 then raise("ValueError", "select with an empty condition list is not possible") end
    local xp
    for i = 1, n do
      local c = conds[i]
      if not is_array(c) or c.dtype ~= "bool" then
        raise("TypeError", fmt("select: invalid entry %d in condlist: should be a boolean array",
          i))
      end
      xp = xp or xp_of(c)
      local ch = choices[i]
      if not is_array(ch) and type(ch) ~= "number" and type(ch) ~= "boolean" then
        raise("TypeError", fmt("select: entry %d of choicelist must be an array or a number, "
          .. "got %s", i, type(ch)))
      end
    end
    if default == nil then default = 0 end
    if not is_array(default) and type(default) ~= "number" and type(default) ~= "boolean" then
      raise("TypeError", fmt("select: default must be an array or a number, got %s",
        type(default)))
    end
    -- the result type of every choice and the default at once (NumPy's result_type): where
    -- folded pairwise would depend on their order; each array choice is cast to it first
    local args = { default }
    for i = 1, n do args[i + 1] = choices[i] end
    local dtype = xp.result_type(table.unpack(args, 1, n + 1))
    local function as_result(c)
      if is_array(c) and c.dtype ~= dtype then return c:astype(dtype) end
      return c
    end
    local result = as_result(default)
    for i = n, 1, -1 do
      result = xp.where(conds[i], as_result(choices[i]), result)
    end
    return result
  end

  for name, fn in pairs(T) do
    M[name] = fn
    cpu[name] = fn
  end
  ndarray.methods.take = T.take
  ndarray.methods.put = T.put
end
