-- cuarr.linalg.norm and cuarr.cpu.linalg.norm, NumPy's numpy.linalg.norm: vector norms (ord
-- nil/2, 1, inf, -inf, 0, other p) of 1-D arrays and along one axis, matrix norms (nil/'fro',
-- 1, -1, inf, -inf) of 2-D arrays and along two axes, keepdims, the dtypes of the results
-- (integers give float64), values that would overflow or underflow when squared in float32 or
-- float16, NaN and infinities, empty inputs, the SVD norms (2, -2, 'nuc') and the errors.  References computed in Lua (spec/support/reduce_ref.lua); device results are also
-- compared with the host's.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.reduce_ref"
local cuarr = H.cuarr

local ipairs, type, tostring, error = ipairs, type, tostring, error
local abs, huge, sqrt = math.abs, math.huge, math.sqrt
local fmt, concat = string.format, table.concat
local values = A.values

local NAN, INF = 0 / 0, huge

-- ---------------------------------------------------------------- helpers

local function result_dtype(dt)
  if R.is_float(dt) then return dt end
  return "float64"
end

-- The tolerance of a norm of n values in dtype dt with value v: float16 is computed in
-- float32 and rounded; p-norms go through pow twice.
local function tol(dt, n, v)
  local c = dt == "float16" and "float32" or (R.is_float(dt) and dt or "float64")
  return (4 * n + 16) * R.UNIT[c] * abs(v) + 2 * R.UNIT[result_dtype(dt)] * abs(v) + 1e-300
end

local function close(got, want, t)
  if want ~= want then return got ~= got end
  if want == INF or want == -INF then return got == want end
  return abs(got - want) <= t
end

local function ord_str(ord)
  if ord == INF then return "inf" end
  if ord == -INF then return "-inf" end
  return tostring(ord)
end

-- The norm of ref (a reference array) for ord along axis (nil, integer, pair) with keepdims,
-- in Lua: a reference array of results.
local function ref_norm(ref, ord, axis, keepdims)
  local nd = #ref.shape
  local axes
  if axis == nil then
    axes = {}
    for d = 1, nd do axes[d] = d end
  elseif type(axis) == "table" then
    axes = {}
    for i, k in ipairs(axis) do axes[i] = k < 0 and nd + 1 + k or k end
  else
    axes = { axis < 0 and nd + 1 + axis or axis }
  end
  local reduced = {}
  for _, d in ipairs(axes) do reduced[d] = true end
  local kept, kept_shape, out_shape = {}, {}, {}
  for d = 1, nd do
    if not reduced[d] then
      kept[#kept + 1] = d
      kept_shape[#kept_shape + 1] = ref.shape[d]
      out_shape[#out_shape + 1] = ref.shape[d]
    elseif keepdims then
      out_shape[#out_shape + 1] = 1
    end
  end
  local st, step = {}, 1
  for d = nd, 1, -1 do
    st[d] = step
    step = step * ref.shape[d]
  end
  local data, tols = {}, {}
  local matrix = #axes == 2 or (axis == nil and nd == 2 and ord ~= nil)
  local flat_l2 = axis == nil and ord == nil
  R.each_index(kept_shape, function(kidx)
    local base = 1
    for i, d in ipairs(kept) do base = base + (kidx[i] - 1) * st[d] end
    local v, n
    if matrix and not flat_l2 then
      local r, c = axes[1], axes[2]
      local rows = {}
      for i = 1, ref.shape[r] do
        rows[i] = {}
        for j = 1, ref.shape[c] do
          rows[i][j] = R.as_float(ref.data[base + (i - 1) * st[r] + (j - 1) * st[c]], ref.dtype)
        end
      end
      v = R.matrix_norm(rows, ord)
      n = ref.shape[r] * ref.shape[c]
    else
      local xs = {}
      local sub = {}
      for _, d in ipairs(axes) do sub[#sub + 1] = ref.shape[d] end
      R.each_index(sub, function(ridx)
        local off = base
        for i, d in ipairs(axes) do off = off + (ridx[i] - 1) * st[d] end
        xs[#xs + 1] = R.as_float(ref.data[off], ref.dtype)
      end)
      v = R.vector_norm(xs, ord)
      n = #xs
    end
    local rv = R.round_to(result_dtype(ref.dtype))(v)
    data[#data + 1] = rv
    tols[#data] = tol(ref.dtype, n, v)
  end)
  local r = R.new(out_shape, data, result_dtype(ref.dtype))
  r.tol = tols
  return r
end

-- norm on xp against the reference; on the device also against the host.
local function check_norm(xp, ref, a, ord, axis, keepdims, what)
  local want = ref_norm(ref, ord, axis, keepdims)
  local args = { a, ord, axis, keepdims and { keepdims = true } or nil }
  local r = xp.linalg.norm(args[1], args[2], args[3], args[4])
  what = fmt("norm(%s %s, ord=%s, axis=%s%s)%s", ref.dtype, "(" .. concat(ref.shape, ",") .. ")",
    ord_str(ord), type(axis) == "table" and "{" .. concat(axis, ",") .. "}" or tostring(axis),
    keepdims and ", keepdims" or "", what and " " .. what or "")
  local msg = R.mismatch(r.dtype, r.shape, values(r), want)
  if msg then error(what .. ": " .. msg, 2) end
  if xp == cuarr then
    local h = values(cuarr.linalg.norm(a:get(), ord, axis, keepdims and { keepdims = true } or nil))
    local d = values(r)
    for i = 1, #d do
      if not close(d[i], h[i], 2 * want.tol[i]) then
        error(fmt("%s: element %d: device %.17g, host %.17g", what, i, d[i], h[i]), 2)
      end
    end
  end
  return r
end

local VECTOR_ORDS = { nil, 2, 1, INF, -INF, 0, 3, 0.5, -1, -2.5 }
local N_VECTOR_ORDS = 10
local MATRIX_ORDS = { nil, "fro", 1, -1, INF, -INF }
local N_MATRIX_ORDS = 6

-- Values for norms: random in [-1, 1) for floats (no zeros, so that negative p are finite),
-- small nonzero integers otherwise.
local function norm_values(rng, dt, n)
  local v = R.values(rng, dt, n, R.is_float(dt) and "random" or "exact")
  for i = 1, n do
    if v[i] == 0 or v[i] == false then
      v[i] = dt == "bool" and true or (R.is_float(dt) and 0.25 or 1)
    end
  end
  return v
end

local DTYPES = { "float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint64",
                 "bool" }

-- ---------------------------------------------------------------- vectors

describe("linalg.norm of vectors", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("every ord on 1-D arrays of every dtype; integers give float64", function()
      for _, dt in ipairs(DTYPES) do
        local rng = H.rng(R.seed_of("norm/" .. dt))
        local ref = R.new({ 37 }, norm_values(rng, dt, 37), dt)
        local a = R.array(xp, ref)
        for k = 1, N_VECTOR_ORDS do
          local ord = VECTOR_ORDS[k]
          check_norm(xp, ref, a, ord, nil, false)
          check_norm(xp, ref, a, ord, 1, k % 2 == 0)
          check_norm(xp, ref, a, ord, -1, false)
        end
        local r = xp.linalg.norm(a)
        assert.are.equal(0, r.ndim)
        assert.are.equal(result_dtype(dt), r.dtype)
        assert.are.same({ 1 }, xp.linalg.norm(a, nil, nil, { keepdims = true }).shape)
      end
    end)

    b.it("along one axis of 2-D and 3-D arrays, with keepdims, on views too", function()
      local rng = H.rng(11)
      for _, dt in ipairs({ "float32", "float64", "int16", "float16" }) do
        local ref = R.new({ 3, 4, 5 }, norm_values(rng, dt, 60), dt)
        local a = R.array(xp, ref)
        for k = 1, N_VECTOR_ORDS do
          local ord = VECTOR_ORDS[k]
          for _, axis in ipairs({ 1, 2, 3, -1, -3 }) do
            check_norm(xp, ref, a, ord, axis, axis == 2)
          end
          check_norm(xp, R.T(ref), a.T, ord, 2, false, "transposed")
          local s = { { -1, 1, -1 }, {}, { 1, -1, 2 } }
          check_norm(xp, R.slice(ref, s), a[s], ord, 3, true, "sliced")
        end
        local m = R.new({ 6, 7 }, norm_values(rng, dt, 42), dt)
        local ma = R.array(xp, m)
        for k = 1, N_VECTOR_ORDS do
          check_norm(xp, m, ma, VECTOR_ORDS[k], 2, false)
          check_norm(xp, m, ma, VECTOR_ORDS[k], 1, true)
        end
      end
    end)

    b.it("known values", function()
      local v = xp.array({ 3.0, -4.0, 0.0 }, "float64")
      assert.are.equal(5.0, xp.linalg.norm(v):item())
      assert.are.equal(5.0, xp.linalg.norm(v, 2):item())
      assert.are.equal(7.0, xp.linalg.norm(v, 1):item())
      assert.are.equal(4.0, xp.linalg.norm(v, INF):item())
      assert.are.equal(0.0, xp.linalg.norm(v, -INF):item())
      assert.are.equal(2.0, xp.linalg.norm(v, 0):item())
      assert(abs(xp.linalg.norm(v, 3):item() - (91.0) ^ (1 / 3)) < 1e-14)
      assert.are.equal(0.0, xp.linalg.norm(v, -1):item()) -- 1/0 = inf, inf^-1 = 0
      local i = xp.array({ 3, 4 }, "int32")
      local r = xp.linalg.norm(i)
      assert.are.equal("float64", r.dtype)
      assert.are.equal(5.0, r:item())
      -- the options table in the ord position
      local m = xp.array({ { 3.0, 4.0 }, { 6.0, 8.0 } }, "float32")
      local rows = xp.linalg.norm(m, { axis = 2, keepdims = true })
      assert.are.same({ 2, 1 }, rows.shape)
      A.check_equal(rows:totable(), { { 5.0 }, { 10.0 } }, "rows")
      A.check_equal(xp.linalg.norm(m, { ord = 1, axis = 1 }):totable(), { 9.0, 12.0 }, "ord=1")
      -- an N-D array with no axis and no ord: the 2-norm of everything
      local t = xp.ones({ 2, 2, 4 }, "float32")
      assert.are.equal(4.0, xp.linalg.norm(t):item())
      assert.are.same({ 1, 1, 1 }, xp.linalg.norm(t, nil, nil, { keepdims = true }).shape)
    end)
  end
end)

-- ---------------------------------------------------------------- matrices

describe("linalg.norm of matrices", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("'fro', 1, -1, inf, -inf of 2-D arrays and along two axes", function()
      for _, dt in ipairs(DTYPES) do
        local rng = H.rng(R.seed_of("matrix/" .. dt))
        local ref = R.new({ 5, 7 }, norm_values(rng, dt, 35), dt)
        local a = R.array(xp, ref)
        for k = 1, N_MATRIX_ORDS do
          local ord = MATRIX_ORDS[k]
          if ord ~= nil then check_norm(xp, ref, a, ord, nil, false) end
          check_norm(xp, ref, a, ord, { 1, 2 }, k % 2 == 0)
          check_norm(xp, ref, a, ord, { 2, 1 }, false)
          check_norm(xp, ref, a, ord, { -1, -2 }, true)
          check_norm(xp, R.T(ref), a.T, ord, { 1, 2 }, false, "transposed")
        end
        local c = R.new({ 3, 4, 5 }, norm_values(rng, dt, 60), dt)
        local ca = R.array(xp, c)
        for k = 1, N_MATRIX_ORDS do
          local ord = MATRIX_ORDS[k]
          for _, axis in ipairs({ { 1, 3 }, { 3, 2 }, { 2, 1 }, { -1, 1 } }) do
            check_norm(xp, c, ca, ord, axis, axis[1] == 3)
          end
        end
      end
    end)

    b.it("known values and keepdims shapes", function()
      local m = xp.array({ { 1.0, -2.0 }, { -3.0, 4.0 } }, "float64")
      assert.are.equal(sqrt(30.0), xp.linalg.norm(m):item())
      assert.are.equal(sqrt(30.0), xp.linalg.norm(m, "fro"):item())
      assert.are.equal(6.0, xp.linalg.norm(m, 1):item())   -- max column sum
      assert.are.equal(4.0, xp.linalg.norm(m, -1):item())  -- min column sum
      assert.are.equal(7.0, xp.linalg.norm(m, INF):item()) -- max row sum
      assert.are.equal(3.0, xp.linalg.norm(m, -INF):item())
      assert.are.equal(7.0, xp.linalg.norm(m, 1, { 2, 1 }):item()) -- axes swapped: rows
      assert.are.same({ 1, 1 }, xp.linalg.norm(m, "fro", nil, { keepdims = true }).shape)
      assert.are.same({ 1, 1 }, xp.linalg.norm(m, INF, nil, { keepdims = true }).shape)
      local c = xp.ones({ 2, 3, 4 }, "float32")
      assert.are.same({ 1, 3, 1 }, xp.linalg.norm(c, 1, { 1, 3 }, { keepdims = true }).shape)
      assert.are.same({ 3 }, xp.linalg.norm(c, 1, { 1, 3 }).shape)
      A.check_equal(xp.linalg.norm(c, 1, { 3, 1 }):totable(), { 4.0, 4.0, 4.0 }, "{3, 1}")
    end)
  end
end)

-- ---------------------------------------------------------------- range and special values

describe("linalg.norm range and special values", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("float32 values whose squares overflow or underflow", function()
      local big = xp.full(4, 1e30, "float32")
      local r = xp.linalg.norm(big):item()
      local want = 2 * A.f32(1e30)
      assert(abs(r - want) <= 4e-7 * want, fmt("norm of 1e30s: %.9g, want %.9g", r, want))
      local tiny = xp.full(9, 1e-30, "float32")
      r = xp.linalg.norm(tiny):item()
      want = 3 * A.f32(1e-30)
      assert(abs(r - want) <= 4e-7 * want, fmt("norm of 1e-30s: %.9g, want %.9g", r, want))
      local rows = xp.array({ { 3e25, 4e25 }, { 3e-25, 4e-25 } }, "float32")
      local got = xp.linalg.norm(rows, nil, 2):totable()
      assert(abs(got[1] - 5e25) <= 1e-6 * 5e25 and abs(got[2] - 5e-25) <= 1e-6 * 5e-25,
        fmt("%.9g %.9g", got[1], got[2]))
      local fro = xp.linalg.norm(xp.full({ 3, 3 }, 2e20, "float32"), "fro"):item()
      assert(abs(fro - 6e20) <= 1e-6 * 6e20, fmt("fro %.9g", fro))
      -- float16 squares overflow at 256: computed in float32, rounded at the end
      local h = xp.array({ 300.0, 400.0 }, "float16")
      local n16 = xp.linalg.norm(h)
      assert.are.equal("float16", n16.dtype)
      assert.are.equal(500.0, n16:item())
      assert.are.equal(INF, xp.linalg.norm(xp.array({ 60000.0, 60000.0 }, "float16")):item())
      assert.are.equal(500.0, xp.linalg.norm(xp.array({ { 300.0 }, { 400.0 } }, "float16"), "fro"):item())
    end)

    b.it("NaN, infinities, zeros and empty inputs", function()
      for _, dt in ipairs(R.FLOATS) do
        local function nan(x) return x ~= x end
        local norm = xp.linalg.norm
        assert.is_true(nan(norm(xp.array({ 1.0, NAN }, dt)):item()), dt)
        assert.are.equal(INF, norm(xp.array({ 1.0, -INF }, dt)):item(), dt)
        assert.is_true(nan(norm(xp.array({ INF, NAN }, dt)):item()), dt)
        assert.is_true(nan(norm(xp.array({ NAN, INF }, dt)):item()), dt)
        assert.are.equal(INF, norm(xp.array({ 1.0, INF }, dt), 1):item())
        assert.are.equal(INF, norm(xp.array({ 1.0, -INF }, dt), INF):item())
        assert.are.equal(0.0, norm(xp.zeros(5, dt)):item(), dt)
        assert.are.equal(0.0, norm(xp.zeros({ 2, 3 }, dt), "fro"):item(), dt)
        assert.are.equal(0.0, norm(xp.zeros(0, dt)):item(), "empty " .. dt)
        assert.are.equal(0.0, norm(xp.zeros(0, dt), 1):item(), "empty " .. dt)
        assert.are.equal(0.0, norm(xp.zeros(0, dt), 0):item(), "empty " .. dt)
        A.check_equal(norm(xp.zeros({ 3, 0 }, dt), nil, 2):totable(), { 0.0, 0.0, 0.0 },
          "empty rows " .. dt)
        assert.are.same({ 0 }, norm(xp.zeros({ 0, 3 }, dt), nil, 2).shape)
        H.raises("ValueError", norm, xp.zeros(0, dt), INF) -- the max of nothing
        local m = values(norm(xp.array({ { 1.0, NAN }, { 3.0, 4.0 } }, dt), nil, 2))
        assert.is_true(nan(m[1]) and m[2] == 5.0, dt)
      end
    end)
  end
end)

-- ---------------------------------------------------------------- errors

describe("linalg.norm errors", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("the SVD norms: the largest, smallest and summed singular values", function()
      -- diag(3, 4) rotated by a permutation: singular values 4 and 3.
      local m = xp.array({ { 0, 3 }, { 4, 0 } }, "float32")
      local want = { [2] = 4, [-2] = 3, nuc = 7 }
      for _, ord in ipairs({ 2, -2, "nuc" }) do
        local r = xp.linalg.norm(m, ord)
        assert.are.equal("float32", r.dtype)
        assert(abs(r:item() - want[ord]) < 1e-5, tostring(ord) .. ": " .. r:item())
      end
      -- over axes 1 and 3 of a stack: each m[{{}, j, {}}] is a 2 x 4 matrix of ones (sigma
      -- sqrt(8) once), integers computing in float64
      local c = xp.ones({ 2, 3, 4 }, "int64")
      local n2 = xp.linalg.norm(c, 2, { 1, 3 }, { keepdims = true })
      assert.are.same({ 1, 3, 1 }, { n2.shape[1], n2.shape[2], n2.shape[3] })
      assert.are.equal("float64", n2.dtype)
      for _, v in ipairs(A.values(n2)) do assert(abs(v - sqrt(8)) < 1e-12, tostring(v)) end
      local nuc = xp.linalg.norm(c, "nuc", { 3, 1 })
      for _, v in ipairs(A.values(nuc)) do assert(abs(v - sqrt(8)) < 1e-12, tostring(v)) end
      local col = xp.linalg.norm(m, 2, 1):totable() -- the vector 2-norm along one axis
      assert(abs(col[1] - 4) < 1e-6, tostring(col[1]))
    end)

    b.it("bad ords, axes and arguments", function()
      local v = xp.arange(4, "float64")
      local m = xp.ones({ 2, 3 }, "float64")
      local c = xp.ones({ 2, 3, 4 }, "float64")
      local norm = xp.linalg.norm
      H.raises("ValueError", norm, v, "fro")        -- a matrix ord for a vector
      H.raises("ValueError", norm, v, "nuc")
      H.raises("ValueError", norm, m, 3)            -- no such matrix norm
      H.raises("ValueError", norm, m, 0)
      H.raises("ValueError", norm, m, "abc")
      H.raises("ValueError", norm, c, 1)            -- 3-D without axes
      H.raises("ValueError", norm, c, "fro")
      H.raises("ValueError", norm, c, nil, { 1, 2, 3 })
      H.raises("ValueError", norm, m, nil, { 1, 1 }) -- duplicate axes
      H.raises("ValueError", norm, m, nil, { 1, -2 })
      H.raises("IndexError", norm, m, nil, 3)
      H.raises("IndexError", norm, m, nil, -3)
      H.raises("IndexError", norm, m, nil, { 1, 3 })
      H.raises("ValueError", norm, m, nil, {})
      H.raises("TypeError", norm, m, nil, "x")
      H.raises("TypeError", norm, m, nil, 1.5)
      H.raises("TypeError", norm, m, true)
      H.raises("TypeError", norm, m, nil, nil, { keepdims = 1 })
      H.raises("TypeError", norm, { 1, 2 })
      H.raises("TypeError", norm, nil)
      H.raises("TypeError", norm, m, nil, nil, 5)
      A.check_equal(m:totable(), { { 1.0, 1.0, 1.0 }, { 1.0, 1.0, 1.0 } }, "unchanged")
    end)
  end
end)
