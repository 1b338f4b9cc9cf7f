/*
 * factor.c -- the factorizations' dispatch to the host or the device engine.
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
