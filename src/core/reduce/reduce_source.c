/*
 * reduce_source.c -- the program text of one reduction kernel variant: the templates of
 * kernels/reduction.cu, the operation struct made from the program's expressions, and an
 * extern "C" kernel that builds the struct from its parameters and runs one body.
 *
 * Every name the generator introduces starts with _cuarr, apart from CuPy's `_type_reduce`,
 * `a`, `b` and the indices `_i` and `_j`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/reduce_engine.h"

extern const char cuarr_kernel_source_common_cuh[];
extern const char cuarr_kernel_source_elementwise_half_cuh[];
extern const char cuarr_kernel_source_elementwise_cu[];
extern const char cuarr_kernel_source_reduction_cu[];

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

/* A variable's C type: float16 variables are of the float16 class (elementwise_half.cuh). */
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
 * kernel instantiates lengthens the compile of its first call. */
static void put_convert(text *t, cuarr_dtype storage, cuarr_dtype v, const char *x) {
  if (storage == CUARR_BOOL && v == CUARR_BOOL)
    putf(t, "(bool)(%s != 0)", x);
  else if (storage == CUARR_BOOL)
    putf(t, "cuarr_cast<%s>((bool)(%s != 0))", var_ctype(v), x);
  else if (storage == v && v != CUARR_FLOAT16)
    put(t, x);
  else
    putf(t, "cuarr_cast<%s>(%s)", var_ctype(v), x);
}

typedef struct gen {
  text *t;
  const cuarr_red_program *p;
  int n_in;
  const cuarr_red_operand *in;
  const cuarr_dtype *storage;
  const cuarr_red_types *types;
  cuarr_dtype out_storage;
  int n_slots; /* non-raw array inputs */
} gen;

static bool is_slot(const cuarr_red_operand *o) { return o->array && !o->raw; }

/* The struct's members: a pointer per array input, the scalars and raw arrays by value. */
static void put_members(gen *g) {
  for (int k = 0, s = 0; k < g->n_in; k++) {
    const cuarr_red_operand *o = &g->in[k];
    if (is_slot(o))
      putf(g->t, "  const %s *_cuarr_p%d;\n", storage_ctype(g->storage[k]), s++);
    else if (o->array)
      putf(g->t, "  cuarr_raw<%s, %d, %s> %s;\n", cuarr_dtype_ctype(g->storage[k]), o->array->ndim,
           cuarr_array_is_c_contiguous(o->array) ? "true" : "false", o->name);
    else
      putf(g->t, "  %s %s;\n", var_ctype(o->var_dtype), o->name);
  }
}

static void put_indices(text *t) {
  put(t, "    const long long _i = (long long)_cuarr_i, _j = (long long)_cuarr_j;\n"
         "    (void)_i;\n    (void)_j;\n");
}

/* The operation struct.  Its members take the kernel's index types (_cuarr_I, _cuarr_S,
 * typedef'd before it) rather than being templates, and only the map the body calls is there
 * (map1 in vector loops, map_at otherwise): less for NVRTC's front end to instantiate. */
static void put_op(gen *g, int vec) {
  text *t = g->t;
  const cuarr_red_program *p = g->p;
  put(t, "struct _cuarr_op {\n  typedef _type_reduce acc_t;\n");
  /* An enumerator, not a static constexpr member, which would become a global in the PTX. */
  putf(t, "  enum : bool { has_identity = %s };\n", p->identity ? "true" : "false");
  put_members(g);
  if (p->identity)
    putf(t, "  __device__ __forceinline__ acc_t identity() const { return (acc_t)(%s); }\n",
         p->identity);
  else
    put(t, "  __device__ __forceinline__ acc_t identity() const { return acc_t(); }\n");

  if (vec == 1) {
    put(t, "  __device__ __forceinline__ acc_t map_at(const _cuarr_S *_cuarr_off, _cuarr_I "
           "_cuarr_i, _cuarr_I _cuarr_j) const {\n");
    put_indices(t);
    for (int k = 0, s = 0; k < g->n_in; k++) {
      const cuarr_red_operand *o = &g->in[k];
      if (!is_slot(o))
        continue;
      char at[64];
      snprintf(at, sizeof at, "_cuarr_p%d[_cuarr_off[%d]]", s, s);
      putf(t, "    const %s %s = ", var_ctype(o->var_dtype), o->name);
      put_convert(t, g->storage[k], o->var_dtype, at);
      put(t, ";\n");
      s++;
    }
    putf(t, "    return (acc_t)(%s);\n  }\n", p->map_expr);
  } else { /* from an element already loaded (vector loops: one array input) */
    int k = 0;
    while (!is_slot(&g->in[k]))
      k++;
    putf(t,
         "  __device__ __forceinline__ acc_t map1(const %s _cuarr_v, _cuarr_I _cuarr_i, _cuarr_I "
         "_cuarr_j) const {\n",
         storage_ctype(g->storage[k]));
    put_indices(t);
    putf(t, "    const %s %s = ", var_ctype(g->in[k].var_dtype), g->in[k].name);
    put_convert(t, g->storage[k], g->in[k].var_dtype, "_cuarr_v");
    putf(t, ";\n    return (acc_t)(%s);\n  }\n", p->map_expr);
  }

  putf(t,
       "  __device__ __forceinline__ acc_t reduce(const acc_t &a, const acc_t &b) const {\n"
       "    return (acc_t)(%s);\n  }\n"
       "  __device__ __forceinline__ acc_t fold(const acc_t &a, const acc_t &b) const {\n"
       "    return (acc_t)(%s);\n  }\n",
       p->reduce_expr, p->fold_expr ? p->fold_expr : p->reduce_expr);
  const char *ov = var_ctype(g->types->out_var), *os = cuarr_dtype_ctype(g->out_storage);
  putf(t,
       "  __device__ __forceinline__ void post(const acc_t &a, %s *_cuarr_out, _cuarr_I _cuarr_i) "
       "const {\n"
       "    const long long _i = (long long)_cuarr_i;\n    (void)_i;\n"
       "    %s %s;\n    %s;\n",
       os, ov, g->types->out_name, p->post_expr);
  if (g->out_storage == g->types->out_var && g->out_storage != CUARR_FLOAT16)
    putf(t, "    *_cuarr_out = %s;\n  }\n};\n", g->types->out_name);
  else
    putf(t, "    *_cuarr_out = cuarr_cast<%s>(%s);\n  }\n};\n", os, g->types->out_name);
}

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

static void put_body(gen *g, int variant, int vec) {
  text *t = g->t;
  put(t, "  const _cuarr_op _cuarr_o = {");
  for (int k = 0, s = 0; k < g->n_in; k++) {
    if (is_slot(&g->in[k]))
      putf(t, "%s_cuarr_p%d", k ? ", " : "", s++);
    else
      putf(t, "%s_cuarr_a%d", k ? ", " : "", k);
  }
  put(t, "};\n");
  int first = 0;
  while (first < g->n_in && !is_slot(&g->in[first]))
    first++;
  const char *in0 = storage_ctype(g->storage[first]), *out = cuarr_dtype_ctype(g->out_storage);
  const char *kept = (variant & CUARR_RED_KEPT_NONE)  ? "CUARR_RED_AXES_NONE"
                     : (variant & CUARR_RED_KEPT_ONE) ? "CUARR_RED_AXES_ONE"
                                                      : "CUARR_RED_AXES_ANY";
  putf(t,
       "  cuarr_reduce_%s<_cuarr_op, %s, %s, _cuarr_I, _cuarr_S, %d, %d, %s, %s, %s>(_cuarr_o, "
       "_cuarr_p0, _cuarr_out, _cuarr_partial, _cuarr_counters, _cuarr_L);\n",
       (variant & CUARR_RED_COLS) ? "cols" : "rows", in0, out, g->n_slots, vec,
       (variant & CUARR_RED_SPLIT) ? "true" : "false", kept,
       (variant & CUARR_RED_REDUCED_ONE) ? "CUARR_RED_AXES_ONE" : "CUARR_RED_AXES_ANY");
}

static bool needs_half(const gen *g) {
  bool half = g->out_storage == CUARR_FLOAT16 || g->types->out_var == CUARR_FLOAT16 ||
              (!g->types->acc_type && g->types->acc == CUARR_FLOAT16);
  for (int k = 0; k < g->n_in; k++)
    half = half || g->in[k].var_dtype == CUARR_FLOAT16 ||
           (g->in[k].array && g->storage[k] == CUARR_FLOAT16);
  return half;
}

/* The headers, each only where needed: a new kernel's first call waits for NVRTC to parse
 * them. */
static void put_prelude(text *t, bool half, bool raw) {
  put(t, cuarr_kernel_source_common_cuh);
  put(t, "\n");
  if (half) { /* the float16 class */
    put(t, cuarr_kernel_source_elementwise_half_cuh);
    put(t, "\n");
  }
  if (raw) { /* cuarr_raw */
    put(t, cuarr_kernel_source_elementwise_cu);
    put(t, "\n");
  }
  put(t, cuarr_kernel_source_reduction_cu);
  put(t, "\n");
}

char *cuarr_red_prelude(void) {
  text t = {0};
  put_prelude(&t, true, true);
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
  text t = {0}, name = {0};
  gen g = {&t, program, n_in, in, storage, types, out_storage, 0};
  for (int k = 0; k < n_in; k++)
    g.n_slots += is_slot(&in[k]);
  if (g.n_slots == 0) {
    cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: no array input to reduce", program->name);
    return NULL;
  }

  putf(&name, "%s_%s%s%s%s_v%d_%s_", program->name, (variant & CUARR_RED_COLS) ? "cols" : "rows",
       (variant & CUARR_RED_SPLIT) ? "_split" : "",
       (variant & CUARR_RED_KEPT_NONE)  ? "_k0"
       : (variant & CUARR_RED_KEPT_ONE) ? "_k1"
                                        : "",
       (variant & CUARR_RED_REDUCED_ONE) ? "_r1" : "", vec, wide ? "i64" : "i32");
  for (int k = 0; k < n_in; k++)
    putf(&name, "%s%s%s", in[k].array ? (in[k].raw ? "r" : "") : "s",
         dtype_code(in[k].array ? storage[k] : in[k].var_dtype), dtype_code(in[k].var_dtype));
  putf(&name, "_%s%s%s", types->acc_type ? "x" : dtype_code(types->acc), dtype_code(types->out_var),
       dtype_code(out_storage));

  bool raw = false;
  for (int k = 0; k < n_in; k++)
    raw = raw || (in[k].array && in[k].raw);
  if (!ns)
    put_prelude(&t, needs_half(&g), raw);
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
  put_op(&g, vec);

  putf(&t, "\nextern \"C\" __global__ void __launch_bounds__(256)\n%s(", name.s ? name.s : "");
  put_parameters(&g);
  put(&t, ") {\n");
  /* Launched as a programmatic dependent (see elementwise_source.c); the next kernel is let
   * in by the bodies (cuarr_red_let_next_in), not here.  On an H100, sums of 10^7 float32:
   * 1852 GB/s letting it in here, 1995 with plain launches, 2182 as the bodies do it. */
  put(&t, "#if __CUDA_ARCH__ >= 900\n"
          "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
          "#endif\n");
  put_body(&g, variant, vec);
  put(&t, "}\n");
  if (ns)
    put(&t, "}\n");
  if (t.failed || name.failed) {
    free(t.s);
    free(name.s);
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the source of reduction %s", program->name);
    return NULL;
  }
  *kernel_name = name.s;
  return t.s;
}
