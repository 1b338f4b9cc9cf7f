/*
 * mask.cu -- boolean masks: nonzero, selection a[mask] and assignment a[mask] = v.
 *
 * Templates only: the generator (src/core/index/mask_source.c) appends one extern "C" kernel per
 * specialisation after common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_mask_select_w1_e4(cuarr_mask_params p) { cuarr_mask_select<unsigned char, unsigned>(p); }
 *
 * A mask of n elements (C-contiguous, read as the unsigned words of its width W, an element
 * nonzero when word & test != 0: the host clears the sign bit of float masks from test, so that
 * -0.0 counts as zero and NaN as nonzero) is cut into tiles of CUARR_MASK_TILE elements, one per
 * block, each thread taking CUARR_MASK_ITEMS neighbours (16-byte loads where aligned):
 *   1. cuarr_mask_count: each tile's count into prefix[tile];
 *   2. cuarr_mask_scan_tiles (one block): prefix[] made exclusive, the total into
 *      prefix[tiles], which the host reads back (the one synchronisation: it sizes the output);
 *   3. a scatter pass: each tile finds its elements' places from its prefix and a block scan, and
 *      writes the positions (nonzero), a's elements (selection, staged in shared memory so that
 *      the block's stores are contiguous) or a's elements from the values (assignment).  Where
 *      a's rows are longer than one element (a mask over leading axes), pass 3 writes the flat
 *      positions and a rows kernel copies whole rows.
 * Elements are moved as unsigned words of their width (a copy of bits): the host converts the
 * values to a's dtype first.  Indices and counts are 64-bit throughout.
 */

#define CUARR_MASK_THREADS 256
#define CUARR_MASK_ITEMS 16
#define CUARR_MASK_TILE (CUARR_MASK_THREADS * CUARR_MASK_ITEMS)
#define CUARR_MASK_SCAN_THREADS 1024
#define CUARR_MASK_MAXDIM 32

/* The launch's description, one struct for every kernel (copy in src/core/index/mask.h). */
struct cuarr_mask_params {
  unsigned long long mask;   /* the mask's first element */
  unsigned long long test;   /* bits that make an element nonzero */
  long long n;               /* mask elements */
  unsigned long long prefix; /* long long[tiles + 1]: counts, then exclusive prefixes, total */
  unsigned long long src;    /* selection: a; assignment: the values; rows: flat positions */
  unsigned long long dst;    /* selection and nonzero: the output; assignment: a */
  unsigned long long index;  /* rows kernels: the flat positions (long long[count]) */
  long long count;           /* elements selected (pass 3 and the rows kernels) */
  long long rows;            /* a's elements per mask element (rows kernels) */
  long long vs0, vs1;        /* assignment: the values' strides in elements, per selected
                                element and along a row */
  long long base;            /* nonzero: added to every index */
  int vec_mask, vec_src;     /* 16-byte loads of the mask, of a (selection) */
  int nd;                    /* nonzero: the mask's axes */
  int pad;
  long long shape[CUARR_MASK_MAXDIM]; /* nonzero: the mask's extents */
};

/* This thread's CUARR_MASK_ITEMS words from p (left of them in range), as 16-byte vectors
 * when vec (p 16-byte aligned) and all are in range. */
template <typename U> union cuarr_mask_words {
  uint4 q[sizeof(U)];
  U v[CUARR_MASK_ITEMS];
};

template <typename U>
__device__ __forceinline__ void cuarr_mask_load(const U *p, long long left, bool vec,
                                                cuarr_mask_words<U> &w) {
  if (vec && left >= CUARR_MASK_ITEMS) {
#pragma unroll
    for (int k = 0; k < (int)sizeof(U); ++k)
      w.q[k] = __ldg((const uint4 *)p + k);
  } else {
#pragma unroll
    for (int e = 0; e < CUARR_MASK_ITEMS; ++e)
      w.v[e] = e < left ? p[e] : (U)0;
  }
}

/* Bit e set when this thread's element e of the mask is nonzero. */
template <typename W>
__device__ __forceinline__ unsigned cuarr_mask_flags(const cuarr_mask_params &p, long long first) {
  if (first >= p.n)
    return 0;
  cuarr_mask_words<W> w;
  cuarr_mask_load<W>((const W *)p.mask + first, p.n - first, p.vec_mask != 0, w);
  const W test = (W)p.test;
  unsigned flags = 0;
#pragma unroll
  for (int e = 0; e < CUARR_MASK_ITEMS; ++e)
    flags |= (unsigned)((w.v[e] & test) != 0) << e;
  return flags;
}

/* Exclusive block scan of x over NT threads; *total: the block's sum.  Called once per kernel
 * (its shared memory is not reused). */
template <typename T, int NT> __device__ __forceinline__ T cuarr_mask_block_scan(T x, T *total) {
  __shared__ T warp_sums[NT / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T inc = x;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, inc, o);
    if (lane >= o)
      inc += y;
  }
  if (lane == 31)
    warp_sums[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    T w = lane < NT / 32 ? warp_sums[lane] : (T)0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T y = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o)
        w += y;
    }
    if (lane < NT / 32)
      warp_sums[lane] = w;
  }
  __syncthreads();
  *total = warp_sums[NT / 32 - 1];
  return (warp > 0 ? warp_sums[warp - 1] : (T)0) + inc - x;
}

__device__ __forceinline__ long long cuarr_mask_first() {
  return (long long)blockIdx.x * CUARR_MASK_TILE + (long long)threadIdx.x * CUARR_MASK_ITEMS;
}

/* 1. Each tile's count. */
template <typename W> __device__ __forceinline__ void cuarr_mask_count(const cuarr_mask_params &p) {
  const int c = __popc(cuarr_mask_flags<W>(p, cuarr_mask_first()));
  int total;
  cuarr_mask_block_scan<int, CUARR_MASK_THREADS>(c, &total);
  if (threadIdx.x == 0)
    ((long long *)p.prefix)[blockIdx.x] = total;
}

/* 2. The tiles' counts made exclusive prefixes (one block, each thread a run of tiles). */
__device__ __forceinline__ void cuarr_mask_scan_tiles(const cuarr_mask_params &p) {
  long long *prefix = (long long *)p.prefix;
  const long long tiles = (p.n + CUARR_MASK_TILE - 1) / CUARR_MASK_TILE;
  const long long per = (tiles + CUARR_MASK_SCAN_THREADS - 1) / CUARR_MASK_SCAN_THREADS;
  const long long lo = (long long)threadIdx.x * per;
  const long long hi = lo + per < tiles ? lo + per : tiles;
  long long sum = 0;
  for (long long t = lo; t < hi; ++t)
    sum += prefix[t];
  long long total;
  long long at = cuarr_mask_block_scan<long long, CUARR_MASK_SCAN_THREADS>(sum, &total);
  for (long long t = lo; t < hi; ++t) {
    const long long c = prefix[t];
    prefix[t] = at;
    at += c;
  }
  if (threadIdx.x == 0)
    prefix[tiles] = total;
}

/* Pass 3's start: this thread's flags, its first element and its first output place; the
 * block's first place and count. */
struct cuarr_mask_place {
  unsigned flags;
  long long first, at, block_at;
  int local, block_count;
};

template <typename W>
__device__ __forceinline__ cuarr_mask_place cuarr_mask_places(const cuarr_mask_params &p) {
  cuarr_mask_place q;
  q.first = cuarr_mask_first();
  q.flags = cuarr_mask_flags<W>(p, q.first);
  q.local = cuarr_mask_block_scan<int, CUARR_MASK_THREADS>(__popc(q.flags), &q.block_count);
  q.block_at = ((const long long *)p.prefix)[blockIdx.x];
  q.at = q.block_at + q.local;
  return q;
}

/* The block's staged values (stage[0 .. count)) stored contiguously from out + at. */
template <typename T>
__device__ __forceinline__ void cuarr_mask_flush(T *out, long long at, const T *stage, int count) {
  __syncthreads();
  for (int k = threadIdx.x; k < count; k += CUARR_MASK_THREADS)
    out[at + k] = stage[k];
}

/* 3. nonzero of a 1-D mask (and the flat positions of the rows path, base 0). */
template <typename W>
__device__ __forceinline__ void cuarr_mask_positions1(const cuarr_mask_params &p) {
  __shared__ long long stage[CUARR_MASK_TILE];
  const cuarr_mask_place q = cuarr_mask_places<W>(p);
  int k = q.local;
#pragma unroll
  for (int e = 0; e < CUARR_MASK_ITEMS; ++e)
    if ((q.flags >> e) & 1u)
      stage[k++] = q.first + e + p.base;
  cuarr_mask_flush<long long>((long long *)p.dst, q.block_at, stage, q.block_count);
}

/* 3. nonzero of a mask of ND axes (0: p.nd of them): each thread finds its first element's
 * index once and steps it along; row d of the output holds the indices along axis d. */
template <typename W, int ND>
__device__ __forceinline__ void cuarr_mask_positions(const cuarr_mask_params &p) {
  const cuarr_mask_place q = cuarr_mask_places<W>(p);
  if (!q.flags)
    return;
  const int nd = ND > 0 ? ND : p.nd;
  long long idx[ND > 0 ? ND : CUARR_MASK_MAXDIM];
  long long rest = q.first;
#pragma unroll
  for (int d = (ND > 0 ? ND : CUARR_MASK_MAXDIM) - 1; d >= 0; --d) {
    if (d < nd) {
      const long long s = p.shape[d];
      const long long r = rest / s;
      idx[d] = rest - r * s;
      rest = r;
    }
  }
  long long *out = (long long *)p.dst;
  long long at = q.at;
  for (int e = 0; e < CUARR_MASK_ITEMS; ++e) {
    if ((q.flags >> e) & 1u) {
#pragma unroll
      for (int d = 0; d < (ND > 0 ? ND : CUARR_MASK_MAXDIM); ++d)
        if (d < nd)
          out[d * p.count + at] = idx[d] + p.base;
      ++at;
    }
#pragma unroll
    for (int d = (ND > 0 ? ND : CUARR_MASK_MAXDIM) - 1; d >= 0; --d) {
      if (d < nd) {
        if (++idx[d] < p.shape[d])
          break;
        idx[d] = 0;
      }
    }
  }
}

/* 3. out = a[mask] where a's rows are single elements (E: the unsigned word of a's width). */
template <typename W, typename E>
__device__ __forceinline__ void cuarr_mask_select(const cuarr_mask_params &p) {
  __shared__ E stage[CUARR_MASK_TILE];
  const cuarr_mask_place q = cuarr_mask_places<W>(p);
  if (q.flags) {
    cuarr_mask_words<E> v;
    cuarr_mask_load<E>((const E *)p.src + q.first, p.n - q.first, p.vec_src != 0, v);
    int k = q.local;
#pragma unroll
    for (int e = 0; e < CUARR_MASK_ITEMS; ++e)
      if ((q.flags >> e) & 1u)
        stage[k++] = v.v[e];
  }
  cuarr_mask_flush<E>((E *)p.dst, q.block_at, stage, q.block_count);
}

/* 3. a[mask] = values where a's rows are single elements: the j-th selected element takes
 * values[j * vs0]. */
template <typename W, typename E>
__device__ __forceinline__ void cuarr_mask_assign(const cuarr_mask_params &p) {
  const cuarr_mask_place q = cuarr_mask_places<W>(p);
  const E *v = (const E *)p.src;
  E *a = (E *)p.dst;
  long long at = q.at;
#pragma unroll
  for (int e = 0; e < CUARR_MASK_ITEMS; ++e)
    if ((q.flags >> e) & 1u)
      a[q.first + e] = v[(at++) * p.vs0];
}

/* Row g of count*rows elements as (selected element j, position r in the row). */
__device__ __forceinline__ void cuarr_mask_split(long long g, long long rows, long long &j,
                                                 long long &r) {
  if (g <= 0xffffffffLL && rows <= 0xffffffffLL) {
    const unsigned jj = (unsigned)g / (unsigned)rows;
    j = jj;
    r = g - (long long)jj * rows;
  } else {
    j = g / rows;
    r = g - j * rows;
  }
}

/* out[j, r] = a[index[j], r]: whole rows of a copied after pass 3 wrote the flat positions. */
template <typename E>
__device__ __forceinline__ void cuarr_mask_select_rows(const cuarr_mask_params &p) {
  const long long total = p.count * p.rows;
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long *index = (const long long *)p.index;
  const E *a = (const E *)p.src;
  E *out = (E *)p.dst;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total; g += step) {
    long long j, r;
    cuarr_mask_split(g, p.rows, j, r);
    out[g] = a[index[j] * p.rows + r];
  }
}

/* a[index[j], r] = values[j * vs0 + r * vs1]. */
template <typename E>
__device__ __forceinline__ void cuarr_mask_assign_rows(const cuarr_mask_params &p) {
  const long long total = p.count * p.rows;
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long *index = (const long long *)p.index;
  const E *v = (const E *)p.src;
  E *a = (E *)p.dst;
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < total; g += step) {
    long long j, r;
    cuarr_mask_split(g, p.rows, j, r);
    a[index[j] * p.rows + r] = v[j * p.vs0 + r * p.vs1];
  }
}
