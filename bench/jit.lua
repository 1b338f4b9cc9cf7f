-- bench/jit.lua -- kernels written in Lua: the seeds' vectorized functions (Numba's figures stand
-- beside them in the note), fused elementwise functions and a fused sum against the copy
-- ceiling, the first call of a new fused / vectorized / jit function and its load from the disk
-- cache in a fresh process against their targets, the host's cost per call of a fused function
-- and a jit kernel on 10 elements against the launch floor, and elementwise_square (a jit
-- rawkernel with a grid-stride loop) at 2^22.
--
-- run(report, opts) as bench/elementwise.lua's; bench/compare_peers.py runs the same cases under
-- the same names through CuPy (cp.vectorize, cp.fuse, cupyx.jit.rawkernel).

local cuarr = require "cuarr"
local timing = require "bench.timing"

local jit = cuarr.jit
local M = {}

local F32 = "float32"
local N_FUSE = 10000000 -- the fused cases' elements (10^7, as the issue's targets)
local N_SQUARE = 1 << 22 -- elementwise_square's elements
local ROTATE_BYTES = 256 << 20 -- cases rotate among input sets this large in all (> the L2)
local BATCH_BYTES = 1 << 32 -- bytes a timed batch moves at least
local N_CALLS = 20000 -- calls per timed loop of the per-call cases
local SMALL_N = 10 -- the per-call cases' elements
local TOL = 2e-6 -- relative, float32 results against Lua's doubles

local SQRT_2PI = math.sqrt(2 * math.pi)

local function fail(msg) error("bench: " .. msg, 0) end

local function check_close(what, got, want, tol)
  tol = tol or TOL
  if not (math.abs(got - want) <= tol * math.abs(want) + tol) then
    fail(string.format("%s: got %.9g, want %.9g", what, got, want))
  end
end

local function f32(x) return (string.unpack("f", string.pack("f", x))) end

local function spots(n)
  local s, seen = {}, {}
  for _, i in ipairs { 1, 2, n // 3 + 1, n // 2 + 1, n - 1, n } do
    if i >= 1 and i <= n and not seen[i] then
      seen[i] = true
      s[#s + 1] = i
    end
  end
  return s
end

local function gbps(bytes, seconds) return bytes / seconds / 1e9 end
local function reps_for(bytes) return math.max(10, math.ceil(BATCH_BYTES / bytes)) end
local function n_sets(bytes) return math.max(1, math.ceil(ROTATE_BYTES / bytes)) end

-- Inputs that are never zero and differ per set: values in [0.5, 1.5) as float32.
local function input(n, seed)
  return (cuarr.arange(n, F32) * 0.6180339887 + seed * 0.1) % 1.0 + 0.5
end

---------------------------------------------------------------- the functions

local gaussian_fused = cuarr.fuse(function(x, mean, sigma)
  return cuarr.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
end)
local function gaussian_ref(x, mean, sigma)
  return math.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
end

local ec = cuarr.fuse(function(x, y, z) return cuarr.sin(x) + cuarr.cos(y) / cuarr.sqrt(z) end)
local squared_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end,
  { kernel_name = "squared_diff" })
local sumsq = cuarr.fuse(function(x) return cuarr.sum(x * x) end)

local add_ufunc = cuarr.vectorize({ "float32(float32, float32)" }, function(x, y) return x + y end)
local gaussian_pdf = cuarr.vectorize({ "float32(float32, float32, float32)" },
  function(x, mean, sigma)
    return math.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
  end)

local square = jit.rawkernel(function(x, y, size)
  local tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
  local ntid = jit.gridDim.x * jit.blockDim.x
  for i = tid + 1, size, ntid do y[i] = x[i] * x[i] end
end)

---------------------------------------------------------------- bandwidth cases

-- GB/s of fn over rotating sets of `nin` float32 inputs of n elements (bytes: (nin + nout) * 4n);
-- check(set, result) spot-checks a set's last result.
local function fused_gbps(n, nin, nout, call, check)
  local bytes = (nin + nout) * 4 * n
  local sets = {}
  for s = 1, n_sets(bytes) do
    local ins = {}
    for k = 1, nin do ins[k] = input(n, s * 7 + k) end
    sets[s] = { ins = ins }
  end
  local count = #sets
  local t = timing.device_seconds(function(r)
    local s = sets[(r - 1) % count + 1]
    s.out = call(s.ins)
  end, reps_for(bytes))
  for _, s in ipairs(sets) do
    check(s.ins, s.out)
    for _, a in ipairs(s.ins) do a:free() end
  end
  return gbps(bytes, t)
end

local function gaussian_gbps()
  return fused_gbps(N_FUSE, 1, 1, function(ins) return gaussian_fused(ins[1], 1.0, 0.25) end,
    function(ins, out)
      for _, i in ipairs(spots(N_FUSE)) do
        check_close("gaussian[" .. i .. "]", out[i], gaussian_ref(ins[1][i], 1.0, 0.25), 1e-5)
      end
    end)
end

local function sincos_gbps()
  return fused_gbps(N_FUSE, 3, 1, function(ins) return ec(ins[1], ins[2], ins[3]) end,
    function(ins, out)
      for _, i in ipairs(spots(N_FUSE)) do
        local x, y, z = ins[1][i], ins[2][i], ins[3][i]
        check_close("ec[" .. i .. "]", out[i], math.sin(x) + math.cos(y) / math.sqrt(z), 1e-5)
      end
    end)
end

local function sqdiff_gbps()
  return fused_gbps(N_FUSE, 2, 1, function(ins) return squared_diff(ins[1], ins[2]) end,
    function(ins, out)
      for _, i in ipairs(spots(N_FUSE)) do
        local d = f32(ins[1][i] - ins[2][i])
        check_close("squared_diff[" .. i .. "]", out[i], d * d)
      end
    end)
end

-- The fused sum of squares reads 4n bytes; checked against the unfused cuarr.sum(x * x).
local function sumsq_gbps()
  return fused_gbps(N_FUSE, 1, 0, function(ins) return sumsq(ins[1]) end, function(ins, out)
    local want = cuarr.sum(ins[1] * ins[1]):item()
    check_close("sumsq", out:item(), want, 1e-5)
  end)
end

-- elementwise_square at 2^22 with the issue's launch: 128 blocks of 1024 threads.
local function square_gbps()
  local n = N_SQUARE
  local bytes = 2 * 4 * n
  local sets = {}
  for s = 1, n_sets(bytes) do
    sets[s] = { args = { input(n, s), cuarr.full(n, -3, F32), n } }
  end
  local count = #sets
  local grid, block = { 128 }, { 1024 }
  local t = timing.device_seconds(function(r)
    square(grid, block, sets[(r - 1) % count + 1].args)
  end, reps_for(bytes))
  for _, s in ipairs(sets) do
    local x, y = s.args[1], s.args[2]
    for _, i in ipairs(spots(n)) do
      local v = x[i]
      check_close("square y[" .. i .. "]", y[i], f32(v * v))
    end
    x:free(); y:free()
  end
  return gbps(bytes, t)
end

---------------------------------------------------------------- the seeds' vectorize figures

-- Wall microseconds of add_ufunc(x, y, {out = o}) at 10^5 device float32 (synchronized).
local function add_ufunc_us()
  local n = 100000
  local x, y = cuarr.arange(n, F32), cuarr.full(n, 10, F32)
  local o = cuarr.full(n, -3, F32)
  local opts = { out = o }
  local t = timing.median_seconds(function() return (timing.wall(function()
    add_ufunc(x, y, opts)
  end)) end, 3, 21)
  for _, i in ipairs(spots(n)) do check_close("add_ufunc o[" .. i .. "]", o[i], i - 1 + 10) end
  return t * 1e6
end

-- Wall milliseconds of gaussian_pdf over 10^6 host float32 values (to the device and back).
local function gaussian_host_ms()
  local n = 1000000
  local x = cuarr.cpu.arange(n, F32) * (1 / n) - 0.5
  x = x:astype(F32)
  local mean, sigma = cuarr.cpu.zeros(n, F32), cuarr.cpu.ones(n, F32)
  local out
  local t = timing.median_seconds(function()
    local t0 = cuarr.perf_counter()
    out = gaussian_pdf(x, mean, sigma)
    return cuarr.perf_counter() - t0
  end, 2, 9)
  if out.device ~= "cpu" then fail("gaussian_pdf of host arrays gave a device array") end
  for _, i in ipairs(spots(n)) do
    check_close("gaussian_pdf[" .. i .. "]", out[i], gaussian_ref(x[i], 0, 1), 1e-5)
  end
  return t * 1e3
end

---------------------------------------------------------------- per call

-- Microseconds per call, host-bound: N_CALLS calls on SMALL_N elements, one synchronize.
local function fuse_call_us()
  local x, y = input(SMALL_N, 1), input(SMALL_N, 2)
  local r
  local t = timing.wall_per_op(function(n)
    for _ = 1, n do r = squared_diff(x, y) end
  end, N_CALLS)
  for i = 1, SMALL_N do
    local d = f32(x[i] - y[i])
    check_close("squared_diff[" .. i .. "]", r[i], d * d)
  end
  return t * 1e6
end

local function jit_call_us()
  local x, y = input(SMALL_N, 3), cuarr.full(SMALL_N, -3, F32)
  local grid, block, args = { 1 }, { 32 }, { x, y, SMALL_N }
  local t = timing.wall_per_op(function(n)
    for _ = 1, n do square(grid, block, args) end
  end, N_CALLS)
  for i = 1, SMALL_N do check_close("square y[" .. i .. "]", y[i], f32(x[i] * x[i])) end
  return t * 1e6
end

---------------------------------------------------------------- first call and disk cache

-- A function no cache holds yet: a random constant in its source.  Each kind is built from a
-- source string (what a REPL user passes); the constant is checked in the result.
local function unique_constant()
  return string.format("%d.5", math.random(1, 999999)), string.format("%d", os.time())
end

local BUILDERS = {
  fuse = function(c, tag)
    local f = cuarr.fuse(string.format("function(x) return x * 2 + %s end -- %s", c, tag))
    return function(x) return f(x) end
  end,
  vec = function(c, tag)
    local f = cuarr.vectorize({ "float32(float32)" },
      string.format("function(x) return x * 2 + %s end -- %s", c, tag))
    return function(x) return f(x) end
  end,
  jit = function(c, tag)
    local k = jit.rawkernel(string.format([[function(x, y, n)
      local i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x + 1
      if i <= n then y[i] = x[i] * 2 + %s end
    end -- %s]], c, tag))
    return function(x)
      local y = cuarr.empty(x.size, F32)
      k({ (x.size + 255) // 256 }, { 256 }, { x, y, x.size })
      return y
    end
  end,
}

-- Milliseconds from building kind's function to the end of its first call; checked.
local function first_call_ms(kind, c, tag)
  local x = cuarr.arange(4096, F32)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local y = BUILDERS[kind](c, tag)(x)
  cuarr.synchronize()
  local ms = (cuarr.perf_counter() - t0) * 1e3
  for _, i in ipairs { 1, 4096 } do
    check_close(kind .. " y[" .. i .. "]", y[i], f32((i - 1) * 2 + tonumber(c)), 1e-7)
  end
  return ms
end

-- What a fresh process runs: prints `first_call_ms <value>`.
function M.child_first_call(kind, c, tag)
  print(string.format("first_call_ms %.6f", first_call_ms(kind, c, tag)))
end

local function shell_quote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

local function fresh_process_ms(lua, kind, c, tag)
  local code = string.format('require("bench.jit").child_first_call(%q, %q, %q)', kind, c, tag)
  local cmd = string.format("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s %s -e %s 2>&1",
                            shell_quote(package.path), shell_quote(package.cpath),
                            shell_quote(lua), shell_quote(code))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  local ms = tonumber(out:match("first_call_ms%s+(%S+)"))
  if not ms then fail("fresh process failed: " .. out) end
  return ms
end

-- A new function's first call in this process: median of 3 after a throwaway one.
local function compile_ms(kind)
  first_call_ms(kind, unique_constant())
  local v = {}
  for i = 1, 3 do v[i] = first_call_ms(kind, unique_constant()) end
  return timing.median(v)
end

-- A fresh process translates and compiles a new function (storing it on disk); three more load it.
local function disk_load_ms(lua, kind)
  local in_memory = os.getenv("CUARR_CACHE_IN_MEMORY")
  if in_memory and in_memory ~= "" and in_memory ~= "0" then
    fail("CUARR_CACHE_IN_MEMORY is set: there is no disk cache to load from")
  end
  local c, tag = unique_constant()
  local cold = fresh_process_ms(lua, kind, c, tag)
  local v = {}
  for i = 1, 3 do v[i] = fresh_process_ms(lua, kind, c, tag) end
  print(string.format("cuarr %s_fresh_cold_ms %.1f (info: fresh process, nothing cached)", kind,
                      cold))
  return timing.median(v)
end

---------------------------------------------------------------- the cases

function M.run(report, opts)
  opts = opts or {}
  local lua = opts.lua or "lua5.4"
  local cases = {
    { name = "vec_add_1e5_out_us", label = "vectorize add 1e5 dev+out", unit = "us",
      share = "times", ceiling = 519, measure = add_ufunc_us },
    { name = "vec_gauss_host_1e6_ms", label = "vectorize gauss 1e6 host", unit = "ms",
      share = "times", ceiling = 5.09, measure = gaussian_host_ms },
    { name = "fuse_gauss_1e7_GBps", label = "fuse gaussian 1e7 f32", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", target = 0.85, measure = gaussian_gbps },
    { name = "fuse_sincos_1e7_GBps", label = "fuse sin+cos/sqrt 1e7", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", target = 0.85, measure = sincos_gbps },
    { name = "fuse_sqdiff_1e7_GBps", label = "fuse squared_diff 1e7", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", target = 0.85, measure = sqdiff_gbps },
    { name = "fuse_sumsq_1e7_GBps", label = "fuse sum(x*x) 1e7", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", target = 0.65, measure = sumsq_gbps },
    { name = "jit_square_4m_GBps", label = "jit elementwise_square 2^22", unit = "GB/s",
      share = "rate", ceiling = "d2d_copy_GBps", target = 0.80, measure = square_gbps },
    { name = "fuse_call_10_us", label = "fuse call n=10", unit = "us", share = "times",
      ceiling = "launch_us", target = 1.3, measure = fuse_call_us },
    { name = "jit_call_10_us", label = "jit kernel call n=10", unit = "us", share = "times",
      ceiling = "launch_us", target = 1.3, measure = jit_call_us },
  }
  for _, kind in ipairs { "fuse", "vec", "jit" } do
    cases[#cases + 1] = { name = kind .. "_compile_ms", label = kind .. " first call", unit = "ms",
      share = "times", ceiling = 60, target = 1.0, measure = function() return compile_ms(kind) end }
    cases[#cases + 1] = { name = kind .. "_disk_load_ms", label = kind .. " disk cache, fresh",
      unit = "ms", share = "times", ceiling = 3, target = 1.0,
      measure = function() return disk_load_ms(lua, kind) end }
  end
  for _, case in ipairs(cases) do report(case, case.measure) end
end

return M
