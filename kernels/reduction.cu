/*
 * reduction.cu -- what the reduction kernels share.  src/core/reduce/reduce_source.c writes
 * each kernel's loops around the program's expressions, as elementwise_source.c does for
 * elementwise kernels: a new kernel's first call waits for NVRTC, and NVRTC compiles code
 * written out in the kernel sooner than the same code spread over templates and functions
 * (it optimises every function on its own before inlining it).
 *
 * A generated program is common.cuh, elementwise_half.cuh when a float16 is involved,
 * elementwise.cu when an input is a raw array, this file, the placeholder typedefs (the
 * accumulator's _type_reduce, the index types _cuarr_I and _cuarr_S), the preamble and one
 * extern "C" kernel:
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   sum_rows_k0_r1_v4_i32_f4f4_f4f4f4(const float *_cuarr_p0, float *_cuarr_out,
 *       _type_reduce *_cuarr_partial, unsigned int *_cuarr_counters,
 *       const cuarr_red_layout<_cuarr_I, _cuarr_S, 1> _cuarr_L) {
 *     typedef _type_reduce acc_t;
 *     ...                          every thread folds its elements into its accumulator:
 *     {
 *       const long long _i = ..., _j = ...;   the output's index, the element's (C order
 *       const float x = ...;                  over the reduced axes), each input's value
 *       const acc_t _cuarr_m = (acc_t)(map_expr);
 *       { const acc_t a = _cuarr_acc[0], b = _cuarr_m; _cuarr_acc[0] = (acc_t)(fold_expr); }
 *     }
 *     ...                          the block combines its lanes' accumulators with
 *   }                              reduce_expr; the first lane runs post_map_expr and stores
 *
 * The iteration space, after the host collapsed it: n_out outputs (kept axes), each the
 * reduction of n_red elements (reduced axes).  Two ways to spread it over a block of 256
 * threads (blockDim.x * blockDim.y):
 *   rows: the reduced axis is the faster one in memory.  blockDim.x lanes share an output and
 *         read consecutive elements (16-byte vectors when the rows allow); blockDim.y outputs
 *         per block;
 *   cols: a kept axis is the faster one.  blockDim.x lanes take consecutive outputs (a vector
 *         of them each where the layout allows), blockDim.y lanes split the reduced range;
 *         loads are coalesced across the outputs.
 * When there are too few outputs to fill the GPU, gridDim.y blocks split each output's
 * reduced range: each writes a partial result, and the last block of each column of blocks
 * (counted with an atomic) reduces the partials and writes the outputs, in the same launch;
 * only kernels made for split grids have that code.  Offsets along the kept and reduced axes
 * take a division per axis, except in kernels made for a single axis (or a single output).
 *
 * Results combine in a fixed tree within the block, so a reduction gives the same bits on
 * every run.
 */
#ifndef CUARR_REDUCTION_CU
#define CUARR_REDUCTION_CU

/* The layout the host packs (all fields I or S, which have one size: no padding).  Strides are
 * in elements of each operand; so[NIN] is the output's, along the kept axes.  At most 32 axes
 * (the host writes only those in use). */
template <typename I, typename S, int NIN> struct cuarr_red_layout {
  I n_out, n_red, ndo, ndr;
  I shape_o[32];
  I shape_r[32];
  S so[NIN + 1][32];
  S sr[NIN > 0 ? NIN : 1][32];
};

/* V elements of T, loaded as one vector. */
template <typename T, int V> struct alignas(sizeof(T) * V) cuarr_red_vec { T v[V]; };

/* The next kernel on the stream (a programmatic dependent, which waits for this one to finish
 * before touching memory) may be scheduled from here on: placed where a block's loads are
 * done.
 * Not when the grid is split and has more blocks than the GPU has multiprocessors: the next
 * kernel's blocks would then fill the machine, waiting, beside the blocks that finish the
 * split columns, and slow them (it is let in as this grid's blocks exit anyway). */
#if __CUDA_ARCH__ >= 900
#define CUARR_RED_LET_NEXT_IN()                                                                    \
  do {                                                                                             \
    unsigned cuarr_sms_;                                                                           \
    asm("mov.u32 %0, %%nsmid;" : "=r"(cuarr_sms_));                                                \
    if (gridDim.y == 1 || gridDim.x * gridDim.y <= cuarr_sms_)                                     \
      asm volatile("griddepcontrol.launch_dependents;");                                           \
  } while (0)
#else
#define CUARR_RED_LET_NEXT_IN() ((void)0)
#endif

/* Split reductions: each block of a column of blocks (one blockIdx.x, gridDim.y of them)
 * stored its partial results; the last of them to get here finishes.  Its partials were made
 * visible by the fence before the count (CUDA's threadfence reduction).  The count wraps to 0
 * as the last block arrives (atomicInc), which leaves the counters zeroed for the next
 * reduction on the stream (src/core/reduce/split_counters.c). */
__device__ __forceinline__ bool cuarr_red_last_block(unsigned int *counters) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    last = atomicInc(&counters[blockIdx.x], gridDim.y - 1) == gridDim.y - 1;
  __syncthreads();
  if (last)
    __threadfence();
  return last;
}

/* ---------------------------------------------------------------- built-in helpers */

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
