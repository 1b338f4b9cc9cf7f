/*
 * gather_source.c -- names and program text of the gather kernels: each specialisation is one
 * extern "C" kernel instantiating cuarr_gather (kernels/templates/gather.cu).
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "index/gather.h"

#include "kernel_sources.h"

static const char *const op_names[] = {"gather", "scatter", "check"};

void cuarr_gather_variant_name(const cuarr_gather_variant *v, char *buf, size_t size) {
  if (v->flat) {
    snprintf(buf, size, "cuarr_take_b%d_%s_%s", v->itemsize, cuarr_dtype_name((cuarr_dtype)v->flat),
             v->wide ? "i64" : "i32");
    return;
  }
  snprintf(buf, size, "cuarr_%s_b%d_nd%d_ni%d_%s", op_names[v->op], v->itemsize, v->axes, v->nidx,
           v->wide ? "i64" : "i32");
}

static const char *bits_ctype(int itemsize) {
  switch (itemsize) {
  case 1: return "unsigned char";
  case 2: return "unsigned short";
  case 4: return "unsigned int";
  default: return "unsigned long long";
  }
}

static const char kernel_body[] = "cuarr_gather_params<${I}, ${axes}, ${nidx}> p) "
                                  "{ cuarr_gather<${op}, ${batch}, ${T}>(p); }\n";

static const char flat_body[] = "cuarr_gather_params<${I}, 1, 1> p) "
                                "{ cuarr_gather_flat<${vec}, ${T}, ${X}>(p); }\n";

static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_gather_variant *v = (const cuarr_gather_variant *)vs + i;
  char name[128];
  cuarr_gather_variant_name(v, name, sizeof name);
  cuarr_codegen_put_kernel_head(t, CUARR_GATHER_THREADS, name);
  if (v->flat) {
    FILL(t, flat_body, SLOT("I", cuarr_codegen_index_ctype(v->wide)),
         INT_SLOT("vec", CUARR_GATHER_VEC), SLOT("T", bits_ctype(v->itemsize)),
         SLOT("X", cuarr_dtype_ctype((cuarr_dtype)v->flat)));
    return;
  }
  FILL(t, kernel_body, SLOT("I", cuarr_codegen_index_ctype(v->wide)), INT_SLOT("axes", v->axes),
       INT_SLOT("nidx", v->nidx), INT_SLOT("op", v->op), INT_SLOT("batch", CUARR_GATHER_BATCH),
       SLOT("T", bits_ctype(v->itemsize)));
}

char *cuarr_gather_program(const cuarr_gather_variant *vs, int n) {
  return cuarr_codegen_program(cuarr_kernel_source_gather_cu, n, put_kernel, vs);
}
