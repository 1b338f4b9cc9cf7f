/*
 * copy_source.c -- names and program text of the copy, transpose, fill and linear kernels.
 *
 * The templates live in kernels/ and are embedded by tools/embed.sh; here each specialisation
 * becomes one line of CUDA C that instantiates its template under a name that says what it is
 * (kernel names must be unique per program, and the name is also what the loaded module is
 * asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy/copy_source.h"

#include "kernel_sources.h"

/* Longest kernel text below is well under this (names and types are short). */
#define KERNEL_TEXT_MAX 512

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

static const char *index_ctype(bool wide) { return wide ? "unsigned long long" : "unsigned int"; }

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
  }
}

/* One extern "C" kernel instantiating the family's template; returns its length. */
static int kernel_text(const cuarr_copy_variant *v, char *buf, size_t size) {
  char name[128];
  cuarr_copy_variant_name(v, name, sizeof name);
  const char *it = index_ctype(v->wide), *dt = cuarr_dtype_ctype(v->dst);
  int axes = cuarr_copy_variant_axes(v->shape);
  const char *generic = v->shape == CUARR_SHAPE_GENERIC ? "true" : "false";
  int n = snprintf(buf, size, "extern \"C\" __global__ void __launch_bounds__(%d) %s(",
                   CUARR_COPY_THREADS, name);
  size_t used = n > 0 ? (size_t)n : 0;
  char *p = buf + used;
  size_t room = used < size ? size - used : 0;
  switch (v->family) {
  case CUARR_FAMILY_COPY: {
    const char *st = cuarr_dtype_ctype(v->src);
    if (v->shape == CUARR_SHAPE_CONTIG)
      n = snprintf(p, room, "%s *dst, const %s *src, %s n) { cuarr_copy_contig(dst, src, n); }\n",
                   dt, st, it);
    else
      n = snprintf(p, room,
                   "%s *dst, const %s *src, cuarr_layout<%s, %d, 2> p) "
                   "{ cuarr_copy_strided<%d, %s>(dst, src, p); }\n",
                   dt, st, it, axes, v->shape == CUARR_SHAPE_GENERIC ? 2 : 4, generic);
    break;
  }
  case CUARR_FAMILY_TRANSPOSE:
    /* The block size and the tile edge are template arguments, so that the kernel's thread
     * mapping and the host's tile count (copy_kernels.c) cannot disagree. */
    n = snprintf(p, room,
                 "%s *dst, const %s *src, cuarr_layout<%s, %d, 2> p) "
                 "{ cuarr_copy_transpose<%d, %d>(dst, src, p); }\n",
                 dt, cuarr_dtype_ctype(v->src), it, CUARR_MAXDIM, CUARR_COPY_THREADS,
                 CUARR_TRANSPOSE_TILE);
    break;
  case CUARR_FAMILY_FILL:
    if (v->shape == CUARR_SHAPE_CONTIG)
      n = snprintf(p, room, "%s *dst, %s value, %s n) { cuarr_fill_contig(dst, value, n); }\n", dt,
                   dt, it);
    else
      n = snprintf(p, room,
                   "%s *dst, %s value, cuarr_layout<%s, %d, 1> p) "
                   "{ cuarr_fill_strided<%s>(dst, value, p); }\n",
                   dt, dt, it, axes, generic);
    break;
  case CUARR_FAMILY_LINEAR: {
    /* The value is computed in double for float dtypes, in long long for the others; stop
     * comes converted to the dtype. */
    const char *ct = cuarr_dtype_is_float(v->dst) ? "double" : "long long";
    n = snprintf(p, room,
                 "%s *dst, cuarr_layout<%s, 1, 1> p, %s start, %s step, %s stop, "
                 "int last_is_stop) { cuarr_linear<%s>(dst, p, start, step, stop, last_is_stop); "
                 "}\n",
                 dt, it, ct, ct, dt, dt);
    break;
  }
  }
  size_t total = used + (n > 0 ? (size_t)n : 0);
  return (int)(total < size ? total : size - 1); /* never truncates: KERNEL_TEXT_MAX is ample */
}

static const char *family_template(cuarr_copy_family f) {
  switch (f) {
  case CUARR_FAMILY_COPY: return cuarr_kernel_source_copy_cu;
  case CUARR_FAMILY_TRANSPOSE: return cuarr_kernel_source_transpose_cu;
  case CUARR_FAMILY_FILL: return cuarr_kernel_source_fill_cu;
  case CUARR_FAMILY_LINEAR: return cuarr_kernel_source_linear_cu;
  }
  return "";
}

char *cuarr_copy_program(const cuarr_copy_variant *vs, int n) {
  const char *common = cuarr_kernel_source_common_cuh, *tmpl = family_template(vs[0].family);
  size_t common_len = strlen(common), tmpl_len = strlen(tmpl);
  size_t size = common_len + tmpl_len + 2 + (size_t)n * KERNEL_TEXT_MAX + 1;
  char *text = malloc(size);
  if (!text) {
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a %zu-byte kernel source", size);
    return NULL;
  }
  memcpy(text, common, common_len);
  size_t used = common_len;
  text[used++] = '\n';
  memcpy(text + used, tmpl, tmpl_len);
  used += tmpl_len;
  text[used++] = '\n';
  for (int i = 0; i < n; i++)
    used += (size_t)kernel_text(&vs[i], text + used, size - used);
  text[used] = '\0';
  return text;
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
  }
#undef EMIT
  return n;
}
