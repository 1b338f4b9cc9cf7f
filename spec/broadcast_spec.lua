-- Ufuncs over broadcast and non-contiguous operands, host and device: random shapes from a
-- seeded generator (H.rng), operands that are transposed views, stepped slices (positive and
-- negative steps), offset (misaligned) contiguous views, or broadcast against each other; given
-- outputs that are views too, outputs aliasing an input in the same layout and in another one;
-- 0-d and empty arrays; sizes that are no multiple of the block or vector sizes.  The reference
-- is computed in Lua by indexing; device results must also equal the host's.
--
-- Device kernels: a handful of (ufunc, dtype) pairs -- add/float32, multiply/int32,
-- maximum/float64, negative/float64 -- over every layout class the random cases reach
-- (contiguous, misaligned, strided with 1..4 axes, vectorised rows, generic): about 70.
local H = require("spec.helper").bind(_ENV)
local A = require "spec.support.arrays"
local R = require "spec.support.ufunc_ref"
local cuarr = H.cuarr

local type, mtype, ipairs, tostring, select = type, math.type, ipairs, tostring, select
local abs = math.abs
local fmt, concat, unpack = string.format, table.concat, table.unpack
local build = A.build

local N_CASES = 60

local COMBOS = {
  { "add", "float32", 2 }, { "multiply", "int32", 2 }, { "maximum", "float64", 2 },
  { "negative", "float64", 1 },
}
local JUNK = { float32 = 12345.5, int32 = 77777, float64 = -4242.25 }

-- ---------------------------------------------------------------- helpers

local same = A.same

local function flat_values(a)
  local t = a:totable()
  if type(t) ~= "table" then return { t } end
  return H.flat(t)
end

local function check_flat(got, want, what)
  assert.are.equal(#want, #got, what .. ": element count")
  for k = 1, #want do
    if not same(got[k], want[k]) then
      error(fmt("%s, element %d: got %s, expected %s", what, k, tostring(got[k]),
        tostring(want[k])), 2)
    end
  end
end

local function size_of(shape)
  local n = 1
  for _, e in ipairs(shape) do n = n * e end
  return n
end

local function reversed(t)
  local r = {}
  for i = #t, 1, -1 do r[#r + 1] = t[i] end
  return r
end

-- Every multi-index of shape in C order (1-based), as fresh tables.
local function indices(shape)
  local out = {}
  if size_of(shape) == 0 then return out end
  local idx = {}
  for d = 1, #shape do idx[d] = 1 end
  while true do
    out[#out + 1] = { unpack(idx) }
    local d = #shape
    while d >= 1 do
      idx[d] = idx[d] + 1
      if idx[d] <= shape[d] then break end
      idx[d] = 1
      d = d - 1
    end
    if d < 1 then break end
  end
  return out
end

-- A random element of dt.
local function random_value(rng, dt)
  if dt == "int32" then return rng.int(-1000, 1000) end
  if dt == "float64" and rng.int(1, 25) == 1 then return 0 / 0 end
  local v = R.f16((rng.float() - 0.5) * 2.0 ^ rng.int(-4, 8))
  return v
end

-- A logical operand: shape and values (by multi-index, through a key string).
local function new_values(rng, dt, shape)
  local vals = {}
  for _, idx in ipairs(indices(shape)) do vals[concat(idx, ",")] = random_value(rng, dt) end
  return function(...)
    local n = select("#", ...)
    if n == 0 then return vals[""] end
    return vals[concat({ ... }, ",")]
  end
end

-- An array of `shape` holding f(i1, ..., in), in layout `kind`:
--  contiguous; transposed (a C-contiguous array of the reversed shape, transposed);
--  stepped (a slice with steps of 1..3 or -1..-2 and random starts out of a larger array
--  filled with junk elsewhere); offset (a contiguous view one element into a larger array).
local function make(xp, rng, dt, shape, f, kind)
  local n = #shape
  if size_of(shape) == 0 then return xp.zeros(shape, dt) end -- (a nested table stops at {})
  if kind == "contiguous" or n == 0 then
    if n == 0 then return xp.array(f(), dt) end
    return xp.array(build(shape, f), dt)
  end
  if kind == "transposed" then
    local base = xp.array(build(reversed(shape), function(...) return f(unpack(reversed({ ... }))) end), dt)
    return base:transpose()
  end
  if kind == "offset" then
    local total = size_of(shape)
    local list = { JUNK[dt] }
    for _, idx in ipairs(indices(shape)) do list[#list + 1] = f(unpack(idx)) end
    local big = xp.array(list, dt)
    return big[{ { 2, total + 1 } }]:reshape(shape)
  end
  -- stepped
  local big_shape, first, steps = {}, {}, {}
  for d = 1, n do
    local step = ({ 1, 2, 3, -1, -2 })[rng.int(1, 5)]
    local pad = rng.int(0, 2)
    big_shape[d] = (shape[d] - 1) * abs(step) + 1 + pad
    local off = rng.int(0, pad)
    first[d] = step > 0 and 1 + off or big_shape[d] - off
    steps[d] = step
  end
  local base = xp.array(build(big_shape, function(...)
    local p, idx = { ... }, {}
    for d = 1, n do
      local q = (p[d] - first[d]) / steps[d]
      if q ~= q // 1 or q < 0 or q >= shape[d] then return JUNK[dt] end
      idx[d] = math.tointeger(q) + 1
    end
    return f(unpack(idx))
  end), dt)
  local key = {}
  for d = 1, n do
    key[d] = { first[d], first[d] + (shape[d] - 1) * steps[d], steps[d] }
  end
  return base[key], base
end

local KINDS = { "contiguous", "transposed", "stepped", "offset" }

-- The shape an operand of ndim m takes against result shape rs: the last m extents, with some
-- set to 1 (broadcast).
local function operand_shape(rng, rs, m)
  local s = {}
  for d = 1, m do
    local e = rs[#rs - m + d]
    s[d] = (rng.int(1, 3) == 1) and 1 or e
  end
  return s
end

-- The value operand (shape s, values f) has at result index idx (broadcasting).
local function at(s, f, idx)
  local n, m = #idx, #s
  local j = {}
  for d = 1, m do j[d] = s[d] == 1 and 1 or idx[n - m + d] end
  return f(unpack(j))
end

-- ---------------------------------------------------------------- random cases

-- Case k: the same draws on every backend.
local function random_case(k)
  local rng = H.rng(R.seed_of("broadcast case " .. k))
  local combo = COMBOS[rng.int(1, #COMBOS)]
  local name, dt, nin = combo[1], combo[2], combo[3]
  local nd = rng.int(0, 5)
  local rs = {}
  for d = 1, nd do rs[d] = rng.int(1, 5) end
  if nd > 0 and rng.int(1, 12) == 1 then rs[rng.int(1, nd)] = 0 end
  local ops = {}
  for i = 1, nin do
    local m = rng.int(0, nd)
    if i == 1 then m = nd end -- one operand spans every axis (the others broadcast)
    local s = operand_shape(rng, rs, m)
    if i == 1 then
      for d = 1, nd do if rng.int(1, 4) ~= 1 then s[d] = rs[d] end end
    end
    ops[i] = { shape = s, kind = KINDS[rng.int(1, #KINDS)], seed = rng.int(1, 1 << 30) }
  end
  -- the result's shape: the operands broadcast together
  local shape = {}
  for d = 1, nd do
    local e = 1
    for _, o in ipairs(ops) do
      local j = d - (nd - #o.shape)
      if j >= 1 and o.shape[j] ~= 1 then e = o.shape[j] end
    end
    shape[d] = e
  end
  local out_kind = rng.int(1, 3) == 1 and KINDS[rng.int(1, #KINDS)] or nil
  return { name = name, dt = dt, nin = nin, ops = ops, shape = shape, out_kind = out_kind,
           out_seed = rng.int(1, 1 << 30) }
end

local function describe_case(c)
  local parts = {}
  for i, o in ipairs(c.ops) do
    parts[i] = fmt("(%s) %s", concat(o.shape, ","), o.kind)
  end
  return fmt("%s on %s: %s -> (%s)%s", c.name, c.dt, concat(parts, " | "), concat(c.shape, ","),
    c.out_kind and (" into a " .. c.out_kind .. " output") or "")
end

-- Run case c on namespace xp; returns the result's values and the expected ones.
local function run_case(xp, c)
  local arrays, fs = {}, {}
  for i, o in ipairs(c.ops) do
    local rng = H.rng(o.seed)
    fs[i] = new_values(rng, c.dt, o.shape)
    arrays[i] = make(xp, rng, c.dt, o.shape, fs[i], o.kind)
    A.check_equal(arrays[i].shape, o.shape, "operand " .. i .. " shape")
  end
  local want = {}
  for _, idx in ipairs(indices(c.shape)) do
    local v = {}
    for i, o in ipairs(c.ops) do v[i] = at(o.shape, fs[i], idx) end
    want[#want + 1] = R.expected(c.name, c.dt, v[1], v[2])
  end
  if #c.shape == 0 then
    local v = {}
    for i = 1, #c.ops do v[i] = fs[i]() end
    want = { R.expected(c.name, c.dt, v[1], v[2]) }
  end
  local r
  if c.out_kind then
    local rng = H.rng(c.out_seed)
    local junk = function() return JUNK[c.dt] end
    local out, base = make(xp, rng, c.dt, c.shape, junk, c.out_kind)
    if c.nin == 2 then r = xp[c.name](arrays[1], arrays[2], out) else r = xp[c.name](arrays[1], out) end
    assert.is_true(rawequal(r, out), "the output is returned")
    if base then -- the elements around a stepped output are untouched
      local n_junk = 0
      for _, v in ipairs(flat_values(base)) do
        if v == JUNK[c.dt] then n_junk = n_junk + 1 end
      end
      assert.are.equal(size_of(base.shape) - size_of(c.shape), n_junk, "elements outside the output")
    end
  else
    r = c.nin == 2 and xp[c.name](arrays[1], arrays[2]) or xp[c.name](arrays[1])
  end
  A.check_equal(r.shape, c.shape, "result shape")
  assert.are.equal(c.dt, r.dtype)
  return flat_values(r), want
end

describe("random shapes, layouts and broadcasts", function()
  for _, b in ipairs(H.backends) do
    b.it(N_CASES .. " seeded cases match the Lua reference", function()
      for k = 1, N_CASES do
        local c = random_case(k)
        local ok, err = pcall(function()
          local got, want = run_case(b.xp, c)
          check_flat(got, want, "result")
          if b.name == "gpu" then
            local host = run_case(cuarr.cpu, c)
            check_flat(got, host, "device vs host")
          end
        end)
        if not ok then error(fmt("case %d, %s:\n%s", k, describe_case(c), tostring(err)), 0) end
      end
    end)
  end
end)

-- ---------------------------------------------------------------- chosen layouts

describe("layouts", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("contiguous and misaligned operands of sizes off the block and vector sizes", function()
      for _, n in ipairs({ 1, 3, 5, 255, 257, 1023, 4099, 65537 }) do
        local x = xp.arange(n):astype("float32")
        local y = xp.arange(n, 0, -1):astype("float32")
        check_flat(flat_values(xp.add(x, y)), (function()
          local t = {}
          for k = 1, n do t[k] = n + 0.0 end
          return t
        end)(), "contiguous, n = " .. n)
        local big = xp.arange(n + 1):astype("float32")
        local shifted = big[{ { 2, n + 1 } }] -- one element in: not aligned for vectors
        check_flat(flat_values(xp.add(shifted, x)), (function()
          local t = {}
          for k = 1, n do t[k] = 2.0 * k - 1 end
          return t
        end)(), "misaligned, n = " .. n)
      end
    end)

    b.it("a column against a row broadcasts to a matrix", function()
      local col = xp.array({ { 1 }, { 2 }, { 3 } }, "int32")
      local row = xp.array({ { 10, 20, 30, 40, 50, 60, 70, 80 } }, "int32")
      local r = xp.multiply(col, row)
      A.check_equal(r.shape, { 3, 8 }, "shape")
      A.check_equal(r:totable(), build({ 3, 8 }, function(i, j) return i * 10 * j end), "values")
      r = xp.multiply(row, col:reshape({ 3, 1 })) -- and the other way round
      A.check_equal(r:totable(), build({ 3, 8 }, function(i, j) return i * 10 * j end), "swapped")
    end)

    b.it("five axes that do not collapse take the generic path", function()
      local shape = { 2, 3, 2, 3, 2 }
      local f = function(a, b2, c, d, e) return (a * 10000 + b2 * 1000 + c * 100 + d * 10 + e) / 4 end
      local x = make(xp, H.rng(5), "float32", shape, f, "transposed")
      local y = make(xp, H.rng(6), "float32", shape, function() return 0.5 end, "stepped")
      local r = xp.add(x, y)
      A.check_equal(r:totable(), build(shape, function(...) return A.f32(f(...) + 0.5) end), "values")
    end)

    b.it("incompatible shapes are a ValueError with NumPy's message", function()
      local a = xp.zeros({ 2, 3 }, "float32")
      local err = H.raises("ValueError", xp.add, a, xp.zeros(4, "float32"))
      assert.are.equal("operands could not be broadcast together with shapes (2,3) (4,)",
        err.message)
      H.raises("ValueError", xp.maximum, xp.zeros({ 3, 1, 2 }, "float64"),
        xp.zeros({ 4, 3 }, "float64"))
      H.raises("ValueError", function() return a + xp.zeros({ 3, 2 }, "float32") end)
    end)

    b.it("0-d arrays broadcast against any shape", function()
      local z = xp.array(2.5, "float32")
      local m = xp.array({ { 1.0, 2.0 }, { 3.0, 4.0 } }, "float32")
      A.check_equal(xp.add(z, m):totable(), { { 3.5, 4.5 }, { 5.5, 6.5 } }, "0-d + 2-d")
      A.check_equal(xp.add(m:transpose(), z):totable(), { { 3.5, 5.5 }, { 4.5, 6.5 } }, "T + 0-d")
      local e = xp.add(xp.zeros({ 0, 4 }, "float32"), z)
      A.check_equal(e.shape, { 0, 4 }, "empty + 0-d")
    end)
  end
end)

-- ---------------------------------------------------------------- outputs that are views

describe("outputs that are views", function()
  for _, b in ipairs(H.backends) do
    local xp = b.xp
    b.it("an output aliasing a strided input computes in place, the rest untouched", function()
      local big = xp.array({ 1, 2, 3, 4, 5, 6, 7, 8, 9 }, "int32")
      local v = big[{ { 1, -1, 2 } }] -- 1 3 5 7 9
      local w = xp.array({ 10, 20, 30, 40, 50 }, "int32")
      local r = xp.multiply(v, w, v)
      assert.is_true(rawequal(r, v))
      A.check_equal(big:totable(), { 10, 2, 60, 4, 150, 6, 280, 8, 450 }, "in place, every other")
      local m = xp.array({ { 1.5, 2.5 }, { 3.5, 4.5 } }, "float32")
      local t = m:transpose()
      xp.add(t, t, t) -- same elements at the same addresses: in place
      A.check_equal(m:totable(), { { 3.0, 5.0 }, { 7.0, 9.0 } }, "transposed in place")
    end)

    b.it("an output that is another layout of an input reads the input first", function()
      local vals = { { 1.0, 2.0, 3.0 }, { 4.0, 5.0, 6.0 }, { 7.0, 8.0, 9.0 } }
      local a = xp.array(vals, "float64")
      local c = xp.array({ { 0.5, 0.5, 0.5 }, { 1.0, 1.0, 1.0 }, { 2.0, 2.0, 2.0 } }, "float64")
      xp.maximum(a, c, a:transpose()) -- a.T[i][j] = max(a[i][j], c[i][j]): a[j][i] gets it
      A.check_equal(a:totable(), build({ 3, 3 }, function(i, j)
        return math.max(vals[j][i], ({ 0.5, 1.0, 2.0 })[j])
      end), "written transposed")
      local x = xp.array({ 1.0, 2.0, 3.0, 4.0 }, "float64")
      xp.negative(x, x[{ { -1, 1, -1 } }])
      A.check_equal(x:totable(), { -4.0, -3.0, -2.0, -1.0 }, "negative into the reverse")
    end)

    b.it("an output with more axes than the inputs receives their broadcast", function()
      local x = xp.array({ 1.0, 2.0, 3.0 }, "float32")
      local big = xp.zeros({ 2, 4, 3 }, "float32")
      local out = big[{ {}, { 1, -1, 2 }, {} }] -- (2, 2, 3), stepped
      xp.add(x, x[{ { -1, 1, -1 } }], out)
      A.check_equal(big:totable(), build({ 2, 4, 3 }, function(_, j)
        return j % 2 == 1 and 4.0 or 0.0
      end), "broadcast into a stepped output")
      H.raises("ValueError", xp.add, xp.zeros({ 2, 3 }, "float32"), 1, xp.zeros(3, "float32"))
    end)
  end
end)
