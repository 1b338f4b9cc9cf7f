/*
 * sort_internal.h -- what the parts of sort/ share: the device library's entry points (loaded by
 * sort_loader.c), the host rows' sort and search (host_sort.c), and the key kind of a dtype.
 * Private to src/core/sort/.
 */
#ifndef CUARR_SORT_INTERNAL_H
#define CUARR_SORT_INTERNAL_H

#include "internal.h"
#include "sort/key_transform.h"
#include "sort/sort_library.h"

#define CUARR_SORT_MEMBER_(f) __typeof__(&f) f;
typedef struct cuarr_sort_lib_api {
  CUARR_SORT_LIB_FUNCTIONS(CUARR_SORT_MEMBER_)
} cuarr_sort_lib_api;

/* Filled by cuarr_load_sort_library; valid only after it succeeds. */
extern cuarr_sort_lib_api cuarr_sort_lib;

/* Open libcuarr_sort.so once; CUARR_NOT_AVAILABLE naming what is missing otherwise. */
cuarr_status cuarr_load_sort_library(void);
/* A failed library call (its cudaError_t code) as CUARR_CUDA_ERROR, or CUARR_OUT_OF_MEMORY. */
cuarr_status cuarr_sort_lib_check(int code, const char *what);

/* The key kind (CUARR_SK_*) of a dtype: bool and unsigned integers, signed integers, floats. */
static inline int cuarr_sort_kind(cuarr_dtype d) {
  return cuarr_dtype_is_float(d)    ? CUARR_SK_FLOAT
         : cuarr_dtype_is_signed(d) ? CUARR_SK_SIGNED
                                    : CUARR_SK_UNSIGNED;
}

/* ---- sort.c: the rows every sort works on */

/* An array's rows: its sorting axis moved last (perm: its axes in that order), or the whole
 * array flattened into one row (flat, axis CUARR_SORT_FLAT). */
typedef struct cuarr_sort_rows {
  cuarr_context *ctx;
  int device;
  CUstream stream;
  bool flat;
  int nd;                      /* of the result: a's, or 1 when flat */
  int64_t shape[CUARR_MAXDIM]; /* of the result */
  int perm[CUARR_MAXDIM];      /* a's axes with the sorting axis last (not flat) */
  int64_t n, seg_len;          /* elements, and elements in a row */
} cuarr_sort_rows;

/* Check a and axis (0-based or CUARR_SORT_FLAT; CUARR_INDEX_ERROR naming `what` when out of
 * range), find ctx's stream and, for a device array, open the sort library. */
cuarr_status cuarr_sort_rows_begin(cuarr_sort_rows *r, cuarr_context *ctx, const cuarr_array *a,
                                   int axis, const char *what);
/* A new C-contiguous array in r's place. */
cuarr_status cuarr_sort_new(const cuarr_sort_rows *r, cuarr_dtype dtype, int nd,
                            const int64_t *shape, cuarr_array *out);
/* a of dtype, C-contiguous: a itself (shared) when it is, else a copy. */
cuarr_status cuarr_sort_contiguous(const cuarr_sort_rows *r, const cuarr_array *a,
                                   cuarr_dtype dtype, cuarr_array *out);
/* x (of the result's shape) in rows order: a view (a transpose, or a reshape when flat). */
cuarr_status cuarr_sort_rows_view(const cuarr_sort_rows *r, const cuarr_array *x, cuarr_array *out);
/* a's rows, C-contiguous: a view of a when they are, else a copy. */
cuarr_status cuarr_sort_rows_source(const cuarr_sort_rows *r, const cuarr_array *a,
                                    cuarr_array *out);

/* Where a sort writes one result: `into`, the result's rows view when it is C-contiguous and
 * does not overlap src (or, same_ok, is src itself: a sort in place), else a temporary that
 * cuarr_sort_target_end copies into the view. */
typedef struct cuarr_sort_target {
  cuarr_array view, tmp;
  cuarr_array *into;
} cuarr_sort_target;
cuarr_status cuarr_sort_target_begin(const cuarr_sort_rows *r, const cuarr_array *res,
                                     const cuarr_array *src, bool same_ok, cuarr_sort_target *t);
cuarr_status cuarr_sort_target_end(const cuarr_sort_rows *r, cuarr_sort_target *t, cuarr_status s);
/* Sort src's rows (C-contiguous) into keys_out and/or indices_out (rows C-contiguous, NULL for
 * none), perm as cuarr_sort_lib_run's: the device library with pool storage, or the host's. */
cuarr_status cuarr_sort_run(const cuarr_sort_rows *r, const cuarr_array *src, const int64_t *perm,
                            const cuarr_array *keys_out, const cuarr_array *indices_out);

/* ---- host_sort.c */

/* The host's cuarr_sort_lib_run (same arguments and results; no temporary storage given):
 * a stable LSD radix sort of each row (insertion sort for short rows).  CUARR_OUT_OF_MEMORY
 * when its scratch does not fit. */
cuarr_status cuarr_sort_host_rows(int kind, int width, const void *keys_in, const int64_t *perm,
                                  void *keys_out, int64_t *indices_out, int64_t n, int64_t seg_len);
/* The host's cuarr_sort_lib_searchsorted. */
void cuarr_searchsorted_host(int kind, int width, const void *sorted, int64_t n,
                             const int64_t *sorter, const void *values, int64_t m, bool right,
                             int64_t *out);

#endif
