/*
 * half.cuh -- float16, the type of a float16 variable in an elementwise operation.
 *
 * Memory holds float16 elements as __half_t (common.cuh), a bare aggregate: it cannot be
 * assigned a float or converted to one, so `z = x * 2.0f` or `float t = x` would not compile
 * with it.  User code written for CuPy does that all the time, so the variables of an
 * operation are of this class instead, which behaves as CuPy's float16 does:
 *  - it converts implicitly to float (and so calls sqrtf, isnan, max... through float) and to
 *    __half_t, and is made implicitly from float, double, any integer and __half_t;
 *  - half op half is a half (computed in float and rounded once: exact for + - * /, since a
 *    float holds the exact result of two halves to well within one rounding);
 *    half op float is a float, half op double a double, half op integer a float;
 *  - comparisons go through float.
 * The operators are templates constrained to operands where one side is a half, so that they
 * never compete with the built-in operators and never make a mixed expression ambiguous.
 *
 * It has the bits of a __half_t in the same place (member x), so a raw float16 operand's
 * memory can be used as float16 directly.
 */
#ifndef CUARR_ELEMENTWISE_HALF_CUH
#define CUARR_ELEMENTWISE_HALF_CUH

template <bool B, typename T = void> struct cuarr_enable_if {};
template <typename T> struct cuarr_enable_if<true, T> { typedef T type; };

/* The built-in arithmetic types (no <type_traits> without headers).  These traits' values are
 * enumerators, not static constexpr members, which NVRTC would put in the PTX as globals, one
 * per trait and type a kernel meets (20-odd): more for the compile of every kernel. */
template <typename T> struct cuarr_is_arith {
  enum : bool { value = false };
};
#define CUARR_ARITH(T)                                                                             \
  template <> struct cuarr_is_arith<T> {                                                           \
    enum : bool { value = true };                                                                  \
  };
CUARR_ARITH(bool)
CUARR_ARITH(char)
CUARR_ARITH(signed char)
CUARR_ARITH(unsigned char)
CUARR_ARITH(short)
CUARR_ARITH(unsigned short)
CUARR_ARITH(int)
CUARR_ARITH(unsigned int)
CUARR_ARITH(long)
CUARR_ARITH(unsigned long)
CUARR_ARITH(long long)
CUARR_ARITH(unsigned long long)
CUARR_ARITH(float)
CUARR_ARITH(double)
#undef CUARR_ARITH

/* Integers and bool: converted to float first (exact up to 2^24; every larger integer is
 * beyond the range of a half anyway, so this rounds as a direct conversion would). */
template <typename T> struct cuarr_is_int_like {
  enum : bool { value = cuarr_is_arith<T>::value };
};
template <> struct cuarr_is_int_like<float> {
  enum : bool { value = false };
};
template <> struct cuarr_is_int_like<double> {
  enum : bool { value = false };
};

struct float16 {
  unsigned short x; /* the bits, as in __half_t */

  float16() = default;
  __device__ __forceinline__ float16(__half_t h) : x(h.x) {}
  __device__ __forceinline__ float16(float f) : x(cuarr_float_to_half(f).x) {}
  __device__ __forceinline__ float16(double d) : x(cuarr_double_to_half(d).x) {}
  template <typename T, typename cuarr_enable_if<cuarr_is_int_like<T>::value, int>::type = 0>
  __device__ __forceinline__ float16(T v) : x(cuarr_float_to_half((float)v).x) {}

  __device__ __forceinline__ operator float() const {
    __half_t h;
    h.x = x;
    return cuarr_half_to_float(h);
  }
  __device__ __forceinline__ operator __half_t() const {
    __half_t h;
    h.x = x;
    return h;
  }
};

/* cuarr_cast and cuarr_load know it as a half (common.cuh's rules apply unchanged). */
template <> struct cuarr_type<float16> {
  __device__ static constexpr cuarr_kind kind() { return CUARR_KIND_HALF; }
};

template <typename T> struct cuarr_is_half {
  enum : bool { value = false };
};
template <> struct cuarr_is_half<float16> {
  enum : bool { value = true };
};
template <> struct cuarr_is_half<__half_t> {
  enum : bool { value = true };
};

/* One side a half, the other a half or a built-in arithmetic type. */
template <typename A, typename B> struct cuarr_half_pair {
  enum : bool {
    value = (cuarr_is_half<A>::value && (cuarr_is_half<B>::value || cuarr_is_arith<B>::value)) ||
            (cuarr_is_half<B>::value && cuarr_is_arith<A>::value)
  };
};

/* A half as float; anything else as it is. */
template <typename T> __device__ __forceinline__ auto cuarr_half_value(T v) {
  if constexpr (cuarr_is_half<T>::value)
    return (float)float16(v);
  else
    return v;
}

#define CUARR_HALF_ARITH(OP)                                                                       \
  template <typename A, typename B,                                                                \
            typename cuarr_enable_if<cuarr_half_pair<A, B>::value, int>::type = 0>                 \
  __device__ __forceinline__ auto operator OP(A a, B b) {                                          \
    if constexpr (cuarr_is_half<A>::value && cuarr_is_half<B>::value)                              \
      return float16(cuarr_half_value(a) OP cuarr_half_value(b));                                  \
    else                                                                                           \
      return cuarr_half_value(a) OP cuarr_half_value(b);                                           \
  }                                                                                                \
  template <typename A, typename B,                                                                \
            typename cuarr_enable_if<cuarr_is_half<A>::value &&                                    \
                                         (cuarr_is_half<B>::value || cuarr_is_arith<B>::value),    \
                                     int>::type = 0>                                               \
  __device__ __forceinline__ A &operator OP##=(A &a, B b) {                                        \
    a = float16(cuarr_half_value(a) OP cuarr_half_value(b));                                       \
    return a;                                                                                      \
  }
CUARR_HALF_ARITH(+)
CUARR_HALF_ARITH(-)
CUARR_HALF_ARITH(*)
CUARR_HALF_ARITH(/)
#undef CUARR_HALF_ARITH

#define CUARR_HALF_COMPARE(OP)                                                                     \
  template <typename A, typename B,                                                                \
            typename cuarr_enable_if<cuarr_half_pair<A, B>::value, int>::type = 0>                 \
  __device__ __forceinline__ bool operator OP(A a, B b) {                                          \
    return cuarr_half_value(a) OP cuarr_half_value(b);                                             \
  }
CUARR_HALF_COMPARE(==)
CUARR_HALF_COMPARE(!=)
CUARR_HALF_COMPARE(<)
CUARR_HALF_COMPARE(<=)
CUARR_HALF_COMPARE(>)
CUARR_HALF_COMPARE(>=)
#undef CUARR_HALF_COMPARE

template <typename A, typename cuarr_enable_if<cuarr_is_half<A>::value, int>::type = 0>
__device__ __forceinline__ float16 operator-(A a) {
  float16 r(a);
  r.x ^= 0x8000; /* the sign bit: exact, and -0 / NaN as IEEE negation gives them */
  return r;
}
template <typename A, typename cuarr_enable_if<cuarr_is_half<A>::value, int>::type = 0>
__device__ __forceinline__ float16 operator+(A a) {
  return float16(a);
}
__device__ __forceinline__ float16 &operator++(float16 &a) { return a += 1.0f; }
__device__ __forceinline__ float16 &operator--(float16 &a) { return a -= 1.0f; }
__device__ __forceinline__ float16 operator++(float16 &a, int) {
  float16 old = a;
  a += 1.0f;
  return old;
}
__device__ __forceinline__ float16 operator--(float16 &a, int) {
  float16 old = a;
  a -= 1.0f;
  return old;
}

#endif
