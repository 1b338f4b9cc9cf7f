/*
 * linalg_compile_all.c -- for `make test`: kernels/templates/linalg.cu compiled with NVRTC (no
 * GPU), every kernel factor_device.c and decompose_device.c launch found in the cubin.
 */
#include <stdlib.h>

#include "kernel_sources.h"
#include "linalg/factor.h"

cuarr_status cuarr_linalg_kernels_compile_all(int arch, int *n_kernels) {
  static const char *const names[] = {
      "cuarr_linalg_pointers",         "cuarr_linalg_det_f4",
      "cuarr_linalg_det_f8",           "cuarr_linalg_zero_triangle_f4",
      "cuarr_linalg_zero_triangle_f8", "cuarr_linalg_det_block_f4",
      "cuarr_linalg_det_block_f8",     "cuarr_linalg_svd_vectors_f4",
      "cuarr_linalg_svd_vectors_f8"};
  const int n = (int)(sizeof names / sizeof names[0]);
  char *cubin = NULL;
  size_t size = 0;
  CUARR_TRY(cuarr_nvrtc_compile(cuarr_kernel_source_linalg_cu, "linalg.cu", NULL, 0, arch, &cubin,
                                &size));
  int found = 0;
  for (int i = 0; i < n; i++)
    found += cuarr_cubin_has(cubin, size, names[i]);
  free(cubin);
  *n_kernels = found;
  if (found != n)
    return cuarr_fail(CUARR_COMPILE_ERROR, "linalg.cu: %d of its %d kernels in the cubin", found,
                      n);
  return CUARR_OK;
}
