/*
 * result.c -- the one "write the result" ending (result.h): in place, allocated, or through
 * a temporary.
 */
#include "copy/result.h"

cuarr_status cuarr_result_begin(cuarr_result *r, cuarr_context *ctx, int device, CUstream stream,
                                cuarr_dtype dtype, int ndim, const int64_t *shape,
                                cuarr_array *out) {
  r->out = out;
  r->given = out->buf != NULL;
  r->tmp.buf = NULL;
  if (r->given) {
    r->res = *out;
    return CUARR_OK;
  }
  return cuarr_array_empty(device, dtype, ndim, shape, false, stream, cuarr_ctx_reclaim(ctx),
                           &r->res);
}

cuarr_status cuarr_result_target(cuarr_result *r, cuarr_context *ctx, int device, CUstream stream,
                                 bool through_temporary, cuarr_dtype dtype, cuarr_array **target) {
  if (!through_temporary) {
    *target = &r->res;
    return CUARR_OK;
  }
  cuarr_status s = cuarr_array_empty(device, dtype, r->res.ndim, r->res.shape, false, stream,
                                     cuarr_ctx_reclaim(ctx), &r->tmp);
  if (s != CUARR_OK) {
    r->tmp.buf = NULL;
    return s;
  }
  *target = &r->tmp;
  return CUARR_OK;
}

cuarr_status cuarr_result_end(cuarr_result *r, cuarr_context *ctx, cuarr_status s) {
  /* The temporary is released as soon as the copy returns: a host copy is done by then, and
   * device memory is stream-ordered, so a block queued for reuse waits for the copy. */
  if (r->tmp.buf) {
    if (s == CUARR_OK)
      s = cuarr_copy(ctx, &r->res, &r->tmp);
    cuarr_array_release(&r->tmp);
  }
  if (r->given)
    return s;
  if (s != CUARR_OK) {
    cuarr_array_release(&r->res);
    return s;
  }
  *r->out = r->res;
  return CUARR_OK;
}

cuarr_status cuarr_copy_new(cuarr_context *ctx, int device, CUstream stream, const cuarr_array *x,
                            cuarr_dtype dtype, cuarr_array *tmp) {
  CUARR_TRY(cuarr_array_empty(device, dtype, x->ndim, x->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), tmp));
  cuarr_status s = cuarr_still_live(x);
  if (s == CUARR_OK)
    s = cuarr_copy(ctx, tmp, x);
  if (s != CUARR_OK)
    cuarr_array_release(tmp);
  return s;
}
