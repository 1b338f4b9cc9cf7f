-- cuarr.fuse's translation of an array-level Lua function into the body of one kernel.  Its
-- values are typed by NumPy's rules, not Lua's: each ufunc (called, or an operator on an array)
-- is typed by cuarr's own resolver (core.ufunc_resolve: NEP 50 weak Lua numbers, true_divide of
-- integers, int64 x uint64 comparisons, weak integers out of range) and computed with the very
-- scalar function its own device loop calls (cuarr_uf_<op>_<dtype>, ufunc_math.cuh), converting
-- operands as its loop does (cuarr_cast), so fused and unfused results are the same bits.
--
-- A value is {kind = "array", dtype =, c = C expression} (an array-valued expression: a
-- parameter or a computed temporary, strong in NEP 50's sense), {kind = "const", value = a Lua
-- number or boolean} (a weak scalar known at translation time: literals, upvalues, math
-- constants and whatever Lua computes from them) or {kind = "arg", num = "int" | "float",
-- index =, indices =, c =} (a Lua number passed at the call, index its parameter, or float
-- arithmetic on such numbers, without index: a weak scalar; indices the parameters it reads).
local Fn = require "cuarr.jit.scope"
local ir = require "cuarr.jit.ir"

local fmt, concat = string.format, table.concat

local E = {}

-- Lua operators on arrays: the ufunc each one is.
E.OPERATOR_UFUNC = {
  add = "add", sub = "subtract", mul = "multiply", div = "true_divide", idiv = "floor_divide",
  mod = "remainder", pow = "power", band = "bitwise_and", bor = "bitwise_or",
  bxor = "bitwise_xor", shl = "left_shift", shr = "right_shift", unm = "negative",
  bnot = "invert",
}

-- Lua's own operators, for weak scalars known at translation time.
local FOLD = {
  add = function(a, b) return a + b end, sub = function(a, b) return a - b end,
  mul = function(a, b) return a * b end, div = function(a, b) return a / b end,
  idiv = function(a, b) return a // b end, mod = function(a, b) return a % b end,
  pow = function(a, b) return a ^ b end, band = function(a, b) return a & b end,
  bor = function(a, b) return a | b end, bxor = function(a, b) return a ~ b end,
  shl = function(a, b) return a << b end, shr = function(a, b) return a >> b end,
  eq = function(a, b) return a == b end, ne = function(a, b) return a ~= b end,
  lt = function(a, b) return a < b end, le = function(a, b) return a <= b end,
  gt = function(a, b) return a > b end, ge = function(a, b) return a >= b end,
  unm = function(a) return -a end, bnot = function(a) return ~a end,
  ["not"] = function(a) return not a end,
}

local COMPARISON_UFUNC = { lt = "less", le = "less_equal", gt = "greater", ge = "greater_equal",
                           eq = "equal", ne = "not_equal" }

-- The reductions a fused function may end with, as cuarr's own names them.
E.REDUCTIONS = { sum = "sum", prod = "prod", max = "max", min = "min", amax = "max",
                 amin = "min" }

-- The integer range of each integer dtype a Lua integer argument is checked against per call.
E.INT_RANGE = {
  int8 = { -128, 127 }, int16 = { -32768, 32767 }, int32 = { -2147483648, 2147483647 },
  uint8 = { 0, 255 }, uint16 = { 0, 65535 }, uint32 = { 0, 4294967295 },
  uint64 = { 0, math.maxinteger },
}

-- The C type of a dtype in generated kernels (ufunc_math.cuh's names).
function E.ctype(dtype) return "cuarr_uf_" .. (dtype == "bool" and "boolean" or dtype) end

-- A weak scalar already converted to dtype (the resolver did it), as a C constant of dtype.
local function literal(v, dtype)
  if type(v) == "boolean" then return v and "true" or "false" end
  if dtype == "bool" then return v ~= 0 and "true" or "false" end
  local lit = ir.number_literal(v)
  if dtype == "float16" then return fmt("cuarr_float_to_half((float)(%s))", lit) end
  return fmt("((%s)(%s))", E.ctype(dtype), lit)
end

-- The program being built: the kernel's lines, its temporaries, the parameters it reads, the
-- per-call checks of Lua integer arguments.
local Program = {}
Program.__index = Program

function E.program(ctx)
  return setmetatable({ ctx = ctx, lines = {}, ntmp = 0, checks = {}, vectorized = {},
                        namespaces = {} }, Program)
end

-- A frame: one Lua function being walked (the fused function, or one inlined into it), with
-- its upvalues and scopes; fail/free come from the translator's scope.lua.
local Frame = setmetatable({}, { __index = Fn })
Frame.__index = Frame

function E.frame(prog, spec)
  local self = setmetatable({ prog = prog, ctx = prog.ctx, chunk = spec.chunk, line = spec.line,
                              upvalues = {}, scopes = { {} } }, Frame)
  if spec.fn then
    for i = 1, math.huge do
      local name, value = debug.getupvalue(spec.fn, i)
      if not name then break end
      if name == "_ENV" then self.env = value else
        self.upvalues[#self.upvalues + 1] = { name = name, value = value }
      end
    end
  else
    self.env = spec.env
  end
  return self
end

function Frame:lookup(name)
  for i = #self.scopes, 1, -1 do
    local v = self.scopes[i][name]
    if v then return v end
  end
  return nil
end

-- Re-raises a resolver's error (a dtype with no loop, a weak integer out of range) at the Lua
-- line, with its kind.
function Frame:resolve(node, ufunc, name, operands)
  local ok, r = pcall(self.ctx.core.ufunc_resolve, ufunc, operands)
  if not ok then
    local kind = type(r) == "table" and r.kind or "CompileError"
    local msg = type(r) == "table" and r.message or tostring(r)
    self:fail(node, fmt("%s: %s", name, msg), kind)
  end
  return r
end

-- value converted to the loop's dtype d, as C text (operand i of the resolved call r).
function Frame:operand(value, d, r, i)
  if value.kind == "array" then
    if value.dtype == d then return value.c end
    return fmt("cuarr_cast<%s>(%s)", E.ctype(d), value.c)
  elseif value.kind == "const" then
    return literal(r.scalars[i], d)
  end
  -- A Lua number argument: converted in the kernel as the host converts a weak scalar; an
  -- integer must fit an integer loop, which only its value says (checked per call).
  local range = value.num == "int" and E.INT_RANGE[d]
  if range then
    local checks = self.prog.checks
    checks[#checks + 1] = { index = value.index, lo = range[1], hi = range[2] }
  end
  return fmt("cuarr_cast<%s>(%s)", E.ctype(d), value.c)
end

-- A ufunc applied to values: its result, a temporary.
function Frame:apply(node, ufunc, name, values)
  local operands, any_array = {}, false
  for i, v in ipairs(values) do
    if v.kind == "array" then
      operands[i] = v.dtype
      any_array = true
    elseif v.kind == "const" then
      operands[i] = v.value
    else
      operands[i] = v.num == "int" and 0 or 0.0
    end
  end
  local r = self:resolve(node, ufunc, name, operands)
  local args = {}
  for i, v in ipairs(values) do args[i] = self:operand(v, r.ins[i], r, i) end
  local prog = self.prog
  prog.ntmp = prog.ntmp + 1
  local t = "t" .. prog.ntmp
  local inputs = {}
  for _, v in ipairs(values) do inputs[#inputs + 1] = v end
  prog.lines[#prog.lines + 1] = {
    text = fmt("const %s %s = %s(%s);  // %s:%d: %s", E.ctype(r.out), t, r.fn,
      concat(args, ", "), self.chunk, node.line or self.line, name),
    inputs = inputs }
  return { kind = "array", dtype = r.out, c = t, line = #prog.lines, any_array = any_array }
end

-- The lines the values need, in order, and the array parameters they read (a line whose
-- result nobody uses is left out: its arrays must not take part in the broadcast).
function E.live(prog, values)
  local live, params = {}, {}
  local function mark(v)
    if v.kind == "array" and v.param then params[v.param] = true end
    if v.kind == "arg" then
      for _, k in ipairs(v.indices) do params[k] = true end
    end
    if v.line and not live[v.line] then
      live[v.line] = true
      for _, w in ipairs(prog.lines[v.line].inputs) do mark(w) end
    end
  end
  for _, v in ipairs(values) do mark(v) end
  local lines = {}
  for i, line in ipairs(prog.lines) do
    if live[i] then lines[#lines + 1] = line.text end
  end
  return lines, params
end

-- The value of a free name or a field path of one, read now.
function Frame:path(node)
  if node.tag == "Id" then
    if self:lookup(node[1]) then
      self:fail(node, fmt("'%s' is a local value, not a table or a function", node[1]))
    end
    return self:free(node, node[1])
  end
  if node.tag == "Index" and node[2].tag == "String" then
    local base = self:path(node[1])
    if type(base) == "table" then
      local ok, v = pcall(function() return base[node[2][1]] end)
      if ok and v ~= nil then return v end
    end
    self:fail(node, fmt("unknown name '%s'", node[2][1]))
  end
  self:fail(node, "only names and fields (cuarr.sin) can be called or read here")
end

function Frame:value_of(node, v, what)
  if type(v) == "number" or type(v) == "boolean" then return { kind = "const", value = v } end
  self:fail(node, fmt("'%s' is %s, which a fused function cannot use as a value", what,
    ir.describe(v)))
end

function Frame:expr(node)
  local tag = node.tag
  if tag == "Number" then
    return { kind = "const", value = load("return " .. node[1])() }
  elseif tag == "True" or tag == "False" then
    return { kind = "const", value = tag == "True" }
  elseif tag == "Id" then
    local v = self:lookup(node[1])
    if v then return v end
    return self:value_of(node, self:free(node, node[1]), node[1])
  elseif tag == "Index" then
    if node[2].tag ~= "String" then
      self:fail(node, "subscripts are not in what a fused function translates")
    end
    return self:value_of(node, self:path(node), node[2][1])
  elseif tag == "Paren" then
    return self:expr(node[1])
  elseif tag == "Call" or tag == "Invoke" then
    local results = self:call(node)
    if #results == 0 then self:fail(node, "a call that returns no value") end
    return results[1]
  elseif tag == "Op" then
    return self:op(node)
  end
  self:fail(node, fmt("%s are not in what a fused function translates",
    ir.UNSUPPORTED_NODE[tag] or tostring(tag)))
end

-- Lua computes what it can now: operators on weak scalars known at translation time.
function Frame:fold(node, op, values)
  local args = {}
  for i, v in ipairs(values) do args[i] = v.value end
  local ok, r = pcall(FOLD[op], table.unpack(args))
  if not ok then self:fail(node, "Lua raises on these constants: " .. tostring(r)) end
  return { kind = "const", value = r }
end

-- Float arithmetic on Lua number arguments (and constants) alone: a weak float, as Lua would
-- compute it, evaluated in double precision in the kernel (`sigma * SQRT_2PI` with sigma passed
-- at the call).  Integer results are left out: whether they fit the loop they meet is known
-- only per call, which the per-call checks see for plain arguments alone.
local WEAK_FLOAT_C = {
  add = "(%s + %s)", sub = "(%s - %s)", mul = "(%s * %s)", div = "(%s / %s)",
  pow = "pow(%s, %s)", idiv = "floor(%s / %s)", unm = "(-%s)",
}

function Frame:weak_arith(node, op, values)
  local is_float = op == "div" or op == "pow"
  local args, indices = {}, {}
  for i, v in ipairs(values) do
    if v.kind == "const" then
      if type(v.value) ~= "number" then
        self:fail(node, fmt("a boolean in arithmetic (%s)", op), "TypeError")
      end
      is_float = is_float or math.type(v.value) == "float"
      args[i] = fmt("((double)%s)", ir.number_literal(v.value))
    else
      is_float = is_float or v.num == "float"
      args[i] = fmt("((double)%s)", v.c)
      for _, k in ipairs(v.indices) do indices[#indices + 1] = k end
    end
  end
  if not (is_float and WEAK_FLOAT_C[op]) then
    self:fail(node, "integer or bitwise arithmetic on Lua number arguments alone is plain Lua, "
      .. "which a fused kernel does not compute: do it before the call, or pass an array")
  end
  return { kind = "arg", num = "float", c = fmt(WEAK_FLOAT_C[op], args[1], args[2]),
           indices = indices }
end

function Frame:op(node)
  local op = node[1]
  if op == "and" or op == "or" then
    self:fail(node, fmt("`%s` is not in what a fused function translates: use "
      .. "cuarr.logical_%s (or cuarr.where)", op, op))
  elseif op == "concat" or op == "len" then
    self:fail(node, ir.UNSUPPORTED_OP[op] .. " are not in what a fused function translates")
  end
  local values = { self:expr(node[2]) }
  if node[3] then values[2] = self:expr(node[3]) end
  local all_const, any_array = true, false
  for _, v in ipairs(values) do
    all_const = all_const and v.kind == "const"
    any_array = any_array or v.kind == "array"
  end
  if all_const and FOLD[op] then return self:fold(node, op, values) end
  if not any_array then return self:weak_arith(node, op, values) end
  if op == "not" then
    self:fail(node, "`not` of an array is always false in Lua: use cuarr.logical_not")
  end
  if COMPARISON_UFUNC[op] then
    self:fail(node, fmt("comparison operators on arrays do not give arrays in Lua: use "
      .. "cuarr.%s", COMPARISON_UFUNC[op]))
  end
  local name = E.OPERATOR_UFUNC[op]
  return self:apply(node, self.ctx.ufunc(name), name, values)
end

-- The values of an expression list, the last one's every result when it is a call.
function Frame:explist(list)
  local out = {}
  for i, node in ipairs(list) do
    if i == #list and (node.tag == "Call" or node.tag == "Invoke") then
      for _, v in ipairs(self:call(node)) do out[#out + 1] = v end
    else
      out[#out + 1] = self:expr(node)
    end
  end
  return out
end

require("cuarr.jit.fuse_calls")(Frame, E)

return E
