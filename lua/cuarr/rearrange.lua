-- NumPy's rearranging functions for host and device arrays alike: tile, repeat, flip, fliplr,
-- flipud, roll, rot90, moveaxis, rollaxis, broadcast_arrays, atleast_1d/2d/3d, diag, diagflat,
-- tril, triu, meshgrid and indices (pad is in lua/cuarr/pad.lua, broadcast_to in
-- src/lua/rearrange.c).
--
-- Views where NumPy gives views (flip, rot90, moveaxis, rollaxis, broadcast_arrays, atleast_*,
-- diag of a matrix); the copies are made in few launches: tile and repeat by a number copy one
-- broadcast view of an expanded array, roll is one concatenate of two views per rolled axis,
-- tril and triu one where() over a broadcast comparison of two ranges.
--
-- Axes are 1-based, negative from the end; indices (and repeat's use of take) are 1-based.
-- `repeat` is a Lua keyword: cuarr["repeat"] is NumPy's name, cuarr.repeat_ the one that dot
-- syntax can call (a:repeat_(2) as a method too).
local type, select, ipairs = type, select, ipairs
local pairs, tostring, insert = pairs, tostring, table.insert
local fmt, unpack, sort = string.format, table.unpack, table.sort
local abs = math.abs
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local check_array, check_count, axis_of, is_array =
    support.array_arg, support.max_args, support.axis, support.is_array
  local ndarray = core.metatables.ndarray
  local expand_dims, reshape, transpose = core.expand_dims, core.reshape, core.transpose
  local ravel, broadcast_to, concatenate = core.ravel, core.broadcast_to, core.concatenate
  local integer, shape_str = support.integer, support.shape_str
  local MAXDIM = 32 -- cuarr's most axes (CUARR_MAXDIM)


  -- The namespace an array's results are made in.
  local function ns(a) return a.device == "cpu" and cpu or M end

  -- A number or a sequence of axes, each positive, none repeated.
  local function axes_of(name, v, ndim, what)
    local list = {}
    if type(v) == "table" and not is_array(v) then
      for i = 1, list_len(v) do list[i] = axis_of(name, list_get(v, i), ndim, what) end
    else
      list[1] = axis_of(name, v, ndim, what)
    end
    local seen = {}
    for _, ax in ipairs(list) do
      if seen[ax] then raise("ValueError", fmt("%s: repeated axis in %s", name, what)) end
      seen[ax] = true
    end
    return list
  end

  local function copy_shape(s)
    local t = {}
    for i = 1, #s do t[i] = s[i] end
    return t
  end

  local whole, range = support.whole_index, support.range_index

  -- The view of a along ax reversed (an empty axis stays as it is).
  local function reversed(a, axes)
    local index = whole(a.ndim)
    for _, ax in ipairs(axes) do
      if a.shape[ax] > 0 then index[ax] = { -1, 1, -1 } end
    end
    return a[index]
  end

  -- The elements [lo, hi) (0-based) of a along ax, as a view.
  local function slab(a, ax, lo, hi)
    local index = whole(a.ndim)
    index[ax] = range(lo, hi)
    return a[index]
  end

  local R = {}     -- functions of both namespaces
  local methods = {}

  -- ------------------------------------------------------------ flips and rotations

  function R.flip(m, axis, ...)
    check_count("flip", 2, m, axis, ...)
    check_array("flip", m)
    if axis == nil then
      local all = {}
      for d = 1, m.ndim do all[d] = d end
      return reversed(m, all)
    end
    return reversed(m, axes_of("flip", axis, m.ndim, "the axis"))
  end

  function R.fliplr(m, ...)
    check_count("fliplr", 1, m, ...)
    check_array("fliplr", m)
    if m.ndim < 2 then raise("ValueError", "fliplr: the array must be at least 2-D") end
    return reversed(m, { 2 })
  end

  function R.flipud(m, ...)
    check_count("flipud", 1, m, ...)
    check_array("flipud", m)
    if m.ndim < 1 then raise("ValueError", "flipud: the array must be at least 1-D") end
    return reversed(m, { 1 })
  end

  function R.rot90(m, k, axes, ...)
    check_count("rot90", 3, m, k, axes, ...)
    check_array("rot90", m)
    k = k == nil and 1 or integer("rot90", "k", k)
    axes = axes == nil and { 1, 2 } or axes
    if type(axes) ~= "table" or is_array(axes) then
      raise("TypeError", "rot90: axes must be a table of two axes, got " .. type(axes))
    end
    if list_len(axes) ~= 2 then raise("ValueError", "rot90: len(axes) must be 2") end
    if m.ndim < 2 then raise("ValueError", "rot90: the array must be at least 2-D") end
    local a0 = axis_of("rot90", list_get(axes, 1), m.ndim, "axes[1]")
    local a1 = axis_of("rot90", list_get(axes, 2), m.ndim, "axes[2]")
    if a0 == a1 then raise("ValueError", "rot90: the axes must be different") end
    k = k % 4
    if k == 0 then return m[whole(m.ndim)] end
    if k == 2 then return reversed(m, { a0, a1 }) end
    local perm = {}
    for d = 1, m.ndim do perm[d] = d end
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1 then return transpose(reversed(m, { a1 }), perm) end
    return reversed(transpose(m, perm), { a1 })
  end

  -- ------------------------------------------------------------ axes moved

  function R.moveaxis(a, source, destination, ...)
    check_count("moveaxis", 3, a, source, destination, ...)
    check_array("moveaxis", a)
    local src = axes_of("moveaxis", source, a.ndim, "source")
    local dst = axes_of("moveaxis", destination, a.ndim, "destination")
    if #src ~= #dst then
      raise("ValueError", "moveaxis: source and destination must have the same number of "
        .. "elements")
    end
    local moved, order = {}, {}
    for _, s in ipairs(src) do moved[s] = true end
    for d = 1, a.ndim do
      if not moved[d] then order[#order + 1] = d end
    end
    local pairs_ = {}
    for i = 1, #src do pairs_[i] = { dst[i], src[i] } end
    sort(pairs_, function(x, y) return x[1] < y[1] end)
    for _, p in ipairs(pairs_) do insert(order, p[1], p[2]) end
    return transpose(a, order)
  end

  -- rollaxis(a, axis[, start]): start is a position 1..ndim + 1 (default 1); a negative one
  -- counts from the end as NumPy's does (-1: before the last axis).
  function R.rollaxis(a, axis, start, ...)
    check_count("rollaxis", 3, a, axis, start, ...)
    check_array("rollaxis", a)
    local n = a.ndim
    local ax = axis_of("rollaxis", axis, n)
    local s = start == nil and 1 or integer("rollaxis", "start", start)
    if s < 0 then s = s + n + 1 end
    if s < 1 or s > n + 1 then
      raise("IndexError", fmt("rollaxis: start must lie in -%d..-1 or 1..%d, got %d", n, n + 1,
        integer("rollaxis", "start", start)))
    end
    if ax < s then s = s - 1 end
    if ax == s then return a[whole(n)] end
    local order = {}
    for d = 1, n do
      if d ~= ax then order[#order + 1] = d end
    end
    insert(order, s, ax)
    return transpose(a, order)
  end

  -- ------------------------------------------------------------ broadcasting

  -- The broadcast shape of the arrays of list.
  local function broadcast_shape(name, list)
    local nd = 0
    for _, a in ipairs(list) do
      if a.ndim > nd then nd = a.ndim end
    end
    local shape, from = {}, {}
    for d = 1, nd do shape[d], from[d] = 1, 0 end
    for i, a in ipairs(list) do
      local off = nd - a.ndim
      for d = 1, a.ndim do
        local n = a.shape[d]
        if n ~= 1 then
          if shape[off + d] == 1 then
            shape[off + d], from[off + d] = n, i
          elseif shape[off + d] ~= n then
            raise("ValueError", fmt("%s: shape mismatch: objects cannot be broadcast to a single "
              .. "shape; argument %d has shape %s and argument %d shape %s", name,
              from[off + d], shape_str(list[from[off + d]].shape), i, shape_str(a.shape)))
          end
        end
      end
    end
    return shape
  end

  -- A ValueError unless the arrays of list are all on the host or all on one device.
  local function one_place(name, list)
    local function where(a) return a.device == "cpu" and "cpu" or a.device.id end
    for i = 2, #list do
      if where(list[i]) ~= where(list[1]) then
        raise("ValueError", fmt("%s: argument %d is not where argument 1 is (host and device "
          .. "arrays, or two devices, mixed)", name, i))
      end
    end
  end

  function R.broadcast_arrays(...)
    local list = {}
    for i = 1, select("#", ...) do
      list[i] = check_array("broadcast_arrays", (select(i, ...)), "argument #" .. i)
    end
    one_place("broadcast_arrays", list)
    local shape = broadcast_shape("broadcast_arrays", list)
    local out = {}
    for i, a in ipairs(list) do out[i] = broadcast_to(a, shape) end
    return unpack(out, 1, #list)
  end

  local function atleast(name, fn)
    return function(...)
      local n = select("#", ...)
      local out = {}
      for i = 1, n do
        out[i] = fn(check_array(name, (select(i, ...)), "argument #" .. i))
      end
      return unpack(out, 1, n)
    end
  end
  R.atleast_1d = atleast("atleast_1d", function(a)
    if a.ndim == 0 then return reshape(a, { 1 }) end
    return a
  end)
  R.atleast_2d = atleast("atleast_2d", function(a)
    if a.ndim == 0 then return reshape(a, { 1, 1 }) end
    if a.ndim == 1 then return expand_dims(a, 1) end
    return a
  end)
  R.atleast_3d = atleast("atleast_3d", function(a)
    if a.ndim == 0 then return reshape(a, { 1, 1, 1 }) end
    if a.ndim == 1 then return expand_dims(expand_dims(a, 1), 3) end
    if a.ndim == 2 then return expand_dims(a, 3) end
    return a
  end)

  -- ------------------------------------------------------------ tile and repeat

  -- A non-negative integer, else a TypeError or ValueError naming `what`.
  local function count_of(name, what, v)
    local c = integer(name, what, v)
    if c < 0 then raise("ValueError", fmt("%s: %s must not be negative, got %d", name, what, c)) end
    return c
  end

  function R.tile(A, reps, ...)
    check_count("tile", 2, A, reps, ...)
    check_array("tile", A)
    local r = {}
    if type(reps) == "table" and not is_array(reps) then
      local nr = list_len(reps)
      if nr > MAXDIM then
        raise("ValueError", fmt("tile: reps has %d entries (at most %d axes)", nr, MAXDIM))
      end
      for i = 1, nr do r[i] = count_of("tile", "reps[" .. i .. "]", list_get(reps, i)) end
    elseif type(reps) == "number" then
      r[1] = count_of("tile", "reps", reps)
    else
      raise("TypeError", "tile: reps must be an integer or a table of integers, got "
        .. (is_array(reps) and "an array" or type(reps)))
    end
    local nd = A.ndim > #r and A.ndim or #r
    local a = A
    while a.ndim < nd do a = expand_dims(a, 1) end
    while #r < nd do insert(r, 1, 1) end
    -- Each axis d with r[d] > 1 gets a new axis of r[d] before it, on a broadcast view that
    -- one copy makes real: (s1, s2) -> (r1, s1, r2, s2) -> (r1 * s1, r2 * s2).  The view has
    -- at most 32 axes: past that the repeated axes are done in several copies.
    local todo = {}
    for d = 1, nd do
      if r[d] ~= 1 then todo[#todo + 1] = d end
    end
    local first = 1
    while true do
      local last = math.min(#todo, first + MAXDIM - nd - 1)
      if last < first and first <= #todo then
        -- no room for a new axis (32 axes already): r copies of a joined along the axis
        local d = todo[first]
        if r[d] > 1 << 24 then
          raise("OutOfMemoryError", fmt("tile: %d copies of a 32-axis array would not fit in "
            .. "memory", r[d]))
        end
        local copies = {}
        for k = 1, r[d] do copies[k] = a end
        if r[d] == 0 then copies = { slab(a, d, 0, 0) } end
        a = concatenate(copies, d)
        first = first + 1
      else
        local wide, final, at = {}, copy_shape(a.shape), 0
        local v = a
        for d = 1, nd do
          at = at + 1
          if first <= last and d >= todo[first] and d <= todo[last] and r[d] ~= 1 then
            v = expand_dims(v, at)
            wide[at] = r[d]
            at = at + 1
            final[d] = r[d] * a.shape[d]
          end
          wide[at] = a.shape[d]
        end
        a = reshape(broadcast_to(v, wide):copy(), final)
        first = last + 1
      end
      if first > #todo then break end
    end
    return a
  end

  -- The counts of repeat for an axis of n elements: a list of n non-negative integers.
  local function repeat_counts(repeats, n)
    local list
    if is_array(repeats) then
      if repeats.ndim > 1 then
        raise("ValueError", "repeat: repeats must be a number or a 1-D sequence")
      end
      local h = repeats.device == "cpu" and repeats or repeats:get()
      list = h:astype("float64"):totable()
      if type(list) ~= "table" then list = { list } end
    else
      list = repeats
    end
    local out = {}
    for i = 1, list_len(list) do
      out[i] = count_of("repeat", "repeats[" .. i .. "]", list_get(list, i))
    end
    if #out ~= 1 and #out ~= n then
      raise("ValueError", fmt("repeat: %d counts for an axis of %d elements", #out, n))
    end
    return out
  end

  local function repeat_(a, repeats, axis, ...)
    check_count("repeat", 3, a, repeats, axis, ...)
    check_array("repeat", a)
    if type(repeats) ~= "number" and type(repeats) ~= "table" and not is_array(repeats) then
      raise("TypeError", "repeat: repeats must be an integer, a table of integers or an array, "
        .. "got " .. type(repeats))
    end
    local ax
    if axis == nil then
      a, ax = ravel(a), 1
    else
      ax = axis_of("repeat", axis, a.ndim)
    end
    local n = a.shape[ax]
    local counts = type(repeats) == "number" and { count_of("repeat", "repeats", repeats) }
      or repeat_counts(repeats, n)
    local shape = copy_shape(a.shape)
    if #counts == 1 then
      -- every element c times: the axis split in (n, c), broadcast, one copy
      local c = counts[1]
      local wide = copy_shape(a.shape)
      insert(wide, ax + 1, c)
      shape[ax] = n * c
      return reshape(broadcast_to(expand_dims(a, ax + 1), wide):copy(), shape)
    end
    local total = 0
    for i = 1, n do
      if counts[i] >= math.maxinteger - total then
        raise("ValueError", fmt("repeat: the result is too big: the counts sum past 2^63 - 1"))
      end
      total = total + counts[i]
    end
    shape[ax] = total
    local xp = ns(a)
    if total == 0 then return xp.empty(shape, a.dtype) end
    local take = xp.take
    -- one gather; "clip" as the indices are all in range: the default "raise" would read back
    -- the device's check, a synchronisation for nothing.  The indices are built where the
    -- array is, never output element by output element in Lua (a count of 2^40 was a Lua
    -- table of 2^40 entries: minutes, then Lua's own "not enough memory"): the running sum of
    -- marks, zero but where an element's run starts, there the step from the previous run's
    -- element; so a result too big is the allocation's error, at once.
    if take then
      local starts, steps, at, last = {}, {}, 1, 0
      for i = 1, n do
        local c = counts[i]
        if c > 0 then
          starts[#starts + 1], steps[#steps + 1] = at, i - last
          at, last = at + c, i
        end
      end
      local marks = xp.zeros(total, "int64")
      xp.put(marks, cpu.array(starts, "int64"), cpu.array(steps, "int64"), "clip")
      return take(a, xp.cumsum(marks), ax, { mode = "clip" })
    end
    -- without take: one concatenate of slabs, runs of single counts taken whole
    local pieces, i = {}, 1
    while i <= n do
      local c = counts[i]
      if c == 1 then
        local j = i
        while j < n and counts[j + 1] == 1 do j = j + 1 end
        pieces[#pieces + 1] = slab(a, ax, i - 1, j)
        i = j + 1
      else
        if c > 1 then
          local wide = copy_shape(a.shape)
          wide[ax] = c
          pieces[#pieces + 1] = broadcast_to(slab(a, ax, i - 1, i), wide)
        end
        i = i + 1
      end
    end
    return concatenate(pieces, ax)
  end
  R["repeat"] = repeat_
  R.repeat_ = repeat_
  methods["repeat"] = repeat_
  methods.repeat_ = repeat_

  -- ------------------------------------------------------------ roll

  -- roll(a, shift[, axis]): shift and axis numbers or tables (broadcast together, shifts of
  -- one axis summed); without an axis the array rolls as if flattened.
  function R.roll(a, shift, axis, ...)
    check_count("roll", 3, a, shift, axis, ...)
    check_array("roll", a)
    local shifts = {}
    if type(shift) == "table" and not is_array(shift) then
      for i = 1, list_len(shift) do
        shifts[i] = integer("roll", "shift[" .. i .. "]", list_get(shift, i))
      end
    else
      shifts[1] = integer("roll", "the shift", shift)
    end
    if axis == nil then
      local total = 0
      for _, s in ipairs(shifts) do total = total + s end
      local flat = ravel(a)
      return reshape(R.roll(flat, total, 1), a.shape)
    end
    local axes = {}
    if type(axis) == "table" and not is_array(axis) then
      for i = 1, list_len(axis) do axes[i] = axis_of("roll", list_get(axis, i), a.ndim) end
    else
      axes[1] = axis_of("roll", axis, a.ndim)
    end
    local n = #shifts > #axes and #shifts or #axes
    if (#shifts ~= n and #shifts ~= 1) or (#axes ~= n and #axes ~= 1) then
      raise("ValueError", "roll: shift and axis must have the same length (or one of them 1)")
    end
    local by = {}
    for i = 1, n do
      local ax = axes[#axes == 1 and 1 or i]
      by[ax] = (by[ax] or 0) + shifts[#shifts == 1 and 1 or i]
    end
    local r = a
    for ax = 1, a.ndim do
      local len = a.shape[ax]
      local s = by[ax] and len > 0 and by[ax] % len or 0
      if s ~= 0 then
        r = concatenate({ slab(r, ax, len - s, len), slab(r, ax, 0, len - s) }, ax)
      end
    end
    if r == a then r = a:copy() end
    return r
  end

  -- ------------------------------------------------------------ diagonals and triangles

  function R.diag(v, k, ...)
    check_count("diag", 2, v, k, ...)
    check_array("diag", v)
    k = k == nil and 0 or integer("diag", "k", k)
    if v.ndim == 2 then return v:diagonal(k) end
    if v.ndim ~= 1 then raise("ValueError", "diag: input must be 1- or 2-d") end
    local n = v.shape[1] + abs(k)
    local z = ns(v).zeros({ n, n }, v.dtype)
    if v.shape[1] > 0 then z:diagonal(k)[{}] = v end
    return z
  end

  function R.diagflat(v, k, ...)
    check_count("diagflat", 2, v, k, ...)
    check_array("diagflat", v)
    return R.diag(ravel(v), k == nil and 0 or integer("diagflat", "k", k))
  end

  -- The elements of m on and below (lower) or on and above the k-th diagonal; the rest 0.
  local function triangle(name, lower)
    return function(m, k, ...)
      check_count(name, 2, m, k, ...)
      check_array(name, m)
      k = k == nil and 0 or integer(name, "k", k)
      if m.ndim < 1 then raise("ValueError", name .. ": the array must be at least 1-D") end
      local xp = ns(m)
      local rows_n = m.ndim >= 2 and m.shape[m.ndim - 1] or m.shape[1]
      local cols_n = m.shape[m.ndim]
      -- element (i, j) is kept when j - k <= i (lower) or j - k >= i (upper)
      local rows = reshape(xp.arange(rows_n), { rows_n, 1 })
      local cols = xp.arange(-k, cols_n - k)
      local keep = lower and rows:ge(cols) or rows:le(cols)
      local zero = 0
      if m.dtype == "bool" then zero = false end
      return xp.where(keep, m, zero)
    end
  end
  R.tril = triangle("tril", true)
  R.triu = triangle("triu", false)

  -- ------------------------------------------------------------ grids

  local MESHGRID_KEYS = { "indexing", "sparse", "copy" }

  -- meshgrid(x1, x2, ..., [{indexing = "xy" | "ij", sparse = false, copy = true}]): the
  -- coordinate arrays, as many results as inputs.
  function R.meshgrid(...)
    local n = select("#", ...)
    local opts = n > 0 and select(n, ...) or nil
    if type(opts) == "table" and not is_array(opts) then
      n = n - 1
      core.check_options(opts, "meshgrid", MESHGRID_KEYS)
    else
      opts = {}
    end
    local indexing = opts.indexing == nil and "xy" or opts.indexing
    if indexing ~= "xy" and indexing ~= "ij" then
      raise("ValueError", "meshgrid: indexing must be 'xy' or 'ij', got " .. tostring(indexing))
    end
    local sparse, copy = opts.sparse, opts.copy
    if sparse ~= nil and type(sparse) ~= "boolean" then
      raise("TypeError", "meshgrid: sparse must be a boolean, got " .. type(sparse))
    end
    if copy ~= nil and type(copy) ~= "boolean" then
      raise("TypeError", "meshgrid: copy must be a boolean, got " .. type(copy))
    end
    local out, inputs = {}, {}
    for i = 1, n do inputs[i] = check_array("meshgrid", (select(i, ...)), "argument #" .. i) end
    one_place("meshgrid", inputs)
    for i = 1, n do
      local x = inputs[i]
      local shape = {}
      for d = 1, n do shape[d] = 1 end
      local at = i
      if indexing == "xy" and n > 1 and i <= 2 then at = 3 - i end
      shape[at] = -1
      out[i] = reshape(ravel(x), shape)
    end
    if not sparse and n > 0 then out = { R.broadcast_arrays(unpack(out, 1, n)) } end
    if copy ~= false then
      for i = 1, n do out[i] = out[i]:copy() end
    end
    return unpack(out, 1, n)
  end

  -- indices(dimensions[, dtype][, {sparse = false, dtype = ...}]): NumPy's grid of indices,
  -- 1-based: an array of shape (#dimensions, dimensions...), or with sparse one array per axis.
  local function indices_in(xp)
    return function(dimensions, dtype, opts, ...)
      check_count("indices", 3, dimensions, dtype, opts, ...)
      if type(dtype) == "table" and opts == nil then dtype, opts = nil, dtype end
      local sparse = false
      if opts ~= nil then
        if type(opts) ~= "table" then
          raise("TypeError", "indices: options must be a table, got " .. type(opts))
        end
        core.check_options(opts, "indices", { "sparse", "dtype" })
        if opts.sparse ~= nil and type(opts.sparse) ~= "boolean" then
          raise("TypeError", "indices: sparse must be a boolean, got " .. type(opts.sparse))
        end
        sparse = opts.sparse or false
        if opts.dtype ~= nil then
          if dtype ~= nil then raise("TypeError", "indices: the dtype is given twice") end
          dtype = opts.dtype
        end
      end
      dtype = dtype or "int64"
      if type(dimensions) ~= "table" or is_array(dimensions) then
        raise("TypeError", "indices: dimensions must be a table of integers, got "
          .. (is_array(dimensions) and "an array" or type(dimensions)))
      end
      local nd = list_len(dimensions)
      local dims = {}
      for i = 1, nd do
        dims[i] = count_of("indices", "dimensions[" .. i .. "]", list_get(dimensions, i))
      end
      local grids = {}
      for i = 1, nd do
        local shape = {}
        for d = 1, nd do shape[d] = 1 end
        shape[i] = dims[i]
        grids[i] = reshape(xp.arange(1, dims[i] + 1, 1, dtype), shape)
      end
      if sparse then return unpack(grids, 1, nd) end
      if nd == 0 then return xp.empty({ 0 }, dtype) end
      for i = 1, nd do grids[i] = expand_dims(broadcast_to(grids[i], dims), 1) end
      return concatenate(grids, 1)
    end
  end

  for name, fn in pairs(R) do
    M[name] = fn
    cpu[name] = fn
  end
  M.indices = indices_in(M)
  cpu.indices = indices_in(cpu)
  for name, fn in pairs(methods) do ndarray.methods[name] = fn end
  require("cuarr.pad")(M, cpu, core)
end
