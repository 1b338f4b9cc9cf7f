-- host_bound.lua -- cuarr's small ops back to back (20 000, one synchronize at the end) against
-- the host's own submit time (300 of them, timed before the synchronize: a queue that never
-- fills).  Equal figures mean the loop is bound by the host.  Medians of 7 interleaved rounds.
-- Not part of the build; on the GPU machine, from the checkout root:
--   . .gpu/env.sh && make && LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;$LUA_PATH" \
--     LUA_CPATH="$PWD/build/?.so;$LUA_CPATH" lua5.4 bench/experiments/host_bound.lua
local cuarr = require "cuarr"

local F32 = "float32"
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local cases = {}
for _, n in ipairs { 1, 1000 } do
  local a, b, c = cuarr.full(n, 1.5, F32), cuarr.full(n, 0.25, F32), cuarr.empty(n, F32)
  cases[#cases + 1] = { "add(a,b,c) n=" .. n, function(k) for _ = 1, k do cuarr.add(a, b, c) end end }
  cases[#cases + 1] = { "c = a + b n=" .. n, function(k) for _ = 1, k do c = a + b end end }
  local s
  cases[#cases + 1] = { "a:sum() n=" .. n, function(k) for _ = 1, k do s = a:sum() end end }
end

for _, case in ipairs(cases) do case[2](2000) end
cuarr.synchronize()
local back_to_back, submit = {}, {}
for round = 1, 7 do
  for i, case in ipairs(cases) do
    collectgarbage()
    cuarr.synchronize()
    local t0 = cuarr.perf_counter()
    case[2](20000)
    cuarr.synchronize()
    back_to_back[i] = back_to_back[i] or {}
    back_to_back[i][round] = (cuarr.perf_counter() - t0) / 20000 * 1e6
    collectgarbage()
    t0 = cuarr.perf_counter()
    case[2](300)
    local t1 = cuarr.perf_counter()
    cuarr.synchronize()
    submit[i] = submit[i] or {}
    submit[i][round] = (t1 - t0) / 300 * 1e6
  end
end
for i, case in ipairs(cases) do
  print(string.format("%-20s back-to-back %.2f us/op   host submit %.2f us/op", case[1],
                      median(back_to_back[i]), median(submit[i])))
end
