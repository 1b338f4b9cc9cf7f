-- Random numbers: cuarr.random on the GPU when there is one, cuarr.cpu.random on host arrays
-- otherwise; one seed gives the same numbers on both.  Prints normal(5, 2.0, 10) and estimates
-- pi from 10^7 uniform pairs.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

xp.random.seed(42)
local n = xp.random.normal(5, 2.0, 10)
print(n)

-- Monte Carlo: the share of points of the unit square inside the quarter circle is pi / 4.
local count = 10000000
local g = xp.random.default_rng(2026)
local x, y = g:random(count), g:random(count)
local inside = (x * x + y * y):le(1.0):sum():item()
local pi = 4 * inside / count
print(string.format("pi ~ %.6f from %d points (error %.2e)", pi, count, math.abs(pi - math.pi)))
if math.abs(pi - math.pi) >= 1e-3 then error("the estimate of pi is off by 1e-3 or more") end

-- The same Generator seed on the other side gives the same values.
if on_gpu then
  local d = cuarr.random.default_rng(7):random(10):get():totable()
  local h = cuarr.cpu.random.default_rng(7):random(10):totable()
  for i = 1, 10 do
    if d[i] ~= h[i] then error("device and host streams differ at " .. i) end
  end
  print("device and host give the same stream")
end
