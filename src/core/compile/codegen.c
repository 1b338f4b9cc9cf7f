/*
 * codegen.c -- the one code generator's tools (codegen.h): the growing text, templates with
 * named slots, the names of dtypes in generated code, and the pieces every program repeats.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/codegen.h"

#include "kernel_sources.h"

/* ---------------------------------------------------------------- the text */

static bool reserve(cuarr_text *t, size_t more) {
  if (t->failed)
    return false;
  if (t->len + more + 1 <= t->cap)
    return true;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more + 1)
    cap *= 2;
  char *p = realloc(t->p, cap);
  if (!p) {
    t->failed = true;
    return false;
  }
  t->p = p;
  t->cap = cap;
  return true;
}

void cuarr_text_putn(cuarr_text *t, const char *s, size_t n) {
  if (!reserve(t, n))
    return;
  memcpy(t->p + t->len, s, n);
  t->len += n;
  t->p[t->len] = '\0';
}

void cuarr_text_put(cuarr_text *t, const char *s) { cuarr_text_putn(t, s, strlen(s)); }

void cuarr_text_printf(cuarr_text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = true;
    return;
  }
  if (!reserve(t, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

void cuarr_text_take(cuarr_text *t, cuarr_text *part) {
  if (part->failed && !t->failed) {
    t->failed = true;
    memcpy(t->bad_slot, part->bad_slot, sizeof t->bad_slot);
  } else if (part->p) {
    cuarr_text_putn(t, part->p, part->len);
  }
  cuarr_text_free(part);
}

char *cuarr_text_finish(cuarr_text *t) {
  if (!t->failed && t->p)
    return t->p;
  if (!t->failed && reserve(t, 0)) { /* nothing was written: the empty text */
    t->p[0] = '\0';
    return t->p;
  }
  free(t->p);
  t->p = NULL;
  if (t->bad_slot[0])
    cuarr_fail(CUARR_VALUE_ERROR, "code generator: template slot %s", t->bad_slot);
  else
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel source");
  return NULL;
}

void cuarr_text_free(cuarr_text *t) {
  free(t->p);
  t->p = NULL;
  t->len = t->cap = 0;
}

/* ---------------------------------------------------------------- templates */

static void slot_error(cuarr_text *t, const char *what, const char *name, size_t len) {
  if (!t->bad_slot[0])
    snprintf(t->bad_slot, sizeof t->bad_slot, "${%.*s} %s", (int)len, name, what);
  t->failed = true;
}

/* n characters of a template's own text, each line it starts indented (a line that starts with
 * `#`, a preprocessor line, is not); *line_start: whether the text so far ends a line. */
static void put_template_text(cuarr_text *t, const char *indent, const char *s, size_t n,
                              bool *line_start) {
  if (!*indent) {
    cuarr_text_putn(t, s, n);
    return;
  }
  while (n > 0) {
    if (*line_start && *s != '#' && *s != '\n')
      cuarr_text_put(t, indent);
    size_t line = 0;
    while (line < n && s[line] != '\n')
      line++;
    if (line < n)
      line++; /* with its newline */
    cuarr_text_putn(t, s, line);
    *line_start = s[line - 1] == '\n';
    s += line;
    n -= line;
  }
}

void cuarr_text_fill_indented(cuarr_text *t, const char *indent, const char *tmpl,
                              const cuarr_slot *slots, int n_slots) {
  enum { MAX_SLOTS = 64 };
  if (n_slots > MAX_SLOTS) {
    slot_error(t, "table too long", "", 0);
    return;
  }
  unsigned long long used = 0;
  bool line_start = true;
  const char *p = tmpl;
  for (;;) {
    const char *open = strstr(p, "${");
    if (!open) {
      put_template_text(t, indent, p, strlen(p), &line_start);
      break;
    }
    put_template_text(t, indent, p, (size_t)(open - p), &line_start);
    const char *name = open + 2, *close = strchr(name, '}');
    if (!close) {
      slot_error(t, "not closed", name, strcspn(name, "\n"));
      return;
    }
    size_t len = (size_t)(close - name);
    int k = 0;
    while (k < n_slots && !(strncmp(slots[k].name, name, len) == 0 && slots[k].name[len] == '\0'))
      k++;
    if (k == n_slots) {
      slot_error(t, "has no value", name, len);
      return;
    }
    used |= 1ull << k;
    if (line_start && *indent)
      cuarr_text_put(t, indent);
    if (slots[k].text)
      cuarr_text_put(t, slots[k].text);
    else
      cuarr_text_printf(t, "%lld", slots[k].number);
    line_start = false; /* a value's own newlines (a user's expression) start no template line */
    p = close + 1;
  }
  for (int k = 0; k < n_slots; k++)
    if (!(used >> k & 1)) {
      slot_error(t, "is not in the template", slots[k].name, strlen(slots[k].name));
      return;
    }
}

void cuarr_text_put_at(cuarr_text *t, const char *indent, const char *tmpl) {
  cuarr_text_fill_indented(t, indent, tmpl, NULL, 0);
}

void cuarr_text_fill(cuarr_text *t, const char *tmpl, const cuarr_slot *slots, int n_slots) {
  cuarr_text_fill_indented(t, "", tmpl, slots, n_slots);
}

/* ---------------------------------------------------------------- names in generated code */

const char *cuarr_codegen_var_ctype(cuarr_dtype d) {
  return d == CUARR_FLOAT16 ? "float16" : cuarr_dtype_ctype(d);
}

const char *cuarr_codegen_dtype_code(cuarr_dtype d) {
  static const char *const codes[CUARR_NDTYPES] = {"b1", "i1", "i2", "i4", "i8", "u1",
                                                   "u2", "u4", "u8", "f2", "f4", "f8"};
  return (unsigned)d < CUARR_NDTYPES ? codes[d] : "xx";
}

const char *cuarr_codegen_index_ctype(bool wide) {
  return wide ? "unsigned long long" : "unsigned int";
}

const char *cuarr_codegen_offset_ctype(bool wide) { return wide ? "long long" : "int"; }

/* ---------------------------------------------------------------- pieces of programs */

void cuarr_codegen_put_headers(cuarr_text *t, unsigned headers) {
  static const struct {
    unsigned flag;
    const char *text;
  } files[] = {
      {CUARR_HEADER_COMMON, cuarr_kernel_source_common_cuh},
      {CUARR_HEADER_HALF, cuarr_kernel_source_half_cuh},
      {CUARR_HEADER_ELEMENTWISE, cuarr_kernel_source_elementwise_cu},
      {CUARR_HEADER_REDUCTION, cuarr_kernel_source_reduction_cu},
      {CUARR_HEADER_REDUCTION_OPS, cuarr_kernel_source_reduction_ops_cuh},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    if (headers & files[i].flag) {
      cuarr_text_put(t, files[i].text);
      cuarr_text_put(t, "\n");
    }
}

bool cuarr_codegen_mentions_cuarr(const char *const *texts, int n) {
  for (int i = 0; i < n; i++)
    if (texts[i] && (strcasestr(texts[i], "cuarr") || strcasestr(texts[i], "__half")))
      return true;
  return false;
}

void cuarr_codegen_put_kernel_head(cuarr_text *t, int threads, const char *name) {
  FILL(t, "\nextern \"C\" __global__ void __launch_bounds__(${threads})\n${name}(",
       INT_SLOT("threads", threads), SLOT("name", name));
}

void cuarr_codegen_put_typedefs(cuarr_text *t, int n, const char *const *names,
                                const char *const *ctypes) {
  for (int k = 0; k < n; k++) {
    bool seen = false;
    for (int j = 0; j < k && names[k] && !seen; j++)
      seen = names[j] && strcmp(names[j], names[k]) == 0;
    if (names[k] && !seen)
      FILL(t, "typedef ${type} ${name};\n", SLOT("type", ctypes[k]), SLOT("name", names[k]));
  }
}

void cuarr_codegen_put_launch_prologue(cuarr_text *t, bool let_next_in) {
  cuarr_text_put(t, "#if __CUDA_ARCH__ >= 900\n"
                    "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n");
  if (let_next_in)
    cuarr_text_put(t, "  asm volatile(\"griddepcontrol.launch_dependents;\");\n");
  cuarr_text_put(t, "#endif\n");
}

char *cuarr_codegen_program(const char *family_template, int n, cuarr_kernel_writer put_kernel,
                            const void *kernels) {
  cuarr_text t = {0};
  cuarr_codegen_put_headers(&t, CUARR_HEADER_COMMON);
  cuarr_text_put(&t, family_template);
  cuarr_text_put(&t, "\n");
  for (int i = 0; i < n; i++)
    put_kernel(&t, kernels, i);
  return cuarr_text_finish(&t);
}

/* ---------------------------------------------------------------- compile options */

/* Whether the options choose a fast-compile mode: NVRTC's two spellings (it refuses
 * -Ofast-compile and --Ofc). */
static bool chooses_mode(const char *const *options, int n) {
  static const char *const spellings[] = {"--Ofast-compile", "-Ofc"};
  for (int i = 0; i < n; i++)
    for (size_t s = 0; s < sizeof spellings / sizeof spellings[0]; s++)
      if (options[i] && strncmp(options[i], spellings[s], strlen(spellings[s])) == 0)
        return true;
  return false;
}

int cuarr_codegen_compile_options(const char *const *options, int n, const char **out) {
  for (int i = 0; i < n; i++)
    out[i] = options[i];
  if (chooses_mode(options, n))
    return n;
  out[n] = CUARR_FAST_COMPILE_OPTION;
  return n + 1;
}

cuarr_status cuarr_codegen_kernel_get(int device, const char *source, const char *kernel_name,
                                      const char *const *options, int n_options, CUfunction *out) {
  const char **all = malloc(((size_t)n_options + 1) * sizeof *all);
  if (!all)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  int n = cuarr_codegen_compile_options(options, n_options, all);
  cuarr_status s = cuarr_kernel_get(device, source, kernel_name, all, n, out);
  free(all);
  if (n > n_options && s == CUARR_COMPILE_ERROR &&
      strstr(cuarr_last_error(), CUARR_FAST_COMPILE_OPTION))
    s = cuarr_kernel_get(device, source, kernel_name, options, n_options, out);
  return s;
}
