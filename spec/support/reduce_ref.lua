-- References for the reduction, scan and norm specs, computed in Lua: arrays as flat C-order
-- lists with a shape, their views (transposes, slices), NumPy's result dtypes, and every
-- reduction and scan cuarr has (sum prod min max argmin argmax all any count_nonzero, the nan-
-- forms, mean var std nanmean ptp, cumsum cumprod) with cuarr's semantics: integer sums and
-- products wrap in the accumulator (Lua's integers wrap the same way), float16 accumulates in
-- float32, max propagates NaN and nanmax skips it, argmax gives the first extreme (or the
-- first NaN), indices are 1-based.
--
-- Float results come with a tolerance: 0 where the inputs make the result exact in any order
-- of summation (small integers, powers of two), otherwise an error bound for a pairwise or
-- tree summation in the accumulator's precision.
local A = require "spec.support.arrays"
local U = require "spec.support.ufunc_ref"

local type, mtype, ipairs, pairs, next, error = type, math.type, ipairs, pairs, next, error
local floor, abs, huge, sqrt, log, max = math.floor, math.abs, math.huge, math.sqrt, math.log,
  math.max
local ult = math.ult
local fmt, concat = string.format, table.concat

local NAN, INF = 0 / 0, huge

local R = {}
R.NAN, R.INF = NAN, INF
R.FLOATS, R.INTEGERS, R.SIGNED = U.FLOATS, U.INTEGERS, U.SIGNED
R.is_float, R.is_int = U.is_float, U.is_int
R.seed_of = U.seed_of
R.f16, R.f32 = U.f16, A.f32

-- Unit roundoff of each float dtype (half an ulp of 1).
R.UNIT = { float16 = 2.0 ^ -11, float32 = 2.0 ^ -24, float64 = 2.0 ^ -53 }

local function round_to(dt)
  if dt == "float16" then return U.f16 end
  if dt == "float32" then return A.f32 end
  return function(x) return x end
end
R.round_to = round_to

-- ---------------------------------------------------------------- arrays

function R.size(shape)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return n
end

local function copy(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  return c
end
R.copy = copy

-- A reference array: shape, flat C-order data (Lua values as cuarr reads them back: uint64
-- as the Lua integer with the same bits), dtype.
function R.new(shape, data, dtype)
  assert(#data == R.size(shape), "data does not fill the shape")
  return { shape = copy(shape), data = data, dtype = dtype }
end

-- The array for ref, on xp (cuarr or cuarr.cpu).
function R.array(xp, ref)
  return xp.array(ref.data, ref.dtype):reshape(ref.shape)
end

local function c_strides(shape)
  local st, step = {}, 1
  for d = #shape, 1, -1 do
    st[d] = step
    step = step * shape[d]
  end
  return st
end

-- Calls f(idx) for every multi-index (1-based) of shape, in C order.  idx is reused.
local function each_index(shape, f)
  local nd = #shape
  for _, e in ipairs(shape) do
    if e == 0 then return end
  end
  local idx = {}
  for d = 1, nd do idx[d] = 1 end
  while true do
    f(idx)
    local d = nd
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] <= shape[d] then break end
      idx[d] = 1
      d = d - 1
    end
    if d < 1 then return end
  end
end
R.each_index = each_index

-- The view of ref made of positions[d] (lists of 1-based positions) along each axis d, in
-- `order` (a permutation: result axis k is ref's axis order[k]; identity when nil).
local function pick(ref, positions, order)
  local nd = #ref.shape
  order = order or {}
  for k = 1, nd do order[k] = order[k] or k end
  local st = c_strides(ref.shape)
  local shape = {}
  for k = 1, nd do shape[k] = #positions[order[k]] end
  local data = {}
  each_index(shape, function(idx)
    local off = 1
    for k = 1, nd do
      local d = order[k]
      off = off + (positions[d][idx[k]] - 1) * st[d]
    end
    data[#data + 1] = ref.data[off]
  end)
  return R.new(shape, data, ref.dtype)
end

local function all_positions(n)
  local t = {}
  for i = 1, n do t[i] = i end
  return t
end

-- ref with its axes reversed (a.T).
function R.T(ref)
  local nd = #ref.shape
  local positions, order = {}, {}
  for d = 1, nd do
    positions[d] = all_positions(ref.shape[d])
    order[d] = nd + 1 - d
  end
  return pick(ref, positions, order)
end

-- ref with axes permuted (a:transpose(table.unpack(perm))).
function R.transpose(ref, perm)
  local positions = {}
  for d = 1, #ref.shape do positions[d] = all_positions(ref.shape[d]) end
  return pick(ref, positions, copy(perm))
end

-- ref sliced as a[ranges]: ranges[d] is {} (the whole axis) or {start, stop[, step]}.
function R.slice(ref, ranges)
  local positions = {}
  for d = 1, #ref.shape do
    local r = ranges[d] or {}
    if r[1] == nil then
      positions[d] = all_positions(ref.shape[d])
    else
      positions[d] = A.range_positions(ref.shape[d], r[1], r[2], r[3])
    end
  end
  return pick(ref, positions)
end

-- ---------------------------------------------------------------- values

local function truth(v)
  if type(v) == "boolean" then return v end
  return v ~= 0 -- NaN is true
end
R.truth = truth

-- v of dtype dt as a Lua integer (bool 0/1); uint64 keeps its bits.
local function as_int(v, dt)
  if type(v) == "boolean" then return v and 1 or 0 end
  if mtype(v) == "integer" then return v end
  -- a float into an integer accumulator: cuarr's cast (truncate, saturate, NaN -> 0)
  if v ~= v then return 0 end
  if v >= 2.0 ^ 63 then return math.maxinteger end
  if v <= -2.0 ^ 63 then return math.mininteger end
  return math.tointeger(v < 0 and -floor(-v) or floor(v))
end

-- v of dtype dt as a Lua float (uint64 read unsigned).
local function as_float(v, dt)
  if type(v) == "boolean" then return v and 1.0 or 0.0 end
  if dt == "uint64" then return A.u64_value(v) + 0.0 end
  return v + 0.0
end
R.as_float = as_float

-- a < b in dt's order (bool: false < true; uint64 unsigned).
local function less(a, b, dt)
  if dt == "bool" then return (not a) and b end
  if dt == "uint64" then return ult(a, b) end
  return a < b
end

local function isnan(v) return type(v) == "number" and v ~= v end

-- ---------------------------------------------------------------- dtypes

local SUM_LIKE = { sum = true, prod = true, nansum = true, nanprod = true, cumsum = true,
                   cumprod = true }

-- The dtype of op's result on input dtype dt with the dtype option `dtype` (or nil).
function R.result_dtype(op, dt, dtype)
  if SUM_LIKE[op] then
    if dtype then return dtype end
    if dt:sub(1, 4) == "uint" then return "uint64" end
    if U.is_float(dt) then return dt end
    return "int64"
  end
  if op == "all" or op == "any" then return dtype or "bool" end
  if op == "count_nonzero" or op == "argmin" or op == "argmax" then return "int64" end
  if op == "mean" or op == "var" or op == "std" or op == "nanmean" then
    if dtype then return dtype end
    if U.is_float(dt) then return dt end
    return "float64"
  end
  return dt -- min max amin amax nanmin nanmax ptp
end

-- The accumulator of sums and products: float16 results accumulate in float32.
local function acc_dtype(out) return out == "float16" and "float32" or out end

-- ---------------------------------------------------------------- sums

-- Neumaier's compensated sum of a list of floats: near the exact sum for the sizes here.
local function fsum(list)
  local s, c = 0.0, 0.0
  local special = 0.0
  for _, x in ipairs(list) do
    if x ~= x or x == INF or x == -INF then
      special = special + x
    else
      local t = s + x
      if abs(s) >= abs(x) then c = c + ((s - t) + x) else c = c + ((x - t) + s) end
      s = t
    end
  end
  if special ~= 0 or special ~= special then return special end
  return s + c
end
R.fsum = fsum

local function log2n(n) return n <= 1 and 0 or floor(log(n, 2) + 0.999999) end

-- An error bound for a float sum of n terms with absolute sum `abssum` accumulated in acc,
-- then rounded to out (value v).
local function sum_tol(n, abssum, acc, out, v)
  return (log2n(n) + 2) * R.UNIT[acc] * abssum + 2 * R.UNIT[out] * abs(v) + 1e-300
end
R.sum_tol = sum_tol

-- The reductions of one list of values (in dt) into dtype od: value, tolerance (nil: exact).
-- `exact` says the inputs make float results exact in any order.
local REDUCE = {}

local function sum_values(list, dt, od, exact, skip_nan)
  if not U.is_float(od) then
    local s = 0
    for _, v in ipairs(list) do
      if not (skip_nan and isnan(v)) then s = s + as_int(v, dt) end
    end
    return U.wrap(s, od)
  end
  local acc = acc_dtype(od)
  local rnd = round_to(acc)
  local xs, abssum = {}, 0.0
  for _, v in ipairs(list) do
    if not (skip_nan and isnan(v)) then
      local x = rnd(as_float(v, dt)) -- each element converted to the accumulator
      xs[#xs + 1] = x
      if x == x then abssum = abssum + abs(x) end
    end
  end
  local s = fsum(xs)
  local v = round_to(od)(round_to(acc)(s))
  if exact or s ~= s or s == INF or s == -INF then return v, nil end
  return v, sum_tol(#xs, abssum, acc, od, v)
end

local function prod_values(list, dt, od, exact, skip_nan)
  if not U.is_float(od) then
    local p = 1
    for _, v in ipairs(list) do
      if not (skip_nan and isnan(v)) then p = p * as_int(v, dt) end
    end
    return U.wrap(p, od)
  end
  local acc = acc_dtype(od)
  local rnd = round_to(acc)
  local p, n = 1.0, 0
  for _, v in ipairs(list) do
    if not (skip_nan and isnan(v)) then
      p = p * rnd(as_float(v, dt))
      n = n + 1
    end
  end
  local v = round_to(od)(rnd(p))
  if exact or p ~= p or p == INF or p == -INF then return v, nil end
  return v, (n + 2) * R.UNIT[acc] * abs(p) + 2 * R.UNIT[od] * abs(v) + 1e-300
end

REDUCE.sum = function(l, dt, od, ex) return sum_values(l, dt, od, ex, false) end
REDUCE.nansum = function(l, dt, od, ex) return sum_values(l, dt, od, ex, true) end
REDUCE.prod = function(l, dt, od, ex) return prod_values(l, dt, od, ex, false) end
REDUCE.nanprod = function(l, dt, od, ex) return prod_values(l, dt, od, ex, true) end

-- min/max: NaN wins; the nan- forms skip NaN (all NaN: NaN).  Empty: an error (nil).
local function extreme(list, dt, want_max, skip_nan)
  local best
  for _, v in ipairs(list) do
    if isnan(v) then
      if not skip_nan then return v end
    elseif best == nil or (want_max and less(best, v, dt)) or (not want_max and less(v, best, dt)) then
      best = v
    end
  end
  if best == nil and #list > 0 then return NAN end -- every value NaN
  return best
end

REDUCE.max = function(l, dt) return extreme(l, dt, true, false) end
REDUCE.min = function(l, dt) return extreme(l, dt, false, false) end
REDUCE.nanmax = function(l, dt) return extreme(l, dt, true, true) end
REDUCE.nanmin = function(l, dt) return extreme(l, dt, false, true) end
REDUCE.amax, REDUCE.amin = REDUCE.max, REDUCE.min

local function arg_extreme(list, dt, want_max)
  if #list == 0 then return nil end
  local best, at = list[1], 1
  if isnan(best) then return 1 end
  for i = 2, #list do
    local v = list[i]
    if isnan(v) then return i end
    if (want_max and less(best, v, dt)) or (not want_max and less(v, best, dt)) then
      best, at = v, i
    end
  end
  return at
end
REDUCE.argmax = function(l, dt) return arg_extreme(l, dt, true) end
REDUCE.argmin = function(l, dt) return arg_extreme(l, dt, false) end

REDUCE.all = function(l)
  for _, v in ipairs(l) do
    if not truth(v) then return false end
  end
  return true
end
REDUCE.any = function(l)
  for _, v in ipairs(l) do
    if truth(v) then return true end
  end
  return false
end
REDUCE.count_nonzero = function(l)
  local n = 0
  for _, v in ipairs(l) do
    if truth(v) then n = n + 1 end
  end
  return n
end

-- mean: the sum in the compute dtype (float64 for integers, float32 for float16), divided
-- there, rounded to the result.
local function compute_dtype(od) return od == "float16" and "float32" or od end

local function mean_values(list, dt, od, exact, skip_nan)
  local c = compute_dtype(od)
  local rc = round_to(c)
  local xs, abssum = {}, 0.0
  for _, v in ipairs(list) do
    if not (skip_nan and isnan(v)) then
      local x = rc(as_float(v, dt))
      xs[#xs + 1] = x
      if x == x then abssum = abssum + abs(x) end
    end
  end
  local n = #xs
  local s = fsum(xs)
  local m = round_to(od)(rc(s / n)) -- n == 0: NaN
  if exact or m ~= m or m == INF or m == -INF then return m, nil end
  return m, (log2n(n) + 3) * R.UNIT[c] * abssum / n + 2 * R.UNIT[od] * abs(m) + 1e-300
end
REDUCE.mean = function(l, dt, od, ex) return mean_values(l, dt, od, ex, false) end
REDUCE.nanmean = function(l, dt, od, ex) return mean_values(l, dt, od, ex, true) end

-- var/std: two passes in double; the bound covers two passes in the compute dtype.
local function variance(list, dt, od, ddof)
  local c = compute_dtype(od)
  local rc = round_to(c)
  local xs = {}
  for i, v in ipairs(list) do xs[i] = rc(as_float(v, dt)) end
  local n = #xs
  local m = fsum(xs) / n
  local ds = {}
  for i, x in ipairs(xs) do ds[i] = (x - m) * (x - m) end
  local s = fsum(ds)
  local dof = n - ddof
  if dof < 0 then dof = 0 end
  local v
  if dof == 0 then
    v = (s == 0 or s ~= s) and NAN or INF
  else
    v = s / dof
  end
  return v, s, m, n, c
end

local function var_values(l, dt, od, _, opts)
  local v, s, m, n, c = variance(l, dt, od, opts and opts.ddof or 0)
  local r = round_to(od)(v)
  if r ~= r or r == INF then return r, nil end
  local dof = max(n - (opts and opts.ddof or 0), 1)
  return r, 8 * (log2n(n) + 4) * R.UNIT[c] * (s + n * m * m) / dof + 2 * R.UNIT[od] * abs(r)
    + 1e-300
end
REDUCE.var = var_values
REDUCE.std = function(l, dt, od, ex, opts)
  local _, tol = var_values(l, dt, od, ex, opts)
  local raw = variance(l, dt, od, opts and opts.ddof or 0) -- before rounding to od
  local r = round_to(od)(sqrt(raw))
  if not tol then return r, nil end
  -- |sqrt(v + e) - sqrt(v)| <= min(sqrt(e), e / (2 sqrt(v)))
  local t = sqrt(tol)
  if raw > 0 then t = math.min(t, tol / (2 * sqrt(raw))) end
  return r, t + 2 * R.UNIT[od] * abs(r) + 1e-300
end

REDUCE.ptp = function(l, dt)
  local hi, lo = extreme(l, dt, true, false), extreme(l, dt, false, false)
  if hi == nil then return nil end
  if isnan(hi) or isnan(lo) then return NAN end
  if U.is_float(dt) then
    -- float16 subtracts in float32, then rounds
    return round_to(dt)(round_to(dt == "float16" and "float32" or dt)(hi - lo))
  end
  return U.wrap(hi - lo, dt)
end

local NO_IDENTITY = { max = true, min = true, amax = true, amin = true, argmax = true,
                      argmin = true, nanmax = true, nanmin = true, ptp = true }
R.NO_IDENTITY = NO_IDENTITY

-- ---------------------------------------------------------------- axes

-- The reduced axes (1-based, ascending) of an ndim-D array for an axis argument, or nil and
-- the kind of error cuarr raises.
function R.axes(ndim, axis)
  local list = {}
  if axis == nil then
    for d = 1, ndim do list[d] = d end
    return list
  end
  local given = type(axis) == "table" and axis or { axis }
  local seen = {}
  for _, k in ipairs(given) do
    if mtype(k) ~= "integer" then return nil, "TypeError" end
    if k < 0 then k = ndim + 1 + k end
    if k < 1 or k > ndim then return nil, "ValueError" end
    if seen[k] then return nil, "ValueError" end
    seen[k] = true
  end
  for d = 1, ndim do
    if seen[d] then list[#list + 1] = d end
  end
  return list
end

-- ---------------------------------------------------------------- reductions

-- op over ref along `axis` (nil, an integer, a table).  opts: keepdims, dtype, ddof, exact.
-- Returns a reference array with .tol (a list: nil entries exact), or nil and an error kind.
function R.reduce(op, ref, axis, opts)
  opts = opts or {}
  local f = REDUCE[op]
  assert(f, "no reference for " .. op)
  local shape = ref.shape
  local nd = #shape
  local axes, err = R.axes(nd, axis)
  if not axes then return nil, err end
  local reduced = {}
  for _, d in ipairs(axes) do reduced[d] = true end
  local kept, red, out_shape = {}, {}, {}
  for d = 1, nd do
    if reduced[d] then
      red[#red + 1] = d
      if opts.keepdims then out_shape[#out_shape + 1] = 1 end
    else
      kept[#kept + 1] = d
      out_shape[#out_shape + 1] = shape[d]
    end
  end
  local od = R.result_dtype(op, ref.dtype, opts.dtype)
  local kept_shape, red_shape = {}, {}
  for i, d in ipairs(kept) do kept_shape[i] = shape[d] end
  for i, d in ipairs(red) do red_shape[i] = shape[d] end
  local n_red = R.size(red_shape)
  -- NumPy's rule: a reduced axis of extent 0 is an error for the ops without an identity,
  -- even when the result is empty
  if n_red == 0 and NO_IDENTITY[op] then return nil, "ValueError" end
  local st = c_strides(shape)
  local data, tol = {}, {}
  local any_tol = false
  local list = {}
  each_index(kept_shape, function(kidx)
    local base = 1
    for i, d in ipairs(kept) do base = base + (kidx[i] - 1) * st[d] end
    for k = #list, 1, -1 do list[k] = nil end
    each_index(red_shape, function(ridx)
      local off = base
      for i, d in ipairs(red) do off = off + (ridx[i] - 1) * st[d] end
      list[#list + 1] = ref.data[off]
    end)
    if n_red == 0 then for k = #list, 1, -1 do list[k] = nil end end
    local v, t = f(list, ref.dtype, od, opts.exact, opts)
    data[#data + 1] = v
    if t then
      tol[#data] = t
      any_tol = true
    end
  end)
  -- each_index yields one index for 0-d shapes; every list is complete
  local r = R.new(out_shape, data, od)
  r.tol = any_tol and tol or nil
  return r
end

-- ---------------------------------------------------------------- scans

-- cumsum / cumprod along `axis` (nil: the flattened array, C order), dtype option `dtype`.
function R.scan(op, ref, axis, dtype, exact)
  local od = R.result_dtype(op, ref.dtype, dtype)
  local src = ref
  if axis == nil then
    src = R.new({ R.size(ref.shape) }, copy(ref.data), ref.dtype)
    axis = 1
  end
  local shape = src.shape
  local nd = #shape
  if axis < 0 then axis = nd + 1 + axis end
  local st = c_strides(shape)
  local data, tol = {}, {}
  local any_tol = false
  local is_sum = op == "cumsum"
  local acc = acc_dtype(od)
  local racc, rout = round_to(acc), round_to(od)
  local float = U.is_float(od)
  local n = R.size(shape)
  for i = 1, n do data[i] = false end
  local others = copy(shape)
  others[axis] = 1
  each_index(others, function(idx)
    local base = 1
    for d = 1, nd do base = base + (idx[d] - 1) * st[d] end
    local run = is_sum and (float and 0.0 or 0) or (float and 1.0 or 1)
    local abssum = 0.0
    local s, c, special = 0.0, 0.0, 0.0 -- Neumaier's running sum, as fsum
    for k = 1, shape[axis] do
      local off = base + (k - 1) * st[axis]
      local v = src.data[off]
      if float then
        local x = racc(as_float(v, src.dtype))
        if is_sum then
          if x ~= x or x == INF or x == -INF then
            special = special + x
          else
            abssum = abssum + abs(x)
            local t = s + x
            if abs(s) >= abs(x) then c = c + ((s - t) + x) else c = c + ((x - t) + s) end
            s = t
          end
          if special ~= 0 or special ~= special then run = special else run = s + c end
        else
          run = run * x
        end
        local r = rout(racc(run))
        data[off] = r
        if not exact and r == r and r ~= INF and r ~= -INF then
          tol[off] = is_sum and ((k + 1) * R.UNIT[acc] * abssum + 2 * R.UNIT[od] * abs(r))
            or ((k + 2) * R.UNIT[acc] * abs(run) + 2 * R.UNIT[od] * abs(r))
          tol[off] = tol[off] + 1e-300
          any_tol = true
        end
      else
        local x = as_int(v, src.dtype)
        if is_sum then run = run + x else run = run * x end
        data[off] = U.wrap(run, od)
      end
    end
  end)
  local r = R.new(shape, data, od)
  r.tol = any_tol and tol or nil
  return r
end

-- ---------------------------------------------------------------- norms

-- The vector norm of a list of floats for ord (nil, a number).
function R.vector_norm(xs, ord)
  local n = #xs
  if ord == nil or ord == 2 then
    local sc, ss = 0.0, 1.0 -- scaled sum of squares, as LAPACK's nrm2
    for _, x in ipairs(xs) do
      if x ~= x then return NAN end
    end
    for _, x in ipairs(xs) do
      if x == INF or x == -INF then return INF end
    end
    for _, x in ipairs(xs) do
      local a = abs(x)
      if a > 0 then
        if sc < a then
          ss = 1 + ss * (sc / a) ^ 2
          sc = a
        else
          ss = ss + (a / sc) ^ 2
        end
      end
    end
    return sc * sqrt(ss)
  end
  if ord == INF or ord == -INF then
    local best
    for _, x in ipairs(xs) do
      local a = abs(x)
      if a ~= a then return NAN end
      if best == nil or (ord == INF and a > best) or (ord == -INF and a < best) then best = a end
    end
    return best -- nil for an empty list: an error
  end
  if ord == 0 then
    local c = 0
    for _, x in ipairs(xs) do
      if x ~= 0 then c = c + 1 end
    end
    return c + 0.0
  end
  if ord == 1 then
    local s = {}
    for i, x in ipairs(xs) do s[i] = abs(x) end
    return fsum(s)
  end
  local s = {}
  for i, x in ipairs(xs) do s[i] = abs(x) ^ ord end
  local t = fsum(s)
  if n == 0 then t = 0.0 end
  return t ^ (1 / ord)
end

-- The matrix norm of a list of rows (lists of floats) for ord (nil/'fro', 1, -1, inf, -inf).
function R.matrix_norm(rows, ord)
  if ord == nil or ord == "fro" or ord == "f" then
    local all = {}
    for _, row in ipairs(rows) do
      for _, x in ipairs(row) do all[#all + 1] = x end
    end
    return R.vector_norm(all, nil)
  end
  local m = #rows
  local ncol = m > 0 and #rows[1] or 0
  local function pick_best(values, want_max)
    local best
    for _, v in ipairs(values) do
      if v ~= v then return NAN end
      if best == nil or (want_max and v > best) or (not want_max and v < best) then best = v end
    end
    return best
  end
  if ord == 1 or ord == -1 then
    local sums = {}
    for j = 1, ncol do
      local col = {}
      for i = 1, m do col[i] = abs(rows[i][j]) end
      sums[j] = fsum(col)
    end
    return pick_best(sums, ord == 1)
  end
  local sums = {}
  for i = 1, m do
    local r = {}
    for j = 1, ncol do r[j] = abs(rows[i][j]) end
    sums[i] = fsum(r)
  end
  return pick_best(sums, ord == INF)
end

-- ---------------------------------------------------------------- data

-- n values of dtype dt of a kind:
--   exact   small integers (float sums and means exact in any order)
--   random  anything in the dtype's range (floats: uniform in [-1, 1), rounded)
--   full    integers over the whole range, floats over many binades with infinities
--   pow2    +-1, +-2, +-0.5 (float products exact in any order), small integers
--   ties    a few values, each repeated (the first of several extremes)
--   dense / sparse   85% / 15% nonzero (with NaN and -0.0 among floats)
--   nan     as exact, a fifth of them NaN (floats)
function R.values(rng, dt, n, kind)
  local out = {}
  local float = U.is_float(dt)
  local lo, hi
  if not float and dt ~= "bool" then lo, hi = U.range(dt) end
  local signed = U.SIGNED[dt]
  local function small()
    if dt == "bool" then return rng.int(0, 1) == 1 end
    local v = signed and rng.int(-8, 8) or rng.int(0, 12)
    if float then v = rng.int(-8, 8) + 0.0 end
    return v
  end
  for i = 1, n do
    local v
    if kind == "exact" then
      v = small()
    elseif kind == "random" or kind == "full" then
      if dt == "bool" then
        v = rng.int(0, 1) == 1
      elseif float then
        if kind == "random" then
          v = round_to(dt)((rng.float() - 0.5) * 2)
        else
          local r = rng.int(1, 20)
          if r == 1 then v = INF elseif r == 2 then v = -INF elseif r == 3 then v = -0.0
          else
            v = round_to(dt)((rng.float() - 0.5) * 2.0 ^ rng.int(-10, dt == "float16" and 14 or 60))
          end
        end
      else
        if U.BITS[dt] == 64 then
          v = (rng.int(0, 0xffffffff) << 32) | rng.int(0, 0xffffffff)
        else
          v = rng.int(lo, hi)
        end
        local r = rng.int(1, 12)
        if r == 1 then v = lo elseif r == 2 then v = hi elseif r == 3 then v = 0 end
      end
    elseif kind == "pow2" then
      if dt == "bool" then
        v = rng.int(0, 5) > 0
      elseif float then
        local choices = { 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.0 }
        v = choices[rng.int(1, #choices)]
      else
        v = signed and rng.int(-3, 3) or rng.int(0, 3)
      end
    elseif kind == "ties" then
      if dt == "bool" then
        v = rng.int(0, 1) == 1
      else
        local choices = float and { -2.0, 0.0, 1.0, 3.0, -2.0, 3.0 }
          or signed and { lo, -1, 0, hi, lo, hi } or { 0, 1, hi, 0, hi }
        v = choices[rng.int(1, #choices)]
      end
    elseif kind == "dense" or kind == "sparse" then
      local nonzero = rng.float() < (kind == "dense" and 0.85 or 0.15)
      if dt == "bool" then
        v = nonzero
      elseif float then
        if nonzero then
          local r = rng.int(1, 6)
          v = r == 1 and NAN or r == 2 and 0.5 or rng.int(-5, 5) + 0.25
        else
          v = rng.int(0, 1) == 1 and 0.0 or -0.0
        end
      else
        v = nonzero and (signed and (rng.int(0, 1) == 1 and lo or rng.int(1, 9))
          or (rng.int(0, 1) == 1 and hi or rng.int(1, 9))) or 0
      end
    elseif kind == "nan" then
      v = small()
      if float and rng.int(1, 5) == 1 then v = NAN end
    else
      error("unknown kind " .. tostring(kind))
    end
    out[i] = v
  end
  return out
end

-- ---------------------------------------------------------------- comparisons

local same_value = A.same_value

local function show(v)
  if mtype(v) == "float" then return fmt("%.17g", v) end
  return tostring(v) .. (mtype(v) and "" or " (" .. type(v) .. ")")
end
R.show = show

-- Compare a result (dtype, shape, flat values) with a reference; returns nil or a message.
function R.mismatch(got_dtype, got_shape, got, ref)
  if got_dtype ~= ref.dtype then
    return fmt("dtype %s, expected %s", got_dtype, ref.dtype)
  end
  if #got_shape ~= #ref.shape then
    return fmt("shape {%s}, expected {%s}", concat(got_shape, ","), concat(ref.shape, ","))
  end
  for d = 1, #got_shape do
    if got_shape[d] ~= ref.shape[d] then
      return fmt("shape {%s}, expected {%s}", concat(got_shape, ","), concat(ref.shape, ","))
    end
  end
  if #got ~= #ref.data then return fmt("%d values, expected %d", #got, #ref.data) end
  local tol = ref.tol
  for i = 1, #got do
    local g, w = got[i], ref.data[i]
    local t = tol and tol[i]
    local ok
    if t and type(w) == "number" and w == w and w ~= INF and w ~= -INF then
      ok = mtype(g) == "float" and abs(g - w) <= t
    else
      ok = same_value(g, w)
    end
    if not ok then
      return fmt("element %d: got %s, expected %s%s", i, show(g), show(w),
        t and fmt(" (within %.3g)", t) or "")
    end
  end
  return nil
end

-- The values of an array as a flat Lua list (uint64 through int64).
R.values_of = A.values

-- op on a, in one of three call styles: xp.op(a, axis, opts), a:op(axis, opts), a:op{axis=...}
-- (the specs of reductions and scans run each case through all three).
local function call_style(xp, op, a, axis, opts, style)
  if style == 1 then return xp[op](a, axis, opts) end
  if style == 2 then return a[op](a, axis, opts) end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.axis = axis
  if next(o) == nil then return a[op](a) end
  return a[op](a, o)
end

-- op(a, axis, opts) in one of the call styles.  any/all over every element with no keepdims,
-- dtype or out give a Lua boolean (checked here): it comes back as a 0-d bool array of xp, so
-- that the sweeps compare it as they compare the other reductions' results.
function R.call(xp, op, a, axis, opts, style)
  opts = opts or {}
  local r = call_style(xp, op, a, axis, opts, style)
  local boolean = (op == "any" or op == "all") and axis == nil and not opts.keepdims
    and opts.dtype == nil and opts.out == nil
  if boolean then
    assert(type(r) == "boolean", op .. " of every element gave a " .. type(r) .. ", not a boolean")
    return xp.array(r, "bool")
  end
  assert(type(r) ~= "boolean", op .. " with an axis or options gave a boolean, not an array")
  return r
end

return R
