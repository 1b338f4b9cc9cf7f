-- bench/raw_kernels.lua -- user kernels (RawKernel, RawModule): the host's cost per launch
-- against the raw launch floor, the first call of a new kernel (NVRTC) and its load from the
-- disk cache in a fresh process against their targets, and the `mul` / `mulReg` kernels of the
-- product over a 4096 x 512 x 512 float64 stack (device time by events).
--
-- run(report, opts) as bench/elementwise.lua's; bench/compare_peers.py runs the same cases
-- under the same names through CuPy (cp.RawKernel, cp.RawModule).

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local N_LAUNCHES = 20000 -- launches per timed loop, one synchronize at the end
local LAUNCH_N = 1000 -- elements of the launched kernel
local Z, Y, X = 4096, 512, 512 -- the stack: Z planes of Y x X float64 (8 GiB)

local function fail(msg) error("bench: " .. msg, 0) end

local function check_equal(what, got, want)
  if got ~= want then fail(string.format("%s: got %.17g, want %.17g", what, got, want)) end
end

---------------------------------------------------------------- launch cost

-- The bench's own directory, for the kernel sources both peers read.
local HERE = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local function read_source(name)
  local f = assert(io.open(HERE .. "kernels/" .. name))
  local text = f:read("a")
  f:close()
  return text
end

local ADD_SOURCE = read_source("raw_add.cu")

-- Microseconds per launch of a RawKernel on LAUNCH_N elements: N_LAUNCHES launches as a user
-- writes them (grid, block, args table), one synchronize at the end.
local function raw_launch_us()
  local k = cuarr.RawKernel(ADD_SOURCE, "bench_raw_add")
  local a, b = cuarr.arange(LAUNCH_N, "float32"), cuarr.full(LAUNCH_N, 0.5, "float32")
  local c = cuarr.full(LAUNCH_N, -3, "float32")
  local grid, block = { (LAUNCH_N + 255) // 256 }, { 256 }
  local args = { a, b, c, LAUNCH_N }
  local t = timing.wall_per_op(function(n)
    for _ = 1, n do k(grid, block, args) end
  end, N_LAUNCHES)
  for _, i in ipairs { 1, 2, 500, LAUNCH_N } do check_equal("c[" .. i .. "]", c[i], i - 1 + 0.5) end
  return t * 1e6
end

---------------------------------------------------------------- first call and disk cache

-- A source no cache holds yet: a random constant in it.
local function unique_source()
  local constant = string.format("%d.5", math.random(1, 999999))
  local tag = string.format("%d_%d", os.time(), math.random(1, 1 << 30))
  local src = string.format([[
extern "C" __global__ void bench_raw_new(float* x, int n) {
  /* %s */
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] + %sf;
}
]], tag, constant)
  return src, tonumber(constant)
end

-- Milliseconds from building the kernel to the end of its first call (synchronized); checked.
local function first_call_ms(src, constant)
  local x = cuarr.to_device(cuarr.cpu.arange(4096, "float32"))
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local k = cuarr.RawKernel(src, "bench_raw_new")
  k({ 16 }, { 256 }, { x, 4096 })
  cuarr.synchronize()
  local ms = (cuarr.perf_counter() - t0) * 1e3
  for _, i in ipairs { 1, 4096 } do check_equal("x[" .. i .. "]", x[i], i - 1 + constant) end
  return ms
end

-- What a fresh process runs: prints `first_call_ms <value>` for the source in the file `path`.
function M.child_first_call(path, constant)
  local f = assert(io.open(path))
  local src = f:read("a")
  f:close()
  print(string.format("first_call_ms %.6f", first_call_ms(src, tonumber(constant))))
end

local function shell_quote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

-- child_first_call in a fresh process of the same interpreter (the environment, the cache
-- directory included, is inherited).
local function fresh_process_ms(lua, src, constant)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(src)
  f:close()
  local code = string.format('require("bench.raw_kernels").child_first_call(%q, %q)', path,
                             tostring(constant))
  local cmd = string.format("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s %s -e %s 2>&1",
                            shell_quote(package.path), shell_quote(package.cpath),
                            shell_quote(lua), shell_quote(code))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  os.remove(path)
  local ms = tonumber(out:match("first_call_ms%s+(%S+)"))
  if not ms then fail("fresh process failed: " .. out) end
  return ms
end

-- A new kernel's first call in this process: median of 3 after a throwaway one (which loads
-- NVRTC and whatever else the first compile sets up).
local function raw_compile_ms()
  first_call_ms(unique_source())
  local v = {}
  for i = 1, 3 do v[i] = first_call_ms(unique_source()) end
  return timing.median(v)
end

-- A fresh process compiles a new kernel (storing it on disk), then three more load it.
local function raw_disk_load_ms(lua)
  local in_memory = os.getenv("CUARR_CACHE_IN_MEMORY")
  if in_memory and in_memory ~= "" and in_memory ~= "0" then
    fail("CUARR_CACHE_IN_MEMORY is set: there is no disk cache to load from")
  end
  local src, constant = unique_source()
  local cold = fresh_process_ms(lua, src, constant)
  local v = {}
  for i = 1, 3 do v[i] = fresh_process_ms(lua, src, constant) end
  print(string.format("cuarr raw_fresh_cold_ms %.1f (info: fresh process, nothing cached)", cold))
  return timing.median(v)
end

---------------------------------------------------------------- mul and mulReg

-- The product over z of in[z][y][x]: mul accumulates in global memory, mulReg in a register.
M.MUL_SOURCE = read_source("products.cu")

-- The stack: ones but for plane 1 (y*X + x) and plane Z (0.5), so the product is known.
local stack
local function get_stack()
  if not stack then
    stack = cuarr.ones({ Z, Y, X }, "float64")
    stack[1]:set(cuarr.cpu.arange(Y * X, "float64"):reshape(Y, X))
    stack[Z]:set(cuarr.cpu.full({ Y, X }, 0.5, "float64"))
  end
  return stack
end

-- Milliseconds of device time per call of the kernel (events around batches of 5 calls).
local function product_ms(name)
  local mod = cuarr.RawModule { code = M.MUL_SOURCE }
  local k = mod:get_function(name)
  local inp, out = get_stack(), cuarr.full({ Y, X }, -3, "float64")
  local args = { inp, out, Z, Y, X }
  local t = timing.device_seconds(function() k({ X // 32, Y // 32 }, { 32, 32 }, args) end, 5, 5, 1)
  for _, yx in ipairs { { 1, 1 }, { 1, 2 }, { 300, 17 }, { Y, X } } do
    local y, x = yx[1], yx[2]
    check_equal(name .. " out[" .. y .. "][" .. x .. "]", out[y][x], ((y - 1) * X + (x - 1)) * 0.5)
  end
  out:free()
  return t * 1e3
end

---------------------------------------------------------------- the cases

function M.run(report, opts)
  opts = opts or {}
  local cases = {
    { name = "raw_launch_1000_us", label = "RawKernel launch n=1000", unit = "us",
      share = "times", ceiling = "launch_us", target = 1.10, measure = raw_launch_us },
    { name = "raw_compile_ms", label = "RawKernel first call", unit = "ms", share = "times",
      ceiling = 40, target = 1.0, measure = raw_compile_ms },
    { name = "raw_disk_load_ms", label = "RawKernel disk cache, fresh", unit = "ms",
      share = "times", ceiling = 2, target = 1.0,
      measure = function() return raw_disk_load_ms(opts.lua or "lua5.4") end },
    { name = "mul_ms", label = "mul 4096x512x512 f64", unit = "ms", share = "times",
      ceiling = 4.61, measure = function() return product_ms("mul") end },
    { name = "mulReg_ms", label = "mulReg 4096x512x512 f64", unit = "ms", share = "times",
      ceiling = 2.81, measure = function() return product_ms("mulReg") end },
  }
  for _, case in ipairs(cases) do report(case, case.measure) end
  if stack then
    stack:free()
    stack = nil
  end
end

return M
