/*
 * scan_source.c -- names and program text of the scan kernels.
 *
 * The templates live in kernels/templates/scan.cu (embedded by tools/embed.sh); each
 * specialisation becomes one extern "C" kernel, written from a template with named slots below,
 * that instantiates its template under a name saying what it is (the name is also what the
 * loaded module is asked for).  A program is common.cuh, scan.cu and its kernels
 * (cuarr_codegen_program).
 */
#include <stdio.h>
#include <string.h>

#include "compile/codegen.h"
#include "scan/scan_device.h"

#include "kernel_sources.h"

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

/* The kernels, one template per kind of shape: the contiguous one-pass kernels (segmented
 * rows or not, 16-byte loads or not), the strided one-pass kernels and the column kernels. */
static const char rows_contig_kernel[] =
    "extern \"C\" __global__ void __launch_bounds__(${threads}) ${name}(const ${in} *in, "
    "${out} *out, ${I} n, ${I} len, void *state) { cuarr_scan_rows_contig<${op}, ${in}, ${acc}, "
    "${out}, ${I}, ${items}, ${segmented}, ${threads}, ${vec}>(in, out, n, len, state); }\n";
static const char rows_strided_kernel[] =
    "extern \"C\" __global__ void __launch_bounds__(${threads}) ${name}(const ${in} *in, "
    "${out} *out, cuarr_layout<${I}, ${axes}, 2> p, void *state) { cuarr_scan_rows_strided<${op}, "
    "${in}, ${acc}, ${out}, ${I}, ${items}, ${axes}, ${generic}>(in, out, p, state); }\n";
static const char cols_kernel[] =
    "extern \"C\" __global__ void __launch_bounds__(${threads}) ${name}(const ${in} *in, "
    "${out} *out, cuarr_layout<${I}, ${axes}, 2> p, ${I} rows, ${I} chunk, void *state) { "
    "cuarr_scan_cols<${op}, ${in}, ${acc}, ${out}, ${I}, ${axes}, ${generic}>(in, out, p, rows, "
    "chunk, state); }\n";

/* Kernel i of vs: one extern "C" kernel instantiating its shape's template. */
static void put_kernel(cuarr_text *t, const void *vs, int i) {
  const cuarr_scan_variant *v = (const cuarr_scan_variant *)vs + i;
  char name[128];
  cuarr_scan_variant_name(v, name, sizeof name);
  const int axes = cuarr_scan_layout_axes(v->shape);
  const bool segmented =
      v->shape == CUARR_SCAN_ROWS_CONTIG || v->shape == CUARR_SCAN_ROWS_CONTIG_VEC;
  const cuarr_slot common[] = {
      INT_SLOT("threads", cuarr_scan_shape_threads(v->shape)),
      SLOT("name", name),
      SLOT("in", cuarr_dtype_ctype(v->in)),
      SLOT("acc", cuarr_dtype_ctype(v->acc)),
      SLOT("out", cuarr_dtype_ctype(v->out)),
      SLOT("I", cuarr_codegen_index_ctype(v->wide)),
      INT_SLOT("op", v->op == CUARR_SCAN_CUMPROD ? 1 : 0),
  };
  enum { N_COMMON = sizeof common / sizeof common[0] };
  cuarr_slot slots[N_COMMON + 3];
  memcpy(slots, common, sizeof common);
  int n = N_COMMON;
  const char *tmpl;
  if (cuarr_scan_shape_is_contig(v->shape)) {
    tmpl = rows_contig_kernel;
    slots[n++] = INT_SLOT("items", cuarr_scan_shape_items(v->shape, v->acc));
    slots[n++] = SLOT("segmented", segmented ? "true" : "false");
    slots[n++] = SLOT("vec", cuarr_scan_shape_is_vec(v->shape) ? "true" : "false");
  } else {
    tmpl = cuarr_scan_shape_is_rows(v->shape) ? rows_strided_kernel : cols_kernel;
    if (tmpl == rows_strided_kernel)
      slots[n++] = INT_SLOT("items", cuarr_scan_items(v->acc));
    slots[n++] = INT_SLOT("axes", axes);
    slots[n++] = SLOT("generic", axes == CUARR_MAXDIM ? "true" : "false");
  }
  cuarr_text_fill(t, tmpl, slots, n);
}

char *cuarr_scan_program(const cuarr_scan_variant *vs, int n) {
  return cuarr_codegen_program(cuarr_kernel_source_scan_cu, n, put_kernel, vs);
}

/* ---------------------------------------------------------------- make test */
