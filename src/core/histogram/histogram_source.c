/*
 * histogram_source.c -- names and program text of the counting kernels: each specialisation
 * is one extern "C" kernel instantiating cuarr_histogram (kernels/templates/histogram.cu).
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "histogram/histogram.h"

#include "kernel_sources.h"

static const char *rule_name(cuarr_bin_rule r) {
  return r == CUARR_BIN_VALUE ? "value" : r == CUARR_BIN_UNIFORM ? "uniform" : "edges";
}

void cuarr_hist_variant_name(const cuarr_hist_variant *v, char *buf, size_t size) {
  snprintf(buf, size, "cuarr_histogram_%s_%s_w_%s_%s_%s", rule_name(v->rule),
           cuarr_dtype_name(v->x),
           v->weights == CUARR_HIST_NO_WEIGHTS ? "none" : cuarr_dtype_name((cuarr_dtype)v->weights),
           v->exact ? "i64" : "f64", v->shared ? "shared" : "global");
}

static const char kernel_body[] = "const ${x} *x, const ${w} *w, ${acc} *out, cuarr_hist_params p) "
                                  "{ cuarr_histogram<${rule}, ${shared}, ${x}, ${w}, ${acc}>"
                                  "(x, w, out, p); }\n";

static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_hist_variant *v = (const cuarr_hist_variant *)vs + i;
  char name[128];
  cuarr_hist_variant_name(v, name, sizeof name);
  cuarr_codegen_put_kernel_head(t, CUARR_HIST_THREADS, name);
  const char *w = v->weights == CUARR_HIST_NO_WEIGHTS ? "cuarr_hist_none"
                                                      : cuarr_dtype_ctype((cuarr_dtype)v->weights);
  FILL(t, kernel_body, SLOT("x", cuarr_dtype_ctype(v->x)), SLOT("w", w),
       SLOT("acc", v->exact ? "unsigned long long" : "double"), INT_SLOT("rule", (int)v->rule),
       SLOT("shared", v->shared ? "true" : "false"));
}

char *cuarr_hist_program(const cuarr_hist_variant *vs, int n) {
  return cuarr_codegen_program(cuarr_kernel_source_histogram_cu, n, put_kernel, vs);
}
