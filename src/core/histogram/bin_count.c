/*
 * bin_count.c -- cuarr_bin_count: the elements of an array counted (or their weights summed)
 * into bins, what bincount, histogram and histogram's edges share.
 *
 * Device arrays: one launch of the counting kernel (kernels/templates/histogram.cu) over x read
 * as a flat C-contiguous array, after one fill of the output with zeros; the bins are privatised
 * in shared memory when they fit (CUARR_HIST_SHARED_BYTES; up to one copy per warp), global
 * atomics otherwise.
 * Nothing synchronises.  Host arrays: one C loop with the same bin rule.  x, the weights and the
 * edges are copied into C-contiguous temporaries first when they are not (the edges converted
 * to float64 as they are).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compile/function_table.h"
#include "copy/result.h"
#include "cuda/device_facts.h"
#include "histogram/histogram.h"

/* ---------------------------------------------------------------- the kernels */

static void *hist_table;

static uint64_t key_of(int device, const cuarr_hist_variant *v) {
  if (device < 0 || device > 0xffff)
    return 0;
  uint64_t k = (uint64_t)device;
  k = k << 2 | (uint64_t)v->rule;
  k = k << 4 | (uint64_t)v->x;
  k = k << 4 | (uint64_t)v->weights;
  k = k << 1 | (uint64_t)v->exact;
  k = k << 1 | (uint64_t)v->shared;
  return k + 1;
}

static void variant_name(const void *v, char *buf, size_t size) {
  cuarr_hist_variant_name(v, buf, size);
}
static char *variant_program(const void *v) { return cuarr_hist_program(v, 1); }
static const cuarr_variant_writer writer = {variant_name, variant_program};

/* histogram.cu's cuarr_hist_params, as it lies. */
typedef struct hist_params {
  uint64_t n, nbins;
  uint64_t edges;
  double lo, hi;
  uint64_t copies;
} hist_params;

/* ---------------------------------------------------------------- the bin rule, on the host */

static double load_double(const void *p, cuarr_dtype d, int64_t i) {
  switch (d) {
  case CUARR_BOOL: return ((const unsigned char *)p)[i] != 0;
  case CUARR_INT8: return ((const int8_t *)p)[i];
  case CUARR_INT16: return ((const int16_t *)p)[i];
  case CUARR_INT32: return ((const int32_t *)p)[i];
  case CUARR_INT64: return (double)((const int64_t *)p)[i];
  case CUARR_UINT8: return ((const uint8_t *)p)[i];
  case CUARR_UINT16: return ((const uint16_t *)p)[i];
  case CUARR_UINT32: return ((const uint32_t *)p)[i];
  case CUARR_UINT64: return (double)((const uint64_t *)p)[i];
  case CUARR_FLOAT16: return cuarr_half_to_float(((const uint16_t *)p)[i]);
  case CUARR_FLOAT32: return ((const float *)p)[i];
  default: return ((const double *)p)[i];
  }
}

/* An integer element as int64 (uint64 wraps, as the device's cast does). */
static int64_t load_int64(const void *p, cuarr_dtype d, int64_t i) {
  switch (d) {
  case CUARR_BOOL: return ((const unsigned char *)p)[i] != 0;
  case CUARR_INT8: return ((const int8_t *)p)[i];
  case CUARR_INT16: return ((const int16_t *)p)[i];
  case CUARR_INT32: return ((const int32_t *)p)[i];
  case CUARR_INT64: return ((const int64_t *)p)[i];
  case CUARR_UINT8: return ((const uint8_t *)p)[i];
  case CUARR_UINT16: return ((const uint16_t *)p)[i];
  case CUARR_UINT32: return ((const uint32_t *)p)[i];
  case CUARR_UINT64: return (int64_t)((const uint64_t *)p)[i];
  default: { /* float weights summed exactly: saturated, NaN 0, as cuarr_cast */
    double f = load_double(p, d, i);
    return isnan(f) ? 0 : f >= 0x1p63 ? INT64_MAX : f <= -0x1p63 ? INT64_MIN : (int64_t)f;
  }
  }
}

/* histogram.cu's cuarr_hist_bin, the same steps in the same order. */
static int64_t host_bin(cuarr_bin_rule rule, const void *x, cuarr_dtype d, int64_t i,
                        const hist_params *p, const double *edges) {
  if (rule == CUARR_BIN_VALUE) {
    int64_t b = load_int64(x, d, i);
    return b >= 0 && (uint64_t)b < p->nbins ? b : -1;
  }
  const double v = load_double(x, d, i);
  if (!(v >= p->lo && v <= p->hi))
    return -1;
  const int64_t last = (int64_t)p->nbins - 1;
  if (rule == CUARR_BIN_UNIFORM) {
    volatile double diff = v - p->lo, width = p->hi - p->lo;
    volatile double q = diff / width;
    const double f = q * (double)p->nbins;
    int64_t b = f >= (double)last ? last : f > 0.0 ? (int64_t)f : 0;
    while (b > 0 && v < edges[b])
      b--;
    while (b < last && v >= edges[b + 1])
      b++;
    return b;
  }
  if (v == p->hi)
    return last;
  int64_t lo = 1, hi = (int64_t)p->nbins;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    if (edges[mid] > v)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo - 1;
}

static void count_host(cuarr_bin_rule rule, const cuarr_array *x, const cuarr_array *w,
                       const hist_params *p, const double *edges, const cuarr_array *out) {
  const void *xd = cuarr_array_data(x);
  const void *wd = w ? cuarr_array_data(w) : NULL;
  const int64_t n = (int64_t)p->n;
  if (out->dtype == CUARR_INT64) {
    uint64_t *o = cuarr_array_data(out); /* int64 sums wrap, as the device's */
    for (int64_t i = 0; i < n; i++) {
      int64_t b = host_bin(rule, xd, x->dtype, i, p, edges);
      if (b >= 0)
        o[b] += w ? (uint64_t)load_int64(wd, w->dtype, i) : 1u;
    }
  } else {
    double *o = cuarr_array_data(out);
    for (int64_t i = 0; i < n; i++) {
      int64_t b = host_bin(rule, xd, x->dtype, i, p, edges);
      if (b >= 0)
        o[b] += load_double(wd, w->dtype, i);
    }
  }
}

/* ---------------------------------------------------------------- the device launch */

static cuarr_status count_device(int device, CUstream stream, cuarr_bin_rule rule,
                                 const cuarr_array *x, const cuarr_array *w, const hist_params *p,
                                 const cuarr_array *out) {
  const cuarr_device_facts *facts = NULL;
  CUARR_TRY(cuarr_device_facts_get(device, &facts));
  const bool shared = p->nbins * 8 <= CUARR_HIST_SHARED_BYTES;
  uint64_t copies = shared ? CUARR_HIST_SHARED_BYTES / (p->nbins * 8) : 0;
  if (copies > CUARR_HIST_THREADS / 32)
    copies = CUARR_HIST_THREADS / 32;
  const cuarr_hist_variant v = {rule, x->dtype, w ? (int)w->dtype : CUARR_HIST_NO_WEIGHTS,
                                out->dtype == CUARR_INT64, shared};
  CUfunction f;
  CUARR_TRY(cuarr_function_table_variant(&hist_table, key_of(device, &v), device, &writer, &v, &f));
  uint64_t blocks = (p->n + CUARR_HIST_THREADS - 1) / CUARR_HIST_THREADS;
  if (blocks > facts->grid_stride_blocks)
    blocks = facts->grid_stride_blocks;
  CUdeviceptr xp = (CUdeviceptr)cuarr_array_data(x);
  CUdeviceptr wp = w ? (CUdeviceptr)cuarr_array_data(w) : 0;
  CUdeviceptr op = (CUdeviceptr)cuarr_array_data(out);
  hist_params params = *p;
  params.copies = copies;
  void *args[4] = {&xp, &wp, &op, &params};
  return cuarr_launch(f, (unsigned)(blocks < 1 ? 1 : blocks), CUARR_HIST_THREADS,
                      (unsigned)(copies * p->nbins * 8), stream, args);
}

/* ---------------------------------------------------------------- operands */

static const char *place(int device) { return device == CUARR_HOST ? "the host" : "a device"; }

/* *flat: a, or a C-contiguous copy of it in dtype (a's own when dtype < 0) held in *tmp. */
static cuarr_status contiguous(cuarr_context *ctx, int device, CUstream stream,
                               const cuarr_array *a, int dtype, cuarr_array *tmp,
                               const cuarr_array **flat) {
  if (cuarr_array_is_c_contiguous(a) && (dtype < 0 || a->dtype == (cuarr_dtype)dtype)) {
    *flat = a;
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_copy_new(ctx, device, stream, a, dtype < 0 ? a->dtype : (cuarr_dtype)dtype, tmp));
  *flat = tmp;
  return CUARR_OK;
}

static cuarr_status check(const cuarr_array *x, cuarr_bin_rule rule, int64_t nbins,
                          const cuarr_array *edges, const cuarr_array *weights,
                          const cuarr_array *out) {
  if (!x || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: no array or no output");
  if (out->buf)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: the output is allocated here");
  CUARR_TRY(cuarr_array_check_live(x));
  const int device = cuarr_array_device(x);
  if (rule != CUARR_BIN_VALUE && rule != CUARR_BIN_UNIFORM && rule != CUARR_BIN_EDGES)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: unknown bin rule %d", (int)rule);
  if (nbins < 0 || (rule != CUARR_BIN_VALUE && nbins < 1))
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: %lld bins", (long long)nbins);
  if (rule == CUARR_BIN_VALUE && x->dtype != CUARR_BOOL && !cuarr_dtype_is_integer(x->dtype))
    return cuarr_fail(CUARR_TYPE_ERROR, "cuarr_bin_count: values of dtype %s are not integers",
                      cuarr_dtype_name(x->dtype));
  if (rule != CUARR_BIN_VALUE) {
    if (!edges)
      return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: no edges");
    CUARR_TRY(cuarr_array_check_live(edges));
    if (cuarr_array_device(edges) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: the edges are on %s and x on %s",
                        place(cuarr_array_device(edges)), place(device));
    /* shape - 1 against nbins, never nbins + 1: a caller's nbins may be INT64_MAX */
    if (edges->ndim != 1 || edges->shape[0] - 1 != nbins)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "cuarr_bin_count: the edges must be one more than the %lld bins, in 1-D",
                        (long long)nbins);
  }
  if (weights) {
    CUARR_TRY(cuarr_array_check_live(weights));
    if (cuarr_array_device(weights) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: the weights are on %s and x on %s",
                        place(cuarr_array_device(weights)), place(device));
    if (!cuarr_array_same_shape(weights, x))
      return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_bin_count: the weights and x differ in shape");
  }
  return CUARR_OK;
}

cuarr_status cuarr_bin_count(cuarr_context *ctx, const cuarr_array *x, cuarr_bin_rule rule,
                             int64_t nbins, const cuarr_array *edges, double lo, double hi,
                             const cuarr_array *weights, cuarr_array *out) {
  CUARR_TRY(cuarr_array_check_writeable(out));
  CUARR_TRY(check(x, rule, nbins, edges, weights, out));
  const int device = cuarr_array_device(x);
  CUstream stream = NULL;
  if (device != CUARR_HOST) {
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
    CUARR_TRY(cuarr_device_activate(device));
  }
  const bool exact = !weights || !cuarr_dtype_is_float(weights->dtype);
  cuarr_result r;
  CUARR_TRY(cuarr_result_begin(&r, ctx, device, stream, exact ? CUARR_INT64 : CUARR_FLOAT64, 1,
                               &nbins, out));
  cuarr_array *into = NULL;
  cuarr_status s = cuarr_result_target(&r, ctx, device, stream, false, r.res.dtype, &into);
  if (s == CUARR_OK && nbins > 0)
    s = cuarr_fill(ctx, into, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0});
  const int64_t n = cuarr_array_size(x);
  if (s != CUARR_OK || n == 0 || nbins == 0)
    return cuarr_result_end(&r, ctx, s);

  cuarr_array xt = {0}, wt = {0}, et = {0};
  const cuarr_array *xf = NULL, *wf = NULL, *ef = NULL;
  s = contiguous(ctx, device, stream, x, -1, &xt, &xf);
  if (s == CUARR_OK && weights)
    s = contiguous(ctx, device, stream, weights, -1, &wt, &wf);
  if (s == CUARR_OK && edges)
    s = contiguous(ctx, device, stream, edges, CUARR_FLOAT64, &et, &ef);
  hist_params p = {(uint64_t)n, (uint64_t)nbins, 0, lo, hi, 1};
  if (s == CUARR_OK)
    s = cuarr_still_live(x);
  if (s == CUARR_OK && weights)
    s = cuarr_still_live(weights);
  if (s == CUARR_OK && edges)
    s = cuarr_still_live(edges);
  if (s == CUARR_OK) {
    p.edges = ef ? (uint64_t)(uintptr_t)cuarr_array_data(ef) : 0;
    if (device == CUARR_HOST)
      count_host(rule, xf, wf, &p, ef ? cuarr_array_data(ef) : NULL, into);
    else
      s = count_device(device, stream, rule, xf, wf, &p, into);
  }
  cuarr_array_release(&xt);
  cuarr_array_release(&wt);
  cuarr_array_release(&et);
  return cuarr_result_end(&r, ctx, s);
}
