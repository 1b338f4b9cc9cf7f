-- bench/transfers.lua -- host<->device copies and the pool's allocation, beside the raw driver's
-- (bench/ceilings.c measures the same sizes with bare driver calls: the `raw` figures).
--
-- run(report) measures each case through report(case, measure, ...), which calls measure(...)
-- and records the row (bench/run.lua has the fields).

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local N = 1 << 26 -- float32 elements: 256 MiB, as the raw copies in ceilings.c
local BYTES = N * 4
local N_ALLOC = 1 << 20 -- cuarr.empty(2^20): 4 MiB, as the raw cuMemAlloc in ceilings.c
local ALLOC_BATCH = 1000 -- pairs per timed batch: one pair is too short for the clock

local function gbps(seconds) return BYTES / seconds / 1e9 end
local function us(seconds) return seconds * 1e6 end

-- The result is freed outside the timed region: freeing is not part of a copy.
local function timed_then_free(fn)
  local t, x = timing.wall(fn)
  x:free()
  return t
end

-- Host data that is not zeros (zeros can flatter), on every side of each copy.
local function make_arrays()
  local a = {pageable = cuarr.cpu.full(N, 1.5, "float32")}
  a.pinned = cuarr.cpu.empty(N, "float32", {pinned = true})
  a.device = cuarr.to_device(a.pageable)
  a.device:copy_to_host(a.pinned)
  cuarr.synchronize()
  return a
end

local function free_arrays(a)
  a.device:free()
  a.pinned:free()
  a.pageable:free()
end

local function h2d(which)
  return function(a)
    local h = a[which]
    return gbps(timing.median_seconds(function()
      return timed_then_free(function() return cuarr.to_device(h) end)
    end, 2, 10))
  end
end

local function d2h_pageable(a)
  return gbps(timing.median_seconds(function()
    return timed_then_free(function() return a.device:get() end)
  end, 2, 10))
end

local function d2h_pinned(a)
  return gbps(timing.median_seconds(function()
    return (timing.wall(function() a.device:copy_to_host(a.pinned) end))
  end, 2, 10))
end

local function empty_free()
  return us(timing.median_seconds(function()
    local t0 = cuarr.perf_counter()
    for _ = 1, ALLOC_BATCH do cuarr.empty(N_ALLOC, "float32"):free() end
    return (cuarr.perf_counter() - t0) / ALLOC_BATCH
  end, 3, 21))
end

-- Shares: a rate over the pinned copy's rate; for the pool, cuMemAlloc+Free's time over
-- cuarr's (above 100% means faster than the raw driver call, as the pool should be).
local CASES = {
  {name = "h2d_pageable_GBps", label = "H2D pageable 256 MiB", unit = "GB/s", share = "rate",
   raw = "pageable_h2d_GBps", ceiling = "pinned_h2d_GBps", measure = h2d("pageable")},
  {name = "h2d_pinned_GBps", label = "H2D pinned 256 MiB", unit = "GB/s", share = "rate",
   raw = "pinned_h2d_GBps", ceiling = "pinned_h2d_GBps", measure = h2d("pinned")},
  {name = "d2h_pageable_GBps", label = "D2H pageable 256 MiB", unit = "GB/s", share = "rate",
   raw = "pageable_d2h_GBps", ceiling = "pinned_d2h_GBps", measure = d2h_pageable},
  {name = "d2h_pinned_GBps", label = "D2H pinned 256 MiB", unit = "GB/s", share = "rate",
   raw = "pinned_d2h_GBps", ceiling = "pinned_d2h_GBps", measure = d2h_pinned},
  {name = "empty_free_us", label = "empty(2^20 f32)+free", unit = "us", share = "inverse",
   raw = "cuMemAlloc_free_us", ceiling = "cuMemAlloc_free_us", measure = empty_free},
}

function M.run(report)
  local arrays = make_arrays()
  for _, case in ipairs(CASES) do report(case, case.measure, arrays) end
  free_arrays(arrays)
end

return M
