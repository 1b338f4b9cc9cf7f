/*
 * layout.c -- questions about memory layouts that copy loops and kernels ask: which axes can
 * be iterated as one, and whether two arrays may share bytes.
 */
#include <stdint.h>

#include "internal.h"

/* Keeps C order (axis 0 outermost), so that a flat C-order index over the collapsed shape is
 * the same as over the original one; callers that may iterate in any order (host copies) sort
 * the axes by the destination's strides themselves before calling this. */
int cuarr_collapse(int ndim, int64_t *shape, int n_operands, int64_t *const *strides) {
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0) { /* nothing to iterate: say so with a single empty axis */
      shape[0] = 0;
      for (int k = 0; k < n_operands; k++)
        strides[k][0] = 0;
      return 1;
    }
  }
  int out = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 1)
      continue; /* its strides never matter */
    /* The previous kept axis (outer) merges with this one (inner) when stepping it once is the
     * same as stepping this one shape[i] times, in every operand. */
    bool merge = out > 0;
    for (int k = 0; merge && k < n_operands; k++) {
      merge = strides[k][out - 1] == shape[i] * strides[k][i];
    }
    if (merge) {
      shape[out - 1] *= shape[i];
      for (int k = 0; k < n_operands; k++)
        strides[k][out - 1] = strides[k][i];
    } else {
      shape[out] = shape[i];
      for (int k = 0; k < n_operands; k++)
        strides[k][out] = strides[k][i];
      out++;
    }
  }
  return out;
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
