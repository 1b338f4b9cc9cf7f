/*
 * copy_source.h -- the CUDA C source of the copy, fill and linear kernels (kernels/copy.cu,
 * fill.cu, linear.cu): which specialisations exist, their names, and the program text.
 *
 * A program is kernels/common.cuh, then the family's template file, then one short extern "C"
 * kernel per specialisation that instantiates the template.  At run time a program holds the
 * one kernel asked for; cuarr_copy_kernels_compile_all puts many in one program to compile
 * every specialisation quickly.  Private to src/core/kernel/.
 */
#ifndef CUARR_KERNEL_COPY_SOURCE_H
#define CUARR_KERNEL_COPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Threads per block of every kernel here (also its __launch_bounds__). */
#define CUARR_COPY_THREADS 256

typedef enum cuarr_copy_family {
  CUARR_FAMILY_COPY,   /* dst = cast(src), strided */
  CUARR_FAMILY_FILL,   /* dst = value */
  CUARR_FAMILY_LINEAR, /* dst[k] = start + k * step */
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
  cuarr_dtype dst; /* FILL: an unsigned dtype of the itemsize (the value's bits) */
  cuarr_dtype src; /* COPY only */
  int shape;       /* COPY and FILL: CUARR_SHAPE_*; LINEAR is always 1-D strided */
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

#endif
