-- cuarr.jit.rawkernel(fn[, opts]): a CUDA kernel written as a Lua function (CuPy's
-- @jit.rawkernel, Numba's @cuda.jit), typed from its arguments at call time and compiled once
-- per typing, launched as a RawKernel (its argument and configuration checks, its caches):
--   k(grid, block, {args...}[, {shared_mem =, stream =}])   k[{grid, block[, stream[, shared]]}](...)
-- An array argument becomes its data pointer (at its offset), its extents and, unless it is
-- C-contiguous, its element strides; Lua integers are int64, floats float64, booleans bool.
-- Also the intrinsics' host-side objects on cuarr.jit (jit.threadIdx ... jit.atomic_add), which
-- translated kernels resolve and plain Lua cannot call.
local X = require "cuarr.jit.translate"
local RL = require "cuarr.jit.rawkernel_lang"

local fmt, concat = string.format, table.concat

local KERNEL_NAME = "cuarr_jit_kernel"

return function(M, core, jit)
  local raise = core.raise
  local ndarray = core.metatables.ndarray

  -- The intrinsics' host-side objects: markers the translator recognises.  Using one from
  -- plain Lua (calling it, or computing with a coordinate) is a TypeError.
  local function outside(name)
    return function()
      raise("TypeError", fmt("jit.%s is usable only inside a jit.rawkernel kernel, not from "
        .. "plain Lua", name))
    end
  end
  for _, dim in ipairs { "threadIdx", "blockIdx", "blockDim", "gridDim" } do
    local t = {}
    for _, ax in ipairs { "x", "y", "z" } do
      local name = dim .. "." .. ax
      local mt = { __name = "cuarr.jit." .. name, __tostring = function()
        return "cuarr.jit." .. name
      end }
      for _, ev in ipairs { "__call", "__add", "__sub", "__mul", "__div", "__mod", "__pow",
                            "__unm", "__idiv", "__lt", "__le", "__concat", "__len",
                            "__index", "__newindex" } do
        mt[ev] = outside(name)
      end
      local marker = setmetatable({}, mt)
      RL.INTRINSIC[marker] = { kind = "dim", c = name, name = name }
      t[ax] = marker
    end
    jit[dim] = t
  end
  for _, name in ipairs { "grid", "gridsize", "syncthreads", "syncwarp", "shared_array",
                          "local_array" } do
    local f = outside(name)
    RL.INTRINSIC[f] = { kind = "fn", name = name }
    jit[name] = f
  end
  for op in pairs(RL.ATOMICS) do
    local name = "atomic_" .. op
    local f = outside(name)
    RL.INTRINSIC[f] = { kind = "fn", name = name }
    jit[name] = f
  end
  jit.warpsize = 32  -- warpSize on every NVIDIA GPU cuarr runs on

  local Kernel = { __name = "cuarr.jit.rawkernel" }

  -- The typing of the arguments (a string key and the translator's types) and the arguments
  -- the RawKernel takes (arrays expanded into pointer, extents, strides).
  local function typing(self, args, n)
    if n ~= self.nparams then
      raise("TypeError", fmt("jit.rawkernel %s takes %d argument%s, got %d", self.where,
        self.nparams, self.nparams == 1 and "" or "s", n))
    end
    local keys, types, out = {}, {}, {}
    for i = 1, n do
      local a = args[i]
      if getmetatable(a) == ndarray then
        if a.device == "cpu" then
          raise("TypeError", fmt("argument %d of jit.rawkernel %s is a host array: kernels "
            .. "take device arrays", i, self.where))
        end
        local dtype, nd = a.dtype, a.ndim
        local shape, strides, item = a.shape, a.strides, a.itemsize
        local contiguous = true
        local expect = item
        for k = nd, 1, -1 do
          if shape[k] > 1 and strides[k] ~= expect then contiguous = false end
          expect = expect * shape[k]
        end
        if nd == 0 then
          raise("TypeError", fmt("argument %d of jit.rawkernel %s is a 0-d array: pass a "
            .. "1-element array or the number itself", i, self.where))
        end
        keys[i] = fmt("%s%d%s", dtype, nd, contiguous and "c" or "s")
        types[i] = { dtype = dtype, ndim = nd, contiguous = contiguous }
        out[#out + 1] = a
        for k = 1, nd do out[#out + 1] = shape[k] end
        if not contiguous then
          for k = 1, nd do
            if strides[k] % item ~= 0 then
              raise("ValueError", fmt("argument %d of jit.rawkernel %s: a stride of %d bytes "
                .. "is not a whole number of %d-byte elements", i, self.where, strides[k], item))
            end
            out[#out + 1] = strides[k] // item
          end
        end
      elseif math.type(a) == "integer" then
        keys[i], types[i], out[#out + 1] = "i", "int64", a
      elseif math.type(a) == "float" then
        keys[i], types[i], out[#out + 1] = "f", "float64", a
      elseif type(a) == "boolean" then
        keys[i], types[i], out[#out + 1] = "b", "bool", a
      else
        raise("TypeError", fmt("argument %d of jit.rawkernel %s must be a device array, a "
          .. "number or a boolean, got %s", i, self.where, type(a)))
      end
    end
    return concat(keys, ","), types, out
  end

  -- The RawKernel of a typing, translated and compiled on first use.
  local function kernel_for(self, key, types)
    local k = self.kernels[key]
    if k then
      self.last = k
      return k
    end
    local t = X.translate(self.spec, types, KERNEL_NAME, raise, nil, true)
    local head = "__device__ void " .. KERNEL_NAME .. "("
    local at = t.source:find(head, 1, true)
    local half = t.ctx.needs_half
    for _, ty in ipairs(types) do
      if type(ty) == "table" and ty.dtype == "float16" then half = true end
    end
    local src = (half and "#include <cuda_fp16.h>\n" or "") .. t.source:sub(1, at - 1)
      .. "extern \"C\" __global__ void " .. KERNEL_NAME .. "(" .. t.source:sub(at + #head)
    k = { source = src, raw = M.RawKernel(src, KERNEL_NAME, rawget(self, "compile_opts")) }
    self.kernels[key] = k
    self.last = k
    return k
  end

  local function args_of(self, list, n)
    local key, types, out = typing(self, list, n)
    return kernel_for(self, key, types).raw, out
  end

  Kernel.__call = function(self, grid, block, args, opts)
    if type(args) ~= "table" or getmetatable(args) == ndarray then
      raise("TypeError", fmt("argument #3 (args) of jit.rawkernel %s must be a table, got %s",
        self.where, type(args)))
    end
    local raw, out = args_of(self, args, #args)
    raw(grid, block, out, opts)
  end

  -- k[{grid, block[, stream[, shared_mem]]}]: a launcher of that configuration.
  Kernel.__index = function(self, key)
    if key == "source" then return self.last and self.last.source or nil end
    if type(key) ~= "table" or getmetatable(key) == ndarray then
      raise("IndexError", fmt("jit.rawkernel %s has no field %s (it has source, and is indexed "
        .. "by a configuration {grid, block[, stream[, shared_mem]]})", self.where,
        tostring(key)))
    end
    local n = #key
    if n < 2 or n > 4 then
      raise("ValueError", fmt("the configuration of jit.rawkernel %s is {grid, block[, stream[, "
        .. "shared_mem]]}", self.where))
    end
    local grid, block = key[1], key[2]
    local launch = { stream = key[3], shared_mem = key[4] }
    return function(...)
      local list = { ... }
      local raw, out = args_of(self, list, select("#", ...))
      raw(grid, block, out, launch)
    end
  end
  Kernel.__newindex = function(self, key)
    raise("IndexError", fmt("jit.rawkernel %s has no settable field %s", self.where,
      tostring(key)))
  end
  Kernel.__tostring = function(self) return "cuarr.jit.rawkernel " .. self.where end

  -- cuarr.jit.rawkernel(fn[, {options =}]): fn a Lua function or its source.
  function jit.rawkernel(fn, opts)
    if type(fn) ~= "function" and type(fn) ~= "string" then
      raise("TypeError", "jit.rawkernel: argument #1 must be a Lua function or its source, got "
        .. type(fn))
    end
    local compile_opts
    if opts ~= nil then
      if type(opts) ~= "table" then
        raise("TypeError", "jit.rawkernel: argument #2 (opts) must be a table, got " .. type(opts))
      end
      core.check_options(opts, "jit.rawkernel", { "options" })
      compile_opts = opts.options ~= nil and { options = opts.options } or nil
    end
    local spec = X.source.load(fn, raise)
    -- A source string sees math and cuarr.jit (as `jit`).
    if type(fn) == "string" then spec.env = { math = math, jit = jit } end
    local nparams = #spec.node[1]
    return setmetatable({ spec = spec, where = spec.chunk .. ":" .. spec.line, nparams = nparams,
                          kernels = {}, compile_opts = compile_opts, last = false }, Kernel)
  end
end
