/*
 * reduce_engine.h -- the device reduction engine: one launcher that generates, caches and
 * launches the kernels of a reduction over operands (reduce_source.c writes each kernel;
 * kernels/templates/reduction.cu shows one).
 * The built-in reductions (reduce_device.c) and user ReductionKernels (reduction_kernel.c)
 * both run through it.
 */
#ifndef CUARR_REDUCE_ENGINE_H
#define CUARR_REDUCE_ENGINE_H

#include "reduce/reduce.h"

/* An input as the generated code sees it: a broadcast array, a raw array (the map indexes it
 * itself) or a scalar passed by value. */
typedef struct cuarr_red_operand {
  const cuarr_array *array; /* NULL: a scalar */
  cuarr_scalar scalar;
  cuarr_dtype var_dtype; /* the variable's type in the expressions (loaded and converted) */
  const char *name;      /* its name in the expressions */
  bool raw;
  const char *type_name; /* a placeholder the code typedefs to var_dtype's type, or NULL */
} cuarr_red_operand;

/* A reduction program: the expressions around the loops, as CuPy's ReductionKernel takes
 * them.  In map_expr the inputs are variables (raw ones arrays), `_i` is the output's flat
 * index and `_j` the element's index over the reduced axes; reduce_expr combines `a` and `b`
 * of the accumulator type (named `_type_reduce`); post_expr is a statement that sets the
 * output variable from `a`.  acc_type: the accumulator's C type when it is not a dtype (the
 * built-in argmin/argmax pairs), else NULL. */
typedef struct cuarr_red_program {
  const char *name;
  const char *map_expr, *reduce_expr, *post_expr;
  const char *identity;  /* NULL: none (the first value seeds the reduction) */
  const char *fold_expr; /* reduce_expr when b is a later element than all of a's (a thread
                            adding its next element), or NULL for reduce_expr itself */
  const char *preamble;
  const char *const *options;
  int n_options;
  bool ordered; /* keep the reduced axes in order (the map uses _j) */
  void *cache;  /* the compiled variants; NULL to start, freed by cuarr_red_program_release */
} cuarr_red_program;

/* How one launch is typed. */
typedef struct cuarr_red_types {
  cuarr_dtype acc;           /* the accumulator dtype, when acc_type is NULL */
  const char *acc_type;      /* or a C type (a non-dtype accumulator) */
  size_t acc_size;           /* its size in bytes (for partial results) */
  cuarr_dtype out_var;       /* the output variable's type */
  const char *out_name;      /* and its name in post_expr */
  const char *out_type_name; /* a placeholder typedef'd to out_var, or NULL */
} cuarr_red_types;

/* Reduce the inputs (the non-raw ones broadcast to out's shape... see below) into out.  out has
 * the inputs' broadcast ndim, extent 1 on every axis in `axes` and the broadcast extent
 * elsewhere (a keepdims view); at least one output element; every reduced extent > 0 unless
 * the program has an identity.  At least one non-raw array input.  Queued on ctx's stream;
 * nothing synchronised.  Every array must be live and on `device`, out must not overlap an
 * input. */
cuarr_status cuarr_red_launch(cuarr_context *ctx, int device, cuarr_red_program *program, int n_in,
                              const cuarr_red_operand *in, const cuarr_red_types *types,
                              const cuarr_array *out, uint64_t axes);

/* The source text and kernel name of one variant, for `make test` (NVRTC, no GPU).  variant:
 * CUARR_RED_ROWS or _COLS, with CUARR_RED_SPLIT or'd in for a grid that splits and the layout's
 * class bits; vec: elements per vector (1: none); wide: 64-bit indexing.  storage[k] is input
 * k's element dtype (ignored for scalars), out_storage the output's.  Both strings malloc'd;
 * NULL with the error set on failure.
 *
 * What a kernel assumes of its launch (plan_grid in reduce_engine.c provides it): 256 threads
 * at most, blockDim.x and blockDim.y powers of two (rows: blockDim.x lanes share an output;
 * cols: blockDim.x <= 32 lanes along the outputs); gridDim.y == 1 unless CUARR_RED_SPLIT;
 * with CUARR_RED_KEPT_NONE, blockDim.y == gridDim.x == 1; rows with vectors but not
 * CUARR_RED_WHOLE_VECTORS, blockDim.x >= vec. */
enum {
  CUARR_RED_ROWS = 0,  /* lanes along the reduced axis */
  CUARR_RED_COLS = 1,  /* lanes along the outputs */
  CUARR_RED_SPLIT = 2, /* or'd in: the kernel can finish a split reduced range (gridDim.y > 1) */
  /* Or'd in, the layout's class (choose_variant finds it, fill_key or's it into the key): a
   * kernel for a special class is smaller, so a new one compiles sooner.  None: any layout. */
  CUARR_RED_KEPT_ONE = 4,      /* one kept axis (after collapsing) */
  CUARR_RED_KEPT_NONE = 8,     /* a single output: no kept axes (rows only) */
  CUARR_RED_REDUCED_ONE = 16,  /* one reduced axis */
  CUARR_RED_WHOLE_VECTORS = 32 /* rows with vectors: no elements after a row's last vector */
};
char *cuarr_red_source(const cuarr_red_program *program, int n_in, const cuarr_red_operand *in,
                       const cuarr_dtype *storage, const cuarr_red_types *types,
                       cuarr_dtype out_storage, int variant, int vec, bool wide, const char *ns,
                       char **kernel_name);
/* With ns (a C++ namespace name), the source holds only the variant's own part, wrapped in
 * that namespace, for several variants to share one program after cuarr_red_prelude() (the
 * common headers, float16 included): how `make test` compiles them in batches. */
char *cuarr_red_prelude(void);

void cuarr_red_program_release(cuarr_red_program *program);
/* ---- split_counters.c */
/* `count` zeroed arrival counters for split reductions on (device, stream), kept zero between
 * reductions by the kernels themselves (see split_counters.c); a stream's array is made with
 * `capacity` of them.  The device must be current.  CUARR_NOT_AVAILABLE when there are none
 * to have (more than its capacity, no room for another stream, no device memory, the
 * per-thread default stream): the caller then zeroes counters of its own. */
cuarr_status cuarr_red_split_counters(int device, CUstream stream, size_t count, size_t capacity,
                                      CUdeviceptr *out);

/* ---- reduce_device.c */
/* A built-in reduction op as an engine program, and its typing for an input dtype and
 * accumulator: the operands are the input (its array left for the caller to set) and, for
 * argmin/argmax, index_base as a scalar. */
cuarr_red_program *cuarr_device_reduce_program(cuarr_reduce_op op, cuarr_dtype in, cuarr_dtype acc,
                                               int64_t index_base, cuarr_red_types *types,
                                               cuarr_red_operand operands[2], int *n_in);

/* The short way of reduce/flat_reduce.c: cuarr_red_launch for the reduction of every element of
 * in[0] (a live C-contiguous array on `device`, aligned to its itemsize, of 2 to INT32_MAX
 * elements; the other inputs scalars) into the 0-d out, with the same kernel and grid, minus
 * the checks, the general layout and the lookup of the kernel: *kernels keeps the program's
 * kernels for these operand types (one per vector width and layout class, each marked with the
 * variant it was made for), zeroed by the caller to start and found on first use.  *launched false
 * (and CUARR_OK, nothing done) when the layout is not that one or the grid would split: the caller
 * goes the general way.  Once *launched is true, the status is the call's. */
typedef struct cuarr_red_row_kernels {
  CUfunction f[4];
  uint8_t variant[4], vec[4];
} cuarr_red_row_kernels;
cuarr_status cuarr_red_launch_row(int device, CUstream stream, cuarr_red_program *program, int n_in,
                                  const cuarr_red_operand *in, const cuarr_red_types *types,
                                  const cuarr_array *out, cuarr_red_row_kernels *kernels,
                                  bool *launched);

/* What cuarr_red_launch would choose for these operands on a GPU of `multiprocessors`
 * multiprocessors, without launching (for the C tests: no GPU needed; the arrays need a
 * buffer but their memory is never touched). */
typedef struct cuarr_red_plan_info {
  int variant, vec;
  int layout; /* CUARR_RED_KEPT_ONE, _KEPT_NONE, _REDUCED_ONE, _WHOLE_VECTORS or'd */
  bool wide;
  int ndo, ndr; /* kept and reduced axes after collapsing */
  int64_t n_out, n_red;
  unsigned block_x, block_y, grid_x, splits;
} cuarr_red_plan_info;
cuarr_status cuarr_red_plan_describe(const cuarr_red_program *program, int n_in,
                                     const cuarr_red_operand *in, const cuarr_array *out,
                                     uint64_t axes, unsigned multiprocessors,
                                     cuarr_red_plan_info *info);

#endif
