-- Set operations: isin, in1d, intersect1d, union1d, setdiff1d and setxor1d (in cuarr and
-- cuarr.cpu), NumPy's, built on the sorts (sort, unique, searchsorted of lua/cuarr/sort.lua) and
-- the masks (extract), so that they take host and device arrays alike and every dtype.
--
-- Membership is a search of the sorted test values: x is among them when the right and the left
-- insertion points of x differ, so no gather is needed; NaN is never a member (NaN == NaN is
-- false, as NumPy's comparisons have it), while unique, and so union1d, keeps one NaN as NumPy 2
-- does.  Results other than isin's are 1-D and sorted; indices are 1-based.  Each result whose
-- size depends on the data costs one synchronisation on the device per extraction or unique.
local type, next = type, next
local fmt = string.format

-- (M, cpu, core): the device namespace, the host one, the C module.
local support = require "cuarr.support"

return function(M, cpu, core)
  local raise = core.raise
  local max_args, as_array, is_array =
    support.max_args, support.as_array, support.is_array
  local check_options = core.check_options

  local function xp_of(a) return a.device == "cpu" and cpu or M end
  local function is_float(dtype) return dtype:sub(1, 5) == "float" end

  local function same_place(x, y)
    local dx, dy = x.device, y.device
    if dx == "cpu" or dy == "cpu" then return dx == dy end
    return dx.id == dy.id
  end

  -- Two operands: arrays (tables and numbers made where the first array is, else by xp).
  local function operands(xp, name, a, b)
    if is_array(a) then xp = xp_of(a) elseif is_array(b) then xp = xp_of(b) end
    a = as_array(xp, name, a, "argument #1")
    b = as_array(xp, name, b, "argument #2")
    if not same_place(a, b) then
      raise("ValueError", fmt("%s: the arrays must be in one place", name))
    end
    return a, b, xp
  end

  local function options(name, opts, keys, argn)
    if opts == nil then return {} end
    if type(opts) ~= "table" or is_array(opts) or (next(opts) ~= nil
        and type(next(opts)) ~= "string") then
      raise("TypeError", fmt("%s: argument #%d must be an options table, got %s", name, argn,
        type(opts)))
    end
    check_options(opts, name, keys)
    for _, k in ipairs(keys) do
      if opts[k] ~= nil and type(opts[k]) ~= "boolean" then
        raise("TypeError", fmt("%s: %s must be a boolean, got %s", name, k, type(opts[k])))
      end
    end
    return opts
  end

  local function flat(a) return a:reshape({ a.size }) end

  -- Whether each element of x is among the elements of the sorted 1-D array s (bool, x's
  -- shape).
  local function member(xp, x, s)
    if s.size == 0 or x.size == 0 then return xp.zeros(x.shape, "bool") end
    local found = M.searchsorted(s, x, "right"):greater(M.searchsorted(s, x, "left"))
    if is_float(x.dtype) then found = xp.logical_and(found, xp.logical_not(xp.isnan(x))) end
    return found
  end

  -- The sorted 1-D form of a set's operand: unique, or sorted as it is when assume_unique.
  local function sorted_set(a, assume_unique)
    if assume_unique then return M.sort(flat(a)) end
    return (M.unique(a))
  end

  -- ---------------------------------------------------------------- membership

  -- isin (x keeps its shape) and in1d (x flattened): whether each element of x is in t.
  local function membership(name, flatten, xp, a, b, opts, ...)
    max_args(name, 3, a, b, opts, ...)
    local x, t
    x, t, xp = operands(xp, name, a, b)
    opts = options(name, opts, { "invert", "assume_unique" }, 3)
    local found = member(xp, flatten and flat(x) or x, M.sort(flat(t)))
    if opts.invert then found = xp.logical_not(found) end
    return found
  end

  local function isin(xp, element, test, opts, ...)
    return membership("isin", false, xp, element, test, opts, ...)
  end

  local function in1d(xp, a, b, opts, ...) return membership("in1d", true, xp, a, b, opts, ...) end

  -- ---------------------------------------------------------------- intersect1d

  local function intersect1d(xp, a, b, opts, ...)
    max_args("intersect1d", 3, a, b, opts, ...)
    a, b, xp = operands(xp, "intersect1d", a, b)
    opts = options("intersect1d", opts, { "assume_unique", "return_indices" }, 3)
    local dtype = xp.result_type(a, b)
    if not opts.return_indices then
      local u1, u2 = sorted_set(a, opts.assume_unique), sorted_set(b, opts.assume_unique)
      local common = xp.extract(member(xp, u1, u2), u1)
      return common.dtype == dtype and common or common:astype(dtype)
    end
    -- Each set with the 1-based position of its first occurrence (of its place in the sort,
    -- when assume_unique) in the flattened operand.
    local function with_positions(v)
      if opts.assume_unique then
        local order = M.argsort(flat(v))
        return M.take(flat(v), order), order
      end
      return M.unique(v, { return_index = true })
    end
    local u1, i1 = with_positions(a)
    local u2, i2 = with_positions(b)
    local m1, m2 = member(xp, u1, u2), member(xp, u2, u1)
    local common = xp.extract(m1, u1)
    if common.dtype ~= dtype then common = common:astype(dtype) end
    return common, xp.extract(m1, i1), xp.extract(m2, i2)
  end

  -- ---------------------------------------------------------------- union, difference, xor

  local function union1d(xp, a, b, ...)
    max_args("union1d", 2, a, b, ...)
    a, b, xp = operands(xp, "union1d", a, b)
    return (M.unique(xp.concatenate({ flat(a), flat(b) })))
  end

  local function setdiff1d(xp, a, b, opts, ...)
    max_args("setdiff1d", 3, a, b, opts, ...)
    a, b, xp = operands(xp, "setdiff1d", a, b)
    opts = options("setdiff1d", opts, { "assume_unique" }, 3)
    local u1 = opts.assume_unique and flat(a) or M.unique(a)
    return xp.extract(xp.logical_not(member(xp, u1, M.sort(flat(b)))), u1)
  end

  local function setxor1d(xp, a, b, opts, ...)
    max_args("setxor1d", 3, a, b, opts, ...)
    a, b, xp = operands(xp, "setxor1d", a, b)
    opts = options("setxor1d", opts, { "assume_unique" }, 3)
    local u1 = opts.assume_unique and flat(a) or M.unique(a)
    local u2 = opts.assume_unique and flat(b) or M.unique(b)
    local aux = M.sort(xp.concatenate({ u1, u2 }))
    local n = aux.size
    if n <= 1 then return aux end
    -- NumPy: flag = [True, aux[1:] != aux[:-1], True]; keep aux[flag[1:] & flag[:-1]].
    local t = xp.ones({ 1 }, "bool")
    local flag = xp.concatenate({ t, xp.not_equal(aux[{ { 2, n } }], aux[{ { 1, n - 1 } }]), t })
    return xp.extract(xp.logical_and(flag[{ { 2, n + 1 } }], flag[{ { 1, n } }]), aux)
  end

  -- ---------------------------------------------------------------- wiring

  for _, xp in ipairs { M, cpu } do
    xp.isin = function(...) return isin(xp, ...) end
    xp.in1d = function(...) return in1d(xp, ...) end
    xp.intersect1d = function(...) return intersect1d(xp, ...) end
    xp.union1d = function(...) return union1d(xp, ...) end
    xp.setdiff1d = function(...) return setdiff1d(xp, ...) end
    xp.setxor1d = function(...) return setxor1d(xp, ...) end
  end
end
