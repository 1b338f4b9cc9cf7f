/*
 * test_mask_host.c -- the masks' public C API on host arrays, as an embedder calls it (no GPU,
 * no Lua): cuarr_nonzero with base 0 and 1, into a given output and one of another dtype,
 * cuarr_mask_select over leading axes and into a given output, cuarr_mask_assign from a 0-d
 * value, from rows and from values overlapping the array, and the errors (a 0-d nonzero, a mask
 * of the wrong shape, values that do not broadcast, no output), each leaving its arrays as they
 * were and allocating nothing.
 */
#include <math.h>
#include <string.h>

#include "ctest.h"
#include "internal.h"

static const cuarr_reclaim no_reclaim = {NULL, NULL};

static cuarr_array make(cuarr_dtype dt, int ndim, const int64_t *shape) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  if (cuarr_array_empty(CUARR_HOST, dt, ndim, shape, false, NULL, no_reclaim, &a) != CUARR_OK)
    printf("# cuarr_array_empty failed: %s\n", cuarr_last_error());
  return a;
}

static bool same_i64(const cuarr_array *a, const int64_t *want, int64_t n) {
  return cuarr_array_size(a) == n && memcmp(cuarr_array_data(a), want, (size_t)n * 8) == 0;
}

int main(void) {
  cuarr_context ctx = {NULL, no_reclaim};

  /* A 2x3 float32 mask: NaN and -2 are true, 0 and -0.0 false. */
  int64_t s23[2] = {2, 3};
  cuarr_array m = make(CUARR_FLOAT32, 2, s23);
  float mv[6] = {0.0f, NAN, -0.0f, -2.0f, 0.0f, 1.5f};
  memcpy(cuarr_array_data(&m), mv, sizeof mv);

  cuarr_array pos = {0};
  CHECK(cuarr_nonzero(&ctx, &m, 0, &pos) == CUARR_OK, "nonzero allocates its output");
  int64_t want0[6] = {0, 1, 1, 1, 0, 2};
  CHECK(pos.ndim == 2 && pos.shape[0] == 2 && pos.shape[1] == 3 && pos.dtype == CUARR_INT64,
        "nonzero's output is int64 [ndim, count]");
  CHECK(same_i64(&pos, want0, 6), "nonzero's rows hold the indices along each axis (base 0)");
  cuarr_array_release(&pos);

  /* A given float64 output: through a temporary, then converted. */
  cuarr_array given = make(CUARR_FLOAT64, 2, (int64_t[]){2, 3});
  CHECK(cuarr_nonzero(&ctx, &m, 1, &given) == CUARR_OK, "nonzero into a given float64 output");
  const double *g = cuarr_array_data(&given);
  CHECK(g[0] == 1 && g[2] == 2 && g[3] == 2 && g[5] == 3, "with base 1, converted");
  cuarr_array wrong = make(CUARR_INT64, 2, (int64_t[]){2, 4});
  CHECK(cuarr_nonzero(&ctx, &m, 0, &wrong) == CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "shape") != NULL,
        "nonzero into an output of the wrong shape is a ValueError");

  /* Selection over the leading axis of a 2x3 int16 array by a 1-D uint8 mask. */
  cuarr_array a = make(CUARR_INT16, 2, s23);
  int16_t av[6] = {1, 2, 3, 4, 5, 6};
  memcpy(cuarr_array_data(&a), av, sizeof av);
  cuarr_array rows = make(CUARR_UINT8, 1, (int64_t[]){2});
  uint8_t rv[2] = {0, 7};
  memcpy(cuarr_array_data(&rows), rv, sizeof rv);
  cuarr_array sel = {0};
  CHECK(cuarr_mask_select(&ctx, &a, &rows, &sel) == CUARR_OK, "selection of rows");
  const int16_t *sv = cuarr_array_data(&sel);
  CHECK(sel.ndim == 2 && sel.shape[0] == 1 && sel.shape[1] == 3 && sv[0] == 4 && sv[2] == 6,
        "the second row, as [1, 3]");
  cuarr_array_release(&sel);

  /* Selection by the float mask into a given int64 output (converted). */
  cuarr_array out = make(CUARR_INT64, 1, (int64_t[]){3});
  CHECK(cuarr_mask_select(&ctx, &a, &m, &out) == CUARR_OK, "selection into a given output");
  int64_t want_sel[3] = {2, 4, 6};
  CHECK(same_i64(&out, want_sel, 3), "the selected elements in C order, converted");

  /* A 0-d mask over a 0-d array: shape [1]. */
  cuarr_array s0 = make(CUARR_FLOAT64, 0, NULL), t0 = make(CUARR_BOOL, 0, NULL);
  *(double *)cuarr_array_data(&s0) = 2.5;
  *(unsigned char *)cuarr_array_data(&t0) = 2; /* a bool byte other than 1 is true */
  CHECK(cuarr_mask_select(&ctx, &s0, &t0, &sel) == CUARR_OK && sel.ndim == 1 && sel.shape[0] == 1 &&
            *(double *)cuarr_array_data(&sel) == 2.5,
        "a true 0-d mask over a 0-d array selects it, as [1]");
  cuarr_array_release(&sel);
  CHECK(cuarr_nonzero(&ctx, &t0, 0, &pos) == CUARR_VALUE_ERROR && pos.buf == NULL,
        "nonzero of a 0-d mask is a ValueError and allocates nothing");

  /* Assignment: a 0-d value fills the selected elements, converted (2.9 -> 2). */
  *(double *)cuarr_array_data(&s0) = 2.9;
  CHECK(cuarr_mask_assign(&ctx, &a, &m, &s0) == CUARR_OK, "assignment of a 0-d value");
  int16_t want_a[6] = {1, 2, 3, 2, 5, 2};
  CHECK(memcmp(cuarr_array_data(&a), want_a, sizeof want_a) == 0, "fills, converted");

  /* Assignment of a row to the rows the mask selects, values overlapping a: a[rows] = a[0]. */
  cuarr_array first;
  CHECK(cuarr_view_select(&a, 0, 0, &first) == CUARR_OK, "a view of the first row");
  CHECK(cuarr_mask_assign(&ctx, &a, &rows, &first) == CUARR_OK,
        "assignment from a view of the array itself");
  int16_t want_b[6] = {1, 2, 3, 1, 2, 3};
  CHECK(memcmp(cuarr_array_data(&a), want_b, sizeof want_b) == 0, "the row broadcast");
  cuarr_array_release(&first);

  /* Errors leave a as it was. */
  cuarr_array bad_mask = make(CUARR_BOOL, 1, (int64_t[]){3});
  memset(cuarr_array_data(&bad_mask), 1, 3);
  CHECK(cuarr_mask_select(&ctx, &a, &bad_mask, &sel) == CUARR_INDEX_ERROR && sel.buf == NULL &&
            strstr(cuarr_last_error(), "did not match") != NULL,
        "a mask of the wrong extent is an IndexError, nothing allocated");
  cuarr_array two = make(CUARR_INT16, 1, (int64_t[]){2});
  CHECK(cuarr_mask_assign(&ctx, &a, &m, &two) == CUARR_VALUE_ERROR &&
            memcmp(cuarr_array_data(&a), want_b, sizeof want_b) == 0,
        "two values for three selected elements: a ValueError, a unchanged");
  CHECK(cuarr_mask_select(&ctx, &a, &m, NULL) == CUARR_VALUE_ERROR, "no output: a ValueError");

  cuarr_array *all[] = {&m, &given, &wrong, &a, &rows, &out, &s0, &t0, &bad_mask, &two};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    cuarr_array_release(all[i]);
  return ctest_done();
}
