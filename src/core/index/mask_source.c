/*
 * mask_source.c -- names and program text of the mask kernels: each specialisation is one
 * extern "C" kernel instantiating a template of kernels/templates/mask.cu.
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "index/mask.h"

#include "kernel_sources.h"

static const char *const kind_names[CUARR_MASK_NKINDS] = {
    "count", "scan", "positions", "select", "assign", "select_rows", "assign_rows"};

void cuarr_mask_variant_name(const cuarr_mask_variant *v, char *buf, size_t size) {
  const char *kind = (unsigned)v->kind < CUARR_MASK_NKINDS ? kind_names[v->kind] : "none";
  int n = snprintf(buf, size, "cuarr_mask_%s", kind);
  if (n > 0 && (size_t)n < size && v->w > 0)
    n += snprintf(buf + n, size - (size_t)n, "_w%d", v->w);
  if (n > 0 && (size_t)n < size && v->e > 0)
    n += snprintf(buf + n, size - (size_t)n, "_e%d", v->e);
  if (n > 0 && (size_t)n < size && v->kind == CUARR_MASK_POSITIONS)
    snprintf(buf + n, size - (size_t)n, "_nd%d", v->nd);
}

int cuarr_mask_variant_threads(const cuarr_mask_variant *v) {
  switch (v->kind) {
  case CUARR_MASK_SCAN: return CUARR_MASK_SCAN_THREADS;
  case CUARR_MASK_SELECT_ROWS:
  case CUARR_MASK_ASSIGN_ROWS: return CUARR_MASK_ROWS_THREADS;
  default: return CUARR_MASK_THREADS;
  }
}

/* The unsigned word of a width in bytes. */
static const char *word(int bytes) {
  switch (bytes) {
  case 1: return "unsigned char";
  case 2: return "unsigned short";
  case 4: return "unsigned int";
  default: return "unsigned long long";
  }
}

static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_mask_variant *v = (const cuarr_mask_variant *)vs + i;
  char name[96], call[160];
  cuarr_mask_variant_name(v, name, sizeof name);
  cuarr_codegen_put_kernel_head(t, cuarr_mask_variant_threads(v), name);
  switch (v->kind) {
  case CUARR_MASK_COUNT: snprintf(call, sizeof call, "cuarr_mask_count<%s>(p);", word(v->w)); break;
  case CUARR_MASK_SCAN: snprintf(call, sizeof call, "cuarr_mask_scan_tiles(p);"); break;
  case CUARR_MASK_POSITIONS:
    if (v->nd == 1)
      snprintf(call, sizeof call, "cuarr_mask_positions1<%s>(p);", word(v->w));
    else
      snprintf(call, sizeof call, "cuarr_mask_positions<%s, %d>(p);", word(v->w), v->nd);
    break;
  case CUARR_MASK_SELECT:
    snprintf(call, sizeof call, "cuarr_mask_select<%s, %s>(p);", word(v->w), word(v->e));
    break;
  case CUARR_MASK_ASSIGN:
    snprintf(call, sizeof call, "cuarr_mask_assign<%s, %s>(p);", word(v->w), word(v->e));
    break;
  case CUARR_MASK_SELECT_ROWS:
    snprintf(call, sizeof call, "cuarr_mask_select_rows<%s>(p);", word(v->e));
    break;
  default: snprintf(call, sizeof call, "cuarr_mask_assign_rows<%s>(p);", word(v->e)); break;
  }
  FILL(t, "cuarr_mask_params p) { ${call} }\n", SLOT("call", call));
}

char *cuarr_mask_program(const cuarr_mask_variant *vs, int n) {
  return cuarr_codegen_program(cuarr_kernel_source_mask_cu, n, put_kernel, vs);
}
