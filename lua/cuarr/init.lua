-- cuarr: GPU arrays for Lua 5.4.
--
-- The C module (cuarr.core) does the work; this front end assembles the namespace the user
-- sees: the device functions, cuarr.cpu for host arrays, dtype names, printing, scope guards
-- for devices and streams, and the lazily read runtime versions.  Nothing here touches the
-- CUDA driver at load time: `require "cuarr"` works on a machine without a GPU.

local core = require "cuarr.core"
local printing = require "cuarr.printing"

local M = {}
local mt = core.metatables

-- An error raised in the front end's files names the user's line that called it: the core
-- skips the levels of chunks under this folder.
core.set_front_end(debug.getinfo(1, "S").source:match("^(.*[/\\])init%.lua$") or "\0")

-- core's helpers for the front end stay out of the user's namespace.
local internal = { metatables = true, cpu = true, raise = true, dead_array = true,
                   set_front_end = true, near_key = true,
                   check_options = true, jit_call = true, jit_launcher = true,
                   jit_compile = true, random_fill_host = true, random_per_block = true,
                   random_program = true, random_take_rows_host = true, ufunc_info = true, check_writeable = true,
                   ufunc_resolve = true,
                   fuse_key = true, ufunc_math_source = true, reduction_ops_source = true,
                   fancy_gather = true, fancy_scatter = true }
for name, value in pairs(core) do
  if not internal[name] then
    M[name] = value
  end
end

-- dtype names as constants: cuarr.float32 == "float32".
local dtypes = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "float32", "float64" }
for _, d in ipairs(dtypes) do M[d] = d end

-- Host arrays: the same creations, plus the functions that work on any array.
local cpu = {}
for name, fn in pairs(core.cpu) do cpu[name] = fn end
for _, name in ipairs { "reshape", "ravel", "flatten", "transpose", "swapaxes", "squeeze",
                        "expand_dims", "copy", "astype", "ascontiguousarray" } do
  cpu[name] = core[name]
end
for _, d in ipairs(dtypes) do cpu[d] = d end
M.cpu = cpu

-- Numba's explicit-transfer names.
M.device_array = M.empty
M.device_array_like = M.empty_like
function M.pinned_array(shape, dtype, opts)
  if opts == nil then return core.cpu.empty(shape, dtype, { pinned = true }) end
  if type(opts) ~= "table" then
    core.raise("TypeError", "pinned_array: options must be a table, got " .. type(opts))
  end
  core.check_options(opts, "pinned_array", { "order" })
  return core.cpu.empty(shape, dtype, { pinned = true, order = opts.order })
end
function M.asnumpy(a, stream)
  if getmetatable(a) ~= mt.ndarray then
    core.raise("TypeError", "asnumpy: argument #1 must be an array, got " .. type(a))
  end
  return a:get(stream)
end

-- The versions of the driver, NVRTC and cuBLAS, read on first use.
-- The metamethod fills cuarr.runtime only: called by hand on anything else it is a TypeError.
local runtime = {}
M.runtime = setmetatable(runtime, {
  __index = function(t, k)
    if t ~= runtime then
      core.raise("TypeError", "cuarr.runtime's __index: argument #1 must be cuarr.runtime, got "
        .. type(t))
    end
    for key, value in pairs(core.runtime_info()) do rawset(runtime, key, value) end
    return rawget(runtime, k)
  end,
})

-- Printing: tostring(a) is NumPy's repr.  printing.lua formats anything shaped like an array
-- (its specs give it mock ones); here only arrays are taken, anything else is a TypeError.
-- A freed or closed array prints as such (its values are gone), so print(a) never raises.
local dead_array = core.dead_array
local function printer(format, name)
  return function(a)
    if getmetatable(a) ~= mt.ndarray then
      core.raise("TypeError", name .. ": argument #1 must be an array, got " .. type(a))
    end
    local dead, dtype, shape = dead_array(a)
    if dead then return printing.dead(dead, dtype, shape) end
    return format(a)
  end
end
mt.ndarray.__tostring = printer(printing.repr, "repr")
mt.ndarray.methods.str = printer(printing.str, "str")
mt.ndarray.methods.repr = mt.ndarray.__tostring

-- Scope guards: `local _ <close> = x:enter()` restores what was current when the scope ends.
local Guard = { __name = "cuarr.Guard" }
Guard.__index = Guard
Guard.__close = function(self)
  if getmetatable(self) ~= Guard then
    core.raise("TypeError", "argument #1 must be a scope guard, got " .. type(self))
  end
  if not self.closed then
    self.closed = true
    self.restore()
  end
end
Guard.close = Guard.__close
local function guard(restore) return setmetatable({ restore = restore }, Guard) end

-- A TypeError unless v is an object of the class whose metatable is cls (named `name`).
local function check_self(v, cls, name)
  if getmetatable(v) ~= cls then
    core.raise("TypeError", "argument #1 must be a " .. name .. ", got " .. type(v))
  end
end

-- A TypeError unless fn can be called.
local function check_callable(fn, what)
  local m = getmetatable(fn)
  if type(fn) ~= "function" and not (type(m) == "table" and rawget(m, "__call")) then
    core.raise("TypeError", what .. ": argument #2 must be a function, got " .. type(fn))
  end
end

function mt.Device.methods.enter(self)
  check_self(self, mt.Device, "Device")
  local previous = core.get_device_id()
  self:use()
  return guard(function() core.Device(previous):use() end)
end

function mt.Stream.methods.enter(self)
  check_self(self, mt.Stream, "Stream")
  local device = self.device
  local previous_device = core.get_device_id()
  device:use()
  local previous = core.get_current_stream()
  self:use()
  return guard(function()
    previous:use()
    core.Device(previous_device):use()
  end)
end

local function as_device(d)
  if getmetatable(d) == mt.Device then return d end
  return core.Device(d)  -- checks d: a TypeError, or a ValueError for a device that isn't there
end

-- cuarr.with_device(d, fn, ...) / cuarr.with_stream(s, fn, ...): fn(...) with d (or s)
-- current, restored afterwards even when fn raises.
function M.with_device(d, fn, ...)
  check_callable(fn, "with_device")
  local _ <close> = as_device(d):enter()
  return fn(...)
end

function M.with_stream(s, fn, ...)
  if getmetatable(s) ~= mt.Stream then
    core.raise("TypeError", "with_stream needs a Stream, got " .. type(s))
  end
  check_callable(fn, "with_stream")
  local _ <close> = s:enter()
  return fn(...)
end

-- cuarr.with_pinned({h1, h2, ...}, fn, ...): fn(...) with the host arrays page-locked
-- (cuarr.pinned), unregistered afterwards even when fn raises.  The arrays go to cuarr.pinned
-- as arguments: their count is bounded well below what Lua's stack takes.
local MAX_PINNED = 4096
local count = require "cuarr.count"
function M.with_pinned(arrays, fn, ...)
  if type(arrays) ~= "table" then
    core.raise("TypeError", "with_pinned: argument #1 must be a table of host arrays, got "
      .. type(arrays))
  end
  check_callable(fn, "with_pinned")
  local n = count(core.raise, arrays, "with_pinned", MAX_PINNED)
  local _ <close> = M.pinned(table.unpack(arrays, 1, n))
  return fn(...)
end

-- The module that suits the arguments: cuarr for device arrays, cuarr.cpu otherwise, so that
-- `local xp = cuarr.get_array_module(x)` writes code that runs on either.
function M.get_array_module(...)
  for i = 1, select("#", ...) do
    local a = select(i, ...)
    if getmetatable(a) == mt.ndarray and a.device ~= "cpu" then return M end
  end
  return cpu
end
cpu.get_array_module = M.get_array_module

-- mean var std nanmean ptp and linalg.norm, composed from the built-in reductions and ufuncs
-- (in cuarr and cuarr.cpu, and as array methods).
require("cuarr.reductions")(M, cpu, mt, core.raise)

-- cuarr.profiler.benchmark: CuPy's timing helper (lua/cuarr/profiler.lua).
M.profiler = require("cuarr.profiler")(M, core)
-- cuarr.graph(fn, ...): a CUDA graph captured from what fn enqueues.
require("cuarr.graph")(M, core.raise)
-- cuarr.jit and cuarr.vectorize: kernels written in Lua (lua/cuarr/jit/).
require("cuarr.jit")(M, core)

-- cuarr.random and cuarr.cpu.random (lua/cuarr/random.lua).
require("cuarr.random")(M, cpu, core)
require("cuarr.products")(M, cpu, core)
require("cuarr.linalg")(M, cpu, core)
require("cuarr.join")(M, cpu, core)
require("cuarr.mask")(M, cpu, core)
require("cuarr.rearrange")(M, cpu, core)
-- sort, argsort, partition, lexsort, searchsorted (lua/cuarr/sort.lua).
require("cuarr.sort")(M, cpu, core)
-- bincount, histogram, histogram_bin_edges, digitize (lua/cuarr/histogram.lua).
require("cuarr.histogram")(M, cpu, core)
-- isin, in1d, intersect1d, union1d, setdiff1d, setxor1d (lua/cuarr/sets.lua).
require("cuarr.sets")(M, cpu, core)
require("cuarr.take")(M, cpu, core)
-- cuarr.distributed: NCCL collectives over several GPUs (lua/cuarr/distributed.lua).
require("cuarr.distributed")(M, cpu, core)

-- Error objects carry .kind and .message; this tells them from other errors.
function M.is_error(e, kind)
  return getmetatable(e) == mt.Error and (kind == nil or e.kind == kind)
end

M.ndarray = mt.ndarray
M.__version__ = core.__version__
return M
