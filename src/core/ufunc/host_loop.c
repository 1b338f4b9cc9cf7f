/*
 * host_loop.c -- running a resolved ufunc over host operands of any layout and dtype.
 *
 * The walk, through the iterator's stages (array/iter.h): flip the axes on which the output
 * steps backwards, order the axes by the output's strides (largest first, so a transposed
 * output is still written in memory order), collapse what is contiguous in every operand, then
 * hand each row along the innermost axis to the loop's typed row.  Element order does not matter:
 * the output shares memory with an input only element for element (call.c stages any other overlap
 * through a temporary).
 *
 * An operand whose dtype is not the loop's is converted in blocks of BLOCK elements through a
 * buffer on the stack (inputs before the row, the output after it), so one typed row per loop
 * serves every combination of storage dtypes, and nothing is allocated.
 */
#include "array/cast.h"
#include "ufunc/ufunc.h"

enum { BLOCK = 256, MAXOP = 4 };

typedef struct run {
  const cuarr_uf_resolved *r;
  int nin;
  bool any_convert;
  bool convert[MAXOP];
  cuarr_dtype have[MAXOP]; /* storage dtype */
  cuarr_dtype want[MAXOP]; /* loop dtype */
} run;

static void convert_row(const run *st, char *const *p, const int64_t *s, int64_t n) {
  /* 8-byte elements at most; aligned for every dtype */
  _Alignas(16) char buf[MAXOP][BLOCK * 8];
  char *q[MAXOP];
  int64_t qs[MAXOP];
  const int nin = st->nin;
  for (int64_t k0 = 0; k0 < n; k0 += BLOCK) {
    int64_t m = n - k0 < BLOCK ? n - k0 : BLOCK;
    for (int i = 0; i <= nin; i++) {
      char *at = p[i] + k0 * s[i];
      if (!st->convert[i]) {
        q[i] = at;
        qs[i] = s[i];
        continue;
      }
      q[i] = buf[i];
      qs[i] = (int64_t)cuarr_dtype_size(st->want[i]);
      if (i < nin) {
        /* an input broadcast along the row converts once */
        int64_t count = s[i] == 0 ? 1 : m;
        cuarr_cast_rows[st->want[i]][st->have[i]](buf[i], qs[i], at, s[i], count);
        if (s[i] == 0)
          qs[i] = 0;
      }
    }
    st->r->host(q, qs, m);
    if (st->convert[nin]) {
      cuarr_cast_rows[st->have[nin]][st->want[nin]](p[nin] + k0 * s[nin], s[nin], buf[nin], qs[nin],
                                                    m);
    }
  }
}

static void do_row(const run *st, char *const *p, const int64_t *s, int64_t n) {
  if (st->any_convert)
    convert_row(st, p, s, n);
  else
    st->r->host(p, s, n);
}

void cuarr_uf_host_run(const cuarr_uf_resolved *r, int nin, const cuarr_uf_host_operand *ops,
                       int ndim, const int64_t *shape_in) {
  const int nop = nin + 1, o = nin;
  run st = {.r = r, .nin = nin};
  int64_t shape[CUARR_MAXDIM], strides[MAXOP][CUARR_MAXDIM];
  char *p[MAXOP];
  for (int i = 0; i < nop; i++) {
    p[i] = ops[i].data;
    st.have[i] = ops[i].dtype;
    st.want[i] = i < nin ? r->in[i] : r->out;
    st.convert[i] = st.have[i] != st.want[i];
    st.any_convert = st.any_convert || st.convert[i];
  }
  int64_t *sp[MAXOP] = {strides[0], strides[1], strides[2], strides[3]};
  for (int d = 0; d < ndim; d++) {
    shape[d] = shape_in[d];
    if (shape[d] == 0)
      return;
    for (int i = 0; i < nop; i++)
      strides[i][d] = ops[i].strides[d];
  }
  cuarr_iter_flip(ndim, shape, nop, sp, p, NULL, o, -1);
  cuarr_iter_sort(ndim, shape, nop, sp, cuarr_iter_by(o));
  int nd = cuarr_iter_collapse(ndim, shape, nop, sp);

  int64_t inner[MAXOP];
  if (nd == 0) { /* one element */
    for (int i = 0; i < nop; i++)
      inner[i] = 0;
    do_row(&st, p, inner, 1);
    return;
  }
  for (int i = 0; i < nop; i++)
    inner[i] = strides[i][nd - 1];
  const int64_t n = shape[nd - 1];
  /* an odometer over the outer axes */
  int64_t idx[CUARR_MAXDIM] = {0};
  for (;;) {
    do_row(&st, p, inner, n);
    int d = nd - 2;
    for (; d >= 0; d--) {
      if (++idx[d] < shape[d]) {
        for (int i = 0; i < nop; i++)
          p[i] += strides[i][d];
        break;
      }
      idx[d] = 0;
      for (int i = 0; i < nop; i++)
        p[i] -= (shape[d] - 1) * strides[i][d];
    }
    if (d < 0)
      return;
  }
}
