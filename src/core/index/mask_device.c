/*
 * mask_device.c -- the mask operations' passes on the device (kernels/templates/mask.cu): the
 * tiles' counts, their scan, the read-back of the total (the one synchronisation), then the
 * scatter pass of nonzero, selection or assignment, and the rows kernels where a's rows are
 * longer than one element.
 */
#include <string.h>

#include "compile/function_table.h"
#include "copy/transfer.h"
#include "index/mask.h"

/* One dispatch table (compile/function_table.h) for every device's mask kernels. */
static void *mask_table;

/* The variant and the device packed (+ 1, so that no key is 0); 0 when the device is beyond
 * the key. */
static uint64_t key_of(int device, const cuarr_mask_variant *v) {
  if (device < 0 || device > 0xffff)
    return 0;
  uint64_t k = (uint64_t)device;
  k = k << 4 | (uint64_t)v->kind;
  k = k << 4 | (uint64_t)v->w;
  k = k << 4 | (uint64_t)v->e;
  k = k << 6 | (uint64_t)v->nd;
  return k + 1;
}

static void variant_name(const void *v, char *buf, size_t size) {
  cuarr_mask_variant_name(v, buf, size);
}
static char *variant_program(const void *v) { return cuarr_mask_program(v, 1); }
static const cuarr_variant_writer writer = {variant_name, variant_program};

static cuarr_status launch(const cuarr_mask_device *d, cuarr_mask_variant v, int64_t blocks,
                           cuarr_mask_params *p) {
  CUfunction f = NULL;
  CUARR_TRY(
      cuarr_function_table_variant(&mask_table, key_of(d->device, &v), d->device, &writer, &v, &f));
  if (blocks < 1 || blocks > INT32_MAX)
    return cuarr_fail(CUARR_VALUE_ERROR, "a mask of this size needs too many blocks");
  void *args[1] = {p};
  return cuarr_launch(f, (unsigned)blocks, (unsigned)cuarr_mask_variant_threads(&v), 0, d->stream,
                      args);
}

static bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

/* The parameters every pass reads: the mask, its test, the prefixes. */
static void params_begin(cuarr_mask_params *p, const cuarr_mask_view *m,
                         const cuarr_mask_device *d) {
  memset(p, 0, sizeof *p);
  const void *mask = cuarr_array_data(&m->mask);
  p->mask = (uint64_t)(uintptr_t)mask;
  p->test = m->test;
  p->n = m->n;
  p->prefix = (uint64_t)(uintptr_t)cuarr_array_data(&d->prefix);
  p->vec_mask = aligned16(mask);
  p->count = d->count;
}

cuarr_status cuarr_mask_device_count(cuarr_context *ctx, const cuarr_mask_view *m,
                                     cuarr_mask_device *d) {
  memset(&d->prefix, 0, sizeof d->prefix);
  d->count = 0;
  d->tiles = (m->n + CUARR_MASK_TILE - 1) / CUARR_MASK_TILE;
  if (m->n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(d->device));
  int64_t len = d->tiles + 1;
  CUARR_TRY(cuarr_array_empty(d->device, CUARR_INT64, 1, &len, false, d->stream,
                              cuarr_ctx_reclaim(ctx), &d->prefix));
  CUARR_TRY(cuarr_still_live(&m->mask));
  cuarr_mask_params p;
  params_begin(&p, m, d);
  CUARR_TRY(launch(d, (cuarr_mask_variant){CUARR_MASK_COUNT, m->width, 0, 0}, d->tiles, &p));
  CUARR_TRY(launch(d, (cuarr_mask_variant){CUARR_MASK_SCAN, 0, 0, 0}, 1, &p));
  int64_t total = 0;
  const char *at = (const char *)cuarr_array_data(&d->prefix) + 8 * d->tiles;
  CUARR_TRY(cuarr_download(d->device, d->stream, &total, at, sizeof total, false));
  if (total < 0 || total > m->n)
    return cuarr_fail(CUARR_CUDA_ERROR, "the mask's count came back as %lld of %lld elements",
                      (long long)total, (long long)m->n);
  d->count = total;
  return CUARR_OK;
}

void cuarr_mask_device_end(cuarr_mask_device *d) {
  if (d->prefix.buf)
    cuarr_array_release(&d->prefix);
}

static int positions_nd(int ndim) { return ndim <= CUARR_MASK_FIXED_ND ? ndim : 0; }

cuarr_status cuarr_mask_device_positions(cuarr_context *ctx, const cuarr_mask_view *m,
                                         cuarr_mask_device *d, int ndim, const int64_t *shape,
                                         int64_t base, const cuarr_array *out) {
  (void)ctx;
  if (d->count == 0)
    return CUARR_OK;
  cuarr_mask_params p;
  params_begin(&p, m, d);
  p.dst = (uint64_t)(uintptr_t)cuarr_array_data(out);
  p.base = base;
  p.nd = ndim;
  memcpy(p.shape, shape, (size_t)ndim * sizeof(int64_t));
  cuarr_mask_variant v = {CUARR_MASK_POSITIONS, m->width, 0, positions_nd(ndim)};
  return launch(d, v, d->tiles, &p);
}

/* The flat positions of the selected elements into a new int64 [count] array. */
static cuarr_status flat_positions(cuarr_context *ctx, const cuarr_mask_view *m,
                                   cuarr_mask_device *d, cuarr_array *index) {
  CUARR_TRY(cuarr_array_empty(d->device, CUARR_INT64, 1, &d->count, false, d->stream,
                              cuarr_ctx_reclaim(ctx), index));
  cuarr_status s = cuarr_still_live(&m->mask);
  if (s == CUARR_OK)
    s = cuarr_mask_device_positions(ctx, m, d, 1, &m->n, 0, index);
  if (s != CUARR_OK)
    cuarr_array_release(index);
  return s;
}

static int64_t rows_blocks(const cuarr_mask_device *d, int64_t total) {
  const cuarr_device_facts *facts = NULL;
  int64_t blocks = (total + CUARR_MASK_ROWS_THREADS - 1) / CUARR_MASK_ROWS_THREADS;
  if (cuarr_device_facts_get(d->device, &facts) == CUARR_OK &&
      blocks > (int64_t)facts->grid_stride_blocks)
    blocks = facts->grid_stride_blocks;
  return blocks < 1 ? 1 : blocks;
}

/* A mask over the leading axes of src or dst: the flat positions first, then one kernel of
 * `kind` (SELECT_ROWS or ASSIGN_ROWS) moving whole rows of `rows` elements of e bytes; vs0 and
 * vs1 are the values' strides for ASSIGN_ROWS. */
static cuarr_status launch_rows(cuarr_context *ctx, const cuarr_mask_view *m, cuarr_mask_device *d,
                                cuarr_mask_kind kind, int e, const cuarr_array *src,
                                const cuarr_array *dst, int64_t rows, int64_t vs0, int64_t vs1) {
  cuarr_array index;
  CUARR_TRY(flat_positions(ctx, m, d, &index));
  /* read after the positions' allocation, whose reclaim may free an operand */
  cuarr_status live = cuarr_both_still_live(src, dst);
  if (live != CUARR_OK) {
    cuarr_array_release(&index);
    return live;
  }
  cuarr_mask_params p;
  params_begin(&p, m, d);
  p.src = (uint64_t)(uintptr_t)cuarr_array_data(src);
  p.dst = (uint64_t)(uintptr_t)cuarr_array_data(dst);
  p.index = (uint64_t)(uintptr_t)cuarr_array_data(&index);
  p.rows = rows;
  p.vs0 = vs0;
  p.vs1 = vs1;
  cuarr_status s =
      launch(d, (cuarr_mask_variant){kind, 0, e, 0}, rows_blocks(d, d->count * rows), &p);
  cuarr_array_release(&index);
  return s;
}

cuarr_status cuarr_mask_device_select(cuarr_context *ctx, const cuarr_mask_view *m,
                                      cuarr_mask_device *d, const cuarr_array *a, int64_t rows,
                                      const cuarr_array *out) {
  if (d->count == 0 || rows == 0)
    return CUARR_OK;
  const int e = (int)cuarr_dtype_size(a->dtype);
  cuarr_mask_params p;
  if (rows == 1) {
    params_begin(&p, m, d);
    p.src = (uint64_t)(uintptr_t)cuarr_array_data(a);
    p.dst = (uint64_t)(uintptr_t)cuarr_array_data(out);
    p.vec_src = aligned16(cuarr_array_data(a));
    return launch(d, (cuarr_mask_variant){CUARR_MASK_SELECT, m->width, e, 0}, d->tiles, &p);
  }
  return launch_rows(ctx, m, d, CUARR_MASK_SELECT_ROWS, e, a, out, rows, 0, 0);
}

cuarr_status cuarr_mask_device_assign(cuarr_context *ctx, const cuarr_mask_view *m,
                                      cuarr_mask_device *d, const cuarr_array *a, int64_t rows,
                                      const cuarr_array *values, int64_t vs0, int64_t vs1) {
  if (d->count == 0 || rows == 0)
    return CUARR_OK;
  const int e = (int)cuarr_dtype_size(a->dtype);
  cuarr_mask_params p;
  if (rows == 1) {
    params_begin(&p, m, d);
    p.src = (uint64_t)(uintptr_t)cuarr_array_data(values);
    p.dst = (uint64_t)(uintptr_t)cuarr_array_data(a);
    p.vs0 = vs0;
    return launch(d, (cuarr_mask_variant){CUARR_MASK_ASSIGN, m->width, e, 0}, d->tiles, &p);
  }
  return launch_rows(ctx, m, d, CUARR_MASK_ASSIGN_ROWS, e, values, a, rows, vs0, vs1);
}
