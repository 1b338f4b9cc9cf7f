/*
 * test_gather_host.c -- the C API of indexing with integer arrays on host arrays (no GPU), with
 * the 0-based indices a C caller uses (base 0): cuarr_take along each axis and in each mode,
 * cuarr_gather's placement of the broadcast index axes, cuarr_scatter (the last of repeated
 * positions wins on the host, values broadcast and converted), and the errors: a bad index
 * leaves the output unallocated and a scattered array unchanged.
 */
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

/* A host array of dtype and shape holding vals (int64 values converted). */
static cuarr_array make(cuarr_dtype dtype, int ndim, const int64_t *shape, const int64_t *vals) {
  cuarr_array a = {0};
  cuarr_reclaim none = {NULL, NULL};
  if (cuarr_array_empty(CUARR_HOST, dtype, ndim, shape, false, NULL, none, &a) != CUARR_OK)
    return a;
  int64_t n = cuarr_array_size(&a);
  for (int64_t i = 0; i < n; i++)
    cuarr_scalar_store((cuarr_scalar){.dtype = CUARR_INT64, .v.i = vals[i]}, dtype,
                       (char *)cuarr_array_data(&a) + i * (int64_t)cuarr_dtype_size(dtype));
  return a;
}

static int64_t at32(const cuarr_array *a, int64_t i) {
  return ((const int32_t *)cuarr_array_data(a))[i];
}

static bool equals32(const cuarr_array *a, int ndim, const int64_t *shape, const int64_t *want) {
  if (a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof(int64_t)) != 0)
    return false;
  for (int64_t i = 0; i < cuarr_array_size(a); i++)
    if (at32(a, i) != want[i])
      return false;
  return true;
}

int main(void) {
  static const int64_t digits[] = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  const int64_t s34[] = {3, 4};
  cuarr_array a = make(CUARR_INT32, 2, s34, digits);

  /* take along axis 1 (0-based), negative from the end */
  const int64_t s3[] = {3}, i3[] = {3, 0, -1};
  cuarr_array idx = make(CUARR_INT16, 1, s3, i3);
  cuarr_array out = {0};
  CHECK(cuarr_take(NULL, &a, &idx, 1, 0, CUARR_INDEX_RAISE, &out) == CUARR_OK, "take runs");
  const int64_t s33[] = {3, 3}, w1[] = {3, 0, 3, 13, 10, 13, 23, 20, 23};
  CHECK(equals32(&out, 2, s33, w1), "take along axis 1 with base 0 and a negative index");
  cuarr_array_release(&out);

  /* wrap and clip */
  const int64_t iw[] = {4, -5, 7};
  cuarr_array wi = make(CUARR_INT64, 1, s3, iw);
  CHECK(cuarr_take(NULL, &a, &wi, 1, 0, CUARR_INDEX_WRAP, &out) == CUARR_OK, "wrap runs");
  const int64_t ww[] = {0, 3, 3, 10, 13, 13, 20, 23, 23};
  CHECK(equals32(&out, 2, s33, ww), "wrap: positions modulo the extent");
  cuarr_array_release(&out);
  CHECK(cuarr_take(NULL, &a, &wi, 1, 0, CUARR_INDEX_CLIP, &out) == CUARR_OK, "clip runs");
  const int64_t wc[] = {3, 0, 3, 13, 10, 13, 23, 20, 23};
  CHECK(equals32(&out, 2, s33, wc), "clip: clamped, negative values to the first");
  cuarr_array_release(&out);

  /* two index arrays broadcast: (2,1) rows and (3,) columns, in place (at 0) */
  const int64_t s21[] = {2, 1}, ir[] = {2, 0}, ic[] = {1, 3, 0};
  cuarr_array rows = make(CUARR_UINT8, 2, s21, ir), cols = make(CUARR_INT32, 1, s3, ic);
  cuarr_fancy_index ix = {.n = 2, .at = 0, .base = 0, .mode = CUARR_INDEX_RAISE};
  ix.axes[0] = 0;
  ix.axes[1] = 1;
  ix.index[0] = &rows;
  ix.index[1] = &cols;
  CHECK(cuarr_gather(NULL, &a, &ix, &out) == CUARR_OK, "gather of two broadcast index arrays");
  const int64_t s23[] = {2, 3}, w2[] = {21, 23, 20, 1, 3, 0};
  CHECK(equals32(&out, 2, s23, w2), "the broadcast (2, 3) selection");
  cuarr_array_release(&out);

  /* one index array on axis 1 with its axes first (at 0) or last (at 1) */
  cuarr_fancy_index one = {.n = 1, .at = 1, .base = 0, .mode = CUARR_INDEX_RAISE};
  one.axes[0] = 1;
  one.index[0] = &rows;
  int nd;
  int64_t shape[CUARR_MAXDIM];
  CHECK(cuarr_fancy_shape(&a, &one, &nd, shape) == CUARR_OK && nd == 3 && shape[0] == 3 &&
            shape[1] == 2 && shape[2] == 1,
        "at 1: the index axes after the kept one");
  one.at = 0;
  CHECK(cuarr_fancy_shape(&a, &one, &nd, shape) == CUARR_OK && nd == 3 && shape[0] == 2 &&
            shape[1] == 1 && shape[2] == 3,
        "at 0: the index axes first");

  /* scatter: repeated positions, the last wins on the host; values converted */
  const int64_t s4[] = {4}, ip[] = {1, 1, 2, 1};
  cuarr_array pos = make(CUARR_INT64, 1, s4, ip);
  const int64_t fv[] = {5, 6, 7, 8};
  cuarr_array vals = make(CUARR_FLOAT64, 1, s4, fv);
  cuarr_fancy_index sx = {.n = 1, .at = 1, .base = 0, .mode = CUARR_INDEX_RAISE};
  sx.axes[0] = 1;
  sx.index[0] = &pos;
  const int64_t s31[] = {3, 1};
  const int64_t col[] = {100, 200, 300};
  cuarr_array colv = make(CUARR_INT64, 2, s31, col);
  CHECK(cuarr_scatter(NULL, &a, &sx, &colv) == CUARR_OK, "scatter of a broadcast column");
  const int64_t w3[] = {0, 100, 100, 3, 10, 200, 200, 13, 20, 300, 300, 23};
  CHECK(equals32(&a, 2, s34, w3), "scatter: the column broadcast along the selection");
  cuarr_fancy_index sr = {.n = 1, .at = 0, .base = 0, .mode = CUARR_INDEX_RAISE};
  sr.axes[0] = 1;
  sr.index[0] = &pos;
  cuarr_array row = {0};
  CHECK(cuarr_view_select(&a, 0, 0, &row) == CUARR_OK, "a row view");
  CHECK(cuarr_scatter(NULL, &row, &sr, &vals) != CUARR_OK, "axis 1 of a 1-D view is refused");
  sr.axes[0] = 0;
  CHECK(cuarr_scatter(NULL, &row, &sr, &vals) == CUARR_OK, "scatter with repeats");
  CHECK(at32(&a, 1) == 8 && at32(&a, 2) == 7, "the last value of a repeated position wins");
  cuarr_array_release(&row);

  /* errors: a bad index leaves out unallocated and a unchanged */
  const int64_t bad[] = {0, 4, 1};
  cuarr_array bi = make(CUARR_INT64, 1, s3, bad);
  out = (cuarr_array){0};
  CHECK(cuarr_take(NULL, &a, &bi, 1, 0, CUARR_INDEX_RAISE, &out) == CUARR_INDEX_ERROR &&
            out.buf == NULL,
        "an index past the end is an IndexError and allocates nothing");
  int32_t before[12];
  memcpy(before, cuarr_array_data(&a), sizeof before);
  sx.axes[0] = 1;
  sx.index[0] = &bi;
  CHECK(cuarr_scatter(NULL, &a, &sx, &colv) == CUARR_INDEX_ERROR, "a bad scatter index");
  CHECK(memcmp(before, cuarr_array_data(&a), sizeof before) == 0, "nothing was written");
  cuarr_array zero = make(CUARR_INT64, 1, s3, (const int64_t[]){0, 0, 0});
  CHECK(cuarr_take(NULL, &a, &zero, 0, 1, CUARR_INDEX_RAISE, &out) == CUARR_INDEX_ERROR,
        "with base 1, index 0 is an IndexError");
  cuarr_array fidx = make(CUARR_FLOAT32, 1, s3, i3);
  CHECK(cuarr_take(NULL, &a, &fidx, 0, 0, CUARR_INDEX_RAISE, &out) == CUARR_INDEX_ERROR,
        "a float index array is an IndexError");
  const int64_t s2[] = {2};
  cuarr_array i2 = make(CUARR_INT64, 1, s2, ip);
  ix.index[0] = &i2;
  ix.index[1] = &cols;
  CHECK(cuarr_gather(NULL, &a, &ix, &out) == CUARR_INDEX_ERROR,
        "index arrays that do not broadcast");
  sx.index[0] = &idx;
  CHECK(cuarr_scatter(NULL, &a, &sx, &vals) == CUARR_VALUE_ERROR,
        "values that do not broadcast to the selection are a ValueError");
  CHECK(memcmp(before, cuarr_array_data(&a), sizeof before) == 0, "and nothing was written");

  cuarr_array *all[] = {&a, &idx, &wi, &rows, &cols, &pos, &vals, &colv, &bi, &zero, &fidx, &i2};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    cuarr_array_release(all[i]);
  return ctest_done();
}
