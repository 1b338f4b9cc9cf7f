-- cuarr.jit.host: what running translated functions' Lua originals on the host needs (vectorize
-- without a GPU, and the specs that hold the generated C to Lua): the casts of the signatures'
-- dtypes, and a depth count that lets jit.device functions be called inside such a run only.
-- Internal: kept out of the cuarr.jit table, whose functions all take user input.  cuarr.jit's
-- init fills `casts` when the module is loaded.
local H = { casts = nil }

local depth = 0

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
