-- bench/distributed.lua -- several GPUs (issue 19): all_reduce of float32 across two devices at
-- 1 MiB and 256 MiB per device, as NCCL's bus bandwidth (bytes per rank over the time, times
-- 2 (n - 1) / n: 1 for two ranks), and a 256 MiB copy from device 0 to device 1 (cuarr.asarray
-- under device 1), as GB/s against the raw cuMemcpyPeerAsync of bench/ceilings.c.  The time is
-- what the caller waits for: every device drained before and after a batch of calls, median of 7
-- batches after a warm-up one.  On a machine of one device the suite has no rows.
--
-- run(report, opts) as bench/elementwise.lua's; bench/peer_distributed.py runs the same cases
-- under the same names through PyTorch's NCCL (torch.cuda.nccl.all_reduce over the devices of
-- one process, as cuarr's communicator is) and its copies between devices.

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local MiB = 1 << 20
local BATCHES, WARMUP = 7, 1

local function check(ok, what)
  if not ok then error("bench: " .. what, 0) end
end

local function on(d, fn, ...) return cuarr.with_device(d, fn, ...) end

local function drain(devices)
  for _, d in ipairs(devices) do on(d, cuarr.synchronize) end
end

-- Seconds per call of fn() over batches of reps calls, every device drained around each batch.
local function seconds_per_call(devices, fn, reps)
  for _ = 1, WARMUP do fn() end
  return timing.median_seconds(function()
    drain(devices)
    local t0 = cuarr.perf_counter()
    for _ = 1, reps do fn() end
    drain(devices)
    return (cuarr.perf_counter() - t0) / reps
  end, 0, BATCHES)
end

local function all_reduce_gbps(bytes, reps)
  local devices = { 0, 1 }
  local comm <close> = cuarr.distributed.init { devices = devices }
  local n = bytes // 4
  local parts = { on(0, cuarr.full, n, 1.0, "float32"), on(1, cuarr.full, n, 2.0, "float32") }
  comm:all_reduce(parts, "sum")
  check(parts[1][n] == 3.0 and parts[2][1] == 3.0, "all_reduce: the sum is not 3")
  -- The values double with each call (infinity after some 127 calls): NCCL's time does not
  -- depend on them.
  local s = seconds_per_call(devices, function() comm:all_reduce(parts, "sum") end, reps)
  return bytes / s / 1e9 -- bus bandwidth: 2 (n - 1) / n = 1 for two ranks
end

local function peer_copy_gbps()
  local bytes = 256 * MiB
  local a = on(0, cuarr.arange, bytes // 4, "float32")
  local b = on(1, cuarr.asarray, a)
  -- arange is exact in float32 below 2^24
  local v = on(1, function() return b[4097] end)
  check(b.device == cuarr.Device(1) and v == 4096, "the copy on device 1 is not a's")
  return bytes / seconds_per_call({ 0, 1 }, function()
    local _ <close> = on(1, cuarr.asarray, a)
  end, 10) / 1e9
end

function M.run(report)
  if cuarr.runtime.device_count < 2 then
    print("cuarr suite distributed: one device here, no rows (needs two)")
    return
  end
  local cases = {
    { name = "allreduce_f32_1MiB_GBps", label = "all_reduce f32 1 MiB x2", unit = "GB/s",
      measure = function() return all_reduce_gbps(MiB, 200) end },
    { name = "allreduce_f32_256MiB_GBps", label = "all_reduce f32 256 MiB x2", unit = "GB/s",
      measure = function() return all_reduce_gbps(256 * MiB, 10) end },
    { name = "peer_copy_256MiB_GBps", label = "copy 256 MiB dev 0 -> 1", unit = "GB/s",
      share = "rate", ceiling = "peer_copy_GBps", target = 0.97, measure = peer_copy_gbps },
  }
  for _, case in ipairs(cases) do report(case, case.measure) end
end

return M
