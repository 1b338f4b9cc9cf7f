/* test_host.c -- dtypes, casting, views, layouts and the host copy/fill loops (no GPU). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "internal.h"

static const cuarr_reclaim no_reclaim = {NULL, NULL};

/* ---- helpers */

static cuarr_array make(cuarr_dtype dt, int ndim, const int64_t *shape) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  cuarr_status st = cuarr_array_empty(CUARR_HOST, dt, ndim, shape, false, NULL, no_reclaim, &a);
  if (st != CUARR_OK)
    printf("# cuarr_array_empty failed: %s\n", cuarr_last_error());
  return a;
}

static cuarr_scalar f64(double v) {
  cuarr_scalar s = {.dtype = CUARR_FLOAT64};
  s.v.f = v;
  return s;
}
static cuarr_scalar i64(int64_t v) {
  cuarr_scalar s = {.dtype = CUARR_INT64};
  s.v.i = v;
  return s;
}
static cuarr_scalar u64(uint64_t v) {
  cuarr_scalar s = {.dtype = CUARR_UINT64};
  s.v.u = v;
  return s;
}

static double as_double(cuarr_scalar s) {
  if (s.dtype == CUARR_BOOL)
    return s.v.b;
  if (cuarr_dtype_is_signed(s.dtype))
    return (double)s.v.i;
  if (cuarr_dtype_is_unsigned(s.dtype))
    return (double)s.v.u;
  return s.v.f;
}

static char *elem(const cuarr_array *a, const int64_t *idx) {
  char *p = cuarr_array_data(a);
  for (int i = 0; i < a->ndim; i++)
    p += idx[i] * a->strides[i];
  return p;
}

/* Element of a at flat C-order index k, as a double. */
static double at(const cuarr_array *a, int64_t k) {
  int64_t idx[CUARR_MAXDIM];
  for (int i = a->ndim - 1; i >= 0; i--) {
    idx[i] = k % a->shape[i];
    k /= a->shape[i];
  }
  return as_double(cuarr_scalar_load(elem(a, idx), a->dtype));
}

static void set(const cuarr_array *a, int64_t k, cuarr_scalar v) {
  int64_t idx[CUARR_MAXDIM];
  for (int i = a->ndim - 1; i >= 0; i--) {
    idx[i] = k % a->shape[i];
    k /= a->shape[i];
  }
  cuarr_scalar_store(v, a->dtype, elem(a, idx));
}

/* a holds exactly the n values want, in C order. */
static bool equals(const cuarr_array *a, const double *want, int64_t n) {
  if (cuarr_array_size(a) != n)
    return false;
  for (int64_t k = 0; k < n; k++) {
    if (at(a, k) != want[k]) {
      printf("# element %" PRId64 ": %.17g, want %.17g\n", k, at(a, k), want[k]);
      return false;
    }
  }
  return true;
}

/* A float64 array 0, 1, ..., n-1 of the given shape. */
static cuarr_array iota(cuarr_dtype dt, int ndim, const int64_t *shape) {
  cuarr_array a = make(dt, ndim, shape);
  int64_t n = cuarr_array_size(&a);
  for (int64_t k = 0; k < n; k++)
    set(&a, k, f64((double)k));
  return a;
}

static bool error_is(cuarr_status st, cuarr_status want, const char *msg) {
  if (st != want || strstr(cuarr_last_error(), msg) == NULL) {
    printf("# got %s \"%s\", want %s containing \"%s\"\n", cuarr_status_name(st),
           cuarr_last_error(), cuarr_status_name(want), msg);
    return false;
  }
  return true;
}

/* ---- dtypes */

static void test_dtypes(void) {
  bool ok = true;
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    cuarr_dtype back;
    ok = ok && cuarr_dtype_from_name(cuarr_dtype_name((cuarr_dtype)d), &back) && (int)back == d;
  }
  CHECK(ok, "dtype names round trip");
  static const struct {
    const char *code;
    cuarr_dtype d;
  } codes[] = {{"?", CUARR_BOOL},    {"b", CUARR_INT8},   {"h", CUARR_INT16},  {"i", CUARR_INT32},
               {"l", CUARR_INT64},   {"q", CUARR_INT64},  {"B", CUARR_UINT8},  {"H", CUARR_UINT16},
               {"I", CUARR_UINT32},  {"L", CUARR_UINT64}, {"Q", CUARR_UINT64}, {"e", CUARR_FLOAT16},
               {"f", CUARR_FLOAT32}, {"d", CUARR_FLOAT64}};
  ok = true;
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    cuarr_dtype d;
    ok = ok && cuarr_dtype_from_name(codes[i].code, &d) && d == codes[i].d;
  }
  CHECK(ok, "NumPy char codes");
  static const char *bad[] = {"float",    "double", "int", "",   "f4",   "Float32",
                              "float32 ", "bo",     "x",   "?b", "uint", "complex64"};
  ok = true;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cuarr_dtype d = CUARR_FLOAT64;
    ok = ok && !cuarr_dtype_from_name(bad[i], &d);
  }
  CHECK(ok && !cuarr_dtype_from_name(NULL, &(cuarr_dtype){0}), "unknown dtype names rejected");
  CHECK(cuarr_dtype_size(CUARR_BOOL) == 1 && cuarr_dtype_size(CUARR_FLOAT16) == 2 &&
            cuarr_dtype_size(CUARR_UINT32) == 4 && cuarr_dtype_size(CUARR_INT64) == 8,
        "dtype sizes");
  CHECK(strcmp(cuarr_dtype_ctype(CUARR_INT64), "long long") == 0 &&
            strcmp(cuarr_dtype_ctype(CUARR_FLOAT16), "__half_t") == 0 &&
            strcmp(cuarr_dtype_ctype(CUARR_UINT8), "unsigned char") == 0 &&
            strcmp(cuarr_dtype_ctype(CUARR_INT8), "signed char") == 0,
        "CUDA C type names");
  CHECK(cuarr_dtype_is_bool(CUARR_BOOL) && !cuarr_dtype_is_integer(CUARR_BOOL) &&
            cuarr_dtype_is_signed(CUARR_INT8) && !cuarr_dtype_is_signed(CUARR_UINT8) &&
            cuarr_dtype_is_unsigned(CUARR_UINT64) && cuarr_dtype_is_integer(CUARR_UINT16) &&
            cuarr_dtype_is_float(CUARR_FLOAT16) && !cuarr_dtype_is_float(CUARR_INT64),
        "dtype predicates");
}

/* ---- float16 */

static uint16_t half_of_double(double x) {
  uint16_t h;
  cuarr_scalar_store(f64(x), CUARR_FLOAT16, &h);
  return h;
}

/* The one range rule for a scalar that becomes an element (cuarr_scalar_check_element). */
static void test_element_range(void) {
  cuarr_scalar i300 = {.dtype = CUARR_INT64, .v.i = 300}, m1 = {.dtype = CUARR_INT64, .v.i = -1};
  cuarr_scalar big = {.dtype = CUARR_UINT64, .v.u = UINT64_MAX}, f = f64(1e30);
  CHECK(cuarr_scalar_check_element(i300, CUARR_INT8) == CUARR_VALUE_ERROR &&
            strcmp(cuarr_last_error(), "integer 300 out of bounds for int8") == 0,
        "300 is out of int8's range, and the message names both");
  CHECK(cuarr_scalar_check_element(i300, CUARR_INT16) == CUARR_OK &&
            cuarr_scalar_check_element(m1, CUARR_INT8) == CUARR_OK,
        "in range: no error");
  CHECK(cuarr_scalar_check_element(m1, CUARR_UINT32) == CUARR_VALUE_ERROR &&
            cuarr_scalar_check_element(m1, CUARR_UINT64) == CUARR_OK,
        "-1: refused by uint32, uint64's bits 2^64 - 1");
  CHECK(cuarr_scalar_check_element(big, CUARR_INT64) == CUARR_VALUE_ERROR &&
            cuarr_scalar_check_element(big, CUARR_UINT64) == CUARR_OK,
        "an unsigned scalar by its value");
  CHECK(cuarr_scalar_check_element(f, CUARR_INT8) == CUARR_OK &&
            cuarr_scalar_check_element(i300, CUARR_FLOAT16) == CUARR_OK &&
            cuarr_scalar_check_element(i300, CUARR_BOOL) == CUARR_OK,
        "floats saturate, float and bool dtypes are not checked");
}

static void test_half(void) {
  CHECK(cuarr_float_to_half(1.0f) == 0x3c00 && cuarr_half_to_float(0x3c00) == 1.0f, "half 1.0");
  CHECK(cuarr_float_to_half(65504.0f) == 0x7bff && cuarr_half_to_float(0x7bff) == 65504.0f,
        "half max 65504");
  CHECK(cuarr_float_to_half(65519.0f) == 0x7bff, "65519 rounds down to 65504");
  CHECK(cuarr_float_to_half(65520.0f) == 0x7c00, "65520 rounds to inf");
  CHECK(cuarr_float_to_half(INFINITY) == 0x7c00 && cuarr_float_to_half(-INFINITY) == 0xfc00,
        "half +-inf");
  CHECK(cuarr_float_to_half(ldexpf(1, -24)) == 0x0001 &&
            cuarr_half_to_float(0x0001) == ldexpf(1, -24),
        "half smallest subnormal 2^-24");
  CHECK(cuarr_float_to_half(ldexpf(1, -14)) == 0x0400, "half smallest normal 2^-14");
  CHECK(cuarr_half_to_float(0x03ff) == 1023 * ldexpf(1, -24), "half largest subnormal");
  CHECK(cuarr_float_to_half(ldexpf(1, -25)) == 0x0000, "2^-25 ties to even: 0");
  CHECK(cuarr_float_to_half(ldexpf(1.0001f, -25)) == 0x0001, "just above 2^-25 rounds up");
  CHECK(cuarr_float_to_half(ldexpf(3, -25)) == 0x0002, "1.5 subnormal units ties to 2");
  CHECK(cuarr_float_to_half(ldexpf(1, -26)) == 0x0000, "2^-26 underflows to 0");
  CHECK(cuarr_float_to_half(1.0f + ldexpf(1, -11)) == 0x3c00, "tie rounds to even (down)");
  CHECK(cuarr_float_to_half(1.0f + 3 * ldexpf(1, -11)) == 0x3c02, "tie rounds to even (up)");
  CHECK(cuarr_float_to_half(-0.0f) == 0x8000 && signbit(cuarr_half_to_float(0x8000)), "half -0");
  uint16_t hn = cuarr_float_to_half(NAN);
  CHECK((hn & 0x7c00) == 0x7c00 && (hn & 0x3ff) != 0 && isnan(cuarr_half_to_float(hn)), "half NaN");
  CHECK(cuarr_float_to_half(-2.5f) == 0xc100 && cuarr_half_to_float(0xc100) == -2.5f, "half -2.5");
  bool ok = true;
  for (uint32_t h = 0; h < 0x10000; h++) {
    float f = cuarr_half_to_float((uint16_t)h);
    if (isnan(f))
      ok = ok && isnan(cuarr_half_to_float(cuarr_float_to_half(f)));
    else
      ok = ok && cuarr_float_to_half(f) == h;
  }
  CHECK(ok, "every half round trips through float");
  /* 1 + 2^-11 + 2^-40: going through float would round to the tie 1 + 2^-11 and then to 1.0;
   * the direct double -> half conversion sees it is above the tie. */
  CHECK(half_of_double(1.0 + ldexp(1, -11) + ldexp(1, -40)) == 0x3c01,
        "float64 -> float16 rounds once");
  CHECK(half_of_double(65519.99) == 0x7bff && half_of_double(65520.0) == 0x7c00 &&
            half_of_double(1e300) == 0x7c00 && half_of_double(-1e300) == 0xfc00 &&
            half_of_double(1e-300) == 0 && half_of_double(ldexp(1, -24)) == 1,
        "float64 -> float16 edges");
}

/* ---- casting rules */

static bool stores(cuarr_scalar s, cuarr_dtype to, const void *want) {
  unsigned char out[8] = {0};
  cuarr_scalar_store(s, to, out);
  return memcmp(out, want, cuarr_dtype_size(to)) == 0;
}

static void test_casts(void) {
  uint8_t u8;
  int8_t i8;
  int32_t i32;
  int64_t i64v;
  uint64_t u64v;
  uint16_t u16;
  float f32;
  double d;
  CHECK(stores(f64(300.7), CUARR_UINT8, &(uint8_t){255}), "float64 300.7 -> uint8 255");
  CHECK(stores(f64(-5.0), CUARR_UINT8, &(uint8_t){0}), "float64 -5 -> uint8 0");
  CHECK(stores(f64(NAN), CUARR_INT32, &(int32_t){0}), "nan -> int32 0");
  CHECK(stores(f64(1e300), CUARR_INT64, &(int64_t){INT64_MAX}), "1e300 -> int64 max");
  CHECK(stores(f64(-1e300), CUARR_INT64, &(int64_t){INT64_MIN}), "-1e300 -> int64 min");
  CHECK(stores(f64(ldexp(1, 63)), CUARR_INT64, &(int64_t){INT64_MAX}), "2^63 -> int64 max");
  CHECK(stores(f64(-ldexp(1, 63)), CUARR_INT64, &(int64_t){INT64_MIN}), "-2^63 -> int64 min");
  CHECK(stores(f64(ldexp(1, 63) - 1024), CUARR_INT64, &(int64_t){INT64_MAX - 1023}),
        "largest double below 2^63 is exact");
  CHECK(stores(f64(ldexp(1, 64)), CUARR_UINT64, &(uint64_t){UINT64_MAX}), "2^64 -> uint64 max");
  CHECK(stores(f64(ldexp(1, 63)), CUARR_UINT64, &(uint64_t){UINT64_C(1) << 63}),
        "2^63 -> uint64 exact");
  CHECK(stores(f64(-1.0), CUARR_UINT64, &(uint64_t){0}), "-1.0 -> uint64 0");
  CHECK(stores(f64(INFINITY), CUARR_INT16, &(int16_t){INT16_MAX}) &&
            stores(f64(-INFINITY), CUARR_INT16, &(int16_t){INT16_MIN}) &&
            stores(f64(INFINITY), CUARR_UINT32, &(uint32_t){UINT32_MAX}) &&
            stores(f64(-INFINITY), CUARR_UINT32, &(uint32_t){0}),
        "+-inf saturate");
  CHECK(stores(f64(127.9), CUARR_INT8, &(int8_t){127}) &&
            stores(f64(128.0), CUARR_INT8, &(int8_t){127}) &&
            stores(f64(-128.9), CUARR_INT8, &(int8_t){-128}) &&
            stores(f64(-129.0), CUARR_INT8, &(int8_t){-128}),
        "float -> int8 edges");
  CHECK(stores(f64(-0.5), CUARR_INT32, &(int32_t){0}) &&
            stores(f64(-1.5), CUARR_INT32, &(int32_t){-1}) &&
            stores(f64(2.5), CUARR_INT32, &(int32_t){2}),
        "float -> int truncates toward zero");
  CHECK(stores(i64(300), CUARR_INT8, &(int8_t){44}) &&
            stores(i64(-129), CUARR_INT8, &(int8_t){127}) &&
            stores(i64(65536 + 5), CUARR_UINT16, &(uint16_t){5}),
        "integer -> narrower integer wraps");
  CHECK(stores(i64(-1), CUARR_UINT64, &(uint64_t){UINT64_MAX}) &&
            stores(u64(UINT64_MAX), CUARR_INT64, &(int64_t){-1}) &&
            stores(i64(-1), CUARR_UINT8, &(uint8_t){255}),
        "signed <-> unsigned reinterpret");
  CHECK(stores(f64(NAN), CUARR_BOOL, &(uint8_t){1}) &&
            stores(f64(0.0), CUARR_BOOL, &(uint8_t){0}) &&
            stores(f64(-0.0), CUARR_BOOL, &(uint8_t){0}) &&
            stores(f64(0.1), CUARR_BOOL, &(uint8_t){1}) &&
            stores(i64(256), CUARR_BOOL, &(uint8_t){1}),
        "anything -> bool is x != 0");
  cuarr_scalar t = {.dtype = CUARR_BOOL};
  t.v.b = true;
  CHECK(stores(t, CUARR_FLOAT64, &(double){1.0}) && stores(t, CUARR_INT16, &(int16_t){1}) &&
            stores(t, CUARR_FLOAT16, &(uint16_t){0x3c00}),
        "bool -> number is 0/1");
  CHECK(stores(i64(INT64_MAX), CUARR_FLOAT32, &(float){9223372036854775807.0f}) &&
            stores(i64((INT64_C(1) << 40) + 1), CUARR_FLOAT64, &(double){1099511627777.0}),
        "integer -> float rounds to nearest");
  CHECK(stores(f64(1e300), CUARR_FLOAT32, &(float){INFINITY}), "float64 -> float32 overflow: inf");
  /* loads */
  i8 = -3;
  CHECK(cuarr_scalar_load(&i8, CUARR_INT8).v.i == -3, "load int8 sign-extends");
  u8 = 200;
  CHECK(cuarr_scalar_load(&u8, CUARR_UINT8).v.u == 200, "load uint8");
  u8 = 2;
  CHECK(cuarr_scalar_load(&u8, CUARR_BOOL).v.b == true, "load bool");
  u16 = 0x3e00;
  CHECK(cuarr_scalar_load(&u16, CUARR_FLOAT16).v.f == 1.5, "load float16");
  f32 = 0.1f;
  CHECK(cuarr_scalar_load(&f32, CUARR_FLOAT32).v.f == (double)0.1f, "load float32");
  u64v = UINT64_MAX;
  CHECK(cuarr_scalar_load(&u64v, CUARR_UINT64).v.u == UINT64_MAX, "load uint64");
  i64v = INT64_MIN;
  i32 = -7;
  d = -2.25;
  CHECK(cuarr_scalar_load(&i64v, CUARR_INT64).v.i == INT64_MIN &&
            cuarr_scalar_load(&i32, CUARR_INT32).v.i == -7 &&
            cuarr_scalar_load(&d, CUARR_FLOAT64).v.f == -2.25,
        "load int64, int32, float64");
}

/* Every (dst, src) pair through cuarr_host_copy, against cuarr_scalar_store element by
 * element; contiguous and strided destinations. */
static void test_all_pairs(void) {
  const double vals[] = {0,    1,    -1,    127,          128,          255,      256,
                         -129, 1e10, -1e10, ldexp(1, 63), ldexp(1, 64), INFINITY, -INFINITY,
                         NAN,  0.5,  -0.5,  1.5,          2.5,          65504,    -2.5e-8};
  const int64_t nv = (int64_t)(sizeof vals / sizeof vals[0]);
  const int64_t n = nv + 4; /* and four integer scalars that doubles cannot hold */
  int failures = 0;
  for (int sd = 0; sd < CUARR_NDTYPES; sd++) {
    cuarr_array src = make((cuarr_dtype)sd, 1, &n);
    for (int64_t k = 0; k < nv; k++)
      set(&src, k, f64(vals[k]));
    set(&src, nv, i64(INT64_MAX));
    set(&src, nv + 1, i64(INT64_MIN));
    set(&src, nv + 2, u64(UINT64_MAX));
    set(&src, nv + 3, i64(-300));
    for (int dd = 0; dd < CUARR_NDTYPES; dd++) {
      for (int strided = 0; strided < 2; strided++) {
        int64_t n2 = 2 * n;
        cuarr_array base = make((cuarr_dtype)dd, 1, &n2), dst;
        if (strided)
          cuarr_view_slice(&base, 0, n2 - 1, n, -2, &dst);
        else
          cuarr_view_slice(&base, 0, 0, n, 1, &dst);
        cuarr_status st = cuarr_host_copy(&dst, &src);
        bool ok = st == CUARR_OK;
        for (int64_t k = 0; ok && k < n; k++) {
          unsigned char want[8];
          const char *sp = (const char *)cuarr_array_data(&src) + k * src.strides[0];
          cuarr_scalar_store(cuarr_scalar_load(sp, (cuarr_dtype)sd), (cuarr_dtype)dd, want);
          const char *dp = (const char *)cuarr_array_data(&dst) + k * dst.strides[0];
          ok = memcmp(dp, want, cuarr_dtype_size((cuarr_dtype)dd)) == 0;
          if (!ok) {
            printf("# %s -> %s element %" PRId64 " differs\n", cuarr_dtype_name((cuarr_dtype)sd),
                   cuarr_dtype_name((cuarr_dtype)dd), k);
          }
        }
        failures += !ok;
        cuarr_array_release(&dst);
        cuarr_array_release(&base);
      }
    }
    cuarr_array_release(&src);
  }
  CHECK(failures == 0, "144 dtype pairs copy as cuarr_scalar_store casts");
  /* A few end-to-end values, independent of cuarr_scalar_store. */
  int64_t four = 4;
  cuarr_array s = make(CUARR_FLOAT64, 1, &four), u = make(CUARR_UINT8, 1, &four);
  set(&s, 0, f64(300.7));
  set(&s, 1, f64(-5));
  set(&s, 2, f64(NAN));
  set(&s, 3, f64(7.9));
  cuarr_host_copy(&u, &s);
  CHECK(equals(&u, (double[]){255, 0, 0, 7}, 4), "float64 -> uint8 array saturates");
  cuarr_array_release(&s);
  cuarr_array_release(&u);
}

/* ---- arrays and shapes */

static void test_shapes(void) {
  int64_t size = -1;
  CHECK(cuarr_shape_check(2, (int64_t[]){2, 3}, CUARR_FLOAT32, &size) == CUARR_OK && size == 6,
        "shape_check size");
  CHECK(cuarr_shape_check(0, NULL, CUARR_FLOAT32, &size) == CUARR_OK && size == 1,
        "0-d has one element");
  CHECK(cuarr_shape_check(2, (int64_t[]){0, 5}, CUARR_FLOAT32, &size) == CUARR_OK && size == 0,
        "empty shape");
  CHECK(error_is(cuarr_shape_check(2, (int64_t[]){2, -3}, CUARR_INT8, &size), CUARR_VALUE_ERROR,
                 "negative dimension -3 in shape"),
        "negative extent rejected");
  CHECK(error_is(cuarr_shape_check(2, (int64_t[]){INT64_C(1) << 35, INT64_C(1) << 35},
                                   CUARR_FLOAT64, &size),
                 CUARR_VALUE_ERROR, "array is too big: 2^70.0 elements"),
        "2^70 elements rejected");
  CHECK(error_is(cuarr_shape_check(1, (int64_t[]){INT64_C(1) << 61}, CUARR_FLOAT64, &size),
                 CUARR_VALUE_ERROR, "too big"),
        "2^61 float64 elements (2^64 bytes) rejected");
  CHECK(cuarr_shape_check(1, (int64_t[]){INT64_C(1) << 60}, CUARR_FLOAT32, &size) == CUARR_OK,
        "2^62 bytes accepted");
  CHECK(error_is(cuarr_shape_check(3, (int64_t[]){0, INT64_C(1) << 40, INT64_C(1) << 40},
                                   CUARR_INT8, &size),
                 CUARR_VALUE_ERROR, "too big"),
        "overflow is refused even with a 0 extent (as NumPy)");
  int64_t big[33] = {0};
  CHECK(error_is(cuarr_shape_check(33, big, CUARR_INT8, &size), CUARR_VALUE_ERROR, "at most 32"),
        "33 dimensions rejected");
  int64_t st[3];
  cuarr_strides_c(3, (int64_t[]){2, 3, 4}, 4, st);
  CHECK(st[0] == 48 && st[1] == 16 && st[2] == 4, "C strides");
  cuarr_strides_c(3, (int64_t[]){2, 0, 4}, 8, st);
  CHECK(st[0] == 32 && st[1] == 32 && st[2] == 8, "C strides with a 0 extent (as NumPy)");

  cuarr_array a = make(CUARR_FLOAT32, 2, (int64_t[]){2, 3});
  CHECK(a.buf && a.buf->refs == 1 && a.strides[0] == 12 && a.strides[1] == 4 && a.offset == 0 &&
            cuarr_array_size(&a) == 6 && cuarr_array_device(&a) == CUARR_HOST,
        "array_empty");
  CHECK(cuarr_array_is_c_contiguous(&a) && !cuarr_array_is_f_contiguous(&a), "C-contiguous flags");
  cuarr_array t;
  cuarr_view_transpose(&a, NULL, &t);
  CHECK(!cuarr_array_is_c_contiguous(&t) && cuarr_array_is_f_contiguous(&t) && a.buf->refs == 2,
        "transposed is F-contiguous");
  cuarr_array_release(&t);
  cuarr_array row = make(CUARR_INT16, 2, (int64_t[]){1, 5});
  row.strides[0] = 12345; /* an extent-1 axis's stride does not matter */
  CHECK(cuarr_array_is_c_contiguous(&row) && cuarr_array_is_f_contiguous(&row),
        "extent-1 strides ignored");
  cuarr_array_release(&row);
  cuarr_array e = make(CUARR_INT8, 3, (int64_t[]){3, 0, 2});
  e.strides[0] = -7;
  CHECK(cuarr_array_is_c_contiguous(&e) && cuarr_array_is_f_contiguous(&e),
        "empty arrays are both");
  cuarr_array_release(&e);
  cuarr_array s;
  cuarr_array_share(&a, &s);
  CHECK(s.buf == a.buf && a.buf->refs == 2, "share retains");
  cuarr_array_release(&s);
  CHECK(s.buf == NULL && a.buf->refs == 1, "release drops the reference");
  CHECK(cuarr_array_check_live(&a) == CUARR_OK && cuarr_array_data(&a) != NULL, "live");
  cuarr_array v;
  cuarr_view_slice(&a, 1, 1, 2, 1, &v);
  cuarr_buffer_free(a.buf);
  CHECK(cuarr_array_data(&v) == NULL &&
            error_is(cuarr_array_check_live(&v), CUARR_VALUE_ERROR, "array has been freed"),
        "freed array");
  CHECK(error_is(cuarr_host_copy(&v, &v), CUARR_VALUE_ERROR, "array has been freed"),
        "copy refuses a freed array");
  CHECK(error_is(cuarr_host_fill(&v, f64(1)), CUARR_VALUE_ERROR, "array has been freed"),
        "fill refuses a freed array");
  cuarr_array w;
  CHECK(error_is(cuarr_view_transpose(&v, NULL, &w), CUARR_VALUE_ERROR, "freed"),
        "views refuse a freed array");
  cuarr_array_release(&v);
  cuarr_array_release(&a);
}

/* ---- views */

static void test_views(void) {
  cuarr_array a = iota(CUARR_FLOAT64, 3, (int64_t[]){2, 3, 4}), v, t;
  bool copy = true;
  CHECK(cuarr_view_reshape(&a, 2, (int64_t[]){6, 4}, &v, &copy) == CUARR_OK && !copy &&
            v.shape[0] == 6 && v.strides[0] == 32 && v.buf == a.buf && a.buf->refs == 2,
        "reshape of a contiguous array is a view");
  cuarr_array_release(&v);
  CHECK(cuarr_view_reshape(&a, 2, (int64_t[]){4, -1}, &v, &copy) == CUARR_OK && !copy &&
            v.shape[1] == 6 && v.strides[0] == 48,
        "reshape infers -1");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_reshape(&a, 0, NULL, &v, &copy), CUARR_VALUE_ERROR,
                 "cannot reshape array of size 24 into shape ()"),
        "reshape to 0-d needs size 1");
  cuarr_view_transpose(&a, NULL, &t); /* (4,3,2) */
  cuarr_array marker;
  memset(&marker, 0xab, sizeof marker);
  v = marker;
  CHECK(cuarr_view_reshape(&t, 1, (int64_t[]){-1}, &v, &copy) == CUARR_OK && copy &&
            v.buf == NULL && v.ndim == 1 && v.shape[0] == 24 && a.buf->refs == 2,
        "reshape of a transposed array needs a copy");
  CHECK(cuarr_view_reshape(&t, 3, (int64_t[]){2, 2, 6}, &v, &copy) == CUARR_OK && copy,
        "transposed (4,3,2) -> (2,2,6) needs a copy");
  CHECK(cuarr_view_reshape(&t, 4, (int64_t[]){2, 2, 3, 2}, &v, &copy) == CUARR_OK && !copy &&
            v.strides[0] == 16 && v.strides[1] == 8 && v.strides[2] == 32 && v.strides[3] == 96,
        "transposed (4,3,2) -> (2,2,3,2) is a view");
  CHECK(at(&v, 1) == 12 && at(&v, 2) == 4 && at(&v, 6) == 1, "its values");
  cuarr_array_release(&v);
  cuarr_array_release(&t);

  cuarr_array flat = iota(CUARR_INT32, 1, (int64_t[]){12}), step, r;
  cuarr_view_slice(&flat, 0, 0, 6, 2, &step); /* 0 2 4 6 8 10 */
  CHECK(cuarr_view_reshape(&step, 2, (int64_t[]){2, 3}, &r, &copy) == CUARR_OK && !copy &&
            r.strides[0] == 24 && r.strides[1] == 8 && equals(&r, (double[]){0, 2, 4, 6, 8, 10}, 6),
        "reshape of a stepped slice is a view");
  cuarr_array_release(&r);
  CHECK(cuarr_view_reshape(&step, 3, (int64_t[]){1, 6, 1}, &r, &copy) == CUARR_OK && !copy &&
            r.strides[1] == 8,
        "reshape adding extent-1 axes");
  cuarr_array_release(&r);
  cuarr_array_release(&step);
  cuarr_array m, part;
  cuarr_view_reshape(&flat, 2, (int64_t[]){4, 3}, &m, &copy);
  cuarr_view_slice(&m, 1, 0, 2, 1, &part); /* (4,2) with row stride 12 */
  CHECK(cuarr_view_reshape(&part, 1, (int64_t[]){8}, &r, &copy) == CUARR_OK && copy,
        "reshape of a column slice to 1-D needs a copy");
  CHECK(cuarr_view_reshape(&part, 3, (int64_t[]){2, 2, 2}, &r, &copy) == CUARR_OK && !copy &&
            equals(&r, (double[]){0, 1, 3, 4, 6, 7, 9, 10}, 8),
        "reshape of a column slice splitting rows is a view");
  cuarr_array_release(&r);
  cuarr_array_release(&part);
  cuarr_array_release(&m);
  v = marker;
  CHECK(error_is(cuarr_view_reshape(&flat, 1, (int64_t[]){5}, &v, &copy), CUARR_VALUE_ERROR,
                 "cannot reshape array of size 12 into shape (5,)") &&
            memcmp(&v, &marker, sizeof v) == 0,
        "reshape size mismatch; out untouched");
  CHECK(error_is(cuarr_view_reshape(&flat, 2, (int64_t[]){5, -1}, &v, &copy), CUARR_VALUE_ERROR,
                 "cannot reshape array of size 12 into shape (5,-1)"),
        "reshape -1 that does not divide");
  CHECK(error_is(cuarr_view_reshape(&flat, 2, (int64_t[]){-1, -1}, &v, &copy), CUARR_VALUE_ERROR,
                 "only specify one unknown"),
        "two -1s");
  CHECK(error_is(cuarr_view_reshape(&flat, 2, (int64_t[]){-2, -6}, &v, &copy), CUARR_VALUE_ERROR,
                 "negative dimension"),
        "other negative extents");
  cuarr_array empty = make(CUARR_INT8, 2, (int64_t[]){0, 3});
  CHECK(cuarr_view_reshape(&empty, 3, (int64_t[]){3, 0, 5}, &v, &copy) == CUARR_OK && !copy,
        "reshape of an empty array");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_reshape(&empty, 2, (int64_t[]){0, -1}, &v, &copy), CUARR_VALUE_ERROR,
                 "cannot reshape array of size 0 into shape (0,-1)"),
        "-1 with a 0 extent is ambiguous (as NumPy)");
  CHECK(cuarr_view_reshape(&empty, 2, (int64_t[]){-1, 3}, &v, &copy) == CUARR_OK && v.shape[0] == 0,
        "-1 resolved to 0");
  cuarr_array_release(&v);
  cuarr_array_release(&empty);

  /* transpose, swapaxes */
  int perm[3] = {1, 2, 0};
  CHECK(cuarr_view_transpose(&a, perm, &v) == CUARR_OK && v.shape[0] == 3 && v.shape[2] == 2 &&
            v.strides[0] == 32 && v.strides[1] == 8 && v.strides[2] == 96,
        "transpose with perm");
  cuarr_array_release(&v);
  v = marker;
  CHECK(error_is(cuarr_view_transpose(&a, (int[]){0, 0, 1}, &v), CUARR_VALUE_ERROR, "repeated") &&
            error_is(cuarr_view_transpose(&a, (int[]){0, 1, 3}, &v), CUARR_VALUE_ERROR,
                     "not a permutation") &&
            memcmp(&v, &marker, sizeof v) == 0 && a.buf->refs == 1,
        "bad permutations rejected");
  CHECK(cuarr_view_swapaxes(&a, 0, 2, &v) == CUARR_OK && v.shape[0] == 4 && v.shape[2] == 2 &&
            v.strides[0] == 8 && v.strides[2] == 96,
        "swapaxes");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_swapaxes(&a, 0, 3, &v), CUARR_INDEX_ERROR,
                 "axis 3 is out of bounds for array of dimension 3"),
        "swapaxes out of range");

  /* squeeze, expand_dims */
  cuarr_array s1 = make(CUARR_FLOAT32, 4, (int64_t[]){1, 3, 1, 2});
  CHECK(cuarr_view_squeeze(&s1, -1, &v) == CUARR_OK && v.ndim == 2 && v.shape[0] == 3 &&
            v.shape[1] == 2 && v.strides[0] == 8,
        "squeeze all");
  cuarr_array_release(&v);
  CHECK(cuarr_view_squeeze(&s1, 2, &v) == CUARR_OK && v.ndim == 3 && v.shape[2] == 2,
        "squeeze one axis");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_squeeze(&s1, 1, &v), CUARR_VALUE_ERROR, "size not equal to one") &&
            error_is(cuarr_view_squeeze(&s1, 4, &v), CUARR_INDEX_ERROR, "out of bounds"),
        "squeeze errors");
  CHECK(cuarr_view_expand_dims(&s1, 4, &v) == CUARR_OK && v.ndim == 5 && v.shape[4] == 1 &&
            cuarr_array_is_c_contiguous(&v),
        "expand_dims at the end");
  cuarr_array_release(&v);
  CHECK(cuarr_view_expand_dims(&s1, 1, &v) == CUARR_OK && v.ndim == 5 && v.shape[1] == 1 &&
            v.shape[2] == 3 && v.strides[1] == 24,
        "expand_dims inside");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_expand_dims(&s1, 5, &v), CUARR_INDEX_ERROR, "out of bounds"),
        "expand_dims out of range");
  cuarr_array_release(&s1);

  /* slices and selections */
  cuarr_array ten = iota(CUARR_INT64, 1, (int64_t[]){10});
  CHECK(cuarr_view_slice(&ten, 0, 9, 5, -2, &v) == CUARR_OK &&
            equals(&v, (double[]){9, 7, 5, 3, 1}, 5) && v.strides[0] == -16,
        "slice with a negative step");
  cuarr_array v2;
  CHECK(cuarr_view_slice(&v, 0, 3, 2, -1, &v2) == CUARR_OK && equals(&v2, (double[]){3, 5}, 2),
        "slice of a slice");
  cuarr_array_release(&v2);
  cuarr_array_release(&v);
  CHECK(cuarr_view_slice(&ten, 0, 7, 0, 1, &v) == CUARR_OK && v.shape[0] == 0, "empty slice");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_slice(&ten, 0, 8, 2, 3, &v), CUARR_INDEX_ERROR, "out of bounds") &&
            error_is(cuarr_view_slice(&ten, 0, 1, 3, -1, &v), CUARR_INDEX_ERROR, "out of bounds") &&
            error_is(cuarr_view_slice(&ten, 0, 10, 1, 1, &v), CUARR_INDEX_ERROR, "out of bounds") &&
            error_is(cuarr_view_slice(&ten, 0, 0, 2, INT64_MAX, &v), CUARR_INDEX_ERROR, "out") &&
            error_is(cuarr_view_slice(&ten, 0, 9, 2, INT64_MIN, &v), CUARR_INDEX_ERROR, "out") &&
            error_is(cuarr_view_slice(&ten, 0, 0, 2, 0, &v), CUARR_VALUE_ERROR, "step") &&
            ten.buf->refs == 1,
        "slice errors");
  cuarr_array_release(&ten);
  CHECK(cuarr_view_select(&a, 1, 2, &v) == CUARR_OK && v.ndim == 2 && v.shape[0] == 2 &&
            v.shape[1] == 4 && equals(&v, (double[]){8, 9, 10, 11, 20, 21, 22, 23}, 8),
        "select");
  cuarr_array_release(&v);
  CHECK(error_is(cuarr_view_select(&a, 0, 2, &v), CUARR_INDEX_ERROR,
                 "index 2 is out of bounds for axis 0 with size 2"),
        "select out of range");

  /* broadcast */
  cuarr_array row = iota(CUARR_FLOAT32, 2, (int64_t[]){1, 3});
  CHECK(cuarr_view_broadcast(&row, 3, (int64_t[]){2, 4, 3}, &v) == CUARR_OK && v.strides[0] == 0 &&
            v.strides[1] == 0 && v.strides[2] == 4 && at(&v, 23) == 2,
        "broadcast a row");
  cuarr_array_release(&v);
  v = marker;
  CHECK(error_is(cuarr_view_broadcast(&a, 2, (int64_t[]){4, 3}, &v), CUARR_VALUE_ERROR,
                 "operands could not be broadcast together: shape (2,3,4) to (4,3)") &&
            error_is(cuarr_view_broadcast(&row, 2, (int64_t[]){2, 4}, &v), CUARR_VALUE_ERROR,
                     "shape (1,3) to (2,4)") &&
            memcmp(&v, &marker, sizeof v) == 0 && row.buf->refs == 1,
        "broadcast errors");
  cuarr_array_release(&row);
  cuarr_array_release(&flat);
  CHECK(a.buf->refs == 1, "no view leaked a reference");
  cuarr_array_release(&a);
}

/* ---- layout */

static void test_layout(void) {
  int64_t shape[3] = {2, 3, 4}, s0[3] = {96, 32, 8}, s1[3] = {12, 4, 1};
  int64_t *strides[2] = {s0, s1};
  CHECK(cuarr_iter_collapse(3, shape, 2, strides) == 1 && shape[0] == 24 && s0[0] == 8 &&
            s1[0] == 1,
        "collapse contiguous");
  int64_t sh2[4] = {2, 1, 3, 4}, t0[4] = {96, 7, 32, 8}, t1[4] = {8, 5, 64, 16};
  int64_t *st2[2] = {t0, t1};
  CHECK(cuarr_iter_collapse(4, sh2, 2, st2) == 2 && sh2[0] == 2 && sh2[1] == 12 && t0[1] == 8 &&
            t1[0] == 8 && t1[1] == 16,
        "collapse drops extent 1 and merges what both allow");
  int64_t sh3[2] = {1, 1}, u0[2] = {3, 4};
  int64_t *st3[1] = {u0};
  CHECK(cuarr_iter_collapse(2, sh3, 1, st3) == 0, "collapse of one element");
  int64_t sh4[3] = {3, 0, 2}, w0[3] = {16, 8, 4};
  int64_t *st4[1] = {w0};
  CHECK(cuarr_iter_collapse(3, sh4, 1, st4) == 1 && sh4[0] == 0, "collapse of an empty shape");

  cuarr_array a = iota(CUARR_INT16, 1, (int64_t[]){10}), even, odd, head, tail, rev;
  cuarr_array b = iota(CUARR_INT16, 1, (int64_t[]){10});
  cuarr_view_slice(&a, 0, 0, 5, 2, &even);
  cuarr_view_slice(&a, 0, 1, 5, 2, &odd);
  cuarr_view_slice(&a, 0, 0, 5, 1, &head);
  cuarr_view_slice(&a, 0, 5, 5, 1, &tail);
  cuarr_view_slice(&a, 0, 9, 10, -1, &rev);
  int64_t lo, hi;
  cuarr_array_extent(&rev, &lo, &hi);
  CHECK(lo == 0 && hi == 20, "extent of a reversed view");
  cuarr_array_extent(&odd, &lo, &hi);
  CHECK(lo == 2 && hi == 20, "extent of a stepped view");
  CHECK(cuarr_array_may_overlap(&even, &odd) && cuarr_array_may_overlap(&rev, &head) &&
            !cuarr_array_may_overlap(&head, &tail) && !cuarr_array_may_overlap(&a, &b),
        "may_overlap");
  cuarr_array_release(&even);
  cuarr_array_release(&odd);
  cuarr_array_release(&head);
  cuarr_array_release(&tail);
  cuarr_array_release(&rev);
  cuarr_array_release(&a);
  cuarr_array_release(&b);
}

/* ---- copies */

static void test_copies(void) {
  /* a row into a matrix; a 0-d into a 3-d */
  cuarr_array row = iota(CUARR_INT32, 1, (int64_t[]){3});
  cuarr_array m = make(CUARR_FLOAT64, 2, (int64_t[]){2, 3});
  CHECK(cuarr_host_copy(&m, &row) == CUARR_OK && equals(&m, (double[]){0, 1, 2, 0, 1, 2}, 6),
        "broadcast a row into a matrix");
  cuarr_array zero_d = make(CUARR_FLOAT32, 0, NULL);
  set(&zero_d, 0, f64(7.5));
  cuarr_array cube = make(CUARR_INT16, 3, (int64_t[]){2, 3, 4});
  bool all7 = cuarr_host_copy(&cube, &zero_d) == CUARR_OK;
  for (int k = 0; k < 24; k++)
    all7 = all7 && at(&cube, k) == 7;
  CHECK(all7, "broadcast a 0-d into a 3-d");
  cuarr_array col = iota(CUARR_UINT8, 2, (int64_t[]){2, 1});
  CHECK(cuarr_host_copy(&m, &col) == CUARR_OK && equals(&m, (double[]){0, 0, 0, 1, 1, 1}, 6),
        "broadcast a column");
  CHECK(error_is(cuarr_host_copy(&m, &cube), CUARR_VALUE_ERROR,
                 "could not broadcast input array from shape (2,3,4) into shape (2,3)"),
        "copy with shapes that do not broadcast");
  cuarr_array r13 = iota(CUARR_INT8, 3, (int64_t[]){1, 1, 3});
  CHECK(cuarr_host_copy(&m, &r13) == CUARR_OK && equals(&m, (double[]){0, 1, 2, 0, 1, 2}, 6),
        "src with extra leading extent-1 axes (as NumPy's assignment)");
  cuarr_array_release(&r13);
  cuarr_array four = iota(CUARR_INT32, 1, (int64_t[]){4});
  CHECK(error_is(cuarr_host_copy(&m, &four), CUARR_VALUE_ERROR, "from shape (4,) into shape (2,3)"),
        "copy from a wrong row");
  cuarr_array_release(&four);
  cuarr_array_release(&col);
  cuarr_array_release(&cube);
  cuarr_array_release(&zero_d);
  cuarr_array_release(&row);
  cuarr_array_release(&m);

  /* non-contiguous src and dst: dst[:, ::-1] = src.T */
  cuarr_array src = iota(CUARR_FLOAT32, 2, (int64_t[]){3, 2}), srcT, dview;
  cuarr_view_transpose(&src, NULL, &srcT); /* (2,3): 0 2 4 / 1 3 5 */
  cuarr_array big = make(CUARR_FLOAT64, 2, (int64_t[]){2, 6}), half;
  cuarr_host_fill(&big, f64(-1));
  cuarr_view_slice(&big, 1, 0, 3, 2, &half); /* columns 0, 2, 4 */
  cuarr_view_slice(&half, 1, 2, 3, -1, &dview);
  CHECK(cuarr_host_copy(&dview, &srcT) == CUARR_OK &&
            equals(&big, (double[]){4, -1, 2, -1, 0, -1, 5, -1, 3, -1, 1, -1}, 12),
        "strided, reversed dst from a transposed src");
  cuarr_array mT = make(CUARR_FLOAT32, 2, (int64_t[]){2, 3}), mTT;
  cuarr_view_transpose(&mT, NULL, &mTT); /* (3,2) F-ordered */
  CHECK(cuarr_host_copy(&mTT, &src) == CUARR_OK && equals(&mT, (double[]){0, 2, 4, 1, 3, 5}, 6),
        "copy into a transposed dst");
  cuarr_array_release(&mTT);
  cuarr_array_release(&mT);
  cuarr_array_release(&dview);
  cuarr_array_release(&half);
  cuarr_array_release(&big);
  cuarr_array_release(&srcT);
  cuarr_array_release(&src);

  /* overlap: NumPy's answers */
  cuarr_array a = iota(CUARR_FLOAT64, 1, (int64_t[]){10}), lo, hi;
  cuarr_view_slice(&a, 0, 1, 9, 1, &hi);
  cuarr_view_slice(&a, 0, 0, 9, 1, &lo);
  CHECK(cuarr_host_copy(&hi, &lo) == CUARR_OK &&
            equals(&a, (double[]){0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 10),
        "a[1:] = a[:-1]");
  for (int k = 0; k < 10; k++)
    set(&a, k, f64(k));
  CHECK(cuarr_host_copy(&lo, &hi) == CUARR_OK &&
            equals(&a, (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 9}, 10),
        "a[:-1] = a[1:]");
  cuarr_array_release(&lo);
  cuarr_array_release(&hi);
  for (int k = 0; k < 10; k++)
    set(&a, k, f64(k));
  cuarr_array rev;
  cuarr_view_slice(&a, 0, 9, 10, -1, &rev);
  CHECK(cuarr_host_copy(&a, &rev) == CUARR_OK &&
            equals(&a, (double[]){9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, 10),
        "a[:] = a[::-1]");
  cuarr_array_release(&rev);
  cuarr_array first;
  cuarr_view_select(&a, 0, 5, &first);
  CHECK(cuarr_host_copy(&a, &first) == CUARR_OK &&
            equals(&a, (double[]){4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 10),
        "a[:] = a[5] (broadcast from inside)");
  cuarr_array_release(&first);
  CHECK(cuarr_host_copy(&a, &a) == CUARR_OK && at(&a, 3) == 4, "a[:] = a");
  cuarr_array_release(&a);
  /* the same bytes seen as another dtype of the same size: converted in place */
  cuarr_array i = iota(CUARR_INT32, 1, (int64_t[]){4}), f;
  cuarr_array_share(&i, &f);
  f.dtype = CUARR_FLOAT32;
  set(&i, 2, i64(-3));
  CHECK(cuarr_host_copy(&f, &i) == CUARR_OK && equals(&f, (double[]){0, 1, -3, 3}, 4),
        "in-place int32 -> float32 over the same bytes");
  cuarr_array_release(&f);
  cuarr_array_release(&i);
  /* overlapping with a different itemsize: staged through a temporary */
  cuarr_array bytes = iota(CUARR_UINT8, 1, (int64_t[]){8}), wide;
  cuarr_array_share(&bytes, &wide);
  wide.dtype = CUARR_UINT16;
  wide.shape[0] = 4;
  wide.strides[0] = 2;
  cuarr_array first4;
  cuarr_view_slice(&bytes, 0, 0, 4, 1, &first4);
  CHECK(cuarr_host_copy(&wide, &first4) == CUARR_OK && equals(&wide, (double[]){0, 1, 2, 3}, 4),
        "uint8 -> uint16 over overlapping bytes");
  cuarr_array_release(&first4);
  cuarr_array_release(&wide);
  cuarr_array_release(&bytes);

  /* empty arrays */
  cuarr_array e1 = make(CUARR_FLOAT32, 2, (int64_t[]){0, 3});
  cuarr_array e2 = make(CUARR_INT8, 1, (int64_t[]){3});
  CHECK(cuarr_host_copy(&e1, &e2) == CUARR_OK && cuarr_host_fill(&e1, f64(1)) == CUARR_OK,
        "copy and fill of empty arrays");
  cuarr_array e3 = make(CUARR_INT8, 1, (int64_t[]){0});
  CHECK(cuarr_host_fill_linear(&e3, i64(0), i64(1), true, i64(5)) == CUARR_OK,
        "linear fill of an empty array");
  cuarr_array_release(&e1);
  cuarr_array_release(&e2);
  cuarr_array_release(&e3);

  /* device arrays are refused */
  cuarr_buffer fake = {.refs = 1, .ptr = &fake, .nbytes = 8, .device = 0};
  cuarr_array dev = {.buf = &fake, .dtype = CUARR_INT64, .ndim = 0};
  cuarr_array h = make(CUARR_INT64, 0, NULL);
  CHECK(error_is(cuarr_host_copy(&h, &dev), CUARR_VALUE_ERROR, "device 0") &&
            error_is(cuarr_host_fill(&dev, f64(0)), CUARR_VALUE_ERROR, "device 0"),
        "device arrays refused");
  cuarr_array_release(&h);

  /* a larger copy over every layout class, checked element by element */
  cuarr_array x = iota(CUARR_FLOAT64, 3, (int64_t[]){7, 5, 9}), xt,
              y = make(CUARR_INT32, 3, (int64_t[]){9, 5, 7});
  cuarr_view_transpose(&x, NULL, &xt);
  bool ok = cuarr_host_copy(&y, &xt) == CUARR_OK;
  for (int64_t p = 0; ok && p < 9; p++)
    for (int64_t q = 0; ok && q < 5; q++)
      for (int64_t r = 0; ok && r < 7; r++)
        ok = at(&y, (p * 5 + q) * 7 + r) == r * 45 + q * 9 + p;
  CHECK(ok, "transposed 3-d copy with conversion");
  /* big enough for the tiled walk (rows over 32 elements, ragged tiles), with an outer axis */
  cuarr_array g = iota(CUARR_INT32, 3, (int64_t[]){3, 70, 45}), gt;
  cuarr_array h2 = make(CUARR_FLOAT64, 3, (int64_t[]){3, 45, 70});
  cuarr_view_swapaxes(&g, 1, 2, &gt);
  ok = cuarr_host_copy(&h2, &gt) == CUARR_OK;
  for (int64_t p = 0; ok && p < 3; p++)
    for (int64_t q = 0; ok && q < 45; q++)
      for (int64_t r = 0; ok && r < 70; r++)
        ok = at(&h2, (p * 45 + q) * 70 + r) == p * 3150 + r * 45 + q;
  CHECK(ok, "tiled transposed copy");
  cuarr_array_release(&gt);
  cuarr_array_release(&g);
  cuarr_array_release(&h2);
  cuarr_array_release(&xt);
  cuarr_array_release(&x);
  cuarr_array_release(&y);
}

/* ---- fills */

static void test_fills(void) {
  cuarr_array a = make(CUARR_FLOAT32, 2, (int64_t[]){3, 4}), col;
  cuarr_host_fill(&a, f64(0));
  cuarr_view_select(&a, 1, 2, &col);
  CHECK(cuarr_host_fill(&col, f64(2.5)) == CUARR_OK &&
            equals(&a, (double[]){0, 0, 2.5, 0, 0, 0, 2.5, 0, 0, 0, 2.5, 0}, 12),
        "fill a strided column");
  cuarr_array_release(&col);
  cuarr_array_release(&a);
  cuarr_array b = make(CUARR_INT8, 1, (int64_t[]){5});
  CHECK(cuarr_host_fill(&b, i64(300)) == CUARR_OK && equals(&b, (double[]){44, 44, 44, 44, 44}, 5),
        "fill int8 with 300 wraps");
  cuarr_array c = make(CUARR_UINT8, 1, (int64_t[]){3});
  CHECK(cuarr_host_fill(&c, f64(-5)) == CUARR_OK && equals(&c, (double[]){0, 0, 0}, 3),
        "fill uint8 with -5.0 saturates");
  cuarr_array d = make(CUARR_FLOAT16, 2, (int64_t[]){2, 2});
  CHECK(cuarr_host_fill(&d, f64(1.5)) == CUARR_OK && equals(&d, (double[]){1.5, 1.5, 1.5, 1.5}, 4),
        "fill float16");
  cuarr_array z = make(CUARR_INT64, 0, NULL);
  CHECK(cuarr_host_fill(&z, i64(-9)) == CUARR_OK && at(&z, 0) == -9, "fill a 0-d array");
  cuarr_array_release(&z);
  cuarr_array_release(&d);
  cuarr_array_release(&c);
  cuarr_array_release(&b);

  cuarr_array i = make(CUARR_INT64, 1, (int64_t[]){5});
  CHECK(cuarr_host_fill_linear(&i, i64(3), i64(2), false, i64(0)) == CUARR_OK &&
            equals(&i, (double[]){3, 5, 7, 9, 11}, 5),
        "arange for int64");
  CHECK(cuarr_host_fill_linear(&i, i64(INT64_MAX - 1), i64(1), false, i64(0)) == CUARR_OK &&
            at(&i, 2) == (double)INT64_MIN,
        "integer arange wraps in int64");
  cuarr_array_release(&i);
  cuarr_array i8 = make(CUARR_INT8, 1, (int64_t[]){4});
  CHECK(cuarr_host_fill_linear(&i8, i64(126), i64(1), false, i64(0)) == CUARR_OK &&
            equals(&i8, (double[]){126, 127, -128, -127}, 4),
        "int8 arange wraps");
  cuarr_array_release(&i8);
  cuarr_array u = make(CUARR_UINT64, 1, (int64_t[]){2});
  CHECK(cuarr_host_fill_linear(&u, u64(UINT64_MAX - 1), u64(1), false, u64(0)) == CUARR_OK &&
            cuarr_scalar_load(cuarr_array_data(&u), CUARR_UINT64).v.u == UINT64_MAX - 1 &&
            cuarr_scalar_load((char *)cuarr_array_data(&u) + 8, CUARR_UINT64).v.u == UINT64_MAX,
        "uint64 arange above INT64_MAX");
  cuarr_array_release(&u);
  cuarr_array f = make(CUARR_FLOAT64, 1, (int64_t[]){11});
  bool ok = cuarr_host_fill_linear(&f, f64(0), f64(0.1), false, f64(0)) == CUARR_OK;
  for (int k = 0; k < 11; k++)
    ok = ok && at(&f, k) == k * 0.1;
  CHECK(ok, "arange for float64: start + k*step");
  cuarr_array_release(&f);
  cuarr_array l = make(CUARR_FLOAT32, 1, (int64_t[]){5});
  CHECK(cuarr_host_fill_linear(&l, f64(0), f64(0.25), true, f64(1)) == CUARR_OK &&
            equals(&l, (double[]){0, 0.25, 0.5, 0.75, 1}, 5),
        "linspace float32");
  cuarr_array_release(&l);
  cuarr_array l3 = make(CUARR_FLOAT64, 1, (int64_t[]){4});
  double step = (1.0 - 0.1) / 3; /* the last computed element would not be exactly 1.0 */
  CHECK(cuarr_host_fill_linear(&l3, f64(0.1), f64(step), true, f64(1.0)) == CUARR_OK &&
            at(&l3, 3) == 1.0 && at(&l3, 1) == 0.1 + step,
        "linspace: last element is stop");
  cuarr_array_release(&l3);
  cuarr_array base = make(CUARR_INT16, 1, (int64_t[]){8}), rv;
  cuarr_host_fill(&base, i64(-1));
  cuarr_view_slice(&base, 0, 6, 4, -2, &rv);
  CHECK(cuarr_host_fill_linear(&rv, i64(10), i64(-3), false, i64(0)) == CUARR_OK &&
            equals(&base, (double[]){1, -1, 4, -1, 7, -1, 10, -1}, 8),
        "linear fill of a reversed strided view");
  cuarr_array_release(&rv);
  cuarr_array m = make(CUARR_FLOAT64, 2, (int64_t[]){2, 2});
  CHECK(
      error_is(cuarr_host_fill_linear(&m, f64(0), f64(1), false, f64(0)), CUARR_VALUE_ERROR, "1-D"),
      "linear fill needs 1-D");
  cuarr_array_release(&m);
  cuarr_array_release(&base);
}

int main(void) {
  test_dtypes();
  test_half();
  test_element_range();
  test_casts();
  test_all_pairs();
  test_shapes();
  test_views();
  test_layout();
  test_copies();
  test_fills();
  return ctest_done();
}
