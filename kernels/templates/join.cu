/*
 * join.cu -- concatenate: k source arrays copied into one output in a single launch.
 *
 * Templates only: the generator (src/core/join/join_source.c) appends one extern "C" kernel
 * per specialisation after common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_join_float32_from_mixed_nd2_k8_i32(float *dst, cuarr_join_params<unsigned int, 2, 8> p)
 *   { cuarr_join<4, true, float, float>(dst, p); }
 *
 * The grid walks the output (C order over its collapsed shape); each element finds its source
 * by a binary search of the sources' first positions along the joining axis (`start`, strictly
 * increasing: the host leaves out the sources of extent 0), then reads that source through its
 * own strides and converts to the output's dtype.  Sources of one dtype have it as a template
 * argument (the same dtype as the output: the unsigned type of its width, a copy of bits);
 * sources of several dtypes (MIXED) carry a dtype code each (cuarr_dtype's order: bool int8
 * int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64), read through a switch.
 *
 * Strides are in elements, stored wrapped in I (negative ones in two's complement); an offset is
 * computed modulo 2^bits and read back as signed, which is exact because the host chose I wide
 * enough for every offset (32-bit only when each lies in int32's range).  Pointers are each
 * operand's element (0, ..., 0).
 */

template <typename I> struct cuarr_join_signed;
template <> struct cuarr_join_signed<unsigned int> { typedef int type; };
template <> struct cuarr_join_signed<unsigned long long> { typedef long long type; };

/* The launch's description.  The 64-bit addresses come first and every other member has type
 * I, so the struct has no padding inside: the host fills it as base[K] then a flat array of I
 * (copy of this order in src/core/join/concatenate.c). */
template <typename I, int ND, int K> struct cuarr_join_params {
  unsigned long long base[K]; /* source k's element (0, ..., 0) */
  I n;                        /* output elements */
  I nsrc;                     /* sources in use, 1..K */
  I axis;                     /* the joining axis among the ND */
  I shape[ND];                /* the output's; shape[axis] is the sum of the sources' */
  I out_strides[ND];
  I start[K]; /* source k's first position along the axis */
  I strides[K][ND];
  I dtype[K]; /* MIXED: source k's dtype code */
};

template <typename D, typename J>
__device__ __forceinline__ D cuarr_join_load_any(unsigned code, unsigned long long base, J off) {
  switch (code) {
  case 0: return cuarr_cast<D>(cuarr_load((const bool *)base + off));
  case 1: return cuarr_cast<D>(cuarr_load((const signed char *)base + off));
  case 2: return cuarr_cast<D>(cuarr_load((const short *)base + off));
  case 3: return cuarr_cast<D>(cuarr_load((const int *)base + off));
  case 4: return cuarr_cast<D>(cuarr_load((const long long *)base + off));
  case 5: return cuarr_cast<D>(cuarr_load((const unsigned char *)base + off));
  case 6: return cuarr_cast<D>(cuarr_load((const unsigned short *)base + off));
  case 7: return cuarr_cast<D>(cuarr_load((const unsigned int *)base + off));
  case 8: return cuarr_cast<D>(cuarr_load((const unsigned long long *)base + off));
  case 9: return cuarr_cast<D>(cuarr_load((const __half_t *)base + off));
  case 10: return cuarr_cast<D>(cuarr_load((const float *)base + off));
  default: return cuarr_cast<D>(cuarr_load((const double *)base + off));
  }
}

/* Each thread keeps BATCH loads in flight before its first store, as the copy kernels do. */
template <int BATCH, bool MIXED, typename D, typename S, typename I, int ND, int K>
__device__ __forceinline__ void cuarr_join(D *dst, const cuarr_join_params<I, ND, K> &p) {
  typedef typename cuarr_join_signed<I>::type J;
  const I n = p.n, step = cuarr_thread_count<I>();
  const int last = (int)p.nsrc - 1, axis = (int)p.axis;
  for (I i0 = cuarr_thread_index<I>(); i0 < n; i0 += step * BATCH) {
    D value[BATCH];
    I dst_off[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const I i = i0 + (I)u * step;
      if (i < n) {
        I idx[ND];
        I rest = i;
#pragma unroll
        for (int d = ND - 1; d > 0; --d) {
          const I q = rest / p.shape[d];
          idx[d] = rest - q * p.shape[d];
          rest = q;
        }
        idx[0] = rest;
        I pos = 0;
#pragma unroll
        for (int d = 0; d < ND; ++d)
          if (d == axis)
            pos = idx[d];
        /* The last source starting at or before pos. */
        int lo = 0, hi = last;
        while (lo < hi) {
          const int mid = (lo + hi + 1) >> 1;
          if (p.start[mid] <= pos)
            lo = mid;
          else
            hi = mid - 1;
        }
        I so = 0, doff = 0;
#pragma unroll
        for (int d = 0; d < ND; ++d) {
          const I x = d == axis ? pos - p.start[lo] : idx[d];
          so += x * p.strides[lo][d];
          doff += idx[d] * p.out_strides[d];
        }
        dst_off[u] = doff;
        if constexpr (MIXED)
          value[u] = cuarr_join_load_any<D>((unsigned)p.dtype[lo], p.base[lo], (J)so);
        else
          value[u] = cuarr_cast<D>(cuarr_load((const S *)p.base[lo] + (J)so));
      }
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      if (i0 + (I)u * step < n)
        dst[(J)dst_off[u]] = value[u];
    }
  }
}

/* The runs specialisation: every source is one contiguous run of bytes and so is the output (a
 * vstack of C-contiguous matrices, a 1-D concatenate), all of one dtype.  The join is then a
 * copy of 16-byte words, which the element-wise walk above (4-byte accesses, an index division
 * per element) does not reach.  The host takes this path only when each source's address and
 * its start in the output agree modulo 16 and the output is 16-byte aligned, so that every word
 * inside one source is an aligned load; a word that straddles two sources, or the output's
 * tail, is copied byte by byte. */
struct alignas(16) cuarr_join_word {
  unsigned long long lo, hi;
};

template <int K> struct cuarr_join_runs_params {
  unsigned long long base[K];  /* source k's first byte */
  unsigned long long start[K]; /* where source k begins in the output, in bytes */
  unsigned long long n;        /* output bytes */
  unsigned long long nsrc;     /* sources in use, 1..K */
};

/* The last source starting at or before byte o. */
template <int K>
__device__ __forceinline__ int cuarr_join_runs_source(const cuarr_join_runs_params<K> &p,
                                                      unsigned long long o) {
  int lo = 0, hi = (int)p.nsrc - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (p.start[mid] <= o)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

template <int BATCH, int K>
__device__ __forceinline__ void cuarr_join_runs(unsigned char *dst,
                                                const cuarr_join_runs_params<K> &p) {
  typedef unsigned long long U;
  const U n = p.n, words = (n + 15) / 16, step = cuarr_thread_count<U>();
  const int last = (int)p.nsrc - 1;
  for (U w0 = cuarr_thread_index<U>(); w0 < words; w0 += step * BATCH) {
    cuarr_join_word value[BATCH];
    bool whole[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const U o = (w0 + (U)u * step) * 16;
      whole[u] = false;
      if (o < n) {
        const int k = cuarr_join_runs_source(p, o);
        const U end = k < last ? p.start[k + 1] : n;
        if (o + 16 <= end) {
          value[u] = *(const cuarr_join_word *)(p.base[k] + (o - p.start[k]));
          whole[u] = true;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const U o = (w0 + (U)u * step) * 16;
      if (whole[u]) {
        *(cuarr_join_word *)(dst + o) = value[u];
      } else if (o < n) {
        for (U b = o; b < o + 16 && b < n; ++b) {
          const int k = cuarr_join_runs_source(p, b);
          dst[b] = *(const unsigned char *)(p.base[k] + (b - p.start[k]));
        }
      }
    }
  }
}
