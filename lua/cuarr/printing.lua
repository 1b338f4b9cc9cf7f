-- cuarr.printing: repr() and str() of arrays, laid out exactly as NumPy 2 prints them with its
-- default print options (numpy/_core/arrayprint.py: precision 8, threshold 1000, edgeitems 3,
-- linewidth 75, floatmode 'maxprec', suppress False, legacy False).
--
-- Floats are printed with a port of NumPy's Dragon4 (numpy/_core/src/multiarray/dragon4.c):
-- the shortest digits that identify the value *in its own dtype* (so float32 0.1 prints 0.1),
-- cut at 8 digits, with NumPy's tie rules. Exact big-integer arithmetic is needed for that;
-- a small base-10^7 bignum below provides it.
--
-- Only this API of an array is used: a.shape, a.ndim, a.size, a.dtype, a:get(), h:totable() and
-- slicing a[{ {i, j}, {}, ... }]. Arrays over the threshold are never copied whole: only their
-- corners are sliced out (on the device when it is one) and fetched.

local PRECISION = 8
local THRESHOLD = 1000
local EDGEITEMS = 3
local LINEWIDTH = 75

local FLOAT_DTYPES = { float16 = true, float32 = true, float64 = true }

-- Dtypes whose repr needs no `dtype=` because the values imply it (NumPy's _typelessdata on a
-- 64-bit Linux: int_ is int64).
local IMPLIED_DTYPES = { int64 = true, float64 = true, bool = true }

-------------------------------------------------------------------------------------------------
-- Non-negative big integers: little-endian arrays of base-10^7 limbs, no high zero limbs (zero is
-- the empty table). Limb products stay far below 2^63, so plain Lua integers suffice.

local BASE = 10000000
local POW10_SMALL = { [0] = 1, 10, 100, 1000, 10000, 100000, 1000000 }

local function big(v)
  local t = {}
  while v > 0 do
    t[#t + 1] = v % BASE
    v = v // BASE
  end
  return t
end

local function big_mul_small(a, m)
  local r, carry = {}, 0
  for i = 1, #a do
    local p = a[i] * m + carry
    r[i] = p % BASE
    carry = p // BASE
  end
  while carry > 0 do
    r[#r + 1] = carry % BASE
    carry = carry // BASE
  end
  return r
end

local function big_mul_pow2(a, k)
  while k >= 20 do
    a = big_mul_small(a, 1 << 20)
    k = k - 20
  end
  if k > 0 then a = big_mul_small(a, 1 << k) end
  return a
end

local function big_mul_pow10(a, k)
  if #a == 0 then return a end
  local r, shift = {}, k // 7
  for i = 1, shift do r[i] = 0 end
  for i = 1, #a do r[shift + i] = a[i] end
  return big_mul_small(r, POW10_SMALL[k % 7])
end

local function big_cmp(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  for i = #a, 1, -1 do
    if a[i] ~= b[i] then return a[i] < b[i] and -1 or 1 end
  end
  return 0
end

local function big_add(a, b)
  local r, carry = {}, 0
  for i = 1, math.max(#a, #b) do
    local v = (a[i] or 0) + (b[i] or 0) + carry
    r[i] = v % BASE
    carry = v // BASE
  end
  if carry > 0 then r[#r + 1] = carry end
  return r
end

-- a - b, for a >= b.
local function big_sub(a, b)
  local r, borrow = {}, 0
  for i = 1, #a do
    local v = a[i] - (b[i] or 0) - borrow
    if v < 0 then
      v = v + BASE
      borrow = 1
    else
      borrow = 0
    end
    r[i] = v
  end
  while #r > 0 and r[#r] == 0 do r[#r] = nil end
  return r
end

-- Dragon4 only ever divides r < 10*s by s: the quotient is one decimal digit.
local function big_divmod_digit(r, s)
  local q = 0
  while big_cmp(r, s) >= 0 do
    r = big_sub(r, s)
    q = q + 1
  end
  return q, r
end

-------------------------------------------------------------------------------------------------
-- Dragon4 (Steele & White / Burger & Dybvig free-format printing), following NumPy's variant
-- step by step so that ties, margins and cut-offs come out the same.

local CUTOFF_TOTAL, CUTOFF_FRACTION = "total", "fraction"
local LOG10_2 = 0.30102999566398119521373889472449
-- NumPy's output buffer is 16384 characters; no float we print gets near it.
local BUFFER_DIGITS = 16000

-- Value = mant * 2^exp2. Returns the digit string and the base-10 exponent of its first digit.
-- cutoff_max: stop after this many digits (total or past the point; -1 none).
-- cutoff_min: print at least this many digits (-1 none).
local function dragon4(mant, exp2, mant_bit, unequal_margins, cutoff_mode, cutoff_max, cutoff_min)
  if mant == 0 then return "0", 0 end
  -- IEEE round-half-even: an even mantissa owns the boundaries of its rounding interval.
  local is_even = mant % 2 == 0

  -- value = r / s; the margins to the neighbouring floats are m_low / s and m_high / s
  -- (m_high twice m_low just above a power of two, where the float below is closer).
  local r, s, m_low
  local scale_shift = unequal_margins and 2 or 1
  if exp2 > 0 then
    r = big_mul_pow2(big(mant), exp2 + scale_shift)
    s = big(1 << scale_shift)
    m_low = big_mul_pow2(big(1), exp2)
  else
    r = big_mul_pow2(big(mant), scale_shift)
    s = big_mul_pow2(big(1), -exp2 + scale_shift)
    m_low = big(1)
  end
  local function high_margin()
    return unequal_margins and big_mul_small(m_low, 2) or m_low
  end

  -- Estimate floor(log10(v)) + 1 (NumPy's estimate: exact or one too low).
  local digit_exp = math.ceil((mant_bit + exp2) * LOG10_2 - 0.69)
  -- With a fraction cut-off, tiny values start at the cut-off digit and round there.
  if cutoff_max >= 0 and cutoff_mode == CUTOFF_FRACTION and digit_exp <= -cutoff_max then
    digit_exp = -cutoff_max + 1
  end
  if digit_exp > 0 then
    s = big_mul_pow10(s, digit_exp)
  elseif digit_exp < 0 then
    r = big_mul_pow10(r, -digit_exp)
    m_low = big_mul_pow10(m_low, -digit_exp)
  end
  if big_cmp(r, s) >= 0 then
    digit_exp = digit_exp + 1
  else
    r = big_mul_small(r, 10)
    m_low = big_mul_small(m_low, 10)
  end

  local cutoff_max_exp = digit_exp - BUFFER_DIGITS
  if cutoff_max >= 0 then
    local want = cutoff_mode == CUTOFF_TOTAL and digit_exp - cutoff_max or -cutoff_max
    if want > cutoff_max_exp then cutoff_max_exp = want end
  end
  local cutoff_min_exp = digit_exp
  if cutoff_min >= 0 then
    local want = cutoff_mode == CUTOFF_TOTAL and digit_exp - cutoff_min or -cutoff_min
    if want < cutoff_min_exp then cutoff_min_exp = want end
  end
  local print_exp = digit_exp - 1

  local digits = {}
  local digit, low, high
  while true do
    digit_exp = digit_exp - 1
    digit, r = big_divmod_digit(r, s)
    local c_low = big_cmp(r, m_low)
    local c_high = big_cmp(big_add(r, high_margin()), s)
    if is_even then
      low, high = c_low <= 0, c_high >= 0
    else
      low, high = c_low < 0, c_high > 0
    end
    -- Stop once the digits identify the value (and enough were printed) or at the cut-off.
    if ((low or high) and digit_exp <= cutoff_min_exp) or digit_exp == cutoff_max_exp then
      break
    end
    digits[#digits + 1] = digit
    r = big_mul_small(r, 10)
    m_low = big_mul_small(m_low, 10)
  end

  -- Round the last digit: towards the only legal side, else to nearest, ties to even.
  local round_down = low
  if low == high then
    local c = big_cmp(big_mul_small(r, 2), s)
    round_down = c < 0
    if c == 0 then round_down = digit % 2 == 0 end
  end
  if round_down then
    digits[#digits + 1] = digit
  elseif digit < 9 then
    digits[#digits + 1] = digit + 1
  else
    -- Carry through trailing nines (they are dropped), possibly into a new leading 1.
    while true do
      if #digits == 0 then
        digits[1] = 1
        print_exp = print_exp + 1
        break
      end
      local last = table.remove(digits)
      if last ~= 9 then
        digits[#digits + 1] = last + 1
        break
      end
    end
  end
  return table.concat(digits), print_exp
end

-------------------------------------------------------------------------------------------------
-- IEEE decomposition of float16/32/64 values (given as Lua floats holding exact dtype values).

-- Round a double to nearest-even integer (exact for the scaled values used below).
local function round_half_even(y)
  local f = math.floor(y)
  local d = y - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then f = f + 1 end
  return math.tointeger(f) or f
end

local function f64_bits(x)
  return (string.unpack("<i8", string.pack("<d", x)))
end

-- Bits of the float16 nearest to x (round half to even, overflow to inf), as NumPy casts.
local function f16_bits(x)
  if x ~= x then return 0x7e00 end
  local sign = (x < 0 or (x == 0 and 1 / x < 0)) and 0x8000 or 0
  local a = math.abs(x)
  -- 65520 is halfway between 65504 (the largest float16) and 2^16: it rounds to even, i.e. up.
  if a >= 65520 then return sign | 0x7c00 end
  if a < 2.0 ^ -14 then
    -- Subnormal: units of 2^-24. A round up to 1024 is the smallest normal, bits included.
    return sign | round_half_even(a * 2.0 ^ 24)
  end
  local e = ((f64_bits(a) >> 52) & 0x7ff) - 1023
  local m = round_half_even(a * 2.0 ^ (10 - e))
  if m == 2048 then
    m = 1024
    e = e + 1
  end
  return sign | ((e + 15) << 10) | (m - 1024)
end

local function f16_value(bits)
  local sign = (bits & 0x8000) ~= 0 and -1.0 or 1.0
  local e, m = (bits >> 10) & 0x1f, bits & 0x3ff
  if e == 0x1f then return m == 0 and sign * math.huge or 0.0 / 0.0 end
  if e == 0 then return sign * m * 2.0 ^ -24 end
  return sign * (1024 + m) * 2.0 ^ (e - 25)
end

-- Halfway between the largest float32 and 2^128: from here on a float32 rounds to inf (done by
-- hand, as C leaves the cast of an out-of-range double to float undefined).
local F32_OVERFLOW = (2 - 2.0 ^ -24) * 2.0 ^ 127

-- x rounded to the dtype, as NumPy does arithmetic on scalars of that dtype.
local function to_dtype(x, dtype)
  if dtype == "float32" then
    if math.abs(x) >= F32_OVERFLOW then return x > 0 and math.huge or -math.huge end
    return (string.unpack("<f", string.pack("<f", x)))
  end
  if dtype == "float16" then return f16_value(f16_bits(x)) end
  return x
end

local FLOAT_LAYOUT = {
  float16 = { mant_bits = 10, bias = 15, exp_max = 0x1f },
  float32 = { mant_bits = 23, bias = 127, exp_max = 0xff },
  float64 = { mant_bits = 52, bias = 1023, exp_max = 0x7ff },
}

local function float_fields(x, dtype)
  if dtype == "float64" then
    local b = f64_bits(x)
    return (b >> 63) ~= 0, (b >> 52) & 0x7ff, b & ((1 << 52) - 1)
  elseif dtype == "float32" then
    local b = string.unpack("<I4", string.pack("<f", x))
    return (b >> 31) ~= 0, (b >> 23) & 0xff, b & 0x7fffff
  end
  local b = f16_bits(x)
  return (b >> 15) ~= 0, (b >> 10) & 0x1f, b & 0x3ff
end

local function floor_log2(v)
  local n = 0
  while v > 1 do
    v = v >> 1
    n = n + 1
  end
  return n
end

-- Returns negative, special ("nan"/"inf"/nil), mantissa, exponent, mantissa bit, unequal margins.
local function decompose(x, dtype)
  local layout = FLOAT_LAYOUT[dtype]
  local neg, fexp, fmant = float_fields(x, dtype)
  if fexp == layout.exp_max then return neg, fmant == 0 and "inf" or "nan" end
  if fexp ~= 0 then
    return neg, nil, (1 << layout.mant_bits) | fmant, fexp - layout.bias - layout.mant_bits,
      layout.mant_bits, fexp ~= 1 and fmant == 0
  end
  return neg, nil, fmant, 1 - layout.bias - layout.mant_bits, floor_log2(fmant), false
end

-------------------------------------------------------------------------------------------------
-- NumPy's format_float_positional / format_float_scientific (unique digit mode, no forced sign).
-- Trim modes as in NumPy: 'k' keep, '.' trim zeros keep point, '0' leave one zero, '-' drop point.

local function special_string(neg, special)
  if special == "inf" and neg then return "-inf" end
  return special
end

-- The fraction of `body` (n_frac digits after its point) as trim mode `trim` wants it: '0' adds
-- a zero to a bare point, 'k' pads with zeros to wanted_frac digits; the other modes drop the
-- trailing zeros that rounding can leave, and then '0' keeps one and '-' drops a bare point
-- too, when drop_point (NumPy's positional format does; its scientific one keeps the point).
-- Returns the new body and digit count.
local function trim_fraction(body, n_frac, trim, wanted_frac, drop_point)
  if trim == "0" then
    if n_frac == 0 then body, n_frac = body .. "0", 1 end
  elseif trim == "k" and wanted_frac > n_frac then
    body = body .. string.rep("0", wanted_frac - n_frac)
    n_frac = wanted_frac
  end
  if trim ~= "k" and n_frac > 0 then
    while body:sub(-1) == "0" do
      body, n_frac = body:sub(1, -2), n_frac - 1
    end
    if body:sub(-1) == "." then
      if trim == "0" then
        body, n_frac = body .. "0", n_frac + 1
      elseif trim == "-" and drop_point then
        body = body:sub(1, -2)
      end
    end
  end
  return body, n_frac
end

-- Options: precision, min_digits, trim, pad_left, pad_right (-1 = none), fractional.
local function format_positional(x, dtype, o)
  local neg, special, mant, exp2, mant_bit, unequal = decompose(x, dtype)
  if special then return special_string(neg, special) end
  local trim = o.trim
  local cutoff_mode = o.fractional and CUTOFF_FRACTION or CUTOFF_TOTAL
  local digits, print_exp = dragon4(mant, exp2, mant_bit, unequal, cutoff_mode, o.precision,
    o.min_digits)
  local sign = neg and "-" or ""
  local body, n_whole, n_frac
  if print_exp >= 0 then
    n_whole = print_exp + 1
    if #digits <= n_whole then
      body, n_frac = digits .. string.rep("0", n_whole - #digits), 0
    else
      body = digits:sub(1, n_whole) .. "." .. digits:sub(n_whole + 1)
      n_frac = #digits - n_whole
    end
  else
    local zeros = -(print_exp + 1)
    body, n_whole, n_frac = "0." .. string.rep("0", zeros) .. digits, 1, zeros + #digits
  end
  if trim ~= "-" and n_frac == 0 then body = body .. "." end

  local wanted_frac = math.max(o.min_digits, 0)
  if cutoff_mode == CUTOFF_TOTAL then wanted_frac = o.min_digits - n_whole end
  body, n_frac = trim_fraction(body, n_frac, trim, wanted_frac, true)

  if o.pad_right >= n_frac then
    -- A dropped point still takes its column, so that points line up.
    if trim == "-" and n_frac == 0 then body = body .. " " end
    body = body .. string.rep(" ", o.pad_right - n_frac)
  end
  local left = #sign + n_whole
  return string.rep(" ", o.pad_left - left) .. sign .. body
end

-- Options: precision, min_digits, trim, pad_left, exp_digits (-1 = none).
local function format_scientific(x, dtype, o)
  local neg, special, mant, exp2, mant_bit, unequal = decompose(x, dtype)
  if special then return special_string(neg, special) end
  local trim = o.trim
  local sign = neg and "-" or ""
  local digits, print_exp = dragon4(mant, exp2, mant_bit, unequal, CUTOFF_TOTAL,
    o.precision < 0 and -1 or o.precision + 1, o.min_digits < 0 and -1 or o.min_digits + 1)
  local body = digits:sub(1, 1)
  local n_frac = #digits - 1
  if n_frac > 0 then body = body .. "." .. digits:sub(2) end
  if trim ~= "-" and n_frac == 0 then body = body .. "." end

  body = trim_fraction(body, n_frac, trim, math.max(o.min_digits, 0), false)

  local exp_digits = o.exp_digits < 0 and 2 or math.min(o.exp_digits, 5)
  local exp_sign = print_exp >= 0 and "+" or "-"
  local exp_str = tostring(math.abs(print_exp))
  exp_str = string.rep("0", exp_digits - #exp_str) .. exp_str
  return string.rep(" ", o.pad_left - (1 + #sign)) .. sign .. body .. "e" .. exp_sign .. exp_str
end

-------------------------------------------------------------------------------------------------
-- Element formatters: NumPy's FloatingFormat, IntegerFormat and BoolFormat. Each is built from
-- all values that will be shown (the corners when summarised) and returns a function value -> text.

local function is_finite(x)
  return x == x and x ~= math.huge and x ~= -math.huge
end

-- Exponential notation is chosen on the finite non-zero values, compared as NumPy does: in
-- the array's dtype (NEP 50 casts the Python constants to it), with the upper cut-off
-- 10^min(8, decimal digits of the dtype).
local EXP_CUTOFF = { float16 = 1e3, float32 = 1e6, float64 = 1e8 }

local function wants_exponential(finite, dtype)
  local max_val, min_val
  for _, x in ipairs(finite) do
    if x ~= 0 then
      local ax = math.abs(x)
      if not max_val or ax > max_val then max_val = ax end
      if not min_val or ax < min_val then min_val = ax end
    end
  end
  if not max_val then return false end
  local ratio = to_dtype(max_val / min_val, dtype)
  return max_val >= EXP_CUTOFF[dtype] or min_val < to_dtype(1e-4, dtype) or ratio > 1000
end

-- Splits "int.frac" (no exponent) into its two parts.
local function split_point(s)
  local int_part, frac_part = s:match("^([^.]*)%.?(.*)$")
  return int_part, frac_part
end

local function float_formatter(values, dtype)
  local finite, has_nonfinite, neg_inf = {}, false, false
  for _, x in ipairs(values) do
    if is_finite(x) then
      finite[#finite + 1] = x
    else
      has_nonfinite = true
      if x == -math.huge then neg_inf = true end
    end
  end

  local exp_format = wants_exponential(finite, dtype)
  local opts = { precision = PRECISION, min_digits = 0, trim = ".", pad_left = 0, pad_right = 0,
    exp_digits = -1, fractional = true }
  if #finite > 0 and exp_format then
    -- First pass: shortest digits of each value; then all share the longest fraction.
    local first = { precision = PRECISION, min_digits = -1, trim = ".", pad_left = -1,
      exp_digits = -1 }
    local max_int, max_frac, max_exp = 0, 0, 0
    for _, x in ipairs(finite) do
      local mantissa, exponent = format_scientific(x, dtype, first):match("^(.*)e(.*)$")
      local int_part, frac_part = split_point(mantissa)
      max_int = math.max(max_int, #int_part)
      max_frac = math.max(max_frac, #frac_part)
      max_exp = math.max(max_exp, #exponent)
    end
    opts.exp_digits = max_exp - 1
    opts.precision, opts.min_digits, opts.trim = max_frac, max_frac, "k"
    opts.pad_left = max_int
    -- Only used to right-align nan/inf to the full width.
    opts.pad_right = opts.exp_digits + 2 + max_frac
  elseif #finite > 0 then
    local first = { precision = PRECISION, min_digits = -1, trim = ".", pad_left = -1,
      pad_right = -1, fractional = true }
    for _, x in ipairs(finite) do
      local int_part, frac_part = split_point(format_positional(x, dtype, first))
      opts.pad_left = math.max(opts.pad_left, #int_part)
      opts.pad_right = math.max(opts.pad_right, #frac_part)
    end
  end
  if has_nonfinite then
    -- nan/inf are right-aligned in the column, which must be wide enough for them.
    local offset = opts.pad_right + 1
    opts.pad_left = math.max(opts.pad_left, 3 - offset, 3 + (neg_inf and 1 or 0) - offset)
  end

  return function(x)
    if not is_finite(x) then
      local text = x ~= x and "nan" or (x < 0 and "-inf" or "inf")
      return string.rep(" ", opts.pad_left + opts.pad_right + 1 - #text) .. text
    end
    if exp_format then return format_scientific(x, dtype, opts) end
    return format_positional(x, dtype, opts)
  end
end

-- Decimal text of an integer element. uint64 values at or above 2^63 do not fit a Lua integer:
-- they may come wrapped (negative) or as floats.
local function int_string(v, dtype)
  if math.type(v) == "float" then
    -- A double can only hold 2^64 as the rounding of a value near the uint64 maximum.
    if dtype == "uint64" and v >= 2.0 ^ 64 then return "18446744073709551615" end
    return string.format("%.0f", v)
  end
  if dtype == "uint64" and v < 0 then
    -- Unsigned division by 10 of the two's-complement bits.
    local q = (v >> 1) // 5
    return tostring(q) .. tostring(v - q * 10)
  end
  return tostring(v)
end

local function int_formatter(values, dtype)
  -- NumPy pads to the longer of str(max) and str(min): that is the longest text of any value.
  local width = 0
  for _, v in ipairs(values) do width = math.max(width, #int_string(v, dtype)) end
  return function(v)
    local text = int_string(v, dtype)
    return string.rep(" ", width - #text) .. text
  end
end

local function bool_formatter(is_0d)
  -- " True" lines up with "False" in arrays; a 0-d array has no column to line up.
  local true_text = is_0d and "True" or " True"
  return function(v) return v and true_text or "False" end
end

local function make_formatter(values, dtype, is_0d)
  if dtype == "bool" then return bool_formatter(is_0d) end
  if FLOAT_DTYPES[dtype] then return float_formatter(values, dtype) end
  return int_formatter(values, dtype)
end

-------------------------------------------------------------------------------------------------
-- Fetching the values to show.

-- Joins two nested tables along the given (1-based) axis.
local function concat_axis(left, right, axis)
  local out = {}
  if axis == 1 then
    for _, v in ipairs(left) do out[#out + 1] = v end
    for _, v in ipairs(right) do out[#out + 1] = v end
  else
    for i = 1, #left do out[i] = concat_axis(left[i], right[i], axis - 1) end
  end
  return out
end

-- NumPy's _leading_trailing: the first and last EDGEITEMS along every axis longer than
-- 2*EDGEITEMS, as nested tables. Each corner block is sliced out of `a` before get(), so a
-- device array only ever copies the corners. Also returns which axes are summarised.
local function gather_corners(a, shape, ndim)
  local summarised = {}
  for axis = 1, ndim do summarised[axis] = shape[axis] > 2 * EDGEITEMS end
  local ranges = {}
  local function block(axis)
    if axis > ndim then
      local index = {}
      for i = 1, ndim do index[i] = { table.unpack(ranges[i]) } end
      return a[index]:get():totable()
    end
    if not summarised[axis] then
      ranges[axis] = {}
      return block(axis + 1)
    end
    ranges[axis] = { 1, EDGEITEMS }
    local lead = block(axis + 1)
    ranges[axis] = { -EDGEITEMS, -1 }
    local trail = block(axis + 1)
    return concat_axis(lead, trail, axis)
  end
  return block(1), summarised
end

local function flatten(node, depth, ndim, out)
  if depth > ndim then
    out[#out + 1] = node
  else
    for _, child in ipairs(node) do flatten(child, depth + 1, ndim, out) end
  end
  return out
end

-------------------------------------------------------------------------------------------------
-- Layout: NumPy's _formatArray (legacy=False rules).

local function rstrip(s)
  return (s:gsub("%s+$", ""))
end

-- Appends word to the current line, wrapping first if it would pass line_width, unless the
-- line holds nothing yet (a wrap would not help).
local function extend_line(s, line, word, line_width, next_line_prefix)
  if #line + #word > line_width and #line > #next_line_prefix then
    s = s .. rstrip(line) .. "\n"
    line = next_line_prefix
  end
  return s, line .. word
end

-- Formats nested data (summarised axes hold EDGEITEMS leading then EDGEITEMS trailing entries).
local function format_array(data, ndim, summarised, fmt, line_width, next_line_prefix, separator)
  local sep_stripped = rstrip(separator)

  local function recurse(node, axis, hanging_indent, curr_width)
    if axis > ndim then return fmt(node) end
    local axes_left = ndim - axis + 1
    local next_indent = hanging_indent .. " "
    local next_width = curr_width - 1 -- room for the closing "]"
    local n = #node
    local show_summary = summarised[axis]
    local leading = show_summary and EDGEITEMS or 0
    local trailing = show_summary and EDGEITEMS or n
    local s = ""

    if axes_left == 1 then
      -- Last axis: elements on lines, wrapped at the width left before the separator/bracket.
      local elem_width = curr_width - math.max(#sep_stripped, 1)
      local line = hanging_indent
      for i = 1, leading do
        s, line = extend_line(s, line, recurse(node[i], axis + 1, next_indent, next_width),
          elem_width, hanging_indent)
        line = line .. separator
      end
      if show_summary then
        s, line = extend_line(s, line, "...", elem_width, hanging_indent)
        line = line .. separator
      end
      for i = trailing, 2, -1 do
        s, line = extend_line(s, line, recurse(node[n - i + 1], axis + 1, next_indent, next_width),
          elem_width, hanging_indent)
        line = line .. separator
      end
      s, line = extend_line(s, line, recurse(node[n], axis + 1, next_indent, next_width),
        elem_width, hanging_indent)
      s = s .. line
    else
      -- Outer axes: one sub-array per line, blank lines between blocks of higher axes.
      local line_sep = sep_stripped .. string.rep("\n", axes_left - 1)
      for i = 1, leading do
        s = s .. hanging_indent .. recurse(node[i], axis + 1, next_indent, next_width) .. line_sep
      end
      if show_summary then s = s .. hanging_indent .. "..." .. line_sep end
      for i = trailing, 2, -1 do
        s = s .. hanging_indent .. recurse(node[n - i + 1], axis + 1, next_indent, next_width)
          .. line_sep
      end
      s = s .. hanging_indent .. recurse(node[n], axis + 1, next_indent, next_width)
    end
    -- The first line's hanging indent is where the "[" goes.
    return "[" .. s:sub(#hanging_indent + 1) .. "]"
  end

  return recurse(data, 1, next_line_prefix, line_width)
end

-- NumPy's array2string for a non-empty array.
local function array2string(a, separator, prefix, line_width)
  local shape, ndim, dtype = a.shape, a.ndim, a.dtype
  if ndim == 0 then
    local value = a:get():totable()
    return make_formatter({ value }, dtype, true)(value)
  end
  local data, summarised
  if a.size > THRESHOLD then
    data, summarised = gather_corners(a, shape, ndim)
  else
    data, summarised = a:get():totable(), {}
  end
  local fmt = make_formatter(flatten(data, 1, ndim, {}), dtype, false)
  -- Continuation lines start under the first element: past "[" and the prefix.
  local next_line_prefix = " " .. string.rep(" ", #prefix)
  return format_array(data, ndim, summarised, fmt, line_width, next_line_prefix, separator)
end

-- Python's repr of a shape tuple: (), (5,), (2, 3).
local function shape_tuple(shape, ndim)
  local parts = {}
  for i = 1, ndim do parts[i] = tostring(shape[i]) end
  if ndim == 1 then return "(" .. parts[1] .. ",)" end
  return "(" .. table.concat(parts, ", ") .. ")"
end

local function repr(a)
  local shape, ndim, size, dtype = a.shape, a.ndim, a.size, a.dtype
  local prefix, suffix = "array(", ")"
  local body = size == 0 and "[]" or array2string(a, ", ", prefix, LINEWIDTH - #suffix)

  -- Shape and dtype are added when the text does not tell them.
  local extras = {}
  if (size == 0 and not (ndim == 1 and shape[1] == 0)) or size > THRESHOLD then
    extras[#extras + 1] = "shape=" .. shape_tuple(shape, ndim)
  end
  if not IMPLIED_DTYPES[dtype] or size == 0 then extras[#extras + 1] = "dtype=" .. dtype end
  if #extras == 0 then return prefix .. body .. suffix end

  local text = prefix .. body .. ","
  local extra_text = table.concat(extras, ", ") .. suffix
  local last_line = text:match("[^\n]*$")
  -- Extras go on their own line when they would push the last line past the width.
  local spacer = " "
  if #last_line + #extra_text + 1 > LINEWIDTH then spacer = "\n" .. string.rep(" ", #prefix) end
  return text .. spacer .. extra_text
end

-- str of a 0-d array: the str of the NumPy scalar.
local SCALAR_MAX_POSITIONAL = { float16 = 1e3, float32 = 1e6, float64 = 1e16 }

local function scalar_str(value, dtype)
  if dtype == "bool" then return value and "True" or "False" end
  if not FLOAT_DTYPES[dtype] then return int_string(value, dtype) end
  local ax = math.abs(value)
  if value ~= value or value == 0 or (ax < SCALAR_MAX_POSITIONAL[dtype] and ax >= 1e-4) then
    return format_positional(value, dtype, { precision = -1, min_digits = -1, trim = "0",
      pad_left = -1, pad_right = -1, fractional = false })
  end
  return format_scientific(value, dtype, { precision = -1, min_digits = -1, trim = "-",
    pad_left = -1, exp_digits = -1 })
end

local function str(a)
  if a.ndim == 0 then return scalar_str(a:get():totable(), a.dtype) end
  if a.size == 0 then return "[]" end
  return array2string(a, " ", "", LINEWIDTH)
end

-- A freed or closed array (how = "freed" or "closed"): <freed cuarr.ndarray float32 (2, 3)>.
local function dead(how, dtype, shape)
  return "<" .. how .. " cuarr.ndarray " .. dtype .. " " .. shape_tuple(shape, #shape) .. ">"
end

return { repr = repr, str = str, dead = dead }
