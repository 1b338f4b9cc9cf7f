-- Calls: math functions (with Lua's integer results where Lua gives them), casts, and jit.device
-- functions (specialised for the argument types, several results through a struct); expression
-- lists expanding a last call's results.
local Ty = require "cuarr.jit.types"
local ir = require "cuarr.jit.ir"

local fmt, concat = string.format, table.concat

return function(Fn)
-- The value of a free name or a field path of one (cuarr.jit), read at translation time.
function Fn:path(node)
  if node.tag == "Id" then
    if self:lookup(node[1]) then
      self:fail(node, fmt("'%s' is a local number, not a table", node[1]))
    end
    return self:free(node, node[1])
  end
  if node.tag == "Index" and node[2].tag == "String" then
    local base = self:path(node[1])
    if type(base) == "table" then
      local ok, v = pcall(function() return base[node[2][1]] end)
      if ok and v ~= nil then return v end
    end
  end
  self:fail(node, "only math functions, casts and device functions can be called here")
end

-- The callee of a Call node: {kind = "math"|"cast"|"device", ...}.
function Fn:callee(node)
  local f = node[1]
  local rk = self:rk_callee(node)
  if rk then return rk end
  if f.tag == "Index" and f[2].tag == "String" then
    local base = self:path(f[1])
    local name = f[2][1]
    if base == math then return { kind = "math", name = name } end
    if type(base) == "table" then
      local ok, v = pcall(function() return base[name] end)
      if ok and ir.CASTS[v] then return { kind = "cast", dtype = ir.CASTS[v] } end
      if ok and type(v) == "table" and getmetatable(v) == ir.DEVICE_MT then
        return { kind = "device", dev = v, name = name }
      end
    end
    self:fail(node, fmt("%s cannot be called from a translated function", name))
  end
  if f.tag == "Id" then
    if self:lookup(f[1]) then
      self:fail(node, fmt("'%s' is a local number, not a function", f[1]))
    end
    local v = self:free(f, f[1])
    if type(v) == "table" and getmetatable(v) == ir.DEVICE_MT then
      return { kind = "device", dev = v, name = f[1] }
    end
    if ir.CASTS[v] then return { kind = "cast", dtype = ir.CASTS[v] } end
    if type(v) == "function" then
      self:fail(node, fmt("'%s' is a plain Lua function: make it a cuarr.jit.device to call it "
        .. "from a translated function", f[1]))
    end
    self:fail(node, fmt("'%s' is %s, not a function a translated function can call", f[1],
      ir.describe(v)))
  end
  self:fail(node, "only math functions, casts and device functions can be called here")
end

function Fn:args(node)
  local args = {}
  for i = 2, #node do args[#args + 1] = self:expr(node[i]) end
  for i, a in ipairs(args) do
    if not Ty.is_number(a.t) then
      self:fail(node[i + 1], "a boolean argument: device functions and math take numbers")
    end
  end
  return args
end

function Fn:math_call(node, name, args)
  local function want(n, m)
    if #args < n or #args > (m or n) then
      self:fail(node, fmt("math.%s takes %s argument%s, got %d", name,
        m and m ~= n and (n .. " or " .. m) or tostring(n), (m or n) == 1 and "" or "s", #args))
    end
  end
  local function ftype(a) return Ty.is_float(a.t) and a.t or "float64" end
  if ir.MATH_FLOAT1[name] then
    want(1)
    local t = ftype(args[1])
    return { c = fmt("%s(%s)", ir.MATH_FLOAT1[name], ir.as(args[1], t)), t = t }
  elseif name == "log" then
    want(1, 2)
    local t = ftype(args[1])
    if #args == 1 then return { c = fmt("log(%s)", ir.as(args[1], t)), t = t } end
    local base = args[2]
    if base.lit and base.value == 2 then
      return { c = fmt("log2(%s)", ir.as(args[1], t)), t = t }
    end
    if base.lit and base.value == 10 then
      return { c = fmt("log10(%s)", ir.as(args[1], t)), t = t }
    end
    return { c = fmt("(log(%s) / log(%s))", ir.as(args[1], t), ir.as(base, t)), t = t }
  elseif name == "atan" then
    want(1, 2)
    if #args == 1 then
      local t = ftype(args[1])
      return { c = fmt("atan(%s)", ir.as(args[1], t)), t = t }
    end
    local t = Ty.float_arith(args[1], args[2])
    return { c = fmt("atan2(%s, %s)", ir.as(args[1], t), ir.as(args[2], t)), t = t }
  elseif name == "floor" or name == "ceil" then
    want(1)
    if Ty.is_int(args[1].t) then return { c = ir.as(args[1], "int64"), t = "int64" } end
    return { c = fmt("cuarr_toint(%s(%s))", name, args[1].c), t = "int64" }
  elseif name == "abs" then
    want(1)
    if Ty.is_int(args[1].t) then
      return { c = fmt("cuarr_iabs(%s)", ir.as(args[1], "int64")), t = "int64" }
    end
    return { c = fmt("fabs(%s)", args[1].c), t = args[1].t }
  elseif name == "fmod" then
    want(2)
    local t = Ty.arith(args[1], args[2])
    if t == "int64" then
      return { c = fmt("cuarr_ifmod(%s, %s)", ir.as(args[1], t), ir.as(args[2], t)), t = t }
    end
    return { c = fmt("fmod(%s, %s)", ir.as(args[1], t), ir.as(args[2], t)), t = t }
  elseif name == "max" or name == "min" then
    if #args < 1 then self:fail(node, fmt("math.%s needs at least one argument", name)) end
    local acc = args[1]
    for i = 2, #args do
      local t = Ty.arith(acc, args[i])
      acc = { c = fmt("cuarr_%s<%s>(%s, %s)", name, Ty.C[t], ir.as(acc, t), ir.as(args[i], t)),
              t = t,
              lit = acc.lit and args[i].lit }
    end
    return acc
  end
  self:fail(node, fmt("math.%s is not available in translated functions", name))
end

-- A call: its results (a list of typed expressions; a device function's every result).
function Fn:call(node)
  local callee = self:callee(node)
  if callee.kind == "intrinsic" then return self:rk_call(node, callee) end
  local args = self:args(node)
  if callee.kind == "math" then return { self:math_call(node, callee.name, args) } end
  if callee.kind == "cast" then
    if #args ~= 1 then self:fail(node, "a cast takes one argument") end
    return { { c = ir.as(args[1], callee.dtype), t = callee.dtype } }
  end
  local types = {}
  for i, a in ipairs(args) do
    types[i] = a.lit and Ty.is_float(a.t) and "float64" or a.t
  end
  local fn = self.ctx.device_function(self.ctx, callee.dev, types, callee.name, node, self)
  local cargs = {}
  for i, a in ipairs(args) do cargs[i] = a.c end
  local call = fmt("%s(%s)", fn.cname, concat(cargs, ", "))
  if #fn.rets == 0 then return { { c = call, t = "void" } } end
  if #fn.rets == 1 then return { { c = call, t = fn.rets[1] } } end
  local t = self:tmp("r")
  self:emit(fmt("%s %s = %s;", fn.struct, t, call))
  local out = {}
  for i, rt in ipairs(fn.rets) do out[i] = { c = fmt("%s.r%d", t, i - 1), t = rt } end
  return out
end

-- An expression list, the last one's every result when it is a call.
function Fn:explist(list)
  local out = {}
  for i, node in ipairs(list) do
    if i == #list and node.tag == "Call" then
      for _, e in ipairs(self:call(node)) do out[#out + 1] = e end
    else
      out[#out + 1] = self:expr(node)
    end
  end
  for i, e in ipairs(out) do
    if e.t == "void" then self:fail(list[math.min(i, #list)], "a call that returns no value") end
  end
  return out
end
end
