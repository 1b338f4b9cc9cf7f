/*
 * linalg.c -- cuarr_linalg_det, slogdet, inv, solve and cholesky: NumPy's rules for stacks of
 * matrices, on the factorizations of factor.h.
 *
 * Each call copies the user's stack into an array of the compute dtype (float64 for bool and
 * integers, as NumPy's linalg; float16 is refused, as there) whose matrices are column-major,
 * so that the LU factors are those of A itself, as NumPy's (LAPACK's pivoting finds a zero pivot
 * in a matrix with two equal rows far more often than in its transpose).  Then:
 *  - det: read off the factors;
 *  - inv: solve A^T X = I (the transposed solve with A's factors) into a C-contiguous array:
 *    X = inv(A)^T column-major, which read row-major is inv(A);
 *  - solve: A x = b, with b and x column-major;
 *  - cholesky: the copy keeps A's layout, so the column-major routines see A^T, whose upper
 *    triangle is A's lower one: the factor they leave there reads row-major as L.
 * Results are new C-contiguous arrays.  inv, solve and cholesky read the statuses back (a
 * synchronisation) to raise LinAlgError as NumPy does; det and slogdet do not: a singular
 * matrix's determinant is 0.
 */
#include <inttypes.h>
#include <string.h>

#include "linalg/factor.h"
#include "linalg/stack.h"

typedef cuarr_linalg_stack stack;

/* The factorization's working set: the copy of the matrices, the pivots, the statuses. */
typedef struct work {
  cuarr_array a, ipiv, info;
  cuarr_factor_batch b;
} work;

static void work_release(work *w) {
  cuarr_array *all[] = {&w->a, &w->ipiv, &w->info};
  for (int i = 0; i < 3; i++)
    if (all[i]->buf)
      cuarr_array_release(all[i]);
}

/* The working copy of a: its matrices column-major when `columns` (the LU functions), else as
 * a lies (cholesky). */
static cuarr_status work_begin(cuarr_context *ctx, const stack *s, const cuarr_array *a,
                               bool columns, work *w) {
  memset(w, 0, sizeof *w);
  const int64_t nn[2] = {s->n, s->n}, n1 = s->n, one = 1;
  cuarr_status st = cuarr_linalg_new_array(s, s->dtype, 2, nn, &w->a);
  if (st == CUARR_OK)
    st = cuarr_linalg_new_array(s, CUARR_INT32, 1, &n1, &w->ipiv);
  if (st == CUARR_OK)
    st = cuarr_linalg_new_array(s, CUARR_INT32, 1, &one, &w->info);
  if (st == CUARR_OK)
    st = cuarr_still_live(a);
  if (st == CUARR_OK && columns) {
    cuarr_array t; /* w->a holding A^T row-major holds A column-major */
    st = cuarr_view_swapaxes(&w->a, s->nb, s->nb + 1, &t);
    if (st == CUARR_OK) {
      st = cuarr_copy(ctx, &t, a);
      cuarr_array_release(&t);
    }
  } else if (st == CUARR_OK) {
    st = cuarr_copy(ctx, &w->a, a);
  }
  if (st != CUARR_OK) {
    work_release(w);
    return st;
  }
  w->b = (cuarr_factor_batch){ctx,
                              s->device,
                              s->stream,
                              s->dtype,
                              s->n,
                              s->count,
                              cuarr_array_data(&w->a),
                              cuarr_array_data(&w->ipiv),
                              cuarr_array_data(&w->info)};
  return CUARR_OK;
}

/* LU-factor a's copy, and raise LinAlgError for a singular matrix when `check`. */
static cuarr_status factor_lu(const char *fn, work *w, bool check) {
  if (w->b.count == 0 || w->b.n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_factor_lu(&w->b));
  if (!check)
    return CUARR_OK;
  bool failed;
  CUARR_TRY(cuarr_linalg_any_failed(w->b.ctx, &w->info, &failed));
  return failed ? cuarr_fail(CUARR_LINALG_ERROR, "%s: singular matrix", fn) : CUARR_OK;
}

static cuarr_status determinant(cuarr_context *ctx, const char *fn, const cuarr_array *a,
                                cuarr_array *sign, cuarr_array *logabs) {
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, fn, a, true, &s));
  cuarr_array r_sign = {0}, r_log = {0};
  CUARR_TRY(cuarr_linalg_new_array(&s, s.dtype, 0, NULL, &r_sign));
  cuarr_status st = logabs ? cuarr_linalg_new_array(&s, s.dtype, 0, NULL, &r_log) : CUARR_OK;
  if (st == CUARR_OK && s.n == 0) { /* the empty product: det 1, log 0 */
    st = cuarr_fill(ctx, &r_sign, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 1});
    if (st == CUARR_OK && logabs)
      st = cuarr_fill(ctx, &r_log, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0});
  } else if (st == CUARR_OK && s.count > 0) {
    work w;
    st = work_begin(ctx, &s, a, true, &w);
    if (st == CUARR_OK) {
      st = factor_lu(fn, &w, false);
      if (st == CUARR_OK)
        st = cuarr_factor_lu_det(&w.b, &r_sign, logabs ? &r_log : NULL);
      work_release(&w);
    }
  }
  if (st != CUARR_OK) {
    cuarr_array_release(&r_sign);
    if (r_log.buf)
      cuarr_array_release(&r_log);
    return st;
  }
  *sign = r_sign;
  if (logabs)
    *logabs = r_log;
  return CUARR_OK;
}

cuarr_status cuarr_linalg_det(cuarr_context *ctx, const cuarr_array *a, cuarr_array *out) {
  return determinant(ctx, "det", a, out, NULL);
}

cuarr_status cuarr_linalg_slogdet(cuarr_context *ctx, const cuarr_array *a, cuarr_array *sign,
                                  cuarr_array *logabsdet) {
  return determinant(ctx, "slogdet", a, sign, logabsdet);
}

cuarr_status cuarr_linalg_inv(cuarr_context *ctx, const cuarr_array *a, cuarr_array *out) {
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, "inv", a, true, &s));
  const int64_t nn[2] = {s.n, s.n};
  cuarr_array x = {0};
  CUARR_TRY(cuarr_linalg_new_array(&s, s.dtype, 2, nn, &x));
  cuarr_status st = CUARR_OK;
  if (s.count > 0 && s.n > 0) {
    work w;
    st = work_begin(ctx, &s, a, true, &w);
    if (st == CUARR_OK) {
      st = factor_lu("inv", &w, true);
      /* The right-hand sides: identities, solved in place into the inverses. */
      cuarr_array diag;
      if (st == CUARR_OK)
        st = cuarr_fill(ctx, &x, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0});
      if (st == CUARR_OK)
        st = cuarr_view_diagonal(&x, 0, s.nb, s.nb + 1, &diag);
      if (st == CUARR_OK) {
        st = cuarr_fill(ctx, &diag, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 1});
        cuarr_array_release(&diag);
      }
      if (st == CUARR_OK)
        st = cuarr_factor_lu_solve(&w.b, true, s.n, cuarr_array_data(&x));
      work_release(&w);
    }
  }
  if (st != CUARR_OK) {
    cuarr_array_release(&x);
    return st;
  }
  *out = x;
  return CUARR_OK;
}

cuarr_status cuarr_linalg_solve(cuarr_context *ctx, const cuarr_array *a, const cuarr_array *b,
                                cuarr_array *out) {
  CUARR_TRY(cuarr_array_check_live(a));
  CUARR_TRY(cuarr_array_check_live(b));
  if (cuarr_array_device(a) != cuarr_array_device(b))
    return cuarr_fail(CUARR_VALUE_ERROR, "solve: the operands are on different devices");
  if (b->dtype == CUARR_FLOAT16)
    return cuarr_fail(CUARR_TYPE_ERROR, "solve: float16 is unsupported in linalg");
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, "solve", a, true, &s));
  if (b->dtype != CUARR_FLOAT32) /* float32 only when both are, as NumPy's common type */
    s.dtype = CUARR_FLOAT64;
  /* NumPy 2's rule: b is a stack of (n, k) matrices, or one vector when it is 1-D. */
  const bool vector = b->ndim == 1;
  if (!vector && b->ndim < 2)
    return cuarr_fail(CUARR_VALUE_ERROR, "solve: b must have at least one axis");
  cuarr_array bm = *b;
  if (vector) { /* (n,) as (n, 1) */
    bm.ndim = 2;
    bm.shape[1] = 1, bm.strides[1] = 0;
  }
  const int64_t rows = bm.shape[bm.ndim - 2], k = bm.shape[bm.ndim - 1];
  if (rows != s.n)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "solve: b has %" PRId64 " rows but a's matrices are %d x %d", rows, s.n, s.n);
  if (k > 0x7fffffff)
    return cuarr_fail(CUARR_VALUE_ERROR, "solve: more than 2^31-1 right-hand sides");
  /* The batch axes of a and b broadcast together. */
  const int bb = bm.ndim - 2, nb = s.nb > bb ? s.nb : bb;
  int64_t batch[CUARR_MAXDIM];
  for (int d = 0; d < nb; d++) {
    int da = d - (nb - s.nb), db = d - (nb - bb);
    int64_t ea = da >= 0 ? s.batch[da] : 1, eb = db >= 0 ? bm.shape[db] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      return cuarr_fail(CUARR_VALUE_ERROR, "solve: the batch axes of a and b do not broadcast");
    batch[d] = ea == 1 ? eb : ea;
  }
  stack full = s;
  full.nb = nb;
  full.count = 1;
  for (int d = 0; d < nb; d++)
    full.count *= (full.batch[d] = batch[d]);
  int64_t a_shape[CUARR_MAXDIM], b_shape[CUARR_MAXDIM];
  memcpy(a_shape, batch, (size_t)nb * 8), memcpy(b_shape, batch, (size_t)nb * 8);
  a_shape[nb] = a_shape[nb + 1] = s.n;
  b_shape[nb] = s.n, b_shape[nb + 1] = k;
  cuarr_array a_b, b_b;
  CUARR_TRY(cuarr_view_broadcast(a, nb + 2, a_shape, &a_b));
  cuarr_status st = cuarr_view_broadcast(&bm, nb + 2, b_shape, &b_b);
  if (st != CUARR_OK) {
    cuarr_array_release(&a_b);
    return st;
  }
  /* x as column-major n x k matrices: a C-contiguous (batch, k, n) array, seen swapped. */
  const int64_t kn[2] = {k, s.n};
  cuarr_array x = {0}, xt = {0}, result = {0};
  st = cuarr_linalg_new_array(&full, s.dtype, 2, kn, &x);
  if (st == CUARR_OK)
    st = cuarr_view_swapaxes(&x, nb, nb + 1, &xt);
  if (st == CUARR_OK && full.count > 0 && s.n > 0 && k > 0) {
    work w;
    st = cuarr_copy(ctx, &xt, &b_b);
    if (st == CUARR_OK)
      st = work_begin(ctx, &full, &a_b, true, &w);
    if (st == CUARR_OK) {
      st = factor_lu("solve", &w, true);
      if (st == CUARR_OK)
        st = cuarr_factor_lu_solve(&w.b, false, (int)k, cuarr_array_data(&x));
      work_release(&w);
    }
  }
  /* The result C-contiguous, without the vector's extra axis. */
  if (st == CUARR_OK) {
    int64_t r_shape[CUARR_MAXDIM];
    memcpy(r_shape, batch, (size_t)nb * 8);
    r_shape[nb] = s.n, r_shape[nb + 1] = k;
    st = cuarr_array_empty(s.device, s.dtype, nb + (vector ? 1 : 2), r_shape, false, s.stream,
                           cuarr_ctx_reclaim(ctx), &result);
    if (st == CUARR_OK && cuarr_array_size(&result) > 0) {
      cuarr_array src = xt;
      if (vector)
        src.ndim = nb + 1; /* drop the extent-1 column axis */
      st = cuarr_copy(ctx, &result, &src);
    }
  }
  cuarr_array_release(&a_b);
  cuarr_array_release(&b_b);
  if (xt.buf)
    cuarr_array_release(&xt);
  if (x.buf)
    cuarr_array_release(&x);
  if (st != CUARR_OK) {
    if (result.buf)
      cuarr_array_release(&result);
    return st;
  }
  *out = result;
  return CUARR_OK;
}

cuarr_status cuarr_linalg_cholesky(cuarr_context *ctx, const cuarr_array *a, bool upper,
                                   cuarr_array *out) {
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, "cholesky", a, true, &s));
  work w;
  CUARR_TRY(work_begin(ctx, &s, a, false, &w));
  cuarr_status st = CUARR_OK;
  if (s.count > 0 && s.n > 0) {
    /* The copy is a itself (symmetric); the column-major triangle read row-major is the other. */
    st = cuarr_factor_cholesky(&w.b, !upper);
    bool failed = false;
    if (st == CUARR_OK)
      st = cuarr_linalg_any_failed(ctx, &w.info, &failed);
    if (st == CUARR_OK && failed)
      st = cuarr_fail(CUARR_LINALG_ERROR, "cholesky: the matrix is not positive definite");
  }
  cuarr_array_release(&w.ipiv);
  cuarr_array_release(&w.info);
  if (st != CUARR_OK) {
    cuarr_array_release(&w.a);
    return st;
  }
  *out = w.a;
  return CUARR_OK;
}
