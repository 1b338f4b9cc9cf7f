/*
 * cast.h -- cuarr's casting rules as inline C functions.
 *
 * One definition of the rules, used by cuarr_scalar_store (array/dtype.c) and by the typed
 * conversion rows (array/cast_rows.c: host copies and the ufunc host loops), so a copy, a ufunc
 * and a scalar store can never disagree:
 *  - float -> integer saturates to the type's range, NaN becomes 0, negatives become 0 for
 *    unsigned types (the GPU kernels implement the same rules);
 *  - integer -> integer wraps (two's complement), as NumPy's casts do;
 *  - anything -> bool is x != 0 (NaN is true);
 *  - -> float16 rounds to nearest even directly from the double (no double rounding).
 *
 * Every dtype has a load type (how an element is read: signed types sign-extend) and a store
 * type (how it is written).  Integers are stored through unsigned types, so the wrapping
 * conversions are C's well-defined modulo conversions rather than implementation-defined ones.
 * Elements are accessed with memcpy, so unaligned host memory (wrapped by an embedder) is safe;
 * compilers turn the fixed-size memcpy into a plain load or store.
 */
#ifndef CUARR_HOST_CAST_H
#define CUARR_HOST_CAST_H

#include <stdint.h>
#include <string.h>

#include "cuarr.h"

/* X(A, name, ENUM, load type, store type, class): class B bool, I signed, U unsigned,
 * H float16, F float32/float64.  bool is spelled `boolean` (`bool` is a macro, and these names
 * pass through more than one macro).  Two identical lists, so that one can be expanded inside
 * the other to generate every (dst, src) pair. */
#define CUARR_DTYPE_LIST(X, A)                                                                     \
  X(A, boolean, CUARR_BOOL, uint8_t, uint8_t, B)                                                   \
  X(A, int8, CUARR_INT8, int8_t, uint8_t, I)                                                       \
  X(A, int16, CUARR_INT16, int16_t, uint16_t, I)                                                   \
  X(A, int32, CUARR_INT32, int32_t, uint32_t, I)                                                   \
  X(A, int64, CUARR_INT64, int64_t, uint64_t, I)                                                   \
  X(A, uint8, CUARR_UINT8, uint8_t, uint8_t, U)                                                    \
  X(A, uint16, CUARR_UINT16, uint16_t, uint16_t, U)                                                \
  X(A, uint32, CUARR_UINT32, uint32_t, uint32_t, U)                                                \
  X(A, uint64, CUARR_UINT64, uint64_t, uint64_t, U)                                                \
  X(A, float16, CUARR_FLOAT16, uint16_t, uint16_t, H)                                              \
  X(A, float32, CUARR_FLOAT32, float, float, F)                                                    \
  X(A, float64, CUARR_FLOAT64, double, double, F)
#define CUARR_DTYPE_LIST2(X, A)                                                                    \
  X(A, boolean, CUARR_BOOL, uint8_t, uint8_t, B)                                                   \
  X(A, int8, CUARR_INT8, int8_t, uint8_t, I)                                                       \
  X(A, int16, CUARR_INT16, int16_t, uint16_t, I)                                                   \
  X(A, int32, CUARR_INT32, int32_t, uint32_t, I)                                                   \
  X(A, int64, CUARR_INT64, int64_t, uint64_t, I)                                                   \
  X(A, uint8, CUARR_UINT8, uint8_t, uint8_t, U)                                                    \
  X(A, uint16, CUARR_UINT16, uint16_t, uint16_t, U)                                                \
  X(A, uint32, CUARR_UINT32, uint32_t, uint32_t, U)                                                \
  X(A, uint64, CUARR_UINT64, uint64_t, uint64_t, U)                                                \
  X(A, float16, CUARR_FLOAT16, uint16_t, uint16_t, H)                                              \
  X(A, float32, CUARR_FLOAT32, float, float, F)                                                    \
  X(A, float64, CUARR_FLOAT64, double, double, F)

/* ---- float16 */

/* IEEE binary16 from a double, round to nearest even, in one rounding (float32 -> half goes
 * through here too: float -> double is exact). */
static inline uint16_t cuarr_cast_double_to_half(double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
  int exp = (int)((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);
  if (exp == 0x7ff) { /* inf, or NaN made quiet keeping the top payload bits */
    return mant ? (uint16_t)(sign | 0x7e00 | (mant >> 42)) : (uint16_t)(sign | 0x7c00);
  }
  int e = exp - 1023;
  if (e > 15)
    return (uint16_t)(sign | 0x7c00);
  if (e >= -14) { /* normal half; a carry out of the mantissa correctly bumps the exponent,
                     up to 0x7c00 (inf) for values from 65520 on */
    uint64_t m = mant >> 42, rem = mant & ((UINT64_C(1) << 42) - 1), halfway = UINT64_C(1) << 41;
    uint16_t h = (uint16_t)(((unsigned)(e + 15) << 10) + m);
    if (rem > halfway || (rem == halfway && (m & 1)))
      h++;
    return (uint16_t)(sign | h);
  }
  if (exp == 0 || e < -25)
    return sign; /* below half of the smallest subnormal: +-0 */
  /* Subnormal half: the value in units of 2^-24 is (mant | 2^52) * 2^(e - 28). */
  uint64_t full = mant | (UINT64_C(1) << 52);
  int shift = 28 - e; /* 43..53 */
  uint64_t m = full >> shift, rem = full & ((UINT64_C(1) << shift) - 1);
  uint64_t halfway = UINT64_C(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (m & 1)))
    m++; /* may carry into the smallest normal */
  return (uint16_t)(sign | m);
}

static inline float cuarr_cast_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact in float */
    float f = (float)mant * 5.9604644775390625e-8f;
    memcpy(&bits, &f, sizeof bits);
    bits |= sign;
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* ---- dst <- int64 / uint64 / double: the rules, per destination type */

/* Up to 32 bits the type's bounds are exact doubles: clamping first and then truncating gives
 * the saturating result.  For 64 bits INT64_MAX is not a
 * double (it rounds to 2^63), so the comparisons are against 2^63 itself. */
#define CUARR_CAST_SIGNED(name, st, ct, MIN, MAX)                                                  \
  static inline st cuarr_cast_##name##_from_i64(int64_t x) { return (st)x; }                       \
  static inline st cuarr_cast_##name##_from_u64(uint64_t x) { return (st)x; }                      \
  static inline st cuarr_cast_##name##_from_f64(double f) {                                        \
    double c = f != f              ? 0.0                                                           \
               : f < (double)(MIN) ? (double)(MIN)                                                 \
               : f > (double)(MAX) ? (double)(MAX)                                                 \
                                   : f;                                                            \
    return (st)(ct)c; /* truncates toward zero, in range */                                        \
  }
CUARR_CAST_SIGNED(int8, uint8_t, int32_t, INT8_MIN, INT8_MAX)
CUARR_CAST_SIGNED(int16, uint16_t, int32_t, INT16_MIN, INT16_MAX)
CUARR_CAST_SIGNED(int32, uint32_t, int32_t, INT32_MIN, INT32_MAX)

static inline uint64_t cuarr_cast_int64_from_i64(int64_t x) { return (uint64_t)x; }
static inline uint64_t cuarr_cast_int64_from_u64(uint64_t x) { return x; }
static inline uint64_t cuarr_cast_int64_from_f64(double f) {
  if (f != f)
    return 0;
  if (f >= 9223372036854775808.0)
    return (uint64_t)INT64_MAX; /* 2^63 */
  if (f <= -9223372036854775808.0)
    return (uint64_t)INT64_MIN;
  return (uint64_t)(int64_t)f; /* in range: exact after truncation */
}

#define CUARR_CAST_UNSIGNED(name, st, ct, MAX)                                                     \
  static inline st cuarr_cast_##name##_from_i64(int64_t x) { return (st)x; }                       \
  static inline st cuarr_cast_##name##_from_u64(uint64_t x) { return (st)x; }                      \
  static inline st cuarr_cast_##name##_from_f64(double f) {                                        \
    double c = !(f > 0) ? 0.0 : f > (double)(MAX) ? (double)(MAX) : f; /* NaN, negatives: 0 */     \
    return (st)(ct)c;                                                                              \
  }
CUARR_CAST_UNSIGNED(uint8, uint8_t, int32_t, UINT8_MAX)
CUARR_CAST_UNSIGNED(uint16, uint16_t, int32_t, UINT16_MAX)
CUARR_CAST_UNSIGNED(uint32, uint32_t, int64_t, UINT32_MAX)

static inline uint64_t cuarr_cast_uint64_from_i64(int64_t x) { return (uint64_t)x; }
static inline uint64_t cuarr_cast_uint64_from_u64(uint64_t x) { return x; }
static inline uint64_t cuarr_cast_uint64_from_f64(double f) {
  if (!(f > 0))
    return 0; /* NaN, zero, negatives, -inf */
  if (f >= 18446744073709551616.0)
    return UINT64_MAX; /* 2^64 */
  return (uint64_t)f;
}

static inline uint8_t cuarr_cast_boolean_from_i64(int64_t x) { return x != 0; }
static inline uint8_t cuarr_cast_boolean_from_u64(uint64_t x) { return x != 0; }
static inline uint8_t cuarr_cast_boolean_from_f64(double f) { return f != 0; } /* NaN: true */

/* |x| > 2^53 may round on the way to double, but such values are infinite as halves anyway. */
static inline uint16_t cuarr_cast_float16_from_i64(int64_t x) {
  return cuarr_cast_double_to_half((double)x);
}
static inline uint16_t cuarr_cast_float16_from_u64(uint64_t x) {
  return cuarr_cast_double_to_half((double)x);
}
static inline uint16_t cuarr_cast_float16_from_f64(double f) {
  return cuarr_cast_double_to_half(f);
}

/* Straight from the integer: (float)(double)x could round twice. */
static inline float cuarr_cast_float32_from_i64(int64_t x) { return (float)x; }
static inline float cuarr_cast_float32_from_u64(uint64_t x) { return (float)x; }
static inline float cuarr_cast_float32_from_f64(double f) { return (float)f; }

static inline double cuarr_cast_float64_from_i64(int64_t x) { return (double)x; }
static inline double cuarr_cast_float64_from_u64(uint64_t x) { return (double)x; }
static inline double cuarr_cast_float64_from_f64(double f) { return f; }

/* ---- dst <- an element loaded from a source of class B, I, U, H or F */
#define CUARR_CAST_FROM_B(dst, x) cuarr_cast_##dst##_from_u64((x) != 0)
#define CUARR_CAST_FROM_I(dst, x) cuarr_cast_##dst##_from_i64(x)
#define CUARR_CAST_FROM_U(dst, x) cuarr_cast_##dst##_from_u64(x)
#define CUARR_CAST_FROM_H(dst, x) cuarr_cast_##dst##_from_f64((double)cuarr_cast_half_to_float(x))
#define CUARR_CAST_FROM_F(dst, x) cuarr_cast_##dst##_from_f64((double)(x))

/* ---- array/cast_rows.c: n elements converted with these rules, d stepping ds bytes and s
 * stepping ss bytes, by [dst][src] dtype (the host copies and the ufunc host loops) */
typedef void (*cuarr_cast_row_fn)(char *d, int64_t ds, const char *s, int64_t ss, int64_t n);
extern const cuarr_cast_row_fn cuarr_cast_rows[CUARR_NDTYPES][CUARR_NDTYPES];

#endif
