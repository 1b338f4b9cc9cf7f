/*
 * matmul_compile_all.c -- for `make test`: kernels/templates/matmul.cu compiled with NVRTC (no
 * GPU), its kernel for each of the twelve dtypes found in the cubin.
 */
#include <stdio.h>
#include <stdlib.h>

#include "compile/codegen.h"
#include "kernel_sources.h"
#include "linalg/matmul.h"

#define N_KERNELS CUARR_NDTYPES

cuarr_status cuarr_matmul_kernels_compile_all(int arch, int *n_kernels) {
  char *cubin = NULL;
  size_t size = 0;
  const char *source = cuarr_matmul_program();
  if (!source)
    return CUARR_OUT_OF_MEMORY;
  CUARR_TRY(cuarr_nvrtc_compile(source, "matmul.cu", NULL, 0, arch, &cubin, &size));
  int found = 0;
  for (int i = 0; i < N_KERNELS; i++) {
    char name[32];
    snprintf(name, sizeof name, "cuarr_matmul_%s", cuarr_codegen_dtype_code((cuarr_dtype)i));
    found += cuarr_cubin_has(cubin, size, name);
  }
  free(cubin);
  *n_kernels = found;
  if (found != N_KERNELS)
    return cuarr_fail(CUARR_COMPILE_ERROR, "matmul.cu: %d of its %d kernels in the cubin", found,
                      N_KERNELS);
  return CUARR_OK;
}
