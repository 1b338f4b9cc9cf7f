-- bench/run.lua -- cuarr's own figures beside the machine's ceilings.
--
-- The ceilings come from bench/ceilings.c (the raw driver API); `make bench` runs it first and
-- passes its output here.  The cases live in modules: bench/transfers.lua (host<->device copies,
-- the pool), bench/elementwise.lua (elementwise ops, per-op cost, ElementwiseKernel) and
-- bench/reduction.lua (reductions, cumsum, per-op cost, ReductionKernel), bench/raw_kernels.lua
-- (RawKernel launches and compiles, mul and mulReg), bench/graphs.lua (graph replay against
-- eager ops), bench/jit.lua (kernels written in Lua: vectorize, fuse, jit.rawkernel),
-- bench/random.lua (cuarr.random's write rates), bench/matmul.lua (cuarr.matmul in TF/s
-- against the raw cuBLAS call's rate, whose figure is both its raw and its ceiling, and the
-- 64 x 64 product's cost per call against the launch floor) and bench/linalg.lua (det, solve
-- and inv of a 4096 x 4096 float64 matrix and det of 10 000 8 x 8, in ms, their targets
-- relative to CuPy's and so decided in compare_peers.py's table), bench/arrays.lua (sorting,
-- masks, take, joining and flipping: issue 18's figures), bench/distributed.lua (all_reduce
-- and a copy between two devices, when there are two), with the clocks in
-- bench/timing.lua.  Environment:
--   CUARR_CEILINGS      file holding the ceilings program's output (`ceiling <name> <value>`,
--                       `device <name>`, `driver <version>`); without it the shares are blank
--   CUARR_BENCH_OUT     file to write cuarr's figures to, as `name value` lines, for
--                       bench/compare_peers.py
--   CUARR_BENCH_SUITES  comma-separated suites to run (default: all of transfers, elementwise,
--                       reduction, raw_kernels, graphs, jit, random, matmul, linalg, arrays,
--                       distributed)
-- Each figure prints as `cuarr <name> <value>` when measured; a short table comes last (the GPU
-- machine returns only the tail of the output).  A case that fails is reported and the others
-- still run; the exit status is 1 when any failed.

-- The checkout's root on the path, so that `require "bench.timing"` works from any directory.
do
  local dir = arg and arg[0] and arg[0]:match("^(.*)[/\\]") or "."
  package.path = dir .. "/../?.lua;" .. package.path
end

local cuarr = require "cuarr"

local SUITES = {
  {name = "transfers", module = "bench.transfers"},
  {name = "elementwise", module = "bench.elementwise"},
  {name = "reduction", module = "bench.reduction"},
  {name = "raw_kernels", module = "bench.raw_kernels"},
  {name = "graphs", module = "bench.graphs"},
  {name = "jit", module = "bench.jit"},
  {name = "random", module = "bench.random"},
  {name = "matmul", module = "bench.matmul"},
  {name = "linalg", module = "bench.linalg"},
  {name = "arrays", module = "bench.arrays"},
  {name = "distributed", module = "bench.distributed"},
}

local function fail(msg)
  io.stderr:write("bench: ", msg, "\n")
  os.exit(1)
end

---------------------------------------------------------------- ceilings file

local function read_ceilings(path)
  local c = {values = {}}
  if not path then return c end
  local f, err = io.open(path)
  if not f then
    io.stderr:write("bench: no ceilings (", err, "): shares left blank\n")
    return c
  end
  for line in f:lines() do
    local name, value = line:match("^ceiling%s+(%S+)%s+(%S+)")
    if name then
      c.values[name] = tonumber(value)
    else
      c.device = c.device or line:match("^device%s+(.+)$")
      c.driver = c.driver or line:match("^driver%s+(.+)$")
    end
  end
  f:close()
  return c
end

---------------------------------------------------------------- output

-- A row (what the suites' cases carry, plus the value measured):
--   name     the figure's name, as bench/compare_peers.py names it (_GBps, _TFLOPs, _us, _ms)
--   label    what the table shows
--   unit     GB/s, TF/s, us or ms
--   value    the figure; nil when the case failed
--   raw      the ceilings figure of the same work through the bare driver, or nil
--   ceiling  what the share is of: a ceilings figure's name, or a fixed target (a number)
--   share    rate | inverse | times | over (see share below)
--   target   the share the issue asks for, or nil: rates at least this fraction of the
--            ceiling, times at most this multiple of it, over at most this much above it

-- The machine's own figures, which no cuarr code takes part in.
local MACHINE_ROWS = {
  {label = "D2D copy 1 GiB (r+w)", unit = "GB/s", ceiling = "d2d_copy_GBps"},
  {label = "launch, plain", unit = "us", ceiling = "launch_plain_us"},
  {label = "launch, dependent (PDL)", unit = "us", ceiling = "launch_dependent_us"},
  {label = "launch floor (the lower)", unit = "us", ceiling = "launch_us"},
  {label = "launch + synchronize", unit = "us", ceiling = "launch_sync_us"},
}

local function fmt(v) return v and string.format("%.2f", v) or "-" end

local function reference(row, values)
  if type(row.ceiling) == "number" then return row.ceiling end
  return values[row.ceiling]
end

-- A row's share of its reference, as a number and as printed:
--   rate     value / ceiling, a percentage (bytes moved per second against the copy's)
--   inverse  ceiling / value, a percentage (a time against the raw call's: above 100% is
--            faster than the driver, as the pool should be)
--   times    value / reference, a multiple (a time against its floor or target: 1.05x)
--   over     value - reference, in the row's unit (a time against a round trip it adds to:
--            +3.20)
local function share(row, ref)
  if not (row.value and ref and row.value > 0 and ref > 0) then return nil, "-" end
  if row.share == "over" then
    local s = row.value - ref
    return s, string.format("%+.2f", s)
  end
  if row.share == "inverse" then
    local s = ref / row.value
    return s, string.format("%.0f%%", 100 * s)
  end
  local s = row.value / ref
  if row.share == "rate" then return s, string.format("%.0f%%", 100 * s) end
  return s, string.format("%.2fx", s)
end

-- The target as printed, and whether the share meets it.
local function target(row, s)
  if not row.target then return "" end
  local want, met
  if row.share == "times" then
    want, met = string.format("<=%.2fx", row.target), s and s <= row.target
  elseif row.share == "over" then
    want, met = string.format("<=%+.2f", row.target), s and s <= row.target
  else
    want, met = string.format(">=%.0f%%", 100 * row.target), s and s >= row.target
  end
  if s == nil then return want end
  return want .. (met and " ok" or " MISS")
end

local ROW = "%-26s %9s %9s %9s %-4s %6s  %s"

local function print_table(rows, ceilings)
  local v = ceilings.values
  print()
  print(string.format("cuarr bench: %s, driver %s", ceilings.device or "?", ceilings.driver or "?"))
  print(string.format(ROW, "figure", "cuarr", "raw", "ceiling", "unit", "share", "target"))
  for _, r in ipairs(MACHINE_ROWS) do
    print(string.format(ROW, r.label, "-", "-", fmt(v[r.ceiling]), r.unit, "-", ""))
  end
  for _, r in ipairs(rows) do
    local ref = reference(r, v)
    local s, shown = share(r, ref)
    print(string.format(ROW, r.label, r.value and fmt(r.value) or "FAILED",
                        fmt(r.raw and v[r.raw]), fmt(ref), r.unit, shown, target(r, s)))
  end
  print("raw: the same work through the bare driver.  ceiling: for transfers their pinned copy")
  print("or cuMemAlloc+Free; GB/s rows the D2D copy (bytes read + written); us per op the launch")
  print("floor, or launch + synchronize for item(); ms rows the target.  share: % of a rate; for")
  print("the pool ceiling/cuarr as %; item() cuarr-ceiling in us (+x.xx); other times")
  print("cuarr/ceiling as x (lower is better).  TF/s rows: raw and ceiling are the same")
  print("product through the bare cuBLAS call; ms rows with no ceiling compare in the peers' table")
end

local function write_figures(path, rows)
  if not path then return end
  local f = assert(io.open(path, "w"))
  for _, r in ipairs(rows) do
    if r.value then f:write(r.name, " ", string.format("%.6g", r.value), "\n") end
  end
  f:close()
end

---------------------------------------------------------------- main

-- The interpreter running this script (arg's lowest index), for the fresh processes.
local function interpreter()
  local i = 0
  while arg and arg[i - 1] do i = i - 1 end
  return i < 0 and arg[i] or "lua5.4"
end

local function selected_suites()
  local want = os.getenv("CUARR_BENCH_SUITES")
  if not want or want == "" then return SUITES end
  local chosen = {}
  for _, s in ipairs(SUITES) do
    if ("," .. want .. ","):find("," .. s.name .. ",", 1, true) then chosen[#chosen + 1] = s end
  end
  if #chosen == 0 then fail("CUARR_BENCH_SUITES names no suite: " .. want) end
  return chosen
end

-- A check's own failure ("bench: ...") says all there is; anything else gets its traceback.
local function with_traceback(e)
  local msg = tostring(e)
  if msg:sub(1, 7) == "bench: " then return msg end
  return debug.traceback(msg, 2)
end

local function main()
  if not cuarr.is_available() then
    local rt = cuarr.runtime
    fail(string.format("no usable GPU (driver_version %s, device_count %s)%s",
                       tostring(rt.driver_version), tostring(rt.device_count),
                       rt.driver_missing and ": " .. rt.driver_missing or ""))
  end
  local ceilings = read_ceilings(os.getenv("CUARR_CEILINGS"))
  ceilings.device = ceilings.device or cuarr.Device(0).properties.name
  ceilings.driver = ceilings.driver or tostring(cuarr.runtime.driver_version)

  local rows, failures = {}, {}
  -- A failing case (a wrong result, an error) is reported and the others still run: one GPU
  -- call then says all there is to say.
  local function note_failure(what, err)
    failures[#failures + 1] = what
    print(string.format("cuarr %s FAILED: %s", what, err))
    collectgarbage() -- what the failed case left allocated
  end
  local function report(case, measure, ...)
    local ok, value = xpcall(measure, with_traceback, ...)
    if ok then
      print(string.format("cuarr %s %.6g", case.name, value))
    else
      note_failure(case.name, value)
      value = nil
    end
    rows[#rows + 1] = setmetatable({value = value}, {__index = case})
    io.stdout:flush()
  end

  local opts = {lua = interpreter()}
  for _, suite in ipairs(selected_suites()) do
    local t0 = cuarr.perf_counter()
    local ok, err = xpcall(function() require(suite.module).run(report, opts) end, with_traceback)
    if not ok then note_failure("suite " .. suite.name, err) end
    print(string.format("cuarr suite %s took %.1f s", suite.name, cuarr.perf_counter() - t0))
  end
  write_figures(os.getenv("CUARR_BENCH_OUT"), rows)
  print_table(rows, ceilings)
  if #failures > 0 then fail("failed: " .. table.concat(failures, ", ")) end
end

main()
