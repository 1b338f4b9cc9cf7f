-- bench/reduction.lua -- reductions and scans: bandwidth of full and axis reductions and of
-- cumsum against the device-to-device copy ceiling, host cost per small reduction against the
-- raw launch floor and the launch + synchronize round trip, and ReductionKernel's compile and
-- disk-cache load times.
--
-- run(report, opts) measures each case through report(case, measure), which calls measure() and
-- records the row (bench/run.lua has the fields); opts.lua is the interpreter to start fresh
-- processes with.  bench/compare_peers.py runs the same cases under the same names through CuPy
-- and PyTorch.
--
-- Data is never zeros: a period-7 pattern of small integers ((k mod 7) + 1 for the reductions,
-- (k mod 7) - 3 for the scan, k the 0-based flat index), whose results Lua computes exactly.
-- Outputs are poisoned before the timed calls (a value no correct result takes), the results the
-- timed calls left are checked, and each full reduction is run again with a value planted at a
-- few positions (both ends and some between), so that a kernel that skips work cannot post a
-- fast figure.  The timed loops pass a preallocated out= (and options table), so that they time
-- the kernels rather than allocation; the per-op case `a:sum()` allocates, as written by a user.

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local F32 = "float32"
local I64 = "int64"
local SIDE = 16384 -- the matrix is SIDE x SIDE float32: 1 GiB
local BIG = 1 << 28 -- the large full reductions and the scan: 1 GiB of float32
local ROTATE_BYTES = 256 << 20 -- small cases rotate among input sets this large in all: far
                               -- above the L2 (50 MiB on an H100), so each call reads DRAM
local BATCH_BYTES = 1 << 32 -- bytes a timed batch moves at least (10 calls at the least)
local N_OPS = 20000 -- ops per timed loop of the per-op case
local N_SYNC_CALLS = 2000 -- single synchronising calls timed, as ceilings.c's launch_sync_us
local N_SYNC_WARMUP = 100
local PER_OP_N = 1000 -- elements of the per-op cases
local POISON = -0.75 -- what float outputs hold before the op writes them: no case's result
local INDEX_POISON = -3 -- what index outputs hold: never a 1-based index
local PERIOD = 7 -- the pattern's period: not a divisor of any power of two, so that rows,
                 -- columns, tiles and strides all see every phase
local PLANT = 100.25 -- planted above the pattern's maximum for max and argmax
local BUMP = 1 << 20 -- added at a planted position for sum: far above the rounding of a sum
local EXACT = 1 << 24 -- float32 integers are exact below this
local SUM_TOL = 1e-5 -- relative, for float32 sums past EXACT (see check_sum)

---------------------------------------------------------------- data and references

local function fail(msg) error("bench: " .. msg, 0) end

-- The pattern's value at flat 1-based position p: ((p - 1) mod 7) + offset.
local function value(p, offset) return (p - 1) % PERIOD + offset end

-- Sum of the pattern's first n values, exactly (in Lua integers).
local function pattern_sum(n, offset)
  local q, r = n // PERIOD, n % PERIOD
  return q * (PERIOD * (PERIOD - 1) // 2 + PERIOD * offset) + r * (r - 1) // 2 + r * offset
end

-- n float32 values of the pattern, made on the device through int32 (float32 arange is not
-- exact past 2^24).  The temporaries go back to the pool at once.
local function pattern(n, offset)
  local k = cuarr.arange(n, "int32")
  local r = k % PERIOD
  k:free()
  local v = r + offset
  r:free()
  local a = v:astype(F32)
  v:free()
  return a
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

local function check_equal(what, got, want)
  if got ~= want then fail(string.format("%s: got %.10g, want %.10g", what, got, want)) end
end

-- A float32 sum against the exact one.  Below 2^24 every partial sum of the pattern is an
-- integer float32 holds exactly, in any order of addition: the sum must be exact.  Past it the
-- order of additions rounds; a tree of partial sums loses about 1e-7 of the total, and 1e-5
-- still catches a kernel that skips 1/65536 of the data (the planted values catch the rest).
local function check_sum(what, got, want)
  local tol = math.abs(want) < EXACT and 0 or SUM_TOL * math.abs(want)
  if not (math.abs(got - want) <= tol) then
    fail(string.format("%s: got %.10g, want %.10g (tolerance %g)", what, got, want, tol))
  end
end

---------------------------------------------------------------- full reductions

local function gbps(bytes, seconds) return bytes / seconds / 1e9 end

-- Calls per timed batch: enough that a batch lasts well beyond the events' resolution.
local function reps_for(bytes) return math.max(10, math.ceil(BATCH_BYTES / bytes)) end

-- The three full reductions: the out dtype and poison, the result on the pattern (values
-- 1..7), what to plant at position p, and the result once it is planted there.
local FULL = {
  sum = {
    dtype = F32, poison = POISON, check = check_sum,
    want = function(n) return pattern_sum(n, 1) end,
    plant = function(p) return value(p, 1) + BUMP end,
    planted = function(n) return pattern_sum(n, 1) + BUMP end,
  },
  max = {
    dtype = F32, poison = POISON, check = check_equal,
    want = function() return PERIOD end,
    plant = function() return PLANT end,
    planted = function() return PLANT end,
  },
  argmax = { -- the first of the equal maxima: position 7
    dtype = I64, poison = INDEX_POISON, check = check_equal,
    want = function() return PERIOD end,
    plant = function() return PLANT end,
    planted = function(_, p) return p end,
  },
}

-- Input sets of n elements, made once per size and shared by the sum, max and argmax cases of
-- that size (they only read them; the planted checks put every value back).
local held = {n = nil, sets = nil}

local function release_sets()
  for _, s in ipairs(held.sets or {}) do s.a:free() end
  held.n, held.sets = nil, nil
  collectgarbage()
end

local function sets_for(n)
  if held.n == n then return held.sets end
  release_sets()
  local sets = {{a = pattern(n, 1)}}
  for s = 2, math.max(1, math.ceil(ROTATE_BYTES / (4 * n))) do sets[s] = {a = sets[1].a:copy()} end
  held.n, held.sets = n, sets
  return sets
end

-- Plants a value at each spot of a in turn, checks what fn(a) gives, and puts the value back.
local function check_planted(op, a, n)
  local spec, fn = FULL[op], cuarr[op]
  for _, p in ipairs(spots(n)) do
    a[p] = spec.plant(p)
    local ok, err = pcall(function()
      spec.check(string.format("%s with %g planted at %d of %d", op, spec.plant(p), p, n),
                 fn(a):item(), spec.planted(n, p))
    end)
    a[p] = value(p, 1)
    if not ok then error(err, 0) end
  end
end

-- GB/s of cuarr[op](a, nil, {out = o}) over n float32 (4n bytes read), rotating among as many
-- input sets as keep the working set out of the L2.
local function full_gbps(op, n)
  local spec, fn = FULL[op], cuarr[op]
  local sets = sets_for(n)
  for _, s in ipairs(sets) do
    s.out = cuarr.full({}, spec.poison, spec.dtype)
    s.opts = {out = s.out} -- made once: the loop times the call, not a table's construction
  end
  local n_sets, bytes = #sets, 4 * n
  local t = timing.device_seconds(function(r)
    local s = sets[(r - 1) % n_sets + 1]
    fn(s.a, nil, s.opts)
  end, reps_for(bytes))
  -- What the timed calls left in each out, then the planted values on the first and last set.
  local want = spec.want(n)
  for i, s in ipairs(sets) do
    spec.check(string.format("%s of set %d (n = %d)", op, i, n), s.out:item(), want)
    s.out:free()
    s.out, s.opts = nil, nil
  end
  check_planted(op, sets[1].a, n)
  if n_sets > 1 then check_planted(op, sets[n_sets].a, n) end
  return gbps(bytes, t)
end

---------------------------------------------------------------- axis reductions

-- The SIDE x SIDE matrix of the pattern (values 1..7), made on first use.
local matrix_held

local function matrix()
  matrix_held = matrix_held or pattern(SIDE * SIDE, 1):reshape(SIDE, SIDE)
  return matrix_held
end

local function release_matrix()
  if matrix_held then matrix_held:free() end
  matrix_held = nil
  collectgarbage()
end

-- The exact sum of line `line` of the matrix along `axis` (1: down column `line`; 2: along row
-- `line`).  SIDE mod 7 = 4, so the value at (i, j) is ((4 (i - 1) + j - 1) mod 7) + 1: lines
-- 7 apart have the same sum, and only lines 1..7 need computing.
local function line_sum(axis, line)
  local s = 0
  for k = 1, SIDE do
    local i, j = k, line
    if axis == 2 then i, j = line, k end
    s = s + value((i - 1) * SIDE + j, 1)
  end
  return s
end

-- GB/s of cuarr.sum(m, axis, {out = o}) over the matrix: reads it once, writes SIDE floats.
-- Axis 1 sums down the columns (the strided axis, NumPy's 0), axis 2 along the rows.  Every
-- element of the result is checked (each sum is an integer below 2^24: exact in any order).
local function axis_sum_gbps(axis)
  local m = matrix()
  local out = cuarr.full(SIDE, POISON, F32)
  local opts = {out = out}
  local bytes = 4 * SIDE * SIDE + 4 * SIDE
  local t = timing.device_seconds(function() cuarr.sum(m, axis, opts) end, reps_for(bytes))
  local want = {}
  for line = 1, PERIOD do want[line] = line_sum(axis, line) end
  local got = out:totable()
  if #got ~= SIDE then fail(string.format("sum axis %d: %d results, want %d", axis, #got, SIDE)) end
  for line = 1, SIDE do
    local w = want[(line - 1) % PERIOD + 1]
    if got[line] ~= w then
      fail(string.format("sum axis %d [%d]: got %.10g, want %.10g", axis, line, got[line], w))
    end
  end
  out:free()
  return gbps(bytes, t)
end

---------------------------------------------------------------- scan

-- GB/s of cuarr.cumsum(a, nil, {out = o}) over 2^28 float32: 8 bytes per element (read +
-- write).  The input is (k mod 7) - 3: every prefix sum lies in {0, -3, -5, -6} (a scan only
-- ever adds contiguous ranges, whose sums are as small), so each output is exact in any order
-- of addition, and the prefix at position p is r (r - 7) / 2 with r = p mod 7.  A few spots are
-- checked against Lua, then every element on the device against that formula.
local function cumsum_gbps()
  local n = BIG
  local a = pattern(n, -3)
  local out = cuarr.full(n, POISON, F32)
  local opts = {out = out}
  local bytes = 8 * n
  local t = timing.device_seconds(function() cuarr.cumsum(a, nil, opts) end, reps_for(bytes))
  a:free()
  for _, p in ipairs(spots(n)) do
    local r = p % PERIOD
    check_equal("cumsum [" .. p .. "]", out[p], r * (r - PERIOD) // 2)
  end
  local k = cuarr.arange(n, "int32")
  local p = k + 1
  k:free()
  local r = p % PERIOD
  p:free()
  local rm = r - PERIOD
  local prod = r * rm
  r:free(); rm:free()
  local want = prod // 2
  prod:free()
  local diff = out:ne(want)
  want:free(); out:free()
  local wrong = cuarr.count_nonzero(diff):item()
  diff:free()
  if wrong ~= 0 then fail(string.format("cumsum: %d of %d elements wrong", wrong, n)) end
  collectgarbage()
  return gbps(bytes, t)
end

---------------------------------------------------------------- per-op cases

-- The loop as a user writes it: the op inline, allocating its 0-d result, nothing else.
local function sum_alloc_loop(a)
  return function(n_ops)
    local s
    for _ = 1, n_ops do s = a:sum() end
    return s
  end
end

-- Microseconds per a:sum() on PER_OP_N float32, one synchronize after N_OPS of them.
local function sum_alloc_us()
  local a = pattern(PER_OP_N, 1)
  local t = timing.wall_per_op(sum_alloc_loop(a), N_OPS)
  local s = sum_alloc_loop(a)(1)
  check_equal("a:sum() per op", s:item(), pattern_sum(PER_OP_N, 1))
  s:free(); a:free()
  return t * 1e6
end

-- Microseconds per a:sum():item() on PER_OP_N float32 (each call waits for the device): the
-- median of single calls after a warm-up, as ceilings.c times launch + synchronize.  Every
-- call's value is checked, outside the clock.
local function sum_item_us()
  local a = pattern(PER_OP_N, 1)
  local want = pattern_sum(PER_OP_N, 1)
  local bad
  cuarr.synchronize()
  local t = timing.median_seconds(function()
    local t0 = cuarr.perf_counter()
    local v = a:sum():item()
    local dt = cuarr.perf_counter() - t0
    if v ~= want then bad = v end
    return dt
  end, N_SYNC_WARMUP, N_SYNC_CALLS)
  a:free()
  if bad then check_equal("a:sum():item()", bad, want) end
  return t * 1e6
end

---------------------------------------------------------------- ReductionKernel

local RK_N = 4096

-- A fresh (name, constant) pair: a kernel text no cache holds yet.  The name makes the source
-- unique, the constant the map expression too; it is an integer, so that the sum of x + c over
-- 0..4095 (at most 8386560 + 4096 * 999, below 2^24) is exact in any order.
local function unique_kernel()
  local tag = string.format("%d_%d", os.time(), math.random(1, 1 << 30))
  return "bench_rsum_" .. tag, tostring(math.random(1, 999))
end

-- Milliseconds from building the kernel to the end of its first call (synchronized) over x;
-- checks the result.  Construction is inside the clock so that the figure is right wherever the
-- library does the work (at construction or at the first call).
local function first_call_ms(x, name, constant)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local k = cuarr.ReductionKernel("float32 x", "float32 y", "x + " .. constant .. ".0f", "a + b",
                                  "y = a", "0", name)
  local y = k(x)
  cuarr.synchronize()
  local ms = (cuarr.perf_counter() - t0) * 1e3
  check_equal(name .. " result", y:item(), RK_N * (RK_N - 1) // 2 + RK_N * tonumber(constant))
  y:free()
  return ms
end

-- The kernel's input, made on the host and copied over: no generated kernel runs before the one
-- timed, so that in a fresh process the first call pays for everything a cache hit needs.
local function rk_input()
  return cuarr.to_device(cuarr.cpu.arange(RK_N, F32))
end

-- What a fresh process runs (through `lua -e`): the device is warmed (context, pool, the input's
-- copy), then only the kernel's first call is timed.  Prints `first_call_ms <value>`.
function M.child_first_call(name, constant)
  local x = rk_input()
  cuarr.synchronize()
  print(string.format("first_call_ms %.6f", first_call_ms(x, name, constant)))
end

local function shell_quote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

-- Runs child_first_call(name, constant) in a fresh process of the same interpreter and module
-- paths (the rest of the environment, a cache directory setting included, is inherited), and
-- returns the milliseconds it printed.
local function fresh_process_ms(lua, name, constant)
  local code = string.format('require("bench.reduction").child_first_call(%q, %q)', name, constant)
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
local function rk_compile_ms()
  local x = rk_input()
  first_call_ms(x, unique_kernel())
  local v = {}
  for i = 1, 3 do v[i] = first_call_ms(x, unique_kernel()) end
  x:free()
  return timing.median(v)
end

-- Disk-cache load: a fresh process compiles a new kernel (and so stores it on disk); then
-- three more fresh processes build the same kernel text, each timing its first call: median.
local function rk_disk_load_ms(lua)
  local in_memory = os.getenv("CUARR_CACHE_IN_MEMORY")
  if in_memory and in_memory ~= "" and in_memory ~= "0" then
    fail("CUARR_CACHE_IN_MEMORY is set: there is no disk cache to load from")
  end
  local name, constant = unique_kernel()
  local cold = fresh_process_ms(lua, name, constant)
  local v = {}
  for i = 1, 3 do v[i] = fresh_process_ms(lua, name, constant) end
  print(string.format("cuarr rk_fresh_cold_ms %.1f (info: fresh process, nothing cached)", cold))
  return timing.median(v)
end

---------------------------------------------------------------- the cases

local D2D = "d2d_copy_GBps"
local LAUNCH = "launch_us"
local LAUNCH_SYNC = "launch_sync_us"

-- target: the share the issue asks for (rates: at least this fraction of the ceiling; times:
-- at most this multiple of the floor or target; over: at most this many us above the ceiling).
local function cases(opts)
  local function bandwidth(name, label, target, fn)
    return {name = name, label = label, unit = "GB/s", share = "rate", ceiling = D2D,
            target = target, measure = fn}
  end
  local list = {}
  for _, size in ipairs {{"1e6", "10^6", 1000000}, {"1e7", "10^7", 10000000},
                         {"2p28", "2^28", BIG}} do
    local tag, shown, n = size[1], size[2], size[3]
    local big = n == BIG
    list[#list + 1] = bandwidth("sum_" .. tag .. "_GBps",
                                "sum f32 " .. shown .. (n == 1000000 and " (4n B)" or ""),
                                big and 0.97 or nil, function() return full_gbps("sum", n) end)
    list[#list + 1] = bandwidth("max_" .. tag .. "_GBps", "max f32 " .. shown, nil,
                                function() return full_gbps("max", n) end)
    list[#list + 1] = bandwidth("argmax_" .. tag .. "_GBps", "argmax f32 " .. shown,
                                big and 0.95 or nil, function()
      local v = full_gbps("argmax", n)
      if big then release_sets() end -- the last case of the largest size
      return v
    end)
  end
  list[#list + 1] = bandwidth("sum_axis1_16k_GBps", "sum axis 1 16384^2 f32", 0.95,
                              function() return axis_sum_gbps(1) end)
  list[#list + 1] = bandwidth("sum_axis2_16k_GBps", "sum axis 2 16384^2 f32", 0.97, function()
    local v = axis_sum_gbps(2)
    release_matrix()
    return v
  end)
  list[#list + 1] = bandwidth("cumsum_2p28_GBps", "cumsum f32 2^28 (8n B)", 0.85, cumsum_gbps)
  list[#list + 1] = {name = "sum_alloc_n1000_us", label = "a:sum() n=1000 per op", unit = "us",
                     share = "times", ceiling = LAUNCH, target = 1.10, measure = sum_alloc_us}
  list[#list + 1] = {name = "sum_item_n1000_us", label = "a:sum():item() n=1000",
                     unit = "us", share = "over", ceiling = LAUNCH_SYNC, target = 5.0,
                     measure = sum_item_us}
  list[#list + 1] = {name = "rk_compile_ms", label = "ReductionKernel cold", unit = "ms",
                     share = "times", ceiling = 60, target = 1.0, measure = rk_compile_ms}
  -- No target of its own in the issue: shown against ElementwiseKernel's 2 ms.
  list[#list + 1] = {name = "rk_disk_load_ms", label = "RK disk cache, fresh proc", unit = "ms",
                     share = "times", ceiling = 2,
                     measure = function() return rk_disk_load_ms(opts.lua) end}
  return list
end

function M.run(report, opts)
  for _, case in ipairs(cases(opts or {})) do report(case, case.measure) end
  -- Whatever a failed case left held.
  release_sets()
  release_matrix()
end

return M
