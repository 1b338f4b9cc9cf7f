/*
 * promote.c -- NumPy 2's type promotion (NEP 50) and its casting relations, by rule rather than
 * by table: the rules are short, and spec/c/test_ufunc_host.c checks them against the tables
 * NumPy 2 itself prints.
 */
#include "array/casting.h"

/* NumPy's kind order: a cast to a later kind (or within a kind) is 'same_kind'. */
enum { KIND_BOOL, KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT };

static int kind_of(cuarr_dtype d) {
  return cuarr_dtype_is_bool(d)       ? KIND_BOOL
         : cuarr_dtype_is_unsigned(d) ? KIND_UNSIGNED
         : cuarr_dtype_is_signed(d)   ? KIND_SIGNED
                                      : KIND_FLOAT;
}

static bool valid(cuarr_dtype d) { return (unsigned)d < CUARR_NDTYPES; }

bool cuarr_can_cast_safe(cuarr_dtype from, cuarr_dtype to) {
  if (from == to || from == CUARR_BOOL)
    return true;
  size_t fs = cuarr_dtype_size(from), ts = cuarr_dtype_size(to);
  switch (kind_of(to)) {
  case KIND_BOOL: return false;
  case KIND_UNSIGNED: return kind_of(from) == KIND_UNSIGNED && ts >= fs;
  case KIND_SIGNED:
    return (kind_of(from) == KIND_SIGNED && ts >= fs) ||
           (kind_of(from) == KIND_UNSIGNED && ts > fs);
  default: /* a float holds an integer when it is wider; 64-bit integers count as safe in
              float64 (NumPy's choice, though float64 holds only 53 bits) */
    if (kind_of(from) == KIND_FLOAT)
      return ts >= fs;
    return ts > fs || to == CUARR_FLOAT64;
  }
}

bool cuarr_can_cast_same_kind(cuarr_dtype from, cuarr_dtype to) {
  return cuarr_can_cast_safe(from, to) || kind_of(from) <= kind_of(to);
}

/* The smallest dtype both cast to safely (NumPy's promote_types). */
static cuarr_dtype promote_strong(cuarr_dtype a, cuarr_dtype b) {
  if (cuarr_can_cast_safe(a, b))
    return b;
  if (cuarr_can_cast_safe(b, a))
    return a;
  int ka = kind_of(a), kb = kind_of(b);
  if (ka == KIND_FLOAT || kb == KIND_FLOAT) {
    /* a float and an integer too wide for it: the narrowest float that holds the integer */
    cuarr_dtype f = ka == KIND_FLOAT ? a : b, i = ka == KIND_FLOAT ? b : a;
    for (cuarr_dtype d = f; d <= CUARR_FLOAT64; d++) {
      if (cuarr_can_cast_safe(i, d))
        return d;
    }
    return CUARR_FLOAT64;
  }
  /* signed and unsigned, the unsigned at least as wide: the signed type twice its width, and
   * float64 past 64 bits */
  cuarr_dtype u = ka == KIND_UNSIGNED ? a : b;
  switch (u) {
  case CUARR_UINT8: return CUARR_INT16;
  case CUARR_UINT16: return CUARR_INT32;
  case CUARR_UINT32: return CUARR_INT64;
  default: return CUARR_FLOAT64;
  }
}

/* A weak operand of kind `weak` beside a dtype `strong` (NEP 50). */
static cuarr_dtype promote_weak(cuarr_dtype strong, cuarr_dtype weak, cuarr_dtype weak_float) {
  switch (kind_of(weak)) {
  case KIND_BOOL: return strong; /* a weak bool gives way to anything */
  case KIND_UNSIGNED:
  case KIND_SIGNED: /* a weak integer takes an integer or float dtype; bool + 1 is int64 */
    return strong == CUARR_BOOL ? CUARR_INT64 : strong;
  default: /* a weak float takes a float dtype, else the default float */
    return kind_of(strong) == KIND_FLOAT ? strong : weak_float;
  }
}

/* Two weak operands: the higher kind's default dtype. */
static cuarr_dtype promote_both_weak(cuarr_dtype a, cuarr_dtype b, cuarr_dtype weak_float) {
  int k = kind_of(a) > kind_of(b) ? kind_of(a) : kind_of(b);
  return k == KIND_BOOL ? CUARR_BOOL : k == KIND_FLOAT ? weak_float : CUARR_INT64;
}

cuarr_status cuarr_promote(cuarr_dtype a, bool a_weak, cuarr_dtype b, bool b_weak,
                           cuarr_dtype weak_float_dtype, cuarr_dtype *out) {
  if (!valid(a) || !valid(b) || !valid(weak_float_dtype))
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_promote: invalid dtype");
  if (!cuarr_dtype_is_float(weak_float_dtype))
    return cuarr_fail(CUARR_VALUE_ERROR, "the default float dtype must be a float dtype, not %s",
                      cuarr_dtype_name(weak_float_dtype));
  if (a_weak && b_weak)
    *out = promote_both_weak(a, b, weak_float_dtype);
  else if (a_weak)
    *out = promote_weak(b, a, weak_float_dtype);
  else if (b_weak)
    *out = promote_weak(a, b, weak_float_dtype);
  else
    *out = promote_strong(a, b);
  return CUARR_OK;
}

/* The strong dtypes' result, all at once: promote_strong is not associative (uint8, int8 give
 * int16, which float16 cannot hold, where NumPy's result_type of the three is float16).  NumPy's
 * rule: the widest float among them, when there is one, promoted with each operand alone, then
 * those results together (all floats now, so in any order); integers alone fold pairwise, which
 * is associative among them. */
static cuarr_dtype result_strong(int n, const cuarr_dtype *dtypes, const bool *weak) {
  bool any_float = false;
  cuarr_dtype widest_float = CUARR_FLOAT16;
  for (int i = 0; i < n; i++) {
    if ((weak && weak[i]) || kind_of(dtypes[i]) != KIND_FLOAT)
      continue;
    widest_float = any_float ? promote_strong(widest_float, dtypes[i]) : dtypes[i];
    any_float = true;
  }
  bool first = true;
  cuarr_dtype result = CUARR_BOOL;
  for (int i = 0; i < n; i++) {
    if (weak && weak[i])
      continue;
    cuarr_dtype d = any_float ? promote_strong(widest_float, dtypes[i]) : dtypes[i];
    result = first ? d : promote_strong(result, d);
    first = false;
  }
  return result;
}

cuarr_status cuarr_result_type(int n, const cuarr_dtype *dtypes, const bool *weak,
                               cuarr_dtype weak_float_dtype, cuarr_dtype *out) {
  if (n < 1 || !dtypes || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "at least one array or dtype is required");
  if (!valid(weak_float_dtype) || !cuarr_dtype_is_float(weak_float_dtype))
    return cuarr_fail(CUARR_VALUE_ERROR, "the default float dtype must be a float dtype");
  bool any_strong = false;
  for (int i = 0; i < n; i++) {
    if (!valid(dtypes[i]))
      return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_result_type: invalid dtype");
    any_strong = any_strong || !(weak && weak[i]);
  }
  cuarr_dtype result = any_strong ? result_strong(n, dtypes, weak) : CUARR_BOOL;
  bool first_weak = !any_strong;
  for (int i = 0; weak && i < n; i++) {
    if (!weak[i])
      continue;
    if (first_weak)
      result = promote_both_weak(dtypes[i], dtypes[i], weak_float_dtype);
    else if (any_strong)
      result = promote_weak(result, dtypes[i], weak_float_dtype);
    else
      result = promote_both_weak(result, dtypes[i], weak_float_dtype);
    first_weak = false;
  }
  *out = result;
  return CUARR_OK;
}
