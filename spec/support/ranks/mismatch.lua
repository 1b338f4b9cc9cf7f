-- A job whose ranks disagree, under init{verify = true} (distributed_spec's #multigpu specs):
-- the last rank passes another dtype, then another size, then calls another collective; every
-- rank must fail the same way, and the communicator must still work afterwards.  Prints each
-- error's kind, then "rank r ok".
local cuarr = require "cuarr"
local comm = cuarr.distributed.init { verify = true }
local odd = comm.rank == comm.size - 1
local function try(f, ...)
  local ok, e = pcall(f, ...)
  print(ok and "no error" or e.kind .. ": " .. e.message)
end
try(comm.all_reduce, comm, cuarr.ones(8, odd and "float64" or "float32"), "sum")
try(comm.all_reduce, comm, cuarr.ones(odd and 9 or 8, "float32"), "sum")
if odd then
  try(comm.broadcast, comm, cuarr.ones(8, "float32"), 0)
else
  try(comm.all_reduce, comm, cuarr.ones(8, "float32"), "sum")
end
local x = cuarr.ones(8, "float32")
comm:all_reduce(x, "sum")
assert(x[8] == comm.size, "the communicator no longer sums")
comm:destroy()
print(("rank %d ok"):format(comm.rank))
