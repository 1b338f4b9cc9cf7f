/*
 * host_blas.h -- the system's BLAS and LAPACK for host arrays, opened with dlopen on first use.
 *
 * Looked for as CUARR_LIBBLAS names a file, then as OpenBLAS (Debian's libopenblas0, which
 * carries LAPACK too), then as the reference libblas.so.3 (libblas3; Debian's alternatives may
 * point it at OpenBLAS).  The entry points are the Fortran ones every BLAS exports (dgemm_),
 * called with the hidden lengths of their character arguments at the end, as gfortran passes
 * them.
 */
#ifndef CUARR_LINALG_HOST_BLAS_H
#define CUARR_LINALG_HOST_BLAS_H

#include <stddef.h>

#include "cuarr.h"

typedef void (*cuarr_fortran_gemm)(const char *transa, const char *transb, const int *m,
                                   const int *n, const int *k, const void *alpha, const void *a,
                                   const int *lda, const void *b, const int *ldb, const void *beta,
                                   void *c, const int *ldc, size_t transa_len, size_t transb_len);

/* LAPACK's LU and Cholesky factorizations and the LU solve (the s and d ones share types). */
typedef void (*cuarr_fortran_getrf)(const int *m, const int *n, void *a, const int *lda, int *ipiv,
                                    int *info);
typedef void (*cuarr_fortran_getrs)(const char *trans, const int *n, const int *nrhs, const void *a,
                                    const int *lda, const int *ipiv, void *b, const int *ldb,
                                    int *info, size_t trans_len);
typedef void (*cuarr_fortran_potrf)(const char *uplo, const int *n, void *a, const int *lda,
                                    int *info, size_t uplo_len);

/* LAPACK's QR (geqrf, orgqr), symmetric eigensolver (syevd) and SVD (gesvd), for
 * decompose_host.c; each takes lwork = -1 as a workspace query. */
typedef void (*cuarr_fortran_geqrf)(const int *m, const int *n, void *a, const int *lda, void *tau,
                                    void *work, const int *lwork, int *info);
typedef void (*cuarr_fortran_orgqr)(const int *m, const int *n, const int *k, void *a,
                                    const int *lda, const void *tau, void *work, const int *lwork,
                                    int *info);
typedef void (*cuarr_fortran_syevd)(const char *jobz, const char *uplo, const int *n, void *a,
                                    const int *lda, void *w, void *work, const int *lwork,
                                    int *iwork, const int *liwork, int *info, size_t jobz_len,
                                    size_t uplo_len);
typedef void (*cuarr_fortran_gesvd)(const char *jobu, const char *jobvt, const int *m, const int *n,
                                    void *a, const int *lda, void *s, void *u, const int *ldu,
                                    void *vt, const int *ldvt, void *work, const int *lwork,
                                    int *info, size_t jobu_len, size_t jobvt_len);

typedef struct cuarr_host_blas {
  cuarr_fortran_gemm sgemm, dgemm;
  char path[200]; /* the file opened */
} cuarr_host_blas;

typedef struct cuarr_host_lapack {
  cuarr_fortran_getrf sgetrf, dgetrf;
  cuarr_fortran_getrs sgetrs, dgetrs;
  cuarr_fortran_potrf spotrf, dpotrf;
  cuarr_fortran_geqrf sgeqrf, dgeqrf;
  cuarr_fortran_orgqr sorgqr, dorgqr;
  cuarr_fortran_syevd ssyevd, dsyevd;
  cuarr_fortran_gesvd sgesvd, dgesvd;
  char path[200];
} cuarr_host_lapack;

/* The BLAS (opened once, thread-safe), or CUARR_NOT_AVAILABLE naming the packages to install. */
cuarr_status cuarr_load_host_blas(const cuarr_host_blas **out);
/* LAPACK: the BLAS's own when it carries it (OpenBLAS does), else liblapack.so.3
 * (CUARR_LIBLAPACK names another). */
cuarr_status cuarr_load_host_lapack(const cuarr_host_lapack **out);

#endif
