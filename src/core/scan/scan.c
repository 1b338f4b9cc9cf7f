/*
 * scan/ -- scans (cumsum, cumprod): semantics, host loops, device kernels.
 *
 * scan.c -- cuarr_scan: cumsum and cumprod.  Dtypes as sums and products; axis -1 scans the
 * flattened array (C order; a non-contiguous input is copied first); the output is given or
 * allocated; an output that shares memory with the input in another layout is written
 * through a temporary.  Then the host loop or the device kernels.
 */
#include <string.h>

#include "array/casting.h"
#include "array/shape_format.h"
#include "copy/result.h"
#include "reduce/reduce.h"

static const char *scan_name(cuarr_scan_op op) {
  return op == CUARR_SCAN_CUMPROD ? "cumprod" : "cumsum";
}

/* Same elements at the same addresses (scanning in place is then safe). */
static bool same_layout(const cuarr_array *a, const cuarr_array *b) {
  if (cuarr_array_data(a) != cuarr_array_data(b) ||
      cuarr_dtype_size(a->dtype) != cuarr_dtype_size(b->dtype) || a->ndim != b->ndim)
    return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d]))
      return false;
  return true;
}

static cuarr_status run(cuarr_context *ctx, cuarr_scan_op op, const cuarr_array *in, int axis,
                        cuarr_dtype acc, const cuarr_array *out) {
  cuarr_scan_call call = {op, in, axis, acc, out};
  if (cuarr_array_device(in) == CUARR_HOST)
    return cuarr_host_scan(&call);
  return cuarr_device_scan(ctx, &call);
}

/* in as one axis (a view, or a C-contiguous copy in *copy). */
static cuarr_status flatten(cuarr_context *ctx, const cuarr_array *in, CUstream stream,
                            cuarr_array *flat, cuarr_array *copy) {
  int64_t n = cuarr_array_size(in);
  bool needs_copy = false;
  cuarr_array view;
  CUARR_TRY(cuarr_view_reshape(in, 1, &n, &view, &needs_copy));
  if (!needs_copy) {
    *flat = view;
    cuarr_array_release(&view); /* the caller's reference to in keeps the buffer */
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_array_empty(cuarr_array_device(in), in->dtype, in->ndim, in->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), copy));
  cuarr_status s = cuarr_copy(ctx, copy, in);
  if (s != CUARR_OK) {
    cuarr_array_release(copy);
    return s;
  }
  *flat = *copy;
  flat->ndim = 1;
  flat->shape[0] = n;
  flat->strides[0] = (int64_t)cuarr_dtype_size(in->dtype);
  return CUARR_OK;
}

cuarr_status cuarr_scan(cuarr_context *ctx, cuarr_scan_op op, const cuarr_array *in, int axis,
                        int dtype, cuarr_array *out) {
  if ((unsigned)op >= CUARR_NSCAN_OPS || !in || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_scan: no op, input or output");
  CUARR_TRY(cuarr_array_check_writeable(out));
  CUARR_TRY(cuarr_array_check_live(in));
  if (axis < -1 || axis >= (in->ndim > 0 ? in->ndim : 1) || (axis >= 0 && in->ndim == 0))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: axis %d is out of range for an array of %d "
                      "dimensions",
                      scan_name(op), axis, in->ndim);
  cuarr_dtype acc, result;
  CUARR_TRY(cuarr_reduce_resolve(op == CUARR_SCAN_CUMPROD ? CUARR_REDUCE_PROD : CUARR_REDUCE_SUM,
                                 in->dtype, dtype, &acc, &result));
  int device = cuarr_array_device(in);
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));

  const bool given = out->buf != NULL;
  int64_t n = cuarr_array_size(in);
  int ndim = axis < 0 ? 1 : in->ndim;
  const int64_t *shape = axis < 0 ? &n : in->shape;
  if (given) {
    CUARR_TRY(cuarr_array_check_live(out));
    if (cuarr_array_device(out) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: out is not where the input is", scan_name(op));
    if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof *shape) != 0) {
      char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: out has shape %s but the result has shape %s",
                        scan_name(op), cuarr_shape_format(got, out->ndim, out->shape),
                        cuarr_shape_format(want, ndim, shape));
    }
    if (!cuarr_can_cast_same_kind(result, out->dtype))
      return cuarr_fail(CUARR_TYPE_ERROR,
                        "%s: cannot cast the result from %s to out's %s with casting rule "
                        "'same_kind'",
                        scan_name(op), cuarr_dtype_name(result), cuarr_dtype_name(out->dtype));
    for (int d = 0; d < ndim; d++)
      if (shape[d] > 1 && out->strides[d] == 0)
        return cuarr_fail(CUARR_VALUE_ERROR, "%s: out has overlapping elements", scan_name(op));
  }
  if (n == 0 && given)
    return CUARR_OK;

  cuarr_array src = *in, copy = {0};
  if (axis < 0 && n > 0)
    CUARR_TRY(flatten(ctx, in, stream, &src, &copy));
  cuarr_result r;
  cuarr_status s = cuarr_result_begin(&r, ctx, device, stream, result, ndim, shape, out);
  if (s != CUARR_OK) {
    if (copy.buf)
      cuarr_array_release(&copy);
    return s;
  }
  if (n > 0) { /* else nothing to compute */
    bool overlaps = given && cuarr_array_may_overlap(&r.res, &src) && !same_layout(&r.res, &src);
    cuarr_array *into;
    s = cuarr_result_target(&r, ctx, device, stream, overlaps, r.res.dtype, &into);
    if (s == CUARR_OK)
      s = run(ctx, op, &src, axis < 0 ? 0 : axis, acc, into);
  }
  if (copy.buf) /* device memory: stream-ordered, safe once the scan is queued */
    cuarr_array_release(&copy);
  return cuarr_result_end(&r, ctx, s);
}
