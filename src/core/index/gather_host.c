/*
 * gather_host.c -- the walk of a gather, a scatter or a check on host arrays: C loops over the
 * collapsed selection, an odometer of coordinates carrying every operand's offset, in C order
 * (so a scatter's repeated positions end with the last value, as NumPy's).
 */
#include <string.h>

#include "index/gather.h"

/* Index value at p as int64 (a uint64 beyond int64's range saturates: out of bounds anyway). */
static int64_t index_value(cuarr_dtype d, const char *p) {
  switch (d) {
  case CUARR_INT8: return *(const int8_t *)p;
  case CUARR_INT16: {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case CUARR_INT32: {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case CUARR_UINT8: return *(const uint8_t *)p;
  case CUARR_UINT16: {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case CUARR_UINT32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  case CUARR_UINT64: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
  }
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

cuarr_status cuarr_gather_host(const cuarr_gather_walk *w, int op, size_t itemsize,
                               const cuarr_fancy_index *ix, const cuarr_array *a) {
  int64_t n = 1;
  for (int d = 0; d < w->nd; d++)
    n *= w->shape[d];
  if (n == 0)
    return CUARR_OK;
  int64_t coord[CUARR_MAXDIM] = {0};
  int64_t ao = 0, oo = 0, io[CUARR_MAXDIM] = {0};
  const int nd = w->nd;
  for (int64_t i = 0; i < n; i++) {
    int64_t at = ao;
    for (int k = 0; k < w->nidx; k++) {
      int64_t v = index_value(w->index_dtype[k], w->index[k] + io[k]), pos;
      if (!cuarr_gather_position(v, w->extent[k], w->base, w->mode, &pos))
        return cuarr_gather_bad_index(ix, a, k, v);
      at += pos * w->step[k];
    }
    if (op == CUARR_GATHER_OP_GATHER)
      memcpy(w->other + oo, w->a + at, itemsize);
    else if (op == CUARR_GATHER_OP_SCATTER)
      memcpy(w->a + at, w->other + oo, itemsize);
    /* the odometer: the last axis fastest */
    for (int d = nd - 1; d >= 0; d--) {
      ao += w->a_strides[d];
      oo += w->other_strides[d];
      for (int k = 0; k < w->nidx; k++)
        io[k] += w->index_strides[k][d];
      if (++coord[d] < w->shape[d])
        break;
      coord[d] = 0;
      ao -= w->a_strides[d] * w->shape[d];
      oo -= w->other_strides[d] * w->shape[d];
      for (int k = 0; k < w->nidx; k++)
        io[k] -= w->index_strides[k][d] * w->shape[d];
    }
  }
  return CUARR_OK;
}
