/*
 * decompose_device.c -- the decompositions of device matrices through cuSOLVER: geqrf, orgqr,
 * syevd and gesvd, one call per matrix, except stacks of matrices of up to 32 x 32, which go
 * to the batched Jacobi solvers in one call: syevjBatched for the symmetric eigenproblems,
 * gesvdjBatched for the SVD (both run to their default tolerance, the working precision, and
 * sort their results).  One call per matrix costs some tens of microseconds of host time
 * each, which a stack of thousands of small matrices multiplies.  Each call sizes its
 * workspace with the routine's _bufferSize, then takes it from the stream's pool outside the
 * handle's lock: the pool's reclaim may run a garbage collection, whose finalizers may queue
 * work that needs the lock.  Everything is queued on the batch's stream; nothing here
 * synchronises.
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

/* ---- the batched Jacobi SVD */

/* Whether gesvdjBatched takes the batch: matrices of 1 to 32 rows and columns, packed one
 * after another, more than one of them (a single matrix is as well served by gesvd). */
static bool jacobi_svd_batch(const cuarr_decompose_batch *b) {
  return b->m >= 1 && b->m <= 32 && b->n >= 1 && b->n <= 32 && b->count > 1 &&
         b->stride == (int64_t)b->m * b->n;
}

/* Where gesvd's results go (cuarr_decompose_gesvd's arguments). */
typedef struct svd_out {
  char job;
  char *s, *u, *vt;
} svd_out;

/* The bytes of the U and V that gesvdjBatched writes beside the results, per chunk at most: U
 * (unless it lands in place) and V (always: the routine gives V, not V^T), both square, so up
 * to 16 KiB per 32 x 32 float64 matrix. */
#define SVD_TEMP_BYTES ((int64_t)256 << 20)

/* Whether gesvdjBatched's U (m x m each) can be written where the results want U: all of it
 * (job 'A'), or its first n columns when these are all of it (job 'S' of square matrices). */
static bool u_in_place(const cuarr_decompose_batch *b, char job) {
  return job == 'A' || (job == 'S' && b->m == b->n);
}

static cuarr_status gesvdj_size(const cuarr_decompose_batch *b, cusolverEigMode_t jobz,
                                const char *a, const char *s, const char *u, const char *v,
                                gesvdjInfo_t params, int batch, int *lwork) {
  cuarr_cublas_handle *h;
  cusolverDnHandle_t sv;
  CUARR_TRY(solver(b, &h, &sv));
  const int m = b->m, n = b->n;
  cuarr_status st = cuarr_cusolver_check(
      f64(b) ? cuarr_cusolver.cusolverDnDgesvdjBatched_bufferSize(
                   sv, jobz, m, n, (const double *)a, m, (const double *)s, (const double *)u, m,
                   (const double *)v, n, lwork, params, batch)
             : cuarr_cusolver.cusolverDnSgesvdjBatched_bufferSize(
                   sv, jobz, m, n, (const float *)a, m, (const float *)s, (const float *)u, m,
                   (const float *)v, n, lwork, params, batch),
      "cusolverDnXgesvdjBatched_bufferSize");
  cuarr_cublas_handle_unlock(h);
  if (*lwork < 1)
    *lwork = 1;
  return st;
}

/* One gesvdjBatched call for `batch` matrices from the batch's first + `first`, then one
 * kernel that lays U and V out as gesvd's: U (m x m) lands in place where it can (u_in_place),
 * else in a buffer whose first n columns are kept; V in a buffer, transposed into vt.  With no
 * vectors the routine still gets both buffers, as CuPy gives it. */
static cuarr_status gesvdj_chunk(const cuarr_decompose_batch *b, const svd_out *o,
                                 gesvdjInfo_t params, int64_t first, int batch) {
  const int m = b->m, n = b->n;
  const int64_t sz = item(b), mm = (int64_t)m * m, nn = (int64_t)n * n;
  const bool vectors = o->job != 'N', in_place = u_in_place(b, o->job);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  char *a = b->a + first * b->stride * sz, *s = o->s + first * n * sz;
  char *u = vectors ? o->u + first * (o->job == 'A' ? mm : (int64_t)m * n) * sz : NULL;
  char *vt = vectors ? o->vt + first * nn * sz : NULL;
  const int64_t u_temp = in_place ? 0 : mm * batch;
  cuarr_buffer *temp, *work = NULL;
  CUARR_TRY(cuarr_buffer_new_device(b->device, (size_t)((u_temp + nn * batch) * sz), b->stream,
                                    cuarr_ctx_reclaim(b->ctx), &temp));
  char *uf = in_place ? u : (char *)temp->ptr, *vf = (char *)temp->ptr + u_temp * sz;
  int lwork;
  cuarr_status st = gesvdj_size(b, jobz, a, s, uf, vf, params, batch, &lwork);
  if (st == CUARR_OK)
    st = cuarr_buffer_new_device(b->device, (size_t)lwork * (size_t)sz, b->stream,
                                 cuarr_ctx_reclaim(b->ctx), &work);
  cuarr_cublas_handle *h;
  cusolverDnHandle_t sv;
  if (st == CUARR_OK)
    st = solver(b, &h, &sv);
  if (st == CUARR_OK) {
    st = cuarr_cusolver_check(
        f64(b) ? cuarr_cusolver.cusolverDnDgesvdjBatched(
                     sv, jobz, m, n, (double *)a, m, (double *)s, (double *)uf, m, (double *)vf, n,
                     work->ptr, lwork, b->info + first, params, batch)
               : cuarr_cusolver.cusolverDnSgesvdjBatched(sv, jobz, m, n, (float *)a, m, (float *)s,
                                                         (float *)uf, m, (float *)vf, n, work->ptr,
                                                         lwork, b->info + first, params, batch),
        "cusolverDnXgesvdjBatched");
    cuarr_cublas_handle_unlock(h);
  }
  if (st == CUARR_OK && vectors)
    st = cuarr_linalg_svd_vectors(b->device, b->stream, b->dtype, uf, u, m, in_place ? 0 : n, vf,
                                  vt, n, batch);
  /* stream-ordered: reused only after the work above */
  if (work)
    cuarr_buffer_release(work);
  cuarr_buffer_release(temp);
  return st;
}

/* The whole batch through gesvdjBatched, in chunks whose count fits its int and whose
 * buffers of U and V stay under SVD_TEMP_BYTES. */
static cuarr_status gesvdj_batched(const cuarr_decompose_batch *b, const svd_out *o) {
  gesvdjInfo_t params = NULL;
  CUARR_TRY(cuarr_cusolver_check(cuarr_cusolver.cusolverDnCreateGesvdjInfo(&params),
                                 "cusolverDnCreateGesvdjInfo"));
  /* Singular values descending, as gesvd and LAPACK give them: cuSOLVER's default for the
   * batched routine, said outright.  The tolerance and the sweeps stay cuSOLVER's defaults (the
   * working precision, at most 100 sweeps), as CuPy runs it; a matrix that does not converge
   * in them has a status > 0, a LinAlgError. */
  cuarr_status st = cuarr_cusolver_check(cuarr_cusolver.cusolverDnXgesvdjSetSortEig(params, 1),
                                         "cusolverDnXgesvdjSetSortEig");
  const int64_t temp =
      ((u_in_place(b, o->job) ? 0 : (int64_t)b->m * b->m) + (int64_t)b->n * b->n) * item(b);
  int64_t chunk = SVD_TEMP_BYTES / temp;
  chunk = chunk < 1 ? 1 : chunk > (1 << 20) ? (1 << 20) : chunk;
  for (int64_t first = 0; first < b->count && st == CUARR_OK; first += chunk) {
    const int64_t left = b->count - first;
    st = gesvdj_chunk(b, o, params, first, (int)(left < chunk ? left : chunk));
  }
  /* The parameters are read when a call is made, not by the queued work. */
  cuarr_cusolver.cusolverDnDestroyGesvdjInfo(params);
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
  if (jacobi_svd_batch(b))
    return gesvdj_batched(b, &(svd_out){job, s, u, vt});
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
