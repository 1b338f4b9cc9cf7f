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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise/elementwise_private.h"
#include "compile/hash.h"

#include "kernel_sources.h"

/* ---------------------------------------------------------------- growing text */

typedef struct text {
  char *p;
  size_t len, cap;
  bool failed; /* out of memory: later appends do nothing */
} text;

static void reserve(text *t, size_t more) {
  if (t->failed || t->len + more + 1 <= t->cap)
    return;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more + 1)
    cap *= 2;
  char *p = realloc(t->p, cap);
  if (!p) {
    t->failed = true;
    return;
  }
  t->p = p;
  t->cap = cap;
}

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  reserve(t, n);
  if (t->failed)
    return;
  memcpy(t->p + t->len, s, n + 1);
  t->len += n;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
putf(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  reserve(t, (size_t)n);
  if (t->failed)
    return;
  va_start(ap, fmt);
  vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* The text, or NULL with CUARR_OUT_OF_MEMORY set (freeing it). */
static char *finish(text *t) {
  if (!t->failed && t->p)
    return t->p;
  free(t->p);
  cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel source");
  return NULL;
}

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

/* A variable's type: float16 variables are of the float16 class (half.cuh), the
 * rest as memory holds them. */
static const char *var_ctype(cuarr_dtype d) {
  return d == CUARR_FLOAT16 ? "float16" : cuarr_dtype_ctype(d);
}

static const char *dtype_code(cuarr_dtype d) {
  static const char *const codes[CUARR_NDTYPES] = {"b1", "i1", "i2", "i4", "i8", "u1",
                                                   "u2", "u4", "u8", "f2", "f4", "f8"};
  return (unsigned)d < CUARR_NDTYPES ? codes[d] : "xx";
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
  text t = {0};
  put(&t, p->name);
  if (key->layout == CUARR_EW_CONTIG)
    put(&t, "_contig");
  else if (key->layout == CUARR_EW_GENERIC)
    put(&t, "_ndN");
  else
    putf(&t, "_nd%d", key->layout);
  if (key->vec > 1)
    putf(&t, "_v%d%s", key->vec, key->whole ? "w" : "");
  put(&t, key->wide ? "_i64_" : "_i32_");
  for (int k = 0; k < key->n; k++) {
    cuarr_dtype st = (cuarr_dtype)key->op[k][0], vt = (cuarr_dtype)key->op[k][1];
    int flags = key->op[k][2];
    if (flags & CUARR_EW_SCALAR) {
      putf(&t, "s%s", dtype_code(vt));
    } else if (flags & CUARR_EW_RAW) {
      putf(&t, "r%s", dtype_code(st));
      if (!(flags & CUARR_EW_RAW_CONTIG))
        putf(&t, "n%d", key->op[k][3]);
    } else {
      putf(&t, "%s%s", flags & CUARR_EW_SPLAT ? "b" : "", dtype_code(st));
      if (vt != st)
        putf(&t, "to%s", dtype_code(vt));
    }
  }
  if (!t.failed && t.len > 200) {
    t.len = 180;
    t.p[t.len] = '\0';
    /* from `n` on: the device is not part of the text, so identical GPUs share one cubin */
    const size_t from = offsetof(cuarr_ew_key, n);
    putf(&t, "_%016llx",
         (unsigned long long)cuarr_hash_bytes(CUARR_HASH_SEED, (const char *)key + from,
                                              cuarr_ew_key_bytes(key) - from));
  }
  return finish(&t);
}

/* ---------------------------------------------------------------- the kernel's text */

typedef enum access {
  ACCESS_CONTIG,  /* element _cuarr_e of the pointer */
  ACCESS_LANE,    /* lane _cuarr_k of vector _cuarr_u (or the splat element _cuarr_u) */
  ACCESS_STRIDED, /* the element loaded for batch slot _cuarr_u */
} access;

typedef struct gen {
  text *t;
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
static const char *vctype(const gen *g, int k) { return var_ctype((cuarr_dtype)g->key->op[k][1]); }

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
  text *t = g->t;
  putf(t, "%sconst long long i = %s;\n%s(void)i;\n", in, index, in);
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    const char *vt = vctype(g, k);
    putf(t, "%s%s%s %s = ", in, is_output(g, k) ? "" : "const ", vt, g->ops[k].name);
    char at[64]; /* the element in memory, or (batch slots, splats) as loaded already */
    bool loaded = false;
    if (a == ACCESS_CONTIG)
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_e]", k);
    else if (a == ACCESS_LANE && !is_splat(g, k))
      snprintf(at, sizeof at, "_cuarr_v%d%s.v[_cuarr_k]", k, g->one_vector ? "" : "[_cuarr_u]");
    else
      snprintf(at, sizeof at, "_cuarr_v%d[_cuarr_u]", k), loaded = true;
    if (is_plain(g, k))
      putf(t, "%s;\n", at);
    else if (loaded)
      putf(t, "cuarr_cast<%s>(%s);\n", vt, at);
    else
      putf(t, "cuarr_cast<%s>(cuarr_load(&%s));\n", vt, at);
    g->casts = g->casts || !is_plain(g, k);
  }
  /* The newline before ';' ends a `//` comment on the operation's last line; the ';' lets
   * an operation omit its last semicolon, as CuPy's template allows. */
  putf(t, "%s{\n%s\n;\n%s}\n", in, g->p->operation, in);
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k) || !is_output(g, k))
      continue;
    const char *st = storage_ctype(g, k), *name = g->ops[k].name;
    if (a == ACCESS_CONTIG)
      putf(t, "%s_cuarr_p%d[_cuarr_e] = ", in, k);
    else if (a == ACCESS_LANE)
      putf(t, "%s_cuarr_v%d%s.v[_cuarr_k] = ", in, k, g->one_vector ? "" : "[_cuarr_u]");
    else
      putf(t, "%s_cuarr_p%d[_cuarr_off[_cuarr_u][%d]] = ", in, k, g->slot[k]);
    if (is_plain(g, k))
      putf(t, "%s;\n", name);
    else
      putf(t, "cuarr_cast<%s>(%s);\n", st, name);
  }
}

/* The contiguous loops' first index and stride, written out (cuarr_thread_index and
 * cuarr_thread_count are common.cuh's, which these kernels may not need otherwise). */
static const char thread_first[] =
    "(_cuarr_I)blockIdx.x * (_cuarr_I)blockDim.x + (_cuarr_I)threadIdx.x";
static const char thread_step[] = "(_cuarr_I)gridDim.x * (_cuarr_I)blockDim.x";

static void put_contig_scalar(gen *g) {
  text *t = g->t;
  putf(t,
       "    const _cuarr_I _cuarr_step = %s;\n"
       "    for (_cuarr_I _cuarr_e = %s; _cuarr_e < _cuarr_n;\n"
       "         _cuarr_e += _cuarr_step) {\n",
       thread_step, thread_first);
  put_element(g, ACCESS_CONTIG, "(long long)_cuarr_e", "      ");
  put(t, "    }\n");
}

/* One vector per operand and step (CUARR_EW_VECTOR_UNROLL is 1), with no loop over that one
 * vector: NVRTC spends most of a millisecond on a loop of one, even unrolled.  The vectors
 * are read and written as cuarr_ew_vec lvalues, not through function templates. */
static void put_contig_vector(gen *g) {
  text *t = g->t;
  const int v = g->key->vec;
  _Static_assert(CUARR_EW_VECTOR_UNROLL == 1, "the contiguous vector loop moves one vector");
  putf(t,
       "    const _cuarr_I _cuarr_first = %s,\n"
       "                   _cuarr_step = %s;\n"
       "    const _cuarr_I _cuarr_nv = _cuarr_n / %d;\n"
       "    for (_cuarr_I _cuarr_j = _cuarr_first; _cuarr_j < _cuarr_nv; _cuarr_j += _cuarr_step) "
       "{\n",
       thread_first, thread_step, v);
  /* Every operand's vector first, so that the loads are in flight together. */
  for (int k = 0; k < g->key->n; k++)
    if (is_array(g, k))
      putf(t,
           "      %scuarr_ew_vec<%s, %d> _cuarr_v%d = ((const cuarr_ew_vec<%s, %d> *)_cuarr_p%d)"
           "[_cuarr_j];\n",
           is_output(g, k) ? "" : "const ", storage_ctype(g, k), v, k, storage_ctype(g, k), v, k);
  putf(t,
       "#pragma unroll\n"
       "      for (int _cuarr_k = 0; _cuarr_k < %d; ++_cuarr_k) {\n",
       v);
  char index[64];
  snprintf(index, sizeof index, "(long long)_cuarr_j * %d + _cuarr_k", v);
  g->one_vector = true;
  put_element(g, ACCESS_LANE, index, "        ");
  g->one_vector = false;
  put(t, "      }\n");
  for (int k = 0; k < g->key->n; k++)
    if (is_array(g, k) && is_output(g, k))
      putf(t, "      ((cuarr_ew_vec<%s, %d> *)_cuarr_p%d)[_cuarr_j] = _cuarr_v%d;\n",
           storage_ctype(g, k), v, k, k);
  put(t, "    }\n");
  /* A count of whole vectors needs no tail: its code, a second copy of the operation, takes
   * NVRTC 1.5 ms. */
  if (g->key->whole)
    return;
  /* The last n %% V elements, one to a thread: a block has CUARR_EW_THREADS threads, more than
   * there are (an `if` compiles sooner than a loop that runs once). */
  _Static_assert(CUARR_EW_THREADS >= 16, "the tail has fewer elements than a block's threads");
  putf(t,
       "    if (_cuarr_first < _cuarr_n - _cuarr_nv * %d) {\n"
       "      const _cuarr_I _cuarr_e = _cuarr_nv * %d + _cuarr_first;\n",
       v, v);
  put_element(g, ACCESS_CONTIG, "(long long)_cuarr_e", "      ");
  put(t, "    }\n");
}

/* The strided loops, element by element (vec 1) or with the innermost axis in vectors. */
static void put_strided(gen *g) {
  text *t = g->t;
  const int v = g->key->vec;
  const bool generic = g->key->layout == CUARR_EW_GENERIC;
  const int batch = v > 1     ? CUARR_EW_VECTOR_UNROLL
                    : generic ? CUARR_EW_GENERIC_BATCH
                              : CUARR_EW_STRIDED_BATCH;
  putf(t,
       "    const _cuarr_I _cuarr_n = _cuarr_L.n, _cuarr_step = cuarr_thread_count<_cuarr_I>();\n"
       "    for (_cuarr_I _cuarr_e0 = cuarr_thread_index<_cuarr_I>(); _cuarr_e0 < _cuarr_n;\n"
       "         _cuarr_e0 += %d * _cuarr_step) {\n"
       "      _cuarr_I _cuarr_off[%d][%d];\n",
       batch, batch, g->n_slots);
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    if (v > 1 && !is_splat(g, k))
      putf(t, "      cuarr_ew_vec<%s, %d> _cuarr_v%d[%d];\n", storage_ctype(g, k), v, k, batch);
    else
      putf(t, "      %s _cuarr_v%d[%d];\n", storage_ctype(g, k), k, batch);
  }
  putf(t,
       "#pragma unroll\n"
       "      for (int _cuarr_u = 0; _cuarr_u < %d; ++_cuarr_u) {\n"
       "        const _cuarr_I _cuarr_e = _cuarr_e0 + (_cuarr_I)_cuarr_u * _cuarr_step;\n"
       "        if (_cuarr_e < _cuarr_n) {\n"
       "          cuarr_offsets<%s>(_cuarr_L, _cuarr_e, _cuarr_off[_cuarr_u]);\n",
       batch, generic ? "true" : "false");
  for (int k = 0; k < g->key->n; k++) {
    if (!is_array(g, k))
      continue;
    if (v > 1 && !is_splat(g, k))
      putf(t,
           "          _cuarr_v%d[_cuarr_u] = cuarr_ew_vload_at<%d>(_cuarr_p%d, "
           "_cuarr_off[_cuarr_u][%d]);\n",
           k, v, k, g->slot[k]);
    else
      putf(t,
           "          _cuarr_v%d[_cuarr_u] = cuarr_load(_cuarr_p%d + _cuarr_off[_cuarr_u][%d]);\n",
           k, k, g->slot[k]);
  }
  putf(t,
       "        }\n"
       "      }\n"
       "#pragma unroll\n"
       "      for (int _cuarr_u = 0; _cuarr_u < %d; ++_cuarr_u) {\n"
       "        const _cuarr_I _cuarr_e = _cuarr_e0 + (_cuarr_I)_cuarr_u * _cuarr_step;\n"
       "        if (_cuarr_e < _cuarr_n) {\n",
       batch);
  if (v == 1) {
    put_element(g, ACCESS_STRIDED, "(long long)_cuarr_e", "          ");
  } else {
    putf(t,
         "#pragma unroll\n"
         "          for (int _cuarr_k = 0; _cuarr_k < %d; ++_cuarr_k) {\n",
         v);
    char index[64];
    snprintf(index, sizeof index, "(long long)_cuarr_e * %d + _cuarr_k", v);
    put_element(g, ACCESS_LANE, index, "            ");
    put(t, "          }\n");
    for (int k = 0; k < g->key->n; k++)
      if (is_array(g, k) && is_output(g, k))
        putf(t,
             "          cuarr_ew_vstore_at<%d>(_cuarr_p%d, _cuarr_off[_cuarr_u][%d], "
             "_cuarr_v%d[_cuarr_u]);\n",
             v, k, g->slot[k], k);
  }
  put(t, "        }\n"
         "      }\n"
         "    }\n");
}

static void put_parameters(gen *g, const char *index_type) {
  text *t = g->t;
  for (int k = 0; k < g->key->n; k++) {
    int flags = flags_of(g, k);
    const char *name = g->ops[k].name;
    if (flags & CUARR_EW_SCALAR)
      putf(t, "const %s %s", vctype(g, k), name);
    else if (flags & CUARR_EW_RAW)
      putf(t, "const cuarr_raw<%s, %d, %s> %s", vctype(g, k), g->key->op[k][3],
           flags & CUARR_EW_RAW_CONTIG ? "true" : "false", name);
    else
      putf(t, "%s%s *_cuarr_p%d", is_output(g, k) ? "" : "const ", storage_ctype(g, k), k);
    put(t, ",\n    ");
  }
  if (g->key->layout == CUARR_EW_CONTIG)
    putf(t, "const %s _cuarr_n", index_type);
  else
    putf(t, "const cuarr_layout<%s, %d, %d> _cuarr_L", index_type,
         g->key->layout == CUARR_EW_GENERIC ? CUARR_MAXDIM : g->key->layout, g->n_slots);
}

static void put_kernel(gen *g, const char *kernel_name);

/* Whether the program's own text names something of common.cuh's or half.cuh's
 * (every name there starts with cuarr, CUARR or __half): the built-ins' preambles call
 * ufunc_math.cuh's helpers, and a user's kernel may call anything. */
static bool mentions_cuarr(const cuarr_ew_program *p) {
  const char *texts[] = {p->operation, p->preamble, p->loop_prep, p->after_loop};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
    if (texts[i] && (strcasestr(texts[i], "cuarr") || strcasestr(texts[i], "__half")))
      return true;
  return false;
}

/* The headers, then the kernel (written first: the headers depend on what it uses).  Each
 * header only where needed, since NVRTC reads every line of a program and a new kernel's
 * first call waits for it: common.cuh where the kernel casts or loads through it, walks a
 * strided layout, has a raw or a float16 operand or the program's text names cuarr's code;
 * the float16 class (a fifth of what NVRTC parses) only where a float16 operand needs it.
 * elementwise.cu (the vector struct, `_ind`, cuarr_raw) is always there.  Batches that
 * compile several kernels as one program take a later kernel's headers where the earlier
 * ones lacked them: every header is guarded. */
static void put_program(gen *g, const char *kernel_name) {
  text *t = g->t, kernel = {0};
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
  if (g->casts || half || raw || key->layout != CUARR_EW_CONTIG || mentions_cuarr(p)) {
    put(t, cuarr_kernel_source_common_cuh);
    put(t, "\n");
  }
  if (half) {
    put(t, cuarr_kernel_source_half_cuh);
    put(t, "\n");
  }
  put(t, cuarr_kernel_source_elementwise_cu);
  put(t, "\n");
  /* Placeholder typedefs, each once (repeating an identical typedef is legal C++ anyway). */
  for (int k = 0; k < key->n; k++) {
    const char *tn = g->ops[k].type_name;
    bool seen = false;
    for (int j = 0; j < k && tn && !seen; j++)
      seen = g->ops[j].type_name && strcmp(g->ops[j].type_name, tn) == 0;
    if (tn && !seen)
      putf(t, "typedef %s %s;\n", vctype(g, k), tn);
  }
  /* The preamble is guarded so that several variants of one program can share a source. */
  if (p->preamble && *p->preamble)
    putf(t, "#ifndef _CUARR_PREAMBLE_%s\n#define _CUARR_PREAMBLE_%s\n%s\n#endif\n", p->name,
         p->name, p->preamble);
  if (kernel.failed)
    t->failed = true;
  else if (kernel.p)
    put(t, kernel.p);
  free(kernel.p);
}

/* The extern "C" kernel. */
static void put_kernel(gen *g, const char *kernel_name) {
  text *t = g->t;
  const cuarr_ew_program *p = g->p;
  const cuarr_ew_key *key = g->key;
  const char *it = key->wide ? "unsigned long long" : "unsigned int";
  putf(t, "\nextern \"C\" __global__ void __launch_bounds__(%d)\n%s(\n    ", CUARR_EW_THREADS,
       kernel_name);
  put_parameters(g, it);
  putf(t, ") {\n  typedef %s _cuarr_I;\n", it);
  /* Launched as a programmatic dependent (cuarr_launch_dependent): wait for the previous
   * kernel to finish and its memory to be visible before anything reads or writes it, then
   * let the next kernel on the stream be scheduled at once, so that its launch overlaps this
   * one's run (it waits in turn).  The next one starts only after every block of this one has
   * started, so it never takes a multiprocessor this kernel still needs. */
  put(t, "#if __CUDA_ARCH__ >= 900\n"
         "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
         "  asm volatile(\"griddepcontrol.launch_dependents;\");\n"
         "#endif\n");
  if (key->layout == CUARR_EW_CONTIG)
    put(t, "  const cuarr_ew_indexer _ind = {(long long)_cuarr_n};\n");
  else
    putf(t, "  const cuarr_ew_indexer _ind = {(long long)_cuarr_L.n * %d};\n", key->vec);
  put(t, "  (void)_ind;\n");
  if (p->loop_prep && *p->loop_prep)
    putf(t, "%s\n;\n", p->loop_prep);
  put(t, "  {\n");
  if (key->layout != CUARR_EW_CONTIG)
    put_strided(g);
  else if (key->vec > 1)
    put_contig_vector(g);
  else
    put_contig_scalar(g);
  put(t, "  }\n");
  if (p->after_loop && *p->after_loop)
    putf(t, "%s\n;\n", p->after_loop);
  put(t, "}\n");
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
  text t = {0};
  g.t = &t;
  put_program(&g, name);
  char *program_text = finish(&t);
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
