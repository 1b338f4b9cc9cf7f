-- cuarr.profiler: benchmark(fn, args, opts), CuPy's cupyx.profiler.benchmark said the Lua way.
--
-- Each repeat records an event on the current stream of every timed device, reads the host's
-- monotonic clock, calls fn(table.unpack(args)), reads the clock again, records a second event
-- on each device and waits for it: the CPU time is what the call took on the host, the GPU time
-- what the device spent between the two events.  Nothing is allocated between the two clock
-- reads.  The result prints as CuPy's does:
--   name                :    CPU:   12.345 us   +/- 1.000 (min:   11.000 / max:   20.000) us ...
-- With no usable device (and no `devices` asked for), only the CPU is timed: gpu_times has no
-- rows and the line has no GPU part.
local count = require "cuarr.count"
local support = require "cuarr.support"

-- The most arguments fn is given (table.unpack puts them all on Lua's stack).
local MAX_ARGS = 4096

return function(M, core)
  local raise = core.raise
  local perf_counter = core.perf_counter
  local unpack, huge, floor, sqrt = table.unpack, math.huge, math.floor, math.sqrt
  local fmt, concat = string.format, table.concat

  local Result = { __name = "cuarr.PerfCaseResult" }
  Result.__index = Result

  -- Mean, population standard deviation (NumPy's default), min and max of the n numbers row[i].
  local function stats(row, n)
    local sum, lo, hi = 0, huge, -huge
    for i = 1, n do
      local t = row[i]
      sum = sum + t
      if t < lo then lo = t end
      if t > hi then hi = t end
    end
    local mean, sq = sum / n, 0
    for i = 1, n do sq = sq + (row[i] - mean) ^ 2 end
    return mean, sqrt(sq / n), lo, hi
  end

  -- One device's part of the line, times in microseconds as CuPy prints them.
  local function item(label, row)
    local n = row.size
    if n == 0 then return fmt("    %s: no runs", label) end
    local mean, std, lo, hi = stats(row, n)
    local s = fmt("    %s:%9.3f us", label, mean * 1e6)
    if n > 1 then
      s = s .. fmt("   +/-%6.3f (min:%9.3f / max:%9.3f) us", std * 1e6, lo * 1e6, hi * 1e6)
    end
    return s
  end

  -- The line, from the result's fields alone (a spec can set known times and read it).
  Result.__tostring = function(r)
    local parts = { item("CPU", r.cpu_times) }
    for i, d in ipairs(r.devices) do
      parts[#parts + 1] = item("GPU-" .. tostring(d), r.gpu_times[i])
    end
    return fmt("%-20s:%s", r.name, concat(parts, " "))
  end

  local function check_count(v, what, least)
    if math.type(v) == "float" and v == floor(v) and v > -2^63 and v < 2^63 then
      v = floor(v)
    end
    if math.type(v) ~= "integer" then
      raise("TypeError", fmt("benchmark: %s must be an integer, got %s", what,
        type(v) == "number" and tostring(v) or type(v)))
    end
    if v < least then
      raise("ValueError", fmt("benchmark: %s must be at least %d, got %d", what, least, v))
    end
    return v
  end

  local keys = { "n_repeat", "n_warmup", "max_duration", "name", "devices" }

  -- The devices to time: those asked for (each checked), else the current one if there is one.
  local function timed_devices(devices)
    if devices == nil then
      if not core.is_available() then return {} end
      return { core.get_device_id() }
    end
    if type(devices) ~= "table" then
      raise("TypeError", "benchmark: devices must be a table of device ids, got " .. type(devices))
    end
    local list = {}
    for i = 1, #devices do
      local d = devices[i]
      if math.type(d) ~= "integer" then
        raise("TypeError", fmt("benchmark: devices[%d] must be an integer, got %s", i, type(d)))
      end
      list[i] = core.Device(d).id -- a ValueError (or NotAvailable) for a device not there
    end
    if #list == 0 then raise("ValueError", "benchmark: devices is empty") end
    return list
  end

  local function benchmark(fn, args, opts)
    local m = getmetatable(fn)
    if type(fn) ~= "function" and not (type(m) == "table" and rawget(m, "__call")) then
      raise("TypeError", "benchmark: argument #1 must be a function, got " .. type(fn))
    end
    if args == nil then args = {} end
    if type(args) ~= "table" then
      raise("TypeError", "benchmark: argument #2 (args) must be a table, got " .. type(args))
    end
    if opts == nil then opts = {} end
    if type(opts) ~= "table" then
      raise("TypeError", "benchmark: options must be a table, got " .. type(opts))
    end
    core.check_options(opts, "benchmark", keys)
    local n_repeat = opts.n_repeat == nil and 10000 or check_count(opts.n_repeat, "n_repeat", 1)
    local n_warmup = opts.n_warmup == nil and 10 or check_count(opts.n_warmup, "n_warmup", 0)
    local max_duration = opts.max_duration
    if max_duration == nil then max_duration = huge end
    if type(max_duration) ~= "number" then
      raise("TypeError", "benchmark: max_duration must be a number of seconds, got "
        .. type(max_duration))
    end
    if max_duration ~= max_duration or max_duration < 0 then
      raise("ValueError", "benchmark: max_duration must be a non-negative number of seconds, got "
        .. tostring(max_duration))
    end
    local name = opts.name
    if name == nil and type(fn) == "table" and type(rawget(fn, "name")) == "string" then
      name = rawget(fn, "name") -- a fused function: its kernel_name, else its Lua function's
    elseif name == nil and type(fn) ~= "function" then
      name = tostring(fn) -- a callable object (a kernel): what it prints as
    elseif name == nil then
      -- CuPy names a function by its __name__: here the name it is defined under, else where.
      local info = debug.getinfo(fn, "S")
      name = support.function_name(fn)
        or info and info.what ~= "C" and (info.short_src .. ":" .. info.linedefined) or "function"
    elseif type(name) ~= "string" then
      raise("TypeError", "benchmark: name must be a string, got " .. type(name))
    end
    local devices = timed_devices(opts.devices)
    local n_args = count(raise, args, "benchmark", MAX_ARGS)

    local nd = #devices
    local starts, stops = {}, {}
    for i = 1, nd do
      starts[i] = M.with_device(devices[i], M.Event)
      stops[i] = M.with_device(devices[i], M.Event)
    end

    for _ = 1, n_warmup do fn(unpack(args, 1, n_args)) end
    for i = 1, nd do
      starts[i]:record()
      starts[i]:synchronize()
    end

    local cpu, gpu = {}, {}
    for i = 1, nd do gpu[i] = {} end
    local duration, runs = 0, 0
    for r = 1, n_repeat do
      for i = 1, nd do starts[i]:record() end
      local t1 = perf_counter()
      fn(unpack(args, 1, n_args))
      local t2 = perf_counter()
      for i = 1, nd do stops[i]:record() end
      for i = 1, nd do stops[i]:synchronize() end
      cpu[r] = t2 - t1
      for i = 1, nd do gpu[i][r] = M.get_elapsed_time(starts[i], stops[i]) * 1e-3 end
      runs = r
      duration = duration + (perf_counter() - t1)
      if duration > max_duration then break end
    end

    local gpu_times = nd > 0 and M.cpu.array(gpu, "float64") or M.cpu.empty({ 0, runs }, "float64")
    return setmetatable({ name = name, cpu_times = M.cpu.array(cpu, "float64"),
                          gpu_times = gpu_times, devices = devices }, Result)
  end

  return { benchmark = benchmark }
end
