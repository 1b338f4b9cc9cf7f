/*
 * matmul_host.c -- products of host arrays: float32 and float64 through the system BLAS, one
 * gemm per matrix of the batch; bool and the integers through C loops that sum in the result
 * dtype and wrap as NumPy's do (in an unsigned type: signed overflow is undefined in C), bool
 * as an or of ands.
 */
#include "linalg/host_blas.h"
#include "linalg/matmul.h"

static cuarr_status blas_gemm(const cuarr_gemm *g) {
  const cuarr_host_blas *blas;
  CUARR_TRY(cuarr_load_host_blas(&blas));
  const bool f64 = g->dtype == CUARR_FLOAT64;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const void *alpha = f64 ? (const void *)&one64 : (const void *)&one32;
  const void *beta = g->accumulate ? alpha : f64 ? (const void *)&zero64 : (const void *)&zero32;
  for (int i = 0; i < g->batch; i++) {
    cuarr_gemm one = *g;
    one.a += i * g->a_batch, one.b += i * g->b_batch, one.c += i * g->c_batch;
    cuarr_blas_call c;
    if (!cuarr_blas_call_of(&one, &c)) /* matmul.c packs what BLAS cannot read */
      return cuarr_fail(CUARR_VALUE_ERROR, "matmul: an operand BLAS cannot read reached it");
    (f64 ? blas->dgemm : blas->sgemm)(c.trans_a ? "T" : "N", c.trans_b ? "T" : "N", &c.m, &c.n,
                                      &c.k, alpha, c.a, &c.lda, c.b, &c.ldb, beta, c.c, &c.ldc, 1,
                                      1);
  }
  return CUARR_OK;
}

/* One loop per dtype: T the element type, U the unsigned type the sums wrap in. */
#define INTEGER_GEMM(name, T, U)                                                                   \
  static void name(const cuarr_gemm *g) {                                                          \
    for (int i = 0; i < g->batch; i++)                                                             \
      for (int r = 0; r < g->m; r++)                                                               \
        for (int col = 0; col < g->n; col++) {                                                     \
          const char *a = g->a + i * g->a_batch + r * g->a_rs;                                     \
          const char *b = g->b + i * g->b_batch + col * g->b_cs;                                   \
          T *c = (T *)(g->c + i * g->c_batch + r * g->c_rs + col * g->c_cs);                       \
          U sum = g->accumulate ? (U)*c : 0;                                                       \
          for (int k = 0; k < g->k; k++)                                                           \
            sum += (U) * (const T *)(a + k * g->a_cs) * (U) * (const T *)(b + k * g->b_rs);        \
          *c = (T)sum;                                                                             \
        }                                                                                          \
  }
INTEGER_GEMM(gemm_i8, int8_t, uint32_t)
INTEGER_GEMM(gemm_i16, int16_t, uint32_t)
INTEGER_GEMM(gemm_i32, int32_t, uint32_t)
INTEGER_GEMM(gemm_i64, int64_t, uint64_t)
INTEGER_GEMM(gemm_u8, uint8_t, uint32_t)
INTEGER_GEMM(gemm_u16, uint16_t, uint32_t)
INTEGER_GEMM(gemm_u32, uint32_t, uint32_t)
INTEGER_GEMM(gemm_u64, uint64_t, uint64_t)
#undef INTEGER_GEMM

static void gemm_bool(const cuarr_gemm *g) {
  for (int i = 0; i < g->batch; i++)
    for (int r = 0; r < g->m; r++)
      for (int col = 0; col < g->n; col++) {
        const char *a = g->a + i * g->a_batch + r * g->a_rs;
        const char *b = g->b + i * g->b_batch + col * g->b_cs;
        /* Bool storage is read as bytes, nonzero being True (as every other loop reads it):
         * a byte other than 0/1 loaded as C's bool is undefined behaviour. */
        uint8_t *c = (uint8_t *)(g->c + i * g->c_batch + r * g->c_rs + col * g->c_cs);
        bool any = g->accumulate && *c != 0;
        for (int k = 0; k < g->k && !any; k++)
          any =
              *(const uint8_t *)(a + k * g->a_cs) != 0 && *(const uint8_t *)(b + k * g->b_rs) != 0;
        *c = any;
      }
}

cuarr_status cuarr_matmul_host(const cuarr_gemm *g) {
  switch (g->dtype) {
  case CUARR_FLOAT32:
  case CUARR_FLOAT64: return blas_gemm(g);
  case CUARR_BOOL: gemm_bool(g); break;
  case CUARR_INT8: gemm_i8(g); break;
  case CUARR_INT16: gemm_i16(g); break;
  case CUARR_INT32: gemm_i32(g); break;
  case CUARR_INT64: gemm_i64(g); break;
  case CUARR_UINT8: gemm_u8(g); break;
  case CUARR_UINT16: gemm_u16(g); break;
  case CUARR_UINT32: gemm_u32(g); break;
  case CUARR_UINT64: gemm_u64(g); break;
  default:
    return cuarr_fail(CUARR_TYPE_ERROR, "matmul: no host loop for %s", cuarr_dtype_name(g->dtype));
  }
  return CUARR_OK;
}
