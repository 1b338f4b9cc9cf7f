/*
 * scan_host.c -- cumsum and cumprod over host arrays (the semantics are in reduce.h).
 *
 * Walk.  The other axes are ordered by the input's strides and collapsed, as the reductions'
 * kept axes are.  When the scanned axis is the densest in memory, each line along it is
 * scanned on its own; otherwise up to COLS lines are scanned side by side along the densest
 * other axis, one step of the scanned axis at a time, so that reads and writes stay sequential.
 *
 * Types.  Values are converted to the accumulator dtype (in blocks on the stack), or read in
 * place when they already are of it.  The running values are floats of the accumulator's type
 * (float32 for a float16 accumulator), or uint64 for integers and bool: wrapping, and cut to
 * the accumulator's width when stored, which is the same arithmetic modulo 2^width, so
 * integer inputs are read in place whatever the integer accumulator.  Each running value is
 * stored converted to the accumulator's dtype and then to the output's -- written straight
 * into the output when it already has the output's dtype.
 *
 * In place.  out may be in itself (the same layout): every step reads its values before it
 * writes the results of those same elements, and touches no other element.
 */
#include "array/cast.h"
#include "array/host_read.h"
#include "reduce/reduce.h"

enum {
  COLS = 512,                    /* lines scanned side by side */
  BLOCK = CUARR_HOST_READ_BLOCK, /* elements converted at a time */
};

/* Running values are dense arrays of the run dtype, read and written with memcpy.  Lines:
 * r[0] runs through the n values x[k] (x stepping xs bytes).  Columns: r[k] takes in x[k].
 * Either way y[k] (stepping ys bytes) is the running value after x[k]. */
typedef void (*scan_fn)(char *r, const char *x, int64_t xs, int64_t n, char *y, int64_t ys);

/* OP(a, v): a = a op v, on running values of type R; CONV(v) makes a value one of them. */
#define ADD(a, v) ((a) += (v))
#define MUL(a, v) ((a) *= (v))
#define TO_U64(v) ((uint64_t)(v)) /* a signed value sign-extends: the same modulo 2^width */
#define SAME(v) (v)
#define SCANS(op, OP, name, T, R, CONV)                                                            \
  static void op##_line_##name(char *r, const char *x, int64_t xs, int64_t n, char *y,             \
                               int64_t ys) {                                                       \
    R a;                                                                                           \
    memcpy(&a, r, sizeof a);                                                                       \
    CUARR_HOST_EACH(T, OP(a, CONV(v)); memcpy(y + k * ys, &a, sizeof a));                          \
    memcpy(r, &a, sizeof a);                                                                       \
  }                                                                                                \
  static void op##_cols_##name(char *r, const char *x, int64_t xs, int64_t n, char *y,             \
                               int64_t ys) {                                                       \
    CUARR_HOST_EACH(T, R a; memcpy(&a, r + k * (int64_t)sizeof a, sizeof a); OP(a, CONV(v));       \
                    memcpy(r + k * (int64_t)sizeof a, &a, sizeof a);                               \
                    memcpy(y + k * ys, &a, sizeof a));                                             \
  }

/* Per class of cast.h's dtype list: B, I, U run in uint64; F in its own type; H (float16) is
 * never read as such (a float16 accumulator runs as float32). */
#define KERNELS_B(name, T) KERNELS_U(name, T)
#define KERNELS_I(name, T) KERNELS_U(name, T)
#define KERNELS_U(name, T)                                                                         \
  SCANS(sum, ADD, name, T, uint64_t, TO_U64)                                                       \
  SCANS(prod, MUL, name, T, uint64_t, TO_U64)
#define KERNELS_H(name, T)
#define KERNELS_F(name, T)                                                                         \
  SCANS(sum, ADD, name, T, T, SAME)                                                                \
  SCANS(prod, MUL, name, T, T, SAME)
#define DEFINE(_, name, ENUM, load_t, store_t, cls) KERNELS_##cls(name, load_t)
CUARR_DTYPE_LIST(DEFINE, _)

typedef struct scan_fns {
  scan_fn line, cols;
} scan_fns;
#define ENTRY_B(op, name)                                                                          \
  { op##_line_##name, op##_cols_##name }
#define ENTRY_I(op, name) ENTRY_B(op, name)
#define ENTRY_U(op, name) ENTRY_B(op, name)
#define ENTRY_F(op, name) ENTRY_B(op, name)
#define ENTRY_H(op, name)                                                                          \
  { NULL, NULL }
#define SUM_ENTRY(_, name, ENUM, load_t, store_t, cls) [ENUM] = ENTRY_##cls(sum, name),
#define PROD_ENTRY(_, name, ENUM, load_t, store_t, cls) [ENUM] = ENTRY_##cls(prod, name),
static const scan_fns scans[CUARR_NSCAN_OPS][CUARR_NDTYPES] = {
    [CUARR_SCAN_CUMSUM] = {CUARR_DTYPE_LIST(SUM_ENTRY, _)},
    [CUARR_SCAN_CUMPROD] = {CUARR_DTYPE_LIST(PROD_ENTRY, _)},
};

/* ---- a call's plan */

typedef struct plan {
  scan_fns f;
  bool prod;
  cuarr_host_read rd; /* how the input is read */
  cuarr_dtype run;    /* the running values' dtype: float, or uint64 (as acc when it is 64-bit) */
  int64_t rsize;      /* its size */
  bool direct;        /* running values go straight to the output (run == acc == out) */
  cuarr_dtype acc, out;
} plan;

static void make_plan(const cuarr_scan_call *c, plan *p) {
  p->prod = c->op == CUARR_SCAN_CUMPROD;
  p->acc = c->acc;
  p->out = c->out->dtype;
  p->rd = cuarr_dtype_is_integer(p->acc) && cuarr_dtype_is_integer(c->in->dtype)
              ? cuarr_host_read_raw(c->in->dtype) /* modular arithmetic: see the top */
              : cuarr_host_read_as(c->in->dtype, p->acc);
  p->run = cuarr_dtype_is_float(p->rd.val)                   ? p->rd.val
           : p->acc == CUARR_INT64 || p->acc == CUARR_UINT64 ? p->acc
                                                             : CUARR_UINT64;
  p->rsize = (int64_t)cuarr_dtype_size(p->run);
  p->direct = p->run == p->acc && p->out == p->acc;
  p->f = scans[c->op][p->rd.val];
}

static void init(const plan *p, char *r, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    char *at = r + k * p->rsize;
    if (p->run == CUARR_FLOAT32) {
      float one = 1.0f, zero = 0.0f;
      memcpy(at, p->prod ? &one : &zero, sizeof one);
    } else if (p->run == CUARR_FLOAT64) {
      double one = 1.0, zero = 0.0;
      memcpy(at, p->prod ? &one : &zero, sizeof one);
    } else {
      uint64_t one = 1, zero = 0;
      memcpy(at, p->prod ? &one : &zero, sizeof one);
    }
  }
}

/* n running values y (contiguous) to o (stepping os bytes): run -> acc -> out. */
static void store(const plan *p, const char *y, int64_t n, char *o, int64_t os) {
  _Alignas(16) char tmp[BLOCK * 8];
  cuarr_dtype d = p->run;
  int64_t ys = p->rsize;
  if (d != p->acc) {
    int64_t ts = (int64_t)cuarr_dtype_size(p->acc);
    cuarr_cast_rows[p->acc][d](tmp, ts, y, ys, n);
    y = tmp;
    ys = ts;
    d = p->acc;
  }
  cuarr_cast_rows[p->out][d](o, os, y, ys, n);
}

/* Scan n values at x (stepping xs) with the running values r (line or columns), into o
 * (stepping os): straight there, or through a buffer and store(). */
static void scan_block(const plan *p, scan_fn f, char *r, const char *x, int64_t xs, int64_t n,
                       char *o, int64_t os) {
  _Alignas(16) char buf[BLOCK * 8], y[BLOCK * 8];
  int64_t vs;
  const char *v = cuarr_host_read_load(&p->rd, x, xs, n, buf, &vs);
  if (p->direct) {
    f(r, v, vs, n, o, os);
  } else {
    f(r, v, vs, n, y, p->rsize);
    store(p, y, n, o, os);
  }
}

/* ---- geometry: the scanned axis, and the other axes as the reductions' kept ones */

typedef struct geom {
  char *in, *out;
  int64_t len, ain, aout; /* the scanned axis: extent, strides */
  int nk;                 /* other axes (extent > 1), collapsed, densest (input) last */
  int64_t kshape[CUARR_MAXDIM], kin[CUARR_MAXDIM], kout[CUARR_MAXDIM];
} geom;

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

static void make_geom(const cuarr_scan_call *c, geom *g) {
  const cuarr_array *in = c->in, *out = c->out;
  g->in = cuarr_array_data(in);
  g->out = cuarr_array_data(out);
  g->len = in->shape[c->axis];
  g->ain = in->strides[c->axis];
  g->aout = out->strides[c->axis];
  g->nk = 0;
  for (int d = 0; d < in->ndim; d++) {
    if (d == c->axis || in->shape[d] == 1)
      continue;
    g->kshape[g->nk] = in->shape[d];
    g->kin[g->nk] = in->strides[d];
    g->kout[g->nk++] = out->strides[d];
  }
  /* The lines are independent: flip in both where the input steps backwards, then order by
   * the input's strides, largest first. */
  int64_t *ks[2] = {g->kin, g->kout};
  char *data[2] = {g->in, g->out};
  cuarr_iter_flip(g->nk, g->kshape, 2, ks, data, NULL, 0, -1);
  g->in = data[0];
  g->out = data[1];
  cuarr_iter_sort(g->nk, g->kshape, 2, ks, cuarr_iter_by(0));
  g->nk = cuarr_iter_collapse(g->nk, g->kshape, 2, ks);
}

/* ---- the two walks */

static void scan_line(const plan *p, const geom *g, const char *x, char *o) {
  _Alignas(16) char r[8];
  init(p, r, 1);
  const int64_t step = p->rd.in_place && p->direct ? g->len : BLOCK;
  for (int64_t i = 0; i < g->len; i += step) {
    int64_t m = g->len - i < step ? g->len - i : step;
    scan_block(p, p->f.line, r, x + i * g->ain, g->ain, m, o + i * g->aout, g->aout);
  }
}

/* w <= COLS lines side by side, at x and o stepping ks and os bytes. */
static void scan_columns(const plan *p, const geom *g, const char *x, int64_t ks, char *o,
                         int64_t os, int64_t w) {
  _Alignas(16) char r[COLS * 8];
  init(p, r, w);
  const int64_t step = p->rd.in_place && p->direct ? w : BLOCK;
  for (int64_t i = 0; i < g->len; i++) {
    for (int64_t c0 = 0; c0 < w; c0 += step) {
      int64_t m = w - c0 < step ? w - c0 : step;
      scan_block(p, p->f.cols, r + c0 * p->rsize, x + i * g->ain + c0 * ks, ks, m,
                 o + i * g->aout + c0 * os, os);
    }
  }
}

cuarr_status cuarr_host_scan(const cuarr_scan_call *c) {
  plan p;
  geom g;
  make_plan(c, &p);
  make_geom(c, &g);
  if (g.len == 0)
    return CUARR_OK;
  const int nk = g.nk;
  const int64_t n0 = nk ? g.kshape[nk - 1] : 1, is0 = nk ? g.kin[nk - 1] : 0,
                os0 = nk ? g.kout[nk - 1] : 0;
  /* Side by side when the other axes are the denser ones, or when the lines are too short for
   * a call per line to pay. */
  bool by_columns = nk > 0 && (g.len < 8 || abs64(g.ain) > is0);
  int64_t idx[CUARR_MAXDIM] = {0};
  char *in = g.in, *out = g.out;
  for (;;) {
    for (int64_t c0 = 0; c0 < n0; c0 += by_columns ? COLS : 1) {
      if (by_columns)
        scan_columns(&p, &g, in + c0 * is0, is0, out + c0 * os0, os0,
                     n0 - c0 < COLS ? n0 - c0 : COLS);
      else
        scan_line(&p, &g, in + c0 * is0, out + c0 * os0);
    }
    int d = nk - 2; /* an odometer over the outer axes */
    for (; d >= 0; d--) {
      if (++idx[d] < g.kshape[d]) {
        in += g.kin[d];
        out += g.kout[d];
        break;
      }
      idx[d] = 0;
      in -= (g.kshape[d] - 1) * g.kin[d];
      out -= (g.kshape[d] - 1) * g.kout[d];
    }
    if (d < 0)
      return CUARR_OK;
  }
}
