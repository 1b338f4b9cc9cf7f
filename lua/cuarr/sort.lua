-- Sorting and searching: sort, argsort, partition, argpartition, lexsort, searchsorted (in
-- cuarr and cuarr.cpu) and the methods a:sort() (in place), a:argsort(), a:partition() (in
-- place), a:argpartition(), a:searchsorted(); over src/lua/sort.c's core.sort_rows,
-- core.lexsort_rows and core.searchsorted_rows (the C core's cuarr_sort, cuarr_lexsort and
-- cuarr_searchsorted: CUB's radix sorts on the device, a radix sort in C on the host).
--
-- NumPy's semantics, said the Lua way: axes are 1-based and negative from the end, the default
-- the last; `false` stands for NumPy's axis=None (the flattened array), as nil cannot.  Every
-- sort is stable (whatever `kind` says), NaNs sort last.  Indices are 1-based: argsort gives
-- NumPy's indices + 1, partition's kth is 1-based, searchsorted gives NumPy's insertion index + 1
-- (the position the value would take: 1 before everything, n + 1 after everything).
-- partition and argpartition sort fully, which satisfies the partition's contract.
local type, pairs = type, pairs
local fmt = string.format
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get
local count_of = require "cuarr.count"

-- The most kth positions partition takes (a longer list would only repeat positions).
local MAX_KTH = 1 << 24

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local check_count, array_arg, is_array =
    support.max_args, support.array_arg, support.is_array
  local ndarray = core.metatables.ndarray
  local check_options = core.check_options
  local sort_rows, lexsort_rows = core.sort_rows, core.lexsort_rows
  local searchsorted_rows = core.searchsorted_rows
  -- The core's entry points are the front end's, not the user's.
  M.sort_rows, M.lexsort_rows, M.searchsorted_rows = nil, nil, nil


  local function is_options(v) return type(v) == "table" and not is_array(v) end

  -- An axis (an integer, 1-based, negative from the end; false: the flattened array) as the
  -- core takes it: 0-based, -1 for the flattened array.
  local function core_axis(name, v, ndim)
    if v == false then return -1 end
    local ax = support.integer(name, "the axis", v)
    if ax == 0 or ax > ndim or ax < -ndim then
      raise("IndexError", fmt("%s: axis %d is out of bounds for array of dimension %d "
        .. "(axes are 1-based)", name, ax, ndim))
    end
    return ax < 0 and ax + ndim or ax - 1
  end

  local SORT_KINDS = { quicksort = true, mergesort = true, heapsort = true, stable = true }

  -- An option that must be a string among `allowed` (nil: absent).
  local function choice(name, what, v, allowed, list)
    if v == nil then return nil end
    if type(v) ~= "string" then
      raise("TypeError", fmt("%s: %s must be a string, got %s", name, what, type(v)))
    end
    if not allowed[v] then
      raise("ValueError", fmt("%s: %s must be one of %s, got '%s'", name, what, list, v))
    end
    return v
  end

  -- The core axis of a sort's second argument: nil (the last axis), an integer, false, or an
  -- options table {axis=, kind=, stable=}.
  local function sort_axis(name, a, arg)
    local axis = -1
    if is_options(arg) then
      check_options(arg, name, { "axis", "kind", "stable" })
      choice(name, "kind", arg.kind, SORT_KINDS, "'quicksort', 'mergesort', 'heapsort', 'stable'")
      local stable = arg.stable
      if stable ~= nil and type(stable) ~= "boolean" then
        raise("TypeError", fmt("%s: stable must be a boolean, got %s", name, type(stable)))
      end
      if arg.axis ~= nil then axis = arg.axis end
    elseif arg ~= nil then
      if type(arg) ~= "number" and arg ~= false then
        raise("TypeError", fmt("%s: argument #2 must be an axis (an integer, or false for the "
          .. "flattened array) or an options table, got %s", name, type(arg)))
      end
      axis = arg
    end
    return core_axis(name, axis, a.ndim)
  end

  local S = {}

  function S.sort(a, axis, ...)
    check_count("sort", 2, a, axis, ...)
    array_arg("sort", a, "argument #1")
    return sort_rows(a, sort_axis("sort", a, axis), "sort")
  end

  function S.argsort(a, axis, ...)
    check_count("argsort", 2, a, axis, ...)
    array_arg("argsort", a, "argument #1")
    return sort_rows(a, sort_axis("argsort", a, axis), "argsort")
  end

  -- ---------------------------------------------------------------- partition

  -- Check kth (an integer or a sequence of them, 1-based, negative from the end) against an
  -- axis of n elements, as NumPy does.
  local function check_kth(name, kth, n)
    local list = kth
    if type(kth) == "number" then
      list = { kth }
    elseif type(kth) ~= "table" or is_array(kth) then
      raise("TypeError", fmt("%s: kth must be an integer or a sequence of integers, got %s",
        name, is_array(kth) and "an array" or type(kth)))
    end
    local count = count_of(raise, list, name .. ": kth", MAX_KTH)
    if count == 0 then
      raise("ValueError", fmt("%s: kth must hold at least one position", name))
    end
    for i = 1, count do
      local k = support.integer(name, "kth", list[i])
      if k == 0 or k > n or k < -n then
        raise("ValueError", fmt("%s: kth(=%d) out of bounds (%d) (kth is 1-based)", name, k, n))
      end
    end
  end

  -- partition's axis argument: nil (the last), an integer, false, or {axis=, kind=}.
  local function partition_axis(name, a, arg)
    local axis = -1
    if is_options(arg) then
      check_options(arg, name, { "axis", "kind" })
      choice(name, "kind", arg.kind, { introselect = true }, "'introselect'")
      if arg.axis ~= nil then axis = arg.axis end
    elseif arg ~= nil then
      if type(arg) ~= "number" and arg ~= false then
        raise("TypeError", fmt("%s: argument #3 must be an axis (an integer, or false for the "
          .. "flattened array) or an options table, got %s", name, type(arg)))
      end
      axis = arg
    end
    local ax = core_axis(name, axis, a.ndim)
    return ax, ax == -1 and a.size or a.shape[ax + 1]
  end

  local function partitioner(name, mode)
    return function(a, kth, axis, ...)
      check_count(name, 3, a, kth, axis, ...)
      array_arg(name, a, "argument #1")
      local ax, n = partition_axis(name, a, axis)
      check_kth(name, kth, n)
      return sort_rows(a, ax, mode)
    end
  end
  S.partition = partitioner("partition", "sort")
  S.argpartition = partitioner("argpartition", "argsort")

  -- ---------------------------------------------------------------- lexsort

  -- keys: a sequence of arrays of one shape, or an array whose rows (along its first axis) are
  -- the keys; the last key is the primary one.
  function S.lexsort(keys, axis, ...)
    check_count("lexsort", 2, keys, axis, ...)
    if is_array(keys) then
      if keys.ndim == 0 then
        raise("ValueError", "lexsort: the keys must have at least one dimension")
      end
      if keys.ndim == 1 then
        keys = { keys }
      else
        local rows = {}
        for i = 1, keys.shape[1] do rows[i] = keys[i] end
        keys = rows
      end
    elseif type(keys) ~= "table" then
      raise("TypeError", fmt("lexsort: argument #1 must be a table of arrays or an array, got %s",
        type(keys)))
    end
    -- read raw into a copy: the table is data, and a hostile __len or __index must neither
    -- decide its count nor change a key between its check and its use
    local n = list_len(keys)
    if n < 1 then raise("ValueError", "need sequence of keys with len > 0 in lexsort") end
    local list = {}
    for i = 1, n do list[i] = list_get(keys, i) end
    keys = list
    local first = array_arg("lexsort", keys[1], "key 1")
    local ax = -1
    if is_options(axis) then
      check_options(axis, "lexsort", { "axis" })
      if axis.axis ~= nil then ax = axis.axis end
    elseif axis ~= nil then
      if type(axis) ~= "number" and axis ~= false then
        raise("TypeError", fmt("lexsort: argument #2 must be an axis or an options table, got %s",
          type(axis)))
      end
      ax = axis
    end
    return lexsort_rows(keys, core_axis("lexsort", ax, first.ndim))
  end

  -- ---------------------------------------------------------------- searchsorted

  local SIDES = { left = true, right = true }

  -- Whether two arrays are in one place (the core refuses them otherwise, with its message).
  local function same_place(x, y)
    local dx, dy = x.device, y.device
    if dx == "cpu" or dy == "cpu" then return dx == dy end
    return dx.id == dy.id
  end

  function S.searchsorted(a, v, opts, ...)
    check_count("searchsorted", 3, a, v, opts, ...)
    array_arg("searchsorted", a, "argument #1")
    local side, sorter = "left", nil
    if type(opts) == "string" then
      side = choice("searchsorted", "side", opts, SIDES, "'left', 'right'")
    elseif is_options(opts) then
      check_options(opts, "searchsorted", { "side", "sorter" })
      side = choice("searchsorted", "side", opts.side, SIDES, "'left', 'right'") or "left"
      sorter = opts.sorter
      if sorter ~= nil then array_arg("searchsorted", sorter, "sorter") end
    elseif opts ~= nil then
      raise("TypeError", fmt("searchsorted: argument #3 must be a side ('left' or 'right') or "
        .. "an options table, got %s", type(opts)))
    end
    if not is_array(v) then
      local t = type(v)
      if t ~= "number" and t ~= "boolean" and t ~= "table" then
        raise("TypeError", fmt("searchsorted: argument #2 must be an array, a number or a table "
          .. "of numbers, got %s", t))
      end
      local xp = a.device == "cpu" and cpu or M
      v = xp.array(v)
    end
    if sorter ~= nil and same_place(a, sorter) and a.ndim == 1 and sorter.ndim == 1
        and sorter.size == a.size
        and sorter.size > 0 and sorter.dtype ~= "bool" and not sorter.dtype:find("float") then
      -- The device kernel does not read a sorter back; its range is checked here, for both.
      local lo, hi = sorter:min():item(), sorter:max():item()
      if lo < 1 or hi > a.size then
        raise("ValueError", fmt("searchsorted: sorter entries must lie in 1..%d (1-based), got "
          .. "%d..%d", a.size, lo, hi))
      end
    end
    return searchsorted_rows(a, v, side == "right", sorter)
  end

  -- ---------------------------------------------------------------- unique

  local UNIQUE_OPTIONS = { "return_index", "return_inverse", "return_counts", "equal_nan", "axis" }

  -- NumPy's unique of the flattened array: the sorted distinct values, then (as asked) the
  -- 1-based position of each one's first occurrence, each element's 1-based position in the
  -- result (in a's shape), each value's count.  Built on the sorts: s = sort(a) flattened, a flag
  -- where s changes (NaNs equal unless equal_nan = false), the values and first positions
  -- extracted by it (one synchronisation: the count sizes the result), the inverse a search of
  -- a in the result, the counts the distance between the right and left searches of the result
  -- in s.
  function S.unique(a, opts, ...)
    check_count("unique", 2, a, opts, ...)
    array_arg("unique", a, "argument #1")
    local want_index, want_inverse, want_counts, equal_nan = false, false, false, true
    if opts ~= nil then
      if not is_options(opts) then
        raise("TypeError", fmt("unique: argument #2 must be an options table, got %s", type(opts)))
      end
      check_options(opts, "unique", UNIQUE_OPTIONS)
      local function flag(name, v)
        if v == nil then return nil end
        if type(v) ~= "boolean" then
          raise("TypeError", fmt("unique: %s must be a boolean, got %s", name, type(v)))
        end
        return v
      end
      want_index = flag("return_index", opts.return_index) or false
      want_inverse = flag("return_inverse", opts.return_inverse) or false
      want_counts = flag("return_counts", opts.return_counts) or false
      local e = flag("equal_nan", opts.equal_nan)
      if e ~= nil then equal_nan = e end
      if opts.axis ~= nil and opts.axis ~= false then
        raise("ValueError", "unique: only the flattened array (axis = false or absent) is "
          .. "supported, not unique along an axis")
      end
    end
    local xp = a.device == "cpu" and cpu or M
    local s = sort_rows(a, -1, "sort")
    local n = s.size
    local mask
    if n <= 1 then
      mask = xp.ones({ n }, "bool")
    else
      local later, earlier = s[{ { 2, n } }], s[{ { 1, n - 1 } }]
      local changes = xp.not_equal(later, earlier)
      if equal_nan and (a.dtype == "float16" or a.dtype == "float32" or a.dtype == "float64") then
        changes = xp.logical_and(changes,
          xp.logical_not(xp.logical_and(xp.isnan(later), xp.isnan(earlier))))
      end
      mask = xp.concatenate({ xp.ones({ 1 }, "bool"), changes })
    end
    local u = xp.extract(mask, s)
    local results = { u }
    if want_index then
      results[#results + 1] = xp.extract(mask, sort_rows(a, -1, "argsort"))
    end
    if want_inverse then
      local inv = searchsorted_rows(u, a:reshape({ a.size }), false, nil)
      results[#results + 1] = inv:reshape(a.shape)
    end
    if want_counts then
      results[#results + 1] = searchsorted_rows(s, u, true, nil) - searchsorted_rows(s, u, false,
        nil)
    end
    return table.unpack(results)
  end

  -- ---------------------------------------------------------------- methods and wiring

  local methods = ndarray.methods

  -- a:sort([axis]) and a:partition(kth[, axis]) sort a in place, as NumPy's methods do.
  local function sort_in_place(name, a, ax)
    if ax == -1 then
      raise("ValueError", fmt("%s in place needs an axis: use cuarr.%s(a, false) for the "
        .. "flattened array", name, name))
    end
    sort_rows(a, ax, "inplace")
  end
  function methods.sort(a, axis, ...)
    check_count("sort", 2, a, axis, ...)
    array_arg("sort", a, "self")
    sort_in_place("sort", a, sort_axis("sort", a, axis))
  end
  function methods.partition(a, kth, axis, ...)
    check_count("partition", 3, a, kth, axis, ...)
    array_arg("partition", a, "self")
    local ax, n = partition_axis("partition", a, axis)
    check_kth("partition", kth, n)
    sort_in_place("partition", a, ax)
  end
  methods.argsort = S.argsort
  methods.argpartition = S.argpartition
  methods.searchsorted = S.searchsorted

  for name, fn in pairs(S) do
    M[name] = fn
    cpu[name] = fn
  end
end
