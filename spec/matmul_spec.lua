-- cuarr.matmul, cuarr.diagonal and the matmul precision, on host arrays (system BLAS, plain loops
-- for the other dtypes) and device arrays (cuBLAS, #gpu).
--
-- Every product is checked against a plain-Lua reference: a triple loop over the operands'
-- :totable() values with NumPy's matmul rules (1-D operands as a row or a column whose axis is
-- dropped, batch axes broadcast), NumPy 2's promotion for the result dtype, booleans as an OR of
-- ANDs, integer sums wrapped round in the result dtype (the narrow dtypes wrapped in Lua) and
-- floats within a tolerance per dtype of the sum of |a_ik * b_kj|.  Cases: every dtype, every pair
-- of dtypes, 1-D/2-D/3-D/4-D operands and batch broadcasting, empty extents, extents off powers
-- of two, transposed, stepped, reversed, offset, column-major and newaxis (stride 0) operands,
-- `out` (C, F, transposed, stepped, batched, wider or narrower, 0-d, aliasing an operand).
-- diagonal: NumPy's values and views.  #gpu: the same on device arrays (H.backends), tf32, and
-- large products against the host's BLAS.  (cuarr has no broadcast_to: broadcast operands are
-- covered through batch broadcasting and newaxis views only.)
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local cpu = cuarr.cpu

-- ---------------------------------------------------------------- dtypes and promotion

local KIND = { bool = "b", int8 = "i", int16 = "i", int32 = "i", int64 = "i", uint8 = "u",
               uint16 = "u", uint32 = "u", uint64 = "u", float16 = "f", float32 = "f",
               float64 = "f" }
local BITS = { bool = 8, int8 = 8, int16 = 16, int32 = 32, int64 = 64, uint8 = 8, uint16 = 16,
               uint32 = 32, uint64 = 64, float16 = 16, float32 = 32, float64 = 64 }

-- NumPy 2's promotion of two dtypes (np.result_type of two arrays).
local function promote(x, y)
  if x == y then return x end
  if x == "bool" then return y end
  if y == "bool" then return x end
  local kx, ky = KIND[x], KIND[y]
  if kx == ky and kx ~= "f" or kx == "f" and ky == "f" then
    return BITS[x] >= BITS[y] and x or y
  end
  if kx == "f" or ky == "f" then
    local f, i = x, y
    if ky == "f" then f, i = y, x end
    local need = BITS[i] <= 8 and 16 or (BITS[i] <= 16 and 32 or 64)
    return "float" .. math.max(BITS[f], need)
  end
  local s, u = x, y
  if kx == "u" then s, u = y, x end
  if BITS[u] < BITS[s] then return s end
  if BITS[u] == 64 then return "float64" end
  return "int" .. 2 * BITS[u]
end

-- v (a Lua integer, taken mod 2^64) as a value of the integer dtype; uint64 stays as its int64
-- bits (device and host results are compared through astype("int64") for it).
local function wrap(v, dtype)
  local bits = BITS[dtype]
  if bits == 64 then return v end
  local m = 1 << bits
  v = v & (m - 1)
  if KIND[dtype] == "i" and v >= m >> 1 then v = v - m end
  return v
end

-- Relative tolerances (of the sum of |products|) for float results.
local RTOL = { float16 = 4e-3, float32 = 1e-5, float64 = 1e-12 }
local RTOL_TF32 = 5e-3

-- ---------------------------------------------------------------- operands

local function copy_shape(s)
  local t = {}
  for i = 1, #s do t[i] = s[i] end
  return t
end

local function prod(s)
  local n = 1
  for i = 1, #s do n = n * s[i] end
  return n
end

-- n values of dtype from a seeded generator: the full range of the narrow integers (so that
-- products wrap), +-2^40 for int64 and up to 2^62 for uint64 (their products wrap too), floats
-- in [-1, 1).
local function gen(dtype, n, rng)
  local t = {}
  for i = 1, n do
    local v
    if dtype == "bool" then
      v = rng.int(0, 2) > 0
    elseif dtype == "int64" then
      v = (rng.int(-2 ^ 20, 2 ^ 20) << 20) + rng.int(0, 2 ^ 20 - 1)
    elseif dtype == "uint64" then
      v = (rng.int(0, 2 ^ 31 - 1) << 31) | rng.int(0, 2 ^ 31 - 1)
    elseif KIND[dtype] == "i" then
      local h = 1 << (BITS[dtype] - 1)
      v = rng.int(-h, h - 1)
    elseif KIND[dtype] == "u" then
      v = rng.int(0, (1 << BITS[dtype]) - 1)
    else
      v = rng.float() * 2 - 1
    end
    t[i] = v
  end
  return t
end

local seed = 1
-- A host array of shape and dtype with fresh values.
local function host(dtype, shape)
  seed = seed + 1
  if prod(shape) == 0 then return cpu.zeros(shape, dtype) end
  return cpu.array(gen(dtype, prod(shape), H.rng(seed * 7919)), dtype):reshape(shape)
end

-- The array in xp's place: host arrays as they are, device ones copied up.
local function on(xp, h)
  if xp == cpu then return h end
  return cuarr.asarray(h)
end

local function make(xp, dtype, shape) return on(xp, host(dtype, shape)) end

-- An array's values in C order, exact: uint64 through its int64 bits; booleans as booleans.
local function values(x)
  if x.device ~= "cpu" then x = x:get() end
  if x.dtype == "uint64" then x = x:astype("int64") end
  return H.flat(x:totable())
end

-- ---------------------------------------------------------------- the reference

-- NumPy's matmul of flat C-order values: returns the result's values (in rdtype, floats
-- unrounded), the sum of |products| of each element and the result's shape.
local function ref_matmul(av, ashape, bv, bshape, adtype, bdtype)
  local rdtype = promote(adtype, bdtype)
  local as, bs = copy_shape(ashape), copy_shape(bshape)
  assert(#as >= 1 and #bs >= 1)
  local drop_m, drop_n = #as == 1, #bs == 1
  if drop_m then as = { 1, as[1] } end
  if drop_n then bs = { bs[1], 1 } end
  local m, k, n = as[#as - 1], as[#as], bs[#bs]
  assert(k == bs[#bs - 1], "the reference got mismatched operands")
  -- batch axes, right-aligned, and each operand's matrix stride along them (0: broadcast)
  local na, nb = #as - 2, #bs - 2
  local nd = math.max(na, nb)
  local batch, astr, bstr = {}, {}, {}
  local sa, sb = 1, 1
  for j = nd, 1, -1 do
    local ja, jb = j - (nd - na), j - (nd - nb)
    local ea, eb = ja >= 1 and as[ja] or 1, jb >= 1 and bs[jb] or 1
    assert(ea == eb or ea == 1 or eb == 1, "the reference got unbroadcastable batches")
    batch[j] = ea == 1 and eb or ea
    astr[j] = ea == 1 and 0 or sa
    bstr[j] = eb == 1 and 0 or sb
    sa, sb = sa * ea, sb * eb
  end
  local isbool, isint = rdtype == "bool", KIND[rdtype] == "i" or KIND[rdtype] == "u"
  local function num(v, dtype)
    if dtype == "bool" then v = v and 1 or 0 end
    if isint then return v end
    if dtype == "uint64" and v < 0 then return v + 2.0 ^ 64 end
    return v + 0.0
  end
  local want, mag = {}, {}
  for bi = 0, prod(batch) - 1 do
    local rem, ao, bo = bi, 0, 0
    for j = nd, 1, -1 do
      local idx = rem % batch[j]
      rem = rem // batch[j]
      ao, bo = ao + idx * astr[j], bo + idx * bstr[j]
    end
    ao, bo = ao * m * k, bo * k * n
    for i = 0, m - 1 do
      for c = 0, n - 1 do
        local s, abs_s = 0.0, 0.0
        if isbool then s = false elseif isint then s = 0 end
        for p = 0, k - 1 do
          local x, y = av[ao + i * k + p + 1], bv[bo + p * n + c + 1]
          if isbool then
            s = s or (x and y)
          else
            local t = num(x, adtype) * num(y, bdtype)
            s = s + t
            if not isint then abs_s = abs_s + math.abs(t) end
          end
        end
        if isint then s = wrap(s, rdtype) end
        want[#want + 1], mag[#mag + 1] = s, abs_s
      end
    end
  end
  local shape = {}
  for j = 1, nd do shape[#shape + 1] = batch[j] end
  if not drop_m then shape[#shape + 1] = m end
  if not drop_n then shape[#shape + 1] = n end
  return want, mag, shape, rdtype
end

-- The reference's values cast from dtype `from` to `to` (an out of another dtype).
local function cast(want, from, to)
  if from == to then return want end
  local t = {}
  for i, v in ipairs(want) do
    if to == "bool" then
      t[i] = v ~= 0 and v ~= false
    elseif from == "bool" then
      t[i] = KIND[to] == "f" and (v and 1.0 or 0.0) or (v and 1 or 0)
    elseif KIND[to] == "f" then
      t[i] = v + 0.0
    else
      assert(KIND[from] ~= "f", "no float to integer casts in these cases")
      t[i] = wrap(v, to)
    end
  end
  return t
end

-- Values against the reference: exact for bool and integers, floats within rtol * mag.
local function compare(got, want, mag, dtype, what, rtol)
  assert.are.equal(#want, #got, what .. ": the number of elements")
  local tol = KIND[dtype] == "f" and (rtol or RTOL[dtype]) or nil
  local atol = dtype == "float16" and 1e-6 or 0
  for i = 1, #want do
    local g, w = got[i], want[i]
    local ok
    if tol then
      ok = math.abs(g - w) <= tol * mag[i] + atol
    else
      ok = g == w and math.type(g) == math.type(w)
    end
    if not ok then
      error(("%s: element %d is %s, want %s (%s)"):format(what, i, tostring(g), tostring(w),
        dtype), 2)
    end
  end
end

-- r must be matmul(a, b): its dtype, shape and values.  opts: out (r written into it), rtol.
local function check(r, a, b, what, opts)
  opts = opts or {}
  local want, mag, shape, rdtype = ref_matmul(values(a), a.shape, values(b), b.shape, a.dtype,
    b.dtype)
  local dtype = rdtype
  if opts.out then
    assert.are.equal(opts.out, r, what .. ": matmul returns out")
    dtype = opts.out.dtype
    want = cast(want, rdtype, dtype)
    if opts.rtol == nil and KIND[dtype] == "f" and KIND[rdtype] == "f" then
      opts.rtol = math.max(RTOL[dtype], RTOL[rdtype])
    end
  end
  assert.are.equal(dtype, r.dtype, what .. ": dtype")
  assert.are.same(shape, copy_shape(r.shape), what .. ": shape")
  assert.are.equal(a.device == "cpu", r.device == "cpu", what .. ": the result's place")
  compare(values(r), want, mag, dtype, what, opts.rtol)
end

local function shape_str(s) return "(" .. table.concat(copy_shape(s), ",") .. ")" end

-- ---------------------------------------------------------------- cases

-- name, a's shape, b's shape
local SHAPES = {
  { "1-D @ 1-D (a 0-d result)", { 13 }, { 13 } },
  { "1-D @ 2-D", { 7 }, { 7, 5 } },
  { "2-D @ 1-D", { 7, 13 }, { 13 } },
  { "2-D @ 2-D, 7x13 @ 13x5", { 7, 13 }, { 13, 5 } },
  { "2-D @ 2-D, powers of two", { 8, 16 }, { 16, 4 } },
  { "1x1 @ 1x1", { 1, 1 }, { 1, 1 } },
  { "an outer product (k = 1)", { 6, 1 }, { 1, 4 } },
  { "a long inner axis (k = 100)", { 2, 100 }, { 100, 3 } },
  { "3-D @ 2-D", { 3, 7, 13 }, { 13, 5 } },
  { "2-D @ 3-D", { 7, 13 }, { 4, 13, 5 } },
  { "3-D @ 3-D", { 4, 3, 5 }, { 4, 5, 2 } },
  { "1-D @ 3-D", { 5 }, { 3, 5, 2 } },
  { "3-D @ 1-D", { 3, 4, 5 }, { 5 } },
  { "(2,1,m,k) @ (3,k,n): batch broadcasting", { 2, 1, 3, 4 }, { 3, 4, 5 } },
  { "(1,3,m,k) @ (2,1,k,n): both batches broadcast", { 1, 3, 2, 4 }, { 2, 1, 4, 3 } },
  { "(3,1,m,k) @ (1,k,n): extents 1 on both sides", { 3, 1, 2, 3 }, { 1, 3, 2 } },
  { "4-D @ 4-D batch 1 x 1", { 1, 1, 2, 2 }, { 1, 1, 2, 2 } },
  { "m = 0", { 0, 4 }, { 4, 3 } },
  { "n = 0", { 3, 4 }, { 4, 0 } },
  { "k = 0: zeros", { 3, 0 }, { 0, 4 } },
  { "1-D @ 1-D with k = 0: a 0-d zero", { 0 }, { 0 } },
  { "1-D @ 2-D with k = 0: zeros", { 0 }, { 0, 3 } },
  { "an empty batch", { 0, 2, 3 }, { 3, 2 } },
  { "an empty batch broadcast", { 0, 1, 2, 3 }, { 4, 3, 2 } },
  { "a batch of 3 with k = 0", { 3, 2, 0 }, { 0, 2 } },
}

describe("cuarr.matmul", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    for _, dtype in ipairs(H.dtypes) do
      b.it(dtype .. " @ " .. dtype .. ": every shape against the Lua reference", function()
        for _, s in ipairs(SHAPES) do
          local x, y = make(xp, dtype, s[2]), make(xp, dtype, s[3])
          local what = dtype .. " " .. s[1]
          check(xp.matmul(x, y), x, y, what)
          check(x:matmul(y), x, y, what .. " (method)")
        end
      end)
    end


    for _, left in ipairs(H.dtypes) do
      b.it(left .. " @ every dtype: NumPy 2's result dtype and values", function()
        for _, right in ipairs(H.dtypes) do
          local what = left .. " @ " .. right
          local x, y = make(xp, left, { 3, 5 }), make(xp, right, { 5, 2 })
          local r = xp.matmul(x, y)
          assert.are.equal(promote(left, right), r.dtype, what)
          local one = { { 1, 1 }, { 1, 1 } }
          assert.are.equal((x[one] + y[one]).dtype, r.dtype, what .. ": as a + b promotes")
          check(r, x, y, what)
          local v, w = make(xp, right, { 3 }), make(xp, right, { 5 })
          check(xp.matmul(v, x), v, x, right .. " 1-D @ " .. left .. " 2-D")
          check(xp.matmul(x, w), x, w, left .. " 2-D @ " .. right .. " 1-D")
          local p, q = make(xp, left, { 2, 1, 3, 5 }), make(xp, right, { 4, 5, 2 })
          check(xp.matmul(p, q), p, q, what .. " with batches broadcast")
          local e, f = make(xp, left, { 3, 0 }), make(xp, right, { 0, 2 })
          check(xp.matmul(e, f), e, f, what .. " with k = 0")
        end
      end)
    end

    b.it("integer sums wrap round in the result dtype, as NumPy's", function()
      -- 100 * 100 * 2 = 20000 wraps to 32 in int8; uint8 255 * 255 + 1 = 65026 -> 2
      local i8 = on(xp, cpu.array({ { 100, 100 } }, "int8"))
      local r = xp.matmul(i8, i8.T)
      assert.are.equal("int8", r.dtype)
      assert.are.same({ 32 }, values(r))
      local u8 = on(xp, cpu.array({ { 255, 1 } }, "uint8"))
      assert.are.same({ 2 }, values(xp.matmul(u8, u8.T)))
      local i64 = on(xp, cpu.array({ math.maxinteger, 2 }, "int64"))
      assert.are.same({ math.maxinteger * math.maxinteger + 4 }, values(xp.matmul(i64, i64)))
      local u64 = on(xp, cpu.array({ 1 << 62, 4 }, "uint64"))
      -- 2^124 + 16 mod 2^64 = 16
      assert.are.same({ 16 }, values(xp.matmul(u64, u64)))
      -- int8 @ uint8 is int16: no wrap at int8's range
      local m = xp.matmul(on(xp, cpu.array({ -128, 127 }, "int8")),
        on(xp, cpu.array({ 255, 255 }, "uint8")))
      assert.are.equal("int16", m.dtype)
      assert.are.same({ -255 }, values(m))
    end)

    b.it("bool @ bool is an OR of ANDs; bool @ int counts", function()
      local t = on(xp, cpu.array({ { true, false, true }, { false, false, false } }, "bool"))
      local u = on(xp, cpu.array({ { true, false }, { true, true }, { true, false } }, "bool"))
      local r = xp.matmul(t, u)
      assert.are.equal("bool", r.dtype)
      assert.are.same({ true, false, false, false }, values(r))
      local c = xp.matmul(t, u:astype("int32"))
      assert.are.equal("int32", c.dtype)
      assert.are.same({ 2, 0, 0, 0 }, values(c))
    end)

    b.it("float16 products sum in float32: 2048 + 1 + 1 is 2050, not 2048", function()
      -- float16 sums would round 2048 + 1 back to 2048 each time
      local a = on(xp, cpu.array({ 2048, 1, 1 }, "float16"))
      local o = on(xp, cpu.array({ 1, 1, 1 }, "float16"))
      local r = xp.matmul(a, o)
      assert.are.equal("float16", r.dtype)
      assert.are.same({ 2050 }, values(r))
      local big = on(xp, cpu.full({ 1, 64 }, 1000, "float16"))
      local v = values(xp.matmul(big, big.T))
      assert.are.same({ math.huge }, v)
    end)
  end
end)

-- ---------------------------------------------------------------- layouts

-- 2-D operands of logical shape (r, c), each made from the arrays mk(shape) gives.
local LAYOUTS = {
  { "C", function(mk, r, c) return mk({ r, c }) end },
  { "transposed", function(mk, r, c) return mk({ c, r }).T end },
  { "F", function(mk, r, c) return mk({ r, c }):copy("F") end },
  { "rows stepped", function(mk, r, c) return mk({ 2 * r, c })[{ { 1, 2 * r, 2 }, {} }] end },
  { "columns stepped", function(mk, r, c)
    return mk({ r, 2 * c })[{ {}, { 2, 2 * c, 2 } }]
  end },
  { "reversed", function(mk, r, c) return mk({ r, c })[{ { r, 1, -1 }, { c, 1, -1 } }] end },
  { "an offset block", function(mk, r, c)
    return mk({ r + 1, c + 2 })[{ { 2, r + 1 }, { 2, c + 1 } }]
  end },
  { "transposed and stepped", function(mk, r, c)
    return mk({ 2 * c, r })[{ { 1, 2 * c, 2 }, {} }].T
  end },
}

-- 1-D operands of length k.
local LAYOUTS_1D = {
  { "contiguous", function(mk, k) return mk({ k }) end },
  { "stepped", function(mk, k) return mk({ 3 * k })[{ { 2, 3 * k, 3 } }] end },
  { "reversed", function(mk, k) return mk({ k })[{ { k, 1, -1 } }] end },
  { "a column", function(mk, k) return mk({ k, 3 })[{ {}, 2 }] end },
}

-- 3-D operands of logical shape (n, r, c).
local LAYOUTS_3D = {
  { "C", function(mk, n, r, c) return mk({ n, r, c }) end },
  { "last two swapped", function(mk, n, r, c) return mk({ n, c, r }):swapaxes(2, 3) end },
  { "batch last", function(mk, n, r, c) return mk({ r, c, n }):transpose(3, 1, 2) end },
  { "batch stepped", function(mk, n, r, c) return mk({ 2 * n, r, c })[{ { 1, 2 * n, 2 } }] end },
  { "F", function(mk, n, r, c) return mk({ n, r, c }):copy("F") end },
}

local LAYOUT_DTYPES = { "float64", "float32", "float16", "int16", "int64", "uint8", "bool" }

describe("cuarr.matmul of non-contiguous operands", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    for _, dtype in ipairs(LAYOUT_DTYPES) do
      local function mk(shape) return make(xp, dtype, shape) end

      b.it(dtype .. ": every pair of 2-D layouts, 7x13 @ 13x5", function()
        for _, la in ipairs(LAYOUTS) do
          for _, lb in ipairs(LAYOUTS) do
            local x, y = la[2](mk, 7, 13), lb[2](mk, 13, 5)
            assert.are.same({ 7, 13 }, copy_shape(x.shape))
            assert.are.same({ 13, 5 }, copy_shape(y.shape))
            check(xp.matmul(x, y), x, y, ("%s: %s @ %s"):format(dtype, la[1], lb[1]))
          end
        end
      end)

      b.it(dtype .. ": 1-D views against 2-D layouts and each other", function()
        for _, lv in ipairs(LAYOUTS_1D) do
          for _, lm in ipairs(LAYOUTS) do
            local v, m = lv[2](mk, 6), lm[2](mk, 6, 4)
            check(xp.matmul(v, m), v, m, ("%s: 1-D %s @ %s"):format(dtype, lv[1], lm[1]))
            local m2, v2 = lm[2](mk, 4, 6), lv[2](mk, 6)
            check(xp.matmul(m2, v2), m2, v2, ("%s: %s @ 1-D %s"):format(dtype, lm[1], lv[1]))
          end
          for _, lw in ipairs(LAYOUTS_1D) do
            local v, w = lv[2](mk, 9), lw[2](mk, 9)
            check(xp.matmul(v, w), v, w, ("%s: 1-D %s @ 1-D %s"):format(dtype, lv[1], lw[1]))
          end
        end
      end)

      b.it(dtype .. ": 3-D layouts, batched and broadcast against 2-D layouts", function()
        for _, la in ipairs(LAYOUTS_3D) do
          for _, lb in ipairs(LAYOUTS_3D) do
            local x, y = la[2](mk, 3, 4, 5), lb[2](mk, 3, 5, 2)
            check(xp.matmul(x, y), x, y, ("%s: 3-D %s @ 3-D %s"):format(dtype, la[1], lb[1]))
          end
          for _, lb in ipairs(LAYOUTS) do
            local x, y = la[2](mk, 3, 4, 5), lb[2](mk, 5, 3)
            check(xp.matmul(x, y), x, y, ("%s: 3-D %s @ %s"):format(dtype, la[1], lb[1]))
            local p, q = lb[2](mk, 2, 4), la[2](mk, 3, 4, 5)
            check(xp.matmul(p, q), p, q, ("%s: %s @ 3-D %s"):format(dtype, lb[1], la[1]))
          end
          local bx = la[2](mk, 1, 4, 5)
          local by = mk({ 2, 3, 5, 2 }):swapaxes(1, 2)
          check(xp.matmul(bx, by), bx, by, dtype .. ": batch 1 " .. la[1] .. " @ (3,2,5,2)")
        end
      end)
    end

    b.it("extent-1 axes of stride 0 (newaxis views) as operands and outs", function()
      local na = cuarr.newaxis
      for _, dtype in ipairs { "float64", "float32", "float16", "int32", "bool" } do
        local v, w, m = make(xp, dtype, { 5 }), make(xp, dtype, { 3 }), make(xp, dtype, { 5, 3 })
        local row, col = v[{ na, {} }], v[{ {}, na }]
        check(xp.matmul(col, row), col, row, dtype .. " column @ row (an outer product)")
        check(xp.matmul(row, col), row, col, dtype .. " row @ column")
        check(xp.matmul(row, m), row, m, dtype .. " row @ M")
        check(xp.matmul(m.T, col), m.T, col, dtype .. " M.T @ column")
        local b3 = m[{ na, {}, {} }]
        check(xp.matmul(b3, w), b3, w, dtype .. " a newaxis batch (1,5,3) @ 1-D")
        local orow = xp.zeros({ 3 }, dtype)[{ na, {} }]
        check(xp.matmul(row, m, orow), row, m, dtype .. " into a newaxis row", { out = orow })
        local wcol = w[{ {}, na }]
        local ocol = xp.zeros({ 5 }, dtype)[{ {}, na }]
        check(xp.matmul(m, wcol, ocol), m, wcol, dtype .. " into a newaxis column",
          { out = ocol })
      end
    end)

    b.it("transposed views and their contiguous copies both match", function()
      for _, dtype in ipairs { "float32", "float64", "int32" } do
        local x, y = make(xp, dtype, { 13, 7 }).T, make(xp, dtype, { 5, 13 }).T
        local r1, r2 = xp.matmul(x, y), xp.matmul(x:copy(), y:copy())
        check(r1, x, y, dtype .. " transposed")
        check(r2, x, y, dtype .. " copied")
      end
    end)
  end

  it("larger host products (130x67 @ 67x129), with transposed operands [cpu]", function()
    for _, dtype in ipairs { "float64", "float32", "int32" } do
      local x, y = host(dtype, { 130, 67 }), host(dtype, { 129, 67 }).T
      check(cpu.matmul(x, y), x, y, dtype .. " 130x67 @ 67x129")
    end
  end)
end)

-- ---------------------------------------------------------------- out

describe("cuarr.matmul with out", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("C, F, transposed and stepped outs receive the product; matmul returns out", function()
      for _, dtype in ipairs { "float64", "float32", "float16", "int32", "uint16", "bool" } do
        local x, y = make(xp, dtype, { 7, 13 }), make(xp, dtype, { 13, 5 })
        local outs = {
          { "C", function() return xp.zeros({ 7, 5 }, dtype) end },
          { "F", function() return xp.zeros({ 7, 5 }, dtype, { order = "F" }) end },
          { "transposed", function() return xp.zeros({ 5, 7 }, dtype).T end },
        }
        for _, o in ipairs(outs) do
          local o1, o2 = o[2](), o[2]()
          check(xp.matmul(x, y, o1), x, y, dtype .. " into a " .. o[1] .. " out", { out = o1 })
          check(x:matmul(y, o2), x, y, dtype .. " method into " .. o[1], { out = o2 })
        end
        local base = xp.zeros({ 7, 10 }, dtype)
        local odd = base[{ {}, { 1, 10, 2 } }]
        check(xp.matmul(x, y, odd), x, y, dtype .. " into a stepped out", { out = odd })
        local zero = 0
        if dtype == "bool" then zero = false end
        for _, v in ipairs(values(base[{ {}, { 2, 10, 2 } }])) do
          assert.are.equal(zero, v, dtype .. ": the columns between a stepped out's")
        end
      end
    end)

    b.it("outs of every shape kind: 0-d, 1-D, batched, broadcast batches, empty", function()
      for _, s in ipairs(SHAPES) do
        local x, y = make(xp, "float64", s[2]), make(xp, "float64", s[3])
        local shape = select(3, ref_matmul(values(x), x.shape, values(y), y.shape, "float64",
          "float64"))
        local o = xp.full(shape, 7, "float64")
        check(xp.matmul(x, y, o), x, y, s[1] .. " into out", { out = o })
      end
    end)

    b.it("outs of another dtype: the result dtype's values cast (same_kind)", function()
      local cases = {
        { "float32", "float32", "float64" },
        { "float64", "float64", "float32" },
        { "float16", "float16", "float32" },
        { "int8", "int8", "int16" },   -- wrapped in int8, then widened
        { "int64", "int64", "int8" },  -- a narrowing integer cast wraps
        { "int32", "int32", "float64" },
        { "int16", "uint8", "int64" },
        { "uint8", "uint8", "int16" },
        { "bool", "bool", "int8" },
        { "bool", "bool", "float32" },
        { "int8", "float16", "float64" },
      }
      for _, c in ipairs(cases) do
        local what = ("%s @ %s into %s"):format(c[1], c[2], c[3])
        local x, y = make(xp, c[1], { 4, 9 }), make(xp, c[2], { 9, 3 })
        local o = xp.zeros({ 4, 3 }, c[3])
        check(xp.matmul(x, y, o), x, y, what, { out = o })
      end
    end)

    b.it("batched outs: axes reversed, batch stepped, of another dtype, k = 0", function()
      for _, dtype in ipairs { "float64", "float32", "int16", "bool" } do
        local x, y = make(xp, dtype, { 2, 1, 3, 4 }), make(xp, dtype, { 3, 4, 5 })
        local rev = xp.zeros({ 5, 3, 3, 2 }, dtype):transpose(4, 3, 2, 1)
        check(xp.matmul(x, y, rev), x, y, dtype .. " into a reversed-axes out", { out = rev })
        local base = xp.zeros({ 4, 3, 3, 5 }, dtype)
        local stepped = base[{ { 1, 4, 3 } }]
        check(xp.matmul(x, y, stepped), x, y, dtype .. " into a batch-stepped out",
          { out = stepped })
        local wide = xp.zeros({ 2, 3, 3, 5 }, "float64", { order = "F" })
        check(x:matmul(y, wide), x, y, dtype .. " into an F-ordered float64 out", { out = wide })
        local e, f = make(xp, dtype, { 3, 2, 0 }), make(xp, dtype, { 0, 4 })
        local filled = xp.ones({ 4, 2, 3 }, dtype):transpose(3, 2, 1)
        check(xp.matmul(e, f, filled), e, f, dtype .. " k = 0 into a transposed out",
          { out = filled })
      end
    end)

    b.it("an out that is an operand: the product is computed, then written", function()
      for _, dtype in ipairs { "float64", "float32", "int32", "int8" } do
        local x, y = make(xp, dtype, { 5, 5 }), make(xp, dtype, { 5, 5 })
        local x0, y0 = x:copy(), y:copy()
        check(xp.matmul(x, y, x), x0, y0, dtype .. " matmul(a, b, a)", { out = x })
        x = x0:copy()
        check(xp.matmul(x, y, y), x0, y0, dtype .. " matmul(a, b, b)", { out = y })
        y = y0:copy()
        check(xp.matmul(x, x, x), x0, x0, dtype .. " matmul(a, a, a)", { out = x })
        x = x0:copy()
        local xt = x.T
        check(x:matmul(y, xt), x0, y0, dtype .. " a:matmul(b, a.T)", { out = xt })
        -- an out overlapping a, one row down
        local base = make(xp, dtype, { 6, 5 })
        local top, bottom = base[{ { 1, 5 } }], base[{ { 2, 6 } }]
        local top0 = top:copy()
        check(xp.matmul(top, y0, bottom), top0, y0, dtype .. " out one row below a",
          { out = bottom })
        -- batched: (3,4,4) @ (4,4) into the 3-D operand
        local p = make(xp, dtype, { 3, 4, 4 })
        local q = make(xp, dtype, { 4, 4 })
        local p0 = p:copy()
        check(xp.matmul(p, q, p), p0, q, dtype .. " batched matmul(a, b, a)", { out = p })
        -- 1-D: v @ M into v
        local v, m = make(xp, dtype, { 5 }), make(xp, dtype, { 5, 5 })
        local v0 = v:copy()
        check(xp.matmul(v, m, v), v0, m, dtype .. " matmul(v, M, v)", { out = v })
        -- a broadcast operand that is also out: (1,4,4) @ (3,4,4) into the (3,4,4) one
        local s, t3 = make(xp, dtype, { 1, 4, 4 }), make(xp, dtype, { 3, 4, 4 })
        local t30 = t3:copy()
        check(xp.matmul(s, t3, t3), s, t30, dtype .. " broadcast batch into b", { out = t3 })
        -- out is a's transpose, a transposed view of its own buffer
        local sq = make(xp, dtype, { 4, 4 })
        local sq0 = sq:copy()
        local sqt = sq.T
        check(xp.matmul(sqt, sq, sqt), sq0.T, sq0, dtype .. " matmul(a.T, a, a.T)", { out = sqt })
      end
    end)
  end
end)

-- ---------------------------------------------------------------- diagonal

-- NumPy's diagonal of flat C-order values: the values and the shape (other axes, then the
-- diagonal's).  Axes 1-based, negative from the end.
local function ref_diagonal(vals, shape, offset, ax1, ax2)
  local nd = #shape
  if ax1 < 0 then ax1 = nd + 1 + ax1 end
  if ax2 < 0 then ax2 = nd + 1 + ax2 end
  local n1, n2 = shape[ax1], shape[ax2]
  local len
  if offset >= 0 then
    len = math.max(0, math.min(n1, n2 - offset))
  else
    len = math.max(0, math.min(n1 + offset, n2))
  end
  local rest, oshape = {}, {}
  for ax = 1, nd do
    if ax ~= ax1 and ax ~= ax2 then
      rest[#rest + 1] = ax
      oshape[#oshape + 1] = shape[ax]
    end
  end
  oshape[#oshape + 1] = len
  local str, s = {}, 1
  for ax = nd, 1, -1 do
    str[ax] = s
    s = s * shape[ax]
  end
  local out = {}
  for li = 0, prod(oshape) - 1 do
    local rem, idx = li, {}
    for j = #oshape, 1, -1 do
      idx[j] = rem % oshape[j]
      rem = rem // oshape[j]
    end
    local d = idx[#oshape]
    local off = 0
    for j, ax in ipairs(rest) do off = off + idx[j] * str[ax] end
    local i1, i2 = d, d + offset
    if offset < 0 then i1, i2 = d - offset, d end
    off = off + i1 * str[ax1] + i2 * str[ax2]
    out[li + 1] = vals[off + 1]
  end
  return out, oshape
end

local function check_diagonal(d, a, offset, ax1, ax2, what)
  local want, shape = ref_diagonal(values(a), copy_shape(a.shape), offset, ax1, ax2)
  assert.are.equal(a.dtype, d.dtype, what .. ": dtype")
  assert.are.same(shape, copy_shape(d.shape), what .. ": shape")
  assert.are.same(want, values(d), what .. ": values")
  if d.size > 0 then
    local xp = a.device == "cpu" and cpu or cuarr
    assert.is_true(xp.may_share_memory(a, d), what .. ": a view of a")
  end
end

describe("cuarr.diagonal", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp

    b.it("2-D: NumPy's diagonals for offsets in and past the matrix, every dtype", function()
      for _, dtype in ipairs(H.dtypes) do
        for _, shape in ipairs { { 4, 5 }, { 5, 4 }, { 3, 3 }, { 1, 6 } } do
          local a = make(xp, dtype, shape)
          for _, k in ipairs { 0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 10, -10 } do
            local what = ("%s %s offset %d"):format(dtype, shape_str(shape), k)
            check_diagonal(xp.diagonal(a, k), a, k, 1, 2, what)
            check_diagonal(a:diagonal(k), a, k, 1, 2, what .. " (method)")
            check_diagonal(a:diagonal(k, 1, 2), a, k, 1, 2, what .. " (axes 1, 2)")
            check_diagonal(a:diagonal(k, 2, 1), a, k, 2, 1, what .. " (axes 2, 1)")
            check_diagonal(a:diagonal(k, -1, -2), a, k, -1, -2, what .. " (axes -1, -2)")
          end
        end
      end
    end)

    b.it("defaults: offset 0, axes 1 and 2", function()
      local a = make(xp, "int32", { 3, 4, 5 })
      check_diagonal(xp.diagonal(a), a, 0, 1, 2, "diagonal(a)")
      check_diagonal(a:diagonal(), a, 0, 1, 2, "a:diagonal()")
      check_diagonal(a:diagonal(1), a, 1, 1, 2, "a:diagonal(1)")
      check_diagonal(a:diagonal(0, 3), a, 0, 3, 2, "a:diagonal(0, 3): axis2 defaults to 2")
    end)

    b.it("3-D and 4-D: every pair of axes, negative axes, offsets", function()
      local a = make(xp, "float64", { 2, 3, 4 })
      local pairs3 = { { 1, 2 }, { 2, 1 }, { 1, 3 }, { 3, 1 }, { 2, 3 }, { 3, 2 }, { -1, -2 },
                       { -3, -1 }, { 1, -1 }, { -2, 3 } }
      for _, p in ipairs(pairs3) do
        for _, k in ipairs { 0, 1, -1, 2, -2, 3 } do
          local what = ("(2,3,4) axes %d, %d offset %d"):format(p[1], p[2], k)
          check_diagonal(xp.diagonal(a, k, p[1], p[2]), a, k, p[1], p[2], what)
        end
      end
      local c = make(xp, "int16", { 2, 3, 4, 5 })
      for _, p in ipairs { { 1, 4 }, { 4, 2 }, { 2, 3 }, { -1, -4 }, { 3, 1 } } do
        for _, k in ipairs { 0, 2, -1 } do
          local what = ("(2,3,4,5) axes %d, %d offset %d"):format(p[1], p[2], k)
          check_diagonal(c:diagonal(k, p[1], p[2]), c, k, p[1], p[2], what)
        end
      end
    end)

    b.it("of views: transposed, stepped, reversed, F-ordered, empty", function()
      local base = make(xp, "float32", { 6, 8 })
      local views = {
        { "transposed", base.T },
        { "stepped", base[{ { 1, 6, 2 }, { 2, 8, 3 } }] },
        { "reversed", base[{ { 6, 1, -1 } }] },
        { "F", base:copy("F") },
        { "an offset block", base[{ { 2, 5 }, { 3, 7 } }] },
      }
      for _, v in ipairs(views) do
        for _, k in ipairs { 0, 1, -2 } do
          check_diagonal(v[2]:diagonal(k), v[2], k, 1, 2, v[1] .. " offset " .. k)
        end
      end
      local e = xp.zeros({ 0, 3 }, "int8")
      assert.are.same({ 0 }, copy_shape(e:diagonal().shape))
      assert.are.same({ 3, 0 }, copy_shape(xp.zeros({ 3, 0, 4 }, "bool"):diagonal(0, 2, 3).shape))
    end)

    b.it("is a view: it has a base, shares a's memory and sees a's changes", function()
      local a = make(xp, "float64", { 4, 4 })
      local d = a:diagonal()
      assert.is_not_nil(d.base)
      assert.is_true(xp.may_share_memory(a, d))
      assert.is_false(d.flags.owndata)
      a[{ 2, 2 }] = 99.5
      assert.are.equal(99.5, values(d)[2])
      local d1 = xp.diagonal(a, 1)
      a[{ 3, 4 }] = -7
      assert.are.equal(-7, values(d1)[3])
      -- a diagonal of a diagonal-bearing view still shares the first base's memory
      local t = a.T:diagonal(-1)
      assert.is_true(xp.may_share_memory(a, t))
      assert.are.same(values(d1), values(t))
    end)

    b.it("the diagonal of a product is the product's diagonal", function()
      local x, y = make(xp, "float64", { 5, 7 }), make(xp, "float64", { 7, 5 })
      local r = xp.matmul(x, y)
      check_diagonal(r:diagonal(), r, 0, 1, 2, "diag(x @ y)")
    end)
  end
end)

-- ---------------------------------------------------------------- precision

describe("cuarr.set_matmul_precision", function()
  it("is 'highest' by default and round-trips through 'tf32'", function()
    assert.are.equal("highest", cuarr.get_matmul_precision())
    finally(function() cuarr.set_matmul_precision("highest") end)
    cuarr.set_matmul_precision("tf32")
    assert.are.equal("tf32", cuarr.get_matmul_precision())
    cuarr.set_matmul_precision("tf32")
    assert.are.equal("tf32", cuarr.get_matmul_precision())
    cuarr.set_matmul_precision("highest")
    assert.are.equal("highest", cuarr.get_matmul_precision())
  end)

  it("host arrays ignore it: float32 products are the same bits under tf32 [cpu]", function()
    finally(function() cuarr.set_matmul_precision("highest") end)
    local x, y = host("float32", { 33, 65 }), host("float32", { 65, 17 })
    local want = cpu.matmul(x, y):totable()
    cuarr.set_matmul_precision("tf32")
    local r = cpu.matmul(x, y)
    assert.are.same(want, r:totable())
    check(r, x, y, "float32 on the host under tf32")
  end)

  it("a refused name leaves the precision as it was", function()
    finally(function() cuarr.set_matmul_precision("highest") end)
    cuarr.set_matmul_precision("tf32")
    pcall(cuarr.set_matmul_precision, "medium")
    pcall(cuarr.set_matmul_precision, 5)
    assert.are.equal("tf32", cuarr.get_matmul_precision())
  end)
end)

-- ---------------------------------------------------------------- device only

-- Device values against the host's, each within rtol * (|a| @ |b|) twice over (both round);
-- compared with host array operations (millions of elements).
local function close_to_host(d, h, mag, rtol, what)
  assert.are.equal(h.dtype, d.dtype, what .. ": dtype")
  assert.are.same(copy_shape(h.shape), copy_shape(d.shape), what .. ": shape")
  assert.are_not.equal("cpu", d.device, what .. ": a device array")
  local diff = cpu.abs(d:get():astype("float64") - h:astype("float64"))
  local bound = mag:astype("float64") * (2 * rtol)
  local excess = (diff - bound):max():item()
  assert.is_true(excess <= 0, ("%s: an element is %g past the tolerance"):format(what, excess))
end

describe("cuarr.matmul on the device: precision and size", function()
  H.gpu_it("tf32: float32 within tf32's tolerance; float64 unaffected; highest restores", function()
    finally(function() cuarr.set_matmul_precision("highest") end)
    local hx, hy = host("float32", { 64, 300 }), host("float32", { 300, 48 })
    local x, y = cuarr.asarray(hx), cuarr.asarray(hy)
    cuarr.set_matmul_precision("tf32")
    check(cuarr.matmul(x, y), x, y, "float32 under tf32", { rtol = RTOL_TF32 })
    local xf = x.T:copy().T
    check(cuarr.matmul(xf, y), xf, y, "float32 under tf32, a F-ordered",
      { rtol = RTOL_TF32 })
    local gx, gy = cuarr.asarray(host("float64", { 40, 77 })), cuarr.asarray(host("float64",
      { 77, 9 }))
    check(cuarr.matmul(gx, gy), gx, gy, "float64 under tf32")
    cuarr.set_matmul_precision("highest")
    check(cuarr.matmul(x, y), x, y, "float32 under highest again")
  end)

  H.gpu_it("300x257 @ 257x129 float64 and float32 against the host's BLAS", function()
    for _, dtype in ipairs { "float64", "float32" } do
      local hx, hy = host(dtype, { 300, 257 }), host(dtype, { 257, 129 })
      local want = cpu.matmul(hx, hy)
      local mag = cpu.matmul(cpu.abs(hx), cpu.abs(hy))
      local x, y = cuarr.asarray(hx), cuarr.asarray(hy)
      close_to_host(cuarr.matmul(x, y), want, mag, RTOL[dtype], dtype .. " 300x257 @ 257x129")
      close_to_host(cuarr.matmul(x:copy("F"), y.T:copy().T), want, mag, RTOL[dtype],
        dtype .. " F-ordered operands")
      local o = cuarr.zeros({ 129, 300 }, dtype).T
      close_to_host(cuarr.matmul(x, y, o), want, mag, RTOL[dtype], dtype .. " transposed out")
    end
  end)

  H.gpu_it("a batch of 1000 64x64 float32 products against the host's", function()
    local hx, hy = host("float32", { 1000, 64, 64 }), host("float32", { 1000, 64, 64 })
    local want = cpu.matmul(hx, hy)
    local mag = cpu.matmul(cpu.abs(hx), cpu.abs(hy))
    local x, y = cuarr.asarray(hx), cuarr.asarray(hy)
    close_to_host(cuarr.matmul(x, y), want, mag, RTOL.float32, "1000 x 64x64 @ 64x64")
    close_to_host(cuarr.matmul(x, y:swapaxes(2, 3):copy():swapaxes(2, 3)), want, mag,
      RTOL.float32, "1000 x 64x64 @ transposed 64x64")
    local one = hy[1]
    close_to_host(cuarr.matmul(x, cuarr.asarray(one)), cpu.matmul(hx, one),
      cpu.matmul(cpu.abs(hx), cpu.abs(one)), RTOL.float32, "1000 x 64x64 @ one 64x64")
  end)

  H.gpu_it("device results are device arrays; the host's equal the device's for integers",
    function()
      for _, dtype in ipairs { "int8", "int32", "int64", "uint64", "bool" } do
        local hx, hy = host(dtype, { 2, 17, 33 }), host(dtype, { 33, 9 })
        local r = cuarr.matmul(cuarr.asarray(hx), cuarr.asarray(hy))
        assert.are_not.equal("cpu", r.device)
        assert.are.same(values(cpu.matmul(hx, hy)), values(r), dtype)
      end
    end)
end)
