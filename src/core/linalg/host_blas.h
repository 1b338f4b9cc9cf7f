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

typedef struct cuarr_host_blas {
  cuarr_fortran_gemm sgemm, dgemm;
  char path[200]; /* the file opened */
} cuarr_host_blas;

/* The BLAS (opened once, thread-safe), or CUARR_NOT_AVAILABLE naming the packages to install. */
cuarr_status cuarr_load_host_blas(const cuarr_host_blas **out);

#endif
