-- cuarr.distributed: NCCL's collectives over several GPUs (src/lua/comm.c, src/core/comm/).
--
-- The C module gives cuarr.distributed.init and the Communicator class; this adds
-- comm:barrier() and cuarr.distributed.is_available().  Ranks are 0-based (NCCL's, as device
-- ids are): parts[r + 1] is rank r's array, on comm.devices[r + 1].
local select, getmetatable, ipairs, type = select, getmetatable, ipairs, type
local rawlen, rawget = rawlen, rawget

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, _, core)
  local raise = core.raise
  local D = M.distributed -- core.distributed: init
  local Communicator = core.metatables.Communicator
  local methods = Communicator.methods
  D.Communicator = Communicator -- the class, as cuarr.ndarray is the array's

  -- comm:barrier([{streams=}]): a one-element all_reduce over the ranks, then a wait on every
  -- rank's stream (each device's current one, or the streams given): on return the work queued
  -- on them before the barrier is done on every device.
  function methods.barrier(comm, opts, ...)
    if getmetatable(comm) ~= Communicator then
      raise("TypeError", "barrier: argument #1 must be a Communicator, got " .. type(comm))
    end
    if select("#", ...) > 0 then
      raise("TypeError", "barrier takes at most one argument (options), got more")
    end
    if opts ~= nil then
      if type(opts) ~= "table" then
        raise("TypeError", "barrier: argument #1 must be an options table, got " .. type(opts))
      end
      core.check_options(opts, "barrier", { "streams" })
    end
    if comm.destroyed then raise("ValueError", "barrier: the communicator has been destroyed") end
    local streams = opts and opts.streams
    if type(streams) == "table" then
      -- read raw into a copy, which both the all_reduce checks and the waits below use: a
      -- hostile __index must not answer a Stream to the check and something else to the wait
      local list = {}
      for r = 1, rawlen(streams) do list[r] = rawget(streams, r) end
      streams = list
    end
    local parts = {}
    for r, d in ipairs(comm.devices) do
      parts[r] = M.with_device(d, M.empty, 1, "int32") -- any value: only the exchange matters
    end
    comm:all_reduce(parts, "max", streams ~= nil and { streams = streams } or nil)
    if streams ~= nil then
      for r = 1, #parts do streams[r]:synchronize() end
    else
      for _, d in ipairs(comm.devices) do
        M.with_device(d, function() core.get_current_stream():synchronize() end)
      end
    end
  end

  -- Whether NCCL loads here (cuarr.runtime.nccl_version says which one).
  function D.is_available(...)
    if select("#", ...) > 0 then
      raise("TypeError", "distributed.is_available takes no arguments")
    end
    return M.runtime.nccl_version >= 0
  end
end
