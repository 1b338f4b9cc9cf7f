-- tools/fuzz/objects.lua -- fresh objects of every cuarr class, for the first argument of
-- methods and metamethods and as arguments of the wrong class elsewhere; and the classes'
-- metatables, read from those objects (and from the registry, in entries.lua).

local values = require "tools.fuzz.values"

local random = math.random

-- ElementwiseKernel and ReductionKernel definitions: plain ones, raw and typed parameters, and
-- one with many outputs (the binding must make room on the Lua stack for its results).
local function many_outputs(n)
  local outs, ops = {}, {}
  for i = 1, n do
    outs[i] = "float32 y" .. i
    ops[i] = "y" .. i .. " = x + " .. i
  end
  return table.concat(outs, ", "), table.concat(ops, "; ")
end
local MANY_OUT, MANY_OP = many_outputs(48)
local ELEMENTWISE = {
  { "T x, T y", "T z", "z = x + y", "add_xy" },
  { "float32 x", "float32 y", "y = x * 2", "twice" },
  { "raw T x, int32 n", "T y", "y = x[n - 1 - i]", "reverse" },
  { "T x", "T y, T w", "y = x; w = -x", "split" },
  { "float32 x", MANY_OUT, MANY_OP, "many_outputs" },
}
local REDUCTION = {
  { "T x", "T y", "x", "a + b", "y = a", "0", "sum_of" },
  { "T x", "T y", "x * x", "max(a, b)", "y = a", nil, "max_square" },
  { "float32 x, float32 w", "float32 y", "x * w", "a + b", "y = a", "0", "dot" },
}

return function(cuarr)
  local M = {}
  local device = cuarr.is_available()

  local function error_object()
    local ok, err = pcall(cuarr.cpu.zeros, -1)
    assert(not ok and cuarr.is_error(err), "a negative size gives an error object")
    return err
  end

  -- class name -> function making a fresh object of it.
  local make = {
    ndarray = function() return values.array(cuarr) end,
    Error = error_object,
    MemoryPool = function()
      return random() < 0.5 and cuarr.get_default_memory_pool() or
             cuarr.get_default_pinned_memory_pool()
    end,
    ElementwiseKernel = function()
      local d = ELEMENTWISE[random(#ELEMENTWISE)]
      return cuarr.ElementwiseKernel(d[1], d[2], d[3], d[4])
    end,
    ReductionKernel = function()
      local d = REDUCTION[random(#REDUCTION)]
      return cuarr.ReductionKernel(d[1], d[2], d[3], d[4], d[5], d[6], d[7])
    end,
  }
  if device then
    make.Device = function() return cuarr.Device(0) end
    make.Stream = function()
      local r = random()
      if r < 0.8 then return cuarr.Stream { non_blocking = random() < 0.5 } end
      if r < 0.9 then return cuarr.null_stream() end
      return cuarr.get_current_stream()
    end
    make.Event = function() return cuarr.Event { timing = random() < 0.5 } end
    make.Guard = function() return cuarr.Device(0):enter() end
    -- A communicator where NCCL runs here (the stand-in NCCL of tools/fake_cuda, through
    -- CUARR_LIBNCCL, on the stand-in driver; a real one on a GPU machine).
    if pcall(function() cuarr.distributed.init({ devices = { 0 } }):destroy() end) then
      make.Communicator = function() return cuarr.distributed.init { devices = { 0 } } end
    end
  end

  -- The classes' metatables, from a sample of each.
  M.classes = {}
  for name, f in pairs(make) do
    local mt = getmetatable(f())
    if type(mt) == "table" then M.classes[name] = mt end
  end
  local names = {}
  for name in pairs(make) do names[#names + 1] = name end
  table.sort(names)

  -- A fresh object of class `name` (of a class without a maker: any object).
  function M.of(name)
    local f = make[name] or make[names[random(#names)]]
    return f()
  end

  function M.any() return make[names[random(#names)]]() end

  return M
end
