-- lstsq, pinv, matrix_rank and matrix_power: NumPy's linalg functions that are compositions of
-- the decompositions (svd, inv) and matmul, so that they take host and device arrays alike (the
-- array's own module does the work).
--
-- lstsq solves through the SVD where NumPy calls LAPACK's gelsd, which is itself SVD-based:
-- singular values at most rcond times the largest count as zero, the rank is how many remain,
-- and the residuals are NumPy's (sums of squares per column, only for a full-rank tall a).
-- Tolerances given as arrays (NumPy allows one per matrix) are not supported: numbers only.
local type, getmetatable, tointeger, max, min = type, getmetatable, math.tointeger, math.max,
  math.min
local select, tostring, ipairs, pairs = select, tostring, ipairs, pairs
local fmt = string.format

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, cpu, core)
  local raise = core.raise
  local ndarray = core.metatables.ndarray
  local get_array_module = M.get_array_module

  local EPS = { float32 = 2.0 ^ -23, float64 = 2.0 ^ -52 }

  local function is_array(x) return getmetatable(x) == ndarray end

  local function check_array(name, x, i)
    if not is_array(x) then
      raise("TypeError", fmt("%s: argument #%d must be an array, got %s", name, i, type(x)))
    end
  end

  local function check_stacked(name, a)
    if a.ndim < 2 then
      raise("LinAlgError", fmt("%s: %d-dimensional array given; it must be at least "
        .. "two-dimensional", name, a.ndim))
    end
  end

  local function check_tolerance(name, what, t)
    if t ~= nil and type(t) ~= "number" then
      raise("TypeError", fmt("%s: %s must be a number or nil, got %s", name, what, type(t)))
    end
  end

  -- The dtype linalg computes a in (NumPy's _commonType): float16 is refused, as there.
  local function compute_dtype(name, ...)
    local t = "float32"
    for i = 1, select("#", ...) do
      local d = select(i, ...).dtype
      if d == "float16" then raise("TypeError", name .. ": float16 is unsupported in linalg") end
      if d ~= "float32" then t = "float64" end
    end
    return t
  end

  local function as(x, dtype)
    if x.dtype == dtype then return x end
    return x:astype(dtype)
  end

  -- The last two axes swapped (a view).
  local function mT(xp, x) return xp.swapaxes(x, -1, -2) end

  -- 1 / s where keep holds, 0 elsewhere (no division by the discarded values, which may be 0).
  local function inverted(xp, s, keep)
    return xp.where(keep, xp.true_divide(1, xp.where(keep, s, 1)), 0)
  end

  -- numpy.linalg.lstsq(a, b, rcond): x, residuals, rank (a Lua integer), s.
  local function lstsq(a, b, rcond)
    check_array("lstsq", a, 1)
    check_array("lstsq", b, 2)
    check_tolerance("lstsq", "rcond", rcond)
    local xp = get_array_module(a, b)
    if a.ndim ~= 2 or (b.ndim ~= 1 and b.ndim ~= 2) then
      raise("LinAlgError", fmt("lstsq: %d-dimensional array given; it must be two-dimensional",
        a.ndim ~= 2 and a.ndim or b.ndim))
    end
    local m, n = a.shape[1], a.shape[2]
    local vector = b.ndim == 1
    if b.shape[1] ~= m then
      raise("LinAlgError", fmt("lstsq: incompatible dimensions: a has %d rows, b %d", m,
        b.shape[1]))
    end
    local t = compute_dtype("lstsq", a, b)
    a, b = as(a, t), as(b, t)
    local bm = vector and b:reshape({ m, 1 }) or b
    -- NumPy's default; a negative rcond is gelsd's machine precision.
    if rcond == nil then
      rcond = EPS[t] * max(m, n)
    elseif rcond < 0 then
      rcond = EPS[t]
    end
    local u, s, vh = xp.linalg.svd(a, { full_matrices = false })
    local rank = 0
    if min(m, n) > 0 then
      local keep = s:gt(rcond * xp.max(s):item())
      rank = xp.count_nonzero(keep):item()
      local c = xp.matmul(mT(xp, u), bm)
      xp.multiply(c, xp.expand_dims(inverted(xp, s, keep), -1), c)
      bm = xp.matmul(mT(xp, vh), c)
    else -- nothing to fit: x is 0
      bm = xp.zeros({ n, bm.shape[2] }, t)
    end
    local x = bm
    local residuals
    if rank == n and m > n then
      local r = xp.subtract(xp.matmul(a, x), vector and b:reshape({ m, 1 }) or b)
      residuals = xp.sum(xp.multiply(r, r), 1)
    else
      residuals = xp.empty({ 0 }, t)
    end
    if vector then x = x:reshape({ n }) end
    return x, residuals, rank, s
  end

  -- numpy.linalg.pinv(a, rcond=1e-15), on stacks.
  local function pinv(a, rcond)
    check_array("pinv", a, 1)
    check_tolerance("pinv", "rcond", rcond)
    check_stacked("pinv", a)
    local xp = get_array_module(a)
    local shape = {}
    for i = 1, a.ndim do shape[i] = a.shape[i] end
    local m, n = shape[a.ndim - 1], shape[a.ndim]
    if m == 0 or n == 0 then -- NumPy's shortcut, in a's own dtype
      shape[a.ndim - 1], shape[a.ndim] = n, m
      return xp.empty(shape, a.dtype)
    end
    local u, s, vh = xp.linalg.svd(a, { full_matrices = false })
    local cutoff = xp.multiply(xp.max(s, -1, { keepdims = true }), rcond or 1e-15)
    local sinv = inverted(xp, s, s:gt(cutoff))
    local right = mT(xp, u)
    right = xp.multiply(xp.expand_dims(sinv, -1), right)
    return xp.matmul(mT(xp, vh), right)
  end

  -- numpy.linalg.matrix_rank(A, tol): a Lua integer for one matrix (or fewer axes), an int64
  -- array for a stack.
  local function matrix_rank(A, tol)
    check_array("matrix_rank", A, 1)
    check_tolerance("matrix_rank", "tol", tol)
    local xp = get_array_module(A)
    if A.ndim < 2 then return xp.count_nonzero(A):item() > 0 and 1 or 0 end
    local S = xp.linalg.svd(A, { compute_uv = false })
    local cut = tol
    if cut == nil then
      local m, n = A.shape[A.ndim - 1], A.shape[A.ndim]
      cut = xp.multiply(xp.max(S, -1, { keepdims = true }), max(m, n) * EPS[S.dtype])
    end
    local r = xp.count_nonzero(S:gt(cut), -1)
    if A.ndim == 2 then return r:item() end
    return r
  end

  -- numpy.linalg.matrix_power(a, n): repeated squaring; n < 0 through inv, n == 0 the identity.
  local function matrix_power(a, n)
    check_array("matrix_power", a, 1)
    check_stacked("matrix_power", a)
    local k = type(n) == "number" and tointeger(n)
    if not k then
      raise("TypeError", fmt("matrix_power: the exponent must be an integer, got %s",
        type(n) == "number" and tostring(n) or type(n)))
    end
    local xp = get_array_module(a)
    local shape = a.shape
    local size = shape[a.ndim]
    if shape[a.ndim - 1] ~= size then
      raise("LinAlgError", "matrix_power: the last two axes must be square")
    end
    if k == 0 then
      local r = xp.empty(shape, a.dtype)
      r[{}] = xp.eye(size, { dtype = a.dtype })
      return r
    end
    if k < 0 then
      a = xp.linalg.inv(a)
      if k == -1 then return a end
      k = -k
    end
    if k == 1 then return a:copy() end
    -- z runs through a, a^2, a^4...; the bits of k pick the ones multiplied into the result.
    local z, result
    while k > 0 do
      z = z == nil and a or xp.matmul(z, z)
      if k % 2 == 1 then result = result == nil and z or xp.matmul(result, z) end
      k = k // 2
    end
    return result
  end

  -- ---------------------------------------------------------------- wiring

  local functions = { lstsq = lstsq, pinv = pinv, matrix_rank = matrix_rank,
                      matrix_power = matrix_power }
  for _, home in ipairs { M, cpu } do
    home.linalg = home.linalg or {}
    for name, fn in pairs(functions) do home.linalg[name] = fn end
  end
end
