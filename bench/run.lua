-- bench/run.lua -- cuarr's own figures beside the machine's ceilings.
--
-- The ceilings come from bench/ceilings.c (the raw driver API); `make bench` runs it first and
-- passes its output here.  Environment:
--   CUARR_CEILINGS   file holding the ceilings program's output (`ceiling <name> <value>`,
--                    `device <name>`, `driver <version>`); without it the shares are blank
--   CUARR_BENCH_OUT  file to write cuarr's figures to, as `name value` lines, for
--                    bench/compare_peers.py
-- Each figure prints as `cuarr <name> <value>` when measured; a short table comes last (the GPU
-- machine returns only the tail of the output).

local cuarr = require "cuarr"

local function fail(msg)
  io.stderr:write("bench: ", msg, "\n")
  os.exit(1)
end

---------------------------------------------------------------- timing

local function median(v)
  table.sort(v)
  local n = #v
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

-- The one timing helper: median of n_repeat runs of once() (each returns seconds), after
-- n_warmup untimed runs that take the pool's first allocations and the staging buffers' setup
-- out of the figures.
local function median_seconds(once, n_warmup, n_repeat)
  for _ = 1, n_warmup do once() end
  local v = {}
  for i = 1, n_repeat do v[i] = once() end
  return median(v)
end

-- Seconds the caller waits for fn() and the device work it queued; the queue is drained first
-- so that earlier work is not counted.  Returns the seconds and fn's result.
local function wall(fn)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local result = fn()
  cuarr.synchronize()
  return cuarr.perf_counter() - t0, result
end

---------------------------------------------------------------- cuarr's figures

local N = 1 << 26 -- float32 elements: 256 MiB, as the raw copies in ceilings.c
local BYTES = N * 4
local N_ALLOC = 1 << 20 -- cuarr.empty(2^20): 4 MiB, as the raw cuMemAlloc in ceilings.c
local ALLOC_BATCH = 1000 -- pairs per timed batch: one pair is too short for the clock

local function gbps(seconds) return BYTES / seconds / 1e9 end
local function us(seconds) return seconds * 1e6 end

-- The result is freed outside the timed region: freeing is not part of a copy.
local function timed_then_free(fn)
  local t, x = wall(fn)
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

-- name -> {unit, raw ceilings.c figure, ceiling it is a share of, measure(arrays) -> value}
local function cases()
  local function h2d(which)
    return function(a)
      local h = a[which]
      return gbps(median_seconds(function()
        return timed_then_free(function() return cuarr.to_device(h) end)
      end, 2, 10))
    end
  end
  local function d2h_pageable(a)
    return gbps(median_seconds(function()
      return timed_then_free(function() return a.device:get() end)
    end, 2, 10))
  end
  local function d2h_pinned(a)
    return gbps(median_seconds(function()
      return (wall(function() a.device:copy_to_host(a.pinned) end))
    end, 2, 10))
  end
  local function empty_free()
    return us(median_seconds(function()
      local t0 = cuarr.perf_counter()
      for _ = 1, ALLOC_BATCH do cuarr.empty(N_ALLOC, "float32"):free() end
      return (cuarr.perf_counter() - t0) / ALLOC_BATCH
    end, 3, 21))
  end
  return {
    {name = "h2d_pageable_GBps", label = "H2D pageable 256 MiB", unit = "GB/s",
     raw = "pageable_h2d_GBps", ceiling = "pinned_h2d_GBps", measure = h2d("pageable")},
    {name = "h2d_pinned_GBps", label = "H2D pinned 256 MiB", unit = "GB/s",
     raw = "pinned_h2d_GBps", ceiling = "pinned_h2d_GBps", measure = h2d("pinned")},
    {name = "d2h_pageable_GBps", label = "D2H pageable 256 MiB", unit = "GB/s",
     raw = "pageable_d2h_GBps", ceiling = "pinned_d2h_GBps", measure = d2h_pageable},
    {name = "d2h_pinned_GBps", label = "D2H pinned 256 MiB", unit = "GB/s",
     raw = "pinned_d2h_GBps", ceiling = "pinned_d2h_GBps", measure = d2h_pinned},
    {name = "empty_free_us", label = "empty(2^20 f32)+free", unit = "us",
     raw = "cuMemAlloc_free_us", ceiling = "cuMemAlloc_free_us", measure = empty_free},
  }
end

-- The machine's own figures, which no cuarr code takes part in.
local MACHINE_ROWS = {
  {label = "D2D copy 1 GiB (r+w)", unit = "GB/s", ceiling = "d2d_copy_GBps"},
  {label = "launch (20000 back2back)", unit = "us", ceiling = "launch_us"},
  {label = "launch + synchronize", unit = "us", ceiling = "launch_sync_us"},
}

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

local function fmt(v) return v and string.format("%.2f", v) or "-" end

-- Share of the ceiling reached: for a rate value/ceiling, for a time ceiling/value (so that
-- above 100% means faster than the raw driver call, as the pool should be).
local function share(value, ceiling, unit)
  if not (value and ceiling) then return "-" end
  local s = unit == "us" and ceiling / value or value / ceiling
  return string.format("%.0f%%", 100 * s)
end

local ROW = "%-26s %9s %9s %9s  %-4s %6s"

local function print_table(rows, ceilings)
  local v = ceilings.values
  print()
  print(string.format("cuarr bench: %s, driver %s", ceilings.device or "?", ceilings.driver or "?"))
  print(string.format(ROW, "figure", "cuarr", "raw", "ceiling", "unit", "share"))
  for _, r in ipairs(MACHINE_ROWS) do
    print(string.format(ROW, r.label, "-", "-", fmt(v[r.ceiling]), r.unit, "-"))
  end
  for _, r in ipairs(rows) do
    local c = v[r.ceiling]
    print(string.format(ROW, r.label, fmt(r.value), fmt(v[r.raw]), fmt(c), r.unit,
                        share(r.value, c, r.unit)))
  end
  print("raw: the same work through the bare driver; ceiling: its pinned copy, or cuMemAlloc+Free;")
  print("share: cuarr's rate over the ceiling's (for times, ceiling over cuarr's)")
end

local function write_figures(path, rows)
  if not path then return end
  local f = assert(io.open(path, "w"))
  for _, r in ipairs(rows) do f:write(r.name, " ", string.format("%.6g", r.value), "\n") end
  f:close()
end

---------------------------------------------------------------- main

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

  local arrays = make_arrays()
  local rows = cases()
  for _, r in ipairs(rows) do
    r.value = r.measure(arrays)
    print(string.format("cuarr %s %.6g", r.name, r.value))
    io.stdout:flush()
  end
  write_figures(os.getenv("CUARR_BENCH_OUT"), rows)
  print_table(rows, ceilings)
end

main()
