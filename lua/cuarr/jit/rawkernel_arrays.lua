-- What jit.rawkernel adds to the translator for arrays (kernel parameters, __shared__ and
-- local arrays): 1-based subscripts a[i] and a[{i, j}] over their real strides, #a,
-- a.shape[k], a.size and a.ndim, and stores into their elements; the intrinsics are in
-- rawkernel_intrinsics.lua.  expr.lua, calls.lua, statements.lua and translate.lua call in
-- here through a few hooks.
local Ty = require "cuarr.jit.types"
local ir = require "cuarr.jit.ir"

local fmt, concat = string.format, table.concat

local RL = {}

-- C element types of arrays: the scalar types, and float16 read and written through float.
local ELEMENT_C = setmetatable({ float16 = "__half" }, { __index = Ty.C })
RL.ELEMENT_C = ELEMENT_C

-- The dtypes arrays may have inside kernels.
function RL.is_dtype(d) return ELEMENT_C[d] ~= nil end

-- The array type of a kernel parameter: typing {dtype, ndim, contiguous, restrict} and its C
-- name.  Its C parameters: the data pointer (__restrict__ when no other array argument
-- overlaps it, which lets the compiler hoist loads above earlier stores), the extents, and the
-- element strides unless contiguous.
function RL.param(typing, cname)
  local a = { array = true, dtype = typing.dtype, ndim = typing.ndim, ptr = cname, shape = {} }
  local ct = ELEMENT_C[typing.dtype]
  local cparams = { fmt(typing.restrict and "%s *__restrict__ %s" or "%s *%s", ct, cname) }
  for k = 1, typing.ndim do
    a.shape[k] = fmt("%s_n%d", cname, k)
    cparams[#cparams + 1] = "long long " .. a.shape[k]
  end
  if not typing.contiguous then
    a.strides = {}
    for k = 1, typing.ndim do
      a.strides[k] = fmt("%s_s%d", cname, k)
      cparams[#cparams + 1] = "long long " .. a.strides[k]
    end
  end
  a.cparams = concat(cparams, ", ")
  return a
end

function RL.is_array(t) return type(t) == "table" and t.array == true end

function RL.install(Fn)
require("cuarr.jit.rawkernel_intrinsics").install(Fn)

-- The array a node names (a local holding one), or nil.
function Fn:rk_array(node)
  if node.tag ~= "Id" then return nil end
  local var = self:lookup(node[1])
  if not var then return nil end
  local t = self.vartypes[var.cname]
  if RL.is_array(t) then return t end
  return nil
end

-- The index expressions of a subscript's key: one expression, or a table of them.
function Fn:rk_indices(key)
  if key.tag ~= "Table" then return { key } end
  local out = {}
  for i, item in ipairs(key) do
    if item.tag == "Pair" then
      self:fail(item, "an array subscript {i, j} lists its indices without keys")
    end
    out[i] = item
  end
  return out
end

-- The C offset (in elements) of a 1-based subscript of array a.
function Fn:rk_offset(node, a, nodes)
  if #nodes ~= a.ndim then
    self:fail(node, fmt("a %d-dimensional array takes %d ind%s, got %d", a.ndim, a.ndim,
      a.ndim == 1 and "ex" or "ices", #nodes))
  end
  local idx = {}
  for k, n in ipairs(nodes) do
    local e = self:expr(n)
    if not Ty.is_int(e.t) then
      self:fail(n, fmt("an array index must be an integer, got a %s",
        e.t == "bool" and "boolean" or RL.is_array(e.t) and "array" or "float"))
    end
    if e.lit then idx[k] = ir.number_literal(e.value - 1)
    else idx[k] = fmt("(%s - 1)", ir.as(e, "int64")) end
  end
  if a.strides then
    local terms = {}
    for k = 1, a.ndim do terms[k] = fmt("%s * %s", idx[k], a.strides[k]) end
    return concat(terms, " + ")
  end
  local off = idx[1]
  for k = 2, a.ndim do off = fmt("(%s * %s + %s)", off, a.shape[k], idx[k]) end
  return off
end

-- The C lvalue of a subscript node (an Index of an array).
function Fn:rk_element(node, a)
  return fmt("%s[%s]", a.ptr, self:rk_offset(node, a, self:rk_indices(node[2])))
end

local function element_value(ref, a)
  if a.dtype == "float16" then return { c = fmt("__half2float(%s)", ref), t = "float32" } end
  return { c = ref, t = a.dtype }
end

-- The element count of array a (C text).
local function count(a)
  if a.ndim == 1 then return a.shape[1] end
  return "(" .. concat(a.shape, " * ") .. ")"
end

-- An Index node of the rawkernel subset (a subscript, a.shape[k], a.size, a.ndim, a jit
-- coordinate or constant), or nil when it is none of them.
function Fn:rk_index(node)
  local base, key = node[1], node[2]
  local a = self:rk_array(base)
  if a then
    if key.tag == "String" then
      local f = key[1]
      if f == "size" then return { c = count(a), t = "int64" } end
      if f == "ndim" then return ir.constant(a.ndim) end
      if f == "shape" then
        self:fail(node, "an array's shape is read one extent at a time: a.shape[k]")
      end
      self:fail(node, fmt("arrays in kernels have no field '%s' (only shape[k], size, ndim)", f))
    end
    return element_value(self:rk_element(node, a), a)
  end
  if base.tag == "Index" and base[2].tag == "String" and base[2][1] == "shape" then
    local arr = self:rk_array(base[1])
    if arr then
      local k = self:expr(key)
      if not Ty.is_int(k.t) then self:fail(node, "a.shape[k] needs an integer k") end
      if k.lit then
        if k.value < 1 or k.value > arr.ndim then
          self:fail(node, fmt("a.shape[%d] of a %d-dimensional array", k.value, arr.ndim))
        end
        return { c = arr.shape[k.value], t = "int64" }
      end
      local c = "0LL"
      for d = arr.ndim, 1, -1 do c = fmt("(%s == %d ? %s : %s)", k.c, d, arr.shape[d], c) end
      return { c = c, t = "int64" }
    end
  end
  if base.tag == "Id" then
    local var = self:lookup(base[1])
    if var then
      self:fail(node, fmt("'%s' is a number, not an array: subscripts take arrays", base[1]))
    end
  end
  if key.tag ~= "String" then return nil end
  return self:rk_intrinsic_value(node)
end

-- #a: the element count.
function Fn:rk_len(node)
  local a = self:rk_array(node[2])
  if not a then
    self:fail(node, "the length operator (#) takes an array (a kernel's parameter or a "
      .. "shared or local array)")
  end
  return { c = count(a), t = "int64" }
end

-- A dtype argument: a string constant naming a dtype.
local function dtype_arg(self, node, what)
  local d = node and node.tag == "String" and node[1]
  if not d then
    self:fail(node or {}, fmt("%s: the dtype must be a string constant such as \"float32\"", what))
  end
  local canon = Ty.canonical(d) or (d == "float16" and d)
  if not canon then self:fail(node, fmt("%s: unknown dtype %q", what, d)) end
  return canon
end

-- A constant positive integer (an extent of a shared or local array).
local function extent(self, node, what)
  local e = self:expr(node)
  if not (e.lit and math.type(e.value) == "integer") then
    self:fail(node, fmt("%s: the size must be a constant integer (or a table of them)", what))
  end
  if e.value < 1 or e.value > 0x7fffffff then
    self:fail(node, fmt("%s: the size must be 1 to 2^31-1, got %d", what, e.value))
  end
  return e.value
end

-- jit.shared_array(dtype, n) / jit.local_array(dtype, n) as a local's value: declares the
-- C array for var; returns its array type.
function Fn:rk_static_array(node, name, cname)
  local what = "jit." .. name
  if #node ~= 3 then self:fail(node, what .. " takes a dtype and a size") end
  local dtype = dtype_arg(self, node[2], what)
  local dims = {}
  if node[3].tag == "Table" then
    for i, item in ipairs(self:rk_indices(node[3])) do dims[i] = extent(self, item, what) end
    if #dims < 1 or #dims > 3 then self:fail(node, what .. ": 1 to 3 extents") end
  else
    dims[1] = extent(self, node[3], what)
  end
  local a = { array = true, dtype = dtype, ndim = #dims, ptr = cname, shape = {} }
  local total = 1
  for k, n in ipairs(dims) do
    a.shape[k] = fmt("%dLL", n)
    total = total * n
  end
  if total > 0x7fffffff then self:fail(node, what .. ": too many elements") end
  if dtype == "float16" then self.ctx.needs_half = true end
  self:emit(fmt("%s%s %s[%d];", name == "shared_array" and "__shared__ " or "", ELEMENT_C[dtype],
    cname, total))
  return a
end

-- The target of an assignment to a subscript: {element = C lvalue, array = its type}.
function Fn:rk_target(lhs)
  if self:rk_array(lhs) then
    self:fail(lhs, fmt("'%s' is an array: it cannot be assigned (its elements can: %s[i] = v)",
      lhs[1], lhs[1]))
  end
  local a = lhs.tag == "Index" and self:rk_array(lhs[1])
  if not a then
    if lhs.tag == "Index" and lhs[1].tag == "Id" and self:lookup(lhs[1][1]) then
      self:fail(lhs, fmt("'%s' is a number, not an array: subscripts take arrays", lhs[1][1]))
    end
    return nil
  end
  if lhs[2].tag == "String" then
    self:fail(lhs, fmt("an array's %s cannot be assigned", lhs[2][1]))
  end
  return { element = self:rk_element(lhs, a), array = a, node = lhs }
end

-- The assignment of e to an element.
function Fn:rk_store(target, e)
  local a = target.array
  if RL.is_array(e.t) then self:fail(target.node, "an array cannot be stored in an element") end
  if (a.dtype == "bool") ~= (e.t == "bool") then
    self:fail(target.node, fmt("a %s stored in a %s array", e.t == "bool" and "boolean"
      or "number", a.dtype))
  end
  if a.dtype == "float16" then
    self:emit(fmt("%s = __float2half(%s);", target.element, ir.as(e, "float32")))
  else
    self:emit(fmt("%s = %s;", target.element, ir.as(e, a.dtype)))
  end
end

-- A local whose value is jit.shared_array/local_array: declared here (returns true), or false.
function Fn:rk_local(node)
  local names, values = node[1], node[2]
  if not values or #values ~= 1 or values[1].tag ~= "Call" then return false end
  local callee = self:rk_callee(values[1])
  if not callee or (callee.name ~= "shared_array" and callee.name ~= "local_array") then
    return false
  end
  if #names ~= 1 then self:fail(node, fmt("jit.%s gives one array", callee.name)) end
  local var = self:declare(names[1][1])
  local a = self:rk_static_array(values[1], callee.name, var.cname)
  self.vartypes[var.cname] = a
  var.fixed = true
  return true
end

-- Values that are arrays cannot be copied into locals or passed on.
function Fn:rk_no_array(node, t, what)
  if RL.is_array(t) then
    self:fail(node, fmt("an array cannot be %s (kernels subscript their arrays in place)", what))
  end
end

end

return RL
