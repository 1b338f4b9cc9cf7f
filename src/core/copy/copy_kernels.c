/*
 * copy_kernels.c -- copies, fills and linear fills within one device, with the kernels of
 * kernels/templates/copy.cu, transpose.cu, fill.cu and linear.cu.
 *
 * Each call broadcasts and collapses the operands' layout through the iterator (array/iter.h:
 * fewer axes, strides in elements), picks the specialisation that fits (contiguous, 1..4 axes
 * or generic; a tiled transpose when dst and src are contiguous along different axes; 32-bit
 * indexing when every offset fits) and launches it on the context's stream.  Kernels are found in a
 * table per device indexed by the specialisation: a hit is one atomic load, with no lock, no
 * allocation and no source text; a miss builds the source and asks the compile service
 * (cuarr_kernel_get), which caches the compiled module.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "copy/copy_source.h"

/* Elements per thread that a block is sized for (the copy kernels keep 4 loads in flight). */
#define ELEMENTS_PER_THREAD 4

/* ---------------------------------------------------------------- the dispatch table */

typedef _Atomic(CUfunction) kernel_slot;

typedef struct device_kernels {
  unsigned max_blocks;
  kernel_slot copy[CUARR_NDTYPES][CUARR_NDTYPES][CUARR_NSHAPES][2]; /* [src][dst][shape][wide] */
  kernel_slot transpose[CUARR_NDTYPES][CUARR_NDTYPES][2];           /* [src][dst][wide] */
  kernel_slot fill[4][CUARR_NSHAPES][2];                            /* [log2 itemsize]... */
  kernel_slot linear[CUARR_NDTYPES][2];
  kernel_slot reverse[CUARR_NDTYPES][2]; /* [bits dtype][wide] */
} device_kernels;

/* Allocated on a device's first use and kept for the life of the process, as are the modules
 * the compile service loaded. */
static _Atomic(device_kernels *) tables[CUARR_MAX_DEVICES];
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static cuarr_status device_table(int device, device_kernels **out) {
  if (device < 0 || device >= CUARR_MAX_DEVICES)
    return cuarr_fail(CUARR_VALUE_ERROR, "device %d: cuarr's kernels support devices 0 to %d",
                      device, CUARR_MAX_DEVICES - 1);
  device_kernels *t = atomic_load_explicit(&tables[device], memory_order_acquire);
  if (t) {
    *out = t;
    return CUARR_OK;
  }
  const cuarr_device_facts *facts;
  CUARR_TRY(cuarr_device_facts_get(device, &facts));
  pthread_mutex_lock(&tables_lock);
  t = atomic_load_explicit(&tables[device], memory_order_relaxed);
  if (!t) {
    t = calloc(1, sizeof *t); /* all slots NULL: a null pointer is all-zero bits here */
    if (t) {
      t->max_blocks = facts->grid_stride_blocks;
      atomic_store_explicit(&tables[device], t, memory_order_release);
    }
  }
  pthread_mutex_unlock(&tables_lock);
  if (!t)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel table of device %d",
                      device);
  *out = t;
  return CUARR_OK;
}

/* The kernel in slot, compiled and published there on first use.  Two threads missing at once
 * both ask the compile service, which hands both the same kernel. */
static cuarr_status kernel_for(int device, kernel_slot *slot, const cuarr_copy_variant *v,
                               CUfunction *out) {
  CUfunction f = atomic_load_explicit(slot, memory_order_acquire);
  if (!f) {
    char name[128];
    cuarr_copy_variant_name(v, name, sizeof name);
    char *source = cuarr_copy_program(v, 1);
    if (!source)
      return CUARR_OUT_OF_MEMORY;
    cuarr_status s = cuarr_kernel_get(device, source, name, NULL, 0, &f);
    free(source);
    if (s != CUARR_OK)
      return s;
    atomic_store_explicit(slot, f, memory_order_release);
  }
  *out = f;
  return CUARR_OK;
}

static unsigned blocks_capped(const device_kernels *t, int64_t blocks) {
  if (blocks > (int64_t)t->max_blocks)
    blocks = t->max_blocks;
  return blocks < 1 ? 1 : (unsigned)blocks;
}

static unsigned grid_for(const device_kernels *t, int64_t n) {
  int64_t per_block = (int64_t)CUARR_COPY_THREADS * ELEMENTS_PER_THREAD;
  return blocks_capped(t, (n + per_block - 1) / per_block);
}

/* ---------------------------------------------------------------- checks */

static cuarr_status device_of(const cuarr_array *a, const char *what, int *device) {
  CUARR_TRY(cuarr_array_check_live(a));
  *device = cuarr_array_device(a);
  if (*device == CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s is a host array where a device array is needed", what);
  return CUARR_OK;
}

/* src's byte strides seen with dst's shape (the iterator's broadcast stage), or the error
 * NumPy gives. */
static cuarr_status broadcast_strides(const cuarr_array *dst, const cuarr_array *src,
                                      int64_t *strides) {
  if (cuarr_iter_broadcast(src, dst->ndim, dst->shape, strides))
    return CUARR_OK;
  char from[CUARR_SHAPE_STR_SIZE], into[CUARR_SHAPE_STR_SIZE];
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "could not broadcast input array from shape %s into shape %s",
                    cuarr_shape_format(from, src->ndim, src->shape),
                    cuarr_shape_format(into, dst->ndim, dst->shape));
}

/* dst and src (its strides broadcast) address the same bytes element for element. */
static bool same_layout(const cuarr_array *dst, const cuarr_array *src, const int64_t *strides) {
  if (cuarr_array_data(dst) != cuarr_array_data(src) ||
      cuarr_dtype_size(dst->dtype) != cuarr_dtype_size(src->dtype))
    return false;
  for (int d = 0; d < dst->ndim; d++)
    if (dst->shape[d] > 1 && dst->strides[d] != strides[d])
      return false;
  return true;
}

/* ---------------------------------------------------------------- layouts */

/* Up to two operands (dst, src) of one iteration shape, as the kernels see them. */
typedef struct plan {
  int n_ops;
  int ndim; /* after collapsing, at least 1 */
  int shape_kind;
  bool wide;
  int64_t n;
  int64_t shape[CUARR_MAXDIM];
  int64_t strides[2][CUARR_MAXDIM]; /* in elements */
  int64_t origin[2];                /* element (0,...,0) relative to base, in elements */
  CUdeviceptr base[2];              /* each operand's lowest touched element */
} plan;

/* Fill p for the iteration shape (ndim, shape, n > 0 elements) and the operands: data
 * address, itemsize and byte strides (already broadcast to shape).  any_order: the kernel may
 * visit the elements in any order (not so for a linear fill), as a copy or a fill may (every
 * element is independent): the iterator flips the axes along which dst steps backwards (in
 * every operand) and orders the axes by dst's strides, largest first.  Reversed and
 * transposed (F-order) layouts then collapse like C-contiguous ones, and neighbouring threads
 * write neighbouring elements of dst. */
static cuarr_status plan_make(plan *p, int ndim, const int64_t *shape, int64_t n, int n_ops,
                              void *const *data_in, const size_t *itemsize_in,
                              const int64_t *const *byte_strides, bool any_order) {
  p->n_ops = n_ops;
  p->n = n;
  memcpy(p->shape, shape, (size_t)ndim * sizeof *shape);
  char *data[2];
  int64_t itemsize[2];
  int64_t *strides[2] = {p->strides[0], p->strides[1]};
  for (int k = 0; k < n_ops; k++) {
    data[k] = data_in[k];
    itemsize[k] = (int64_t)itemsize_in[k];
    /* Strides in elements: every access is then aligned, which the GPU requires. */
    if (!cuarr_iter_element_strides(ndim, shape, byte_strides[k], data[k], itemsize[k], strides[k]))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "array data or strides are not multiples of the itemsize (%lld bytes)",
                        (long long)itemsize[k]);
  }
  if (any_order) {
    cuarr_iter_flip(ndim, p->shape, n_ops, strides, data, itemsize, 0, -1);
    cuarr_iter_sort(ndim, p->shape, n_ops, strides, cuarr_iter_by(0));
  }
  p->ndim = cuarr_iter_collapse_kernel(ndim, p->shape, n_ops, strides);

  bool contig = p->ndim == 1, fits = n <= INT32_MAX;
  for (int k = 0; k < n_ops; k++) {
    int64_t span;
    char *base;
    if (!cuarr_iter_place(p->ndim, p->shape, p->strides[k], data[k], itemsize[k], &p->origin[k],
                          &base, &span))
      return cuarr_fail(CUARR_VALUE_ERROR, "array strides are too large to index");
    p->base[k] = (CUdeviceptr)base;
    fits = fits && cuarr_iter_span_fits32(span);
    contig = contig && (p->strides[k][0] == 1 || p->shape[0] == 1);
  }
  p->wide = !fits;
  p->shape_kind = contig                          ? CUARR_SHAPE_CONTIG
                  : p->ndim <= CUARR_SHAPE_ND_MAX ? p->ndim
                                                  : CUARR_SHAPE_GENERIC;
  if (!cuarr_copy_shape_exists(p->shape_kind, p->wide))
    p->shape_kind = CUARR_SHAPE_GENERIC;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- transposes */

/* Global memory is read in 32-byte sectors: reading along an axis whose stride is this many
 * bytes or more uses one sector per element whichever kernel reads it. */
#define SECTOR_BYTES 32

static int64_t magnitude(int64_t x) { return x >= 0 ? x : x == INT64_MIN ? INT64_MAX : -x; }

/* The strided kernel's warps walk dst's innermost axis (the last after plan_make's sort), so they
 * write dst in whole sectors, and read src in whole sectors only where src is contiguous along
 * that axis as well.  Where src is contiguous along another axis (m.T:copy(): src steps by a
 * whole row per element of dst's row), each element read costs a sector of its own and the
 * rest of that sector is read again, from L2 at best, when the walk comes back to it: about a
 * sixth of the copy's bandwidth on a large float32 matrix.  The transpose kernel reads tiles
 * along src's innermost axis and writes them along dst's, so both sides are read and written
 * in whole sectors.  It is chosen when
 *  - src has an axis a (not the last) with a nonzero stride smaller than its stride along the
 *    last axis (stride 0, a broadcast, is read at no cost: every lane reads one element);
 *  - reading along a shares sectors between elements (|stride| * itemsize under a sector),
 *    else the tile reads a sector per element as well and gains nothing;
 *  - both tile axes are at least CUARR_TRANSPOSE_MIN_EXTENT (8) long.  Below that most of a
 *    tile's lanes idle on one side and a block has little in flight, while the strided kernel
 *    loses less: along a short last axis its warps read src in runs of that axis' length, and
 *    a short axis a makes it read each src sector at most that many times.  (8 is an estimate,
 *    not a measurement: a 4 x N or N x 4 transpose is the case to time.)
 * a is src's innermost axis among the others (smallest |stride|, the first on ties); the
 * remaining axes are the batch, each combination one 2-D transpose. */
bool cuarr_copy_transpose_axes(int ndim, int64_t *shape, int64_t *const *strides,
                               size_t src_itemsize) {
  if (ndim < 2)
    return false;
  int last = ndim - 1, a = -1;
  int64_t best = INT64_MAX;
  for (int d = 0; d < last; d++) {
    int64_t s = magnitude(strides[1][d]);
    if (shape[d] > 1 && s != 0 && s < best) {
      best = s;
      a = d;
    }
  }
  if (a < 0 || best >= magnitude(strides[1][last]) ||
      best >= SECTOR_BYTES / (int64_t)(src_itemsize ? src_itemsize : 1) ||
      shape[a] < CUARR_TRANSPOSE_MIN_EXTENT || shape[last] < CUARR_TRANSPOSE_MIN_EXTENT)
    return false;
  /* Axis a to ndim-2, the axes between it and there one place outwards. */
  int64_t extent = shape[a], s0 = strides[0][a], s1 = strides[1][a];
  for (int d = a; d < ndim - 2; d++) {
    shape[d] = shape[d + 1];
    strides[0][d] = strides[0][d + 1];
    strides[1][d] = strides[1][d + 1];
  }
  shape[ndim - 2] = extent;
  strides[0][ndim - 2] = s0;
  strides[1][ndim - 2] = s1;
  return true;
}

/* The kernel's cuarr_layout<I, axes, n_ops> parameter (kernels/include/common.cuh), packed by
 * the iterator's last stage. */
static void layout_pack(const plan *p, int axes, cuarr_iter_layout *out) {
  const int64_t *strides[2] = {p->strides[0], p->strides[1]};
  cuarr_iter_pack(out, p->wide, p->n, p->ndim, axes, p->shape, p->n_ops, p->origin, strides);
}

/* ---------------------------------------------------------------- copy */

/* Plan dst = src for the kernels' dtypes dt and st (the same bits type for a same-dtype copy):
 * collapse the layout and choose between the strided kernels and the transpose (*transpose;
 * its tile axes are then the last two). */
static cuarr_status copy_plan(plan *p, int ndim, const int64_t *shape, int64_t n, void *dst_data,
                              const int64_t *dst_strides, cuarr_dtype dt, void *src_data,
                              const int64_t *src_strides, cuarr_dtype st, bool *transpose) {
  void *data[2] = {dst_data, src_data};
  size_t itemsize[2] = {cuarr_dtype_size(dt), cuarr_dtype_size(st)};
  const int64_t *strides[2] = {dst_strides, src_strides};
  CUARR_TRY(plan_make(p, ndim, shape, n, 2, data, itemsize, strides, true));
  /* Reordering the axes changes neither the origins nor the spans plan_make computed. */
  int64_t *axes[2] = {p->strides[0], p->strides[1]};
  *transpose = p->shape_kind != CUARR_SHAPE_CONTIG &&
               cuarr_copy_transpose_axes(p->ndim, p->shape, axes, itemsize[1]);
  return CUARR_OK;
}

/* The transpose kernel over every tile of every slice; its grid is 1-D, capped as the other
 * copies' grids are, and each block loops over its tiles (kernels/templates/transpose.cu says why).
 */
static cuarr_status transpose_launch(int device, device_kernels *t, CUstream stream, plan *p,
                                     cuarr_dtype dt, cuarr_dtype st) {
  cuarr_copy_variant v = {CUARR_FAMILY_TRANSPOSE, dt, st, 0, p->wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->transpose[st][dt][p->wide], &v, &f));
  const int64_t tile = CUARR_TRANSPOSE_TILE;
  int64_t rows = p->shape[p->ndim - 2], cols = p->shape[p->ndim - 1];
  int64_t tiles = ((rows + tile - 1) / tile) * ((cols + tile - 1) / tile) * (p->n / (rows * cols));
  cuarr_iter_layout layout;
  layout_pack(p, CUARR_MAXDIM, &layout);
  void *args[3] = {&p->base[0], &p->base[1], &layout};
  return cuarr_launch(f, blocks_capped(t, tiles), CUARR_COPY_THREADS, 0, stream, args);
}

/* A same-dtype copy of a reversed run into a contiguous one (flip(a):copy()): cuarr_copy_reversed
 * moves 16-byte vectors where the strided kernel moves elements (1 or 2 bytes at a time for the
 * narrow dtypes).  Taken when the vectors line up on both sides, as they do for an array whose
 * length is a multiple of 16 bytes flipped whole; *done tells whether it was. */
static cuarr_status reverse_launch(int device, device_kernels *t, CUstream stream, const plan *p,
                                   cuarr_dtype bits, bool *done) {
  *done = false;
  if (p->ndim != 1 || p->strides[0][0] != 1 || p->strides[1][0] != -1)
    return CUARR_OK;
  const uint64_t size = cuarr_dtype_size(bits);
  const uint64_t dst = (uint64_t)p->base[0] + (uint64_t)p->origin[0] * size;
  const uint64_t src = (uint64_t)p->base[1] + (uint64_t)p->origin[1] * size;
  const uint64_t head = (16 - dst % 16) % 16 / size;
  if ((uint64_t)p->n < head || (src - (head + 16 / size - 1) * size) % 16 != 0)
    return CUARR_OK;
  cuarr_copy_variant v = {CUARR_FAMILY_REVERSE, bits, bits, 1, p->wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->reverse[bits][p->wide], &v, &f));
  CUdeviceptr d = (CUdeviceptr)dst, s = (CUdeviceptr)src;
  cuarr_iter_index count = cuarr_iter_index_of(p->wide, p->n);
  void *args[3] = {&d, &s, &count};
  *done = true;
  return cuarr_launch(f, grid_for(t, p->n), CUARR_COPY_THREADS, 0, stream, args);
}

/* dst = src, src's strides broadcast; no overlap unless the layouts are the same. */
static cuarr_status copy_direct(int device, CUstream stream, const cuarr_array *dst,
                                const cuarr_array *src, const int64_t *src_strides) {
  device_kernels *t;
  CUARR_TRY(device_table(device, &t));
  cuarr_dtype dt = dst->dtype, st = src->dtype;
  if (dt == st) { /* a same-dtype copy moves bits: one kernel per itemsize */
    if (cuarr_array_data(dst) == cuarr_array_data(src) && same_layout(dst, src, src_strides))
      return CUARR_OK;
    dt = st = cuarr_bits_dtype(dt);
  }
  plan p;
  bool transpose;
  int64_t n = cuarr_array_size(dst);
  CUARR_TRY(copy_plan(&p, dst->ndim, dst->shape, n, cuarr_array_data(dst), dst->strides, dt,
                      cuarr_array_data(src), src_strides, st, &transpose));

  if (dt == st && p.shape_kind == CUARR_SHAPE_CONTIG)
    return cuarr_cu_check(
        cuarr_cu.cuMemcpyDtoDAsync(p.base[0], p.base[1], (size_t)n * cuarr_dtype_size(dt), stream),
        "cuMemcpyDtoDAsync");
  if (transpose)
    return transpose_launch(device, t, stream, &p, dt, st);
  if (dt == st) {
    bool done;
    CUARR_TRY(reverse_launch(device, t, stream, &p, dt, &done));
    if (done)
      return CUARR_OK;
  }

  cuarr_copy_variant v = {CUARR_FAMILY_COPY, dt, st, p.shape_kind, p.wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->copy[st][dt][p.shape_kind][p.wide], &v, &f));
  cuarr_iter_layout layout;
  cuarr_iter_index count = cuarr_iter_index_of(p.wide, n);
  void *args[3] = {&p.base[0], &p.base[1], &count};
  if (p.shape_kind != CUARR_SHAPE_CONTIG) {
    layout_pack(&p, cuarr_copy_variant_axes(p.shape_kind), &layout);
    args[2] = &layout;
  }
  return cuarr_launch(f, grid_for(t, n), CUARR_COPY_THREADS, 0, stream, args);
}

cuarr_status cuarr_copy_plan_describe(int ndim, const int64_t *shape, cuarr_dtype dst,
                                      const int64_t *dst_strides, cuarr_dtype src,
                                      const int64_t *src_strides, cuarr_copy_plan_info *out) {
  if (ndim < 0 || ndim > CUARR_MAXDIM)
    return cuarr_fail(CUARR_VALUE_ERROR, "%d axes: at most %d", ndim, CUARR_MAXDIM);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++)
    if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n))
      return cuarr_fail(CUARR_VALUE_ERROR, "bad shape");
  if (dst == src)
    dst = src = cuarr_bits_dtype(dst);
  /* An address aligned for every dtype, far enough from 0 and from the top of the address
   * space that the iterator's flips stay inside it for any indexable layout. */
  void *data = (void *)(uintptr_t)(UINT64_C(1) << 62);
  plan p;
  bool transpose;
  CUARR_TRY(
      copy_plan(&p, ndim, shape, n, data, dst_strides, dst, data, src_strides, src, &transpose));
  out->family = transpose ? CUARR_FAMILY_TRANSPOSE : CUARR_FAMILY_COPY;
  out->shape_kind = p.shape_kind;
  out->wide = p.wide;
  out->ndim = p.ndim;
  for (int d = 0; d < p.ndim; d++) {
    out->extent[d] = p.shape[d];
    out->strides[0][d] = p.strides[0][d];
    out->strides[1][d] = p.strides[1][d];
  }
  for (int k = 0; k < 2; k++) {
    out->origin[k] = p.origin[k];
    out->base[k] = ((int64_t)p.base[k] - (int64_t)(uintptr_t)data) /
                   (int64_t)cuarr_dtype_size(k == 0 ? dst : src);
  }
  return CUARR_OK;
}

/* Overlapping operands with different layouts: src goes to a new array first (stream-ordered,
 * so releasing it right after queueing the second copy is safe). */
static cuarr_status copy_staged(const cuarr_context *ctx, int device, CUstream stream,
                                const cuarr_array *dst, const cuarr_array *src) {
  cuarr_array tmp;
  CUARR_TRY(cuarr_array_empty(device, src->dtype, src->ndim, src->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), &tmp));
  int64_t strides[CUARR_MAXDIM];
  /* internal.h: operands after an allocation */
  cuarr_status s = cuarr_both_still_live(src, dst);
  if (s == CUARR_OK)
    s = copy_direct(device, stream, &tmp, src, src->strides);
  if (s == CUARR_OK)
    s = broadcast_strides(dst, &tmp, strides);
  if (s == CUARR_OK)
    s = copy_direct(device, stream, dst, &tmp, strides);
  cuarr_array_release(&tmp);
  return s;
}

/* across: src may be on another device whose memory dst's device reads (peer access on); two
 * devices' arrays never overlap. */
static cuarr_status device_copy(cuarr_context *ctx, const cuarr_array *dst, const cuarr_array *src,
                                bool across) {
  int ddev, sdev;
  CUARR_TRY(device_of(dst, "the destination", &ddev));
  CUARR_TRY(device_of(src, "the source", &sdev));
  if (ddev != sdev && !across)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "the destination is on device %d and the source on device %d: a kernel "
                      "copy needs both on one device",
                      ddev, sdev);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, ddev, &stream));
  int64_t src_strides[CUARR_MAXDIM];
  CUARR_TRY(broadcast_strides(dst, src, src_strides));
  if (cuarr_array_size(dst) == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(ddev));
  if (ddev == sdev && cuarr_array_may_overlap(dst, src) && !same_layout(dst, src, src_strides))
    return copy_staged(ctx, ddev, stream, dst, src);
  return copy_direct(ddev, stream, dst, src, src_strides);
}

cuarr_status cuarr_device_copy(cuarr_context *ctx, const cuarr_array *dst, const cuarr_array *src) {
  return device_copy(ctx, dst, src, false);
}

cuarr_status cuarr_device_copy_from_peer(cuarr_context *ctx, const cuarr_array *dst,
                                         const cuarr_array *src) {
  return device_copy(ctx, dst, src, true);
}

/* ---------------------------------------------------------------- fills */

static int log2_size(size_t size) { return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3; }

cuarr_status cuarr_device_fill(cuarr_context *ctx, const cuarr_array *dst, cuarr_scalar value) {
  int device;
  CUARR_TRY(device_of(dst, "the array to fill", &device));
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  int64_t n = cuarr_array_size(dst);
  if (n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(device));
  device_kernels *t;
  CUARR_TRY(device_table(device, &t));

  /* The value's bits in the dtype, as the kernel parameter: the first itemsize bytes. */
  uint64_t bits = 0;
  cuarr_scalar_store(value, dst->dtype, &bits);
  size_t itemsize = cuarr_dtype_size(dst->dtype);
  plan p;
  void *data[1] = {cuarr_array_data(dst)};
  const int64_t *strides[1] = {dst->strides};
  CUARR_TRY(plan_make(&p, dst->ndim, dst->shape, n, 1, data, &itemsize, strides, true));

  /* One repeated byte (0, -1, ...) over contiguous memory: a memset. */
  unsigned char bytes[8];
  memcpy(bytes, &bits, sizeof bytes);
  bool one_byte = true;
  for (size_t i = 1; i < itemsize; i++)
    one_byte = one_byte && bytes[i] == bytes[0];
  if (one_byte && p.shape_kind == CUARR_SHAPE_CONTIG)
    return cuarr_cu_check(
        cuarr_cu.cuMemsetD8Async(p.base[0], bytes[0], (size_t)n * itemsize, stream),
        "cuMemsetD8Async");

  cuarr_copy_variant v = {CUARR_FAMILY_FILL, cuarr_bits_dtype(dst->dtype),
                          cuarr_bits_dtype(dst->dtype), p.shape_kind, p.wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->fill[log2_size(itemsize)][p.shape_kind][p.wide], &v, &f));
  cuarr_iter_layout layout;
  cuarr_iter_index count = cuarr_iter_index_of(p.wide, n);
  void *args[3] = {&p.base[0], &bits, &count};
  if (p.shape_kind != CUARR_SHAPE_CONTIG) {
    layout_pack(&p, cuarr_copy_variant_axes(p.shape_kind), &layout);
    args[2] = &layout;
  }
  return cuarr_launch(f, grid_for(t, n), CUARR_COPY_THREADS, 0, stream, args);
}

cuarr_status cuarr_device_fill_linear(cuarr_context *ctx, const cuarr_array *dst,
                                      cuarr_scalar start, cuarr_scalar step, bool last_is_stop,
                                      cuarr_scalar stop) {
  int device;
  CUARR_TRY(device_of(dst, "the array to fill", &device));
  if (dst->ndim != 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "a linear fill needs a 1-D array, not %d-D", dst->ndim);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  int64_t n = dst->shape[0];
  if (n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(device));
  device_kernels *t;
  CUARR_TRY(device_table(device, &t));

  plan p;
  void *data[1] = {cuarr_array_data(dst)};
  size_t itemsize = cuarr_dtype_size(dst->dtype);
  const int64_t *strides[1] = {dst->strides};
  CUARR_TRY(plan_make(&p, 1, dst->shape, n, 1, data, &itemsize, strides, false));

  /* start and step in the computing type (double for float dtypes, else int64, both converted
   * with the casting rules as host_fill.c does); stop converted straight to the dtype, as
   * host_fill.c stores it. */
  cuarr_dtype compute = cuarr_dtype_is_float(dst->dtype) ? CUARR_FLOAT64 : CUARR_INT64;
  uint64_t values[3] = {0, 0, 0}; /* their bits */
  cuarr_scalar_store(start, compute, &values[0]);
  cuarr_scalar_store(step, compute, &values[1]);
  cuarr_scalar_store(stop, dst->dtype, &values[2]);
  int last = last_is_stop ? 1 : 0;

  cuarr_copy_variant v = {CUARR_FAMILY_LINEAR, dst->dtype, dst->dtype, 1, p.wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->linear[dst->dtype][p.wide], &v, &f));
  cuarr_iter_layout layout;
  layout_pack(&p, 1, &layout);
  void *args[6] = {&p.base[0], &layout, &values[0], &values[1], &values[2], &last};
  return cuarr_launch(f, grid_for(t, n), CUARR_COPY_THREADS, 0, stream, args);
}
