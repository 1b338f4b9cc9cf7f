/*
 * reduce_source.c -- the program text of one reduction kernel variant: kernels/templates/reduction.cu's
 * shared pieces, then one extern "C" kernel whose loops are written here around the program's
 * expressions (reduction.cu shows one), for the variant's form (rows or cols, vectors or not,
 * split grid or not) and layout class.  Written out in the kernel rather than as templates
 * and functions: NVRTC compiles it sooner, and a ReductionKernel's first call waits for that.
 *
 * Every name the generator introduces starts with _cuarr, apart from CuPy's `_type_reduce`,
 * `a`, `b` and the indices `_i` and `_j`, and acc_t (the accumulator type, local to the
 * kernel); the inputs are variables of their own names: array inputs in a block around each
 * element's map, scalars and raw arrays in the whole kernel.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/reduce_engine.h"

#define THREADS 256 /* a block (reduce_engine.c) */

#include "kernel_sources.h"

/* A growing string; `failed` once an allocation failed (then every later write is dropped). */
typedef struct text {
  char *s;
  size_t len, cap;
  bool failed;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->failed)
    return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + n + 1)
      cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) {
      t->failed = true;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

static void putf(text *t, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof buf) {
    put(t, buf);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    t->failed = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  put(t, big);
  free(big);
}

/* A variable's C type: float16 variables are of the float16 class (half.cuh). */
static const char *var_ctype(cuarr_dtype d) {
  return d == CUARR_FLOAT16 ? "float16" : cuarr_dtype_ctype(d);
}

/* How memory holds an element: bool is read as its byte (any non-zero byte is true). */
static const char *storage_ctype(cuarr_dtype d) {
  return d == CUARR_BOOL ? "unsigned char" : cuarr_dtype_ctype(d);
}

static const char *dtype_code(cuarr_dtype d) {
  static const char *const codes[CUARR_NDTYPES] = {"b1", "i1", "i2", "i4", "i8", "u1",
                                                   "u2", "u4", "u8", "f2", "f4", "f8"};
  return (unsigned)d < CUARR_NDTYPES ? codes[d] : "xx";
}

/* An element of storage dtype d in the expression `x`, converted to the variable type v.  No
 * cuarr_cast between equal types (the identity, except for float16's class): every template a
 * kernel instantiates lengthens the compile of its first call.  Returns whether it cast. */
static bool put_convert(text *t, cuarr_dtype storage, cuarr_dtype v, const char *x) {
  if (storage == CUARR_BOOL && v == CUARR_BOOL) {
    putf(t, "(bool)(%s != 0)", x);
    return false;
  }
  if (storage == v && v != CUARR_FLOAT16) {
    put(t, x);
    return false;
  }
  if (storage == CUARR_BOOL)
    putf(t, "cuarr_cast<%s>((bool)(%s != 0))", var_ctype(v), x);
  else
    putf(t, "cuarr_cast<%s>(%s)", var_ctype(v), x);
  return true;
}

typedef struct gen {
  text *t;
  const cuarr_red_program *p;
  int n_in;
  const cuarr_red_operand *in;
  const cuarr_dtype *storage;
  const cuarr_red_types *types;
  cuarr_dtype out_storage;
  int n_slots;      /* non-raw array inputs */
  int first;        /* the first of them (slot 0) */
  int vec;          /* elements a vector, 1: none */
  bool cols, split; /* the variant */
  bool whole;       /* rows with vectors: n_red is a multiple of vec */
  int kept, red;    /* the layout's classes: AXES_* below */
  bool identity;    /* the program has one; else accumulators carry a "seen a value" flag */
  bool casts;       /* the kernel uses cuarr_cast (common.cuh) */
} gen;

enum { AXES_ANY, AXES_ONE, AXES_NONE }; /* how many kept (reduced) axes: any, one, none */

static bool is_slot(const cuarr_red_operand *o) { return o->array && !o->raw; }

/* ---------------------------------------------------------------- the operation's text */

/* acc (an lvalue, with its flag `have`) combined with the value x (an lvalue or a name) by
 * expr (the program's fold or reduce, of `a` and `b`): x is the later one. */
static void put_combine(gen *g, const char *ind, const char *acc, const char *have, const char *x,
                        const char *expr) {
  if (g->identity) {
    putf(g->t, "%s{\n%s  const acc_t a = %s, b = %s;\n%s  %s = (acc_t)(%s);\n%s}\n", ind, ind, acc,
         x, ind, acc, expr, ind);
    return;
  }
  putf(g->t,
       "%sif (%s) {\n%s  const acc_t a = %s, b = %s;\n%s  %s = (acc_t)(%s);\n%s} else {\n"
       "%s  %s = %s;\n%s}\n%s%s = true;\n",
       ind, have, ind, acc, x, ind, acc, expr, ind, ind, acc, x, ind, ind, have);
}

static const char *fold_expr(const gen *g) {
  return g->p->fold_expr ? g->p->fold_expr : g->p->reduce_expr;
}

/* The map of one element, added to acc (a thread's next element): the variables of the
 * expressions (`_i`, `_j` and the inputs, converted to their types) in a block of their own.
 * value: the loaded element of the one array input, or NULL to load every array input at the
 * offsets _cuarr_f[slot]. */
static void put_map(gen *g, const char *ind, const char *value, const char *i, const char *j,
                    const char *acc, const char *have) {
  text *t = g->t;
  putf(t,
       "%s{\n%s  const long long _i = (long long)(%s), _j = (long long)(%s);\n%s  (void)_i;\n"
       "%s  (void)_j;\n",
       ind, ind, i, j, ind, ind);
  for (int k = 0, s = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (!is_slot(o))
      continue;
    char at[64];
    if (!value)
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_f[%d]]", s, s);
    putf(t, "%s  const %s %s = ", ind, var_ctype(o->var_dtype), o->name);
    g->casts |= put_convert(t, g->storage[k], o->var_dtype, value ? value : at);
    put(t, ";\n");
    s++;
  }
  putf(t, "%s  const acc_t _cuarr_m = (acc_t)(%s);\n", ind, g->p->map_expr);
  char inner[64];
  snprintf(inner, sizeof inner, "%s  ", ind);
  put_combine(g, inner, acc, have, "_cuarr_m", fold_expr(g));
  putf(t, "%s}\n", ind);
}

/* The output element at ptr from the result acc (output index i). */
static void put_post(gen *g, const char *ind, const char *acc, const char *ptr, const char *i) {
  const char *name = g->types->out_name;
  putf(g->t,
       "%s{\n%s  const long long _i = (long long)(%s);\n%s  (void)_i;\n%s  const acc_t &a = %s;\n"
       "%s  %s %s;\n%s  %s;\n",
       ind, ind, i, ind, ind, acc, ind, var_ctype(g->types->out_var), name, ind, g->p->post_expr);
  if (g->out_storage == g->types->out_var && g->out_storage != CUARR_FLOAT16)
    putf(g->t, "%s  *(%s) = %s;\n%s}\n", ind, ptr, name, ind);
  else
    putf(g->t, "%s  *(%s) = cuarr_cast<%s>(%s);\n%s}\n", ind, ptr,
         cuarr_dtype_ctype(g->out_storage), name, ind);
  g->casts |= !(g->out_storage == g->types->out_var && g->out_storage != CUARR_FLOAT16);
}

/* acc[e] (and its flag) at the start: the identity, or nothing seen. */
static void put_start(gen *g, const char *ind, const char *e) {
  if (g->identity)
    putf(g->t, "%s_cuarr_acc[%s] = (acc_t)(%s);\n", ind, e, g->p->identity);
  else
    putf(g->t, "%s_cuarr_have[%s] = false;\n", ind, e);
}

/* ---------------------------------------------------------------- index arithmetic */

/* off[k] += the offset (in elements) of `index`, a flat index in C order over the layout's
 * kept (kept) or reduced axes, in operands k < nops.  The class decides the code: no axes add
 * nothing, one axis needs no division. */
static void put_offsets(gen *g, const char *ind, bool kept, const char *index, const char *off,
                        int nops) {
  int cls = kept ? g->kept : g->red;
  const char *nd = kept ? "ndo" : "ndr", *shape = kept ? "shape_o" : "shape_r",
             *strides = kept ? "so" : "sr";
  if (cls == AXES_NONE)
    return;
  if (cls == AXES_ONE) {
    for (int k = 0; k < nops; k++)
      putf(g->t, "%s%s[%d] += (_cuarr_S)(%s) * _cuarr_L.%s[%d][0];\n", ind, off, k, index, strides,
           k);
    return;
  }
  putf(g->t,
       "%s{\n%s  _cuarr_I _cuarr_q = %s;\n"
       "%s  for (int _cuarr_d = (int)_cuarr_L.%s - 1; _cuarr_d > 0; --_cuarr_d) {\n"
       "%s    const _cuarr_I _cuarr_r = _cuarr_q / _cuarr_L.%s[_cuarr_d];\n"
       "%s    const _cuarr_S _cuarr_n = (_cuarr_S)(_cuarr_q - _cuarr_r * _cuarr_L.%s[_cuarr_d]);\n",
       ind, ind, index, ind, nd, ind, shape, ind, shape);
  for (int k = 0; k < nops; k++)
    putf(g->t, "%s    %s[%d] += _cuarr_n * _cuarr_L.%s[%d][_cuarr_d];\n", ind, off, k, strides, k);
  putf(g->t, "%s    _cuarr_q = _cuarr_r;\n%s  }\n", ind, ind);
  for (int k = 0; k < nops; k++) /* the index is below shape[0] now */
    putf(g->t, "%s  %s[%d] += (_cuarr_S)_cuarr_q * _cuarr_L.%s[%d][0];\n", ind, off, k, strides, k);
  putf(g->t, "%s}\n", ind);
}

/* Operand k's offset along the kept axes, _cuarr_k[k], as text to add to a pointer or an
 * offset ("": none, in kernels for a single output). */
static const char *kept_offset(const gen *g, int k, char *buf, size_t size) {
  if (g->kept == AXES_NONE)
    return "";
  snprintf(buf, size, " + _cuarr_k[%d]", k);
  return buf;
}

/* _cuarr_f[k] = _cuarr_k[k] for the array inputs, then the reduced offsets of index j. */
static void put_element_offsets(gen *g, const char *ind, const char *j, int nops) {
  putf(g->t, "%s_cuarr_S _cuarr_f[%d] = {", ind, nops);
  for (int k = 0; k < nops && g->kept != AXES_NONE; k++)
    putf(g->t, "%s_cuarr_k[%d]", k ? ", " : "", k);
  put(g->t, "};\n");
  put_offsets(g, ind, false, j, "_cuarr_f", nops);
}

/* Whether output _cuarr_o exists, as text to and with a condition: threads past the outputs
 * take part in the block's tree, but add and store nothing.  Kernels for a single output run
 * one row of one block (the host ensures it), so every thread's output is the one. */
static const char *in_range(const gen *g) {
  return g->kept == AXES_NONE ? "" : " && _cuarr_o < _cuarr_L.n_out";
}

/* ---------------------------------------------------------------- the block */

/* A loop over a thread's n accumulators (rows have one, cols a vector's worth), or nothing
 * for one: NVRTC takes most of a millisecond over a loop of one.  Returns the index's text for
 * the body that follows (one statement or block). */
static const char *put_each(gen *g, const char *ind, int n) {
  if (n == 1)
    return "0";
  putf(g->t, "#pragma unroll\n%sfor (int _cuarr_e = 0; _cuarr_e < %d; ++_cuarr_e)\n", ind, n);
  return "_cuarr_e";
}

static int accumulators(const gen *g) { return g->cols ? g->vec : 1; }

/* Combine the accumulators _cuarr_acc[e] of the block's rows (lanes along x: rows bodies) or
 * columns (along y: cols bodies) in shared memory, in a fixed tree: lane i takes lane i + s,
 * s halving from half the lanes, so that one input gives the same bits on every run.  Lane 0
 * of each row (column) ends with the result.  (A tree of warp shuffles and one exchange
 * between the warps compiles 2 ms slower, and runs no faster on 256 threads.) */
static void put_block(gen *g) {
  text *t = g->t;
  const int n = accumulators(g);
  char mine[40], theirs[40];
  putf(t, "  {\n    const unsigned _cuarr_t = threadIdx.y * blockDim.x + threadIdx.x;\n");
  if (n > 1) {
    putf(t, "    const unsigned _cuarr_a = _cuarr_t * %d;\n", n);
    snprintf(mine, sizeof mine, "_cuarr_a + _cuarr_e");
    snprintf(theirs, sizeof theirs, "_cuarr_b + _cuarr_e");
  } else {
    snprintf(mine, sizeof mine, "_cuarr_t");
    snprintf(theirs, sizeof theirs, "_cuarr_u");
  }
  const char *e = put_each(g, "    ", n);
  putf(t, "    {\n      _cuarr_sh[%s] = _cuarr_acc[%s];\n", mine, e);
  if (!g->identity)
    putf(t, "      _cuarr_shh[%s] = _cuarr_have[%s];\n", mine, e);
  putf(t,
       "    }\n    __syncthreads();\n"
       "    for (unsigned _cuarr_s = %s / 2; _cuarr_s > 0; _cuarr_s >>= 1) {\n"
       "      if (%s < _cuarr_s) {\n"
       "        const unsigned _cuarr_u = _cuarr_t + _cuarr_s%s;\n",
       g->cols ? "blockDim.y" : "blockDim.x", g->cols ? "threadIdx.y" : "threadIdx.x",
       g->cols ? " * blockDim.x" : "");
  if (n > 1)
    putf(t, "        const unsigned _cuarr_b = _cuarr_u * %d;\n", n);
  e = put_each(g, "        ", n);
  char acc[40], have[40], sh_mine[64], sh_theirs[64];
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  snprintf(have, sizeof have, "_cuarr_have[%s]", e);
  snprintf(sh_mine, sizeof sh_mine, "_cuarr_sh[%s]", mine);
  snprintf(sh_theirs, sizeof sh_theirs, "_cuarr_sh[%s]", theirs);
  put(t, "        {\n");
  if (g->identity) {
    put_combine(g, "          ", acc, NULL, sh_theirs, g->p->reduce_expr);
    putf(t, "          %s = %s;\n", sh_mine, acc);
  } else {
    putf(t, "          if (_cuarr_shh[%s]) {\n", theirs);
    put_combine(g, "            ", acc, have, sh_theirs, g->p->reduce_expr);
    putf(t, "          }\n          %s = %s;\n          _cuarr_shh[%s] = %s;\n", sh_mine, acc, mine,
         have);
  }
  put(t, "        }\n      }\n      __syncthreads();\n    }\n  }\n");
}

/* ---------------------------------------------------------------- the split */

/* Split grids: this block's partial results to _cuarr_partial (accumulator e at index `at`),
 * then the last block of the column takes every split's partials (split _cuarr_s's at index
 * `from`) and combines them as the block did its lanes'.  lane, lanes: the lane along the
 * reduced range and their count. */
static void put_split_finish(gen *g, const char *lane, const char *lanes, const char *at,
                             const char *from) {
  text *t = g->t;
  const int n = accumulators(g);
  putf(t, "  if (%s == 0%s) {\n", lane, in_range(g));
  const char *e = put_each(g, "    ", n);
  putf(t, "      _cuarr_partial[%s] = _cuarr_acc[%s];\n  }\n", at, e);
  put(t, "  if (!cuarr_red_last_block(_cuarr_counters))\n    return;\n");
  e = put_each(g, "  ", n);
  put_start(g, n > 1 ? "    " : "  ", e);
  if (g->kept != AXES_NONE)
    put(t, "  if (_cuarr_o < _cuarr_L.n_out)\n");
  putf(t, "    for (_cuarr_I _cuarr_s = %s; _cuarr_s < _cuarr_splits; _cuarr_s += %s) {\n", lane,
       lanes);
  e = put_each(g, "      ", n);
  char acc[40], have[40];
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  snprintf(have, sizeof have, "_cuarr_have[%s]", e);
  putf(t, "      {\n        const acc_t _cuarr_m = _cuarr_partial[%s];\n", from);
  put_combine(g, "        ", acc, have, "_cuarr_m", g->p->reduce_expr);
  put(t, "      }\n    }\n");
  put_block(g);
}

/* ---------------------------------------------------------------- rows */

/* Rows: blockDim.x lanes share output o (blockDim.y outputs a block).  Vectors: one array
 * input whose reduced axis is a single one of stride 1, every row aligned for vec-element
 * vectors (the host checks); the last n_red % vec elements of a row, after its last whole
 * vector, go one each to the first split's first lanes (blockDim.x >= vec, which the host
 * ensures), except in kernels for rows of whole vectors, which have none.  With gridDim.y > 1
 * each block takes a share of every row of its outputs; partials are [output][split]. */
static void put_rows(gen *g) {
  text *t = g->t;
  const char *in0 = storage_ctype(g->storage[g->first]);
  char k0[32], kn[32];
  if (g->kept == AXES_NONE) /* blockDim.y == gridDim.x == 1 */
    put(t, "  const _cuarr_I _cuarr_o = 0;\n  {\n");
  else
    putf(t,
         "  const _cuarr_I _cuarr_o = (_cuarr_I)blockIdx.x * blockDim.y + threadIdx.y;\n"
         "  _cuarr_S _cuarr_k[%d] = {};\n"
         "  if (_cuarr_o < _cuarr_L.n_out) {\n",
         g->n_slots + 1);
  put_offsets(g, "    ", true, "_cuarr_o", "_cuarr_k", g->n_slots + 1);
  putf(t,
       "    const _cuarr_I _cuarr_step = blockDim.x%s;\n"
       "    _cuarr_I _cuarr_v = %sthreadIdx.x;\n",
       g->split ? " * _cuarr_splits" : "", g->split ? "_cuarr_split * blockDim.x + " : "");
  if (g->vec > 1) {
    char j[64];
    snprintf(j, sizeof j, "_cuarr_v * %d + _cuarr_e", g->vec);
    putf(t,
         "    typedef cuarr_red_vec<%s, %d> _cuarr_vec;\n"
         "    const _cuarr_vec *_cuarr_vp = (const _cuarr_vec *)(_cuarr_p0%s);\n"
         "    const _cuarr_I _cuarr_nv = _cuarr_L.n_red / %d;\n"
         /* one loop body for two loads in flight: a second copy of the map compiles slower */
         "    if (_cuarr_v < _cuarr_nv) { /* the next vector loads while this one adds up */\n"
         "      _cuarr_vec _cuarr_x = _cuarr_vp[_cuarr_v];\n"
         "      for (;;) {\n"
         "        const _cuarr_I _cuarr_w = _cuarr_v + _cuarr_step;\n"
         "        _cuarr_vec _cuarr_y;\n"
         "        if (_cuarr_w < _cuarr_nv)\n          _cuarr_y = _cuarr_vp[_cuarr_w];\n"
         "#pragma unroll\n        for (int _cuarr_e = 0; _cuarr_e < %d; ++_cuarr_e)\n",
         in0, g->vec, kept_offset(g, 0, k0, sizeof k0), g->vec, g->vec);
    put_map(g, "          ", "_cuarr_x.v[_cuarr_e]", "_cuarr_o", j, "_cuarr_acc[0]",
            "_cuarr_have[0]");
    put(t, "        if (_cuarr_w >= _cuarr_nv)\n          break;\n"
           "        _cuarr_x = _cuarr_y;\n        _cuarr_v = _cuarr_w;\n      }\n    }\n");
    if (!g->whole) { /* a second copy of the map: 1 ms of compile, left out where it can be */
      putf(t,
           "    const _cuarr_I _cuarr_j = _cuarr_nv * %d + threadIdx.x; /* the tail */\n"
           "    if (%s_cuarr_j < _cuarr_L.n_red)\n",
           g->vec, g->split ? "_cuarr_split == 0 && " : "");
      char at[64];
      snprintf(at, sizeof at, "_cuarr_p0[(_cuarr_S)_cuarr_j%s]", kept_offset(g, 0, k0, sizeof k0));
      put_map(g, "      ", at, "_cuarr_o", "_cuarr_j", "_cuarr_acc[0]", "_cuarr_have[0]");
    }
  } else {
    put(t, "    for (; _cuarr_v < _cuarr_L.n_red; _cuarr_v += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_v", g->n_slots);
    put_map(g, "      ", NULL, "_cuarr_o", "_cuarr_v", "_cuarr_acc[0]", "_cuarr_have[0]");
    put(t, "    }\n");
  }
  putf(t, "  }\n  CUARR_RED_LET_NEXT_IN%s();\n", g->split ? "_SPLIT" : "");
  put_block(g);
  if (g->split)
    put_split_finish(g, "threadIdx.x", "blockDim.x", "_cuarr_o * _cuarr_splits + _cuarr_split",
                     "_cuarr_o * _cuarr_splits + _cuarr_s");
  char out[64];
  snprintf(out, sizeof out, "_cuarr_out%s", kept_offset(g, g->n_slots, kn, sizeof kn));
  putf(t, "  if (threadIdx.x == 0%s)\n", in_range(g));
  put_post(g, "    ", "_cuarr_acc[0]", out, "_cuarr_o");
}

/* ---------------------------------------------------------------- cols */

/* Cols: thread x takes outputs o .. o + vec - 1 (consecutive along the innermost kept axis,
 * whose extent is a multiple of vec; with vectors there is one array input and it steps 1
 * along that axis, aligned for vectors); blockDim.y lanes, and gridDim.y blocks, split the
 * reduced range.  Partials are [split][output]. */
static void put_cols(gen *g) {
  text *t = g->t;
  const char *in0 = storage_ctype(g->storage[g->first]);
  putf(t,
       "  const _cuarr_I _cuarr_o = ((_cuarr_I)blockIdx.x * blockDim.x + threadIdx.x) * %d;\n"
       "  _cuarr_S _cuarr_k[%d] = {};\n"
       "  if (_cuarr_o < _cuarr_L.n_out) {\n",
       g->vec, g->n_slots + 1);
  put_offsets(g, "    ", true, "_cuarr_o", "_cuarr_k", g->n_slots + 1);
  putf(t,
       "    const _cuarr_I _cuarr_step = blockDim.y%s;\n"
       "    _cuarr_I _cuarr_j = %sthreadIdx.y;\n",
       g->split ? " * _cuarr_splits" : "", g->split ? "_cuarr_split * blockDim.y + " : "");
  if (g->vec > 1) {
    putf(t, "    typedef cuarr_red_vec<%s, %d> _cuarr_vec;\n", in0, g->vec);
    if (g->red == AXES_ONE) {
      putf(
          t,
          "    const _cuarr_S _cuarr_rs = _cuarr_L.sr[0][0];\n"
          "    for (; _cuarr_j + 3 * _cuarr_step < _cuarr_L.n_red; _cuarr_j += 4 * _cuarr_step) {\n"
          "      _cuarr_vec _cuarr_x[4]; /* four rows in flight */\n"
          "#pragma unroll\n      for (int _cuarr_u = 0; _cuarr_u < 4; ++_cuarr_u)\n"
          "        _cuarr_x[_cuarr_u] = *(const _cuarr_vec *)(_cuarr_p0 + _cuarr_k[0] + "
          "(_cuarr_S)(_cuarr_j + _cuarr_u * _cuarr_step) * _cuarr_rs);\n"
          "#pragma unroll\n      for (int _cuarr_u = 0; _cuarr_u < 4; ++_cuarr_u)\n"
          "#pragma unroll\n        for (int _cuarr_e = 0; _cuarr_e < %d; ++_cuarr_e)\n",
          g->vec);
      put_map(g, "          ", "_cuarr_x[_cuarr_u].v[_cuarr_e]", "_cuarr_o + _cuarr_e",
              "_cuarr_j + _cuarr_u * _cuarr_step", "_cuarr_acc[_cuarr_e]", "_cuarr_have[_cuarr_e]");
      put(t, "    }\n");
    }
    put(t, "    for (; _cuarr_j < _cuarr_L.n_red; _cuarr_j += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_j", 1);
    putf(t,
         "      const _cuarr_vec _cuarr_x = *(const _cuarr_vec *)(_cuarr_p0 + _cuarr_f[0]);\n"
         "#pragma unroll\n      for (int _cuarr_e = 0; _cuarr_e < %d; ++_cuarr_e)\n",
         g->vec);
    put_map(g, "        ", "_cuarr_x.v[_cuarr_e]", "_cuarr_o + _cuarr_e", "_cuarr_j",
            "_cuarr_acc[_cuarr_e]", "_cuarr_have[_cuarr_e]");
    put(t, "    }\n");
  } else {
    put(t, "    for (; _cuarr_j < _cuarr_L.n_red; _cuarr_j += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_j", g->n_slots);
    put_map(g, "      ", NULL, "_cuarr_o", "_cuarr_j", "_cuarr_acc[0]", "_cuarr_have[0]");
    put(t, "    }\n");
  }
  putf(t, "  }\n  CUARR_RED_LET_NEXT_IN%s();\n", g->split ? "_SPLIT" : "");
  put_block(g);
  if (g->split)
    put_split_finish(g, "threadIdx.y", "blockDim.y",
                     g->vec > 1 ? "_cuarr_split * _cuarr_L.n_out + _cuarr_o + _cuarr_e"
                                : "_cuarr_split * _cuarr_L.n_out + _cuarr_o",
                     g->vec > 1 ? "_cuarr_s * _cuarr_L.n_out + _cuarr_o + _cuarr_e"
                                : "_cuarr_s * _cuarr_L.n_out + _cuarr_o");
  char out[96], acc[40], i[40];
  putf(t, "  if (threadIdx.y == 0 && _cuarr_o < _cuarr_L.n_out) {\n");
  if (g->vec > 1)
    putf(t, "    const _cuarr_S _cuarr_os = _cuarr_L.so[%d][%s];\n", g->n_slots,
         g->kept == AXES_ANY ? "_cuarr_L.ndo - 1" : "0");
  const char *e = put_each(g, "    ", g->vec);
  if (g->vec > 1) {
    snprintf(out, sizeof out, "_cuarr_out + _cuarr_k[%d] + (_cuarr_S)_cuarr_e * _cuarr_os",
             g->n_slots);
    snprintf(i, sizeof i, "_cuarr_o + _cuarr_e");
  } else {
    snprintf(out, sizeof out, "_cuarr_out + _cuarr_k[%d]", g->n_slots);
    snprintf(i, sizeof i, "_cuarr_o");
  }
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  put_post(g, "      ", acc, out, i);
  put(t, "  }\n");
}

/* ---------------------------------------------------------------- the kernel */

/* The parameters: every input (array inputs as pointers, scalars and raw arrays by value),
 * the output, the partials, the arrival counters, the layout. */
static void put_parameters(gen *g) {
  text *t = g->t;
  for (int k = 0, s = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (is_slot(o))
      putf(t, "const %s *_cuarr_p%d, ", storage_ctype(g->storage[k]), s++);
    else if (o->array)
      putf(t, "const cuarr_raw<%s, %d, %s> _cuarr_a%d, ", cuarr_dtype_ctype(g->storage[k]),
           o->array->ndim, cuarr_array_is_c_contiguous(o->array) ? "true" : "false", k);
    else
      putf(t, "const %s _cuarr_a%d, ", var_ctype(o->var_dtype), k);
  }
  putf(t,
       "%s *_cuarr_out, _type_reduce *_cuarr_partial, unsigned int *_cuarr_counters, "
       "const cuarr_red_layout<_cuarr_I, _cuarr_S, %d> _cuarr_L",
       cuarr_dtype_ctype(g->out_storage), g->n_slots);
}

static void put_kernel(gen *g, const char *name) {
  text *t = g->t;
  const int n = g->cols ? g->vec : 1;
  putf(t, "\nextern \"C\" __global__ void __launch_bounds__(%d)\n%s(", THREADS, name);
  put_parameters(g);
  /* acc_t for the expressions (the built-ins' say acc_t), the scalars and raw arrays under
   * their names (raw arrays by reference: a copy of a parameter struct compiles slowly). */
  put(t, ") {\n  typedef _type_reduce acc_t;\n");
  for (int k = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (o->array && o->raw)
      putf(t, "  const cuarr_raw<%s, %d, %s> &%s = _cuarr_a%d;\n", cuarr_dtype_ctype(g->storage[k]),
           o->array->ndim, cuarr_array_is_c_contiguous(o->array) ? "true" : "false", o->name, k);
    else if (!o->array)
      putf(t, "  const %s %s = _cuarr_a%d;\n", var_ctype(o->var_dtype), o->name, k);
  }
  /* Launched as a programmatic dependent (see elementwise_source.c); the next kernel is let
   * in once the loads are done (CUARR_RED_LET_NEXT_IN), not here.  On an H100, sums of 10^7
   * float32: 1852 GB/s letting it in here, 1995 with plain launches, 2182 as the bodies do. */
  putf(t,
       "#if __CUDA_ARCH__ >= 900\n"
       "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
       "#endif\n"
       "  __shared__ acc_t _cuarr_sh[%d];\n",
       THREADS * n);
  if (!g->identity)
    putf(t, "  __shared__ bool _cuarr_shh[%d];\n", THREADS * n);
  if (g->split)
    put(t, "  const _cuarr_I _cuarr_split = blockIdx.y, _cuarr_splits = gridDim.y;\n");
  putf(t, "  acc_t _cuarr_acc[%d];\n", n);
  if (!g->identity)
    putf(t, "  bool _cuarr_have[%d];\n", n);
  put_start(g, n > 1 ? "    " : "  ", put_each(g, "  ", n));
  if (g->cols)
    put_cols(g);
  else
    put_rows(g);
  put(t, "}\n");
}

static bool needs_half(const gen *g) {
  bool half = g->out_storage == CUARR_FLOAT16 || g->types->out_var == CUARR_FLOAT16 ||
              (!g->types->acc_type && g->types->acc == CUARR_FLOAT16);
  for (int k = 0; k < g->n_in; k++)
    half = half || g->in[k].var_dtype == CUARR_FLOAT16 ||
           (g->in[k].array && g->storage[k] == CUARR_FLOAT16);
  return half;
}

/* Whether the program's own text names something of cuarr's headers (everything there is
 * named cuarr..., CUARR... or __half...): the built-ins call reduction_ops.cuh's helpers, and
 * a user's kernel may call anything. */
static bool mentions_cuarr(const cuarr_red_program *p, const cuarr_red_types *types) {
  const char *texts[] = {p->map_expr, p->reduce_expr, p->fold_expr,   p->post_expr,
                         p->identity, p->preamble,    types->acc_type};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (texts[i] && (strcasestr(texts[i], "cuarr") || strcasestr(texts[i], "__half")))
      return true;
  return false;
}

/* The headers, each only where needed: a new kernel's first call waits for NVRTC, which reads
 * every line of them (common.cuh and reduction_ops.cuh take a ReductionKernel's compile 1 ms
 * longer where nothing uses them). */
static void put_prelude(text *t, bool common, bool half, bool raw, bool ops) {
  if (common || half || raw || ops) {
    put(t, cuarr_kernel_source_common_cuh);
    put(t, "\n");
  }
  if (half) { /* the float16 class */
    put(t, cuarr_kernel_source_half_cuh);
    put(t, "\n");
  }
  if (raw) { /* cuarr_raw */
    put(t, cuarr_kernel_source_elementwise_cu);
    put(t, "\n");
  }
  put(t, cuarr_kernel_source_reduction_cu);
  put(t, "\n");
  if (ops) {
    put(t, cuarr_kernel_source_reduction_ops_cuh);
    put(t, "\n");
  }
}

char *cuarr_red_prelude(void) {
  text t = {0};
  put_prelude(&t, true, true, true, true);
  if (t.failed) {
    free(t.s);
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel source");
    return NULL;
  }
  return t.s;
}

char *cuarr_red_source(const cuarr_red_program *program, int n_in, const cuarr_red_operand *in,
                       const cuarr_dtype *storage, const cuarr_red_types *types,
                       cuarr_dtype out_storage, int variant, int vec, bool wide, const char *ns,
                       char **kernel_name) {
  *kernel_name = NULL;
  text t = {0}, name = {0}, kernel = {0};
  gen g = {.t = &kernel,
           .p = program,
           .n_in = n_in,
           .in = in,
           .storage = storage,
           .types = types,
           .out_storage = out_storage,
           .first = -1,
           .vec = vec,
           .cols = variant & CUARR_RED_COLS,
           .split = variant & CUARR_RED_SPLIT,
           .whole = variant & CUARR_RED_WHOLE_VECTORS,
           .kept = (variant & CUARR_RED_KEPT_NONE)  ? AXES_NONE
                   : (variant & CUARR_RED_KEPT_ONE) ? AXES_ONE
                                                    : AXES_ANY,
           .red = (variant & CUARR_RED_REDUCED_ONE) ? AXES_ONE : AXES_ANY,
           .identity = program->identity != NULL};
  for (int k = n_in - 1; k >= 0; k--) {
    if (is_slot(&in[k])) {
      g.n_slots++;
      g.first = k;
    }
  }
  if (g.n_slots == 0) {
    cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: no array input to reduce", program->name);
    return NULL;
  }
  if (vec > 1 && g.n_slots != 1) {
    cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: vector loads need a single array input",
               program->name);
    return NULL;
  }

  putf(&name, "%s_%s%s%s%s%s_v%d_%s_", program->name, (variant & CUARR_RED_COLS) ? "cols" : "rows",
       (variant & CUARR_RED_SPLIT) ? "_split" : "",
       (variant & CUARR_RED_KEPT_NONE)  ? "_k0"
       : (variant & CUARR_RED_KEPT_ONE) ? "_k1"
                                        : "",
       (variant & CUARR_RED_REDUCED_ONE) ? "_r1" : "",
       (variant & CUARR_RED_WHOLE_VECTORS) ? "_w" : "", vec, wide ? "i64" : "i32");
  for (int k = 0; k < n_in; k++)
    putf(&name, "%s%s%s", in[k].array ? (in[k].raw ? "r" : "") : "s",
         dtype_code(in[k].array ? storage[k] : in[k].var_dtype), dtype_code(in[k].var_dtype));
  putf(&name, "_%s%s%s", types->acc_type ? "x" : dtype_code(types->acc), dtype_code(types->out_var),
       dtype_code(out_storage));

  /* The kernel first: the prelude depends on what it uses. */
  put_kernel(&g, name.s ? name.s : "");
  bool raw = false;
  for (int k = 0; k < n_in; k++)
    raw = raw || (in[k].array && in[k].raw);
  bool ops = mentions_cuarr(program, types);
  if (!ns)
    put_prelude(&t, g.casts, needs_half(&g), raw, ops);
  else
    putf(&t, "namespace %s {\n", ns);
  /* Placeholder typedefs, each once. */
  for (int k = 0; k < n_in; k++) {
    const char *tn = in[k].type_name;
    bool seen = false;
    for (int j = 0; j < k && tn && !seen; j++)
      seen = in[j].type_name && strcmp(in[j].type_name, tn) == 0;
    if (tn && !seen)
      putf(&t, "typedef %s %s;\n", var_ctype(in[k].var_dtype), tn);
  }
  if (types->out_type_name) {
    bool seen = false;
    for (int j = 0; j < n_in && !seen; j++)
      seen = in[j].type_name && strcmp(in[j].type_name, types->out_type_name) == 0;
    if (!seen)
      putf(&t, "typedef %s %s;\n", var_ctype(types->out_var), types->out_type_name);
  }
  putf(&t, "typedef %s _type_reduce;\n", types->acc_type ? types->acc_type : var_ctype(types->acc));
  putf(&t, "typedef %s _cuarr_I;\ntypedef %s _cuarr_S;\n",
       wide ? "unsigned long long" : "unsigned int", wide ? "long long" : "int");
  if (program->preamble && *program->preamble)
    putf(&t, "%s\n", program->preamble);
  put(&t, kernel.s ? kernel.s : "");
  if (ns)
    put(&t, "}\n");
  free(kernel.s);
  if (t.failed || name.failed || kernel.failed) {
    free(t.s);
    free(name.s);
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the source of reduction %s", program->name);
    return NULL;
  }
  *kernel_name = name.s;
  return t.s;
}
