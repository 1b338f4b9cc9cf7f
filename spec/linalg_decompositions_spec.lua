-- cuarr.linalg qr, eigh, eigvalsh, svd (C, LAPACK and cuSOLVER) and lstsq, pinv, matrix_rank,
-- matrix_power (lua/cuarr/linalg.lua), host and device: each checked against its defining
-- identities (q r = a with q orthonormal and r upper triangular; v diag(w) v^T = a with w
-- ascending; u diag(s) vh = a with s descending; the normal equations; the Moore-Penrose
-- conditions; ranks of matrices built rank-deficient; powers against repeated matmul), in
-- float32 and float64, on stacks, views and empty matrices, the bad inputs with their error
-- kinds, and the device's results against the host's (up to the signs of vectors).
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr

local ipairs, abs, max, min = ipairs, math.abs, math.max, math.min

-- ---------------------------------------------------------------- helpers

local TOL = { float32 = 2e-4, float64 = 1e-11 }

-- A nested table of shape `shape` with values in [-1, 1), from a seeded generator.
local function random_table(shape, seed)
  local rng = H.rng(seed)
  local function level(d)
    local t = {}
    for i = 1, shape[d] do
      if d == #shape then t[i] = 2 * rng.float() - 1 else t[i] = level(d + 1) end
    end
    return t
  end
  return level(1)
end

local function random(xp, shape, dtype, seed)
  return xp.array(random_table(shape, seed or 7), dtype or "float64")
end

local function mT(xp, x) return xp.swapaxes(x, -1, -2) end

-- The largest |x - y| (0 for empty arrays), as a Lua number.
local function err(xp, x, y)
  local d = xp.absolute(xp.subtract(x, y))
  if d.size == 0 then return 0 end
  return xp.max(d):item()
end

local function eye_like(xp, n, dtype) return xp.eye(n, { dtype = dtype }) end

local function shape_of(x)
  local s = {}
  for i, n in ipairs(x.shape) do s[i] = n end
  return s
end

local function same_shape(x, want)
  assert.are.same(want, shape_of(x))
end

-- A mask of the entries strictly below the diagonal of r x c matrices.
local function below(xp, r, c)
  local t = {}
  for i = 1, r do
    t[i] = {}
    for j = 1, c do t[i][j] = i > j and 1 or 0 end
  end
  return xp.array(t, "float64")
end

-- Whether the values along the last axis never increase (or never decrease).
local function monotone(x, decreasing)
  local vals = H.flat(x:totable())
  local n = x.shape[x.ndim]
  for i = 1, #vals do
    if (i - 1) % n ~= 0 then
      local a, b = vals[i - 1], vals[i]
      if decreasing and b > a * (1 + 1e-6) + 1e-30 then return false end
      if not decreasing and b < a - 1e-6 * abs(a) - 1e-30 then return false end
    end
  end
  return true
end

-- A symmetric stack from the lower (or upper) triangle of a.
local function symmetrize(xp, a, upper)
  local t = a:astype("float64"):totable()
  local function fix(m)
    for i = 1, #m do
      for j = 1, #m do
        if (i < j) ~= (upper or false) and i ~= j then m[i][j] = m[j][i] end
      end
    end
  end
  local function walk(x, d)
    if d == 2 then return fix(x) end
    for _, sub in ipairs(x) do walk(sub, d - 1) end
  end
  walk(t, a.ndim)
  return xp.array(t, a.dtype)
end

local function check_qr(xp, a, dtype)
  local m, n = a.shape[a.ndim - 1], a.shape[a.ndim]
  local k = min(m, n)
  local tol = TOL[dtype] * 10
  for _, mode in ipairs { "reduced", "complete" } do
    local q, r = xp.linalg.qr(a, mode)
    assert.are.equal(dtype, q.dtype)
    assert.are.equal(dtype, r.dtype)
    local qc = mode == "complete" and m or k
    local rr = mode == "complete" and m or k
    assert.are.equal(qc, q.shape[q.ndim])
    assert.are.equal(rr, r.shape[r.ndim - 1])
    assert.is_true(err(xp, xp.matmul(q, r), a) < tol, mode .. ": q r ~= a")
    assert.is_true(err(xp, xp.matmul(mT(xp, q), q), eye_like(xp, qc, dtype)) < tol,
      mode .. ": q^T q ~= I")
    assert.are.equal(0, xp.max(xp.absolute(xp.multiply(r, below(xp, rr, n)))):item() + 0)
  end
  local r_only = xp.linalg.qr(a, "r")
  local _, r = xp.linalg.qr(a)
  assert.are.equal(0, err(xp, r_only, r))
end

local function check_eigh(xp, a, dtype, uplo)
  local w, v = xp.linalg.eigh(a, uplo)
  local s = symmetrize(xp, a, uplo == "U")
  assert.are.equal(dtype, w.dtype)
  assert.are.equal(dtype, v.dtype)
  local n = a.shape[a.ndim]
  local tol = TOL[dtype] * 10
  assert.is_true(err(xp, xp.matmul(xp.multiply(v, xp.expand_dims(w, -2)), mT(xp, v)), s) < tol)
  assert.is_true(err(xp, xp.matmul(mT(xp, v), v), eye_like(xp, n, dtype)) < tol)
  assert.is_true(monotone(w, false), "eigenvalues ascending")
  assert.is_true(err(xp, xp.linalg.eigvalsh(a, uplo), w) < tol)
end

local function check_svd(xp, a, dtype)
  local m, n = a.shape[a.ndim - 1], a.shape[a.ndim]
  local k = min(m, n)
  local tol = TOL[dtype] * 10
  local u, s, vh = xp.linalg.svd(a, { full_matrices = false })
  assert.are.equal(dtype, s.dtype)
  assert.are.equal(k, u.shape[u.ndim])
  assert.are.equal(k, vh.shape[vh.ndim - 1])
  assert.is_true(err(xp, xp.matmul(xp.multiply(u, xp.expand_dims(s, -2)), vh), a) < tol)
  assert.is_true(monotone(s, true), "singular values descending")
  assert.is_true(s.size == 0 or xp.min(s):item() >= 0, "singular values nonnegative")
  assert.is_true(err(xp, xp.matmul(mT(xp, u), u), eye_like(xp, k, dtype)) < tol)
  assert.is_true(err(xp, xp.matmul(vh, mT(xp, vh)), eye_like(xp, k, dtype)) < tol)
  local uf, sf, vhf = xp.linalg.svd(a)
  assert.are.equal(m, uf.shape[uf.ndim])
  assert.are.equal(n, vhf.shape[vhf.ndim - 1])
  assert.is_true(err(xp, xp.matmul(mT(xp, uf), uf), eye_like(xp, m, dtype)) < tol)
  assert.is_true(err(xp, xp.matmul(vhf, mT(xp, vhf)), eye_like(xp, n, dtype)) < tol)
  assert.is_true(err(xp, sf, s) < tol)
  local only = xp.linalg.svd(a, { compute_uv = false })
  assert.is_true(err(xp, only, s) < tol)
end

-- A stack of m x n matrices of rank r (sums of r outer products).
local function of_rank(xp, batch, m, n, r, dtype, seed)
  local sa, sb = {}, {}
  for i, e in ipairs(batch) do sa[i], sb[i] = e, e end
  sa[#sa + 1], sa[#sa + 2] = m, r
  sb[#sb + 1], sb[#sb + 2] = r, n
  return xp.matmul(random(xp, sa, dtype, seed), random(xp, sb, dtype, seed + 1))
end

-- ---------------------------------------------------------------- per backend

for _, b in ipairs(H.backends) do
  local xp = b.xp
  for _, dtype in ipairs { "float32", "float64" } do
    local tag = " (" .. dtype .. ")"

    b.it("qr of tall, wide, square and stacked matrices" .. tag, function()
      for i, shape in ipairs { { 4, 3 }, { 3, 4 }, { 3, 3 }, { 1, 5 }, { 5, 1 }, { 2, 3, 5, 3 },
                               { 2, 2, 4 }, { 40, 33 } } do
        check_qr(xp, random(xp, shape, dtype, 10 + i), dtype)
      end
    end)

    b.it("qr of non-contiguous inputs" .. tag, function()
      check_qr(xp, random(xp, { 5, 3 }, dtype, 3).T, dtype)
      check_qr(xp, mT(xp, random(xp, { 3, 4, 2 }, dtype, 4)), dtype)
    end)

    b.it("eigh and eigvalsh, both triangles" .. tag, function()
      for i, shape in ipairs { { 1, 1 }, { 4, 4 }, { 3, 5, 5 }, { 2, 1, 3, 3 }, { 33, 33 } } do
        local a = random(xp, shape, dtype, 20 + i)
        check_eigh(xp, a, dtype, nil)
        check_eigh(xp, a, dtype, "U")
        check_eigh(xp, a, dtype, "l")
      end
      check_eigh(xp, mT(xp, random(xp, { 2, 4, 4 }, dtype, 5)), dtype, "L")
    end)

    b.it("svd of tall, wide, square and stacked matrices" .. tag, function()
      for i, shape in ipairs { { 4, 3 }, { 3, 4 }, { 3, 3 }, { 1, 4 }, { 4, 1 }, { 2, 3, 5, 3 },
                               { 2, 4, 2 }, { 35, 40 } } do
        check_svd(xp, random(xp, shape, dtype, 30 + i), dtype)
      end
      check_svd(xp, random(xp, { 5, 3 }, dtype, 8).T, dtype)
      check_svd(xp, mT(xp, random(xp, { 2, 2, 4 }, dtype, 9)), dtype)
    end)

    -- On the device, stacks of more than one matrix of up to 32 x 32 take one batched Jacobi
    -- call (gesvdjBatched), whose U and V are laid out again as gesvd's by a kernel of ours;
    -- 33 x 33 and single matrices stay on gesvd.
    b.it("svd of stacks of small matrices" .. tag, function()
      for i, shape in ipairs { { 7, 1, 1 }, { 6, 2, 3 }, { 6, 3, 2 }, { 37, 8, 8 }, { 3, 32, 32 },
                               { 2, 33, 33 }, { 3, 5, 32 }, { 3, 32, 5 }, { 2, 3, 4, 7 },
                               { 1, 6, 6 }, { 5, 1, 9 }, { 5, 9, 1 } } do
        check_svd(xp, random(xp, shape, dtype, 400 + i), dtype)
      end
    end)

    b.it("svd of strided and transposed stacks, zero and rank-deficient matrices" .. tag,
      function()
        local big = random(xp, { 9, 7, 10 }, dtype, 420)
        check_svd(xp, big[{ { 1, -1, 2 }, { 1, -1, 2 }, {} }], dtype)
        check_svd(xp, big[{ { -1, 1, -3 }, {}, { 2, 9 } }], dtype)
        check_svd(xp, mT(xp, big), dtype)
        check_svd(xp, xp.swapaxes(big, 1, 3), dtype)
        -- a zero matrix and rank-deficient ones in one stack: s holds their zeros, u and vh stay
        -- orthonormal
        local r = of_rank(xp, { 11 }, 6, 5, 2, dtype, 421)
        r[{ 4 }] = 0
        check_svd(xp, r, dtype)
        local s = xp.linalg.svd(r, { compute_uv = false })
        assert.are.same({ 0, 0, 0, 0, 0 }, s[{ 4 }]:totable())
        local tail = s[{ {}, { 3, 5 } }]
        assert.is_true(xp.max(tail):item() < TOL[dtype] * 10, "rank 2: the rest near zero")
        local z = xp.zeros({ 4, 3, 3 }, dtype)
        check_svd(xp, z, dtype)
        assert.are.equal(0, xp.max(xp.linalg.svd(z, { compute_uv = false })):item() + 0)
      end)

    b.it("svd of empty stacks" .. tag, function()
      for _, shape in ipairs { { 0, 4, 4 }, { 0, 3, 5 }, { 2, 0, 3, 2 } } do
        local a = xp.zeros(shape, dtype)
        local m, n = shape[#shape - 1], shape[#shape]
        local k = min(m, n)
        local batch = { table.unpack(shape, 1, #shape - 2) }
        local function with(...)
          local t = { table.unpack(batch) }
          for _, e in ipairs { ... } do t[#t + 1] = e end
          return t
        end
        local u, s, vh = xp.linalg.svd(a)
        same_shape(u, with(m, m))
        same_shape(s, with(k))
        same_shape(vh, with(n, n))
        assert.are.equal(dtype, u.dtype)
        u, s, vh = xp.linalg.svd(a, { full_matrices = false })
        same_shape(u, with(m, k))
        same_shape(s, with(k))
        same_shape(vh, with(k, n))
        same_shape(xp.linalg.svd(a, { compute_uv = false }), with(k))
      end
    end)

    b.it("lstsq satisfies the normal equations" .. tag, function()
      local tol = TOL[dtype] * 50
      local a = random(xp, { 6, 3 }, dtype, 40)
      for _, rhs in ipairs { random(xp, { 6 }, dtype, 41), random(xp, { 6, 2 }, dtype, 42) } do
        local x, res, rank, s = xp.linalg.lstsq(a, rhs)
        assert.are.equal(dtype, x.dtype)
        assert.are.equal(3, rank)
        same_shape(s, { 3 })
        same_shape(x, rhs.ndim == 1 and { 3 } or { 3, 2 })
        local r = xp.subtract(xp.matmul(a, x), rhs)
        assert.is_true(err(xp, xp.matmul(a.T, r), xp.zeros(x.shape, dtype)) < tol)
        -- the residuals: squared norms per column (shape (1,) for a vector, as NumPy's)
        local want = rhs.ndim == 1 and xp.sum(xp.multiply(r, r), nil, { keepdims = true })
          or xp.sum(xp.multiply(r, r), 1)
        assert.is_true(err(xp, res, want) < tol)
      end
      -- rank-deficient: the minimum-norm solution, no residuals
      local d = of_rank(xp, {}, 5, 4, 2, dtype, 43)
      local rhs = random(xp, { 5 }, dtype, 44)
      local x, res, rank = xp.linalg.lstsq(d, rhs)
      assert.are.equal(2, rank)
      same_shape(res, { 0 })
      local r = xp.subtract(xp.matmul(d, x), rhs)
      assert.is_true(err(xp, xp.matmul(d.T, r), xp.zeros({ 4 }, dtype)) < tol)
      assert.is_true(err(xp, x, xp.matmul(xp.linalg.pinv(d, 1e-5), rhs)) < tol)
      -- wide: no residuals either
      local _, res2, rank2 = xp.linalg.lstsq(random(xp, { 2, 4 }, dtype, 45),
        random(xp, { 2 }, dtype, 46))
      assert.are.equal(2, rank2)
      same_shape(res2, { 0 })
    end)

    b.it("pinv meets the Moore-Penrose conditions" .. tag, function()
      local tol = TOL[dtype] * 100
      for i, a in ipairs { random(xp, { 4, 3 }, dtype, 50), random(xp, { 2, 3, 5 }, dtype, 51),
                           of_rank(xp, { 2 }, 5, 4, 2, dtype, 52),
                           random(xp, { 3, 4 }, dtype, 53).T } do
        local p = xp.linalg.pinv(a, dtype == "float32" and 1e-5 or nil)
        assert.are.equal(dtype, p.dtype, "case " .. i)
        local ap, pa = xp.matmul(a, p), xp.matmul(p, a)
        assert.is_true(err(xp, xp.matmul(ap, a), a) < tol, "A A+ A = A, case " .. i)
        assert.is_true(err(xp, xp.matmul(pa, p), p) < tol, "A+ A A+ = A+, case " .. i)
        assert.is_true(err(xp, mT(xp, ap), ap) < tol, "A A+ symmetric, case " .. i)
        assert.is_true(err(xp, mT(xp, pa), pa) < tol, "A+ A symmetric, case " .. i)
      end
    end)

    b.it("matrix_rank of rank-deficient matrices" .. tag, function()
      assert.are.equal(2, xp.linalg.matrix_rank(of_rank(xp, {}, 5, 6, 2, dtype, 60)))
      assert.are.equal(4, xp.linalg.matrix_rank(random(xp, { 4, 6 }, dtype, 61)))
      assert.are.equal(0, xp.linalg.matrix_rank(xp.zeros({ 3, 3 }, dtype)))
      local st = xp.linalg.matrix_rank(of_rank(xp, { 3 }, 4, 4, 3, dtype, 62))
      assert.are.same({ 3, 3, 3 }, st:totable())
      -- a tolerance above every singular value: rank 0
      assert.are.equal(0, xp.linalg.matrix_rank(random(xp, { 3, 3 }, dtype, 63), 100))
      assert.are.equal(1, xp.linalg.matrix_rank(xp.array({ 0, 2 }, dtype)))
      assert.are.equal(0, xp.linalg.matrix_rank(xp.zeros({ 3 }, dtype)))
    end)

    b.it("matrix_power against repeated matmul" .. tag, function()
      local a = xp.add(random(xp, { 2, 3, 3 }, dtype, 70), xp.multiply(eye_like(xp, 3, dtype), 2))
      local p = xp.empty({ 2, 3, 3 }, dtype)
      p[{}] = eye_like(xp, 3, dtype)
      for n = 0, 7 do
        local got = xp.linalg.matrix_power(a, n)
        assert.are.equal(dtype, got.dtype)
        assert.is_true(err(xp, got, p) < TOL[dtype] * 100 * max(1, xp.max(p):item()), "n=" .. n)
        p = xp.matmul(p, a)
      end
      local inv = xp.linalg.inv(a)
      local want = xp.matmul(xp.matmul(inv, inv), inv)
      assert.is_true(err(xp, xp.linalg.matrix_power(a, -3), want) < TOL[dtype] * 100)
      assert.is_true(err(xp, xp.linalg.matrix_power(a, -1), inv) < TOL[dtype])
    end)
  end

  b.it("integers and bools compute in float64", function()
    local a = xp.array({ { 2, 1 }, { 1, 3 }, { 0, 1 } }, "int32")
    local q, r = xp.linalg.qr(a)
    assert.are.equal("float64", q.dtype)
    assert.are.equal("float64", r.dtype)
    assert.is_true(err(xp, xp.matmul(q, r), a) < 1e-12)
    local sq = xp.array({ { 2, 1 }, { 1, 3 } }, "int64")
    local w = xp.linalg.eigvalsh(sq)
    assert.are.equal("float64", w.dtype)
    assert.is_true(abs(w:totable()[1] - (5 - math.sqrt(5)) / 2) < 1e-12)
    local _, s = xp.linalg.svd(xp.array({ { true, false }, { true, true } }))
    assert.are.equal("float64", s.dtype)
    assert.are.equal("float64", xp.linalg.pinv(a).dtype)
    local x = xp.linalg.lstsq(a, xp.array({ 1, 2, 3 }, "int32"))
    assert.are.equal("float64", x.dtype)
    -- matrix_power keeps integers
    local f = xp.linalg.matrix_power(xp.array({ { 1, 1 }, { 1, 0 } }, "int64"), 10)
    assert.are.equal("int64", f.dtype)
    assert.are.same({ { 89, 55 }, { 55, 34 } }, f:totable())
    assert.are.same({ { 1, 0 }, { 0, 1 } },
      xp.linalg.matrix_power(xp.array({ { 5, 1 }, { 1, 0 } }, "int64"), 0):totable())
  end)

  b.it("empty matrices", function()
    local q, r = xp.linalg.qr(xp.zeros({ 0, 3 }))
    same_shape(q, { 0, 0 })
    same_shape(r, { 0, 3 })
    q, r = xp.linalg.qr(xp.zeros({ 3, 0 }), "complete")
    assert.are.same(eye_like(xp, 3, "float64"):totable(), q:totable())
    same_shape(r, { 3, 0 })
    q, r = xp.linalg.qr(xp.zeros({ 0, 4, 2 }))
    same_shape(q, { 0, 4, 2 })
    same_shape(r, { 0, 2, 2 })
    local w, v = xp.linalg.eigh(xp.zeros({ 0, 0 }, "float32"))
    same_shape(w, { 0 })
    same_shape(v, { 0, 0 })
    assert.are.equal("float32", w.dtype)
    w, v = xp.linalg.eigh(xp.zeros({ 2, 0, 0 }))
    same_shape(w, { 2, 0 })
    same_shape(v, { 2, 0, 0 })
    local u, s, vh = xp.linalg.svd(xp.zeros({ 0, 3 }))
    same_shape(u, { 0, 0 })
    same_shape(s, { 0 })
    assert.are.same(eye_like(xp, 3, "float64"):totable(), vh:totable())
    u, s, vh = xp.linalg.svd(xp.zeros({ 2, 3, 0 }), { full_matrices = false })
    same_shape(u, { 2, 3, 0 })
    same_shape(s, { 2, 0 })
    same_shape(vh, { 2, 0, 0 })
    same_shape(xp.linalg.svd(xp.zeros({ 0, 2, 2 }), { compute_uv = false }), { 0, 2 })
    same_shape(xp.linalg.pinv(xp.zeros({ 2, 0, 3 })), { 2, 3, 0 })
    local x, res, rank, sv = xp.linalg.lstsq(xp.zeros({ 0, 2 }), xp.zeros({ 0 }))
    assert.are.same({ 0, 0 }, x:totable())
    same_shape(res, { 0 })
    assert.are.equal(0, rank)
    same_shape(sv, { 0 })
    same_shape(xp.linalg.matrix_power(xp.zeros({ 0, 0 }), 3), { 0, 0 })
  end)

  b.it("qr mode r, svd options and eigh's UPLO", function()
    local a = random(xp, { 5, 3 }, "float64", 90)
    same_shape(xp.linalg.qr(a, "r"), { 3, 3 })
    local q, r = xp.linalg.qr(a, "complete")
    same_shape(q, { 5, 5 })
    same_shape(r, { 5, 3 })
    local sym = symmetrize(xp, random(xp, { 3, 3 }, "float64", 91), false)
    assert.is_true(err(xp, xp.linalg.eigvalsh(sym, "U"), xp.linalg.eigvalsh(sym)) < 1e-12)
    local only = { xp.linalg.svd(a, { compute_uv = false }) }
    assert.are.equal(1, #only)
  end)

  b.it("bad inputs raise the right kinds", function()
    local L = xp.linalg
    local m = random(xp, { 3, 3 }, "float64", 95)
    local v = xp.zeros({ 3 })
    local rect = xp.zeros({ 2, 3 })
    H.raises("LinAlgError", L.qr, v)
    H.raises("LinAlgError", L.svd, v)
    H.raises("LinAlgError", L.eigh, v)
    H.raises("LinAlgError", L.eigh, rect)
    H.raises("LinAlgError", L.eigvalsh, rect)
    H.raises("TypeError", L.qr, xp.zeros({ 2, 2 }, "float16"))
    H.raises("TypeError", L.eigh, xp.zeros({ 2, 2 }, "float16"))
    H.raises("TypeError", L.svd, xp.zeros({ 2, 2 }, "float16"))
    H.raises("ValueError", L.qr, m, "raw")
    H.raises("ValueError", L.qr, m, "economic")
    H.raises("TypeError", L.qr, m, 3)
    H.raises("ValueError", L.eigh, m, "X")
    H.raises("ValueError", L.eigvalsh, m, "LU")
    H.raises("TypeError", L.eigh, m, true)
    H.raises("TypeError", L.svd, m, true)
    H.raises("ValueError", L.svd, m, { full = true })
    H.raises("TypeError", L.svd, m, { compute_uv = 1 })
    H.raises("TypeError", L.qr, { { 1, 2 }, { 3, 4 } })
    H.raises("TypeError", L.svd, "matrix")
    H.raises("TypeError", L.eigh, m, "L", "extra")
    H.raises("LinAlgError", L.lstsq, xp.zeros({ 2, 2, 2 }), xp.zeros({ 2 }))
    H.raises("LinAlgError", L.lstsq, m, xp.zeros({ 4 }))
    H.raises("LinAlgError", L.lstsq, m, xp.zeros({ 3, 1, 1 }))
    H.raises("TypeError", L.lstsq, m, v, "small")
    H.raises("TypeError", L.lstsq, m, xp.zeros({ 3 }, "float16"))
    H.raises("TypeError", L.lstsq, m, 3)
    H.raises("LinAlgError", L.pinv, v)
    H.raises("TypeError", L.pinv, m, {})
    H.raises("TypeError", L.pinv, xp.zeros({ 2, 2 }, "float16"))
    H.raises("ValueError", L.matrix_rank, xp.zeros({ 0, 3 }))
    H.raises("TypeError", L.matrix_rank, m, "tol")
    H.raises("LinAlgError", L.matrix_power, rect, 2)
    H.raises("LinAlgError", L.matrix_power, v, 2)
    H.raises("TypeError", L.matrix_power, m, 1.5)
    H.raises("TypeError", L.matrix_power, m, "2")
    H.raises("LinAlgError", L.matrix_power, xp.zeros({ 2, 2 }), -1)
  end)
end

-- ---------------------------------------------------------------- device against host

describe("device results against the host's", function()
  -- Columns (of the last axis pair) equal up to sign: |sum(x * y) over rows| = 1 each, for
  -- orthonormal columns.
  local function same_columns(dev, host, tol)
    local d = cuarr.asnumpy(dev)
    local xp = cuarr.cpu
    local dots = xp.absolute(xp.sum(xp.multiply(d, host), -2))
    return err(xp, dots, xp.ones(dots.shape)) < tol
  end

  for _, dtype in ipairs { "float32", "float64" } do
    local tol = TOL[dtype] * 100
    -- Stacks of matrices up to 32 x 32 take cuSOLVER's batched Jacobi solver in one call.
    H.gpu_it("eigh of stacks of small matrices agrees with LAPACK (" .. dtype .. ")", function()
      local cpu = cuarr.cpu
      for i, shape in ipairs { { 2000, 8, 8 }, { 3, 32, 32 }, { 5, 1, 1 }, { 4, 2, 3, 3 } } do
        local h = random(cpu, shape, dtype, 300 + i)
        local d = cuarr.asarray(h)
        for _, uplo in ipairs { "L", "U" } do
          check_eigh(cuarr, d, dtype, uplo)
          local wh = cpu.linalg.eigvalsh(h, uplo)
          assert.is_true(err(cpu, cuarr.asnumpy(cuarr.linalg.eigvalsh(d, uplo)), wh) < tol)
        end
      end
    end)

    -- ... and so do their SVDs (gesvdjBatched, whose U and V a kernel of ours lays out).
    -- Singular values against LAPACK's, the reduced vectors' columns up to sign, U and V^T of
    -- the full decomposition orthonormal, the singular values alone the same.
    local function svd_agrees(h, d, what)
      local cpu = cuarr.cpu
      local uh, sh, vhh = cpu.linalg.svd(h, { full_matrices = false })
      local ud, sd, vhd = cuarr.linalg.svd(d, { full_matrices = false })
      assert.is_true(err(cpu, cuarr.asnumpy(sd), sh) < tol, what .. ": s")
      assert.is_true(same_columns(ud, uh, tol), what .. ": u")
      assert.is_true(same_columns(mT(cuarr, vhd), mT(cpu, vhh), tol), what .. ": vh")
      local only = cuarr.linalg.svd(d, { compute_uv = false })
      assert.is_true(err(cpu, cuarr.asnumpy(only), sh) < tol, what .. ": s alone")
      local uf, sf, vhf = cuarr.linalg.svd(d)
      local m, n = d.shape[d.ndim - 1], d.shape[d.ndim]
      assert.is_true(err(cpu, cuarr.asnumpy(sf), sh) < tol, what .. ": full s")
      local first = uf:reshape({ -1, m, m })[{ {}, {}, { 1, min(m, n) } }]
      assert.is_true(same_columns(first, uh:reshape({ -1, m, min(m, n) }), tol), what .. ": full u")
      local hu, hv = cuarr.asnumpy(uf), cuarr.asnumpy(vhf)
      assert.is_true(err(cpu, cpu.matmul(mT(cpu, hu), hu), cpu.eye(m, { dtype = dtype })) < tol)
      assert.is_true(err(cpu, cpu.matmul(hv, mT(cpu, hv)), cpu.eye(n, { dtype = dtype })) < tol)
    end

    H.gpu_it("svd of stacks of small matrices agrees with LAPACK (" .. dtype .. ")", function()
      local cpu = cuarr.cpu
      for i, shape in ipairs { { 2000, 8, 8 }, { 37, 1, 1 }, { 9, 2, 3 }, { 9, 3, 2 },
                               { 5, 32, 32 }, { 3, 33, 33 }, { 6, 5, 32 }, { 6, 32, 5 },
                               { 2, 3, 4, 7 }, { 1, 8, 8 } } do
        local h = random(cpu, shape, dtype, 500 + i)
        svd_agrees(h, cuarr.asarray(h), "case " .. i)
      end
      -- views: strided, reversed and transposed stacks
      local h = random(cpu, { 9, 7, 10 }, dtype, 520)
      local d = cuarr.asarray(h)
      svd_agrees(h[{ { 1, -1, 2 }, { 1, -1, 2 }, {} }], d[{ { 1, -1, 2 }, { 1, -1, 2 }, {} }],
        "strided")
      svd_agrees(h[{ { -1, 1, -3 }, {}, { 2, 9 } }], d[{ { -1, 1, -3 }, {}, { 2, 9 } }], "reversed")
      svd_agrees(mT(cpu, h), mT(cuarr, d), "transposed")
      -- a zero matrix and rank-deficient ones: the singular values (their vectors for the zero
      -- singular values are any orthonormal basis)
      local r = of_rank(cpu, { 11 }, 6, 5, 2, dtype, 521)
      r[{ 4 }] = 0
      local sd = cuarr.linalg.svd(cuarr.asarray(r), { compute_uv = false })
      assert.is_true(err(cpu, cuarr.asnumpy(sd), cpu.linalg.svd(r, { compute_uv = false })) < tol)
      local ud, sd2, vhd = cuarr.linalg.svd(cuarr.asarray(r))
      assert.is_true(err(cpu, cuarr.asnumpy(sd2), cuarr.asnumpy(sd)) < tol)
      local back = cuarr.matmul(cuarr.multiply(ud[{ {}, {}, { 1, 5 } }],
        cuarr.expand_dims(sd2, -2)), vhd)
      assert.is_true(err(cpu, cuarr.asnumpy(back), r) < tol)
    end)

    -- More matrices than one gesvdjBatched call takes: the buffers of U and V it writes are
    -- bounded at 256 MiB a call, (32 * 32 + 31 * 31) float64 per 32 x 31 matrix, so 16 904 of
    -- them; every chunk's matrices land in their places.
    if dtype == "float64" then
      H.gpu_it("svd of a stack larger than one batched call (float64)", function()
        local cpu = cuarr.cpu
        local chunk = (256 << 20) // ((32 * 32 + 31 * 31) * 8)
        local count = chunk + 77
        local a = cuarr.random.default_rng(530):random({ count, 32, 31 }, "float64")
        local u, s, vh = cuarr.linalg.svd(a, { full_matrices = false })
        local back = cuarr.matmul(cuarr.multiply(u, cuarr.expand_dims(s, -2)), vh)
        assert.is_true(err(cuarr, back, a) < TOL.float64 * 100)
        assert.is_true(err(cuarr, cuarr.matmul(mT(cuarr, u), u), cuarr.eye(31)) < TOL.float64 * 100)
        assert.is_true(err(cuarr, cuarr.matmul(vh, mT(cuarr, vh)), cuarr.eye(31))
          < TOL.float64 * 100)
        local only = cuarr.linalg.svd(a, { compute_uv = false })
        assert.is_true(err(cuarr, only, s) < TOL.float64 * 100)
        for _, i in ipairs { 1, chunk, chunk + 1, count } do
          local sh = cpu.linalg.svd(cuarr.asnumpy(a[{ i }]), { compute_uv = false })
          assert.is_true(err(cpu, cuarr.asnumpy(s[{ i }]), sh) < tol, "matrix " .. i)
          assert.is_true(err(cpu, cuarr.asnumpy(only[{ i }]), sh) < tol, "matrix " .. i)
        end
      end)
    end

    H.gpu_it("qr, eigh, svd, lstsq, pinv, matrix_rank, matrix_power (" .. dtype .. ")", function()
      local cpu = cuarr.cpu
      for i, shape in ipairs { { 5, 3 }, { 3, 5 }, { 2, 4, 4 }, { 3, 40, 36 } } do
        local h = random(cpu, shape, dtype, 100 + i)
        local d = cuarr.asarray and cuarr.asarray(h) or cuarr.array(h:totable(), dtype)
        -- qr: r's rows agree up to sign, q's columns likewise (full column rank)
        local qd, rd = cuarr.linalg.qr(d)
        local qh, rh = cpu.linalg.qr(h)
        assert.is_true(err(cpu, cpu.absolute(cuarr.asnumpy(rd)), cpu.absolute(rh)) < tol)
        assert.is_true(same_columns(qd, qh, tol))
        -- svd: the same singular values, singular vectors up to sign
        local ud, sd, vhd = cuarr.linalg.svd(d, { full_matrices = false })
        local uh, sh, vhh = cpu.linalg.svd(h, { full_matrices = false })
        assert.is_true(err(cpu, cuarr.asnumpy(sd), sh) < tol)
        assert.is_true(same_columns(ud, uh, tol))
        assert.is_true(same_columns(mT(cuarr, vhd), mT(cpu, vhh), tol))
        local only = cuarr.linalg.svd(d, { compute_uv = false })
        assert.is_true(err(cpu, cuarr.asnumpy(only), sh) < tol)
        assert.is_true(err(cpu, cuarr.asnumpy(cuarr.linalg.pinv(d)), cpu.linalg.pinv(h)) < tol)
        local m, n = shape[#shape - 1], shape[#shape]
        if m == n then
          for _, uplo in ipairs { "L", "U" } do
            local wd, vd = cuarr.linalg.eigh(d, uplo)
            local wh, vh = cpu.linalg.eigh(h, uplo)
            assert.is_true(err(cpu, cuarr.asnumpy(wd), wh) < tol)
            assert.is_true(same_columns(vd, vh, tol))
            assert.is_true(err(cpu, cuarr.asnumpy(cuarr.linalg.eigvalsh(d, uplo)), wh) < tol)
          end
          local pd = cuarr.linalg.matrix_power(d, 3)
          assert.is_true(err(cpu, cuarr.asnumpy(pd), cpu.linalg.matrix_power(h, 3)) < tol)
        end
        if #shape == 2 then
          local bh = random(cpu, { m }, dtype, 200 + i)
          local bd = cuarr.array(bh:totable(), dtype)
          local xd, resd, rankd, svd = cuarr.linalg.lstsq(d, bd)
          local xh, resh, rankh, svh = cpu.linalg.lstsq(h, bh)
          assert.are.equal(rankh, rankd)
          assert.is_true(err(cpu, cuarr.asnumpy(xd), xh) < tol)
          assert.is_true(err(cpu, cuarr.asnumpy(resd), resh) < tol)
          assert.is_true(err(cpu, cuarr.asnumpy(svd), svh) < tol)
        end
        local kh, kd = cpu.linalg.matrix_rank(h), cuarr.linalg.matrix_rank(d)
        if #shape == 2 then
          assert.are.equal(kh, kd)
        else
          assert.are.same(kh:totable(), kd:get():totable())
        end
      end
      -- rank-deficient and empty matrices on the device
      assert.are.equal(2, cuarr.linalg.matrix_rank(of_rank(cuarr, {}, 6, 5, 2, dtype, 300)))
      local _, _, vh = cuarr.linalg.svd(cuarr.zeros({ 0, 3 }, dtype))
      assert.are.same(cuarr.cpu.eye(3, { dtype = dtype }):totable(), vh:get():totable())
      local q = cuarr.linalg.qr(cuarr.zeros({ 4, 0 }, dtype), "complete")
      assert.are.same(cuarr.cpu.eye(4, { dtype = dtype }):totable(), q:get():totable())
    end)
  end
end)
