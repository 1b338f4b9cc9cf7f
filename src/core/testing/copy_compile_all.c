/*
 * copy_compile_all.c -- compile every copy, fill and linear kernel the engine can emit, with
 * NVRTC only (no GPU), so that `make test` catches a template that fails for some dtype pair,
 * shape or index width before any device runs it.
 *
 * Each program carries many kernels of one family (a program costs NVRTC's start-up once;
 * its kernels only add code generation), and the programs are compiled by a few threads
 * (cuarr_compile_batches; NVRTC 13 serialises most of a compile within a process, so they gain
 * only some 15%).  A kernel counts as compiled when its name is in the resulting cubin.
 */
#include <stdlib.h>
#include <string.h>

#include "copy/copy_source.h"

/* Kernels per program. */
#define KERNELS_PER_PROGRAM 64

typedef struct job {
  const cuarr_copy_variant *variants;
  int n_variants;
} job;

/* Variants [first, end) are of one family, at most KERNELS_PER_PROGRAM of them. */
static int program_end(void *ctx, int first) {
  const job *j = ctx;
  int end = first + 1;
  while (end < j->n_variants && end - first < KERNELS_PER_PROGRAM &&
         j->variants[end].family == j->variants[first].family)
    end++;
  return end;
}

static void name_of(void *ctx, int i, char *buf, size_t size) {
  cuarr_copy_variant_name(&((const job *)ctx)->variants[i], buf, size);
}

static cuarr_status compile_program(void *ctx, const cuarr_compile_options *o, int first, int end,
                                    int *found) {
  const job *j = ctx;
  char *source = cuarr_copy_program(j->variants + first, end - first);
  if (!source)
    return CUARR_OUT_OF_MEMORY;
  char program_name[160];
  cuarr_copy_variant_name(&j->variants[first], program_name, sizeof program_name - 8);
  strcat(program_name, "_etc.cu");
  cuarr_status s =
      cuarr_compile_and_count(source, program_name, o, ctx, first, end, name_of, found);
  free(source);
  return s;
}

cuarr_status cuarr_copy_kernels_compile_all(int arch, int *n_compiled) {
  *n_compiled = 0;
  CUARR_TRY(cuarr_load_nvrtc());
  int n = cuarr_copy_variants_all(NULL);
  cuarr_copy_variant *variants = malloc((size_t)n * sizeof *variants);
  if (!variants)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel list");
  cuarr_copy_variants_all(variants);
  job j = {.variants = variants, .n_variants = n};
  cuarr_status s = cuarr_compile_batches(arch, n, program_end, compile_program, &j, n_compiled);
  free(variants);
  return s;
}
