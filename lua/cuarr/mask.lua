-- Masks: flatnonzero, argwhere, extract, compress, place and putmask (NumPy's), built on the C
-- core's nonzero, mask selection and mask assignment (src/lua/mask.c, src/core/index/), so
-- that they take host and device arrays alike.  nonzero, a:nonzero() and where(cond) with one
-- argument are in C.
--
-- Indices are 1-based.  An element counts as true when it is nonzero (NaN does).  The size of a
-- result depends on the data: on the device each count costs one synchronisation (place and
-- putmask count twice).  Masks and values may be Lua tables or numbers: they become arrays
-- where the array they go with is (host or current device).
local ipairs = ipairs
local fmt = string.format
local support = require "cuarr.support"

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local max_args, check_array = support.max_args, support.array_arg
  local mask_positions, mask_select = core.mask_positions, core.mask_select
  local mask_assign = core.mask_assign
  local check_writeable = core.check_writeable
  -- The binding's helpers for this file only: not the user's (init.lua copied core's names).
  M.mask_positions, M.mask_select, M.mask_assign = nil, nil, nil
  local nonzero, reshape, ravel = core.nonzero, core.reshape, core.ravel
  local swapaxes, concatenate = core.swapaxes, core.concatenate
  local ascontiguousarray, count_nonzero = core.ascontiguousarray, core.count_nonzero

  -- Where new arrays go with a: cuarr.cpu for a host array, cuarr otherwise.
  local function namespace_of(a) return a.device == "cpu" and cpu or M end

  -- v as an array where `like` is: an array as it is; a table, number or boolean converted.
  local function array_like(name, v, like, what)
    return support.as_array(namespace_of(like), name, v, what)
  end

  local function count_of(m) return count_nonzero(m):item() end

  -- The first n elements of the 1-D array v (slices cannot be empty: an empty array then).
  local function first(v, n)
    if n == v.size then return v end
    if n == 0 then return namespace_of(v).empty({ 0 }, v.dtype) end
    return v[{ { 1, n } }]
  end

  -- n elements of the 1-D array v (size >= 1) repeated in order (NumPy's place and putmask).
  local function cycled(v, n)
    local c = v
    while c.size < n do c = concatenate({ c, c }) end
    return first(c, n)
  end

  local function flatnonzero(a, ...)
    max_args("flatnonzero", 1, a, ...)
    check_array("flatnonzero", a, "argument #1")
    return (nonzero(reshape(a, { -1 })))
  end

  -- argwhere: [count, ndim], the transpose of nonzero's rows (a view, as NumPy's); a 0-d array
  -- gives [1, 0] or [0, 0].
  local function argwhere(a, ...)
    max_args("argwhere", 1, a, ...)
    check_array("argwhere", a, "argument #1")
    if a.ndim == 0 then
      return namespace_of(a).empty({ count_of(a), 0 }, "int64")
    end
    return mask_positions(a).T
  end

  -- The flat condition and array made of one length, as NumPy's take of the nonzero positions
  -- does: a shorter condition selects among the array's first elements; a longer one may have
  -- only zeros past the array's end (IndexError otherwise).
  local function trimmed(name, c, a)
    local nc, na = c.size, a.size
    if nc > na then
      local past = c[{ { na + 1, nc } }]
      if count_of(past) > 0 then
        raise("IndexError", fmt("%s: the condition has %d elements, true past the array's %d",
          name, nc, na))
      end
      if na == 0 then return nil end
      return first(c, na), a
    end
    if nc == 0 then return nil end
    return c, first(a, nc)
  end

  local function extract(condition, a, ...)
    max_args("extract", 2, condition, a, ...)
    check_array("extract", a, "argument #2")
    local c = ravel(array_like("extract", condition, a, "the condition"))
    local fc, fa = trimmed("extract", c, ravel(a))
    if not fc then return namespace_of(a).empty({ 0 }, a.dtype) end
    return mask_select(fa, fc, "extract")
  end

  -- compress(condition, a[, axis]): the slices of a along axis (1-based, negative from the end;
  -- nil: a flattened) where the 1-D condition is true.
  local function compress(condition, a, axis, ...)
    max_args("compress", 3, condition, a, axis, ...)
    check_array("compress", a, "argument #2")
    local c = array_like("compress", condition, a, "the condition")
    if c.ndim ~= 1 then
      raise("ValueError", fmt("compress: the condition must be a 1-d array, got %d dimensions",
        c.ndim))
    end
    if axis == nil then
      a, axis = ravel(a), 1
    else
      axis = support.integer("compress", "the axis", axis)
      if a.ndim == 0 or axis == 0 or axis > a.ndim or axis < -a.ndim then
        raise("IndexError", fmt("compress: axis %d is out of bounds for an array of dimension %d "
          .. "(axes are 1-based)", axis, a.ndim))
      end
      if axis < 0 then axis = axis + a.ndim + 1 end
    end
    local t = axis == 1 and a or swapaxes(a, 1, axis)
    local nc, n = c.size, t.shape[1]
    if nc > n then
      if count_of(c[{ { n + 1, nc } }]) > 0 then
        raise("IndexError", fmt("compress: the condition has %d elements, true past the axis's "
          .. "extent %d", nc, n))
      end
      c = first(c, n)
    elseif nc < n then
      t = nc == 0 and t[{ { 1, 1 } }] or t[{ { 1, nc } }]
      if nc == 0 then c = namespace_of(t).zeros({ 1 }, "bool") end
    end
    local r = mask_select(t, c, "compress")
    if axis == 1 then return r end
    return ascontiguousarray(swapaxes(r, 1, axis))
  end

  -- The mask of place and putmask: any array of a's size, taken in a's shape.
  local function mask_for(name, a, mask)
    local m = array_like(name, mask, a, "the mask")
    if m.size ~= a.size then
      raise("ValueError", fmt("%s: mask and data must be the same size (%d and %d)", name,
        m.size, a.size))
    end
    if m.ndim ~= a.ndim then return reshape(m, a.shape) end
    for i = 1, a.ndim do
      if m.shape[i] ~= a.shape[i] then return reshape(m, a.shape) end
    end
    return m
  end

  -- place(a, mask, vals): a's elements where mask is true take vals in order, repeated when
  -- there are fewer (NumPy's place).  In place; returns nothing.
  local function place(a, mask, vals, ...)
    max_args("place", 3, a, mask, vals, ...)
    check_array("place", a, "argument #1")
    check_writeable(a) -- before the mask and values are made: a's size may be a broadcast's
    local m = mask_for("place", a, mask)
    local v = ravel(array_like("place", vals, a, "vals"))
    local n = count_of(m)
    if n == 0 then return end
    if v.size == 0 then
      raise("ValueError", "place: cannot insert from an empty array (the mask selects " .. n
        .. " elements)")
    end
    mask_assign(a, m, v.size == 1 and v or cycled(v, n), "place")
  end

  -- putmask(a, mask, values): a.flat[i] = values.flat[i % #values] where mask.flat[i] (NumPy's
  -- putmask: values repeat over the whole array, not over the selected elements).  In place.
  local function putmask(a, mask, values, ...)
    max_args("putmask", 3, a, mask, values, ...)
    check_array("putmask", a, "argument #1")
    check_writeable(a) -- before the mask and values are made: a's size may be a broadcast's
    local m = mask_for("putmask", a, mask)
    local v = ravel(array_like("putmask", values, a, "values"))
    if v.size == 0 then
      if a.size == 0 then return end
      raise("ValueError", "putmask: values must not be empty")
    end
    if a.size == 0 then return end
    if v.size == 1 then
      mask_assign(a, m, v, "putmask")
      return
    end
    local full = reshape(cycled(v, a.size), a.shape)
    mask_assign(a, m, mask_select(full, m, "putmask"), "putmask")
  end

  for _, ns in ipairs { M, cpu } do
    ns.flatnonzero, ns.argwhere, ns.extract, ns.compress = flatnonzero, argwhere, extract, compress
    ns.place, ns.putmask = place, putmask
  end
end
