/*
 * test_ufunc_flat.c -- which device ufunc calls take the short way (src/core/ufunc/flat_call.c)
 * and which it leaves to the general path, checked without a GPU.
 *
 * The arrays are descriptors of a fake device buffer whose memory is never touched.  A call
 * the short way declines returns false having done nothing; one it takes returns true (here
 * with the driver's error, as there is no GPU to allocate on or compile for; with one, OK).
 */
#include <stdint.h>
#include <string.h>

#include "ctest.h"
#include "fake_arrays.h"
#include "ufunc/ufunc.h"

static cuarr_buffer dev0 = {
    .refs = 1, .ptr = (void *)(uintptr_t)0x10000000, .nbytes = 1ull << 40, .device = 0};
static cuarr_buffer dev1 = {
    .refs = 1, .ptr = (void *)(uintptr_t)0x20000000, .nbytes = 1ull << 40, .device = 1};
static cuarr_buffer freed = {.refs = 1, .ptr = NULL, .nbytes = 1 << 20, .device = 0};

static cuarr_operand arr(const cuarr_array *a) { return (cuarr_operand){.array = a}; }
static cuarr_operand weak_int(int64_t v) {
  return (cuarr_operand){.scalar = {.dtype = CUARR_INT64, .v.i = v}, .weak = true};
}
static cuarr_operand weak_float(double v) {
  return (cuarr_operand){.scalar = {.dtype = CUARR_FLOAT64, .v.f = v}, .weak = true};
}

/* Whether the short way takes u(in...) into out (a given output, or NULL to allocate one). */
static bool taken(const char *ufunc, const cuarr_operand *in, const cuarr_array *given) {
  cuarr_array out = given ? *given : (cuarr_array){0};
  cuarr_status s = CUARR_OK;
  bool took = cuarr_uf_flat_call(NULL, cuarr_ufunc_find(ufunc), 0, in, CUARR_FLOAT64, &out, &s);
  if (took && s == CUARR_OK && !given)
    cuarr_array_release(&out); /* a driver was there after all */
  return took;
}

int main(void) {
  const int64_t n[1] = {1000}, m[2] = {10, 100}, row[1] = {100}, one[1] = {1};
  cuarr_array a = array_of(&dev0, CUARR_FLOAT32, 1, n, 0);
  cuarr_array b = array_of(&dev0, CUARR_FLOAT32, 1, n, 8192);
  cuarr_array c = array_of(&dev0, CUARR_FLOAT32, 1, n, 16384);

  cuarr_operand ab[2] = {arr(&a), arr(&b)};
  CHECK(taken("add", ab, NULL), "a + b, contiguous and of one shape: taken");
  CHECK(taken("add", ab, &c), "add(a, b, c): taken");
  CHECK(taken("add", ab, &a), "add(a, b, a), in place: taken");

  cuarr_array shifted = array_of(&dev0, CUARR_FLOAT32, 1, n, 4); /* a, one element on */
  CHECK(!taken("add", ab, &shifted), "an output one element past an input: left");
  cuarr_array half = array_of(&dev0, CUARR_FLOAT32, 1, n, 2);
  cuarr_operand odd[2] = {arr(&half), arr(&b)};
  CHECK(!taken("add", odd, NULL), "data not aligned to the itemsize: left");
  cuarr_array f64 = array_of(&dev0, CUARR_FLOAT64, 1, n, 1 << 20);
  CHECK(taken("add", ab, &f64), "a float32 result into a float64 output: taken");
  cuarr_array i32 = array_of(&dev0, CUARR_INT32, 1, n, 1 << 20);
  CHECK(!taken("add", ab, &i32), "a float32 result into an int32 output: left (TypeError)");

  cuarr_array mat = array_of(&dev0, CUARR_FLOAT32, 2, m, 0);
  cuarr_array r = array_of(&dev0, CUARR_FLOAT32, 1, row, 1 << 20);
  cuarr_operand bcast[2] = {arr(&mat), arr(&r)};
  CHECK(!taken("add", bcast, NULL), "a row broadcast against a matrix: left");
  cuarr_array t = mat;
  t.shape[0] = m[1];
  t.shape[1] = m[0];
  t.strides[0] = mat.strides[1];
  t.strides[1] = mat.strides[0];
  cuarr_array t2 = array_of(&dev0, CUARR_FLOAT32, 2, (int64_t[]){100, 10}, 1 << 20);
  cuarr_operand tr[2] = {arr(&t), arr(&t2)};
  CHECK(!taken("add", tr, NULL), "a transposed view: left");

  cuarr_array gone = array_of(&freed, CUARR_FLOAT32, 1, n, 0);
  cuarr_operand with_gone[2] = {arr(&a), arr(&gone)};
  CHECK(!taken("add", with_gone, NULL), "a freed input: left (ValueError)");
  cuarr_array other = array_of(&dev1, CUARR_FLOAT32, 1, n, 0);
  cuarr_operand with_other[2] = {arr(&a), arr(&other)};
  CHECK(!taken("add", with_other, NULL), "an input on another device: left");

  cuarr_array empty = array_of(&dev0, CUARR_FLOAT32, 1, (int64_t[]){0}, 0);
  cuarr_operand e2[2] = {arr(&empty), arr(&empty)};
  CHECK(!taken("add", e2, NULL), "no elements: left");
  cuarr_array huge = array_of(&dev0, CUARR_INT8, 1, (int64_t[]){(int64_t)1 << 31}, 0);
  cuarr_operand h2[2] = {arr(&huge), arr(&huge)};
  CHECK(!taken("add", h2, NULL), "2^31 elements (64-bit indexing): left");
  cuarr_array zero_d = array_of(&dev0, CUARR_FLOAT32, 0, one, 0);
  cuarr_operand z2[2] = {arr(&zero_d), arr(&zero_d)};
  CHECK(taken("multiply", z2, NULL), "0-d arrays: taken");

  /* Lua numbers: their kind is remembered, their value read on every call. */
  cuarr_array u8 = array_of(&dev0, CUARR_UINT8, 1, n, 0);
  cuarr_operand u8_3[2] = {arr(&u8), weak_int(3)}, u8_300[2] = {arr(&u8), weak_int(300)};
  cuarr_operand u8_neg[2] = {arr(&u8), weak_int(-1)};
  CHECK(taken("add", u8_3, NULL), "uint8 + 3: taken");
  CHECK(!taken("add", u8_300, NULL), "uint8 + 300 right after: left (ValueError)");
  CHECK(!taken("less", u8_300, NULL), "uint8 < 300: left (decided by the range)");
  CHECK(taken("less", u8_3, NULL), "uint8 < 3: taken");
  CHECK(!taken("greater_equal", u8_neg, NULL), "uint8 >= -1: left");
  cuarr_operand clip_in[3] = {arr(&u8), weak_int(1), weak_int(200)};
  cuarr_operand clip_out[3] = {arr(&u8), weak_int(-5), weak_int(999)};
  CHECK(taken("clip", clip_in, NULL), "clip(uint8, 1, 200): taken");
  CHECK(!taken("clip", clip_out, NULL), "clip(uint8, -5, 999): left (clamped bounds)");
  cuarr_operand u8_half[2] = {arr(&u8), weak_float(2.5)};
  CHECK(taken("multiply", u8_half, NULL), "uint8 * 2.5: taken");
  cuarr_operand front[2] = {weak_int(2), arr(&a)};
  CHECK(taken("subtract", front, NULL), "2 - a, the number first: taken");

  cuarr_operand strong[2] = {arr(&a), {.scalar = {.dtype = CUARR_FLOAT64, .v.f = 1.0}}};
  CHECK(!taken("add", strong, NULL), "a strong scalar: left");
  cuarr_operand bad[2] = {arr(&a), {.scalar = {.dtype = (cuarr_dtype)64}, .weak = true}};
  CHECK(!taken("add", bad, NULL), "a scalar of no dtype: left");
  cuarr_operand numbers[2] = {weak_int(1), weak_int(2)};
  CHECK(!taken("add", numbers, NULL), "numbers only: left");
  return ctest_done();
}
