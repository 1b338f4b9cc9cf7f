-- Linear algebra: cuarr.linalg on the GPU when there is one, cuarr.cpu.linalg on host arrays
-- otherwise.  The determinants of a stack of matrices, one solve, and a least-squares fit of a
-- line to noisy points.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

-- Five copies of one matrix, stacked by broadcasting: det works on every matrix of the stack.
local x = xp.array({{2, 1, 0}, {1, 3, 1}, {0, 1, 4}}, "float64")
local stack = xp.multiply(xp.ones({5, 1, 1}), x)
print(xp.linalg.det(stack)) -- five times 18
local b = xp.array({1, 2, 3}, "float64")
local sol = xp.linalg.solve(x, b)
print("x solves x . sol = b:", sol)

-- The line y = 3 t + 1 through 1000 noisy samples: minimise |A c - y| with A = [t, 1].
local n = 1000
local g = xp.random.default_rng(11)
local t = g:random(n)
local y = t * 3 + 1 + g:normal(0, 0.05, n)
local A = xp.ones({n, 2})
A[{ {}, 1 }] = t
local c = xp.linalg.lstsq(A, y)
local slope, intercept = c[1], c[2]
print(string.format("fit: y = %.4f t + %.4f", slope, intercept))
if math.abs(slope - 3) > 0.05 or math.abs(intercept - 1) > 0.05 then
  error("the fit is off by more than 0.05")
end
