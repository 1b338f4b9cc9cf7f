/*
 * test_reduce_compile.c -- every reduction kernel the engine can generate for the built-in
 * reductions compiles with NVRTC for sm_90 (no GPU needed), and the generated text has the
 * shape the engine launches.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctest.h"
#include "internal.h"
#include "kernel_checks.h"
#include "reduce/reduce_engine.h"

/* ops x dtypes x ((rows, rows vectorised, cols, cols vectorised) x 2 widths x split or not, and
 * the 16 special layout classes of those forms), then ops x 3 dtypes as programs of their own */
#define EXPECTED_KERNELS                                                                           \
  (CUARR_NREDUCE_OPS * CUARR_NDTYPES * (4 * 2 * 2 + 16) + CUARR_NREDUCE_OPS * 3)

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

/* The kernel's own text (after the prelude). */
static const char *kernel_of(const char *src) {
  return src ? strstr(src, "\nextern \"C\" __global__") : NULL;
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
  const char *k = kernel_of(src);
  CHECK(src && name && strcmp(name, "k_rows_v4_i32_f4f4_f4f4f4") == 0, "a variant's name");
  CHECK(src && strstr(src, "typedef float _type_reduce;") != NULL, "the reduce type is typedef'd");
  CHECK(k && strstr(k, "const acc_t _cuarr_m = (acc_t)(x * x);") != NULL &&
            strstr(k, "_cuarr_acc[0] = (acc_t)(a + b);") != NULL && strstr(k, "y = sqrt(a);"),
        "the map, the reduction and the post-map are pasted into the kernel");
  CHECK(k && strstr(k, "typedef cuarr_red_vec<float, 4> _cuarr_vec;") != NULL &&
            strstr(k, "cuarr_red_last_block") == NULL,
        "a rows kernel with 4-element vectors, and no code for split grids");
  CHECK(k && strstr(k, "_cuarr_L.shape_o[_cuarr_d]") != NULL,
        "any number of kept axes: a division per axis");
  CHECK(k && strstr(k, "cuarr_cast") == NULL, "no conversion between equal types");
  CHECK(src && strstr(src, "struct __half_t") == NULL && strstr(src, "struct float16") == NULL &&
            strstr(src, "struct cuarr_raw") == NULL && strstr(src, "cuarr_red_argpick") == NULL &&
            strstr(src, "struct cuarr_red_layout") != NULL,
        "only reduction.cu when nothing needs common.cuh, float16, raw arrays or the built-ins' "
        "helpers");
  free(src);
  free(name);
  src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT64, CUARR_RED_ROWS, 4, false, NULL,
                         &name);
  CHECK(src && strstr(src, "struct __half_t") != NULL && strstr(src, "struct float16") == NULL &&
            strstr(src, "*(_cuarr_out + _cuarr_k[1]) = cuarr_cast<double>(y);") != NULL,
        "common.cuh for a conversion");
  free(src);
  free(name);
  cuarr_red_program max = p;
  max.reduce_expr = "cuarr_red_max(a, b)";
  src = cuarr_red_source(&max, 1, in, storage, &t, CUARR_FLOAT32, CUARR_RED_ROWS, 4, false, NULL,
                         &name);
  CHECK(src && strstr(src, "struct __half_t") != NULL && strstr(src, "cuarr_red_argpick") != NULL,
        "common.cuh and the built-ins' helpers for expressions that use them");
  free(src);
  free(name);
  src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT32, CUARR_RED_COLS | CUARR_RED_SPLIT, 4,
                         true, NULL, &name);
  k = kernel_of(src);
  CHECK(src && name && strcmp(name, "k_cols_split_v4_i64_f4f4_f4f4f4") == 0,
        "a split variant's name");
  CHECK(k && strstr(k, "typedef unsigned long long _cuarr_I;") == NULL &&
            strstr(src, "typedef unsigned long long _cuarr_I;") != NULL &&
            strstr(k, "if (!cuarr_red_last_block(_cuarr_counters))") != NULL &&
            strstr(k, "_cuarr_acc[4];") != NULL,
        "a cols kernel of 4 outputs a thread, 64-bit, with the code that finishes a split grid");
  free(src);
  free(name);
  src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT32,
                         CUARR_RED_ROWS | CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE, 4, false,
                         NULL, &name);
  k = kernel_of(src);
  CHECK(src && name && strcmp(name, "k_rows_k0_r1_v4_i32_f4f4_f4f4f4") == 0 && k &&
            strstr(k, "_cuarr_L.so") == NULL && strstr(k, "_cuarr_L.sr") == NULL,
        "a full reduction: no offsets along kept axes, none along the reduced one");
  free(src);
  free(name);
  src = cuarr_red_source(&p, 1, in, storage, &t, CUARR_FLOAT32,
                         CUARR_RED_COLS | CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE, 1, false,
                         NULL, &name);
  k = kernel_of(src);
  CHECK(name && strcmp(name, "k_cols_k1_r1_v1_i32_f4f4_f4f4f4") == 0 && k &&
            strstr(k, "_cuarr_k[0] += (_cuarr_S)(_cuarr_o) * _cuarr_L.so[0][0];") != NULL &&
            strstr(k, "_cuarr_f[0] += (_cuarr_S)(_cuarr_j) * _cuarr_L.sr[0][0];") != NULL &&
            strstr(k, "_cuarr_d") == NULL && strstr(k, "const float x = _cuarr_p0[_cuarr_f[0]];"),
        "one kept and one reduced axis: offsets without divisions, elements loaded one by one");
  free(src);
  free(name);
  cuarr_red_operand two[2] = {in[0],
                              {.array = &shape_only, .var_dtype = CUARR_FLOAT32, .name = "z"}};
  cuarr_dtype storage2[2] = {CUARR_FLOAT32, CUARR_FLOAT32};
  src = cuarr_red_source(&p, 2, two, storage2, &t, CUARR_FLOAT32, CUARR_RED_ROWS, 4, false, NULL,
                         &name);
  CHECK(!src && !name, "vectors need a single array input");
}

/* ---------------------------------------------------------------- user programs */

/* The built-ins all have an identity, one array input and no raw arrays or scalars; user
 * ReductionKernels have those too.  Each program below is compiled in every variant the engine
 * can pick for it (every form and layout class, both widths, split or not), in one program of
 * namespaced variants after cuarr_red_prelude(), as compile-all does, and one variant again
 * alone. */
typedef struct user_case {
  const char *what;
  cuarr_red_program program;
  int n_in;
  cuarr_red_operand in[3];
  cuarr_dtype storage[3];
  cuarr_red_types types;
  cuarr_dtype out_storage;
} user_case;

static bool compile_user_case(user_case *c) {
  static const int forms[] = {
      CUARR_RED_ROWS | CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE,
      CUARR_RED_ROWS | CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE,
      CUARR_RED_ROWS | CUARR_RED_REDUCED_ONE,
      CUARR_RED_ROWS | CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE | CUARR_RED_WHOLE_VECTORS,
      CUARR_RED_ROWS | CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE | CUARR_RED_WHOLE_VECTORS,
      CUARR_RED_ROWS | CUARR_RED_REDUCED_ONE | CUARR_RED_WHOLE_VECTORS,
      CUARR_RED_ROWS | CUARR_RED_KEPT_NONE,
      CUARR_RED_ROWS | CUARR_RED_KEPT_ONE,
      CUARR_RED_ROWS,
      CUARR_RED_COLS | CUARR_RED_KEPT_ONE | CUARR_RED_REDUCED_ONE,
      CUARR_RED_COLS | CUARR_RED_REDUCED_ONE,
      CUARR_RED_COLS | CUARR_RED_KEPT_ONE,
      CUARR_RED_COLS,
  };
  int slots = 0;
  for (int k = 0; k < c->n_in; k++)
    slots += c->in[k].array && !c->in[k].raw;
  int v = (int)(16 / cuarr_dtype_size(c->storage[0]));
  char *source = cuarr_red_prelude();
  size_t len = source ? strlen(source) : 0;
  char *names[4 * 2 * (sizeof forms / sizeof forms[0])];
  int n = 0;
  bool ok = source != NULL;
  for (size_t f = 0; f < sizeof forms / sizeof forms[0] && ok; f++) {
    int form = forms[f];
    bool rows = !(form & CUARR_RED_COLS);
    /* vectors: one array input; rows vectors need a single reduced axis; whole vectors are
     * vectors */
    bool vec_ok = slots == 1 && (!rows || (form & CUARR_RED_REDUCED_ONE));
    bool vec_only = form & CUARR_RED_WHOLE_VECTORS;
    for (int k = vec_only ? 4 : 0; k < 4 * (vec_ok ? 2 : 1) && ok; k++) {
      int vec = k >= 4 ? (rows ? v : v > 4 ? 4 : v) : 1;
      char ns[32];
      snprintf(ns, sizeof ns, "_cuarr_u%d", n);
      char *part =
          cuarr_red_source(&c->program, c->n_in, c->in, c->storage, &c->types, c->out_storage,
                           form | (k & 2 ? CUARR_RED_SPLIT : 0), vec, k & 1, ns, &names[n]);
      ok = part != NULL;
      if (!ok)
        break;
      n++;
      size_t m = strlen(part);
      char *grown = realloc(source, len + m + 1);
      ok = grown != NULL;
      if (ok) {
        memcpy(grown + len, part, m + 1);
        source = grown;
        len += m;
      }
      free(part);
    }
  }
  char *cubin = NULL;
  size_t size = 0;
  if (ok) {
    const char *fast[] = {"--Ofast-compile=max"};
    cuarr_status s = cuarr_nvrtc_compile(source, c->what, fast, 1, 90, &cubin, &size);
    if (s != CUARR_OK)
      s = cuarr_nvrtc_compile(source, c->what, NULL, 0, 90, &cubin, &size);
    if (s != CUARR_OK)
      printf("# %.3000s\n", cuarr_last_error());
    ok = s == CUARR_OK;
  }
  for (int i = 0; i < n; i++) {
    if (ok && !cuarr_cubin_has(cubin, size, names[i])) {
      printf("# kernel %s missing\n", names[i]);
      ok = false;
    }
    free(names[i]);
  }
  free(cubin);
  free(source);
  /* One of them again as the engine compiles it, a program of its own: its prelude holds only
   * what the kernel uses. */
  char *name = NULL;
  source = ok ? cuarr_red_source(&c->program, c->n_in, c->in, c->storage, &c->types, c->out_storage,
                                 forms[0], slots == 1 ? v : 1, false, NULL, &name)
              : NULL;
  if (source) {
    cubin = NULL;
    cuarr_status s = cuarr_nvrtc_compile(source, c->what, NULL, 0, 90, &cubin, &size);
    if (s != CUARR_OK)
      printf("# alone: %.3000s\n", cuarr_last_error());
    ok = s == CUARR_OK && cuarr_cubin_has(cubin, size, name);
    free(cubin);
  }
  free(source);
  free(name);
  return ok;
}

static void test_user_programs(void) {
  int64_t shape[2] = {2, 3};
  cuarr_array f32 = {.dtype = CUARR_FLOAT32, .ndim = 1, .shape = {4}, .strides = {4}};
  cuarr_array f64 = {.dtype = CUARR_FLOAT64, .ndim = 1, .shape = {4}, .strides = {8}};
  cuarr_array f16 = {.dtype = CUARR_FLOAT16, .ndim = 1, .shape = {4}, .strides = {2}};
  cuarr_array raw = {.dtype = CUARR_INT32, .ndim = 2, .shape = {2, 3}};
  cuarr_strides_c(2, shape, 4, raw.strides);

  user_case no_identity = {
      .what = "max_noid.cu",
      .program = {.name = "max_noid",
                  .map_expr = "x",
                  .reduce_expr = "a > b ? a : b",
                  .post_expr = "y = a",
                  .ordered = true},
      .n_in = 1,
      .in = {{.array = &f32, .var_dtype = CUARR_FLOAT32, .name = "x", .type_name = "T"}},
      .storage = {CUARR_FLOAT32},
      .types = {.acc = CUARR_FLOAT32,
                .acc_size = 4,
                .out_var = CUARR_FLOAT32,
                .out_name = "y",
                .out_type_name = "T"},
      .out_storage = CUARR_FLOAT32};
  CHECK(compile_user_case(&no_identity),
        "a program without an identity compiles in every form and layout class");

  user_case two_inputs = {
      .what = "dot.cu",
      .program = {.name = "dot",
                  .map_expr = "x * y",
                  .reduce_expr = "a + b",
                  .post_expr = "z = a",
                  .identity = "0",
                  .ordered = true},
      .n_in = 2,
      .in = {{.array = &f64, .var_dtype = CUARR_FLOAT64, .name = "x"},
             {.array = &f32, .var_dtype = CUARR_FLOAT64, .name = "y"}},
      .storage = {CUARR_FLOAT64, CUARR_FLOAT32},
      .types = {.acc = CUARR_FLOAT64, .acc_size = 8, .out_var = CUARR_FLOAT64, .out_name = "z"},
      .out_storage = CUARR_FLOAT32};
  CHECK(compile_user_case(&two_inputs),
        "a program of two array inputs compiles in every element-wise form and layout class");

  user_case mixed = {
      .what = "mixed.cu",
      .program = {.name = "mixed",
                  .map_expr = "twice(x) * s + r[_j % 6] + _i",
                  .reduce_expr = "a + b",
                  .post_expr = "y = a",
                  .identity = "0",
                  .preamble = "__device__ float twice(float v) { return 2 * v; }",
                  .ordered = true},
      .n_in = 3,
      .in = {{.array = &f16, .var_dtype = CUARR_FLOAT16, .name = "x"},
             {.scalar = {.dtype = CUARR_FLOAT32}, .var_dtype = CUARR_FLOAT32, .name = "s"},
             {.array = &raw, .var_dtype = CUARR_INT32, .name = "r", .raw = true}},
      .storage = {CUARR_FLOAT16, CUARR_FLOAT32, CUARR_INT32},
      .types = {.acc = CUARR_FLOAT32, .acc_size = 4, .out_var = CUARR_FLOAT16, .out_name = "y"},
      .out_storage = CUARR_FLOAT16};
  CHECK(compile_user_case(&mixed), "float16, a scalar, a raw array, _i, _j and a preamble "
                                   "compile in every form and layout class");
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
  test_user_programs();
  test_compile_all();
  return ctest_done();
}
