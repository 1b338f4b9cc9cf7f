/*
 * mask.h -- what the mask files share (nonzero, selection, assignment): the mask's reading, the
 * host loops (mask_host.c), the device passes (mask_device.c) and the kernels' names and program
 * text (mask_source.c, around kernels/templates/mask.cu).  Private to src/core/index/.
 */
#ifndef CUARR_INDEX_MASK_H
#define CUARR_INDEX_MASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Copies of mask.cu's constants. */
#define CUARR_MASK_THREADS 256
#define CUARR_MASK_ITEMS 16
#define CUARR_MASK_TILE (CUARR_MASK_THREADS * CUARR_MASK_ITEMS)
#define CUARR_MASK_SCAN_THREADS 1024
#define CUARR_MASK_ROWS_THREADS 256
/* Kernels of nonzero written for a fixed number of axes: 1..CUARR_MASK_FIXED_ND (more: 0). */
#define CUARR_MASK_FIXED_ND 4

/* A C-contiguous mask read as unsigned words of `width` bytes, an element nonzero when
 * word & test != 0 (floats: every bit but the sign's, so -0.0 is zero and NaN nonzero). */
typedef struct cuarr_mask_view {
  cuarr_array mask; /* C-contiguous: the caller's (shared) or a copy */
  int width;
  uint64_t test;
  int64_t n; /* elements (1 for a 0-d mask) */
} cuarr_mask_view;

/* The kernels: the pass and the template arguments it takes. */
typedef enum cuarr_mask_kind {
  CUARR_MASK_COUNT,       /* w */
  CUARR_MASK_SCAN,        /* none */
  CUARR_MASK_POSITIONS,   /* w, nd (0: any) */
  CUARR_MASK_SELECT,      /* w, e */
  CUARR_MASK_ASSIGN,      /* w, e */
  CUARR_MASK_SELECT_ROWS, /* e */
  CUARR_MASK_ASSIGN_ROWS, /* e */
  CUARR_MASK_NKINDS
} cuarr_mask_kind;

typedef struct cuarr_mask_variant {
  cuarr_mask_kind kind;
  int w;  /* the mask's width in bytes (1, 2, 4, 8), or 0 */
  int e;  /* a's width in bytes, or 0 */
  int nd; /* POSITIONS: 1..CUARR_MASK_FIXED_ND, or 0 for any; else 0 */
} cuarr_mask_variant;

/* mask.cu's cuarr_mask_params, as it lies. */
typedef struct cuarr_mask_params {
  uint64_t mask, test;
  int64_t n;
  uint64_t prefix, src, dst, index;
  int64_t count, rows, vs0, vs1, base;
  int32_t vec_mask, vec_src, nd, pad;
  int64_t shape[CUARR_MAXDIM];
} cuarr_mask_params;

/* "cuarr_mask_select_w1_e4" */
void cuarr_mask_variant_name(const cuarr_mask_variant *v, char *buf, size_t size);
/* Threads per block of the variant's kernel. */
int cuarr_mask_variant_threads(const cuarr_mask_variant *v);
/* A malloc'd program of the n variants; NULL with the error set. */
char *cuarr_mask_program(const cuarr_mask_variant *vs, int n);

/* ---- mask_host.c: C loops over host arrays (a and out C-contiguous, values as described) */
int64_t cuarr_mask_host_count(const cuarr_mask_view *m);
/* out: int64 [ndim, count] (ndim >= 1: the mask's axes, shape its extents). */
void cuarr_mask_host_positions(const cuarr_mask_view *m, int ndim, const int64_t *shape,
                               int64_t base, int64_t count, int64_t *out);
/* out[j, r] = a[i_j, r] for rows of `rows` elements of `size` bytes (count of them selected). */
void cuarr_mask_host_select(const cuarr_mask_view *m, const char *a, int64_t rows, size_t size,
                            int64_t count, char *out);
/* a[i_j, r] = values[j * vs0 + r * vs1] (strides in bytes). */
void cuarr_mask_host_assign(const cuarr_mask_view *m, char *a, int64_t rows, size_t size,
                            const char *values, int64_t vs0, int64_t vs1);

/* ---- mask_device.c: the passes on the device (the mask view's array on device) */
typedef struct cuarr_mask_device {
  int device;
  CUstream stream;
  cuarr_array prefix; /* int64 [tiles + 1] */
  int64_t tiles, count;
} cuarr_mask_device;
/* Passes 1 and 2 and the read-back of the count: d->count, d->prefix allocated (released by
 * cuarr_mask_device_end, also on failure). */
cuarr_status cuarr_mask_device_count(cuarr_context *ctx, const cuarr_mask_view *m,
                                     cuarr_mask_device *d);
void cuarr_mask_device_end(cuarr_mask_device *d);
cuarr_status cuarr_mask_device_positions(cuarr_context *ctx, const cuarr_mask_view *m,
                                         cuarr_mask_device *d, int ndim, const int64_t *shape,
                                         int64_t base, const cuarr_array *out);
/* a and out C-contiguous, out of a's dtype and [count, rows]. */
cuarr_status cuarr_mask_device_select(cuarr_context *ctx, const cuarr_mask_view *m,
                                      cuarr_mask_device *d, const cuarr_array *a, int64_t rows,
                                      const cuarr_array *out);
/* a C-contiguous; values of a's dtype, read from their first element with element strides vs0
 * (per selected element) and vs1 (along a row). */
cuarr_status cuarr_mask_device_assign(cuarr_context *ctx, const cuarr_mask_view *m,
                                      cuarr_mask_device *d, const cuarr_array *a, int64_t rows,
                                      const cuarr_array *values, int64_t vs0, int64_t vs1);

#endif
