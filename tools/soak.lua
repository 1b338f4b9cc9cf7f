-- soak.lua -- a million small operations in one state, watching for slow leaks.
--
-- Mixed ufuncs, reductions, views, creations and transfers, on host arrays and (with a
-- driver: `make soak` uses the fake one of tools/fake_cuda unless CUARR_LIBCUDA names another)
-- on device arrays, every temporary dropped.  Prints the resident set size and the pools'
-- used_bytes every REPORT_EVERY operations; exits 1 when the RSS grows by more than
-- RSS_BOUND after the warm-up, when a host result is wrong, or when used_bytes is not back to
-- its baseline at the end.
--
--   lua5.4 tools/soak.lua [ops] [rss_bound_mib]      (defaults: 1000000, 4)
local cuarr = require "cuarr"
local cpu = cuarr.cpu

local N_OPS = math.tointeger(tonumber(arg and arg[1] or "")) or 1000000
local RSS_BOUND = (tonumber(arg and arg[2] or "") or 4) * 1024 * 1024
local REPORT_EVERY = math.max(N_OPS // 10, 1)
local WARM_UP = REPORT_EVERY -- the RSS after this many operations is the reference

local page = 4096
local function rss_bytes()
  local f = assert(io.open("/proc/self/statm"))
  local _, resident = f:read("n", "n")
  f:close()
  return resident * page
end

local device = cuarr.is_available()
local pool = device and cuarr.get_default_memory_pool()
local pinned_pool = device and cuarr.get_default_pinned_memory_pool()
local function used()
  if not device then return 0, 0 end
  return pool:used_bytes(), pinned_pool:used_bytes()
end

-- Long-lived operands, made before the baseline is taken.
local ha = cpu.arange(256, "float32")
local hb = cpu.ones(256, "float32")
local hm = cpu.arange(64, "float64"):reshape(8, 8)
local da, db, dm
if device then
  da = cuarr.arange(256, "float32")
  db = cuarr.ones(256, "float32")
  dm = cuarr.arange(64, "float64"):reshape(8, 8)
end

local failures = 0
local function check(cond, what)
  if not cond then
    failures = failures + 1
    if failures <= 10 then io.stderr:write("soak: wrong result: ", what, "\n") end
  end
end

-- Each entry is one operation; results of host operations are checked.
local host_ops = {
  function() local c = ha + hb; check(c[256] == 256, "add") end,
  function() local c = ha * 2; check(c[2] == 2, "mul") end,
  function() check(ha:sum():item() == 32640, "sum") end,
  function() check(hm:max(1)[8] == 63, "axis max") end,
  function() local v = ha[{ { 2, 50, 3 } }]; check(v[1] == 1, "strided view") end,
  function() local t = hm:transpose(); check(t[{ 1, 2 }] == 8, "transpose") end,
  function() local r = ha:reshape(16, 16); check(r.shape[1] == 16, "reshape") end,
  function() local z = cpu.zeros({ 4, 4 }, "int32"); check(z:sum():item() == 0, "zeros") end,
  function() local e <close> = cpu.empty(100, "float64"); check(e.size == 100, "empty") end,
  function() local c = ha:astype("int16"); check(c[256] == 255, "astype") end,
  function() local c = cpu.less(ha, 10); check(c:sum():item() == 10, "less") end,
  function() local c = cpu.array({ 1, 2, 3 }); check(c[3] == 3, "array from a table") end,
  function() local c = hm:cumsum(); check(c[64] == 2016, "cumsum") end,
  function() local c = cpu.exp(hb); check(c[1] > 2.7 and c[1] < 2.8, "exp") end,
}

local device_ops = device and {
  function() local c = da + db end,
  function() local c = da * 2 - db end,
  function() local s = da:sum() end,
  function() local s = dm:max(1) end,
  function() local v = da[{ { 2, 50, 3 } }] end,
  function() local t = dm:transpose() end,
  function() local c = cuarr.empty(1000, "float32") end,
  function() local c = cuarr.zeros({ 4, 4 }, "int32") end,
  function() local h = da:get(); check(h.size == 256, "get") end,
  function() local d = cuarr.asarray(hb) end,
  function() local c <close> = cuarr.ones(300, "float64") end,
  function() local c = da:astype("float64") end,
  function()
    local p = cpu.empty(100, "int8", { pinned = true })
    check(p.size == 100, "pinned")
  end,
  function() local p = cpu.ones(64, "float32", { pinned = true }); local d = cuarr.asarray(p) end,
} or {}

local ops = {}
for _, f in ipairs(host_ops) do ops[#ops + 1] = f end
for _, f in ipairs(device_ops) do ops[#ops + 1] = f end

collectgarbage(); collectgarbage()
local base_used, base_pinned = used()
local reference_rss
local worst = 0
local start = os.clock()
print(string.format("soak: %d operations, %d kinds (%s), RSS bound %.1f MiB after %d",
  N_OPS, #ops, device and "host and device" or "host only", RSS_BOUND / 2 ^ 20, WARM_UP))
print(string.format("%10s %12s %14s %14s", "ops", "RSS (KiB)", "used_bytes", "pinned used"))
for i = 1, N_OPS do
  ops[i % #ops + 1]()
  if i % REPORT_EVERY == 0 then
    local rss = rss_bytes()
    local u, p = used()
    print(string.format("%10d %12d %14d %14d", i, rss // 1024, u, p))
    if i == WARM_UP then reference_rss = rss end
    if reference_rss and rss - reference_rss > worst then worst = rss - reference_rss end
  end
end
-- A pinned buffer read by an asynchronous transfer is held until the transfer is done, and let
-- go when a later transfer starts: one last small one after the work has finished.
if device then
  cuarr.get_current_stream():synchronize()
  local last = cuarr.asarray(cpu.zeros(1))
end
collectgarbage(); collectgarbage()
local end_used, end_pinned = used()
print(string.format("soak: %.1f s CPU; RSS grew %.1f KiB at most after the warm-up; " ..
  "used_bytes %d -> %d, pinned %d -> %d", os.clock() - start, worst / 1024, base_used,
  end_used, base_pinned, end_pinned))

local ok = true
if failures > 0 then
  print(string.format("soak: FAIL: %d wrong host results", failures)); ok = false
end
if worst > RSS_BOUND then
  print(string.format("soak: FAIL: RSS grew %.1f MiB after the warm-up (bound %.1f MiB)",
    worst / 2 ^ 20, RSS_BOUND / 2 ^ 20)); ok = false
end
if end_used ~= base_used or end_pinned ~= base_pinned then
  print("soak: FAIL: the pools' used_bytes are not back to their baseline"); ok = false
end
print(ok and "soak: ok" or "soak: FAILED")
os.exit(ok and 0 or 1)
