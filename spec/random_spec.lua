-- cuarr.random and cuarr.cpu.random (issue 17): a Philox4x32-10 stream written once for the host
-- loops and the device kernels.
--
-- Host side: the generator against a Lua Philox4x32-10 checked with Random123's known answers,
-- each distribution's values against its formula in Lua, the counter's advance, moments and a
-- Kolmogorov-Smirnov statistic, unbiased integers, permutations, shapes, seeds and Generators;
-- the device program compiled by NVRTC and launched on the stand-in driver.  #gpu: the device
-- gives the host's values bit for bit, for every function and dtype.
local H = require("spec.helper").bind(_ENV)
local cuarr = H.cuarr
local child = require "spec.support.child"

local cpu = cuarr.cpu

-- ---------------------------------------------------------------- Philox4x32-10 in Lua

local M32 = 0xffffffff

local function mulhilo(a, b)
  local p = a * b -- 64 bits, exact as unsigned bits
  return p >> 32, p & M32
end

local function philox(c0, c1, c2, c3, k0, k1)
  for r = 1, 10 do
    if r > 1 then
      k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    end
    local hi0, lo0 = mulhilo(0xD2511F53, c0)
    local hi1, lo1 = mulhilo(0xCD9E8D57, c2)
    c0, c1, c2, c3 = hi1 ~ c1 ~ k0, lo1, hi0 ~ c3 ~ k1, lo0
  end
  return { c0, c1, c2, c3 }
end

-- The words of block b of a draw from (seed, counter).
local function block(seed, counter, b)
  local c = counter + b
  return philox(c & M32, c >> 32, 0, 0, seed & M32, seed >> 32)
end

local function unit_f64(a, b) return ((a >> 5) * 67108864 + (b >> 6)) * 2.0 ^ -53 end
local function unit_f32(w) return (w >> 8) * 2.0 ^ -24 end

local function rel_close(x, y, tol)
  return math.abs(x - y) <= tol * math.max(1.0, math.abs(y))
end

-- ---------------------------------------------------------------- statistics

local function moments(t)
  local n, s = #t, 0.0
  for i = 1, n do s = s + t[i] end
  local mean, v = s / n, 0.0
  for i = 1, n do v = v + (t[i] - mean) ^ 2 end
  return mean, v / n
end

-- The Kolmogorov-Smirnov statistic of t against the CDF.
local function ks(t, cdf)
  local s = {}
  for i = 1, #t do s[i] = t[i] end
  table.sort(s)
  local n, d = #s, 0.0
  for i = 1, n do
    local f = cdf(s[i])
    d = math.max(d, i / n - f, f - (i - 1) / n)
  end
  return d
end

-- The normal CDF through erf (Abramowitz and Stegun 7.1.26, error below 1.5e-7).
local function normal_cdf(x)
  local z = math.abs(x) / math.sqrt(2)
  local t = 1 / (1 + 0.3275911 * z)
  local y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
    + 0.254829592) * t * math.exp(-z * z)
  return x >= 0 and 0.5 * (1 + y) or 0.5 * (1 - y)
end

local function uniform_cdf(x) return math.max(0, math.min(1, x)) end

local N_STATS = 100000
-- The 0.1% critical value of the KS statistic.
local KS_LIMIT = 1.95 / math.sqrt(N_STATS)

local function flat(a)
  return H.flat(a.device == "cpu" and a:totable() or a:get():totable())
end

-- ---------------------------------------------------------------- host

describe("cuarr.cpu.random: the generator", function()
  it("the Lua Philox4x32-10 gives Random123's known answers", function()
    assert.same({ 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 }, philox(0, 0, 0, 0, 0, 0))
    assert.same({ 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
      philox(M32, M32, M32, M32, M32, M32))
    assert.same({ 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
      philox(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0))
  end)

  it("the stream's words are Philox's for several seeds and counters", function()
    for _, seed in ipairs { 0, 1, 42, 0x123456789abcdef, math.maxinteger } do
      local g = cpu.random.default_rng(seed)
      g:random(4 * 3 + 1, "float32") -- 4 blocks: the next draw starts at block 4
      local w = g:integers(0, 4294967296, 10, "uint32") -- raw words, 4 per block
      local t = w:totable()
      for i = 1, 10 do
        local b = block(seed, 4, (i - 1) // 4)
        assert.equal(b[(i - 1) % 4 + 1], t[i])
      end
    end
  end)

  it("uniform values are the formula of their words, for both float dtypes", function()
    local g = cpu.random.default_rng(9)
    local f64 = g:random(7):totable()                  -- blocks 0..3
    local f32 = g:random(9, "float32"):totable()       -- blocks 4..6
    local u = g:uniform(-2, 3, 5):totable()            -- blocks 7..9
    for i = 1, 7 do
      local b = block(9, 0, (i - 1) // 2)
      local k = (i - 1) % 2 * 2
      assert.equal(unit_f64(b[k + 1], b[k + 2]), f64[i])
    end
    for i = 1, 9 do
      local b = block(9, 4, (i - 1) // 4)
      assert.equal(unit_f32(b[(i - 1) % 4 + 1]), f32[i])
    end
    for i = 1, 5 do
      local b = block(9, 7, (i - 1) // 2)
      local k = (i - 1) % 2 * 2
      assert.equal(-2 + 5 * unit_f64(b[k + 1], b[k + 2]), u[i])
    end
  end)

  it("normal and exponential values are Box-Muller and -log of their words within an ulp or two",
    function()
      local g = cpu.random.default_rng(3)
      local z = g:standard_normal(6):totable()
      for i = 1, 6 do
        local b = block(3, 0, (i - 1) // 2)
        local u1 = ((b[1] >> 5) * 67108864 + (b[2] >> 6) + 1) * 2.0 ^ -53
        local u2 = unit_f64(b[3], b[4])
        local r = math.sqrt(-2 * math.log(u1))
        local want = (i % 2 == 1) and r * math.cos(2 * math.pi * u2)
          or r * math.sin(2 * math.pi * u2)
        assert.is_true(math.abs(z[i] - want) <= 1e-15 * math.max(1, r), z[i] .. " vs " .. want)
      end
      local z32 = g:normal(1, 2, 8, "float32"):totable() -- from block 3
      for i = 1, 8 do
        local b = block(3, 3, (i - 1) // 4)
        local p = (i - 1) % 4 // 2 * 2
        local u1 = ((b[p + 1] >> 8) + 1) * 2.0 ^ -24
        local u2 = (b[p + 2] >> 8) * 2.0 ^ -24
        local r = math.sqrt(-2 * math.log(u1))
        local want = 1 + 2 * ((i % 2 == 1) and r * math.cos(2 * math.pi * u2)
          or r * math.sin(2 * math.pi * u2))
        -- float arithmetic: a few float ulps of the radius
        assert.is_true(math.abs(z32[i] - want) <= 2.0 ^ -21 * (1 + 2 * r), z32[i] .. " vs " .. want)
      end
      local e = g:exponential(2.5, 5):totable() -- from block 5
      for i = 1, 5 do
        local b = block(3, 5, (i - 1) // 2)
        local k = (i - 1) % 2 * 2
        local u = ((b[k + 1] >> 5) * 67108864 + (b[k + 2] >> 6) + 1) * 2.0 ^ -53
        assert.is_true(rel_close(e[i], -math.log(u) * 2.5, 1e-15))
      end
    end)

  it("the shared log is within two ulps of libm's over (0, 1]", function()
    local g = cpu.random.default_rng(11)
    local e = g:exponential(1, 20000):totable()
    local g2 = cpu.random.default_rng(11)
    local words = g2:integers(0, 4294967296, 40000, "uint32"):totable()
    for i = 1, 20000 do
      local b = (i - 1) // 2 * 4 + (i - 1) % 2 * 2
      local u = ((words[b + 1] >> 5) * 67108864 + (words[b + 2] >> 6) + 1) * 2.0 ^ -53
      local want = -math.log(u)
      assert.is_true(math.abs(e[i] - want) <= 2 * 2.2205e-16 * math.max(want, 2.0 ^ -52),
        e[i] .. " vs " .. want)
    end
  end)

  it("the shared float log is within one float ulp of libm's over (0, 1]", function()
    local n = 40000
    local e = cpu.random.default_rng(13):exponential(1, n, "float32"):totable()
    local words = cpu.random.default_rng(13):integers(0, 4294967296, n, "uint32"):totable()
    for i = 1, n do
      local want = -math.log(((words[i] >> 8) + 1) * 2.0 ^ -24)
      if want == 0 then
        assert.equal(0, e[i])
      else
        local ulp = 2.0 ^ (math.floor(math.log(want, 2)) - 23)
        assert.is_true(math.abs(e[i] - want) <= ulp, e[i] .. " vs " .. want)
      end
    end
  end)

  it("a draw advances the counter by its blocks, whatever the function", function()
    local a = cpu.random.default_rng(5)
    a:random(5, "float32")      -- 2 blocks
    a:random(3)                 -- 2 blocks
    a:integers(0, 10, 9)        -- 3 blocks (4 per block below 2^32)
    a:integers(0, 2 ^ 40, 3)    -- 2 blocks (2 per block)
    a:standard_normal(1, "float32") -- 1 block
    local b = cpu.random.default_rng(5)
    b:random(10 * 4, "float32") -- 10 blocks
    assert.same(b:random(6):totable(), a:random(6):totable())
  end)
end)

describe("cuarr.cpu.random: distributions", function()
  for _, dtype in ipairs { "float32", "float64" } do
    it("uniform " .. dtype .. ": moments and KS within bounds, values in [low, high)", function()
      local t = flat(cpu.random.default_rng(21):random(N_STATS, dtype))
      local mean, var = moments(t)
      assert.is_true(math.abs(mean - 0.5) < 0.005, mean)
      assert.is_true(math.abs(var - 1 / 12) < 0.002, var)
      assert.is_true(ks(t, uniform_cdf) < KS_LIMIT)
      local lo, hi = math.huge, -math.huge
      for _, x in ipairs(t) do lo, hi = math.min(lo, x), math.max(hi, x) end
      assert.is_true(lo >= 0 and hi < 1)
      local u = flat(cpu.random.default_rng(2):uniform(-3, 5, 5000, dtype))
      for _, x in ipairs(u) do assert.is_true(x >= -3 and x <= 5) end
    end)

    it("normal " .. dtype .. ": moments and KS within bounds", function()
      local t = flat(cpu.random.default_rng(22):standard_normal(N_STATS, dtype))
      local mean, var = moments(t)
      assert.is_true(math.abs(mean) < 0.015, mean)
      assert.is_true(math.abs(var - 1) < 0.02, var)
      assert.is_true(ks(t, normal_cdf) < KS_LIMIT)
      local s = flat(cpu.random.default_rng(23):normal(5, 2, N_STATS, dtype))
      local m2, v2 = moments(s)
      assert.is_true(math.abs(m2 - 5) < 0.03 and math.abs(v2 - 4) < 0.08)
    end)

    it("exponential " .. dtype .. ": mean and KS within bounds", function()
      local t = flat(cpu.random.default_rng(24):exponential(2, N_STATS, dtype))
      local mean = moments(t)
      assert.is_true(math.abs(mean - 2) < 0.03, mean)
      assert.is_true(ks(t, function(x) return 1 - math.exp(-x / 2) end) < KS_LIMIT)
    end)
  end

  it("integers stay in their bounds for every dtype, high exclusive, endpoint inclusive", function()
    local ranges = { int8 = { -128, 128 }, int16 = { -300, 300 }, int32 = { -70000, 5 },
                     int64 = { -2 ^ 40, 2 ^ 40 }, uint8 = { 250, 256 }, uint16 = { 0, 3 },
                     uint32 = { 7, 4294967296 }, uint64 = { 0, 2 ^ 50 } }
    local g = cpu.random.default_rng(31)
    for dtype, r in pairs(ranges) do
      local low, high = math.tointeger(r[1]), math.tointeger(r[2])
      local a = g:integers(low, high, 4001, dtype)
      assert.equal(dtype, a.dtype)
      local lo, hi = math.maxinteger, math.mininteger
      for _, x in ipairs(a:totable()) do lo, hi = math.min(lo, x), math.max(hi, x) end
      assert.is_true(lo >= low and hi < high, dtype)
      local e = g:integers(low, low + 2, 600, dtype, true):totable()
      local seen = {}
      for _, x in ipairs(e) do seen[x - low] = true end
      assert.is_true(seen[0] and seen[1] and seen[2], dtype)
    end
    local r = cpu.random
    r.seed(1)
    for _, x in ipairs(r.randint(5, 100, 50):totable()) do assert.is_true(x >= 5 and x < 100) end
    local one = r.randint(3)
    assert.is_true(math.type(one) == "integer" and one >= 0 and one < 3)
    local full = r.randint(math.mininteger, math.maxinteger, 100):totable()
    local negative = 0
    for _, x in ipairs(full) do if x < 0 then negative = negative + 1 end end
    assert.is_true(negative > 20 and negative < 80)
  end)

  it("integers are unbiased: a range of 3 * 2^30 gives values below 2^30 a third of the time",
    function()
      local t = cpu.random.default_rng(41):integers(0, 3 * 2 ^ 30, 200000, "int64"):totable()
      local below = 0
      for _, x in ipairs(t) do if x < 2 ^ 30 then below = below + 1 end end
      -- modulo reduction would give one half
      assert.is_true(math.abs(below / 200000 - 1 / 3) < 0.005, below)
      local counts = { 0, 0, 0, 0, 0, 0 }
      for _, x in ipairs(cpu.random.default_rng(42):integers(1, 7, 60000, "int8"):totable()) do
        counts[x] = counts[x] + 1
      end
      for k = 1, 6 do assert.is_true(math.abs(counts[k] - 10000) < 500, counts[k]) end
    end)
end)

describe("cuarr.cpu.random: shapes, seeds, states", function()
  it("sizes as numbers and tables: 0-d, empty, 3-D; nil gives a Lua number", function()
    local g = cpu.random.default_rng(1)
    assert.same({ 2, 3, 4 }, g:random({ 2, 3, 4 }).shape)
    assert.same({ 2, 0, 3 }, g:standard_normal({ 2, 0, 3 }, "float32").shape)
    assert.equal(0, g:random(0).size)
    assert.equal(0, g:random({}).ndim)
    assert.equal("float", math.type(g:random()))
    assert.equal("float", math.type(g:normal(1, 2)))
    assert.equal("integer", math.type(g:integers(0, 5)))
    assert.same({ 3, 2 }, cpu.random.rand(3, 2).shape)
    assert.same({ 4 }, cpu.random.randn(4).shape)
    assert.equal("float", math.type(cpu.random.rand()))
  end)

  it("a seed reproduces its stream; the legacy state and a Generator of one seed agree",
    function()
      local r = cpu.random
      r.seed(77)
      local a = r.random(10):totable()
      local b = r.normal(0, 1, 5, "float32"):totable()
      r.seed(77)
      assert.same(a, r.random(10):totable())
      assert.same(b, r.normal(0, 1, 5, "float32"):totable())
      local g = r.default_rng(77)
      assert.same(a, g:random(10):totable())
      assert.are_not.same(a, r.default_rng(78):random(10):totable())
      assert.equal(r.default_rng(2 ^ 40):random(), r.default_rng(math.tointeger(2 ^ 40)):random())
    end)

  it("Generators are independent of the legacy state and of each other", function()
    local want = cpu.random.default_rng(8)
    want:random(3)
    local expected = want:random(3):totable()
    local g = cpu.random.default_rng(8)
    g:random(3)
    cpu.random.seed(8)
    cpu.random.random(100)
    local other = cpu.random.default_rng(8)
    other:random(50)
    assert.same(expected, g:random(3):totable())
    assert.equal(g, cpu.random.default_rng(g))
  end)

  it("out= fills a given array, contiguous or a view, with the values of a plain draw", function()
    for _, dtype in ipairs { "float32", "float64" } do
      local want = cpu.random.default_rng(4)
      local a, b, c = want:random({ 3, 2 }, dtype), want:standard_normal({ 3, 2 }, dtype),
        want:exponential(2, { 3, 2 }, dtype)
      local g = cpu.random.default_rng(4)
      local base = cpu.zeros({ 3, 4 }, dtype)
      local view = base[{ {}, { 2, 3 } }]
      g:random(nil, nil, { out = view })
      assert.same(a:totable(), view:totable())
      assert.same({ 0, 0, 0 }, H.flat(base[{ {}, 1 }]:totable()))
      local o2 = cpu.empty({ 3, 2 }, dtype)
      assert.equal(o2, g:standard_normal({ 3, 2 }, dtype, { out = o2 }))
      assert.same(b:totable(), o2:totable())
      local o3 = cpu.empty({ 2, 3 }, dtype).T
      g:exponential(2, nil, nil, { out = o3 })
      assert.same(c:totable(), o3:totable())
    end
  end)
end)

describe("cuarr.cpu.random: permutations and choice", function()
  local function is_permutation(t, n)
    local seen = {}
    for _, x in ipairs(t) do
      if x < 0 or x >= n or seen[x] then return false end
      seen[x] = true
    end
    return #t == n
  end

  it("permutation(n) is a permutation of 0 .. n-1, n off the block size, 0 and 1", function()
    for _, n in ipairs { 0, 1, 2, 5, 1001 } do
      local p = cpu.random.default_rng(n):permutation(n)
      assert.equal("int64", p.dtype)
      assert.is_true(is_permutation(p:totable(), n), n)
    end
    local p = cpu.random.default_rng(3):permutation(1000):totable()
    local moved = 0
    for i, x in ipairs(p) do if x ~= i - 1 then moved = moved + 1 end end
    assert.is_true(moved > 900)
  end)

  it("permutation of an array permutes its rows; shuffle does so in place", function()
    local x = cpu.arange(24, "float32"):reshape({ 6, 2, 2 })
    local p = cpu.random.default_rng(5):permutation(x)
    assert.same({ 6, 2, 2 }, p.shape)
    local firsts = {}
    for i = 1, 6 do
      local row = H.flat(p[i]:totable())
      firsts[#firsts + 1] = row[1] // 4
      for k = 2, 4 do assert.equal(row[1] + k - 1, row[k]) end
    end
    assert.is_true(is_permutation(firsts, 6))
    local y = cpu.arange(10)
    local view = y[{ { 1, 10, 2 } }]
    cpu.random.default_rng(6):shuffle(view)
    local t = y:totable()
    local odd = {}
    for i = 1, 10, 2 do odd[#odd + 1] = t[i] // 2 end
    assert.is_true(is_permutation(odd, 5))
    for i = 2, 10, 2 do assert.equal(i - 1, t[i]) end
  end)

  it("choice with and without replacement and with p", function()
    local g = cpu.random.default_rng(12)
    local c = g:choice(5, 1000):totable()
    for _, x in ipairs(c) do assert.is_true(x >= 0 and x < 5) end
    local u = g:choice(20, 20, false):totable()
    assert.is_true(is_permutation(u, 20))
    local a = cpu.asarray({ 10, 20, 30, 40 }, "float32")
    local picked = g:choice(a, { 2, 2 }, false)
    assert.same({ 2, 2 }, picked.shape)
    assert.equal("float32", picked.dtype)
    local values = H.flat(picked:totable())
    table.sort(values)
    assert.same({ 10, 20, 30, 40 }, values)
    local w = g:choice(3, 3000, true, { 0.25, 0, 0.75 }):totable()
    local counts = { [0] = 0, 0, 0 }
    for _, x in ipairs(w) do counts[x] = counts[x] + 1 end
    assert.equal(0, counts[1])
    assert.is_true(math.abs(counts[0] - 750) < 100 and math.abs(counts[2] - 2250) < 100)
    assert.equal("number", type(g:choice(a)))
  end)
end)

describe("cuarr.random on the stand-in driver", function()
  it("compiles the device program with NVRTC and launches each draw with checked arguments",
    function()
      local ok, out, err = child.run([[
local cuarr = require "cuarr"
local r = cuarr.random
r.seed(1)
for _, dtype in ipairs { "float32", "float64" } do
  assert(r.random(1001, dtype).dtype == dtype)
  assert(r.uniform(-1, 1, { 3, 5 }, dtype).dtype == dtype)
  assert(r.normal(0, 2, { 2, 0, 3 }, dtype).size == 0)
  assert(r.standard_normal(7, dtype).dtype == dtype)
  assert(r.exponential(1, 9, dtype).dtype == dtype)
  local base = cuarr.zeros({ 3, 4 }, dtype)
  r.random(nil, nil, { out = base[{ {}, { 1, 2 } }] })
end
for _, dtype in ipairs { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64" } do
  assert(r.randint(0, 100, 33, dtype).dtype == dtype)
  assert(r.integers(0, 2, 5, dtype, true).dtype == dtype)
end
assert(r.integers(math.mininteger, math.maxinteger, 5, "int64", true).size == 5)
assert(r.random().ndim == 0 and r.random().device ~= "cpu")
-- permutations sort on the device (CUB through the CUDA runtime, which the stand-in driver
-- cannot serve): a clean error here, never a crash
local function sorts(f, ...)
  local ok, e = pcall(f, ...)
  assert(ok or cuarr.is_error(e, "CUDAError") or cuarr.is_error(e, "NotAvailable"), tostring(e))
  return ok and e
end
local p = sorts(r.permutation, 5)
assert(not p or p.device ~= "cpu")
local x = cuarr.arange(10)
sorts(r.shuffle, x)
local c = sorts(r.choice, x, 3, false)
assert(not c or c.shape[1] == 3)
local g = r.default_rng(3)
assert(g:standard_normal(10, "float32").dtype == "float32")
print("ok")
]], { CUARR_LIBCUDA = child.fake_libcuda(), CUARR_CACHE_IN_MEMORY = "1" })
      assert(ok and out:find("ok\n$"), out .. err)
    end)
end)

-- ---------------------------------------------------------------- device

local function same_stream(fn_name, make)
  H.gpu_it(fn_name .. ": the device gives the host's values bit for bit", function()
    for _, seed in ipairs { 0, 12345 } do
      local d = make(cuarr.random.default_rng(seed))
      local h = make(cpu.random.default_rng(seed))
      assert.equal(h.dtype, d.dtype)
      assert.same(h:totable(), d:get():totable())
    end
  end)
end

describe("cuarr.random on the device", function()
  for _, dtype in ipairs { "float32", "float64" } do
    for _, n in ipairs { 1, 1001, 65537 } do
      same_stream("random " .. dtype .. " n=" .. n, function(g)
        g:random(3, dtype)
        return g:random(n, dtype)
      end)
      same_stream("uniform " .. dtype .. " n=" .. n,
        function(g) return g:uniform(-2, 7, n, dtype) end)
      same_stream("standard_normal " .. dtype .. " n=" .. n,
        function(g) return g:standard_normal(n, dtype) end)
      same_stream("normal " .. dtype .. " n=" .. n,
        function(g) return g:normal(5, 2, n, dtype) end)
      same_stream("exponential " .. dtype .. " n=" .. n,
        function(g) return g:exponential(3, n, dtype) end)
    end
    same_stream("3-D random " .. dtype, function(g) return g:random({ 3, 5, 7 }, dtype) end)
  end
  for _, dtype in ipairs { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64" } do
    same_stream("integers " .. dtype, function(g)
      g:integers(0, 3, 5, dtype)
      return g:integers(1, 100, 1003, dtype)
    end)
  end
  same_stream("integers int64 over a 64-bit range", function(g)
    return g:integers(math.mininteger, math.maxinteger, 1001, "int64", true)
  end)
  same_stream("integers int64 range 3 * 2^30", function(g)
    return g:integers(-5, 3 * 2 ^ 30, 4097, "int64")
  end)
  same_stream("permutation", function(g) return g:permutation(1000) end)
  for _, n in ipairs { 0, 1, 2, 4097, 1000003 } do
    same_stream("permutation n=" .. n, function(g) return g:permutation(n) end)
  end
  H.gpu_it("permutation and shuffle of arrays: the device moves the rows the host does", function()
    for _, dtype in ipairs { "bool", "int8", "float16", "int64", "float64" } do
      local hx = cpu.arange(40):reshape(10, 4):astype(dtype)
      local h = cpu.random.default_rng(7):permutation(hx)
      local d = cuarr.random.default_rng(7):permutation(cuarr.to_device(hx))
      assert.same(h:totable(), d:get():totable(), dtype)
      -- in place, through a strided view: the rows between stay
      local hb = cpu.arange(30, dtype == "bool" and "int8" or dtype):reshape(15, 2)
      local db = cuarr.to_device(hb)
      cpu.random.default_rng(8):shuffle(hb[{ { 1, 15, 2 } }])
      cuarr.random.default_rng(8):shuffle(db[{ { 1, 15, 2 } }])
      assert.same(hb:totable(), db:get():totable(), dtype)
    end
  end)
  same_stream("choice without replacement", function(g) return g:choice(5000, 300, false) end)
  same_stream("choice", function(g) return g:choice(50, { 4, 5 }) end)

  H.gpu_it("out= views on the device get the host's values", function()
    for _, dtype in ipairs { "float32", "float64" } do
      local base = cuarr.zeros({ 5, 6 }, dtype)
      local view = base[{ {}, { 2, 5 } }]
      cuarr.random.default_rng(9):normal(1, 3, nil, nil, { out = view })
      local want = cpu.random.default_rng(9):normal(1, 3, { 5, 4 }, dtype)
      assert.same(want:totable(), view:get():totable())
      assert.same({ 0, 0, 0, 0, 0 }, H.flat(base[{ {}, 1 }]:get():totable()))
    end
  end)

  H.gpu_it("the legacy functions: seed reproduces, rand/randn/randint shapes", function()
    local r = cuarr.random
    r.seed(5)
    local a = r.rand(4, 3):get():totable()
    r.seed(5)
    assert.same(a, r.random({ 4, 3 }):get():totable())
    cpu.random.seed(5)
    assert.same(a, cpu.random.rand(4, 3):totable())
    assert.same({ 2, 2 }, r.randn(2, 2).shape)
    local i = r.randint(-3, 4, 1000):get():totable()
    for _, x in ipairs(i) do assert.is_true(x >= -3 and x < 4) end
    assert.equal(0, r.random().ndim)
  end)

  H.gpu_it("uniform and normal on the device: moments and KS within bounds", function()
    for _, dtype in ipairs { "float32", "float64" } do
      local u = flat(cuarr.random.default_rng(61):random(N_STATS, dtype))
      local mean, var = moments(u)
      assert.is_true(math.abs(mean - 0.5) < 0.005 and math.abs(var - 1 / 12) < 0.002)
      assert.is_true(ks(u, uniform_cdf) < KS_LIMIT)
      local z = flat(cuarr.random.default_rng(62):standard_normal(N_STATS, dtype))
      local zm, zv = moments(z)
      assert.is_true(math.abs(zm) < 0.015 and math.abs(zv - 1) < 0.02)
      assert.is_true(ks(z, normal_cdf) < KS_LIMIT)
    end
  end)

  H.gpu_it("the issue's example: a Generator's values match the host's", function()
    local g = cuarr.random.default_rng(7)
    assert.equal(g:random(10):get():totable()[3], cpu.random.default_rng(7):random(10):totable()[3])
    local big = cuarr.random.default_rng(7):standard_normal(2 ^ 20 + 3, "float32")
    local host = cpu.random.default_rng(7):standard_normal(2 ^ 20 + 3, "float32")
    assert.same(host:totable(), big:get():totable())
  end)

  H.gpu_it("shuffle of a device array permutes its rows in place", function()
    local x = cuarr.arange(20):reshape({ 10, 2 })
    cuarr.random.default_rng(4):shuffle(x)
    local t = x:get():totable()
    local seen = {}
    for i = 1, 10 do
      assert.equal(t[i][1] + 1, t[i][2])
      seen[t[i][1] // 2] = true
    end
    for k = 0, 9 do assert.is_true(seen[k]) end
  end)
end)
