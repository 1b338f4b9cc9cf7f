-- Reductions and scans: sums and extremes over any axes, arg-reductions, statistics, norms,
-- cumulative sums and a user ReductionKernel.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

local a = xp.arange(12, "float32")
local x = a:reshape(3, 4)
local s = a:sum()                           -- a 0-d array; on the device nothing waits for it
print("sum:", s, "as a number:", s:item())
print("max over axis 2, keepdims:", x:max(2, { keepdims = true }))
print("argmax (1-based, flat):", x:argmax():item())
print("mean and std over axis 1:", x:mean(1), x:std(1, { ddof = 1 }))
print("sum over both axes into float64:", x:sum({ 1, 2 }, { dtype = "float64" }))
print("norms:", xp.linalg.norm(a), xp.linalg.norm(x, "fro"), xp.linalg.norm(x, 1))
print("cumsum along axis 2:", xp.cumsum(x, 2))
print("NaN-aware:", xp.nanmax(xp.array({ 1, 0 / 0, 3 })), xp.nansum(xp.array({ 1, 0 / 0, 3 })))

if on_gpu then
  local l2 = cuarr.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
  print("ReductionKernel:", l2(x), l2(x, { axis = 2 }), cuarr.linalg.norm(x, nil, 2))
end
