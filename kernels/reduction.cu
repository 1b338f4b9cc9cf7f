/*
 * reduction.cu -- the bodies of the reduction kernels (src/core/reduce/reduce_device.c).
 *
 * A generated program is common.cuh, elementwise_half.cuh when a float16 is involved, this
 * file, an operation struct and one extern "C" kernel that builds the struct from its
 * parameters and calls one of the bodies below.  The operation struct (`Op`) has:
 *   typedef ... acc_t;                            the accumulator
 *   static constexpr bool has_identity;           false: the first value seeds the reduction
 *   acc_t identity() const;
 *   acc_t map_at(const S *off, I i, I j) const;   loads the inputs at element offsets off[k]
 *                                                 and maps them (i: output index, j: index
 *                                                 over the reduced axes, C order)
 *   acc_t map1(in_t x, I i, I j) const;           the same from a loaded element (one input)
 *   acc_t reduce(acc_t a, acc_t b) const;
 *   acc_t fold(acc_t a, acc_t b) const;           reduce, when b comes from a later element
 *                                                 than every one in a (a thread's own loop)
 *   void post(acc_t a, out_t *out, I i) const;    the output element from the result
 *
 * The iteration space, after the host collapsed it: n_out outputs (kept axes), each the
 * reduction of n_red elements (reduced axes).  Two ways to spread it over a block of 256
 * threads (blockDim.x * blockDim.y):
 *   rows: the reduced axis is the faster one in memory.  blockDim.x lanes share an output and
 *         read consecutive elements (16-byte vectors when the rows allow); blockDim.y outputs
 *         per block;
 *   cols: a kept axis is the faster one.  blockDim.x lanes take consecutive outputs (VEC each,
 *         as one vector), blockDim.y lanes split the reduced range; loads are coalesced
 *         across the outputs.
 * When there are too few outputs to fill the GPU, gridDim.y blocks split each output's
 * reduced range: each writes a partial result, and the last block of each column of blocks
 * (counted with an atomic) reduces the partials and writes the outputs, in the same launch.
 *
 * Results combine in a fixed tree within the block, so a reduction gives the same bits on
 * every run.
 */
#ifndef CUARR_REDUCTION_CU
#define CUARR_REDUCTION_CU

#define CUARR_RED_THREADS 256
#define CUARR_RED_MAXDIM 32

/* Layout classes, the bodies' template parameters KEPT and RED: how many kept (or reduced)
 * axes the host's collapsed layout has.  The special classes compile to less code -- a new
 * kernel's first call waits for NVRTC -- and run with less arithmetic:
 *   CUARR_RED_AXES_ANY:  any number; an output's (element's) offsets take a division per axis;
 *   CUARR_RED_AXES_ONE:  one; the index times the axis' stride;
 *   CUARR_RED_AXES_NONE: none, a single output (KEPT only; n_out == 1): offsets 0. */
#define CUARR_RED_AXES_ANY 0
#define CUARR_RED_AXES_ONE 1
#define CUARR_RED_AXES_NONE 2

/* The layout the host packs (all fields I or S, which have one size: no padding).  Strides are
 * in elements of each operand; so[NIN] is the output's, along the kept axes. */
template <typename I, typename S, int NIN> struct cuarr_red_layout {
  I n_out, n_red, ndo, ndr;
  I shape_o[CUARR_RED_MAXDIM];
  I shape_r[CUARR_RED_MAXDIM];
  S so[NIN + 1][CUARR_RED_MAXDIM];
  S sr[NIN > 0 ? NIN : 1][CUARR_RED_MAXDIM];
};

template <typename T, int V> struct alignas(sizeof(T) * V) cuarr_red_vec { T v[V]; };

/* An accumulator; for operations without an identity (user kernels) with a "seen a value"
 * flag: combining with an empty side keeps the other. */
template <class Op, bool = Op::has_identity> struct cuarr_red_acc { typename Op::acc_t v; };
template <class Op> struct cuarr_red_acc<Op, false> {
  typename Op::acc_t v;
  bool have;
};

/* The bodies' helpers are macros, not functions: NVRTC optimises every function of a program on
 * its own before inlining it, which costs a new kernel's first call 0.2 to 0.7 ms a function
 * (a ReductionKernel's first call waits for the compile).  They use the names of the bodies:
 * the operation `op` of type `Op`, the index types I and S, and NIN. */

/* a: the start of a reduction (the identity, or nothing seen yet). */
#define CUARR_RED_START(a)                                                                         \
  do {                                                                                             \
    if constexpr (Op::has_identity)                                                                \
      (a).v = op.identity();                                                                       \
    else                                                                                           \
      (a).have = false;                                                                            \
  } while (0)

/* Add value x (an acc_t) to accumulator a with F: fold where x is a thread's next element
 * (later in the reduced order than any in a), reduce for a partial result. */
#define CUARR_RED_ADD_WITH(F, a, x)                                                                \
  do {                                                                                             \
    if constexpr (Op::has_identity) {                                                              \
      (a).v = op.F((a).v, (x));                                                                    \
    } else {                                                                                       \
      const typename Op::acc_t cuarr_x_ = (x);                                                     \
      (a).v = (a).have ? op.F((a).v, cuarr_x_) : cuarr_x_;                                         \
      (a).have = true;                                                                             \
    }                                                                                              \
  } while (0)
#define CUARR_RED_ADD(a, x) CUARR_RED_ADD_WITH(fold, a, x)

/* Combine accumulator b into a (b from later lanes). */
#define CUARR_RED_MERGE(a, b)                                                                      \
  do {                                                                                             \
    if constexpr (Op::has_identity) {                                                              \
      (a).v = op.reduce((a).v, (b).v);                                                             \
    } else if ((b).have) {                                                                         \
      (a).v = (a).have ? op.reduce((a).v, (b).v) : (b).v;                                          \
      (a).have = true;                                                                             \
    }                                                                                              \
  } while (0)

/* off[k] += the offset (in elements) of `index`, a flat index in C order over nd axes of
 * extents shape[] and strides strides[k][] in operand k, for k < nops.  CLASS, one of
 * CUARR_RED_AXES_*, says how many axes there are: ONE needs no division, NONE adds nothing. */
#define CUARR_RED_OFFSETS(CLASS, index, nd, shape, strides, nops, off)                             \
  do {                                                                                             \
    if constexpr ((CLASS) != CUARR_RED_AXES_NONE) {                                                \
      I cuarr_q_ = (index);                                                                        \
      if constexpr ((CLASS) == CUARR_RED_AXES_ANY) {                                               \
        for (int cuarr_d_ = (int)(nd)-1; cuarr_d_ > 0; --cuarr_d_) {                               \
          const I cuarr_r_ = cuarr_q_ / (shape)[cuarr_d_];                                         \
          _Pragma("unroll") for (int cuarr_k_ = 0; cuarr_k_ < (nops);                              \
                                 ++cuarr_k_)(off)[cuarr_k_] +=                                     \
              (S)(cuarr_q_ - cuarr_r_ * (shape)[cuarr_d_]) * (strides)[cuarr_k_][cuarr_d_];        \
          cuarr_q_ = cuarr_r_;                                                                     \
        }                                                                                          \
      }                                                                                            \
      _Pragma("unroll") for (int cuarr_k_ = 0; cuarr_k_ < (nops); ++cuarr_k_)(off)[cuarr_k_] +=    \
          (S)cuarr_q_ * (strides)[cuarr_k_][0]; /* the index is below shape[0] now */              \
    }                                                                                              \
  } while (0)

/* Combine the V accumulators acc[] of each thread (acc[e] with the same e of the other lanes)
 * over each row of the block (Y false: the blockDim.x lanes of a row y; lane 0 ends with the
 * result) or each column (Y: the blockDim.y lanes of a column x; lane y = 0 ends with it), in a
 * fixed tree through sh (CUARR_RED_THREADS * V accumulators of shared memory): lane i takes
 * lane i + s, s halving from half the lanes, so that one input gives the same bits on every
 * run.  blockDim.x and blockDim.y are powers of two.  (A tree of warp shuffles and one
 * exchange between the warps compiles 2 ms slower, and runs no faster with 256 threads.) */
#define CUARR_RED_BLOCK(Y, V, acc, sh)                                                             \
  do {                                                                                             \
    const unsigned cuarr_t_ = threadIdx.y * blockDim.x + threadIdx.x;                              \
    const unsigned cuarr_lane_ = (Y) ? threadIdx.y : threadIdx.x;                                  \
    const unsigned cuarr_lstep_ = (Y) ? blockDim.x : 1;                                            \
    _Pragma("unroll") for (int cuarr_e_ = 0; cuarr_e_ < (V);                                       \
                           ++cuarr_e_)(sh)[cuarr_t_ * (V) + cuarr_e_] = (acc)[cuarr_e_];           \
    __syncthreads();                                                                               \
    for (unsigned cuarr_s_ = ((Y) ? blockDim.y : blockDim.x) / 2; cuarr_s_ > 0; cuarr_s_ >>= 1) {  \
      if (cuarr_lane_ < cuarr_s_) {                                                                \
        _Pragma("unroll") for (int cuarr_e_ = 0; cuarr_e_ < (V); ++cuarr_e_) {                     \
          CUARR_RED_MERGE((acc)[cuarr_e_],                                                         \
                          (sh)[(cuarr_t_ + cuarr_s_ * cuarr_lstep_) * (V) + cuarr_e_]);            \
          (sh)[cuarr_t_ * (V) + cuarr_e_] = (acc)[cuarr_e_];                                       \
        }                                                                                          \
      }                                                                                            \
      __syncthreads();                                                                             \
    }                                                                                              \
  } while (0)

/* The next kernel on the stream (a programmatic dependent, which waits for this one to finish
 * before touching memory) may be scheduled from here on: done when a block's loads are done.
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

/* ---------------------------------------------------------------- rows */

/* The bodies' template parameters: In and Out, the storage types of the first array input and
 * of the output; I and S, the index and offset types; NIN, the array inputs; VEC, elements a
 * vector (1: element by element through map_at); SPLIT: the grid may split the reduced range
 * (gridDim.y > 1), and the kernel has the code that finishes a split -- without it (gridDim.y
 * == 1, which the host ensures) a kernel is smaller and a new one compiles faster, and every
 * small reduction takes one column of blocks; KEPT and RED, the classes of the kept and reduced
 * axes (CUARR_RED_AXES_*). */

/* Rows: blockDim.x lanes share output o.  VEC > 1: one array input whose reduced axis is a
 * single one of stride 1, every row aligned for VEC-element vectors (the host checks); the
 * last n_red % VEC elements of a row, after its last whole vector, go one each to the first
 * split's first lanes (blockDim.x >= VEC, which the host ensures).  With gridDim.y > 1 each
 * block takes a share of every row of its outputs; partials are [output][split]. */
template <class Op, typename In, typename Out, typename I, typename S, int NIN, int VEC, bool SPLIT,
          int KEPT, int RED>
__device__ __forceinline__ void
cuarr_reduce_rows(const Op &op, const In *in0, Out *out, typename Op::acc_t *partial,
                  unsigned int *counters, const cuarr_red_layout<I, S, NIN> &L) {
  typedef cuarr_red_acc<Op> A;
  __shared__ __align__(16) unsigned char raw[CUARR_RED_THREADS * sizeof(A)];
  A *sh = (A *)raw;
  const I o = (I)blockIdx.x * blockDim.y + threadIdx.y;
  const I split = SPLIT ? (I)blockIdx.y : 0, splits = SPLIT ? (I)gridDim.y : 1;
  A acc[1];
  CUARR_RED_START(acc[0]);
  S koff[NIN + 1] = {};
  if (o < L.n_out) {
    CUARR_RED_OFFSETS(KEPT, o, L.ndo, L.shape_o, L.so, NIN + 1, koff);
    const I step = (I)blockDim.x * splits;
    I v = split * blockDim.x + threadIdx.x;
    if constexpr (VEC > 1) {
      const cuarr_red_vec<In, VEC> *p = (const cuarr_red_vec<In, VEC> *)(in0 + koff[0]);
      const I nv = L.n_red / VEC;
      if (v < nv) { /* two vectors in flight: the next one loads while this one adds up */
        cuarr_red_vec<In, VEC> a = p[v];
        for (;;) {
          const I w = v + step;
          cuarr_red_vec<In, VEC> b;
          if (w < nv)
            b = p[w];
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            CUARR_RED_ADD(acc[0], op.map1(a.v[e], o, v * VEC + e));
          if (w >= nv)
            break;
          a = b;
          v = w;
        }
      }
      const I j = nv * VEC + threadIdx.x; /* the tail */
      if (split == 0 && j < L.n_red)
        CUARR_RED_ADD(acc[0], op.map1(in0[koff[0] + (S)j], o, j));
    } else {
      S off[NIN + 1];
      for (; v < L.n_red; v += step) {
#pragma unroll
        for (int k = 0; k < NIN; ++k)
          off[k] = koff[k];
        CUARR_RED_OFFSETS(RED, v, L.ndr, L.shape_r, L.sr, NIN, off);
        CUARR_RED_ADD(acc[0], op.map_at(off, o, v));
      }
    }
  }
  CUARR_RED_LET_NEXT_IN();
  CUARR_RED_BLOCK(false, 1, acc, sh);
  if constexpr (SPLIT) {
    if (threadIdx.x == 0 && o < L.n_out)
      partial[o * splits + split] = acc[0].v;
    if (!cuarr_red_last_block(counters))
      return;
    CUARR_RED_START(acc[0]);
    if (o < L.n_out)
      for (I s = threadIdx.x; s < splits; s += blockDim.x)
        CUARR_RED_ADD_WITH(reduce, acc[0], partial[o * splits + s]);
    CUARR_RED_BLOCK(false, 1, acc, sh);
  }
  if (threadIdx.x == 0 && o < L.n_out)
    op.post(acc[0].v, out + koff[NIN], o);
}

/* ---------------------------------------------------------------- cols */

/* Cols: thread x takes outputs o .. o + VEC - 1 (consecutive along the innermost kept axis,
 * whose extent is a multiple of VEC; with VEC > 1 there is one array input and it steps 1
 * along that axis, aligned for vectors); blockDim.y lanes, and gridDim.y blocks, split the
 * reduced range.  Partials are [split][output]. */
template <class Op, typename In, typename Out, typename I, typename S, int NIN, int VEC, bool SPLIT,
          int KEPT, int RED>
__device__ __forceinline__ void
cuarr_reduce_cols(const Op &op, const In *in0, Out *out, typename Op::acc_t *partial,
                  unsigned int *counters, const cuarr_red_layout<I, S, NIN> &L) {
  typedef cuarr_red_acc<Op> A;
  __shared__ __align__(16) unsigned char raw[CUARR_RED_THREADS * VEC * sizeof(A)];
  A *sh = (A *)raw;
  const I o = ((I)blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  const I split = SPLIT ? (I)blockIdx.y : 0, splits = SPLIT ? (I)gridDim.y : 1;
  A acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    CUARR_RED_START(acc[e]);
  S koff[NIN + 1] = {};
  if (o < L.n_out) {
    CUARR_RED_OFFSETS(KEPT, o, L.ndo, L.shape_o, L.so, NIN + 1, koff);
    const I step = (I)blockDim.y * splits;
    I j = split * blockDim.y + threadIdx.y;
    S off[NIN + 1];
    if constexpr (VEC > 1) {
      if constexpr (RED == CUARR_RED_AXES_ONE) { /* four rows in flight */
        const S rs = L.sr[0][0];
        for (; j + 3 * step < L.n_red; j += 4 * step) {
          cuarr_red_vec<In, VEC> v[4];
#pragma unroll
          for (int u = 0; u < 4; ++u)
            v[u] = *(const cuarr_red_vec<In, VEC> *)(in0 + koff[0] + (S)(j + u * step) * rs);
#pragma unroll
          for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int e = 0; e < VEC; ++e)
              CUARR_RED_ADD(acc[e], op.map1(v[u].v[e], o + e, j + u * step));
        }
      }
      for (; j < L.n_red; j += step) {
        off[0] = koff[0];
        CUARR_RED_OFFSETS(RED, j, L.ndr, L.shape_r, L.sr, 1, off);
        const cuarr_red_vec<In, VEC> a = *(const cuarr_red_vec<In, VEC> *)(in0 + off[0]);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          CUARR_RED_ADD(acc[e], op.map1(a.v[e], o + e, j));
      }
    } else {
      for (; j < L.n_red; j += step) {
#pragma unroll
        for (int k = 0; k < NIN; ++k)
          off[k] = koff[k];
        CUARR_RED_OFFSETS(RED, j, L.ndr, L.shape_r, L.sr, NIN, off);
        CUARR_RED_ADD(acc[0], op.map_at(off, o, j));
      }
    }
  }
  CUARR_RED_LET_NEXT_IN();
  CUARR_RED_BLOCK(true, VEC, acc, sh);
  if constexpr (SPLIT) {
    if (threadIdx.y == 0 && o < L.n_out) {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        partial[split * L.n_out + o + e] = acc[e].v;
    }
    if (!cuarr_red_last_block(counters))
      return;
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      CUARR_RED_START(acc[e]);
    if (o < L.n_out)
      for (I s = threadIdx.y; s < splits; s += blockDim.y)
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          CUARR_RED_ADD_WITH(reduce, acc[e], partial[s * L.n_out + o + e]);
    CUARR_RED_BLOCK(true, VEC, acc, sh);
  }
  if (threadIdx.y == 0 && o < L.n_out) {
    const S ostep = KEPT == CUARR_RED_AXES_ANY ? L.so[NIN][L.ndo - 1] : L.so[NIN][0];
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      op.post(acc[e].v, out + koff[NIN] + (S)e * ostep, o + e);
  }
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
  if constexpr (sizeof(T) == 4 && cuarr_type<T>::kind == CUARR_KIND_FLOAT)
    return __int_as_float(0x7f800000);
  else if constexpr (cuarr_type<T>::kind == CUARR_KIND_FLOAT)
    return __longlong_as_double(0x7ff0000000000000ll);
  else if constexpr (cuarr_type<T>::kind == CUARR_KIND_BOOL)
    return true;
  else
    return cuarr_type<T>::max;
}
template <typename T> __device__ __forceinline__ T cuarr_red_lo() {
  if constexpr (cuarr_type<T>::kind == CUARR_KIND_FLOAT)
    return -cuarr_red_hi<T>();
  else if constexpr (cuarr_type<T>::kind == CUARR_KIND_BOOL)
    return false;
  else
    return cuarr_type<T>::min;
}
template <typename T> __device__ __forceinline__ T cuarr_red_nan_or_hi() {
  if constexpr (cuarr_type<T>::kind == CUARR_KIND_FLOAT)
    return (T)__int_as_float(0x7fffffff);
  else
    return cuarr_red_hi<T>();
}
template <typename T> __device__ __forceinline__ T cuarr_red_nan_or_lo() {
  if constexpr (cuarr_type<T>::kind == CUARR_KIND_FLOAT)
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
