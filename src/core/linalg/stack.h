/*
 * stack.h -- what cuarr.linalg's fronts (linalg.c, decompose.c) share: a stack of matrices
 * checked as NumPy's linalg checks it, its compute dtype, and new arrays shaped by its batch.
 */
#ifndef CUARR_LINALG_STACK_H
#define CUARR_LINALG_STACK_H

#include "internal.h"

/* A stack of m x n matrices (the last two axes), the others its batch. */
typedef struct cuarr_linalg_stack {
  cuarr_context *ctx;
  int device;
  CUstream stream;
  cuarr_dtype dtype; /* float32 for float32, float64 for everything else */
  int nb;            /* batch axes */
  int64_t batch[CUARR_MAXDIM];
  int64_t count;
  int m, n;
} cuarr_linalg_stack;

/* a as a stack: CUARR_LINALG_ERROR for fewer than two axes (and, when `square`, matrices that
 * are not), CUARR_TYPE_ERROR for float16 (unsupported in NumPy's linalg too), a
 * CUARR_VALUE_ERROR past 2^31-1 rows or columns (the libraries' int). */
cuarr_status cuarr_linalg_stack_of(cuarr_context *ctx, const char *fn, const cuarr_array *a,
                                   bool square, cuarr_linalg_stack *s);

/* A new C-contiguous array on the stack's device: the batch's shape and `tail_n` more extents. */
cuarr_status cuarr_linalg_new_array(const cuarr_linalg_stack *s, cuarr_dtype dtype, int tail_n,
                                    const int64_t *tail, cuarr_array *out);

/* Whether any of the statuses in `info` (a C-contiguous int32 array a factorization or solver
 * filled, > 0: singular, not positive definite, not converged) says so.  A device array is
 * read back through a host copy: a synchronisation, made only where NumPy raises. */
cuarr_status cuarr_linalg_any_failed(cuarr_context *ctx, const cuarr_array *info, bool *failed);

#endif
