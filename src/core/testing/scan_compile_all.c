/*
 * scan_compile_all.c -- every scan kernel specialisation the engine can pick, and the
 * compile-everything check of `make test` (NVRTC only, no GPU).  Linked into the C tests only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan/scan_device.h"

static bool vec_fits(cuarr_dtype in, cuarr_dtype acc, cuarr_dtype out) {
  return cuarr_scan_vec_fits(cuarr_dtype_size(in), cuarr_dtype_size(acc), cuarr_dtype_size(out));
}

int cuarr_scan_variants_all(cuarr_scan_variant *out) {
  int n = 0;
#define EMIT(...)                                                                                  \
  do {                                                                                             \
    if (out)                                                                                       \
      out[n] = (cuarr_scan_variant){__VA_ARGS__};                                                  \
    n++;                                                                                           \
  } while (0)
  for (int op = 0; op < CUARR_NSCAN_OPS; op++) {
    cuarr_reduce_op rop = op == CUARR_SCAN_CUMPROD ? CUARR_REDUCE_PROD : CUARR_REDUCE_SUM;
    for (int in = 0; in < CUARR_NDTYPES; in++) {
      cuarr_dtype acc, res, dacc, dres;
      if (cuarr_reduce_resolve(rop, (cuarr_dtype)in, -1, &dacc, &dres) != CUARR_OK)
        continue;
      /* The default dtypes: every kernel they can take. */
      for (int shape = 0; shape < CUARR_SCAN_NSHAPES; shape++)
        for (int wide = 0; wide < 2; wide++)
          if (!cuarr_scan_shape_is_vec(shape) || vec_fits(in, dacc, dres))
            EMIT((cuarr_scan_op)op, (cuarr_dtype)in, dacc, dres, (cuarr_scan_shape)shape, wide);
      /* Every explicit dtype (its accumulator and result): one kernel each, the shapes and
       * widths taken in turn, so that each template meets every accumulator type. */
      for (int d = 0; d < CUARR_NDTYPES; d++) {
        if (cuarr_reduce_resolve(rop, (cuarr_dtype)in, d, &acc, &res) != CUARR_OK ||
            (acc == dacc && res == dres))
          continue;
        int turn = in * CUARR_NDTYPES + d + op;
        cuarr_scan_shape shape = (cuarr_scan_shape)(turn % CUARR_SCAN_NSHAPES);
        if (cuarr_scan_shape_is_vec(shape) && !vec_fits(in, acc, res))
          shape = shape == CUARR_SCAN_ROWS_ONE_VEC ? CUARR_SCAN_ROWS_ONE : CUARR_SCAN_ROWS_CONTIG;
        EMIT((cuarr_scan_op)op, (cuarr_dtype)in, acc, res, shape, (turn / CUARR_SCAN_NSHAPES) % 2);
      }
    }
  }
#undef EMIT
  return n;
}

/* Kernels per program: a program costs NVRTC's start-up and the templates' parsing once. */
#define KERNELS_PER_PROGRAM 32

typedef struct job {
  const cuarr_scan_variant *variants;
  int n_variants;
} job;

static int program_end(void *ctx, int first) {
  const job *j = ctx;
  return first + KERNELS_PER_PROGRAM < j->n_variants ? first + KERNELS_PER_PROGRAM : j->n_variants;
}

static void name_of(void *ctx, int i, char *buf, size_t size) {
  cuarr_scan_variant_name(&((const job *)ctx)->variants[i], buf, size);
}

static cuarr_status compile_program(void *ctx, const cuarr_compile_options *o, int first, int end,
                                    int *found) {
  const job *j = ctx;
  char *source = cuarr_scan_program(j->variants + first, end - first);
  if (!source)
    return CUARR_OUT_OF_MEMORY;
  char program_name[160];
  cuarr_scan_variant_name(&j->variants[first], program_name, sizeof program_name - 8);
  strcat(program_name, "_etc.cu");
  cuarr_status s =
      cuarr_compile_and_count(source, program_name, o, ctx, first, end, name_of, found);
  free(source);
  return s;
}

cuarr_status cuarr_scan_kernels_compile_all(int arch, int *n_compiled) {
  *n_compiled = 0;
  CUARR_TRY(cuarr_load_nvrtc());
  int n = cuarr_scan_variants_all(NULL);
  cuarr_scan_variant *variants = malloc((size_t)n * sizeof *variants);
  if (!variants)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel list");
  cuarr_scan_variants_all(variants);
  job j = {.variants = variants, .n_variants = n};
  cuarr_status s = cuarr_compile_batches(arch, n, program_end, compile_program, &j, n_compiled);
  free(variants);
  return s;
}
