/*
 * test_copy_plan.c -- which kernel a device copy takes, planned without a device: the tiled
 * transpose (kernels/templates/transpose.cu) where dst and src are contiguous along different axes,
 * the strided kernels elsewhere, and the axes the transpose kernel is handed.
 */
#include <stdlib.h>
#include <string.h>

#include "copy/copy_source.h"
#include "ctest.h"
#include "internal.h"

/* Byte strides of a C-contiguous array of `shape`. */
static void c_strides(int nd, const int64_t *shape, size_t itemsize, int64_t *out) {
  int64_t s = (int64_t)itemsize;
  for (int d = nd - 1; d >= 0; d--) {
    out[d] = s;
    s *= shape[d];
  }
}

/* dst (shape, C-contiguous) = src, where src is a C-contiguous array of the permuted shape
 * seen through the permutation: src.transpose(perm), as m:transpose(...):copy() does. */
static cuarr_copy_plan_info plan_permuted(int nd, const int64_t *shape, const int *perm,
                                          cuarr_dtype dt, cuarr_dtype st) {
  int64_t src_shape[CUARR_MAXDIM], src_c[CUARR_MAXDIM], sstr[CUARR_MAXDIM], dstr[CUARR_MAXDIM];
  /* dst axis d is src axis perm[d]: src's own shape has shape[d] at perm[d]. */
  for (int d = 0; d < nd; d++)
    src_shape[perm[d]] = shape[d];
  c_strides(nd, src_shape, cuarr_dtype_size(st), src_c);
  for (int d = 0; d < nd; d++)
    sstr[d] = src_c[perm[d]];
  c_strides(nd, shape, cuarr_dtype_size(dt), dstr);
  cuarr_copy_plan_info info;
  memset(&info, 0, sizeof info);
  if (cuarr_copy_plan_describe(nd, shape, dt, dstr, st, sstr, &info) != CUARR_OK)
    info.ndim = -1;
  return info;
}

static bool is_transpose(const cuarr_copy_plan_info *p) {
  return p->ndim >= 2 && p->family == CUARR_FAMILY_TRANSPOSE;
}

/* The transpose kernel's contract: the last axis is dst's innermost (stride 1 for a
 * contiguous dst), the one before is src's innermost (stride 1 for a contiguous src). */
static bool tile_axes_are(const cuarr_copy_plan_info *p, int64_t rows, int64_t cols) {
  int r = p->ndim - 2, c = p->ndim - 1;
  return is_transpose(p) && p->extent[r] == rows && p->extent[c] == cols && p->strides[0][c] == 1 &&
         p->strides[1][r] == 1;
}

static void test_matrix_transpose(void) {
  int64_t shape[2] = {16384, 16384};
  int perm[2] = {1, 0};
  cuarr_copy_plan_info p = plan_permuted(2, shape, perm, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(tile_axes_are(&p, 16384, 16384) && p.ndim == 2 && !p.wide,
        "m.T:copy() of a 16384^2 float32 matrix is a 2-D tiled transpose, 32-bit indexing");

  static const cuarr_dtype dtypes[] = {CUARR_BOOL,    CUARR_INT8,   CUARR_UINT16,  CUARR_INT32,
                                       CUARR_FLOAT16, CUARR_UINT64, CUARR_FLOAT64, CUARR_FLOAT32};
  bool all = true;
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    for (size_t j = 0; j < sizeof dtypes / sizeof *dtypes; j++) {
      int64_t s[2] = {300, 77};
      cuarr_copy_plan_info q = plan_permuted(2, s, perm, dtypes[i], dtypes[j]);
      all = all && tile_axes_are(&q, 300, 77);
    }
  CHECK(all, "transposed copies of every itemsize, with and without conversion, are tiled");

  int64_t big[2] = {65536, 65536};
  p = plan_permuted(2, big, perm, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(tile_axes_are(&p, 65536, 65536) && p.wide, "a 2^32-element transpose: 64-bit indexing");

  /* dst in F order (a copy to Fortran layout) from a C-order src: the same 2-D transpose. */
  int64_t f[2] = {500, 300}, fd[2] = {4, 4 * 500}, fs[2] = {4 * 300, 4};
  cuarr_copy_plan_describe(2, f, CUARR_FLOAT32, fd, CUARR_FLOAT32, fs, &p);
  CHECK(tile_axes_are(&p, 300, 500), "a C-order to F-order copy is a tiled transpose");
}

static void test_batched(void) {
  int64_t shape[3] = {16, 100, 200};
  int swap[3] = {0, 2, 1};
  cuarr_copy_plan_info p = plan_permuted(3, shape, swap, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(tile_axes_are(&p, 100, 200) && p.ndim == 3 && p.extent[0] == 16,
        "swapping the last two axes of a 3-D array: a batch of 2-D transposes");

  int rev[3] = {2, 1, 0};
  p = plan_permuted(3, shape, rev, CUARR_FLOAT32, CUARR_INT16);
  CHECK(tile_axes_are(&p, 16, 200) && p.ndim == 3 && p.extent[0] == 100,
        ".T of a 3-D array: the middle axis is the batch, moved outermost");

  int rot[3] = {2, 0, 1};
  p = plan_permuted(3, shape, rot, CUARR_FLOAT64, CUARR_FLOAT64);
  CHECK(tile_axes_are(&p, 16, 20000) && p.ndim == 2,
        "moving the first axis last collapses to one 2-D transpose");

  int64_t four[4] = {10, 4, 50, 60};
  int perm4[4] = {3, 1, 0, 2};
  p = plan_permuted(4, four, perm4, CUARR_UINT8, CUARR_UINT8);
  CHECK(tile_axes_are(&p, 10, 60) && p.ndim == 4 && p.extent[0] == 4 && p.extent[1] == 50 &&
            p.strides[0][0] > p.strides[0][1],
        "a 4-D permutation: two batch axes in dst's order, the tile's axes last");
}

static void test_not_transposes(void) {
  cuarr_copy_plan_info p;
  int64_t shape[3] = {6, 100, 200};
  int keep_inner[3] = {1, 0, 2};
  p = plan_permuted(3, shape, keep_inner, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(p.family == CUARR_FAMILY_COPY,
        "src contiguous along dst's innermost axis: the strided kernel, no tile");

  int64_t m[2] = {100, 200}, d[2] = {800, 4}, s[2] = {800, 4};
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, d, CUARR_FLOAT32, s, &p);
  CHECK(p.family == CUARR_FAMILY_COPY && p.shape_kind == CUARR_SHAPE_CONTIG,
        "a contiguous copy stays a memcpy");
  int64_t s16[2] = {400, 2};
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, d, CUARR_FLOAT16, s16, &p);
  CHECK(p.family == CUARR_FAMILY_COPY && p.shape_kind == CUARR_SHAPE_CONTIG,
        "a contiguous conversion stays the contiguous kernel");

  int64_t bcast[2] = {4, 0}; /* src (100, 1) broadcast along dst's innermost axis */
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, d, CUARR_FLOAT32, bcast, &p);
  CHECK(p.family == CUARR_FAMILY_COPY, "src broadcast along dst's innermost axis: no tile");

  /* Short tile axes: the strided kernel reads whole sectors there anyway. */
  int perm[2] = {1, 0};
  int64_t thin[2] = {4, 5000}, wide[2] = {5000, 4}, min[2] = {8, 8};
  p = plan_permuted(2, thin, perm, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(p.family == CUARR_FAMILY_COPY, "a transpose with 4 rows takes the strided kernel");
  p = plan_permuted(2, wide, perm, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(p.family == CUARR_FAMILY_COPY, "a transpose with 4 columns takes the strided kernel");
  p = plan_permuted(2, min, perm, CUARR_FLOAT32, CUARR_FLOAT32);
  CHECK(tile_axes_are(&p, 8, 8), "an 8 x 8 transpose is tiled");

  /* src strided along both axes, 8 float32 (a sector) apart along its innermost one: a tile
   * would read a sector per element as well.  4 int8 apart, it still shares sectors. */
  int64_t sd[2] = {4 * 200, 4}, ss[2] = {32, 32 * 100};
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, sd, CUARR_FLOAT32, ss, &p);
  CHECK(p.family == CUARR_FAMILY_COPY, "src strides of a sector or more: no tile");
  int64_t bd[2] = {200, 1}, bs[2] = {4, 4 * 100};
  cuarr_copy_plan_describe(2, m, CUARR_INT8, bd, CUARR_INT8, bs, &p);
  CHECK(is_transpose(&p) && p.extent[0] == 100 && p.extent[1] == 200 && p.strides[1][0] == 4 &&
            p.strides[0][1] == 1,
        "int8 src 4 elements apart along its innermost axis: tiled");
}

static void test_reversed(void) {
  /* A src reversed along its contiguous axis reads it backwards; dst reversed is flipped. */
  cuarr_copy_plan_info p;
  int64_t m[2] = {100, 200}, d[2] = {800, 4}, s[2] = {-4, 400};
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, d, CUARR_FLOAT32, s, &p);
  CHECK(is_transpose(&p) && p.strides[1][0] == -1 && p.strides[0][1] == 1 && p.origin[1] == 99,
        "src reversed along the tile's rows: stride -1, origin at its far end");
  int64_t dr[2] = {800, -4}, sr[2] = {4, 400};
  cuarr_copy_plan_describe(2, m, CUARR_FLOAT32, dr, CUARR_FLOAT32, sr, &p);
  CHECK(is_transpose(&p) && p.strides[0][1] == 1 && p.strides[1][1] == -100 && p.base[0] == -199,
        "dst reversed along its innermost axis: flipped, and src with it");
}

static void test_axis_move(void) {
  /* cuarr_copy_transpose_axes itself: axis 0 is src's innermost; it moves to ndim-2. */
  int64_t shape[4] = {16, 3, 5, 32};
  int64_t dst[4] = {3 * 5 * 32, 5 * 32, 32, 1}, src[4] = {1, 16 * 32 * 5, 16 * 32, 16};
  int64_t *strides[2] = {dst, src};
  bool t = cuarr_copy_transpose_axes(4, shape, strides, 4);
  CHECK(t && shape[0] == 3 && shape[1] == 5 && shape[2] == 16 && shape[3] == 32 && dst[0] == 160 &&
            dst[1] == 32 && dst[2] == 480 && dst[3] == 1 && src[0] == 2560 && src[1] == 512 &&
            src[2] == 1 && src[3] == 16,
        "the src-innermost axis moves to ndim-2, the others keep their order");
  int64_t one[1] = {100}, s1[1] = {1}, s2[1] = {7};
  int64_t *st1[2] = {s1, s2};
  CHECK(!cuarr_copy_transpose_axes(1, one, st1, 4), "a 1-D copy is never a transpose");
}

int main(void) {
  test_matrix_transpose();
  test_batched();
  test_not_transposes();
  test_reversed();
  test_axis_move();
  return ctest_done();
}
