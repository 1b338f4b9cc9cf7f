/*
 * scan_source.c -- names and program text of the scan kernels.
 *
 * The templates live in kernels/templates/scan.cu (embedded by tools/embed.sh); each specialisation
 * becomes one extern "C" kernel that instantiates its template under a name saying what it is
 * (the name is also what the loaded module is asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan_device.h"

#include "kernel_sources.h"

/* The longest kernel text below is well under this (names and types are short). */
#define KERNEL_TEXT_MAX 640

bool cuarr_scan_shape_is_rows(cuarr_scan_shape shape) { return shape <= CUARR_SCAN_ROWS_NDN; }

bool cuarr_scan_shape_is_contig(cuarr_scan_shape shape) {
  return shape <= CUARR_SCAN_ROWS_CONTIG_VEC;
}

bool cuarr_scan_shape_is_vec(cuarr_scan_shape shape) {
  return shape == CUARR_SCAN_ROWS_ONE_VEC || shape == CUARR_SCAN_ROWS_CONTIG_VEC;
}

bool cuarr_scan_vec_fits(size_t in_size, size_t acc_size, size_t out_size) {
  return (acc_size == 4 || acc_size == 8) && in_size == acc_size && out_size == acc_size;
}

int cuarr_scan_layout_axes(cuarr_scan_shape shape) {
  switch (shape) {
  case CUARR_SCAN_ROWS_ND2:
  case CUARR_SCAN_COLS_ND2: return 2;
  case CUARR_SCAN_COLS_ND3: return 3;
  case CUARR_SCAN_ROWS_NDN:
  case CUARR_SCAN_COLS_NDN: return CUARR_MAXDIM;
  default: return 0;
  }
}

/* 64 bytes of accumulators per thread: 16 floats or 8 doubles, which keeps registers (and so
 * occupancy) alike across dtypes and makes the shared-memory padding of scan.cu
 * conflict-free.  Narrower accumulators (an explicit bool/int8/int16 dtype) take 16 as well. */
/* 32 per thread for accumulators of up to 4 bytes: a cumsum of 2^28 float32 on an H100 ran
 * at 2132 GB/s with 16 and 2322 with 32 (fewer tiles to look back over). */
int cuarr_scan_items(cuarr_dtype acc) { return cuarr_dtype_size(acc) == 8 ? 8 : 32; }

/* The 16-byte kernels keep 256 bytes of accumulators per thread in 128-thread blocks (the same
 * 8192 float32 a tile): a cumsum of 2^28 float32 on an H100 ran at 84% of the copy rate
 * against 78% for the element-wise loads (128 x 32: 82%, 256 x 64: 81%, 512 x 32: 81%). */
int cuarr_scan_shape_items(cuarr_scan_shape shape, cuarr_dtype acc) {
  if (cuarr_scan_shape_is_vec(shape))
    return 256 / (int)cuarr_dtype_size(acc);
  return cuarr_scan_items(acc);
}

int cuarr_scan_shape_threads(cuarr_scan_shape shape) {
  return cuarr_scan_shape_is_vec(shape) ? CUARR_SCAN_VEC_BLOCK : CUARR_SCAN_BLOCK;
}

static const char *shape_suffix(cuarr_scan_shape shape) {
  static const char *const names[CUARR_SCAN_NSHAPES] = {"one",      "rows",     "one_vec",
                                                        "rows_vec", "rows_nd2", "rows_ndN",
                                                        "cols_nd2", "cols_nd3", "cols_ndN"};
  return names[shape];
}

void cuarr_scan_variant_name(const cuarr_scan_variant *v, char *buf, size_t size) {
  snprintf(buf, size, "cuarr_%s_%s_%s_%s_%s_%s", v->op == CUARR_SCAN_CUMPROD ? "cumprod" : "cumsum",
           cuarr_dtype_name(v->in), cuarr_dtype_name(v->acc), cuarr_dtype_name(v->out),
           shape_suffix(v->shape), v->wide ? "i64" : "i32");
}

/* One extern "C" kernel instantiating the shape's template; returns its length. */
static int kernel_text(const cuarr_scan_variant *v, char *buf, size_t size) {
  char name[128];
  cuarr_scan_variant_name(v, name, sizeof name);
  const char *it = v->wide ? "unsigned long long" : "unsigned int";
  const char *in = cuarr_dtype_ctype(v->in), *acc = cuarr_dtype_ctype(v->acc),
             *out = cuarr_dtype_ctype(v->out);
  int op = v->op == CUARR_SCAN_CUMPROD ? 1 : 0, axes = cuarr_scan_layout_axes(v->shape);
  const char *generic = axes == CUARR_MAXDIM ? "true" : "false";
  int n = snprintf(buf, size,
                   "extern \"C\" __global__ void __launch_bounds__(%d) %s(const %s *in, %s *out, ",
                   cuarr_scan_shape_threads(v->shape), name, in, out);
  size_t used = n > 0 ? (size_t)n : 0;
  char *p = buf + used;
  size_t room = used < size ? size - used : 0;
  switch (v->shape) {
  case CUARR_SCAN_ROWS_ONE:
  case CUARR_SCAN_ROWS_CONTIG:
  case CUARR_SCAN_ROWS_ONE_VEC:
  case CUARR_SCAN_ROWS_CONTIG_VEC: {
    bool seg = v->shape == CUARR_SCAN_ROWS_CONTIG || v->shape == CUARR_SCAN_ROWS_CONTIG_VEC;
    n = snprintf(p, room,
                 "%s n, %s len, void *state) { cuarr_scan_rows_contig<%d, %s, %s, %s, %s, %d, "
                 "%s, %d, %s>(in, out, n, len, state); }\n",
                 it, it, op, in, acc, out, it, cuarr_scan_shape_items(v->shape, v->acc),
                 seg ? "true" : "false", cuarr_scan_shape_threads(v->shape),
                 cuarr_scan_shape_is_vec(v->shape) ? "true" : "false");
    break;
  }
  case CUARR_SCAN_ROWS_ND2:
  case CUARR_SCAN_ROWS_NDN:
    n = snprintf(p, room,
                 "cuarr_layout<%s, %d, 2> p, void *state) { cuarr_scan_rows_strided<%d, %s, %s, "
                 "%s, %s, %d, %d, %s>(in, out, p, state); }\n",
                 it, axes, op, in, acc, out, it, cuarr_scan_items(v->acc), axes, generic);
    break;
  default:
    n = snprintf(p, room,
                 "cuarr_layout<%s, %d, 2> p, %s rows, %s chunk, void *state) { cuarr_scan_cols<%d, "
                 "%s, %s, %s, %s, %d, %s>(in, out, p, rows, chunk, state); }\n",
                 it, axes, it, it, op, in, acc, out, it, axes, generic);
    break;
  }
  size_t total = used + (n > 0 ? (size_t)n : 0);
  return (int)(total < size ? total : size - 1); /* never truncates: KERNEL_TEXT_MAX is ample */
}

char *cuarr_scan_program(const cuarr_scan_variant *vs, int n) {
  const char *common = cuarr_kernel_source_common_cuh, *tmpl = cuarr_kernel_source_scan_cu;
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

/* ---------------------------------------------------------------- make test */
