/*
 * factor_device.c -- the factorizations of device matrices.  Many small matrices (n <= 32, more
 * than one) go to cuBLAS's and cuSOLVER's batched routines, one call for the whole stack; the
 * others to cuSOLVER, one call per matrix, each with a workspace from the pool.  The kernels of
 * kernels/templates/linalg.cu fill the batched routines' pointer arrays and read determinants
 * off the factors.  Everything is queued on the batch's stream; nothing here synchronises.
 */
#include <stdio.h>

#include "linalg/factor.h"
#include "linalg/matmul.h"

/* The largest matrices the batched routines take: they keep a matrix in one block's shared
 * memory. */
#define BATCHED_MAX_N 32
/* The most matrices one batched call takes (its count is an int). */
#define BATCH_STRETCH ((int64_t)1 << 30)
#define THREADS 256 /* cuarr_linalg_launch's blocks */

static const char *code(cuarr_dtype d) { return d == CUARR_FLOAT64 ? "f8" : "f4"; }
static int64_t item(const cuarr_factor_batch *b) { return (int64_t)cuarr_dtype_size(b->dtype); }
static bool batched(const cuarr_factor_batch *b) { return b->n <= BATCHED_MAX_N && b->count > 1; }

static cuarr_status launch(const cuarr_factor_batch *b, const char *name, int64_t work,
                           void **args) {
  return cuarr_linalg_launch(b->device, b->stream, name, work, args);
}

/* A device array of `count` pointers: base, base + stride, ... (a buffer the caller releases). */
static cuarr_status pointers(const cuarr_factor_batch *b, char *base, int64_t stride,
                             cuarr_buffer **out) {
  CUARR_TRY(cuarr_buffer_new_device(b->device, (size_t)b->count * sizeof(void *), b->stream,
                                    cuarr_ctx_reclaim(b->ctx), out));
  void *ptrs = (*out)->ptr;
  long long s = stride, n = b->count;
  void *args[] = {&ptrs, &base, &s, &n};
  cuarr_status st = launch(b, "cuarr_linalg_pointers", b->count, args);
  if (st != CUARR_OK)
    cuarr_buffer_release(*out);
  return st;
}

/* The cuSOLVER workspace (elements) a routine asks for, through its _bufferSize. */
typedef enum { LU_WORK, CHOLESKY_WORK } work_kind;
static cuarr_status work_size(const cuarr_factor_batch *b, work_kind kind, bool upper, int *lwork) {
  cuarr_cublas_handle *h;
  CUARR_TRY(cuarr_cublas_handle_lock(b->device, b->stream, &h));
  cusolverDnHandle_t s;
  cuarr_status st = cuarr_cublas_handle_solver(h, &s);
  const int n = b->n, lda = n > 1 ? n : 1;
  const bool f64 = b->dtype == CUARR_FLOAT64;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  if (st == CUARR_OK && kind == LU_WORK)
    st = cuarr_cusolver_check(
        f64 ? cuarr_cusolver.cusolverDnDgetrf_bufferSize(s, n, n, (double *)b->a, lda, lwork)
            : cuarr_cusolver.cusolverDnSgetrf_bufferSize(s, n, n, (float *)b->a, lda, lwork),
        "cusolverDnXgetrf_bufferSize");
  else if (st == CUARR_OK)
    st = cuarr_cusolver_check(
        f64 ? cuarr_cusolver.cusolverDnDpotrf_bufferSize(s, uplo, n, (double *)b->a, lda, lwork)
            : cuarr_cusolver.cusolverDnSpotrf_bufferSize(s, uplo, n, (float *)b->a, lda, lwork),
        "cusolverDnXpotrf_bufferSize");
  cuarr_cublas_handle_unlock(h);
  return st;
}

static cuarr_status lu_batched(const cuarr_factor_batch *b) {
  cuarr_buffer *ptrs;
  CUARR_TRY(pointers(b, b->a, (int64_t)b->n * b->n * item(b), &ptrs));
  cuarr_cublas_handle *h;
  cuarr_status st = cuarr_cublas_handle_lock(b->device, b->stream, &h);
  if (st == CUARR_OK) {
    cublasHandle_t handle = cuarr_cublas_handle_get(h);
    for (int64_t i0 = 0; i0 < b->count && st == CUARR_OK; i0 += BATCH_STRETCH) {
      int count = (int)(b->count - i0 < BATCH_STRETCH ? b->count - i0 : BATCH_STRETCH);
      void **p = (void **)ptrs->ptr + i0;
      int *ipiv = b->ipiv + i0 * b->n, *info = b->info + i0;
      st = cuarr_cublas_check(b->dtype == CUARR_FLOAT64
                                  ? cuarr_cublas.cublasDgetrfBatched(handle, b->n, (double **)p,
                                                                     b->n, ipiv, info, count)
                                  : cuarr_cublas.cublasSgetrfBatched(handle, b->n, (float **)p,
                                                                     b->n, ipiv, info, count),
                              "cublasXgetrfBatched");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(ptrs); /* stream-ordered: reused only after the calls above */
  return st;
}

static cuarr_status lu_each(const cuarr_factor_batch *b) {
  int lwork = 0;
  CUARR_TRY(work_size(b, LU_WORK, false, &lwork));
  cuarr_buffer *work;
  CUARR_TRY(cuarr_buffer_new_device(b->device, (size_t)(lwork > 0 ? lwork : 1) * (size_t)item(b),
                                    b->stream, cuarr_ctx_reclaim(b->ctx), &work));
  cuarr_cublas_handle *h;
  cuarr_status st = cuarr_cublas_handle_lock(b->device, b->stream, &h);
  if (st == CUARR_OK) {
    cusolverDnHandle_t s = NULL;
    st = cuarr_cublas_handle_solver(h, &s);
    const int n = b->n, lda = n > 1 ? n : 1;
    for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * (int64_t)n * n * item(b);
      int *ipiv = b->ipiv + i * n, *info = b->info + i;
      st = cuarr_cusolver_check(
          b->dtype == CUARR_FLOAT64
              ? cuarr_cusolver.cusolverDnDgetrf(s, n, n, (double *)a, lda, work->ptr, ipiv, info)
              : cuarr_cusolver.cusolverDnSgetrf(s, n, n, (float *)a, lda, work->ptr, ipiv, info),
          "cusolverDnXgetrf");
    }
    cuarr_cublas_handle_unlock(h);
  }
  cuarr_buffer_release(work);
  return st;
}

cuarr_status cuarr_factor_device_lu(const cuarr_factor_batch *b) {
  return batched(b) ? lu_batched(b) : lu_each(b);
}

cuarr_status cuarr_factor_device_lu_solve(const cuarr_factor_batch *b, bool transpose, int nrhs,
                                          char *rhs) {
  const int n = b->n, ld = n > 1 ? n : 1;
  const cublasOperation_t op = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  cuarr_buffer *a_ptrs = NULL, *b_ptrs = NULL;
  if (batched(b)) {
    CUARR_TRY(pointers(b, b->a, (int64_t)n * n * item(b), &a_ptrs));
    cuarr_status st = pointers(b, rhs, (int64_t)n * nrhs * item(b), &b_ptrs);
    if (st != CUARR_OK) {
      cuarr_buffer_release(a_ptrs);
      return st;
    }
  }
  cuarr_cublas_handle *h;
  cuarr_status st = cuarr_cublas_handle_lock(b->device, b->stream, &h);
  if (st == CUARR_OK) {
    if (a_ptrs) {
      cublasHandle_t handle = cuarr_cublas_handle_get(h);
      for (int64_t i0 = 0; i0 < b->count && st == CUARR_OK; i0 += BATCH_STRETCH) {
        int count = (int)(b->count - i0 < BATCH_STRETCH ? b->count - i0 : BATCH_STRETCH);
        void **pa = (void **)a_ptrs->ptr + i0, **pb = (void **)b_ptrs->ptr + i0;
        int arg_info = 0; /* the host's: which argument was refused */
        st = cuarr_cublas_check(
            b->dtype == CUARR_FLOAT64
                ? cuarr_cublas.cublasDgetrsBatched(handle, op, n, nrhs, (const double *const *)pa,
                                                   ld, b->ipiv + i0 * n, (double *const *)pb, ld,
                                                   &arg_info, count)
                : cuarr_cublas.cublasSgetrsBatched(handle, op, n, nrhs, (const float *const *)pa,
                                                   ld, b->ipiv + i0 * n, (float *const *)pb, ld,
                                                   &arg_info, count),
            "cublasXgetrsBatched");
      }
    } else {
      cusolverDnHandle_t s = NULL;
      st = cuarr_cublas_handle_solver(h, &s);
      for (int64_t i = 0; i < b->count && st == CUARR_OK; i++) {
        char *a = b->a + i * (int64_t)n * n * item(b), *x = rhs + i * (int64_t)n * nrhs * item(b);
        int *ipiv = b->ipiv + i * n, *info = b->info + i;
        st = cuarr_cusolver_check(
            b->dtype == CUARR_FLOAT64
                ? cuarr_cusolver.cusolverDnDgetrs(s, op, n, nrhs, (double *)a, ld, ipiv,
                                                  (double *)x, ld, info)
                : cuarr_cusolver.cusolverDnSgetrs(s, op, n, nrhs, (float *)a, ld, ipiv, (float *)x,
                                                  ld, info),
            "cusolverDnXgetrs");
      }
    }
    cuarr_cublas_handle_unlock(h);
  }
  if (a_ptrs) {
    cuarr_buffer_release(a_ptrs);
    cuarr_buffer_release(b_ptrs);
  }
  return st;
}

cuarr_status cuarr_factor_device_cholesky(const cuarr_factor_batch *b, bool upper) {
  const int n = b->n, lda = n > 1 ? n : 1;
  const bool f64 = b->dtype == CUARR_FLOAT64;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  cuarr_buffer *ptrs = NULL, *work = NULL;
  if (batched(b)) {
    CUARR_TRY(pointers(b, b->a, (int64_t)n * n * item(b), &ptrs));
  } else {
    int lwork = 0;
    CUARR_TRY(work_size(b, CHOLESKY_WORK, upper, &lwork));
    CUARR_TRY(cuarr_buffer_new_device(b->device, (size_t)(lwork > 0 ? lwork : 1) * (size_t)item(b),
                                      b->stream, cuarr_ctx_reclaim(b->ctx), &work));
  }
  cuarr_cublas_handle *h;
  cuarr_status st = cuarr_cublas_handle_lock(b->device, b->stream, &h);
  if (st == CUARR_OK) {
    cusolverDnHandle_t s = NULL;
    st = cuarr_cublas_handle_solver(h, &s);
    for (int64_t i0 = 0; ptrs && i0 < b->count && st == CUARR_OK; i0 += BATCH_STRETCH) {
      int count = (int)(b->count - i0 < BATCH_STRETCH ? b->count - i0 : BATCH_STRETCH);
      void **p = (void **)ptrs->ptr + i0;
      st = cuarr_cusolver_check(f64 ? cuarr_cusolver.cusolverDnDpotrfBatched(
                                          s, uplo, n, (double **)p, lda, b->info + i0, count)
                                    : cuarr_cusolver.cusolverDnSpotrfBatched(
                                          s, uplo, n, (float **)p, lda, b->info + i0, count),
                                "cusolverDnXpotrfBatched");
    }
    for (int64_t i = 0; work && i < b->count && st == CUARR_OK; i++) {
      char *a = b->a + i * (int64_t)n * n * item(b);
      int lwork = (int)(work->nbytes / (size_t)item(b));
      st =
          cuarr_cusolver_check(f64 ? cuarr_cusolver.cusolverDnDpotrf(s, uplo, n, (double *)a, lda,
                                                                     work->ptr, lwork, b->info + i)
                                   : cuarr_cusolver.cusolverDnSpotrf(s, uplo, n, (float *)a, lda,
                                                                     work->ptr, lwork, b->info + i),
                               "cusolverDnXpotrf");
    }
    cuarr_cublas_handle_unlock(h);
  }
  if (ptrs)
    cuarr_buffer_release(ptrs);
  if (work)
    cuarr_buffer_release(work);
  return st == CUARR_OK ? cuarr_linalg_zero_triangle(b->device, b->stream, b->dtype, b->a, b->n,
                                                     b->count, upper)
                        : st;
}

/* The largest matrices whose determinants take a thread each; larger ones take a block. */
#define DET_THREAD_MAX_N 64

cuarr_status cuarr_factor_device_lu_det(const cuarr_factor_batch *b, const cuarr_array *sign,
                                        const cuarr_array *logabs) {
  char name[48];
  const bool per_block = b->n > DET_THREAD_MAX_N;
  snprintf(name, sizeof name, "cuarr_linalg_det_%s%s", per_block ? "block_" : "", code(b->dtype));
  void *lu = b->a, *ipiv = b->ipiv, *s = cuarr_array_data(sign);
  void *l = logabs ? cuarr_array_data(logabs) : NULL;
  int n = b->n;
  long long count = b->count;
  void *args[] = {&lu, &ipiv, &n, &count, &s, &l};
  return launch(b, name, per_block ? b->count * THREADS : b->count, args);
}
