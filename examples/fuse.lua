-- cuarr.fuse: the seed notebooks' CuPy @fuse functions as Lua functions, each fused into one
-- kernel on the GPU (or, on host arrays without one, run as written) and checked against the
-- same expression computed unfused, one cuarr call per operation.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

local function check(ok, what)
  if not ok then error(what .. ": wrong result", 2) end
  print(what .. ": ok")
end

-- n random float32 values in [lo, hi), made on the host and moved where xp puts arrays.
math.randomseed(16)
local function random(n, lo, hi)
  local t = {}
  for i = 1, n do t[i] = lo + (hi - lo) * math.random() end
  local h = cuarr.cpu.array(t, "float32")
  return on_gpu and cuarr.asarray(h) or h
end

-- The largest difference between two arrays of one shape, on the host.
local function largest_difference(a, b)
  local d = cuarr.cpu.abs(a:get() - b:get())
  return d.size > 0 and d:max():item() or 0
end

-- sin(x) + cos(y) / sqrt(z): one kernel instead of five.
local ec = cuarr.fuse(function(x, y, z) return cuarr.sin(x) + cuarr.cos(y) / cuarr.sqrt(z) end)
local n = 1000000
local x, y, z = random(n, -3, 3), random(n, -3, 3), random(n, 0.5, 4)
local fused = ec(x, y, z)
local unfused = cuarr.add(xp.sin(x), xp.cos(y) / xp.sqrt(z))
check(fused.dtype == "float32" and fused.size == n
      and largest_difference(fused, unfused) == 0,
      ("ec over %d random float32 values, the same bits as unfused"):format(n))

-- squared_diff, its kernel named; broadcasting a column against a row.
local squared_diff = cuarr.fuse(function(x, y) return (x - y) * (x - y) end,
                                { kernel_name = "squared_diff" })
local col = xp.array({ { 1 }, { 2 }, { 3 } }, "float32")
local row = xp.array({ 0.5, 1, 4 }, "float32")
local sd = squared_diff(col, row)
print(sd)
check(sd.shape[1] == 3 and sd.shape[2] == 3 and sd[3][3] == 1 and sd[1][1] == 0.25,
      "squared_diff of a column and a row")
check(largest_difference(squared_diff(x, y), (x - y) * (x - y)) == 0,
      "squared_diff over a million values, the same bits as unfused")

-- sumsq: the reduction fused too, against cuarr.sum(x * x).
local sumsq = cuarr.fuse(function(x) return cuarr.sum(x * x) end)
local s, want = sumsq(x):item(), cuarr.sum(x * x):item()
check(math.abs(s - want) <= 1e-5 * want, ("sumsq = %.6g (cuarr.sum(x * x) = %.6g)"):format(s,
  want))
if on_gpu then
  print(sumsq:source_for(x):match("// fused from the Lua function at [^\n]*"))
end
