-- jit.rawkernel's intrinsics in the translator: CUDA's thread coordinates (jit.threadIdx.x
-- ...), jit.grid/gridsize, syncthreads/syncwarp and the atomics.  The host-side objects they
-- resolve to are made by rawkernel.lua and registered here; rawkernel_arrays.lua installs
-- these methods beside its own.
local Ty = require "cuarr.jit.types"
local ir = require "cuarr.jit.ir"

local fmt = string.format

local RI = {}

-- The host-side objects of cuarr.jit that stand for intrinsics (set by rawkernel.lua):
-- object -> {kind = "dim", c = "threadIdx.x"} or {kind = "fn", name = "syncthreads"}.
RI.INTRINSIC = {}

-- The atomics: op -> the dtypes CUDA has it for, and how it is rendered for each ("native":
-- the CUDA function on the element type; "u64": through unsigned long long, the same bits;
-- "neg": an atomicAdd of the negated value).
local ATOMICS = {
  add = { fn = "atomicAdd", int32 = "native", uint32 = "native", uint64 = "native",
          int64 = "u64", float32 = "native", float64 = "native" },
  sub = { fn = "atomicSub", int32 = "native", uint32 = "native", uint64 = "neg", int64 = "neg",
          float32 = "neg", float64 = "neg" },
  max = { fn = "atomicMax", int32 = "native", uint32 = "native", uint64 = "native",
          int64 = "native" },
  min = { fn = "atomicMin", int32 = "native", uint32 = "native", uint64 = "native",
          int64 = "native" },
  exch = { fn = "atomicExch", int32 = "native", uint32 = "native", uint64 = "native",
           int64 = "u64", float32 = "native" },
  cas = { fn = "atomicCAS", int32 = "native", uint32 = "native", uint64 = "native",
          int64 = "u64" },
  ["and"] = { fn = "atomicAnd", int32 = "native", uint32 = "native", uint64 = "native",
              int64 = "u64" },
  ["or"] = { fn = "atomicOr", int32 = "native", uint32 = "native", uint64 = "native",
             int64 = "u64" },
  xor = { fn = "atomicXor", int32 = "native", uint32 = "native", uint64 = "native",
          int64 = "u64" },
}
RI.ATOMICS = ATOMICS

function RI.install(Fn)
-- The value a path of free names (jit.threadIdx.x, cuarr.jit.warpsize) holds, or nil.
function Fn:rk_resolve(node)
  if node.tag == "Id" then
    if self:lookup(node[1]) then return nil end
    for _, v in ipairs(self.upvalues) do
      if v.name == node[1] then return v.value end
    end
    local env = self.env
    if env == nil then return nil end
    local ok, v = pcall(function() return env[node[1]] end)
    return ok and v or nil
  end
  if node.tag == "Index" and node[2].tag == "String" then
    local base = self:rk_resolve(node[1])
    if type(base) ~= "table" then return nil end
    local ok, v = pcall(function() return base[node[2][1]] end)
    return ok and v or nil
  end
  return nil
end

-- A jit coordinate (jit.threadIdx.x) or a number on a path of free names (jit.warpsize): its
-- value; nil for anything else.
function Fn:rk_intrinsic_value(node)
  local v = self:rk_resolve(node)
  local intrinsic = RI.INTRINSIC[v]
  if intrinsic and intrinsic.kind == "dim" then
    return { c = fmt("((long long)%s)", intrinsic.c), t = "int64" }
  end
  if intrinsic then
    self:fail(node, fmt("jit.%s is called, not read", intrinsic.name))
  end
  if type(v) == "number" or type(v) == "boolean" then return ir.constant(v) end
  return nil
end

-- The callee of a call of an intrinsic, or nil.
function Fn:rk_callee(node)
  local v = self:rk_resolve(node[1])
  local intrinsic = RI.INTRINSIC[v]
  if not intrinsic then return nil end
  if intrinsic.kind ~= "fn" then
    self:fail(node, fmt("%s is read, not called", intrinsic.c))
  end
  return { kind = "intrinsic", name = intrinsic.name }
end

-- The index argument of an atomic: an integer, or a table of them.
local function atomic_target(self, node, what)
  local a = self:rk_array(node[2])
  if not a then self:fail(node, what .. ": argument #1 must be an array") end
  local ops = ATOMICS[what:match("atomic_(.*)")]
  local mode = ops[a.dtype]
  if not mode then
    self:fail(node, fmt("%s: CUDA has no such atomic for %s arrays", what, a.dtype))
  end
  local ref = fmt("%s[%s]", a.ptr, self:rk_offset(node, a, self:rk_indices(node[3])))
  return a, ops, mode, ref
end

local function value_arg(self, node, what, dtype)
  local e = self:expr(node)
  if not Ty.is_number(e.t) then self:fail(node, what .. ": the value must be a number") end
  return ir.as(e, dtype)
end

function Fn:rk_atomic(node, name)
  local what = "jit." .. name
  local want = name == "atomic_cas" and 5 or 4
  if #node ~= want then
    self:fail(node, fmt("%s takes %s", what, want == 5 and "an array, an index, the expected "
      .. "value and the new value" or "an array, an index and a value"))
  end
  local a, ops, mode, ref = atomic_target(self, node, what)
  local ct = Ty.C[a.dtype]
  local v = value_arg(self, node[4], what, a.dtype)
  local call
  if name == "atomic_cas" then
    local new = value_arg(self, node[5], what, a.dtype)
    if mode == "u64" then
      call = fmt("((long long)atomicCAS((unsigned long long *)&%s, (unsigned long long)(%s), "
        .. "(unsigned long long)(%s)))", ref, v, new)
    else
      call = fmt("atomicCAS(&%s, %s, %s)", ref, v, new)
    end
  elseif mode == "u64" then
    call = fmt("((long long)%s((unsigned long long *)&%s, (unsigned long long)(%s)))", ops.fn, ref,
      v)
  elseif mode == "neg" then
    call = fmt("atomicAdd(&%s, (%s)(0 - (%s)))", ref, ct, v)
    if a.dtype == "int64" then
      call = fmt("((long long)atomicAdd((unsigned long long *)&%s, "
        .. "0ULL - (unsigned long long)(%s)))", ref, v)
    end
  else
    call = fmt("%s(&%s, %s)", ops.fn, ref, v)
  end
  return { { c = call, t = a.dtype } }
end

local GRID_AXES = { "x", "y", "z" }

-- A call of an intrinsic: its results.
function Fn:rk_call(node, callee)
  local name = callee.name
  local function no_args()
    if #node ~= 1 then self:fail(node, fmt("jit.%s takes no arguments", name)) end
  end
  if name == "syncthreads" then
    no_args()
    return { { c = "__syncthreads()", t = "void" } }
  elseif name == "syncwarp" then
    no_args()
    return { { c = "__syncwarp()", t = "void" } }
  elseif name == "grid" or name == "gridsize" then
    local n = #node == 2 and self:expr(node[2])
    if not (n and n.lit and (n.value == 1 or n.value == 2 or n.value == 3)) then
      self:fail(node, fmt("jit.%s takes a constant 1, 2 or 3", name))
    end
    local out = {}
    for k = 1, n.value do
      local ax = GRID_AXES[k]
      if name == "grid" then
        out[k] = { c = fmt("((long long)blockIdx.%s * blockDim.%s + threadIdx.%s + 1)", ax, ax,
          ax), t = "int64" }
      else
        out[k] = { c = fmt("((long long)gridDim.%s * blockDim.%s)", ax, ax), t = "int64" }
      end
    end
    return out
  elseif name == "shared_array" or name == "local_array" then
    self:fail(node, fmt("jit.%s is the value of a local: local s = jit.%s(dtype, n)", name, name))
  end
  return self:rk_atomic(node, name)
end
end

return RI
