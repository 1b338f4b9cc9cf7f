-- Counting: bincount, histogram, histogram_bin_edges and digitize (in cuarr and cuarr.cpu), on
-- the C core's cuarr_bin_count (src/lua/histogram.c's core.bin_count: one kernel launch on the
-- device, privatised bins in shared memory; a C loop on the host) and on searchsorted.
--
-- NumPy's semantics, said the Lua way.  Values are data, not positions: bincount's element k
-- (1-based) counts the value k - 1, as NumPy's element k - 1 does.  digitize gives NumPy's
-- index + 1, as searchsorted does: the position of the interval x falls in among the
-- #bins + 1 intervals the edges make (1: below the first edge; #bins + 1: at or past the last),
-- so that digitize(x, bins) == searchsorted(bins, x, "right") as in NumPy.
--
-- Synchronisations on the device: bincount reads x's minimum and maximum back together (the
-- result's length depends on them); histogram reads the range when it is not given (one read),
-- and the order and ends of edges given as an array; digitize reads the order of its bins.
local type, next = type, next
local math_type, fmt = math.type, string.format

-- (M, cpu, core): the device namespace, the host one, the C module.
local support = require "cuarr.support"
local list_len, list_get = support.list_len, support.list_get

return function(M, cpu, core)
  local raise = core.raise
  local max_args, as_array, is_array =
    support.max_args, support.as_array, support.is_array
  local check_options = core.check_options
  local bin_count = core.bin_count
  -- The core's entry point is the front end's, not the user's.
  M.bin_count, cpu.bin_count = nil, nil

  local function is_options(t)
    return type(t) == "table" and not is_array(t) and type(next(t)) == "string"
  end
  local function is_float(dtype) return dtype:sub(1, 5) == "float" end
  local function xp_of(a) return a.device == "cpu" and cpu or M end

  local function options(name, opts, keys, argn)
    if opts == nil then return {} end
    if type(opts) ~= "table" or is_array(opts) then
      raise("TypeError", fmt("%s: argument #%d must be an options table, got %s", name, argn,
        type(opts)))
    end
    check_options(opts, name, keys)
    return opts
  end

  -- a's minimum and maximum as Lua numbers, read back together (one synchronisation).
  local function min_max(a)
    local both = xp_of(a).stack({ a:min(), a:max() })
    if both.device ~= "cpu" then both = both:get() end
    local lo, hi = both[1], both[2]
    if type(lo) == "boolean" then return lo and 1 or 0, hi and 1 or 0 end
    return lo, hi
  end

  local function same_place(x, y)
    local dx, dy = x.device, y.device
    if dx == "cpu" or dy == "cpu" then return dx == dy end
    return dx.id == dy.id
  end

  -- ---------------------------------------------------------------- bincount

  local INTEGER_X = { bool = true, int8 = true, int16 = true, int32 = true, int64 = true,
                      uint8 = true, uint16 = true, uint32 = true }

  local function bincount(xp, x, opts, ...)
    max_args("bincount", 2, x, opts, ...)
    x = as_array(xp, "bincount", x, "argument #1")
    opts = options("bincount", opts, { "weights", "minlength" }, 2)
    if x.ndim == 0 then
      raise("ValueError", "bincount: object of too small depth for desired array (x must be 1-D)")
    elseif x.ndim > 1 then
      raise("ValueError", fmt("bincount: object too deep for desired array (x must be 1-D, got "
        .. "%d dimensions)", x.ndim))
    end
    if not INTEGER_X[x.dtype] then
      raise("TypeError", fmt("bincount: cannot cast array data from dtype('%s') to "
        .. "dtype('int64') according to the rule 'safe'", x.dtype))
    end
    local minlength = opts.minlength or 0
    if math_type(minlength) ~= "integer" then
      if math_type(minlength) == "float" and minlength == math.floor(minlength)
          and minlength >= math.mininteger and minlength < -math.mininteger then
        minlength = math.tointeger(minlength)
      else
        raise("TypeError", fmt("bincount: minlength must be an integer, got %s",
          math_type(minlength) or type(minlength)))
      end
    end
    if minlength < 0 then
      raise("ValueError", "bincount: 'minlength' must not be negative")
    end
    local w = opts.weights
    if w ~= nil then
      w = as_array(xp_of(x), "bincount", w, "weights")
      if not same_place(w, x) then
        raise("ValueError", "bincount: the weights and x must be in one place")
      end
      if w.ndim ~= 1 or w.size ~= x.size then
        raise("ValueError", "bincount: the weights and list don't have the same length")
      end
    end
    local n = minlength
    if x.size > 0 then
      local lo, hi = min_max(x)
      if lo < 0 then
        raise("ValueError", "bincount: 'list' argument must have no negative elements")
      end
      if hi + 1 > n then n = hi + 1 end
    end
    local counts = bin_count(x, "value", n, nil, nil, nil, w)
    if w ~= nil and counts.dtype ~= "float64" then counts = counts:astype("float64") end
    return counts
  end

  -- ---------------------------------------------------------------- histogram

  local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end
  local function num_str(v) return v ~= v and "nan" or tostring(v) end

  -- The range of uniform bins: given ({lo, hi}), else a's minimum and maximum (0 and 1 when a
  -- is empty), widened by 0.5 each way when equal, as NumPy does.
  local function outer_edges(name, a, range)
    local lo, hi
    if range ~= nil then
      -- read raw: the table is data (a hostile __len or __index must not answer for it)
      if type(range) ~= "table" or is_array(range) or list_len(range) ~= 2
          or type(list_get(range, 1)) ~= "number" or type(list_get(range, 2)) ~= "number" then
        raise("TypeError", fmt("%s: range must be a table of two numbers {lo, hi}", name))
      end
      lo, hi = list_get(range, 1) + 0.0, list_get(range, 2) + 0.0
      if lo > hi then
        raise("ValueError", fmt("%s: max must be larger than min in range parameter", name))
      end
      if not (finite(lo) and finite(hi)) then
        raise("ValueError", fmt("%s: supplied range of [%s, %s] is not finite", name,
          num_str(lo), num_str(hi)))
      end
    elseif a.size == 0 then
      lo, hi = 0.0, 1.0
    else
      lo, hi = min_max(a)
      lo, hi = lo + 0.0, hi + 0.0
      if not (finite(lo) and finite(hi)) then
        raise("ValueError", fmt("%s: autodetected range of [%s, %s] is not finite", name,
          num_str(lo), num_str(hi)))
      end
    end
    if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
    return lo, hi
  end

  -- The edges of n uniform bins over [lo, hi] where a is: NumPy's linspace in float64, rounded
  -- to the bins' dtype (a's float dtype; float64 for bools and integers).
  local function uniform_edges(a, n, lo, hi)
    local dtype = is_float(a.dtype) and a.dtype or "float64"
    local edges = xp_of(a).linspace(lo, hi, n + 1)
    if dtype ~= "float64" then edges = edges:astype(dtype) end
    -- NumPy's check that every bin has a width: a range too narrow to widen (2^62 +- 0.5 is
    -- 2^62 in float64) gives equal edges.  Made on host edges, so a device call reads nothing
    -- back.
    local host = xp_of(a) == cpu and edges
      or cpu.linspace(lo, hi, n + 1):astype(dtype)
    local widths = cpu.subtract(host[{ { 2, n + 1 } }], host[{ { 1, n } }])
    if not (cpu.min(widths):item() > 0) then
      raise("ValueError", fmt("Too many bins for data range. Cannot create %d finite-sized bins.",
        n))
    end
    -- The rounded ends, as the kernel compares them: rounded on the host, no read-back.
    local ends = cpu.array({ lo, hi })
    if dtype ~= "float64" then ends = ends:astype(dtype):astype("float64") end
    return edges, ends[1], ends[2]
  end

  -- bins given as edges: a 1-D array (or a table of numbers) that never decreases.
  local function given_edges(name, a, bins)
    local e = as_array(xp_of(a), name, bins, "bins")
    if not same_place(e, a) then
      raise("ValueError", fmt("%s: the bins and the array must be in one place", name))
    end
    if e.ndim ~= 1 then raise("ValueError", fmt("%s: `bins` must be 1d, when an array", name)) end
    if e.dtype == "bool" then
      raise("TypeError", fmt("%s: bins of dtype bool are not edges", name))
    end
    local m = e.size
    if m >= 2 and e[{ { 1, m - 1 } }]:greater(e[{ { 2, m } }]):any() then
      raise("ValueError", fmt("%s: `bins` must increase monotonically, when an array", name))
    end
    return e
  end

  local function bins_count(name, bins)
    if math_type(bins) == "float" and bins == math.floor(bins) and finite(bins) then
      bins = math.tointeger(bins) or bins
    end
    if math_type(bins) ~= "integer" then
      raise("TypeError", fmt("%s: `bins` must be an integer or an array of edges, got %s", name,
        math_type(bins) or type(bins)))
    end
    if bins < 1 then
      raise("ValueError", fmt("%s: `bins` must be positive, when an integer (got %d)", name, bins))
    end
    return bins
  end

  -- histogram's arguments: (a[, bins][, opts]), bins an integer, an array or a table of edges;
  -- an options table may stand in bins' place.
  local function histogram_args(xp, name, keys, a, bins, opts, ...)
    max_args(name, 3, a, bins, opts, ...)
    a = as_array(xp, name, a, "argument #1")
    if is_options(bins) and opts == nil then bins, opts = nil, bins end
    opts = options(name, opts, keys, 3)
    if bins == nil then bins = 10 end
    return a, bins, opts
  end

  -- The edges (an array), their ends and the bin rule; a and the options as histogram takes them.
  local function edges_of(name, a, bins, opts)
    if type(bins) == "number" then
      local n = bins_count(name, bins)
      local lo, hi = outer_edges(name, a, opts.range)
      local edges, elo, ehi = uniform_edges(a, n, lo, hi)
      return edges, "uniform", n, elo, ehi
    elseif type(bins) == "string" then
      raise("ValueError", fmt("%s: bin estimators by name ('%s') are not supported: give a "
        .. "number of bins or the edges", name, bins))
    elseif type(bins) == "table" or is_array(bins) then
      local e = given_edges(name, a, bins)
      local m = e.size
      if m == 0 then
        raise("ValueError", fmt("%s: `bins` must hold at least one edge", name))
      end
      return e, "edges", m - 1, e[1] + 0.0, e[m] + 0.0
    end
    raise("TypeError", fmt("%s: `bins` must be an integer or an array of edges, got %s", name,
      type(bins)))
  end

  local function histogram(xp, a, bins, opts, ...)
    a, bins, opts = histogram_args(xp, "histogram", { "range", "weights", "density" }, a, bins,
      opts, ...)
    local w = opts.weights
    if w ~= nil then
      w = as_array(xp_of(a), "histogram", w, "weights")
      if not same_place(w, a) then
        raise("ValueError", "histogram: the weights and the array must be in one place")
      end
      if w.ndim ~= a.ndim or w.size ~= a.size then
        raise("ValueError", "histogram: weights should have the same shape as a")
      end
      for d = 1, a.ndim do
        if w.shape[d] ~= a.shape[d] then
          raise("ValueError", "histogram: weights should have the same shape as a")
        end
      end
    end
    local density = opts.density
    if density ~= nil and type(density) ~= "boolean" then
      raise("TypeError", fmt("histogram: density must be a boolean, got %s", type(density)))
    end
    local edges, rule, n, lo, hi = edges_of("histogram", a, bins, opts)
    local counts
    if n == 0 then
      counts = xp_of(a).zeros({ 0 }, "int64")
    else
      counts = bin_count(a, rule, n, edges, lo, hi, w)
    end
    if w ~= nil and counts.dtype ~= w.dtype then counts = counts:astype(w.dtype) end
    if density then
      local fe = edges:astype("float64")
      local widths = fe[{ { 2, n + 1 } }] - fe[{ { 1, n } }]
      local total = counts:astype("float64"):sum()
      counts = counts:astype("float64") / widths / total
    end
    return counts, edges
  end

  local function histogram_bin_edges(xp, a, bins, opts, ...)
    a, bins, opts = histogram_args(xp, "histogram_bin_edges", { "range", "weights" }, a, bins,
      opts, ...)
    return (edges_of("histogram_bin_edges", a, bins, opts))
  end

  -- ---------------------------------------------------------------- digitize

  local function digitize(xp, x, bins, right, ...)
    max_args("digitize", 3, x, bins, right, ...)
    x = as_array(xp, "digitize", x, "argument #1")
    if is_options(right) then
      check_options(right, "digitize", { "right" })
      right = right.right
    end
    if right ~= nil and type(right) ~= "boolean" then
      raise("TypeError", fmt("digitize: right must be a boolean, got %s", type(right)))
    end
    local b = as_array(xp_of(x), "digitize", bins, "bins")
    if not same_place(b, x) then
      raise("ValueError", "digitize: the bins and x must be in one place")
    end
    if b.ndim ~= 1 then raise("ValueError", "digitize: object too deep for desired array") end
    local side = right and "left" or "right"
    local m = b.size
    local decreasing = false
    if m >= 2 then
      local head, tail = b[{ { 1, m - 1 } }], b[{ { 2, m } }]
      local up = not head:greater(tail):any()
      -- Equal edges throughout count as increasing, as NumPy's _monotonicity has them.
      decreasing = not up and not head:less(tail):any()
      if not (up or decreasing) then
        raise("ValueError", "digitize: bins must be monotonically increasing or decreasing")
      end
    end
    if not decreasing then return M.searchsorted(b, x, side) end
    -- NumPy: len(bins) - searchsorted(bins[::-1], x, side); with 1-based positions on both
    -- sides, m + 2 - searchsorted.
    return (m + 2) - M.searchsorted(b[{ { m, 1, -1 } }]:copy(), x, side)
  end

  -- ---------------------------------------------------------------- wiring

  for _, xp in ipairs { M, cpu } do
    xp.bincount = function(...) return bincount(xp, ...) end
    xp.histogram = function(...) return histogram(xp, ...) end
    xp.histogram_bin_edges = function(...) return histogram_bin_edges(xp, ...) end
    xp.digitize = function(...) return digitize(xp, ...) end
  end
end
