-- References for the ufunc specs, computed in Lua: dtype ranges and wrapping, NumPy's integer
-- semantics (with cuarr's choices where NumPy raises: division by zero gives 0, ...), the
-- float ufuncs step by step in the dtype's precision, and the transcendental functions to
-- about 100 bits with double-double arithmetic, so that an implementation's error can be
-- measured in ulps of the result's dtype.
--
-- Values are Lua numbers as cuarr reads them back: integers as Lua integers (uint64 as the Lua
-- integer with the same 64 bits: the specs read uint64 results through astype("int64")), floats
-- as Lua floats, bools as Lua booleans.
local A = require "spec.support.arrays"

local type = type
local floor, abs, huge, sqrt = math.floor, math.abs, math.huge, math.sqrt
local ult, maxinteger, mininteger = math.ult, math.maxinteger, math.mininteger
local pack, unpack = string.pack, string.unpack
local f32 = A.f32

-- float16 rounding (A.f16) that keeps the sign of zero (A.f16 gives +0 for -0).
local function f16z(x)
  if x == 0 then return x end
  return A.f16(x)
end
local f16 = f16z

local R = {}
R.f16 = f16z

-- ---------------------------------------------------------------- dtypes

R.INTEGERS = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" }
R.FLOATS = { "float16", "float32", "float64" }

local BITS = { int8 = 8, int16 = 16, int32 = 32, int64 = 64, uint8 = 8, uint16 = 16, uint32 = 32,
               uint64 = 64 }
local SIGNED = { int8 = true, int16 = true, int32 = true, int64 = true }
R.BITS, R.SIGNED = BITS, SIGNED

function R.is_float(dt) return dt == "float16" or dt == "float32" or dt == "float64" end
function R.is_int(dt) return BITS[dt] ~= nil end

-- The smallest and largest value of an integer dtype (uint64: the Lua integers 0 and -1).
function R.range(dt)
  local b = BITS[dt]
  if SIGNED[dt] then
    if b == 64 then return mininteger, maxinteger end
    return -(1 << (b - 1)), (1 << (b - 1)) - 1
  end
  if b == 64 then return 0, -1 end
  return 0, (1 << b) - 1
end

-- v (any Lua integer) wrapped into dtype dt, two's complement; uint64 keeps the 64 bits.
local function wrap(v, dt)
  local b = BITS[dt]
  if b == 64 then return v end
  local m = (1 << b) - 1
  v = v & m
  if SIGNED[dt] and v >= (1 << (b - 1)) then v = v - (1 << b) end
  return v
end
R.wrap = wrap

-- Unsigned 64-bit division and remainder of Lua integers read as uint64 (b ~= 0).
local function udiv(a, b)
  if b < 0 then return ult(a, b) and 0 or 1 end
  local q = ((a >> 1) // b) << 1
  local r = a - q * b
  if not ult(r, b) then q = q + 1 end
  return q
end
local function urem(a, b) return a - udiv(a, b) * b end
R.udiv, R.urem = udiv, urem

-- a < b in dtype dt's order (uint64 unsigned).
local function lt(a, b, dt)
  if dt == "uint64" then return ult(a, b) end
  return a < b
end
R.lt = lt

-- ---------------------------------------------------------------- float helpers

local function signbit(x) return x < 0 or (x == 0 and 1 / x < 0) end
R.signbit = signbit

local function copysign(x, y)
  local neg = y < 0 or (y == 0 and 1 / y < 0)
  if y ~= y then -- NaN: its sign bit
    neg = unpack("<i8", pack("<d", y)) < 0
  end
  x = abs(x)
  return neg and -x or x
end
R.copysign = copysign

local function isfinite(x) return x == x and x ~= huge and x ~= -huge end

-- floor, ceil, trunc and rint (half to even) as floats, keeping the sign of zero.
local function ffloor(x)
  if not isfinite(x) then return x end
  local f = floor(x) + 0.0
  if f == 0 then return copysign(0.0, x) end
  return f
end
local function fceil(x)
  if not isfinite(x) then return x end
  local f = -floor(-x) + 0.0
  if f == 0 then return copysign(0.0, x) end
  return f
end
local function ftrunc(x)
  if x >= 0 then return ffloor(x) end
  if x < 0 then return fceil(x) end
  return x -- NaN, zeros
end
local function frint(x)
  if not isfinite(x) or abs(x) >= 2.0 ^ 52 then return x end
  local f = floor(x)
  local d = x - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then f = f + 1 end
  f = f + 0.0
  if f == 0 then return copysign(0.0, x) end
  return f
end
R.ffloor, R.fceil, R.ftrunc, R.frint = ffloor, fceil, ftrunc, frint

local function fmod(a, b) return math.fmod(a + 0.0, b + 0.0) end

-- Rounding to a dtype, and the dtype a float ufunc computes in (float16 computes in float32 and
-- is rounded once at the end, as cuarr's half loops on both backends).
local function ident(x) return x end
function R.round_to(dt)
  if dt == "float16" then return f16 end
  if dt == "float32" then return f32 end
  return ident
end
local function compute_round(dt) return dt == "float64" and ident or f32 end

-- The ulp of float dtype dt at x (finite): the gap between the two values of dt around |x|.
local function ulp(x, dt)
  x = abs(x)
  if dt == "float64" then
    local e = (unpack("<i8", pack("<d", x)) >> 52) & 0x7ff
    if e == 0 then e = 1 end
    return 2.0 ^ (e - 1075)
  elseif dt == "float32" then
    local e = (unpack("<I4", pack("<f", x)) >> 23) & 0xff -- x rounded to float32: near enough
    if e == 0 then e = 1 end
    return 2.0 ^ (e - 150)
  end
  local e = -14
  while e < 15 and x >= 2.0 ^ (e + 1) do e = e + 1 end
  return 2.0 ^ (e - 10)
end
R.ulp = ulp

-- The largest finite value of a float dtype.
R.FMAX = { float16 = 65504.0, float32 = f32(3.4028234663852886e38), float64 = 1.7976931348623157e308 }

-- ---------------------------------------------------------------- double-double arithmetic

-- A double-double is a pair (hi, lo) with |lo| <= ulp(hi)/2, passed as two values.  No FMA in
-- Lua: products are split with Dekker's method.
local SPLITTER = 134217729.0 -- 2^27 + 1

local function two_sum(a, b)
  local s = a + b
  local bb = s - a
  return s, (a - (s - bb)) + (b - bb)
end
local function quick_two_sum(a, b)
  local s = a + b
  return s, b - (s - a)
end
local function split(a)
  local t = SPLITTER * a
  local hi = t - (t - a)
  return hi, a - hi
end
local function two_prod(a, b)
  local p = a * b
  local ah, al = split(a)
  local bh, bl = split(b)
  return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
end

local function dd_add(ah, al, bh, bl)
  local s, e = two_sum(ah, bh)
  local t, f = two_sum(al, bl)
  e = e + t
  s, e = quick_two_sum(s, e)
  e = e + f
  return quick_two_sum(s, e)
end
local function dd_neg(ah, al) return -ah, -al end
local function dd_sub(ah, al, bh, bl) return dd_add(ah, al, -bh, -bl) end
local function dd_mul(ah, al, bh, bl)
  local p, e = two_prod(ah, bh)
  e = e + (ah * bl + al * bh)
  return quick_two_sum(p, e)
end
local function dd_mul_d(ah, al, b)
  local p, e = two_prod(ah, b)
  e = e + al * b
  return quick_two_sum(p, e)
end
local function dd_div(ah, al, bh, bl)
  local q1 = ah / bh
  local rh, rl = dd_sub(ah, al, dd_mul_d(bh, bl, q1))
  local q2 = rh / bh
  rh, rl = dd_sub(rh, rl, dd_mul_d(bh, bl, q2))
  local q3 = rh / bh
  local qh, ql = quick_two_sum(q1, q2)
  return dd_add(qh, ql, q3, 0.0)
end
local function dd_sqrt(ah, al)
  if ah <= 0 then return 0.0, 0.0 end
  local q = sqrt(ah)
  local ph, pl = two_prod(q, q)
  local rh = dd_sub(ah, al, ph, pl)
  return quick_two_sum(q, rh / (2 * q))
end

-- Constants (the QD library's): ln 2, ln 10, pi, pi/2.
local LN2_H, LN2_L = 6.931471805599452862e-01, 2.319046813846299558e-17
local LN10_H, LN10_L = 2.302585092994045901e+00, -2.170756223382249351e-16
local PI_H, PI_L = 3.141592653589793116e+00, 1.224646799147353207e-16
local PI2_H, PI2_L = 1.570796326794896558e+00, 6.123233995736766036e-17
R.dd = { add = dd_add, sub = dd_sub, mul = dd_mul, div = dd_div, sqrt = dd_sqrt,
         LN2 = { LN2_H, LN2_L }, LN10 = { LN10_H, LN10_L }, PI = { PI_H, PI_L } }

-- e^a - 1 = 2^k (1 + s) - 1: returns k, s (dd), for finite a of moderate size.
local function exp_parts(ah, al)
  local k = floor(ah / LN2_H + 0.5)
  local rh, rl = dd_sub(ah, al, dd_mul_d(LN2_H, LN2_L, k))
  rh, rl = rh / 1024, rl / 1024 -- exact
  -- expm1(r) by its Taylor series, then expm1(2x) = 2 expm1(x) + expm1(x)^2, ten times
  local sh, sl, th, tl = rh, rl, rh, rl
  for n = 2, 14 do
    th, tl = dd_mul(th, tl, rh, rl)
    th, tl = dd_div(th, tl, n + 0.0, 0.0)
    sh, sl = dd_add(sh, sl, th, tl)
  end
  for _ = 1, 10 do
    local qh, ql = dd_mul(sh, sl, sh, sl)
    sh, sl = dd_add(2 * sh, 2 * sl, qh, ql)
  end
  return k, sh, sl
end

local function dd_exp(ah, al)
  if ah ~= ah then return ah, 0.0 end
  if ah > 709.78 then return huge, 0.0 end
  if ah < -745.2 then return 0.0, 0.0 end
  local k, sh, sl = exp_parts(ah, al)
  local eh, el = dd_add(1.0, 0.0, sh, sl)
  local scale = 2.0 ^ k
  return eh * scale, el * scale
end

-- e^a - 1 without losing the small results.
local function dd_expm1(ah, al)
  if ah > 709.78 then return huge, 0.0 end
  if ah < -40 then return -1.0, 0.0 end
  local k, sh, sl = exp_parts(ah, al)
  if k == 0 then return sh, sl end
  local eh, el = dd_add(1.0, 0.0, sh, sl)
  local scale = 2.0 ^ k
  return dd_sub(eh * scale, el * scale, 1.0, 0.0)
end

-- ln a for a > 0: Newton's method on e^y = a from libm's log.
local function dd_log(ah, al)
  if ah ~= ah or ah < 0 then return 0 / 0, 0.0 end
  if ah == 0 then return -huge, 0.0 end
  if ah == huge then return huge, 0.0 end
  local yh, yl = math.log(ah) + al / ah, 0.0
  for _ = 1, 2 do
    local eh, el = dd_exp(-yh, -yl)
    local th, tl = dd_mul(ah, al, eh, el)
    th, tl = dd_sub(th, tl, 1.0, 0.0)
    yh, yl = dd_add(yh, yl, th, tl)
  end
  return yh, yl
end

-- sin a and cos a: reduction by pi/2 (fine for |a| up to a few thousand), then Taylor series.
local function dd_sincos(ah, al)
  local k = floor(ah / PI2_H + 0.5)
  local ph, pl = two_prod(PI2_H, k)
  pl = pl + PI2_L * k
  local rh, rl = dd_sub(ah, al, ph, pl)
  local r2h, r2l = dd_mul(rh, rl, rh, rl)
  local sh, sl, th, tl = rh, rl, rh, rl
  for n = 3, 29, 2 do
    th, tl = dd_mul(th, tl, r2h, r2l)
    th, tl = dd_div(-th, -tl, (n - 1.0) * n, 0.0)
    sh, sl = dd_add(sh, sl, th, tl)
  end
  local ch, cl = 1.0, 0.0
  th, tl = 1.0, 0.0
  for n = 2, 28, 2 do
    th, tl = dd_mul(th, tl, r2h, r2l)
    th, tl = dd_div(-th, -tl, (n - 1.0) * n, 0.0)
    ch, cl = dd_add(ch, cl, th, tl)
  end
  local q = k % 4
  if q == 0 then return sh, sl, ch, cl end
  if q == 1 then return ch, cl, -sh, -sl end
  if q == 2 then return -sh, -sl, -ch, -cl end
  return -ch, -cl, sh, sl
end

-- atan x (x a dd, finite): Newton on tan y = x, y <- y - cos y (sin y - x cos y).
local function dd_atan(xh, xl)
  if xh == huge then return PI2_H, PI2_L end
  if xh == -huge then return -PI2_H, -PI2_L end
  local yh, yl = math.atan(xh), 0.0
  for _ = 1, 2 do
    local sh, sl, ch, cl = dd_sincos(yh, yl)
    local th, tl = dd_sub(sh, sl, dd_mul(xh, xl, ch, cl))
    yh, yl = dd_sub(yh, yl, dd_mul(ch, cl, th, tl))
  end
  return yh, yl
end

-- asin x for |x| <= 1: Newton on sin y = x.
local function dd_asin(x)
  if x == 1 then return PI2_H, PI2_L end
  if x == -1 then return -PI2_H, -PI2_L end
  local yh, yl = math.asin(x), 0.0
  for _ = 1, 2 do
    local sh, sl, ch, cl = dd_sincos(yh, yl)
    local th, tl = dd_div(sh - x, sl, ch, cl)
    yh, yl = dd_sub(yh, yl, th, tl)
  end
  return yh, yl
end

-- cbrt x: Newton on y^3 = x.
local function dd_cbrt(x)
  if x == 0 or not isfinite(x) then return x, 0.0 end
  local yh, yl = (abs(x) ^ (1 / 3)), 0.0
  if x < 0 then yh = -yh end
  for _ = 1, 2 do
    local qh, ql = dd_mul(yh, yl, yh, yl)
    local ch, cl = dd_mul(qh, ql, yh, yl)
    local nh, nl = dd_sub(ch, cl, x, 0.0)
    local th, tl = dd_div(nh, nl, dd_mul_d(qh, ql, 3.0))
    yh, yl = dd_sub(yh, yl, th, tl)
  end
  return yh, yl
end

-- ---------------------------------------------------------------- exact values of the math

-- The exact value of each float-only transcendental ufunc (to ~100 bits) at double inputs,
-- as a dd (hi, lo).  Inputs are finite and inside the function's domain; the specs check
-- special values (NaN, infinities, zeros, poles) separately, exactly.
local EXACT = {}
EXACT.exp = function(x) return dd_exp(x, 0.0) end
EXACT.exp2 = function(x) return dd_exp(dd_mul_d(LN2_H, LN2_L, x)) end
EXACT.expm1 = function(x) return dd_expm1(x, 0.0) end
EXACT.log = function(x) return dd_log(x, 0.0) end
EXACT.log2 = function(x)
  local h, l = dd_log(x, 0.0)
  return dd_div(h, l, LN2_H, LN2_L)
end
EXACT.log10 = function(x)
  local h, l = dd_log(x, 0.0)
  return dd_div(h, l, LN10_H, LN10_L)
end
EXACT.log1p = function(x) return dd_log(two_sum(1.0, x)) end
EXACT.cbrt = dd_cbrt
EXACT.sin = function(x) local s, sl = dd_sincos(x, 0.0); return s, sl end
EXACT.cos = function(x) local _, _, c, cl = dd_sincos(x, 0.0); return c, cl end
EXACT.tan = function(x)
  local s, sl, c, cl = dd_sincos(x, 0.0)
  return dd_div(s, sl, c, cl)
end
EXACT.arcsin = dd_asin
EXACT.arccos = function(x) return dd_sub(PI2_H, PI2_L, dd_asin(x)) end
EXACT.arctan = function(x) return dd_atan(x, 0.0) end
EXACT.sinh = function(x)
  local eh, el = dd_expm1(abs(x), 0.0) -- (e - 1/e)/2 = (m + m/(m+1))/2 with m = e^|x| - 1
  local qh, ql = dd_div(eh, el, dd_add(eh, el, 1.0, 0.0))
  local sh, sl = dd_add(eh, el, qh, ql)
  if x < 0 then return -sh / 2, -sl / 2 end
  return sh / 2, sl / 2
end
EXACT.cosh = function(x)
  local eh, el = dd_exp(x, 0.0)
  local ih, il = dd_div(1.0, 0.0, eh, el)
  local sh, sl = dd_add(eh, el, ih, il)
  return sh / 2, sl / 2
end
EXACT.tanh = function(x)
  local mh, ml = dd_expm1(2 * x, 0.0) -- (e^2x - 1)/(e^2x + 1)
  return dd_div(mh, ml, dd_add(mh, ml, 2.0, 0.0))
end
EXACT.arcsinh = function(x)
  local a = abs(x)
  local qh, ql = two_prod(a, a)
  local rh, rl = dd_sqrt(dd_add(qh, ql, 1.0, 0.0))
  -- ln(a + sqrt(a^2+1)) = log1p(a + a^2/(1 + sqrt(a^2+1))), no cancellation for small a
  local th, tl = dd_div(qh, ql, dd_add(rh, rl, 1.0, 0.0))
  th, tl = dd_add(th, tl, a, 0.0)
  local yh, yl = dd_log(dd_add(1.0, 0.0, th, tl))
  if x < 0 then return -yh, -yl end
  return yh, yl
end
EXACT.arccosh = function(x)
  local qh, ql = two_prod(x, x)
  local rh, rl = dd_sqrt(dd_sub(qh, ql, 1.0, 0.0))
  return dd_log(dd_add(rh, rl, x, 0.0))
end
EXACT.arctanh = function(x)
  local nh, nl = two_sum(1.0, x)
  local mh, ml = two_sum(1.0, -x)
  local yh, yl = dd_log(dd_div(nh, nl, mh, ml))
  return yh / 2, yl / 2
end
EXACT.arctan2 = function(y, x)
  if y == 0 and x > 0 then return copysign(0.0, y), 0.0 end
  if abs(y) <= abs(x) then
    local th, tl = dd_atan(dd_div(y, 0.0, x, 0.0))
    if x < 0 then
      if signbit(y) then return dd_sub(th, tl, PI_H, PI_L) end
      return dd_add(th, tl, PI_H, PI_L)
    end
    return th, tl
  end
  local th, tl = dd_atan(dd_div(x, 0.0, y, 0.0))
  if y > 0 then return dd_sub(PI2_H, PI2_L, th, tl) end
  return dd_sub(-PI2_H, -PI2_L, th, tl)
end
EXACT.hypot = function(a, b)
  local ph, pl = two_prod(a, a)
  local qh, ql = two_prod(b, b)
  return dd_sqrt(dd_add(ph, pl, qh, ql))
end
EXACT.power = function(a, b)
  if a == 0 then
    if b == 0 then return 1.0, 0.0 end
    return b > 0 and 0.0 or huge, 0.0
  end
  local lh, ll = dd_log(abs(a), 0.0)
  local yh, yl = dd_exp(dd_mul_d(lh, ll, b))
  if a < 0 and b % 2 == 1 then return -yh, -yl end
  return yh, yl
end
R.EXACT = EXACT

-- Memoised: the specs ask for the same inputs on every backend and float dtype.
local memo = {}
function R.exact(name, a, b)
  local t = memo[name]
  if not t then
    t = {}
    memo[name] = t
  end
  local key = b == nil and a or pack("<dd", a, b)
  local v = t[key]
  if v then return v[1], v[2] end
  local h, l = EXACT[name](a, b)
  t[key] = { h, l }
  return h, l
end

-- |got - (h + l)| in ulps of dtype dt, measured with the ulp of the larger of the two in
-- magnitude (so a correctly rounded result just across a power of two counts as <= 0.5).
function R.ulp_error(got, h, l, dt)
  local d = (got - h) - l
  local u = ulp(abs(got) > abs(h) and got or h, dt)
  return abs(d) / u
end

-- The most ulps each dtype may be off the exact value (not the correctly rounded one), per
-- function: 2 ulp, or the bound documented for CUDA's (CUDA C++ Programming Guide, "Mathematical
-- Functions" appendix: the maximum ulp error against the correctly rounded result, with the
-- default -prec-div/-prec-sqrt/-ftz=false that cuarr compiles with) or glibc's libm (the host
-- backend; the GNU C Library manual, "Known Maximum Errors in Math Functions", x86_64) where
-- that is larger; plus 1/2 ulp, the rounding of the correctly rounded result itself.
-- float16 computes in float32 and rounds once (a few float32 ulps are ~1/2000 of a float16
-- ulp), so its results are within 1/2 ulp + epsilon of the exact value: 1 ulp is allowed.
local TOL = {
  --           float32 float64
  exp = { 2, 2 }, exp2 = { 2, 2 }, expm1 = { 2, 2 },
  log = { 2, 2 }, log2 = { 2, 2 }, log10 = { 2, 2 }, log1p = { 2, 2 },
  cbrt = { 2, 4 },     -- glibc's double cbrt: 4 ulp
  sin = { 2, 2 }, cos = { 2, 2 },
  tan = { 4, 2 },      -- CUDA's tanf: 4 ulp
  arcsin = { 4, 2 },   -- asinf: 4 ulp in the older CUDA guides (2 in recent ones)
  arccos = { 3, 2 },   -- acosf: 3 ulp in the older CUDA guides (2 in recent ones)
  arctan = { 2, 2 },
  arctan2 = { 3, 2 },  -- CUDA's atan2f: 3 ulp
  sinh = { 3, 2 },     -- CUDA's sinhf: 3 ulp
  cosh = { 2, 2 }, tanh = { 2, 2 },
  arcsinh = { 3, 3 },  -- CUDA's asinhf and asinh: 3 ulp
  arccosh = { 4, 3 },  -- CUDA's acoshf: 4 ulp, acosh: 3 ulp
  arctanh = { 3, 2 },  -- CUDA's atanhf: 3 ulp
  power = { 4, 2 },    -- CUDA's powf: 4 ulp
  hypot = { 3, 2 },    -- CUDA's hypotf: 3 ulp
}
R.TOL = TOL
function R.tolerance(name, dt)
  if dt == "float16" then return 1.0 end
  local t = TOL[name]
  return (dt == "float32" and t[1] or t[2]) + 0.5
end

-- ---------------------------------------------------------------- the ufuncs, element by element

-- Truthiness as NumPy's logical ufuncs and where see it (NaN is true, -0 false).
local function truth(v)
  if type(v) == "boolean" then return v end
  return v ~= 0
end
R.truth = truth

local INT = {} -- name -> function(dt, a, b, c) on Lua integers of dtype dt
local FLT = {} -- name -> function(dt, rnd, a, b, c) on Lua floats; rnd rounds to the compute dtype
local BOOL = {} -- name -> function(a, b, c) on Lua booleans

INT.add = function(dt, a, b) return wrap(a + b, dt) end
INT.subtract = function(dt, a, b) return wrap(a - b, dt) end
INT.multiply = function(dt, a, b) return wrap(a * b, dt) end
INT.floor_divide = function(dt, a, b)
  if b == 0 then return 0 end
  if SIGNED[dt] then
    if b == -1 then return wrap(-a, dt) end
    return a // b
  end
  if dt == "uint64" then return udiv(a, b) end
  return a // b
end
INT.remainder = function(dt, a, b)
  if b == 0 then return 0 end
  if SIGNED[dt] then
    if b == -1 then return 0 end
    return a % b
  end
  if dt == "uint64" then return urem(a, b) end
  return a % b
end
local function ipow(dt, a, e) -- e: the exponent's 64 bits, read as unsigned
  local r, x = 1, a
  while e ~= 0 do
    if e & 1 == 1 then r = r * x end
    x = x * x
    e = e >> 1
  end
  return wrap(r, dt)
end
INT.power = function(dt, a, b)
  if SIGNED[dt] and b < 0 then
    if a == 1 then return 1 end
    if a == -1 then return (b & 1 == 1) and -1 or 1 end
    return 0
  end
  return ipow(dt, a, b)
end
INT.negative = function(dt, a) return wrap(-a, dt) end
INT.positive = function(_, a) return a end
INT.absolute = function(dt, a)
  if SIGNED[dt] and a < 0 then return wrap(-a, dt) end
  return a
end
INT.sign = function(dt, a)
  if SIGNED[dt] then return a > 0 and 1 or a < 0 and -1 or 0 end
  return a ~= 0 and 1 or 0
end
INT.square = function(dt, a) return wrap(a * a, dt) end
INT.reciprocal = function(dt, a)
  if a == 1 then return 1 end
  if SIGNED[dt] and a == -1 then return -1 end
  return 0
end
INT.equal = function(_, a, b) return a == b end
INT.not_equal = function(_, a, b) return a ~= b end
INT.less = function(dt, a, b) return lt(a, b, dt) end
INT.less_equal = function(dt, a, b) return not lt(b, a, dt) end
INT.greater = function(dt, a, b) return lt(b, a, dt) end
INT.greater_equal = function(dt, a, b) return not lt(a, b, dt) end
INT.bitwise_and = function(_, a, b) return a & b end
INT.bitwise_or = function(_, a, b) return a | b end
INT.bitwise_xor = function(_, a, b) return a ~ b end
INT.invert = function(dt, a) return wrap(~a, dt) end
INT.left_shift = function(dt, a, b)
  local n = BITS[dt]
  if SIGNED[dt] and b < 0 then return 0 end
  if not ult(b, n) then return 0 end
  return wrap(a << b, dt)
end
INT.right_shift = function(dt, a, b)
  local n = BITS[dt]
  local in_range = ult(b, n) and not (SIGNED[dt] and b < 0)
  if not SIGNED[dt] then return in_range and (a >> b) or 0 end
  if in_range then return a < 0 and ~((~a) >> b) or a >> b end
  return a < 0 and -1 or 0
end
INT.maximum = function(dt, a, b) return lt(b, a, dt) and a or b end
INT.minimum = function(dt, a, b) return lt(a, b, dt) and a or b end
INT.fmax, INT.fmin = INT.maximum, INT.minimum
INT.clip = function(dt, x, lo, hi)
  local t = lt(lo, x, dt) and x or lo
  return lt(t, hi, dt) and t or hi
end
INT.floor = function(_, a) return a end
INT.ceil, INT.trunc = INT.floor, INT.floor
INT.isnan = function() return false end
INT.isinf = function() return false end
INT.isfinite = function() return true end

BOOL.add = function(a, b) return a or b end
BOOL.multiply = function(a, b) return a and b end
BOOL.maximum, BOOL.fmax = BOOL.add, BOOL.add
BOOL.minimum, BOOL.fmin = BOOL.multiply, BOOL.multiply
BOOL.clip = function(x, lo, hi) return (x or lo) and hi end
BOOL.absolute = function(a) return a end
BOOL.bitwise_and, BOOL.bitwise_or = BOOL.multiply, BOOL.add
BOOL.bitwise_xor = function(a, b) return a ~= b end
BOOL.invert = function(a) return not a end
BOOL.equal = function(a, b) return a == b end
BOOL.not_equal = function(a, b) return a ~= b end
BOOL.less = function(a, b) return not a and b end
BOOL.less_equal = function(a, b) return not a or b end
BOOL.greater = function(a, b) return a and not b end
BOOL.greater_equal = function(a, b) return a or not b end
BOOL.floor = BOOL.absolute
BOOL.ceil, BOOL.trunc = BOOL.absolute, BOOL.absolute
BOOL.isnan = function() return false end
BOOL.isinf = function() return false end
BOOL.isfinite = function() return true end
BOOL.logical_and = function(a, b) return a and b end
BOOL.logical_or = function(a, b) return a or b end
BOOL.logical_xor = function(a, b) return a ~= b end
BOOL.logical_not = function(a) return not a end

FLT.add = function(_, r, a, b) return r(a + b) end
FLT.subtract = function(_, r, a, b) return r(a - b) end
FLT.multiply = function(_, r, a, b) return r(a * b) end
FLT.divide = function(_, r, a, b) return r(a / b) end
-- NumPy's npy_divmod, each operation rounded to the compute dtype as the C code does.
FLT.floor_divide = function(_, r, a, b)
  if b == 0 then return r(a / b) end
  local mod = fmod(a, b)
  local div = r(r(a - mod) / b)
  if mod ~= 0 and ((b < 0) ~= (mod < 0)) then div = r(div - 1) end
  if div ~= 0 then
    local fl = ffloor(div)
    if r(div - fl) > 0.5 then fl = r(fl + 1) end
    return fl
  end
  return copysign(0.0, r(a / b))
end
FLT.remainder = function(_, r, a, b)
  local mod = fmod(a, b)
  if b == 0 then return mod end
  if mod ~= 0 then
    if (b < 0) ~= (mod < 0) then return r(mod + b) end
    return mod
  end
  return copysign(0.0, b)
end
FLT.negative = function(_, _, a) return -a end
FLT.positive = function(_, _, a) return a end
FLT.absolute = function(_, _, a) return abs(a) end
FLT.sign = function(_, _, a)
  if a > 0 then return 1.0 end
  if a < 0 then return -1.0 end
  if a == 0 then return 0.0 end
  return a
end
FLT.square = function(_, r, a) return r(a * a) end
FLT.reciprocal = function(_, r, a) return r(1 / a) end
FLT.sqrt = function(_, r, a) return r(sqrt(a)) end
FLT.floor = function(_, _, a) return ffloor(a) end
FLT.ceil = function(_, _, a) return fceil(a) end
FLT.trunc = function(_, _, a) return ftrunc(a) end
FLT.rint = function(_, _, a) return frint(a) end
FLT.copysign = function(_, _, a, b) return copysign(a, b) end
FLT.maximum = function(_, _, a, b) if a > b or a ~= a then return a end return b end
FLT.minimum = function(_, _, a, b) if a < b or a ~= a then return a end return b end
FLT.fmax = function(_, _, a, b) if a >= b or b ~= b then return a end return b end
FLT.fmin = function(_, _, a, b) if a <= b or b ~= b then return a end return b end
FLT.clip = function(_, _, x, lo, hi)
  local t
  if x ~= x then t = x elseif x > lo then t = x else t = lo end
  if t ~= t then return t end
  if t < hi then return t end
  return hi
end
FLT.isnan = function(_, _, a) return a ~= a end
FLT.isinf = function(_, _, a) return a == huge or a == -huge end
FLT.isfinite = function(_, _, a) return isfinite(a) end
FLT.equal = function(_, _, a, b) return a == b end
FLT.not_equal = function(_, _, a, b) return a ~= b end
FLT.less = function(_, _, a, b) return a < b end
FLT.less_equal = function(_, _, a, b) return a <= b end
FLT.greater = function(_, _, a, b) return a > b end
FLT.greater_equal = function(_, _, a, b) return a >= b end

-- The exact result of ufunc `name` on loop dtype dt for the inputs (Lua values of dt), as
-- cuarr stores it; nil for the approximate (transcendental) functions, see R.exact.
function R.expected(name, dt, a, b, c)
  if name == "where" then
    if truth(a) then return b end
    return c
  end
  if name:sub(1, 8) == "logical_" then return BOOL[name](truth(a), b ~= nil and truth(b)) end
  if dt == "bool" then return BOOL[name](a, b, c) end
  if BITS[dt] then return INT[name](dt, a, b, c) end
  local f = FLT[name]
  if not f then return nil end
  local v = f(dt, compute_round(dt), a, b, c)
  if dt == "float16" and type(v) == "number" then return f16(v) end
  return v
end

function R.is_exact(name) return EXACT[name] == nil end

-- ---------------------------------------------------------------- which ufuncs, which dtypes

-- cuarr's ufuncs, their arity and the dtypes of their loops (src/core/ufunc/ufunc.h): ALL,
-- NUM (no bool), BIT (bool and integers), INT, FLT, LOG (bool only); out: the result's dtype
-- is the loop's, or bool.
local SETS = {
  ALL = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64" },
  NUM = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64" },
  BIT = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" },
  INT = { "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64" },
  FLT = { "float16", "float32", "float64" },
  LOG = { "bool" },
}
R.SETS = SETS
R.UFUNCS = {
  { "add", 2, "ALL" }, { "subtract", 2, "NUM" }, { "multiply", 2, "ALL" }, { "divide", 2, "FLT" },
  { "floor_divide", 2, "NUM" }, { "remainder", 2, "NUM" }, { "power", 2, "NUM" },
  { "negative", 1, "NUM" }, { "positive", 1, "NUM" }, { "absolute", 1, "ALL" },
  { "sign", 1, "NUM" },
  { "equal", 2, "ALL", "bool" }, { "not_equal", 2, "ALL", "bool" }, { "less", 2, "ALL", "bool" },
  { "less_equal", 2, "ALL", "bool" }, { "greater", 2, "ALL", "bool" },
  { "greater_equal", 2, "ALL", "bool" },
  { "logical_and", 2, "LOG", "bool" }, { "logical_or", 2, "LOG", "bool" },
  { "logical_xor", 2, "LOG", "bool" }, { "logical_not", 1, "LOG", "bool" },
  { "bitwise_and", 2, "BIT" }, { "bitwise_or", 2, "BIT" }, { "bitwise_xor", 2, "BIT" },
  { "invert", 1, "BIT" }, { "left_shift", 2, "INT" }, { "right_shift", 2, "INT" },
  { "exp", 1, "FLT" }, { "exp2", 1, "FLT" }, { "expm1", 1, "FLT" }, { "log", 1, "FLT" },
  { "log2", 1, "FLT" }, { "log10", 1, "FLT" }, { "log1p", 1, "FLT" }, { "sqrt", 1, "FLT" },
  { "cbrt", 1, "FLT" }, { "square", 1, "NUM" }, { "reciprocal", 1, "NUM" },
  { "sin", 1, "FLT" }, { "cos", 1, "FLT" }, { "tan", 1, "FLT" }, { "arcsin", 1, "FLT" },
  { "arccos", 1, "FLT" }, { "arctan", 1, "FLT" }, { "arctan2", 2, "FLT" }, { "sinh", 1, "FLT" },
  { "cosh", 1, "FLT" }, { "tanh", 1, "FLT" }, { "arcsinh", 1, "FLT" }, { "arccosh", 1, "FLT" },
  { "arctanh", 1, "FLT" }, { "floor", 1, "ALL" }, { "ceil", 1, "ALL" }, { "trunc", 1, "ALL" },
  { "rint", 1, "FLT" }, { "hypot", 2, "FLT" }, { "maximum", 2, "ALL" }, { "minimum", 2, "ALL" },
  { "fmax", 2, "ALL" }, { "fmin", 2, "ALL" }, { "copysign", 2, "FLT" },
  { "isnan", 1, "ALL", "bool" }, { "isinf", 1, "ALL", "bool" }, { "isfinite", 1, "ALL", "bool" },
  { "clip", 3, "ALL" }, { "where", 3, "ALL" },
}

-- ---------------------------------------------------------------- inputs

-- A seed from a string (FNV-1a), for H.rng: each case draws its own repeatable values.
function R.seed_of(s)
  local h = 2166136261
  for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0xffffffff end
  return h ~= 0 and h or 1
end

local function shuffle(rng, t)
  for i = #t, 2, -1 do
    local j = rng.int(1, i)
    t[i], t[j] = t[j], t[i]
  end
  return t
end
R.shuffle = shuffle

local function round_keep_zero(dt)
  if dt == "float16" then return f16z end
  return R.round_to(dt)
end
R.round_keep_zero = round_keep_zero

local NAN, INF = 0 / 0, huge

-- n random values of integer dtype dt; kind: "any" (the range's ends, small values, anything),
-- "divisor" (zeros and -1 among them), "exponent" (mostly 0..20), "shift" (amounts around the
-- width, negative ones for signed dtypes), "small".
function R.int_values(rng, dt, n, kind)
  local lo, hi = R.range(dt)
  local bits, signed = BITS[dt], SIGNED[dt]
  local function full()
    if bits == 64 then return (rng.int(0, 0xffffffff) << 32) | rng.int(0, 0xffffffff) end
    return rng.int(lo, hi)
  end
  local function small() return signed and rng.int(-9, 9) or rng.int(0, 12) end
  local out = {}
  if kind == "exponent" then
    out = { 0, 1, 2, 3, bits - 1, bits, bits + 1 }
    if signed then out[#out + 1], out[#out + 2], out[#out + 3] = -1, -2, -3 end
    while #out < n do out[#out + 1] = rng.int(1, 6) == 1 and full() or rng.int(0, 20) end
  elseif kind == "shift" then
    out = { 0, 1, bits - 1, bits, bits + 1, bits + 7 }
    if signed then out[#out + 1], out[#out + 2] = -1, lo end
    if bits == 64 then out[#out + 1] = -1 end -- uint64: 2^64 - 1
    while #out < n do out[#out + 1] = rng.int(1, 8) == 1 and full() or rng.int(0, bits + 2) end
  else
    out = { lo, hi, 0, 1, 2 }
    if signed then
      out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4] = -1, -2, lo + 1, hi - 1
    else
      out[#out + 1] = hi - 1
    end
    if bits == 64 then out[#out + 1], out[#out + 2] = mininteger, maxinteger end
    if kind == "divisor" then
      for _ = 1, 6 do out[#out + 1] = 0 end
      if signed then for _ = 1, 3 do out[#out + 1] = -1 end end
    end
    while #out < n do
      local r = rng.int(1, 3)
      out[#out + 1] = (r == 1 or kind == "small") and small() or full()
    end
  end
  while #out > n do out[#out] = nil end
  return shuffle(rng, out)
end

function R.bool_values(rng, n)
  local out = { true, false }
  while #out < n do out[#out + 1] = rng.int(0, 1) == 1 end
  return shuffle(rng, out)
end

-- n values of float dtype dt for the exactly rounded ufuncs: NaN, infinities, signed zeros,
-- halves (for the rounding functions), then random values, half of them exact in float16.
-- kind "divisor" adds zeros and infinities; "no_nan" leaves NaN out.
function R.float_values(rng, dt, n, kind)
  local rnd = round_keep_zero(dt)
  local out = { 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.0, -0.0, INF, -INF }
  if kind ~= "no_nan" then out[#out + 1] = NAN end
  if kind == "divisor" then
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4] = 0.0, -0.0, INF, 7.0
  end
  while #out < n do
    local m = (rng.float() - 0.5) * 2
    if rng.int(0, 1) == 0 then
      out[#out + 1] = f16z(m * 2.0 ^ rng.int(-6, 10))
    else
      out[#out + 1] = rnd(m * 2.0 ^ rng.int(-20, 24))
    end
  end
  while #out > n do out[#out] = nil end
  return shuffle(rng, out)
end

-- Domains of the transcendental ufuncs: a draw (a double) and the inputs allowed.
local function uniform(rng, lo, hi) return lo + (hi - lo) * rng.float() end
local function loguniform(rng, lo_exp, hi_exp)
  return 2.0 ^ uniform(rng, lo_exp, hi_exp)
end
local function signed_log(rng, lo_exp, hi_exp)
  local v = loguniform(rng, lo_exp, hi_exp)
  return rng.int(0, 1) == 0 and v or -v
end
local DOMAIN = {
  exp = function(g) return uniform(g, -10, 10) end,
  exp2 = function(g) return uniform(g, -14, 15) end,
  expm1 = function(g) return g.int(0, 3) == 0 and signed_log(g, -20, -1) or uniform(g, -8, 8) end,
  log = function(g) return loguniform(g, -14, 15.8) end,
  log1p = function(g)
    return g.int(0, 2) == 0 and uniform(g, -0.99, 1) or signed_log(g, -20, 15.8)
  end,
  cbrt = function(g) return signed_log(g, -14, 15.8) end,
  sin = function(g) return uniform(g, -100, 100) end,
  tan = function(g) return uniform(g, -100, 100) end,
  arcsin = function(g) return uniform(g, -1, 1) end,
  arctan = function(g) return signed_log(g, -14, 15.8) end,
  sinh = function(g) return g.int(0, 3) == 0 and signed_log(g, -20, -1) or uniform(g, -10, 10) end,
  tanh = function(g) return g.int(0, 3) == 0 and signed_log(g, -20, -1) or uniform(g, -9, 9) end,
  arcsinh = function(g) return signed_log(g, -14, 15.8) end,
  arccosh = function(g) return 1 + loguniform(g, -10, 15.8) end,
  arctanh = function(g) return uniform(g, -1, 1) end,
  arctan2 = function(g) return uniform(g, -100, 100), uniform(g, -100, 100) end,
  hypot = function(g) return uniform(g, -300, 300), uniform(g, -300, 300) end,
  power = function(g)
    local b = uniform(g, -4, 4)
    if g.int(0, 7) == 0 then return -loguniform(g, -3, 3), floor(b) + 0.0 end
    return loguniform(g, -3, 3), b
  end,
}
DOMAIN.log2, DOMAIN.log10 = DOMAIN.log, DOMAIN.log
DOMAIN.cos = DOMAIN.sin
DOMAIN.arccos = DOMAIN.arcsin
DOMAIN.cosh = DOMAIN.sinh
local INSIDE = {
  log = function(x) return x > 0 and x < 65504 end,
  log1p = function(x) return x > -1 and x < 65504 end,
  arcsin = function(x) return x >= -1 and x <= 1 end,
  arctanh = function(x) return x > -1 and x < 1 end,
  arccosh = function(x) return x >= 1 and x < 65504 end,
  arctan2 = function(y, x) return y ~= 0 or x ~= 0 end,
  power = function(a, b) return a ~= 0 and (a > 0 or b == floor(b)) end,
}
INSIDE.log2, INSIDE.log10, INSIDE.arccos = INSIDE.log, INSIDE.log, INSIDE.arcsin
local function always() return true end

-- n inputs (one list, or two for binary functions) of transcendental ufunc `name` in float
-- dtype dt: half of them exact in float16, the rest rounded to dt.
function R.math_values(rng, name, dt, n)
  local draw, inside = DOMAIN[name], INSIDE[name] or always
  local rnd = round_keep_zero(dt)
  local a, b = {}, {}
  while #a < n do
    local r = #a % 2 == 0 and f16z or rnd
    local x, y = draw(rng)
    x = r(x)
    if y then y = r(y) end
    if (y and inside(x, y)) or (not y and inside(x)) then
      a[#a + 1] = x
      b[#b + 1] = y
    end
  end
  return a, (#b > 0) and b or nil
end

-- Special inputs of the transcendental ufuncs with their exact results (every float dtype):
-- {input, expected} or {input1, input2, expected}.  Signed zeros are compared with their sign.
R.MATH_SPECIALS = {
  exp = { { NAN, NAN }, { INF, INF }, { -INF, 0.0 }, { 0.0, 1.0 }, { -0.0, 1.0 } },
  exp2 = { { NAN, NAN }, { INF, INF }, { -INF, 0.0 }, { 0.0, 1.0 }, { -0.0, 1.0 } },
  expm1 = { { NAN, NAN }, { INF, INF }, { -INF, -1.0 }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  log = { { NAN, NAN }, { INF, INF }, { 0.0, -INF }, { -0.0, -INF }, { -1.0, NAN }, { 1.0, 0.0 },
          { -INF, NAN } },
  log1p = { { NAN, NAN }, { INF, INF }, { -1.0, -INF }, { -2.0, NAN }, { 0.0, 0.0 },
            { -0.0, -0.0 } },
  cbrt = { { NAN, NAN }, { INF, INF }, { -INF, -INF }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  sin = { { NAN, NAN }, { INF, NAN }, { -INF, NAN }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  cos = { { NAN, NAN }, { INF, NAN }, { -INF, NAN }, { 0.0, 1.0 }, { -0.0, 1.0 } },
  tan = { { NAN, NAN }, { INF, NAN }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  arcsin = { { NAN, NAN }, { 2.0, NAN }, { -2.0, NAN }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  arccos = { { NAN, NAN }, { 2.0, NAN }, { -2.0, NAN }, { 1.0, 0.0 } },
  arctan = { { NAN, NAN }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  sinh = { { NAN, NAN }, { INF, INF }, { -INF, -INF }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  cosh = { { NAN, NAN }, { INF, INF }, { -INF, INF }, { 0.0, 1.0 } },
  tanh = { { NAN, NAN }, { INF, 1.0 }, { -INF, -1.0 }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  arcsinh = { { NAN, NAN }, { INF, INF }, { -INF, -INF }, { 0.0, 0.0 }, { -0.0, -0.0 } },
  arccosh = { { NAN, NAN }, { INF, INF }, { 1.0, 0.0 }, { 0.5, NAN }, { -1.0, NAN } },
  arctanh = { { NAN, NAN }, { 1.0, INF }, { -1.0, -INF }, { 2.0, NAN }, { 0.0, 0.0 },
              { -0.0, -0.0 } },
  arctan2 = { { 0.0, 1.0, 0.0 }, { -0.0, 1.0, -0.0 }, { NAN, 1.0, NAN }, { 1.0, NAN, NAN } },
  hypot = { { INF, NAN, INF }, { NAN, -INF, INF }, { 0.0, 0.0, 0.0 }, { NAN, 1.0, NAN },
            { -INF, 1.0, INF } },
  power = { { 0.0, 0.0, 1.0 }, { NAN, 0.0, 1.0 }, { 1.0, NAN, 1.0 }, { 2.0, INF, INF },
            { 0.5, INF, 0.0 }, { 0.0, -1.0, INF }, { -2.0, 0.5, NAN }, { INF, -1.0, 0.0 },
            { -INF, 3.0, -INF }, { NAN, 1.0, NAN }, { 0.0, 2.0, 0.0 }, { -1.0, INF, 1.0 } },
}
R.MATH_SPECIALS.log2, R.MATH_SPECIALS.log10 = R.MATH_SPECIALS.log, R.MATH_SPECIALS.log

return R
