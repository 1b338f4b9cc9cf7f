/*
 * join_source.c -- names and program text of the concatenate kernels: each specialisation is
 * one extern "C" kernel instantiating cuarr_join (kernels/templates/join.cu).
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "join/join.h"

#include "kernel_sources.h"

void cuarr_join_variant_name(const cuarr_join_variant *v, char *buf, size_t size) {
  if (v->runs) {
    snprintf(buf, size, "cuarr_join_runs_k%d", v->k);
    return;
  }
  snprintf(buf, size, "cuarr_join_%s_from_%s_nd%d_k%d_%s", cuarr_dtype_name(v->dst),
           v->src == CUARR_JOIN_MIXED ? "mixed" : cuarr_dtype_name((cuarr_dtype)v->src), v->axes,
           v->k, v->wide ? "i64" : "i32");
}

static const char kernel_body[] = "${dst} *dst, cuarr_join_params<${I}, ${axes}, ${k}> p) "
                                  "{ cuarr_join<${batch}, ${mixed}, ${dst}, ${src}>(dst, p); }\n";

static const char runs_body[] = "unsigned char *dst, cuarr_join_runs_params<${k}> p) "
                                "{ cuarr_join_runs<${batch}, ${k}>(dst, p); }\n";

static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_join_variant *v = (const cuarr_join_variant *)vs + i;
  char name[128];
  cuarr_join_variant_name(v, name, sizeof name);
  cuarr_codegen_put_kernel_head(t, CUARR_JOIN_THREADS, name);
  if (v->runs) {
    FILL(t, runs_body, INT_SLOT("k", v->k), INT_SLOT("batch", CUARR_JOIN_BATCH));
    return;
  }
  const bool mixed = v->src == CUARR_JOIN_MIXED;
  /* A mixed kernel's S is unused; the output's type stands in. */
  const char *src = cuarr_dtype_ctype(mixed ? v->dst : (cuarr_dtype)v->src);
  FILL(t, kernel_body, SLOT("dst", cuarr_dtype_ctype(v->dst)),
       SLOT("I", cuarr_codegen_index_ctype(v->wide)), INT_SLOT("axes", v->axes),
       INT_SLOT("k", v->k), INT_SLOT("batch", CUARR_JOIN_BATCH),
       SLOT("mixed", mixed ? "true" : "false"), SLOT("src", src));
}

char *cuarr_join_program(const cuarr_join_variant *vs, int n) {
  return cuarr_codegen_program(cuarr_kernel_source_join_cu, n, put_kernel, vs);
}
