/*
 * factor_host.c -- the factorizations of host matrices: LAPACK's getrf, getrs and potrf, one
 * matrix at a time, and the determinant and triangle loops in C.
 */
#include <math.h>
#include <string.h>

#include "linalg/factor.h"
#include "linalg/host_blas.h"

static size_t item(const cuarr_factor_batch *b) { return cuarr_dtype_size(b->dtype); }

cuarr_status cuarr_factor_host_lu(const cuarr_factor_batch *b) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  const int n = b->n, lda = n > 1 ? n : 1;
  for (int64_t i = 0; i < b->count; i++)
    (b->dtype == CUARR_FLOAT64 ? lp->dgetrf : lp->sgetrf)(
        &n, &n, b->a + i * (int64_t)n * n * (int64_t)item(b), &lda, b->ipiv + i * n, &b->info[i]);
  return CUARR_OK;
}

cuarr_status cuarr_factor_host_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                        char *rhs) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  const int n = b->n, ld = n > 1 ? n : 1;
  const int64_t sz = (int64_t)item(b);
  for (int64_t i = 0; i < b->count; i++) {
    int info = 0;
    (b->dtype == CUARR_FLOAT64 ? lp->dgetrs : lp->sgetrs)(
        transpose ? "T" : "N", &n, &nrhs, b->a + i * (int64_t)n * n * sz, &ld, b->ipiv + i * n,
        rhs + i * (int64_t)n * nrhs * sz, &ld, &info, 1);
    if (info < 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "LAPACK getrs refused argument %d", -info);
  }
  return CUARR_OK;
}

/* Zero the triangle potrf leaves alone: below the diagonal of a column-major matrix when the
 * factor is upper, above it when lower. */
#define ZERO_TRIANGLE(T)                                                                           \
  do {                                                                                             \
    T *m = (T *)p;                                                                                 \
    for (int col = 0; col < n; col++)                                                              \
      for (int row = 0; row < n; row++)                                                            \
        if (upper ? row > col : row < col)                                                         \
          m[(int64_t)col * n + row] = 0;                                                           \
  } while (0)

cuarr_status cuarr_factor_host_cholesky(const cuarr_factor_batch *b, bool upper) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  const int n = b->n, lda = n > 1 ? n : 1;
  for (int64_t i = 0; i < b->count; i++) {
    char *p = b->a + i * (int64_t)n * n * (int64_t)item(b);
    (b->dtype == CUARR_FLOAT64 ? lp->dpotrf : lp->spotrf)(upper ? "U" : "L", &n, p, &lda,
                                                          &b->info[i], 1);
    if (b->dtype == CUARR_FLOAT64)
      ZERO_TRIANGLE(double);
    else
      ZERO_TRIANGLE(float);
  }
  return CUARR_OK;
}

/* sign and log|det| of one LU-factored matrix: the diagonal's signs and logs, and a sign flip
 * for each row the pivoting swapped. */
static void lu_det(const char *lu, const int *ipiv, int n, bool f64, double *sign, double *logabs) {
  double s = 1, l = 0;
  for (int k = 0; k < n; k++) {
    double u =
        f64 ? ((const double *)lu)[(int64_t)k * n + k] : ((const float *)lu)[(int64_t)k * n + k];
    if (ipiv[k] != k + 1)
      s = -s;
    if (u < 0)
      s = -s, u = -u;
    if (u == 0) {
      *sign = 0, *logabs = -INFINITY;
      return;
    }
    l += log(u);
  }
  *sign = s, *logabs = l;
}

cuarr_status cuarr_factor_host_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                      const cuarr_array *logabs) {
  const bool f64 = b->dtype == CUARR_FLOAT64;
  char *s_out = cuarr_array_data(sign), *l_out = logabs ? cuarr_array_data(logabs) : NULL;
  for (int64_t i = 0; i < b->count; i++) {
    double s, l;
    lu_det(b->a + i * (int64_t)b->n * b->n * (int64_t)item(b), b->ipiv + i * b->n, b->n, f64, &s,
           &l);
    if (!l_out)
      s = s * exp(l), l = 0; /* as NumPy's det: sign * exp(log|det|) */
    if (f64) {
      ((double *)s_out)[i] = s;
      if (l_out)
        ((double *)l_out)[i] = l;
    } else {
      ((float *)s_out)[i] = (float)s;
      if (l_out)
        ((float *)l_out)[i] = (float)l;
    }
  }
  return CUARR_OK;
}
