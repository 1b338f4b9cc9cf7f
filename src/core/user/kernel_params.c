/*
 * kernel_params.c -- the parameter lists of user kernels ("float32 x, raw T y"), as CuPy's
 * ParameterInfo reads them, and the binding of type placeholders from arguments: shared by
 * ElementwiseKernel (user/elementwise_kernel.c) and ReductionKernel
 * (user/reduction_kernel.c).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "user/kernel_params.h"

/* ASCII only, whatever the C locale says a letter is (os.setlocale can change that): the name
 * goes into C++ source, and a placeholder into a 64-slot binding (kernel_params.h). */
static bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool cuarr_kp_is_identifier(const char *s, size_t n) {
  if (n == 0 || !(ascii_letter(s[0]) || s[0] == '_'))
    return false;
  for (size_t i = 1; i < n; i++)
    if (!ascii_letter(s[i]) && !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
      return false;
  return true;
}

char *cuarr_kp_copy(const char *s, size_t n) {
  char *c = malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = '\0';
  }
  return c;
}

char *cuarr_kp_dup(const char *s, bool *failed) {
  if (!s)
    return NULL;
  char *c = cuarr_kp_copy(s, strlen(s));
  *failed = *failed || !c;
  return c;
}

/* The dtype named exactly so (CuPy compares with the dtype's name: no char codes, no C
 * names), or -1. */
static int dtype_named(const char *s, size_t n) {
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    const char *name = cuarr_dtype_name((cuarr_dtype)d);
    if (strlen(name) == n && memcmp(name, s, n) == 0)
      return d;
  }
  return -1;
}

bool cuarr_kp_parse_type(const char *s, size_t n, cuarr_kparam *p) {
  p->dtype = dtype_named(s, n);
  if (p->dtype >= 0)
    return true;
  if (n != 1 || !cuarr_kp_is_identifier(s, 1))
    return false;
  p->placeholder[0] = s[0];
  return true;
}

/* One "[raw] type name" (the text between commas, [s, s + n)). */
static cuarr_status parse_param(const char *s, size_t n, const char *which, cuarr_kparam *out) {
  const char *tok[8];
  size_t len[8];
  int count = 0;
  for (size_t i = 0; i < n;) {
    while (i < n && isspace((unsigned char)s[i]))
      i++;
    if (i == n)
      break;
    size_t start = i;
    while (i < n && !isspace((unsigned char)s[i]))
      i++;
    if (count == 8)
      return cuarr_fail(CUARR_VALUE_ERROR, "syntax error in %s parameter \"%.*s\"", which, (int)n,
                        s);
    tok[count] = s + start;
    len[count++] = i - start;
  }
  if (count < 2)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "syntax error in %s parameter \"%.*s\" (expected [raw] type name)", which,
                      (int)n, s);
  memset(out, 0, sizeof *out);
  for (int t = 0; t < count - 2; t++) {
    if (len[t] == 3 && memcmp(tok[t], "raw", 3) == 0)
      out->raw = true;
    else if (!(len[t] == 10 && memcmp(tok[t], "_non_const", 10) == 0)) /* CuPy's; no effect */
      return cuarr_fail(CUARR_VALUE_ERROR, "unknown keyword \"%.*s\" in %s parameter \"%.*s\"",
                        (int)len[t], tok[t], which, (int)n, s);
  }
  const char *type = tok[count - 2], *name = tok[count - 1];
  size_t type_len = len[count - 2], name_len = len[count - 1];
  if (!cuarr_kp_parse_type(type, type_len, out))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "unknown type \"%.*s\" in %s parameter \"%.*s\" (a dtype name such as "
                      "float32, or a one-letter placeholder such as T)",
                      (int)type_len, type, which, (int)n, s);
  if (!cuarr_kp_is_identifier(name, name_len))
    return cuarr_fail(CUARR_VALUE_ERROR, "invalid name \"%.*s\" in %s parameter \"%.*s\"",
                      (int)name_len, name, which, (int)n, s);
  if ((name_len == 1 && name[0] == 'i') || (name_len == 4 && memcmp(name, "_ind", 4) == 0) ||
      (name_len >= 6 && (memcmp(name, "_cuarr", 6) == 0 || memcmp(name, "cuarr_", 6) == 0)))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "the name \"%.*s\" is reserved (i, _ind, _cuarr..., cuarr_...)",
                      (int)name_len, name);
  out->name = cuarr_kp_copy(name, name_len);
  if (!out->name)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel parameter");
  return CUARR_OK;
}

/* A comma-separated list into params[*count...]; an empty or blank list has none. */
cuarr_status cuarr_kp_parse_list(const char *list, const char *which, cuarr_kparam *params,
                                 int *count) {
  const char *p = list;
  while (isspace((unsigned char)*p))
    p++;
  if (!*p)
    return CUARR_OK;
  for (;;) {
    size_t n = strcspn(p, ",");
    if (*count == CUARR_KP_MAX)
      return cuarr_fail(CUARR_VALUE_ERROR, "a kernel takes at most %d parameters", CUARR_KP_MAX);
    CUARR_TRY(parse_param(p, n, which, &params[*count]));
    ++*count;
    if (!p[n])
      return CUARR_OK;
    p += n + 1;
  }
}

int cuarr_kp_count_commas(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == ',';
  return n;
}

/* bool < integers < floats, as NumPy orders kinds. */
static int kind_of(cuarr_dtype d) {
  return cuarr_dtype_is_bool(d) ? 0 : cuarr_dtype_is_float(d) ? 2 : 1;
}

void cuarr_kp_binding_init(cuarr_kp_binding *b) {
  for (int c = 0; c < 64; c++)
    b->dtype[c] = b->scalar_dtype[c] = b->rank[c] = -1;
}

cuarr_status cuarr_kp_bind_array(const cuarr_kparam *p, const cuarr_array *a, cuarr_kp_binding *b) {
  int want = p->dtype >= 0 ? p->dtype : b->dtype[cuarr_kp_slot(p)];
  if (want < 0) {
    b->dtype[cuarr_kp_slot(p)] = (int)a->dtype;
    return CUARR_OK;
  }
  if (want == (int)a->dtype)
    return CUARR_OK;
  if (p->dtype >= 0)
    return cuarr_fail(CUARR_TYPE_ERROR, "type mismatch: parameter %s is %s, the array is %s",
                      p->name, cuarr_dtype_name((cuarr_dtype)want), cuarr_dtype_name(a->dtype));
  return cuarr_fail(
      CUARR_TYPE_ERROR, "type mismatch: parameter %s is %s (bound to %s), the array is %s", p->name,
      p->placeholder, cuarr_dtype_name((cuarr_dtype)want), cuarr_dtype_name(a->dtype));
}

/* Scalars bind nothing in CuPy; here a placeholder that only scalars carry is bound from them
 * rather than failing. */
cuarr_status cuarr_kp_bind_types(const char *kernel, const cuarr_kparam *params, int nin, int n,
                                 const cuarr_operand *in, cuarr_dtype weak_float,
                                 cuarr_kp_binding *b, cuarr_dtype *types) {
  for (int j = 0; j < nin; j++) {
    unsigned c = cuarr_kp_slot(&params[j]);
    if (in[j].array || params[j].dtype >= 0 || b->dtype[c] >= 0)
      continue;
    cuarr_dtype sd = in[j].scalar.dtype;
    if ((unsigned)sd >= CUARR_NDTYPES)
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: scalar %s of unknown dtype", kernel,
                        params[j].name);
    cuarr_dtype d = !in[j].weak                ? sd
                    : cuarr_dtype_is_bool(sd)  ? CUARR_BOOL
                    : cuarr_dtype_is_float(sd) ? weak_float
                                               : CUARR_INT64;
    int rank = kind_of(sd) * 2 + (in[j].weak ? 0 : 1);
    if (rank > b->rank[c]) {
      b->rank[c] = rank;
      b->scalar_dtype[c] = (int)d;
    }
  }
  for (int j = 0; j < n; j++) {
    int d = cuarr_kp_type_of(&params[j], b);
    if (d < 0)
      return cuarr_fail(CUARR_TYPE_ERROR,
                        "kernel %s: cannot determine the type %s of parameter %s (no argument "
                        "binds it)",
                        kernel, params[j].placeholder, params[j].name);
    types[j] = (cuarr_dtype)d;
  }
  return CUARR_OK;
}

int cuarr_kp_type_of(const cuarr_kparam *p, const cuarr_kp_binding *b) {
  unsigned c = cuarr_kp_slot(p);
  return p->dtype >= 0 ? p->dtype : b->dtype[c] >= 0 ? b->dtype[c] : b->scalar_dtype[c];
}

bool cuarr_kp_broadcast_into(int *ndim, int64_t *shape, const cuarr_array *a) {
  int nd = a->ndim > *ndim ? a->ndim : *ndim;
  int64_t out[CUARR_MAXDIM];
  for (int d = 0; d < nd; d++) {
    int da = d - (nd - a->ndim), ds = d - (nd - *ndim);
    int64_t ea = da >= 0 ? a->shape[da] : 1, es = ds >= 0 ? shape[ds] : 1;
    if (ea != es && ea != 1 && es != 1)
      return false;
    out[d] = ea == 1 ? es : ea;
  }
  memcpy(shape, out, (size_t)nd * sizeof *shape);
  *ndim = nd;
  return true;
}

cuarr_status cuarr_kp_parse_signature(const char *in_params, const char *out_params,
                                      cuarr_kparam **params, int *nin, int *count) {
  *params = NULL;
  *nin = *count = 0;
  /* Bound the parameter count by the commas (the lists are parsed into one array). */
  int most = cuarr_kp_count_commas(in_params) + cuarr_kp_count_commas(out_params) + 2;
  if (most > CUARR_KP_MAX)
    most = CUARR_KP_MAX;
  cuarr_kparam *p = calloc((size_t)most, sizeof *p);
  if (!p)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for kernel parameters");
  int n = 0;
  cuarr_status s = cuarr_kp_parse_list(in_params, "input", p, &n);
  int inputs = n;
  if (s == CUARR_OK)
    s = cuarr_kp_parse_list(out_params, "output", p, &n);
  for (int i = 0; i < n && s == CUARR_OK; i++)
    for (int j = 0; j < i && s == CUARR_OK; j++)
      if (strcmp(p[i].name, p[j].name) == 0)
        s = cuarr_fail(CUARR_VALUE_ERROR, "duplicate parameter name \"%s\"", p[i].name);
  if (s != CUARR_OK) {
    cuarr_kp_free(p, n);
    return s;
  }
  *params = p;
  *nin = inputs;
  *count = n;
  return CUARR_OK;
}

void cuarr_kp_free(cuarr_kparam *params, int count) {
  for (int i = 0; params && i < count; i++)
    free(params[i].name);
  free(params);
}

cuarr_status cuarr_kp_check_name_options(const char **name, const char *default_name,
                                         const char *const *options, int n_options) {
  if (!*name)
    *name = default_name;
  if (!cuarr_kp_is_identifier(*name, strlen(*name)))
    return cuarr_fail(CUARR_VALUE_ERROR, "invalid kernel name \"%s\"", *name);
  if (n_options < 0 || (n_options > 0 && !options))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad compile option list");
  return CUARR_OK;
}

cuarr_status cuarr_kp_copy_options(const char *const *options, int n, char ***out, int *n_out) {
  *out = NULL;
  *n_out = 0;
  if (n <= 0)
    return CUARR_OK;
  char **copy = calloc((size_t)n, sizeof *copy);
  bool failed = !copy;
  for (int i = 0; copy && i < n; i++)
    copy[i] = cuarr_kp_dup(options[i] ? options[i] : "", &failed);
  if (failed) {
    cuarr_kp_free_options(copy, n);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for compile options");
  }
  *out = copy;
  *n_out = n;
  return CUARR_OK;
}

void cuarr_kp_free_options(char **options, int n) {
  for (int i = 0; options && i < n; i++)
    free(options[i]);
  free(options);
}
