/*
 * scan_device.c -- cumsum and cumprod on the device, with the kernels of kernels/templates/scan.cu.
 *
 * A call is seen as rows (the elements along the scan axis at one index of the kept axes):
 * the kept axes are put in an order of our choosing (rows are independent), flipped where
 * the input steps backwards, sorted by the input's strides and collapsed; the scan axis stays
 * as it is, last.  Then one of two kernels:
 *  - the one-pass (look-back) kernel when the scan axis is the input's fastest one, or when
 *    there are fewer rows than a warp; contiguous operands take its pointer-only forms (one
 *    row, or rows one after another), the others a layout;
 *  - the thread-per-row kernel otherwise (a kept axis is the fastest: each warp step reads
 *    and writes consecutive elements of 32 rows), with rows cut into chunks joined by a
 *    look-back when there are too few rows to fill the GPU.
 * 32-bit indexing when every offset fits.  A look-back needs state memory (a counter and a
 * status slot per tile or per (row, chunk)), taken from the pool on the stream and zeroed
 * there before the launch; it is released once the kernel is queued (the pool is
 * stream-ordered).
 *
 * Kernels are found in a function table (compile/function_table.h) keyed by (device, dtypes,
 * op, shape, width): a hit takes no lock, allocates nothing and builds no source text; a miss
 * builds the source and asks the compile service (cuarr_kernel_get), which caches the
 * compiled module.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile/function_table.h"
#include "scan/scan_device.h"

/* The thread-per-row kernel serves scans whose axis is not the input's fastest, unless there
 * are fewer rows than this: then most lanes of its warps would idle, while the one-pass
 * kernel reading rows strided by fewer than 8 elements wastes little of each sector it reads.
 * (These constants are estimates, to be timed.) */
#define COLS_MIN_ROWS 8
/* With fewer rows than this, the thread-per-row kernel cuts rows into chunks, a thread each,
 * so that it has about COLS_TARGET_THREADS threads (the GPU's resident threads), chunks of at
 * least COLS_MIN_CHUNK elements. */
#define COLS_CHUNKED_BELOW 65536
#define COLS_TARGET_THREADS (1 << 18)
#define COLS_MIN_CHUNK 64

/* ---------------------------------------------------------------- plans */

typedef struct plan {
  cuarr_scan_shape shape;
  bool wide;
  int64_t n, rows, len;
  int ndim; /* layout axes in use, the scan axis last */
  int64_t extent[CUARR_MAXDIM];
  int64_t strides[2][CUARR_MAXDIM]; /* in elements: in, out */
  int64_t origin[2];
  char *base[2]; /* each operand's lowest touched element */
  int64_t chunk; /* thread-per-row kernel: elements per thread along a row */
  int64_t grid, block;
  int64_t slots, state_bytes, zeroed_bytes; /* status slots; no state memory when 0 */
} plan;

static int64_t magnitude(int64_t x) { return x >= 0 ? x : x == INT64_MIN ? INT64_MAX : -x; }

/* The kept axes of a scan (every axis but `axis`, extent-1 ones dropped), with the operands'
 * element strides, through the iterator: flipped where the input steps backwards (where it
 * does not step, where the output does), sorted by the input's strides, largest first (ties:
 * the output's, larger first), and collapsed.  Any order will do, since rows are independent;
 * this one makes neighbouring rows neighbours in memory where they can be.  Returns the
 * number of kept axes. */
static int kept_axes(int ndim, const int64_t *shape, int axis, int64_t (*strides)[CUARR_MAXDIM],
                     char **data, const int64_t *itemsize, int64_t *kshape,
                     int64_t (*kstrides)[CUARR_MAXDIM]) {
  int kn = 0;
  for (int d = 0; d < ndim; d++) {
    if (d == axis || shape[d] == 1)
      continue;
    kshape[kn] = shape[d];
    for (int k = 0; k < 2; k++)
      kstrides[k][kn] = strides[k][d];
    kn++;
  }
  int64_t *ks[2] = {kstrides[0], kstrides[1]};
  cuarr_iter_flip(kn, kshape, 2, ks, data, itemsize, 0, 1);
  cuarr_iter_order by_input = {0, 1, true};
  cuarr_iter_sort(kn, kshape, 2, ks, by_input);
  return cuarr_iter_collapse(kn, kshape, 2, ks);
}

/* Which kernel, from the collapsed kept axes and the scan axis' strides. */
static cuarr_scan_shape choose_shape(const plan *p, int kn, int64_t (*kstrides)[CUARR_MAXDIM],
                                     int64_t in_step, int64_t out_step) {
  /* After sorting, the last kept axis has the input's smallest kept stride. */
  int64_t inner_kept = kn > 0 ? magnitude(kstrides[0][kn - 1]) : INT64_MAX;
  bool axis_inner = magnitude(in_step) < inner_kept;
  bool rows_kernel = p->len > 1 && (axis_inner || p->rows < COLS_MIN_ROWS);
  if (!rows_kernel)
    return kn <= 1 ? CUARR_SCAN_COLS_ND2 : kn == 2 ? CUARR_SCAN_COLS_ND3 : CUARR_SCAN_COLS_NDN;
  bool contig = in_step == 1 && out_step == 1 &&
                (kn == 0 || (kn == 1 && kstrides[0][0] == p->len && kstrides[1][0] == p->len));
  if (contig)
    return kn == 0 ? CUARR_SCAN_ROWS_ONE : CUARR_SCAN_ROWS_CONTIG;
  return kn <= 1 ? CUARR_SCAN_ROWS_ND2 : CUARR_SCAN_ROWS_NDN;
}

/* The state memory of a look-back (scan.cu's cuarr_scan_status): the counter, then per slot
 * a 64-bit word (accumulators of up to 4 bytes) or a 32-bit flag and two 8-byte values.  The
 * counter and the flags are zeroed. */
static void state_size(plan *p, cuarr_dtype acc) {
  if (cuarr_dtype_size(acc) <= 4) {
    p->zeroed_bytes = p->state_bytes = CUARR_SCAN_HEADER_BYTES + 8 * p->slots;
  } else {
    p->zeroed_bytes = CUARR_SCAN_HEADER_BYTES + 4 * p->slots;
    p->state_bytes = CUARR_SCAN_HEADER_BYTES + ((4 * p->slots + 7) & ~(int64_t)7) + 16 * p->slots;
  }
}

/* The launch of the one-pass kernel: a block per tile, a status slot per tile. */
static void rows_launch(plan *p, cuarr_dtype acc) {
  p->block = cuarr_scan_shape_threads(p->shape);
  int64_t tile = p->block * cuarr_scan_shape_items(p->shape, acc);
  p->grid = p->slots = (p->n + tile - 1) / tile;
  state_size(p, acc);
}

/* The launch of the thread-per-row kernel: blocks of up to CUARR_SCAN_BLOCK rows (a whole
 * number of warps); rows cut into chunks when there are too few of them for the GPU, with a
 * status slot per (row, chunk) then. */
static void cols_launch(plan *p, cuarr_dtype acc) {
  p->chunk = p->len;
  if (p->rows < COLS_CHUNKED_BELOW && p->len > COLS_MIN_CHUNK) {
    int64_t per_thread = (p->n + COLS_TARGET_THREADS - 1) / COLS_TARGET_THREADS;
    p->chunk = per_thread < COLS_MIN_CHUNK ? COLS_MIN_CHUNK : per_thread;
    if (p->chunk > p->len)
      p->chunk = p->len;
  }
  int64_t chunks = (p->len + p->chunk - 1) / p->chunk;
  p->block = p->rows >= CUARR_SCAN_BLOCK ? CUARR_SCAN_BLOCK : (p->rows + 31) / 32 * 32;
  p->grid = (p->rows + p->block - 1) / p->block * chunks;
  if (chunks > 1) {
    p->slots = p->rows * chunks;
    state_size(p, acc);
  }
}

/* Fill p for a scan along `axis` (extent >= 1) of n > 0 elements of `shape`; the operands'
 * data addresses, itemsizes and byte strides: in, then out. */
static cuarr_status plan_make(plan *p, int ndim, const int64_t *shape, int axis, int64_t n,
                              void *const *data_in, const size_t *itemsize_in,
                              const int64_t *const *byte_strides, cuarr_dtype acc) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->len = shape[axis];
  p->rows = n / p->len;
  char *data[2];
  int64_t strides[2][CUARR_MAXDIM], itemsize[2];
  for (int k = 0; k < 2; k++) {
    data[k] = data_in[k];
    itemsize[k] = (int64_t)itemsize_in[k];
    /* Strides in elements: every access is then aligned, which the GPU requires. */
    if (!cuarr_iter_element_strides(ndim, shape, byte_strides[k], data[k], itemsize[k], strides[k]))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "array data or strides are not multiples of the itemsize (%lld bytes)",
                        (long long)itemsize[k]);
  }
  int64_t kshape[CUARR_MAXDIM], kstrides[2][CUARR_MAXDIM];
  int kn = kept_axes(ndim, shape, axis, strides, data, itemsize, kshape, kstrides);
  int64_t in_step = strides[0][axis], out_step = strides[1][axis];
  p->shape = choose_shape(p, kn, kstrides, in_step, out_step);

  /* The layout: the kept axes (padded with extent-1 ones to the kernel's fixed count), then
   * the scan axis. */
  int axes = cuarr_scan_layout_axes(p->shape);
  p->ndim = axes == CUARR_MAXDIM || axes == 0 ? kn + 1 : axes;
  int pad = p->ndim - 1 - kn;
  for (int d = 0; d < p->ndim - 1; d++) {
    p->extent[d] = d < pad ? 1 : kshape[d - pad];
    for (int k = 0; k < 2; k++)
      p->strides[k][d] = d < pad ? 0 : kstrides[k][d - pad];
  }
  p->extent[p->ndim - 1] = p->len;
  p->strides[0][p->ndim - 1] = in_step;
  p->strides[1][p->ndim - 1] = out_step;

  bool fits = n <= INT32_MAX;
  for (int k = 0; k < 2; k++) {
    int64_t span;
    if (!cuarr_iter_place(p->ndim, p->extent, p->strides[k], data[k], itemsize[k], &p->origin[k],
                          &p->base[k], &span))
      return cuarr_fail(CUARR_VALUE_ERROR, "array strides are too large to index");
    fits = fits && cuarr_iter_span_fits32(span);
  }
  p->wide = !fits;
  /* The contiguous kernels move 16-byte packs where the dtypes' sizes and the addresses let
   * them (a whole pack of in is a whole pack of out). */
  if (cuarr_scan_shape_is_contig(p->shape) &&
      cuarr_scan_vec_fits(itemsize_in[0], cuarr_dtype_size(acc), itemsize_in[1]) &&
      (uintptr_t)p->base[0] % 16 == 0 && (uintptr_t)p->base[1] % 16 == 0)
    p->shape =
        p->shape == CUARR_SCAN_ROWS_ONE ? CUARR_SCAN_ROWS_ONE_VEC : CUARR_SCAN_ROWS_CONTIG_VEC;
  if (cuarr_scan_shape_is_rows(p->shape))
    rows_launch(p, acc);
  else
    cols_launch(p, acc);
  if (p->grid > INT32_MAX)
    return cuarr_fail(CUARR_VALUE_ERROR, "a scan of %lld elements is too large", (long long)n);
  return CUARR_OK;
}

cuarr_status cuarr_scan_plan_describe(int ndim, const int64_t *shape, int axis, cuarr_dtype in,
                                      const int64_t *in_strides, cuarr_dtype out,
                                      const int64_t *out_strides, cuarr_dtype acc,
                                      cuarr_scan_plan_info *info) {
  if (ndim < 1 || ndim > CUARR_MAXDIM || axis < 0 || axis >= ndim)
    return cuarr_fail(CUARR_VALUE_ERROR, "axis %d of %d axes", axis, ndim);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++)
    if (shape[d] < 1 || __builtin_mul_overflow(n, shape[d], &n))
      return cuarr_fail(CUARR_VALUE_ERROR, "bad shape");
  /* An address aligned for every dtype, far enough from 0 and from the top of the address
   * space that the iterator's flips stay inside it for any indexable layout. */
  char *data = (char *)(uintptr_t)(UINT64_C(1) << 62);
  void *datas[2] = {data, data};
  size_t itemsize[2] = {cuarr_dtype_size(in), cuarr_dtype_size(out)};
  const int64_t *strides[2] = {in_strides, out_strides};
  plan p;
  CUARR_TRY(plan_make(&p, ndim, shape, axis, n, datas, itemsize, strides, acc));
  memset(info, 0, sizeof *info);
  info->shape = p.shape;
  info->wide = p.wide;
  info->n = p.n;
  info->rows = p.rows;
  info->len = p.len;
  info->ndim = p.ndim;
  for (int d = 0; d < p.ndim; d++) {
    info->extent[d] = p.extent[d];
    info->strides[0][d] = p.strides[0][d];
    info->strides[1][d] = p.strides[1][d];
  }
  for (int k = 0; k < 2; k++) {
    info->origin[k] = p.origin[k];
    info->base[k] = (p.base[k] - data) / (int64_t)itemsize[k];
  }
  info->chunk = p.chunk;
  info->grid = p.grid;
  info->block = p.block;
  info->slots = p.slots;
  info->state_bytes = p.state_bytes;
  info->zeroed_bytes = p.zeroed_bytes;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- the dispatch table */

/* One function table (compile/function_table.h) for every device, made on first use and kept
 * for the life of the process, as are the modules the compile service loaded. */
static void *scan_table;

/* Every field packed (and + 1, so that no key is 0); 0 when the device is beyond the key. */
static uint64_t key_of(int device, const cuarr_scan_variant *v) {
  if (device < 0 || device > 0xffff)
    return 0;
  uint64_t k = (uint64_t)device;
  k = k << 4 | (uint64_t)v->in;
  k = k << 4 | (uint64_t)v->acc;
  k = k << 4 | (uint64_t)v->out;
  k = k << 2 | (uint64_t)v->op;
  k = k << 4 | (uint64_t)v->shape;
  k = k << 1 | (uint64_t)v->wide;
  return k + 1;
}

static void variant_name(const void *v, char *buf, size_t size) {
  cuarr_scan_variant_name(v, buf, size);
}
static char *variant_program(const void *v) { return cuarr_scan_program(v, 1); }
static const cuarr_variant_writer writer = {variant_name, variant_program};

static cuarr_status kernel_for(int device, const cuarr_scan_variant *v, CUfunction *out) {
  return cuarr_function_table_variant(&scan_table, key_of(device, v), device, &writer, v, out);
}

/* ---------------------------------------------------------------- launches */

/* The kernel's cuarr_layout<I, axes, 2> parameter (kernels/include/common.cuh), packed by the
 * iterator's last stage. */
static void layout_pack(const plan *p, int axes, cuarr_iter_layout *out) {
  const int64_t *strides[2] = {p->strides[0], p->strides[1]};
  cuarr_iter_pack(out, p->wide, p->n, p->ndim, axes, p->extent, 2, p->origin, strides);
}

/* The kernel's arguments: in, out, then (n, len) for the contiguous one-pass kernels, the
 * layout for the strided ones, the layout, rows and chunk for the thread-per-row ones; then
 * the state memory. */
typedef struct kernel_args {
  CUdeviceptr base[2], state;
  cuarr_iter_index n, len, rows, chunk;
  cuarr_iter_layout layout;
  void *list[7];
} kernel_args;

static void args_make(const plan *p, CUdeviceptr state, kernel_args *a) {
  a->base[0] = (CUdeviceptr)p->base[0];
  a->base[1] = (CUdeviceptr)p->base[1];
  a->state = state;
  int k = 0;
  a->list[k++] = &a->base[0];
  a->list[k++] = &a->base[1];
  if (cuarr_scan_shape_is_contig(p->shape)) {
    a->n = cuarr_iter_index_of(p->wide, p->n);
    a->len = cuarr_iter_index_of(p->wide, p->len);
    a->list[k++] = &a->n;
    a->list[k++] = &a->len;
  } else {
    layout_pack(p, cuarr_scan_layout_axes(p->shape), &a->layout);
    a->list[k++] = &a->layout;
    if (!cuarr_scan_shape_is_rows(p->shape)) {
      a->rows = cuarr_iter_index_of(p->wide, p->rows);
      a->chunk = cuarr_iter_index_of(p->wide, p->chunk);
      a->list[k++] = &a->rows;
      a->list[k++] = &a->chunk;
    }
  }
  a->list[k] = &a->state;
}

/* A look-back kernel: its state memory from the pool, zeroed on the stream, then a plain
 * launch (the memset before it is no kernel to overlap with); the state is released once the
 * kernel is queued (stream-ordered). */
static cuarr_status launch_with_state(const cuarr_context *ctx, int device, CUstream stream,
                                      const cuarr_scan_call *c, const plan *p, CUfunction f) {
  cuarr_array state;
  int64_t bytes = p->state_bytes;
  CUARR_TRY(cuarr_array_empty(device, CUARR_UINT8, 1, &bytes, false, stream, cuarr_ctx_reclaim(ctx),
                              &state));
  /* The plan's pointers were read before it (internal.h: operands after an allocation). */
  cuarr_status live = cuarr_both_still_live(c->in, c->out);
  if (live != CUARR_OK) {
    cuarr_array_release(&state);
    return live;
  }
  CUdeviceptr state_ptr = (CUdeviceptr)cuarr_array_data(&state);
  cuarr_status s = cuarr_cu_check(
      cuarr_cu.cuMemsetD8Async(state_ptr, 0, (size_t)p->zeroed_bytes, stream), "cuMemsetD8Async");
  if (s == CUARR_OK) {
    kernel_args a;
    args_make(p, state_ptr, &a);
    s = cuarr_launch(f, (unsigned)p->grid, (unsigned)p->block, 0, stream, a.list);
  }
  cuarr_array_release(&state);
  return s;
}

static cuarr_status launch(const cuarr_context *ctx, int device, CUstream stream,
                           const cuarr_scan_call *c, const plan *p, CUfunction f) {
  if (p->state_bytes > 0)
    return launch_with_state(ctx, device, stream, c, p, f);
  kernel_args a;
  args_make(p, 0, &a);
  return cuarr_launch_dependent(device, f, (unsigned)p->grid, (unsigned)p->block, 0, stream,
                                a.list);
}

cuarr_status cuarr_device_scan(cuarr_context *ctx, const cuarr_scan_call *c) {
  if ((unsigned)c->op >= CUARR_NSCAN_OPS || (unsigned)c->acc >= CUARR_NDTYPES ||
      c->acc == CUARR_FLOAT16)
    return cuarr_fail(CUARR_VALUE_ERROR, "unknown scan or accumulator dtype");
  const cuarr_array *in = c->in, *out = c->out;
  CUARR_TRY(cuarr_array_check_live(in));
  CUARR_TRY(cuarr_array_check_live(out));
  int device = cuarr_array_device(in);
  if (device == CUARR_HOST || cuarr_array_device(out) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "a device scan needs the input and output on one device");
  if (c->axis < 0 || c->axis >= in->ndim || out->ndim != in->ndim ||
      memcmp(out->shape, in->shape, (size_t)in->ndim * sizeof *in->shape) != 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "scan: bad axis or output shape");
  int64_t n = cuarr_array_size(in);
  if (n == 0)
    return CUARR_OK;
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  CUARR_TRY(cuarr_device_activate(device));

  plan p;
  void *data[2] = {cuarr_array_data(in), cuarr_array_data(out)};
  size_t itemsize[2] = {cuarr_dtype_size(in->dtype), cuarr_dtype_size(out->dtype)};
  const int64_t *strides[2] = {in->strides, out->strides};
  CUARR_TRY(plan_make(&p, in->ndim, in->shape, c->axis, n, data, itemsize, strides, c->acc));

  cuarr_scan_variant v = {c->op, in->dtype, c->acc, out->dtype, p.shape, p.wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &v, &f));
  return launch(ctx, device, stream, c, &p, f);
}
