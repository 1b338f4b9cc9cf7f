/*
 * ufunc_math.cuh -- the scalar functions of the built-in ufuncs, one per (ufunc, dtype), written
 * once in the common subset of C11 and CUDA C++ so that the host loops and the device kernels
 * compute the same thing.
 *
 * The file is compiled twice:
 *  - into the host library, through src/core/ufunc/math.h (which includes array/cast.h and the C
 *    headers first), with CUARR_UF_FN = static inline and <math.h>'s functions;
 *  - pasted into NVRTC programs as the preamble of the ufunc kernels (tools/embed.sh embeds it as
 *    cuarr_kernel_source_ufunc_math_cuh), after common.cuh, with CUARR_UF_FN = a device inline
 *    function and CUDA's built-in math functions, which have the same names as C's.
 *
 * Names: cuarr_uf_<ufunc>_<dtype>, with cuarr's dtype names except that bool is spelled
 * `boolean` (bool is a macro in C, and these names pass through macros).  The argument and
 * result types are cuarr_uf_<dtype>: the same C types as generated kernels use for the dtypes
 * (cuarr_dtype_ctype), and on the host uint16_t bits for float16.
 *
 * Semantics are NumPy's, with cuarr's choices where NumPy raises or is undefined:
 *  - integer arithmetic wraps (two's complement), computed in unsigned types so that C has no
 *    undefined behaviour;
 *  - integer division, remainder and reciprocal by zero give 0; INT_MIN // -1 wraps to INT_MIN;
 *  - floor_divide and remainder follow Python (floor, remainder has the divisor's sign); the
 *    float versions are NumPy's npy_divmod (fmod, then a sign fix, then snapping the quotient);
 *  - integer power by a negative exponent gives 0, except for bases 1 and -1 (NumPy raises);
 *  - shifts by the width or more (or by a negative amount) give 0, or -1 for a right shift of
 *    a negative value, as NumPy's npy_lshift/npy_rshift;
 *  - maximum/minimum propagate NaN, fmax/fmin ignore it; clip(x, lo, hi) = min(max(x, lo), hi)
 *    with NaN propagating from x or the bounds (NumPy's _NPY_CLIP);
 *  - float16 is computed in float and rounded back to half once, as NumPy's half loops do.
 */
#ifndef CUARR_UFUNC_MATH_CUH
#define CUARR_UFUNC_MATH_CUH

#if defined(__CUDACC__)
#ifndef CUARR_COMMON_CUH
#error "ufunc_math.cuh needs common.cuh (__half_t and its conversions) before it"
#endif
#define CUARR_UF_FN static __device__ __forceinline__
typedef __half_t cuarr_uf_float16;
#define CUARR_UF_H2F(h) cuarr_half_to_float(h)
#define CUARR_UF_F2H(f) cuarr_float_to_half(f)
#else
#ifndef CUARR_HOST_CAST_H
#error "include src/core/ufunc/math.h, not ufunc_math.cuh, from C"
#endif
#define CUARR_UF_FN static inline
typedef uint16_t cuarr_uf_float16;
#define CUARR_UF_H2F(h) cuarr_cast_half_to_float(h)
/* float -> double is exact, so this rounds once, as the device's cvt.rn.f16.f32 does. */
#define CUARR_UF_F2H(f) cuarr_cast_double_to_half((double)(f))
#endif

typedef bool cuarr_uf_boolean;
typedef signed char cuarr_uf_int8;
typedef short cuarr_uf_int16;
typedef int cuarr_uf_int32;
typedef long long cuarr_uf_int64;
typedef unsigned char cuarr_uf_uint8;
typedef unsigned short cuarr_uf_uint16;
typedef unsigned int cuarr_uf_uint32;
typedef unsigned long long cuarr_uf_uint64;
typedef float cuarr_uf_float32;
typedef double cuarr_uf_float64;

/* ---------------------------------------------------------------- every dtype */

/* Comparisons and where: plain C on every type but float16 (defined with the half functions). */
#define CUARR_UF_COMPARE(dt, T)                                                                    \
  CUARR_UF_FN bool cuarr_uf_equal_##dt(T a, T b) { return a == b; }                                \
  CUARR_UF_FN bool cuarr_uf_not_equal_##dt(T a, T b) { return a != b; }                            \
  CUARR_UF_FN bool cuarr_uf_less_##dt(T a, T b) { return a < b; }                                  \
  CUARR_UF_FN bool cuarr_uf_less_equal_##dt(T a, T b) { return a <= b; }                           \
  CUARR_UF_FN bool cuarr_uf_greater_##dt(T a, T b) { return a > b; }                               \
  CUARR_UF_FN bool cuarr_uf_greater_equal_##dt(T a, T b) { return a >= b; }                        \
  CUARR_UF_FN T cuarr_uf_where_##dt(bool c, T x, T y) { return c ? x : y; }

/* What integers and bool share: no NaN, no infinity, and rounding changes nothing. */
#define CUARR_UF_EXACT(dt, T)                                                                      \
  CUARR_UF_FN bool cuarr_uf_isnan_##dt(T a) { return (void)a, false; }                             \
  CUARR_UF_FN bool cuarr_uf_isinf_##dt(T a) { return (void)a, false; }                             \
  CUARR_UF_FN bool cuarr_uf_isfinite_##dt(T a) { return (void)a, true; }                           \
  CUARR_UF_FN T cuarr_uf_floor_##dt(T a) { return a; }                                             \
  CUARR_UF_FN T cuarr_uf_ceil_##dt(T a) { return a; }                                              \
  CUARR_UF_FN T cuarr_uf_trunc_##dt(T a) { return a; }

/* ---------------------------------------------------------------- bool */

CUARR_UF_COMPARE(boolean, bool)
CUARR_UF_EXACT(boolean, bool)
/* NumPy's bool loops: + is or, * is and, max is or, min is and. */
CUARR_UF_FN bool cuarr_uf_add_boolean(bool a, bool b) { return a || b; }
CUARR_UF_FN bool cuarr_uf_multiply_boolean(bool a, bool b) { return a && b; }
CUARR_UF_FN bool cuarr_uf_maximum_boolean(bool a, bool b) { return a || b; }
CUARR_UF_FN bool cuarr_uf_minimum_boolean(bool a, bool b) { return a && b; }
CUARR_UF_FN bool cuarr_uf_fmax_boolean(bool a, bool b) { return a || b; }
CUARR_UF_FN bool cuarr_uf_fmin_boolean(bool a, bool b) { return a && b; }
CUARR_UF_FN bool cuarr_uf_clip_boolean(bool x, bool lo, bool hi) { return (x || lo) && hi; }
CUARR_UF_FN bool cuarr_uf_absolute_boolean(bool a) { return a; }
CUARR_UF_FN bool cuarr_uf_bitwise_and_boolean(bool a, bool b) { return a && b; }
CUARR_UF_FN bool cuarr_uf_bitwise_or_boolean(bool a, bool b) { return a || b; }
CUARR_UF_FN bool cuarr_uf_bitwise_xor_boolean(bool a, bool b) { return a != b; }
CUARR_UF_FN bool cuarr_uf_invert_boolean(bool a) { return !a; }
/* The logical ufuncs run on bool only: every input is converted to bool (x != 0, NaN is true)
 * on the way in, which is what NumPy's per-type logical loops compute. */
CUARR_UF_FN bool cuarr_uf_logical_and_boolean(bool a, bool b) { return a && b; }
CUARR_UF_FN bool cuarr_uf_logical_or_boolean(bool a, bool b) { return a || b; }
CUARR_UF_FN bool cuarr_uf_logical_xor_boolean(bool a, bool b) { return a != b; }
CUARR_UF_FN bool cuarr_uf_logical_not_boolean(bool a) { return !a; }

/* ---------------------------------------------------------------- integers */

/* T the type, U the unsigned type the arithmetic wraps in (at least as wide as int, so that
 * nothing is promoted to a signed int on the way), BITS the width. */
#define CUARR_UF_INTEGER(dt, T, U, BITS)                                                           \
  CUARR_UF_COMPARE(dt, T)                                                                          \
  CUARR_UF_EXACT(dt, T)                                                                            \
  CUARR_UF_FN T cuarr_uf_add_##dt(T a, T b) { return (T)((U)a + (U)b); }                           \
  CUARR_UF_FN T cuarr_uf_subtract_##dt(T a, T b) { return (T)((U)a - (U)b); }                      \
  CUARR_UF_FN T cuarr_uf_multiply_##dt(T a, T b) { return (T)((U)a * (U)b); }                      \
  CUARR_UF_FN T cuarr_uf_negative_##dt(T a) { return (T)((U)0 - (U)a); }                           \
  CUARR_UF_FN T cuarr_uf_positive_##dt(T a) { return a; }                                          \
  CUARR_UF_FN T cuarr_uf_square_##dt(T a) { return (T)((U)a * (U)a); }                             \
  /* C division truncates, as NumPy's integer reciprocal does (1 / -2 is 0). */                    \
  CUARR_UF_FN T cuarr_uf_reciprocal_##dt(T a) { return a == 0 ? (T)0 : (T)(1 / a); }               \
  CUARR_UF_FN T cuarr_uf_maximum_##dt(T a, T b) { return a > b ? a : b; }                          \
  CUARR_UF_FN T cuarr_uf_minimum_##dt(T a, T b) { return a < b ? a : b; }                          \
  CUARR_UF_FN T cuarr_uf_fmax_##dt(T a, T b) { return a > b ? a : b; }                             \
  CUARR_UF_FN T cuarr_uf_fmin_##dt(T a, T b) { return a < b ? a : b; }                             \
  CUARR_UF_FN T cuarr_uf_clip_##dt(T x, T lo, T hi) {                                              \
    T t = x > lo ? x : lo;                                                                         \
    return t < hi ? t : hi;                                                                        \
  }                                                                                                \
  CUARR_UF_FN T cuarr_uf_bitwise_and_##dt(T a, T b) { return (T)(a & b); }                         \
  CUARR_UF_FN T cuarr_uf_bitwise_or_##dt(T a, T b) { return (T)(a | b); }                          \
  CUARR_UF_FN T cuarr_uf_bitwise_xor_##dt(T a, T b) { return (T)(a ^ b); }                         \
  CUARR_UF_FN T cuarr_uf_invert_##dt(T a) { return (T)~a; }                                        \
  /* Square and multiply, wrapping; e is the (non-negative) exponent. */                           \
  CUARR_UF_FN T cuarr_uf_ipow_##dt(T a, unsigned long long e) {                                    \
    U r = 1, x = (U)a;                                                                             \
    while (e) {                                                                                    \
      if (e & 1u)                                                                                  \
        r *= x;                                                                                    \
      x *= x;                                                                                      \
      e >>= 1;                                                                                     \
    }                                                                                              \
    return (T)r;                                                                                   \
  }

#define CUARR_UF_SIGNED(dt, T, U, BITS)                                                            \
  CUARR_UF_INTEGER(dt, T, U, BITS)                                                                 \
  CUARR_UF_FN T cuarr_uf_absolute_##dt(T a) { return a < 0 ? (T)((U)0 - (U)a) : a; }               \
  CUARR_UF_FN T cuarr_uf_sign_##dt(T a) { return (T)((a > 0) - (a < 0)); }                         \
  /* b == -1 is negation (wrapping INT_MIN // -1 to INT_MIN, where C's / is undefined). */         \
  CUARR_UF_FN T cuarr_uf_floor_divide_##dt(T a, T b) {                                             \
    if (b == 0)                                                                                    \
      return 0;                                                                                    \
    if (b == -1)                                                                                   \
      return (T)((U)0 - (U)a);                                                                     \
    T q = (T)(a / b);                                                                              \
    return (a % b != 0 && ((a < 0) != (b < 0))) ? (T)(q - 1) : q;                                  \
  }                                                                                                \
  CUARR_UF_FN T cuarr_uf_remainder_##dt(T a, T b) {                                                \
    if (b == 0 || b == -1)                                                                         \
      return 0;                                                                                    \
    T r = (T)(a % b);                                                                              \
    return (r != 0 && ((r < 0) != (b < 0))) ? (T)(r + b) : r;                                      \
  }                                                                                                \
  /* A negative exponent: 1/a^-b truncated, which is 0 but for a = 1 and a = -1 (and 0 for a = 0,  \
   * division by zero). */                                                                         \
  CUARR_UF_FN T cuarr_uf_power_##dt(T a, T b) {                                                    \
    if (b < 0)                                                                                     \
      return a == 1 ? (T)1 : a == -1 ? (((U)b & 1u) ? (T)-1 : (T)1) : (T)0;                        \
    return cuarr_uf_ipow_##dt(a, (unsigned long long)b);                                           \
  }                                                                                                \
  /* A negative shift converts to a huge unsigned one: 0 (or -1), as NumPy's size_t compare. */    \
  CUARR_UF_FN T cuarr_uf_left_shift_##dt(T a, T b) {                                               \
    return (unsigned long long)b < BITS ? (T)((U)a << b) : (T)0;                                   \
  }                                                                                                \
  /* ~(~a >> b) is an arithmetic shift of a negative a without implementation-defined C. */        \
  CUARR_UF_FN T cuarr_uf_right_shift_##dt(T a, T b) {                                              \
    if ((unsigned long long)b < BITS)                                                              \
      return a < 0 ? (T) ~(~a >> b) : (T)(a >> b);                                                 \
    return a < 0 ? (T)-1 : (T)0;                                                                   \
  }

#define CUARR_UF_UNSIGNED(dt, T, U, BITS)                                                          \
  CUARR_UF_INTEGER(dt, T, U, BITS)                                                                 \
  CUARR_UF_FN T cuarr_uf_absolute_##dt(T a) { return a; }                                          \
  CUARR_UF_FN T cuarr_uf_sign_##dt(T a) { return (T)(a > 0); }                                     \
  CUARR_UF_FN T cuarr_uf_floor_divide_##dt(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }        \
  CUARR_UF_FN T cuarr_uf_remainder_##dt(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }           \
  CUARR_UF_FN T cuarr_uf_power_##dt(T a, T b) { return cuarr_uf_ipow_##dt(a, b); }                 \
  CUARR_UF_FN T cuarr_uf_left_shift_##dt(T a, T b) { return b < BITS ? (T)((U)a << b) : (T)0; }    \
  CUARR_UF_FN T cuarr_uf_right_shift_##dt(T a, T b) { return b < BITS ? (T)(a >> b) : (T)0; }

CUARR_UF_SIGNED(int8, signed char, unsigned int, 8u)
CUARR_UF_SIGNED(int16, short, unsigned int, 16u)
CUARR_UF_SIGNED(int32, int, unsigned int, 32u)
CUARR_UF_SIGNED(int64, long long, unsigned long long, 64u)
CUARR_UF_UNSIGNED(uint8, unsigned char, unsigned int, 8u)
CUARR_UF_UNSIGNED(uint16, unsigned short, unsigned int, 16u)
CUARR_UF_UNSIGNED(uint32, unsigned int, unsigned int, 32u)
CUARR_UF_UNSIGNED(uint64, unsigned long long, unsigned long long, 64u)

/* int64 against uint64, compared by value (NumPy 2's qQ and Qq loops): a negative int64 is below
 * every uint64.  NEG_U is `negative OP unsigned`, U_NEG `unsigned OP negative`. */
#define CUARR_UF_MIXED(op, NEG_U, U_NEG, EXPR)                                                     \
  CUARR_UF_FN bool cuarr_uf_##op##_int64_uint64(long long a, unsigned long long b) {               \
    return a < 0 ? NEG_U : (unsigned long long)a EXPR b;                                           \
  }                                                                                                \
  CUARR_UF_FN bool cuarr_uf_##op##_uint64_int64(unsigned long long a, long long b) {               \
    return b < 0 ? U_NEG : a EXPR(unsigned long long) b;                                           \
  }
CUARR_UF_MIXED(equal, false, false, ==)
CUARR_UF_MIXED(not_equal, true, true, !=)
CUARR_UF_MIXED(less, true, false, <)
CUARR_UF_MIXED(less_equal, true, false, <=)
CUARR_UF_MIXED(greater, false, true, >)
CUARR_UF_MIXED(greater_equal, false, true, >=)

/* ---------------------------------------------------------------- float32, float64 */

/* S is the C math functions' suffix (f for float, none for double); MAXV the largest finite
 * value (isinf/isfinite compare |x| with it: no isinf macro, which C and CUDA spell
 * differently, and NaN compares false). */
#define CUARR_UF_FLOAT(dt, T, S, MAXV)                                                             \
  CUARR_UF_COMPARE(dt, T)                                                                          \
  CUARR_UF_FN T cuarr_uf_add_##dt(T a, T b) { return a + b; }                                      \
  CUARR_UF_FN T cuarr_uf_subtract_##dt(T a, T b) { return a - b; }                                 \
  CUARR_UF_FN T cuarr_uf_multiply_##dt(T a, T b) { return a * b; }                                 \
  CUARR_UF_FN T cuarr_uf_divide_##dt(T a, T b) { return a / b; }                                   \
  /* NumPy's npy_divmod: the quotient of a - fmod(a, b), one down when the remainder's sign was    \
   * fixed, snapped to the nearest integer; x / 0 is a / b (inf or NaN). */                        \
  CUARR_UF_FN T cuarr_uf_floor_divide_##dt(T a, T b) {                                             \
    if (b == 0)                                                                                    \
      return a / b;                                                                                \
    T mod = fmod##S(a, b), div = (a - mod) / b, fl;                                                \
    if (mod != 0 && ((b < 0) != (mod < 0)))                                                        \
      div -= (T)1;                                                                                 \
    if (div != 0) {                                                                                \
      fl = floor##S(div);                                                                          \
      if (div - fl > (T)0.5)                                                                       \
        fl += (T)1;                                                                                \
    } else {                                                                                       \
      fl = copysign##S((T)0, a / b);                                                               \
    }                                                                                              \
    return fl;                                                                                     \
  }                                                                                                \
  CUARR_UF_FN T cuarr_uf_remainder_##dt(T a, T b) {                                                \
    T mod = fmod##S(a, b);                                                                         \
    if (b == 0)                                                                                    \
      return mod;                                                                                  \
    if (mod != 0)                                                                                  \
      return ((b < 0) != (mod < 0)) ? mod + b : mod;                                               \
    return copysign##S((T)0, b);                                                                   \
  }                                                                                                \
  /* x ** 2 is x * x, as NumPy's ** (fast_scalar_power) gives it: correctly rounded, where         \
   * pow may be an ulp off, and a multiply where the exponent is a constant of a fused kernel. */  \
  CUARR_UF_FN T cuarr_uf_power_##dt(T a, T b) { return b == (T)2 ? a * a : pow##S(a, b); }         \
  CUARR_UF_FN T cuarr_uf_negative_##dt(T a) { return -a; }                                         \
  CUARR_UF_FN T cuarr_uf_positive_##dt(T a) { return a; }                                          \
  CUARR_UF_FN T cuarr_uf_absolute_##dt(T a) { return fabs##S(a); }                                 \
  /* NaN stays NaN; -0 gives +0, as NumPy's. */                                                    \
  CUARR_UF_FN T cuarr_uf_sign_##dt(T a) {                                                          \
    return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a;                                       \
  }                                                                                                \
  CUARR_UF_FN T cuarr_uf_square_##dt(T a) { return a * a; }                                        \
  CUARR_UF_FN T cuarr_uf_reciprocal_##dt(T a) { return (T)1 / a; }                                 \
  CUARR_UF_FN T cuarr_uf_exp_##dt(T a) { return exp##S(a); }                                       \
  CUARR_UF_FN T cuarr_uf_exp2_##dt(T a) { return exp2##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_expm1_##dt(T a) { return expm1##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_log_##dt(T a) { return log##S(a); }                                       \
  CUARR_UF_FN T cuarr_uf_log2_##dt(T a) { return log2##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_log10_##dt(T a) { return log10##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_log1p_##dt(T a) { return log1p##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_sqrt_##dt(T a) { return sqrt##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_cbrt_##dt(T a) { return cbrt##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_sin_##dt(T a) { return sin##S(a); }                                       \
  CUARR_UF_FN T cuarr_uf_cos_##dt(T a) { return cos##S(a); }                                       \
  CUARR_UF_FN T cuarr_uf_tan_##dt(T a) { return tan##S(a); }                                       \
  CUARR_UF_FN T cuarr_uf_arcsin_##dt(T a) { return asin##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_arccos_##dt(T a) { return acos##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_arctan_##dt(T a) { return atan##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_sinh_##dt(T a) { return sinh##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_cosh_##dt(T a) { return cosh##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_tanh_##dt(T a) { return tanh##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_arcsinh_##dt(T a) { return asinh##S(a); }                                 \
  CUARR_UF_FN T cuarr_uf_arccosh_##dt(T a) { return acosh##S(a); }                                 \
  CUARR_UF_FN T cuarr_uf_arctanh_##dt(T a) { return atanh##S(a); }                                 \
  CUARR_UF_FN T cuarr_uf_floor_##dt(T a) { return floor##S(a); }                                   \
  CUARR_UF_FN T cuarr_uf_ceil_##dt(T a) { return ceil##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_trunc_##dt(T a) { return trunc##S(a); }                                   \
  /* Round half to even (the default rounding mode on both sides). */                              \
  CUARR_UF_FN T cuarr_uf_rint_##dt(T a) { return rint##S(a); }                                     \
  CUARR_UF_FN T cuarr_uf_arctan2_##dt(T a, T b) { return atan2##S(a, b); }                         \
  CUARR_UF_FN T cuarr_uf_hypot_##dt(T a, T b) { return hypot##S(a, b); }                           \
  CUARR_UF_FN T cuarr_uf_copysign_##dt(T a, T b) { return copysign##S(a, b); }                     \
  /* NumPy's: on equal values the second operand (max(-0, 0) is 0, max(0, -0) is -0). */           \
  CUARR_UF_FN T cuarr_uf_maximum_##dt(T a, T b) { return (a > b || a != a) ? a : b; }              \
  CUARR_UF_FN T cuarr_uf_minimum_##dt(T a, T b) { return (a < b || a != a) ? a : b; }              \
  CUARR_UF_FN T cuarr_uf_fmax_##dt(T a, T b) { return (a >= b || b != b) ? a : b; }                \
  CUARR_UF_FN T cuarr_uf_fmin_##dt(T a, T b) { return (a <= b || b != b) ? a : b; }                \
  CUARR_UF_FN T cuarr_uf_clip_##dt(T x, T lo, T hi) {                                              \
    T t = x != x ? x : x > lo ? x : lo;                                                            \
    return t != t ? t : t < hi ? t : hi;                                                           \
  }                                                                                                \
  CUARR_UF_FN bool cuarr_uf_isnan_##dt(T a) { return a != a; }                                     \
  CUARR_UF_FN bool cuarr_uf_isinf_##dt(T a) { return fabs##S(a) > MAXV; }                          \
  CUARR_UF_FN bool cuarr_uf_isfinite_##dt(T a) { return fabs##S(a) <= MAXV; }

CUARR_UF_FLOAT(float32, float, f, 3.40282346638528859812e+38f)
CUARR_UF_FLOAT(float64, double, , 1.79769313486231570815e+308)

/* ---------------------------------------------------------------- float16, through float */

#define CUARR_UF_HALF_UNARY(op)                                                                    \
  CUARR_UF_FN cuarr_uf_float16 cuarr_uf_##op##_float16(cuarr_uf_float16 a) {                       \
    return CUARR_UF_F2H(cuarr_uf_##op##_float32(CUARR_UF_H2F(a)));                                 \
  }
#define CUARR_UF_HALF_BINARY(op)                                                                   \
  CUARR_UF_FN cuarr_uf_float16 cuarr_uf_##op##_float16(cuarr_uf_float16 a, cuarr_uf_float16 b) {   \
    return CUARR_UF_F2H(cuarr_uf_##op##_float32(CUARR_UF_H2F(a), CUARR_UF_H2F(b)));                \
  }
#define CUARR_UF_HALF_PREDICATE(op)                                                                \
  CUARR_UF_FN bool cuarr_uf_##op##_float16(cuarr_uf_float16 a) {                                   \
    return cuarr_uf_##op##_float32(CUARR_UF_H2F(a));                                               \
  }
#define CUARR_UF_HALF_COMPARE(op)                                                                  \
  CUARR_UF_FN bool cuarr_uf_##op##_float16(cuarr_uf_float16 a, cuarr_uf_float16 b) {               \
    return cuarr_uf_##op##_float32(CUARR_UF_H2F(a), CUARR_UF_H2F(b));                              \
  }

CUARR_UF_HALF_BINARY(add)
CUARR_UF_HALF_BINARY(subtract)
CUARR_UF_HALF_BINARY(multiply)
CUARR_UF_HALF_BINARY(divide)
CUARR_UF_HALF_BINARY(floor_divide)
CUARR_UF_HALF_BINARY(remainder)
CUARR_UF_HALF_BINARY(power)
CUARR_UF_HALF_BINARY(arctan2)
CUARR_UF_HALF_BINARY(hypot)
CUARR_UF_HALF_BINARY(copysign)
CUARR_UF_HALF_BINARY(maximum)
CUARR_UF_HALF_BINARY(minimum)
CUARR_UF_HALF_BINARY(fmax)
CUARR_UF_HALF_BINARY(fmin)
CUARR_UF_HALF_UNARY(negative)
CUARR_UF_HALF_UNARY(absolute)
CUARR_UF_HALF_UNARY(sign)
CUARR_UF_HALF_UNARY(square)
CUARR_UF_HALF_UNARY(reciprocal)
CUARR_UF_HALF_UNARY(exp)
CUARR_UF_HALF_UNARY(exp2)
CUARR_UF_HALF_UNARY(expm1)
CUARR_UF_HALF_UNARY(log)
CUARR_UF_HALF_UNARY(log2)
CUARR_UF_HALF_UNARY(log10)
CUARR_UF_HALF_UNARY(log1p)
CUARR_UF_HALF_UNARY(sqrt)
CUARR_UF_HALF_UNARY(cbrt)
CUARR_UF_HALF_UNARY(sin)
CUARR_UF_HALF_UNARY(cos)
CUARR_UF_HALF_UNARY(tan)
CUARR_UF_HALF_UNARY(arcsin)
CUARR_UF_HALF_UNARY(arccos)
CUARR_UF_HALF_UNARY(arctan)
CUARR_UF_HALF_UNARY(sinh)
CUARR_UF_HALF_UNARY(cosh)
CUARR_UF_HALF_UNARY(tanh)
CUARR_UF_HALF_UNARY(arcsinh)
CUARR_UF_HALF_UNARY(arccosh)
CUARR_UF_HALF_UNARY(arctanh)
CUARR_UF_HALF_UNARY(floor)
CUARR_UF_HALF_UNARY(ceil)
CUARR_UF_HALF_UNARY(trunc)
CUARR_UF_HALF_UNARY(rint)
CUARR_UF_HALF_PREDICATE(isnan)
CUARR_UF_HALF_PREDICATE(isinf)
CUARR_UF_HALF_PREDICATE(isfinite)
CUARR_UF_HALF_COMPARE(equal)
CUARR_UF_HALF_COMPARE(not_equal)
CUARR_UF_HALF_COMPARE(less)
CUARR_UF_HALF_COMPARE(less_equal)
CUARR_UF_HALF_COMPARE(greater)
CUARR_UF_HALF_COMPARE(greater_equal)
CUARR_UF_FN cuarr_uf_float16 cuarr_uf_positive_float16(cuarr_uf_float16 a) { return a; }
CUARR_UF_FN cuarr_uf_float16 cuarr_uf_where_float16(bool c, cuarr_uf_float16 x,
                                                    cuarr_uf_float16 y) {
  return c ? x : y;
}
CUARR_UF_FN cuarr_uf_float16 cuarr_uf_clip_float16(cuarr_uf_float16 x, cuarr_uf_float16 lo,
                                                   cuarr_uf_float16 hi) {
  return CUARR_UF_F2H(cuarr_uf_clip_float32(CUARR_UF_H2F(x), CUARR_UF_H2F(lo), CUARR_UF_H2F(hi)));
}

#endif
