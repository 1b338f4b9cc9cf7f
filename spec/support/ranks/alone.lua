-- A rank whose peers never come (distributed_ranks_spec): init fails within the timeout.
local cuarr = require "cuarr"
local t0 = os.time()
local ok, e = pcall(cuarr.distributed.init, {})
print(ok and "no error" or string.format("%s: %s", e.kind, e.message))
print("seconds " .. os.time() - t0)
