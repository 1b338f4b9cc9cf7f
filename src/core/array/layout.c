/*
 * layout.c -- the strides of the memory orders (C, F, and "as another array"), and whether two
 * arrays may share bytes, the question copies and kernels ask before writing (which axes iterate
 * as one is the iterator's: array/iter.h).
 */
#include <stdint.h>

#include "internal.h"

/* As cuarr_strides_c: an extent of 0 counts as 1, so strides stay meaningful for empty arrays. */
void cuarr_strides_f(int ndim, const int64_t *shape, size_t itemsize, int64_t *strides) {
  int64_t s = (int64_t)itemsize;
  for (int i = 0; i < ndim; i++) {
    strides[i] = s;
    if (shape[i] > 0)
      s *= shape[i];
  }
}

static int64_t magnitude(int64_t x) { return x < 0 ? -x : x; }

void cuarr_strides_keep(const cuarr_array *a, size_t itemsize, int64_t *strides) {
  int perm[CUARR_MAXDIM]; /* axes from the slowest-varying one: an insertion sort, stable */
  for (int i = 0; i < a->ndim; i++) {
    int j = i;
    while (j > 0 && magnitude(a->strides[perm[j - 1]]) < magnitude(a->strides[i])) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = i;
  }
  int64_t s = (int64_t)itemsize;
  for (int k = a->ndim - 1; k >= 0; k--) {
    strides[perm[k]] = s;
    if (a->shape[perm[k]] > 0)
      s *= a->shape[perm[k]];
  }
}

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

bool cuarr_array_same_shape(const cuarr_array *a, const cuarr_array *b) {
  if (a->ndim != b->ndim)
    return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i])
      return false;
  return true;
}

bool cuarr_array_is_dense(const cuarr_array *a) {
  if (cuarr_array_size(a) == 0)
    return true;
  int64_t keep[CUARR_MAXDIM];
  cuarr_strides_keep(a, cuarr_dtype_size(a->dtype), keep);
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] > 1 && a->strides[i] != keep[i])
      return false;
  return true;
}

/* Compares absolute addresses rather than buffers, so memory wrapped twice (two buffers over
 * the same bytes) is caught too.  Only the bounding ranges are compared: interleaved views
 * (a[::2] and a[1::2]) count as overlapping, which costs a temporary copy, never a wrong
 * answer. */
bool cuarr_array_may_overlap(const cuarr_array *a, const cuarr_array *b) {
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
