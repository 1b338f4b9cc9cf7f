/*
 * permutation.c -- the row gather that applies rows drawn on the host (choice) to a host array.
 * (Permutations themselves are the argsort of drawn keys: lua/cuarr/random.lua.)
 */
#include "internal.h"
#include "random/random.h"

cuarr_status cuarr_random_take_rows_host(const cuarr_array *dst, const cuarr_array *src,
                                         const int64_t *rows, int64_t n) {
  cuarr_status st = cuarr_array_check_live(dst);
  if (st == CUARR_OK)
    st = cuarr_array_check_writeable(dst);
  if (st == CUARR_OK)
    st = cuarr_array_check_live(src);
  if (st != CUARR_OK)
    return st;
  if (cuarr_array_device(dst) != CUARR_HOST || cuarr_array_device(src) != CUARR_HOST ||
      !cuarr_array_is_c_contiguous(dst) || !cuarr_array_is_c_contiguous(src) ||
      dst->dtype != src->dtype || dst->ndim < 1 || src->ndim < 1 || dst->shape[0] != n) {
    return cuarr_fail(CUARR_VALUE_ERROR, "take_rows: needs C-contiguous host arrays of one dtype");
  }
  int64_t src_rows = src->shape[0];
  int64_t row_bytes = dst->strides[0];
  if (src->ndim != dst->ndim)
    return cuarr_fail(CUARR_VALUE_ERROR, "take_rows: the arrays' ranks differ");
  for (int d = 1; d < dst->ndim; d++)
    if (dst->shape[d] != src->shape[d])
      return cuarr_fail(CUARR_VALUE_ERROR, "take_rows: the arrays' rows differ");
  if (cuarr_array_size(dst) == 0)
    return CUARR_OK;
  row_bytes = (int64_t)cuarr_dtype_size(dst->dtype) * (cuarr_array_size(dst) / n);
  char *out = cuarr_array_data(dst);
  const char *in = cuarr_array_data(src);
  for (int64_t i = 0; i < n; i++) {
    if (rows[i] < 0 || rows[i] >= src_rows)
      return cuarr_fail(CUARR_INDEX_ERROR, "take_rows: row %lld out of range", (long long)rows[i]);
    memmove(out + i * row_bytes, in + rows[i] * row_bytes, (size_t)row_bytes);
  }
  return CUARR_OK;
}
