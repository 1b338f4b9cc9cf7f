-- bench/elementwise.lua -- elementwise kernels: bandwidth of large ops against the device-to-device
-- copy ceiling, host cost per small op against the raw launch floor, and ElementwiseKernel's
-- compile and disk-cache load times against their targets.
--
-- run(report, opts) measures each case through report(case, measure), which calls measure() and
-- records the row (bench/run.lua has the fields); opts.lua is the interpreter to start fresh processes with.  bench/compare_peers.py runs the
-- same cases under the same names through CuPy and PyTorch.
--
-- Data is never zeros (zeros can flatter): arange and a non-zero fill.  Outputs are poisoned
-- with a fill before the first run, and a few elements of each result are checked, so that a
-- kernel that skips work cannot post a fast figure.

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local F32 = "float32"
local SIDE = 16384 -- the matrix is SIDE x SIDE float32: 1 GiB
local ROTATE_BYTES = 256 << 20 -- small cases rotate among input sets this large in all: far
                               -- above the L2 (50 MiB on an H100), so each call reads DRAM
local BATCH_BYTES = 1 << 32 -- bytes a timed batch moves at least (10 calls at the least)
local N_OPS = 20000 -- ops per timed loop of the per-op cases
local POISON = -3.0 -- what outputs hold before the op writes them
local SPOT_TOL = 1e-6 -- relative: float32 sums rounded once, compared with Lua's doubles

---------------------------------------------------------------- checks

local function fail(msg) error("bench: " .. msg, 0) end

-- got against want, within float32 rounding of want.
local function check_close(what, got, want)
  if not (math.abs(got - want) <= SPOT_TOL * math.abs(want) + SPOT_TOL) then
    fail(string.format("%s: got %.9g, want %.9g", what, got, want))
  end
end

-- A few flat positions of an n-element array: both ends and some between.
local function spots(n)
  local s, seen = {}, {}
  for _, i in ipairs {1, 2, n // 3 + 1, n // 2 + 1, n - 1, n} do
    if i >= 1 and i <= n and not seen[i] then
      seen[i] = true
      s[#s + 1] = i
    end
  end
  return s
end

---------------------------------------------------------------- bandwidth cases

local function gbps(bytes, seconds) return bytes / seconds / 1e9 end

-- Calls per timed batch: enough that a batch lasts well beyond the events' resolution.
local function reps_for(bytes) return math.max(10, math.ceil(BATCH_BYTES / bytes)) end

-- GB/s of cuarr.add(a, b, c) over n float32 (3 x 4n bytes: two reads, one write), rotating
-- among as many input sets as keep the working set out of the L2.
local function add_gbps(n)
  local bytes = 3 * 4 * n
  local sets = {}
  for s = 1, math.max(1, math.ceil(ROTATE_BYTES / bytes)) do
    sets[s] = {a = cuarr.arange(n, F32), b = cuarr.full(n, 0.5, F32), c = cuarr.full(n, POISON, F32)}
  end
  local n_sets = #sets
  local t = timing.device_seconds(function(r)
    local s = sets[(r - 1) % n_sets + 1]
    cuarr.add(s.a, s.b, s.c)
  end, reps_for(bytes))
  for _, s in ipairs(sets) do
    for _, i in ipairs(spots(n)) do check_close("add c[" .. i .. "]", s.c[i], s.a[i] + 0.5) end
    s.a:free(); s.b:free(); s.c:free()
  end
  return gbps(bytes, t)
end

-- The SIDE x SIDE matrix (arange, not zeros) that the broadcast and transpose cases share.
local function make_matrix()
  return cuarr.arange(SIDE * SIDE, F32):reshape(SIDE, SIDE)
end

local MATRIX_SPOTS = {{1, 1}, {1, SIDE}, {SIDE, 1}, {SIDE, SIDE}, {123, 4567}, {9999, 2}}

-- GB/s of a row of SIDE broadcast-added to the matrix, into a preallocated matrix: reads the
-- matrix and the row, writes the matrix.
local function bcast_add_gbps(m)
  local row = cuarr.arange(SIDE, F32)
  local out = cuarr.full({SIDE, SIDE}, POISON, F32)
  local bytes = 2 * 4 * SIDE * SIDE + 4 * SIDE
  local t = timing.device_seconds(function() cuarr.add(m, row, out) end, reps_for(bytes))
  for _, ij in ipairs(MATRIX_SPOTS) do
    local i, j = ij[1], ij[2]
    check_close(string.format("bcast out[%d,%d]", i, j), out[{i, j}], m[{i, j}] + row[j])
  end
  row:free(); out:free()
  return gbps(bytes, t)
end

-- GB/s of m.T:copy() (a C-contiguous transposed copy): reads and writes the matrix once.
-- The copy goes back to the pool inside the loop, as a user's temporary would; the pool hands
-- the same block to the next call.
local function transpose_gbps(m)
  local bytes = 2 * 4 * SIDE * SIDE
  local t = timing.device_seconds(function() m.T:copy():free() end, reps_for(bytes))
  local c = m.T:copy()
  for _, ij in ipairs(MATRIX_SPOTS) do
    local i, j = ij[1], ij[2]
    check_close(string.format("transpose [%d,%d]", i, j), c[{i, j}], m[{j, i}])
  end
  c:free()
  return gbps(bytes, t)
end

-- GB/s of a:astype("float64") over n elements: 4n read, 8n written.
local function astype_gbps(n)
  local a = cuarr.arange(n, F32)
  local bytes = 12 * n
  local t = timing.device_seconds(function() a:astype("float64"):free() end, reps_for(bytes))
  local d = a:astype("float64")
  for _, i in ipairs(spots(n)) do check_close("astype [" .. i .. "]", d[i], a[i]) end
  d:free(); a:free()
  return gbps(bytes, t)
end

---------------------------------------------------------------- per-op cases

-- The loops as a user writes them: the op inline, nothing else per iteration.
local function add_out_loop(a, b, c)
  return function(n_ops)
    for _ = 1, n_ops do cuarr.add(a, b, c) end
  end
end

local function add_alloc_loop(a, b)
  return function(n_ops)
    local c
    for _ = 1, n_ops do c = a + b end
    return c
  end
end

-- Microseconds per op of the loop make(a, b, c) builds, on n-element float32 operands.
local function per_op_us(n, make)
  local a, b = cuarr.full(n, 1.5, F32), cuarr.full(n, 0.25, F32)
  local c = cuarr.full(n, POISON, F32)
  local t = timing.wall_per_op(make(a, b, c), N_OPS)
  -- The last result: the out array for add(a, b, c), a fresh one for a + b.
  local r = make(a, b, c)(1) or c
  for _, i in ipairs(spots(n)) do check_close("per-op [" .. i .. "]", r[i], a[i] + 0.25) end
  a:free(); b:free(); c:free()
  return t * 1e6
end

---------------------------------------------------------------- ElementwiseKernel

-- A fresh (name, constant) pair: the kernel text no cache holds yet.  The name makes the
-- source unique (it is in the generated code), the constant makes the operation unique too; it
-- is an integer plus one half, exact in float32, so that the result can be checked exactly.
local function unique_kernel()
  local tag = string.format("%d_%d", os.time(), math.random(1, 1 << 30))
  return "bench_add_" .. tag, string.format("%d.5", math.random(1, 999999))
end

-- Milliseconds from building the kernel to the end of its first call (synchronized), over
-- x and y; checks the result.  Construction is inside the clock so that the figure is right
-- wherever the library does the work (at construction or at the first call).
local function first_call_ms(x, y, name, constant)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local k = cuarr.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                    "z = x + y + " .. constant .. "f", name)
  local z = k(x, y)
  cuarr.synchronize()
  local ms = (cuarr.perf_counter() - t0) * 1e3
  local n = x.size
  for _, i in ipairs(spots(n)) do
    check_close(name .. " z[" .. i .. "]", z[i], x[i] + y[i] + tonumber(constant))
  end
  z:free()
  return ms
end

local EWK_N = 4096

-- The kernel's inputs, made on the host and copied over: no generated kernel runs before the
-- one timed, so that in a fresh process the first call pays for everything a cache hit needs
-- (the disk cache's setup included) and nothing (NVRTC, say) is loaded beforehand by accident.
local function ewk_inputs()
  local x = cuarr.to_device(cuarr.cpu.arange(EWK_N, F32))
  local y = cuarr.to_device(cuarr.cpu.full(EWK_N, 0.75, F32))
  return x, y
end

-- What a fresh process runs (bench/elementwise.lua's child_first_call through `lua -e`): the
-- device is warmed (context, pool, the inputs' copies), then only the kernel's first call is
-- timed.  Prints `first_call_ms <value>`.
function M.child_first_call(name, constant)
  local x, y = ewk_inputs()
  cuarr.synchronize()
  print(string.format("first_call_ms %.6f", first_call_ms(x, y, name, constant)))
end

local function shell_quote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

-- Runs child_first_call(name, constant) in a fresh process of the same interpreter and module
-- paths (the rest of the environment, a cache directory setting included, is inherited), and
-- returns the milliseconds it printed.
local function fresh_process_ms(lua, name, constant)
  local code = string.format('require("bench.elementwise").child_first_call(%q, %q)', name, constant)
  local cmd = string.format("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s %s -e %s",
                            shell_quote(package.path), shell_quote(package.cpath),
                            shell_quote(lua), shell_quote(code))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok, how, status = p:close()
  local ms = tonumber(out:match("first_call_ms%s+(%S+)"))
  if not ok or not ms then
    fail(string.format("fresh process failed (%s %s), its output: %s", how, status, out))
  end
  return ms
end

-- Cold compile: median of 3 new kernels' first calls in this process, after a throwaway one
-- that loads NVRTC (and everything else a first compile sets up).
local function ewk_compile_ms()
  local x, y = ewk_inputs()
  first_call_ms(x, y, unique_kernel())
  local v = {}
  for i = 1, 3 do v[i] = first_call_ms(x, y, unique_kernel()) end
  x:free(); y:free()
  return timing.median(v)
end

-- Disk-cache load: a fresh process compiles a new kernel (and so stores it on disk); then
-- three more fresh processes build the same kernel text, each timing its first call: median.
local function ewk_disk_load_ms(lua)
  local in_memory = os.getenv("CUARR_CACHE_IN_MEMORY")
  if in_memory and in_memory ~= "" and in_memory ~= "0" then
    fail("CUARR_CACHE_IN_MEMORY is set: there is no disk cache to load from")
  end
  local name, constant = unique_kernel()
  local cold = fresh_process_ms(lua, name, constant)
  local v = {}
  for i = 1, 3 do v[i] = fresh_process_ms(lua, name, constant) end
  -- For reference only: what a program's first new kernel costs, NVRTC's loading included.
  print(string.format("cuarr ewk_fresh_cold_ms %.1f (info: fresh process, nothing cached)", cold))
  return timing.median(v)
end

---------------------------------------------------------------- the cases

local D2D = "d2d_copy_GBps"
local LAUNCH = "launch_us"

-- target: the share the issue asks for (rates: at least this fraction of the ceiling; times:
-- at most this multiple of the floor or target).
local function cases(opts)
  local m -- the matrix: made by the first case that needs it, freed after the transpose
  local function matrix()
    m = m or make_matrix()
    return m
  end
  local function bandwidth(name, label, target, fn)
    return {name = name, label = label, unit = "GB/s", share = "rate", ceiling = D2D,
            target = target, measure = fn}
  end
  local function per_op(name, label, n, make)
    return {name = name, label = label, unit = "us", share = "times", ceiling = LAUNCH,
            target = 1.10, measure = function() return per_op_us(n, make) end}
  end
  return {
    bandwidth("add_1e6_GBps", "add f32 10^6 (12n B)", nil, function() return add_gbps(1000000) end),
    bandwidth("add_1e7_GBps", "add f32 10^7", nil, function() return add_gbps(10000000) end),
    bandwidth("add_2p28_GBps", "add f32 2^28", 0.95, function() return add_gbps(1 << 28) end),
    bandwidth("bcast_add_16k_GBps", "row + 16384^2 f32", 0.90,
              function() return bcast_add_gbps(matrix()) end),
    bandwidth("transpose_copy_16k_GBps", "T():copy() 16384^2 f32", 0.70, function()
      local v = transpose_gbps(matrix())
      m:free()
      m = nil
      return v
    end),
    bandwidth("astype_f32_f64_2p28_GBps", "astype f32->f64 2^28", 0.90,
              function() return astype_gbps(1 << 28) end),
    per_op("add_out_n1_us", "add(a,b,c) n=1 per op", 1, add_out_loop),
    per_op("add_out_n1000_us", "add(a,b,c) n=1000 per op", 1000, add_out_loop),
    per_op("add_alloc_n1_us", "c = a + b n=1 per op", 1, add_alloc_loop),
    per_op("add_alloc_n1000_us", "c = a + b n=1000 per op", 1000, add_alloc_loop),
    {name = "ewk_compile_ms", label = "ElementwiseKernel cold", unit = "ms", share = "times",
     ceiling = 50, target = 1.0, measure = ewk_compile_ms},
    {name = "ewk_disk_load_ms", label = "EWK disk cache, fresh proc", unit = "ms",
     share = "times", ceiling = 2, target = 1.0,
     measure = function() return ewk_disk_load_ms(opts.lua) end},
  }
end

function M.run(report, opts)
  for _, case in ipairs(cases(opts or {})) do report(case, case.measure) end
end

return M
