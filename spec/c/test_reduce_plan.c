/*
 * test_reduce_plan.c -- how the device reduction engine lays out and spreads a reduction
 * (reduce_engine.c), checked without a GPU through cuarr_red_plan_describe: rows or cols,
 * vector widths, collapsing, index width, and the split over gridDim.y with the last block
 * finishing.  The arrays have a buffer whose memory is never touched.
 */
#include <string.h>

#include "ctest.h"
#include "reduce/reduce_engine.h"

#define SMS 132 /* an H100 */

static cuarr_buffer fake = {
    .refs = 1, .ptr = (void *)(uintptr_t)0x100000, .nbytes = 1ull << 40, .device = 0};

/* A C-contiguous array of the fake buffer, at byte offset `offset`. */
static cuarr_array array_of(cuarr_dtype d, int ndim, const int64_t *shape, int64_t offset) {
  cuarr_array a = {.buf = &fake, .dtype = d, .ndim = ndim, .offset = offset};
  memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
  cuarr_strides_c(ndim, shape, cuarr_dtype_size(d), a.strides);
  return a;
}

/* The keepdims output of reducing `in` over axes (strides of a fresh C array of the result). */
static cuarr_array out_of(const cuarr_array *in, uint64_t axes, cuarr_dtype d) {
  int64_t shape[CUARR_MAXDIM], kept[CUARR_MAXDIM], strides[CUARR_MAXDIM];
  int nk = 0;
  for (int k = 0; k < in->ndim; k++)
    if (!(axes >> k & 1))
      kept[nk++] = in->shape[k];
  cuarr_strides_c(nk, kept, cuarr_dtype_size(d), strides);
  cuarr_array o = {.buf = &fake, .dtype = d, .ndim = in->ndim, .offset = 1 << 30};
  for (int k = 0, j = 0; k < in->ndim; k++) {
    bool r = axes >> k & 1;
    shape[k] = r ? 1 : in->shape[k];
    o.strides[k] = r ? 0 : strides[j++];
  }
  memcpy(o.shape, shape, (size_t)in->ndim * sizeof *shape);
  return o;
}

static cuarr_red_program sum = {.name = "sum",
                                .map_expr = "in0",
                                .reduce_expr = "a + b",
                                .post_expr = "out0 = a",
                                .identity = "0"};

static bool describe(const cuarr_array *in, uint64_t axes, cuarr_red_plan_info *info) {
  cuarr_array out = out_of(in, axes, in->dtype);
  cuarr_red_operand op = {.array = in, .var_dtype = in->dtype, .name = "in0"};
  cuarr_status s = cuarr_red_plan_describe(&sum, 1, &op, &out, axes, SMS, info);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  return s == CUARR_OK;
}

static void test_full_reduction(void) {
  cuarr_red_plan_info p;
  int64_t n[1] = {1 << 28};
  cuarr_array a = array_of(CUARR_FLOAT32, 1, n, 0);
  bool ok = describe(&a, 1, &p);
  CHECK(ok && p.variant == CUARR_RED_ROWS && p.vec == 4 && !p.wide && p.n_out == 1,
        "a full float32 sum: rows, 16-byte vectors, 32-bit indexing");
  CHECK(ok && p.block_x == 256 && p.grid_x == 1 && p.splits == SMS * 8,
        "one output spread over every multiprocessor (8 blocks each), finished by the last");
  CHECK(ok && p.layout == (CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE | CUARR_RED_WHOLE_VECTORS),
        "its kernel: no kept axes, one reduced axis of whole vectors");

  a.offset = 4; /* not 16-byte aligned */
  ok = describe(&a, 1, &p);
  CHECK(ok && p.variant == CUARR_RED_ROWS && p.vec == 1, "misaligned data: no vectors");

  int64_t small[1] = {1000};
  a = array_of(CUARR_FLOAT32, 1, small, 0);
  ok = describe(&a, 1, &p);
  CHECK(ok && p.splits == 1 && p.grid_x == 1 && p.block_x == 256,
        "1000 elements: one block, one launch, nothing split");
  small[0] = 1002;
  a = array_of(CUARR_FLOAT32, 1, small, 0);
  ok = describe(&a, 1, &p);
  CHECK(ok && p.vec == 4 && p.layout == (CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE),
        "1002 elements: vectors and the last two elements one by one");
  small[0] = 3;
  a = array_of(CUARR_FLOAT32, 1, small, 0);
  ok = describe(&a, 1, &p);
  CHECK(ok && p.vec == 4 && p.block_x >= 4,
        "3 elements: a lane for each of the elements after the (no) last vector");

  int64_t big[1] = {(1ll << 31) + 160};
  a = array_of(CUARR_INT8, 1, big, 0);
  ok = describe(&a, 1, &p);
  CHECK(ok && p.wide && p.vec == 16, "more than 2^31 elements: 64-bit indexing, 16 int8 a vector");
  big[0] = (1ll << 31) + 100;
  a = array_of(CUARR_INT8, 1, big, 0);
  ok = describe(&a, 1, &p);
  CHECK(ok && p.wide && p.vec == 16,
        "a length that is not a multiple of the vector: vectors, the tail one by one");

  int64_t odd[2] = {300, 501};
  a = array_of(CUARR_FLOAT32, 2, odd, 0);
  ok = describe(&a, 2, &p);
  CHECK(ok && p.variant == CUARR_RED_ROWS && p.vec == 1,
        "rows of 501 float32: the second row starts off a vector, so element-wise");
}

static void test_axes(void) {
  cuarr_red_plan_info p;
  int64_t m[2] = {16384, 16384};
  cuarr_array a = array_of(CUARR_FLOAT32, 2, m, 0);
  bool ok = describe(&a, 2, &p); /* axis 2 (1-based): along the rows */
  CHECK(ok && p.variant == CUARR_RED_ROWS && p.vec == 4 && p.n_out == 16384 && p.n_red == 16384 &&
            p.splits == 1 && p.grid_x == 16384 &&
            p.layout == (CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE | CUARR_RED_WHOLE_VECTORS),
        "sum over the contiguous axis: a block per row, vectors; one kept and one reduced axis");
  ok = describe(&a, 1, &p); /* axis 1: strided */
  CHECK(ok && p.variant == CUARR_RED_COLS && p.vec == 4 && p.block_x == 32 && p.block_y == 8 &&
            p.layout == (CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE),
        "sum over the strided axis: cols, 4 outputs a thread, coalesced across outputs");
  CHECK(ok && p.grid_x == 128 && p.splits > 1 && p.grid_x * p.splits >= SMS * 8,
        "too few output blocks: the reduced axis is split to fill the GPU");

  int64_t t[3] = {6, 7, 8};
  a = array_of(CUARR_FLOAT64, 3, t, 0);
  ok = describe(&a, 1 | 4, &p); /* axes 1 and 3 of (6, 7, 8) */
  CHECK(ok && p.ndo == 1 && p.ndr == 2 && p.n_out == 7 && p.n_red == 48 &&
            p.layout == CUARR_RED_KEPT_ONE,
        "two reduced axes that are not neighbours stay two");
  ok = describe(&a, 2 | 4, &p); /* axes 2 and 3: contiguous together */
  CHECK(ok && p.ndr == 1 && p.n_red == 56 && p.variant == CUARR_RED_ROWS,
        "neighbouring reduced axes collapse into one");

  /* A transposed view: axis 1 of a.T is the contiguous one of a. */
  int64_t s2[2] = {300, 500};
  a = array_of(CUARR_FLOAT32, 2, s2, 0);
  cuarr_array tr = a;
  tr.shape[0] = 500;
  tr.shape[1] = 300;
  tr.strides[0] = 4;
  tr.strides[1] = 500 * 4;
  ok = describe(&tr, 1, &p);
  CHECK(ok && p.variant == CUARR_RED_ROWS && p.n_out == 300 && p.n_red == 500,
        "reducing a transpose along its strided-looking axis reads rows in memory");
}

int main(void) {
  test_full_reduction();
  test_axes();
  return ctest_done();
}
