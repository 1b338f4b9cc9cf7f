/*
 * test_matmul_plan.c -- how matmul hands products to BLAS and cuBLAS: which layouts BLAS reads
 * as they lie (row- or column-major, any leading dimension, extents of 1 with any stride) and
 * which it cannot (negative, zero or non-unit strides on both axes), the column-major call a
 * row-major or column-major result becomes; and kernels/templates/matmul.cu and linalg.cu
 * (the factorizations' kernels) compiled with NVRTC for sm_90 (no GPU needed).
 */
#include "ctest.h"
#include "internal.h"
#include "linalg/factor.h"
#include "linalg/matmul.h"

static void test_layouts(void) {
  cuarr_blas_matrix m;
  CHECK(cuarr_blas_matrix_of(3, 4, 16, 4, 4, &m) && !m.col_major && m.ld == 4,
        "a C-contiguous 3x4 float32 matrix is row-major with ld 4");
  CHECK(cuarr_blas_matrix_of(3, 4, 4, 12, 4, &m) && m.col_major && m.ld == 3,
        "an F-contiguous one is column-major with ld 3");
  CHECK(cuarr_blas_matrix_of(3, 4, 40, 4, 4, &m) && !m.col_major && m.ld == 10,
        "rows of a wider matrix: row-major, ld 10");
  CHECK(cuarr_blas_matrix_of(1, 5, 0, 12, 4, &m) && m.col_major && m.ld == 3,
        "a single row with stride 3 items: column-major, ld 3");
  CHECK(cuarr_blas_matrix_of(5, 1, 8, 0, 8, &m) && !m.col_major && m.ld == 1,
        "a single column with unit stride: row-major, ld 1");
  CHECK(!cuarr_blas_matrix_of(3, 4, 32, 8, 4, &m), "every other column: not readable");
  CHECK(!cuarr_blas_matrix_of(3, 4, -16, 4, 4, &m), "rows flipped: not readable");
  CHECK(!cuarr_blas_matrix_of(3, 4, 0, 4, 4, &m), "a broadcast row: not readable");
  CHECK(!cuarr_blas_matrix_of(3, 4, 8, 4, 4, &m), "overlapping rows: not readable");
  CHECK(!cuarr_blas_matrix_of(2, 2, (int64_t)4 << 31, 4, 4, &m),
        "a leading dimension past an int: not readable");
}

static void test_calls(void) {
  char a[1], b[1], c[1];
  /* (2x3) @ (3x5) -> 2x5, all C-contiguous float64. */
  cuarr_gemm g = {.dtype = CUARR_FLOAT64,
                  .a = a,
                  .b = b,
                  .c = c,
                  .m = 2,
                  .n = 5,
                  .k = 3,
                  .batch = 1,
                  .a_rs = 24,
                  .a_cs = 8,
                  .b_rs = 40,
                  .b_cs = 8,
                  .c_rs = 40,
                  .c_cs = 8};
  cuarr_blas_call call;
  CHECK(cuarr_blas_call_of(&g, &call) && call.swapped && !call.trans_a && !call.trans_b &&
            call.m == 5 && call.n == 2 && call.k == 3 && call.a == b && call.b == a &&
            call.lda == 5 && call.ldb == 3 && call.ldc == 5,
        "a row-major product is computed as C^T = B^T A^T with no transposes");
  g.a_rs = 8, g.a_cs = 16; /* a is a.T of a C-contiguous 3x2 */
  CHECK(cuarr_blas_call_of(&g, &call) && call.swapped && !call.trans_a && call.trans_b &&
            call.ldb == 2,
        "a transposed operand goes through the op flag, not a copy");
  g.c_rs = 8, g.c_cs = 16; /* an F-order result */
  CHECK(cuarr_blas_call_of(&g, &call) && !call.swapped && !call.trans_a && call.trans_b &&
            call.m == 2 && call.n == 5 && call.a == a && call.ldc == 2,
        "a column-major result is computed as it lies");
  g.b_cs = 16;
  CHECK(!cuarr_blas_call_of(&g, &call), "an operand with no unit stride is refused");
}

static void test_kernels_compile(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return;
  }
  int n = 0;
  cuarr_status s = cuarr_matmul_kernels_compile_all(90, &n);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK && n == CUARR_NDTYPES,
        "matmul.cu compiles for sm_90 with a kernel for each dtype");
  s = cuarr_linalg_kernels_compile_all(90, &n);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK && n == 9, "linalg.cu compiles for sm_90 with its nine kernels");
}

int main(void) {
  test_layouts();
  test_calls();
  test_kernels_compile();
  return ctest_done();
}
