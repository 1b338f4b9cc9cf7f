/*
 * layout.c -- whether two arrays may share bytes, the question copies and kernels ask before
 * writing (which axes iterate as one is the iterator's: array/iter.h).
 */
#include <stdint.h>

#include "internal.h"

void cuarr_array_extent(const cuarr_array *a, int64_t *lo, int64_t *hi) {
  *lo = *hi = a->offset;
  for (int i = 0; i < a->ndim; i++) {
    if (a->shape[i] == 0)
      return; /* empty: touches nothing */
  }
  for (int i = 0; i < a->ndim; i++) {
    int64_t span = (a->shape[i] - 1) * a->strides[i];
    if (span < 0)
      *lo += span;
    else
      *hi += span;
  }
  *hi += (int64_t)cuarr_dtype_size(a->dtype);
}

/* Compares absolute addresses rather than buffers, so memory wrapped twice (two buffers over
 * the same bytes) is caught too.  Only the bounding ranges are compared: interleaved views
 * (a[::2] and a[1::2]) count as overlapping, which costs a temporary copy, never a wrong
 * answer. */
bool cuarr_may_overlap(const cuarr_array *a, const cuarr_array *b) {
  if (!a->buf || !b->buf || !a->buf->ptr || !b->buf->ptr)
    return false;
  if (a->buf->device != b->buf->device)
    return false;
  int64_t alo, ahi, blo, bhi;
  cuarr_array_extent(a, &alo, &ahi);
  cuarr_array_extent(b, &blo, &bhi);
  if (alo == ahi || blo == bhi)
    return false;
  intptr_t abase = (intptr_t)a->buf->ptr, bbase = (intptr_t)b->buf->ptr;
  return abase + alo < bbase + bhi && bbase + blo < abase + ahi;
}
