/*
 * decompose_device.c -- the decompositions of device matrices through cuSOLVER: geqrf, orgqr,
 * syevd and gesvd, one call per matrix, except stacks of symmetric matrices of up to 32 x 32,
 * whose eigenproblems go to the batched Jacobi solver in one call (syevjBatched, run to its
 * default tolerance, the working precision): one syevd call per matrix costs some tens of
 * microseconds of host time each, which a stack of thousands of small matrices multiplies.  Each
 * call sizes its workspace
 * with the routine's _bufferSize, then takes it from the stream's pool outside the handle's
 * lock: the pool's reclaim may run a garbage collection, whose finalizers may queue work that
 * needs the lock.  Everything is queued on the batch's stream; nothing here synchronises.
 */
#include "linalg/decompose.h"
#include "linalg/factor.h"
#include "linalg/matmul.h"

static int64_t item(const cuarr_decompose_batch *b) { return (int64_t)cuarr_dtype_size(b->dtype); }
static bool f64(const cuarr_decompose_batch *b) { return b->dtype == CUARR_FLOAT64; }

/* The routines' questions about workspace, asked with the handle's lock held. */
typedef enum { GEQRF_WORK, ORGQR_WORK, SYEVD_WORK, GESVD_WORK } work_kind;
typedef struct work_query {
  work_kind kind;
  int cols; /* orgqr */
  bool vectors, upper;
  const char *tau, *w;
} work_query;

static cuarr_status ask(const cuarr_decompose_batch *b, cusolverDnHandle_t s, const work_query *q,
                        int *lwork) {
  const int m = b->m, n = b->n, lda = m > 1 ? m : 1, k = m < n ? m : n;
  switch (q->kind) {
  case GEQRF_WORK:
    return cuarr_cusolver_check(
        f64(b) ? cuarr_cusolver.cusolverDnDgeqrf_bufferSize(s, m, n, (double *)b->a, lda, lwork)
               : cuarr_cusolver.cusolverDnSgeqrf_bufferSize(s, m, n, (float *)b->a, lda, lwork),
        "cusolverDnXgeqrf_bufferSize");
  case ORGQR_WORK:
    return cuarr_cusolver_check(
        f64(b) ? cuarr_cusolver.cusolverDnDorgqr_bufferSize(s, m, q->cols, k, (double *)b->a, lda,
                                                            (const double *)q->tau, lwork)
               : cuarr_cusolver.cusolverDnSorgqr_bufferSize(s, m, q->cols, k, (float *)b->a, lda,
                                                            (const float *)q->tau, lwork),
        "cusolverDnXorgqr_bufferSize");
  case SYEVD_WORK: {
    const cusolverEigMode_t jobz =
        q->vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cublasFillMode_t uplo = q->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    return cuarr_cusolver_check(
        f64(b) ? cuarr_cusolver.cusolverDnDsyevd_bufferSize(s, jobz, uplo, n, (const double *)b->a,
                                                            lda, (const double *)q->w, lwork)
               : cuarr_cusolver.cusolverDnSsyevd_bufferSize(s, jobz, uplo, n, (const float *)b->a,
                                                            lda, (const float *)q->w, lwork),
        "cusolverDnXsyevd_bufferSize");
  }
  case GESVD_WORK:
    return cuarr_cusolver_check(f64(b) ? cuarr_cusolver.cusolverDnDgesvd_bufferSize(s, m, n, lwork)
                                       : cuarr_cusolver.cusolverDnSgesvd_bufferSize(s, m, n, lwork),
                                "cusolverDnXgesvd_bufferSize");
  }
  return CUARR_OK;
}

/* A workspace of lwork elements (plus `extra`), from the pool of the batch's stream. */
static cuarr_status workspace(const cuarr_decompose_batch *b, const work_query *q, int64_t extra,
                              int *lwork, cuarr_buffer **out) {
  cuarr_cublas_handle *h;
  CUARR_TRY(cuarr_cublas_handle_lock(b->device, b->stream, &h));
  cusolverDnHandle_t s;
  cuarr_status st = cuarr_cublas_handle_solver(h, &s);
  if (st == CUARR_OK)
    st = ask(b, s, q, lwork);
  cuarr_cublas_handle_unlock(h);
  if (st != CUARR_OK)
    return st;
  if (*lwork < 1)
    *lwork = 1;
  return cuarr_buffer_new_device(b->device, (size_t)(*lwork + extra) * (size_t)item(b), b->stream,
                                 cuarr_ctx_reclaim(b->ctx), out);
}

/* The solver handle of the batch's stream, locked; *h to unlock. */
static cuarr_status solver(const cuarr_decompose_batch *b, cuarr_cublas_handle **h,
                           cusolverDnHandle_t *s) {
  CUARR_TRY(cuarr_cublas_handle_lock(b->device, b->stream, h));
  cuarr_status st = cuarr_cublas_handle_solver(*h, s);
  if (st != CUARR_OK)
    cuarr_cublas_handle_unlock(*h);
  return st;
}

cuarr_status cuarr_decompose_device_geqrf(const cuarr_decompose_batch *b, char *tau) {
  const work_query q = {.kind = GEQRF_WORK};
  int lwork;
  cuarr_buffer *work;
  CUARR_TRY(workspace(b, &q, 0, &lwork, &work));
  cuarr_cublas_handle *h;
  cusolverDnHandle_t s;
  cuarr_status st = solver(b, &h, &s);
  if (st == CUARR_OK) {
    const int m = b->m, n = b->n, lda = m > 1 ? m : 1, k = m < n ? m : n;
    for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * b->stride * item(b), *t = tau + i * k * item(b);
      st = cuarr_cusolver_check(
          f64(b) ? cuarr_cusolver.cusolverDnDgeqrf(s, m, n, (double *)a, lda, (double *)t,
                                                   work->ptr, lwork, b->info + i)
                 : cuarr_cusolver.cusolverDnSgeqrf(s, m, n, (float *)a, lda, (float *)t, work->ptr,
                                                   lwork, b->info + i),
          "cusolverDnXgeqrf");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work); /* stream-ordered: reused only after the calls above */
  return st;
}

cuarr_status cuarr_decompose_device_orgqr(const cuarr_decompose_batch *b, int cols,
                                          const char *tau) {
  const work_query q = {.kind = ORGQR_WORK, .cols = cols, .tau = tau};
  int lwork;
  cuarr_buffer *work;
  CUARR_TRY(workspace(b, &q, 0, &lwork, &work));
  cuarr_cublas_handle *h;
  cusolverDnHandle_t s;
  cuarr_status st = solver(b, &h, &s);
  if (st == CUARR_OK) {
    const int m = b->m, lda = m > 1 ? m : 1, k = m < b->n ? m : b->n;
    for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * b->stride * item(b);
      const char *t = tau + i * k * item(b);
      st = cuarr_cusolver_check(
          f64(b) ? cuarr_cusolver.cusolverDnDorgqr(s, m, cols, k, (double *)a, lda,
                                                   (const double *)t, work->ptr, lwork, b->info + i)
                 : cuarr_cusolver.cusolverDnSorgqr(s, m, cols, k, (float *)a, lda, (const float *)t,
                                                   work->ptr, lwork, b->info + i),
          "cusolverDnXorgqr");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work);
  return st;
}

cuarr_status cuarr_decompose_device_zero_lower(const cuarr_decompose_batch *b, char *a, int n) {
  /* an upper triangular result: zero what lies below */
  return cuarr_linalg_zero_triangle(b->device, b->stream, b->dtype, a, n, b->count, true);
}

/* ---- the batched Jacobi eigensolver */

/* Whether syevjBatched takes the batch: square matrices of 1 to 32 rows, packed one after
 * another (the routine knows no stride but n * n), more than one of them. */
static bool jacobi_batch(const cuarr_decompose_batch *b) {
  return b->n >= 1 && b->n <= 32 && b->m == b->n && b->count > 1 &&
         b->stride == (int64_t)b->n * b->n;
}

static cuarr_status syevj_size(const cuarr_decompose_batch *b, cusolverEigMode_t jobz,
                               cublasFillMode_t uplo, const char *w, syevjInfo_t params, int batch,
                               int *lwork) {
  cuarr_cublas_handle *h;
  cusolverDnHandle_t s;
  CUARR_TRY(solver(b, &h, &s));
  const int n = b->n;
  cuarr_status st = cuarr_cusolver_check(
      f64(b)
          ? cuarr_cusolver.cusolverDnDsyevjBatched_bufferSize(
                s, jobz, uplo, n, (const double *)b->a, n, (const double *)w, lwork, params, batch)
          : cuarr_cusolver.cusolverDnSsyevjBatched_bufferSize(
                s, jobz, uplo, n, (const float *)b->a, n, (const float *)w, lwork, params, batch),
      "cusolverDnXsyevjBatched_bufferSize");
  cuarr_cublas_handle_unlock(h);
  if (*lwork < 1)
    *lwork = 1;
  return st;
}

/* One syevjBatched call for `batch` matrices from the batch's first + `first`. */
static cuarr_status syevj_chunk(const cuarr_decompose_batch *b, cusolverEigMode_t jobz,
                                cublasFillMode_t uplo, char *w, syevjInfo_t params, int64_t first,
                                int batch) {
  const int n = b->n;
  char *a = b->a + first * b->stride * item(b), *wi = w + first * n * item(b);
  int lwork;
  CUARR_TRY(syevj_size(b, jobz, uplo, wi, params, batch, &lwork));
  cuarr_buffer *work;
  CUARR_TRY(cuarr_buffer_new_device(b->device, (size_t)lwork * (size_t)item(b), b->stream,
                                    cuarr_ctx_reclaim(b->ctx), &work));
  cuarr_cublas_handle *h;
  cusolverDnHandle_t s;
  cuarr_status st = solver(b, &h, &s);
  if (st == CUARR_OK) {
    st = cuarr_cusolver_check(f64(b) ? cuarr_cusolver.cusolverDnDsyevjBatched(
                                           s, jobz, uplo, n, (double *)a, n, (double *)wi,
                                           work->ptr, lwork, b->info + first, params, batch)
                                     : cuarr_cusolver.cusolverDnSsyevjBatched(
                                           s, jobz, uplo, n, (float *)a, n, (float *)wi, work->ptr,
                                           lwork, b->info + first, params, batch),
                              "cusolverDnXsyevjBatched");
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work); /* stream-ordered */
  return st;
}

/* The whole batch through syevjBatched, in chunks whose count fits its int. */
static cuarr_status syevj_batched(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                  char *w) {
  syevjInfo_t params = NULL;
  CUARR_TRY(cuarr_cusolver_check(cuarr_cusolver.cusolverDnCreateSyevjInfo(&params),
                                 "cusolverDnCreateSyevjInfo"));
  /* eigenvalues ascending, as syevd and LAPACK give them */
  cuarr_status st = cuarr_cusolver_check(cuarr_cusolver.cusolverDnXsyevjSetSortEig(params, 1),
                                         "cusolverDnXsyevjSetSortEig");
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int64_t chunk = 1 << 20;
  for (int64_t first = 0; first < b->count && st == CUARR_OK; first += chunk) {
    const int64_t left = b->count - first;
    st = syevj_chunk(b, jobz, uplo, w, params, first, (int)(left < chunk ? left : chunk));
  }
  /* The parameters are read when a call is made, not by the queued work. */
  cuarr_cusolver.cusolverDnDestroySyevjInfo(params);
  return st;
}

/* ---- one call per matrix */

cuarr_status cuarr_decompose_device_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                          char *w) {
  if (jacobi_batch(b))
    return syevj_batched(b, vectors, upper, w);
  const work_query q = {.kind = SYEVD_WORK, .vectors = vectors, .upper = upper, .w = w};
  int lwork;
  cuarr_buffer *work;
  CUARR_TRY(workspace(b, &q, 0, &lwork, &work));
  cuarr_cublas_handle *h;
  cusolverDnHandle_t s;
  cuarr_status st = solver(b, &h, &s);
  if (st == CUARR_OK) {
    const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const int n = b->n, lda = n > 1 ? n : 1;
    for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * b->stride * item(b), *wi = w + i * n * item(b);
      st = cuarr_cusolver_check(
          f64(b) ? cuarr_cusolver.cusolverDnDsyevd(s, jobz, uplo, n, (double *)a, lda, (double *)wi,
                                                   work->ptr, lwork, b->info + i)
                 : cuarr_cusolver.cusolverDnSsyevd(s, jobz, uplo, n, (float *)a, lda, (float *)wi,
                                                   work->ptr, lwork, b->info + i),
          "cusolverDnXsyevd");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work);
  return st;
}

cuarr_status cuarr_decompose_device_gesvd(const cuarr_decompose_batch *b, char job, char *s,
                                          char *u, char *vt) {
  const work_query q = {.kind = GESVD_WORK};
  const int m = b->m, n = b->n, lda = m > 1 ? m : 1, ldvt = n > 1 ? n : 1;
  int lwork;
  cuarr_buffer *work;
  /* n more elements: rwork, where gesvd leaves what did not converge. */
  CUARR_TRY(workspace(b, &q, n, &lwork, &work));
  cuarr_cublas_handle *h;
  cusolverDnHandle_t sv;
  cuarr_status st = solver(b, &h, &sv);
  if (st == CUARR_OK) {
    const signed char jobu = (signed char)job, jobvt = job == 'N' ? 'N' : 'A';
    const int64_t u_stride = job == 'A' ? (int64_t)m * m : (int64_t)m * n;
    char *rwork = (char *)work->ptr + (int64_t)lwork * item(b);
    for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * b->stride * item(b), *si = s + i * n * item(b);
      char *ui = job == 'N' ? NULL : u + i * u_stride * item(b);
      char *vti = job == 'N' ? NULL : vt + i * (int64_t)n * n * item(b);
      st = cuarr_cusolver_check(
          f64(b) ? cuarr_cusolver.cusolverDnDgesvd(
                       sv, jobu, jobvt, m, n, (double *)a, lda, (double *)si, (double *)ui, lda,
                       (double *)vti, ldvt, work->ptr, lwork, (double *)rwork, b->info + i)
                 : cuarr_cusolver.cusolverDnSgesvd(
                       sv, jobu, jobvt, m, n, (float *)a, lda, (float *)si, (float *)ui, lda,
                       (float *)vti, ldvt, work->ptr, lwork, (float *)rwork, b->info + i),
          "cusolverDnXgesvd");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work);
  return st;
}
