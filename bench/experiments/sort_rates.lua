-- sort_rates.lua -- the sorting figures issue 18 asks for, on the current GPU: sort and argsort
-- of float32 2^26 and sort of int64 2^26 (keys per second), unique of 2^24 int32 with 1000
-- distinct values (ms), and the first sort of a fresh process (ms, run as a child process, which
-- pays for opening libcuarr_sort.so, the CUDA runtime in it and loading CUB's kernels).
--   lua5.4 bench/experiments/sort_rates.lua            (with the checkout's LUA_PATH/LUA_CPATH)
local cuarr = require "cuarr"

if arg[1] == "--first-call" then
  -- the device, its context and the pool are up before the clock starts, as in a program
  local a = cuarr.arange(1 << 20, "float32")
  cuarr.Device(0):synchronize()
  local w0 = cuarr.perf_counter()
  local s = cuarr.sort(a)
  cuarr.Device(0):synchronize()
  io.write(string.format("%.3f ms (%d sorted)\n", (cuarr.perf_counter() - w0) * 1e3, s.size))
  return
end

local function gpu_ms(fn, ...)
  local r = cuarr.profiler.benchmark(fn, { ... }, { n_repeat = 20, n_warmup = 3 })
  local t, sum = r.gpu_times[1], 0
  for i = 1, #t do sum = sum + t[i] end
  return sum / #t * 1e3
end

local n = 1 << 26
local f32 = cuarr.random.random(n):astype("float32")
local i64 = (cuarr.random.random(n) * 2 ^ 62):astype("int64")
local ms = gpu_ms(cuarr.sort, f32)
print(string.format("sort float32 2^26:    %7.3f ms  %8.0f M keys/s", ms, n / ms / 1e3))
ms = gpu_ms(cuarr.argsort, f32)
print(string.format("argsort float32 2^26: %7.3f ms  %8.0f M keys/s", ms, n / ms / 1e3))
ms = gpu_ms(cuarr.sort, i64)
print(string.format("sort int64 2^26:      %7.3f ms  %8.0f M keys/s", ms, n / ms / 1e3))
local labels = (cuarr.random.random(1 << 24) * 1000):astype("int32")
ms = gpu_ms(cuarr.unique, labels)
print(string.format("unique 2^24 int32 (1000 values): %7.3f ms", ms))
local exe = "lua5.4 " .. arg[0] .. " --first-call"
local p = io.popen(exe)
local out = p and p:read("a") or ""
if p then p:close() end
io.write("first sort of 2^20 float32 in a fresh process: " .. out)
