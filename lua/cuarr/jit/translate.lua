-- The translator: a Lua function's syntax tree -> a CUDA C __device__ function.  Free names are
-- resolved through the function's upvalues at translation time, locals are typed at their
-- first assignment and widened (int -> float) by later ones until the types settle, and the
-- result is rendered with Lua 5.4's semantics (see prelude.lua).  Typed expressions are
-- {c = C text, t = type, lit = literal?}; fuse and rawkernel add their own node kinds on these.
-- The parser (luacheck's, and why) is chosen in source.lua.
local Ty = require "cuarr.jit.types"
local source = require "cuarr.jit.source"

local X = {}
local fmt, concat = string.format, table.concat

-- jit.device objects are recognised by this metatable (set by cuarr.jit).
X.DEVICE_MT = { __name = "cuarr.jit.device" }
-- Host functions standing for casts (jit.float32 ...): function -> dtype.
X.CASTS = {}

local BINARY = { add = "+", sub = "-", mul = "*", div = "/", idiv = "//", mod = "%", pow = "^",
                 eq = "==", ne = "~=", lt = "<", le = "<=", gt = ">", ge = ">=" }
local UNSUPPORTED_OP = {
  concat = "string concatenation (..)", len = "the length operator (#)",
  band = "bitwise operators", bor = "bitwise operators", bxor = "bitwise operators",
  shl = "bitwise operators", shr = "bitwise operators", bnot = "bitwise operators",
}
local UNSUPPORTED_NODE = {
  String = "strings", Table = "tables", Function = "nested functions (closures)",
  Dots = "varargs (...)", Nil = "nil", Invoke = "method calls (a:m())",
  Localrec = "nested functions (closures)", Forin = "the generic for (for k, v in ...)",
  Goto = "goto", Label = "labels (::name::)",
}

local function number_literal(v)
  if math.type(v) == "integer" then
    if v == math.mininteger then return "(-9223372036854775807LL - 1)" end
    return fmt("%dLL", v)
  end
  if v ~= v then return "__longlong_as_double(0x7ff8000000000000LL)" end
  if v == math.huge then return "__longlong_as_double(0x7ff0000000000000LL)" end
  if v == -math.huge then return "__longlong_as_double((long long)0xfff0000000000000ULL)" end
  local s = fmt("%.17g", v)
  if not s:find("[%.eE]") then s = s .. ".0" end
  return s
end

local function constant(v)
  if type(v) == "boolean" then return { c = v and "true" or "false", t = "bool", lit = true } end
  return { c = number_literal(v), t = math.type(v) == "integer" and "int64" or "float64",
           lit = true, value = v }
end

-- e converted to type t (C text).
local function as(e, t)
  if e.t == t then return e.c end
  return fmt("((%s)(%s))", Ty.C[t], e.c)
end

local MATH_CONST = { pi = math.pi, huge = math.huge, maxinteger = math.maxinteger,
                     mininteger = math.mininteger }
local MATH_FLOAT1 = { exp = "exp", sqrt = "sqrt", sin = "sin", cos = "cos", tan = "tan",
                      asin = "asin", acos = "acos" }

-- One translation of one Lua function for one list of parameter types.
local Fn = {}
Fn.__index = Fn

function Fn:fail(node, msg, kind)
  self.ctx.raise(kind or "CompileError", fmt("%s:%s: %s", self.chunk,
    tostring(node and node.line or self.line), msg))
end

function Fn:emit(line) self.out[#self.out + 1] = string.rep("  ", self.depth) .. line end

function Fn:tmp(base)
  self.ntmp = self.ntmp + 1
  return fmt("cuarr_%s%d", base, self.ntmp)
end

function Fn:lookup(name)
  for i = #self.scopes, 1, -1 do
    local v = self.scopes[i][name]
    if v then return v end
  end
  return nil
end

function Fn:declare(name, t, lit)
  self.nvar = self.nvar + 1
  local cname = fmt("%s_%d", name, self.nvar)
  local var = { name = name, cname = cname }
  if t then self:settype(var, t, lit) end
  self.scopes[#self.scopes][name] = var
  return var
end

function Fn:settype(var, t, lit, node)
  local known = self.vartypes[var.cname]
  if var.fixed then
    if known ~= t and Ty.unify(known, t, lit) ~= known then
      self:fail(node, fmt("type clash: %s is a %s; it cannot be assigned a %s", var.name,
        known, t))
    end
    return known
  end
  local u = Ty.unify(known, t, lit)
  if u == nil then
    self:fail(node, fmt("type clash: %s is a %s and is assigned a %s", var.name,
      known == "bool" and "boolean" or "number", t == "bool" and "boolean" or "number"))
  end
  if u ~= known then
    self.vartypes[var.cname] = u
    self.changed = true
  end
  return u
end

-- The value of a free name, read at translation time.
function Fn:free(node, name)
  for _, v in ipairs(self.upvalues) do
    if v.name == name then return v.value, true end
  end
  local env = self.env
  if env ~= nil then
    local ok, v = pcall(function() return env[name] end)
    if ok and v ~= nil then return v, true end
  end
  self:fail(node, fmt("unknown name '%s'", name))
end

local function describe(v)
  if type(v) == "table" and getmetatable(v) == X.DEVICE_MT then return "a device function" end
  return "a " .. type(v)
end

function Fn:expr(node)
  local tag = node.tag
  if tag == "Number" then
    local v = load("return " .. node[1])()
    return constant(v)
  elseif tag == "True" or tag == "False" then
    return constant(tag == "True")
  elseif tag == "Id" then
    local var = self:lookup(node[1])
    if var then
      local t = self.vartypes[var.cname]
      if not t then self:fail(node, fmt("'%s' is read before it is assigned", node[1])) end
      return { c = var.cname, t = t }
    end
    local v = self:free(node, node[1])
    if type(v) == "number" or type(v) == "boolean" then return constant(v) end
    self:fail(node, fmt("'%s' is %s, which a translated function cannot use as a value",
      node[1], describe(v)))
  elseif tag == "Index" then
    local base, key = node[1], node[2]
    if base.tag == "Id" and not self:lookup(base[1]) and key.tag == "String" then
      local v = self:free(base, base[1])
      if v == math then
        local c = MATH_CONST[key[1]]
        if c then return constant(c) end
        self:fail(node, fmt("math.%s is not a constant a translated function can use", key[1]))
      end
    end
    self:fail(node, "tables and array subscripts are not in the subset translated functions use")
  elseif tag == "Paren" then
    return self:expr(node[1])
  elseif tag == "Call" then
    return self:call(node, 1)[1]
  elseif tag == "Op" then
    return self:op(node)
  end
  self:fail(node, fmt("%s are not in the subset translated functions use",
    UNSUPPORTED_NODE[tag] or tostring(tag)))
end

function Fn:cond(node)
  local e = self:expr(node)
  if e.t == "bool" then return e.c end
  return "true"  -- a number is always true in Lua
end

function Fn:number(node, what)
  local e = self:expr(node)
  if not Ty.is_number(e.t) then
    self:fail(node, fmt("%s on a boolean", what))
  end
  return e
end

function Fn:op(node)
  local op = node[1]
  if UNSUPPORTED_OP[op] then
    self:fail(node, UNSUPPORTED_OP[op] .. " are not in the subset translated functions use")
  end
  if op == "not" then
    local e = self:expr(node[2])
    if e.t == "bool" then return { c = fmt("(!%s)", e.c), t = "bool" } end
    return { c = "false", t = "bool" }
  elseif op == "unm" then
    local e = self:number(node[2], "arithmetic")
    if Ty.is_int(e.t) then
      return { c = fmt("cuarr_ineg(%s)", as(e, "int64")), t = "int64", lit = e.lit }
    end
    return { c = fmt("(-%s)", e.c), t = e.t, lit = e.lit }
  elseif op == "and" or op == "or" then
    return self:logic(node)
  end
  local a, b = node[2], node[3]
  local sym = BINARY[op]
  if sym == "==" or sym == "~=" then
    local A, B = self:expr(a), self:expr(b)
    local ca = sym == "==" and "==" or "!="
    if (A.t == "bool") ~= (B.t == "bool") then
      return { c = sym == "==" and "false" or "true", t = "bool" }
    end
    return { c = fmt("(%s %s %s)", A.c, ca, B.c), t = "bool" }
  end
  local A, B = self:number(a, "arithmetic or comparison"), self:number(b,
    "arithmetic or comparison")
  if op == "lt" or op == "le" or op == "gt" or op == "ge" then
    local cs = ({ lt = "<", le = "<=", gt = ">", ge = ">=" })[op]
    return { c = fmt("(%s %s %s)", A.c, cs, B.c), t = "bool" }
  end
  local lit = A.lit and B.lit
  if op == "div" or op == "pow" then
    local t = Ty.float_arith(A, B)
    local ca, cb = as(A, t), as(B, t)
    if op == "div" then return { c = fmt("(%s / %s)", ca, cb), t = t, lit = lit } end
    return { c = fmt("pow(%s, %s)", ca, cb), t = t, lit = lit }
  end
  local t = Ty.arith(A, B)
  local ca, cb = as(A, t), as(B, t)
  if t == "int64" then
    local f = ({ add = "cuarr_iadd", sub = "cuarr_isub", mul = "cuarr_imul", idiv = "cuarr_idiv",
                 mod = "cuarr_imod" })[op]
    return { c = fmt("%s(%s, %s)", f, ca, cb), t = t, lit = lit }
  end
  if op == "idiv" then return { c = fmt("cuarr_fidiv(%s, %s)", ca, cb), t = t, lit = lit } end
  if op == "mod" then return { c = fmt("cuarr_fmod(%s, %s)", ca, cb), t = t, lit = lit } end
  return { c = fmt("(%s %s %s)", ca, sym, cb), t = t, lit = lit }
end

-- and/or as Lua: on booleans, && and ||; a number is always true, so `x and y` is y and
-- `x or y` is x; `c and x or y` with c a boolean and x a number is c ? x : y.  Anything else
-- mixing booleans and numbers (a value that is either false or a number) is refused.
function Fn:logic(node)
  local op, a, b = node[1], node[2], node[3]
  if op == "or" and a.tag == "Op" and a[1] == "and" then
    local C = self:expr(a[2])
    if C.t == "bool" then
      local A = self:expr(a[3])
      if Ty.is_number(A.t) then
        local B = self:number(b, "`c and x or y` with x a number needs y a number:")
        local t = Ty.unify(A.t, B.t, B.lit)
        if A.lit and not B.lit then t = Ty.unify(B.t, A.t, true) end
        return { c = fmt("(%s ? %s : %s)", C.c, as(A, t), as(B, t)), t = t }
      end
    end
  end
  local A = self:expr(a)
  if Ty.is_number(A.t) then
    if op == "and" then return self:expr(b) end
    return A
  end
  local B = self:expr(b)
  if B.t ~= "bool" then
    self:fail(node, fmt("`%s` of a boolean and a number gives a boolean or a number; only "
      .. "`c and x or y` (x a number) is translated", op))
  end
  return { c = fmt("(%s %s %s)", A.c, op == "and" and "&&" or "||", B.c), t = "bool" }
end

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
  if f.tag == "Index" and f[2].tag == "String" then
    local base = self:path(f[1])
    local name = f[2][1]
    if base == math then return { kind = "math", name = name } end
    if type(base) == "table" then
      local ok, v = pcall(function() return base[name] end)
      if ok and X.CASTS[v] then return { kind = "cast", dtype = X.CASTS[v] } end
      if ok and type(v) == "table" and getmetatable(v) == X.DEVICE_MT then
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
    if type(v) == "table" and getmetatable(v) == X.DEVICE_MT then
      return { kind = "device", dev = v, name = f[1] }
    end
    if X.CASTS[v] then return { kind = "cast", dtype = X.CASTS[v] } end
    if type(v) == "function" then
      self:fail(node, fmt("'%s' is a plain Lua function: make it a cuarr.jit.device to call it "
        .. "from a translated function", f[1]))
    end
    self:fail(node, fmt("'%s' is %s, not a function a translated function can call", f[1],
      describe(v)))
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
  if MATH_FLOAT1[name] then
    want(1)
    local t = ftype(args[1])
    return { c = fmt("%s(%s)", MATH_FLOAT1[name], as(args[1], t)), t = t }
  elseif name == "log" then
    want(1, 2)
    local t = ftype(args[1])
    if #args == 1 then return { c = fmt("log(%s)", as(args[1], t)), t = t } end
    local base = args[2]
    if base.lit and base.value == 2 then return { c = fmt("log2(%s)", as(args[1], t)), t = t } end
    if base.lit and base.value == 10 then
      return { c = fmt("log10(%s)", as(args[1], t)), t = t }
    end
    return { c = fmt("(log(%s) / log(%s))", as(args[1], t), as(base, t)), t = t }
  elseif name == "atan" then
    want(1, 2)
    if #args == 1 then
      local t = ftype(args[1])
      return { c = fmt("atan(%s)", as(args[1], t)), t = t }
    end
    local t = Ty.float_arith(args[1], args[2])
    return { c = fmt("atan2(%s, %s)", as(args[1], t), as(args[2], t)), t = t }
  elseif name == "floor" or name == "ceil" then
    want(1)
    if Ty.is_int(args[1].t) then return { c = as(args[1], "int64"), t = "int64" } end
    return { c = fmt("((long long)%s(%s))", name, args[1].c), t = "int64" }
  elseif name == "abs" then
    want(1)
    if Ty.is_int(args[1].t) then
      return { c = fmt("cuarr_iabs(%s)", as(args[1], "int64")), t = "int64" }
    end
    return { c = fmt("fabs(%s)", args[1].c), t = args[1].t }
  elseif name == "fmod" then
    want(2)
    local t = Ty.arith(args[1], args[2])
    if t == "int64" then
      return { c = fmt("cuarr_ifmod(%s, %s)", as(args[1], t), as(args[2], t)), t = t }
    end
    return { c = fmt("fmod(%s, %s)", as(args[1], t), as(args[2], t)), t = t }
  elseif name == "max" or name == "min" then
    if #args < 1 then self:fail(node, fmt("math.%s needs at least one argument", name)) end
    local acc = args[1]
    for i = 2, #args do
      local t = Ty.arith(acc, args[i])
      acc = { c = fmt("cuarr_%s<%s>(%s, %s)", name, Ty.C[t], as(acc, t), as(args[i], t)), t = t,
              lit = acc.lit and args[i].lit }
    end
    return acc
  end
  self:fail(node, fmt("math.%s is not available in translated functions", name))
end

-- A call: its results (a list of typed expressions; a device function's every result).
function Fn:call(node)
  local callee = self:callee(node)
  local args = self:args(node)
  if callee.kind == "math" then return { self:math_call(node, callee.name, args) } end
  if callee.kind == "cast" then
    if #args ~= 1 then self:fail(node, "a cast takes one argument") end
    return { { c = as(args[1], callee.dtype), t = callee.dtype } }
  end
  local types = {}
  for i, a in ipairs(args) do
    types[i] = a.lit and Ty.is_float(a.t) and "float64" or a.t
  end
  local fn = X.device_function(self.ctx, callee.dev, types, callee.name, node, self)
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

function Fn:block(stmts, scope)
  self.scopes[#self.scopes + 1] = scope or {}
  for _, s in ipairs(stmts) do self:stmt(s) end
  self.scopes[#self.scopes] = nil
end

function Fn:body(stmts)
  self.depth = self.depth + 1
  self:block(stmts)
  self.depth = self.depth - 1
end

function Fn:assign_values(node, targets, values)
  -- Lua evaluates every value before assigning any: temporaries when there are several.
  if #targets > 1 then
    local tmps = {}
    for i = 1, #targets do
      local e = values[i]
      local t = self:tmp("v")
      self:emit(fmt("%s %s = %s;", Ty.C[e.t], t, e.c))
      tmps[i] = { c = t, t = e.t, lit = e.lit }
    end
    values = tmps
  end
  for i, var in ipairs(targets) do
    local e = values[i]
    local t = self:settype(var, e.t, e.lit, node)
    self:emit(fmt("%s = %s;", var.cname, as(e, t)))
  end
end

function Fn:check_count(node, nt, nv)
  if nv < nt then
    self:fail(node, fmt("%d names and %d values: the rest would be nil, which translated "
      .. "functions do not have", nt, nv))
  end
end

function Fn:stmt(node)
  local tag = node.tag
  if tag == "Local" then
    local names, values = node[1], node[2]
    if not values then
      for _, id in ipairs(names) do
        local var = self:declare(id[1])
        self.pending[#self.pending + 1] = var
        local t = self.vartypes[var.cname]
        self:emit(fmt("%s %s;", t and Ty.C[t] or "@" .. var.cname, var.cname))
      end
      return
    end
    local es = self:explist(values)
    self:check_count(node, #names, #es)
    local vars = {}
    for i, id in ipairs(names) do
      local e = es[i]
      vars[i] = self:declare(id[1])
      local t = self:settype(vars[i], e.t, e.lit, node)
      self:emit(fmt("%s %s = %s;", Ty.C[t], vars[i].cname, as(e, t)))
    end
  elseif tag == "Set" then
    local targets = {}
    for i, lhs in ipairs(node[1]) do
      if lhs.tag ~= "Id" then
        self:fail(lhs, "tables and array subscripts are not in the subset translated functions use")
      end
      local var = self:lookup(lhs[1])
      if not var then
        self:fail(lhs, fmt("'%s' is not a local: a translated function cannot assign upvalues "
          .. "or globals", lhs[1]))
      end
      targets[i] = var
    end
    local es = self:explist(node[2])
    self:check_count(node, #targets, #es)
    self:assign_values(node, targets, es)
  elseif tag == "Call" then
    local rs = self:call(node)
    if rs[1] and not rs[1].c:find("^cuarr_r%d+%.") then self:emit(rs[1].c .. ";") end
  elseif tag == "Do" then
    self:emit("{")
    self:body(node)
    self:emit("}")
  elseif tag == "While" then
    self:emit("while (1) {")
    self.depth = self.depth + 1
    self:emit(fmt("if (!(%s)) break;", self:cond(node[1])))
    self:block(node[2])
    self.depth = self.depth - 1
    self:emit("}")
  elseif tag == "Repeat" then
    -- The condition sees the body's locals: it is tested inside the body's block.
    self:emit("while (1) {")
    self.depth = self.depth + 1
    self.scopes[#self.scopes + 1] = {}
    for _, s in ipairs(node[1]) do self:stmt(s) end
    self:emit(fmt("if (%s) break;", self:cond(node[2])))
    self.scopes[#self.scopes] = nil
    self.depth = self.depth - 1
    self:emit("}")
  elseif tag == "If" then
    -- An elseif is an if inside the else: what its condition computes first (a device
    -- function's results) must happen only when the branches above were not taken.
    local n, opened = #node, 0
    for i = 1, n - 1, 2 do
      if i > 1 then
        self:emit("} else {")
        self.depth = self.depth + 1
        opened = opened + 1
      end
      self:emit(fmt("if (%s) {", self:cond(node[i])))
      self:body(node[i + 1])
    end
    if n % 2 == 1 then
      self:emit("} else {")
      self:body(node[n])
    end
    self:emit("}")
    for _ = 1, opened do
      self.depth = self.depth - 1
      self:emit("}")
    end
  elseif tag == "Fornum" then
    self:fornum(node)
  elseif tag == "Break" then
    self:emit("break;")
  elseif tag == "Return" then
    self:ret(node)
  else
    self:fail(node, fmt("%s are not in the subset translated functions use",
      UNSUPPORTED_NODE[tag] or tostring(tag)))
  end
end

function Fn:fornum(node)
  local id, body = node[1], node[#node]
  local start = self:number(node[2], "a for loop's start")
  local limit = self:number(node[3], "a for loop's limit")
  local step = #node == 5 and self:number(node[4], "a for loop's step") or constant(1)
  local s, l, st, n = self:tmp("start"), self:tmp("limit"), self:tmp("step"), self:tmp("count")
  local i = self:tmp("i")
  self:emit("{")
  self.depth = self.depth + 1
  if Ty.is_int(start.t) and Ty.is_int(step.t) then
    -- Lua's integer loop: the iteration count computed once, so nothing overflows.
    self:emit(fmt("long long %s = %s, %s = %s, %s;", s, as(start, "int64"), st,
      as(step, "int64"), l))
    local ok = "true"
    if Ty.is_float(limit.t) then
      ok = fmt("cuarr_forlimit(%s, %s, &%s)", as(limit, "float64"), st, l)
    else
      self:emit(fmt("%s = %s;", l, as(limit, "int64")))
    end
    self:emit(fmt("if (%s && %s != 0 && (%s > 0 ? %s <= %s : %s >= %s)) {", ok, st, st, s, l, s, l))
    self.depth = self.depth + 1
    self:emit(fmt("cuarr_u64 %s = %s > 0 ? ((cuarr_u64)%s - (cuarr_u64)%s) / (cuarr_u64)%s : "
      .. "((cuarr_u64)%s - (cuarr_u64)%s) / ((cuarr_u64)(-(%s + 1)) + 1u);", n, st, l, s, st, s, l,
      st))
    self:emit(fmt("for (long long %s = %s;; %s = cuarr_iadd(%s, %s)) {", i, s, i, i, st))
    self.depth = self.depth + 1
    local scope = {}
    self.scopes[#self.scopes + 1] = scope
    local var = self:declare(id[1], "int64")
    self:emit(fmt("long long %s = %s;", var.cname, i))
    self:block(body)
    self.scopes[#self.scopes] = nil
    self:emit(fmt("if (%s-- == 0) break;", n))
    self.depth = self.depth - 1
    self:emit("}")
    self.depth = self.depth - 1
    self:emit("}")
  else
    local t = Ty.float_arith(Ty.float_arith(start, limit) == "float32" and { t = "float32" }
      or { t = "float64" }, step)
    if Ty.is_float(start.t) and Ty.is_float(limit.t) and Ty.is_float(step.t) then
      t = Ty.arith({ t = Ty.arith(start, limit), lit = start.lit and limit.lit }, step)
    end
    local ct = Ty.C[t]
    self:emit(fmt("%s %s = %s, %s = %s, %s = %s;", ct, s, as(start, t), l, as(limit, t), st,
      as(step, t)))
    self:emit(fmt("if (%s != 0) for (%s %s = %s; %s > 0 ? %s <= %s : %s >= %s; %s += %s) {", st,
      ct, i, s, st, i, l, i, l, i, st))
    self.depth = self.depth + 1
    self.scopes[#self.scopes + 1] = {}
    local var = self:declare(id[1], t)
    self:emit(fmt("%s %s = %s;", ct, var.cname, i))
    self:block(body)
    self.scopes[#self.scopes] = nil
    self.depth = self.depth - 1
    self:emit("}")
  end
  self.depth = self.depth - 1
  self:emit("}")
end

function Fn:ret(node)
  local es = self:explist(node)
  if self.nret == nil then self.nret = #es end
  if self.nret ~= #es then
    self:fail(node, fmt("returns %d value%s here and %d elsewhere: translated functions return "
      .. "the same number of values everywhere", #es, #es == 1 and "" or "s", self.nret))
  end
  for i, e in ipairs(es) do
    local old = self.rettypes[i]
    local u = Ty.unify(old, e.t, e.lit)
    if u == nil then
      self:fail(node, fmt("result %d is a boolean here and a number elsewhere", i))
    end
    if u ~= old then
      self.rettypes[i] = u
      self.changed = true
    end
  end
  self.returns[#self.returns + 1] = { es = es, at = #self.out + 1, depth = self.depth }
  self:emit("@return")
end

-- Whether a block always ends in a return.
local function returns(block)
  local last = block[#block]
  if not last then return false end
  if last.tag == "Return" then return true end
  if last.tag == "Do" then return returns(last) end
  if last.tag == "If" and #last % 2 == 1 then
    for i = 2, #last - 1, 2 do if not returns(last[i]) then return false end end
    return returns(last[#last])
  end
  return false
end

-- Translates spec ({node, chunk, line, fn}) for parameter types; returns the rendered function.
local function render(ctx, spec, types, cname, fixed_rets)
  local self = setmetatable({ ctx = ctx, chunk = spec.chunk, line = spec.line, vartypes = {},
                              rettypes = {} }, Fn)
  self.upvalues = {}
  if spec.fn then
    for i = 1, math.huge do
      local name, value = debug.getupvalue(spec.fn, i)
      if not name then break end
      if name == "_ENV" then self.env = value else
        self.upvalues[#self.upvalues + 1] = { name = name, value = value }
      end
    end
  else
    self.env = spec.env or { math = math }
  end
  local params, body = spec.node[1], spec.node[2]
  for _, p in ipairs(params) do
    if p.tag == "Dots" then self:fail(p, "varargs (...) are not in the subset translated "
      .. "functions use") end
  end
  if #params ~= #types then
    self:fail(spec.node, fmt("the function takes %d parameter%s and is given %d", #params,
      #params == 1 and "" or "s", #types), "TypeError")
  end
  for pass = 1, 20 do
    self.changed, self.out, self.depth, self.ntmp, self.nvar = false, {}, 1, 0, 0
    self.scopes, self.pending, self.returns, self.nret = { {} }, {}, {}, nil
    local cparams = {}
    for i, p in ipairs(params) do
      local var = self:declare(p[1])
      self.vartypes[var.cname] = types[i]
      var.fixed = true
      cparams[i] = Ty.C[types[i]] .. " " .. var.cname
    end
    self:block(body)
    if not self.changed or pass == 20 then
      self.nret = self.nret or 0
      if fixed_rets then
        if #fixed_rets ~= self.nret then
          self:fail(spec.node, fmt("returns %d value%s; %d expected", self.nret,
            self.nret == 1 and "" or "s", #fixed_rets), "TypeError")
        end
        for i, t in ipairs(fixed_rets) do
          if (t == "bool") ~= (self.rettypes[i] == "bool") then
            self:fail(spec.node, fmt("returns a %s; the signature says %s",
              self.rettypes[i] == "bool" and "boolean" or "number", t), "TypeError")
          end
        end
        self.rettypes = fixed_rets
      end
      if self.nret > 0 and not returns(body) then
        self:fail(spec.node, "may end without returning a value (Lua would return nil, which "
          .. "translated functions do not have)")
      end
      for _, var in ipairs(self.pending) do
        if not self.vartypes[var.cname] then
          self:fail(spec.node, fmt("local '%s' is never assigned", var.name))
        end
      end
      return self, cparams
    end
  end
end

-- The C text of a translated function (declared `__device__`), named cname.
local function finish(self, cname, cparams, spec)
  local rets = self.rettypes
  local struct, rt
  if #rets == 0 then rt = "void"
  elseif #rets == 1 then rt = Ty.C[rets[1]]
  else
    struct = cname .. "_results"
    rt = struct
  end
  local lines = { fmt("// translated from the Lua function at %s:%d", spec.chunk, spec.line) }
  if struct then
    local fields = {}
    for i, t in ipairs(rets) do fields[i] = fmt("%s r%d;", Ty.C[t], i - 1) end
    lines[#lines + 1] = fmt("struct %s { %s };", struct, concat(fields, " "))
  end
  lines[#lines + 1] = fmt("__device__ %s %s(%s) {", rt, cname, concat(cparams, ", "))
  local at = {}
  for _, r in ipairs(self.returns) do at[r.at] = r end
  for i, line in ipairs(self.out) do
    local r = at[i]
    if r then
      local pad = string.rep("  ", r.depth)
      if #rets == 0 then line = pad .. "return;"
      elseif #rets == 1 then line = pad .. "return " .. as(r.es[1], rets[1]) .. ";"
      else
        local vals = {}
        for k, e in ipairs(r.es) do vals[k] = as(e, rets[k]) end
        line = fmt("%sreturn %s{%s};", pad, struct, concat(vals, ", "))
      end
    end
    line = line:gsub("@([%w_]+)", function(v) return Ty.C[self.vartypes[v]] end)
    lines[#lines + 1] = line
  end
  lines[#lines + 1] = "}"
  return concat(lines, "\n") .. "\n", rt, struct
end

local function sanitize(name) return (tostring(name):gsub("[^%w_]", "_")) end

-- A device function (a jit.device object) for argument types, emitted into ctx once.
function X.device_function(ctx, dev, types, name, node, caller)
  local key = dev.id .. "(" .. concat(types, ",") .. ")"
  local done = ctx.functions[key]
  if done then
    if done == true then
      caller:fail(node, fmt("'%s' calls itself: recursion is not translated", name))
    end
    return done
  end
  ctx.functions[key] = true
  local spec = dev.spec(ctx.raise)
  local cname = fmt("%s_%d", sanitize(name), #ctx.order + 1)
  local self, cparams = render(ctx, spec, types, cname)
  local text, _, struct = finish(self, cname, cparams, spec)
  local fn = { cname = cname, rets = self.rettypes, struct = struct, text = text }
  ctx.functions[key] = fn
  ctx.order[#ctx.order + 1] = text
  return fn
end

function X.context(raise) return { raise = raise, functions = {}, order = {} } end

-- Translates f (a function or source string) for parameter types; rets: the result types
-- (converted to them), or nil to infer.  Returns { source = prelude + every device function
-- + this one, name = cname, rets = result types }.
function X.translate(f, types, cname, raise, rets)
  local spec = source.load(f, raise)
  local ctx = X.context(raise)
  local self, cparams = render(ctx, spec, types, cname, rets)
  local text = finish(self, cname, cparams, spec)
  ctx.order[#ctx.order + 1] = text
  return { source = require("cuarr.jit.prelude") .. concat(ctx.order, "\n"), name = cname,
           rets = self.rettypes, spec = spec }
end

X.source = source
return X
