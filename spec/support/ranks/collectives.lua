-- One rank of a job of several processes on the stand-in driver and NCCL (distributed_ranks_spec):
-- init{} from the environment, every collective on this rank's own array, a barrier, destroy;
-- prints what init gave and "done".
local cuarr = require "cuarr"
local comm = cuarr.distributed.init {}
print(string.format("rank %d size %d device %d %s", comm.rank, comm.size, comm.device.id,
  tostring(comm)))
local n = comm.size
local x = cuarr.arange(4 * n, "float32")
comm:all_reduce(x, "sum")
comm:all_reduce(x, "max", { out = cuarr.empty(4 * n, "float32") })
comm:reduce(x, "sum", n - 1)
comm:broadcast(x, 0, { stream = cuarr.Stream() })
comm:all_gather(cuarr.ones(3, "int16"), cuarr.empty(3 * n, "int16"))
comm:reduce_scatter(x, cuarr.empty(4, "float32"), "min")
comm:all_to_all(x, cuarr.empty(4 * n, "float32"))
if n > 1 then
  local peer = (comm.rank + 1) % n
  comm:send(x[{ { 1, 4 * n, 2 } }], peer) -- a strided view, through a temporary
  comm:recv(cuarr.empty(2 * n, "float32"), (comm.rank - 1) % n)
end
comm:barrier()
comm:barrier { stream = cuarr.Stream() }
comm:destroy()
print("done")
