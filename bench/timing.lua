-- bench/timing.lua -- the clocks every bench case reads.
--
-- Three ways to time, for three kinds of work:
--   median_seconds  a repeated measurement (any clock), median after a warm-up
--   wall            what the caller waits for: host clock, device drained before and after
--   device_seconds  device time per call of a batch of queued calls, between two events
--   wall_per_op     host clock over a loop of many small ops with one synchronize at the end

local cuarr = require "cuarr"

local M = {}

-- Median of v (sorted in place).
function M.median(v)
  table.sort(v)
  local n = #v
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

-- Median of n_repeat runs of once() (each returns seconds), after n_warmup untimed runs that
-- take first allocations, kernel compilation and staging buffers' setup out of the figures.
function M.median_seconds(once, n_warmup, n_repeat)
  for _ = 1, n_warmup do once() end
  local v = {}
  for i = 1, n_repeat do v[i] = once() end
  return M.median(v)
end

-- Seconds the caller waits for fn() and the device work it queued; the queue is drained first
-- so that earlier work is not counted.  Returns the seconds and fn's result.
function M.wall(fn)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local result = fn()
  cuarr.synchronize()
  return cuarr.perf_counter() - t0, result
end

-- Device seconds per call of fn(r): batches of `reps` calls queued back to back between two
-- events on the current stream, median over `batches` batches after `warmup` untimed calls.
-- fn gets the call's number r (1..reps) so that it can rotate among input sets.  Events, not
-- the host clock: the figure is what the device spent, without the final synchronize's
-- latency; with enough work per call the queue stays ahead of the device.
function M.device_seconds(fn, reps, batches, warmup)
  for r = 1, warmup or 3 do fn(r) end
  cuarr.synchronize()
  local e0, e1 = cuarr.Event(), cuarr.Event()
  return M.median_seconds(function()
    e0:record()
    for r = 1, reps do fn(r) end
    e1:record()
    e1:synchronize()
    return cuarr.get_elapsed_time(e0, e1) / 1e3 / reps
  end, 0, batches or 7)
end

-- Seconds per op of loop(n_ops), which runs n_ops small ops itself (the loop is the caller's,
-- as a user writes it, so no per-op closure call is added), with one synchronize at the end:
-- the host's cost per op once the queue is full.  Median of `runs` runs after one warm-up run;
-- the garbage of earlier runs is collected first so that it is not charged to this one.
function M.wall_per_op(loop, n_ops, runs)
  return M.median_seconds(function()
    collectgarbage()
    return (M.wall(function() loop(n_ops) end)) / n_ops
  end, 1, runs or 5)
end

return M
