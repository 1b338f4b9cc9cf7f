/*
 * transpose.cu -- dst[...] = src[...] with dtype conversion (cuarr_cast) where dst and src are
 * contiguous along different axes (m.T:copy(), a C <-> F-order copy, a batched swapaxes):
 * a batched 2-D transpose through a tile in shared memory.
 *
 * Templates only: the generator (src/core/copy/copy_source.c) appends one extern "C" kernel
 * per (src, dst) dtype pair and index width, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_transpose_float32_to_int8_i32(signed char *dst, const float *src,
 *                                       cuarr_layout<unsigned int, 32, 2> p)
 *   { cuarr_copy_transpose<256, 64>(dst, src, p); }
 *
 * The layout (kernels/common.cuh; operand 0 is dst, 1 is src) comes from the host with its
 * axes arranged so that the last two are the tile's (src/core/copy/copy_kernels.c,
 * transpose_axes):
 *  - axis ndim-1, the tile's columns: dst's innermost axis (smallest dst stride);
 *  - axis ndim-2, the tile's rows: src's innermost axis (smallest nonzero src stride);
 *  - axes 0..ndim-3: the batch, each combination of them one 2-D slice.
 * Both tile axes are at least 8 long (the host's rule), so a tile is never mostly empty.
 *
 * Without the tile, the strided kernel (copy.cu) walks dst's innermost axis, and its warp
 * reads src at the stride of that axis, one 32-byte sector per element: some 0.5 TB/s on a
 * 16384^2 float32 matrix.  Here a block moves a TILE x TILE tile in two phases:
 *  - read: each warp reads TILE consecutive rows along src's contiguous axis (one tile
 *    column, `TILE * itemsize` contiguous bytes per warp and column), for TILE/8 columns; every
 *    thread issues all of its TILE*TILE/THREADS loads (16 for 64 x 64) before the first is
 *    used, so that enough bytes are in flight to cover the memory latency;
 *  - write: each warp writes TILE consecutive columns along dst's contiguous axis, reading the
 *    tile across its rows in shared memory, converting each element on the way out (the tile
 *    holds src's type: a conversion never widens what shared memory holds).
 * Every global access is thus coalesced: a warp touches whole 32-byte sectors, 32 elements in
 * a row (32 bytes for 1-byte types, 256 for 8-byte ones).
 *
 * Bank conflicts.  The tile is stored as tile[column][row]: the read phase writes a warp's 32
 * rows of one column to consecutive addresses (conflict-free), the write phase reads one row
 * of 32 columns, addresses one row pitch apart.  The pitch is padded so that those 32 words
 * fall in 32 different banks:
 *  - 4-byte types: TILE + 1 words (odd);
 *  - 8-byte types: TILE + 1 elements = 2*TILE + 2 words; a warp's 8-byte accesses are served
 *    in two halves of 16 threads, whose 16 pairs of words start on banks 2t (t = 0..15) and
 *    so cover the 32 banks once;
 *  - 1- and 2-byte types: the pitch is padded by one 4-byte word (4/itemsize elements), so that
 *    it is TILE*itemsize/4 + 1 words, odd since TILE*itemsize/4 is even: 32 columns of one row
 *    lie in 32 different words and banks.  (One element of padding would put up to four
 *    columns in one bank.)
 *
 * Launch geometry.  The tiles of all slices are numbered t = (slice * tiles_c + tc) * tiles_r +
 * tr (tile rows fastest, so that neighbouring blocks read neighbouring stretches of the same
 * src rows and write neighbouring dst rows) and a 1-D grid walks them, block b taking tiles b,
 * b + gridDim.x, ...  A 1-D grid has no 65535 limit on any axis (gridDim.y and .z have one,
 * which a 2-D grid would meet at 65535 * 64 rows or at 65535 slices) and any number of batch
 * axes folds into the tile number; the host caps the grid at a multiple of what is resident
 * at once (copy_kernels.c), so a block usually does a few tiles.  Splitting a tile number
 * costs two or three integer divisions per tile, once per TILE*TILE elements.  Each block
 * loops over its tiles with two barriers per tile: one before it overwrites shared memory
 * (the previous tile's write phase must be done with it: the loads of the new tile are
 * already in flight by then), one before it reads the tile back.
 *
 * Index width: I is unsigned int when every offset fits in 32 bits, else unsigned long long
 * (the host's rule, as for the other copies).  Offsets are computed modulo 2^bits (negative
 * src strides are stored wrapped), and only those of elements inside the arrays are used.
 */

template <int THREADS, int TILE, typename D, typename S, typename I, int ND>
__device__ __forceinline__ void cuarr_copy_transpose(D *dst, const S *src,
                                                     const cuarr_layout<I, ND, 2> &p) {
  constexpr int LANES = 32;              /* threads along a tile row or column */
  constexpr int STEP = THREADS / LANES;  /* warps: tile lines handled at once */
  constexpr int PER_LINE = TILE / LANES; /* elements per thread along one tile line */
  constexpr int LINES = TILE / STEP;     /* tile lines per thread */
  constexpr int PAD = sizeof(S) >= 4 ? 1 : 4 / (int)sizeof(S); /* see "Bank conflicts" */
  static_assert(THREADS % LANES == 0 && TILE % LANES == 0 && TILE % STEP == 0,
                "the tile must split evenly over the block's warps and lanes");
  __shared__ S tile[TILE][TILE + PAD]; /* [column][row] */

  const int nd = (int)p.ndim, ra = nd - 2, ca = nd - 1;
  const I rows = p.shape[ra], cols = p.shape[ca];
  const I dst_r = p.strides[0][ra], dst_c = p.strides[0][ca];
  const I src_r = p.strides[1][ra], src_c = p.strides[1][ca];
  const I tiles_r = (rows + (I)(TILE - 1)) / (I)TILE, tiles_c = (cols + (I)(TILE - 1)) / (I)TILE;
  const I per_slice = tiles_r * tiles_c, slices = p.n / (rows * cols);
  const I tiles = per_slice * slices;
  const int lane = (int)threadIdx.x % LANES, line = (int)threadIdx.x / LANES;

  for (I t = (I)blockIdx.x; t < tiles; t += (I)gridDim.x) {
    /* This tile's slice, its place in the slice, and the slice's offsets (batch axes). */
    I slice = 0, in_slice = t;
    if (slices > 1) {
      slice = t / per_slice;
      in_slice = t - slice * per_slice;
    }
    const I tc = in_slice / tiles_r, tr = in_slice - tc * tiles_r;
    I dst_off = p.origin[0], src_off = p.origin[1];
    if (nd > 2) {
      for (int d = nd - 3; d > 0; --d) {
        const I q = slice / p.shape[d], index = slice - q * p.shape[d];
        slice = q;
        dst_off += index * p.strides[0][d];
        src_off += index * p.strides[1][d];
      }
      dst_off += slice * p.strides[0][0]; /* slice is below shape[0] now */
      src_off += slice * p.strides[1][0];
    }
    const I r0 = tr * (I)TILE, c0 = tc * (I)TILE;
    const I rows_left = rows - r0, cols_left = cols - c0; /* > 0; under TILE at the edges */

    /* Read: this thread's elements are rows lane + LANES*m of columns line + STEP*k. */
    S value[LINES][PER_LINE];
    const I src0 = src_off + (r0 + (I)lane) * src_r + (c0 + (I)line) * src_c;
#pragma unroll
    for (int k = 0; k < LINES; ++k)
#pragma unroll
      for (int m = 0; m < PER_LINE; ++m)
        if ((I)(line + STEP * k) < cols_left && (I)(lane + LANES * m) < rows_left)
          value[k][m] = cuarr_load(src + (src0 + (I)(LANES * m) * src_r + (I)(STEP * k) * src_c));
    __syncthreads(); /* the previous tile's write phase is done with the shared tile */
#pragma unroll
    for (int k = 0; k < LINES; ++k)
#pragma unroll
      for (int m = 0; m < PER_LINE; ++m)
        if ((I)(line + STEP * k) < cols_left && (I)(lane + LANES * m) < rows_left)
          tile[line + STEP * k][lane + LANES * m] = value[k][m];
    __syncthreads();

    /* Write: this thread's elements are columns lane + LANES*m of rows line + STEP*k. */
    const I dst0 = dst_off + (r0 + (I)line) * dst_r + (c0 + (I)lane) * dst_c;
#pragma unroll
    for (int k = 0; k < LINES; ++k)
#pragma unroll
      for (int m = 0; m < PER_LINE; ++m)
        if ((I)(line + STEP * k) < rows_left && (I)(lane + LANES * m) < cols_left)
          dst[dst0 + (I)(STEP * k) * dst_r + (I)(LANES * m) * dst_c] =
              cuarr_cast<D>(tile[lane + LANES * m][line + STEP * k]);
  }
}
