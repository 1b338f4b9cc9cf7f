-- The scalar types of translated code: their CUDA C names, Lua's promotion rules between them
-- (integers compute as int64, int op float gives the float's type, a float literal takes the
-- other operand's float type), and the dtype names signatures may use.
local Ty = {}

Ty.C = {
  bool = "bool", int8 = "signed char", int16 = "short", int32 = "int", int64 = "long long",
  uint8 = "unsigned char", uint16 = "unsigned short", uint32 = "unsigned int",
  uint64 = "unsigned long long", float32 = "float", float64 = "double",
}

-- Storage dtypes that translated code computes in another type: a float16 value is exact in a
-- float32, which is what the function sees (and returns, rounded to float16 once when stored).
Ty.COMPUTE = { float16 = "float32" }

-- Numba's short names, beside NumPy's.
Ty.ALIASES = {
  f2 = "float16",
  b1 = "bool", boolean = "bool", i1 = "int8", i2 = "int16", i4 = "int32", i8 = "int64",
  u1 = "uint8", u2 = "uint16", u4 = "uint32", u8 = "uint64", f4 = "float32", f8 = "float64",
}

-- The dtype a signature's type name spells (float16 included), or nil.
function Ty.canonical(name)
  name = Ty.ALIASES[name] or name
  if Ty.C[name] or Ty.COMPUTE[name] then return name end
  return nil
end

-- The type translated code sees for a storage dtype.
function Ty.compute(dtype) return Ty.COMPUTE[dtype] or dtype end

function Ty.is_float(t) return t == "float32" or t == "float64" end
function Ty.is_int(t) return Ty.C[t] ~= nil and t ~= "bool" and not Ty.is_float(t) end
function Ty.is_number(t) return Ty.C[t] ~= nil and t ~= "bool" end

-- The type of a op b for + - * // % (a, b: {t=, lit=}).
function Ty.arith(a, b)
  local fa, fb = Ty.is_float(a.t), Ty.is_float(b.t)
  if not fa and not fb then return "int64" end
  if fa and fb then
    if a.t == b.t then return a.t end
    if a.lit and not b.lit then return b.t end
    if b.lit and not a.lit then return a.t end
    return "float64"
  end
  return fa and a.t or b.t
end

-- The type of a / b and a ^ b: a float.
function Ty.float_arith(a, b)
  local t = Ty.arith(a, b)
  if t == "int64" then return "float64" end
  return t
end

-- The type a variable of type old takes when also assigned new (nil: a clash).
function Ty.unify(old, new, new_lit)
  if old == nil or old == new then return new end
  if old == "bool" or new == "bool" then return nil end
  local fo, fn = Ty.is_float(old), Ty.is_float(new)
  if fo and fn then
    if new_lit then return old end
    return "float64"
  end
  if fo then return old end
  if fn then return new end
  return "int64"
end

return Ty
