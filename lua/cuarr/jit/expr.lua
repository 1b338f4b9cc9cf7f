-- Expressions: literals, locals, free names read as constants, math constants, arithmetic and
-- comparisons with Lua 5.4's typing, and/or/not.  Each returns a typed value (ir.lua).
local Ty = require "cuarr.jit.types"
local ir = require "cuarr.jit.ir"

local fmt = string.format

return function(Fn)
function Fn:expr(node)
  local tag = node.tag
  if tag == "Number" then
    local v = load("return " .. node[1])()
    return ir.constant(v)
  elseif tag == "True" or tag == "False" then
    return ir.constant(tag == "True")
  elseif tag == "Id" then
    local var = self:lookup(node[1])
    if var then
      local t = self.vartypes[var.cname]
      if not t then self:fail(node, fmt("'%s' is read before it is assigned", node[1])) end
      self:rk_no_array(node, t, fmt("used as a value ('%s')", node[1]))
      return { c = var.cname, t = t }
    end
    local v = self:free(node, node[1])
    if type(v) == "number" or type(v) == "boolean" then return ir.constant(v) end
    self:fail(node, fmt("'%s' is %s, which a translated function cannot use as a value",
      node[1], ir.describe(v)))
  elseif tag == "Index" then
    local base, key = node[1], node[2]
    if base.tag == "Id" and not self:lookup(base[1]) and key.tag == "String" then
      local v = self:free(base, base[1])
      if v == math then
        local c = ir.MATH_CONST[key[1]]
        if c then return ir.constant(c) end
        self:fail(node, fmt("math.%s is not a constant a translated function can use", key[1]))
      end
    end
    local rk = self:rk_index(node)
    if rk then return rk end
    self:fail(node, "tables and array subscripts are not in the subset translated functions use")
  elseif tag == "Paren" then
    return self:expr(node[1])
  elseif tag == "Call" then
    return self:call(node, 1)[1]
  elseif tag == "Op" then
    return self:op(node)
  end
  self:fail(node, fmt("%s are not in the subset translated functions use",
    ir.UNSUPPORTED_NODE[tag] or tostring(tag)))
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
  if op == "len" then return self:rk_len(node) end
  if ir.UNSUPPORTED_OP[op] then
    self:fail(node, ir.UNSUPPORTED_OP[op] .. " are not in the subset translated functions use")
  end
  if op == "not" then
    local e = self:expr(node[2])
    if e.t == "bool" then return { c = fmt("(!%s)", e.c), t = "bool" } end
    return { c = "false", t = "bool" }
  elseif op == "unm" then
    local e = self:number(node[2], "arithmetic")
    if Ty.is_int(e.t) then
      return { c = fmt("cuarr_ineg(%s)", ir.as(e, "int64")), t = "int64", lit = e.lit }
    end
    return { c = fmt("(-%s)", e.c), t = e.t, lit = e.lit }
  elseif op == "and" or op == "or" then
    return self:logic(node)
  end
  local a, b = node[2], node[3]
  local sym = ir.BINARY[op]
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
    local ca, cb = ir.as(A, t), ir.as(B, t)
    if op == "div" then return { c = fmt("(%s / %s)", ca, cb), t = t, lit = lit } end
    return { c = fmt("pow(%s, %s)", ca, cb), t = t, lit = lit }
  end
  local t = Ty.arith(A, B)
  local ca, cb = ir.as(A, t), ir.as(B, t)
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
        return { c = fmt("(%s ? %s : %s)", C.c, ir.as(A, t), ir.as(B, t)), t = t }
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
end
