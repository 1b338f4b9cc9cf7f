-- cuarr.jit.rawkernel(fn[, opts]): a CUDA kernel written as a Lua function (CuPy's
-- @jit.rawkernel, Numba's @cuda.jit), typed from its arguments at call time and compiled once
-- per typing, launched as a RawKernel (its argument and configuration checks, its caches):
--   k(grid, block, {args...}[, {shared_mem =, stream =}])
--   k[{grid, block[, stream[, shared_mem]]}](args...)
-- An array argument becomes its data pointer (at its offset), its extents and, unless it is
-- C-contiguous, its element strides; Lua integers are int64, floats float64, booleans bool.
-- Also the intrinsics' host-side objects on cuarr.jit (jit.threadIdx ... jit.atomic_add), which
-- translated kernels resolve and plain Lua cannot call.
local X = require "cuarr.jit.translate"
local RI = require "cuarr.jit.rawkernel_intrinsics"

local fmt = string.format

local KERNEL_NAME = "cuarr_jit_kernel"
-- The architecture k:compile() checks against without a device: the oldest CUDA 13 compiles for.
local BASE_ARCH = 75

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
      RI.INTRINSIC[marker] = { kind = "dim", c = name, name = name }
      t[ax] = marker
    end
    jit[dim] = t
  end
  for _, name in ipairs { "grid", "gridsize", "syncthreads", "syncwarp", "shared_array",
                          "local_array" } do
    local f = outside(name)
    RI.INTRINSIC[f] = { kind = "fn", name = name }
    jit[name] = f
  end
  for op in pairs(RI.ATOMICS) do
    local name = "atomic_" .. op
    local f = outside(name)
    RI.INTRINSIC[f] = { kind = "fn", name = name }
    jit[name] = f
  end
  jit.warpsize = 32  -- warpSize on every NVIDIA GPU cuarr runs on

  -- A kernel is a table read by the C launch path (src/lua/raw_kernel.c, jit_launch): [1] its
  -- RawKernels by typing, [2] miss, [3] its name, [4] its parameter count, [5] the last
  -- launch's RawKernel.  The C side computes the typing and the RawKernel's arguments per
  -- call and calls miss only for a typing it has not seen.
  local Kernel = { __name = "cuarr.jit.rawkernel", __call = core.jit_call }
  local CACHE, NAME, NPARAMS, LAST = 1, 3, 4, 5

  -- The translator's types of the arguments, given the typing key C made of them (per
  -- argument 'i', 'f', 'b', or 'a' + dtype + rank + 'c' (C-contiguous) or 's' + 'r' (no other
  -- array argument overlaps it: its pointer is __restrict__) or 'o').
  local function types_of(key, ...)
    local types, at = {}, 1
    for i = 1, select("#", ...) do
      local tag = key:sub(at, at)
      if tag == "a" then
        local a = select(i, ...)
        types[i] = { dtype = a.dtype, ndim = a.ndim, contiguous = key:sub(at + 3, at + 3) == "c",
                     restrict = key:sub(at + 4, at + 4) == "r" }
        at = at + 5
      else
        types[i] = tag == "i" and "int64" or tag == "f" and "float64" or "bool"
        at = at + 1
      end
    end
    return types
  end

  local DEPENDENT_WAIT = '#if __CUDA_ARCH__ >= 900\n  asm volatile("griddepcontrol.wait;" ::: '
    .. '"memory");\n#endif\n'

  -- The CUDA C of the kernel for the translator's types.
  local function source_for(self, types)
    local t = X.translate(self.spec, types, KERNEL_NAME, raise, nil, true)
    local head = "__device__ void " .. KERNEL_NAME .. "("
    local at = t.source:find(head, 1, true)
    local half = t.ctx.needs_half
    for _, ty in ipairs(types) do
      if type(ty) == "table" and ty.dtype == "float16" then half = true end
    end
    -- The kernel waits for the work before it on the stream first thing, so that it can be
    -- launched as a programmatic dependent (RawKernel's dependent_launch) on sm_90 and newer.
    local rest = t.source:sub(at + #head):gsub("%) {\n", ") {\n" .. DEPENDENT_WAIT, 1)
    return (half and "#include <cuda_fp16.h>\n" or "") .. t.source:sub(1, at - 1)
      .. "extern \"C\" __global__ void " .. KERNEL_NAME .. "(" .. rest
  end

  -- The RawKernel of a typing not seen before: translated, then compiled on its first launch.
  local function miss(self, key, ...)
    local src = source_for(self, types_of(key, ...))
    local opts = rawget(self, "compile_opts")
    local raw = M.RawKernel(src, KERNEL_NAME, { options = opts and opts.options,
                                                dependent_launch = true })
    self[CACHE][key] = raw
    self.sources[raw] = src
    return raw
  end

  -- k:compile({args...}): translated for the arguments' typing (device or host arrays,
  -- numbers, booleans) and compiled by NVRTC for the current device's architecture, or for
  -- BASE_ARCH where there is no device; launches nothing, returns the CUDA C.
  local function compile(self, args)
    if type(args) ~= "table" or getmetatable(args) == ndarray then
      raise("TypeError", fmt("%s:compile takes a table of arguments, got %s", self[NAME],
        type(args)))
    end
    if #args ~= self[NPARAMS] then
      raise("TypeError", fmt("%s takes %d argument%s, got %d", self[NAME], self[NPARAMS],
        self[NPARAMS] == 1 and "" or "s", #args))
    end
    local types = {}
    -- An array is __restrict__ when no other array argument may share its memory, as the
    -- launch path decides (raw_kernel.c, jit_mark_overlaps).
    local function restrict(i)
      for j, b in ipairs(args) do
        if j ~= i and getmetatable(b) == ndarray and M.may_share_memory(args[i], b) then
          return false
        end
      end
      return true
    end
    for i, a in ipairs(args) do
      if getmetatable(a) == ndarray then
        if a.ndim == 0 then
          raise("TypeError", fmt("argument %d of %s is a 0-d array", i, self[NAME]))
        end
        types[i] = { dtype = a.dtype, ndim = a.ndim, contiguous = a:is_c_contiguous(),
                     restrict = restrict(i) }
      elseif math.type(a) then
        types[i] = math.type(a) == "integer" and "int64" or "float64"
      elseif type(a) == "boolean" then
        types[i] = "bool"
      else
        raise("TypeError", fmt("argument %d of %s must be an array, a number or a boolean, got "
          .. "%s", i, self[NAME], type(a)))
      end
    end
    local src = source_for(self, types)
    local arch = M.is_available() and tonumber(M.Device(M.get_device_id()).compute_capability)
      or BASE_ARCH
    core.jit_compile(src, arch, rawget(self, "compile_opts"))
    return src
  end

  -- k.source, k.compile, and k[{grid, block[, stream[, shared_mem]]}]: a launcher of that
  -- configuration.
  local KEYS = { source = true, compile = true }
  Kernel.__index = function(self, key)
    if key == "source" then
      local last = self[LAST]
      return last and self.sources[last] or nil
    end
    if key == "compile" then return compile end
    if type(key) == "table" then return core.jit_launcher(self, key) end
    local near = type(key) == "string" and core.near_key(key, KEYS)
    raise("IndexError", fmt("%s has no field %s%s (it has source and compile, and is indexed by "
      .. "a configuration {grid, block[, stream[, shared_mem]]})", self[NAME], tostring(key),
      near and " (did you mean '" .. near .. "'?)" or ""))
  end
  Kernel.__newindex = function(self, key)
    raise("IndexError", fmt("%s has no settable field %s", self[NAME], tostring(key)))
  end
  Kernel.__tostring = function(self) return "cuarr." .. self[NAME] end

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
    return setmetatable({ {}, miss, "jit.rawkernel " .. spec.chunk .. ":" .. spec.line, nparams,
                          false, spec = spec, sources = {},
                          compile_opts = compile_opts }, Kernel)
  end
end
