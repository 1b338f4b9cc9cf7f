/*
 * search.c -- cuarr_searchsorted: where values would be inserted into a sorted 1-D array
 * (NumPy's searchsorted, positions 1-based).  Both operands are compared in their promoted dtype,
 * under the sort's order (NaNs last and equal to each other), each made C-contiguous in that
 * dtype first when it is not; device arrays through one binary-search kernel of the sort library
 * (a thread per value), host arrays through a C loop.
 */
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "sort/sort_internal.h"

static cuarr_status check_inputs(const cuarr_array *sorted, const cuarr_array *values,
                                 const cuarr_array *sorter, const cuarr_array *out) {
  CUARR_TRY(cuarr_array_check_live(sorted));
  CUARR_TRY(cuarr_array_check_live(values));
  const int device = cuarr_array_device(sorted);
  if (sorted->ndim != 1)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "searchsorted: the sorted array must be 1-dimensional, got %d dimension(s)",
                      sorted->ndim);
  if (cuarr_array_device(values) != device)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "searchsorted: the sorted array and the values must be in one place");
  if (sorter) {
    CUARR_TRY(cuarr_array_check_live(sorter));
    if (cuarr_array_device(sorter) != device)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "searchsorted: the sorter and the sorted array must be in one place");
    if (!cuarr_dtype_is_integer(sorter->dtype))
      return cuarr_fail(CUARR_TYPE_ERROR,
                        "searchsorted: sorter must be of an integer dtype, got %s",
                        cuarr_dtype_name(sorter->dtype));
    if (sorter->ndim != 1 || sorter->shape[0] != sorted->shape[0])
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "searchsorted: sorter must be 1-dimensional and as long as the sorted "
                        "array (%lld)",
                        (long long)sorted->shape[0]);
  }
  if (out->buf) {
    CUARR_TRY(cuarr_array_check_live(out));
    if (cuarr_array_device(out) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "searchsorted: out must be where the arrays are");
    if (!cuarr_array_same_shape(out, values)) {
      char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR, "searchsorted: out has shape %s but values have %s",
                        cuarr_shape_format(got, out->ndim, out->shape),
                        cuarr_shape_format(want, values->ndim, values->shape));
    }
    if (out->dtype != CUARR_INT64)
      return cuarr_fail(CUARR_TYPE_ERROR, "searchsorted: out must be int64, got %s",
                        cuarr_dtype_name(out->dtype));
  }
  return CUARR_OK;
}

/* Every entry of a host sorter in 1..n (the device's are checked by the caller, cuarr.h). */
static cuarr_status check_host_sorter(const cuarr_array *sorter) {
  const int64_t *p = cuarr_array_data(sorter);
  const int64_t n = sorter->shape[0];
  for (int64_t i = 0; i < n; i++)
    if (p[i] < 1 || p[i] > n)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "searchsorted: sorter entry %lld is %lld, out of range 1..%lld",
                        (long long)i + 1, (long long)p[i], (long long)n);
  return CUARR_OK;
}

cuarr_status cuarr_searchsorted(cuarr_context *ctx, const cuarr_array *sorted,
                                const cuarr_array *values, bool right, const cuarr_array *sorter,
                                cuarr_array *out) {
  if (!sorted || !values || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_searchsorted: no array or no output");
  CUARR_TRY(check_inputs(sorted, values, sorter, out));
  cuarr_dtype dtype;
  CUARR_TRY(cuarr_promote(sorted->dtype, false, values->dtype, false, CUARR_FLOAT64, &dtype));
  cuarr_sort_rows r;
  CUARR_TRY(cuarr_sort_rows_begin(&r, ctx, values, CUARR_SORT_FLAT, "searchsorted"));
  cuarr_result res;
  CUARR_TRY(cuarr_result_begin(&res, ctx, r.device, r.stream, CUARR_INT64, values->ndim,
                               values->shape, out));
  cuarr_status s = CUARR_OK;
  cuarr_array keys = {0}, vals = {0}, order = {0};
  cuarr_sort_target t;
  bool have_t = false;
  if (r.n > 0) {
    s = cuarr_sort_contiguous(&r, sorted, dtype, &keys);
    if (s == CUARR_OK)
      s = cuarr_sort_rows_source(&r, values, &vals);
    if (s == CUARR_OK && vals.dtype != dtype) {
      cuarr_array cast;
      s = cuarr_sort_contiguous(&r, &vals, dtype, &cast);
      cuarr_array_release(&vals);
      vals = cast;
    }
    if (s == CUARR_OK && sorter)
      s = cuarr_sort_contiguous(&r, sorter, CUARR_INT64, &order);
    if (s == CUARR_OK && sorter && r.device == CUARR_HOST)
      s = check_host_sorter(&order);
    bool overlaps = false;
    if (res.given)
      overlaps = cuarr_array_may_overlap(&res.res, sorted) ||
                 cuarr_array_may_overlap(&res.res, values) ||
                 (sorter && cuarr_array_may_overlap(&res.res, sorter));
    if (s == CUARR_OK) {
      /* An output overlapping an operand is written through a temporary (see sort.c). */
      s = cuarr_sort_target_begin(&r, &res.res, overlaps ? &res.res : NULL, false, &t);
      have_t = s == CUARR_OK;
    }
    if (s == CUARR_OK) {
      s = cuarr_both_still_live(&keys, &vals);
      if (s == CUARR_OK)
        s = cuarr_both_still_live(sorter ? &order : &keys, t.into);
    }
    if (s == CUARR_OK) {
      const int kind = cuarr_sort_kind(dtype), width = (int)cuarr_dtype_size(dtype);
      const int64_t n = sorted->shape[0];
      const int64_t *perm = sorter ? cuarr_array_data(&order) : NULL;
      if (r.device == CUARR_HOST) {
        cuarr_searchsorted_host(kind, width, cuarr_array_data(&keys), n, perm,
                                cuarr_array_data(&vals), r.n, right, cuarr_array_data(t.into));
      } else {
        s = cuarr_device_activate(r.device);
        if (s == CUARR_OK)
          s = cuarr_sort_lib_check(
              cuarr_sort_lib.cuarr_sort_lib_searchsorted(kind, width, cuarr_array_data(&keys), n,
                                                         perm, cuarr_array_data(&vals), r.n, right,
                                                         cuarr_array_data(t.into), r.stream),
              "searchsorted");
      }
    }
  }
  if (have_t)
    s = cuarr_sort_target_end(&r, &t, s);
  if (keys.buf)
    cuarr_array_release(&keys);
  if (vals.buf)
    cuarr_array_release(&vals);
  if (order.buf)
    cuarr_array_release(&order);
  return cuarr_result_end(&res, ctx, s);
}
