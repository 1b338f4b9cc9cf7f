/*
 * stack.c -- stacks of matrices as cuarr.linalg reads them (stack.h).
 */
#include "linalg/stack.h"
#include "array/shape_format.h"

cuarr_status cuarr_linalg_stack_of(cuarr_context *ctx, const char *fn, const cuarr_array *a,
                                   bool square, cuarr_linalg_stack *s) {
  CUARR_TRY(cuarr_array_check_live(a));
  if (a->ndim < 2)
    return cuarr_fail(CUARR_LINALG_ERROR,
                      "%s: %d-dimensional array given; it must be at least two-dimensional", fn,
                      a->ndim);
  const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
  if (square && m != n) {
    char sh[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_LINALG_ERROR, "%s: the last two axes must be square, got %s", fn,
                      cuarr_shape_format(sh, a->ndim, a->shape));
  }
  if (a->dtype == CUARR_FLOAT16)
    return cuarr_fail(CUARR_TYPE_ERROR, "%s: float16 is unsupported in linalg", fn);
  if (m > 0x7fffffff || n > 0x7fffffff)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: matrices of more than 2^31-1 rows or columns", fn);
  s->ctx = ctx;
  s->device = cuarr_array_device(a);
  s->stream = NULL;
  if (s->device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, s->device, &s->stream));
  s->dtype = a->dtype == CUARR_FLOAT32 ? CUARR_FLOAT32 : CUARR_FLOAT64;
  s->nb = a->ndim - 2;
  s->count = 1;
  for (int d = 0; d < s->nb; d++)
    s->count *= (s->batch[d] = a->shape[d]);
  s->m = (int)m, s->n = (int)n;
  return CUARR_OK;
}

cuarr_status cuarr_linalg_new_array(const cuarr_linalg_stack *s, cuarr_dtype dtype, int tail_n,
                                    const int64_t *tail, cuarr_array *out) {
  int64_t shape[CUARR_MAXDIM];
  for (int d = 0; d < s->nb; d++)
    shape[d] = s->batch[d];
  for (int d = 0; d < tail_n; d++)
    shape[s->nb + d] = tail[d];
  return cuarr_array_empty(s->device, dtype, s->nb + tail_n, shape, false, s->stream,
                           cuarr_ctx_reclaim(s->ctx), out);
}

cuarr_status cuarr_linalg_any_failed(cuarr_context *ctx, const cuarr_array *info, bool *failed) {
  *failed = false;
  const int64_t n = cuarr_array_size(info);
  if (n == 0)
    return CUARR_OK;
  cuarr_array host = {0};
  if (cuarr_array_device(info) != CUARR_HOST) {
    CUARR_TRY(cuarr_array_empty(CUARR_HOST, CUARR_INT32, info->ndim, info->shape, false, NULL,
                                cuarr_ctx_reclaim(ctx), &host));
    cuarr_status s = cuarr_copy(ctx, &host, info); /* waits for the factorization */
    if (s != CUARR_OK) {
      cuarr_array_release(&host);
      return s;
    }
  }
  const int32_t *status = cuarr_array_data(host.buf ? &host : info);
  for (int64_t i = 0; i < n && !*failed; i++)
    *failed = status[i] > 0;
  if (host.buf)
    cuarr_array_release(&host);
  return CUARR_OK;
}
