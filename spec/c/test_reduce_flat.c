/*
 * test_reduce_flat.c -- which device reductions take the short way
 * (src/core/reduce/flat_reduce.c) and which it leaves to the general path, checked without a
 * GPU.
 *
 * The arrays are descriptors of a fake device buffer whose memory is never touched.  A call
 * the short way declines returns false having done nothing (out untouched); one it takes
 * returns true (here with the driver's error, as there is no GPU to allocate on; with one,
 * OK).  Grids that split are declined only once the GPU's size is known: the GPU specs cover
 * them.
 */
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "fake_arrays.h"
#include "reduce/reduce.h"

static cuarr_buffer dev0 = {
    .refs = 1, .ptr = (void *)(uintptr_t)0x10000000, .nbytes = 1ull << 40, .device = 0};
static cuarr_buffer freed = {.refs = 1, .ptr = NULL, .nbytes = 1 << 20, .device = 0};
static char host_bytes[1 << 16];
static cuarr_buffer host = {
    .refs = 1, .ptr = host_bytes, .nbytes = sizeof host_bytes, .device = CUARR_HOST};

static const cuarr_reduce_args every_axis = {.axes = ~(uint64_t)0, .dtype = -1, .index_base = 1};

/* Whether the short way takes op over a with these arguments (no out: a new result). */
static bool taken_with(cuarr_reduce_op op, const cuarr_array *a, cuarr_reduce_args args) {
  cuarr_array out = {0};
  cuarr_status s = CUARR_OK;
  bool took = cuarr_reduce_flat(NULL, op, a, &args, &out, &s);
  if (!took && out.buf)
    return true; /* touched although declined: fails the check that expects false */
  if (took && s == CUARR_OK)
    cuarr_array_release(&out); /* a driver was there after all */
  return took;
}

static bool taken(cuarr_reduce_op op, const cuarr_array *a) {
  return taken_with(op, a, every_axis);
}

int main(void) {
  const int64_t n[1] = {1000}, m[2] = {10, 100};
  cuarr_array a = array_of(&dev0, CUARR_FLOAT32, 1, n, 0);
  CHECK(taken(CUARR_REDUCE_SUM, &a), "a:sum(), contiguous float32: taken");
  CHECK(taken(CUARR_REDUCE_ARGMAX, &a), "a:argmax(): taken");
  CHECK(taken(CUARR_REDUCE_MIN, &a), "a:min(): taken");
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    cuarr_array t = array_of(&dev0, (cuarr_dtype)d, 1, n, 0);
    CHECK(taken(CUARR_REDUCE_SUM, &t) && taken(CUARR_REDUCE_ARGMIN, &t),
          "sum and argmin of every dtype: taken");
  }
  cuarr_array mat = array_of(&dev0, CUARR_FLOAT32, 2, m, 0);
  CHECK(taken(CUARR_REDUCE_MAX, &mat), "max of a contiguous matrix: taken");
  CHECK(taken_with(CUARR_REDUCE_SUM, &mat,
                   (cuarr_reduce_args){.axes = 3, .dtype = -1, .index_base = 1}),
        "sum over axes {1, 2} of a matrix (all of them): taken");
  CHECK(!taken_with(CUARR_REDUCE_SUM, &mat,
                    (cuarr_reduce_args){.axes = 1, .dtype = -1, .index_base = 1}),
        "sum over one axis of a matrix: left");
  CHECK(!taken_with(CUARR_REDUCE_SUM, &a,
                    (cuarr_reduce_args){.axes = ~(uint64_t)0, .keepdims = true, .dtype = -1}),
        "keepdims: left");
  CHECK(!taken_with(CUARR_REDUCE_SUM, &a,
                    (cuarr_reduce_args){.axes = ~(uint64_t)0, .dtype = CUARR_FLOAT64}),
        "a dtype: left");
  cuarr_array given = array_of(&dev0, CUARR_FLOAT32, 0, n, 1 << 20), out = given;
  cuarr_status s = CUARR_OK;
  CHECK(!cuarr_reduce_flat(NULL, CUARR_REDUCE_SUM, &a, &every_axis, &out, &s) &&
            out.buf == given.buf,
        "an out array: left");

  cuarr_array t = mat;
  t.shape[0] = m[1];
  t.shape[1] = m[0];
  t.strides[0] = mat.strides[1];
  t.strides[1] = mat.strides[0];
  CHECK(!taken(CUARR_REDUCE_SUM, &t), "a transposed view: left");
  cuarr_array stepped = a;
  stepped.shape[0] = 500;
  stepped.strides[0] = 8;
  CHECK(!taken(CUARR_REDUCE_SUM, &stepped), "a stepped slice: left");
  cuarr_array column = array_of(&dev0, CUARR_FLOAT32, 2, (int64_t[]){1000, 1}, 0);
  column.strides[1] = 12345; /* any stride on an extent-1 axis */
  CHECK(taken(CUARR_REDUCE_SUM, &column), "a column with any stride on its extent-1 axis: taken");
  cuarr_array half = array_of(&dev0, CUARR_FLOAT32, 1, n, 2);
  CHECK(!taken(CUARR_REDUCE_SUM, &half), "data not aligned to the itemsize: left");
  cuarr_array shifted = array_of(&dev0, CUARR_FLOAT32, 1, n, 4);
  CHECK(taken(CUARR_REDUCE_SUM, &shifted), "aligned to the itemsize, not to 16 bytes: taken");

  cuarr_array gone = array_of(&freed, CUARR_FLOAT32, 1, n, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &gone), "a freed array: left (ValueError)");
  cuarr_array on_host = array_of(&host, CUARR_FLOAT32, 1, n, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &on_host), "a host array: left");
  cuarr_array empty = array_of(&dev0, CUARR_FLOAT32, 1, (int64_t[]){0}, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &empty) && !taken(CUARR_REDUCE_MAX, &empty),
        "no elements: left (0, or ValueError)");
  cuarr_array single = array_of(&dev0, CUARR_FLOAT32, 1, (int64_t[]){1}, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &single), "one element: left");
  cuarr_array zero_d = array_of(&dev0, CUARR_FLOAT32, 0, n, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &zero_d), "a 0-d array: left");
  cuarr_array huge = array_of(&dev0, CUARR_INT8, 1, (int64_t[]){(int64_t)1 << 31}, 0);
  CHECK(!taken(CUARR_REDUCE_SUM, &huge), "2^31 elements (64-bit indexing): left");
  CHECK(!taken((cuarr_reduce_op)CUARR_NREDUCE_OPS, &a), "an unknown op: left");
  return ctest_done();
}
