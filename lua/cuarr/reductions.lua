-- The reductions composed in Lua from the built-in ones (sum, max, count_nonzero, ... in C)
-- and the ufuncs: mean, var, std, nanmean, ptp, and linalg.norm.
--
-- Each function takes host or device arrays alike: the array's own module
-- (get_array_module) does the work, so cuarr.mean and cuarr.cpu.mean are one function.  The
-- arguments are the built-in reductions' own: fn(a [, axis] [, opts]) or fn(a, opts), axis nil
-- (every axis), an integer (1-based, negative from the end) or a table of them, opts
-- {axis=, keepdims=, dtype=, out=} (and ddof= for var and std).  NumPy's semantics: integer
-- and bool inputs average in float64, float16 ones in float32 with a float16 result.
--
-- A given `out` is filled only once the result is known, from a result computed aside: an
-- error leaves it as it was.
local type, mtype, getmetatable, tostring, ipairs, pairs = type, math.type, getmetatable,
  tostring, ipairs, pairs
local huge = math.huge
local fmt = string.format
local next = next
-- The binding's one check of an options table's keys (unknown ones are a ValueError).
local check_options = require("cuarr.core").check_options
local support = require "cuarr.support"

-- (M, cpu, mt, raise): the device namespace, the host one, the metatables, core.raise.
return function(M, cpu, mt, raise)
  local ndarray = mt.ndarray
  local get_array_module = M.get_array_module

  local function is_array(a) return getmetatable(a) == ndarray end

  -- ---------------------------------------------------------------- arguments

  local OPTION_KEYS = { "axis", "keepdims", "dtype", "out", "ddof" }
  -- The options each function takes (ptp refuses a dtype itself, with a TypeError).
  local KEYS = { "axis", "keepdims", "dtype", "out" }
  local VARIANCE_KEYS = { "axis", "keepdims", "dtype", "out", "ddof" }
  local NORM_KEYS = { "ord", "axis", "keepdims" }

  -- A table is options when it has a string key ({keepdim = true} too, to be refused by name)
  -- or one of their keys read through __index; otherwise a sequence of axes (the binding's
  -- rule, so that `a:mean{axis = 2}` and `a:mean({1, 2})` both work).
  local function is_options(t)
    if type(t) ~= "table" or is_array(t) then return false end
    for k in next, t do
      if type(k) == "string" then return true end
    end
    for _, k in ipairs(OPTION_KEYS) do
      if t[k] ~= nil then return true end
    end
    return false
  end

  -- fn(a [, axis] [, opts]) or fn(a, opts): the axis and the options (a table, never nil),
  -- checked as far as the built-in reductions do not check them themselves.
  local function read_args(name, a, axis, opts, keys)
    if not is_array(a) then
      raise("TypeError", fmt("%s: argument #1 must be an array, got %s", name, type(a)))
    end
    if is_options(axis) then
      if opts ~= nil then
        raise("TypeError", fmt("%s: the options are given twice (argument #2 is options)", name))
      end
      opts = axis
      check_options(opts, name, keys)
      axis = opts.axis
    else
      if opts == nil then
        opts = {}
      elseif type(opts) ~= "table" then
        raise("TypeError", fmt("%s: options must be a table, got %s", name, type(opts)))
      end
      check_options(opts, name, keys)
      if opts.axis ~= nil then
        if axis ~= nil then raise("ValueError", name .. ": the axis is given twice") end
        axis = opts.axis
      end
    end
    local kd = opts.keepdims
    if kd ~= nil and type(kd) ~= "boolean" then
      raise("TypeError", fmt("%s: keepdims must be a boolean, got %s", name, type(kd)))
    end
    local out = opts.out
    if out ~= nil and not is_array(out) then
      raise("TypeError", fmt("%s: out must be an array, got %s", name, type(out)))
    end
    if opts.dtype ~= nil and type(opts.dtype) ~= "string" then
      raise("TypeError", fmt("%s: dtype must be a string, got %s", name, type(opts.dtype)))
    end
    return axis, opts
  end

  -- The canonical name of a dtype (NumPy's char codes too); a TypeError for unknown ones.
  local canonical = {}
  local function dtype_name(d)
    local c = canonical[d]
    if not c then
      c = cpu.empty(0, d).dtype
      canonical[d] = c
    end
    return c
  end

  local KIND, deliver = support.KIND, support.deliver
  local function is_float(dt) return KIND[dt] == 3 end

  -- The dtype mean/var/std compute in and the one they return, for input dtype dt and the
  -- dtype option (nil: NumPy's default).
  local function mean_dtypes(dt, dtype)
    if dtype ~= nil then
      dtype = dtype_name(dtype)
      if dtype == "float16" then return "float32", "float16" end
      return dtype, dtype
    end
    if dt == "float16" then return "float32", "float16" end
    if dt == "float32" or dt == "float64" then return dt, dt end
    return "float64", "float64"
  end

  -- The number of elements reduced into each element of r (a reduction of a): a.size over
  -- r.size (any, when r is empty: nothing is divided then).
  local function count(a, r)
    if r.size == 0 then return 1 end
    return a.size // r.size
  end

  -- q = s / n in dtype `result` (s and n arrays or numbers); integers truncate, as NumPy's.
  local function divide(xp, s, n, result)
    local q = xp.true_divide(s, n)
    if q.dtype ~= result then q = q:astype(result) end
    return q
  end

  -- ---------------------------------------------------------------- mean, var, std

  local function mean_of(a, axis, opts)
    local xp = get_array_module(a)
    local compute, result = mean_dtypes(a.dtype, opts.dtype)
    local s = xp.sum(a, axis, { keepdims = opts.keepdims or false, dtype = compute })
    return deliver("mean", divide(xp, s, count(a, s), result), opts.out)
  end

  local function mean(a, axis, opts)
    axis, opts = read_args("mean", a, axis, opts, KEYS)
    return mean_of(a, axis, opts)
  end

  -- The variance in the compute dtype, before the result's dtype and out.
  local function variance(name, a, axis, opts)
    local xp = get_array_module(a)
    local ddof = opts.ddof
    if ddof == nil then
      ddof = 0
    elseif type(ddof) ~= "number" then
      raise("TypeError", fmt("%s: ddof must be a number, got %s", name, type(ddof)))
    end
    local compute, result = mean_dtypes(a.dtype, opts.dtype)
    if not is_float(compute) then compute = "float64" end -- an integer dtype: the result's
    local x = a.dtype == compute and a or a:astype(compute)
    -- the mean, with the reduced axes kept so that it broadcasts against x
    local m = xp.sum(x, axis, { keepdims = true })
    local n = count(x, m)
    xp.true_divide(m, n, m)
    local d = xp.subtract(x, m)
    xp.multiply(d, d, d)
    local s = xp.sum(d, axis, { keepdims = opts.keepdims or false })
    local dof = n - ddof
    if dof < 0 then dof = 0 end
    xp.true_divide(s, dof, s) -- 0 degrees of freedom: inf or nan, as NumPy's
    return s, result, xp
  end

  local function var(a, axis, opts)
    axis, opts = read_args("var", a, axis, opts, VARIANCE_KEYS)
    local v, result = variance("var", a, axis, opts)
    if v.dtype ~= result then v = v:astype(result) end
    return deliver("var", v, opts.out)
  end

  local function std(a, axis, opts)
    axis, opts = read_args("std", a, axis, opts, VARIANCE_KEYS)
    local v, result, xp = variance("std", a, axis, opts)
    xp.sqrt(v, v)
    if v.dtype ~= result then v = v:astype(result) end
    return deliver("std", v, opts.out)
  end

  -- ---------------------------------------------------------------- nanmean, ptp

  local function nanmean(a, axis, opts)
    axis, opts = read_args("nanmean", a, axis, opts, KEYS)
    if not is_float(a.dtype) then return mean_of(a, axis, opts) end -- no NaN in it
    local xp = get_array_module(a)
    local compute, result = mean_dtypes(a.dtype, opts.dtype)
    local kd = opts.keepdims or false
    local s = xp.nansum(a, axis, { keepdims = kd, dtype = compute })
    local n = xp.count_nonzero(xp.logical_not(xp.isnan(a)), axis, { keepdims = kd })
    -- the count as the compute dtype: an int64 array would promote float32 to float64
    return deliver("nanmean", divide(xp, s, n:astype(compute), result), opts.out)
  end

  local function ptp(a, axis, opts)
    axis, opts = read_args("ptp", a, axis, opts, KEYS)
    if opts.dtype ~= nil then raise("TypeError", "ptp takes no dtype") end
    local xp = get_array_module(a)
    local kd = { keepdims = opts.keepdims or false }
    local hi = xp.max(a, axis, kd)
    local lo = xp.min(a, axis, kd)
    return deliver("ptp", xp.subtract(hi, lo, hi), opts.out)
  end

  -- ---------------------------------------------------------------- linalg.norm

  -- An axis (1-based, negative from the end) as a positive 1-based one, by the binding's
  -- rules: anything but an integer (or a float with an integral value that fits one) is a
  -- TypeError, an axis out of range an IndexError.
  local function norm_axis(k, ndim)
    local i = mtype(k) and math.tointeger(k)
    if not i then
      raise("TypeError", fmt("norm: an axis must be an integer, got %s",
        type(k) == "number" and tostring(k) or type(k)))
    end
    if i >= 1 and i <= ndim then return i end
    if i < 0 and i >= -ndim then return ndim + 1 + i end
    raise("IndexError", fmt("norm: axis %d is out of bounds for an array of %d dimensions (axes "
      .. "are 1-based)", i, ndim))
  end

  -- sqrt(sum(x^2)) over axis (nil, an integer or a table; x float32 or float64); `reduced` is
  -- the number of elements behind each result.  float32 squares are scaled by the largest
  -- |x| first, so that they neither overflow nor underflow, and summed in float64.
  local function l2(xp, x, axis, kd, reduced)
    if x.dtype == "float64" then
      local s = xp.sum(xp.multiply(x, x), axis, { keepdims = kd })
      return xp.sqrt(s, s)
    end
    if reduced == 0 then return xp.sum(x, axis, { keepdims = kd }) end -- zeros
    local ax = xp.absolute(x)
    local m = xp.max(ax, axis, { keepdims = true }) -- NaN when there is one: no scaling then
    local scale = xp.where(xp.logical_and(xp.isfinite(m), m:gt(0)), m, 1)
    xp.true_divide(ax, scale, ax)
    xp.multiply(ax, ax, ax)
    local s = xp.sum(ax, axis, { keepdims = kd, dtype = "float64" })
    xp.sqrt(s, s)
    xp.multiply(s, kd and scale or scale:reshape(s.shape), s)
    return s:astype("float32")
  end

  local function ones_shape(shape, axes)
    local t = {}
    for i = 1, #shape do t[i] = shape[i] end
    for _, k in ipairs(axes) do t[k] = 1 end
    return t
  end

  local function is_norm_options(t)
    if type(t) ~= "table" or is_array(t) then return false end
    for k in next, t do
      if type(k) == "string" then return true end
    end
    return t.keepdims ~= nil or t.axis ~= nil or t.ord ~= nil
  end

  -- numpy.linalg.norm(x, ord, axis, keepdims): norm(x, ord, axis, {keepdims=}) or
  -- norm(x, {ord=, axis=, keepdims=}).
  local function norm(x, ord, axis, opts)
    if not is_array(x) then
      raise("TypeError", fmt("norm: argument #1 must be an array, got %s", type(x)))
    end
    if is_norm_options(ord) then
      opts = ord
      ord, axis = opts.ord, opts.axis
    elseif is_norm_options(axis) and opts == nil then
      opts = axis
      axis = opts.axis
    end
    if opts == nil then
      opts = {}
    elseif type(opts) ~= "table" then
      raise("TypeError", fmt("norm: options must be a table, got %s", type(opts)))
    end
    check_options(opts, "norm", NORM_KEYS)
    local keepdims = opts.keepdims
    if keepdims == nil then
      keepdims = false
    elseif type(keepdims) ~= "boolean" then
      raise("TypeError", "norm: keepdims must be a boolean, got " .. type(keepdims))
    end
    if ord ~= nil and type(ord) ~= "number" and type(ord) ~= "string" then
      raise("TypeError", "norm: ord must be a number, a string or nil, got " .. type(ord))
    end
    if type(ord) == "string" and ord ~= "fro" and ord ~= "f" and ord ~= "nuc" then
      raise("ValueError", fmt("norm: invalid norm order '%s'", ord))
    end

    local xp = get_array_module(x)
    local original = x.dtype
    local result = original == "float16" and "float16" or is_float(original) and original
      or "float64"
    if original ~= "float32" and original ~= "float64" then
      x = x:astype(original == "float16" and "float32" or "float64")
    end
    local function finish(r)
      if r.dtype ~= result then r = r:astype(result) end
      return r
    end
    local nd, shape = x.ndim, x.shape

    if axis == nil and (ord == nil or ((ord == "fro" or ord == "f") and nd == 2)
        or (ord == 2 and nd == 1)) then
      local r = l2(xp, x, nil, false, x.size)
      if keepdims then
        local ones = {}
        for i = 1, nd do ones[i] = 1 end
        r = r:reshape(ones)
      end
      return finish(r)
    end

    local axes = {}
    if axis == nil then
      for i = 1, nd do axes[i] = i end
    elseif type(axis) == "table" and not is_array(axis) then
      for i, k in ipairs(axis) do axes[i] = norm_axis(k, nd) end
    elseif type(axis) == "number" then
      axes[1] = norm_axis(axis, nd)
    else
      raise("TypeError", "norm: axis must be nil, an integer or a table of two, got "
        .. type(axis))
    end

    if #axes == 1 then
      local k = axes[1]
      local kd = { keepdims = keepdims }
      if ord == huge then return finish(xp.max(xp.absolute(x), k, kd)) end
      if ord == -huge then return finish(xp.min(xp.absolute(x), k, kd)) end
      if ord == 0 then return finish(xp.count_nonzero(x, k, kd):astype(x.dtype)) end
      if ord == 1 then return finish(xp.sum(xp.absolute(x), k, kd)) end
      if ord == nil or ord == 2 then return finish(l2(xp, x, k, keepdims, shape[k])) end
      if type(ord) == "string" then
        raise("ValueError", fmt("norm: invalid norm order '%s' for vectors", ord))
      end
      local p = xp.absolute(x)
      xp.power(p, ord, p)
      local s = xp.sum(p, k, kd)
      xp.power(s, 1 / ord, s)
      return finish(s)
    end

    if #axes ~= 2 then
      raise("ValueError", "norm: improper number of dimensions to norm (a vector norm takes "
        .. "one axis, a matrix norm two)")
    end
    local r, c = axes[1], axes[2]
    if r == c then raise("ValueError", "norm: duplicate axes given") end
    local ret
    if ord == 2 or ord == -2 or ord == "nuc" then
      -- The singular values of the matrices that axes r and c hold, as NumPy computes these.
      local perm = {}
      for i = 1, nd do
        if i ~= r and i ~= c then perm[#perm + 1] = i end
      end
      perm[#perm + 1], perm[#perm + 2] = r, c
      local sv = xp.linalg.svd(x:transpose(perm), { compute_uv = false })
      ret = ord == 2 and xp.max(sv, -1) or ord == -2 and xp.min(sv, -1) or xp.sum(sv, -1)
    elseif ord == 1 or ord == -1 then
      local s = xp.sum(xp.absolute(x), r)
      local c2 = c > r and c - 1 or c
      ret = ord == 1 and xp.max(s, c2) or xp.min(s, c2)
    elseif ord == huge or ord == -huge then
      local s = xp.sum(xp.absolute(x), c)
      local r2 = r > c and r - 1 or r
      ret = ord == huge and xp.max(s, r2) or xp.min(s, r2)
    elseif ord == nil or ord == "fro" or ord == "f" then
      ret = l2(xp, x, { r, c }, false, shape[r] * shape[c])
    else
      raise("ValueError", "norm: invalid norm order " .. tostring(ord) .. " for matrices")
    end
    if keepdims then ret = ret:reshape(ones_shape(shape, { r, c })) end
    return finish(ret)
  end

  -- ---------------------------------------------------------------- wiring

  local functions = { mean = mean, var = var, std = std, nanmean = nanmean, ptp = ptp }
  local methods = ndarray.methods
  for name, fn in pairs(functions) do
    M[name] = fn
    cpu[name] = fn
    methods[name] = fn
  end
  M.linalg = M.linalg or {}
  cpu.linalg = cpu.linalg or {}
  M.linalg.norm = norm
  cpu.linalg.norm = norm
end
