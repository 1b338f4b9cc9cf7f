/*
 * iter.c -- the iterator's collapse stage (iter.h describes every stage; the others are inline
 * there, as each engine's own copies were, since they run on every call of an engine).
 */
#include "array/iter.h"

int cuarr_iter_collapse(int ndim, int64_t *shape, int n_ops, int64_t *const *strides) {
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0) { /* nothing to iterate: say so with a single empty axis */
      shape[0] = 0;
      for (int k = 0; k < n_ops; k++)
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
    for (int k = 0; merge && k < n_ops; k++)
      merge = strides[k][out - 1] == shape[i] * strides[k][i];
    if (merge) {
      shape[out - 1] *= shape[i];
      for (int k = 0; k < n_ops; k++)
        strides[k][out - 1] = strides[k][i];
    } else {
      shape[out] = shape[i];
      for (int k = 0; k < n_ops; k++)
        strides[k][out] = strides[k][i];
      out++;
    }
  }
  return out;
}

int cuarr_iter_collapse_kernel(int ndim, int64_t *shape, int n_ops, int64_t *const *strides) {
  int nd = cuarr_iter_collapse(ndim, shape, n_ops, strides);
  if (nd > 0)
    return nd;
  shape[0] = 1;
  for (int k = 0; k < n_ops; k++)
    strides[k][0] = 0;
  return 1;
}
