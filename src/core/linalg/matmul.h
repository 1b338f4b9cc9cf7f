/*
 * linalg/ -- matrix products and linear algebra: cuBLAS and cuarr's kernel on the device, the
 * system BLAS and C loops on the host.
 *
 * matmul.h -- what cuarr_matmul's front (matmul.c: NumPy's shape and dtype rules, the packing
 * of operands an engine cannot read, the result) hands its engines: a batch of products of one
 * dtype, already split so that every extent and count fits the int that BLAS and cuBLAS take.
 */
#ifndef CUARR_LINALG_MATMUL_H
#define CUARR_LINALG_MATMUL_H

#include "internal.h"

/* C[i] = A[i] @ B[i] (or C[i] += ..., for a later stretch of a long inner extent) for i in
 * 0..batch-1; A[i] is m x k at a + i * a_batch, its element (r, s) at r * a_rs + s * a_cs (all
 * in bytes; likewise B, k x n, and C, m x n).  The three share one dtype. */
typedef struct cuarr_gemm {
  cuarr_dtype dtype;
  cuarr_matmul_precision precision;
  char *a, *b, *c; /* first elements: host pointers or device addresses */
  int m, n, k, batch;
  int64_t a_batch, b_batch, c_batch;
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
  bool accumulate;
} cuarr_gemm;

/* How BLAS reads a matrix: its rows contiguous (row-major: Fortran's view is the transpose)
 * or its columns, ld elements between the starts of consecutive rows (columns). */
typedef struct cuarr_blas_matrix {
  bool col_major;
  int ld;
} cuarr_blas_matrix;

/* Whether BLAS can read a rows x cols matrix whose elements are rs and cs bytes apart (items of
 * `itemsize` bytes) as it lies, and how.  Row-major is preferred when both fit. */
bool cuarr_blas_matrix_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs, size_t itemsize,
                          cuarr_blas_matrix *out);

/* A product as column-major BLAS computes it: C' = op(A') op(B'), C' m x n with leading
 * dimension ldc.  A row-major C is computed as its transpose (C^T = B^T A^T), so that no
 * operand is copied for its layout.  False when an operand is not BLAS-readable. */
typedef struct cuarr_blas_call {
  bool swapped; /* C^T = B^T A^T: A' is B and B' is A */
  bool trans_a, trans_b;
  int m, n, k;
  const char *a, *b;
  int lda, ldb;
  char *c;
  int ldc;
} cuarr_blas_call;
bool cuarr_blas_call_of(const cuarr_gemm *g, cuarr_blas_call *out);

/* Whether the engine for dtype needs BLAS-readable operands (the float ones: BLAS, cuBLAS, and
 * cuarr's kernel for small products, which shares their packing), or takes any strides
 * (cuarr's own, for bool and integers). */
bool cuarr_matmul_needs_blas_layout(cuarr_dtype dtype);

/* ---- matmul_host.c: the system BLAS (float32, float64) and C loops (bool, integers) */
cuarr_status cuarr_matmul_host(const cuarr_gemm *g);

/* ---- matmul_device.c: cuBLAS (float16, float32, float64) and cuarr's kernel (the others),
 * queued on stream */
cuarr_status cuarr_matmul_device(int device, CUstream stream, const cuarr_gemm *g);

/* ---- matmul_kernel.c: kernels/templates/matmul.cu for bool, the integers and small float
 * products */
cuarr_status cuarr_matmul_kernel(int device, CUstream stream, const cuarr_gemm *g);
/* The program's source (common.cuh, half.cuh, matmul.cu), made once; NULL with the error set. */
const char *cuarr_matmul_program(void);
/* testing/matmul_compile_all.c, for `make test`: compile the program (NVRTC only, no GPU) for
 * sm_<arch>; *n_kernels: how many of its kernels the cubin holds. */
cuarr_status cuarr_matmul_kernels_compile_all(int arch, int *n_kernels);

/* ---- cublas_handles.c: one cuBLAS handle per (device, stream), each with its workspace */
typedef struct cuarr_cublas_handle cuarr_cublas_handle;
/* The handle for (device, stream), created on first use, locked for the caller's calls until
 * cuarr_cublas_handle_unlock: cuBLAS handles keep settings (the stream, the math mode) that
 * two threads must not change under each other. */
cuarr_status cuarr_cublas_handle_lock(int device, CUstream stream, cuarr_cublas_handle **out);
void cuarr_cublas_handle_unlock(cuarr_cublas_handle *h);
cublasHandle_t cuarr_cublas_handle_get(const cuarr_cublas_handle *h);
/* The cuSOLVER handle on the same stream (made on first use; CUARR_NOT_AVAILABLE without
 * cuSOLVER).  Only while h is locked. */
cuarr_status cuarr_cublas_handle_solver(cuarr_cublas_handle *h, cusolverDnHandle_t *out);

#endif
