/*
 * elementwise_source.c -- the CUDA C of an elementwise kernel, from its program and key.
 *
 * A program is kernels/include/common.cuh and half.cuh where the kernel needs them
 * (put_program), elementwise.cu, the placeholder typedefs, the preamble, then one extern "C"
 * kernel whose loops are written here around the operation's text (kernels/templates/elementwise.cu
 * shows one).  The loops differ by layout class:
 *  - contiguous, vectorised: V elements per access in each array operand, one vector per
 *    operand and step, then the last n % V elements one to a thread (none where the key says
 *    the count is whole vectors);
 *  - contiguous, element by element (pointers not aligned for vectors; no array operands);
 *  - strided with 1..4 axes or a run-time count: offsets from the flat index by cuarr_offsets,
 *    several elements' loads in flight;
 *  - strided with 1..4 axes whose innermost axis moves vectors: every array operand steps by 1
 *    (vector loads) or 0 (a "splat": one element serves the vector) along it.
 * Variables: each array operand is a local of its var type named as the operand (inputs
 * const); an output is loaded too (CuPy's outputs are references the operation may read),
 * and the compiler drops that load when the operation only writes it.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/codegen.h"
#include "compile/hash.h"
#include "elementwise/elementwise_private.h"

/* ---------------------------------------------------------------- names and types */

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
    return false;
  for (s++; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  return true;
}

/* Names the generated code defines itself. */
static bool is_reserved(const char *s) {
  return strcmp(s, "i") == 0 || strcmp(s, "_ind") == 0 || strncmp(s, "_cuarr", 6) == 0 ||
         strncmp(s, "cuarr_", 6) == 0;
}

int cuarr_ew_vector_width(size_t max_itemsize) {
  return max_itemsize == 0 || max_itemsize > 16 ? 1 : (int)(16 / max_itemsize);
}

static bool valid_dtype(int d) { return d >= 0 && d < CUARR_NDTYPES; }

/* ---------------------------------------------------------------- checks */

static cuarr_status check_program(const cuarr_ew_program *p, const cuarr_ew_operand *ops,
                                  const cuarr_ew_key *key) {
  if (!p || !is_identifier(p->name))
    return cuarr_fail(CUARR_VALUE_ERROR, "invalid kernel name \"%s\": it must be a C identifier",
                      p && p->name ? p->name : "(null)");
  if (!p->operation)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s has no operation", p->name);
  for (int k = 0; k < key->n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    if (!is_identifier(o->name))
      return cuarr_fail(CUARR_VALUE_ERROR, "operand %d of kernel %s: invalid name \"%s\"", k,
                        p->name, o->name ? o->name : "(null)");
    if (is_reserved(o->name))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "operand %d of kernel %s: the name \"%s\" is reserved (i, _ind, "
                        "_cuarr..., cuarr_...)",
                        k, p->name, o->name);
    if (!valid_dtype(key->op[k][0]) || !valid_dtype(key->op[k][1]))
      return cuarr_fail(CUARR_VALUE_ERROR, "operand %s of kernel %s: unknown dtype", o->name,
                        p->name);
    if ((key->op[k][2] & CUARR_EW_RAW) && key->op[k][0] != key->op[k][1])
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "raw operand %s of kernel %s: its var_dtype must be its dtype (%s)",
                        o->name, p->name, cuarr_dtype_name((cuarr_dtype)key->op[k][0]));
    if (o->type_name && (!is_identifier(o->type_name) || is_reserved(o->type_name)))
      return cuarr_fail(CUARR_VALUE_ERROR, "operand %s of kernel %s: invalid type name \"%s\"",
                        o->name, p->name, o->type_name);
    for (int j = 0; j < k; j++) {
      if (strcmp(ops[j].name, o->name) == 0)
        return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s has two operands named %s", p->name,
                          o->name);
      if (o->type_name && ops[j].type_name && strcmp(ops[j].type_name, o->type_name) == 0 &&
          key->op[j][1] != key->op[k][1])
        return cuarr_fail(CUARR_TYPE_ERROR, "kernel %s: type %s is both %s and %s", p->name,
                          o->type_name, cuarr_dtype_name((cuarr_dtype)key->op[j][1]),
                          cuarr_dtype_name((cuarr_dtype)key->op[k][1]));
    }
  }
  return CUARR_OK;
}

/* ---------------------------------------------------------------- the kernel's name */

/* name_<layout>[_v<V>]_<i32|i64>_<operands>, e.g. add_contig_v4_i32_f4f4f4: s<code> a scalar,
 * r<code>[n<ndim>] a raw array, b<code> a splat, <code>to<code> a conversion to the var type.
 * Long ones keep a prefix and a hash of the key. */
static char *kernel_name_of(const cuarr_ew_program *p, const cuarr_ew_key *key) {
  cuarr_text t = {0};
  cuarr_text_put(&t, p->name);
  if (key->layout == CUARR_EW_CONTIG)
    cuarr_text_put(&t, "_contig");
  else if (key->layout == CUARR_EW_GENERIC)
    cuarr_text_put(&t, "_ndN");
  else
    cuarr_text_printf(&t, "_nd%d", key->layout);
  if (key->vec > 1)
    cuarr_text_printf(&t, "_v%d%s", key->vec, key->whole ? "w" : "");
  cuarr_text_put(&t, key->wide ? "_i64_" : "_i32_");
  for (int k = 0; k < key->n; k++) {
    cuarr_dtype st = (cuarr_dtype)key->op[k][0], vt = (cuarr_dtype)key->op[k][1];
    int flags = key->op[k][2];
    if (flags & CUARR_EW_SCALAR) {
      cuarr_text_printf(&t, "s%s", cuarr_codegen_dtype_code(vt));
    } else if (flags & CUARR_EW_RAW) {
      cuarr_text_printf(&t, "r%s", cuarr_codegen_dtype_code(st));
      if (!(flags & CUARR_EW_RAW_CONTIG))
        cuarr_text_printf(&t, "n%d", key->op[k][3]);
    } else {
      cuarr_text_printf(&t, "%s%s", flags & CUARR_EW_SPLAT ? "b" : "",
                        cuarr_codegen_dtype_code(st));
      if (vt != st)
        cuarr_text_printf(&t, "to%s", cuarr_codegen_dtype_code(vt));
    }
  }
  if (!t.failed && t.len > 200) {
    t.len = 180;
    t.p[t.len] = '\0';
    /* from `n` on: the device is not part of the text, so identical GPUs share one cubin */
    const size_t from = offsetof(cuarr_ew_key, n);
    cuarr_text_printf(&t, "_%016llx",
                      (unsigned long long)cuarr_hash_bytes(CUARR_HASH_SEED,
                                                           (const char *)key + from,
                                                           cuarr_ew_key_bytes(key) - from));
  }
  return cuarr_text_finish(&t);
}

/* ---------------------------------------------------------------- the kernel's cuarr_text */

typedef enum access {
  ACCESS_CONTIG,  /* element _cuarr_e of the pointer */
  ACCESS_LANE,    /* lane _cuarr_k of vector _cuarr_u (or the splat element _cuarr_u) */
  ACCESS_STRIDED, /* the element loaded for batch slot _cuarr_u */
} access;

typedef struct gen {
  cuarr_text *t;
  const cuarr_ew_program *p;
  const cuarr_ew_operand *ops;
  const cuarr_ew_key *key;
  int slot[CUARR_EW_MAX_OPERANDS]; /* operand -> its index in the layout, or -1 */
  int n_slots;
  bool one_vector; /* ACCESS_LANE: one vector per operand, _cuarr_v<k> (no [_cuarr_u]) */
  bool casts;      /* the kernel uses cuarr_cast or cuarr_load (common.cuh) */
} gen;

static int flags_of(const gen *g, int k) { return g->key->op[k][2]; }
static bool is_array(const gen *g, int k) { return flags_of(g, k) & CUARR_EW_ARRAY; }
static bool is_output(const gen *g, int k) { return flags_of(g, k) & CUARR_EW_OUTPUT; }
static bool is_splat(const gen *g, int k) { return flags_of(g, k) & CUARR_EW_SPLAT; }
static const char *storage_ctype(const gen *g, int k) {
  return cuarr_dtype_ctype((cuarr_dtype)g->key->op[k][0]);
}
static const char *vctype(const gen *g, int k) {
  return cuarr_codegen_var_ctype((cuarr_dtype)g->key->op[k][1]);
}

/* Whether operand k's variable is its element as memory holds it, read and written as a plain
 * C++ value: the same type, neither bool (read with cuarr_load, whose bytes other than 0/1
 * read as true) nor float16 (a class of its own).  Such operands need no cuarr_cast or
 * cuarr_load, function templates that NVRTC instantiates and optimises one by one: the
 * contiguous float32 kernel with plain reads compiles 1-2 ms sooner. */
static bool is_plain(const gen *g, int k) {
  const cuarr_dtype st = (cuarr_dtype)g->key->op[k][0], vt = (cuarr_dtype)g->key->op[k][1];
  return st == vt && st != CUARR_BOOL && st != CUARR_FLOAT16;
}

/* One element: `i`, the operands' variables, the operation, the outputs written back. */
static void put_element(gen *g, access a, const char *index, const char *in) {
  cuarr_text *t = g->t;
  FILL_AT(t, in, "const long long i = ${index};\n(void)i;\n", SLOT("index", index));
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    const char *vt = vctype(g, k);
    char at[64]; /* the element in memory, or (batch slots, splats) as loaded already */
    bool loaded = false;
    if (a == ACCESS_CONTIG)
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_e]", k);
    else if (a == ACCESS_LANE && !is_splat(g, k))
      snprintf(at, sizeof at, "_cuarr_v%d%s.v[_cuarr_k]", k, g->one_vector ? "" : "[_cuarr_u]");
    else
      snprintf(at, sizeof at, "_cuarr_v%d[_cuarr_u]", k), loaded = true;
    const char *load = is_plain(g, k) ? "${const}${type} ${name} = ${at};\n"
                       : loaded
                           ? "${const}${type} ${name} = cuarr_cast<${type}>(${at});\n"
                           : "${const}${type} ${name} = cuarr_cast<${type}>(cuarr_load(&${at}));\n";
    FILL_AT(t, in, load, SLOT("const", is_output(g, k) ? "" : "const "), SLOT("type", vt),
            SLOT("name", g->ops[k].name), SLOT("at", at));
    g->casts = g->casts || !is_plain(g, k);
  }
  /* The operation as written, in a block of its own.  The newline before ';' ends a `//`
   * comment on the operation's last line; the ';' lets an operation omit its last semicolon,
   * as CuPy's template allows. */
  cuarr_text_put_at(t, in, "{\n");
  FILL(t, "${operation}\n;\n", SLOT("operation", g->p->operation));
  cuarr_text_put_at(t, in, "}\n");
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k) || !is_output(g, k))
      continue;
    char at[64];
    if (a == ACCESS_CONTIG)
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_e]", k);
    else if (a == ACCESS_LANE)
      snprintf(at, sizeof at, "_cuarr_v%d%s.v[_cuarr_k]", k, g->one_vector ? "" : "[_cuarr_u]");
    else
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_off[_cuarr_u][%d]]", k, g->slot[k]);
    if (is_plain(g, k))
      FILL_AT(t, in, "${at} = ${name};\n", SLOT("at", at), SLOT("name", g->ops[k].name));
    else
      FILL_AT(t, in, "${at} = cuarr_cast<${type}>(${name});\n", SLOT("at", at),
              SLOT("type", storage_ctype(g, k)), SLOT("name", g->ops[k].name));
  }
}

/* The contiguous loops' first index and stride, written out (cuarr_thread_index and
 * cuarr_thread_count are common.cuh's, which these kernels may not need otherwise). */
#define THREAD_FIRST                                                                               \
  SLOT("first", "(_cuarr_I)blockIdx.x * (_cuarr_I)blockDim.x + (_cuarr_I)threadIdx.x")
#define THREAD_STEP SLOT("step", "(_cuarr_I)gridDim.x * (_cuarr_I)blockDim.x")

static void put_contig_scalar(gen *g) {
  cuarr_text *t = g->t;
  FILL(t,
       "    const _cuarr_I _cuarr_step = ${step};\n"
       "    for (_cuarr_I _cuarr_e = ${first}; _cuarr_e < _cuarr_n;\n"
       "         _cuarr_e += _cuarr_step) {\n",
       THREAD_STEP, THREAD_FIRST);
  put_element(g, ACCESS_CONTIG, "(long long)_cuarr_e", "      ");
  cuarr_text_put(t, "    }\n");
}

/* The contiguous vector loop: the vectors, then the lanes' elements, then the outputs' vectors
 * stored; the tail (count not a multiple of V) after it. */
static const char contig_vector_loop[] =
    "    const _cuarr_I _cuarr_first = ${first},\n"
    "                   _cuarr_step = ${step};\n"
    "    const _cuarr_I _cuarr_nv = _cuarr_n / ${v};\n"
    "    for (_cuarr_I _cuarr_j = _cuarr_first; _cuarr_j < _cuarr_nv; _cuarr_j += _cuarr_step) {\n";
static const char contig_vector_load[] =
    "      ${const}cuarr_ew_vec<${type}, ${v}> _cuarr_v${k} = "
    "((const cuarr_ew_vec<${type}, ${v}> *)_cuarr_p${k})[_cuarr_j];\n";
static const char contig_vector_lanes[] =
    "#pragma unroll\n"
    "      for (int _cuarr_k = 0; _cuarr_k < ${v}; ++_cuarr_k) {\n";
static const char contig_vector_store[] =
    "      ((cuarr_ew_vec<${type}, ${v}> *)_cuarr_p${k})[_cuarr_j] = _cuarr_v${k};\n";
static const char contig_vector_tail[] =
    "    if (_cuarr_first < _cuarr_n - _cuarr_nv * ${v}) {\n"
    "      const _cuarr_I _cuarr_e = _cuarr_nv * ${v} + _cuarr_first;\n";

/* One vector per operand and step (CUARR_EW_VECTOR_UNROLL is 1), with no loop over that one
 * vector: NVRTC spends most of a millisecond on a loop of one, even unrolled.  The vectors
 * are read and written as cuarr_ew_vec lvalues, not through function templates. */
static void put_contig_vector(gen *g) {
  cuarr_text *t = g->t;
  const int v = g->key->vec;
  _Static_assert(CUARR_EW_VECTOR_UNROLL == 1, "the contiguous vector loop moves one vector");
  FILL(t, contig_vector_loop, THREAD_FIRST, THREAD_STEP, INT_SLOT("v", v));
  /* Every operand's vector first, so that the loads are in flight together. */
  for (int k = 0; k < g->key->n; k++)
    if (is_array(g, k))
      FILL(t, contig_vector_load, SLOT("const", is_output(g, k) ? "" : "const "),
           SLOT("type", storage_ctype(g, k)), INT_SLOT("v", v), INT_SLOT("k", k));
  FILL(t, contig_vector_lanes, INT_SLOT("v", v));
  char index[64];
  snprintf(index, sizeof index, "(long long)_cuarr_j * %d + _cuarr_k", v);
  g->one_vector = true;
  put_element(g, ACCESS_LANE, index, "        ");
  g->one_vector = false;
  cuarr_text_put(t, "      }\n");
  for (int k = 0; k < g->key->n; k++)
    if (is_array(g, k) && is_output(g, k))
      FILL(t, contig_vector_store, SLOT("type", storage_ctype(g, k)), INT_SLOT("v", v),
           INT_SLOT("k", k));
  cuarr_text_put(t, "    }\n");
  /* A count of whole vectors needs no tail: its code, a second copy of the operation, takes
   * NVRTC 1.5 ms. */
  if (g->key->whole)
    return;
  /* The last n % V elements, one to a thread: a block has CUARR_EW_THREADS threads, more than
   * there are (an `if` compiles sooner than a loop that runs once). */
  _Static_assert(CUARR_EW_THREADS >= 16, "the tail has fewer elements than a block's threads");
  FILL(t, contig_vector_tail, INT_SLOT("v", v));
  put_element(g, ACCESS_CONTIG, "(long long)_cuarr_e", "      ");
  cuarr_text_put(t, "    }\n");
}

/* The strided loops: a batch of elements' offsets and loads in flight, then their elements. */
static const char strided_loop[] =
    "    const _cuarr_I _cuarr_n = _cuarr_L.n, _cuarr_step = cuarr_thread_count<_cuarr_I>();\n"
    "    for (_cuarr_I _cuarr_e0 = cuarr_thread_index<_cuarr_I>(); _cuarr_e0 < _cuarr_n;\n"
    "         _cuarr_e0 += ${batch} * _cuarr_step) {\n"
    "      _cuarr_I _cuarr_off[${batch}][${n_slots}];\n";
static const char strided_load_loop[] =
    "#pragma unroll\n"
    "      for (int _cuarr_u = 0; _cuarr_u < ${batch}; ++_cuarr_u) {\n"
    "        const _cuarr_I _cuarr_e = _cuarr_e0 + (_cuarr_I)_cuarr_u * _cuarr_step;\n"
    "        if (_cuarr_e < _cuarr_n) {\n"
    "          cuarr_offsets<${generic}>(_cuarr_L, _cuarr_e, _cuarr_off[_cuarr_u]);\n";
static const char strided_vector_load[] =
    "          _cuarr_v${k}[_cuarr_u] = cuarr_ew_vload_at<${v}>(_cuarr_p${k}, "
    "_cuarr_off[_cuarr_u][${slot}]);\n";
static const char strided_load[] = "          _cuarr_v${k}[_cuarr_u] = cuarr_load(_cuarr_p${k} + "
                                   "_cuarr_off[_cuarr_u][${slot}]);\n";
static const char strided_element_loop[] =
    "        }\n"
    "      }\n"
    "#pragma unroll\n"
    "      for (int _cuarr_u = 0; _cuarr_u < ${batch}; ++_cuarr_u) {\n"
    "        const _cuarr_I _cuarr_e = _cuarr_e0 + (_cuarr_I)_cuarr_u * _cuarr_step;\n"
    "        if (_cuarr_e < _cuarr_n) {\n";
static const char strided_lanes[] =
    "#pragma unroll\n"
    "          for (int _cuarr_k = 0; _cuarr_k < ${v}; ++_cuarr_k) {\n";
static const char strided_vector_store[] =
    "          cuarr_ew_vstore_at<${v}>(_cuarr_p${k}, _cuarr_off[_cuarr_u][${slot}], "
    "_cuarr_v${k}[_cuarr_u]);\n";

/* The strided loops, element by element (vec 1) or with the innermost axis in vectors. */
static void put_strided(gen *g) {
  cuarr_text *t = g->t;
  const int v = g->key->vec;
  const bool generic = g->key->layout == CUARR_EW_GENERIC;
  const int batch = v > 1     ? CUARR_EW_VECTOR_UNROLL
                    : generic ? CUARR_EW_GENERIC_BATCH
                              : CUARR_EW_STRIDED_BATCH;
  FILL(t, strided_loop, INT_SLOT("batch", batch), INT_SLOT("n_slots", g->n_slots));
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    if (v > 1 && !is_splat(g, k))
      FILL(t, "      cuarr_ew_vec<${type}, ${v}> _cuarr_v${k}[${batch}];\n",
           SLOT("type", storage_ctype(g, k)), INT_SLOT("v", v), INT_SLOT("k", k),
           INT_SLOT("batch", batch));
    else
      FILL(t, "      ${type} _cuarr_v${k}[${batch}];\n", SLOT("type", storage_ctype(g, k)),
           INT_SLOT("k", k), INT_SLOT("batch", batch));
  }
  FILL(t, strided_load_loop, INT_SLOT("batch", batch), SLOT("generic", generic ? "true" : "false"));
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    if (v > 1 && !is_splat(g, k))
      FILL(t, strided_vector_load, INT_SLOT("k", k), INT_SLOT("v", v),
           INT_SLOT("slot", g->slot[k]));
    else
      FILL(t, strided_load, INT_SLOT("k", k), INT_SLOT("slot", g->slot[k]));
  }
  FILL(t, strided_element_loop, INT_SLOT("batch", batch));
  if (v == 1) {
    put_element(g, ACCESS_STRIDED, "(long long)_cuarr_e", "          ");
  } else {
    FILL(t, strided_lanes, INT_SLOT("v", v));
    char index[64];
    snprintf(index, sizeof index, "(long long)_cuarr_e * %d + _cuarr_k", v);
    put_element(g, ACCESS_LANE, index, "            ");
    cuarr_text_put(t, "          }\n");
    for (int k = 0; k < g->key->n; k++)
      if (is_array(g, k) && is_output(g, k))
        FILL(t, strided_vector_store, INT_SLOT("v", v), INT_SLOT("k", k),
             INT_SLOT("slot", g->slot[k]));
  }
  cuarr_text_put(t, "        }\n"
                    "      }\n"
                    "    }\n");
}

/* The parameters: scalars by value under their names, raw arrays as cuarr_raw under theirs,
 * the other arrays as pointers _cuarr_p<k>; then the count or the layout. */
static void put_parameters(gen *g, const char *index_type) {
  cuarr_text *t = g->t;
  for (int k = 0; k < g->key->n; k++) {
    int flags = flags_of(g, k);
    const char *name = g->ops[k].name;
    if (flags & CUARR_EW_SCALAR)
      FILL(t, "const ${type} ${name}", SLOT("type", vctype(g, k)), SLOT("name", name));
    else if (flags & CUARR_EW_RAW)
      FILL(t, "const cuarr_raw<${type}, ${ndim}, ${contig}> ${name}", SLOT("type", vctype(g, k)),
           INT_SLOT("ndim", g->key->op[k][3]),
           SLOT("contig", flags & CUARR_EW_RAW_CONTIG ? "true" : "false"), SLOT("name", name));
    else
      FILL(t, "${const}${type} *_cuarr_p${k}", SLOT("const", is_output(g, k) ? "" : "const "),
           SLOT("type", storage_ctype(g, k)), INT_SLOT("k", k));
    cuarr_text_put(t, ",\n    ");
  }
  if (g->key->layout == CUARR_EW_CONTIG)
    FILL(t, "const ${I} _cuarr_n", SLOT("I", index_type));
  else
    FILL(t, "const cuarr_layout<${I}, ${axes}, ${n_slots}> _cuarr_L", SLOT("I", index_type),
         INT_SLOT("axes", g->key->layout == CUARR_EW_GENERIC ? CUARR_MAXDIM : g->key->layout),
         INT_SLOT("n_slots", g->n_slots));
}

static void put_kernel(gen *g, const char *kernel_name);

/* The headers, then the kernel (written first: the headers depend on what it uses).  Each
 * header only where needed, since NVRTC reads every line of a program and a new kernel's
 * first call waits for it: common.cuh where the kernel casts or loads through it, walks a
 * strided layout, has a raw or a float16 operand or the program's text names cuarr's code;
 * the float16 class (a fifth of what NVRTC parses) only where a float16 operand needs it.
 * elementwise.cu (the vector struct, `_ind`, cuarr_raw) is always there.  Batches that
 * compile several kernels as one program take a later kernel's headers where the earlier
 * ones lacked them: every header is guarded. */
static void put_program(gen *g, const char *kernel_name) {
  cuarr_text *t = g->t, kernel = {0};
  const cuarr_ew_program *p = g->p;
  const cuarr_ew_key *key = g->key;
  g->t = &kernel;
  put_kernel(g, kernel_name);
  g->t = t;
  bool half = false, raw = false;
  for (int k = 0; k < key->n; k++) {
    half = half || key->op[k][0] == CUARR_FLOAT16 || key->op[k][1] == CUARR_FLOAT16;
    raw = raw || (key->op[k][2] & CUARR_EW_RAW);
  }
  const char *texts[] = {p->operation, p->preamble, p->loop_prep, p->after_loop};
  const bool common = g->casts || half || raw || key->layout != CUARR_EW_CONTIG ||
                      cuarr_codegen_mentions_cuarr(texts, sizeof texts / sizeof texts[0]);
  cuarr_codegen_put_headers(t, (common ? CUARR_HEADER_COMMON : 0) | (half ? CUARR_HEADER_HALF : 0) |
                                   CUARR_HEADER_ELEMENTWISE);
  /* Placeholder typedefs, each once (repeating an identical typedef is legal C++ anyway). */
  const char *names[CUARR_EW_MAX_OPERANDS], *ctypes[CUARR_EW_MAX_OPERANDS];
  for (int k = 0; k < key->n; k++) {
    names[k] = g->ops[k].type_name;
    ctypes[k] = vctype(g, k);
  }
  cuarr_codegen_put_typedefs(t, key->n, names, ctypes);
  /* The preamble is guarded so that several variants of one program can share a source. */
  if (p->preamble && *p->preamble)
    FILL(t,
         "#ifndef _CUARR_PREAMBLE_${name}\n#define _CUARR_PREAMBLE_${name}\n${preamble}\n#endif\n",
         SLOT("name", p->name), SLOT("preamble", p->preamble));
  cuarr_text_take(t, &kernel);
}

/* The extern "C" kernel. */
static void put_kernel(gen *g, const char *kernel_name) {
  cuarr_text *t = g->t;
  const cuarr_ew_program *p = g->p;
  const cuarr_ew_key *key = g->key;
  const char *it = cuarr_codegen_index_ctype(key->wide);
  cuarr_codegen_put_kernel_head(t, CUARR_EW_THREADS, kernel_name);
  cuarr_text_put(t, "\n    ");
  put_parameters(g, it);
  FILL(t, ") {\n  typedef ${I} _cuarr_I;\n", SLOT("I", it));
  /* Launched as a programmatic dependent (cuarr_launch_dependent): wait for the previous
   * kernel to finish and its memory to be visible before anything reads or writes it, then
   * let the next kernel on the stream be scheduled at once, so that its launch overlaps this
   * one's run (it waits in turn).  The next one starts only after every block of this one has
   * started, so it never takes a multiprocessor this kernel still needs. */
  cuarr_codegen_put_launch_prologue(t, true);
  if (key->layout == CUARR_EW_CONTIG)
    cuarr_text_put(t, "  const cuarr_ew_indexer _ind = {(long long)_cuarr_n};\n");
  else
    FILL(t, "  const cuarr_ew_indexer _ind = {(long long)_cuarr_L.n * ${v}};\n",
         INT_SLOT("v", key->vec));
  cuarr_text_put(t, "  (void)_ind;\n");
  if (p->loop_prep && *p->loop_prep)
    FILL(t, "${loop_prep}\n;\n", SLOT("loop_prep", p->loop_prep));
  cuarr_text_put(t, "  {\n");
  if (key->layout != CUARR_EW_CONTIG)
    put_strided(g);
  else if (key->vec > 1)
    put_contig_vector(g);
  else
    put_contig_scalar(g);
  cuarr_text_put(t, "  }\n");
  if (p->after_loop && *p->after_loop)
    FILL(t, "${after_loop}\n;\n", SLOT("after_loop", p->after_loop));
  cuarr_text_put(t, "}\n");
}

cuarr_status cuarr_ew_key_source(const cuarr_ew_program *program, const cuarr_ew_operand *ops,
                                 const cuarr_ew_key *key, char **source, char **kernel_name) {
  *source = *kernel_name = NULL;
  CUARR_TRY(check_program(program, ops, key));
  gen g = {.p = program, .ops = ops, .key = key};
  for (int k = 0; k < key->n; k++)
    g.slot[k] = is_array(&g, k) ? g.n_slots++ : -1;
  if (key->layout != CUARR_EW_CONTIG && g.n_slots == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: a strided layout needs an array operand",
                      program->name);
  char *name = kernel_name_of(program, key);
  if (!name)
    return CUARR_OUT_OF_MEMORY;
  cuarr_text t = {0};
  g.t = &t;
  put_program(&g, name);
  char *program_text = cuarr_text_finish(&t);
  if (!program_text) {
    free(name);
    return CUARR_OUT_OF_MEMORY;
  }
  *source = program_text;
  *kernel_name = name;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- for tests */

char *cuarr_ew_source(const cuarr_ew_program *program, int n, const cuarr_ew_operand *ops,
                      const cuarr_dtype *storage_dtypes, int layout, bool wide,
                      char **kernel_name) {
  *kernel_name = NULL;
  if (n < 0 || n > CUARR_EW_MAX_OPERANDS || (n > 0 && (!ops || !storage_dtypes))) {
    cuarr_fail(CUARR_VALUE_ERROR, "bad operand list (%d operands)", n);
    return NULL;
  }
  if (layout < 0 || layout > CUARR_EW_LAYOUT_CONTIG_WHOLE) {
    cuarr_fail(CUARR_VALUE_ERROR, "unknown elementwise layout %d", layout);
    return NULL;
  }
  cuarr_ew_key key;
  memset(&key, 0, sizeof key);
  key.n = (uint8_t)n;
  key.wide = wide;
  size_t widest = 0;
  for (int k = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    uint8_t *op = key.op[k];
    op[1] = (uint8_t)o->var_dtype;
    if (!o->array) {
      op[0] = (uint8_t)o->var_dtype;
      op[2] = CUARR_EW_SCALAR;
      continue;
    }
    op[0] = (uint8_t)storage_dtypes[k];
    if (o->raw) {
      op[2] = CUARR_EW_RAW | (cuarr_array_is_c_contiguous(o->array) ? CUARR_EW_RAW_CONTIG : 0);
      op[3] = (uint8_t)o->array->ndim;
    } else {
      op[2] = CUARR_EW_ARRAY;
      if (cuarr_dtype_size(storage_dtypes[k]) > widest)
        widest = cuarr_dtype_size(storage_dtypes[k]);
    }
    if (o->output)
      op[2] |= CUARR_EW_OUTPUT;
  }
  int v = cuarr_ew_vector_width(widest);
  if (layout == CUARR_EW_LAYOUT_CONTIG_VECTOR || layout == CUARR_EW_LAYOUT_CONTIG_WHOLE) {
    key.layout = CUARR_EW_CONTIG;
    key.vec = (uint8_t)(widest ? v : 1);
    key.whole = layout == CUARR_EW_LAYOUT_CONTIG_WHOLE && key.vec > 1;
  } else if (layout == CUARR_EW_LAYOUT_CONTIG_SCALAR) {
    key.layout = CUARR_EW_CONTIG;
    key.vec = 1;
  } else if (layout >= CUARR_EW_LAYOUT_ROWS_VECTOR) { /* 7..10 */
    key.layout = (uint8_t)(layout - CUARR_EW_LAYOUT_ROWS_VECTOR + 1);
    key.vec = (uint8_t)v;
  } else {
    key.layout = (uint8_t)layout;
    key.vec = 1;
  }
  char *source = NULL;
  cuarr_ew_key_source(program, ops, &key, &source, kernel_name);
  return source;
}

/* ---------------------------------------------------------------- does it use `i`? */

static const char *skip_comment_or_literal(const char *p) {
  if (p[0] == '/' && p[1] == '/') {
    while (*p && *p != '\n')
      p++;
    return p;
  }
  if (p[0] == '/' && p[1] == '*') {
    const char *end = strstr(p + 2, "*/");
    return end ? end + 2 : p + strlen(p);
  }
  if (*p == '"' || *p == '\'') {
    char quote = *p++;
    while (*p && *p != quote) {
      if (*p == '\\' && p[1])
        p++;
      p++;
    }
    return *p ? p + 1 : p;
  }
  return NULL;
}

static bool text_uses_index(const char *p, const char *end) {
  while (p < end && *p) {
    const char *next = skip_comment_or_literal(p);
    if (next) {
      p = next;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
      const char *start = p;
      while (isalnum((unsigned char)*p) || *p == '_')
        p++;
      if (p - start == 1 && *start == 'i')
        return true;
    } else if (isdigit((unsigned char)*p)) {
      while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
        p++; /* 1e5, 0x1fu, 2.5f: no identifier inside */
    } else {
      p++;
    }
  }
  return false;
}

bool cuarr_ew_uses_index(const char *text) {
  return text && text_uses_index(text, text + strlen(text));
}

/* Preprocessor lines of a preamble (with their continuations): a macro the operation expands
 * may use `i` without the operation's text showing it. */
bool cuarr_ew_macros_use_index(const char *preamble) {
  if (!preamble)
    return false;
  for (const char *line = preamble; *line;) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    const char *end = p;
    for (;;) { /* the logical line: through backslash-newlines */
      end += strcspn(end, "\n");
      if (end > p && end[-1] == '\\' && *end)
        end++;
      else
        break;
    }
    if (*p == '#' && text_uses_index(p + 1, end))
      return true;
    line = *end ? end + 1 : end;
  }
  return false;
}
