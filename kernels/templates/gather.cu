/*
 * gather.cu -- indexing with integer arrays (NumPy's advanced indexing, take, put): one launch
 * reads (GATHER), writes (SCATTER) or only checks (CHECK) the elements that up to NI index
 * arrays select, whatever the strides of the array, the index arrays and the other operand.
 *
 * Templates only: the generator (src/core/index/gather_source.c) appends one extern "C" kernel
 * per specialisation after common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_gather_b4_nd2_ni1_i32(cuarr_gather_params<unsigned int, 2, 1> p)
 *   { cuarr_gather<0, 4, unsigned int>(p); }
 *
 * The grid walks the selection (C order over its collapsed shape): each position has an offset
 * into the array `a` over the axes no index array takes (a_strides), an offset into each index
 * array (zero strides where it is broadcast) and one into the other operand (the output of a
 * gather, the values of a scatter, broadcast).  Each index value v becomes a position along its
 * axis of a: raise: v - base for v >= 0 (so that 0 is invalid when base is 1), v + extent for
 * v < 0, and a position outside [0, extent) is recorded in the flag and its element skipped;
 * wrap: that position modulo the extent; clip: v - base clamped into [0, extent).
 *
 * The flag (two 64-bit words, zeroed before the launch) gets, from the first thread that meets
 * a bad index, k + 1 (k: which index array) and then the value, which the host reads after the
 * launch.  A gather's output is discarded then; a scatter is preceded by a CHECK launch over
 * the index arrays alone, so that a bad index leaves a unchanged.
 *
 * Elements are moved as bits (T: the unsigned type of the itemsize; the host converts values to
 * a's dtype beforehand).  Strides are in elements, stored wrapped in I as join.cu's are.
 */

template <typename I> struct cuarr_gather_signed;
template <> struct cuarr_gather_signed<unsigned int> { typedef int type; };
template <> struct cuarr_gather_signed<unsigned long long> { typedef long long type; };

/* The launch's description: the 64-bit addresses first, then members of type I only, so the
 * struct has no padding inside (the host writes it in this order: gather_device.c). */
template <typename I, int ND, int NI> struct cuarr_gather_params {
  unsigned long long a;         /* a's element at offset 0 */
  unsigned long long other;     /* the output (GATHER) or the values (SCATTER) */
  unsigned long long flag;      /* two 64-bit words: k + 1 and the value of a bad index */
  unsigned long long index[NI]; /* index array k's element at offset 0 */
  I n;                          /* positions walked */
  I nidx;                       /* index arrays in use, 1..NI */
  I base;                       /* the value of the first position (0 or 1), wrapped */
  I mode;                       /* 0 raise, 1 wrap, 2 clip */
  I shape[ND];
  I a_strides[ND];
  I other_strides[ND];
  I index_strides[NI][ND];
  I extent[NI]; /* a's extent along index array k's axis */
  I step[NI];   /* a's stride along it */
  I code[NI];   /* index array k's dtype (cuarr_dtype's order: 1 int8 .. 8 uint64) */
};

/* Index value at p + off as a 64-bit signed value (a uint64 beyond int64's range saturates: it
 * is out of bounds either way). */
template <typename J>
__device__ __forceinline__ long long cuarr_gather_index(unsigned code, unsigned long long p,
                                                        J off) {
  switch (code) {
  case 1: return ((const signed char *)p)[off];
  case 2: return ((const short *)p)[off];
  case 3: return ((const int *)p)[off];
  case 5: return ((const unsigned char *)p)[off];
  case 6: return ((const unsigned short *)p)[off];
  case 7: return ((const unsigned int *)p)[off];
  case 8: {
    const unsigned long long u = ((const unsigned long long *)p)[off];
    return u > 0x7fffffffffffffffull ? 0x7fffffffffffffffll : (long long)u;
  }
  default: return ((const long long *)p)[off];
  }
}

/* The position v selects along an axis of extent e; false (raise mode only) when out of range. */
__device__ __forceinline__ bool cuarr_gather_position(long long v, long long e, long long base,
                                                      unsigned mode, long long *pos) {
  if (mode == 2) { /* clip: negative values are no counts from the end, as NumPy's */
    long long q = v - base;
    *pos = q < 0 ? 0 : (q >= e ? e - 1 : q);
    return e > 0;
  }
  long long q = v < 0 ? v + e : v - base;
  if (mode == 1) {
    if (e <= 0)
      return false;
    q %= e;
    *pos = q < 0 ? q + e : q;
    return true;
  }
  *pos = q;
  return q >= 0 && q < e;
}

__device__ __forceinline__ void cuarr_gather_record(unsigned long long flag, int k, long long v) {
  if (!flag)
    return; /* wrap and clip: nothing to record (the host refused empty axes) */
  unsigned long long *f = (unsigned long long *)flag;
  if (atomicCAS(f, 0ull, (unsigned long long)(k + 1)) == 0ull)
    ((volatile long long *)f)[1] = v;
}

/* OP: 0 GATHER (other[o] = a[s]), 1 SCATTER (a[s] = other[o]), 2 CHECK (the index arrays
 * only).  Each thread keeps BATCH positions in flight before its stores, as the copy kernels
 * do: a gather's loads are random, and what hides their latency is how many are pending. */
template <int OP, int BATCH, typename T, typename I, int ND, int NI>
__device__ __forceinline__ void cuarr_gather(const cuarr_gather_params<I, ND, NI> &p) {
  typedef typename cuarr_gather_signed<I>::type J;
  const I n = p.n, stride = cuarr_thread_count<I>();
  const int nidx = (int)p.nidx;
  const unsigned mode = (unsigned)p.mode;
  const long long base = (long long)(J)p.base;
  for (I i0 = cuarr_thread_index<I>(); i0 < n; i0 += stride * BATCH) {
    T value[BATCH];
    J a_off[BATCH], o_off[BATCH];
    bool good[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      const I i = i0 + (I)u * stride;
      good[u] = false;
      if (i < n) {
        I coord[ND];
        I rest = i;
#pragma unroll
        for (int d = ND - 1; d > 0; --d) {
          const I q = rest / p.shape[d];
          coord[d] = rest - q * p.shape[d];
          rest = q;
        }
        coord[0] = rest;
        I ao = 0, oo = 0;
        I io[NI];
#pragma unroll
        for (int k = 0; k < NI; ++k)
          io[k] = 0;
#pragma unroll
        for (int d = 0; d < ND; ++d) {
          ao += coord[d] * p.a_strides[d];
          oo += coord[d] * p.other_strides[d];
#pragma unroll
          for (int k = 0; k < NI; ++k)
            io[k] += coord[d] * p.index_strides[k][d];
        }
        bool ok = true;
#pragma unroll
        for (int k = 0; k < NI; ++k) {
          if (k < nidx) {
            const long long v = cuarr_gather_index((unsigned)p.code[k], p.index[k], (J)io[k]);
            long long pos = 0;
            if (cuarr_gather_position(v, (long long)(J)p.extent[k], base, mode, &pos))
              ao += (I)pos * p.step[k];
            else {
              ok = false;
              cuarr_gather_record(p.flag, k, v);
            }
          }
        }
        good[u] = ok;
        a_off[u] = (J)ao;
        o_off[u] = (J)oo;
        if constexpr (OP == 0)
          value[u] = ok ? ((const T *)p.a)[(J)ao] : (T)0;
        else if constexpr (OP == 1)
          value[u] = ((const T *)p.other)[(J)oo];
      }
    }
    if constexpr (OP != 2) {
#pragma unroll
      for (int u = 0; u < BATCH; ++u) {
        if (i0 + (I)u * stride < n) {
          if constexpr (OP == 0)
            ((T *)p.other)[o_off[u]] = value[u];
          else if (good[u])
            ((T *)p.a)[a_off[u]] = value[u];
        }
      }
    }
  }
}

/* ---------------------------------------------------------------- the flat take */

template <typename T, int N> struct alignas(sizeof(T) * N) cuarr_gather_pack { T v[N]; };

template <typename X> __device__ __forceinline__ long long cuarr_gather_wide(X x) {
  return (long long)x;
}
template <> __device__ __forceinline__ long long cuarr_gather_wide(unsigned long long x) {
  return x > 0x7fffffffffffffffull ? 0x7fffffffffffffffll : (long long)x;
}

/* out[i] = a[position(index[i]) * step] for i < n, the index array (of C type X) and the output
 * contiguous and aligned to VEC elements: the gather of take and of a[idx] on a 1-D array.
 * Each thread reads VEC indices as one vector, keeps their VEC loads in flight and writes the
 * VEC results as one vector; the last n % VEC positions one by one. */
template <int VEC, typename T, typename X, typename I>
__device__ __forceinline__ void cuarr_gather_flat(const cuarr_gather_params<I, 1, 1> &p) {
  typedef typename cuarr_gather_signed<I>::type J;
  const I n = p.n, groups = n / (I)VEC, stride = cuarr_thread_count<I>();
  const long long e = (long long)(J)p.extent[0], base = (long long)(J)p.base;
  const unsigned mode = (unsigned)p.mode;
  const J step = (J)p.step[0];
  const X *index = (const X *)p.index[0];
  const T *a = (const T *)p.a;
  T *out = (T *)p.other;
  for (I g = cuarr_thread_index<I>(); g < groups; g += stride) {
    const cuarr_gather_pack<X, VEC> iv = ((const cuarr_gather_pack<X, VEC> *)index)[g];
    cuarr_gather_pack<T, VEC> ov;
#pragma unroll
    for (int u = 0; u < VEC; ++u) {
      const long long v = cuarr_gather_wide(iv.v[u]);
      long long pos = 0;
      if (cuarr_gather_position(v, e, base, mode, &pos)) {
        ov.v[u] = a[(J)pos * step];
      } else {
        ov.v[u] = (T)0;
        cuarr_gather_record(p.flag, 0, v);
      }
    }
    ((cuarr_gather_pack<T, VEC> *)out)[g] = ov;
  }
  for (I i = groups * (I)VEC + cuarr_thread_index<I>(); i < n; i += stride) {
    const long long v = cuarr_gather_wide(index[i]);
    long long pos = 0;
    if (cuarr_gather_position(v, e, base, mode, &pos)) {
      out[i] = a[(J)pos * step];
    } else {
      out[i] = (T)0;
      cuarr_gather_record(p.flag, 0, v);
    }
  }
}
