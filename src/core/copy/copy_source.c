/*
 * copy_source.c -- names and program text of the copy, transpose, fill and linear kernels.
 *
 * The templates live in kernels/templates/ and are embedded by tools/embed.sh; here each
 * specialisation becomes one line of CUDA C, written from a template with named slots below,
 * that instantiates its family's template under a name that says what it is (kernel names must
 * be unique per program, and the name is also what the loaded module is asked for).  A program
 * is common.cuh, the family's template and its kernels (cuarr_codegen_program).
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "copy/copy_source.h"

#include "kernel_sources.h"

int cuarr_copy_variant_axes(int shape) {
  return shape == CUARR_SHAPE_GENERIC ? CUARR_MAXDIM : shape;
}

cuarr_dtype cuarr_bits_dtype(cuarr_dtype d) {
  switch (cuarr_dtype_size(d)) {
  case 1: return CUARR_UINT8;
  case 2: return CUARR_UINT16;
  case 4: return CUARR_UINT32;
  default: return CUARR_UINT64;
  }
}

static const char *shape_suffix(int shape) {
  static const char *const names[CUARR_NSHAPES] = {"contig", "nd1", "nd2", "nd3", "nd4", "ndN"};
  return names[shape];
}

void cuarr_copy_variant_name(const cuarr_copy_variant *v, char *buf, size_t size) {
  const char *bits = v->wide ? "i64" : "i32";
  switch (v->family) {
  case CUARR_FAMILY_COPY:
    snprintf(buf, size, "cuarr_copy_%s_to_%s_%s_%s", cuarr_dtype_name(v->src),
             cuarr_dtype_name(v->dst), shape_suffix(v->shape), bits);
    break;
  case CUARR_FAMILY_TRANSPOSE:
    snprintf(buf, size, "cuarr_transpose_%s_to_%s_%s", cuarr_dtype_name(v->src),
             cuarr_dtype_name(v->dst), bits);
    break;
  case CUARR_FAMILY_FILL:
    snprintf(buf, size, "cuarr_fill_%s_%s_%s", cuarr_dtype_name(v->dst), shape_suffix(v->shape),
             bits);
    break;
  case CUARR_FAMILY_LINEAR:
    snprintf(buf, size, "cuarr_linear_%s_%s", cuarr_dtype_name(v->dst), bits);
    break;
  case CUARR_FAMILY_REVERSE:
    snprintf(buf, size, "cuarr_reverse_%s_%s", cuarr_dtype_name(v->dst), bits);
    break;
  }
}

/* The kernels: the opening every one shares, then one template per family and shape kind. */
static const char kernel_head[] =
    "extern \"C\" __global__ void __launch_bounds__(${threads}) ${name}(";
static const char copy_contig_kernel[] =
    "${dst} *dst, const ${src} *src, ${I} n) { cuarr_copy_contig(dst, src, n); }\n";
static const char copy_strided_kernel[] =
    "${dst} *dst, const ${src} *src, cuarr_layout<${I}, ${axes}, 2> p) "
    "{ cuarr_copy_strided<${batch}, ${generic}>(dst, src, p); }\n";
/* The block size and the tile edge are template arguments, so that the kernel's thread mapping
 * and the host's tile count (copy_kernels.c) cannot disagree. */
static const char transpose_kernel[] =
    "${dst} *dst, const ${src} *src, cuarr_layout<${I}, ${axes}, 2> p) "
    "{ cuarr_copy_transpose<${threads}, ${tile}>(dst, src, p); }\n";
static const char fill_contig_kernel[] =
    "${dst} *dst, ${dst} value, ${I} n) { cuarr_fill_contig(dst, value, n); }\n";
static const char fill_strided_kernel[] =
    "${dst} *dst, ${dst} value, cuarr_layout<${I}, ${axes}, 1> p) "
    "{ cuarr_fill_strided<${generic}>(dst, value, p); }\n";
/* The value is computed in double for float dtypes, in long long for the others (${compute});
 * stop comes converted to the dtype. */
static const char linear_kernel[] =
    "${dst} *dst, cuarr_layout<${I}, 1, 1> p, ${compute} start, ${compute} step, ${dst} stop, "
    "int last_is_stop) { cuarr_linear<${dst}>(dst, p, start, step, stop, last_is_stop); }\n";

/* src points at the element that goes to dst[0]; the others lie below it. */
static const char reverse_kernel[] =
    "${dst} *dst, const ${dst} *src, ${I} n) { cuarr_copy_reversed(dst, src, n); }\n";

/* Kernel i of vs: one extern "C" kernel instantiating its family's template. */
static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_copy_variant *v = (const cuarr_copy_variant *)vs + i;
  char name[128];
  cuarr_copy_variant_name(v, name, sizeof name);
  FILL(t, kernel_head, INT_SLOT("threads", CUARR_COPY_THREADS), SLOT("name", name));
  const char *dst = cuarr_dtype_ctype(v->dst), *it = cuarr_codegen_index_ctype(v->wide);
  const bool contig = v->shape == CUARR_SHAPE_CONTIG, generic = v->shape == CUARR_SHAPE_GENERIC;
  const int axes = cuarr_copy_variant_axes(v->shape);
  switch (v->family) {
  case CUARR_FAMILY_COPY:
    if (contig)
      FILL(t, copy_contig_kernel, SLOT("dst", dst), SLOT("src", cuarr_dtype_ctype(v->src)),
           SLOT("I", it));
    else
      FILL(t, copy_strided_kernel, SLOT("dst", dst), SLOT("src", cuarr_dtype_ctype(v->src)),
           SLOT("I", it), INT_SLOT("axes", axes), INT_SLOT("batch", generic ? 2 : 4),
           SLOT("generic", generic ? "true" : "false"));
    break;
  case CUARR_FAMILY_TRANSPOSE:
    FILL(t, transpose_kernel, SLOT("dst", dst), SLOT("src", cuarr_dtype_ctype(v->src)),
         SLOT("I", it), INT_SLOT("axes", CUARR_MAXDIM), INT_SLOT("threads", CUARR_COPY_THREADS),
         INT_SLOT("tile", CUARR_TRANSPOSE_TILE));
    break;
  case CUARR_FAMILY_FILL:
    if (contig)
      FILL(t, fill_contig_kernel, SLOT("dst", dst), SLOT("I", it));
    else
      FILL(t, fill_strided_kernel, SLOT("dst", dst), SLOT("I", it), INT_SLOT("axes", axes),
           SLOT("generic", generic ? "true" : "false"));
    break;
  case CUARR_FAMILY_LINEAR:
    FILL(t, linear_kernel, SLOT("dst", dst), SLOT("I", it),
         SLOT("compute", cuarr_dtype_is_float(v->dst) ? "double" : "long long"));
    break;
  case CUARR_FAMILY_REVERSE: FILL(t, reverse_kernel, SLOT("dst", dst), SLOT("I", it)); break;
  }
}

static const char *family_template(cuarr_copy_family f) {
  switch (f) {
  case CUARR_FAMILY_COPY: return cuarr_kernel_source_copy_cu;
  case CUARR_FAMILY_TRANSPOSE: return cuarr_kernel_source_transpose_cu;
  case CUARR_FAMILY_FILL: return cuarr_kernel_source_fill_cu;
  case CUARR_FAMILY_LINEAR: return cuarr_kernel_source_linear_cu;
  case CUARR_FAMILY_REVERSE: return cuarr_kernel_source_copy_cu;
  }
  return "";
}

char *cuarr_copy_program(const cuarr_copy_variant *vs, int n) {
  return cuarr_codegen_program(family_template(vs[0].family), n, put_kernel, vs);
}

bool cuarr_copy_shape_exists(int shape, bool wide) {
  return !wide || shape == CUARR_SHAPE_CONTIG || shape == CUARR_SHAPE_GENERIC;
}

/* Which (src, dst) pairs and shapes a copy can use: a same-dtype copy moves bits through the
 * unsigned type of its width, and when it is contiguous it is a cuMemcpyDtoDAsync instead. */
static bool copy_pair_used(cuarr_dtype src, cuarr_dtype dst, int shape) {
  if (src != dst)
    return true;
  return src == cuarr_bits_dtype(src) && shape != CUARR_SHAPE_CONTIG;
}

int cuarr_copy_variants_all(cuarr_copy_variant *out) {
  int n = 0;
#define EMIT(...)                                                                                  \
  do {                                                                                             \
    if (out)                                                                                       \
      out[n] = (cuarr_copy_variant){__VA_ARGS__};                                                  \
    n++;                                                                                           \
  } while (0)
  for (int wide = 0; wide < 2; wide++) {
    for (int s = 0; s < CUARR_NDTYPES; s++)
      for (int d = 0; d < CUARR_NDTYPES; d++)
        for (int shape = 0; shape < CUARR_NSHAPES; shape++)
          if (cuarr_copy_shape_exists(shape, wide) &&
              copy_pair_used((cuarr_dtype)s, (cuarr_dtype)d, shape))
            EMIT(CUARR_FAMILY_COPY, (cuarr_dtype)d, (cuarr_dtype)s, shape, wide);
    /* Transposes: every pair a strided copy uses (the 132 conversions and the 4 bit copies). */
    for (int s = 0; s < CUARR_NDTYPES; s++)
      for (int d = 0; d < CUARR_NDTYPES; d++)
        if (copy_pair_used((cuarr_dtype)s, (cuarr_dtype)d, CUARR_SHAPE_GENERIC))
          EMIT(CUARR_FAMILY_TRANSPOSE, (cuarr_dtype)d, (cuarr_dtype)s, 0, wide);
    static const cuarr_dtype widths[] = {CUARR_UINT8, CUARR_UINT16, CUARR_UINT32, CUARR_UINT64};
    for (int w = 0; w < 4; w++)
      for (int shape = 0; shape < CUARR_NSHAPES; shape++)
        if (cuarr_copy_shape_exists(shape, wide))
          EMIT(CUARR_FAMILY_FILL, widths[w], widths[w], shape, wide);
    for (int d = 0; d < CUARR_NDTYPES; d++)
      EMIT(CUARR_FAMILY_LINEAR, (cuarr_dtype)d, (cuarr_dtype)d, 1, wide);
    for (int w = 0; w < 4; w++)
      EMIT(CUARR_FAMILY_REVERSE, widths[w], widths[w], 1, wide);
  }
#undef EMIT
  return n;
}
