/*
 * matmul.c -- cuarr_matmul: NumPy's rules, then batches of products handed to an engine.
 *
 * The steps: promote the dtypes; see 1-D operands as a row and a column; broadcast the batch
 * axes; check or allocate the result (copy/result.h); copy an operand of another dtype, or one
 * BLAS cannot read as it lies, into a C-contiguous array of the compute dtype (before the batch
 * is broadcast, so that a broadcast operand is copied once); then walk the batch: the batch
 * axes of the three operands are merged where their strides allow, the last one goes to the
 * engine as a strided batch and the others are looped over here, and extents past what an int
 * holds are cut into stretches (a long inner extent accumulates into C).
 */
#include <limits.h>
#include <string.h>

#include "array/casting.h"
#include "array/shape_format.h"
#include "copy/result.h"
#include "linalg/matmul.h"

/* The most an extent or a batch may be in one engine call: BLAS and cuBLAS take int. */
#define STRETCH ((int64_t)1 << 30)

bool cuarr_blas_matrix_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs, size_t itemsize,
                          cuarr_blas_matrix *out) {
  const int64_t item = (int64_t)itemsize;
  const int64_t lead_rows = rows > 1 ? rows : 1, lead_cols = cols > 1 ? cols : 1;
  /* An axis of extent 1 has no stride worth reading; one of extent 0 leaves nothing to read. */
  bool rows_unit = rows <= 1 || rs == item, cols_unit = cols <= 1 || cs == item;
  if (cols_unit &&
      (rows <= 1 || (rs % item == 0 && rs / item >= lead_cols && rs / item <= INT_MAX))) {
    *out = (cuarr_blas_matrix){false, (int)(rows <= 1 ? lead_cols : rs / item)};
    return true;
  }
  if (rows_unit &&
      (cols <= 1 || (cs % item == 0 && cs / item >= lead_rows && cs / item <= INT_MAX))) {
    *out = (cuarr_blas_matrix){true, (int)(cols <= 1 ? lead_rows : cs / item)};
    return true;
  }
  return false;
}

bool cuarr_blas_call_of(const cuarr_gemm *g, cuarr_blas_call *out) {
  const size_t item = cuarr_dtype_size(g->dtype);
  cuarr_blas_matrix a, b, c;
  if (!cuarr_blas_matrix_of(g->m, g->k, g->a_rs, g->a_cs, item, &a) ||
      !cuarr_blas_matrix_of(g->k, g->n, g->b_rs, g->b_cs, item, &b) ||
      !cuarr_blas_matrix_of(g->m, g->n, g->c_rs, g->c_cs, item, &c))
    return false;
  /* Column-major C = A B as it is; row-major C through C^T = B^T A^T, the operands trading
   * places.  An operand stored the other way round from C is read transposed. */
  const bool swap = !c.col_major;
  const cuarr_blas_matrix *first = swap ? &b : &a, *second = swap ? &a : &b;
  *out = (cuarr_blas_call){.swapped = swap,
                           .trans_a = first->col_major != c.col_major,
                           .trans_b = second->col_major != c.col_major,
                           .m = swap ? g->n : g->m,
                           .n = swap ? g->m : g->n,
                           .k = g->k,
                           .a = swap ? g->b : g->a,
                           .b = swap ? g->a : g->b,
                           .lda = first->ld,
                           .ldb = second->ld,
                           .c = g->c,
                           .ldc = c.ld};
  return true;
}

bool cuarr_matmul_needs_blas_layout(cuarr_dtype dtype) { return cuarr_dtype_is_float(dtype); }

static bool matrix_readable(const cuarr_array *x) {
  const int d = x->ndim;
  cuarr_blas_matrix unused;
  return cuarr_blas_matrix_of(x->shape[d - 2], x->shape[d - 1], x->strides[d - 2],
                              x->strides[d - 1], cuarr_dtype_size(x->dtype), &unused);
}

/* Whether an operand or the target goes to the engine as it lies; the batch strides must be
 * whole items too (a view of a reinterpreted buffer may have others). */
static bool engine_reads(cuarr_dtype compute, const cuarr_array *x) {
  if (x->dtype != compute)
    return false;
  for (int d = 0; d < x->ndim; d++)
    if (x->strides[d] % (int64_t)cuarr_dtype_size(compute) != 0)
      return false;
  return !cuarr_matmul_needs_blas_layout(compute) || matrix_readable(x);
}

/* x as a C-contiguous array of dtype `compute` in *copy (x itself when the engine reads it). */
static cuarr_status operand(cuarr_context *ctx, int device, CUstream stream, cuarr_dtype compute,
                            const cuarr_array *x, cuarr_array *view, cuarr_array *copy) {
  if (engine_reads(compute, x)) {
    *view = *x;
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_array_empty(device, compute, x->ndim, x->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), copy));
  cuarr_status s = cuarr_copy(ctx, copy, x);
  if (s != CUARR_OK) {
    cuarr_array_release(copy);
    return s;
  }
  *view = *copy;
  return CUARR_OK;
}

/* x's batch axes broadcast to `batch` (nb axes) with stride 0 where x has none or extent 1. */
static void broadcast_batch(const cuarr_array *x, int nb, const int64_t *batch, cuarr_array *out) {
  cuarr_array r = *x;
  const int xb = x->ndim - 2;
  r.ndim = nb + 2;
  for (int d = 0; d < nb; d++) {
    int from = d - (nb - xb);
    r.shape[d] = batch[d];
    r.strides[d] = from >= 0 && x->shape[from] == batch[d] ? x->strides[from] : 0;
  }
  for (int d = 0; d < 2; d++) {
    r.shape[nb + d] = x->shape[xb + d];
    r.strides[nb + d] = x->strides[xb + d];
  }
  *out = r;
}

/* The walk over the batch: merged axes, the last one the engine's strided batch. */
typedef struct batch_walk {
  int n;
  int64_t extent[CUARR_MAXDIM];
  int64_t stride[3][CUARR_MAXDIM]; /* of a, b, c */
} batch_walk;

static void merge_batch(const cuarr_array *const x[3], int nb, batch_walk *w) {
  w->n = 0;
  for (int d = 0; d < nb; d++) {
    if (x[2]->shape[d] == 1)
      continue;
    int last = w->n - 1;
    bool merges = last >= 0;
    for (int o = 0; o < 3 && merges; o++)
      merges = w->stride[o][last] == x[o]->strides[d] * x[2]->shape[d];
    if (merges) {
      w->extent[last] *= x[2]->shape[d];
      for (int o = 0; o < 3; o++)
        w->stride[o][last] = x[o]->strides[d];
      continue;
    }
    w->extent[w->n] = x[2]->shape[d];
    for (int o = 0; o < 3; o++)
      w->stride[o][w->n] = x[o]->strides[d];
    w->n++;
  }
  if (w->n == 0) { /* one product: a batch of one */
    w->extent[0] = 1;
    for (int o = 0; o < 3; o++)
      w->stride[o][0] = 0;
    w->n = 1;
  }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Hand the engine the products of one strided batch, in stretches that fit an int. */
static cuarr_status run_batch(int device, CUstream stream, cuarr_gemm g, const int64_t *ext,
                              char *a, char *b, char *c, int64_t count) {
  const int64_t m = ext[0], n = ext[1], k = ext[2];
  for (int64_t i0 = 0; i0 < count; i0 += STRETCH)
    for (int64_t r0 = 0; r0 < m; r0 += STRETCH)
      for (int64_t c0 = 0; c0 < n; c0 += STRETCH)
        for (int64_t k0 = 0; k0 < k; k0 += STRETCH) {
          cuarr_gemm s = g;
          s.batch = (int)min64(STRETCH, count - i0);
          s.m = (int)min64(STRETCH, m - r0);
          s.n = (int)min64(STRETCH, n - c0);
          s.k = (int)min64(STRETCH, k - k0);
          s.accumulate = k0 > 0;
          s.a = a + i0 * g.a_batch + r0 * g.a_rs + k0 * g.a_cs;
          s.b = b + i0 * g.b_batch + k0 * g.b_rs + c0 * g.b_cs;
          s.c = c + i0 * g.c_batch + r0 * g.c_rs + c0 * g.c_cs;
          cuarr_status st = device == CUARR_HOST ? cuarr_matmul_host(&s)
                                                 : cuarr_matmul_device(device, stream, &s);
          if (st != CUARR_OK)
            return st;
        }
  return CUARR_OK;
}

/* c = a @ b for (batch..., m, k) @ (batch..., k, n) -> (batch..., m, n), one dtype, k > 0. */
static cuarr_status run(int device, CUstream stream, cuarr_matmul_precision precision,
                        const cuarr_array *a, const cuarr_array *b, const cuarr_array *c) {
  const int nb = c->ndim - 2;
  const cuarr_array *const ops[3] = {a, b, c};
  batch_walk w;
  merge_batch(ops, nb, &w);
  cuarr_gemm g = {.dtype = c->dtype,
                  .precision = precision,
                  .a_batch = w.stride[0][w.n - 1],
                  .b_batch = w.stride[1][w.n - 1],
                  .c_batch = w.stride[2][w.n - 1],
                  .a_rs = a->strides[nb],
                  .a_cs = a->strides[nb + 1],
                  .b_rs = b->strides[nb],
                  .b_cs = b->strides[nb + 1],
                  .c_rs = c->strides[nb],
                  .c_cs = c->strides[nb + 1]};
  const int64_t ext[3] = {c->shape[nb], c->shape[nb + 1], a->shape[nb + 1]};
  int64_t outer = 1;
  for (int d = 0; d < w.n - 1; d++)
    outer *= w.extent[d];
  for (int64_t i = 0; i < outer; i++) {
    char *p[3];
    for (int o = 0; o < 3; o++)
      p[o] = (char *)cuarr_array_data(ops[o]);
    for (int64_t rest = i, d = w.n - 2; d >= 0; d--) {
      int64_t idx = rest % w.extent[d];
      rest /= w.extent[d];
      for (int o = 0; o < 3; o++)
        p[o] += idx * w.stride[o][d];
    }
    CUARR_TRY(run_batch(device, stream, g, ext, p[0], p[1], p[2], w.extent[w.n - 1]));
  }
  return CUARR_OK;
}

/* The operands as (batch..., rows, cols) views, the result's shape and the broadcast batch. */
typedef struct matmul_shapes {
  cuarr_array a, b; /* 1-D operands seen as (1, k) and (k, 1) */
  int nb;           /* batch axes */
  int64_t batch[CUARR_MAXDIM];
  int ndim; /* the result's */
  int64_t shape[CUARR_MAXDIM];
  int64_t m, n, k;
} matmul_shapes;

static cuarr_status shapes_of(const cuarr_array *a, const cuarr_array *b, matmul_shapes *s) {
  char sa[CUARR_SHAPE_STR_SIZE], sb[CUARR_SHAPE_STR_SIZE];
  if (a->ndim == 0 || b->ndim == 0)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "matmul: operand %d is 0-d: matmul needs at least one axis "
                      "(multiply scalars)",
                      a->ndim == 0 ? 1 : 2);
  s->a = *a;
  s->b = *b;
  if (a->ndim == 1) { /* (k,) -> (1, k) */
    s->a.ndim = 2;
    s->a.shape[1] = a->shape[0], s->a.strides[1] = a->strides[0];
    s->a.shape[0] = 1, s->a.strides[0] = 0;
  }
  if (b->ndim == 1) { /* (k,) -> (k, 1) */
    s->b.ndim = 2;
    s->b.shape[1] = 1, s->b.strides[1] = 0;
  }
  s->m = s->a.shape[s->a.ndim - 2];
  s->k = s->a.shape[s->a.ndim - 1];
  s->n = s->b.shape[s->b.ndim - 1];
  if (s->b.shape[s->b.ndim - 2] != s->k)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "matmul: shapes %s and %s do not match: the last axis of the first "
                      "(%" PRId64 ") must equal the %s axis of the second (%" PRId64 ")",
                      cuarr_shape_format(sa, a->ndim, a->shape),
                      cuarr_shape_format(sb, b->ndim, b->shape), s->k,
                      b->ndim == 1 ? "only" : "second-to-last", s->b.shape[s->b.ndim - 2]);
  const int na = s->a.ndim - 2, nbb = s->b.ndim - 2;
  s->nb = na > nbb ? na : nbb;
  for (int d = 0; d < s->nb; d++) {
    int da = d - (s->nb - na), db = d - (s->nb - nbb);
    int64_t ea = da >= 0 ? s->a.shape[da] : 1, eb = db >= 0 ? s->b.shape[db] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "matmul: the batch axes of %s and %s do not broadcast (%" PRId64
                        " against %" PRId64 ")",
                        cuarr_shape_format(sa, a->ndim, a->shape),
                        cuarr_shape_format(sb, b->ndim, b->shape), ea, eb);
    s->batch[d] = ea == 1 ? eb : ea;
  }
  s->ndim = 0;
  for (int d = 0; d < s->nb; d++)
    s->shape[s->ndim++] = s->batch[d];
  if (a->ndim > 1)
    s->shape[s->ndim++] = s->m;
  if (b->ndim > 1)
    s->shape[s->ndim++] = s->n;
  return cuarr_shape_check(s->ndim, s->shape, CUARR_BOOL, NULL);
}

static cuarr_status check_out(const cuarr_array *out, int device, cuarr_dtype result,
                              const matmul_shapes *s) {
  CUARR_TRY(cuarr_array_check_live(out));
  if (cuarr_array_device(out) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "matmul: out is not where the operands are");
  if (out->ndim != s->ndim || memcmp(out->shape, s->shape, (size_t)s->ndim * 8) != 0) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_VALUE_ERROR, "matmul: out has shape %s but the result has shape %s",
                      cuarr_shape_format(got, out->ndim, out->shape),
                      cuarr_shape_format(want, s->ndim, s->shape));
  }
  if (!cuarr_can_cast_same_kind(result, out->dtype))
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "matmul: cannot cast the result from %s to out's %s with casting rule "
                      "'same_kind'",
                      cuarr_dtype_name(result), cuarr_dtype_name(out->dtype));
  for (int d = 0; d < s->ndim; d++)
    if (s->shape[d] > 1 && out->strides[d] == 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "matmul: out has overlapping elements");
  return CUARR_OK;
}

/* The target t as (batch..., m, n): an axis the 1-D operands removed comes back with extent 1
 * (and stride 0: it is never stepped over). */
static void target_matrix(const cuarr_array *t, const matmul_shapes *s, bool a_1d, bool b_1d,
                          cuarr_array *c) {
  *c = *t;
  c->ndim = s->nb + 2;
  int next = s->nb;
  c->shape[s->nb] = s->m;
  c->strides[s->nb] = a_1d ? 0 : t->strides[next++];
  c->shape[s->nb + 1] = s->n;
  c->strides[s->nb + 1] = b_1d ? 0 : t->strides[next];
}

static cuarr_status compute(cuarr_context *ctx, int device, CUstream stream,
                            cuarr_matmul_precision precision, cuarr_dtype compute_dtype,
                            const matmul_shapes *s, bool a_1d, bool b_1d, const cuarr_array *into) {
  cuarr_array c;
  target_matrix(into, s, a_1d, b_1d, &c);
  if (s->k == 0) /* a sum of nothing */
    return cuarr_fill(ctx, into, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0});

  cuarr_array av, bv, acopy = {0}, bcopy = {0};
  cuarr_status st = operand(ctx, device, stream, compute_dtype, &s->a, &av, &acopy);
  if (st == CUARR_OK)
    st = operand(ctx, device, stream, compute_dtype, &s->b, &bv, &bcopy);
  if (st == CUARR_OK) {
    cuarr_array ab, bb;
    broadcast_batch(&av, s->nb, s->batch, &ab);
    broadcast_batch(&bv, s->nb, s->batch, &bb);
    st = run(device, stream, precision, &ab, &bb, &c);
  }
  /* Device copies are stream-ordered: released once the products are queued. */
  if (acopy.buf)
    cuarr_array_release(&acopy);
  if (bcopy.buf)
    cuarr_array_release(&bcopy);
  return st;
}

cuarr_status cuarr_matmul(cuarr_context *ctx, const cuarr_array *a, const cuarr_array *b,
                          cuarr_matmul_precision precision, cuarr_array *out) {
  if (!a || !b || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_matmul: no operand or output");
  CUARR_TRY(cuarr_array_check_writeable(out));
  if ((unsigned)precision > CUARR_MATMUL_TF32)
    return cuarr_fail(CUARR_VALUE_ERROR, "matmul: unknown precision %d", (int)precision);
  CUARR_TRY(cuarr_array_check_live(a));
  CUARR_TRY(cuarr_array_check_live(b));
  int device = cuarr_array_device(a);
  if (cuarr_array_device(b) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "matmul: the operands are on %s and %s",
                      device == CUARR_HOST ? "the host" : "a device",
                      cuarr_array_device(b) == CUARR_HOST ? "the host" : "another device");
  matmul_shapes s;
  CUARR_TRY(shapes_of(a, b, &s));
  cuarr_dtype result;
  CUARR_TRY(cuarr_promote(a->dtype, false, b->dtype, false, CUARR_FLOAT64, &result));
  /* The host's BLAS has no float16: those products run in float32, as NumPy's float16 sums do
   * in its loops; cuBLAS takes float16 in and out, summing in float32. */
  cuarr_dtype compute_dtype =
      device == CUARR_HOST && result == CUARR_FLOAT16 ? CUARR_FLOAT32 : result;
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  const bool given = out->buf != NULL;
  if (given)
    CUARR_TRY(check_out(out, device, result, &s));

  cuarr_result r;
  CUARR_TRY(cuarr_result_begin(&r, ctx, device, stream, result, s.ndim, s.shape, out));
  cuarr_status st = CUARR_OK;
  int64_t size = 1;
  for (int d = 0; d < s.ndim; d++)
    size *= s.shape[d];
  if (size > 0) {
    bool through =
        given && (cuarr_array_may_overlap(&r.res, a) || cuarr_array_may_overlap(&r.res, b));
    if (!through) { /* can the engine write res as it lies? */
      cuarr_array c;
      target_matrix(&r.res, &s, a->ndim == 1, b->ndim == 1, &c);
      through = !engine_reads(compute_dtype, &c);
    }
    cuarr_array *into;
    st = cuarr_result_target(&r, ctx, device, stream, through, compute_dtype, &into);
    if (st == CUARR_OK)
      st = compute(ctx, device, stream, precision, compute_dtype, &s, a->ndim == 1, b->ndim == 1,
                   into);
  }
  return cuarr_result_end(&r, ctx, st);
}
