/*
 * matmul_device.c -- products of device arrays: float16, float32 and float64 through cuBLAS
 * (cublasGemmEx, cublasGemmStridedBatchedEx for a batch), the others through cuarr's kernel.
 *
 * Float products small enough go to cuarr's kernel instead (matmul.cu).
 *
 * float64 computes in float64; float32 in float32, or with TF32 tensor cores when the caller
 * opted in; float16 goes in and out as float16 and sums in float32, with cuBLAS's reduced
 * precision split-K reductions disallowed so that the sums stay float32 throughout.
 */
#include "linalg/matmul.h"

/* The most multiply-adds (m * n * k) a float product takes through cuarr's kernel: up to about
 * 100^3 its run stays within the launch's own host cost, well under a cuBLAS call's. */
#define SMALL_PRODUCT ((int64_t)1 << 20)

static cuarr_status cublas_gemm(int device, CUstream stream, const cuarr_gemm *g) {
  cuarr_blas_call c;
  if (!cuarr_blas_call_of(g, &c)) /* matmul.c packs what cuBLAS cannot read */
    return cuarr_fail(CUARR_VALUE_ERROR, "matmul: an operand cuBLAS cannot read reached it");
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  cudaDataType type;
  cublasComputeType_t compute;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  const void *alpha = &one32, *beta = g->accumulate ? &one32 : &zero32;
  switch (g->dtype) {
  case CUARR_FLOAT64:
    type = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F;
    alpha = &one64, beta = g->accumulate ? &one64 : &zero64;
    break;
  case CUARR_FLOAT32:
    type = CUDA_R_32F;
    compute = g->precision == CUARR_MATMUL_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    break;
  default:
    type = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F;
    math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    break;
  }
  /* The batch strides in elements, following the operands into their BLAS slots. */
  const long long item = (long long)cuarr_dtype_size(g->dtype);
  const bool swapped = c.swapped;
  long long stride_a = (swapped ? g->b_batch : g->a_batch) / item;
  long long stride_b = (swapped ? g->a_batch : g->b_batch) / item;
  long long stride_c = g->c_batch / item;
  const cublasOperation_t op_a = c.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = c.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;

  cuarr_cublas_handle *h;
  CUARR_TRY(cuarr_cublas_handle_lock(device, stream, &h));
  cublasHandle_t handle = cuarr_cublas_handle_get(h);
  cuarr_status s =
      cuarr_cublas_check(cuarr_cublas.cublasSetMathMode(handle, math), "cublasSetMathMode");
  if (s == CUARR_OK && g->batch == 1)
    s = cuarr_cublas_check(cuarr_cublas.cublasGemmEx(handle, op_a, op_b, c.m, c.n, c.k, alpha, c.a,
                                                     type, c.lda, c.b, type, c.ldb, beta, c.c, type,
                                                     c.ldc, compute, CUBLAS_GEMM_DEFAULT),
                           "cublasGemmEx");
  else if (s == CUARR_OK)
    s = cuarr_cublas_check(cuarr_cublas.cublasGemmStridedBatchedEx(
                               handle, op_a, op_b, c.m, c.n, c.k, alpha, c.a, type, c.lda, stride_a,
                               c.b, type, c.ldb, stride_b, beta, c.c, type, c.ldc, stride_c,
                               g->batch, compute, CUBLAS_GEMM_DEFAULT),
                           "cublasGemmStridedBatchedEx");
  cuarr_cublas_handle_unlock(h);
  return s;
}

/* Whether a float product is small enough that cuarr's kernel, one launch, finishes before a
 * cuBLAS call has been queued (bench/experiments/NOTES.md has the crossing). */
static bool small(const cuarr_gemm *g) {
  return g->batch == 1 && (int64_t)g->m * g->n * g->k <= SMALL_PRODUCT;
}

cuarr_status cuarr_matmul_device(int device, CUstream stream, const cuarr_gemm *g) {
  if (cuarr_dtype_is_float(g->dtype) && !small(g))
    return cublas_gemm(device, stream, g);
  return cuarr_matmul_kernel(device, stream, g);
}
