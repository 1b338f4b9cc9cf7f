/*
 * copy_kernels.c -- copies, fills and linear fills within one device, with the kernels of
 * kernels/copy.cu, fill.cu and linear.cu.
 *
 * Each call broadcasts and collapses the operands' layout (fewer axes, strides in elements),
 * picks the specialisation that fits (contiguous, 1..4 axes or generic; 32-bit indexing when
 * every offset fits) and launches it on the context's stream.  Kernels are found in a table
 * per device indexed by the specialisation: a hit is one atomic load, with no lock, no
 * allocation and no source text; a miss builds the source and asks the compile service
 * (cuarr_kernel_get), which caches the compiled module.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "kernel/copy_source.h"

/* Devices with a kernel table (ordinals 0..MAX_DEVICES-1). */
#define MAX_DEVICES 64
/* Grid cap: blocks per multiprocessor.  Beyond what is resident at once, so that the last
 * wave of a grid-stride launch is a small share of the work whatever the occupancy. */
#define BLOCKS_PER_SM 128
/* Elements per thread that a block is sized for (the copy kernels keep 4 loads in flight). */
#define ELEMENTS_PER_THREAD 4

/* ---------------------------------------------------------------- the dispatch table */

typedef _Atomic(CUfunction) kernel_slot;

typedef struct device_kernels {
  unsigned max_blocks;
  kernel_slot copy[CUARR_NDTYPES][CUARR_NDTYPES][CUARR_NSHAPES][2]; /* [src][dst][shape][wide] */
  kernel_slot fill[4][CUARR_NSHAPES][2];                            /* [log2 itemsize]... */
  kernel_slot linear[CUARR_NDTYPES][2];
} device_kernels;

/* Allocated on a device's first use and kept for the life of the process, as are the modules
 * the compile service loaded. */
static _Atomic(device_kernels *) tables[MAX_DEVICES];
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

static cuarr_status device_table(int device, device_kernels **out) {
  if (device < 0 || device >= MAX_DEVICES)
    return cuarr_fail(CUARR_VALUE_ERROR, "device %d: cuarr's kernels support devices 0 to %d",
                      device, MAX_DEVICES - 1);
  device_kernels *t = atomic_load_explicit(&tables[device], memory_order_acquire);
  if (t) {
    *out = t;
    return CUARR_OK;
  }
  cuarr_device_props props;
  CUARR_TRY(cuarr_device_properties(device, &props));
  pthread_mutex_lock(&tables_lock);
  t = atomic_load_explicit(&tables[device], memory_order_relaxed);
  if (!t) {
    t = calloc(1, sizeof *t); /* all slots NULL: a null pointer is all-zero bits here */
    if (t) {
      int sms = props.multiprocessors > 0 ? props.multiprocessors : 1;
      t->max_blocks = (unsigned)sms * BLOCKS_PER_SM;
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

static unsigned grid_for(const device_kernels *t, int64_t n) {
  int64_t per_block = (int64_t)CUARR_COPY_THREADS * ELEMENTS_PER_THREAD;
  int64_t blocks = (n + per_block - 1) / per_block;
  if (blocks > (int64_t)t->max_blocks)
    blocks = t->max_blocks;
  return blocks < 1 ? 1 : (unsigned)blocks;
}

/* ---------------------------------------------------------------- checks */

static cuarr_status device_of(const cuarr_array *a, const char *what, int *device) {
  CUARR_TRY(cuarr_array_check_live(a));
  *device = cuarr_array_device(a);
  if (*device == CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s is a host array where a device array is needed", what);
  return CUARR_OK;
}

/* src's byte strides seen with dst's shape (NumPy broadcasting): stride 0 on axes src lacks
 * or has with extent 1.  src may have extra leading axes of extent 1, as NumPy allows. */
static cuarr_status broadcast_strides(const cuarr_array *dst, const cuarr_array *src,
                                      int64_t *strides) {
  int extra = src->ndim - dst->ndim;
  bool ok = true;
  for (int i = 0; i < extra; i++)
    ok = ok && src->shape[i] == 1;
  for (int d = 0; d < dst->ndim && ok; d++) {
    int s = d + extra;
    if (s < 0 || src->shape[s] == 1)
      strides[d] = 0;
    else if (src->shape[s] == dst->shape[d])
      strides[d] = src->strides[s];
    else
      ok = false;
  }
  if (ok)
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

/* *acc += extent_minus_1 * |stride|; false on overflow. */
static bool add_extent(int64_t extent_minus_1, int64_t stride, int64_t *acc) {
  int64_t term;
  if (stride == INT64_MIN)
    return false;
  if (__builtin_mul_overflow(extent_minus_1, stride < 0 ? -stride : stride, &term))
    return false;
  return !__builtin_add_overflow(*acc, term, acc);
}

/* Visit the elements in an order of our choosing, as a copy or a fill may (every element is
 * independent): flip the axes along which dst steps backwards (in every operand, moving the
 * data addresses to the other end), then order the axes by dst's strides, largest first.
 * Reversed and transposed (F-order) layouts then collapse like C-contiguous ones, and
 * neighbouring threads write neighbouring elements of dst. */
static void reorder_axes(plan *p, int ndim, char **data, const size_t *itemsize) {
  for (int d = 0; d < ndim; d++) {
    if (p->strides[0][d] >= 0)
      continue;
    for (int k = 0; k < p->n_ops; k++) {
      data[k] += (p->shape[d] - 1) * p->strides[k][d] * (int64_t)itemsize[k];
      p->strides[k][d] = -p->strides[k][d];
    }
  }
  for (int d = 1; d < ndim; d++) { /* insertion sort, stable: ties keep C order */
    for (int e = d; e > 0 && p->strides[0][e - 1] < p->strides[0][e]; e--) {
      int64_t t = p->shape[e];
      p->shape[e] = p->shape[e - 1];
      p->shape[e - 1] = t;
      for (int k = 0; k < p->n_ops; k++) {
        t = p->strides[k][e];
        p->strides[k][e] = p->strides[k][e - 1];
        p->strides[k][e - 1] = t;
      }
    }
  }
}

/* Fill p for the iteration shape (ndim, shape, n > 0 elements) and the operands: data
 * address, itemsize and byte strides (already broadcast to shape).  any_order: the kernel may
 * visit the elements in any order (not so for a linear fill). */
static cuarr_status plan_make(plan *p, int ndim, const int64_t *shape, int64_t n, int n_ops,
                              void *const *data_in, const size_t *itemsize,
                              const int64_t *const *byte_strides, bool any_order) {
  p->n_ops = n_ops;
  p->n = n;
  memcpy(p->shape, shape, (size_t)ndim * sizeof *shape);
  char *data[2];
  for (int k = 0; k < n_ops; k++) {
    data[k] = data_in[k];
    int64_t size = (int64_t)itemsize[k];
    /* Strides in elements: every access is then aligned, which the GPU requires. */
    bool aligned = (uintptr_t)data[k] % (uintptr_t)size == 0;
    for (int d = 0; d < ndim; d++) {
      int64_t s = shape[d] > 1 ? byte_strides[k][d] : 0;
      aligned = aligned && s % size == 0;
      p->strides[k][d] = s / size;
    }
    if (!aligned)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "array data or strides are not multiples of the itemsize (%lld bytes)",
                        (long long)size);
  }
  if (any_order)
    reorder_axes(p, ndim, data, itemsize);
  int64_t *strides[2] = {p->strides[0], p->strides[1]};
  p->ndim = cuarr_collapse(ndim, p->shape, n_ops, strides);
  if (p->ndim == 0) { /* one element */
    p->ndim = 1;
    p->shape[0] = 1;
    for (int k = 0; k < n_ops; k++)
      p->strides[k][0] = 0;
  }

  bool contig = p->ndim == 1, fits = n <= INT32_MAX;
  for (int k = 0; k < n_ops; k++) {
    int64_t below = 0, above = 0; /* elements before and after element (0,...,0) */
    bool ok = true;
    for (int d = 0; d < p->ndim && ok; d++)
      ok = add_extent(p->shape[d] - 1, p->strides[k][d], p->strides[k][d] < 0 ? &below : &above);
    int64_t span;
    if (!ok || __builtin_add_overflow(below, above, &span))
      return cuarr_fail(CUARR_VALUE_ERROR, "array strides are too large to index");
    p->origin[k] = below;
    p->base[k] = (CUdeviceptr)(data[k] - below * (int64_t)itemsize[k]);
    fits = fits && span < (int64_t)UINT32_MAX; /* every offset, 0..span, fits in 32 bits */
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

/* The kernel's cuarr_layout<I, axes, n_ops> parameter (kernels/common.cuh): a flat array of
 * I holding n, ndim, origin[n_ops], shape[axes], strides[n_ops][axes].  Negative strides are
 * stored modulo 2^bits, which the kernels' unsigned arithmetic expects. */
typedef union layout_arg {
  uint32_t u32[2 + 2 + 3 * CUARR_MAXDIM];
  uint64_t u64[2 + 2 + 3 * CUARR_MAXDIM];
} layout_arg;

static void layout_pack(const plan *p, int axes, layout_arg *out) {
  uint64_t v[2 + 2 + 3 * CUARR_MAXDIM];
  int at = 0;
  v[at++] = (uint64_t)p->n;
  v[at++] = (uint64_t)p->ndim;
  for (int k = 0; k < p->n_ops; k++)
    v[at++] = (uint64_t)p->origin[k];
  for (int d = 0; d < axes; d++) /* the generic kernel's unused axes: extent 1, stride 0 */
    v[at++] = d < p->ndim ? (uint64_t)p->shape[d] : 1;
  for (int k = 0; k < p->n_ops; k++)
    for (int d = 0; d < axes; d++)
      v[at++] = d < p->ndim ? (uint64_t)p->strides[k][d] : 0;
  for (int i = 0; i < at; i++) {
    if (p->wide)
      out->u64[i] = v[i];
    else
      out->u32[i] = (uint32_t)v[i];
  }
}

/* The element count as the kernel's index type. */
typedef union index_arg {
  uint32_t u32;
  uint64_t u64;
} index_arg;

static index_arg index_of(const plan *p, int64_t n) {
  index_arg a;
  if (p->wide)
    a.u64 = (uint64_t)n;
  else
    a.u32 = (uint32_t)n;
  return a;
}

/* ---------------------------------------------------------------- copy */

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
  void *data[2] = {cuarr_array_data(dst), cuarr_array_data(src)};
  size_t itemsize[2] = {cuarr_dtype_size(dt), cuarr_dtype_size(st)};
  const int64_t *strides[2] = {dst->strides, src_strides};
  int64_t n = cuarr_array_size(dst);
  CUARR_TRY(plan_make(&p, dst->ndim, dst->shape, n, 2, data, itemsize, strides, true));

  if (dt == st && p.shape_kind == CUARR_SHAPE_CONTIG)
    return cuarr_cu_check(
        cuarr_cu.cuMemcpyDtoDAsync(p.base[0], p.base[1], (size_t)n * itemsize[0], stream),
        "cuMemcpyDtoDAsync");

  cuarr_copy_variant v = {CUARR_FAMILY_COPY, dt, st, p.shape_kind, p.wide};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &t->copy[st][dt][p.shape_kind][p.wide], &v, &f));
  layout_arg layout;
  index_arg count = index_of(&p, n);
  void *args[3] = {&p.base[0], &p.base[1], &count};
  if (p.shape_kind != CUARR_SHAPE_CONTIG) {
    layout_pack(&p, cuarr_copy_variant_axes(p.shape_kind), &layout);
    args[2] = &layout;
  }
  return cuarr_launch(f, grid_for(t, n), CUARR_COPY_THREADS, 0, stream, args);
}

/* Overlapping operands with different layouts: src goes to a new array first (stream-ordered,
 * so releasing it right after queueing the second copy is safe). */
static cuarr_status copy_staged(const cuarr_context *ctx, int device, CUstream stream,
                                const cuarr_array *dst, const cuarr_array *src) {
  cuarr_array tmp;
  CUARR_TRY(cuarr_array_empty(device, src->dtype, src->ndim, src->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), &tmp));
  int64_t strides[CUARR_MAXDIM];
  cuarr_status s = copy_direct(device, stream, &tmp, src, src->strides);
  if (s == CUARR_OK)
    s = broadcast_strides(dst, &tmp, strides);
  if (s == CUARR_OK)
    s = copy_direct(device, stream, dst, &tmp, strides);
  cuarr_array_release(&tmp);
  return s;
}

cuarr_status cuarr_device_copy(cuarr_context *ctx, const cuarr_array *dst, const cuarr_array *src) {
  int ddev, sdev;
  CUARR_TRY(device_of(dst, "the destination", &ddev));
  CUARR_TRY(device_of(src, "the source", &sdev));
  if (ddev != sdev)
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
  if (cuarr_may_overlap(dst, src) && !same_layout(dst, src, src_strides))
    return copy_staged(ctx, ddev, stream, dst, src);
  return copy_direct(ddev, stream, dst, src, src_strides);
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
  layout_arg layout;
  index_arg count = index_of(&p, n);
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
  layout_arg layout;
  layout_pack(&p, 1, &layout);
  void *args[6] = {&p.base[0], &layout, &values[0], &values[1], &values[2], &last};
  return cuarr_launch(f, grid_for(t, n), CUARR_COPY_THREADS, 0, stream, args);
}
