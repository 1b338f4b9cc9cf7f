-- A job where one rank dies after joining (distributed_ranks_spec): CUARR_DIES names the rank
-- that exits abruptly, without destroying its communicator; every other rank keeps calling
-- collectives until one fails, and prints the error's kind and message.
local cuarr = require "cuarr"
local comm = cuarr.distributed.init {}
if comm.rank == tonumber(os.getenv("CUARR_DIES")) then os.exit(3, false) end
local x = cuarr.ones(8, "float32")
local start = os.time()
local ok, e = pcall(function()
  while os.time() - start < 30 do
    comm:all_reduce(x, "sum")
    comm:barrier()
  end
end)
print(ok and "no error" or string.format("%s: %s", e.kind, e.message))
-- the communicator is aborted: its calls keep failing the same way, destroy does not hang
local ok2, e2 = pcall(comm.all_reduce, comm, x, "sum")
print(ok2 and "no error" or e2.kind)
comm:destroy()
print("destroyed")
