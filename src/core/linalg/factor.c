/*
 * factor.c -- the factorizations' dispatch to the host or the device engine, and the one place
 * their statuses are read back.
 */
#include "linalg/factor.h"

#define DISPATCH(b, call, ...)                                                                     \
  ((b)->device == CUARR_HOST ? cuarr_factor_host_##call(__VA_ARGS__)                               \
                             : cuarr_factor_device_##call(__VA_ARGS__))

cuarr_status cuarr_factor_lu(const cuarr_factor_batch *b) { return DISPATCH(b, lu, b); }

cuarr_status cuarr_factor_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                   char *rhs) {
  return DISPATCH(b, lu_solve, b, transpose, nrhs, rhs);
}

cuarr_status cuarr_factor_cholesky(const cuarr_factor_batch *b, bool upper) {
  return DISPATCH(b, cholesky, b, upper);
}

cuarr_status cuarr_factor_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                 const cuarr_array *logabs) {
  return DISPATCH(b, lu_det, b, sign, logabs);
}

cuarr_status cuarr_factor_any_failed(const cuarr_factor_batch *b, bool *failed) {
  *failed = false;
  if (b->count == 0)
    return CUARR_OK;
  const int *info = b->info;
  cuarr_array host = {0};
  if (b->device != CUARR_HOST) {
    /* The statuses come back through a host array: the copy waits for the factorization. */
    int64_t n = b->count;
    cuarr_array dev = {0};
    cuarr_buffer *wrapped;
    CUARR_TRY(cuarr_buffer_wrap(b->info, (size_t)n * sizeof(int), b->device, false, NULL, NULL,
                                &wrapped));
    dev = (cuarr_array){.buf = wrapped,
                        .dtype = CUARR_INT32,
                        .ndim = 1,
                        .shape = {n},
                        .strides = {(int64_t)sizeof(int)}};
    cuarr_status s = cuarr_array_empty(CUARR_HOST, CUARR_INT32, 1, &n, false, NULL,
                                       cuarr_ctx_reclaim(b->ctx), &host);
    if (s == CUARR_OK)
      s = cuarr_copy(b->ctx, &host, &dev);
    cuarr_buffer_release(wrapped);
    if (s != CUARR_OK) {
      if (host.buf)
        cuarr_array_release(&host);
      return s;
    }
    info = cuarr_array_data(&host);
  }
  for (int64_t i = 0; i < b->count && !*failed; i++)
    *failed = info[i] > 0;
  if (host.buf)
    cuarr_array_release(&host);
  return CUARR_OK;
}
