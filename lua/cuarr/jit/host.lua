-- cuarr.jit.host: what running translated functions' Lua originals on the host needs (vectorize
-- without a GPU, and the specs that hold the generated C to Lua): the casts of the signatures'
-- dtypes, and a depth count that lets jit.device functions be called inside such a run only.
-- Internal: kept out of the cuarr.jit table, whose functions all take user input.  cuarr.jit's
-- init fills `casts` when the module is loaded.
local H = { casts = nil }

local depth = 0

-- x rounded to the nearest float16 (ties to even; beyond the largest finite half, infinity),
-- as a Lua float: the host side of a float16 signature.  The quantum of x's binade is
-- 2^(e - 10), or 2^-24 for subnormals; dividing by it is exact, so the rounding is one step.
function H.float16(x)
  x = x + 0.0
  if x ~= x or x == 0 or x == math.huge or x == -math.huge then return x end
  local a = math.abs(x)
  if a >= 65520.0 then return x > 0 and math.huge or -math.huge end
  local e = math.floor(math.log(a, 2))
  if 2.0 ^ e > a then e = e - 1 elseif 2.0 ^ (e + 1) <= a then e = e + 1 end
  local q = 2.0 ^ (math.max(e, -14) - 10)
  local m = a / q
  local r = math.floor(m)
  local frac = m - r
  if frac > 0.5 or (frac == 0.5 and r % 2 == 1) then r = r + 1 end
  return (x < 0 and -1.0 or 1.0) * r * q
end

-- f(...) with device functions callable; returns f's first two results.
function H.run(f, ...)
  depth = depth + 1
  local ok, a, b = pcall(f, ...)
  depth = depth - 1
  if not ok then error(a, 0) end
  return a, b
end

-- Whether a run is under way (a device function called now is called from translated code run
-- on the host).
function H.running() return depth > 0 end

return H
