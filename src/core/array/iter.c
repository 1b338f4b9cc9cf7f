/*
 * iter.c -- the iterator's stages that are not inline (iter.h describes them all): broadcast,
 * element strides, collapse and the packed kernel layout.
 */
#include "array/iter.h"

#include <string.h>

bool cuarr_iter_broadcast_shape(int *ndim, int64_t *shape, int a_ndim, const int64_t *a_shape) {
  int nd = a_ndim > *ndim ? a_ndim : *ndim;
  int64_t out[CUARR_MAXDIM];
  for (int d = 0; d < nd; d++) {
    int da = d - (nd - a_ndim), ds = d - (nd - *ndim);
    int64_t ea = da >= 0 ? a_shape[da] : 1, es = ds >= 0 ? shape[ds] : 1;
    if (ea != es && ea != 1 && es != 1)
      return false;
    out[d] = ea == 1 ? es : ea;
  }
  memcpy(shape, out, (size_t)nd * sizeof *shape);
  *ndim = nd;
  return true;
}

bool cuarr_iter_broadcast_strides(int a_ndim, const int64_t *a_shape, const int64_t *a_strides,
                                  int ndim, const int64_t *shape, int64_t *strides) {
  int extra = a_ndim - ndim;
  for (int i = 0; i < extra; i++)
    if (a_shape[i] != 1)
      return false;
  for (int d = 0; d < ndim; d++) {
    int s = d + extra;
    if (s < 0 || a_shape[s] == 1)
      strides[d] = 0;
    else if (a_shape[s] == shape[d])
      strides[d] = a_strides[s];
    else
      return false;
  }
  return true;
}

bool cuarr_iter_element_strides(int ndim, const int64_t *shape, const int64_t *byte_strides,
                                const void *data, int64_t itemsize, int64_t *strides) {
  bool aligned = (uintptr_t)data % (uintptr_t)itemsize == 0;
  for (int d = 0; d < ndim; d++) {
    int64_t s = shape[d] > 1 ? byte_strides[d] : 0;
    aligned = aligned && s % itemsize == 0;
    strides[d] = s / itemsize;
  }
  return aligned;
}

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

int cuarr_iter_pack(void *at, bool wide, int64_t n, int ndim, int axes, const int64_t *shape,
                    int n_ops, const int64_t *origin, const int64_t *const *strides) {
  uint64_t v[CUARR_ITER_LAYOUT_MAX];
  int i = 0;
  v[i++] = (uint64_t)n;
  v[i++] = (uint64_t)ndim;
  for (int k = 0; k < n_ops; k++)
    v[i++] = (uint64_t)origin[k];
  for (int d = 0; d < axes; d++)
    v[i++] = d < ndim ? (uint64_t)shape[d] : 1;
  for (int k = 0; k < n_ops; k++)
    for (int d = 0; d < axes; d++)
      v[i++] = d < ndim ? (uint64_t)strides[k][d] : 0;
  for (int j = 0; j < i; j++) { /* at may be any kernel-parameter buffer: no alignment assumed */
    if (wide) {
      memcpy((char *)at + 8 * (size_t)j, &v[j], 8);
    } else {
      uint32_t w = (uint32_t)v[j];
      memcpy((char *)at + 4 * (size_t)j, &w, 4);
    }
  }
  return i;
}
