-- Elementwise work: ufuncs, operators, broadcasting, comparisons, user kernels, and code that
-- runs on either backend.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

local a = xp.arange(1e6, "float32")
local pdf = xp.exp(-0.5 * ((a - 3) / 2) ^ 2) / (2 * math.sqrt(2 * math.pi))
print("pdf[1..4]:", pdf[{ { 1, 4 } }])

local m = xp.maximum(a:reshape(1000, 1000), xp.arange(1000, "float32"))   -- broadcasting
print("maximum broadcast:", m.shape[1], m.shape[2], m[{ 1, 1000 }])

local big = a:gt(10)                                                      -- a bool array
print("a > 10:", big.dtype, big[12])

local function softplus(x)                                                -- host or device
  local xpm = cuarr.get_array_module(x)
  return xpm.maximum(0, x) + xpm.log1p(xpm.exp(-xpm.abs(x)))
end
print("softplus:", softplus(xp.linspace(-2, 2, 5)))

if on_gpu then
  local add = cuarr.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y", "add_vec")
  local z = add(a, pdf)
  local sq = cuarr.ElementwiseKernel("T x", "T y", "y = x * x", "square")   -- any dtype
  print("user kernels:", z[2], sq(cuarr.arange(5, "int16")))
  cuarr.add(a, pdf, z)                                                       -- into z
  print("into z:", z[2])
end
