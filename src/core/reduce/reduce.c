/*
 * reduce/ -- reductions: semantics, host loops, and the device engine with its generated kernels.
 *
 * reduce.c -- cuarr_reduce: dtypes, axes, the output (given or allocated), the empty cases,
 * then the host loops or the device engine over a keepdims view of the output.
 */
#include <string.h>

#include "array/casting.h"
#include "array/shape_format.h"
#include "copy/result.h"
#include "reduce/reduce.h"

static const char *const names[CUARR_NREDUCE_OPS] = {
    [CUARR_REDUCE_SUM] = "sum",
    [CUARR_REDUCE_PROD] = "prod",
    [CUARR_REDUCE_MIN] = "min",
    [CUARR_REDUCE_MAX] = "max",
    [CUARR_REDUCE_ARGMIN] = "argmin",
    [CUARR_REDUCE_ARGMAX] = "argmax",
    [CUARR_REDUCE_ALL] = "all",
    [CUARR_REDUCE_ANY] = "any",
    [CUARR_REDUCE_COUNT_NONZERO] = "count_nonzero",
    [CUARR_REDUCE_NANSUM] = "nansum",
    [CUARR_REDUCE_NANPROD] = "nanprod",
    [CUARR_REDUCE_NANMIN] = "nanmin",
    [CUARR_REDUCE_NANMAX] = "nanmax",
};

/* NumPy's names for the ufunc behind each op, as its error messages say them. */
static const char *const numpy_names[CUARR_NREDUCE_OPS] = {
    [CUARR_REDUCE_MIN] = "minimum",   [CUARR_REDUCE_MAX] = "maximum",
    [CUARR_REDUCE_ARGMIN] = "argmin", [CUARR_REDUCE_ARGMAX] = "argmax",
    [CUARR_REDUCE_NANMIN] = "fmin",   [CUARR_REDUCE_NANMAX] = "fmax",
};

const char *cuarr_reduce_op_name(cuarr_reduce_op op) {
  return (unsigned)op < CUARR_NREDUCE_OPS ? names[op] : "?";
}

bool cuarr_reduce_op_has_identity(cuarr_reduce_op op) {
  switch (op) {
  case CUARR_REDUCE_MIN:
  case CUARR_REDUCE_MAX:
  case CUARR_REDUCE_ARGMIN:
  case CUARR_REDUCE_ARGMAX:
  case CUARR_REDUCE_NANMIN:
  case CUARR_REDUCE_NANMAX: return false;
  default: return true;
  }
}

static bool is_sum_like(cuarr_reduce_op op) {
  return op == CUARR_REDUCE_SUM || op == CUARR_REDUCE_PROD || op == CUARR_REDUCE_NANSUM ||
         op == CUARR_REDUCE_NANPROD;
}

cuarr_status cuarr_reduce_resolve(cuarr_reduce_op op, cuarr_dtype in, int dtype, cuarr_dtype *acc,
                                  cuarr_dtype *out_dtype) {
  if ((unsigned)op >= CUARR_NREDUCE_OPS || (unsigned)in >= CUARR_NDTYPES)
    return cuarr_fail(CUARR_VALUE_ERROR, "unknown reduction or dtype");
  if (dtype >= CUARR_NDTYPES)
    return cuarr_fail(CUARR_TYPE_ERROR, "unknown dtype for %s", names[op]);
  if (is_sum_like(op)) {
    cuarr_dtype out = dtype >= 0                    ? (cuarr_dtype)dtype
                      : cuarr_dtype_is_unsigned(in) ? CUARR_UINT64
                      : cuarr_dtype_is_float(in)    ? in
                                                    : CUARR_INT64; /* bool and signed */
    *out_dtype = out;
    *acc = out == CUARR_FLOAT16 ? CUARR_FLOAT32 : out;
    return CUARR_OK;
  }
  if (dtype >= 0 && op != CUARR_REDUCE_ALL && op != CUARR_REDUCE_ANY)
    return cuarr_fail(CUARR_TYPE_ERROR, "%s takes no dtype", names[op]);
  switch (op) {
  case CUARR_REDUCE_ALL:
  case CUARR_REDUCE_ANY:
    *acc = CUARR_BOOL;
    *out_dtype = dtype >= 0 ? (cuarr_dtype)dtype : CUARR_BOOL;
    return CUARR_OK;
  case CUARR_REDUCE_COUNT_NONZERO: *acc = *out_dtype = CUARR_INT64; return CUARR_OK;
  case CUARR_REDUCE_ARGMIN:
  case CUARR_REDUCE_ARGMAX:
    *acc = in;
    *out_dtype = CUARR_INT64;
    return CUARR_OK;
  default: /* min, max and their nan- forms */ *acc = *out_dtype = in; return CUARR_OK;
  }
}

/* The result's shape: in's, without the reduced axes or with extent 1 there. */
static int result_shape(const cuarr_array *in, uint64_t axes, bool keepdims, int64_t *shape) {
  int n = 0;
  for (int d = 0; d < in->ndim; d++) {
    if (!(axes >> d & 1))
      shape[n++] = in->shape[d];
    else if (keepdims)
      shape[n++] = 1;
  }
  return n;
}

/* out seen with in's ndim: extent 1 and stride 0 on the reduced axes (out may or may not have
 * them, as keepdims says). */
static void keepdims_view(const cuarr_array *out, const cuarr_array *in, uint64_t axes,
                          bool keepdims, cuarr_array *view) {
  *view = *out;
  view->ndim = in->ndim;
  for (int d = 0, j = 0; d < in->ndim; d++) {
    if (axes >> d & 1) {
      view->shape[d] = 1;
      view->strides[d] = 0;
      j += keepdims;
    } else {
      view->shape[d] = out->shape[j];
      view->strides[d] = out->strides[j];
      j++;
    }
  }
}

static cuarr_status check_args(cuarr_reduce_op op, const cuarr_array *in,
                               const cuarr_reduce_args *args, uint64_t *axes) {
  if ((unsigned)op >= CUARR_NREDUCE_OPS || !in || !args)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_reduce: no op, input or arguments");
  CUARR_TRY(cuarr_array_check_live(in));
  uint64_t all = in->ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << in->ndim) - 1;
  *axes = args->axes == ~(uint64_t)0 ? all : args->axes;
  if (*axes & ~all)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: axis out of range for an array of %d dimensions",
                      names[op], in->ndim);
  int count = __builtin_popcountll(*axes);
  if ((op == CUARR_REDUCE_ARGMIN || op == CUARR_REDUCE_ARGMAX) && count > 1 && *axes != all)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s takes one axis or all of them", names[op]);
  return CUARR_OK;
}

static cuarr_status check_out(cuarr_reduce_op op, const cuarr_array *out, int device,
                              cuarr_dtype result, int ndim, const int64_t *shape) {
  CUARR_TRY(cuarr_array_check_live(out));
  if (cuarr_array_device(out) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: out is not where the input is", names[op]);
  if (out->ndim != ndim || memcmp(out->shape, shape, (size_t)ndim * sizeof *shape) != 0) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: out has shape %s but the result has shape %s",
                      names[op], cuarr_shape_format(got, out->ndim, out->shape),
                      cuarr_shape_format(want, ndim, shape));
  }
  if (!cuarr_can_cast_same_kind(result, out->dtype))
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "%s: cannot cast the result from %s to out's %s with casting rule "
                      "'same_kind'",
                      names[op], cuarr_dtype_name(result), cuarr_dtype_name(out->dtype));
  for (int d = 0; d < ndim; d++)
    if (shape[d] > 1 && out->strides[d] == 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: out has overlapping elements (a broadcast view)",
                        names[op]);
  return CUARR_OK;
}

static cuarr_scalar identity(cuarr_reduce_op op) {
  switch (op) {
  case CUARR_REDUCE_PROD:
  case CUARR_REDUCE_NANPROD: return (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 1};
  case CUARR_REDUCE_ALL: return (cuarr_scalar){.dtype = CUARR_BOOL, .v.b = true};
  case CUARR_REDUCE_ANY: return (cuarr_scalar){.dtype = CUARR_BOOL, .v.b = false};
  default: return (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0};
  }
}

/* Run the reduction into res (no overlap with in). */
static cuarr_status run(cuarr_context *ctx, cuarr_reduce_op op, const cuarr_array *in,
                        uint64_t axes, bool keepdims, cuarr_dtype acc, int64_t index_base,
                        const cuarr_array *res) {
  int64_t reduced = 1;
  for (int d = 0; d < in->ndim; d++)
    if (axes >> d & 1)
      reduced *= in->shape[d];
  if (reduced == 0) /* an op with an identity (cuarr_reduce checked) */
    return cuarr_fill(ctx, res, identity(op));
  cuarr_array view;
  keepdims_view(res, in, axes, keepdims, &view);
  cuarr_reduce_call call = {op, in, axes, acc, &view, index_base};
  if (cuarr_array_device(in) == CUARR_HOST)
    return cuarr_host_reduce(&call);
  return cuarr_device_reduce(ctx, &call);
}

cuarr_status cuarr_reduce(cuarr_context *ctx, cuarr_reduce_op op, const cuarr_array *in,
                          const cuarr_reduce_args *args, cuarr_array *out) {
  if (out)
    CUARR_TRY(cuarr_array_check_writeable(out));
  cuarr_status flat;
  if (in && args && out && cuarr_reduce_flat(ctx, op, in, args, out, &flat))
    return flat;
  uint64_t axes = 0;
  CUARR_TRY(check_args(op, in, args, &axes));
  if (!out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_reduce: no output");
  cuarr_dtype acc, result;
  CUARR_TRY(cuarr_reduce_resolve(op, in->dtype, args->dtype, &acc, &result));
  int device = cuarr_array_device(in);
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  int64_t shape[CUARR_MAXDIM];
  int ndim = result_shape(in, axes, args->keepdims, shape);
  const bool given = out->buf != NULL;
  /* NumPy raises here even when there are no results: (0, 0) arrays have no max. */
  int64_t reduced = 1;
  for (int d = 0; d < in->ndim; d++)
    if (axes >> d & 1)
      reduced *= in->shape[d];
  if (reduced == 0 && !cuarr_reduce_op_has_identity(op))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "zero-size array to reduction operation %s which has no identity",
                      numpy_names[op]);

  if (given)
    CUARR_TRY(check_out(op, out, device, result, ndim, shape));
  cuarr_result r;
  CUARR_TRY(cuarr_result_begin(&r, ctx, device, stream, result, ndim, shape, out));
  cuarr_status s = CUARR_OK;
  if (cuarr_array_size(&r.res) > 0) { /* else no results: nothing to compute */
    cuarr_array *into;
    s = cuarr_result_target(&r, ctx, device, stream, given && cuarr_array_may_overlap(&r.res, in),
                            r.res.dtype, &into);
    if (s == CUARR_OK)
      s = run(ctx, op, in, axes, args->keepdims, acc, args->index_base, into);
  }
  return cuarr_result_end(&r, ctx, s);
}
