-- bench/arrays.lua -- the array library's functions (issue 18): sorting and searching, indexing
-- with masks and index arrays, joining and rearranging, on 2^26 elements unless named.
--
--   sort, argsort   float32 and int64 keys per second (millions), device time per call
--   first sort      a fresh process's first sort, from `require` done to the sorted result
--   unique          2^24 int32 of 1000 distinct values, what the caller waits for (ms)
--   mask, nonzero   a[mask] and nonzero(mask) with half the mask set, waited for (ms): their
--                   output sizes depend on the data, so each call synchronizes once
--   take            random 1-based indices; bytes are the indices and values read and written
--   concatenate     8 pieces of 2^23 float32 into a given output; vstack of two 8192 x 8192
--   where, flip     where(mask, x, y) and a flipped view's copy
-- Rates of bytes moved are shares of the D2D copy ceiling, the issue's targets (90%) on the
-- labels' rows; the others compare with CuPy in bench/peer_arrays.py's table (same names).
--
-- run(report, opts) as bench/elementwise.lua's.  A function that does not exist yet fails its
-- row alone.

local cuarr = require "cuarr"
local timing = require "bench.timing"

local M = {}

local N = 1 << 26
local N_UNIQUE = 1 << 24
local SIDE = 8192
local REPS = 10

local function check(ok, what)
  if not ok then error("bench: " .. what, 0) end
end

local function gbps(bytes, seconds) return bytes / seconds / 1e9 end
local function mkeys(n, seconds) return n / seconds / 1e6 end

-- Whether v (1-D, device) is in non-decreasing order.
local function is_sorted(v)
  local n = v.size
  if n < 2 then return true end
  return v[{ { 2, n } }]:ge(v[{ { 1, n - 1 } }]):all()
end

local function uniform(n, seed) return cuarr.random.default_rng(seed):random(n, "float32") end

-- Milliseconds the caller waits for fn(), median of 7 after 3 warm-up calls.
local function wall_ms(fn)
  return 1e3 * timing.median_seconds(function() return (timing.wall(fn)) end, 3, 7)
end

local function sort_f32()
  local a = uniform(N, 1)
  check(is_sorted(cuarr.sort(a)), "sort float32: not sorted")
  return mkeys(N, timing.device_seconds(function() local _ <close> = cuarr.sort(a) end, REPS))
end

local function argsort_f32()
  local a = uniform(N, 2)
  local order = cuarr.argsort(a)
  check(is_sorted(cuarr.take(a, order)), "argsort float32: a[order] not sorted")
  return mkeys(N, timing.device_seconds(function() local _ <close> = cuarr.argsort(a) end, REPS))
end

local function sort_i64()
  local a = cuarr.random.default_rng(3):integers(-(1 << 62), 1 << 62, N, "int64")
  check(is_sorted(cuarr.sort(a)), "sort int64: not sorted")
  return mkeys(N, timing.device_seconds(function() local _ <close> = cuarr.sort(a) end, REPS))
end

-- What a fresh process runs: prints `first_sort_ms <value>`.
function M.child_first_sort()
  local a = uniform(1 << 20, 4)
  cuarr.synchronize()
  local t0 = cuarr.perf_counter()
  local s = cuarr.sort(a)
  cuarr.synchronize()
  local ms = 1e3 * (cuarr.perf_counter() - t0)
  check(is_sorted(s), "first sort: not sorted")
  print(string.format("first_sort_ms %.6f", ms))
end

local function shell_quote(s) return "'" .. s:gsub("'", [['\'']]) .. "'" end

local function first_sort_ms(lua)
  local cmd = string.format("LUA_PATH_5_4=%s LUA_CPATH_5_4=%s %s -e %s 2>&1",
                            shell_quote(package.path), shell_quote(package.cpath),
                            shell_quote(lua),
                            shell_quote('require("bench.arrays").child_first_sort()'))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  local ms = tonumber(out:match("first_sort_ms%s+(%S+)"))
  check(ms, "fresh process failed: " .. out)
  return ms
end

local function unique_ms()
  local a = cuarr.random.default_rng(5):integers(0, 1000, N_UNIQUE, "int32")
  local u = cuarr.unique(a)
  check(u.size == 1000 and u[1] == 0 and u[1000] == 999, "unique: not the 1000 values")
  return wall_ms(function() local _ <close> = cuarr.unique(a) end)
end

local function half_mask(seed) return uniform(N, seed):lt(0.5) end

local function mask_ms()
  local a, mask = uniform(N, 6), half_mask(7)
  local picked = a[mask]
  check(picked.size == cuarr.count_nonzero(mask):item(), "a[mask]: wrong size")
  return wall_ms(function() local _ <close> = a[mask] end)
end

local function nonzero_ms()
  local mask = half_mask(8)
  local idx = cuarr.nonzero(mask)
  check(idx.size == cuarr.count_nonzero(mask):item(), "nonzero: wrong size")
  return wall_ms(function() local _ <close> = cuarr.nonzero(mask) end)
end

local function take_gbps()
  local a = uniform(N, 9)
  local idx = cuarr.random.default_rng(10):integers(1, N + 1, N, "int64")
  local got = cuarr.take(a, idx)
  check(got[1] == a[idx[1]] and got[N] == a[idx[N]], "take: wrong values")
  local seconds = timing.device_seconds(function() local _ <close> = cuarr.take(a, idx) end, REPS)
  return gbps(N * (8 + 4 + 4), seconds)
end

local function concat_gbps()
  local pieces, part = {}, N // 8
  for i = 1, 8 do pieces[i] = uniform(part, 10 + i) end
  local out = cuarr.empty(N, "float32")
  cuarr.concatenate(pieces, 1, out)
  check(out[part + 1] == pieces[2][1] and out[N] == pieces[8][part], "concatenate: wrong values")
  local seconds = timing.device_seconds(function() cuarr.concatenate(pieces, 1, out) end, REPS)
  return gbps(2 * N * 4, seconds)
end

local function vstack_gbps()
  local x = uniform(SIDE * SIDE, 20):reshape(SIDE, SIDE)
  local y = uniform(SIDE * SIDE, 21):reshape(SIDE, SIDE)
  local s = cuarr.vstack({ x, y })
  check(s[{ SIDE + 1, 1 }] == y[{ 1, 1 }], "vstack: wrong values")
  local seconds = timing.device_seconds(function() local _ <close> = cuarr.vstack({ x, y }) end,
    REPS)
  return gbps(2 * 2 * SIDE * SIDE * 4, seconds)
end

local function where_gbps()
  local mask, x, y = half_mask(22), uniform(N, 23), uniform(N, 24)
  local w = cuarr.where(mask, x, y)
  check(w[1] == (mask[1] and x[1] or y[1]), "where: wrong value")
  local seconds = timing.device_seconds(function()
    local _ <close> = cuarr.where(mask, x, y)
  end, REPS)
  return gbps(N * (1 + 4 + 4 + 4), seconds)
end

local function flip_gbps()
  local a = uniform(N, 25)
  local f = cuarr.flip(a):copy()
  check(f[1] == a[N] and f[N] == a[1], "flip: wrong values")
  local seconds = timing.device_seconds(function() local _ <close> = cuarr.flip(a):copy() end,
    REPS)
  return gbps(2 * N * 4, seconds)
end

function M.run(report, opts)
  local lua = opts and opts.lua or "lua5.4"
  local copy = "d2d_copy_GBps"
  local cases = {
    { name = "sort_f32_2p26_Mkeys", label = "sort f32 2^26 (Mkeys/s)", unit = "M/s",
      measure = sort_f32 },
    { name = "argsort_f32_2p26_Mkeys", label = "argsort f32 2^26 (Mkeys/s)", unit = "M/s",
      measure = argsort_f32 },
    { name = "sort_i64_2p26_Mkeys", label = "sort i64 2^26 (Mkeys/s)", unit = "M/s",
      measure = sort_i64 },
    { name = "sort_first_call_ms", label = "first sort, fresh process", unit = "ms",
      share = "times", ceiling = 60, target = 1.0,
      measure = function() return first_sort_ms(lua) end },
    { name = "unique_i32_2p24_ms", label = "unique i32 2^24, 1000", unit = "ms", share = "times",
      ceiling = 0.9, target = 1.0, measure = unique_ms },
    { name = "mask_select_2p26_ms", label = "a[mask] f32 2^26", unit = "ms", share = "times",
      ceiling = 0.6, target = 1.0, measure = mask_ms },
    { name = "nonzero_2p26_ms", label = "nonzero 2^26", unit = "ms", share = "times",
      ceiling = 0.4, target = 1.0, measure = nonzero_ms },
    { name = "take_f32_2p26_GBps", label = "take f32 2^26 random", unit = "GB/s", share = "rate",
      ceiling = copy, measure = take_gbps },
    { name = "concat_8_2p26_GBps", label = "concatenate 8 pieces", unit = "GB/s", share = "rate",
      ceiling = copy, target = 0.9, measure = concat_gbps },
    { name = "vstack_8192_GBps", label = "vstack two 8192^2", unit = "GB/s", share = "rate",
      ceiling = copy, target = 0.9, measure = vstack_gbps },
    { name = "where_2p26_GBps", label = "where(mask, x, y) 2^26", unit = "GB/s", share = "rate",
      ceiling = copy, target = 0.9, measure = where_gbps },
    { name = "flip_copy_2p26_GBps", label = "flip copy 2^26", unit = "GB/s", share = "rate",
      ceiling = copy, target = 0.9, measure = flip_gbps },
  }
  for _, case in ipairs(cases) do
    report(case, case.measure)
    collectgarbage()
  end
end

return M
