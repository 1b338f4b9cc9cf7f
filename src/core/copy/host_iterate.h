/*
 * host_iterate.h -- walk a destination and a source of the same shape row by row, for the host
 * loops (copies and fills).  Private to src/core/copy/.
 *
 * Element order does not matter to these loops (overlapping operands were staged through a
 * temporary before, or are the same bytes element for element), so the walk is free to:
 *  1. flip every axis on which the destination steps backwards (both operands flip),
 *  2. order the axes by the destination's strides, largest first (a transposed pair that is
 *     contiguous in memory becomes contiguous in the walk),
 *  3. collapse what is then contiguous in both (the stages of the iterator, array/iter.h),
 * and hand each row along the last remaining axis to a typed row function (in tiles when the
 * source is transposed against the destination).  The destination drives the order, so writes
 * are sequential when the destination is contiguous.
 */
#ifndef CUARR_HOST_ITERATE_H
#define CUARR_HOST_ITERATE_H

#include <string.h>

#include "internal.h"

/* One row: n elements, d stepping ds bytes and s stepping ss bytes (either may be 0). */
typedef void (*cuarr_host_row_fn)(char *d, int64_t ds, const char *s, int64_t ss, int64_t n);

/* n1 rows of n0 elements.  When the source runs faster along the rows' axis than along the
 * rows (a transpose), each row reads a new cache line per element; walking the plane in square
 * tiles lets the next rows reuse those lines while they are still cached. */
static inline void cuarr_host_plane(char *d, const char *s, int64_t n1, int64_t ds1, int64_t ss1,
                                    int64_t n0, int64_t ds0, int64_t ss0, cuarr_host_row_fn row) {
  enum { TILE = 32 };
  if (ss1 == 0 || cuarr_iter_magnitude(ss0) <= cuarr_iter_magnitude(ss1) || n0 <= TILE) {
    for (int64_t i = 0; i < n1; i++)
      row(d + i * ds1, ds0, s + i * ss1, ss0, n0);
    return;
  }
  for (int64_t i0 = 0; i0 < n1; i0 += TILE) {
    int64_t ni = n1 - i0 < TILE ? n1 - i0 : TILE;
    for (int64_t j0 = 0; j0 < n0; j0 += TILE) {
      int64_t nj = n0 - j0 < TILE ? n0 - j0 : TILE;
      for (int64_t i = i0; i < i0 + ni; i++) {
        row(d + i * ds1 + j0 * ds0, ds0, s + i * ss1 + j0 * ss0, ss0, nj);
      }
    }
  }
}

static inline void cuarr_host_iterate(int ndim, const int64_t *shape_in, char *d,
                                      const int64_t *dstrides_in, const char *s,
                                      const int64_t *sstrides_in, cuarr_host_row_fn row) {
  int64_t shape[CUARR_MAXDIM], ds[CUARR_MAXDIM], ss[CUARR_MAXDIM];
  for (int i = 0; i < ndim; i++) {
    shape[i] = shape_in[i];
    ds[i] = dstrides_in[i];
    ss[i] = sstrides_in[i];
    if (shape[i] == 0)
      return;
  }
  int64_t *strides[2] = {ds, ss};
  char *data[2] = {d, (char *)s};
  cuarr_iter_flip(ndim, shape, 2, strides, data, NULL, 0, -1); /* 1. */
  d = data[0];
  s = data[1];
  cuarr_iter_order by_dst = {0, 1, false}; /* 2. ties: the source's larger stride outer */
  cuarr_iter_sort(ndim, shape, 2, strides, by_dst);
  int nd = cuarr_iter_collapse(ndim, shape, 2, strides); /* 3. */
  if (nd == 0) {
    row(d, 0, s, 0, 1);
    return;
  }
  if (nd == 1) {
    row(d, ds[0], s, ss[0], shape[0]);
    return;
  }
  /* An odometer over the outer axes; the last two axes form a plane. */
  int64_t idx[CUARR_MAXDIM] = {0};
  int outer = nd - 2;
  for (;;) {
    cuarr_host_plane(d, s, shape[nd - 2], ds[nd - 2], ss[nd - 2], shape[nd - 1], ds[nd - 1],
                     ss[nd - 1], row);
    int i = outer - 1;
    for (; i >= 0; i--) {
      if (++idx[i] < shape[i]) {
        d += ds[i];
        s += ss[i];
        break;
      }
      idx[i] = 0;
      d -= (shape[i] - 1) * ds[i];
      s -= (shape[i] - 1) * ss[i];
    }
    if (i < 0)
      return;
  }
}

/* Rows that copy bytes (same dtype), by item size. */
#define CUARR_HOST_RAW_ROW(N, T)                                                                   \
  static inline void cuarr_host_raw_row_##N(char *d, int64_t ds, const char *s, int64_t ss,        \
                                            int64_t n) {                                           \
    if (ds == N && ss == N) {                                                                      \
      memcpy(d, s, (size_t)n *N);                                                                  \
    } else if (ds == N && ss == 0) { /* a fill */                                                  \
      T v;                                                                                         \
      memcpy(&v, s, N);                                                                            \
      for (int64_t k = 0; k < n; k++)                                                              \
        memcpy(d + k * N, &v, N);                                                                  \
    } else {                                                                                       \
      for (int64_t k = 0; k < n; k++)                                                              \
        memcpy(d + k * ds, s + k * ss, N);                                                         \
    }                                                                                              \
  }
CUARR_HOST_RAW_ROW(1, uint8_t)
CUARR_HOST_RAW_ROW(2, uint16_t)
CUARR_HOST_RAW_ROW(4, uint32_t)
CUARR_HOST_RAW_ROW(8, uint64_t)

static inline cuarr_host_row_fn cuarr_host_raw_row(size_t itemsize) {
  switch (itemsize) {
  case 1: return cuarr_host_raw_row_1;
  case 2: return cuarr_host_raw_row_2;
  case 4: return cuarr_host_raw_row_4;
  default: return cuarr_host_raw_row_8;
  }
}

#endif
