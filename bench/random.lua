-- bench/random.lua -- cuarr.random's write rates: uniform and standard normal float32 at 2^28
-- and randint int64 at 2^27 from a Generator, each into a preallocated output (out=) and as the
-- output's bytes over device time (bench/timing.lua's device_seconds), as shares of the D2D copy
-- ceiling.  The issue's targets (on an H100) are absolute: uniform >= 2800 GB/s, standard normal
-- >= 2500 GB/s, randint >= 2500 GB/s; the labels carry them.
--
-- run(report, opts) as bench/elementwise.lua's; bench/peer_random.py runs the same cases under
-- the same names through CuPy (Generator and the legacy API) and PyTorch.

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local N_FLOAT = 1 << 28
local N_INT = 1 << 27
local REPS = 10

local function gbps(bytes, seconds) return bytes / seconds / 1e9 end

local function check(ok, what)
  if not ok then error("bench: " .. what, 0) end
end

-- The write rate of draw(g, out) into out, after checking a few values against the host's.
local function rate(n, dtype, draw, host_draw)
  local g = cuarr.random.default_rng(1)
  local out <close> = cuarr.empty(n, dtype)
  draw(g, out)
  local first = out[{ { 1, 8 } }]:get():totable()
  local want = host_draw(cuarr.cpu.random.default_rng(1)):totable()
  for i = 1, 8 do check(first[i] == want[i], "device and host streams differ") end
  local seconds = timing.device_seconds(function() draw(g, out) end, REPS)
  return gbps(out.nbytes, seconds)
end

local function uniform_gbps()
  return rate(N_FLOAT, "float32", function(g, out) g:random(nil, nil, { out = out }) end,
    function(g) return g:random(8, "float32") end)
end

local function normal_gbps()
  return rate(N_FLOAT, "float32", function(g, out) g:standard_normal(nil, nil, { out = out }) end,
    function(g) return g:standard_normal(8, "float32") end)
end

-- randint has no out=: each call allocates its output from the pool (a cached block).
local function randint_gbps()
  local g = cuarr.random.default_rng(1)
  local first = g:integers(0, 1000, 8, "int64"):get():totable()
  local want = cuarr.cpu.random.default_rng(1):integers(0, 1000, 8, "int64"):totable()
  for i = 1, 8 do check(first[i] == want[i], "device and host integers differ") end
  local seconds = timing.device_seconds(function() g:integers(0, 1000, N_INT, "int64") end, REPS)
  return gbps(N_INT * 8, seconds)
end

-- A permutation of 2^24 (int64 keys drawn and argsorted on the device), ms per call; checked
-- against the host's, which sorts the same keys.
local function permutation_ms()
  local n = 1 << 24
  local d = cuarr.random.default_rng(1):permutation(n)[{ { 1, 8 } }]:get():totable()
  local h = cuarr.cpu.random.default_rng(1):permutation(n)[{ { 1, 8 } }]:totable()
  for i = 1, 8 do check(d[i] == h[i], "device and host permutations differ") end
  local g = cuarr.random.default_rng(2)
  return timing.device_seconds(function() g:permutation(n) end, REPS) * 1e3
end

-- The same through the legacy functions (CuPy's legacy API is a row of its own).
local function legacy_uniform_gbps()
  local out <close> = cuarr.empty(N_FLOAT, "float32")
  cuarr.random.seed(1)
  local seconds = timing.device_seconds(function()
    cuarr.random.random(nil, nil, { out = out })
  end, REPS)
  return gbps(out.nbytes, seconds)
end

local function legacy_normal_gbps()
  local out <close> = cuarr.empty(N_FLOAT, "float32")
  cuarr.random.seed(1)
  local seconds = timing.device_seconds(function()
    cuarr.random.standard_normal(nil, nil, { out = out })
  end, REPS)
  return gbps(out.nbytes, seconds)
end

local function legacy_randint_gbps()
  cuarr.random.seed(1)
  local seconds = timing.device_seconds(function()
    cuarr.random.randint(0, 1000, N_INT, "int64")
  end, REPS)
  return gbps(N_INT * 8, seconds)
end

function M.run(report)
  local cases = {
    { name = "rand_uniform_f32_2p28_GBps", label = "uniform f32 2^28 (>=2800)", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", measure = uniform_gbps },
    { name = "rand_normal_f32_2p28_GBps", label = "std normal f32 2^28 (>=2500)", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", measure = normal_gbps },
    { name = "rand_randint_i64_2p27_GBps", label = "randint i64 2^27 (>=2500)", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", measure = randint_gbps },
    { name = "rand_uniform_f32_2p28_legacy_GBps", label = "uniform f32 2^28 legacy", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", measure = legacy_uniform_gbps },
    { name = "rand_normal_f32_2p28_legacy_GBps", label = "std normal f32 2^28 legacy",
      unit = "GB/s", share = "rate", ceiling = "d2d_copy_GBps", measure = legacy_normal_gbps },
    { name = "rand_randint_i64_2p27_legacy_GBps", label = "randint i64 2^27 legacy",
      unit = "GB/s", share = "rate", ceiling = "d2d_copy_GBps", measure = legacy_randint_gbps },
  }
  cases[#cases + 1] = { name = "rand_permutation_2p24_ms", label = "permutation 2^24", unit = "ms",
                        measure = permutation_ms }
  for _, case in ipairs(cases) do report(case, case.measure) end
end

return M
