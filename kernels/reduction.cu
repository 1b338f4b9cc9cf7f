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

/* The layout the host packs (all fields I or S, which have one size: no padding).  Strides are
 * in elements of each operand; so[NIN] is the output's, along the kept axes. */
template <typename I, typename S, int NIN> struct cuarr_red_layout {
  I n_out, n_red, ndo, ndr;
  I shape_o[CUARR_RED_MAXDIM];
  I shape_r[CUARR_RED_MAXDIM];
  S so[NIN + 1][CUARR_RED_MAXDIM];
  S sr[NIN > 0 ? NIN : 1][CUARR_RED_MAXDIM];
};

/* Offsets (in elements) of output o in every operand, from the kept axes. */
template <typename I, typename S, int NIN>
__device__ __forceinline__ void cuarr_red_kept(const cuarr_red_layout<I, S, NIN> &L, I o,
                                               S (&off)[NIN + 1]) {
#pragma unroll
  for (int k = 0; k <= NIN; ++k)
    off[k] = 0;
  for (int d = (int)L.ndo - 1; d >= 0; --d) {
    I e = L.shape_o[d], q = d > 0 ? o / e : 0, idx = d > 0 ? o - q * e : o;
    o = q;
#pragma unroll
    for (int k = 0; k <= NIN; ++k)
      off[k] += (S)idx * L.so[k][d];
  }
}

/* Offsets of reduced element j, added to base[k]. */
template <typename I, typename S, int NIN>
__device__ __forceinline__ void cuarr_red_reduced(const cuarr_red_layout<I, S, NIN> &L, I j,
                                                  const S (&base)[NIN + 1], S (&off)[NIN + 1]) {
#pragma unroll
  for (int k = 0; k < NIN; ++k)
    off[k] = base[k];
  if (L.ndr == 1) {
#pragma unroll
    for (int k = 0; k < NIN; ++k)
      off[k] += (S)j * L.sr[k][0];
    return;
  }
  for (int d = (int)L.ndr - 1; d >= 0; --d) {
    I e = L.shape_r[d], q = d > 0 ? j / e : 0, idx = d > 0 ? j - q * e : j;
    j = q;
#pragma unroll
    for (int k = 0; k < NIN; ++k)
      off[k] += (S)idx * L.sr[k][d];
  }
}

/* An accumulator with a "seen a value" flag for operations without an identity (user
 * kernels); without identity, combining with an empty side keeps the other. */
template <class Op> struct cuarr_red_acc {
  typename Op::acc_t v;
  bool have;
};

template <class Op> __device__ __forceinline__ cuarr_red_acc<Op> cuarr_red_start(const Op &op) {
  cuarr_red_acc<Op> a;
  if constexpr (Op::has_identity)
    a.v = op.identity();
  a.have = false;
  return a;
}

/* Add a thread's next element (later in the reduced order than any it added before). */
template <class Op>
__device__ __forceinline__ void cuarr_red_add(const Op &op, cuarr_red_acc<Op> &a,
                                              const typename Op::acc_t &x) {
  if constexpr (Op::has_identity) {
    a.v = op.fold(a.v, x);
  } else {
    a.v = a.have ? op.fold(a.v, x) : x;
    a.have = true;
  }
}

template <class Op>
__device__ __forceinline__ void cuarr_red_merge(const Op &op, cuarr_red_acc<Op> &a,
                                                const cuarr_red_acc<Op> &b) {
  if constexpr (Op::has_identity) {
    a.v = op.reduce(a.v, b.v);
  } else if (b.have) {
    a.v = a.have ? op.reduce(a.v, b.v) : b.v;
    a.have = true;
  }
}

/* Combine the blockDim.x accumulators of each row y of the block (blockDim.x a power of two);
 * lane 0 of each row ends with the row's result.  `stride` accumulators per thread (cols
 * bodies keep VEC of them): acc[e] combines with the same e of the other lanes. */
template <class Op, int V>
__device__ __forceinline__ void cuarr_red_block_x(const Op &op, cuarr_red_acc<Op> (&acc)[V]) {
  typedef cuarr_red_acc<Op> A;
  __shared__ __align__(16) unsigned char raw[CUARR_RED_THREADS * V * sizeof(A)];
  A *sh = (A *)raw;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
  for (int e = 0; e < V; ++e)
    sh[t * V + e] = acc[e];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        cuarr_red_merge(op, acc[e], sh[(t + s) * V + e]);
        sh[t * V + e] = acc[e];
      }
    }
    __syncthreads();
  }
}

/* Combine along y instead: thread (x, 0) ends with column x's result. */
template <class Op, int V>
__device__ __forceinline__ void cuarr_red_block_y(const Op &op, cuarr_red_acc<Op> (&acc)[V]) {
  typedef cuarr_red_acc<Op> A;
  __shared__ __align__(16) unsigned char raw[CUARR_RED_THREADS * V * sizeof(A)];
  A *sh = (A *)raw;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
  for (int e = 0; e < V; ++e)
    sh[t * V + e] = acc[e];
  __syncthreads();
  for (unsigned s = blockDim.y / 2; s > 0; s >>= 1) {
    if (threadIdx.y < s) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        cuarr_red_merge(op, acc[e], sh[(t + s * blockDim.x) * V + e]);
        sh[t * V + e] = acc[e];
      }
    }
    __syncthreads();
  }
}

template <typename T, int V> struct alignas(sizeof(T) * V) cuarr_red_vec { T v[V]; };

/* The next kernel on the stream (a programmatic dependent, which waits for this one to finish
 * before touching memory) may be scheduled from here on: called when a block's loads are done.
 * Not when the grid is split and has more blocks than the GPU has multiprocessors: the next
 * kernel's blocks would then fill the machine, waiting, beside the blocks that finish the
 * split columns, and slow them (it is let in as this grid's blocks exit anyway). */
__device__ __forceinline__ void cuarr_red_let_next_in() {
#if __CUDA_ARCH__ >= 900
  unsigned sms;
  asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
  if (gridDim.y == 1 || gridDim.x * gridDim.y <= sms)
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}

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

/* Accumulate the elements of the reduced range at j, j + step, ... for output o (offsets koff
 * along the kept axes), element by element through map_at. */
template <class Op, typename I, typename S, int NIN>
__device__ __forceinline__ void cuarr_red_scalar_loop(const Op &op, cuarr_red_acc<Op> &acc,
                                                      const cuarr_red_layout<I, S, NIN> &L,
                                                      const S (&koff)[NIN + 1], I o, I j, I step) {
  S off[NIN + 1];
  if (L.ndr == 1) {
    for (; j < L.n_red; j += step) {
#pragma unroll
      for (int k = 0; k < NIN; ++k)
        off[k] = koff[k] + (S)j * L.sr[k][0];
      cuarr_red_add(op, acc, op.map_at(off, o, j));
    }
  } else {
    for (; j < L.n_red; j += step) {
      cuarr_red_reduced(L, j, koff, off);
      cuarr_red_add(op, acc, op.map_at(off, o, j));
    }
  }
}

/* ---------------------------------------------------------------- rows */

/* SPLIT (both bodies): the grid may split the reduced range (gridDim.y > 1), and the kernel
 * has the code that finishes a split; without it (gridDim.y == 1, which the host ensures) a
 * kernel is smaller and a new one compiles faster: the first call of a ReductionKernel on a
 * range one column of blocks can take (every small reduction) waits for less. */

/* Rows: blockDim.x lanes share output o.  VEC > 1: one array input whose reduced axis is a
 * single one of stride 1, every row aligned for VEC-element vectors (the host checks); the
 * last n_red % VEC elements of a row, after its last whole vector, go one by one to the
 * first split's lanes.  With gridDim.y > 1 each block takes a share of every row of its
 * outputs; partials are [output][split]. */
template <class Op, typename In, typename Out, typename I, typename S, int NIN, int VEC, bool SPLIT>
__device__ __forceinline__ void
cuarr_reduce_rows(const Op &op, const In *in0, Out *out, typename Op::acc_t *partial,
                  unsigned int *counters, const cuarr_red_layout<I, S, NIN> &L) {
  const I o = (I)blockIdx.x * blockDim.y + threadIdx.y;
  const I split = SPLIT ? (I)blockIdx.y : 0, splits = SPLIT ? (I)gridDim.y : 1;
  cuarr_red_acc<Op> acc[1] = {cuarr_red_start(op)};
  S koff[NIN + 1] = {};
  if (o < L.n_out) {
    cuarr_red_kept(L, o, koff);
    const I step = (I)blockDim.x * splits;
    if constexpr (VEC > 1) {
      const cuarr_red_vec<In, VEC> *p = (const cuarr_red_vec<In, VEC> *)(in0 + koff[0]);
      const I nv = L.n_red / VEC;
      I v = split * blockDim.x + threadIdx.x;
      for (; v + step < nv; v += 2 * step) { /* two vectors in flight */
        cuarr_red_vec<In, VEC> a[2];
#pragma unroll
        for (int u = 0; u < 2; ++u)
          a[u] = p[v + u * step];
#pragma unroll
        for (int u = 0; u < 2; ++u)
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            cuarr_red_add(op, acc[0], op.map1(a[u].v[e], o, (v + u * step) * VEC + e));
      }
      for (; v < nv; v += step) {
        const cuarr_red_vec<In, VEC> a = p[v];
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          cuarr_red_add(op, acc[0], op.map1(a.v[e], o, v * VEC + e));
      }
      if (split == 0)
        for (I j = nv * VEC + threadIdx.x; j < L.n_red; j += blockDim.x)
          cuarr_red_add(op, acc[0], op.map1(in0[koff[0] + (S)j], o, j));
    } else {
      cuarr_red_scalar_loop(op, acc[0], L, koff, o, split * blockDim.x + threadIdx.x, step);
    }
  }
  cuarr_red_let_next_in();
  cuarr_red_block_x(op, acc);
  if constexpr (SPLIT) {
    if (threadIdx.x == 0 && o < L.n_out)
      partial[o * splits + split] = acc[0].v;
    if (!cuarr_red_last_block(counters))
      return;
    acc[0] = cuarr_red_start(op);
    if (o < L.n_out)
      for (I s = threadIdx.x; s < splits; s += blockDim.x)
        cuarr_red_merge(op, acc[0], cuarr_red_acc<Op>{partial[o * splits + s], true});
    cuarr_red_block_x(op, acc);
  }
  if (threadIdx.x == 0 && o < L.n_out)
    op.post(acc[0].v, out + koff[NIN], o);
}

/* ---------------------------------------------------------------- cols */

/* Cols: thread x takes outputs o .. o + VEC - 1 (consecutive along the innermost kept axis,
 * whose extent is a multiple of VEC; with VEC > 1 there is one array input and it steps 1
 * along that axis, aligned for vectors); blockDim.y lanes, and gridDim.y blocks, split the
 * reduced range.  Partials are [split][output]. */
template <class Op, typename In, typename Out, typename I, typename S, int NIN, int VEC, bool SPLIT>
__device__ __forceinline__ void
cuarr_reduce_cols(const Op &op, const In *in0, Out *out, typename Op::acc_t *partial,
                  unsigned int *counters, const cuarr_red_layout<I, S, NIN> &L) {
  const I o = ((I)blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  const I split = SPLIT ? (I)blockIdx.y : 0, splits = SPLIT ? (I)gridDim.y : 1;
  cuarr_red_acc<Op> acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = cuarr_red_start(op);
  S koff[NIN + 1] = {};
  if (o < L.n_out) {
    cuarr_red_kept(L, o, koff);
    const I step = (I)blockDim.y * splits;
    I j = split * blockDim.y + threadIdx.y;
    if constexpr (VEC > 1) {
      if (L.ndr == 1) { /* four rows in flight */
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
              cuarr_red_add(op, acc[e], op.map1(v[u].v[e], o + e, j + u * step));
        }
      }
      S off[NIN + 1];
      for (; j < L.n_red; j += step) {
        cuarr_red_reduced(L, j, koff, off);
        const cuarr_red_vec<In, VEC> a = *(const cuarr_red_vec<In, VEC> *)(in0 + off[0]);
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          cuarr_red_add(op, acc[e], op.map1(a.v[e], o + e, j));
      }
    } else {
      cuarr_red_scalar_loop(op, acc[0], L, koff, o, j, step);
    }
  }
  cuarr_red_let_next_in();
  cuarr_red_block_y(op, acc);
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
      acc[e] = cuarr_red_start(op);
    if (o < L.n_out)
      for (I s = threadIdx.y; s < splits; s += blockDim.y)
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          cuarr_red_merge(op, acc[e], cuarr_red_acc<Op>{partial[s * L.n_out + o + e], true});
    cuarr_red_block_y(op, acc);
  }
  if (threadIdx.y == 0 && o < L.n_out) {
    const S ostep = L.so[NIN][L.ndo - 1];
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
