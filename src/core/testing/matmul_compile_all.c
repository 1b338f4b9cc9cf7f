/*
 * matmul_compile_all.c -- for `make test`: kernels/templates/matmul.cu compiled with NVRTC (no
 * GPU), its nine kernels found in the cubin.
 */
#include <stdio.h>
#include <stdlib.h>

#include "compile/codegen.h"
#include "kernel_sources.h"
#include "linalg/matmul.h"

static const cuarr_dtype integer_dtypes[] = {CUARR_BOOL,   CUARR_INT8,   CUARR_INT16,
                                             CUARR_INT32,  CUARR_INT64,  CUARR_UINT8,
                                             CUARR_UINT16, CUARR_UINT32, CUARR_UINT64};
#define N_KERNELS ((int)(sizeof integer_dtypes / sizeof integer_dtypes[0]))

cuarr_status cuarr_matmul_kernels_compile_all(int arch, int *n_kernels) {
  char *cubin = NULL;
  size_t size = 0;
  CUARR_TRY(cuarr_nvrtc_compile(cuarr_kernel_source_matmul_cu, "matmul.cu", NULL, 0, arch, &cubin,
                                &size));
  int found = 0;
  for (int i = 0; i < N_KERNELS; i++) {
    char name[32];
    snprintf(name, sizeof name, "cuarr_matmul_%s", cuarr_codegen_dtype_code(integer_dtypes[i]));
    found += cuarr_cubin_has(cubin, size, name);
  }
  free(cubin);
  *n_kernels = found;
  if (found != N_KERNELS)
    return cuarr_fail(CUARR_COMPILE_ERROR, "matmul.cu: %d of its %d kernels in the cubin", found,
                      N_KERNELS);
  return CUARR_OK;
}
