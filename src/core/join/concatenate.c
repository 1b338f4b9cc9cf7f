/*
 * concatenate.c -- cuarr_concatenate: arrays joined along one axis (NumPy's concatenate).
 *
 * Device arrays: one launch of the join kernel (kernels/templates/join.cu) for up to 64 sources
 * (more go in groups of 64, one launch each), whatever their dtypes and strides.  The output and
 * every source are described over the output's axes, which are collapsed jointly first: axes of
 * extent 1 are dropped, neighbours that are contiguous in every operand are merged, and the
 * joining axis absorbs the axes after it where every operand allows (a vstack of C-contiguous
 * matrices becomes a 1-D walk).  A layout that still needs more than four axes, or strides that
 * are not whole elements, is copied piece by piece instead (cuarr_copy into views of the output).
 * Host arrays: cuarr_copy of each piece into its view of the output (C loops).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array/casting.h"
#include "array/shape_format.h"
#include "compile/function_table.h"
#include "copy/copy_source.h"
#include "copy/result.h"
#include "cuda/device_facts.h"
#include "join/join.h"

/* ---------------------------------------------------------------- the kernels */

/* One dispatch table (compile/function_table.h) for every device's join kernels, as the scan
 * kernels have. */
static void *join_table;

/* Every field of the variant and the device packed (+ 1, so that no key is 0); 0 when the device
 * is beyond the key. */
static uint64_t key_of(int device, const cuarr_join_variant *v) {
  if (device < 0 || device > 0xffff)
    return 0;
  uint64_t k = (uint64_t)device;
  k = k << 1 | (uint64_t)v->runs;
  k = k << 4 | (uint64_t)v->dst;
  k = k << 4 | (uint64_t)v->src;
  k = k << 3 | (uint64_t)v->axes;
  k = k << 1 | (uint64_t)(v->k == CUARR_JOIN_LARGE_K);
  k = k << 1 | (uint64_t)v->wide;
  return k + 1;
}

static void variant_name(const void *v, char *buf, size_t size) {
  cuarr_join_variant_name(v, buf, size);
}
static char *variant_program(const void *v) { return cuarr_join_program(v, 1); }
static const cuarr_variant_writer writer = {variant_name, variant_program};

static cuarr_status kernel_for(int device, const cuarr_join_variant *v, CUfunction *out) {
  return cuarr_function_table_variant(&join_table, key_of(device, v), device, &writer, v, out);
}

/* ---------------------------------------------------------------- piece by piece */

/* Source k (extent > 0 along axis) into its view of into, from position pos on. */
static cuarr_status copy_piece(cuarr_context *ctx, const cuarr_array *into, int axis, int64_t pos,
                               const cuarr_array *src) {
  cuarr_array view;
  CUARR_TRY(cuarr_view_slice(into, axis, pos, src->shape[axis], 1, &view));
  cuarr_status s = cuarr_copy(ctx, &view, src);
  cuarr_array_release(&view);
  return s;
}

static cuarr_status join_by_pieces(cuarr_context *ctx, const cuarr_array *const *src, int n,
                                   int axis, const cuarr_array *into) {
  int64_t pos = 0;
  for (int k = 0; k < n; k++) {
    if (src[k]->shape[axis] > 0)
      CUARR_TRY(copy_piece(ctx, into, axis, pos, src[k]));
    pos += src[k]->shape[axis];
  }
  return CUARR_OK;
}

/* ---------------------------------------------------------------- one launch */

/* The output (operand 0) and the sources (1..m) over the output's axes, strides in elements;
 * extent[op] is each operand's extent along the joining axis (the output's: their sum). */
typedef struct layout {
  int nd, axis, nops;
  int64_t shape[CUARR_MAXDIM];
  int64_t extent[CUARR_JOIN_LARGE_K + 1];
  int64_t start[CUARR_JOIN_LARGE_K + 1];
  int64_t strides[CUARR_JOIN_LARGE_K + 1][CUARR_MAXDIM];
} layout;

static void drop_axis(layout *L, int d) {
  for (int e = d; e < L->nd - 1; e++) {
    L->shape[e] = L->shape[e + 1];
    for (int op = 0; op < L->nops; op++)
      L->strides[op][e] = L->strides[op][e + 1];
  }
  L->nd--;
  if (L->axis > d)
    L->axis--;
}

/* Whether operand op steps over axis o as over axis d's whole extent (o just outside d). */
static bool merges(const layout *L, int op, int o, int d) {
  if (o == L->axis && L->extent[op] == 1)
    return true; /* a stride never stepped over */
  int64_t whole;
  return !__builtin_mul_overflow(L->strides[op][d], L->shape[d], &whole) &&
         whole == L->strides[op][o];
}

static void collapse(layout *L) {
  for (int d = L->nd - 1; d >= 0; d--)
    if (d != L->axis && L->shape[d] == 1)
      drop_axis(L, d);
  for (int d = L->nd - 1; d > 0; d--) {
    const int o = d - 1;
    if (d == L->axis)
      continue; /* the extents along the joining axis differ: nothing merges into it from outside */
    bool ok = true;
    for (int op = 0; op < L->nops && ok; op++)
      ok = merges(L, op, o, d);
    if (!ok)
      continue;
    if (o == L->axis)
      for (int op = 0; op < L->nops; op++) {
        L->extent[op] *= L->shape[d];
        L->start[op] *= L->shape[d];
      }
    L->shape[o] *= L->shape[d];
    for (int op = 0; op < L->nops; op++)
      L->strides[op][o] = L->strides[op][d];
    drop_axis(L, d);
  }
}

/* Whether every offset of operand op lies in int32's range. */
static bool fits32(const layout *L, int op) {
  int64_t reach = 0;
  for (int d = 0; d < L->nd; d++) {
    int64_t e = d == L->axis ? L->extent[op] : L->shape[d];
    int64_t s = L->strides[op][d] < 0 ? -L->strides[op][d] : L->strides[op][d], term;
    if (e > 0 && (L->strides[op][d] == INT64_MIN || __builtin_mul_overflow(s, e - 1, &term) ||
                  __builtin_add_overflow(reach, term, &reach)))
      return false;
  }
  return reach <= INT32_MAX;
}

/* The parameter struct of join.cu, written as it lies: base[K] (8 bytes each), then n, nsrc,
 * axis, shape[ND], out_strides[ND], start[K], strides[K][ND], dtype[K], each of I's size. */
typedef struct params {
  _Alignas(8) unsigned char bytes[4096];
  size_t at;
  bool wide;
} params;

static void put_index(params *p, int64_t v) {
  if (p->wide) {
    uint64_t x = (uint64_t)v;
    memcpy(p->bytes + p->at, &x, 8);
    p->at += 8;
  } else {
    uint32_t x = (uint32_t)(uint64_t)v; /* wrapped: the kernel reads offsets back as signed */
    memcpy(p->bytes + p->at, &x, 4);
    p->at += 4;
  }
}

/* ---------------------------------------------------------------- byte runs */

/* join.cu's cuarr_join_runs_params: base[K], start[K], n, nsrc, all 8 bytes. */
typedef struct runs_params {
  uint64_t words[2 * CUARR_JOIN_LARGE_K + 2];
} runs_params;

/* Whether the collapsed layout is one contiguous run per source and for the output, of one
 * dtype, with the alignment join.cu's runs kernel needs (each source's address and its start in
 * the output equal modulo 16, the output 16-byte aligned). */
static bool is_runs(const layout *L, const cuarr_array *const *src, int m, const cuarr_array *into,
                    int srcdt) {
  if (L->nd != 1 || srcdt != (int)into->dtype || (uintptr_t)cuarr_array_data(into) % 16 != 0)
    return false;
  const uint64_t size = cuarr_dtype_size(into->dtype);
  for (int op = 0; op <= m; op++) {
    if (L->strides[op][0] != 1 && L->extent[op] > 1)
      return false;
    if (op > 0 &&
        ((uint64_t)(uintptr_t)cuarr_array_data(src[op - 1]) - (uint64_t)L->start[op] * size) % 16)
      return false;
  }
  return true;
}

static cuarr_status launch_runs(int device, CUstream stream, const layout *L,
                                const cuarr_array *const *src, int m, const cuarr_array *into,
                                const cuarr_device_facts *facts) {
  const int k = m <= CUARR_JOIN_SMALL_K ? CUARR_JOIN_SMALL_K : CUARR_JOIN_LARGE_K;
  const cuarr_join_variant v = {.runs = true, .k = k, .axes = 1};
  CUfunction f;
  CUARR_TRY(kernel_for(device, &v, &f));
  const uint64_t size = cuarr_dtype_size(into->dtype);
  runs_params p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < m; i++) {
    p.words[i] = (uint64_t)(uintptr_t)cuarr_array_data(src[i]);
    p.words[k + i] = (uint64_t)L->start[i + 1] * size;
  }
  const uint64_t n = (uint64_t)cuarr_array_size(into) * size;
  p.words[2 * k] = n;
  p.words[2 * k + 1] = (uint64_t)m;
  const uint64_t per_block = 16 * (uint64_t)CUARR_JOIN_THREADS * CUARR_JOIN_BATCH;
  uint64_t blocks = (n + per_block - 1) / per_block;
  if (blocks > (uint64_t)facts->grid_stride_blocks)
    blocks = facts->grid_stride_blocks;
  CUdeviceptr out = (CUdeviceptr)cuarr_array_data(into);
  void *args[2] = {&out, p.words};
  return cuarr_launch(f, (unsigned)(blocks < 1 ? 1 : blocks), CUARR_JOIN_THREADS, 0, stream, args);
}

/* ---------------------------------------------------------------- the general walk */

/* One launch for m (1..CUARR_JOIN_LARGE_K) sources, each of extent > 0 along axis, into into. */
static cuarr_status launch_group(cuarr_context *ctx, int device, CUstream stream,
                                 const cuarr_array *const *src, int m, int axis,
                                 const cuarr_array *into) {
  layout *L = malloc(sizeof *L);
  if (!L)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a concatenate's layout");
  L->nd = into->ndim;
  L->axis = axis;
  L->nops = m + 1;
  memcpy(L->shape, into->shape, (size_t)into->ndim * sizeof(int64_t));
  bool whole = true; /* data and strides whole elements */
  int64_t pos = 0;
  for (int op = 0; op <= m && whole; op++) {
    const cuarr_array *a = op == 0 ? into : src[op - 1];
    int64_t size = (int64_t)cuarr_dtype_size(a->dtype);
    whole = (uintptr_t)cuarr_array_data(a) % (uintptr_t)size == 0;
    for (int d = 0; d < a->ndim && whole; d++) {
      whole = a->strides[d] % size == 0;
      L->strides[op][d] = a->strides[d] / size;
    }
    L->extent[op] = a->shape[axis];
    L->start[op] = op == 0 ? 0 : pos;
    if (op > 0)
      pos += a->shape[axis];
  }
  if (whole)
    collapse(L);
  if (!whole || L->nd > CUARR_JOIN_MAX_AXES) {
    free(L);
    return join_by_pieces(ctx, src, m, axis, into);
  }

  int srcdt = src[0]->dtype;
  for (int i = 1; i < m; i++)
    if ((int)src[i]->dtype != srcdt)
      srcdt = CUARR_JOIN_MIXED;
  const cuarr_device_facts *facts = NULL;
  cuarr_status s = cuarr_device_facts_get(device, &facts);
  if (s != CUARR_OK || is_runs(L, src, m, into, srcdt)) {
    if (s == CUARR_OK)
      s = launch_runs(device, stream, L, src, m, into, facts);
    free(L);
    return s;
  }

  const int64_t n = cuarr_array_size(into);
  bool wide = n > INT32_MAX;
  for (int op = 0; op <= m && !wide; op++)
    wide = !fits32(L, op);
  const int k = m <= CUARR_JOIN_SMALL_K ? CUARR_JOIN_SMALL_K : CUARR_JOIN_LARGE_K;
  cuarr_dtype dst = into->dtype;
  if (srcdt == (int)dst) /* a copy of bits */
    srcdt = dst = cuarr_bits_dtype(dst);
  cuarr_join_variant v = {false, dst, srcdt, L->nd, k, wide};

  params *p = malloc(sizeof *p);
  if (!p) {
    free(L);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a concatenate's parameters");
  }
  memset(p->bytes, 0, sizeof p->bytes);
  p->wide = wide;
  for (int i = 0; i < m; i++) {
    uint64_t base = (uint64_t)(uintptr_t)cuarr_array_data(src[i]);
    memcpy(p->bytes + 8 * (size_t)i, &base, 8);
  }
  p->at = 8 * (size_t)k;
  put_index(p, n);
  put_index(p, m);
  put_index(p, L->axis);
  for (int d = 0; d < L->nd; d++)
    put_index(p, L->shape[d]);
  for (int d = 0; d < L->nd; d++)
    put_index(p, L->strides[0][d]);
  for (int i = 0; i < k; i++)
    put_index(p, i < m ? L->start[i + 1] : 0);
  for (int i = 0; i < k; i++)
    for (int d = 0; d < L->nd; d++)
      put_index(p, i < m ? L->strides[i + 1][d] : 0);
  for (int i = 0; i < k; i++)
    put_index(p, i < m ? (int64_t)src[i]->dtype : 0);
  free(L);

  CUfunction f = NULL;
  s = kernel_for(device, &v, &f);
  if (s == CUARR_OK) {
    int64_t per_block = (int64_t)CUARR_JOIN_THREADS * CUARR_JOIN_BATCH;
    int64_t blocks = (n + per_block - 1) / per_block;
    if (blocks > (int64_t)facts->grid_stride_blocks)
      blocks = facts->grid_stride_blocks;
    CUdeviceptr out = (CUdeviceptr)cuarr_array_data(into);
    void *args[2] = {&out, p->bytes};
    s = cuarr_launch(f, (unsigned)(blocks < 1 ? 1 : blocks), CUARR_JOIN_THREADS, 0, stream, args);
  }
  free(p);
  return s;
}

static cuarr_status join_device(cuarr_context *ctx, int device, CUstream stream,
                                const cuarr_array *const *arrays, int n, int axis,
                                const cuarr_array *into) {
  CUARR_TRY(cuarr_device_activate(device));
  const cuarr_array *group[CUARR_JOIN_LARGE_K];
  int m = 0;
  int64_t first = 0, pos = 0; /* the group's first position along axis, and the next one */
  for (int i = 0; i < n; i++) {
    int64_t e = arrays[i]->shape[axis];
    if (e > 0) { /* sources of extent 0 have nothing to copy */
      if (m == 0)
        first = pos;
      group[m++] = arrays[i];
    }
    pos += e;
    if (m == CUARR_JOIN_LARGE_K || (i == n - 1 && m > 0)) {
      cuarr_array view;
      CUARR_TRY(cuarr_view_slice(into, axis, first, pos - first, 1, &view));
      cuarr_status s = launch_group(ctx, device, stream, group, m, axis, &view);
      cuarr_array_release(&view);
      CUARR_TRY(s);
      m = 0;
    }
  }
  return CUARR_OK;
}

/* ---------------------------------------------------------------- the entry point */

static const char *placement(int device) { return device == CUARR_HOST ? "the host" : "a device"; }

/* The arrays' result_type, all at once: it depends only on which dtypes occur, so on at most
 * CUARR_NDTYPES distinct ones however many arrays there are. */
static cuarr_status result_dtype(const cuarr_array *const *arrays, int n, cuarr_dtype *dtype) {
  bool seen[CUARR_NDTYPES] = {false};
  cuarr_dtype distinct[CUARR_NDTYPES];
  int count = 0;
  for (int i = 0; i < n; i++) {
    cuarr_dtype d = arrays[i]->dtype;
    if ((unsigned)d >= CUARR_NDTYPES)
      return cuarr_fail(CUARR_VALUE_ERROR, "concatenate: array %d has an invalid dtype", i + 1);
    if (!seen[d])
      distinct[count++] = d;
    seen[d] = true;
  }
  return cuarr_result_type(count, distinct, NULL, CUARR_FLOAT64, dtype);
}

static cuarr_status check_inputs(const cuarr_array *const *arrays, int n, int axis, int *device,
                                 int64_t *shape, cuarr_dtype *dtype) {
  if (!arrays || n < 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "need at least one array to concatenate");
  for (int i = 0; i < n; i++) {
    if (!arrays[i])
      return cuarr_fail(CUARR_VALUE_ERROR, "concatenate: array %d is missing", i + 1);
    CUARR_TRY(cuarr_array_check_live(arrays[i]));
  }
  const cuarr_array *a0 = arrays[0];
  *device = cuarr_array_device(a0);
  if (a0->ndim == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "zero-dimensional arrays cannot be concatenated");
  if (axis < 0 || axis >= a0->ndim)
    return cuarr_fail(CUARR_INDEX_ERROR,
                      "concatenate: axis %d is out of bounds for arrays of dimension %d", axis + 1,
                      a0->ndim);
  memcpy(shape, a0->shape, (size_t)a0->ndim * sizeof(int64_t));
  *dtype = a0->dtype;
  for (int i = 1; i < n; i++) {
    const cuarr_array *a = arrays[i];
    int dev = cuarr_array_device(a);
    if (dev != *device)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "concatenate: array 1 is on %s and array %d on %s: the arrays must be in "
                        "one place",
                        *device == CUARR_HOST ? "the host" : "a device", i + 1,
                        dev == CUARR_HOST       ? "the host"
                        : *device == CUARR_HOST ? "a device"
                                                : "another device");
    if (a->ndim != a0->ndim)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "concatenate: all the input arrays must have the same number of "
                        "dimensions, but array 1 has %d dimension(s) and array %d has %d",
                        a0->ndim, i + 1, a->ndim);
    for (int d = 0; d < a0->ndim; d++)
      if (d != axis && a->shape[d] != a0->shape[d])
        return cuarr_fail(CUARR_VALUE_ERROR,
                          "concatenate: all the input array dimensions except for the "
                          "concatenation axis must match exactly, but along dimension %d array 1 "
                          "has size %lld and array %d has size %lld",
                          d + 1, (long long)a0->shape[d], i + 1, (long long)a->shape[d]);
    if (__builtin_add_overflow(shape[axis], a->shape[axis], &shape[axis]))
      return cuarr_fail(CUARR_VALUE_ERROR, "concatenate: the result is too large");
  }
  CUARR_TRY(result_dtype(arrays, n, dtype));
  return cuarr_shape_check(a0->ndim, shape, *dtype, NULL);
}

static cuarr_status check_out(const cuarr_array *out, int device, cuarr_dtype result, int ndim,
                              const int64_t *shape) {
  CUARR_TRY(cuarr_array_check_live(out));
  if (cuarr_array_device(out) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "concatenate: out is on %s and the arrays on %s",
                      placement(cuarr_array_device(out)), placement(device));
  if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof(int64_t)) != 0) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(
        CUARR_VALUE_ERROR, "concatenate: out has shape %s but the result has shape %s",
        cuarr_shape_format(got, out->ndim, out->shape), cuarr_shape_format(want, ndim, shape));
  }
  if (!cuarr_can_cast_same_kind(result, out->dtype))
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "concatenate: cannot cast the result from %s to out's %s with casting rule "
                      "'same_kind'",
                      cuarr_dtype_name(result), cuarr_dtype_name(out->dtype));
  for (int d = 0; d < ndim; d++)
    if (shape[d] > 1 && out->strides[d] == 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "concatenate: out has overlapping elements");
  return CUARR_OK;
}

cuarr_status cuarr_concatenate(cuarr_context *ctx, const cuarr_array *const *arrays, int n,
                               int axis, cuarr_array *out) {
  if (!out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_concatenate: no output");
  CUARR_TRY(cuarr_array_check_writeable(out));
  int device = CUARR_HOST;
  int64_t shape[CUARR_MAXDIM];
  cuarr_dtype dtype;
  CUARR_TRY(check_inputs(arrays, n, axis, &device, shape, &dtype));
  const int ndim = arrays[0]->ndim;
  const bool given = out->buf != NULL;
  if (given)
    CUARR_TRY(check_out(out, device, dtype, ndim, shape));
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));

  cuarr_result r;
  /* A given out takes each source converted straight to its dtype, as NumPy's does. */
  CUARR_TRY(
      cuarr_result_begin(&r, ctx, device, stream, given ? out->dtype : dtype, ndim, shape, out));
  cuarr_status s = CUARR_OK;
  if (cuarr_array_size(&r.res) > 0) {
    bool through = false;
    for (int i = 0; i < n && given && !through; i++)
      through = cuarr_array_may_overlap(&r.res, arrays[i]);
    cuarr_array *into;
    s = cuarr_result_target(&r, ctx, device, stream, through, r.res.dtype, &into);
    for (int i = 0; i < n && s == CUARR_OK; i++) /* internal.h: operands after an allocation */
      s = cuarr_still_live(arrays[i]);
    if (s == CUARR_OK)
      s = device == CUARR_HOST ? join_by_pieces(ctx, arrays, n, axis, into)
                               : join_device(ctx, device, stream, arrays, n, axis, into);
  }
  return cuarr_result_end(&r, ctx, s);
}
