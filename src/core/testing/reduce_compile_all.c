/*
 * reduce_compile_all.c -- compile every reduction kernel the engine can pick for the built-ins,
 * with NVRTC only (no GPU), so that `make test` catches a variant that fails to compile before
 * a device runs it.  Linked into the C tests only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/codegen.h"
#include "reduce/reduce_engine.h"

/* ---------------------------------------------------------------- make test */

/* Every variant the engine can pick for the built-ins with their default dtypes.  Item i is
 * (op, dtype, shape) decoded from i; KERNELS_PER_PROGRAM of them share a program, each in its
 * own namespace after one prelude.  The shapes: for every (op, dtype), each form (rows and cols,
 * with and without vectors) for any layout, with 32- and 64-bit indexing, with and without
 * split grids; and each special layout class (reduce_engine.h) of each form, 32-bit and not
 * split -- the class changes only the index arithmetic, which the index width and the split
 * code do not meet, and compiling those too would add half a minute to `make test`. */
#define KERNELS_PER_PROGRAM 48

typedef struct shape {
  uint8_t variant; /* without CUARR_RED_SPLIT */
  uint8_t vec;     /* 0: none; 1: the form's vector width for the dtype */
  uint8_t general; /* 1: compiled at both widths, split or not */
} shape;

enum {
  K1 = CUARR_RED_KEPT_ONE,
  K0 = CUARR_RED_KEPT_NONE,
  R1 = CUARR_RED_REDUCED_ONE,
  W = CUARR_RED_WHOLE_VECTORS
};

static const shape shapes[] = {
    /* any layout (row vectors need a single reduced axis) */
    {CUARR_RED_ROWS | R1, 1, 1},
    {CUARR_RED_ROWS, 0, 1},
    {CUARR_RED_COLS, 1, 1},
    {CUARR_RED_COLS, 0, 1},
    /* the special classes */
    {CUARR_RED_ROWS | K0 | R1, 1, 0},
    {CUARR_RED_ROWS | K1 | R1, 1, 0},
    {CUARR_RED_ROWS | K0 | R1 | W, 1, 0},
    {CUARR_RED_ROWS | K1 | R1 | W, 1, 0},
    {CUARR_RED_ROWS | R1 | W, 1, 0},
    {CUARR_RED_ROWS | K0 | R1, 0, 0},
    {CUARR_RED_ROWS | K0, 0, 0},
    {CUARR_RED_ROWS | K1 | R1, 0, 0},
    {CUARR_RED_ROWS | K1, 0, 0},
    {CUARR_RED_ROWS | R1, 0, 0},
    {CUARR_RED_COLS | K1 | R1, 1, 0},
    {CUARR_RED_COLS | K1, 1, 0},
    {CUARR_RED_COLS | R1, 1, 0},
    {CUARR_RED_COLS | K1 | R1, 0, 0},
    {CUARR_RED_COLS | K1, 0, 0},
    {CUARR_RED_COLS | R1, 0, 0},
};
enum { N_GENERAL = 4, N_SPECIAL = sizeof shapes / sizeof shapes[0] - N_GENERAL };
enum { N_SHAPES = 4 * N_GENERAL + N_SPECIAL }; /* kernels per (op, dtype) */

typedef struct item {
  cuarr_reduce_op op;
  cuarr_dtype in;
  int variant, vec;
  bool wide;
} item;

static bool item_at(int i, item *it) {
  int k = i % N_SHAPES, rest = i / N_SHAPES;
  it->in = (cuarr_dtype)(rest % CUARR_NDTYPES);
  it->op = (cuarr_reduce_op)(rest / CUARR_NDTYPES);
  const shape *sh = k < 4 * N_GENERAL ? &shapes[k / 4] : &shapes[k - 3 * N_GENERAL];
  it->wide = k < 4 * N_GENERAL && (k & 1);
  it->variant = sh->variant | (k < 4 * N_GENERAL && (k & 2) ? CUARR_RED_SPLIT : 0);
  int v = (int)(16 / cuarr_dtype_size(it->in));
  it->vec = !sh->vec ? 1 : (sh->variant & CUARR_RED_COLS) && v > 4 ? 4 : v;
  return it->op < CUARR_NREDUCE_OPS;
}

/* The source of an item in namespace ns (NULL: a program of its own), and its kernel name. */
static char *source_of(item it, const char *ns, char **name) {
  cuarr_dtype acc, out;
  if (cuarr_reduce_resolve(it.op, it.in, -1, &acc, &out) != CUARR_OK)
    return NULL;
  cuarr_red_types types;
  cuarr_red_operand operands[2];
  int n;
  cuarr_red_program *program =
      cuarr_device_reduce_program(it.op, it.in, acc, 0, &types, operands, &n);
  cuarr_array shape_only = {.dtype = it.in}; /* only a raw operand's layout is read */
  operands[0].array = &shape_only;
  cuarr_dtype storage[2] = {it.in, CUARR_INT64};
  return cuarr_red_source(program, n, operands, storage, &types, out, it.variant, it.vec, it.wide,
                          ns, name);
}

typedef struct job {
  int n;
} job;

static int program_end(void *ctx, int first) {
  const job *j = ctx;
  return first + KERNELS_PER_PROGRAM < j->n ? first + KERNELS_PER_PROGRAM : j->n;
}

/* The kernel names of one batch (the items from `first` on). */
typedef struct batch_names {
  char **names;
  int first;
} batch_names;

static void batch_name_of(void *ctx, int i, char *buf, size_t size) {
  const batch_names *b = ctx;
  snprintf(buf, size, "%s", b->names[i - b->first]);
}

static cuarr_status compile_program(void *ctx, const cuarr_compile_options *o, int first, int end,
                                    int *found) {
  const job *j = ctx;
  if (end > j->n)
    end = j->n;
  char *prelude = cuarr_red_prelude();
  if (!prelude)
    return CUARR_OUT_OF_MEMORY;
  cuarr_text program = {0};
  cuarr_text_put(&program, prelude);
  free(prelude);
  char **names = calloc((size_t)(end - first), sizeof *names);
  cuarr_status s = names ? CUARR_OK : cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory");
  for (int i = first; i < end && s == CUARR_OK; i++) {
    char ns[32];
    snprintf(ns, sizeof ns, "_cuarr_k%d", i);
    item it;
    item_at(i, &it);
    char *part = source_of(it, ns, &names[i - first]);
    if (!part) {
      s = CUARR_OUT_OF_MEMORY;
      break;
    }
    cuarr_text_put(&program, part);
    free(part);
  }
  char *source = cuarr_text_finish(&program);
  if (s == CUARR_OK && !source)
    s = CUARR_OUT_OF_MEMORY;
  if (s == CUARR_OK) {
    batch_names b = {names, first};
    s = cuarr_compile_and_count(source, "cuarr_reductions.cu", o, &b, first, end, batch_name_of,
                                found);
  }
  for (int i = 0; names && i < end - first; i++)
    free(names[i]);
  free(names);
  free(source);
  return s;
}

/* Then each op's full-reduction kernel for three input dtypes again, each as the engine
 * compiles it, a program of its own: a single kernel's prelude holds only what the kernel
 * uses (reduce_source.c), which the batches' shared prelude would not show. */
static const cuarr_dtype alone_dtypes[] = {CUARR_FLOAT32, CUARR_FLOAT16, CUARR_BOOL};
enum { N_ALONE = sizeof alone_dtypes / sizeof alone_dtypes[0] };

static int alone_end(void *ctx, int first) {
  (void)ctx;
  return first + 1;
}

static void alone_name_of(void *ctx, int i, char *buf, size_t size) {
  (void)i;
  snprintf(buf, size, "%s", (const char *)ctx);
}

static cuarr_status compile_alone(void *ctx, const cuarr_compile_options *o, int first, int end,
                                  int *found) {
  (void)ctx;
  (void)end;
  cuarr_dtype in = alone_dtypes[first % N_ALONE];
  item it = {.op = (cuarr_reduce_op)(first / N_ALONE),
             .in = in,
             .variant = CUARR_RED_ROWS | CUARR_RED_KEPT_NONE | CUARR_RED_REDUCED_ONE,
             .vec = (int)(16 / cuarr_dtype_size(in))};
  char *name = NULL, *source = source_of(it, NULL, &name);
  cuarr_status s = source ? cuarr_compile_and_count(source, "cuarr_reduction.cu", o, name, first,
                                                    first + 1, alone_name_of, found)
                          : CUARR_OUT_OF_MEMORY;
  free(source);
  free(name);
  return s;
}

cuarr_status cuarr_reduce_kernels_compile_all(int arch, int *n_compiled) {
  *n_compiled = 0;
  CUARR_TRY(cuarr_load_nvrtc());
  job j = {.n = CUARR_NREDUCE_OPS * CUARR_NDTYPES * N_SHAPES};
  CUARR_TRY(cuarr_compile_batches(arch, j.n, program_end, compile_program, &j, n_compiled));
  int alone = 0;
  cuarr_status s = cuarr_compile_batches(arch, CUARR_NREDUCE_OPS * N_ALONE, alone_end,
                                         compile_alone, NULL, &alone);
  *n_compiled += alone;
  return s;
}
