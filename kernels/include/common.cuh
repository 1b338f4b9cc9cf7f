/*
 * common.cuh -- device code shared by the kernels cuarr generates.
 *
 * A program carries it where its kernels use it (src/core/compile/codegen.c puts it first):
 * every copy, fill, linear, transpose and scan program; an elementwise or reduction program
 * whose kernel converts or loads through it, walks a strided layout, has a raw or a float16
 * operand, or whose own text names cuarr's code.  The others leave it out: NVRTC reads every
 * line of a program, and a new kernel's first call waits for it.  It includes nothing, so
 * NVRTC needs no headers at all (no cuda_fp16.h, no <type_traits>).  It holds
 *  - __half_t, the kernels' float16 type (cuarr_dtype_ctype spells float16 so), with exact
 *    conversions written as inline PTX;
 *  - cuarr_cast<To>(x), cuarr's casting rules, which must give bit for bit what the host's
 *    rules (src/core/array/cast.h) give, so that one script gives one answer on CPU and GPU;
 *  - cuarr_load(p), an element read that is safe for bool memory holding bytes other than 0/1;
 *  - cuarr_layout and cuarr_offsets: a strided iteration space shared by several operands.
 *
 * Needs C++17 (if constexpr), which cuarr's NVRTC options ask for.
 */
#ifndef CUARR_COMMON_CUH
#define CUARR_COMMON_CUH

/* ---------------------------------------------------------------- float16 */

/* IEEE binary16, as its bits.  A plain aggregate (trivially copyable, two bytes, aligned to
 * two) so that it can be a kernel parameter, live in a vector struct and be moved as bits. */
struct __half_t {
  unsigned short x;
};

__device__ __forceinline__ float cuarr_half_to_float(__half_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x));
  return f;
}

/* Round to nearest even.  A double goes to half directly: through float it could round twice,
 * and the host's rules round once. */
__device__ __forceinline__ __half_t cuarr_float_to_half(float f) {
  __half_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f));
  return h;
}

__device__ __forceinline__ __half_t cuarr_double_to_half(double d) {
  __half_t h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.x) : "d"(d));
  return h;
}

/* ---------------------------------------------------------------- type classes */

enum cuarr_kind {
  CUARR_KIND_BOOL,
  CUARR_KIND_SIGNED,
  CUARR_KIND_UNSIGNED,
  CUARR_KIND_HALF,
  CUARR_KIND_FLOAT
};

/* Each dtype's class, and for integers the range and the float bounds where a float starts to
 * saturate: lo is the minimum, hi is max + 1.  Both are 0 or +-a power of two, hence exact in
 * float and double alike, so the comparisons below need no widening.  Constexpr functions, not
 * static constexpr data members: NVRTC puts every such member of these specialisations in the
 * PTX as a global, 44 of them, and that took every kernel's compile 0.5-0.7 ms longer. */
template <typename T> struct cuarr_type;

#define CUARR_KIND_TYPE(T, KIND)                                                                   \
  template <> struct cuarr_type<T> {                                                               \
    __device__ static constexpr cuarr_kind kind() { return KIND; }                                 \
  };
CUARR_KIND_TYPE(bool, CUARR_KIND_BOOL)
CUARR_KIND_TYPE(__half_t, CUARR_KIND_HALF)
CUARR_KIND_TYPE(float, CUARR_KIND_FLOAT)
CUARR_KIND_TYPE(double, CUARR_KIND_FLOAT)
#undef CUARR_KIND_TYPE

#define CUARR_INTEGER_TYPE(T, KIND, MIN, MAX, LO, HI)                                              \
  template <> struct cuarr_type<T> {                                                               \
    __device__ static constexpr cuarr_kind kind() { return KIND; }                                 \
    __device__ static constexpr T min() { return MIN; }                                            \
    __device__ static constexpr T max() { return MAX; }                                            \
    __device__ static constexpr double lo() { return LO; }                                         \
    __device__ static constexpr double hi() { return HI; }                                         \
  };
CUARR_INTEGER_TYPE(signed char, CUARR_KIND_SIGNED, -128, 127, -128.0, 128.0)
CUARR_INTEGER_TYPE(short, CUARR_KIND_SIGNED, -32768, 32767, -32768.0, 32768.0)
CUARR_INTEGER_TYPE(int, CUARR_KIND_SIGNED, -2147483647 - 1, 2147483647, -2147483648.0, 2147483648.0)
CUARR_INTEGER_TYPE(long long, CUARR_KIND_SIGNED, -9223372036854775807LL - 1, 9223372036854775807LL,
                   -9223372036854775808.0, 9223372036854775808.0)
CUARR_INTEGER_TYPE(unsigned char, CUARR_KIND_UNSIGNED, 0, 255, 0.0, 256.0)
CUARR_INTEGER_TYPE(unsigned short, CUARR_KIND_UNSIGNED, 0, 65535, 0.0, 65536.0)
CUARR_INTEGER_TYPE(unsigned int, CUARR_KIND_UNSIGNED, 0u, 4294967295u, 0.0, 4294967296.0)
CUARR_INTEGER_TYPE(unsigned long long, CUARR_KIND_UNSIGNED, 0ull, 18446744073709551615ull, 0.0,
                   18446744073709551616.0)
#undef CUARR_INTEGER_TYPE

template <typename T> __device__ constexpr bool cuarr_is_integer() {
  return cuarr_type<T>::kind() == CUARR_KIND_SIGNED || cuarr_type<T>::kind() == CUARR_KIND_UNSIGNED;
}

/* ---------------------------------------------------------------- casting */

/* float or double -> integer: saturate to the range, NaN -> 0, otherwise truncate toward zero
 * (the C cast, defined here since the value is in range).  For unsigned types lo is 0, so
 * negatives (and -0.5, which truncates to 0 anyway) give 0. */
template <typename I, typename F> __device__ __forceinline__ I cuarr_saturate(F x) {
  if (x != x)
    return 0;
  if (x <= (F)cuarr_type<I>::lo())
    return cuarr_type<I>::min();
  if (x >= (F)cuarr_type<I>::hi())
    return cuarr_type<I>::max();
  return (I)x;
}

/* x converted to To with cuarr's rules:
 *  - float16 reads as float (exact), then follows the float rules;
 *  - anything -> bool is x != 0 (NaN is true);
 *  - -> float16 rounds to nearest even once: from double directly, from anything else through
 *    float, which is exact there (integers up to 2^24 are exact in float, and every integer
 *    from 65520 on is infinite as a half either way);
 *  - float -> integer saturates (cuarr_saturate);
 *  - the rest is the C cast: integer -> integer wraps (two's complement), bool -> 0/1,
 *    integer -> float rounds to nearest, double -> float rounds to nearest. */
template <typename To, typename From> __device__ __forceinline__ To cuarr_cast(From x) {
  constexpr cuarr_kind to = cuarr_type<To>::kind(), from = cuarr_type<From>::kind();
  if constexpr (from == CUARR_KIND_HALF) {
    if constexpr (to == CUARR_KIND_HALF)
      return x;
    else
      return cuarr_cast<To>(cuarr_half_to_float(x));
  } else if constexpr (to == CUARR_KIND_BOOL) {
    return x != (From)0;
  } else if constexpr (to == CUARR_KIND_HALF) {
    if constexpr (sizeof(From) == 8 && from == CUARR_KIND_FLOAT)
      return cuarr_double_to_half(x);
    else
      return cuarr_float_to_half((float)x);
  } else if constexpr (from == CUARR_KIND_FLOAT && cuarr_is_integer<To>()) {
    return cuarr_saturate<To>(x);
  } else {
    return (To)x;
  }
}

/* ---------------------------------------------------------------- element access */

/* An element read.  bool memory is read as its byte and compared with 0, so that a byte other
 * than 0 or 1 (memory an embedder wrapped) reads as true, as on the host, instead of being
 * undefined behaviour. */
template <typename T> __device__ __forceinline__ T cuarr_load(const T *p) { return *p; }
template <> __device__ __forceinline__ bool cuarr_load<bool>(const bool *p) {
  return *(const unsigned char *)p != 0;
}

/* ---------------------------------------------------------------- strided iteration */

/* The iteration space of NOP operands of one shape, after the host collapsed it (fewer axes:
 * extent-1 axes dropped, contiguous neighbours merged).  Element i (C order, 0 <= i < n) of
 * operand k is at base_k[origin[k] + sum_d index_d(i) * strides[k][d]].
 *
 * Strides are in elements and offsets are relative to each operand's lowest touched element,
 * so that every offset lies in [0, span).  Negative strides are stored wrapped (two's
 * complement in I): the arithmetic is modulo 2^bits and the final offset, being in range, is
 * exact.  I is `unsigned int` when n and every span fit in 32 bits, `unsigned long long`
 * otherwise.
 *
 * Every member has type I, so the struct has no padding: the host fills it as a flat array
 * of I (n, ndim, origin[NOP], shape[ND], strides[NOP][ND]) -- see src/core/copy/copy_kernels.c
 * and src/core/elementwise/elementwise.c. */
template <typename I, int ND, int NOP> struct cuarr_layout {
  I n;    /* elements */
  I ndim; /* axes in use: ND for the fixed variants; 1..ND for the generic one */
  I origin[NOP];
  I shape[ND];
  I strides[NOP][ND];
};

/* Peel axis d (d > 0) off the flat index i: i becomes the index over the outer axes. */
template <typename I, int ND, int NOP>
__device__ __forceinline__ void cuarr_offsets_axis(const cuarr_layout<I, ND, NOP> &L, int d, I &i,
                                                   I (&off)[NOP]) {
  const I q = i / L.shape[d];
  const I index = i - q * L.shape[d];
  i = q;
#pragma unroll
  for (int k = 0; k < NOP; ++k)
    off[k] += index * L.strides[k][d];
}

/* Offsets of element i in each operand.  The fixed variants unroll over their ND axes; the
 * generic one (GENERIC, the first L.ndim of ND axes in use) loops at run time, which keeps
 * its code small (the parameter arrays are then read with computed addresses, still from the
 * parameter space, not from a local copy). */
template <bool GENERIC, typename I, int ND, int NOP>
__device__ __forceinline__ void cuarr_offsets(const cuarr_layout<I, ND, NOP> &L, I i,
                                              I (&off)[NOP]) {
#pragma unroll
  for (int k = 0; k < NOP; ++k)
    off[k] = L.origin[k];
  if constexpr (GENERIC) {
    for (int d = (int)L.ndim - 1; d > 0; --d)
      cuarr_offsets_axis(L, d, i, off);
  } else {
#pragma unroll
    for (int d = ND - 1; d > 0; --d)
      cuarr_offsets_axis(L, d, i, off);
  }
#pragma unroll
  for (int k = 0; k < NOP; ++k)
    off[k] += i * L.strides[k][0]; /* i is below shape[0] now */
}

/* Grid-stride loops: this thread's first index and the stride between its indices. */
template <typename I> __device__ __forceinline__ I cuarr_thread_index() {
  return (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
}
template <typename I> __device__ __forceinline__ I cuarr_thread_count() {
  return (I)gridDim.x * (I)blockDim.x;
}

/* ---------------------------------------------------------------- arithmetic */

/* Double multiply and add rounded separately: no fused multiply-add, as the host computes
 * (`a + b * c` would be contracted to an fma by the device compiler). */
__device__ __forceinline__ double cuarr_dmul_rn(double a, double b) {
  double r;
  asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
__device__ __forceinline__ double cuarr_dadd_rn(double a, double b) {
  double r;
  asm("add.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}

#endif
