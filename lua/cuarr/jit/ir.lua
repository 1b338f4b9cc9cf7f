-- The translator's typed values and tables: a typed expression is {c = C text, t = type,
-- lit = literal?, value = a literal's Lua value}; fuse and jit.rawkernel will add their own kinds
-- (arrays, with a dtype and a rank) beside these.  Also the registries of what free names may
-- hold: jit.device objects (DEVICE_MT) and cast functions (CASTS, function -> dtype).
local Ty = require "cuarr.jit.types"

local ir = {}
local fmt = string.format

ir.DEVICE_MT = { __name = "cuarr.jit.device" }
ir.CASTS = {}

ir.BINARY = { add = "+", sub = "-", mul = "*", div = "/", idiv = "//", mod = "%", pow = "^",
              eq = "==", ne = "~=", lt = "<", le = "<=", gt = ">", ge = ">=" }
ir.UNSUPPORTED_OP = {
  concat = "string concatenation (..)", len = "the length operator (#)",
  band = "bitwise operators", bor = "bitwise operators", bxor = "bitwise operators",
  shl = "bitwise operators", shr = "bitwise operators", bnot = "bitwise operators",
}
ir.UNSUPPORTED_NODE = {
  String = "strings", Table = "tables", Function = "nested functions (closures)",
  Dots = "varargs (...)", Nil = "nil", Invoke = "method calls (a:m())",
  Localrec = "nested functions (closures)", Forin = "the generic for (for k, v in ...)",
  Goto = "goto", Label = "labels (::name::)",
}

function ir.number_literal(v)
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

function ir.constant(v)
  if type(v) == "boolean" then return { c = v and "true" or "false", t = "bool", lit = true } end
  return { c = ir.number_literal(v), t = math.type(v) == "integer" and "int64" or "float64",
           lit = true, value = v }
end

-- e converted to type t (C text).
function ir.as(e, t)
  if e.t == t then return e.c end
  return fmt("((%s)(%s))", Ty.C[t], e.c)
end

ir.MATH_CONST = { pi = math.pi, huge = math.huge, maxinteger = math.maxinteger,
                  mininteger = math.mininteger }
ir.MATH_FLOAT1 = { exp = "exp", sqrt = "sqrt", sin = "sin", cos = "cos", tan = "tan",
                   asin = "asin", acos = "acos" }

function ir.describe(v)
  if type(v) == "table" and getmetatable(v) == ir.DEVICE_MT then return "a device function" end
  return "a " .. type(v)
end

return ir
