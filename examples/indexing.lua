-- Indexing, sorting and counting: a histogram of a million normal values drawn as text bars, the
-- top five of them by argpartition, and masked updates.  On the GPU when there is one, on host
-- arrays otherwise.
local cuarr = require "cuarr"

local on_gpu = cuarr.is_available()
local xp = on_gpu and cuarr or cuarr.cpu
print(on_gpu and "on the GPU" or "on host arrays (no usable GPU)")

-- A million draws of N(0, 1), counted into 24 bins over [-4, 4].
local n = 1000000
local g = xp.random.default_rng(7)
local a = g:standard_normal(n)
local counts, edges = xp.histogram(a, 24, { range = { -4, 4 } })
local c, e = counts:get(), edges:get() -- host copies: reading them costs no more transfers
local most = c:max():item()
for i = 1, 24 do
  local bar = string.rep("#", math.floor(c[i] / most * 60 + 0.5))
  print(string.format("%5.2f .. %5.2f %7d %s", e[i], e[i + 1], c[i], bar))
end
local inside = counts:sum():item()
print(string.format("%d of %d values within [-4, 4]", inside, n))
if inside < n * 0.999 then error("fewer values than a normal distribution puts there") end

-- The five largest values: argpartition puts the 5 largest last (1-based positions).
local k = 5
local part = xp.argpartition(a, -k)
local top = part[{ { n - k + 1, n } }]
local best = xp.sort(xp.take(a, top))
print("the five largest:", best)
if best[k] ~= a:max():item() then error("argpartition missed the maximum") end

-- Masked updates: negative values to zero, then the values past 3 counted by bincount.
a[a:lt(0)] = 0
print(string.format("negatives left after a[a:lt(0)] = 0: %d", xp.count_nonzero(a:lt(0)):item()))
local over = xp.bincount(a:gt(3):astype("int8"), { minlength = 2 })
print(string.format("values <= 3: %d, values > 3: %d", over[1], over[2]))
if over[1] + over[2] ~= n then error("bincount lost values") end
