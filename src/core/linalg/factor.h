/*
 * factor.h -- the factorizations cuarr.linalg is built on (LU, Cholesky), the solves with their
 * factors and what is read off them (determinants), on a batch of matrices laid out as LAPACK
 * and cuSOLVER want them: column-major, n x n, one after another.
 *
 * linalg.c fills such a batch with a C-contiguous copy of the user's stack, which column-major
 * routines read as the transposes of the user's matrices; it chooses each call so that the
 * transposes cancel (linalg.c says how).  factor_host.c runs the batch through LAPACK,
 * factor_device.c through cuBLAS's batched routines (many small matrices) or cuSOLVER (larger
 * ones).
 */
#ifndef CUARR_LINALG_FACTOR_H
#define CUARR_LINALG_FACTOR_H

#include "internal.h"

typedef struct cuarr_factor_batch {
  cuarr_context *ctx;
  int device; /* CUARR_HOST: LAPACK */
  CUstream stream;
  cuarr_dtype dtype; /* float32 or float64 */
  int n;
  int64_t count;
  char *a;   /* count matrices, n * n elements apart; overwritten by their factors */
  int *ipiv; /* count * n pivots (1-based, LAPACK's); unused by Cholesky */
  int *info; /* count statuses: > 0 a singular (or not positive definite) matrix */
} cuarr_factor_batch;

/* The pivots and statuses are arrays the caller allocates (int32, count * n and count). */

/* LU with partial pivoting: a = P L U, in place. */
cuarr_status cuarr_factor_lu(const cuarr_factor_batch *b);
/* Solve op(a) x = rhs with a's LU factors, op the transpose when `transpose`; rhs holds count
 * column-major n x nrhs matrices, one after another, overwritten by x. */
cuarr_status cuarr_factor_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                   char *rhs);
/* Cholesky: the `upper` triangle of a (column-major) becomes U with U^T U = a (else the lower
 * one L with L L^T = a); the other triangle is zeroed. */
cuarr_status cuarr_factor_cholesky(const cuarr_factor_batch *b, bool upper);
/* From the LU factors: each matrix's sign of the determinant and log of its absolute value
 * (into C-contiguous arrays of count elements, of the batch's dtype); logabs NULL: the
 * determinant itself into sign.  A singular matrix has sign 0 and log -inf (determinant 0). */
cuarr_status cuarr_factor_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                 const cuarr_array *logabs);

/* ---- factor_host.c and factor_device.c: the engines of the above */
cuarr_status cuarr_factor_host_lu(const cuarr_factor_batch *b);
cuarr_status cuarr_factor_host_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                        char *rhs);
cuarr_status cuarr_factor_host_cholesky(const cuarr_factor_batch *b, bool upper);
cuarr_status cuarr_factor_host_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                      const cuarr_array *logabs);
cuarr_status cuarr_factor_device_lu(const cuarr_factor_batch *b);
cuarr_status cuarr_factor_device_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                          char *rhs);
cuarr_status cuarr_factor_device_cholesky(const cuarr_factor_batch *b, bool upper);
cuarr_status cuarr_factor_device_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                        const cuarr_array *logabs);
/* ---- linalg_kernels.c: kernels/templates/linalg.cu, shared with decompose_device.c */
/* Launch kernel `name` on stream with 256-thread blocks for `work` threads (at most 65536
 * blocks: the kernels loop over the rest). */
cuarr_status cuarr_linalg_launch(int device, CUstream stream, const char *name, int64_t work,
                                 void **args);
/* Zero below the diagonal (upper) or above it of `count` column-major n x n matrices. */
cuarr_status cuarr_linalg_zero_triangle(int device, CUstream stream, cuarr_dtype dtype, char *a,
                                        int n, int64_t count, bool upper);
/* After gesvdjBatched left `count` column-major U (m x m) and V (n x n) one after another in
 * uf and vf: the first ucols columns of each U into u (m x ucols each, packed; ucols 0 leaves u
 * alone) and each V^T into vt (n x n each, column-major). */
cuarr_status cuarr_linalg_svd_vectors(int device, CUstream stream, cuarr_dtype dtype,
                                      const char *uf, char *u, int m, int ucols, const char *vf,
                                      char *vt, int n, int64_t count);

/* testing/linalg_compile_all.c, for `make test`: kernels/templates/linalg.cu compiled with
 * NVRTC for sm_<arch> (no GPU); *n_kernels: how many of its kernels the cubin holds. */
cuarr_status cuarr_linalg_kernels_compile_all(int arch, int *n_kernels);

#endif
