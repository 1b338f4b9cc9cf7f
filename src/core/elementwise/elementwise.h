/*
 * elementwise.h -- the device elementwise engine: one generic launcher that generates, caches
 * and launches a kernel for an operation over operands.  Built-in ufuncs (src/core/ufunc/) and
 * user ElementwiseKernels (elementwise_kernel.c) both run through it.
 */
#ifndef CUARR_ELEMENTWISE_H
#define CUARR_ELEMENTWISE_H

#include "internal.h"

/* One operand as the generated kernel sees it. */
typedef struct cuarr_ew_operand {
  const cuarr_array *array; /* NULL: a scalar, passed by value */
  cuarr_scalar scalar;      /* when array == NULL */
  cuarr_dtype var_dtype;    /* the variable's type in the operation (the element is loaded and
                               converted to it; an output is converted back when stored).  A
                               float16 variable is of the class `float16`
                               (kernels/include/half.cuh): it converts to and from float
                               and __half_t and has the arithmetic operators */
  const char *name;         /* its name in the operation: "in0", "x", ... (a C identifier) */
  bool raw;                 /* raw: the operation indexes it itself (name[j]); not broadcast */
  bool output;              /* written by the operation */
  const char *type_name;    /* or NULL: a type placeholder ("T") the generated code typedefs
                               to var_dtype's type, so the operation can name it */
} cuarr_ew_operand;

/* Most operands of one launch (the kernel parameter space bounds it anyway). */
#define CUARR_EW_MAX_OPERANDS 128 /* = CUARR_KP_MAX */

/* An operation and everything around it.  `cache` belongs to the engine (the compiled
 * variants: one per operand dtypes, layout class and index width); start it as NULL and keep
 * the program alive as long as it is used (static for built-ins).  The operands' names and
 * type names belong with the program: give the same ones on every launch of it (the cache is
 * keyed by the operands' dtypes, kinds and flags and the layout, not by names). */
typedef struct cuarr_ew_program {
  const char *name;      /* base of the kernel names (a C identifier) */
  const char *operation; /* the loop body, e.g. "out0 = in0 + in1;" */
  const char *preamble;  /* file-scope code, or NULL */
  const char *loop_prep; /* before the loop, or NULL */
  const char *after_loop;
  const char *const *options;
  int n_options;
  /* Contiguous vectorised launches whose count is a multiple of the vector get a kernel with
   * no code for a tail (a variant of its own): ElementwiseKernel's programs, whose first call
   * waits for the compile.  The built-in ufuncs leave it off: their flat launches
   * (cuarr_ew_flat_kernel) run one kernel for any count, and a second variant would be a
   * second compile. */
  bool whole_vectors;
  void *cache;
} cuarr_ew_program;

/* Launch `program` on `device` over the operands, on ctx's stream.  Non-raw operands broadcast
 * to the outputs' shape (every output is given, with one common shape); the loop runs over
 * that shape's elements, or over `size` elements when size >= 0 (allowed only when every
 * operand is raw).  Inside the operation: each non-raw operand is a variable of its var_dtype
 * named `name`; `i` is the flat (C-order) index; `_ind.size()` the element count; a raw
 * operand `x` is indexed as x[j] by flat C-order index.  An output that aliases an input is
 * fine when their layouts are identical.  Every array must be live and on `device`. */
cuarr_status cuarr_ew_launch(cuarr_context *ctx, int device, cuarr_ew_program *program, int n,
                             const cuarr_ew_operand *ops, int64_t size);

/* The source text of the kernel cuarr_ew_launch would generate for these operand dtypes and
 * layout class, without compiling (for `make test`, which compiles every built-in variant with
 * NVRTC).  layout: 0 contiguous-vectorised, 1..4 strided with that many axes, 5 generic;
 * wide: 64-bit indexing.  Also (CUARR_EW_LAYOUT_*): 6 contiguous element by element (the
 * variant for misaligned pointers), 7..10 strided with 1..4 axes whose innermost axis moves
 * 16-byte vectors (every array operand loaded as vectors), 11 contiguous vectorised over whole
 * vectors (no tail: the count a multiple of the vector).  An operand is an array when
 * ops[k].array is not NULL (only a raw operand's ndim and contiguity are read from it, never
 * its data, so a descriptor with buf == NULL will do); storage_dtypes[k] is its element dtype
 * (ignored for scalars).  Returns a malloc'd string and the kernel's name in *kernel_name
 * (malloc'd), or NULL with the error set. */
char *cuarr_ew_source(const cuarr_ew_program *program, int n, const cuarr_ew_operand *ops,
                      const cuarr_dtype *storage_dtypes, int layout, bool wide, char **kernel_name);
enum {
  CUARR_EW_LAYOUT_CONTIG_VECTOR = 0,
  CUARR_EW_LAYOUT_GENERIC = 5,
  CUARR_EW_LAYOUT_CONTIG_SCALAR = 6,
  CUARR_EW_LAYOUT_ROWS_VECTOR = 7, /* 7..10: 1..4 axes */
  CUARR_EW_LAYOUT_CONTIG_WHOLE = 11,
};

/* Free a program's cache of compiled variants (the modules stay loaded). */
void cuarr_ew_program_release(cuarr_ew_program *program);

/* ---- elementwise.c: flat launches */

/* Elements per vector access for array operands of these itemsizes: 16 bytes' worth of the
 * widest. */
int cuarr_ew_vector_width(size_t max_itemsize);

/* A kernel for operands that are all arrays, C-contiguous, of one shape and fewer than 2^31
 * elements (one axis of stride 1, 32-bit indexing), with the grid cap it is launched under. */
typedef struct cuarr_ew_flat {
  CUfunction function;
  int vec; /* elements per vector access (1: element by element) */
  unsigned max_blocks;
} cuarr_ew_flat;
/* The kernel cuarr_ew_launch would run for such operands (found in the program's cache or
 * compiled); vec must be what it would choose: cuarr_ew_vector_width of the widest itemsize
 * when every pointer is aligned to that many elements, else 1. */
cuarr_status cuarr_ew_flat_kernel(int device, cuarr_ew_program *program, int n,
                                  const cuarr_ew_operand *ops, int vec, cuarr_ew_flat *out);
/* Launch it over `count` elements (1 <= count <= INT32_MAX) of the n operands at ptrs (the
 * device must be current). */
cuarr_status cuarr_ew_flat_launch(int device, const cuarr_ew_flat *k, CUstream stream, int n,
                                  const CUdeviceptr *ptrs, int64_t count);

#endif
