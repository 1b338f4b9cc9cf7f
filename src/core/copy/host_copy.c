/*
 * host_copy.c -- dst[...] = src for host arrays: broadcasting, any strides, dtype conversion
 * with the casting rules of cuarr_scalar_store (both use array/cast.h), overlap handled.
 *
 * Speed comes from typed row functions, one per (dst, src) dtype pair (cuarr_cast_rows, in
 * array/cast_rows.c); each has a branch for contiguous rows, which the compiler can vectorise.
 * Same-dtype copies move bytes (memcpy for contiguous rows), keeping NaN payloads as NumPy does.
 */
#include <stdlib.h>

#include "array/cast.h"
#include "array/shape_format.h"
#include "copy/host_iterate.h"
#include "internal.h"

/* ---- checks */

static cuarr_status check_host(const cuarr_array *a, const char *what) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (a->buf->device != CUARR_HOST) {
    return cuarr_fail(CUARR_VALUE_ERROR, "host copy: %s is on device %d, not on the host", what,
                      a->buf->device);
  }
  return CUARR_OK;
}

/* ---- the copy */

cuarr_status cuarr_host_copy(const cuarr_array *dst, const cuarr_array *src) {
  cuarr_status st = check_host(dst, "the destination");
  if (st == CUARR_OK)
    st = check_host(src, "the source");
  if (st != CUARR_OK)
    return st;
  int64_t sstrides[CUARR_MAXDIM];
  if (!cuarr_iter_broadcast_strides(src->ndim, src->shape, src->strides, dst->ndim, dst->shape,
                                    sstrides)) {
    char from[CUARR_SHAPE_STR_SIZE], to[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "could not broadcast input array from shape %s into shape %s",
                      cuarr_shape_format(from, src->ndim, src->shape),
                      cuarr_shape_format(to, dst->ndim, dst->shape));
  }
  if (cuarr_array_size(dst) == 0)
    return CUARR_OK;

  char *d = cuarr_array_data(dst);
  const char *s = cuarr_array_data(src);
  size_t dsize = cuarr_dtype_size(dst->dtype), ssize = cuarr_dtype_size(src->dtype);
  /* The same bytes element for element: converting in place is safe (each element is read
   * before it is written, and no other element reads it), and with one dtype there is nothing
   * to do at all. */
  bool same_layout = d == s && dsize == ssize;
  for (int i = 0; same_layout && i < dst->ndim; i++) {
    same_layout = dst->shape[i] == 1 || dst->strides[i] == sstrides[i];
  }
  if (same_layout && dst->dtype == src->dtype)
    return CUARR_OK;

  void *tmp = NULL;
  if (!same_layout && cuarr_array_may_overlap(dst, src)) {
    /* Read all of src before writing any of dst: stage src (its own shape, its own dtype) in a
     * C-contiguous temporary and copy from there. */
    int64_t cstrides[CUARR_MAXDIM];
    size_t nbytes = (size_t)cuarr_array_size(src) * ssize;
    tmp = malloc(nbytes);
    if (!tmp) {
      return cuarr_fail(CUARR_OUT_OF_MEMORY,
                        "out of host memory for a %zu-byte temporary of an overlapping copy",
                        nbytes);
    }
    cuarr_strides_c(src->ndim, src->shape, ssize, cstrides);
    cuarr_host_iterate(src->ndim, src->shape, tmp, cstrides, s, src->strides,
                       cuarr_host_raw_row(ssize));
    cuarr_iter_broadcast_strides(src->ndim, src->shape, cstrides, dst->ndim, dst->shape, sstrides);
    s = tmp;
  }
  cuarr_host_row_fn row = dst->dtype == src->dtype ? cuarr_host_raw_row(dsize)
                                                   : cuarr_cast_rows[dst->dtype][src->dtype];
  cuarr_host_iterate(dst->ndim, dst->shape, d, dst->strides, s, sstrides, row);
  free(tmp);
  return CUARR_OK;
}
