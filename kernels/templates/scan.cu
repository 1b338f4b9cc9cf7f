/*
 * scan.cu -- cumulative sums and products along an axis (src/core/scan/scan_device.c).
 *
 * Templates only: the generator appends one extern "C" kernel per specialisation after
 * common.cuh and this file, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_cumsum_float32_float32_float32_one_i32(const float *in, float *out, unsigned int n,
 *                                                unsigned int len, void *state)
 *   { cuarr_scan_rows_contig<0, float, float, float, unsigned int, 16, false>(in, out, n, len,
 *                                                                           state); }
 *
 * Semantics: out[..., k, ...] = in[..., 0, ...] op ... op in[..., k, ...] along the scanned
 * axis; each element is converted to the accumulator type Acc (cuarr_cast), each running value
 * converted to Out where it is stored.  The host sees the array as `rows` rows of `len`
 * elements (a row: the elements along the axis at one index of the kept axes) and numbers the
 * elements i = row * len + k, rows in an order of its choosing.  out may be in itself (the
 * same elements at the same addresses): every element is read before it is written, and only
 * by the thread that writes it.
 *
 * Two kernels:
 *  rows  the scan axis is the faster one in memory (or there are too few rows to spread over
 *        the GPU otherwise).  One pass over i in tiles of 256 x ITEMS elements, one tile per
 *        block, with decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
 *        with Decoupled Look-back", NVIDIA 2016): memory is read and written once, which is
 *        what a bandwidth-bound scan needs.  A tile may hold the ends of several rows (short
 *        rows), so the scan is segmented: a row's first element resets the running value.
 *  cols  a kept axis is the faster one: a thread per row walks the axis sequentially,
 *        neighbouring threads taking neighbouring rows, so that each step of a warp reads and
 *        writes consecutive elements.  When there are too few rows to fill the GPU, rows are
 *        cut into chunks, a thread each, joined by a per-thread look-back along the row.
 *
 * Layouts (cuarr_layout of common.cuh, operand 0 = in, operand 1 = out): the kept axes, then
 * the scan axis last, so that element i of the C order over the layout is row i / len,
 * element i % len.  The contiguous kernels take plain pointers: in[i] and out[i].
 *
 * The look-back protocol (the rows kernel's; the cols kernel's is the same per thread, with a
 * (row, chunk) in place of a tile).  The rows kernel's tile is its block's index: the hardware
 * dispatches blocks in index order, so a tile waits only on tiles that are running or done
 * (CUB relies on the same).  The cols kernel takes its numbers from a counter (atomicAdd),
 * which holds for any dispatch order.  Each tile
 * publishes, in a status slot zeroed by the host before the launch (X, nothing yet): A  its
 * aggregate (the op of its elements), as soon as it has one; or at once P  its inclusive prefix
 * (the running value of its row at its last element).  A tile that holds the first element of a row
 * knows that value without looking back (the op of its elements from that row start on), so it
 * publishes P directly and never A. A tile whose first element does not start a row then looks back
 * with one warp, 32 predecessors at a time, from the nearest: it waits until none of them is X, and
 * goes on to the 32 before them until it meets a P, folding each window in front of the
 * ones after it (see cuarr_scan_look_back).  A tile holding a row start is always P, so the
 * look-back never crosses into another row, and the first tile (element 0 starts a row) ends every
 * look-back.
 * Status slots:
 *  - Acc of 4 bytes or fewer: one 64-bit word per tile, flag in the high half and the value's
 *    bits in the low half, written and read whole (st/ld.relaxed.gpu): a reader sees a flag
 *    and its value together.
 *  - Acc of 8 bytes: a 32-bit flag per tile and two value slots, one for A and one for P,
 *    each written once.  The value is stored first, then the flag with st.release.gpu; the
 *    reader loads the flag with ld.acquire.gpu and then the slot the flag names, so it sees
 *    the value stored before that flag (release/acquire at gpu scope, PTX memory model).
 *    A 16-byte pair would need 128-bit single-copy atomicity, which PTX does not promise.
 * State memory (from the host, zeroed up to the end of the flags): a 32-bit tile counter in
 * the first CUARR_SCAN_STATE_HEADER bytes, then the status slots (scan_device.c sizes it).
 *
 * Arithmetic: integers wrap (computed in unsigned types), bool sums are `or` and products
 * `and`; the float sum's identity is -0.0, so that starting from the identity changes no
 * value (-0.0 + x is x for every x; 0.0 + -0.0 would be 0.0).  Values combine in a fixed
 * tree within a tile; across tiles the grouping depends on which P a look-back meets, so
 * float scans may differ from run to run in the last bits (as CUB's do), and from the
 * host's, which adds sequentially.
 */
#ifndef CUARR_SCAN_CU
#define CUARR_SCAN_CU

#define CUARR_SCAN_THREADS 256
#define CUARR_SCAN_WARPS (CUARR_SCAN_THREADS / 32)
#define CUARR_SCAN_ALL_LANES 0xffffffffu
/* Bytes before the status slots in the state memory (the counter, alone in its line). */
#define CUARR_SCAN_STATE_HEADER 128

/* OP: the values of cuarr_scan_op. */
#define CUARR_SCAN_SUM 0
#define CUARR_SCAN_PROD 1

/* ---------------------------------------------------------------- the operation */

/* Integer arithmetic is done in an unsigned type, where it wraps as the host's does: in the
 * signed types overflow is undefined, and unsigned short * unsigned short overflows too after
 * the promotion to int. */
template <typename T> struct cuarr_scan_uint { typedef unsigned int type; };
template <> struct cuarr_scan_uint<long long> { typedef unsigned long long type; };
template <> struct cuarr_scan_uint<unsigned long long> { typedef unsigned long long type; };

template <int OP, typename T> __device__ __forceinline__ T cuarr_scan_identity() {
  if constexpr (OP == CUARR_SCAN_PROD)
    return (T)1;
  else if constexpr (cuarr_type<T>::kind() == CUARR_KIND_FLOAT)
    return (T)-0.0;
  else
    return (T)0;
}

/* a op b, where a comes from elements before b's. */
template <int OP, typename T> __device__ __forceinline__ T cuarr_scan_apply(T a, T b) {
  constexpr cuarr_kind kind = cuarr_type<T>::kind();
  if constexpr (kind == CUARR_KIND_BOOL) {
    return OP == CUARR_SCAN_SUM ? (a || b) : (a && b);
  } else if constexpr (kind == CUARR_KIND_FLOAT) {
    return OP == CUARR_SCAN_SUM ? a + b : a * b;
  } else {
    typedef typename cuarr_scan_uint<T>::type U;
    return (T)(OP == CUARR_SCAN_SUM ? (U)a + (U)b : (U)a * (U)b);
  }
}

/* ---------------------------------------------------------------- warp primitives */

/* Shuffles of any Acc: the 4- and 8-byte types have overloads; narrower ones (bool, char,
 * short) travel as int. */
template <typename T> __device__ __forceinline__ T cuarr_scan_shfl_up(T x, int delta) {
  if constexpr (sizeof(T) >= 4)
    return __shfl_up_sync(CUARR_SCAN_ALL_LANES, x, delta);
  else
    return (T)__shfl_up_sync(CUARR_SCAN_ALL_LANES, (int)x, delta);
}

template <typename T> __device__ __forceinline__ T cuarr_scan_shfl(T x, int lane) {
  if constexpr (sizeof(T) >= 4)
    return __shfl_sync(CUARR_SCAN_ALL_LANES, x, lane);
  else
    return (T)__shfl_sync(CUARR_SCAN_ALL_LANES, (int)x, lane);
}

/* The highest lane set in mask (mask != 0). */
__device__ __forceinline__ int cuarr_scan_top_lane(unsigned mask) { return 31 - __clz(mask); }

/* ---------------------------------------------------------------- status slots */

#define CUARR_SCAN_X 0u /* nothing published (the host zeroed the slot) */
#define CUARR_SCAN_A 1u /* the tile's aggregate */
#define CUARR_SCAN_P 2u /* the tile's inclusive prefix */

/* A value's bits, zero-extended, and back. */
template <typename B, typename T> __device__ __forceinline__ B cuarr_scan_to_bits(T v) {
  union {
    T v;
    B bits;
  } u;
  u.bits = 0;
  u.v = v;
  return u.bits;
}

template <typename T, typename B> __device__ __forceinline__ T cuarr_scan_from_bits(B bits) {
  union {
    T v;
    B bits;
  } u;
  u.bits = bits;
  return u.v;
}

__device__ __forceinline__ void cuarr_scan_st_relaxed(unsigned long long *p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned long long cuarr_scan_ld_relaxed(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void cuarr_scan_st_release(unsigned *p, unsigned v) {
  asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned cuarr_scan_ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <typename Acc, bool PACKED = (sizeof(Acc) <= 4)> struct cuarr_scan_status;

/* Acc of up to 4 bytes: one word per tile, flag << 32 | value bits. */
template <typename Acc> struct cuarr_scan_status<Acc, true> {
  unsigned long long *word;

  __device__ __forceinline__ cuarr_scan_status(void *state, unsigned long long slots)
      : word((unsigned long long *)((char *)state + CUARR_SCAN_STATE_HEADER)) {
    (void)slots;
  }
  __device__ __forceinline__ void publish(long long tile, unsigned flag, Acc v) const {
    cuarr_scan_st_relaxed(word + tile, (unsigned long long)flag << 32 |
                                           cuarr_scan_to_bits<unsigned long long>(v));
  }
  __device__ __forceinline__ void read(long long tile, unsigned &flag, Acc &v) const {
    const unsigned long long w = cuarr_scan_ld_relaxed(word + tile);
    flag = (unsigned)(w >> 32);
    v = cuarr_scan_from_bits<Acc>((unsigned)w);
  }
};

/* Acc of 8 bytes: flags[tiles], then (8-byte aligned) aggregates[tiles] and prefixes[tiles]. */
template <typename Acc> struct cuarr_scan_status<Acc, false> {
  unsigned *flag;
  unsigned long long *aggregate, *prefix;

  __device__ __forceinline__ cuarr_scan_status(void *state, unsigned long long slots)
      : flag((unsigned *)((char *)state + CUARR_SCAN_STATE_HEADER)),
        aggregate((unsigned long long *)((char *)state + CUARR_SCAN_STATE_HEADER +
                                         ((4ull * slots + 7) & ~7ull))),
        prefix(aggregate + slots) {}
  __device__ __forceinline__ void publish(long long tile, unsigned f, Acc v) const {
    unsigned long long *slot = (f == CUARR_SCAN_A ? aggregate : prefix) + tile;
    cuarr_scan_st_relaxed(slot, cuarr_scan_to_bits<unsigned long long>(v));
    cuarr_scan_st_release(flag + tile, f); /* orders the value before the flag */
  }
  __device__ __forceinline__ void read(long long tile, unsigned &f, Acc &v) const {
    f = cuarr_scan_ld_acquire(flag + tile);
    if (f != CUARR_SCAN_X) /* after the acquire: sees the value stored before the flag */
      v = cuarr_scan_from_bits<Acc>(
          cuarr_scan_ld_relaxed((f == CUARR_SCAN_A ? aggregate : prefix) + tile));
  }
};

/* Tiles per lane in one window of the look-back: 32 * CUARR_SCAN_LOOK tiles read at once.
 * One is best: cumsum of 2^28 float32 on an H100 ran at 1937 GB/s with 1, 1650 with 4 and
 * 1230 with 8 (a wider window waits for more predecessors to publish). */
#define CUARR_SCAN_LOOK 1

/* Tiles last - 32 * LOOK + 1 .. last, LOOK consecutive ones per lane (lane 31 ends at `last`),
 * waiting until none of them is X; the ones before the first tile read as P with the identity
 * (never used: tile 0 is P).  Each lane folds its own tiles in order, from its last P on, into
 * v; returns the lanes that hold a P. */
template <int OP, typename Acc>
__device__ __forceinline__ unsigned cuarr_scan_window(const cuarr_scan_status<Acc> &status,
                                                      long long last, int lane, Acc &v) {
  const long long first = last - 32 * CUARR_SCAN_LOOK + 1 + lane * CUARR_SCAN_LOOK;
  for (;;) {
    unsigned flag[CUARR_SCAN_LOOK];
    Acc value[CUARR_SCAN_LOOK];
    bool pending = false;
#pragma unroll
    for (int k = 0; k < CUARR_SCAN_LOOK; ++k) {
      flag[k] = CUARR_SCAN_P;
      value[k] = cuarr_scan_identity<OP, Acc>();
      if (first + k >= 0)
        status.read(first + k, flag[k], value[k]);
      pending = pending || flag[k] == CUARR_SCAN_X;
    }
    if (!__any_sync(CUARR_SCAN_ALL_LANES, pending)) {
      bool has_p = false;
      v = cuarr_scan_identity<OP, Acc>();
#pragma unroll
      for (int k = 0; k < CUARR_SCAN_LOOK; ++k) {
        const bool p = flag[k] == CUARR_SCAN_P;
        v = p ? value[k] : cuarr_scan_apply<OP>(v, value[k]);
        has_p = has_p || p;
      }
      return __ballot_sync(CUARR_SCAN_ALL_LANES, has_p);
    }
    __nanosleep(64); /* a predecessor is still loading: leave the issue slots to it */
  }
}

/* acc op the window's lane values in lane order, where a P lane starts afresh from its value:
 * only the lanes from the highest P on count. */
template <int OP, typename Acc>
__device__ __forceinline__ Acc cuarr_scan_fold(Acc acc, Acc v, unsigned p_lanes) {
  int l = 0;
  if (p_lanes) {
    l = cuarr_scan_top_lane(p_lanes);
    acc = cuarr_scan_shfl(v, l++);
  }
  for (; l < 32; ++l)
    acc = cuarr_scan_apply<OP>(acc, cuarr_scan_shfl(v, l));
  return acc;
}

/* The exclusive prefix of `tile` (the running value of its row before its first element),
 * computed by one whole warp; every lane returns it.  Called only for tiles whose first
 * element does not start a row, so some tile before this one has P (the first tile does).
 *
 * It walks back a window of 32 * CUARR_SCAN_LOOK tiles at a time, folding each window (from its
 * highest P on, in tile order) in front of what it has gathered so far, and stops at the first
 * window holding a P: P(j) op A(j+1) op ... op A(tile-1).  One read per window: the tiles still in
 * flight before this one are a thousand or so on a big GPU, all of them A, and re-reading
 * them in order (to get the same bits whichever P is found) took half the bandwidth (H100:
 * 49% of the copy rate against 2^28 float32).  Float sums may therefore differ in the last
 * bits from run to run, as CUB's scans do. */
template <int OP, typename Acc>
__device__ __forceinline__ Acc cuarr_scan_look_back(const cuarr_scan_status<Acc> &status,
                                                    long long tile, int lane) {
  long long last = tile - 1;
  Acc before = cuarr_scan_identity<OP, Acc>();
  for (;; last -= 32 * CUARR_SCAN_LOOK) {
    Acc v;
    const unsigned p_lanes = cuarr_scan_window<OP>(status, last, lane, v);
    before = cuarr_scan_apply<OP>(cuarr_scan_fold<OP>(cuarr_scan_identity<OP, Acc>(), v, p_lanes),
                                  before);
    if (p_lanes)
      return before;
  }
}

/* ---------------------------------------------------------------- element access */

/* Programmatic dependent launch (sm_90 on): wait for the work queued before this kernel; a
 * no-op when the kernel was launched plainly. */
__device__ __forceinline__ void cuarr_scan_wait_previous() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Element i of both operands, contiguous: in[i], out[i]. */
template <typename In, typename Out, typename I> struct cuarr_scan_contig {
  typedef In in_t;
  const In *in;
  Out *out;
  typedef I where_t;
  __device__ __forceinline__ where_t at(I i) const { return i; }
  __device__ __forceinline__ In load(where_t w) const { return cuarr_load(in + w); }
  __device__ __forceinline__ void store(where_t w, Out v) const { out[w] = v; }
};

/* Element i through a layout (kept axes, then the scan axis). */
template <typename In, typename Out, typename I, int ND, bool GENERIC> struct cuarr_scan_strided {
  typedef In in_t;
  const In *in;
  Out *out;
  const cuarr_layout<I, ND, 2> &p; /* the kernel parameter, read in place */
  struct where_t {
    I in, out;
  };
  __device__ __forceinline__ where_t at(I i) const {
    I off[2];
    cuarr_offsets<GENERIC>(p, i, off);
    return where_t{off[0], off[1]};
  }
  __device__ __forceinline__ In load(where_t w) const { return cuarr_load(in + w.in); }
  __device__ __forceinline__ void store(where_t w, Out v) const { out[w.out] = v; }
};

/* ---------------------------------------------------------------- rows: one pass */

/* Shared-memory index of a tile position: a pad element after every PERIOD (128 bytes of
 * 4- and 8-byte values), so that both the warp-striped accesses (lane l at j * 32 + l) and
 * the blocked ones (lane l at l * ITEMS + j, ITEMS = 64 / sizeof(Acc)) reach 32 different
 * banks (16 per half-warp for 8-byte values, which take two passes anyway). */
template <typename Acc> __device__ constexpr int cuarr_scan_period() {
  return sizeof(Acc) >= 4 ? 128 / (int)sizeof(Acc) : 32;
}
template <typename Acc> __device__ __forceinline__ int cuarr_scan_slot(int s) {
  return s + s / cuarr_scan_period<Acc>();
}

/* ---------------------------------------------------------------- rows: 16-byte accesses */

/* 16 bytes of T, what one vector load or store moves. */
template <typename T> struct __align__(16) cuarr_scan_pack { T v[16 / sizeof(T)]; };

/* A pack's slot in a warp's shared-memory region, Q packs per lane.  Rows of 8 packs (128
 * bytes, all 32 banks); the slot within its row is XORed with a number that differs between
 * the lanes of each quarter warp (the 8 lanes whose 16-byte accesses are served together) in
 * both access patterns: warp-striped (lane l at j * 32 + l: one row, 8 columns) and blocked
 * (lane l at l * Q + k: the same column, XORed by l / max(Q, 8) apart).  No bank conflicts. */
template <int Q> __device__ __forceinline__ int cuarr_scan_pack_slot(int q) {
  constexpr int SPAN = Q > 8 ? Q : 8;
  return q ^ ((q / SPAN) & 7);
}

/* 16 bytes at p, read once by this kernel: L2 may drop them first (an evict_first policy), so
 * that the input streaming through does not push out the lines still being written.  The
 * asm is not volatile, so that the compiler can issue all of a lane's loads before their
 * first use; what keeps them after the wait for the previous kernel is that p derives from
 * cuarr_scan_after_wait's result.  With st.global.cs for the stores, a cumsum of 2^27
 * float32 on an H100 went from 84.0-84.4% to 86.9-87.4% of a copy (bench/experiments). */
template <typename T>
__device__ __forceinline__ cuarr_scan_pack<T> cuarr_scan_ld_once(const cuarr_scan_pack<T> *p) {
#if __CUDA_ARCH__ >= 800
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  union {
    unsigned u[4];
    cuarr_scan_pack<T> pack;
  } r;
  asm("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r"(r.u[0]), "=r"(r.u[1]), "=r"(r.u[2]), "=r"(r.u[3])
      : "l"(p), "l"(policy));
  return r.pack;
#else
  return *p;
#endif
}

/* 16 bytes to p, not to be read again by this kernel: a streaming store (st.global.cs). */
template <typename T>
__device__ __forceinline__ void cuarr_scan_st_once(cuarr_scan_pack<T> *p,
                                                   const cuarr_scan_pack<T> &v) {
  union {
    cuarr_scan_pack<T> pack;
    unsigned u[4];
  } w = {v};
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.u[0]), "r"(w.u[1]),
               "r"(w.u[2]), "r"(w.u[3])
               : "memory");
}

/* p, as a value the compiler cannot know before this point: loads from it (cuarr_scan_ld_once)
 * stay after everything volatile before it, the wait for the previous kernel among them. */
template <typename T> __device__ __forceinline__ const T *cuarr_scan_after_wait(const T *p) {
  asm volatile("mov.b64 %0, %0;" : "+l"(p)::"memory");
  return p;
}

/* The warp-striped 16-byte loads of the contiguous kernels: lane l reads packs j * 32 + l of
 * its warp's 32 * ITEMS elements (from `in` + warp_first), converts them to Acc (of In's size)
 * and leaves them in the warp's shared-memory region so that x[] gets its ITEMS consecutive
 * elements.  A whole tile (full) needs no bounds checks; the last one reads past n as the
 * identity.  in + warp_first is 16-byte aligned (the host checked the base; warp_first is a
 * multiple of a pack). */
template <typename In, typename Acc, typename I, int ITEMS>
__device__ __forceinline__ void cuarr_scan_load_vec(const In *in, I warp_first, I n, bool full,
                                                    cuarr_scan_pack<Acc> *region, int lane, Acc id,
                                                    Acc (&x)[ITEMS]) {
  constexpr int V = 16 / sizeof(In), Q = ITEMS / V;
  static_assert(sizeof(In) == sizeof(Acc) && ITEMS % V == 0, "packs of In hold packs of Acc");
  const In *const src = cuarr_scan_after_wait(in);
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    const int q = j * 32 + lane;
    const I e = warp_first + (I)(q * V);
    cuarr_scan_pack<Acc> acc;
    if (full) {
      const cuarr_scan_pack<In> p = cuarr_scan_ld_once((const cuarr_scan_pack<In> *)(src + e));
#pragma unroll
      for (int c = 0; c < V; ++c)
        acc.v[c] = cuarr_cast<Acc>(p.v[c]);
    } else {
#pragma unroll
      for (int c = 0; c < V; ++c)
        acc.v[c] = e + (I)c < n ? cuarr_cast<Acc>(cuarr_load(src + e + c)) : id;
    }
    region[cuarr_scan_pack_slot<Q>(q)] = acc;
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < Q; ++k) {
    const cuarr_scan_pack<Acc> acc = region[cuarr_scan_pack_slot<Q>(lane * Q + k)];
#pragma unroll
    for (int c = 0; c < V; ++c)
      x[k * V + c] = acc.v[c];
  }
}

/* The way back: x[] (each lane's ITEMS consecutive running values) through the region to
 * warp-striped 16-byte stores into out + warp_first (of Acc's size); past n nothing. */
template <typename Out, typename Acc, typename I, int ITEMS>
__device__ __forceinline__ void cuarr_scan_store_vec(Out *out, I warp_first, I n, bool full,
                                                     cuarr_scan_pack<Acc> *region, int lane,
                                                     const Acc (&x)[ITEMS]) {
  constexpr int V = 16 / sizeof(Out), Q = ITEMS / V;
  static_assert(sizeof(Out) == sizeof(Acc) && ITEMS % V == 0, "packs of Acc fill packs of Out");
#pragma unroll
  for (int k = 0; k < Q; ++k) {
    cuarr_scan_pack<Acc> acc;
#pragma unroll
    for (int c = 0; c < V; ++c)
      acc.v[c] = x[k * V + c];
    region[cuarr_scan_pack_slot<Q>(lane * Q + k)] = acc;
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < Q; ++j) {
    const int q = j * 32 + lane;
    const I e = warp_first + (I)(q * V);
    const cuarr_scan_pack<Acc> acc = region[cuarr_scan_pack_slot<Q>(q)];
    cuarr_scan_pack<Out> p;
#pragma unroll
    for (int c = 0; c < V; ++c)
      p.v[c] = cuarr_cast<Out>(acc.v[c]);
    if (full) {
      cuarr_scan_st_once((cuarr_scan_pack<Out> *)(out + e), p);
    } else {
#pragma unroll
      for (int c = 0; c < V; ++c)
        if (e + (I)c < n)
          out[e + c] = p.v[c];
    }
  }
}

/* ---------------------------------------------------------------- rows: one pass */

/* The scan of n elements (rows of len) in tiles of THREADS * ITEMS, one per block (gridDim.x =
 * the number of tiles).  SEG: rows of len elements (false: one row, len = n).
 *
 * Each warp owns 32 * ITEMS consecutive elements of the tile.  They are read warp-striped
 * (each load instruction of a warp reads 32 consecutive elements or packs: whole sectors),
 * passed through shared memory so that each lane holds ITEMS consecutive ones, scanned (lane,
 * warp, block, then the look-back for the tile's carry), and written back the same way round.
 * VEC: contiguous operands of the accumulator's size, 16-byte aligned, moved in 16-byte packs
 * (cuarr_scan_load_vec); else one element per access, through Access. */
template <int OP, typename Acc, typename Out, typename I, int ITEMS, bool SEG, int THREADS,
          bool VEC, class Access>
__device__ __forceinline__ void cuarr_scan_rows(const Access &a, I n, I len, void *state) {
  typedef typename Access::where_t W;
  constexpr int TILE = THREADS * ITEMS, WARP_ITEMS = 32 * ITEMS, WARPS = THREADS / 32;
  constexpr int PERIOD = cuarr_scan_period<Acc>();
  static_assert(VEC || (PERIOD % ITEMS == 0 && 32 % PERIOD == 0), "the pads fall between lanes");
  /* Packs need no pads (their slots are swizzled instead). */
  constexpr int BUF = VEC ? TILE : TILE + TILE / PERIOD;
  __shared__ __align__(16) Acc buf[BUF];
  __shared__ Acc warp_value[WARPS];
  __shared__ bool warp_reset[WARPS];
  __shared__ Acc tile_before;

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const Acc id = cuarr_scan_identity<OP, Acc>();
  const cuarr_scan_status<Acc> status(state, gridDim.x);

  cuarr_scan_wait_previous();
  /* The tile is the block's index: blocks are dispatched in index order, so a tile looks back
   * only at tiles already running or done (CUB numbers its tiles the same way).  Taking the
   * number from an atomic counter instead held every block's loads back by a round trip to
   * L2: 1940 against 2132 GB/s for a cumsum of 2^28 float32 on an H100. */
  const unsigned tile = blockIdx.x;
  const I first = (I)tile * (I)TILE;
  const I warp_first = first + (I)(warp * WARP_ITEMS);
  /* This lane's shared-memory slots: striped (+ j * STRIPE) and blocked (+ j). */
  constexpr int STRIPE = 32 + 32 / PERIOD;
  const int striped = cuarr_scan_slot<Acc>(warp * WARP_ITEMS + lane);
  const int blocked = cuarr_scan_slot<Acc>(warp * WARP_ITEMS + lane * ITEMS);

  /* Load, warp-striped; past the end: the identity. */
  W where[VEC ? 1 : ITEMS];
  Acc x[ITEMS];
  cuarr_scan_pack<Acc> *const region = (cuarr_scan_pack<Acc> *)(buf + warp * WARP_ITEMS);
  const bool full = first + (I)TILE <= n;
  if constexpr (VEC) {
    cuarr_scan_load_vec<typename Access::in_t, Acc, I, ITEMS>(a.in, warp_first, n, full, region,
                                                              lane, id, x);
  } else {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const I i = warp_first + (I)(j * 32 + lane);
      x[j] = id;
      if (i < n) {
        where[j] = a.at(i);
        x[j] = cuarr_cast<Acc>(a.load(where[j]));
      }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      buf[striped + j * STRIPE] = x[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      x[j] = buf[blocked + j];
  }

  /* This lane's elements are lane_first + j; which of them start a row. */
  const I lane_first = warp_first + (I)(lane * ITEMS);
  bool reset[ITEMS];
  if constexpr (SEG) {
    I k = lane_first < n ? lane_first % len : 0;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      reset[j] = k == 0 && lane_first + (I)j < n;
      k = k + 1 == len ? 0 : k + 1;
    }
  }

  /* The lane's aggregate: its elements from its last row start on (all of them if none). */
  Acc value = x[0];
  bool has_reset = false;
  if constexpr (SEG)
    has_reset = reset[0];
#pragma unroll
  for (int j = 1; j < ITEMS; ++j) {
    if constexpr (SEG) {
      value = reset[j] ? x[j] : cuarr_scan_apply<OP>(value, x[j]);
      has_reset = has_reset || reset[j];
    } else {
      value = cuarr_scan_apply<OP>(value, x[j]);
    }
  }

  /* Inclusive scan over the warp's lanes, each lane combining only lanes from the last one
   * that holds a row start (`start`) on: lane - d >= start says lane - d is in its segment. */
  const unsigned resets = SEG ? __ballot_sync(CUARR_SCAN_ALL_LANES, has_reset) : 0u;
  const unsigned upto = resets & (CUARR_SCAN_ALL_LANES >> (31 - lane));
  const int start = upto ? cuarr_scan_top_lane(upto) : 0;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const Acc u = cuarr_scan_shfl_up(value, d);
    if (lane - d >= start)
      value = cuarr_scan_apply<OP>(u, value);
  }
  /* The lanes before this one: their scan, and whether one of them holds a row start. */
  Acc lane_before = cuarr_scan_shfl_up(value, 1);
  const bool lane_before_reset = (resets & ((1u << lane) - 1u)) != 0u;
  if (lane == 31) {
    warp_value[warp] = value;
    warp_reset[warp] = resets != 0u;
  }
  __syncthreads();

  /* The warps before this one, and the whole tile (segmented in the same way). */
  Acc warp_before = id, total = id;
  bool warp_before_reset = false, total_reset = false;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    if (w == warp) {
      warp_before = total;
      warp_before_reset = total_reset;
    }
    const Acc v = warp_value[w];
    const bool r = warp_reset[w];
    total = r ? v : cuarr_scan_apply<OP>(total, v);
    total_reset = total_reset || r;
  }

  /* The tile's carry: nothing when its first element starts a row, else the look-back. */
  const bool starts_row = SEG ? first % len == 0 : tile == 0;
  const bool holds_start = SEG ? total_reset : tile == 0;
  if (warp == 0) {
    if (lane == 0)
      status.publish(tile, holds_start ? CUARR_SCAN_P : CUARR_SCAN_A, total);
    if (!starts_row) {
      const Acc before = cuarr_scan_look_back<OP>(status, (long long)tile, lane);
      if (lane == 0) {
        if (!holds_start)
          status.publish(tile, CUARR_SCAN_P, cuarr_scan_apply<OP>(before, total));
        tile_before = before;
      }
    }
  }
  __syncthreads();

  /* The running values: the block-local ones first (lanes and warps before this lane, then
   * its own elements), the tile's carry added last, so that each stored value takes a single
   * rounding from the carry.  (Carry first, a float32 cumsum of ones would stall at 2^24 within
   * each lane: 2^24 + 1 rounds back to 2^24.) */
  const Acc carry = starts_row ? id : tile_before;
  Acc local = id;
  bool local_reset = false;
  if (warp > 0) {
    local = warp_before;
    local_reset = warp_before_reset;
  }
  if (lane > 0) {
    local = lane_before_reset ? lane_before : cuarr_scan_apply<OP>(local, lane_before);
    local_reset = local_reset || lane_before_reset;
  }
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    if constexpr (SEG) {
      local = reset[j] ? x[j] : cuarr_scan_apply<OP>(local, x[j]);
      local_reset = local_reset || reset[j];
    } else {
      local = cuarr_scan_apply<OP>(local, x[j]);
    }
    x[j] = local_reset ? local : cuarr_scan_apply<OP>(carry, local);
  }

  /* Back to warp-striped order, and out.  (The blocked reads above came before the
   * __syncthreads, so the buffer is free.) */
  if constexpr (VEC) {
    cuarr_scan_store_vec<Out, Acc, I, ITEMS>(a.out, warp_first, n, full, region, lane, x);
  } else {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j)
      buf[blocked + j] = x[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const I i = warp_first + (I)(j * 32 + lane);
      if (i < n)
        a.store(where[j], cuarr_cast<Out>(buf[striped + j * STRIPE]));
    }
  }
}

/* Contiguous operands: rows of len one after another (SEG), or one row (len = n); VEC: in 16-byte
 * packs, THREADS a block. */
template <int OP, typename In, typename Acc, typename Out, typename I, int ITEMS, bool SEG,
          int THREADS = CUARR_SCAN_THREADS, bool VEC = false>
__device__ __forceinline__ void cuarr_scan_rows_contig(const In *in, Out *out, I n, I len,
                                                       void *state) {
  cuarr_scan_rows<OP, Acc, Out, I, ITEMS, SEG, THREADS, VEC>(cuarr_scan_contig<In, Out, I>{in, out},
                                                             n, len, state);
}

/* Any layout: p.n elements, rows along the last of the layout's axes. */
template <int OP, typename In, typename Acc, typename Out, typename I, int ITEMS, int ND,
          bool GENERIC>
__device__ __forceinline__ void
cuarr_scan_rows_strided(const In *in, Out *out, const cuarr_layout<I, ND, 2> &p, void *state) {
  const I len = p.shape[GENERIC ? (int)p.ndim - 1 : ND - 1];
  cuarr_scan_rows<OP, Acc, Out, I, ITEMS, true, CUARR_SCAN_THREADS, false>(
      cuarr_scan_strided<In, Out, I, ND, GENERIC>{in, out, p}, p.n, len, state);
}

/* ---------------------------------------------------------------- cols: a thread per row */

/* Elements each thread reads before it combines them: its loads in flight at once. */
#define CUARR_SCAN_COLS_BATCH 8

/* The op of `count` elements of a row from offset `at` (stepping `step`), in order. */
template <int OP, typename In, typename Acc, typename I>
__device__ __forceinline__ Acc cuarr_scan_cols_total(const In *in, I at, I step, I count) {
  constexpr int B = CUARR_SCAN_COLS_BATCH;
  Acc total = cuarr_scan_identity<OP, Acc>();
  I k = 0;
  for (; k + (I)B <= count; k += (I)B) {
    Acc v[B];
#pragma unroll
    for (int u = 0; u < B; ++u)
      v[u] = cuarr_cast<Acc>(cuarr_load(in + (at + (I)u * step)));
#pragma unroll
    for (int u = 0; u < B; ++u)
      total = cuarr_scan_apply<OP>(total, v[u]);
    at += (I)B * step;
  }
  for (; k < count; ++k, at += step)
    total = cuarr_scan_apply<OP>(total, cuarr_cast<Acc>(cuarr_load(in + at)));
  return total;
}

/* The running values of `count` elements of a row after `carry` (the running value before
 * them); returns the last.  Local-first, as the rows kernel: carry op (x0 op ... op xk). */
template <int OP, typename In, typename Acc, typename Out, typename I>
__device__ __forceinline__ Acc cuarr_scan_cols_run(const In *in, Out *out, I at_in, I in_step,
                                                   I at_out, I out_step, I count, Acc carry) {
  constexpr int B = CUARR_SCAN_COLS_BATCH;
  Acc local = cuarr_scan_identity<OP, Acc>();
  I k = 0;
  for (; k + (I)B <= count; k += (I)B) {
    Acc v[B];
#pragma unroll
    for (int u = 0; u < B; ++u)
      v[u] = cuarr_cast<Acc>(cuarr_load(in + (at_in + (I)u * in_step)));
#pragma unroll
    for (int u = 0; u < B; ++u) {
      local = cuarr_scan_apply<OP>(local, v[u]);
      out[at_out + (I)u * out_step] = cuarr_cast<Out>(cuarr_scan_apply<OP>(carry, local));
    }
    at_in += (I)B * in_step;
    at_out += (I)B * out_step;
  }
  for (; k < count; ++k, at_in += in_step, at_out += out_step) {
    local = cuarr_scan_apply<OP>(local, cuarr_cast<Acc>(cuarr_load(in + at_in)));
    out[at_out] = cuarr_cast<Out>(cuarr_scan_apply<OP>(carry, local));
  }
  return cuarr_scan_apply<OP>(carry, local);
}

/* `rows` rows along the last of the layout's axes (row r starts at flat index r * len), each
 * cut into chunks of `chunk` elements.  A thread per (row, chunk); a block takes blockDim.x
 * consecutive rows (neighbouring threads, neighbouring rows: each step of a warp reads and
 * writes consecutive elements when the rows are) and one chunk.
 *
 * One chunk per row (chunk >= len, state NULL): each thread scans its row sequentially.
 * Several (there are too few rows to fill the GPU): a per-thread decoupled look-back along
 * the row, with a status slot per (row, chunk) at chunk * rows + row (a warp reads 32
 * neighbouring slots).  Blocks take their numbers from the counter, chunk-major: block t is
 * chunk t / groups of row group t % groups, so the chunk before a thread's own belongs to
 * block t - groups, started earlier.  A thread sums its chunk (first read), publishes A,
 * looks back slot by slot to the nearest P (chunk 0 publishes P after its scan), publishes P,
 * then reads the chunk again (from L2 now) and writes the running values. */
template <int OP, typename In, typename Acc, typename Out, typename I, int ND, bool GENERIC>
__device__ __forceinline__ void cuarr_scan_cols(const In *in, Out *out,
                                                const cuarr_layout<I, ND, 2> &p, I rows, I chunk,
                                                void *state) {
  __shared__ unsigned block_number;
  cuarr_scan_wait_previous();
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  const int axis = GENERIC ? (int)p.ndim - 1 : ND - 1;
  const I len = p.shape[axis], in_step = p.strides[0][axis], out_step = p.strides[1][axis];
  const I groups = (rows + (I)blockDim.x - 1) / (I)blockDim.x;
  const I chunks = (len + chunk - 1) / chunk;
  unsigned number = blockIdx.x;
  if (state) {
    if (threadIdx.x == 0)
      block_number = atomicAdd((unsigned *)state, 1u);
    __syncthreads();
    number = block_number;
  }
  const I q = (I)number / groups, r = ((I)number - q * groups) * (I)blockDim.x + (I)threadIdx.x;
  if (r >= rows)
    return;
  const I first = q * chunk, count = len - first < chunk ? len - first : chunk;
  I off[2];
  cuarr_offsets<GENERIC>(p, r * len + first, off);
  if (!state) {
    cuarr_scan_cols_run<OP>(in, out, off[0], in_step, off[1], out_step, count,
                            cuarr_scan_identity<OP, Acc>());
    return;
  }
  const cuarr_scan_status<Acc> status(state, (unsigned long long)rows * chunks);
  const long long slot = (long long)q * (long long)rows + (long long)r;
  if (q == 0) {
    const Acc last = cuarr_scan_cols_run<OP>(in, out, off[0], in_step, off[1], out_step, count,
                                             cuarr_scan_identity<OP, Acc>());
    status.publish(slot, CUARR_SCAN_P, last);
    return;
  }
  const Acc total = cuarr_scan_cols_total<OP, In, Acc>(in, off[0], in_step, count);
  status.publish(slot, CUARR_SCAN_A, total);
  /* Back to the nearest P, then forwards in order (as cuarr_scan_look_back, for the same
   * bits whichever P is found). */
  const long long step = (long long)rows;
  long long j = slot - step;
  unsigned flag;
  Acc carry;
  for (;; j -= step) {
    while (status.read(j, flag, carry), flag == CUARR_SCAN_X)
      __nanosleep(64);
    if (flag == CUARR_SCAN_P)
      break;
  }
  for (j += step; j < slot; j += step) {
    Acc v;
    status.read(j, flag, v); /* A or P: it was not X on the way back */
    carry = flag == CUARR_SCAN_P ? v : cuarr_scan_apply<OP>(carry, v);
  }
  status.publish(slot, CUARR_SCAN_P, cuarr_scan_apply<OP>(carry, total));
  cuarr_scan_cols_run<OP>(in, out, off[0], in_step, off[1], out_step, count, carry);
}

#endif
