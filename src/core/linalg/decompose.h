/*
 * decompose.h -- the decompositions of cuarr.linalg that are not factorizations for solving (QR,
 * the symmetric eigensolver, the SVD), on a batch of column-major matrices, LAPACK's layout.
 *
 * decompose.c lays the user's stack out so that every matrix the engines see is what the
 * routine needs (for the SVD: at least as many rows as columns, which cuSOLVER's gesvd
 * requires); decompose_host.c runs the batch through LAPACK, decompose_device.c through
 * cuSOLVER, one matrix at a time, or stacks of matrices up to 32 x 32 in one call of the
 * batched Jacobi solvers (syevjBatched, gesvdjBatched).
 */
#ifndef CUARR_LINALG_DECOMPOSE_H
#define CUARR_LINALG_DECOMPOSE_H

#include "internal.h"

typedef struct cuarr_decompose_batch {
  cuarr_context *ctx;
  int device; /* CUARR_HOST: LAPACK */
  CUstream stream;
  cuarr_dtype dtype; /* float32 or float64 */
  int m, n;          /* rows and columns; the leading dimension is m */
  int64_t count;
  char *a;        /* count matrices, `stride` elements apart; overwritten */
  int64_t stride; /* >= m * n */
  int *info;      /* count statuses (int32); > 0: the routine did not converge */
} cuarr_decompose_batch;

/* Householder QR in place: R above the diagonal, the reflectors below, min(m, n) scalars per
 * matrix into tau (one after another). */
cuarr_status cuarr_decompose_geqrf(const cuarr_decompose_batch *b, char *tau);
/* The first `cols` columns of Q (m x cols, m >= cols >= min(m, n)) from geqrf's reflectors,
 * formed in place in the first columns of each matrix (the batch's stride must leave room). */
cuarr_status cuarr_decompose_orgqr(const cuarr_decompose_batch *b, int cols, const char *tau);
/* Zero below the diagonal of `count` square n x n column-major matrices, one after another. */
cuarr_status cuarr_decompose_zero_lower(const cuarr_decompose_batch *b, char *a, int n);
/* Eigenvalues (ascending, n per matrix into w) of the symmetric n x n matrices (m == n) whose
 * `upper` (else lower) triangle is given; with `vectors`, a is overwritten by the
 * orthonormal eigenvectors, in its columns. */
cuarr_status cuarr_decompose_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                   char *w);
/* The SVD of m x n matrices with m >= n: s (n per matrix, descending); job 'N' none of the
 * vectors, 'S' the first n columns of U (m x n, leading dimension m, m * n apart) and V^T
 * (n x n), 'A' all of U (m x m, m * m apart) and V^T. */
cuarr_status cuarr_decompose_gesvd(const cuarr_decompose_batch *b, char job, char *s, char *u,
                                   char *vt);

/* ---- decompose_host.c and decompose_device.c: the engines of the above */
cuarr_status cuarr_decompose_host_geqrf(const cuarr_decompose_batch *b, char *tau);
cuarr_status cuarr_decompose_host_orgqr(const cuarr_decompose_batch *b, int cols, const char *tau);
cuarr_status cuarr_decompose_host_zero_lower(const cuarr_decompose_batch *b, char *a, int n);
cuarr_status cuarr_decompose_host_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                        char *w);
cuarr_status cuarr_decompose_host_gesvd(const cuarr_decompose_batch *b, char job, char *s, char *u,
                                        char *vt);
cuarr_status cuarr_decompose_device_geqrf(const cuarr_decompose_batch *b, char *tau);
cuarr_status cuarr_decompose_device_orgqr(const cuarr_decompose_batch *b, int cols,
                                          const char *tau);
cuarr_status cuarr_decompose_device_zero_lower(const cuarr_decompose_batch *b, char *a, int n);
cuarr_status cuarr_decompose_device_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                          char *w);
cuarr_status cuarr_decompose_device_gesvd(const cuarr_decompose_batch *b, char job, char *s,
                                          char *u, char *vt);

#endif
