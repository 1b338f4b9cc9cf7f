/*
 * test_iter.c -- the iterator's stages (src/core/array/iter.h) on their own: broadcasting,
 * element strides, flipping negative strides, sorting axes (with a tie-breaker, and a reduced
 * group sorted apart from the kept one), collapsing, the 32-bit check and the packed layout,
 * over 0-d, empty and extent-1 cases.  Needs no device.
 */
#include <string.h>

#include "ctest.h"
#include "internal.h"

static cuarr_array view(int ndim, const int64_t *shape, const int64_t *strides) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  a.ndim = ndim;
  if (ndim > 0) { /* a 0-d view's shape and strides may be NULL, which memcpy must not get */
    memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(a.strides, strides, (size_t)ndim * sizeof *strides);
  }
  return a;
}

static bool same(int n, const int64_t *a, const int64_t *b) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static void test_broadcast_shape(void) {
  int nd = 0;
  int64_t shape[CUARR_MAXDIM];
  CHECK(cuarr_iter_broadcast_shape(&nd, shape, 2, (int64_t[]){3, 1}) && nd == 2 &&
            same(2, shape, (int64_t[]){3, 1}),
        "common shape: the first operand's");
  CHECK(cuarr_iter_broadcast_shape(&nd, shape, 3, (int64_t[]){2, 1, 4}) && nd == 3 &&
            same(3, shape, (int64_t[]){2, 3, 4}),
        "common shape: extent-1 axes and missing leading axes stretch");
  CHECK(cuarr_iter_broadcast_shape(&nd, shape, 0, NULL) && nd == 3 &&
            same(3, shape, (int64_t[]){2, 3, 4}),
        "common shape: a 0-d operand changes nothing");
  CHECK(!cuarr_iter_broadcast_shape(&nd, shape, 1, (int64_t[]){5}) && nd == 3 &&
            same(3, shape, (int64_t[]){2, 3, 4}),
        "common shape: a mismatch fails and leaves the shape");
  int nd0 = 0;
  int64_t s0[CUARR_MAXDIM];
  CHECK(cuarr_iter_broadcast_shape(&nd0, s0, 2, (int64_t[]){0, 1}) &&
            cuarr_iter_broadcast_shape(&nd0, s0, 1, (int64_t[]){4}) && nd0 == 2 &&
            same(2, s0, (int64_t[]){0, 4}) &&
            !cuarr_iter_broadcast_shape(&nd0, s0, 2, (int64_t[]){3, 4}),
        "common shape: empty axes broadcast with 1 only");
}

static void test_broadcast(void) {
  int64_t shape[3] = {2, 3, 4}, st[3];
  cuarr_array row = view(1, (int64_t[]){4}, (int64_t[]){8});
  CHECK(cuarr_iter_broadcast(&row, 3, shape, st) && same(3, st, (int64_t[]){0, 0, 8}),
        "broadcast: missing leading axes step 0");
  cuarr_array col = view(3, (int64_t[]){2, 1, 4}, (int64_t[]){32, 16, 4});
  CHECK(cuarr_iter_broadcast(&col, 3, shape, st) && same(3, st, (int64_t[]){32, 0, 4}),
        "broadcast: extent-1 axes step 0");
  cuarr_array extra = view(4, (int64_t[]){1, 2, 3, 4}, (int64_t[]){96, 96, 32, 8});
  CHECK(cuarr_iter_broadcast(&extra, 3, shape, st) && same(3, st, (int64_t[]){96, 32, 8}),
        "broadcast: extra leading axes of extent 1");
  cuarr_array extra2 = view(4, (int64_t[]){2, 2, 3, 4}, (int64_t[]){96, 96, 32, 8});
  CHECK(!cuarr_iter_broadcast(&extra2, 3, shape, st), "broadcast: an extra axis above 1 fails");
  cuarr_array bad = view(1, (int64_t[]){3}, (int64_t[]){8});
  CHECK(!cuarr_iter_broadcast(&bad, 3, shape, st), "broadcast: mismatched extents fail");
  cuarr_array scalar = view(0, NULL, NULL);
  CHECK(cuarr_iter_broadcast(&scalar, 3, shape, st) && same(3, st, (int64_t[]){0, 0, 0}),
        "broadcast: a 0-d operand steps 0 everywhere");
  CHECK(cuarr_iter_broadcast(&scalar, 0, NULL, st), "broadcast: 0-d to 0-d");
  cuarr_array empty = view(2, (int64_t[]){0, 4}, (int64_t[]){32, 8});
  CHECK(cuarr_iter_broadcast(&empty, 2, (int64_t[]){0, 4}, st) && same(2, st, (int64_t[]){32, 8}),
        "broadcast: an empty axis keeps its stride");
}

static void test_element_strides(void) {
  int64_t shape[3] = {2, 1, 4}, st[3];
  CHECK(
      cuarr_iter_element_strides(3, shape, (int64_t[]){-64, 12, 8}, (void *)(uintptr_t)64, 4, st) &&
          same(3, st, (int64_t[]){-16, 0, 2}),
      "element strides: divided, extent-1 axes 0");
  CHECK(!cuarr_iter_element_strides(3, shape, (int64_t[]){64, 0, 6}, (void *)(uintptr_t)64, 4, st),
        "element strides: a stride off the itemsize fails");
  CHECK(!cuarr_iter_element_strides(3, shape, (int64_t[]){64, 0, 4}, (void *)(uintptr_t)66, 4, st),
        "element strides: misaligned data fails");
  CHECK(cuarr_iter_element_strides(0, NULL, NULL, (void *)(uintptr_t)8, 8, st),
        "element strides: 0-d");
}

static void test_flip(void) {
  /* a[::-1, :] as output and a C-contiguous input: axis 0 flips in both. */
  int64_t shape[2] = {3, 4}, o[2] = {-32, 8}, i[2] = {16, 4};
  int64_t *st[2] = {o, i};
  char *base = (char *)(uintptr_t)4096;
  char *data[2] = {base, base};
  cuarr_iter_flip(2, shape, 2, st, data, NULL, 0, -1);
  CHECK(o[0] == 32 && i[0] == -16 && data[0] == base - 64 && data[1] == base + 32,
        "flip: a backwards axis of the key operand flips in every operand");
  CHECK(o[1] == 8 && i[1] == 4, "flip: forwards axes stay");

  int64_t e[2] = {-2, 1}, f[2] = {3, -1}, itemsize[2] = {4, 8};
  int64_t *es[2] = {e, f};
  data[0] = data[1] = base;
  cuarr_iter_flip(2, (int64_t[]){5, 6}, 2, es, data, itemsize, 0, -1);
  CHECK(e[0] == 2 && f[0] == -3 && data[0] == base - 32 && data[1] == base + 96,
        "flip: element strides move data by the itemsize");

  int64_t k1[2] = {0, 0}, t1[2] = {-4, 4};
  int64_t *s1[2] = {k1, t1};
  data[0] = data[1] = base;
  cuarr_iter_flip(2, (int64_t[]){3, 3}, 2, s1, data, NULL, 0, 1);
  CHECK(t1[0] == 4 && t1[1] == 4 && data[1] == base - 8 && data[0] == base,
        "flip: where the key does not step, the tie operand decides");
  t1[0] = -4;
  data[1] = base;
  cuarr_iter_flip(2, (int64_t[]){3, 3}, 2, s1, data, NULL, 0, -1);
  CHECK(t1[0] == -4 && data[1] == base, "flip: no tie operand, no flip");

  int64_t k2[2] = {-8, -8};
  int64_t *s2[1] = {k2};
  data[0] = base;
  cuarr_iter_flip(2, (int64_t[]){1, 0}, 1, s2, data, NULL, 0, -1);
  CHECK(k2[0] == -8 && k2[1] == -8 && data[0] == base, "flip: extent-1 and empty axes stay");
}

static void test_sort(void) {
  /* F-order output (strides 8, 16, 48) and an input: axes sorted by the output. */
  int64_t shape[3] = {2, 3, 4}, o[3] = {8, 16, 48}, i[3] = {96, 32, 8};
  int64_t *st[2] = {o, i};
  cuarr_iter_sort(3, shape, 2, st, cuarr_iter_by(0));
  CHECK(same(3, shape, (int64_t[]){4, 3, 2}) && same(3, o, (int64_t[]){48, 16, 8}) &&
            same(3, i, (int64_t[]){8, 32, 96}),
        "sort: by the key operand, largest first, carrying the others");

  int64_t sh2[3] = {2, 3, 4}, a[3] = {-8, 8, 0}, b[3] = {1, 2, 3};
  int64_t *s2[2] = {a, b};
  cuarr_iter_sort(3, sh2, 2, s2, cuarr_iter_by(0));
  CHECK(same(3, sh2, (int64_t[]){2, 3, 4}) && same(3, b, (int64_t[]){1, 2, 3}),
        "sort: by magnitude, ties keep C order (stable)");

  int64_t sh3[3] = {2, 3, 4}, c[3] = {0, 0, 0}, d[3] = {-8, 4, 2};
  int64_t *s3[2] = {c, d};
  cuarr_iter_order by_tie = {0, 1, false};
  cuarr_iter_sort(3, sh3, 2, s3, by_tie);
  CHECK(same(3, sh3, (int64_t[]){2, 3, 4}) && same(3, d, (int64_t[]){-8, 4, 2}),
        "sort: ties by the tie operand's magnitude");
  int64_t sh4[3] = {2, 3, 4}, e[3] = {0, 0, 0}, f[3] = {-8, 4, 2};
  int64_t *s4[2] = {e, f};
  cuarr_iter_order by_signed = {0, 1, true};
  cuarr_iter_sort(3, sh4, 2, s4, by_signed);
  CHECK(same(3, sh4, (int64_t[]){3, 4, 2}) && same(3, f, (int64_t[]){4, 2, -8}),
        "sort: ties by the tie operand's signed stride");

  /* A reduction of axes 1 and 2 of an F-order (2, 3, 4) input (element strides 1, 2, 6): the
   * kept axis and the reduced ones sort as two groups, so the reduced axes, the input's
   * outermost, stay apart from the kept one, its innermost. */
  int64_t kshape[1] = {2}, kin[1] = {1}, rshape[2] = {3, 4}, rin[2] = {2, 6};
  int64_t *ks[1] = {kin}, *rs[1] = {rin};
  cuarr_iter_sort(1, kshape, 1, ks, cuarr_iter_by(0));
  cuarr_iter_sort(2, rshape, 1, rs, cuarr_iter_by(0));
  CHECK(kshape[0] == 2 && kin[0] == 1 && same(2, rshape, (int64_t[]){4, 3}) &&
            same(2, rin, (int64_t[]){6, 2}),
        "sort: a reduced group sorts apart from the kept axes");
  CHECK(cuarr_iter_collapse(2, rshape, 1, rs) == 1 && rshape[0] == 12 && rin[0] == 2,
        "sort: the sorted reduced group collapses");
  cuarr_iter_sort(0, NULL, 0, NULL, cuarr_iter_by(0));
  CHECK(true, "sort: no axes");
}

static void test_collapse(void) {
  int64_t shape[3] = {2, 3, 4}, a[3] = {96, 32, 8}, b[3] = {12, 4, 1};
  int64_t *st[2] = {a, b};
  CHECK(cuarr_iter_collapse(3, shape, 2, st) == 1 && shape[0] == 24 && a[0] == 8 && b[0] == 1,
        "collapse: C-contiguous operands to one axis");
  int64_t sh2[3] = {2, 3, 4}, c[3] = {96, 32, 8}, d[3] = {0, 4, 1};
  int64_t *s2[2] = {c, d};
  CHECK(cuarr_iter_collapse(3, sh2, 2, s2) == 2 && same(2, sh2, (int64_t[]){2, 12}) &&
            same(2, d, (int64_t[]){0, 1}),
        "collapse: a broadcast axis stays apart");
  int64_t sh3[4] = {1, 3, 1, 4}, e[4] = {7, 32, 5, 8};
  int64_t *s3[1] = {e};
  CHECK(cuarr_iter_collapse(4, sh3, 1, s3) == 1 && sh3[0] == 12 && e[0] == 8,
        "collapse: extent-1 axes drop out");
  int64_t sh4[2] = {1, 1}, f[2] = {8, 8};
  int64_t *s4[1] = {f};
  CHECK(cuarr_iter_collapse(2, sh4, 1, s4) == 0, "collapse: one element is 0 axes");
  sh4[0] = sh4[1] = 1;
  CHECK(cuarr_iter_collapse_kernel(2, sh4, 1, s4) == 1 && sh4[0] == 1 && f[0] == 0,
        "collapse for a kernel: one element is one axis of extent 1");
  CHECK(cuarr_iter_collapse_kernel(0, sh4, 1, s4) == 1 && sh4[0] == 1 && f[0] == 0,
        "collapse for a kernel: 0-d");
  int64_t sh5[3] = {2, 0, 4}, g[3] = {32, 8, 2};
  int64_t *s5[1] = {g};
  CHECK(cuarr_iter_collapse(3, sh5, 1, s5) == 1 && sh5[0] == 0 && g[0] == 0,
        "collapse: an empty shape is one empty axis");
  int64_t sh6[2] = {3, 4}, h[2] = {-4, -1};
  int64_t *s6[1] = {h};
  CHECK(cuarr_iter_collapse(2, sh6, 1, s6) == 1 && sh6[0] == 12 && h[0] == -1,
        "collapse: reversed contiguous axes merge");
}

static void test_place(void) {
  int64_t shape[2] = {3, 4}, st[2] = {-4, 1}, origin, span;
  char *data = (char *)(uintptr_t)4096, *base;
  CHECK(cuarr_iter_place(2, shape, st, data, 8, &origin, &base, &span) && origin == 8 &&
            base == data - 64 && span == 11,
        "place: a backwards axis puts the origin above the base");
  CHECK(cuarr_iter_place(0, NULL, NULL, data, 8, &origin, &base, &span) && origin == 0 &&
            base == data && span == 0,
        "place: 0-d");
  int64_t big[2] = {INT64_MAX / 2, 4}, bst[2] = {4, 1};
  CHECK(!cuarr_iter_place(2, big, bst, data, 1, &origin, &base, &span),
        "place: a reach past int64_t fails");
  CHECK(cuarr_iter_span_fits32(UINT32_MAX - 1) && !cuarr_iter_span_fits32(UINT32_MAX),
        "32-bit check: offsets up to 2^32 - 2");
}

static void test_pack(void) {
  int64_t shape[2] = {3, 4}, a[2] = {-4, 1}, b[2] = {0, 1}, origin[2] = {8, 0};
  const int64_t *st[2] = {a, b};
  uint32_t v32[CUARR_ITER_LAYOUT_MAX];
  int n = cuarr_iter_pack(v32, false, 12, 2, 3, shape, 2, origin, st);
  uint32_t want32[] = {12, 2, 8, 0, 3, 4, 1, (uint32_t)-4, 1, 0, 0, 1, 0};
  CHECK(n == 13 && memcmp(v32, want32, sizeof want32) == 0,
        "pack: 32-bit layout, unused axes extent 1 stride 0, negative strides wrap");
  uint64_t v64[CUARR_ITER_LAYOUT_MAX];
  n = cuarr_iter_pack(v64, true, 12, 2, 2, shape, 2, origin, st);
  uint64_t want64[] = {12, 2, 8, 0, 3, 4, (uint64_t)-4, 1, 0, 1};
  CHECK(n == 10 && memcmp(v64, want64, sizeof want64) == 0, "pack: 64-bit layout");
}

int main(void) {
  test_broadcast_shape();
  test_broadcast();
  test_element_strides();
  test_flip();
  test_sort();
  test_collapse();
  test_place();
  test_pack();
  return ctest_done();
}
