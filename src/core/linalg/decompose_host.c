/*
 * decompose_host.c -- the decompositions of host matrices: LAPACK's geqrf, orgqr, syevd and
 * gesvd, one matrix at a time, with one workspace per call sized by LAPACK's own query (every
 * matrix of a batch has the same shape, so one query serves them all).
 */
#include <math.h>
#include <stdlib.h>

#include "linalg/decompose.h"
#include "linalg/host_blas.h"

static int64_t item(const cuarr_decompose_batch *b) { return (int64_t)cuarr_dtype_size(b->dtype); }
static bool f64(const cuarr_decompose_batch *b) { return b->dtype == CUARR_FLOAT64; }

/* The size a workspace query left in its first element (a float for the s routines); LAPACK
 * rounds it to the nearest float, which can fall short of the integer it means. */
static int queried(const cuarr_decompose_batch *b, const double *q) {
  double v = f64(b) ? q[0] : (double)*(const float *)q;
  int n = (int)(v + 0.5);
  return (n > 1 ? n : 1) + (f64(b) ? 0 : 16);
}

static cuarr_status refused(const char *routine, int info) {
  return cuarr_fail(CUARR_VALUE_ERROR, "LAPACK %s refused argument %d", routine, -info);
}

static cuarr_status workspace(const cuarr_decompose_batch *b, int lwork, void **out) {
  *out = malloc((size_t)lwork * (size_t)item(b));
  return *out ? CUARR_OK
              : cuarr_fail(CUARR_OUT_OF_MEMORY, "no memory for a LAPACK workspace of %d elements",
                           lwork);
}

cuarr_status cuarr_decompose_host_geqrf(const cuarr_decompose_batch *b, char *tau) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  cuarr_fortran_geqrf geqrf = f64(b) ? lp->dgeqrf : lp->sgeqrf;
  const int m = b->m, n = b->n, lda = m > 1 ? m : 1, k = m < n ? m : n;
  double q[2] = {0, 0};
  int lwork = -1, info = 0;
  geqrf(&m, &n, b->a, &lda, tau, q, &lwork, &info);
  if (info < 0)
    return refused("geqrf", info);
  lwork = queried(b, q);
  void *work;
  CUARR_TRY(workspace(b, lwork, &work));
  for (int64_t i = 0; i < b->count && info == 0; i++)
    geqrf(&m, &n, b->a + i * b->stride * item(b), &lda, tau + i * k * item(b), work, &lwork, &info);
  free(work);
  return info < 0 ? refused("geqrf", info) : CUARR_OK;
}

cuarr_status cuarr_decompose_host_orgqr(const cuarr_decompose_batch *b, int cols, const char *tau) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  cuarr_fortran_orgqr orgqr = f64(b) ? lp->dorgqr : lp->sorgqr;
  const int m = b->m, lda = m > 1 ? m : 1, k = m < b->n ? m : b->n;
  double q[2] = {0, 0};
  int lwork = -1, info = 0;
  orgqr(&m, &cols, &k, b->a, &lda, tau, q, &lwork, &info);
  if (info < 0)
    return refused("orgqr", info);
  lwork = queried(b, q);
  void *work;
  CUARR_TRY(workspace(b, lwork, &work));
  for (int64_t i = 0; i < b->count && info == 0; i++)
    orgqr(&m, &cols, &k, b->a + i * b->stride * item(b), &lda, tau + i * k * item(b), work, &lwork,
          &info);
  free(work);
  return info < 0 ? refused("orgqr", info) : CUARR_OK;
}

#define ZERO_LOWER(T)                                                                              \
  do {                                                                                             \
    T *p = (T *)a;                                                                                 \
    for (int64_t i = 0; i < b->count; i++, p += (int64_t)n * n)                                    \
      for (int col = 0; col < n; col++)                                                            \
        for (int row = col + 1; row < n; row++)                                                    \
          p[(int64_t)col * n + row] = 0;                                                           \
  } while (0)

cuarr_status cuarr_decompose_host_zero_lower(const cuarr_decompose_batch *b, char *a, int n) {
  if (f64(b))
    ZERO_LOWER(double);
  else
    ZERO_LOWER(float);
  return CUARR_OK;
}

/* Whether every element of one matrix is finite.  LAPACK's eigensolver and SVD scale a matrix
 * by its norm, and an infinite or NaN norm is an argument their DLASCL refuses through XERBLA,
 * which prints and may end the process: such a matrix is reported as not converging (NumPy
 * raises the same LinAlgError for it) without calling LAPACK. */
static bool finite_matrix(const cuarr_decompose_batch *b, const char *a) {
  const int64_t count = (int64_t)b->m * b->n;
  for (int64_t k = 0; k < count; k++) {
    double v = f64(b) ? ((const double *)a)[k] : (double)((const float *)a)[k];
    if (!isfinite(v))
      return false;
  }
  return true;
}

cuarr_status cuarr_decompose_host_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                        char *w) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  cuarr_fortran_syevd syevd = f64(b) ? lp->dsyevd : lp->ssyevd;
  const char *jobz = vectors ? "V" : "N", *uplo = upper ? "U" : "L";
  const int n = b->n, lda = n > 1 ? n : 1;
  double q[2] = {0, 0};
  int lwork = -1, liwork = -1, iq = 0, info = 0;
  syevd(jobz, uplo, &n, b->a, &lda, w, q, &lwork, &iq, &liwork, &info, 1, 1);
  if (info < 0)
    return refused("syevd", info);
  lwork = queried(b, q);
  liwork = iq > 1 ? iq : 1;
  void *work;
  CUARR_TRY(workspace(b, lwork, &work));
  int *iwork = malloc((size_t)liwork * sizeof *iwork);
  if (!iwork) {
    free(work);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no memory for a LAPACK workspace");
  }
  for (int64_t i = 0; i < b->count && info >= 0; i++) {
    char *a = b->a + i * b->stride * item(b);
    if (!finite_matrix(b, a)) {
      b->info[i] = 1;
      continue;
    }
    syevd(jobz, uplo, &n, a, &lda, w + i * n * item(b), work, &lwork, iwork, &liwork, &info, 1, 1);
    b->info[i] = info;
  }
  free(iwork);
  free(work);
  return info < 0 ? refused("syevd", info) : CUARR_OK;
}

cuarr_status cuarr_decompose_host_gesvd(const cuarr_decompose_batch *b, char job, char *s, char *u,
                                        char *vt) {
  const cuarr_host_lapack *lp;
  CUARR_TRY(cuarr_load_host_lapack(&lp));
  cuarr_fortran_gesvd gesvd = f64(b) ? lp->dgesvd : lp->sgesvd;
  /* m >= n: V^T is n x n whether all of U or its first n columns are asked for. */
  const char jobu[2] = {job, 0}, jobvt[2] = {job == 'N' ? 'N' : 'A', 0};
  const int m = b->m, n = b->n, lda = m > 1 ? m : 1, ldvt = n > 1 ? n : 1;
  const int64_t u_stride = job == 'A' ? (int64_t)m * m : (int64_t)m * n;
  double q[2] = {0, 0};
  int lwork = -1, info = 0;
  gesvd(jobu, jobvt, &m, &n, b->a, &lda, s, u, &lda, vt, &ldvt, q, &lwork, &info, 1, 1);
  if (info < 0)
    return refused("gesvd", info);
  lwork = queried(b, q);
  void *work;
  CUARR_TRY(workspace(b, lwork, &work));
  for (int64_t i = 0; i < b->count && info >= 0; i++) {
    char *ui = job == 'N' ? NULL : u + i * u_stride * item(b);
    char *vti = job == 'N' ? NULL : vt + i * (int64_t)n * n * item(b);
    char *a = b->a + i * b->stride * item(b);
    if (!finite_matrix(b, a)) {
      b->info[i] = 1;
      continue;
    }
    gesvd(jobu, jobvt, &m, &n, a, &lda, s + i * n * item(b), ui, &lda, vti, &ldvt, work, &lwork,
          &info, 1, 1);
    b->info[i] = info;
  }
  free(work);
  return info < 0 ? refused("gesvd", info) : CUARR_OK;
}
