/*
 * histogram.cu -- values counted into bins in one launch: bincount (a value is its own bin),
 * histogram with uniform bins (the bin computed from the value, then checked against the edges)
 * and with edges given (a binary search of the edges).
 *
 * Templates only: the generator (src/core/histogram/histogram_source.c) appends one extern "C"
 * kernel per specialisation after common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_histogram_uniform_float32_w_none_shared(const float *x, const cuarr_hist_none *w,
 *       unsigned long long *out, cuarr_hist_params p)
 *   { cuarr_histogram<1, true, float, cuarr_hist_none, unsigned long long>(x, w, out, p); }
 *
 * x and the weights are C-contiguous and 1-D (the host copies other layouts first).  The
 * accumulator is unsigned long long (counts, and integer weights summed in int64's two's
 * complement) or double (float weights).  With SHARED each block first counts into its own
 * copies of the bins in shared memory (cuarr_hist_smem: the host chooses it when they fit, and
 * as many copies as fit up to one per warp, so that few bins are not one hot spot), then adds
 * each bin's total over the copies, when nonzero, to the output with one global atomic: the
 * heavy traffic of few bins stays on the multiprocessor.  Otherwise every element is one
 * atomic on the output.  The output is zeroed before the launch.
 */

#define CUARR_HIST_VALUE 0
#define CUARR_HIST_UNIFORM 1
#define CUARR_HIST_EDGES 2

/* The weight type of an unweighted count: every element adds 1. */
struct cuarr_hist_none {};

/* The launch's description; every member 8 bytes, no padding (the host writes the same struct,
 * src/core/histogram/bin_count.c). */
struct cuarr_hist_params {
  unsigned long long n;      /* elements of x */
  unsigned long long nbins;  /* at least 1 */
  const double *edges;       /* UNIFORM, EDGES: the nbins + 1 edges, increasing */
  double lo, hi;             /* edges[0] and edges[nbins] */
  unsigned long long copies; /* SHARED: copies of the bins per block (1..warps per block) */
};

extern __shared__ unsigned long long cuarr_hist_smem[];

/* The bin of value v, or -1 when it falls in none.  VALUE: v itself when in [0, nbins).
 * UNIFORM and EDGES: v as a double (exact for every dtype but 64-bit integers beyond 2^53), in
 * [lo, hi] (NaN in none), in the bin i with edges[i] <= v < edges[i + 1], the last bin closed;
 * with equal edges, the last bin starting at or below v. */
template <int RULE, typename T>
__device__ __forceinline__ long long cuarr_hist_bin(T v, const cuarr_hist_params &p) {
  if (RULE == CUARR_HIST_VALUE) {
    const long long b = cuarr_cast<long long>(v);
    return b >= 0 && (unsigned long long)b < p.nbins ? b : -1;
  }
  const double x = cuarr_cast<double>(v);
  if (!(x >= p.lo && x <= p.hi))
    return -1;
  const long long last = (long long)p.nbins - 1;
  if (RULE == CUARR_HIST_UNIFORM) {
    /* NumPy's guess, (x - lo) / (hi - lo) * n, each step rounded on its own (no contraction),
     * then moved until the edges agree: the edges decide, as NumPy's correction does. */
    const double f =
        cuarr_dmul_rn(__ddiv_rn(__dsub_rn(x, p.lo), __dsub_rn(p.hi, p.lo)), (double)p.nbins);
    long long b = f >= (double)last ? last : f > 0.0 ? (long long)f : 0;
    while (b > 0 && x < p.edges[b])
      b--;
    while (b < last && x >= p.edges[b + 1])
      b++;
    return b;
  }
  if (x == p.hi)
    return last;
  /* edges[0] <= x < edges[nbins]: the first edge above x, found in [1, nbins]. */
  long long lo = 1, hi = (long long)p.nbins;
  while (lo < hi) {
    const long long mid = lo + ((hi - lo) >> 1);
    if (p.edges[mid] > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo - 1;
}

template <typename ACC, typename W>
__device__ __forceinline__ ACC cuarr_hist_load_weight(const W *w, unsigned long long i) {
  /* Integer weights add in int64's two's complement (an unsigned accumulator wraps the same). */
  if constexpr (cuarr_is_integer<ACC>())
    return (ACC)cuarr_cast<long long>(cuarr_load(w + i));
  else
    return cuarr_cast<ACC>(cuarr_load(w + i));
}
template <typename ACC>
__device__ __forceinline__ ACC cuarr_hist_load_weight(const cuarr_hist_none *, unsigned long long) {
  return (ACC)1;
}

template <int RULE, bool SHARED, typename T, typename W, typename ACC>
__device__ __forceinline__ void cuarr_histogram(const T *x, const W *w, ACC *out,
                                                const cuarr_hist_params &p) {
  const unsigned long long n = p.n, nbins = p.nbins;
  /* SHARED: warp w counts into copy w % copies, so that fewer threads contend for a bin. */
  ACC *bins = out;
  if (SHARED) {
    ACC *all = (ACC *)cuarr_hist_smem;
    for (unsigned long long b = threadIdx.x; b < nbins * p.copies; b += blockDim.x)
      all[b] = (ACC)0;
    bins = all + (threadIdx.x / 32u % p.copies) * nbins;
    __syncthreads();
  }
  const unsigned long long step = cuarr_thread_count<unsigned long long>();
  for (unsigned long long i = cuarr_thread_index<unsigned long long>(); i < n; i += step) {
    const long long b = cuarr_hist_bin<RULE>(cuarr_load(x + i), p);
    if (b >= 0)
      atomicAdd(bins + b, cuarr_hist_load_weight<ACC>(w, i));
  }
  if (SHARED) {
    __syncthreads();
    const ACC *all = (const ACC *)cuarr_hist_smem;
    for (unsigned long long b = threadIdx.x; b < nbins; b += blockDim.x) {
      ACC v = all[b];
      for (unsigned long long c = 1; c < p.copies; c++)
        v += all[c * nbins + b];
      if (v != (ACC)0)
        atomicAdd(out + b, v);
    }
  }
}
