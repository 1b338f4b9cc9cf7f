/*
 * reduce_source.c -- the program text of one reduction kernel variant:
 * kernels/templates/reduction.cu's shared pieces, then one extern "C" kernel whose loops are
 * written here around the program's expressions (reduction.cu shows one), for the variant's form
 * (rows or cols, vectors or not, split grid or not) and layout class.  Written out in the kernel
 * rather than as templates and functions: NVRTC compiles it sooner, and a ReductionKernel's first
 * call waits for that.
 *
 * Every name the generator introduces starts with _cuarr, apart from CuPy's `_type_reduce`,
 * `a`, `b` and the indices `_i` and `_j`, and acc_t (the accumulator type, local to the
 * kernel); the inputs are variables of their own names: array inputs in a block around each
 * element's map, scalars and raw arrays in the whole kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/codegen.h"
#include "reduce/reduce_engine.h"

#define THREADS 256 /* a block (reduce_engine.c) */

/* How memory holds an element: bool is read as its byte (any non-zero byte is true). */
static const char *storage_ctype(cuarr_dtype d) {
  return d == CUARR_BOOL ? "unsigned char" : cuarr_dtype_ctype(d);
}

/* An element of storage dtype d in the expression `x`, converted to the variable type v.  No
 * cuarr_cast between equal types (the identity, except for float16's class): every template a
 * kernel instantiates lengthens the compile of its first call.  Returns whether it cast. */
static bool put_convert(cuarr_text *t, cuarr_dtype storage, cuarr_dtype v, const char *x) {
  if (storage == CUARR_BOOL && v == CUARR_BOOL) {
    FILL(t, "(bool)(${x} != 0)", SLOT("x", x));
    return false;
  }
  if (storage == v && v != CUARR_FLOAT16) {
    cuarr_text_put(t, x);
    return false;
  }
  if (storage == CUARR_BOOL)
    FILL(t, "cuarr_cast<${type}>((bool)(${x} != 0))", SLOT("type", cuarr_codegen_var_ctype(v)),
         SLOT("x", x));
  else
    FILL(t, "cuarr_cast<${type}>(${x})", SLOT("type", cuarr_codegen_var_ctype(v)), SLOT("x", x));
  return true;
}

typedef struct gen {
  cuarr_text *t;
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

/* acc combined with the value x by expr (of `a` and `b`: x is the later one), for programs
 * with an identity (acc holds it from the start) and for those without (acc's flag `have`
 * says whether it holds a value yet; if not, x becomes it). */
static const char combine_with_identity[] = "{\n"
                                            "  const acc_t a = ${acc}, b = ${x};\n"
                                            "  ${acc} = (acc_t)(${expr});\n"
                                            "}\n";
static const char combine_first_seen[] = "if (${have}) {\n"
                                         "  const acc_t a = ${acc}, b = ${x};\n"
                                         "  ${acc} = (acc_t)(${expr});\n"
                                         "} else {\n"
                                         "  ${acc} = ${x};\n"
                                         "}\n"
                                         "${have} = true;\n";

/* acc (an lvalue, with its flag `have`) combined with the value x (an lvalue or a name) by
 * expr (the program's fold or reduce). */
static void put_combine(gen *g, const char *ind, const char *acc, const char *have, const char *x,
                        const char *expr) {
  if (g->identity)
    FILL_AT(g->t, ind, combine_with_identity, SLOT("acc", acc), SLOT("x", x), SLOT("expr", expr));
  else
    FILL_AT(g->t, ind, combine_first_seen, SLOT("acc", acc), SLOT("have", have), SLOT("x", x),
            SLOT("expr", expr));
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
  cuarr_text *t = g->t;
  FILL_AT(t, ind,
          "{\n"
          "  const long long _i = (long long)(${i}), _j = (long long)(${j});\n"
          "  (void)_i;\n"
          "  (void)_j;\n",
          SLOT("i", i), SLOT("j", j));
  for (int k = 0, s = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (!is_slot(o))
      continue;
    char at[64];
    if (!value)
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_f[%d]]", s, s);
    FILL_AT(t, ind,
            "  const ${type} ${name} = ", SLOT("type", cuarr_codegen_var_ctype(o->var_dtype)),
            SLOT("name", o->name));
    g->casts |= put_convert(t, g->storage[k], o->var_dtype, value ? value : at);
    cuarr_text_put(t, ";\n");
    s++;
  }
  FILL_AT(t, ind, "  const acc_t _cuarr_m = (acc_t)(${map});\n", SLOT("map", g->p->map_expr));
  char inner[64];
  snprintf(inner, sizeof inner, "%s  ", ind);
  put_combine(g, inner, acc, have, "_cuarr_m", fold_expr(g));
  cuarr_text_put_at(t, ind, "}\n");
}

/* The output element at ptr from the result acc (output index i): post_expr sets the output
 * variable, which is stored as it is or converted to the output's dtype. */
static void put_post(gen *g, const char *ind, const char *acc, const char *ptr, const char *i) {
  const bool plain = g->out_storage == g->types->out_var && g->out_storage != CUARR_FLOAT16;
  FILL_AT(g->t, ind,
          "{\n"
          "  const long long _i = (long long)(${i});\n"
          "  (void)_i;\n"
          "  const acc_t &a = ${acc};\n"
          "  ${type} ${name};\n"
          "  ${post};\n",
          SLOT("i", i), SLOT("acc", acc), SLOT("type", cuarr_codegen_var_ctype(g->types->out_var)),
          SLOT("name", g->types->out_name), SLOT("post", g->p->post_expr));
  if (plain)
    FILL_AT(g->t, ind, "  *(${ptr}) = ${name};\n}\n", SLOT("ptr", ptr),
            SLOT("name", g->types->out_name));
  else
    FILL_AT(g->t, ind, "  *(${ptr}) = cuarr_cast<${storage}>(${name});\n}\n", SLOT("ptr", ptr),
            SLOT("storage", cuarr_dtype_ctype(g->out_storage)), SLOT("name", g->types->out_name));
  g->casts |= !plain;
}

/* acc[e] (and its flag) at the start: the identity, or nothing seen. */
static void put_start(gen *g, const char *ind, const char *e) {
  if (g->identity)
    FILL_AT(g->t, ind, "_cuarr_acc[${e}] = (acc_t)(${identity});\n", SLOT("e", e),
            SLOT("identity", g->p->identity));
  else
    FILL_AT(g->t, ind, "_cuarr_have[${e}] = false;\n", SLOT("e", e));
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
      FILL_AT(g->t, ind, "${off}[${k}] += (_cuarr_S)(${index}) * _cuarr_L.${strides}[${k}][0];\n",
              SLOT("off", off), INT_SLOT("k", k), SLOT("index", index), SLOT("strides", strides));
    return;
  }
  FILL_AT(g->t, ind,
          "{\n"
          "  _cuarr_I _cuarr_q = ${index};\n"
          "  for (int _cuarr_d = (int)_cuarr_L.${nd} - 1; _cuarr_d > 0; --_cuarr_d) {\n"
          "    const _cuarr_I _cuarr_r = _cuarr_q / _cuarr_L.${shape}[_cuarr_d];\n"
          "    const _cuarr_S _cuarr_n = (_cuarr_S)(_cuarr_q - _cuarr_r * "
          "_cuarr_L.${shape}[_cuarr_d]);\n",
          SLOT("index", index), SLOT("nd", nd), SLOT("shape", shape));
  for (int k = 0; k < nops; k++)
    FILL_AT(g->t, ind, "    ${off}[${k}] += _cuarr_n * _cuarr_L.${strides}[${k}][_cuarr_d];\n",
            SLOT("off", off), INT_SLOT("k", k), SLOT("strides", strides));
  cuarr_text_put_at(g->t, ind, "    _cuarr_q = _cuarr_r;\n  }\n");
  for (int k = 0; k < nops; k++) /* the index is below shape[0] now */
    FILL_AT(g->t, ind, "  ${off}[${k}] += (_cuarr_S)_cuarr_q * _cuarr_L.${strides}[${k}][0];\n",
            SLOT("off", off), INT_SLOT("k", k), SLOT("strides", strides));
  cuarr_text_put_at(g->t, ind, "}\n");
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
  FILL_AT(g->t, ind, "_cuarr_S _cuarr_f[${n}] = {", INT_SLOT("n", nops));
  for (int k = 0; k < nops && g->kept != AXES_NONE; k++)
    cuarr_text_printf(g->t, "%s_cuarr_k[%d]", k ? ", " : "", k);
  cuarr_text_put(g->t, "};\n");
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
  FILL_AT(g->t, ind,
          "#pragma unroll\n"
          "for (int _cuarr_e = 0; _cuarr_e < ${n}; ++_cuarr_e)\n",
          INT_SLOT("n", n));
  return "_cuarr_e";
}

static int accumulators(const gen *g) { return g->cols ? g->vec : 1; }

/* Combine the accumulators _cuarr_acc[e] of the block's rows (lanes along x: rows bodies) or
 * columns (along y: cols bodies) in shared memory, in a fixed tree: lane i takes lane i + s,
 * s halving from half the lanes, so that one input gives the same bits on every run.  Lane 0
 * of each row (column) ends with the result.  (A tree of warp shuffles and one exchange
 * between the warps compiles 2 ms slower, and runs no faster on 256 threads.) */
static void put_block(gen *g) {
  cuarr_text *t = g->t;
  const int n = accumulators(g);
  /* Shared-memory indices of this thread's accumulator e and of its partner's. */
  const char *mine = n > 1 ? "_cuarr_a + _cuarr_e" : "_cuarr_t",
             *theirs = n > 1 ? "_cuarr_b + _cuarr_e" : "_cuarr_u";
  cuarr_text_put(t, "  {\n    const unsigned _cuarr_t = threadIdx.y * blockDim.x + threadIdx.x;\n");
  if (n > 1)
    FILL(t, "    const unsigned _cuarr_a = _cuarr_t * ${n};\n", INT_SLOT("n", n));
  const char *e = put_each(g, "    ", n);
  FILL(t,
       "    {\n"
       "      _cuarr_sh[${mine}] = _cuarr_acc[${e}];\n",
       SLOT("mine", mine), SLOT("e", e));
  if (!g->identity)
    FILL(t, "      _cuarr_shh[${mine}] = _cuarr_have[${e}];\n", SLOT("mine", mine), SLOT("e", e));
  FILL(t,
       "    }\n"
       "    __syncthreads();\n"
       "    for (unsigned _cuarr_s = ${lanes} / 2; _cuarr_s > 0; _cuarr_s >>= 1) {\n"
       "      if (${lane} < _cuarr_s) {\n"
       "        const unsigned _cuarr_u = _cuarr_t + _cuarr_s${step};\n",
       SLOT("lanes", g->cols ? "blockDim.y" : "blockDim.x"),
       SLOT("lane", g->cols ? "threadIdx.y" : "threadIdx.x"),
       SLOT("step", g->cols ? " * blockDim.x" : ""));
  if (n > 1)
    FILL(t, "        const unsigned _cuarr_b = _cuarr_u * ${n};\n", INT_SLOT("n", n));
  e = put_each(g, "        ", n);
  char acc[40], have[40], sh_mine[64], sh_theirs[64];
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  snprintf(have, sizeof have, "_cuarr_have[%s]", e);
  snprintf(sh_mine, sizeof sh_mine, "_cuarr_sh[%s]", mine);
  snprintf(sh_theirs, sizeof sh_theirs, "_cuarr_sh[%s]", theirs);
  cuarr_text_put(t, "        {\n");
  if (g->identity) {
    put_combine(g, "          ", acc, NULL, sh_theirs, g->p->reduce_expr);
    FILL(t, "          ${sh_mine} = ${acc};\n", SLOT("sh_mine", sh_mine), SLOT("acc", acc));
  } else {
    FILL(t, "          if (_cuarr_shh[${theirs}]) {\n", SLOT("theirs", theirs));
    put_combine(g, "            ", acc, have, sh_theirs, g->p->reduce_expr);
    FILL(t,
         "          }\n"
         "          ${sh_mine} = ${acc};\n"
         "          _cuarr_shh[${mine}] = ${have};\n",
         SLOT("sh_mine", sh_mine), SLOT("acc", acc), SLOT("mine", mine), SLOT("have", have));
  }
  cuarr_text_put(t, "        }\n      }\n      __syncthreads();\n    }\n  }\n");
}

/* ---------------------------------------------------------------- the split */

/* Split grids: this block's partial results to _cuarr_partial (accumulator e at index `at`),
 * then the last block of the column takes every split's partials (split _cuarr_s's at index
 * `from`) and combines them as the block did its lanes'.  lane, lanes: the lane along the
 * reduced range and their count. */
static void put_split_finish(gen *g, const char *lane, const char *lanes, const char *at,
                             const char *from) {
  cuarr_text *t = g->t;
  const int n = accumulators(g);
  FILL(t, "  if (${lane} == 0${in_range}) {\n", SLOT("lane", lane), SLOT("in_range", in_range(g)));
  const char *e = put_each(g, "    ", n);
  FILL(t, "      _cuarr_partial[${at}] = _cuarr_acc[${e}];\n  }\n", SLOT("at", at), SLOT("e", e));
  cuarr_text_put(t, "  if (!cuarr_red_last_block(_cuarr_counters))\n    return;\n");
  e = put_each(g, "  ", n);
  put_start(g, n > 1 ? "    " : "  ", e);
  if (g->kept != AXES_NONE)
    cuarr_text_put(t, "  if (_cuarr_o < _cuarr_L.n_out)\n");
  FILL(t,
       "    for (_cuarr_I _cuarr_s = ${lane}; _cuarr_s < _cuarr_splits; _cuarr_s += ${lanes}) {\n",
       SLOT("lane", lane), SLOT("lanes", lanes));
  e = put_each(g, "      ", n);
  char acc[40], have[40];
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  snprintf(have, sizeof have, "_cuarr_have[%s]", e);
  FILL(t, "      {\n        const acc_t _cuarr_m = _cuarr_partial[${from}];\n", SLOT("from", from));
  put_combine(g, "        ", acc, have, "_cuarr_m", g->p->reduce_expr);
  cuarr_text_put(t, "      }\n    }\n");
  put_block(g);
}

/* ---------------------------------------------------------------- rows */

/* The rows body's loop over vectors: one loop body for two loads in flight (a second copy of
 * the map compiles slower); the map follows it, then rows_vector_loop_end. */
static const char rows_vector_loop[] =
    "    typedef cuarr_red_vec<${in0}, ${vec}> _cuarr_vec;\n"
    "    const _cuarr_vec *_cuarr_vp = (const _cuarr_vec *)(_cuarr_p0${kept_offset});\n"
    "    const _cuarr_I _cuarr_nv = _cuarr_L.n_red / ${vec};\n"
    "    if (_cuarr_v < _cuarr_nv) { /* the next vector loads while this one adds up */\n"
    "      _cuarr_vec _cuarr_x = _cuarr_vp[_cuarr_v];\n"
    "      for (;;) {\n"
    "        const _cuarr_I _cuarr_w = _cuarr_v + _cuarr_step;\n"
    "        _cuarr_vec _cuarr_y;\n"
    "        if (_cuarr_w < _cuarr_nv)\n"
    "          _cuarr_y = _cuarr_vp[_cuarr_w];\n"
    "#pragma unroll\n"
    "        for (int _cuarr_e = 0; _cuarr_e < ${vec}; ++_cuarr_e)\n";
static const char rows_vector_loop_end[] = "        if (_cuarr_w >= _cuarr_nv)\n"
                                           "          break;\n"
                                           "        _cuarr_x = _cuarr_y;\n"
                                           "        _cuarr_v = _cuarr_w;\n"
                                           "      }\n"
                                           "    }\n";

/* Rows: blockDim.x lanes share output o (blockDim.y outputs a block).  Vectors: one array
 * input whose reduced axis is a single one of stride 1, every row aligned for vec-element
 * vectors (the host checks); the last n_red % vec elements of a row, after its last whole
 * vector, go one each to the first split's first lanes (blockDim.x >= vec, which the host
 * ensures), except in kernels for rows of whole vectors, which have none.  With gridDim.y > 1
 * each block takes a share of every row of its outputs; partials are [output][split]. */
static void put_rows(gen *g) {
  cuarr_text *t = g->t;
  const char *in0 = storage_ctype(g->storage[g->first]);
  char k0[32], kn[32];
  if (g->kept == AXES_NONE) /* blockDim.y == gridDim.x == 1 */
    cuarr_text_put(t, "  const _cuarr_I _cuarr_o = 0;\n  {\n");
  else
    FILL(t,
         "  const _cuarr_I _cuarr_o = (_cuarr_I)blockIdx.x * blockDim.y + threadIdx.y;\n"
         "  _cuarr_S _cuarr_k[${n}] = {};\n"
         "  if (_cuarr_o < _cuarr_L.n_out) {\n",
         INT_SLOT("n", g->n_slots + 1));
  put_offsets(g, "    ", true, "_cuarr_o", "_cuarr_k", g->n_slots + 1);
  FILL(t,
       "    const _cuarr_I _cuarr_step = blockDim.x${splits};\n"
       "    _cuarr_I _cuarr_v = ${split_first}threadIdx.x;\n",
       SLOT("splits", g->split ? " * _cuarr_splits" : ""),
       SLOT("split_first", g->split ? "_cuarr_split * blockDim.x + " : ""));
  if (g->vec > 1) {
    char j[64];
    snprintf(j, sizeof j, "_cuarr_v * %d + _cuarr_e", g->vec);
    FILL(t, rows_vector_loop, SLOT("in0", in0), INT_SLOT("vec", g->vec),
         SLOT("kept_offset", kept_offset(g, 0, k0, sizeof k0)));
    put_map(g, "          ", "_cuarr_x.v[_cuarr_e]", "_cuarr_o", j, "_cuarr_acc[0]",
            "_cuarr_have[0]");
    cuarr_text_put(t, rows_vector_loop_end);
    if (!g->whole) { /* a second copy of the map: 1 ms of compile, left out where it can be */
      FILL(t,
           "    const _cuarr_I _cuarr_j = _cuarr_nv * ${vec} + threadIdx.x; /* the tail */\n"
           "    if (${first_split}_cuarr_j < _cuarr_L.n_red)\n",
           INT_SLOT("vec", g->vec), SLOT("first_split", g->split ? "_cuarr_split == 0 && " : ""));
      char at[64];
      snprintf(at, sizeof at, "_cuarr_p0[(_cuarr_S)_cuarr_j%s]", kept_offset(g, 0, k0, sizeof k0));
      put_map(g, "      ", at, "_cuarr_o", "_cuarr_j", "_cuarr_acc[0]", "_cuarr_have[0]");
    }
  } else {
    cuarr_text_put(t, "    for (; _cuarr_v < _cuarr_L.n_red; _cuarr_v += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_v", g->n_slots);
    put_map(g, "      ", NULL, "_cuarr_o", "_cuarr_v", "_cuarr_acc[0]", "_cuarr_have[0]");
    cuarr_text_put(t, "    }\n");
  }
  FILL(t, "  }\n  CUARR_RED_LET_NEXT_IN${split}();\n", SLOT("split", g->split ? "_SPLIT" : ""));
  put_block(g);
  if (g->split)
    put_split_finish(g, "threadIdx.x", "blockDim.x", "_cuarr_o * _cuarr_splits + _cuarr_split",
                     "_cuarr_o * _cuarr_splits + _cuarr_s");
  char out[64];
  snprintf(out, sizeof out, "_cuarr_out%s", kept_offset(g, g->n_slots, kn, sizeof kn));
  FILL(t, "  if (threadIdx.x == 0${in_range})\n", SLOT("in_range", in_range(g)));
  put_post(g, "    ", "_cuarr_acc[0]", out, "_cuarr_o");
}

/* ---------------------------------------------------------------- cols */

/* The cols body's loop over vectors of a single reduced axis, four rows in flight; the map
 * follows it. */
static const char cols_four_rows_loop[] =
    "    const _cuarr_S _cuarr_rs = _cuarr_L.sr[0][0];\n"
    "    for (; _cuarr_j + 3 * _cuarr_step < _cuarr_L.n_red; _cuarr_j += 4 * _cuarr_step) {\n"
    "      _cuarr_vec _cuarr_x[4]; /* four rows in flight */\n"
    "#pragma unroll\n"
    "      for (int _cuarr_u = 0; _cuarr_u < 4; ++_cuarr_u)\n"
    "        _cuarr_x[_cuarr_u] = *(const _cuarr_vec *)(_cuarr_p0 + _cuarr_k[0] + "
    "(_cuarr_S)(_cuarr_j + _cuarr_u * _cuarr_step) * _cuarr_rs);\n"
    "#pragma unroll\n"
    "      for (int _cuarr_u = 0; _cuarr_u < 4; ++_cuarr_u)\n"
    "#pragma unroll\n"
    "        for (int _cuarr_e = 0; _cuarr_e < ${vec}; ++_cuarr_e)\n";

/* Cols: thread x takes outputs o .. o + vec - 1 (consecutive along the innermost kept axis,
 * whose extent is a multiple of vec; with vectors there is one array input and it steps 1
 * along that axis, aligned for vectors); blockDim.y lanes, and gridDim.y blocks, split the
 * reduced range.  Partials are [split][output]. */
static void put_cols(gen *g) {
  cuarr_text *t = g->t;
  const char *in0 = storage_ctype(g->storage[g->first]);
  FILL(t,
       "  const _cuarr_I _cuarr_o = ((_cuarr_I)blockIdx.x * blockDim.x + threadIdx.x) * ${vec};\n"
       "  _cuarr_S _cuarr_k[${n}] = {};\n"
       "  if (_cuarr_o < _cuarr_L.n_out) {\n",
       INT_SLOT("vec", g->vec), INT_SLOT("n", g->n_slots + 1));
  put_offsets(g, "    ", true, "_cuarr_o", "_cuarr_k", g->n_slots + 1);
  FILL(t,
       "    const _cuarr_I _cuarr_step = blockDim.y${splits};\n"
       "    _cuarr_I _cuarr_j = ${split_first}threadIdx.y;\n",
       SLOT("splits", g->split ? " * _cuarr_splits" : ""),
       SLOT("split_first", g->split ? "_cuarr_split * blockDim.y + " : ""));
  if (g->vec > 1) {
    FILL(t, "    typedef cuarr_red_vec<${in0}, ${vec}> _cuarr_vec;\n", SLOT("in0", in0),
         INT_SLOT("vec", g->vec));
    if (g->red == AXES_ONE) {
      FILL(t, cols_four_rows_loop, INT_SLOT("vec", g->vec));
      put_map(g, "          ", "_cuarr_x[_cuarr_u].v[_cuarr_e]", "_cuarr_o + _cuarr_e",
              "_cuarr_j + _cuarr_u * _cuarr_step", "_cuarr_acc[_cuarr_e]", "_cuarr_have[_cuarr_e]");
      cuarr_text_put(t, "    }\n");
    }
    cuarr_text_put(t, "    for (; _cuarr_j < _cuarr_L.n_red; _cuarr_j += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_j", 1);
    FILL(t,
         "      const _cuarr_vec _cuarr_x = *(const _cuarr_vec *)(_cuarr_p0 + _cuarr_f[0]);\n"
         "#pragma unroll\n"
         "      for (int _cuarr_e = 0; _cuarr_e < ${vec}; ++_cuarr_e)\n",
         INT_SLOT("vec", g->vec));
    put_map(g, "        ", "_cuarr_x.v[_cuarr_e]", "_cuarr_o + _cuarr_e", "_cuarr_j",
            "_cuarr_acc[_cuarr_e]", "_cuarr_have[_cuarr_e]");
    cuarr_text_put(t, "    }\n");
  } else {
    cuarr_text_put(t, "    for (; _cuarr_j < _cuarr_L.n_red; _cuarr_j += _cuarr_step) {\n");
    put_element_offsets(g, "      ", "_cuarr_j", g->n_slots);
    put_map(g, "      ", NULL, "_cuarr_o", "_cuarr_j", "_cuarr_acc[0]", "_cuarr_have[0]");
    cuarr_text_put(t, "    }\n");
  }
  FILL(t, "  }\n  CUARR_RED_LET_NEXT_IN${split}();\n", SLOT("split", g->split ? "_SPLIT" : ""));
  put_block(g);
  if (g->split)
    put_split_finish(g, "threadIdx.y", "blockDim.y",
                     g->vec > 1 ? "_cuarr_split * _cuarr_L.n_out + _cuarr_o + _cuarr_e"
                                : "_cuarr_split * _cuarr_L.n_out + _cuarr_o",
                     g->vec > 1 ? "_cuarr_s * _cuarr_L.n_out + _cuarr_o + _cuarr_e"
                                : "_cuarr_s * _cuarr_L.n_out + _cuarr_o");
  char out[96], acc[40];
  cuarr_text_put(t, "  if (threadIdx.y == 0 && _cuarr_o < _cuarr_L.n_out) {\n");
  if (g->vec > 1)
    FILL(t, "    const _cuarr_S _cuarr_os = _cuarr_L.so[${out}][${axis}];\n",
         INT_SLOT("out", g->n_slots), SLOT("axis", g->kept == AXES_ANY ? "_cuarr_L.ndo - 1" : "0"));
  const char *e = put_each(g, "    ", g->vec);
  if (g->vec > 1)
    snprintf(out, sizeof out, "_cuarr_out + _cuarr_k[%d] + (_cuarr_S)_cuarr_e * _cuarr_os",
             g->n_slots);
  else
    snprintf(out, sizeof out, "_cuarr_out + _cuarr_k[%d]", g->n_slots);
  snprintf(acc, sizeof acc, "_cuarr_acc[%s]", e);
  put_post(g, "      ", acc, out, g->vec > 1 ? "_cuarr_o + _cuarr_e" : "_cuarr_o");
  cuarr_text_put(t, "  }\n");
}

/* ---------------------------------------------------------------- the kernel */

/* The parameters: every input (array inputs as pointers, scalars and raw arrays by value),
 * the output, the partials, the arrival counters, the layout. */
static void put_parameters(gen *g) {
  cuarr_text *t = g->t;
  for (int k = 0, s = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (is_slot(o))
      FILL(t, "const ${type} *_cuarr_p${slot}, ", SLOT("type", storage_ctype(g->storage[k])),
           INT_SLOT("slot", s++));
    else if (o->array)
      FILL(t, "const cuarr_raw<${type}, ${ndim}, ${contig}> _cuarr_a${k}, ",
           SLOT("type", cuarr_dtype_ctype(g->storage[k])), INT_SLOT("ndim", o->array->ndim),
           SLOT("contig", cuarr_array_is_c_contiguous(o->array) ? "true" : "false"),
           INT_SLOT("k", k));
    else
      FILL(t, "const ${type} _cuarr_a${k}, ", SLOT("type", cuarr_codegen_var_ctype(o->var_dtype)),
           INT_SLOT("k", k));
  }
  FILL(t,
       "${out} *_cuarr_out, _type_reduce *_cuarr_partial, unsigned int *_cuarr_counters, "
       "const cuarr_red_layout<_cuarr_I, _cuarr_S, ${n_slots}> _cuarr_L",
       SLOT("out", cuarr_dtype_ctype(g->out_storage)), INT_SLOT("n_slots", g->n_slots));
}

static void put_kernel(gen *g, const char *name) {
  cuarr_text *t = g->t;
  const int n = g->cols ? g->vec : 1;
  cuarr_codegen_put_kernel_head(t, THREADS, name);
  put_parameters(g);
  /* acc_t for the expressions (the built-ins' say acc_t), the scalars and raw arrays under
   * their names (raw arrays by reference: a copy of a parameter struct compiles slowly). */
  cuarr_text_put(t, ") {\n  typedef _type_reduce acc_t;\n");
  for (int k = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (o->array && o->raw)
      FILL(t, "  const cuarr_raw<${type}, ${ndim}, ${contig}> &${name} = _cuarr_a${k};\n",
           SLOT("type", cuarr_dtype_ctype(g->storage[k])), INT_SLOT("ndim", o->array->ndim),
           SLOT("contig", cuarr_array_is_c_contiguous(o->array) ? "true" : "false"),
           SLOT("name", o->name), INT_SLOT("k", k));
    else if (!o->array)
      FILL(t, "  const ${type} ${name} = _cuarr_a${k};\n",
           SLOT("type", cuarr_codegen_var_ctype(o->var_dtype)), SLOT("name", o->name),
           INT_SLOT("k", k));
  }
  /* Launched as a programmatic dependent (see elementwise_source.c); the next kernel is let
   * in once the loads are done (CUARR_RED_LET_NEXT_IN), not here.  On an H100, sums of 10^7
   * float32: 1852 GB/s letting it in here, 1995 with plain launches, 2182 as the bodies do. */
  cuarr_codegen_put_launch_prologue(t, false);
  FILL(t, "  __shared__ acc_t _cuarr_sh[${n}];\n", INT_SLOT("n", THREADS * n));
  if (!g->identity)
    FILL(t, "  __shared__ bool _cuarr_shh[${n}];\n", INT_SLOT("n", THREADS * n));
  if (g->split)
    cuarr_text_put(t, "  const _cuarr_I _cuarr_split = blockIdx.y, _cuarr_splits = gridDim.y;\n");
  FILL(t, "  acc_t _cuarr_acc[${n}];\n", INT_SLOT("n", n));
  if (!g->identity)
    FILL(t, "  bool _cuarr_have[${n}];\n", INT_SLOT("n", n));
  put_start(g, n > 1 ? "    " : "  ", put_each(g, "  ", n));
  if (g->cols)
    put_cols(g);
  else
    put_rows(g);
  cuarr_text_put(t, "}\n");
}

static bool needs_half(const gen *g) {
  bool half = g->out_storage == CUARR_FLOAT16 || g->types->out_var == CUARR_FLOAT16 ||
              (!g->types->acc_type && g->types->acc == CUARR_FLOAT16);
  for (int k = 0; k < g->n_in; k++)
    half = half || g->in[k].var_dtype == CUARR_FLOAT16 ||
           (g->in[k].array && g->storage[k] == CUARR_FLOAT16);
  return half;
}

/* The headers, each only where needed: a new kernel's first call waits for NVRTC, which reads
 * every line of them (common.cuh and reduction_ops.cuh take a ReductionKernel's compile 1 ms
 * longer where nothing uses them).  elementwise.cu for cuarr_raw, half.cuh for the float16
 * class. */
static unsigned headers(bool common, bool half, bool raw, bool ops) {
  return (common || half || raw || ops ? CUARR_HEADER_COMMON : 0) | (half ? CUARR_HEADER_HALF : 0) |
         (raw ? CUARR_HEADER_ELEMENTWISE : 0) | CUARR_HEADER_REDUCTION |
         (ops ? CUARR_HEADER_REDUCTION_OPS : 0);
}

char *cuarr_red_prelude(void) {
  cuarr_text t = {0};
  cuarr_codegen_put_headers(&t, headers(true, true, true, true));
  return cuarr_text_finish(&t);
}

/* The kernel's name: program_<rows|cols>[_split][_k0|_k1][_r1][_w]_v<vec>_<i32|i64>_, each
 * input's [r|s]<storage><var> codes, then _<acc><out var><out storage>. */
static void put_name(cuarr_text *t, const cuarr_red_program *program, int n_in,
                     const cuarr_red_operand *in, const cuarr_dtype *storage,
                     const cuarr_red_types *types, cuarr_dtype out_storage, int variant, int vec,
                     bool wide) {
  FILL(t, "${program}_${form}${split}${kept}${reduced}${whole}_v${vec}_${index}_",
       SLOT("program", program->name), SLOT("form", variant & CUARR_RED_COLS ? "cols" : "rows"),
       SLOT("split", variant & CUARR_RED_SPLIT ? "_split" : ""),
       SLOT("kept", variant & CUARR_RED_KEPT_NONE  ? "_k0"
                    : variant & CUARR_RED_KEPT_ONE ? "_k1"
                                                   : ""),
       SLOT("reduced", variant & CUARR_RED_REDUCED_ONE ? "_r1" : ""),
       SLOT("whole", variant & CUARR_RED_WHOLE_VECTORS ? "_w" : ""), INT_SLOT("vec", vec),
       SLOT("index", wide ? "i64" : "i32"));
  for (int k = 0; k < n_in; k++) {
    cuarr_text_put(t, in[k].array ? (in[k].raw ? "r" : "") : "s");
    cuarr_text_put(t, cuarr_codegen_dtype_code(in[k].array ? storage[k] : in[k].var_dtype));
    cuarr_text_put(t, cuarr_codegen_dtype_code(in[k].var_dtype));
  }
  cuarr_text_put(t, "_");
  cuarr_text_put(t, types->acc_type ? "x" : cuarr_codegen_dtype_code(types->acc));
  cuarr_text_put(t, cuarr_codegen_dtype_code(types->out_var));
  cuarr_text_put(t, cuarr_codegen_dtype_code(out_storage));
}

char *cuarr_red_source(const cuarr_red_program *program, int n_in, const cuarr_red_operand *in,
                       const cuarr_dtype *storage, const cuarr_red_types *types,
                       cuarr_dtype out_storage, int variant, int vec, bool wide, const char *ns,
                       char **kernel_name) {
  *kernel_name = NULL;
  cuarr_text t = {0}, name = {0}, kernel = {0};
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

  put_name(&name, program, n_in, in, storage, types, out_storage, variant, vec, wide);
  char *kernel_name_text = cuarr_text_finish(&name);
  if (!kernel_name_text)
    return NULL;

  /* The kernel first: the prelude depends on what it uses. */
  put_kernel(&g, kernel_name_text);
  bool raw = false;
  for (int k = 0; k < n_in; k++)
    raw = raw || (in[k].array && in[k].raw);
  if (!ns) {
    /* A built-in's text calls reduction_ops.cuh's helpers, a user's may call anything. */
    const char *texts[] = {program->map_expr,  program->reduce_expr, program->fold_expr,
                           program->post_expr, program->identity,    program->preamble,
                           types->acc_type};
    const bool ops = cuarr_codegen_mentions_cuarr(texts, sizeof texts / sizeof texts[0]);
    cuarr_codegen_put_headers(&t, headers(g.casts, needs_half(&g), raw, ops));
  } else {
    FILL(&t, "namespace ${ns} {\n", SLOT("ns", ns));
  }
  /* Placeholder typedefs, each once: the inputs', then the output's. */
  const char **names = calloc((size_t)n_in + 1, sizeof *names),
             **ctypes = calloc((size_t)n_in + 1, sizeof *ctypes);
  if (names && ctypes) {
    for (int k = 0; k < n_in; k++) {
      names[k] = in[k].type_name;
      ctypes[k] = cuarr_codegen_var_ctype(in[k].var_dtype);
    }
    names[n_in] = types->out_type_name;
    ctypes[n_in] = cuarr_codegen_var_ctype(types->out_var);
    cuarr_codegen_put_typedefs(&t, n_in + 1, names, ctypes);
  } else {
    t.failed = true;
  }
  free(names);
  free(ctypes);
  FILL(&t, "typedef ${acc} _type_reduce;\ntypedef ${I} _cuarr_I;\ntypedef ${S} _cuarr_S;\n",
       SLOT("acc", types->acc_type ? types->acc_type : cuarr_codegen_var_ctype(types->acc)),
       SLOT("I", cuarr_codegen_index_ctype(wide)), SLOT("S", cuarr_codegen_offset_ctype(wide)));
  if (program->preamble && *program->preamble) {
    cuarr_text_put(&t, program->preamble);
    cuarr_text_put(&t, "\n");
  }
  cuarr_text_take(&t, &kernel);
  if (ns)
    cuarr_text_put(&t, "}\n");
  char *source = cuarr_text_finish(&t);
  if (!source) {
    free(kernel_name_text);
    return NULL;
  }
  *kernel_name = kernel_name_text;
  return source;
}
