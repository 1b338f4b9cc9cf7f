/* test_bool_bytes.c -- one rule for bool storage on the host: a byte other than 0 is True.
 * Bool arrays whose bytes are 2..255 (memory an embedder wrapped, or `empty`) multiply
 * (matmul, vdot-like 1-D products, batches, transposed views, accumulation) as any() and
 * count_nonzero() read them; UBSan's bool check would flag a load of such a byte as C's bool.
 * Also: every write path the core offers refuses a read-only destination before it touches
 * anything (cuarr_array_check_writeable). */
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

static const cuarr_reclaim no_reclaim = {NULL, NULL};

static cuarr_array make(cuarr_dtype dt, int ndim, const int64_t *shape) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  if (cuarr_array_empty(CUARR_HOST, dt, ndim, shape, false, NULL, no_reclaim, &a) != CUARR_OK)
    printf("# cuarr_array_empty failed: %s\n", cuarr_last_error());
  return a;
}

/* Byte k of a bool array of n bytes: 0 for a third of them, else 2..255 (never 1). */
static void fill_bytes(cuarr_array *a, int64_t n, unsigned seed) {
  uint8_t *p = cuarr_array_data(a);
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1103515245u + 12345u;
    unsigned r = (seed >> 16) % 3;
    p[k] = r == 0 ? 0 : (uint8_t)(2 + (seed >> 8) % 254);
  }
}

static bool at(const cuarr_array *a, int64_t i, int64_t j) {
  const uint8_t *p = cuarr_array_data(a);
  return p[i * a->strides[0] + j * a->strides[1]] != 0;
}

/* C = A @ B for bool A (m x k) and B (k x n) against any(A[i, :] & B[:, j]) read bytewise. */
static bool matmul_matches(const cuarr_array *A, const cuarr_array *B) {
  cuarr_context ctx = {NULL, no_reclaim};
  cuarr_array C;
  memset(&C, 0, sizeof C);
  if (cuarr_matmul(&ctx, A, B, CUARR_MATMUL_HIGHEST, &C) != CUARR_OK) {
    printf("# matmul failed: %s\n", cuarr_last_error());
    return false;
  }
  bool ok = C.dtype == CUARR_BOOL;
  const uint8_t *c = cuarr_array_data(&C);
  for (int64_t i = 0; ok && i < A->shape[0]; i++)
    for (int64_t j = 0; ok && j < B->shape[1]; j++) {
      bool want = false;
      for (int64_t q = 0; q < A->shape[1]; q++)
        want = want || (at(A, i, q) && at(B, q, j));
      ok = c[i * C.strides[0] + j * C.strides[1]] == (uint8_t)want;
    }
  cuarr_array_release(&C);
  return ok;
}

static void test_matmul_bool_bytes(void) {
  int64_t sa[2] = {5, 7}, sb[2] = {7, 3};
  cuarr_array A = make(CUARR_BOOL, 2, sa), B = make(CUARR_BOOL, 2, sb);
  fill_bytes(&A, 35, 1);
  fill_bytes(&B, 21, 2);
  CHECK(matmul_matches(&A, &B), "bool matmul reads bytes 2..255 as True");
  /* A row of A all 2s against a column of B all 255s: True, as any() says. */
  memset(cuarr_array_data(&A), 2, 35);
  memset(cuarr_array_data(&B), 255, 21);
  CHECK(matmul_matches(&A, &B), "bool matmul of all-2 by all-255 is all True");
  /* A transposed (strided) view. */
  int64_t sq[2] = {7, 7};
  cuarr_array S = make(CUARR_BOOL, 2, sq), T;
  fill_bytes(&S, 49, 3);
  CHECK(cuarr_view_transpose(&S, NULL, &T) == CUARR_OK && matmul_matches(&T, &B),
        "bool matmul of a transposed view with bytes 2..255");
  cuarr_array_release(&T);
  cuarr_array_release(&S);
  cuarr_array_release(&A);
  cuarr_array_release(&B);
}

static void test_reduce_agrees(void) {
  int64_t n = 4;
  cuarr_array v = make(CUARR_BOOL, 1, &n);
  memcpy(cuarr_array_data(&v), (uint8_t[4]){0, 2, 0, 254}, 4);
  int64_t s1[2] = {1, 4}, s2[2] = {4, 1};
  cuarr_array row, col;
  cuarr_context ctx = {NULL, no_reclaim};
  bool made = cuarr_view_reshape(&v, 2, s1, &row, &(bool){false}) == CUARR_OK &&
              cuarr_view_reshape(&v, 2, s2, &col, &(bool){false}) == CUARR_OK;
  cuarr_array dot, any;
  memset(&dot, 0, sizeof dot);
  memset(&any, 0, sizeof any);
  cuarr_reduce_args args;
  memset(&args, 0, sizeof args);
  args.axes = ~(uint64_t)0;
  args.dtype = -1;
  bool ok = made && cuarr_matmul(&ctx, &row, &col, CUARR_MATMUL_HIGHEST, &dot) == CUARR_OK &&
            cuarr_reduce(&ctx, CUARR_REDUCE_ANY, &v, &args, &any) == CUARR_OK;
  CHECK(ok && *(uint8_t *)cuarr_array_data(&dot) == 1 && *(uint8_t *)cuarr_array_data(&any) == 1,
        "v @ v of bytes {0, 2, 0, 254} is True, as any(v)");
  cuarr_array_release(&dot);
  cuarr_array_release(&any);
  if (made) {
    cuarr_array_release(&row);
    cuarr_array_release(&col);
  }
  cuarr_array_release(&v);
}

static bool read_only_error(cuarr_status s) {
  return s == CUARR_VALUE_ERROR && strstr(cuarr_last_error(), "read-only") != NULL;
}

static void test_read_only_destinations(void) {
  int64_t one = 1, big[2] = {1000000, 1000000000};
  cuarr_array z = make(CUARR_FLOAT64, 1, &one), b;
  memset(cuarr_array_data(&z), 0, 8);
  CHECK(cuarr_view_broadcast(&z, 2, big, &b) == CUARR_OK && b.readonly && !z.readonly,
        "a broadcast view is read-only, its base not");
  cuarr_context ctx = {NULL, no_reclaim};
  cuarr_scalar one_s = {.dtype = CUARR_FLOAT64, .v.f = 1.0};
  CHECK(read_only_error(cuarr_fill(&ctx, &b, one_s)), "fill refuses a read-only array");
  CHECK(read_only_error(cuarr_copy(&ctx, &b, &z)), "copy refuses a read-only destination");
  cuarr_array s;
  CHECK(cuarr_view_slice(&b, 0, 0, 2, 1, &s) == CUARR_OK && s.readonly,
        "a view of a read-only array is read-only");
  cuarr_array_release(&s);
  CHECK(cuarr_array_set_writeable(&b, true, &z, false) == CUARR_VALUE_ERROR && b.readonly,
        "a broadcast view cannot be made writeable");
  CHECK(cuarr_array_set_writeable(&z, false, NULL, false) == CUARR_OK && z.readonly &&
            cuarr_array_set_writeable(&z, true, NULL, false) == CUARR_OK && !z.readonly,
        "an array of its own toggles");
  CHECK(*(double *)cuarr_array_data(&z) == 0.0, "nothing was written");
  cuarr_array_release(&b);
  cuarr_array_release(&z);
}

int main(void) {
  test_matmul_bool_bytes();
  test_reduce_agrees();
  test_read_only_destinations();
  return ctest_done();
}
