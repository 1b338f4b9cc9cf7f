/*
 * decompose.c -- cuarr_linalg_qr, eigh and svd: NumPy's rules for stacks of matrices, on the
 * column-major engines of decompose.h.
 *
 * As in linalg.c, each call copies the user's stack into arrays of the compute dtype (float64
 * for bool and integers, float16 refused), laid out so that the column-major routines see the
 * matrices they need:
 *  - qr: a transposing copy, so that geqrf sees A itself; Q is formed in place behind R, and
 *    both are read back through swapped views;
 *  - eigh: the plain copy is A^T, whose lower triangle is A's upper one (so UPLO flips), and
 *    whose eigenvectors, in the columns of a column-major matrix, read row-major as V^T;
 *  - svd: cuSOLVER's gesvd takes only matrices with at least as many rows as columns.  When A
 *    is wide (n >= m) the plain copy is the tall A^T = U' S V'^T, and A = V' S U'^T: U' written
 *    column-major is V^T row-major and V'^T column-major is U row-major, so the engine writes
 *    straight into the results.  When A is tall, a transposing copy gives A itself, and U and
 *    V^T come back through swapped views.
 * Results are new C-contiguous arrays.  eigh and svd read the statuses back (a synchronisation)
 * to raise LinAlgError where NumPy does (no convergence); qr does not wait.
 */
#include <string.h>

#include "linalg/decompose.h"
#include "linalg/stack.h"

typedef cuarr_linalg_stack stack;

static cuarr_status new_matrices(const stack *s, int64_t rows, int64_t cols, cuarr_array *out) {
  const int64_t tail[2] = {rows, cols};
  return cuarr_linalg_new_array(s, s->dtype, 2, tail, out);
}

static void release_all(cuarr_array *const *all, int n) {
  for (int i = 0; i < n; i++)
    if (all[i]->buf)
      cuarr_array_release(all[i]);
}

/* a[..., r0:r0+nr, c0:c0+nc] as a view, its last two axes swapped when `swap`. */
static cuarr_status block(const stack *s, const cuarr_array *a, int64_t r0, int64_t nr, int64_t c0,
                          int64_t nc, bool swap, cuarr_array *out) {
  cuarr_array rows, both;
  CUARR_TRY(cuarr_view_slice(a, s->nb, r0, nr, 1, &rows));
  cuarr_status st = cuarr_view_slice(&rows, s->nb + 1, c0, nc, 1, &both);
  cuarr_array_release(&rows);
  if (st != CUARR_OK || !swap) {
    if (st == CUARR_OK)
      *out = both;
    return st;
  }
  st = cuarr_view_swapaxes(&both, s->nb, s->nb + 1, out);
  cuarr_array_release(&both);
  return st;
}

/* dst = src, either a whole array (NULL box) or the block {r0, nr, c0, nc} of it, swapped when
 * the flag says so.  Nothing is copied for an empty block. */
typedef struct box {
  int64_t r0, nr, c0, nc;
  bool swap;
} box;
static cuarr_status copy_boxed(const stack *s, const cuarr_array *dst, const box *db,
                               const cuarr_array *src, const box *sb) {
  if ((db && (db->nr == 0 || db->nc == 0)) || (sb && (sb->nr == 0 || sb->nc == 0)))
    return CUARR_OK;
  cuarr_array dv = {0}, sv = {0};
  cuarr_status st = db ? block(s, dst, db->r0, db->nr, db->c0, db->nc, db->swap, &dv) : CUARR_OK;
  if (st == CUARR_OK && sb)
    st = block(s, src, sb->r0, sb->nr, sb->c0, sb->nc, sb->swap, &sv);
  if (st == CUARR_OK)
    st = cuarr_copy(s->ctx, db ? &dv : dst, sb ? &sv : src);
  cuarr_array *views[] = {&dv, &sv};
  release_all(views, 2);
  return st;
}

/* Identity matrices in every matrix of x (square). */
static cuarr_status fill_identity(const stack *s, const cuarr_array *x) {
  if (cuarr_array_size(x) == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_fill(s->ctx, x, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0}));
  cuarr_array diag;
  CUARR_TRY(cuarr_view_diagonal(x, 0, s->nb, s->nb + 1, &diag));
  cuarr_status st = cuarr_fill(s->ctx, &diag, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 1});
  cuarr_array_release(&diag);
  return st;
}

static cuarr_decompose_batch batch_of(const stack *s, int m, int n, const cuarr_array *a,
                                      int64_t stride, const cuarr_array *info) {
  return (cuarr_decompose_batch){
      s->ctx, s->device, s->stream,           s->dtype, m,
      n,      s->count,  cuarr_array_data(a), stride,   cuarr_array_data(info)};
}

/* LinAlgError when a status in info says the routine did not converge. */
static cuarr_status check_converged(const stack *s, const cuarr_array *info, const char *what) {
  bool failed;
  CUARR_TRY(cuarr_linalg_any_failed(s->ctx, info, &failed));
  return failed ? cuarr_fail(CUARR_LINALG_ERROR, "%s did not converge", what) : CUARR_OK;
}

#define DISPATCH(b, call, ...)                                                                     \
  ((b)->device == CUARR_HOST ? cuarr_decompose_host_##call(__VA_ARGS__)                            \
                             : cuarr_decompose_device_##call(__VA_ARGS__))

cuarr_status cuarr_decompose_geqrf(const cuarr_decompose_batch *b, char *tau) {
  return DISPATCH(b, geqrf, b, tau);
}
cuarr_status cuarr_decompose_orgqr(const cuarr_decompose_batch *b, int cols, const char *tau) {
  return DISPATCH(b, orgqr, b, cols, tau);
}
cuarr_status cuarr_decompose_zero_lower(const cuarr_decompose_batch *b, char *a, int n) {
  return DISPATCH(b, zero_lower, b, a, n);
}
cuarr_status cuarr_decompose_syevd(const cuarr_decompose_batch *b, bool vectors, bool upper,
                                   char *w) {
  return DISPATCH(b, syevd, b, vectors, upper, w);
}
cuarr_status cuarr_decompose_gesvd(const cuarr_decompose_batch *b, char job, char *s, char *u,
                                   char *vt) {
  return DISPATCH(b, gesvd, b, job, s, u, vt);
}

/* ---------------------------------------------------------------- qr */

cuarr_status cuarr_linalg_qr(cuarr_context *ctx, const cuarr_array *a, const char *mode,
                             cuarr_array *q, cuarr_array *r) {
  const bool complete = mode && strcmp(mode, "complete") == 0, only_r = mode && !strcmp(mode, "r");
  if (mode && !complete && !only_r && strcmp(mode, "reduced") != 0)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "qr: unrecognized mode '%s' (reduced, complete or r; raw is not supported)",
                      mode);
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, "qr", a, false, &s));
  const int m = s.m, n = s.n, k = m < n ? m : n;
  const int q_cols = complete ? m : k, r_rows = complete ? m : k;
  /* w: the column-major m x wc matrices geqrf factors (its first n columns) and orgqr turns
   * into Q (its first q_cols); sq: the square upper-left block of R, column-major, where the
   * reflectors under the diagonal are zeroed. */
  const int wc = only_r || n >= q_cols ? n : q_cols;
  const int64_t kk = k, one = 1;
  cuarr_array w = {0}, tau = {0}, info = {0}, sq = {0}, rr = {0}, qq = {0};
  cuarr_array *all[] = {&w, &tau, &info, &sq, &rr, &qq};
  cuarr_status st = new_matrices(&s, r_rows, n, &rr);
  if (st == CUARR_OK && !only_r)
    st = new_matrices(&s, m, q_cols, &qq);
  const bool work = s.count > 0 && k > 0;
  if (st == CUARR_OK && work)
    st = new_matrices(&s, wc, m, &w);
  if (st == CUARR_OK && work)
    st = cuarr_linalg_new_array(&s, s.dtype, 1, &kk, &tau);
  if (st == CUARR_OK && work)
    st = cuarr_linalg_new_array(&s, CUARR_INT32, 1, &one, &info);
  if (st == CUARR_OK && work)
    st = new_matrices(&s, k, k, &sq);
  if (st == CUARR_OK)
    st = cuarr_still_live(a);
  if (st == CUARR_OK && !work) {
    if (complete && cuarr_array_size(&qq) > 0) /* m x m with nothing to reflect: I */
      st = fill_identity(&s, &qq);
  } else if (st == CUARR_OK) {
    const box a_in_w = {0, n, 0, m, true};
    st = copy_boxed(&s, &w, &a_in_w, a, NULL);
    const cuarr_decompose_batch b = batch_of(&s, m, n, &w, (int64_t)m * wc, &info);
    if (st == CUARR_OK)
      st = cuarr_decompose_geqrf(&b, cuarr_array_data(&tau));
    /* R: rows under the k-th zero, the square block upper triangular, the rest as it is. */
    const box sq_in_w = {0, k, 0, k, false}, sq_in_r = {0, k, 0, k, false};
    const box rest_in_w = {k, n - k, 0, k, true}, rest_in_r = {0, k, k, n - k, false};
    if (st == CUARR_OK)
      st = copy_boxed(&s, &sq, NULL, &w, &sq_in_w);
    if (st == CUARR_OK)
      st = cuarr_decompose_zero_lower(&b, cuarr_array_data(&sq), k);
    if (st == CUARR_OK && r_rows > k)
      st = cuarr_fill(ctx, &rr, (cuarr_scalar){.dtype = CUARR_INT64, .v.i = 0});
    cuarr_array sq_t = {0};
    if (st == CUARR_OK)
      st = cuarr_view_swapaxes(&sq, s.nb, s.nb + 1, &sq_t);
    if (st == CUARR_OK)
      st = copy_boxed(&s, &rr, &sq_in_r, &sq_t, NULL);
    if (sq_t.buf)
      cuarr_array_release(&sq_t);
    if (st == CUARR_OK)
      st = copy_boxed(&s, &rr, &rest_in_r, &w, &rest_in_w);
    if (st == CUARR_OK && !only_r)
      st = cuarr_decompose_orgqr(&b, q_cols, cuarr_array_data(&tau));
    const box q_in_w = {0, q_cols, 0, m, true};
    if (st == CUARR_OK && !only_r)
      st = copy_boxed(&s, &qq, NULL, &w, &q_in_w);
  }
  if (st != CUARR_OK) {
    release_all(all, 6);
    return st;
  }
  release_all(all, 4);
  *r = rr;
  if (q)
    *q = qq;
  else if (qq.buf)
    cuarr_array_release(&qq);
  return CUARR_OK;
}

/* ---------------------------------------------------------------- eigh */

cuarr_status cuarr_linalg_eigh(cuarr_context *ctx, const cuarr_array *a, bool upper,
                               bool want_vectors, cuarr_array *w, cuarr_array *v) {
  const char *fn = want_vectors ? "eigh" : "eigvalsh";
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, fn, a, true, &s));
  const int n = s.n;
  const int64_t n1 = n, one = 1;
  cuarr_array work = {0}, info = {0}, ww = {0}, vv = {0};
  cuarr_array *all[] = {&work, &info, &ww, &vv};
  cuarr_status st = cuarr_linalg_new_array(&s, s.dtype, 1, &n1, &ww);
  if (st == CUARR_OK && want_vectors)
    st = new_matrices(&s, n, n, &vv);
  const bool busy = s.count > 0 && n > 0;
  if (st == CUARR_OK && busy)
    st = new_matrices(&s, n, n, &work);
  if (st == CUARR_OK && busy)
    st = cuarr_linalg_new_array(&s, CUARR_INT32, 1, &one, &info);
  if (st == CUARR_OK)
    st = cuarr_still_live(a);
  if (st == CUARR_OK && busy) {
    st = cuarr_copy(ctx, &work, a);
    const cuarr_decompose_batch b = batch_of(&s, n, n, &work, (int64_t)n * n, &info);
    /* The copy is A^T: its upper triangle is A's lower one. */
    if (st == CUARR_OK)
      st = cuarr_decompose_syevd(&b, want_vectors, !upper, cuarr_array_data(&ww));
    if (st == CUARR_OK)
      st = check_converged(&s, &info, "eigh: the eigenvalue iteration");
    const box v_in_work = {0, n, 0, n, true};
    if (st == CUARR_OK && want_vectors)
      st = copy_boxed(&s, &vv, NULL, &work, &v_in_work);
  }
  if (st != CUARR_OK) {
    release_all(all, 4);
    return st;
  }
  release_all(all, 2);
  *w = ww;
  if (want_vectors)
    *v = vv;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- svd */

cuarr_status cuarr_linalg_svd(cuarr_context *ctx, const cuarr_array *a, bool full_matrices,
                              bool compute_uv, cuarr_array *u, cuarr_array *s_out,
                              cuarr_array *vh) {
  stack s;
  CUARR_TRY(cuarr_linalg_stack_of(ctx, "svd", a, false, &s));
  const int m = s.m, n = s.n, k = m < n ? m : n;
  const int u_cols = full_matrices ? m : k, vh_rows = full_matrices ? n : k;
  const bool wide = n >= m, busy = s.count > 0 && k > 0;
  /* The engine's tall matrix: rows x cols, cols = k. */
  const int rows = wide ? n : m;
  const char job = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  const int64_t kk = k, one = 1;
  cuarr_array work = {0}, info = {0}, ss = {0}, uu = {0}, vv = {0}, ub = {0}, vb = {0};
  cuarr_array *all[] = {&work, &info, &ub, &vb, &ss, &uu, &vv};
  cuarr_status st = cuarr_linalg_new_array(&s, s.dtype, 1, &kk, &ss);
  if (st == CUARR_OK && compute_uv)
    st = new_matrices(&s, m, u_cols, &uu);
  if (st == CUARR_OK && compute_uv)
    st = new_matrices(&s, vh_rows, n, &vv);
  if (st == CUARR_OK && busy)
    st = wide ? new_matrices(&s, m, n, &work) : new_matrices(&s, n, m, &work);
  if (st == CUARR_OK && busy)
    st = cuarr_linalg_new_array(&s, CUARR_INT32, 1, &one, &info);
  /* A tall A's U and V^T land column-major in buffers of their own, read back swapped. */
  if (st == CUARR_OK && busy && compute_uv && !wide)
    st = new_matrices(&s, u_cols, m, &ub);
  if (st == CUARR_OK && busy && compute_uv && !wide)
    st = new_matrices(&s, n, n, &vb);
  if (st == CUARR_OK)
    st = cuarr_still_live(a);
  if (st == CUARR_OK && !busy && compute_uv && full_matrices) {
    /* Nothing to decompose: LAPACK leaves U and V^T unset, NumPy makes them identities. */
    st = fill_identity(&s, &uu);
    if (st == CUARR_OK)
      st = fill_identity(&s, &vv);
  } else if (st == CUARR_OK && busy) {
    const box a_in_work = {0, n, 0, m, true};
    st = copy_boxed(&s, &work, wide ? NULL : &a_in_work, a, NULL);
    const cuarr_decompose_batch b = batch_of(&s, rows, k, &work, (int64_t)m * n, &info);
    char *eng_u = !compute_uv ? NULL : wide ? cuarr_array_data(&vv) : cuarr_array_data(&ub);
    char *eng_vt = !compute_uv ? NULL : wide ? cuarr_array_data(&uu) : cuarr_array_data(&vb);
    if (st == CUARR_OK)
      st = cuarr_decompose_gesvd(&b, job, cuarr_array_data(&ss), eng_u, eng_vt);
    if (st == CUARR_OK)
      st = check_converged(&s, &info, "svd: the SVD");
    const box u_in_ub = {0, u_cols, 0, m, true}, v_in_vb = {0, n, 0, n, true};
    if (st == CUARR_OK && compute_uv && !wide)
      st = copy_boxed(&s, &uu, NULL, &ub, &u_in_ub);
    if (st == CUARR_OK && compute_uv && !wide)
      st = copy_boxed(&s, &vv, NULL, &vb, &v_in_vb);
  }
  if (st != CUARR_OK) {
    release_all(all, 7);
    return st;
  }
  release_all(all, 4);
  *s_out = ss;
  if (compute_uv)
    *u = uu, *vh = vv;
  return CUARR_OK;
}
