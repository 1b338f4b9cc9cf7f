/*
 * key_transform.h -- the order-preserving maps from every dtype's bits onto unsigned keys of the
 * same width, shared by the host sort (sort/host_sort.c) and the device library
 * (sort/cub/radix_sort.cu), so that both sort alike.
 *
 * Unsigned integers (and bool) are their own keys; signed integers flip the sign bit; floats
 * take the sign-magnitude twiddle (negative values complemented, positive ones with the sign bit
 * set), which orders -inf < ... < -0.0 < +0.0 < ... < +inf < +NaNs and puts the negative NaNs
 * first.  Subtracting the count of negative NaN codes (2^mantissa_bits - 1, modulo 2^bits)
 * rotates those to the top: every NaN sorts after +inf, whatever its sign, as NumPy's do, and
 * the map stays a bijection, so a sort of the keys gives back every value's bits exactly.
 * For argsort and searchsorted (merge = 1) equal values must be equal keys: -0.0 is mapped as
 * +0.0 and every NaN onto the largest key, so ties among them keep their order.
 */
#ifndef CUARR_SORT_KEY_TRANSFORM_H
#define CUARR_SORT_KEY_TRANSFORM_H

#include <stdint.h>

#ifdef __CUDACC__
#define CUARR_SK_FN static __host__ __device__ __forceinline__
#else
#define CUARR_SK_FN static inline
#endif

/* The kinds match sort_library.h's CUARR_SORT_KIND_*. */
enum { CUARR_SK_UNSIGNED = 0, CUARR_SK_SIGNED = 1, CUARR_SK_FLOAT = 2 };

CUARR_SK_FN uint64_t cuarr_sk_all(int width) {
  return width >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * width)) - 1;
}
CUARR_SK_FN uint64_t cuarr_sk_high(int width) { return (uint64_t)1 << (8 * width - 1); }
/* The mantissa's bits of float16, float32 and float64. */
CUARR_SK_FN uint64_t cuarr_sk_mantissa(int width) {
  return width == 2 ? 0x3ffu : width == 4 ? 0x7fffffu : 0xfffffffffffffull;
}
CUARR_SK_FN uint64_t cuarr_sk_exponent(int width) {
  return width == 2 ? 0x7c00u : width == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
}

/* The key of a value's bits. */
CUARR_SK_FN uint64_t cuarr_sk_encode(uint64_t bits, int kind, int width, int merge) {
  const uint64_t all = cuarr_sk_all(width), high = cuarr_sk_high(width);
  if (kind == CUARR_SK_UNSIGNED)
    return bits;
  if (kind == CUARR_SK_SIGNED)
    return bits ^ high;
  const uint64_t mant = cuarr_sk_mantissa(width), exp = cuarr_sk_exponent(width);
  if (merge) {
    if ((bits & exp) == exp && (bits & mant) != 0)
      return all;
    if (bits == high)
      bits = 0;
  }
  const uint64_t t = (bits & high) ? (~bits & all) : (bits | high);
  return (t - mant) & all;
}

/* The value's bits of a key cuarr_sk_encode made with merge = 0. */
CUARR_SK_FN uint64_t cuarr_sk_decode(uint64_t key, int kind, int width) {
  const uint64_t all = cuarr_sk_all(width), high = cuarr_sk_high(width);
  if (kind == CUARR_SK_UNSIGNED)
    return key;
  if (kind == CUARR_SK_SIGNED)
    return key ^ high;
  const uint64_t t = (key + cuarr_sk_mantissa(width)) & all;
  return (t & high) ? (t ^ high) : (~t & all);
}

#endif
