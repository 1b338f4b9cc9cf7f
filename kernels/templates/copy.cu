/*
 * copy.cu -- dst[...] = src[...] with dtype conversion (cuarr_cast), for any strides.
 *
 * Templates only: the generator (src/core/copy/copy_source.c) appends one extern "C" kernel
 * per specialisation, named for it, after common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_copy_float32_to_int8_nd2_i32(signed char *dst, const float *src,
 *                                      cuarr_layout<unsigned int, 2, 2> p)
 *   { cuarr_copy_strided<4, false>(dst, src, p); }
 *
 * Operand 0 of the layout is dst, operand 1 is src; strides are in elements (common.cuh).
 * The variants:
 *  - contig: both 1-D with stride 1 (n elements from each pointer); moves 16 bytes per access
 *    when the pointers allow it.  (Same-dtype contiguous copies are cuMemcpyDtoDAsync.)
 *  - nd1..nd4: that many axes after collapsing, 32-bit indexing;
 *  - ndN: up to 32 axes, the count given at run time; with 32-bit or 64-bit indexing.  Only
 *    contig and ndN come with 64-bit indexing: arrays that large are rare, and there the 64-bit
 *    divisions cost more than the loop over the axes.
 * Same-dtype strided copies use the unsigned type of the width (float32 -> uint32), since a
 * copy only moves bits: one kernel serves int32, uint32 and float32.
 * Layouts where dst and src are contiguous along different axes (m.T:copy()) go to the tiled
 * kernel of transpose.cu instead, which reads and writes both in whole sectors.
 */

/* Each thread keeps BATCH independent loads in flight before its first store (the fixed
 * variants take 4; the generic one 2, as its code grows with the batch and compiles slowly). */
template <int BATCH, bool GENERIC, typename D, typename S, typename I, int ND>
__device__ __forceinline__ void cuarr_copy_strided(D *dst, const S *src,
                                                   const cuarr_layout<I, ND, 2> &p) {
  const I n = p.n, step = cuarr_thread_count<I>();
  for (I i0 = cuarr_thread_index<I>(); i0 < n; i0 += step * BATCH) {
    S value[BATCH];
    I dst_off[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const I i = i0 + (I)u * step;
      if (i < n) {
        I off[2];
        cuarr_offsets<GENERIC>(p, i, off);
        dst_off[u] = off[0];
        value[u] = cuarr_load(src + off[1]);
      }
    }
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      if (i0 + (I)u * step < n)
        dst[dst_off[u]] = cuarr_cast<D>(value[u]);
    }
  }
}

/* Both contiguous.  V elements move per access, V = 16 bytes / the wider itemsize, as structs
 * aligned to their size, so that each becomes one vector load or store (float32 -> float16:
 * ld.v4.f32 then one 8-byte store).  The vectors start where src reaches a V-element boundary
 * (`head` elements in); they are used when dst is aligned at that element as well, which holds
 * for any two arrays that start on the same element of their allocations.  The few elements
 * before and after are copied one by one. */
template <typename D, typename S, typename I>
__device__ __forceinline__ void cuarr_copy_contig(D *dst, const S *src, I n) {
  constexpr int V = 16 / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
  struct alignas(sizeof(S) * V) SV {
    S v[V];
  };
  struct alignas(sizeof(D) * V) DV {
    D v[V];
  };
  const I first = cuarr_thread_index<I>(), step = cuarr_thread_count<I>();
  /* src is aligned to its itemsize (the host checks), so this is a whole number of elements. */
  const I head = (I)((sizeof(SV) - (unsigned long long)src % sizeof(SV)) % sizeof(SV) / sizeof(S));
  const bool vectors = head <= n && (unsigned long long)(dst + head) % sizeof(DV) == 0;
  if (vectors) {
    const I nv = (n - head) / V, tail = head + nv * V;
    const SV *sv = (const SV *)(src + head);
    DV *dv = (DV *)(dst + head);
    for (I j0 = first; j0 < nv; j0 += 2 * step) {
      const I j1 = j0 + step;
      const SV a = sv[j0];
      SV b;
      if (j1 < nv)
        b = sv[j1];
      DV r;
#pragma unroll
      for (int k = 0; k < V; ++k)
        r.v[k] = cuarr_cast<D>(cuarr_load(&a.v[k]));
      dv[j0] = r;
      if (j1 < nv) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          r.v[k] = cuarr_cast<D>(cuarr_load(&b.v[k]));
        dv[j1] = r;
      }
    }
    /* The head and the tail: fewer than 2V elements, one thread each. */
    const I rest = head + (n - tail);
    if (first < rest) {
      const I i = first < head ? first : tail + (first - head);
      dst[i] = cuarr_cast<D>(cuarr_load(src + i));
    }
    return;
  }
  /* Misaligned pointers (rare: arrays starting at different elements of their allocations). */
  for (I i = first; i < n; i += step)
    dst[i] = cuarr_cast<D>(cuarr_load(src + i));
}

/* A reversed run (flip(a):copy() of a contiguous a): dst[i] = src[-i], src pointing at the
 * element for dst[0] and the run lying below it, one dtype (moved as bits).  Both sides are
 * contiguous, so V = 16 / sizeof(T) elements move per access as with cuarr_copy_contig: dst
 * vector j takes the source vector ending where dst[head + jV] comes from, its lanes in reverse.
 * Vectors are used when that source vector is aligned as well (an array whose length is a
 * multiple of V, flipped whole, starting on the same element of its allocation as dst);
 * otherwise each thread copies elements, which are still read in whole sectors. */
template <typename T, typename I>
__device__ __forceinline__ void cuarr_copy_reversed(T *dst, const T *src, I n) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) TV {
    T v[V];
  };
  const I first = cuarr_thread_index<I>(), step = cuarr_thread_count<I>();
  const I head = (I)((16 - (unsigned long long)dst % 16) % 16 / sizeof(T));
  const bool vectors = head <= n && (unsigned long long)(src - (long long)head - (V - 1)) % 16 == 0;
  if (vectors) {
    const I nv = (n - head) / V, tail = head + nv * V;
    TV *dv = (TV *)(dst + head);
    /* sv[-j] is the source of dv[j] */
    const TV *sv = (const TV *)(src - (long long)head - (V - 1));
    for (I j0 = first; j0 < nv; j0 += 2 * step) {
      const I j1 = j0 + step;
      const TV a = *(sv - (long long)j0);
      TV b;
      if (j1 < nv)
        b = *(sv - (long long)j1);
      TV r;
#pragma unroll
      for (int k = 0; k < V; ++k)
        r.v[k] = a.v[V - 1 - k];
      dv[j0] = r;
      if (j1 < nv) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          r.v[k] = b.v[V - 1 - k];
        dv[j1] = r;
      }
    }
    /* The head and the tail: fewer than 2V elements. */
    const I rest = head + (n - tail);
    for (I q = first; q < rest; q += step) {
      const I i = q < head ? q : tail + (q - head);
      dst[i] = src[-(long long)i];
    }
    return;
  }
  for (I i = first; i < n; i += step)
    dst[i] = src[-(long long)i];
}
