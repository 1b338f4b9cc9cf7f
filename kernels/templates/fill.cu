/*
 * fill.cu -- every element of a strided array = one value.
 *
 * Templates only; the generator appends one extern "C" kernel per specialisation, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_fill_u32_nd2_i32(unsigned int *dst, unsigned int value,
 *                          cuarr_layout<unsigned int, 2, 1> p)
 *   { cuarr_fill_strided<false>(dst, value, p); }
 *
 * A fill only writes bits: the host converts the value to the array's dtype (with
 * cuarr_scalar_store) and the kernels take it as the unsigned integer of the itemsize, so four
 * types (u8, u16, u32, u64) serve the twelve dtypes.  Variants as copy.cu's: contig (1-D,
 * stride 1, 16-byte stores where aligned), nd1..nd4 (32-bit indexing), ndN.
 */

template <bool GENERIC, typename T, typename I, int ND>
__device__ __forceinline__ void cuarr_fill_strided(T *dst, T value,
                                                   const cuarr_layout<I, ND, 1> &p) {
  const I n = p.n, step = cuarr_thread_count<I>();
  for (I i = cuarr_thread_index<I>(); i < n; i += step) {
    I off[1];
    cuarr_offsets<GENERIC>(p, i, off);
    dst[off[0]] = value;
  }
}

/* Contiguous: 16-byte stores from the first 16-byte boundary on, single elements before and
 * after it (dst is aligned to its itemsize, so the boundary is a whole number of elements). */
template <typename T, typename I>
__device__ __forceinline__ void cuarr_fill_contig(T *dst, T value, I n) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) TV {
    T v[V];
  };
  const I first = cuarr_thread_index<I>(), step = cuarr_thread_count<I>();
  const I head = (I)((16 - (unsigned long long)dst % 16) % 16 / sizeof(T));
  if (head > n) { /* fewer elements than reach the boundary */
    if (first < n)
      dst[first] = value;
    return;
  }
  TV pattern;
#pragma unroll
  for (int k = 0; k < V; ++k)
    pattern.v[k] = value;
  const I nv = (n - head) / V, tail = head + nv * V;
  TV *dv = (TV *)(dst + head);
  for (I j = first; j < nv; j += step)
    dv[j] = pattern;
  const I rest = head + (n - tail); /* below 2V: one thread each */
  if (first < rest)
    dst[first < head ? first : tail + (first - head)] = value;
}
