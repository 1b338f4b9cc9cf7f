/* test_layout.c -- the strides of the memory orders (cuarr_strides_f, cuarr_strides_keep) and
 * cuarr_array_is_dense, which decides whether a transfer moves an array's bytes as they are
 * (src/core/array/layout.c).  Arrays here are layouts only: no buffer is needed. */
#include <stdbool.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

static cuarr_array layout(int ndim, const int64_t *shape, const int64_t *strides) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  a.dtype = CUARR_FLOAT32;
  a.ndim = ndim;
  memcpy(a.shape, shape, (size_t)ndim * sizeof shape[0]);
  memcpy(a.strides, strides, (size_t)ndim * sizeof strides[0]);
  return a;
}

static bool same(int n, const int64_t *got, const int64_t *want) {
  return memcmp(got, want, (size_t)n * sizeof got[0]) == 0;
}

int main(void) {
  int64_t st[CUARR_MAXDIM];
  const int64_t s234[] = {2, 3, 4};
  cuarr_strides_f(3, s234, 4, st);
  CHECK(same(3, st, (int64_t[]){4, 8, 24}), "F strides are itemsize times the earlier extents");
  const int64_t s030[] = {0, 3, 0};
  cuarr_strides_f(3, s030, 8, st);
  CHECK(same(3, st, (int64_t[]){8, 8, 24}), "F strides count an extent of 0 as 1");

  cuarr_array c = layout(3, s234, (int64_t[]){48, 16, 4});
  cuarr_strides_keep(&c, 8, st);
  CHECK(same(3, st, (int64_t[]){96, 32, 8}), "keep of a C-contiguous array is C order");
  cuarr_array f = layout(3, s234, (int64_t[]){4, 8, 24});
  cuarr_strides_keep(&f, 2, st);
  CHECK(same(3, st, (int64_t[]){2, 4, 12}), "keep of an F-contiguous array is F order");
  const int64_t s324[] = {3, 2, 4};
  cuarr_array p = layout(3, s324, (int64_t[]){16, 48, 4});
  cuarr_strides_keep(&p, 4, st);
  CHECK(same(3, st, (int64_t[]){16, 48, 4}), "keep of a permuted array is its own order");
  cuarr_array r = layout(3, s234, (int64_t[]){48, -16, 4});
  cuarr_strides_keep(&r, 4, st);
  CHECK(same(3, st, (int64_t[]){48, 16, 4}), "keep orders reversed axes by |stride|");
  cuarr_array z = layout(0, s234, st);
  cuarr_strides_keep(&z, 4, st); /* writes nothing */
  CHECK(cuarr_array_is_dense(&z), "a 0-d array is dense");

  CHECK(cuarr_array_is_dense(&c), "a C-contiguous array is dense");
  CHECK(cuarr_array_is_dense(&f), "an F-contiguous array is dense");
  CHECK(cuarr_array_is_dense(&p), "a permuted contiguous array is dense");
  CHECK(!cuarr_array_is_dense(&r), "an array with a reversed axis is not dense");
  cuarr_array g = layout(3, s234, (int64_t[]){96, 32, 8});
  CHECK(!cuarr_array_is_dense(&g), "a stepped view is not dense");
  const int64_t s134[] = {1, 3, 4};
  cuarr_array one = layout(3, s134, (int64_t[]){999, 16, 4});
  CHECK(cuarr_array_is_dense(&one), "an axis of extent 1 may have any stride");
  cuarr_array e = layout(3, s030, (int64_t[]){0, 7, 0});
  CHECK(cuarr_array_is_dense(&e), "an empty array is dense");
  const int64_t s23[] = {2, 3};
  cuarr_array b = layout(2, s23, (int64_t[]){0, 4});
  CHECK(!cuarr_array_is_dense(&b), "a broadcast (stride 0) array is not dense");
  return ctest_done();
}
