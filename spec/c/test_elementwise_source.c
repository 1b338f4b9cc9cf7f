/*
 * test_elementwise_source.c -- the elementwise engine without a GPU: generated kernels of every
 * layout class compile with NVRTC for sm_90 (several variants per program, as one source:
 * the headers and the preamble are guarded), ElementwiseKernel declarations parse as CuPy's
 * do, and bad declarations and calls fail with the right error before any device is touched.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctest.h"
#include "elementwise/elementwise_private.h"
#include "internal.h"
#include "kernel_checks.h"

/* NVRTC's fast-compile mode where it exists (as copy_compile_all.c): the same front end and
 * instantiations, fewer optimisation passes. */
static const char *const fast_options[] = {"--Ofast-compile=max"};
static int n_fast;

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* ---------------------------------------------------------------- one program, many kernels */

#define MAX_KERNELS 32

typedef struct batch {
  char *source; /* the first variant's whole text, then only the later ones' kernels */
  size_t len;
  char *names[MAX_KERNELS];
  int n;
  bool failed;
} batch;

static void batch_add(batch *b, char *source, char *name) {
  if (!source || !name || b->n == MAX_KERNELS) {
    if (!source)
      printf("# generation failed: %s\n", cuarr_last_error());
    b->failed = true;
    free(source);
    free(name);
    return;
  }
  const char *part = source;
  /* The kernel only: everything before it is already there -- unless this source brings a
   * header that the earlier ones left out (headers are guarded). */
  if (b->source && !brings_header(b->source, source)) {
    const char *k = strstr(source, "\nextern \"C\" __global__ void __launch_bounds__");
    part = k ? k : source;
  }
  size_t n = strlen(part);
  char *grown = realloc(b->source, b->len + n + 1);
  if (!grown) {
    b->failed = true;
    free(source);
    free(name);
    return;
  }
  memcpy(grown + b->len, part, n + 1);
  b->source = grown;
  b->len += n;
  b->names[b->n++] = name;
  free(source);
}

/* Compile the batch; every kernel must be in the cubin. */
static bool batch_compile(batch *b, const char *what) {
  bool ok = !b->failed && b->source;
  char *cubin = NULL;
  size_t size = 0;
  if (ok) {
    cuarr_status s = cuarr_nvrtc_compile(b->source, what, fast_options, n_fast, 90, &cubin, &size);
    if (s != CUARR_OK)
      printf("# %s\n", cuarr_last_error());
    ok = s == CUARR_OK;
  }
  for (int i = 0; i < b->n; i++) {
    if (ok && !cuarr_cubin_has(cubin, size, b->names[i])) {
      printf("# kernel %s missing\n", b->names[i]);
      ok = false;
    }
    free(b->names[i]);
  }
  free(cubin);
  free(b->source);
  memset(b, 0, sizeof *b);
  return ok;
}

/* A key for ops (flags from the operands: array, raw, output), with a splat mask. */
static void key_for(cuarr_ew_key *key, int n, const cuarr_ew_operand *ops,
                    const cuarr_dtype *storage, int layout, int vec, bool wide, unsigned splat) {
  memset(key, 0, sizeof *key);
  key->n = (uint8_t)n;
  key->layout = (uint8_t)layout;
  key->vec = (uint8_t)vec;
  key->wide = wide;
  for (int k = 0; k < n; k++) {
    key->op[k][1] = (uint8_t)ops[k].var_dtype;
    if (!ops[k].array) {
      key->op[k][0] = (uint8_t)ops[k].var_dtype;
      key->op[k][2] = CUARR_EW_SCALAR;
      continue;
    }
    key->op[k][0] = (uint8_t)storage[k];
    if (ops[k].raw) {
      bool contig = cuarr_array_is_c_contiguous(ops[k].array);
      key->op[k][2] = CUARR_EW_RAW | (contig ? CUARR_EW_RAW_CONTIG : 0);
      key->op[k][3] = (uint8_t)ops[k].array->ndim;
    } else {
      key->op[k][2] = CUARR_EW_ARRAY | (splat >> k & 1 ? CUARR_EW_SPLAT : 0);
    }
    if (ops[k].output)
      key->op[k][2] |= CUARR_EW_OUTPUT;
  }
}

static void batch_key(batch *b, const cuarr_ew_program *p, const cuarr_ew_operand *ops,
                      const cuarr_ew_key *key) {
  char *source = NULL, *name = NULL;
  if (cuarr_ew_key_source(p, ops, key, &source, &name) != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  batch_add(b, source, name);
}

/* ---------------------------------------------------------------- tests */

static cuarr_array descriptor; /* an array operand with no data (buf NULL) */

static cuarr_ew_program add_program = {.name = "add", .operation = "out0 = in0 + in1;"};

static void test_names_and_text(void) {
  cuarr_ew_operand ops[3] = {
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "in0"},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "in1"},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "out0", .output = true}};
  cuarr_dtype st[3] = {CUARR_FLOAT32, CUARR_FLOAT32, CUARR_FLOAT32};
  char *name = NULL, *src = cuarr_ew_source(&add_program, 3, ops, st, 0, false, &name);
  CHECK(src && name && strcmp(name, "add_contig_v4_i32_f4f4f4") == 0,
        "the contiguous float32 add is add_contig_v4_i32_f4f4f4");
  CHECK(src && !strstr(src, "struct __half_t") && !strstr(src, "struct float16") &&
            strstr(src, "#define CUARR_ELEMENTWISE_CU") &&
            !strstr(src, "#define CUARR_COMMON_CUH") &&
            strstr(src, "((const cuarr_ew_vec<float, 4> *)_cuarr_p0)[_cuarr_j]") &&
            strstr(src, "const float in0 = _cuarr_v0.v[_cuarr_k];") &&
            strstr(src, "out0 = in0 + in1;"),
        "it holds elementwise.cu only, 16-byte vector loads, plain reads and the operation");
  free(src);
  free(name);
  /* A conversion (float32 -> float64 variable) needs common.cuh's cuarr_cast. */
  ops[0].var_dtype = CUARR_FLOAT64;
  src = cuarr_ew_source(&add_program, 3, ops, st, 0, false, &name);
  ops[0].var_dtype = CUARR_FLOAT32;
  CHECK(
      src && strstr(src, "#define CUARR_COMMON_CUH") &&
          strstr(src, "const double in0 = cuarr_cast<double>(cuarr_load(&_cuarr_v0.v[_cuarr_k]));"),
      "a converted operand brings common.cuh and is read through cuarr_cast");
  free(src);
  free(name);
  src = cuarr_ew_source(&add_program, 3, ops, st, CUARR_EW_LAYOUT_ROWS_VECTOR + 1, true, &name);
  CHECK(src && strcmp(name, "add_nd2_v4_i64_f4f4f4") == 0 &&
            strstr(src, "cuarr_layout<unsigned long long, 2, 3> _cuarr_L"),
        "rows-vectorised 2-D, 64-bit: add_nd2_v4_i64_f4f4f4 over a 64-bit layout");
  free(src);
  free(name);
  src = cuarr_ew_source(&add_program, 3, ops, st, CUARR_EW_LAYOUT_CONTIG_WHOLE, false, &name);
  CHECK(src && strcmp(name, "add_contig_v4w_i32_f4f4f4") == 0 && !strstr(src, "_cuarr_e"),
        "whole vectors: add_contig_v4w_i32_f4f4f4, with no tail");
  free(src);
  free(name);
  src = cuarr_ew_source(&add_program, 3, ops, st, CUARR_EW_LAYOUT_CONTIG_WHOLE + 1, false, &name);
  CHECK(!src && !name, "an unknown layout is refused");

  /* Names and types the generator must refuse. */
  cuarr_ew_operand bad[3];
  memcpy(bad, ops, sizeof bad);
  bad[1].name = "i";
  src = cuarr_ew_source(&add_program, 3, bad, st, 0, false, &name);
  CHECK(!src && strstr(cuarr_last_error(), "reserved"), "an operand named i is refused");
  bad[1].name = "in0";
  src = cuarr_ew_source(&add_program, 3, bad, st, 0, false, &name);
  CHECK(!src && strstr(cuarr_last_error(), "two operands"), "duplicate operand names refused");
  bad[1].name = "2x";
  src = cuarr_ew_source(&add_program, 3, bad, st, 0, false, &name);
  CHECK(!src, "a non-identifier operand name is refused");
  memcpy(bad, ops, sizeof bad);
  bad[0].type_name = bad[2].type_name = "T";
  bad[2].var_dtype = CUARR_FLOAT64;
  src = cuarr_ew_source(&add_program, 3, bad, st, 0, false, &name);
  CHECK(!src && strstr(cuarr_last_error(), "type T"), "a type name bound to two dtypes refused");
}

static void test_index_use(void) {
  CHECK(cuarr_ew_uses_index("y = x[i];"), "`x[i]` uses i");
  CHECK(!cuarr_ew_uses_index("y = xi + i2 + x.size(); // i\n/* i */ c = 'i'; s = \"i\";"),
        "identifiers containing i, comments and literals do not");
  CHECK(cuarr_ew_macros_use_index("__device__ int f(int i) { return i; }\n#define AT(x) \\\n x[i]"),
        "a preamble macro using i counts");
  CHECK(!cuarr_ew_macros_use_index("__device__ int f(int i) { return i; }\n#define TWO 2"),
        "a preamble function using its own i does not");
}

/* Every layout class of the plain add, both index widths, as one program. */
static void test_add_variants(void) {
  cuarr_ew_operand ops[3] = {
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "in0"},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "in1"},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "out0", .output = true}};
  cuarr_dtype st[3] = {CUARR_FLOAT32, CUARR_FLOAT32, CUARR_FLOAT32};
  batch b = {0};
  for (int wide = 0; wide < 2; wide++)
    for (int layout = 0; layout <= CUARR_EW_LAYOUT_CONTIG_WHOLE; layout++) {
      char *name = NULL, *src = cuarr_ew_source(&add_program, 3, ops, st, layout, wide, &name);
      batch_add(&b, src, name);
    }
  /* Splats: a row and a column broadcast of the rows-vectorised loops. */
  cuarr_ew_key key;
  key_for(&key, 3, ops, st, 2, 4, false, 2u);
  batch_key(&b, &add_program, ops, &key);
  key_for(&key, 3, ops, st, 1, 4, false, 1u);
  batch_key(&b, &add_program, ops, &key);
  CHECK(batch_compile(&b, "add_variants.cu"),
        "float32 add: contiguous (vectors, elements), nd1..4, generic, rows-vectorised nd1..4, "
        "splats, 32- and 64-bit: all compile");
}

/* Conversions between storage and var dtypes, float16 variables, scalars, several outputs. */
static void test_mixed_dtypes(void) {
  cuarr_ew_program p = {.name = "mixed",
                        .operation = "out0 = in0 * in1 > s; out1 = in1 * s + in0; "
                                     "out2 = -in1 + (in0 < 0 ? in1 : s) * 2"};
  cuarr_ew_operand ops[6] = {
      {.array = &descriptor, .var_dtype = CUARR_FLOAT32, .name = "in0"},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT16, .name = "in1"},
      {.var_dtype = CUARR_FLOAT16, .name = "s"},
      {.array = &descriptor, .var_dtype = CUARR_BOOL, .name = "out0", .output = true},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT64, .name = "out1", .output = true},
      {.array = &descriptor, .var_dtype = CUARR_FLOAT16, .name = "out2", .output = true}};
  cuarr_dtype st[6] = {CUARR_INT8, CUARR_FLOAT16, CUARR_FLOAT16,
                       CUARR_BOOL, CUARR_FLOAT16, CUARR_UINT16};
  batch b = {0};
  int layouts[] = {0, CUARR_EW_LAYOUT_CONTIG_SCALAR, 3,
                   5, CUARR_EW_LAYOUT_ROWS_VECTOR,   CUARR_EW_LAYOUT_CONTIG_WHOLE};
  for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
    char *name = NULL, *src = cuarr_ew_source(&p, 6, ops, st, layouts[l], false, &name);
    batch_add(&b, src, name);
  }
  cuarr_ew_key key;
  key_for(&key, 6, ops, st, 2, 8, true, 2u); /* in1 a splat; 64-bit */
  batch_key(&b, &p, ops, &key);
  CHECK(batch_compile(&b, "mixed.cu"),
        "int8/float16 storage with float32/float16 variables, a float16 scalar, bool, float64 "
        "and uint16 outputs: all layouts compile");
}

/* Every dtype as storage and variable, with arithmetic on the variable. */
static void test_all_dtypes(void) {
  cuarr_ew_program p = {.name = "each", .operation = "out0 = in0 + in0 * in0; out0 -= in0"};
  batch b = {0};
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    cuarr_ew_operand ops[2] = {
        {.array = &descriptor, .var_dtype = (cuarr_dtype)d, .name = "in0"},
        {.array = &descriptor, .var_dtype = (cuarr_dtype)d, .name = "out0", .output = true}};
    cuarr_dtype st[2] = {(cuarr_dtype)d, (cuarr_dtype)(CUARR_NDTYPES - 1 - d)};
    for (int layout = 0; layout <= 2; layout += 2) {
      char *name = NULL, *src = cuarr_ew_source(&p, 2, ops, st, layout, false, &name);
      batch_add(&b, src, name);
    }
  }
  CHECK(batch_compile(&b, "each_dtype.cu"),
        "each of the 12 dtypes as a variable, converted from and to another: compiles");
}

/* What ElementwiseKernel generates: placeholders, raw operands (contiguous, 3-D strided, 0-D),
 * i, _ind.size(), preamble, loop_prep, after_loop; and a loop with no array operands. */
static void test_user_features(void) {
  cuarr_ew_program p = {
      .name = "user",
      .preamble = "__device__ T twice(T v) { return v + v; }\n#define SCALE(v) ((v) * k)",
      .loop_prep = "T acc = 0; const int k = 3",
      .operation = "T t = x[i % x.size()] + w[i % w.size()] + v[0];\n"
                   "y = twice(t) + SCALE(a) + (T)(_ind.size() - i) + h;\n"
                   "acc += y // a comment on the last line",
      .after_loop = "if (acc == (T)-1) v[0] = acc",
  };
  cuarr_array raw3 = {.dtype = CUARR_FLOAT64,
                      .ndim = 3,
                      .shape = {2, 3, 4},
                      .strides = {8, 16 * 8, 48 * 8}}; /* transposed: not C-contiguous */
  cuarr_array raw0 = {.dtype = CUARR_FLOAT64, .ndim = 0};
  cuarr_array raw1 = {.dtype = CUARR_FLOAT64, .ndim = 1, .shape = {10}, .strides = {8}};
  cuarr_ew_operand ops[6] = {
      {.array = &raw1, .var_dtype = CUARR_FLOAT64, .name = "x", .raw = true, .type_name = "T"},
      {.array = &raw3, .var_dtype = CUARR_FLOAT64, .name = "w", .raw = true, .type_name = "T"},
      {.array = &raw0, .var_dtype = CUARR_FLOAT64, .name = "v", .raw = true, .output = true},
      {.array = &descriptor, .var_dtype = CUARR_INT32, .name = "a"},
      {.var_dtype = CUARR_FLOAT16, .name = "h"},
      {.array = &descriptor,
       .var_dtype = CUARR_FLOAT64,
       .name = "y",
       .output = true,
       .type_name = "T"}};
  cuarr_dtype st[6] = {CUARR_FLOAT64, CUARR_FLOAT64, CUARR_FLOAT64,
                       CUARR_INT32,   CUARR_FLOAT16, CUARR_FLOAT64};
  batch b = {0};
  int layouts[] = {0, 2, 5, CUARR_EW_LAYOUT_CONTIG_WHOLE};
  for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++)
    for (int wide = 0; wide < 2; wide++) {
      char *name = NULL, *src = cuarr_ew_source(&p, 6, ops, st, layouts[l], wide, &name);
      batch_add(&b, src, name);
    }
  CHECK(batch_compile(&b, "user.cu"),
        "placeholders, raw operands (contiguous, 3-D strided, 0-D), i, _ind.size(), preamble, "
        "loop_prep and after_loop: compile");

  /* A loop of `size` elements over raw arrays and a scalar only. */
  cuarr_ew_program q = {.name = "fill_raw", .operation = "y[i] = (float16)(s * i)"};
  cuarr_array rawh = {.dtype = CUARR_FLOAT16, .ndim = 1, .shape = {10}, .strides = {2}};
  cuarr_ew_operand qops[2] = {
      {.var_dtype = CUARR_FLOAT32, .name = "s"},
      {.array = &rawh, .var_dtype = CUARR_FLOAT16, .name = "y", .raw = true, .output = true}};
  cuarr_dtype qst[2] = {CUARR_FLOAT32, CUARR_FLOAT16};
  char *name = NULL, *src = cuarr_ew_source(&q, 2, qops, qst, 0, false, &name);
  CHECK(src && strstr(name, "fill_raw_contig_i32_sf4rf2") == name,
        "with no array operands the loop is the plain contiguous one");
  batch_add(&b, src, name);
  src = cuarr_ew_source(&q, 2, qops, qst, 2, false, &name);
  CHECK(!src, "a strided layout without array operands is refused");
  CHECK(batch_compile(&b, "fill_raw.cu"), "a raw-only kernel (float16 raw writes) compiles");
}

/* ---------------------------------------------------------------- ElementwiseKernel */

static cuarr_status make(const char *in, const char *out, const char *name,
                         cuarr_elementwise_kernel **k) {
  return cuarr_elementwise_kernel_new(in, out, "y = x", name, NULL, k);
}

static void test_parse(void) {
  cuarr_elementwise_kernel *k = NULL;
  CHECK(cuarr_elementwise_kernel_new("float32 x, T y, raw T z", "T w", "w = x", "k", NULL, &k) ==
                CUARR_OK &&
            cuarr_elementwise_kernel_nin(k) == 3 && cuarr_elementwise_kernel_nout(k) == 1,
        "\"float32 x, T y, raw T z\" -> \"T w\": 3 inputs, 1 output");
  cuarr_elementwise_kernel_free(k);
  k = NULL;
  CHECK(make("", "  raw  uint8   y ", "k", &k) == CUARR_OK &&
            cuarr_elementwise_kernel_nin(k) == 0 && cuarr_elementwise_kernel_nout(k) == 1,
        "no inputs, spaces around a raw output");
  cuarr_elementwise_kernel_free(k);
  k = NULL;
  CHECK(make("_non_const raw bool x", "U y", "k", &k) == CUARR_OK, "CuPy's _non_const keyword");
  cuarr_elementwise_kernel_free(k);
  cuarr_elementwise_kernel_options o = {
      .preamble = "", .options = (const char *[]){"-DX=1"}, .n_options = 1};
  k = NULL;
  CHECK(cuarr_elementwise_kernel_new("T x", "T y", "y = x", "k", &o, &k) == CUARR_OK,
        "options are kept");
  cuarr_elementwise_kernel_free(k);

  struct {
    const char *in, *out, *name, *why;
  } bad[] = {
      {"float32", "float32 y", "k", "a parameter without a name"},
      {"float32 x,", "float32 y", "k", "an empty parameter"},
      {"float32 x y", "float32 z", "k", "an unknown keyword"},
      {"flaot32 x", "float32 y", "k", "an unknown type"},
      {"float x", "float32 y", "k", "a C type name (CuPy takes none)"},
      {"TT x", "float32 y", "k", "a placeholder of two letters"},
      {"1 x", "float32 y", "k", "a placeholder that is not a letter"},
      {"float32 x", "float32 x", "k", "a duplicate name across the lists"},
      {"float32 x, int8 x", "float32 y", "k", "a duplicate name"},
      {"float32 i", "float32 y", "k", "the reserved name i"},
      {"float32 _ind", "float32 y", "k", "the reserved name _ind"},
      {"float32 2x", "float32 y", "k", "a name that is not an identifier"},
      {"float32 x", "float32 y", "my-kernel", "a kernel name that is not an identifier"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    k = NULL;
    cuarr_status s = make(bad[i].in, bad[i].out, bad[i].name, &k);
    char what[160];
    snprintf(what, sizeof what, "ValueError for %s", bad[i].why);
    CHECK(s == CUARR_VALUE_ERROR && k == NULL, what);
    cuarr_elementwise_kernel_free(k);
  }
}

/* Errors a call reports before using the device (arrays wrapping no real memory). */
static cuarr_array fake(int device, cuarr_dtype d, int ndim, const int64_t *shape) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  cuarr_buffer_wrap((void *)(uintptr_t)0x100000, 1 << 20, device, false, NULL, NULL, &a.buf);
  a.dtype = d;
  a.ndim = ndim;
  memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
  cuarr_strides_c(ndim, shape, cuarr_dtype_size(d), a.strides);
  return a;
}

static void test_call_errors(void) {
  int64_t s4[1] = {4}, s5[1] = {5}, s23[2] = {2, 3};
  cuarr_array f32 = fake(0, CUARR_FLOAT32, 1, s4), i8 = fake(0, CUARR_INT8, 1, s4),
              f64 = fake(0, CUARR_FLOAT64, 1, s4), f5 = fake(0, CUARR_FLOAT32, 1, s5),
              h = fake(CUARR_HOST, CUARR_FLOAT32, 1, s4), m = fake(0, CUARR_FLOAT32, 2, s23);
  cuarr_elementwise_kernel *k = NULL;
  cuarr_elementwise_kernel_new("float32 x, T y", "T z", "z = x + y", "k", NULL, &k);
  cuarr_array out[2];
  memset(out, 0, sizeof out);
  cuarr_operand in[2] = {{.array = &f32}, {.array = &f32}};
  CHECK(cuarr_elementwise_kernel_call(NULL, k, CUARR_HOST, in, out, -1, CUARR_FLOAT64) ==
            CUARR_VALUE_ERROR,
        "a call on the host is a ValueError");
  in[1].array = &h;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) ==
                CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "runs on the device"),
        "a host array argument is a ValueError (\"ElementwiseKernel runs on the device\")");
  in[0].array = &f64;
  in[1].array = &f32;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) == CUARR_TYPE_ERROR,
        "a float64 array for a float32 parameter is a TypeError");
  in[0].array = &f32;
  out[0] = i8;
  in[1].array = &f32;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) == CUARR_TYPE_ERROR,
        "T bound to int8 by the output and float32 by an input is a TypeError");
  out[0] = f5;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) == CUARR_VALUE_ERROR,
        "an output of the wrong shape is a ValueError");
  out[0] = f32;
  in[1].array = &m;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) == CUARR_VALUE_ERROR,
        "inputs that do not broadcast are a ValueError");
  memset(out, 0, sizeof out);
  in[1].array = &f32;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, 4, CUARR_FLOAT64) == CUARR_VALUE_ERROR,
        "size with non-raw arrays is a ValueError");
  in[1].array = NULL;
  in[1].scalar = (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 1};
  in[1].weak = true;
  in[0] = in[1];
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, -1, CUARR_FLOAT64) ==
                CUARR_VALUE_ERROR &&
            strstr(cuarr_last_error(), "undecided"),
        "scalars only and no size: the loop size is undecided (ValueError)");
  CHECK(!out[0].buf, "a failed call leaves the outputs as they were");
  cuarr_elementwise_kernel_free(k);

  k = NULL;
  cuarr_elementwise_kernel_new("raw T x", "U y", "y = x[i]", "k", NULL, &k);
  in[0].array = &f32;
  CHECK(cuarr_elementwise_kernel_call(NULL, k, 0, in, out, 4, CUARR_FLOAT64) == CUARR_TYPE_ERROR,
        "an output placeholder nothing binds is a TypeError");
  cuarr_elementwise_kernel_free(k);

  /* The engine's own checks. */
  cuarr_ew_program p = {.name = "p", .operation = "out0 = in0"};
  cuarr_ew_operand ops[2] = {{.array = &f32, .var_dtype = CUARR_FLOAT32, .name = "in0"},
                             {.var_dtype = CUARR_FLOAT32, .name = "out0", .output = true}};
  CHECK(cuarr_ew_launch(NULL, 0, &p, 2, ops, -1) == CUARR_VALUE_ERROR,
        "launch: a scalar output is a ValueError");
  ops[1].array = &f32;
  CHECK(cuarr_ew_launch(NULL, CUARR_HOST, &p, 2, ops, -1) == CUARR_VALUE_ERROR,
        "launch: on the host is a ValueError");
  ops[0].array = &h;
  CHECK(cuarr_ew_launch(NULL, 0, &p, 2, ops, -1) == CUARR_VALUE_ERROR,
        "launch: a host array is a ValueError");
  cuarr_ew_program_release(&p);
  CHECK(p.cache == NULL, "release empties the program's cache");
  cuarr_array *all[] = {&f32, &i8, &f64, &f5, &h, &m};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    cuarr_array_release(all[i]);
}

int main(void) {
  test_parse();
  test_call_errors();
  test_index_use();
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  char *probe = NULL;
  size_t probe_size = 0;
  if (cuarr_nvrtc_compile("extern \"C\" __global__ void probe() {}\n", "probe.cu", fast_options, 1,
                          90, &probe, &probe_size) == CUARR_OK)
    n_fast = 1;
  free(probe);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  test_names_and_text();
  test_add_variants();
  test_mixed_dtypes();
  test_all_dtypes();
  test_user_features();
  printf("# elementwise sources compiled in %.1f s\n", seconds_since(&t0));
  return ctest_done();
}
