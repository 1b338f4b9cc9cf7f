/*
 * raw_signature.c -- a user kernel's parameter types from the lowered name NVRTC gives a probe
 * (see raw_signature.h).
 *
 * The probe `&cuarr_signature_<decltype(k)>` lowers to `_Z16cuarr_signature_IFv<params>EE`:
 * the Itanium C++ ABI's mangling of a variable template specialised on k's function type.  The
 * decoder reads the subset of that grammar a kernel's parameters use -- builtin types, cv and
 * restrict qualifiers, pointers, references, arrays, class and enum names (nested, templated),
 * and substitutions (S_, S0_, ...: back references to earlier component types) -- and gives up
 * with an error on anything else, so that the caller falls back to checking sizes alone.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/raw_signature.h"

#define PROBE_NAME "cuarr_signature_"
#define MANGLED_PREFIX "_Z16" PROBE_NAME "IF"

const char *cuarr_signature_prelude(void) {
  return "\n/* cuarr: learns kernels' parameter types through name expressions */\n"
         "template <class F> __device__ char " PROBE_NAME " = 0;\n";
}

bool cuarr_signature_expression(const char *kernel, char *buf, size_t size) {
  int n = snprintf(buf, size, "&" PROBE_NAME "<decltype(%s)>", kernel);
  return n > 0 && (size_t)n < size;
}

/* ---------------------------------------------------------------- decoding */

/* What a decoded type is, as far as passing a Lua value goes. */
typedef struct decoded {
  cuarr_param_type t;
  bool is_half; /* the class __half: a 2-byte float, and a float16 pointee */
} decoded;

#define MAX_SUBSTITUTIONS 256

typedef struct decoder {
  const char *p;
  bool failed;
  decoded subs[MAX_SUBSTITUTIONS];
  int n_subs;
} decoder;

static void fail(decoder *d) { d->failed = true; }

static void remember(decoder *d, const decoded *t) {
  if (d->n_subs < MAX_SUBSTITUTIONS)
    d->subs[d->n_subs++] = *t;
  else
    fail(d);
}

/* A builtin type's code: its kind, size, dtype (as a pointee) and C spelling; false when c is
 * not one the decoder knows. */
static bool builtin(char c, decoded *out) {
  static const struct {
    char code;
    cuarr_param_kind kind;
    int size;
    int dtype;
    const char *spelled;
  } table[] = {
      {'b', CUARR_PARAM_BOOL, 1, CUARR_BOOL, "bool"},
      {'c', CUARR_PARAM_SIGNED, 1, -1, "char"}, /* plain char: bytes, any array */
      {'a', CUARR_PARAM_SIGNED, 1, CUARR_INT8, "signed char"},
      {'h', CUARR_PARAM_UNSIGNED, 1, CUARR_UINT8, "unsigned char"},
      {'s', CUARR_PARAM_SIGNED, 2, CUARR_INT16, "short"},
      {'t', CUARR_PARAM_UNSIGNED, 2, CUARR_UINT16, "unsigned short"},
      {'i', CUARR_PARAM_SIGNED, 4, CUARR_INT32, "int"},
      {'j', CUARR_PARAM_UNSIGNED, 4, CUARR_UINT32, "unsigned int"},
      {'l', CUARR_PARAM_SIGNED, 8, CUARR_INT64, "long"},
      {'m', CUARR_PARAM_UNSIGNED, 8, CUARR_UINT64, "unsigned long"},
      {'x', CUARR_PARAM_SIGNED, 8, CUARR_INT64, "long long"},
      {'y', CUARR_PARAM_UNSIGNED, 8, CUARR_UINT64, "unsigned long long"},
      {'f', CUARR_PARAM_FLOAT, 4, CUARR_FLOAT32, "float"},
      {'d', CUARR_PARAM_FLOAT, 8, CUARR_FLOAT64, "double"},
      {'v', CUARR_PARAM_OTHER, 0, -1, "void"},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].code == c) {
      *out = (decoded){.t = {.kind = table[i].kind, .size = table[i].size, .pointee = -1}};
      /* A builtin's dtype is what a pointer to it takes; the scalar itself keeps -1. */
      out->t.pointee = table[i].dtype;
      snprintf(out->t.spelled, sizeof out->t.spelled, "%s", table[i].spelled);
      return true;
    }
  return false;
}

/* <number>: a decimal length or extent. */
static long number(decoder *d) {
  if (!isdigit((unsigned char)*d->p)) {
    fail(d);
    return 0;
  }
  char *end;
  long n = strtol(d->p, &end, 10);
  d->p = end;
  return n;
}

/* <seq-id>_ after an S: S_ is 0, S0_ is 1, S1_ 2, ... in base 36 (0-9, A-Z). */
static void substitution(decoder *d, decoded *out) {
  long index = 0;
  if (*d->p != '_') {
    long seq = 0;
    while (isdigit((unsigned char)*d->p) || isupper((unsigned char)*d->p)) {
      seq = seq * 36 + (isdigit((unsigned char)*d->p) ? *d->p - '0' : *d->p - 'A' + 10);
      d->p++;
    }
    index = seq + 1;
  }
  if (*d->p != '_' || index >= d->n_subs) {
    fail(d);
    return;
  }
  d->p++;
  *out = d->subs[index];
}

static void type(decoder *d, decoded *out);

/* <template-args> after an I, up to and including the E; only their presence matters. */
static void template_args(decoder *d) {
  while (!d->failed && *d->p && *d->p != 'E') {
    if (*d->p == 'L') { /* a literal: L <type> <value> E */
      d->p++;
      decoded ignored;
      type(d, &ignored);
      while (*d->p && *d->p != 'E')
        d->p++;
      if (*d->p != 'E')
        fail(d);
      else
        d->p++;
    } else {
      decoded ignored;
      type(d, &ignored);
    }
  }
  if (*d->p != 'E')
    fail(d);
  else
    d->p++;
}

/* A class or enum: its spelling is the last identifier; __half is a 2-byte float. */
static void class_named(decoded *out, const char *name, long len) {
  *out = (decoded){.t = {.kind = CUARR_PARAM_OTHER, .pointee = -1}};
  snprintf(out->t.spelled, sizeof out->t.spelled, "%.*s", (int)len, name);
  if (len == 6 && memcmp(name, "__half", 6) == 0) {
    out->is_half = true;
    out->t.kind = CUARR_PARAM_FLOAT;
    out->t.size = 2;
  }
}

/* <source-name>: <length> <identifier>. */
static void source_name(decoder *d, decoded *out) {
  long len = number(d);
  if (d->failed || len <= 0 || (long)strnlen(d->p, (size_t)len) < len) {
    fail(d);
    return;
  }
  class_named(out, d->p, len);
  d->p += len;
}

/* N [CVR-qualifiers] <prefix components> E: each prefix is a substitution candidate. */
static void nested_name(decoder *d, decoded *out) {
  while (*d->p == 'K' || *d->p == 'V' || *d->p == 'r')
    d->p++;
  bool any = false;
  while (!d->failed && *d->p && *d->p != 'E') {
    if (*d->p == 'S') {
      d->p++;
      if (*d->p == 't') { /* St: ::std, not a candidate */
        d->p++;
        continue;
      }
      substitution(d, out);
    } else if (*d->p == 'I') {
      if (!any)
        fail(d);
      d->p++;
      template_args(d);
      remember(d, out);
      continue;
    } else {
      source_name(d, out);
      remember(d, out);
    }
    any = true;
  }
  if (!any || *d->p != 'E')
    fail(d);
  else
    d->p++;
}

/* out's spelling: before, the inner type's spelling, after (cut to fit: it is for messages). */
static void spell(decoded *out, const char *before, const char *inner, const char *after) {
  char *s = out->t.spelled;
  size_t room = sizeof out->t.spelled - 1, used = 0;
  for (const char *part[] = {before, inner, after}, **q = part; q < part + 3; q++)
    for (const char *c = *q; *c && used < room; c++)
      s[used++] = *c;
  s[used] = '\0';
}

/* A pointer's type from its pointee: the dtype it points to, when one dtype matches. */
static void pointer_to(const decoded *pointee, bool pointee_const, decoded *out) {
  *out = (decoded){.t = {.kind = CUARR_PARAM_POINTER, .size = 8, .pointee = -1}};
  out->t.pointee_const = pointee_const;
  if (pointee->is_half)
    out->t.pointee = CUARR_FLOAT16;
  else if (pointee->t.kind != CUARR_PARAM_OTHER && pointee->t.kind != CUARR_PARAM_POINTER)
    out->t.pointee = pointee->t.pointee;
  spell(out, pointee_const ? "const " : "", pointee->t.spelled, "*");
}

/* <type>, with every component that the ABI makes a candidate remembered in order. */
static void type(decoder *d, decoded *out) {
  if (d->failed)
    return;
  char c = *d->p;
  if (c == 'K' || c == 'V' || c == 'r') { /* qualified: the qualifiers mark the pointee */
    bool is_const = false;
    while (*d->p == 'K' || *d->p == 'V' || *d->p == 'r')
      is_const = is_const || *d->p++ == 'K';
    type(d, out);
    out->t.pointee_const = is_const;
    remember(d, out);
    return;
  }
  if (c == 'P' || c == 'R' || c == 'O') {
    d->p++;
    const char *at = d->p;
    bool is_const = false;
    for (const char *q = at; *q == 'K' || *q == 'V' || *q == 'r'; q++)
      is_const = is_const || *q == 'K';
    decoded pointee = {.t = {.kind = CUARR_PARAM_OTHER, .pointee = -1}}; /* if type() fails */
    type(d, &pointee);
    if (c == 'P') {
      pointer_to(&pointee, is_const, out);
    } else {
      *out = (decoded){.t = {.kind = CUARR_PARAM_OTHER, .pointee = -1}};
      spell(out, "", pointee.t.spelled, "&");
    }
    remember(d, out);
    return;
  }
  if (c == 'A') { /* an array type (as a pointee): A <extent> _ <type> */
    d->p++;
    if (*d->p != '_')
      number(d);
    if (*d->p != '_') {
      fail(d);
      return;
    }
    d->p++;
    decoded element = {.t = {.kind = CUARR_PARAM_OTHER, .pointee = -1}}; /* if type() fails */
    type(d, &element);
    *out = (decoded){.t = {.kind = CUARR_PARAM_OTHER, .pointee = -1}};
    spell(out, "", element.t.spelled, "[]");
    remember(d, out);
    return;
  }
  if (c == 'S') {
    d->p++;
    if (*d->p == 't') { /* St <source-name>: ::std::name */
      d->p++;
      source_name(d, out);
      remember(d, out);
    } else {
      substitution(d, out);
    }
    if (*d->p == 'I') { /* a substituted template name with arguments */
      d->p++;
      template_args(d);
      remember(d, out);
    }
    return;
  }
  if (c == 'N') {
    d->p++;
    nested_name(d, out);
    return;
  }
  if (isdigit((unsigned char)c)) {
    source_name(d, out);
    remember(d, out);
    if (*d->p == 'I') {
      d->p++;
      template_args(d);
      remember(d, out);
    }
    return;
  }
  if (c == 'D' && d->p[1] == 'h') { /* the IEEE half (_Float16) */
    d->p += 2;
    *out = (decoded){.t = {.kind = CUARR_PARAM_FLOAT, .size = 2, .pointee = CUARR_FLOAT16}};
    out->is_half = true;
    snprintf(out->t.spelled, sizeof out->t.spelled, "_Float16");
    return;
  }
  if (builtin(c, out)) {
    d->p++;
    return;
  }
  fail(d); /* function types, member pointers, vendor types, ...: not read */
}

cuarr_status cuarr_signature_decode(const char *lowered, cuarr_param_type *params, int max,
                                    int *n) {
  if (!lowered || strncmp(lowered, MANGLED_PREFIX, strlen(MANGLED_PREFIX)) != 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "not a kernel signature probe: %s",
                      lowered ? lowered : "(null)");
  decoder *d = calloc(1, sizeof *d);
  if (!d)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory to read a kernel signature");
  d->p = lowered + strlen(MANGLED_PREFIX);
  /* The variable template's name is the first candidate. */
  decoded name;
  class_named(&name, PROBE_NAME, (long)strlen(PROBE_NAME));
  remember(d, &name);
  if (*d->p == 'Y') /* an extern "C" function type, where the ABI marks it */
    d->p++;
  decoded result;
  type(d, &result); /* the return type: void for a kernel */
  int count = 0;
  if (strcmp(d->p, "vEE") == 0) /* (void): no parameters */
    d->p += 1;
  while (!d->failed && *d->p && *d->p != 'E') {
    decoded t;
    type(d, &t);
    if (d->failed)
      break;
    if (count == max) {
      fail(d);
      break;
    }
    params[count] = t.t;
    if (params[count].kind != CUARR_PARAM_POINTER)
      params[count].pointee = -1;
    count++;
  }
  bool ok = !d->failed && strcmp(d->p, "EE") == 0;
  free(d);
  if (!ok)
    return cuarr_fail(CUARR_VALUE_ERROR, "cannot read the kernel signature %s", lowered);
  *n = count;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- finding kernels in source */

/* Skip a comment, string or character literal starting at p; returns p when there is none. */
static const char *skip_literal(const char *p) {
  if (p[0] == '/' && p[1] == '/')
    return p + strcspn(p, "\n");
  if (p[0] == '/' && p[1] == '*') {
    const char *end = strstr(p + 2, "*/");
    return end ? end + 2 : p + strlen(p);
  }
  if (*p == '"' || *p == '\'') {
    char quote = *p++;
    while (*p && *p != quote && *p != '\n')
      p += (p[0] == '\\' && p[1]) ? 2 : 1;
    return *p == quote ? p + 1 : p;
  }
  return p;
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Whether the identifier at p (of length n) is `word`. */
static bool word_is(const char *p, size_t n, const char *word) {
  return strlen(word) == n && memcmp(p, word, n) == 0;
}

/* The words a kernel declaration may have between __global__ and its name. */
static bool declaration_word(const char *p, size_t n) {
  static const char *const words[] = {"void",         "static", "inline",     "__forceinline__",
                                      "__noinline__", "extern", "__device__", NULL};
  for (const char *const *w = words; *w; w++)
    if (word_is(p, n, *w))
      return true;
  return false;
}

/* Skip a balanced (...) starting at p. */
static const char *skip_parens(const char *p) {
  int depth = 0;
  do {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    p++;
  } while (*p && depth > 0);
  return p;
}

/* The name declared by the `__global__` at p (returned through name/len), or false when what
 * follows is not `[words] [__launch_bounds__(...)] name (`. */
static bool kernel_after(const char *p, const char **name, size_t *len) {
  for (;;) {
    while (isspace((unsigned char)*p))
      p++;
    if (!is_ident_char(*p) || isdigit((unsigned char)*p))
      return false;
    const char *start = p;
    while (is_ident_char(*p))
      p++;
    size_t n = (size_t)(p - start);
    if (declaration_word(start, n))
      continue;
    if (word_is(start, n, "__launch_bounds__") || word_is(start, n, "__attribute__") ||
        word_is(start, n, "__maxnreg__")) {
      while (isspace((unsigned char)*p))
        p++;
      if (*p != '(')
        return false;
      p = skip_parens(p);
      continue;
    }
    while (isspace((unsigned char)*p))
      p++;
    if (*p != '(')
      return false;
    *name = start;
    *len = n;
    return true;
  }
}

/* Whether `at` is on a preprocessor directive's line (`#include <cuda_fp16.h>` ends in a '>'
 * that closes no template parameter list). */
static bool in_directive(const char *source, const char *at) {
  const char *line = at;
  while (line > source && line[-1] != '\n')
    line--;
  while (*line == ' ' || *line == '\t')
    line++;
  return *line == '#';
}

/* Whether the declaration whose `__global__` starts at `at` is a template: the nearest token
 * before it (past the words a declaration may start with) closes a template parameter list. */
static bool is_template(const char *source, const char *at) {
  const char *p = at;
  for (;;) {
    while (p > source && isspace((unsigned char)p[-1]))
      p--;
    if (p > source && p[-1] == '"') { /* extern "C" */
      p--;
      while (p > source && p[-1] != '"')
        p--;
      if (p > source)
        p--;
      continue;
    }
    const char *end = p;
    while (p > source && is_ident_char(p[-1]))
      p--;
    if (p == end)
      return p > source && p[-1] == '>' && !in_directive(source, p - 1);
    if (!declaration_word(p, (size_t)(end - p)))
      return false;
  }
}

/* Whether `#if 0` (or `#if false`) opens at p, a directive's first character after '#'. */
static bool if_zero(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  if (strncmp(p, "if", 2) != 0 || is_ident_char(p[2]))
    return false;
  p += 2;
  while (*p == ' ' || *p == '\t')
    p++;
  return (*p == '0' && !is_ident_char(p[1])) ||
         (strncmp(p, "false", 5) == 0 && !is_ident_char(p[5]));
}

/* Skip from an `#if 0` directive to the line after its #endif or #else (nesting counted). */
static const char *skip_disabled(const char *p) {
  int depth = 0;
  while (*p) {
    const char *line = p;
    while (*line == ' ' || *line == '\t')
      line++;
    if (*line == '#') {
      line++;
      while (*line == ' ' || *line == '\t')
        line++;
      if (strncmp(line, "if", 2) == 0)
        depth++;
      else if (strncmp(line, "endif", 5) == 0 || (depth == 1 && strncmp(line, "el", 2) == 0))
        depth--;
    }
    p += strcspn(p, "\n");
    if (*p)
      p++;
    if (depth == 0)
      break;
  }
  return p;
}

/* Remove every name found more than once (overloads: decltype cannot pick one) from the
 * `used` bytes of names; returns how many names are left, packed from the start. */
static int drop_overloads(char *names, size_t used) {
  char *copy = malloc(used ? used : 1);
  if (!copy)
    return 0; /* no probes: the kernels are checked by size alone */
  memcpy(copy, names, used);
  char *out = names;
  int kept = 0;
  for (const char *p = copy; p < copy + used; p += strlen(p) + 1) {
    int seen = 0;
    for (const char *q = copy; q < copy + used; q += strlen(q) + 1)
      seen += strcmp(p, q) == 0;
    if (seen == 1) {
      size_t len = strlen(p) + 1;
      memcpy(out, p, len);
      out += len;
      kept++;
    }
  }
  free(copy);
  return kept;
}

int cuarr_signature_kernel_names(const char *source, char *names, size_t size, int max) {
  int count = 0;
  size_t used = 0;
  int depth = 0; /* braces other than namespace and extern "C" blocks */
  int scopes = 0;
  bool transparent[256]; /* per open brace: a namespace or linkage block, kernels inside count */
  bool line_start = true;
  for (const char *p = source; *p;) {
    const char *next = skip_literal(p);
    if (next != p) {
      p = next;
      continue;
    }
    if (line_start && *p == '#') { /* a directive: skipped, #if 0 blocks with it */
      p = if_zero(p + 1) ? skip_disabled(p) : p + strcspn(p, "\n");
      continue;
    }
    if (*p == '\n') {
      line_start = true;
      p++;
      continue;
    }
    if (!isspace((unsigned char)*p))
      line_start = false;
    if (*p == '{' || *p == '}') {
      if (*p == '{') {
        /* An extern "C" block or an unnamed namespace: what is declared inside is named
         * as at file scope.  A named namespace's kernels would need its name: not probed. */
        const char *q = p;
        while (q > source && isspace((unsigned char)q[-1]))
          q--;
        const char *word_end = q;
        while (q > source && is_ident_char(q[-1]))
          q--;
        bool block = (word_end > source && word_end[-1] == '"') ||
                     word_is(q, (size_t)(word_end - q), "namespace");
        if (scopes < 256)
          transparent[scopes] = block;
        scopes++;
        if (!block)
          depth++;
      } else if (scopes > 0) {
        scopes--;
        if (scopes >= 256 || !transparent[scopes])
          depth--;
      }
      p++;
      continue;
    }
    if (is_ident_char(*p)) {
      const char *start = p;
      while (is_ident_char(*p))
        p++;
      const char *name;
      size_t len;
      if (depth == 0 && word_is(start, (size_t)(p - start), "__global__") &&
          !(start > source && is_ident_char(start[-1])) && !is_template(source, start) &&
          kernel_after(p, &name, &len) && count < max && used + len + 1 <= size) {
        memcpy(names + used, name, len);
        names[used + len] = '\0';
        used += len + 1;
        count++;
      }
      continue;
    }
    p++;
  }
  return drop_overloads(names, used);
}
