/*
 * copy_source.h -- the CUDA C source of the copy, transpose, fill and linear kernels
 * (kernels/templates/copy.cu, transpose.cu, fill.cu, linear.cu): which specialisations exist, their
 * names, and the program text.
 *
 * A program is kernels/include/common.cuh, then the family's template file, then one short extern
 * "C" kernel per specialisation that instantiates the template.  At run time a program holds the
 * one kernel asked for; cuarr_copy_kernels_compile_all puts many in one program to compile
 * every specialisation quickly.  Private to src/core/copy/ (and testing/copy_compile_all.c).
 */
#ifndef CUARR_KERNEL_COPY_SOURCE_H
#define CUARR_KERNEL_COPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Threads per block of every kernel here (also its __launch_bounds__). */
#define CUARR_COPY_THREADS 256
/* Edge of the transpose kernel's square tile, in elements (its TILE template argument). */
#define CUARR_TRANSPOSE_TILE 64
/* The transpose kernel is used when both tile axes are at least this long (see
 * cuarr_copy_transpose_axes). */
#define CUARR_TRANSPOSE_MIN_EXTENT 8

typedef enum cuarr_copy_family {
  CUARR_FAMILY_COPY,      /* dst = cast(src), strided */
  CUARR_FAMILY_TRANSPOSE, /* dst = cast(src) through a shared-memory tile (batched 2-D) */
  CUARR_FAMILY_FILL,      /* dst = value */
  CUARR_FAMILY_LINEAR,    /* dst[k] = start + k * step */
  CUARR_FAMILY_REVERSE,   /* dst[k] = src[-k]: a reversed 1-D run copied contiguous (bits) */
} cuarr_copy_family;

/* The iteration shape a kernel is specialised for: contiguous (1-D, stride 1), 1..4 axes, or
 * up to CUARR_MAXDIM axes counted at run time. */
enum {
  CUARR_SHAPE_CONTIG = 0,
  CUARR_SHAPE_ND_MAX = 4, /* shapes 1..4: that many axes */
  CUARR_SHAPE_GENERIC = 5,
  CUARR_NSHAPES = 6,
};

typedef struct cuarr_copy_variant {
  cuarr_copy_family family;
  cuarr_dtype dst; /* FILL, REVERSE: an unsigned dtype of the itemsize (the value's bits) */
  cuarr_dtype src; /* COPY and TRANSPOSE only */
  int shape;       /* COPY and FILL: CUARR_SHAPE_*; LINEAR and REVERSE are always 1-D, and
                      TRANSPOSE takes a CUARR_MAXDIM-axis layout (0 here) */
  bool wide;       /* 64-bit indexing (unsigned long long), else 32-bit (unsigned int) */
} cuarr_copy_variant;

/* Whether the shape has a kernel with that index width: 64-bit indexing (arrays beyond 2^31
 * elements or 2^32 elements of span) has only the contiguous and the generic ones. */
bool cuarr_copy_shape_exists(int shape, bool wide);

/* Axes in the kernel's cuarr_layout: 1..4, or CUARR_MAXDIM for the generic shape. */
int cuarr_copy_variant_axes(int shape);

/* The kernel's extern "C" name, e.g. "cuarr_copy_float32_to_int8_nd2_i32". */
void cuarr_copy_variant_name(const cuarr_copy_variant *v, char *buf, size_t size);

/* A malloc'd program: common.cuh + the family's template + the kernels of vs[0..n), all of
 * one family.  NULL with CUARR_OUT_OF_MEMORY set when out of host memory. */
char *cuarr_copy_program(const cuarr_copy_variant *vs, int n);

/* The unsigned dtype of d's itemsize: what a same-dtype copy or a fill moves. */
cuarr_dtype cuarr_bits_dtype(cuarr_dtype d);

/* Every specialisation the engine can emit (for compile-all); returns how many, and writes
 * them to out when out is not NULL. */
int cuarr_copy_variants_all(cuarr_copy_variant *out);

/* ---- copy_kernels.c: layout decisions, exposed for tests (no device needed) */

/* Whether a copy of this collapsed layout goes through the transpose kernel, given operand 0
 * (dst) and operand 1 (src) strides in elements, axes ordered by dst's strides, largest first
 * (as copy_kernels.c leaves them, dst's all positive).  If so, moves src's innermost axis to
 * ndim-2 (the other axes keep their order), so that the tile's axes are the last two. */
bool cuarr_copy_transpose_axes(int ndim, int64_t *shape, int64_t *const *strides,
                               size_t src_itemsize);

/* How the engine plans dst = src: the kernel family (COPY or TRANSPOSE; a same-dtype
 * contiguous copy is a COPY of shape CUARR_SHAPE_CONTIG, done with cuMemcpyDtoDAsync), its
 * shape and index width, and the axes it iterates over (strides in elements, dst then src). */
typedef struct cuarr_copy_plan_info {
  cuarr_copy_family family;
  int shape_kind; /* CUARR_SHAPE_* for COPY */
  bool wide;
  int ndim;
  int64_t extent[CUARR_MAXDIM];
  int64_t strides[2][CUARR_MAXDIM];
  int64_t origin[2]; /* the layout's origins (kernels/include/common.cuh) */
  int64_t base[2];   /* the kernel's pointers, in elements from the arrays' data addresses */
} cuarr_copy_plan_info;

/* The plan of a copy into an array of `shape` (ndim axes) with byte strides dst_strides, from
 * one of dtype src with byte strides src_strides (already broadcast to shape), their data
 * addresses aligned.  For tests: plans as the engine does, without arrays or a device, and
 * gives what the kernel would be passed.  Fails as a copy would on unaligned or unindexable
 * strides. */
cuarr_status cuarr_copy_plan_describe(int ndim, const int64_t *shape, cuarr_dtype dst,
                                      const int64_t *dst_strides, cuarr_dtype src,
                                      const int64_t *src_strides, cuarr_copy_plan_info *out);

#endif
