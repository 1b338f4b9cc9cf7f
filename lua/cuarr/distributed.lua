-- cuarr.distributed: NCCL's collectives over several GPUs (src/lua/comm.c, src/core/comm/).
--
-- The C module gives the Communicator class and init's two ways: one process over several
-- devices (init{devices = {...}}) and one rank per process (init{rank=, size=, device=, ...});
-- this fills the second's options from the environment the launcher (bin/cuarr-run, or
-- torchrun's names) sets, and adds comm:barrier() and cuarr.distributed.is_available().  Ranks
-- are 0-based (NCCL's, as device ids are): parts[r + 1] is rank r's array, on
-- comm.devices[r + 1].
local select, getmetatable, ipairs, type = select, getmetatable, ipairs, type
local rawlen, rawget, next, tointeger = rawlen, rawget, next, math.tointeger
local getenv, fmt = os.getenv, string.format

-- How long a rank waits for the others (the rendezvous, each collective) unless told.
local DEFAULT_TIMEOUT = 300

-- (M, cpu, core): the device namespace, the host one, the C module.
return function(M, _, core)
  local raise = core.raise
  local D = M.distributed -- core.distributed: init
  local Communicator = core.metatables.Communicator
  local methods = Communicator.methods
  D.Communicator = Communicator -- the class, as cuarr.ndarray is the array's
  local init_core = D.init

  -- The first of the environment variables `names` that is set: its value and name.
  local function env(names)
    for _, name in ipairs(names) do
      local v = getenv(name)
      if v ~= nil and v ~= "" then return v, name end
    end
  end

  -- An integer from the environment (nil when none of names is set).
  local function env_integer(names)
    local v, name = env(names)
    if v == nil then return nil end
    local n = tointeger(tonumber(v))
    if n == nil then
      raise("ValueError", fmt("distributed.init: %s must be an integer, got '%s'", name, v))
    end
    return n
  end

  local function env_number(names)
    local v, name = env(names)
    if v == nil then return nil end
    local n = tonumber(v)
    if n == nil then
      raise("ValueError", fmt("distributed.init: %s must be a number, got '%s'", name, v))
    end
    return n
  end

  -- cuarr.distributed.init(opts): opts.devices makes one process's communicator over those
  -- devices; without it this process is one rank of a communicator over several processes,
  -- each option it does not give read from the environment: rank (CUARR_RANK, RANK), size
  -- (CUARR_WORLD_SIZE, WORLD_SIZE), device (CUARR_DEVICE, else the local rank CUARR_LOCAL_RANK
  -- or LOCAL_RANK, else rank modulo the devices), the rendezvous (id_file: CUARR_NCCL_ID_FILE;
  -- or address and port: MASTER_ADDR, MASTER_PORT), timeout (CUARR_DISTRIBUTED_TIMEOUT,
  -- else 300 s) and verify (CUARR_DISTRIBUTED_VERIFY=1).
  local INIT_KEYS = { "devices", "rank", "size", "device", "id_file", "address", "port", "timeout",
                      "verify" }
  function D.init(opts, ...)
    if select("#", ...) > 0 then return init_core(opts, ...) end -- its message for extra ones
    if opts == nil then opts = {} end
    if type(opts) ~= "table" or getmetatable(opts) ~= nil then
      return init_core(opts) -- its own message for what is not a plain table
    end
    core.check_options(opts, "distributed.init", INIT_KEYS)
    if rawget(opts, "devices") ~= nil then return init_core(opts) end
    local o = {}
    for k, v in next, opts do o[k] = v end
    if o.rank == nil then o.rank = env_integer { "CUARR_RANK", "RANK" } end
    if o.size == nil then o.size = env_integer { "CUARR_WORLD_SIZE", "WORLD_SIZE" } end
    if o.rank == nil and o.size == nil then
      raise("ValueError", "distributed.init: give devices = {...} (one process over several "
        .. "devices), or start one process per device with bin/cuarr-run -n N (which sets "
        .. "CUARR_RANK and CUARR_WORLD_SIZE)")
    end
    if o.rank == nil or o.size == nil then
      raise("ValueError", fmt("distributed.init: the %s is missing (option %s, or %s)",
        o.rank == nil and "rank" or "world size", o.rank == nil and "rank" or "size",
        o.rank == nil and "CUARR_RANK" or "CUARR_WORLD_SIZE"))
    end
    if o.device == nil then
      o.device = env_integer { "CUARR_DEVICE" } or env_integer { "CUARR_LOCAL_RANK", "LOCAL_RANK" }
      if o.device == nil and math.type(o.rank) == "integer" then
        local count = M.runtime.device_count
        o.device = count > 0 and o.rank % count or 0
      end
    end
    if o.id_file == nil and o.address == nil then
      o.id_file = env { "CUARR_NCCL_ID_FILE" }
      if o.id_file == nil then
        o.address = env { "MASTER_ADDR" }
        if o.address ~= nil and o.port == nil then o.port = env_integer { "MASTER_PORT" } end
      end
    end
    if o.address ~= nil and o.port == nil then
      raise("ValueError", "distributed.init: an address needs a port (option port, or MASTER_PORT)")
    end
    if o.timeout == nil then
      o.timeout = env_number { "CUARR_DISTRIBUTED_TIMEOUT" } or DEFAULT_TIMEOUT
    end
    if o.verify == nil then
      local v, name = env { "CUARR_DISTRIBUTED_VERIFY" }
      if v ~= nil and v ~= "0" and v ~= "1" then
        raise("ValueError", fmt("distributed.init: %s must be 0 or 1, got '%s'", name, v))
      end
      o.verify = v == "1"
    end
    local comm = init_core(o)
    -- this process works on its rank's device from now on, as torch.cuda.set_device(local_rank)
    -- in a torch.distributed script: the arrays it makes are where its collectives need them
    comm.device:use()
    return comm
  end

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
      core.check_options(opts, "barrier", { "streams", "stream" })
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
    local stream = opts and opts.stream
    if stream ~= nil and streams ~= nil then
      raise("ValueError", "barrier: give stream or streams, not both")
    end
    local parts = {}
    for r, d in ipairs(comm.devices) do
      parts[r] = M.with_device(d, M.empty, 1, "int32") -- any value: only the exchange matters
    end
    local on = stream ~= nil and { stream = stream } or streams ~= nil and { streams = streams }
      or nil
    comm:all_reduce(parts, "max", on)
    if stream ~= nil then
      stream:synchronize()
    elseif streams ~= nil then
      for r = 1, #parts do streams[r]:synchronize() end
    else
      for _, d in ipairs(comm.devices) do
        M.with_device(d, function() core.get_current_stream():synchronize() end)
      end
    end
  end

  -- Whether collectives can run here: NCCL loads (cuarr.runtime.nccl_version says which one)
  -- and a device is usable (NCCL without a driver cannot make a communicator).
  function D.is_available(...)
    if select("#", ...) > 0 then
      raise("TypeError", "distributed.is_available takes no arguments")
    end
    return M.runtime.nccl_version >= 0 and M.is_available()
  end
end
