/* test_reduce_host.c -- the host reductions and scans (reduce/reduce_host.c, scan_host.c)
 * against references computed here element by element (in uint64, int64 and double), over
 * every op and dtype and over layouts: contiguous, transposed, negative strides, broadcast,
 * 0-d, 32-D, empty reduced extents, several reduced axes; then NaN, ties, wrapping
 * accumulators, pairwise accuracy and in-place scans (no GPU). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "reduce/reduce.h"

static const cuarr_reclaim no_reclaim = {NULL, NULL};

/* ---- arrays */

static cuarr_array make(cuarr_dtype dt, int ndim, const int64_t *shape) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  if (cuarr_array_empty(CUARR_HOST, dt, ndim, shape, false, NULL, no_reclaim, &a) != CUARR_OK)
    printf("# cuarr_array_empty failed: %s\n", cuarr_last_error());
  return a;
}

static char *elem(const cuarr_array *a, const int64_t *idx) {
  char *p = cuarr_array_data(a);
  for (int i = 0; i < a->ndim; i++)
    p += idx[i] * a->strides[i];
  return p;
}

/* idx = the C-order multi-index of flat index k over shape. */
static void unflatten(int ndim, const int64_t *shape, int64_t k, int64_t *idx) {
  for (int i = ndim - 1; i >= 0; i--) {
    idx[i] = k % shape[i];
    k /= shape[i];
  }
}

static cuarr_scalar f64(double v) { return (cuarr_scalar){.dtype = CUARR_FLOAT64, .v.f = v}; }
static cuarr_scalar i64(int64_t v) { return (cuarr_scalar){.dtype = CUARR_INT64, .v.i = v}; }
static cuarr_scalar u64(uint64_t v) { return (cuarr_scalar){.dtype = CUARR_UINT64, .v.u = v}; }

/* s converted to dtype d with cuarr's casting rules, as d holds it. */
static cuarr_scalar to(cuarr_scalar s, cuarr_dtype d) {
  char b[8];
  cuarr_scalar_store(s, d, b);
  return cuarr_scalar_load(b, d);
}

static bool s_isnan(cuarr_scalar s) { return cuarr_dtype_is_float(s.dtype) && isnan(s.v.f); }
static bool s_true(cuarr_scalar s) {
  return s.dtype == CUARR_BOOL              ? s.v.b
         : cuarr_dtype_is_signed(s.dtype)   ? s.v.i != 0
         : cuarr_dtype_is_unsigned(s.dtype) ? s.v.u != 0
                                            : s.v.f != 0; /* NaN is true */
}
static uint64_t s_bits(cuarr_scalar s) { /* an integer's value modulo 2^64 */
  return s.dtype == CUARR_BOOL ? s.v.b : cuarr_dtype_is_signed(s.dtype) ? (uint64_t)s.v.i : s.v.u;
}
/* a <=> b for two non-NaN values of one dtype, compared exactly. */
static int s_cmp(cuarr_scalar a, cuarr_scalar b) {
  if (a.dtype == CUARR_BOOL)
    return (int)a.v.b - (int)b.v.b;
  if (cuarr_dtype_is_signed(a.dtype))
    return (a.v.i > b.v.i) - (a.v.i < b.v.i);
  if (cuarr_dtype_is_unsigned(a.dtype))
    return (a.v.u > b.v.u) - (a.v.u < b.v.u);
  return (a.v.f > b.v.f) - (a.v.f < b.v.f);
}
static double s_double(cuarr_scalar s) {
  return s.dtype == CUARR_BOOL              ? s.v.b
         : cuarr_dtype_is_signed(s.dtype)   ? (double)s.v.i
         : cuarr_dtype_is_unsigned(s.dtype) ? (double)s.v.u
                                            : s.v.f;
}

/* ---- values */

typedef enum fill_kind {
  GENERAL, /* small values with repeats (ties), negatives where the dtype has them */
  PRODUCT, /* 1, -1, 2, 0.5 / 3: products stay small (exact for floats) */
  NANS,    /* GENERAL with a NaN every 5th element */
} fill_kind;

static cuarr_scalar pattern(fill_kind kind, cuarr_dtype dt, int64_t k) {
  if (kind == PRODUCT) {
    static const double fv[4] = {1, -1, 2, 0.5};
    static const int64_t iv[4] = {1, -1, 2, 3};
    return cuarr_dtype_is_float(dt) ? f64(fv[k % 4]) : i64(iv[k % 4]);
  }
  int64_t m = (k * 7) % 23;
  if (dt == CUARR_BOOL)
    return i64(m % 3 != 0);
  if (cuarr_dtype_is_unsigned(dt))
    return i64(m);
  if (cuarr_dtype_is_signed(dt))
    return i64(m - 11);
  if (kind == NANS && k % 5 == 2)
    return f64(NAN);
  return f64((double)(m - 11) * 0.25);
}

/* Every element of a (C order over a's shape) from the pattern. */
static void fill(const cuarr_array *a, fill_kind kind) {
  int64_t n = cuarr_array_size(a), idx[CUARR_MAXDIM];
  for (int64_t k = 0; k < n; k++) {
    unflatten(a->ndim, a->shape, k, idx);
    cuarr_scalar_store(pattern(kind, a->dtype, k), a->dtype, elem(a, idx));
  }
}

/* ---- the reference reduction of one result */

typedef struct expect {
  cuarr_scalar v; /* in the accumulator's dtype (arg ops: the index, int64) */
  bool inexact;   /* a float sum or product: the order of the additions shows */
  double mag;     /* sum of |values| (sums), |result| (products): the error's scale */
} expect;

static bool is_arg(cuarr_reduce_op op) {
  return op == CUARR_REDUCE_ARGMIN || op == CUARR_REDUCE_ARGMAX;
}

/* op over the elements of in at idx (kept axes set, reduced ones walked in C order). */
static expect reference(cuarr_reduce_op op, const cuarr_array *in, uint64_t axes, cuarr_dtype acc,
                        int64_t base, int64_t *idx) {
  int red[CUARR_MAXDIM], nr = 0;
  int64_t rshape[CUARR_MAXDIM], count = 1, ridx[CUARR_MAXDIM];
  for (int d = 0; d < in->ndim; d++)
    if (axes >> d & 1) {
      red[nr] = d;
      rshape[nr++] = in->shape[d];
      count *= in->shape[d];
    }
  const bool prod = op == CUARR_REDUCE_PROD || op == CUARR_REDUCE_NANPROD;
  const bool nan_skip = op == CUARR_REDUCE_NANSUM || op == CUARR_REDUCE_NANPROD ||
                        op == CUARR_REDUCE_NANMIN || op == CUARR_REDUCE_NANMAX;
  const bool want_max =
      op == CUARR_REDUCE_MAX || op == CUARR_REDUCE_NANMAX || op == CUARR_REDUCE_ARGMAX;
  uint64_t u = prod ? 1 : 0;
  double f = prod ? 1 : 0, mag = 0;
  bool all = true, any = false, saw_nan = false, have = false;
  int64_t cnt = 0, best_i = -1;
  cuarr_scalar best = {0};
  for (int64_t j = 0; j < count; j++) {
    unflatten(nr, rshape, j, ridx);
    for (int r = 0; r < nr; r++)
      idx[red[r]] = ridx[r];
    cuarr_scalar x = cuarr_scalar_load(elem(in, idx), in->dtype);
    bool t = s_true(x);
    all = all && t;
    any = any || t;
    cnt += t;
    cuarr_scalar a = to(x, acc);
    bool nan = s_isnan(a);
    switch (op) {
    case CUARR_REDUCE_SUM:
    case CUARR_REDUCE_NANSUM:
    case CUARR_REDUCE_PROD:
    case CUARR_REDUCE_NANPROD:
      if (nan && nan_skip)
        break;
      if (cuarr_dtype_is_float(acc)) {
        f = prod ? f * a.v.f : f + a.v.f;
        mag += fabs(a.v.f);
      } else {
        u = prod ? u * s_bits(a) : u + s_bits(a);
      }
      break;
    case CUARR_REDUCE_ARGMIN:
    case CUARR_REDUCE_ARGMAX:
      if (best_i < 0 || (nan && !s_isnan(best)) ||
          (!nan && !s_isnan(best) && s_cmp(a, best) == (want_max ? 1 : -1))) {
        best = a;
        best_i = j;
      }
      break;
    case CUARR_REDUCE_MIN:
    case CUARR_REDUCE_MAX:
    case CUARR_REDUCE_NANMIN:
    case CUARR_REDUCE_NANMAX:
      if (nan) {
        saw_nan = true;
      } else if (!have || s_cmp(a, best) == (want_max ? 1 : -1)) {
        best = a;
        have = true;
      }
      break;
    default: break;
    }
  }
  for (int r = 0; r < nr; r++)
    idx[red[r]] = 0;
  expect e = {.v = {0}, .inexact = false, .mag = 0};
  switch (op) {
  case CUARR_REDUCE_SUM:
  case CUARR_REDUCE_NANSUM:
  case CUARR_REDUCE_PROD:
  case CUARR_REDUCE_NANPROD:
    if (cuarr_dtype_is_float(acc)) {
      e.v = to(f64(f), acc);
      e.inexact = true;
      e.mag = prod ? fabs(f) : mag;
    } else {
      e.v = to(u64(u), acc); /* wraps to acc's width; bool: != 0 */
    }
    break;
  case CUARR_REDUCE_ARGMIN:
  case CUARR_REDUCE_ARGMAX: e.v = i64(best_i + base); break;
  case CUARR_REDUCE_MIN:
  case CUARR_REDUCE_MAX: e.v = saw_nan ? to(f64(NAN), acc) : best; break;
  case CUARR_REDUCE_NANMIN:
  case CUARR_REDUCE_NANMAX: e.v = have ? best : to(f64(NAN), acc); break;
  case CUARR_REDUCE_ALL: e.v = to(i64(all), acc); break;
  case CUARR_REDUCE_ANY: e.v = to(i64(any), acc); break;
  case CUARR_REDUCE_COUNT_NONZERO: e.v = to(i64(cnt), acc); break;
  default: break;
  }
  return e;
}

/* got (in out's dtype) is want converted to out's dtype, within the tolerance of a float sum
 * or product. */
static bool matches(cuarr_scalar got, expect want, cuarr_dtype acc) {
  cuarr_scalar w = to(want.v, got.dtype);
  if (got.dtype == CUARR_BOOL)
    return got.v.b == w.v.b;
  if (!cuarr_dtype_is_float(got.dtype))
    return s_bits(got) == s_bits(w);
  if (isnan(got.v.f) || isnan(w.v.f))
    return isnan(got.v.f) && isnan(w.v.f);
  if (got.v.f == w.v.f)
    return true;
  if (!want.inexact)
    return false;
  double tol = want.mag * (acc == CUARR_FLOAT64 ? 1e-13 : 4e-6);
  if (got.dtype == CUARR_FLOAT16)
    tol += fabs(w.v.f) * 1e-3;
  else if (got.dtype == CUARR_FLOAT32)
    tol += fabs(w.v.f) * 1e-6;
  return fabs(got.v.f - w.v.f) <= tol;
}

/* The keepdims shape of reducing in over axes. */
static void keepdims_shape(const cuarr_array *in, uint64_t axes, int64_t *shape) {
  for (int d = 0; d < in->ndim; d++)
    shape[d] = axes >> d & 1 ? 1 : in->shape[d];
}

/* A view of a with every axis of extent > 1 reversed. */
static cuarr_array reversed(const cuarr_array *a) {
  cuarr_array v = *a, w;
  cuarr_buffer_retain(v.buf);
  for (int d = 0; d < a->ndim; d++) {
    if (v.shape[d] > 1 && cuarr_view_slice(&v, d, v.shape[d] - 1, v.shape[d], -1, &w) == CUARR_OK) {
      cuarr_array_release(&v);
      v = w;
    }
  }
  return v;
}

/* Run op over axes of in into a new keepdims array of dtype out_dtype (-1: the resolved
 * one; flip_out: through a view with every axis reversed) and compare every result with the
 * reference.  acc_override >= 0 replaces the resolved accumulator. */
static bool check_reduce_full(cuarr_reduce_op op, const cuarr_array *in, uint64_t axes,
                              int acc_override, int out_dtype, bool flip_out, int64_t base,
                              const char *what) {
  cuarr_dtype acc, res;
  if (cuarr_reduce_resolve(op, in->dtype, -1, &acc, &res) != CUARR_OK) {
    printf("# %s: resolve failed: %s\n", what, cuarr_last_error());
    return false;
  }
  if (acc_override >= 0)
    acc = (cuarr_dtype)acc_override;
  if (out_dtype >= 0)
    res = (cuarr_dtype)out_dtype;
  int64_t shape[CUARR_MAXDIM], idx[CUARR_MAXDIM];
  keepdims_shape(in, axes, shape);
  cuarr_array out_arr = make(res, in->ndim, shape);
  cuarr_array out = flip_out ? reversed(&out_arr) : out_arr;
  cuarr_reduce_call call = {op, in, axes, acc, &out, base};
  cuarr_status st = cuarr_host_reduce(&call);
  bool ok = st == CUARR_OK;
  if (!ok)
    printf("# %s: %s\n", what, cuarr_last_error());
  int64_t n = cuarr_array_size(&out);
  for (int64_t k = 0; ok && k < n; k++) {
    unflatten(out.ndim, out.shape, k, idx);
    cuarr_scalar got = cuarr_scalar_load(elem(&out, idx), res);
    expect want = reference(op, in, axes, acc, base, idx);
    if (!matches(got, want, acc)) {
      printf("# %s %s over %s, axes 0x%" PRIx64 ": result %" PRId64 " is %.17g, want %.17g\n", what,
             cuarr_reduce_op_name(op), cuarr_dtype_name(in->dtype), axes, k, s_double(got),
             s_double(to(want.v, res)));
      ok = false;
    }
  }
  if (flip_out)
    cuarr_array_release(&out);
  cuarr_array_release(&out_arr);
  return ok;
}

static bool check_reduce(cuarr_reduce_op op, const cuarr_array *in, uint64_t axes,
                         const char *what) {
  return check_reduce_full(op, in, axes, -1, -1, false, 0, what);
}

/* ---- layouts */

static void release(cuarr_array *a) { cuarr_array_release(a); }

/* (4, 5, 6): a (5, 6, 7) array with axis 1 reversed, transposed to (7, 5, 6), every other
 * index of the first axis kept: no axis is contiguous and one steps backwards. */
static cuarr_array strided_3d(cuarr_dtype dt, fill_kind kind) {
  int64_t shape[3] = {5, 6, 7};
  cuarr_array base = make(dt, 3, shape), rev, tr, v;
  int perm[3] = {2, 0, 1};
  cuarr_view_slice(&base, 1, 5, 6, -1, &rev);
  cuarr_view_transpose(&rev, perm, &tr);
  cuarr_view_slice(&tr, 0, 0, 4, 2, &v);
  release(&base);
  release(&rev);
  release(&tr);
  fill(&v, kind);
  return v;
}

static cuarr_array contiguous(cuarr_dtype dt, fill_kind kind, int ndim, const int64_t *shape) {
  cuarr_array a = make(dt, ndim, shape);
  fill(&a, kind);
  return a;
}

/* in.T of a C-contiguous (n1, n0) array: shape (n0, n1), the first axis the dense one. */
static cuarr_array transposed_2d(cuarr_dtype dt, fill_kind kind, int64_t n1, int64_t n0) {
  int64_t shape[2] = {n1, n0};
  cuarr_array a = make(dt, 2, shape), t;
  cuarr_view_transpose(&a, NULL, &t);
  release(&a);
  fill(&t, kind);
  return t;
}

/* Reduce over every layout; arg ops get one axis or all of them (reduce.c allows no more). */
static bool check_layouts(cuarr_reduce_op op, cuarr_dtype dt, fill_kind kind) {
  bool ok = true, arg = is_arg(op), identity = cuarr_reduce_op_has_identity(op);
  static const uint64_t sets3[] = {1, 2, 4, 7, 3, 5, 6};
  const int nsets = arg ? 4 : 7;
  char what[64];
  snprintf(what, sizeof what, "%s %s", cuarr_reduce_op_name(op), cuarr_dtype_name(dt));

  int64_t s345[3] = {3, 4, 5};
  cuarr_array a = contiguous(dt, kind, 3, s345);
  for (int i = 0; i < nsets; i++)
    ok = check_reduce(op, &a, sets3[i], "contiguous (3,4,5)") && ok;
  ok = check_reduce_full(op, &a, 2, -1, -1, true, 1, "reversed out, index base 1") && ok;
  release(&a);

  a = strided_3d(dt, kind);
  for (int i = 0; i < nsets; i++)
    ok = check_reduce(op, &a, sets3[i], "strided (4,5,6)") && ok;
  release(&a);

  a = contiguous(dt, kind, 0, NULL);
  ok = check_reduce(op, &a, 0, "0-d") && ok;
  release(&a);

  int64_t s2603[2] = {260, 3}, s3300[2] = {3, 300};
  a = contiguous(dt, kind, 2, s2603); /* columns (pairwise cascade), short rows */
  for (uint64_t ax = 1; ax <= 3; ax++)
    ok = check_reduce(op, &a, ax, "(260,3)") && ok;
  release(&a);
  a = contiguous(dt, kind, 2, s3300); /* rows split into leaves */
  for (uint64_t ax = 1; ax <= 3; ax++)
    ok = check_reduce(op, &a, ax, "(3,300)") && ok;
  release(&a);
  a = transposed_2d(dt, kind, 300, 3); /* (3,300) with the first axis dense */
  for (uint64_t ax = 1; ax <= 3; ax++)
    ok = check_reduce(op, &a, ax, "(300,3).T") && ok;
  release(&a);

  /* wider than a block of results (columns) and longer than a pairwise leaf (rows) */
  int64_t s31500[2] = {3, 1500}, s2001100[2] = {200, 1100}, s23000[2] = {2, 3000};
  a = contiguous(dt, kind, 2, s31500);
  for (uint64_t ax = 1; ax <= 3; ax++)
    ok = check_reduce(op, &a, ax, "(3,1500)") && ok;
  release(&a);
  a = contiguous(dt, kind, 2, s2001100);
  ok = check_reduce(op, &a, 1, "(200,1100)") && ok;
  release(&a);
  a = contiguous(dt, kind, 2, s23000);
  ok = check_reduce(op, &a, 2, "(2,3000)") && ok;
  release(&a);

  int64_t s15[2] = {1, 5}, s45[2] = {4, 5};
  cuarr_array small = contiguous(dt, kind, 2, s15), bc;
  cuarr_view_broadcast(&small, 2, s45, &bc);
  for (uint64_t ax = 1; ax <= 3; ax++)
    ok = check_reduce(op, &bc, ax, "broadcast (1,5)->(4,5)") && ok;
  release(&bc);
  release(&small);

  int64_t s32[32];
  for (int d = 0; d < 32; d++)
    s32[d] = d == 3 || d == 9 || d == 17 || d == 30 ? 2 : d == 20 ? 3 : 1;
  a = contiguous(dt, kind, 32, s32);
  if (!arg)
    ok = check_reduce(op, &a, (1ull << 9) | (1ull << 20) | (1ull << 5), "32-D") && ok;
  ok = check_reduce(op, &a, 1ull << 20, "32-D one axis") && ok;
  ok = check_reduce(op, &a, 0xffffffffull, "32-D all axes") && ok;
  release(&a);

  if (identity) {
    int64_t s302[3] = {3, 0, 2};
    a = make(dt, 3, s302);
    ok = check_reduce(op, &a, 2, "empty reduced axis") && ok;
    ok = check_reduce(op, &a, 3, "empty reduced axes") && ok;
    ok = check_reduce(op, &a, 7, "empty, all axes") && ok;
    release(&a);
  }
  if (!ok)
    printf("# ^ %s\n", what);
  return ok;
}

static fill_kind kind_for(cuarr_reduce_op op) {
  return op == CUARR_REDUCE_PROD || op == CUARR_REDUCE_NANPROD ? PRODUCT : GENERAL;
}

static void test_every_op_and_dtype(void) {
  for (int op = 0; op < CUARR_NREDUCE_OPS; op++) {
    for (int dt = 0; dt < CUARR_NDTYPES; dt++) {
      char name[96];
      snprintf(name, sizeof name, "%s over %s, every layout", cuarr_reduce_op_name(op),
               cuarr_dtype_name(dt));
      bool ok = check_layouts(op, dt, kind_for(op));
      if (cuarr_dtype_is_float(dt))
        ok = check_layouts(op, dt, NANS) && ok;
      CHECK(ok, name);
    }
  }
}

/* Results stored to other dtypes than the resolved ones. */
static void test_out_dtypes(void) {
  bool ok = true;
  int64_t s[2] = {7, 9};
  for (int dt = 0; dt < CUARR_NDTYPES; dt++) {
    cuarr_array a = contiguous(dt, GENERAL, 2, s);
    for (int od = 0; od < CUARR_NDTYPES; od++) {
      ok = check_reduce_full(CUARR_REDUCE_SUM, &a, 1, -1, od, false, 0, "sum to out dtype") && ok;
      ok = check_reduce_full(CUARR_REDUCE_MAX, &a, 2, -1, od, true, 0, "max to out dtype") && ok;
      ok = check_reduce_full(CUARR_REDUCE_ARGMIN, &a, 1, -1, od, false, 1, "argmin to out") && ok;
      ok = check_reduce_full(CUARR_REDUCE_ANY, &a, 2, -1, od, false, 0, "any to out dtype") && ok;
    }
    release(&a);
  }
  CHECK(ok, "results converted to every out dtype");

  /* every accumulator dtype for the sums and products (a dtype= argument), by rows and by
   * columns, NaN included */
  static const cuarr_reduce_op sums[4] = {CUARR_REDUCE_SUM, CUARR_REDUCE_NANSUM, CUARR_REDUCE_PROD,
                                          CUARR_REDUCE_NANPROD};
  ok = true;
  int64_t s2[2] = {9, 150};
  for (int i = 0; i < 4; i++) {
    for (int dt = 0; dt < CUARR_NDTYPES; dt++) {
      fill_kind kind = i >= 2 ? PRODUCT : cuarr_dtype_is_float(dt) ? NANS : GENERAL;
      cuarr_array a = contiguous(dt, kind, 2, s2);
      for (int ad = 0; ad < CUARR_NDTYPES; ad++) {
        ok = check_reduce_full(sums[i], &a, 2, ad, ad, false, 0, "acc dtype, rows") && ok;
        ok = check_reduce_full(sums[i], &a, 1, ad, CUARR_FLOAT64, false, 0, "acc dtype, columns") &&
             ok;
      }
      release(&a);
    }
  }
  CHECK(ok, "sums and products in every accumulator dtype from every input dtype");
}

/* ---- specific cases */

/* A 1-D array of dtype dt holding the n doubles v. */
static cuarr_array from_doubles(cuarr_dtype dt, const double *v, int64_t n) {
  cuarr_array a = make(dt, 1, &n);
  for (int64_t k = 0; k < n; k++)
    cuarr_scalar_store(f64(v[k]), dt, elem(&a, &k));
  return a;
}

/* op over all of a (acc resolved unless acc >= 0), the result as stored in dtype out. */
static cuarr_scalar reduce_all(cuarr_reduce_op op, const cuarr_array *a, int acc_dt, int out_dt,
                               int64_t base) {
  cuarr_dtype acc, res;
  cuarr_reduce_resolve(op, a->dtype, -1, &acc, &res);
  if (acc_dt >= 0)
    acc = (cuarr_dtype)acc_dt;
  if (out_dt >= 0)
    res = (cuarr_dtype)out_dt;
  int64_t shape[CUARR_MAXDIM];
  for (int d = 0; d < a->ndim; d++)
    shape[d] = 1;
  cuarr_array out = make(res, a->ndim, shape);
  uint64_t all = a->ndim ? (a->ndim >= 64 ? ~0ull : (1ull << a->ndim) - 1) : 0;
  cuarr_reduce_call call = {op, a, all, acc, &out, base};
  cuarr_host_reduce(&call);
  cuarr_scalar r = cuarr_scalar_load(cuarr_array_data(&out), res);
  release(&out);
  return r;
}

static double red_f(cuarr_reduce_op op, const cuarr_array *a) {
  return s_double(reduce_all(op, a, -1, -1, 0));
}

static void test_nan(void) {
  const double v[5] = {1, NAN, 3, NAN, -1}, all_nan[3] = {NAN, NAN, NAN};
  static const cuarr_dtype fdt[3] = {CUARR_FLOAT16, CUARR_FLOAT32, CUARR_FLOAT64};
  for (int i = 0; i < 3; i++) {
    cuarr_array a = from_doubles(fdt[i], v, 5), z = from_doubles(fdt[i], all_nan, 3);
    char name[96];
    snprintf(name, sizeof name, "%s: min/max propagate NaN, nanmin/nanmax skip it",
             cuarr_dtype_name(fdt[i]));
    CHECK(isnan(red_f(CUARR_REDUCE_MIN, &a)) && isnan(red_f(CUARR_REDUCE_MAX, &a)) &&
              red_f(CUARR_REDUCE_NANMIN, &a) == -1 && red_f(CUARR_REDUCE_NANMAX, &a) == 3,
          name);
    snprintf(name, sizeof name, "%s: all-NaN nanmin/nanmax give NaN", cuarr_dtype_name(fdt[i]));
    CHECK(isnan(red_f(CUARR_REDUCE_NANMIN, &z)) && isnan(red_f(CUARR_REDUCE_NANMAX, &z)), name);
    snprintf(name, sizeof name, "%s: argmin/argmax give the first NaN", cuarr_dtype_name(fdt[i]));
    CHECK(red_f(CUARR_REDUCE_ARGMAX, &a) == 1 && red_f(CUARR_REDUCE_ARGMIN, &a) == 1 &&
              red_f(CUARR_REDUCE_ARGMAX, &z) == 0,
          name);
    snprintf(name, sizeof name, "%s: sum NaN, nansum 3, nanprod -3; all/any/count see NaN true",
             cuarr_dtype_name(fdt[i]));
    CHECK(isnan(red_f(CUARR_REDUCE_SUM, &a)) && red_f(CUARR_REDUCE_NANSUM, &a) == 3 &&
              red_f(CUARR_REDUCE_NANPROD, &a) == -3 && isnan(red_f(CUARR_REDUCE_PROD, &a)) &&
              red_f(CUARR_REDUCE_ALL, &a) == 1 && red_f(CUARR_REDUCE_ANY, &z) == 1 &&
              red_f(CUARR_REDUCE_COUNT_NONZERO, &a) == 5 && red_f(CUARR_REDUCE_NANSUM, &z) == 0,
          name);
    release(&a);
    release(&z);
  }
}

static void test_negative_zero(void) {
  const double v[3] = {-0.0, 1, -0.0};
  bool ok = true;
  for (int dt = CUARR_FLOAT16; dt <= CUARR_FLOAT64; dt++) {
    cuarr_array a = from_doubles(dt, v, 3);
    ok = ok && red_f(CUARR_REDUCE_COUNT_NONZERO, &a) == 1 && red_f(CUARR_REDUCE_ALL, &a) == 0 &&
         red_f(CUARR_REDUCE_ANY, &a) == 1;
    cuarr_array z;
    cuarr_view_slice(&a, 0, 0, 1, 1, &z);
    ok = ok && red_f(CUARR_REDUCE_ANY, &z) == 0 && red_f(CUARR_REDUCE_COUNT_NONZERO, &z) == 0;
    release(&z);
    release(&a);
  }
  CHECK(ok, "-0.0 is false for all/any/count_nonzero (float16 too)");
}

static void test_ties_and_extremes(void) {
  const double v[6] = {3, 7, 7, 1, 1, 7};
  cuarr_array a = from_doubles(CUARR_INT32, v, 6);
  CHECK(red_f(CUARR_REDUCE_ARGMAX, &a) == 1 && red_f(CUARR_REDUCE_ARGMIN, &a) == 3,
        "argmax/argmin: the first of tied extremes");
  CHECK(s_double(reduce_all(CUARR_REDUCE_ARGMAX, &a, -1, -1, 1)) == 2, "index_base 1 is added");
  release(&a);

  int64_t n = 4;
  cuarr_array b = make(CUARR_INT64, 1, &n);
  const int64_t iv[4] = {0, INT64_MAX, INT64_MIN, -1};
  memcpy(cuarr_array_data(&b), iv, sizeof iv);
  CHECK(reduce_all(CUARR_REDUCE_MAX, &b, -1, -1, 0).v.i == INT64_MAX &&
            reduce_all(CUARR_REDUCE_MIN, &b, -1, -1, 0).v.i == INT64_MIN &&
            reduce_all(CUARR_REDUCE_ARGMIN, &b, -1, -1, 0).v.i == 2,
        "int64 extremes compare exactly");
  release(&b);
  cuarr_array c = make(CUARR_UINT64, 1, &n);
  const uint64_t uv[4] = {1, UINT64_MAX, UINT64_MAX - 1, 0};
  memcpy(cuarr_array_data(&c), uv, sizeof uv);
  CHECK(reduce_all(CUARR_REDUCE_MAX, &c, -1, -1, 0).v.u == UINT64_MAX &&
            reduce_all(CUARR_REDUCE_NANMIN, &c, -1, -1, 0).v.u == 0 &&
            reduce_all(CUARR_REDUCE_ARGMAX, &c, -1, -1, 0).v.i == 1 &&
            reduce_all(CUARR_REDUCE_SUM, &c, -1, -1, 0).v.u == UINT64_MAX - 1,
        "uint64 extremes compare exactly; the sum wraps");
  release(&c);

  /* bool bytes other than 0 and 1 (memory an embedder wrapped) are true */
  int64_t m = 3;
  cuarr_array d = make(CUARR_BOOL, 1, &m);
  memcpy(cuarr_array_data(&d), (uint8_t[3]){2, 0, 255}, 3);
  CHECK(reduce_all(CUARR_REDUCE_SUM, &d, -1, -1, 0).v.i == 2 &&
            reduce_all(CUARR_REDUCE_COUNT_NONZERO, &d, -1, -1, 0).v.i == 2 &&
            reduce_all(CUARR_REDUCE_MAX, &d, -1, -1, 0).v.b &&
            !reduce_all(CUARR_REDUCE_ALL, &d, -1, -1, 0).v.b &&
            reduce_all(CUARR_REDUCE_PROD, &d, CUARR_BOOL, CUARR_BOOL, 0).v.b == false &&
            reduce_all(CUARR_REDUCE_SUM, &d, CUARR_BOOL, CUARR_BOOL, 0).v.b == true,
        "bool bytes 2 and 255 count as true");
  release(&d);
}

static void test_wrapping(void) {
  int64_t n = 100;
  cuarr_array a = make(CUARR_INT8, 1, &n);
  memset(cuarr_array_data(&a), 100, 100);
  /* 100 * 100 = 10000 = 39 * 256 + 16 */
  CHECK(reduce_all(CUARR_REDUCE_SUM, &a, CUARR_INT8, CUARR_INT8, 0).v.i == 16 &&
            reduce_all(CUARR_REDUCE_SUM, &a, CUARR_INT8, CUARR_INT64, 0).v.i == 16 &&
            reduce_all(CUARR_REDUCE_SUM, &a, -1, -1, 0).v.i == 10000,
        "int8 sums wrap in an int8 accumulator, not in the default int64");
  CHECK(reduce_all(CUARR_REDUCE_SUM, &a, CUARR_UINT8, CUARR_INT64, 0).v.i == 16 &&
            reduce_all(CUARR_REDUCE_SUM, &a, CUARR_INT16, CUARR_INT16, 0).v.i == 10000,
        "uint8 and int16 accumulators");
  int64_t m = 1000;
  cuarr_array b = make(CUARR_INT8, 1, &m);
  memset(cuarr_array_data(&b), 100, 1000);
  CHECK(reduce_all(CUARR_REDUCE_SUM, &b, CUARR_INT16, CUARR_INT64, 0).v.i == 100000 - 131072,
        "int16 accumulator wraps at 2^15");
  int64_t n9 = 9;
  cuarr_array c = make(CUARR_INT8, 1, &n9);
  memset(cuarr_array_data(&c), 2, 9);
  CHECK(reduce_all(CUARR_REDUCE_PROD, &c, CUARR_INT8, CUARR_INT8, 0).v.i == 0 &&
            reduce_all(CUARR_REDUCE_PROD, &c, CUARR_INT16, CUARR_INT16, 0).v.i == 512 &&
            reduce_all(CUARR_REDUCE_PROD, &c, -1, -1, 0).v.i == 512,
        "int8 products wrap in an int8 accumulator");
  /* a float16 accumulator takes each element as a float16: 2049 -> 2048, + 1 ties to 2048 */
  const double big[2] = {2049, 1};
  cuarr_array h = from_doubles(CUARR_FLOAT32, big, 2);
  CHECK(reduce_all(CUARR_REDUCE_SUM, &h, CUARR_FLOAT16, CUARR_FLOAT64, 0).v.f == 2048 &&
            reduce_all(CUARR_REDUCE_SUM, &h, CUARR_FLOAT32, CUARR_FLOAT64, 0).v.f == 2050,
        "a float16 accumulator converts each element to float16 first");
  release(&h);
  /* int8 accumulator over (2, 100) rows and columns, both walks */
  int64_t s[2] = {100, 2};
  cuarr_array d = make(CUARR_INT8, 2, s);
  memset(cuarr_array_data(&d), 100, 200);
  int64_t o[2] = {1, 2};
  cuarr_array out = make(CUARR_INT8, 2, o);
  cuarr_reduce_call call = {CUARR_REDUCE_SUM, &d, 1, CUARR_INT8, &out, 0};
  cuarr_host_reduce(&call);
  int8_t *r = cuarr_array_data(&out);
  CHECK(r[0] == 16 && r[1] == 16, "int8 accumulator over columns");
  release(&a);
  release(&b);
  release(&c);
  release(&d);
  release(&out);
}

static void test_pairwise(void) {
  int64_t n = 1 << 22;
  cuarr_array a = make(CUARR_FLOAT32, 1, &n);
  float *p = cuarr_array_data(&a);
  for (int64_t k = 0; k < n; k++)
    p[k] = 0.1f;
  double want = (double)0.1f * (double)n;
  double got = s_double(reduce_all(CUARR_REDUCE_SUM, &a, -1, -1, 0));
  printf("# float32 sum of 2^22 x 0.1f: %.9g, exact %.9g\n", got, want);
  CHECK(fabs(got - want) <= 1e-6 * want, "float32 sum of 2^22 values is pairwise (rows)");
  got = s_double(reduce_all(CUARR_REDUCE_NANSUM, &a, -1, -1, 0));
  CHECK(fabs(got - want) <= 1e-6 * want, "float32 nansum is pairwise too");

  /* the same values as (2^21, 2) summed over the first axis: the columns walk */
  int64_t s[2] = {n / 2, 2}, o[2] = {1, 2};
  cuarr_array m, out = make(CUARR_FLOAT32, 2, o);
  bool needs_copy;
  cuarr_view_reshape(&a, 2, s, &m, &needs_copy);
  cuarr_reduce_call call = {CUARR_REDUCE_SUM, &m, 1, CUARR_FLOAT32, &out, 0};
  cuarr_host_reduce(&call);
  float *r = cuarr_array_data(&out);
  CHECK(fabs(r[0] - want / 2) <= 1e-6 * want / 2 && fabs(r[1] - want / 2) <= 1e-6 * want / 2,
        "float32 sums over columns are pairwise");
  /* strided rows: every other element of a (2^22,) array of 0.1f, 0.2f */
  for (int64_t k = 1; k < n; k += 2)
    p[k] = 0.2f;
  cuarr_array odd;
  cuarr_view_slice(&a, 0, 1, n / 2, 2, &odd);
  got = s_double(reduce_all(CUARR_REDUCE_SUM, &odd, -1, -1, 0));
  want = (double)0.2f * (double)(n / 2);
  CHECK(fabs(got - want) <= 1e-6 * want, "float32 sum over a strided view is pairwise");
  release(&odd);
  release(&m);
  release(&out);
  release(&a);
}

/* ---- scans */

/* Scan in along axis into out (a new array of dtype out_dtype, -1: the resolved one; or in
 * itself when in_place) and compare every element with a reference that runs in the
 * accumulator's arithmetic (uint64 wrapping, or doubles rounded to acc at each step, which is
 * exactly float32 arithmetic for a float32 accumulator). */
static bool check_scan_acc(cuarr_scan_op op, const cuarr_array *in, int axis, int acc_dtype,
                           int out_dtype, bool in_place, const char *what) {
  cuarr_dtype acc, res;
  bool prod = op == CUARR_SCAN_CUMPROD;
  cuarr_reduce_resolve(prod ? CUARR_REDUCE_PROD : CUARR_REDUCE_SUM, in->dtype, -1, &acc, &res);
  if (acc_dtype >= 0)
    acc = (cuarr_dtype)acc_dtype;
  if (out_dtype >= 0)
    res = (cuarr_dtype)out_dtype;
  int64_t n = cuarr_array_size(in), idx[CUARR_MAXDIM];
  cuarr_scalar *x = malloc((size_t)n * sizeof *x); /* in, before an in-place scan */
  for (int64_t k = 0; k < n; k++) {
    unflatten(in->ndim, in->shape, k, idx);
    x[k] = cuarr_scalar_load(elem(in, idx), in->dtype);
  }
  cuarr_array out;
  if (in_place) {
    out = *in;
    res = in->dtype;
  } else {
    out = make(res, in->ndim, in->shape);
  }
  cuarr_scan_call call = {op, in, axis, acc, &out};
  bool ok = cuarr_host_scan(&call) == CUARR_OK;
  /* C-order strides over the shape, to find x[] of each element */
  int64_t cs[CUARR_MAXDIM], len = in->shape[axis];
  int64_t step = 1;
  for (int d = in->ndim - 1; d >= 0; d--) {
    cs[d] = step;
    step *= in->shape[d];
  }
  for (int64_t k = 0; ok && k < n; k++) {
    unflatten(in->ndim, in->shape, k, idx);
    if (idx[axis] != 0)
      continue; /* lines start where the axis index is 0 */
    uint64_t u = prod ? 1 : 0;
    double f = prod ? 1 : 0;
    for (int64_t i = 0; ok && i < len; i++) {
      cuarr_scalar a = to(x[k + i * cs[axis]], acc), run;
      if (cuarr_dtype_is_float(acc)) {
        f = to(f64(prod ? f * a.v.f : f + a.v.f), acc).v.f;
        run = f64(f);
      } else {
        u = prod ? u * s_bits(a) : u + s_bits(a);
        run = u64(u);
      }
      idx[axis] = i;
      cuarr_scalar got = cuarr_scalar_load(elem(&out, idx), res);
      expect want = {to(run, acc), false, 0};
      if (!matches(got, want, acc)) {
        printf("# %s %s of %s along %d: element %" PRId64 "+%" PRId64 " is %.17g, want %.17g\n",
               what, prod ? "cumprod" : "cumsum", cuarr_dtype_name(in->dtype), axis, k, i,
               s_double(got), s_double(to(want.v, res)));
        ok = false;
      }
    }
  }
  if (!in_place)
    release(&out);
  free(x);
  return ok;
}

static bool check_scan(cuarr_scan_op op, const cuarr_array *in, int axis, int out_dtype,
                       bool in_place, const char *what) {
  return check_scan_acc(op, in, axis, -1, out_dtype, in_place, what);
}

static void test_scans(void) {
  for (int op = 0; op < CUARR_NSCAN_OPS; op++) {
    fill_kind kind = op == CUARR_SCAN_CUMPROD ? PRODUCT : GENERAL;
    for (int dt = 0; dt < CUARR_NDTYPES; dt++) {
      bool ok = true;
      int64_t s345[3] = {3, 4, 5}, s2003[2] = {200, 3}, s3300[2] = {3, 300}, s1 = 300;
      cuarr_array a = strided_3d(dt, kind);
      for (int ax = 0; ax < 3; ax++)
        ok = check_scan(op, &a, ax, -1, false, "strided (4,5,6)") && ok;
      release(&a);
      a = contiguous(dt, kind, 3, s345);
      for (int ax = 0; ax < 3; ax++)
        ok = check_scan(op, &a, ax, -1, false, "contiguous (3,4,5)") && ok;
      release(&a);
      a = contiguous(dt, kind, 2, s2003);
      ok = check_scan(op, &a, 0, -1, false, "(200,3)") && ok;
      ok = check_scan(op, &a, 1, -1, false, "(200,3)") && ok;
      release(&a);
      a = contiguous(dt, kind, 2, s3300);
      ok = check_scan(op, &a, 1, -1, false, "(3,300)") && ok;
      release(&a);
      a = transposed_2d(dt, kind, 300, 3);
      ok = check_scan(op, &a, 0, -1, false, "(300,3).T") && ok;
      ok = check_scan(op, &a, 1, -1, false, "(300,3).T") && ok;
      release(&a);
      int64_t s101100[2] = {10, 1100}, s21100[2] = {2, 1100};
      a = contiguous(dt, kind, 2, s101100); /* more lines than scanned side by side */
      ok = check_scan(op, &a, 0, -1, false, "(10,1100)") && ok;
      ok = check_scan(op, &a, 0, -1, true, "in place, (10,1100)") && ok;
      release(&a);
      a = contiguous(dt, kind, 2, s21100); /* lines longer than a block */
      ok = check_scan(op, &a, 1, -1, false, "(2,1100)") && ok;
      ok = check_scan(op, &a, 1, -1, true, "in place, (2,1100)") && ok;
      release(&a);
      a = contiguous(dt, kind, 1, &s1);
      ok = check_scan(op, &a, 0, CUARR_FLOAT64, false, "1-D to float64") && ok;
      ok = check_scan(op, &a, 0, CUARR_INT8, false, "1-D to int8") && ok;
      release(&a);
      for (int ax = 0; ax < 3; ax++) { /* in place: a fresh input each time */
        a = strided_3d(dt, kind);
        ok = check_scan(op, &a, ax, -1, true, "in place, strided (4,5,6)") && ok;
        release(&a);
        a = contiguous(dt, kind, 3, s345);
        ok = check_scan(op, &a, ax, -1, true, "in place, contiguous (3,4,5)") && ok;
        release(&a);
      }
      char name[96];
      snprintf(name, sizeof name, "%s of %s along each axis, every layout, in place",
               op == CUARR_SCAN_CUMPROD ? "cumprod" : "cumsum", cuarr_dtype_name(dt));
      CHECK(ok, name);
    }
  }
  /* every accumulator dtype (a dtype= argument), lines and columns */
  bool ok = true;
  int64_t s[2] = {6, 40};
  for (int op = 0; op < CUARR_NSCAN_OPS; op++) {
    fill_kind kind = op == CUARR_SCAN_CUMPROD ? PRODUCT : GENERAL;
    for (int dt = 0; dt < CUARR_NDTYPES; dt++) {
      cuarr_array in = contiguous(dt, kind, 2, s);
      for (int ad = 0; ad < CUARR_NDTYPES; ad++) {
        ok = check_scan_acc(op, &in, 1, ad, ad, false, "acc dtype, lines") && ok;
        ok = check_scan_acc(op, &in, 0, ad, CUARR_FLOAT64, false, "acc dtype, columns") && ok;
      }
      release(&in);
    }
  }
  CHECK(ok, "cumsum/cumprod in every accumulator dtype from every input dtype");

  /* a float16 accumulator takes each element as a float16: 2049 -> 2048, + 1 ties to 2048 */
  const double big[2] = {2049, 1};
  int64_t two = 2;
  cuarr_array h = from_doubles(CUARR_FLOAT32, big, 2), hout = make(CUARR_FLOAT64, 1, &two);
  cuarr_scan_call hc = {CUARR_SCAN_CUMSUM, &h, 0, CUARR_FLOAT16, &hout};
  cuarr_host_scan(&hc);
  double *hr = cuarr_array_data(&hout);
  CHECK(hr[0] == 2048 && hr[1] == 2048, "cumsum in a float16 accumulator converts first");
  release(&h);
  release(&hout);

  /* an int8 accumulator wraps at each step */
  int64_t n = 4;
  cuarr_array a = make(CUARR_INT8, 1, &n), out = make(CUARR_INT16, 1, &n);
  memset(cuarr_array_data(&a), 100, 4);
  cuarr_scan_call call = {CUARR_SCAN_CUMSUM, &a, 0, CUARR_INT8, &out};
  cuarr_host_scan(&call);
  int16_t *r = cuarr_array_data(&out);
  CHECK(r[0] == 100 && r[1] == -56 && r[2] == 44 && r[3] == -112,
        "cumsum in an int8 accumulator wraps at each step");
  release(&a);
  release(&out);
}

int main(void) {
  test_every_op_and_dtype();
  test_out_dtypes();
  test_nan();
  test_negative_zero();
  test_ties_and_extremes();
  test_wrapping();
  test_pairwise();
  test_scans();
  return ctest_done();
}
