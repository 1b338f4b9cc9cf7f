/*
 * test_result.c -- the one "write the result" ending (src/core/array/result.h) on host arrays:
 * an allocated result handed over only on success, a given output written in place, and a
 * given output written through a temporary of another dtype.  Needs no device.
 */
#include <string.h>

#include "copy/result.h"
#include "ctest.h"

static cuarr_scalar f64(double v) {
  cuarr_scalar s = {.dtype = CUARR_FLOAT64};
  s.v.f = v;
  return s;
}

static double at(const cuarr_array *a, int64_t i) {
  return cuarr_scalar_load(cuarr_array_data(a) + i * a->strides[0], a->dtype).v.f;
}

static void test_allocated(void) {
  int64_t shape[1] = {4};
  cuarr_array out = {0};
  cuarr_result r;
  CHECK(cuarr_result_begin(&r, NULL, CUARR_HOST, NULL, CUARR_FLOAT64, 1, shape, &out) == CUARR_OK &&
            !r.given && r.res.buf && r.res.shape[0] == 4 && r.res.dtype == CUARR_FLOAT64 &&
            !out.buf,
        "result: no output given, one is allocated (not yet the caller's)");
  cuarr_array *into = NULL;
  CHECK(cuarr_result_target(&r, NULL, CUARR_HOST, NULL, false, CUARR_FLOAT64, &into) == CUARR_OK &&
            into == &r.res,
        "result: the engine writes the allocated array itself");
  cuarr_fill(NULL, into, f64(2.5));
  CHECK(cuarr_result_end(&r, NULL, CUARR_OK) == CUARR_OK && out.buf && at(&out, 3) == 2.5,
        "result: on success the caller gets it");
  cuarr_array_release(&out);

  cuarr_array none = {0};
  CHECK(cuarr_result_begin(&r, NULL, CUARR_HOST, NULL, CUARR_FLOAT64, 1, shape, &none) ==
                CUARR_OK &&
            cuarr_result_end(&r, NULL, CUARR_VALUE_ERROR) == CUARR_VALUE_ERROR && !none.buf,
        "result: on failure it is released and out stays empty");
}

static void test_given(void) {
  int64_t shape[1] = {3};
  cuarr_array out = {0};
  cuarr_reclaim none = {NULL, NULL};
  cuarr_array_empty(CUARR_HOST, CUARR_FLOAT32, 1, shape, false, NULL, none, &out);
  cuarr_fill(NULL, &out, f64(0));
  cuarr_result r;
  cuarr_array *into = NULL;
  CHECK(cuarr_result_begin(&r, NULL, CUARR_HOST, NULL, CUARR_FLOAT64, 1, shape, &out) == CUARR_OK &&
            r.given && cuarr_array_data(&r.res) == cuarr_array_data(&out),
        "result: a given output is the result");
  CHECK(cuarr_result_target(&r, NULL, CUARR_HOST, NULL, false, CUARR_FLOAT32, &into) == CUARR_OK &&
            into == &r.res,
        "result: written in place");
  cuarr_fill(NULL, into, f64(1.5));
  CHECK(cuarr_result_end(&r, NULL, CUARR_OK) == CUARR_OK && at(&out, 2) == 1.5,
        "result: in place, nothing copied");

  CHECK(cuarr_result_begin(&r, NULL, CUARR_HOST, NULL, CUARR_FLOAT64, 1, shape, &out) == CUARR_OK &&
            cuarr_result_target(&r, NULL, CUARR_HOST, NULL, true, CUARR_FLOAT64, &into) ==
                CUARR_OK &&
            into == &r.tmp && into->dtype == CUARR_FLOAT64 && into->shape[0] == 3 &&
            cuarr_array_data(into) != cuarr_array_data(&out),
        "result: through a temporary of the engine's dtype");
  cuarr_fill(NULL, into, f64(-0.25));
  CHECK(at(&out, 0) == 1.5, "result: the output is untouched while the engine runs");
  CHECK(cuarr_result_end(&r, NULL, CUARR_OK) == CUARR_OK && at(&out, 0) == -0.25 &&
            at(&out, 2) == -0.25 && !r.tmp.buf,
        "result: the temporary is copied in (cast) and released");

  CHECK(cuarr_result_begin(&r, NULL, CUARR_HOST, NULL, CUARR_FLOAT64, 1, shape, &out) == CUARR_OK &&
            cuarr_result_target(&r, NULL, CUARR_HOST, NULL, true, CUARR_FLOAT64, &into) ==
                CUARR_OK &&
            cuarr_result_end(&r, NULL, CUARR_VALUE_ERROR) == CUARR_VALUE_ERROR &&
            at(&out, 1) == -0.25 && out.buf,
        "result: a failed engine leaves a given output as it was");
  cuarr_array_release(&out);
}

int main(void) {
  test_allocated();
  test_given();
  return ctest_done();
}
