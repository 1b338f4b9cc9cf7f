/*
 * iter.h -- the one iterator: the stages that turn the operands of one operation into the
 * layout a kernel or a host loop walks.  Every device engine (copies, elementwise, reductions,
 * scans) and every host loop goes through them, in this order, calling the stages it needs:
 *
 *  1. broadcast (cuarr_iter_broadcast_shape, cuarr_iter_broadcast): the operands' common
 *     shape, then each operand's strides seen with it;
 *  2. elements (cuarr_iter_element_strides): byte strides to element strides, for kernels;
 *  3. flip (cuarr_iter_flip): walk forwards the axes on which the deciding operand steps
 *     backwards, in every operand (only where the engine may visit elements in any order);
 *  4. sort (cuarr_iter_sort): order the axes by the deciding operand's strides, largest first,
 *     so the innermost axis is its densest.  A reduction or a scan sorts its kept axes and its
 *     reduced axes as separate groups, so the groups stay apart;
 *  5. collapse (cuarr_iter_collapse): merge neighbouring axes contiguous in every operand;
 *  6. place (cuarr_iter_place): where a kernel indexes each operand from, and whether its
 *     offsets fit 32-bit indexing (cuarr_iter_span_fits32);
 *  7. pack (cuarr_iter_pack): kernels/include/common.cuh's cuarr_layout.
 *
 * The engines keep their policies as the stages' parameters: which operand decides the flips
 * and the order (the output, the destination, the first input), which breaks ties, whether
 * order may change at all.  Strides travel as per-operand pointers (strides[k][d]) into the
 * engine's own storage, so no stage copies a layout or allocates.
 */
#ifndef CUARR_ARRAY_ITER_H
#define CUARR_ARRAY_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "array/span.h"
#include "cuarr.h"

/* ---- 1. broadcast */

/* Fold an operand of (a_ndim, a_shape) into the common shape (*ndim, shape) (NumPy rules:
 * extents equal, or one of them 1; shapes aligned at their last axes); start from *ndim 0.
 * false, with (*ndim, shape) unchanged, when the operand does not broadcast with it. */
static inline bool cuarr_iter_broadcast_shape(int *ndim, int64_t *shape, int a_ndim,
                                              const int64_t *a_shape) {
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

/* The strides that read an operand of (a_ndim, a_shape, a_strides) at every index of
 * (ndim, shape) (NumPy broadcasting): stride 0 on the axes it lacks or has with extent 1.  It
 * may have extra leading axes of extent 1.  false when it does not broadcast to the shape. */
static inline bool cuarr_iter_broadcast_strides(int a_ndim, const int64_t *a_shape,
                                                const int64_t *a_strides, int ndim,
                                                const int64_t *shape, int64_t *strides) {
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

/* Array a's byte strides seen with (ndim, shape). */
static inline bool cuarr_iter_broadcast(const cuarr_array *a, int ndim, const int64_t *shape,
                                        int64_t *strides) {
  return cuarr_iter_broadcast_strides(a->ndim, a->shape, a->strides, ndim, shape, strides);
}

/* ---- 2. element strides */

/* byte_strides[d] / itemsize into strides[d] (0 on axes of extent 1 or less); false when data
 * or a stride is not a multiple of the itemsize (a kernel could not address it aligned). */
static inline bool cuarr_iter_element_strides(int ndim, const int64_t *shape,
                                              const int64_t *byte_strides, const void *data,
                                              int64_t itemsize, int64_t *strides) {
  bool aligned = (uintptr_t)data % (uintptr_t)itemsize == 0;
  for (int d = 0; d < ndim; d++) {
    int64_t s = shape[d] > 1 ? byte_strides[d] : 0;
    aligned = aligned && s % itemsize == 0;
    strides[d] = s / itemsize;
  }
  return aligned;
}

/* ---- 3. flip */

static inline int64_t cuarr_iter_magnitude(int64_t x) { return x < 0 ? -x : x; }

/* For each axis of extent above 1 on which operand `key` steps backwards (or does not step,
 * and operand `tie` steps backwards; tie -1: no such rule), negate the axis' stride in every
 * operand and move each data[k] to the axis' other end (itemsize[k] bytes per stride unit;
 * itemsize NULL: byte strides).  The elements visited stay the same; their order changes. */
static inline void cuarr_iter_flip(int ndim, const int64_t *shape, int n_ops,
                                   int64_t *const *strides, char **data, const int64_t *itemsize,
                                   int key, int tie) {
  for (int d = 0; d < ndim; d++) {
    int64_t ks = strides[key][d];
    bool back = ks < 0 || (ks == 0 && tie >= 0 && strides[tie][d] < 0);
    if (!back || shape[d] <= 1)
      continue;
    for (int k = 0; k < n_ops; k++) {
      data[k] += (shape[d] - 1) * strides[k][d] * (itemsize ? itemsize[k] : 1);
      strides[k][d] = -strides[k][d];
    }
  }
}

/* ---- 4. sort */

/* How the axes are ordered: by |strides[key]|, largest first; equal ones by strides[tie]
 * (tie -1: none), by magnitude or, with tie_signed, by signed value, larger first; still equal
 * ones keep their order (the sort is stable). */
typedef struct cuarr_iter_order {
  int key;
  int tie;
  bool tie_signed;
} cuarr_iter_order;

/* The order for engines where one operand alone decides. */
static inline cuarr_iter_order cuarr_iter_by(int key) {
  cuarr_iter_order o = {key, -1, false};
  return o;
}

/* Whether axis b goes before axis a under o (its key, or tie, is strictly larger). */
static inline bool cuarr_iter_before(int64_t *const *strides, cuarr_iter_order o, int b, int a) {
  int64_t kb = cuarr_iter_magnitude(strides[o.key][b]),
          ka = cuarr_iter_magnitude(strides[o.key][a]);
  if (kb != ka || o.tie < 0)
    return kb > ka;
  int64_t tb = strides[o.tie][b], ta = strides[o.tie][a];
  return o.tie_signed ? tb > ta : cuarr_iter_magnitude(tb) > cuarr_iter_magnitude(ta);
}

/* Stable insertion sort of axes [0, ndim) under o, carrying shape and every operand's strides
 * (a handful of axes: insertion is the fastest sort there). */
static inline void cuarr_iter_sort(int ndim, int64_t *shape, int n_ops, int64_t *const *strides,
                                   cuarr_iter_order o) {
  for (int d = 1; d < ndim; d++) {
    for (int e = d; e > 0 && cuarr_iter_before(strides, o, e, e - 1); e--) {
      int64_t t = shape[e];
      shape[e] = shape[e - 1];
      shape[e - 1] = t;
      for (int k = 0; k < n_ops; k++) {
        t = strides[k][e];
        strides[k][e] = strides[k][e - 1];
        strides[k][e - 1] = t;
      }
    }
  }
}

/* ---- 5. collapse */

/* Drop extent-1 axes and merge neighbouring axes that are contiguous with each other in every
 * operand (C order is kept: a flat C-order index over the result is the same as over the
 * input).  shape and each strides[k] are rewritten in place; returns the new ndim, 0 for a
 * single element.  An empty shape (some extent 0) becomes one axis of extent 0, stride 0. */
int cuarr_iter_collapse(int ndim, int64_t *shape, int n_ops, int64_t *const *strides);

/* cuarr_iter_collapse for a kernel's layout, which has at least one axis: a single element is
 * one axis of extent 1, stride 0. */
int cuarr_iter_collapse_kernel(int ndim, int64_t *shape, int n_ops, int64_t *const *strides);

/* ---- 6. place */

/* Where a kernel indexes an operand (data: its element (0, ..., 0); element strides) from:
 * *origin elements before element (0, ..., 0), at *base, its lowest touched element; *span
 * elements from there to its highest.  false when the reach does not fit in int64_t. */
static inline bool cuarr_iter_place(int ndim, const int64_t *shape, const int64_t *strides,
                                    char *data, int64_t itemsize, int64_t *origin, char **base,
                                    int64_t *span) {
  int64_t below;
  if (!cuarr_span_of(ndim, shape, strides, &below, span))
    return false;
  *origin = below;
  *base = data - below * itemsize;
  return true;
}

/* Whether 32-bit kernel indexing reaches every offset 0..span of an operand. */
static inline bool cuarr_iter_span_fits32(int64_t span) { return span < (int64_t)UINT32_MAX; }

/* ---- 7. pack */

/* The largest cuarr_layout, in index-sized values. */
#define CUARR_ITER_LAYOUT_MAX (2 + 2 + 3 * CUARR_MAXDIM)

/* Room for a packed cuarr_layout of either index width. */
typedef union cuarr_iter_layout {
  uint32_t u32[CUARR_ITER_LAYOUT_MAX];
  uint64_t u64[CUARR_ITER_LAYOUT_MAX];
} cuarr_iter_layout;

/* kernels/include/common.cuh's cuarr_layout<I, axes, n_ops> into at: n, ndim, origin[n_ops],
 * shape[axes], strides[n_ops][axes], each a uint32_t (a uint64_t when wide); the axes past
 * ndim have extent 1 and stride 0 (the generic kernel's unused ones).  Negative strides are
 * stored modulo 2^bits, which the kernels' unsigned arithmetic expects.  Returns the values
 * written. */
static inline int cuarr_iter_pack(void *at, bool wide, int64_t n, int ndim, int axes,
                                  const int64_t *shape, int n_ops, const int64_t *origin,
                                  const int64_t *const *strides) {
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

/* A count or an index as a kernel parameter of the layout's index type. */
typedef union cuarr_iter_index {
  uint32_t u32;
  uint64_t u64;
} cuarr_iter_index;

static inline cuarr_iter_index cuarr_iter_index_of(bool wide, int64_t n) {
  cuarr_iter_index a;
  if (wide)
    a.u64 = (uint64_t)n;
  else
    a.u32 = (uint32_t)n;
  return a;
}

/* A raw operand's parameter (kernels/templates/elementwise.cu's cuarr_raw), which the iterator
 * leaves as it is (not broadcast, not collapsed): data pointer, size, shape, strides in bytes;
 * a 0-d array as one axis of extent 1.  cuarr_iter_raw_bytes: its size in bytes. */
static inline size_t cuarr_iter_raw_bytes(const cuarr_array *a) {
  return 16 + 16 * (size_t)(a->ndim > 0 ? a->ndim : 1);
}
static inline void cuarr_iter_pack_raw(const cuarr_array *a, void *at) {
  unsigned char *b = at;
  uint64_t ptr = (uint64_t)(uintptr_t)cuarr_array_data(a);
  int64_t size = cuarr_array_size(a);
  memcpy(b, &ptr, 8);
  memcpy(b + 8, &size, 8);
  int nd = a->ndim > 0 ? a->ndim : 1;
  for (int d = 0; d < nd; d++) {
    int64_t e = d < a->ndim ? a->shape[d] : 1, st = d < a->ndim ? a->strides[d] : 0;
    memcpy(b + 16 + 8 * (size_t)d, &e, 8);
    memcpy(b + 16 + 8 * (size_t)(nd + d), &st, 8);
  }
}

#endif
