/*
 * reduction_ops.cuh -- the helpers of the built-in reductions (src/core/reduce/reduce_device.c
 * spells each one as a program of expressions that call these): NaN-aware min and max, their
 * identities, argmin and argmax.  Needs common.cuh.  A generated reduction carries this file
 * only where its expressions use it (reduce_source.c): a new kernel's first call waits for
 * NVRTC, which reads every line of its program.
 */
#ifndef CUARR_REDUCTION_OPS_CUH
#define CUARR_REDUCTION_OPS_CUH

/* NaN tests that also compile for integer types (where they are false). */
template <typename T> __device__ __forceinline__ bool cuarr_red_isnan(T x) { return x != x; }

/* max/min that let NaN win (a NaN operand makes the result NaN), as NumPy's maximum. */
template <typename T> __device__ __forceinline__ T cuarr_red_max(T a, T b) {
  return (a > b || cuarr_red_isnan(a)) ? a : b;
}
template <typename T> __device__ __forceinline__ T cuarr_red_min(T a, T b) {
  return (a < b || cuarr_red_isnan(a)) ? a : b;
}
/* max/min that skip NaN (NaN only when both are). */
template <typename T> __device__ __forceinline__ T cuarr_red_fmax(T a, T b) {
  return (a > b || cuarr_red_isnan(b)) ? a : b;
}
template <typename T> __device__ __forceinline__ T cuarr_red_fmin(T a, T b) {
  return (a < b || cuarr_red_isnan(b)) ? a : b;
}

/* Identities of min and max: the largest and smallest values of T (infinities for floats),
 * and for the nan- ops NaN for floats, which every number beats. */
template <typename T> __device__ __forceinline__ T cuarr_red_hi() {
  if constexpr (sizeof(T) == 4 && cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return __int_as_float(0x7f800000);
  else if constexpr (cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return __longlong_as_double(0x7ff0000000000000ll);
  else if constexpr (cuarr_type<T>::kind() == CUARR_KIND_BOOL)
    return true;
  else
    return cuarr_type<T>::max();
}
template <typename T> __device__ __forceinline__ T cuarr_red_lo() {
  if constexpr (cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return -cuarr_red_hi<T>();
  else if constexpr (cuarr_type<T>::kind() == CUARR_KIND_BOOL)
    return false;
  else
    return cuarr_type<T>::min();
}
template <typename T> __device__ __forceinline__ T cuarr_red_nan_or_hi() {
  if constexpr (cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return (T)__int_as_float(0x7fffffff);
  else
    return cuarr_red_hi<T>();
}
template <typename T> __device__ __forceinline__ T cuarr_red_nan_or_lo() {
  if constexpr (cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return (T)__int_as_float(0x7fffffff);
  else
    return cuarr_red_lo<T>();
}

/* argmax/argmin: a value and its index.  The identity holds the value every element beats
 * or ties (the lowest for max, the highest for min) and the largest index, so that it loses
 * every tie; ties go to the lower index; a NaN beats every number, the first NaN every other
 * NaN.  Written without branches: it runs once per element. */
template <typename T> struct cuarr_red_arg {
  T v;
  long long i;
};
template <typename T, bool MAX>
__device__ __forceinline__ cuarr_red_arg<T> cuarr_red_argpick(const cuarr_red_arg<T> &a,
                                                              const cuarr_red_arg<T> &b) {
  const bool an = cuarr_red_isnan(a.v), bn = cuarr_red_isnan(b.v);
  const bool better = (MAX ? b.v > a.v : b.v < a.v) || (bn && !an);
  const bool tie = b.v == a.v || (an && bn);
  const bool take = (better && !an) || (tie && b.i < a.i);
  return take ? b : a;
}
/* The same when b is later than a: ties keep a, so only a better value (or a first NaN)
 * takes b, or any value the identity. */
template <typename T, bool MAX>
__device__ __forceinline__ cuarr_red_arg<T> cuarr_red_argfold(const cuarr_red_arg<T> &a,
                                                              const cuarr_red_arg<T> &b) {
  const bool an = cuarr_red_isnan(a.v);
  const bool take = !an && ((MAX ? b.v > a.v : b.v < a.v) || cuarr_red_isnan(b.v) ||
                            a.i == 0x7fffffffffffffffll); /* a is the identity */
  return take ? b : a;
}
template <typename T, bool MAX>
__device__ __forceinline__ cuarr_red_arg<T> cuarr_red_arg_identity() {
  return {MAX ? cuarr_red_lo<T>() : cuarr_red_hi<T>(), 0x7fffffffffffffffll};
}

#endif
