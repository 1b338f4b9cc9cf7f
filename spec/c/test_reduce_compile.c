/*
 * test_reduce_compile.c -- every reduction kernel the engine can generate for the built-in
 * reductions compiles with NVRTC for sm_90 (no GPU needed), and the generated text has the
 * shape the engine launches.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctest.h"
#include "reduce/reduce_engine.h"

/* ops x dtypes x (rows, rows vectorised, cols, cols vectorised) x 2 widths */
#define EXPECTED_KERNELS (CUARR_NREDUCE_OPS * CUARR_NDTYPES * 4 * 2 * 2)

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void test_resolve(void) {
  cuarr_dtype acc, out;
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_SUM, CUARR_INT8, -1, &acc, &out) == CUARR_OK &&
            acc == CUARR_INT64 && out == CUARR_INT64,
        "int8 sums widen to int64");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_SUM, CUARR_UINT16, -1, &acc, &out) == CUARR_OK &&
            out == CUARR_UINT64,
        "unsigned sums widen to uint64");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_SUM, CUARR_BOOL, -1, &acc, &out) == CUARR_OK &&
            out == CUARR_INT64,
        "bool sums count into int64");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_PROD, CUARR_FLOAT16, -1, &acc, &out) == CUARR_OK &&
            acc == CUARR_FLOAT32 && out == CUARR_FLOAT16,
        "float16 products accumulate in float32");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_SUM, CUARR_INT32, CUARR_FLOAT64, &acc, &out) ==
                CUARR_OK &&
            acc == CUARR_FLOAT64 && out == CUARR_FLOAT64,
        "dtype= sets the accumulator and the result");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_MAX, CUARR_UINT8, -1, &acc, &out) == CUARR_OK &&
            out == CUARR_UINT8,
        "max keeps the dtype");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_ARGMAX, CUARR_FLOAT32, -1, &acc, &out) == CUARR_OK &&
            out == CUARR_INT64,
        "argmax gives int64");
  CHECK(cuarr_reduce_resolve(CUARR_REDUCE_MAX, CUARR_FLOAT32, CUARR_FLOAT64, &acc, &out) ==
            CUARR_TYPE_ERROR,
        "max takes no dtype");
}

static void test_source(void) {
  cuarr_red_program p = {.name = "k",
                         .map_expr = "x * x",
                         .reduce_expr = "a + b",
                         .post_expr = "y = sqrt(a)",
                         .identity = "0"};
  cuarr_array shape_only = {.dtype = CUARR_FLOAT32};
  cuarr_red_operand in[1] = {{.array = &shape_only, .var_dtype = CUARR_FLOAT32, .name = "x"}};
  cuarr_dtype storage[1] = {CUARR_FLOAT32};
  cuarr_red_types t = {
      .acc = CUARR_FLOAT32, .acc_size = 4, .out_var = CUARR_FLOAT32, .out_name = "y"};
  char *name = NULL;
  char *src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT32, CUARR_RED_ROWS, 4, false,
                               NULL, &name);
  CHECK(src && name && strcmp(name, "k_rows_v4_i32_f4f4_f4f4f4") == 0, "a variant's name");
  CHECK(src && strstr(src, "typedef float _type_reduce;") != NULL, "the reduce type is typedef'd");
  CHECK(src && strstr(src, "return (acc_t)(x * x);") != NULL, "the map is pasted");
  CHECK(src &&
            strstr(src,
                   "cuarr_reduce_rows<_cuarr_op, float, float, _cuarr_I, _cuarr_S, 1, 4, false>") !=
                NULL,
        "the rows body with 4-element vectors");
  CHECK(src && strstr(src, "struct __half_t") != NULL && strstr(src, "struct float16") == NULL &&
            strstr(src, "struct cuarr_raw") == NULL,
        "common.cuh without the float16 class or raw arrays when nothing needs them");
  free(src);
  free(name);
  src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT32, CUARR_RED_COLS | CUARR_RED_SPLIT, 4,
                         true, NULL, &name);
  CHECK(src && name && strcmp(name, "k_cols_split_v4_i64_f4f4_f4f4f4") == 0,
        "a split variant's name");
  CHECK(src &&
            strstr(src,
                   "cuarr_reduce_cols<_cuarr_op, float, float, _cuarr_I, _cuarr_S, 1, 4, true>") !=
                NULL,
        "the cols body with the code that finishes a split grid");
  free(src);
  free(name);
}

static void test_compile_all(void) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = 0;
  cuarr_status s = cuarr_reduce_kernels_compile_all(90, &n);
  double t = seconds_since(&t0);
  CHECK(s == CUARR_OK, "every built-in reduction kernel compiles for sm_90");
  if (s != CUARR_OK)
    printf("# %.2000s\n", cuarr_last_error());
  CHECK(n == EXPECTED_KERNELS, "compile-all compiled the expected number of kernels");
  printf("# %d reduction kernels compiled in %.1f s\n", n, t);
}

int main(void) {
  test_resolve();
  test_source();
  test_compile_all();
  return ctest_done();
}
