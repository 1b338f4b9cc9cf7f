/*
 * gather_device.c -- the walk of a gather, a scatter or a check on a device: the kernel of
 * kernels/templates/gather.cu for the walk's itemsize, axes, index count and index width,
 * found through the dispatch table every engine shares (compile/function_table.h), and its
 * parameters written as the kernel's struct lies.  Walks of more than CUARR_GATHER_MAX_AXES
 * axes after collapsing take one launch per position of their leading axes.  In raise mode a
 * launch records a bad index in 16 bytes of device memory, which are read back after it.
 */
#include <stdlib.h>
#include <string.h>

#include "compile/function_table.h"
#include "copy/transfer.h"
#include "cuda/device_facts.h"
#include "index/gather.h"

static void *gather_table;

static int log2_of(int x) { return x >= 8 ? 3 : x >= 4 ? 2 : x >= 2 ? 1 : 0; }

/* Every field of the variant and the device packed (+ 1, so that no key is 0). */
static uint64_t key_of(int device, const cuarr_gather_variant *v) {
  if (device < 0 || device > 0xffff)
    return 0;
  uint64_t k = (uint64_t)device;
  k = k << 2 | (uint64_t)v->op;
  k = k << 2 | (uint64_t)log2_of(v->itemsize);
  k = k << 2 | (uint64_t)log2_of(v->axes);
  k = k << 3 | (uint64_t)(v->nidx == CUARR_MAXDIM ? 4 : log2_of(v->nidx));
  k = k << 1 | (uint64_t)v->wide;
  k = k << 4 | (uint64_t)v->flat;
  return k + 1;
}

static void variant_name(const void *v, char *buf, size_t size) {
  cuarr_gather_variant_name(v, buf, size);
}
static char *variant_program(const void *v) { return cuarr_gather_program(v, 1); }
static const cuarr_variant_writer writer = {variant_name, variant_program};

/* Magnitude of the farthest offset k * stride over extent e (saturating). */
static int64_t reach(int64_t stride, int64_t e) {
  int64_t s = stride < 0 ? (stride == INT64_MIN ? INT64_MAX : -stride) : stride, t;
  if (e <= 1)
    return 0;
  return __builtin_mul_overflow(s, e - 1, &t) ? INT64_MAX : t;
}

static bool fits32(int64_t total, int64_t add, int64_t *sum) {
  return !__builtin_add_overflow(total, add, sum) && *sum <= INT32_MAX;
}

/* The parameter struct of gather.cu, written as it lies. */
typedef struct params {
  _Alignas(8) unsigned char bytes[4096];
  size_t at;
  bool wide;
} params;

static void put_address(params *p, const void *v) {
  uint64_t x = (uint64_t)(uintptr_t)v;
  memcpy(p->bytes + p->at, &x, 8);
  p->at += 8;
}

static void put_index(params *p, int64_t v) {
  if (p->wide) {
    uint64_t x = (uint64_t)v;
    memcpy(p->bytes + p->at, &x, 8);
    p->at += 8;
  } else {
    uint32_t x = (uint32_t)(uint64_t)v;
    memcpy(p->bytes + p->at, &x, 4);
    p->at += 4;
  }
}

/* One launch for a walk of at most CUARR_GATHER_MAX_AXES axes. */
static cuarr_status launch(int device, CUstream stream, const cuarr_gather_walk *w, int op,
                           size_t itemsize, void *flag) {
  int64_t n = 1;
  for (int d = 0; d < w->nd; d++)
    n *= w->shape[d];
  if (n == 0)
    return CUARR_OK;
  const int64_t size = (int64_t)itemsize;
  const int axes = w->nd <= 1 ? 1 : w->nd <= 2 ? 2 : w->nd <= 4 ? 4 : 8;
  const int nidx = w->nidx <= 1 ? 1 : w->nidx <= 2 ? 2 : w->nidx <= 4 ? 4 : CUARR_MAXDIM;
  const int pad = axes - w->nd; /* leading axes of extent 1 */
  bool wide = n > INT32_MAX;
  int64_t ra = 0, ro = 0;
  for (int d = 0; d < w->nd && !wide; d++)
    wide = !fits32(ra, reach(w->a_strides[d] / size, w->shape[d]), &ra) ||
           !fits32(ro, reach(w->other_strides[d] / size, w->shape[d]), &ro);
  for (int k = 0; k < w->nidx && !wide; k++) {
    int64_t ri = 0, isz = (int64_t)cuarr_dtype_size(w->index_dtype[k]);
    wide = w->extent[k] > INT32_MAX || !fits32(ra, reach(w->step[k] / size, w->extent[k]), &ra);
    for (int d = 0; d < w->nd && !wide; d++)
      wide = !fits32(ri, reach(w->index_strides[k][d] / isz, w->shape[d]), &ri);
  }
  cuarr_gather_variant v = {op, (int)itemsize, axes, nidx, wide, 0};
  /* The flat take: one index array and the output walked contiguously, a not moved by the walk,
   * both aligned for vectors of CUARR_GATHER_VEC. */
  if (op == CUARR_GATHER_OP_GATHER && w->nd == 1 && w->nidx == 1 && w->a_strides[0] == 0) {
    const int64_t isz = (int64_t)cuarr_dtype_size(w->index_dtype[0]);
    if (w->other_strides[0] == size && w->index_strides[0][0] == isz &&
        (uintptr_t)w->other % (uintptr_t)(size * CUARR_GATHER_VEC) == 0 &&
        (uintptr_t)w->index[0] % (uintptr_t)(isz * CUARR_GATHER_VEC) == 0)
      v = (cuarr_gather_variant){op, (int)itemsize, 1, 1, wide, (int)w->index_dtype[0]};
  }

  params *p = malloc(sizeof *p);
  if (!p)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a gather's parameters");
  memset(p->bytes, 0, sizeof p->bytes);
  p->at = 0;
  p->wide = wide;
  put_address(p, w->a);
  put_address(p, w->other);
  put_address(p, flag);
  for (int k = 0; k < nidx; k++)
    put_address(p, k < w->nidx ? w->index[k] : NULL);
  put_index(p, n);
  put_index(p, w->nidx);
  put_index(p, w->base);
  put_index(p, (int64_t)w->mode);
  for (int d = 0; d < axes; d++)
    put_index(p, d < pad ? 1 : w->shape[d - pad]);
  for (int d = 0; d < axes; d++)
    put_index(p, d < pad ? 0 : w->a_strides[d - pad] / size);
  for (int d = 0; d < axes; d++)
    put_index(p, d < pad ? 0 : w->other_strides[d - pad] / size);
  for (int k = 0; k < nidx; k++) {
    int64_t isz = k < w->nidx ? (int64_t)cuarr_dtype_size(w->index_dtype[k]) : 1;
    for (int d = 0; d < axes; d++)
      put_index(p, k < w->nidx && d >= pad ? w->index_strides[k][d - pad] / isz : 0);
  }
  for (int k = 0; k < nidx; k++)
    put_index(p, k < w->nidx ? w->extent[k] : 0);
  for (int k = 0; k < nidx; k++)
    put_index(p, k < w->nidx ? w->step[k] / size : 0);
  for (int k = 0; k < nidx; k++)
    put_index(p, k < w->nidx ? (int64_t)w->index_dtype[k] : 0);

  const cuarr_device_facts *facts = NULL;
  CUfunction f = NULL;
  cuarr_status s = cuarr_device_facts_get(device, &facts);
  if (s == CUARR_OK)
    s = cuarr_function_table_variant(&gather_table, key_of(device, &v), device, &writer, &v, &f);
  if (s == CUARR_OK) {
    int64_t per_block =
        (int64_t)CUARR_GATHER_THREADS * (v.flat ? CUARR_GATHER_VEC : CUARR_GATHER_BATCH);
    int64_t blocks = (n + per_block - 1) / per_block;
    if (blocks > (int64_t)facts->grid_stride_blocks)
      blocks = facts->grid_stride_blocks;
    void *args[1] = {p->bytes};
    s = cuarr_launch(f, (unsigned)(blocks < 1 ? 1 : blocks), CUARR_GATHER_THREADS, 0, stream, args);
  }
  free(p);
  return s;
}

cuarr_status cuarr_gather_device(int device, CUstream stream, const cuarr_gather_walk *w, int op,
                                 size_t itemsize, void *flag) {
  CUARR_TRY(cuarr_device_activate(device));
  if (w->nd <= CUARR_GATHER_MAX_AXES)
    return launch(device, stream, w, op, itemsize, flag);
  /* One launch per position of the leading axes: each moves every operand's start. */
  cuarr_gather_walk *sub = malloc(sizeof *sub);
  if (!sub)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a gather's walk");
  const int lead = w->nd - CUARR_GATHER_MAX_AXES;
  *sub = *w;
  sub->nd = CUARR_GATHER_MAX_AXES;
  for (int d = 0; d < CUARR_GATHER_MAX_AXES; d++) {
    sub->shape[d] = w->shape[lead + d];
    sub->a_strides[d] = w->a_strides[lead + d];
    sub->other_strides[d] = w->other_strides[lead + d];
    for (int k = 0; k < w->nidx; k++)
      sub->index_strides[k][d] = w->index_strides[k][lead + d];
  }
  int64_t coord[CUARR_MAXDIM] = {0};
  cuarr_status s = CUARR_OK;
  for (bool more = true; more && s == CUARR_OK;) {
    int64_t ao = 0, oo = 0;
    for (int d = 0; d < lead; d++) {
      ao += coord[d] * w->a_strides[d];
      oo += coord[d] * w->other_strides[d];
    }
    sub->a = w->a + ao;
    sub->other = w->other ? w->other + oo : NULL;
    for (int k = 0; k < w->nidx; k++) {
      int64_t io = 0;
      for (int d = 0; d < lead; d++)
        io += coord[d] * w->index_strides[k][d];
      sub->index[k] = w->index[k] + io;
    }
    s = launch(device, stream, sub, op, itemsize, flag);
    more = false;
    for (int d = lead - 1; d >= 0 && !more; d--) {
      if (++coord[d] < w->shape[d])
        more = true;
      else
        coord[d] = 0;
    }
  }
  free(sub);
  return s;
}

cuarr_status cuarr_gather_device_checked(cuarr_context *ctx, int device, CUstream stream,
                                         const cuarr_gather_walk *w, int op, size_t itemsize,
                                         const cuarr_fancy_index *ix, const cuarr_array *a) {
  CUARR_TRY(cuarr_device_activate(device));
  cuarr_buffer *flag = NULL;
  CUARR_TRY(cuarr_buffer_new_device(device, 16, stream, cuarr_ctx_reclaim(ctx), &flag));
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuMemsetD8Async((CUdeviceptr)flag->ptr, 0, 16, stream),
                                  "cuMemsetD8Async");
  if (s == CUARR_OK)
    s = cuarr_gather_device(device, stream, w, op, itemsize, flag->ptr);
  int64_t record[2] = {0, 0};
  if (s == CUARR_OK)
    s = cuarr_download(device, stream, record, flag->ptr, sizeof record, false);
  cuarr_buffer_release(flag);
  CUARR_TRY(s);
  if (record[0] > 0 && record[0] <= w->nidx)
    return cuarr_gather_bad_index(ix, a, (int)record[0] - 1, record[1]);
  return CUARR_OK;
}
