-- Kernels written in Lua: the seed notebooks' Numba functions as cuarr.vectorize ufuncs and a
-- cuarr.jit.device function, on the GPU when there is one and on host arrays otherwise (where
-- the Lua functions themselves run), each result checked against plain Lua.
local cuarr = require "cuarr"
local jit = cuarr.jit

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

local function check(ok, what)
  if not ok then error(what .. ": wrong result", 2) end
  print(what .. ": ok")
end

-- add_ufunc: host arrays in and out; device arrays (no transfer); into out.
local add_ufunc = cuarr.vectorize({ "float32(float32, float32)" }, function(x, y) return x + y end)
local h = add_ufunc(cuarr.cpu.arange(4, "float32"), cuarr.cpu.full(4, 10, "float32"))
print(h)
check(h.device == "cpu" and h[4] == 13, "add_ufunc on host arrays")
local n = 100000
local xd, yd = xp.arange(n, "float32"), xp.full(n, 2, "float32")
local od = xp.empty(n, "float32")
check(add_ufunc(xd, yd, { out = od }) == od and od[n] == n + 1, "add_ufunc with out")

-- gaussian_pdf over a million values, checked against the Lua formula.
local SQRT_2PI = math.sqrt(2 * math.pi)
local gaussian_pdf = cuarr.vectorize({ "float32(float32, float32, float32)" },
  function(x, mean, sigma)
    return math.exp(-0.5 * ((x - mean) / sigma) ^ 2) / (sigma * SQRT_2PI)
  end)
local m = 1000000
local xs = xp.linspace(-4, 4, m):astype("float32")
local pdf = gaussian_pdf(xs, 0, 1):get():totable()
local xh = xs:get():totable()
local worst = 0
for i = 1, m, 7 do
  local want = math.exp(-0.5 * xh[i] ^ 2) / SQRT_2PI
  worst = math.max(worst, math.abs(pdf[i] - want))
end
check(worst < 1e-6, ("gaussian_pdf over %d values (largest difference %.1e)"):format(m, worst))

-- polar_distance calling a device function with two results, against a host computation.
local polar_to_cartesian = jit.device(function(rho, theta)
  return rho * math.cos(theta), rho * math.sin(theta)
end)
local polar_distance = cuarr.vectorize({ "float32(float32, float32, float32, float32)" },
  function(rho1, theta1, rho2, theta2)
    local x1, y1 = polar_to_cartesian(rho1, theta1)
    local x2, y2 = polar_to_cartesian(rho2, theta2)
    return ((x1 - x2) ^ 2 + (y1 - y2) ^ 2) ^ 0.5
  end)
local k = 1000
local r1, t1 = xp.linspace(1, 2, k):astype("float32"), xp.linspace(0, 3, k):astype("float32")
local r2, t2 = xp.linspace(2, 1, k):astype("float32"), xp.linspace(3, 0, k):astype("float32")
local d = polar_distance(r1, t1, r2, t2):get():totable()
local a1, b1, a2, b2 = r1:get():totable(), t1:get():totable(), r2:get():totable(),
  t2:get():totable()
local err = 0
for i = 1, k do
  -- The law of cosines: another way to the same distance.
  local want = math.sqrt(a1[i] ^ 2 + a2[i] ^ 2 - 2 * a1[i] * a2[i] * math.cos(b1[i] - b2[i]))
  err = math.max(err, math.abs(d[i] - want))
end
check(err < 1e-5, ("polar_distance over %d pairs (largest difference %.1e)"):format(k, err))
print(polar_distance.source:match("// translated from the Lua function at [^\n]*"))
