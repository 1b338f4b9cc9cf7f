/*
 * span.h -- how far an operand of a kernel reaches from its element (0, ..., 0): the copy
 * kernels, the elementwise engine, the reductions and the scans all index operands from their
 * lowest touched element and check that the span fits the kernel's index type.
 */
#ifndef CUARR_ARRAY_SPAN_H
#define CUARR_ARRAY_SPAN_H

#include <stdbool.h>
#include <stdint.h>

/* *acc += extent_minus_1 * |stride|; false on overflow. */
static inline bool cuarr_span_add_extent(int64_t extent_minus_1, int64_t stride, int64_t *acc) {
  int64_t term;
  if (stride == INT64_MIN)
    return false;
  if (__builtin_mul_overflow(extent_minus_1, stride < 0 ? -stride : stride, &term))
    return false;
  return !__builtin_add_overflow(*acc, term, acc);
}

/* Elements before element (0, ..., 0) (*below) and from the lowest to the highest touched
 * element (*span) of an operand of ndim axes (shape, element strides); false when either
 * does not fit in int64_t. */
static inline bool cuarr_span_of(int ndim, const int64_t *shape, const int64_t *strides,
                                 int64_t *below, int64_t *span) {
  int64_t lo = 0, hi = 0; /* elements before and after element (0,...,0) */
  bool ok = true;
  for (int d = 0; d < ndim && ok; d++)
    ok = cuarr_span_add_extent(shape[d] - 1, strides[d], strides[d] < 0 ? &lo : &hi);
  if (!ok || __builtin_add_overflow(lo, hi, span))
    return false;
  *below = lo;
  return true;
}

#endif
