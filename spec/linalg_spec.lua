-- cuarr.linalg's det, slogdet, inv, solve and cholesky, on host arrays (cuarr.cpu.linalg, the
-- system LAPACK) and device arrays (cuarr.linalg, #gpu: cuBLAS's and cuSOLVER's batched routines
-- for stacks of more than one matrix up to 32x32, cuSOLVER one matrix at a time otherwise).
--
-- Each function is checked against its defining identity (a @ inv(a) = I, a @ solve(a, b) = b,
-- L @ L.T = a and U.T @ U = a, sign * exp(logabsdet) = det) and, where simple, a Lua reference:
-- 2x2 and 3x3 determinants by formula, triangular ones as the product of the diagonal,
-- permutation matrices as +-1 with the permutation's sign, the others by Gaussian elimination in
-- Lua.  Cases: float64, float32 (a looser tolerance), integer and bool inputs (computed in
-- float64), stacks ((4,3,3), (2,5,6,6)), solve's batch broadcasting and NumPy 2's rule for b
-- (a 1-D b is one vector, anything else a stack of (n, k) matrices), transposed, stepped,
-- reversed, offset, batch-last and F-ordered inputs, singular matrices (det 0, slogdet (0, -inf),
-- LinAlgError from inv and solve), n = 0 and empty batches, results new and C-contiguous, inputs
-- left as they were.  #gpu: the same on device arrays (H.backends), device results against the
-- host's on both device paths (a batch of 100 8x8 matrices; single 8x8, 40x40 and 200x200 ones;
-- stacks of 32x32 and 33x33 ones at the boundary), and one singular matrix in a device batch.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

-- ---------------------------------------------------------------- helpers

local function shape_of(x)
  local t = {}
  for i = 1, x.ndim do t[i] = x.shape[i] end
  return t
end

local function prod(s)
  local n = 1
  for i = 1, #s do n = n * s[i] end
  return n
end

local function shape_str(s) return "(" .. table.concat(s, ",") .. ")" end

local function host_of(x) return x.device == "cpu" and x or x:get() end

-- An array's values in C order, as Lua floats.
local function values(x) return H.flat(host_of(x):astype("float64"):totable()) end

-- The host array h in xp's place.
local function on(xp, h) return xp == cpu and h or cuarr.asarray(h) end

-- The matrices of a stack (n > 0, a non-empty batch) as Lua tables of rows, in C order.
local function matrices(x)
  local s = shape_of(x)
  local n = s[#s]
  return host_of(x):astype("float64"):copy():reshape({ prod(s) // (n * n), n, n }):totable()
end

-- The largest |x - y| (broadcast), NaN if any difference is NaN.
local function max_diff(x, y)
  local d = host_of(x):astype("float64") - host_of(y):astype("float64")
  local m = 0.0
  for _, v in ipairs(H.flat(d:totable())) do
    local a = math.abs(v)
    if a > m or a ~= a then m = a end
    if m ~= m then break end
  end
  return m
end

local function max_abs(x) return max_diff(x, cpu.zeros({}, "float64")) end

local function within(got, want, tol, what)
  if not (got == want or math.abs(got - want) <= tol) then
    error(("%s: got %.17g, want %.17g (tolerance %g)"):format(what, got, want, tol), 2)
  end
end

-- (NaN fails: it is not <= anything)
local function small(d, tol, what)
  if d <= tol then return end
  error(("%s: off by %g (tolerance %g)"):format(what, d, tol), 2)
end

-- The float dtype linalg computes in, and a tolerance for n x n problems in it.
local function rdtype(dtype) return dtype == "float32" and "float32" or "float64" end
local EPS = { float32 = 2.0 ^ -23, float64 = 2.0 ^ -52 }
local function tol(dtype, n) return EPS[rdtype(dtype)] * 64 * math.max(n, 1) end

-- ---------------------------------------------------------------- operands

local seed = 0
local function rng()
  seed = seed + 1
  return cpu.random.default_rng(1000 + seed)
end

-- n x n masks (int64 0/1): the strict upper and the strict lower triangle.
local function strict_upper(n)
  return cpu.arange(n):reshape({ n, 1 }):lt(cpu.arange(n)):astype("int64")
end
local function strict_lower(n) return strict_upper(n).T:copy() end

-- Host stacks of shape `shape` (the last two axes square):
-- uniform in [-1, 1), no structure;
local function gen(shape, dtype)
  return (rng():random(shape) * 2 - 1):astype(dtype or "float64")
end
-- well-conditioned: I + (R - 1/2) / n with R uniform in [0, 1), rows diagonally dominant,
-- determinants near 1;
local function well(shape, dtype)
  local n = shape[#shape]
  return ((rng():random(shape) - 0.5) / n + cpu.eye(n)):astype(dtype or "float64")
end
-- integers, diagonally dominant: off the diagonal -5..5 (0..9 for unsigned), 10 n on it;
local function ints(shape, dtype)
  local n = shape[#shape]
  local off = (rng():random(shape) * 11 - 5):astype("int64")
  if dtype:sub(1, 1) == "u" then off = (rng():random(shape) * 10):astype("int64") end
  return (off * (1 - cpu.eye(n, nil, "int64")) + cpu.eye(n, nil, "int64") * (10 * n))
    :astype(dtype)
end
-- bool, unit upper triangular (determinant 1, invertible);
local function unit_bool(shape)
  local n = shape[#shape]
  local bits = rng():random(shape):gt(0.5):astype("int64")
  return (bits * strict_upper(n) + cpu.eye(n, nil, "int64")):astype("bool")
end
-- an invertible stack of any of the dtypes above;
local function square(shape, dtype)
  if dtype == "bool" then return unit_bool(shape) end
  if dtype == "float32" or dtype == "float64" then return well(shape, dtype) end
  return ints(shape, dtype)
end
-- symmetric positive definite: m @ m.T for a well-conditioned m.
-- (symmetrised, so that both triangles hold the same bits)
local function spd(shape, dtype)
  local m = well(shape)
  local p = cpu.matmul(m, m:swapaxes(-1, -2))
  return ((p + p:swapaxes(-1, -2)) * 0.5):astype(dtype or "float64")
end
-- right-hand sides: uniform in [-2, 2), integers -2..2, or random booleans.
local function rhs(shape, dtype)
  local r = rng():random(shape) * 4 - 2
  if dtype == "bool" then return r:gt(0) end
  if dtype == "float32" or dtype == "float64" then return r:astype(dtype) end
  return r:astype("int64"):astype(dtype)
end

-- ---------------------------------------------------------------- references

-- The determinant of a Lua matrix by Gaussian elimination with partial pivoting.
local function ref_det(rows)
  local n = #rows
  local m = {}
  for i = 1, n do
    m[i] = {}
    for j = 1, n do m[i][j] = rows[i][j] + 0.0 end
  end
  local det = 1.0
  for k = 1, n do
    local p = k
    for i = k + 1, n do
      if math.abs(m[i][k]) > math.abs(m[p][k]) then p = i end
    end
    if m[p][k] == 0 then return 0.0 end
    if p ~= k then
      m[p], m[k] = m[k], m[p]
      det = -det
    end
    det = det * m[k][k]
    for i = k + 1, n do
      local f = m[i][k] / m[k][k]
      for j = k, n do m[i][j] = m[i][j] - f * m[k][j] end
    end
  end
  return det
end

-- Hadamard's bound on |det|: the product of the rows' lengths (the scale of det's errors).
local function hadamard(rows)
  local h = 1.0
  for _, r in ipairs(rows) do
    local s = 0.0
    for _, v in ipairs(r) do s = s + v * v end
    h = h * math.sqrt(s)
  end
  return h
end

local function det2(m) return m[1][1] * m[2][2] - m[1][2] * m[2][1] end
local function det3(m)
  return m[1][1] * (m[2][2] * m[3][3] - m[2][3] * m[3][2])
    - m[1][2] * (m[2][1] * m[3][3] - m[2][3] * m[3][1])
    + m[1][3] * (m[2][1] * m[3][2] - m[2][2] * m[3][1])
end

-- ---------------------------------------------------------------- checks

local function batch_of(a)
  local s = shape_of(a)
  return { table.unpack(s, 1, #s - 2) }
end

local function check_result(r, a, dtype, shape, what)
  assert.are.equal(dtype, r.dtype, what .. ": dtype")
  assert.are.same(shape, shape_of(r), what .. ": shape")
  assert.are.equal(a.device == "cpu", r.device == "cpu", what .. ": the result's place")
  assert.is_true(r.flags.c_contiguous, what .. ": C-contiguous")
end

-- det(a) against the Lua reference (or want, one value per matrix); returns det(a).
local function check_det(xp, a, what, want)
  local r = xp.linalg.det(a)
  local n = a.shape[a.ndim]
  check_result(r, a, rdtype(a.dtype), batch_of(a), what)
  local got = values(r)
  if n == 0 or #got == 0 then return r end
  for i, m in ipairs(matrices(a)) do
    local w = want and want[i] or ref_det(m)
    within(got[i], w, tol(r.dtype, n) * hadamard(m), ("%s, matrix %d"):format(what, i))
  end
  return r
end

-- slogdet(a) against det(a) (both of cuarr) and the Lua reference.
local function check_slogdet(xp, a, what)
  local sign, logabs = xp.linalg.slogdet(a)
  local n, dtype = a.shape[a.ndim], rdtype(a.dtype)
  check_result(sign, a, dtype, batch_of(a), what .. ": sign")
  check_result(logabs, a, dtype, batch_of(a), what .. ": logabsdet")
  local s, l, d = values(sign), values(logabs), values(xp.linalg.det(a))
  if n == 0 or #s == 0 then return sign, logabs end
  for i, m in ipairs(matrices(a)) do
    local w, at = ref_det(m), ("%s, matrix %d"):format(what, i)
    if w == 0 then
      assert.are.same({ 0.0, -math.huge }, { s[i], l[i] }, at .. ": singular")
    else
      assert.are.equal(w > 0 and 1 or -1, s[i], at .. ": sign")
      local rel = tol(dtype, n) * hadamard(m) / math.abs(w)
      within(l[i], math.log(math.abs(w)), rel, at .. ": logabsdet")
      within(s[i] * math.exp(l[i]), d[i], rel * math.abs(d[i]), at .. ": sign * exp(logabsdet)")
    end
  end
  return sign, logabs
end

-- inv(a): a @ x = I and x @ a = I; returns x.
local function check_inv(xp, a, what)
  local x = xp.linalg.inv(a)
  local n = a.shape[a.ndim]
  check_result(x, a, rdtype(a.dtype), shape_of(a), what)
  if x.size == 0 then return x end
  local eye = cpu.eye(n)
  local t = tol(x.dtype, n) * math.max(1, max_abs(a) * max_abs(x) * n)
  small(max_diff(xp.matmul(a, x), eye), t, what .. ": a @ inv(a) - I")
  small(max_diff(xp.matmul(x, a), eye), t, what .. ": inv(a) @ a - I")
  return x
end

-- solve(a, b): the result's shape and dtype, a @ x = b; returns x.
local function check_solve(xp, a, b, shape, what)
  local x = xp.linalg.solve(a, b)
  local n = a.shape[a.ndim]
  local dtype = (a.dtype == "float32" and b.dtype == "float32") and "float32" or "float64"
  check_result(x, a, dtype, shape, what)
  if x.size == 0 then return x end
  local ax, want
  if b.ndim == 1 then
    local xs = shape_of(x)
    xs[#xs + 1] = 1
    ax, want = xp.matmul(a, x:reshape(xs)), host_of(b):reshape({ n, 1 })
  else
    ax, want = xp.matmul(a, x), b
  end
  local t = tol(dtype, n) * math.max(1, max_abs(a) * max_abs(x) * n)
  small(max_diff(ax, want), t, what .. ": a @ solve(a, b) - b")
  return x
end

-- Zero where a lower (upper) factor must be zero: above (below) the diagonal.
local function check_triangle(f, upper, what)
  local n = f.shape[f.ndim]
  local v = values(f)
  for idx = 0, #v - 1 do
    local i, j = idx // n % n, idx % n
    if upper and i > j or not upper and j > i then
      if v[idx + 1] ~= 0 then
        error(("%s: element (%d,%d) of a matrix is %g, not 0"):format(what, i + 1, j + 1,
          v[idx + 1]), 2)
      end
    elseif i == j and (v[idx + 1] <= 0 or v[idx + 1] ~= v[idx + 1]) then
      error(("%s: diagonal element %d is %g, not positive"):format(what, i + 1, v[idx + 1]), 2)
    end
  end
end

-- cholesky(a[, {upper}]): the triangle, L @ L.T = sym (U.T @ U = sym); sym defaults to a.
local function check_cholesky(xp, a, upper, what, sym)
  local f = upper and xp.linalg.cholesky(a, { upper = true }) or xp.linalg.cholesky(a)
  local n = a.shape[a.ndim]
  check_result(f, a, rdtype(a.dtype), shape_of(a), what)
  if f.size == 0 then return f end
  check_triangle(f, upper, what)
  local ft = f:swapaxes(-1, -2)
  local p = upper and xp.matmul(ft, f) or xp.matmul(f, ft)
  local t = tol(f.dtype, n) * math.max(1, max_abs(sym or a) * n)
  small(max_diff(p, sym or a), t, what .. (upper and ": U.T @ U - a" or ": L @ L.T - a"))
  return f
end

-- Views of logical shape (n, n) made from host arrays mk(shape) gives, and their names.
local VIEWS = {
  { "transposed", function(mk, n) return mk({ n, n }).T end },
  { "rows stepped", function(mk, n) return mk({ 2 * n, n })[{ { 1, 2 * n, 2 }, {} }] end },
  { "both axes stepped", function(mk, n)
    return mk({ 2 * n, 3 * n })[{ { 2, 2 * n, 2 }, { 1, 3 * n, 3 } }]
  end },
  { "F-ordered", function(mk, n) return mk({ n, n }):copy("F") end },
  { "reversed", function(mk, n) return mk({ n, n })[{ { n, 1, -1 }, { n, 1, -1 } }] end },
  { "an offset block", function(mk, n) return mk({ n + 2, n + 3 })[{ { 2, n + 1 }, { 3, n + 2 } }]
  end },
}
-- Stacks of logical shape (c, n, n).
local VIEWS_3D = {
  { "last two swapped", function(mk, c, n) return mk({ c, n, n }):swapaxes(2, 3) end },
  { "batch last", function(mk, c, n) return mk({ n, n, c }):transpose(3, 1, 2) end },
  { "batch stepped", function(mk, c, n) return mk({ 2 * c, n, n })[{ { 1, 2 * c, 2 } }] end },
  { "F-ordered", function(mk, c, n) return mk({ c, n, n }):copy("F") end },
}

-- Views of an SPD matrix that are SPD themselves (principal submatrices, P a P.T).
local SPD_VIEWS = {
  { "transposed", function(s, n) return s({ n, n }).T end },
  { "F-ordered", function(s, n) return s({ n, n }):copy("F") end },
  { "stepped alike on both axes", function(s, n)
    return s({ 2 * n, 2 * n })[{ { 1, 2 * n, 2 }, { 1, 2 * n, 2 } }]
  end },
  { "an offset principal block", function(s, n)
    return s({ n + 2, n + 2 })[{ { 2, n + 1 }, { 2, n + 1 } }]
  end },
  { "reversed on both axes", function(s, n)
    return s({ n, n })[{ { n, 1, -1 }, { n, 1, -1 } }]
  end },
}

local DTYPES = { "float64", "float32", "int64", "int32", "int8", "uint8", "bool" }

-- ---------------------------------------------------------------- det and slogdet

describe("cuarr.linalg.det and slogdet", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("2x2 and 3x3 by formula, every input dtype; 0-d results", function()
      local fixed = {
        { { 1, 2 }, { 3, 4 } }, { { 0, 1 }, { 1, 0 } }, { { 5, 3 }, { 2, 7 } },
        { { 2, -1, 0 }, { -1, 2, -1 }, { 0, -1, 2 } }, { { 6, 1, 1 }, { 4, -2, 5 }, { 2, 8, 7 } },
        { { 0, 0, 1 }, { 0, 1, 0 }, { 1, 0, 0 } }, { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 10 } },
      }
      for _, dtype in ipairs { "float64", "float32", "int64", "int32", "int8", "int16" } do
        for _, m in ipairs(fixed) do
          local what = dtype .. " " .. #m .. "x" .. #m
          local r = check_det(xp, on(xp, cpu.array(m, dtype)), what, { #m == 2 and det2(m)
            or det3(m) })
          assert.are.same({}, shape_of(r), what .. ": one matrix gives a 0-d array")
        end
      end
      local bools = {
        { { true, true }, { false, true } }, { { false, true }, { true, false } },
        { { true, true, false }, { false, true, true }, { true, false, true } },
      }
      for _, m in ipairs(bools) do
        local a = on(xp, cpu.array(m, "bool"))
        local rows = matrices(a)[1]
        check_det(xp, a, "bool " .. #m .. "x" .. #m, { #m == 2 and det2(rows) or det3(rows) })
      end
      assert.are.same({ 2.0 }, values(xp.linalg.det(on(xp, cpu.array(bools[3], "bool")))))
      -- 1x1 (NumPy's det is sign * exp(logabsdet) too: not always the exact value)
      within(xp.linalg.det(on(xp, cpu.array({ { 3 } }))):item(), 3, tol("float64", 1), "1x1")
      for _, dtype in ipairs { "float64", "float32" } do
        for _, n in ipairs { 2, 3 } do
          for i = 1, 10 do
            local a = on(xp, gen({ n, n }, dtype))
            local m = matrices(a)[1]
            check_det(xp, a, ("%s random %dx%d #%d"):format(dtype, n, n, i),
              { n == 2 and det2(m) or det3(m) })
          end
        end
      end
    end)

    b.it("triangular matrices: the product of the diagonal", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for n = 1, 12 do
          local t = gen({ n, n })
          local d, want = {}, 1.0
          for i = 1, n do
            d[i] = (i % 2 == 0 and -1 or 1) * (0.5 + i / n)
            want = want * d[i]
          end
          t:diagonal()[{}] = cpu.array(d)
          local up = on(xp, (t * (1 - strict_lower(n))):astype(dtype))
          local lo = on(xp, (t * (1 - strict_upper(n))):astype(dtype))
          for _, c in ipairs { { "upper", up }, { "lower", lo } } do
            local what = ("%s %s triangular %dx%d"):format(dtype, c[1], n, n)
            local got = xp.linalg.det(c[2]):item()
            within(got, want, tol(dtype, n) * math.abs(want), what)
            local s, l = xp.linalg.slogdet(c[2])
            assert.are.equal(want > 0 and 1 or -1, s:item(), what .. ": sign")
            within(l:item(), math.log(math.abs(want)), tol(dtype, n), what .. ": logabsdet")
          end
        end
      end
    end)

    b.it("permutation matrices: exactly +-1, the permutation's sign", function()
      -- every permutation of 4, and a shuffle of 9
      local perms = {}
      local function permute(p, k)
        if k > #p then
          perms[#perms + 1] = { table.unpack(p) }
          return
        end
        for i = k, #p do
          p[k], p[i] = p[i], p[k]
          permute(p, k + 1)
          p[k], p[i] = p[i], p[k]
        end
      end
      permute({ 1, 2, 3, 4 }, 1)
      assert.are.equal(24, #perms)
      local r = H.rng(77)
      local big = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }
      for i = #big, 2, -1 do
        local j = r.int(1, i)
        big[i], big[j] = big[j], big[i]
      end
      perms[#perms + 1] = big
      local function sign(p)
        local s = 1
        for i = 1, #p do
          for j = i + 1, #p do
            if p[i] > p[j] then s = -s end
          end
        end
        return s
      end
      local a4 = well({ 4, 4 })
      local d4 = xp.linalg.det(on(xp, a4)):item()
      for _, p in ipairs(perms) do
        local n, rows = #p, {}
        for i = 1, n do
          rows[i] = {}
          for j = 1, n do rows[i][j] = p[i] == j and 1 or 0 end
        end
        local want = sign(p)
        for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
          local m = cpu.array(rows, "int64"):astype(dtype)
          local what = ("%s permutation {%s}"):format(dtype, table.concat(p, ","))
          assert.are.equal(want + 0.0, xp.linalg.det(on(xp, m)):item(), what)
          local s, l = xp.linalg.slogdet(on(xp, m))
          assert.are.same({ want + 0.0, 0.0 }, { s:item(), l:item() }, what .. ": slogdet")
        end
        if n == 4 then -- det(P a) = sign(P) det(a)
          local pa = cpu.matmul(cpu.array(rows, "float64"), a4)
          within(xp.linalg.det(on(xp, pa)):item(), want * d4, tol("float64", 4),
            "det(P a) for {" .. table.concat(p, ",") .. "}")
        end
      end
    end)

    b.it("random matrices against Gaussian elimination in Lua, n = 1..17", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for _, n in ipairs { 1, 2, 3, 4, 5, 6, 8, 11, 13, 17 } do
          check_det(xp, on(xp, gen({ n, n }, dtype)), ("%s %dx%d"):format(dtype, n, n))
          check_slogdet(xp, on(xp, well({ n, n }, dtype)), ("%s well %dx%d"):format(dtype, n, n))
        end
      end
      for _, dtype in ipairs { "int64", "int32", "int16", "uint8", "int8" } do
        for _, n in ipairs { 1, 2, 4, 5 } do
          local a = on(xp, ints({ n, n }, dtype))
          check_det(xp, a, ("%s %dx%d"):format(dtype, n, n))
          check_slogdet(xp, a, ("%s %dx%d"):format(dtype, n, n))
          -- integers with no structure: exact small determinants, some singular
          local g = on(xp, (gen({ n, n }) * 4):astype("int64"):astype(dtype == "uint8" and
            "int16" or dtype))
          check_det(xp, g, ("%s unstructured %dx%d"):format(g.dtype, n, n))
        end
      end
      for n = 1, 6 do
        local a = on(xp, unit_bool({ n, n }))
        check_det(xp, a, "bool unit triangular " .. n, { 1.0 })
        check_slogdet(xp, a, "bool unit triangular " .. n)
      end
    end)

    b.it("stacks: (4,3,3), (2,5,6,6), (3,1,1), each matrix its own determinant", function()
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        for _, shape in ipairs { { 4, 3, 3 }, { 2, 5, 6, 6 }, { 3, 1, 1 }, { 1, 2, 2 } } do
          local h = dtype:sub(1, 5) == "float" and gen(shape, dtype) or square(shape, dtype)
          local a = on(xp, h)
          local what = dtype .. " " .. shape_str(shape)
          local r = check_det(xp, a, what)
          check_slogdet(xp, a, what)
          -- each element is the determinant of that matrix alone
          local flat = values(r)
          local first = #shape == 4 and a[{ 1, 1 }] or a[1]
          within(flat[1], xp.linalg.det(first):item(), tol(dtype, shape[#shape]),
            what .. ": the first matrix alone")
          local last = #shape == 4 and a[{ 2, 5 }] or a[shape[1]]
          within(flat[#flat], xp.linalg.det(last):item(), tol(dtype, shape[#shape]),
            what .. ": the last matrix alone")
        end
      end
    end)

    b.it("slogdet: signs of both kinds, and where det over- or underflows", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for _, n in ipairs { 2, 3, 7 } do
          local a = well({ n, n })
          a[1] = a[1] * -1 -- one row negated: a negative determinant
          check_slogdet(xp, on(xp, a:astype(dtype)), dtype .. " a negative determinant")
          local s = xp.linalg.slogdet(on(xp, a:astype(dtype)))
          assert.are.equal(-1.0, s:item(), dtype .. ": the sign of a negated row")
        end
        -- det(c a) = c^n det(a): past float64's (float32's) range, slogdet stays finite
        local n = 40
        local a = well({ n, n })
        local _, l0 = cpu.linalg.slogdet(a)
        for _, c in ipairs { dtype == "float64" and 1e10 or 1e3, dtype == "float64" and 1e-10
          or 1e-3 } do
          local big = on(xp, (a * c):astype(dtype))
          local d = xp.linalg.det(big):item()
          local s, l = xp.linalg.slogdet(big)
          local what = ("%s %dx%d times %g"):format(dtype, n, n, c)
          assert.are.equal(c > 1 and math.huge or 0.0, d, what .. ": det overflows")
          assert.are.equal(1.0, s:item(), what .. ": sign")
          within(l:item(), l0:item() + n * math.log(c), tol(dtype, n) * n * math.abs(math.log(c)),
            what .. ": logabsdet")
        end
      end
    end)

    b.it("singular matrices: det 0 and slogdet (0, -inf), no error", function()
      local cases = {
        { "zeros", cpu.zeros({ 3, 3 }) },
        { "a zero row", cpu.array({ { 1, 2, 3 }, { 0, 0, 0 }, { 4, 5, 6 } }, "float64") },
        { "a zero column", cpu.array({ { 1, 0, 3 }, { 4, 0, 6 }, { 7, 0, 9.5 } }) },
        { "rank 1, powers of two", cpu.array({ { 1, 2, 4 }, { 2, 4, 8 }, { 0.5, 1, 2 } }) },
        { "two equal rows", cpu.array({ { 1, 2 }, { 1, 2 } }) },
        { "two equal columns", cpu.array({ { 2, 2 }, { 4, 4 } }) },
        { "equal rows, float32", cpu.array({ { 0.1, 0.2 }, { 0.1, 0.2 } }, "float32") },
        { "int64 ones", cpu.ones({ 4, 4 }, "int64") },
        { "bool all true", cpu.ones({ 3, 3 }, "bool") },
        { "1x1 zero", cpu.zeros({ 1, 1 }) },
        { "a zero row in a random 9x9", (function()
          local g = gen({ 9, 9 })
          g[5] = 0
          return g
        end)() },
      }
      for _, c in ipairs(cases) do
        local a = on(xp, c[2])
        local what = c[1]
        local d = xp.linalg.det(a)
        assert.are.equal(rdtype(c[2].dtype), d.dtype, what .. ": dtype")
        assert.are.equal(0.0, d:item(), what .. ": det")
        local s, l = xp.linalg.slogdet(a)
        assert.are.same({ 0.0, -math.huge }, { s:item(), l:item() }, what .. ": slogdet")
      end
      -- in a stack, beside regular matrices
      local h = well({ 5, 4, 4 })
      h[{ 2, {}, 3 }] = 0
      h[4] = 0
      local a = on(xp, h)
      local d = values(xp.linalg.det(a))
      local s, l = xp.linalg.slogdet(a)
      s, l = values(s), values(l)
      for i = 1, 5 do
        local m = matrices(h[i])[1]
        if i == 2 or i == 4 then
          assert.are.same({ 0.0, 0.0, -math.huge }, { d[i], s[i], l[i] }, "singular " .. i)
        else
          within(d[i], ref_det(m), tol("float64", 4), "regular matrix " .. i)
          assert.are.equal(1.0, s[i], "regular matrix " .. i .. ": sign")
        end
      end
    end)

    b.it("non-contiguous inputs: views as their contiguous copies", function()
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        local function mk(shape)
          if dtype == "int64" then return on(xp, (gen(shape) * 9):astype("int64")) end
          return on(xp, gen(shape, dtype))
        end
        for _, v in ipairs(VIEWS) do
          for _, n in ipairs { 1, 3, 6 } do
            local a = v[2](mk, n)
            assert.are.same({ n, n }, shape_of(a))
            local what = ("%s %s %dx%d"):format(dtype, v[1], n, n)
            local r = check_det(xp, a, what)
            within(r:item(), xp.linalg.det(a:copy()):item(), tol(dtype, n) * hadamard(
              matrices(a)[1]), what .. ": as its copy")
            check_slogdet(xp, a, what)
          end
        end
        for _, v in ipairs(VIEWS_3D) do
          local a = v[2](mk, 4, 5)
          assert.are.same({ 4, 5, 5 }, shape_of(a))
          check_det(xp, a, dtype .. " 3-D " .. v[1])
          check_slogdet(xp, a, dtype .. " 3-D " .. v[1])
        end
      end
      -- det(a.T) = det(a); rows reversed: the reversal's sign
      for n = 1, 7 do
        local a = on(xp, well({ n, n }))
        local d = xp.linalg.det(a):item()
        within(xp.linalg.det(a.T):item(), d, tol("float64", n), "det(a.T) " .. n)
        local flips = (n * (n - 1) // 2) % 2 == 0 and 1 or -1
        within(xp.linalg.det(a[{ { n, 1, -1 } }]):item(), flips * d, tol("float64", n),
          "rows reversed " .. n)
        within(xp.linalg.det(a[{ {}, { n, 1, -1 } }]):item(), flips * d, tol("float64", n),
          "columns reversed " .. n)
        assert.is_true(a:copy("F").flags.f_contiguous)
      end
    end)

    b.it("n = 0: det 1 and slogdet (1, 0); empty batches give empty results", function()
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        local e = on(xp, cpu.zeros({ 0, 0 }, dtype))
        local d = xp.linalg.det(e)
        check_result(d, e, rdtype(dtype), {}, dtype .. " (0,0)")
        assert.are.equal(1.0, d:item(), dtype .. " det of (0,0)")
        local s, l = xp.linalg.slogdet(e)
        assert.are.same({ 1.0, 0.0 }, { s:item(), l:item() }, dtype .. " slogdet of (0,0)")
        local cases = {
          { { 2, 0, 0 }, { 2 }, { 1.0, 1.0 } },
          { { 2, 3, 0, 0 }, { 2, 3 }, { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 } },
          { { 0, 3, 3 }, { 0 }, {} },
          { { 3, 0, 4, 4 }, { 3, 0 }, {} },
          { { 0, 0, 0 }, { 0 }, {} },
        }
        for _, c in ipairs(cases) do
          local a = on(xp, cpu.zeros(c[1], dtype))
          local what = dtype .. " " .. shape_str(c[1])
          local r = xp.linalg.det(a)
          check_result(r, a, rdtype(dtype), c[2], what)
          assert.are.same(c[3], values(r), what .. ": det")
          local sg, lg = xp.linalg.slogdet(a)
          check_result(sg, a, rdtype(dtype), c[2], what .. ": sign")
          check_result(lg, a, rdtype(dtype), c[2], what .. ": logabsdet")
          assert.are.same(c[3], values(sg), what .. ": sign")
          assert.are.same(#c[3], #values(lg), what .. ": logabsdet")
          for _, v in ipairs(values(lg)) do assert.are.equal(0.0, v, what .. ": logabsdet") end
        end
      end
    end)
  end
end)

-- ---------------------------------------------------------------- inv

describe("cuarr.linalg.inv", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("a @ inv(a) = inv(a) @ a = I, every input dtype (integers and bool in float64)",
      function()
        for _, dtype in ipairs(DTYPES) do
          local ns = dtype:sub(1, 5) == "float" and { 1, 2, 3, 5, 9, 17, 31 } or { 1, 2, 3, 5 }
          for _, n in ipairs(ns) do
            check_inv(xp, on(xp, square({ n, n }, dtype)), ("%s %dx%d"):format(dtype, n, n))
          end
        end
      end)

    b.it("known inverses: 2x2 by formula, diagonal, permutation (exact), unit bool", function()
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        local m = { { 4, 7 }, { 2, 6 } } -- det 10
        local x = check_inv(xp, on(xp, cpu.array(m, dtype)), dtype .. " 2x2")
        local want = { 0.6, -0.7, -0.2, 0.4 }
        local got = values(x)
        for i = 1, 4 do within(got[i], want[i], tol(dtype, 2), dtype .. " 2x2 element " .. i) end
      end
      local d = cpu.zeros({ 5, 5 })
      d:diagonal()[{}] = cpu.array({ 2, -4, 0.5, 8, -0.25 })
      local x = values(check_inv(xp, on(xp, d), "diagonal"))
      local want = values(cpu.eye(5) * cpu.array({ 0.5, -0.25, 2, 0.125, -4 }))
      assert.are.same(want, x, "the inverse of a diagonal matrix of powers of two")
      local p = cpu.array({ { 0, 1, 0, 0 }, { 0, 0, 0, 1 }, { 1, 0, 0, 0 }, { 0, 0, 1, 0 } })
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        local pi = xp.linalg.inv(on(xp, p:astype(dtype)))
        assert.are.same(values(p.T), values(pi), dtype .. ": inv(P) = P.T")
      end
      -- bool unit upper triangular: an integer inverse
      local u = cpu.array({ { true, true, false }, { false, true, true }, { false, false, true } })
      assert.are.same({ 1, -1, 1, 0, 1, -1, 0, 0, 1 }, values(xp.linalg.inv(on(xp, u))))
    end)

    b.it("stacks: (4,3,3), (2,5,6,6), (3,1,1), each slice the inverse of that matrix", function()
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        for _, shape in ipairs { { 4, 3, 3 }, { 2, 5, 6, 6 }, { 3, 1, 1 }, { 1, 4, 4 } } do
          local a = on(xp, square(shape, dtype))
          local what = dtype .. " " .. shape_str(shape)
          local x = check_inv(xp, a, what)
          local n = shape[#shape]
          local first = #shape == 4 and { 1, 1 } or { 1 }
          local last = #shape == 4 and { 2, 5 } or { shape[1] }
          for _, at in ipairs { first, last } do
            small(max_diff(x[at], xp.linalg.inv(a[at])), tol(dtype, n) * 10,
              what .. ": slice {" .. table.concat(at, ",") .. "} alone")
          end
        end
      end
    end)

    b.it("non-contiguous inputs; inv(a.T) = inv(a).T; inv(inv(a)) = a", function()
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        -- random: views of them are invertible too (integers up to 999 in magnitude)
        local function mk(shape)
          if dtype == "int64" then return on(xp, (gen(shape) * 1000):astype("int64")) end
          return on(xp, gen(shape, dtype))
        end
        for _, v in ipairs(VIEWS) do
          for _, n in ipairs { 1, 3, 6 } do
            local a = v[2](mk, n)
            local what = ("%s %s %dx%d"):format(dtype, v[1], n, n)
            local x = check_inv(xp, a, what)
            small(max_diff(x, xp.linalg.inv(a:copy())), tol(dtype, n) * 10, what .. ": as its copy")
          end
        end
        for _, v in ipairs(VIEWS_3D) do
          check_inv(xp, v[2](mk, 4, 5), dtype .. " 3-D " .. v[1])
        end
      end
      for _, dtype in ipairs { "float64", "float32" } do
        local a = on(xp, well({ 3, 7, 7 }, dtype))
        local t = tol(dtype, 7) * 10
        small(max_diff(xp.linalg.inv(a:swapaxes(2, 3)), xp.linalg.inv(a):swapaxes(2, 3)), t,
          dtype .. ": inv(a.T) = inv(a).T")
        small(max_diff(xp.linalg.inv(xp.linalg.inv(a)), a), t, dtype .. ": inv(inv(a)) = a")
      end
    end)

    b.it("empty: (0,0), (0,3,3), (2,0,0) give empty results of the compute dtype", function()
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        for _, shape in ipairs { { 0, 0 }, { 0, 3, 3 }, { 2, 0, 0 }, { 2, 0, 5, 5 } } do
          local a = on(xp, cpu.zeros(shape, dtype))
          local x = xp.linalg.inv(a)
          check_result(x, a, rdtype(dtype), shape, dtype .. " " .. shape_str(shape))
        end
      end
    end)

    b.it("singular matrices raise LinAlgError, alone and in a stack", function()
      local h = well({ 4, 3, 3 })
      h[{ 3, 2 }] = 0
      for _, a in ipairs { cpu.zeros({ 3, 3 }), cpu.ones({ 2, 2 }, "int64"), h } do
        local err = H.raises("LinAlgError", xp.linalg.inv, on(xp, a))
        assert.is_truthy(err.message:find("singular", 1, true), err.message)
      end
    end)
  end
end)

-- ---------------------------------------------------------------- solve

describe("cuarr.linalg.solve", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("a @ solve(a, b) = b; float32 only when both are float32", function()
      local combos = {
        { "float64", "float64" }, { "float32", "float32" }, { "float32", "float64" },
        { "float64", "float32" }, { "float32", "int64" }, { "int64", "float32" },
        { "int64", "int64" }, { "int32", "float64" }, { "bool", "bool" },
        { "bool", "float32" }, { "float32", "bool" }, { "uint8", "int8" },
      }
      for _, p in ipairs(combos) do
        for _, n in ipairs { 1, 2, 3, 5, 17 } do
          for _, k in ipairs { 1, 3 } do
            local a = on(xp, square({ n, n }, p[1]))
            local rb = on(xp, rhs({ n, k }, p[2]))
            check_solve(xp, a, rb, { n, k }, ("%s %dx%d, %s (%d,%d)"):format(p[1], n, n, p[2],
              n, k))
            local v = on(xp, rhs({ n }, p[2]))
            check_solve(xp, a, v, { n }, ("%s %dx%d, %s (%d,)"):format(p[1], n, n, p[2], n))
          end
        end
      end
    end)

    b.it("known systems, and solve(a, b) = inv(a) @ b", function()
      local x = xp.linalg.solve(on(xp, cpu.array({ { 1, 2 }, { 3, 4 } })), on(xp,
        cpu.array({ 5, 6 })))
      local got = values(x)
      within(got[1], -4, tol("float64", 2) * 8, "x1")
      within(got[2], 4.5, tol("float64", 2) * 8, "x2")
      -- a diagonal system of powers of two is exact
      local d = cpu.zeros({ 3, 3 })
      d:diagonal()[{}] = cpu.array({ 2, -4, 0.5 })
      assert.are.same({ 0.5, -0.5, 4.0 },
        values(xp.linalg.solve(on(xp, d), on(xp, cpu.array({ 1.0, 2, 2 })))))
      -- b is a itself: I; b a newaxis column (stride 0), broadcast over a's batch
      for _, dtype in ipairs { "float64", "float32" } do
        local a = on(xp, well({ 4, 4 }, dtype))
        small(max_diff(xp.linalg.solve(a, a), cpu.eye(4)), tol(dtype, 4) * 10,
          dtype .. ": solve(a, a) = I")
        local col = on(xp, rhs({ 4 }, dtype))[{ cuarr.newaxis, {}, cuarr.newaxis }]
        check_solve(xp, on(xp, well({ 3, 4, 4 }, dtype)), col, { 3, 4, 1 },
          dtype .. ": a (1,4,1) newaxis b")
      end
      for _, dtype in ipairs { "float64", "float32" } do
        local a, rb = on(xp, well({ 3, 6, 6 }, dtype)), on(xp, rhs({ 3, 6, 4 }, dtype))
        small(max_diff(xp.linalg.solve(a, rb), xp.matmul(xp.linalg.inv(a), rb)),
          tol(dtype, 6) * 20, dtype .. ": solve(a, b) = inv(a) @ b")
      end
    end)

    b.it("NumPy 2's rule: a 1-D b is one vector; any other b a stack of (n, k) matrices",
      function()
        for _, dtype in ipairs { "float64", "float32" } do
          local cases = {
            { { 3, 3 }, { 3 }, { 3 } },
            { { 4, 3, 3 }, { 3 }, { 4, 3 } },
            { { 2, 5, 6, 6 }, { 6 }, { 2, 5, 6 } },
            { { 1, 1 }, { 1 }, { 1 } },
            -- (3,3,3) with (3,3): one 3x3 matrix for each a (NumPy 1 read three vectors)
            { { 3, 3, 3 }, { 3, 3 }, { 3, 3, 3 } },
            { { 4, 3, 3 }, { 4, 3, 1 }, { 4, 3, 1 } },
            { { 4, 3, 3 }, { 4, 3, 2 }, { 4, 3, 2 } },
            { { 2, 2 }, { 2, 2 }, { 2, 2 } },
          }
          for _, c in ipairs(cases) do
            local a, rb = on(xp, well(c[1], dtype)), on(xp, rhs(c[2], dtype))
            local what = ("%s %s with %s"):format(dtype, shape_str(c[1]), shape_str(c[2]))
            local x = check_solve(xp, a, rb, c[3], what)
            if #c[1] == 3 and #c[2] == 2 then
              for i = 1, c[1][1] do
                small(max_diff(x[i], xp.linalg.solve(a[i], rb)), tol(dtype, 3) * 10,
                  what .. ": matrix " .. i .. " with the whole b")
              end
            end
          end
        end
      end)

    b.it("batch axes broadcast: (2,1,3,3) with (4,3,2), and others", function()
      local cases = {
        { { 2, 1, 3, 3 }, { 4, 3, 2 }, { 2, 4, 3, 2 } },
        { { 3, 3 }, { 5, 3, 2 }, { 5, 3, 2 } },
        { { 1, 3, 3 }, { 4, 3, 2 }, { 4, 3, 2 } },
        { { 5, 4, 4 }, { 1, 4, 2 }, { 5, 4, 2 } },
        { { 4, 1, 3, 3 }, { 1, 2, 3, 1 }, { 4, 2, 3, 1 } },
        { { 2, 3, 3 }, { 3, 2, 3, 1 }, { 3, 2, 3, 1 } },
      }
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        for _, c in ipairs(cases) do
          local a, rb = on(xp, square(c[1], dtype)), on(xp, rhs(c[2], dtype))
          local what = ("%s %s with %s"):format(dtype, shape_str(c[1]), shape_str(c[2]))
          local x = check_solve(xp, a, rb, c[3], what)
          if #c[1] == 4 and c[1][2] == 1 and #c[2] == 3 then -- x[i][j] = solve(a[i][1], b[j])
            for i = 1, c[1][1] do
              for j = 1, c[2][1] do
                small(max_diff(x[{ i, j }], xp.linalg.solve(a[{ i, 1 }], rb[j])),
                  tol(dtype, 3) * 10, ("%s: x[%d][%d]"):format(what, i, j))
              end
            end
          end
        end
      end
    end)

    b.it("non-contiguous a and b", function()
      for _, dtype in ipairs { "float64", "float32" } do
        local function mka(shape) return on(xp, gen(shape, dtype)) end
        local function mkb(shape) return on(xp, rhs(shape, dtype)) end
        local bviews = {
          { "C", function(n) return mkb({ n, 3 }) end },
          { "transposed", function(n) return mkb({ 3, n }).T end },
          { "stepped", function(n) return mkb({ 2 * n, 6 })[{ { 1, 2 * n, 2 }, { 1, 6, 2 } }] end },
          { "F-ordered", function(n) return mkb({ n, 3 }):copy("F") end },
          { "a stepped vector", function(n) return mkb({ 3 * n })[{ { 3, 3 * n, 3 } }] end },
          { "a column", function(n) return mkb({ n, 4 })[{ {}, 2 }] end },
          { "a reversed vector", function(n) return mkb({ n })[{ { n, 1, -1 } }] end },
        }
        for _, va in ipairs(VIEWS) do
          for _, vb in ipairs(bviews) do
            local n = 5
            local a, rb = va[2](mka, n), vb[2](n)
            local shape = rb.ndim == 1 and { n } or { n, 3 }
            local what = ("%s a %s, b %s"):format(dtype, va[1], vb[1])
            local x = check_solve(xp, a, rb, shape, what)
            small(max_diff(x, xp.linalg.solve(a:copy(), rb:copy())), tol(dtype, n) * 10,
              what .. ": as their copies")
          end
        end
        for _, v in ipairs(VIEWS_3D) do
          local a = v[2](function(s) return on(xp, gen(s, dtype)) end, 4, 5)
          local rb = mkb({ 4, 2, 5 }):swapaxes(2, 3)
          check_solve(xp, a, rb, { 4, 5, 2 }, dtype .. " 3-D " .. v[1] .. ", b swapped")
        end
      end
    end)

    b.it("empty: n = 0, k = 0, empty batches, batches broadcast to empty", function()
      local cases = {
        { { 0, 0 }, { 0 }, { 0 } },
        { { 0, 0 }, { 0, 3 }, { 0, 3 } },
        { { 3, 3 }, { 3, 0 }, { 3, 0 } },
        { { 0, 3, 3 }, { 3 }, { 0, 3 } },
        { { 0, 3, 3 }, { 0, 3, 2 }, { 0, 3, 2 } },
        { { 0, 3, 3 }, { 3, 2 }, { 0, 3, 2 } },
        { { 0, 1, 3, 3 }, { 4, 3, 2 }, { 0, 4, 3, 2 } },
        { { 2, 3, 3 }, { 0, 1, 3, 2 }, { 0, 2, 3, 2 } },
        { { 2, 0, 0 }, { 0 }, { 2, 0 } },
        { { 4, 4 }, { 2, 4, 0 }, { 2, 4, 0 } },
      }
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        for _, c in ipairs(cases) do
          local a = on(xp, prod(c[1]) > 0 and square(c[1], dtype) or cpu.zeros(c[1], dtype))
          local rb = on(xp, cpu.zeros(c[2], dtype))
          local x = xp.linalg.solve(a, rb)
          check_result(x, a, rdtype(dtype), c[3],
            ("%s %s with %s"):format(dtype, shape_str(c[1]), shape_str(c[2])))
        end
      end
    end)

    b.it("a singular a raises LinAlgError, alone and in a broadcast stack", function()
      local h = well({ 2, 1, 3, 3 })
      h[{ 2, 1, 3 }] = 0
      local cases = {
        { cpu.zeros({ 3, 3 }), cpu.ones({ 3 }) },
        { cpu.array({ { 1, 2 }, { 2, 4 } }), cpu.ones({ 2, 2 }) },
        { h, cpu.ones({ 4, 3, 2 }) },
      }
      for _, c in ipairs(cases) do
        local err = H.raises("LinAlgError", xp.linalg.solve, on(xp, c[1]), on(xp, c[2]))
        assert.is_truthy(err.message:find("singular", 1, true), err.message)
      end
    end)
  end
end)

-- ---------------------------------------------------------------- cholesky

describe("cuarr.linalg.cholesky", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("L @ L.T = a (lower, the default) and U.T @ U = a (upper), U = L.T", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for _, n in ipairs { 1, 2, 3, 5, 9, 17, 31 } do
          local a = on(xp, spd({ n, n }, dtype))
          local what = ("%s %dx%d"):format(dtype, n, n)
          local l = check_cholesky(xp, a, false, what)
          local u = check_cholesky(xp, a, true, what .. " upper")
          small(max_diff(u, l.T), tol(dtype, n) * 4, what .. ": U = L.T")
          assert.are.same(values(l), values(xp.linalg.cholesky(a, {})), what .. ": {}")
          assert.are.same(values(l), values(xp.linalg.cholesky(a, { upper = false })),
            what .. ": upper = false")
          assert.are.same(values(l), values(xp.linalg.cholesky(a, nil)), what .. ": nil")
        end
      end
      -- integer and bool inputs: float64 factors
      for _, dtype in ipairs { "int64", "int32", "int16", "uint8" } do
        for _, n in ipairs { 1, 2, 4 } do
          local m = ints({ n, n }, "int64")
          local s = cpu.matmul(m, m.T)
          if dtype == "uint8" or dtype == "int16" then
            m = cpu.eye(n, nil, "int64") * 3 + cpu.ones({ n, n }, "int64")
            s = m -- 3 I + ones: positive definite, small entries
          end
          local a = on(xp, s:astype(dtype))
          check_cholesky(xp, a, false, ("%s %dx%d"):format(dtype, n, n))
          check_cholesky(xp, a, true, ("%s %dx%d upper"):format(dtype, n, n))
        end
      end
      local e = xp.linalg.cholesky(on(xp, cpu.eye(4, nil, "bool")))
      assert.are.equal("float64", e.dtype)
      assert.are.same(values(cpu.eye(4)), values(e), "bool I")
    end)

    b.it("known factors: 2x2 and the classic 3x3", function()
      for _, dtype in ipairs { "float64", "float32", "int64" } do
        local a = on(xp, cpu.array({ { 4, 12, -16 }, { 12, 37, -43 }, { -16, -43, 98 } }, dtype))
        local want = { 2, 0, 0, 6, 1, 0, -8, 5, 3 }
        local l = values(check_cholesky(xp, a, false, dtype .. " 3x3"))
        local u = values(check_cholesky(xp, a, true, dtype .. " 3x3 upper"))
        local want_u = { 2, 6, -8, 0, 1, 5, 0, 0, 3 }
        for i = 1, 9 do
          within(l[i], want[i], tol(dtype, 3) * 100, dtype .. " L element " .. i)
          within(u[i], want_u[i], tol(dtype, 3) * 100, dtype .. " U element " .. i)
        end
        local two = values(xp.linalg.cholesky(on(xp, cpu.array({ { 4, 2 }, { 2, 3 } }, dtype))))
        within(two[1], 2, tol(dtype, 2), dtype .. " 2x2 [1][1]")
        assert.are.equal(0.0, two[2], dtype .. " 2x2 [1][2]")
        within(two[3], 1, tol(dtype, 2), dtype .. " 2x2 [2][1]")
        within(two[4], math.sqrt(2), tol(dtype, 2) * 2, dtype .. " 2x2 [2][2]")
      end
    end)

    b.it("reads only its triangle of a: the other may hold anything, NaN included", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for _, n in ipairs { 1, 2, 4, 9 } do
          local s = spd({ n, n }, dtype)
          local what = ("%s %dx%d"):format(dtype, n, n)
          local l = values(xp.linalg.cholesky(on(xp, s)))
          local u = values(xp.linalg.cholesky(on(xp, s), { upper = true }))
          for _, junk in ipairs { 1000, -1e30, 0 / 0 } do
            local lo_only = cpu.where(strict_upper(n):astype("bool"), junk, s):astype(dtype)
            local up_only = cpu.where(strict_lower(n):astype("bool"), junk, s):astype(dtype)
            assert.are.same(l, values(check_cholesky(xp, on(xp, lo_only), false,
              what .. " junk " .. junk .. " above", s)), what .. ": lower with junk above")
            assert.are.same(u, values(check_cholesky(xp, on(xp, up_only), true,
              what .. " junk " .. junk .. " below", s)), what .. ": upper with junk below")
            -- the same through transposed views: lo_only.T holds its junk below
            assert.are.same(u, values(xp.linalg.cholesky(on(xp, lo_only).T, { upper = true })),
              what .. ": upper of a transposed view, junk below")
            assert.are.same(l, values(xp.linalg.cholesky(on(xp, up_only).T)),
              what .. ": lower of a transposed view, junk above")
          end
        end
      end
    end)

    b.it("stacks: (4,3,3), (2,5,6,6), (3,1,1), each slice the factor of that matrix", function()
      for _, dtype in ipairs { "float64", "float32" } do
        for _, shape in ipairs { { 4, 3, 3 }, { 2, 5, 6, 6 }, { 3, 1, 1 }, { 1, 2, 2 } } do
          local a = on(xp, spd(shape, dtype))
          local what = dtype .. " " .. shape_str(shape)
          local n = shape[#shape]
          for _, upper in ipairs { false, true } do
            local f = check_cholesky(xp, a, upper, what .. (upper and " upper" or ""))
            local at = #shape == 4 and { 2, 3 } or { shape[1] }
            local opts = upper and { upper = true } or nil
            -- On the device a stack and a lone matrix take different routines (batched or
            -- not), which round differently.
            small(max_diff(f[at], xp.linalg.cholesky(a[at], opts)), tol(dtype, n),
              what .. ": slice {" .. table.concat(at, ",") .. "} alone")
            small(max_diff(f[at], xp.linalg.cholesky(a[at]:copy(), opts)), tol(dtype, n),
              what .. ": as its copy")
          end
        end
      end
    end)

    b.it("non-contiguous inputs", function()
      for _, dtype in ipairs { "float64", "float32" } do
        local function s(shape) return on(xp, spd(shape, dtype)) end
        for _, v in ipairs(SPD_VIEWS) do
          for _, n in ipairs { 1, 3, 6 } do
            local a = v[2](s, n)
            assert.are.same({ n, n }, shape_of(a))
            local what = ("%s %s %dx%d"):format(dtype, v[1], n, n)
            local l = check_cholesky(xp, a, false, what)
            local u = check_cholesky(xp, a, true, what .. " upper")
            small(max_diff(l, xp.linalg.cholesky(a:copy())), tol(dtype, n), what .. ": as copy")
            small(max_diff(u, l.T), tol(dtype, n) * 4, what .. ": U = L.T")
          end
        end
        local a = s({ 3, 4, 4 })
        local batch_last = a:transpose(2, 3, 1):copy():transpose(3, 1, 2) -- (4,4,3) seen (3,4,4)
        assert.is_false(batch_last.flags.c_contiguous)
        check_cholesky(xp, batch_last, false, dtype .. " batch last")
        check_cholesky(xp, a[{ { 1, 3, 2 } }], true, dtype .. " batch stepped")
        check_cholesky(xp, a:copy("F"), false, dtype .. " (3,4,4) F-ordered")
      end
    end)

    b.it("empty: (0,0), (0,3,3), (2,0,0), lower and upper", function()
      for _, dtype in ipairs { "float64", "float32", "int64", "bool" } do
        for _, shape in ipairs { { 0, 0 }, { 0, 3, 3 }, { 2, 0, 0 }, { 0, 2, 1, 1 } } do
          local a = on(xp, cpu.zeros(shape, dtype))
          for _, upper in ipairs { false, true } do
            local f = xp.linalg.cholesky(a, { upper = upper })
            check_result(f, a, rdtype(dtype), shape, dtype .. " " .. shape_str(shape))
          end
        end
      end
    end)

    b.it("matrices that are not positive definite raise LinAlgError", function()
      local h = spd({ 3, 4, 4 })
      h[{ 2, 4, 4 }] = -1
      for _, a in ipairs { cpu.array({ { 1, 2 }, { 2, 1 } }), cpu.array({ { -1.0 } }),
        cpu.zeros({ 2, 2 }), cpu.ones({ 3, 3 }), h } do
        for _, upper in ipairs { false, true } do
          local err = H.raises("LinAlgError", xp.linalg.cholesky, on(xp, a), { upper = upper })
          assert.is_truthy(err.message:find("positive definite", 1, true), err.message)
        end
      end
    end)
  end
end)

-- ---------------------------------------------------------------- results and inputs

describe("cuarr.linalg results are new arrays; inputs stay as they were", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("every function, on C, transposed and F-ordered inputs", function()
      for _, make in ipairs {
        function(h) return on(xp, h) end,
        function(h) return on(xp, h:copy()).T end,
        function(h) return on(xp, h):copy("F") end,
      } do
        local s = make(spd({ 4, 4 }))
        local rb = make(rhs({ 4, 4 }, "float64"))
        local before_a, before_b = values(s), values(rb)
        local results = {
          xp.linalg.det(s), xp.linalg.inv(s), xp.linalg.solve(s, rb), xp.linalg.cholesky(s),
          xp.linalg.cholesky(s, { upper = true }), (xp.linalg.slogdet(s)),
          select(2, xp.linalg.slogdet(s)),
        }
        assert.are.same(before_a, values(s), "a is unchanged")
        assert.are.same(before_b, values(rb), "b is unchanged")
        for i, r in ipairs(results) do
          assert.is_true(r.flags.c_contiguous, "result " .. i .. " is C-contiguous")
          assert.is_true(r.flags.owndata, "result " .. i .. " owns its data")
          assert.is_false(xp.may_share_memory(r, s), "result " .. i .. " is not a's memory")
          assert.is_false(xp.may_share_memory(r, rb), "result " .. i .. " is not b's memory")
        end
        -- writing into a result leaves the input alone
        results[2][{ 1, 1 }] = 12345
        results[4][{ 2, 1 }] = 12345
        assert.are.same(before_a, values(s), "a after the results are written")
      end
    end)

    b.it("a failed call leaves its inputs as they were", function()
      local h = well({ 5, 4, 4 })
      h[{ 3, 2 }] = 0 -- singular
      h[{ 3, 1, 1 }] = -1 -- and not positive definite
      local a = on(xp, h)
      local rb = on(xp, rhs({ 4, 2 }, "float64"))
      local before_a, before_b = values(a), values(rb)
      H.raises("LinAlgError", xp.linalg.inv, a)
      H.raises("LinAlgError", xp.linalg.solve, a, rb)
      H.raises("LinAlgError", xp.linalg.cholesky, a)
      assert.are.same(before_a, values(a))
      assert.are.same(before_b, values(rb))
      -- and a good call afterwards works
      check_inv(xp, a[1], "after the failures")
    end)
  end
end)

-- ---------------------------------------------------------------- the device paths

-- The device's result against the host's: dtype, shape, within tol.
local function close_to_host(d, h, t, what)
  assert.are_not.equal("cpu", d.device, what .. ": a device array")
  assert.are.equal(h.dtype, d.dtype, what .. ": dtype")
  assert.are.same(shape_of(h), shape_of(d), what .. ": shape")
  assert.is_true(d.flags.c_contiguous, what .. ": C-contiguous")
  small(max_diff(d, h), t, what .. ": against the host")
end

-- Every function on a device stack against the host's, and the identities on the device.
local function device_against_host(shape, dtype, what)
  local n = shape[#shape]
  local t = tol(dtype, n) * 10
  local h, hs = well(shape, dtype), spd(shape, dtype)
  local bs = { table.unpack(shape) }
  bs[#bs] = 3
  local hb, hv = rhs(bs, dtype), rhs({ n }, dtype)
  local d, ds, db, dv = cuarr.asarray(h), cuarr.asarray(hs), cuarr.asarray(hb), cuarr.asarray(hv)
  close_to_host(cuarr.linalg.det(d), cpu.linalg.det(h), t, what .. " det")
  local s1, l1 = cuarr.linalg.slogdet(d)
  local s2, l2 = cpu.linalg.slogdet(h)
  close_to_host(s1, s2, 0, what .. " slogdet sign")
  close_to_host(l1, l2, t, what .. " slogdet logabsdet")
  close_to_host(check_inv(cuarr, d, what .. " inv"), cpu.linalg.inv(h), t, what .. " inv")
  close_to_host(check_solve(cuarr, d, db, bs, what .. " solve"), cpu.linalg.solve(h, hb), t,
    what .. " solve")
  local vs = { table.unpack(shape, 1, #shape - 1) }
  close_to_host(check_solve(cuarr, d, dv, vs, what .. " solve 1-D"), cpu.linalg.solve(h, hv), t,
    what .. " solve 1-D")
  for _, upper in ipairs { false, true } do
    local w = what .. (upper and " cholesky upper" or " cholesky")
    close_to_host(check_cholesky(cuarr, ds, upper, w),
      cpu.linalg.cholesky(hs, { upper = upper }), t * math.max(1, max_abs(hs)), w)
  end
  -- the inputs are as they were
  assert.are.same(values(h), values(d), what .. ": a unchanged")
  assert.are.same(values(hs), values(ds), what .. ": the SPD input unchanged")
end

describe("cuarr.linalg on the device: both paths against the host", function()
  for _, dtype in ipairs { "float64", "float32" } do
    H.gpu_it(dtype .. ": a batch of 100 8x8 matrices (the batched routines)", function()
      device_against_host({ 100, 8, 8 }, dtype, dtype .. " 100 x 8x8")
    end)

    H.gpu_it(dtype .. ": single 40x40 and 200x200 matrices (cuSOLVER)", function()
      device_against_host({ 40, 40 }, dtype, dtype .. " 40x40")
      device_against_host({ 200, 200 }, dtype, dtype .. " 200x200")
    end)

    H.gpu_it(dtype .. ": the boundary: 50 x 32x32 batched, 3 x 33x33 and one 8x8 by cuSOLVER",
      function()
        device_against_host({ 50, 32, 32 }, dtype, dtype .. " 50 x 32x32")
        device_against_host({ 3, 33, 33 }, dtype, dtype .. " 3 x 33x33")
        device_against_host({ 8, 8 }, dtype, dtype .. " one 8x8")
        device_against_host({ 2, 1, 1 }, dtype, dtype .. " 2 x 1x1")
        device_against_host({ 2, 3, 4, 4 }, dtype, dtype .. " (2,3,4,4)")
      end)

    H.gpu_it(dtype .. ": device views and broadcast batches against the host", function()
      local h = well({ 100, 6, 6 }, dtype)
      local last = cuarr.asarray(h:transpose(2, 3, 1):copy()):transpose(3, 1, 2) -- batch last
      local f = cuarr.asarray(h):copy("F")
      local t = tol(dtype, 6) * 10
      local hdet, hinv = cpu.linalg.det(h), cpu.linalg.inv(h)
      close_to_host(cuarr.linalg.det(last), hdet, t, "det of a batch-last view")
      close_to_host(cuarr.linalg.inv(last), hinv, t, "inv of a batch-last view")
      close_to_host(cuarr.linalg.det(f), hdet, t, "det of an F-ordered batch")
      close_to_host(cuarr.linalg.inv(f:swapaxes(2, 3)), hinv:swapaxes(2, 3):copy(), t,
        "inv of its transposes")
      local sp = spd({ 100, 6, 6 }, dtype)
      close_to_host(cuarr.linalg.cholesky(cuarr.asarray(sp):copy("F")), cpu.linalg.cholesky(sp),
        t * 4, "cholesky of an F-ordered batch")
      local hb = rhs({ 4, 1, 6, 2 }, dtype)
      local ha = well({ 1, 5, 6, 6 }, dtype)
      close_to_host(cuarr.linalg.solve(cuarr.asarray(ha), cuarr.asarray(hb)),
        cpu.linalg.solve(ha, hb), t, "solve (1,5,6,6) with (4,1,6,2)")
      local big = well({ 2, 1, 40, 40 }, dtype)
      local bb = rhs({ 3, 40, 2 }, dtype)
      close_to_host(cuarr.linalg.solve(cuarr.asarray(big), cuarr.asarray(bb)),
        cpu.linalg.solve(big, bb), tol(dtype, 40) * 10, "solve (2,1,40,40) with (3,40,2)")
    end)
  end

  -- A batch with one singular matrix (a zero row or column, exactly singular whichever way it
  -- is factored): inv and solve raise, det is 0 for that one and right for the rest; cholesky
  -- raises when one matrix is not positive definite.
  local function one_singular(shape, which, what, column)
    local n = shape[#shape]
    local h = well(shape)
    local at = { table.unpack(which) }
    at[#at + 1] = 2
    local zero = { table.unpack(at) }
    if column then table.insert(zero, #zero, {}) end
    h[zero] = 0
    local d = cuarr.asarray(h)
    local before = values(d)
    local det = values(cuarr.linalg.det(d))
    local want = values(cpu.linalg.det(h))
    local flat_at = #which == 1 and which[1] or (which[1] - 1) * shape[2] + which[2]
    for i, w in ipairs(want) do
      if i == flat_at then
        assert.are.equal(0.0, det[i], what .. ": det of the singular matrix")
        assert.are.equal(0.0, w, what .. ": the host's det of it")
      else
        within(det[i], w, tol("float64", n) * 10, what .. ": det " .. i)
      end
    end
    local s, l = cuarr.linalg.slogdet(d)
    s, l = values(s), values(l)
    assert.are.same({ 0.0, -math.huge }, { s[flat_at], l[flat_at] }, what .. ": slogdet")
    local err = H.raises("LinAlgError", cuarr.linalg.inv, d)
    assert.is_truthy(err.message:find("singular", 1, true), err.message)
    H.raises("LinAlgError", cuarr.linalg.solve, d, cuarr.ones({ n }))
    H.raises("LinAlgError", cuarr.linalg.solve, d, cuarr.ones({ n, 2 }))
    local hs = spd(shape)
    hs[at] = hs[at] * -1
    local ds = cuarr.asarray(hs)
    H.raises("LinAlgError", cuarr.linalg.cholesky, ds)
    H.raises("LinAlgError", cuarr.linalg.cholesky, ds, { upper = true })
    assert.are.same(before, values(d), what .. ": a unchanged")
    assert.are.same(values(hs), values(ds), what .. ": the cholesky input unchanged")
    -- the regular ones alone still work
    local first = { table.unpack(which) }
    first[#first] = first[#first] == 1 and 2 or 1
    check_inv(cuarr, d[first], what .. ": a regular matrix of the batch")
  end

  H.gpu_it("a batch of 100 8x8 with one singular matrix (the batched routines)", function()
    one_singular({ 100, 8, 8 }, { 37 }, "100 x 8x8, #37 singular")
    one_singular({ 100, 8, 8 }, { 1 }, "100 x 8x8, #1 singular", true)
    one_singular({ 100, 8, 8 }, { 100 }, "100 x 8x8, #100 singular")
    one_singular({ 4, 5, 3, 3 }, { 2, 4 }, "(4,5,3,3), {2,4} singular", true)
  end)

  H.gpu_it("a stack of 40x40 with one singular matrix, and single ones (cuSOLVER)", function()
    one_singular({ 3, 40, 40 }, { 2 }, "3 x 40x40, #2 singular")
    one_singular({ 3, 40, 40 }, { 3 }, "3 x 40x40, #3 singular", true)
    local z = cuarr.zeros({ 40, 40 })
    assert.are.equal(0.0, cuarr.linalg.det(z):item())
    H.raises("LinAlgError", cuarr.linalg.inv, z)
    H.raises("LinAlgError", cuarr.linalg.cholesky, z)
    for _, zero in ipairs { { 7 }, { {}, 150 } } do
      local h = well({ 200, 200 })
      h[zero] = 0
      local d = cuarr.asarray(h)
      assert.are.equal(0.0, cuarr.linalg.det(d):item(), "200x200 with a zero row or column")
      H.raises("LinAlgError", cuarr.linalg.inv, d)
      H.raises("LinAlgError", cuarr.linalg.solve, d, cuarr.ones({ 200 }))
    end
    local one = cuarr.asarray(cpu.array({ { 1, 2 }, { 2, 4 } }))
    H.raises("LinAlgError", cuarr.linalg.inv, one)
  end)
end)
