/*
 * test_linalg_compile.c -- kernels/templates/linalg.cu compiled with NVRTC (no GPU needed) for
 * the architectures of the GPUs cuarr is run on (sm_80, sm_90), with every kernel the
 * factorizations and decompositions launch in the cubin: among them the two (f4, f8) that lay
 * gesvdjBatched's U and V out as gesvd's for the batched SVD.  Only the GPU specs
 * (spec/linalg_decompositions_spec.lua, #gpu) run them.
 */
#include <stdlib.h>

#include "ctest.h"
#include "internal.h"
#include "kernel_sources.h"
#include "linalg/factor.h"

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  static const int archs[] = {80, 90};
  for (int i = 0; i < 2; i++) {
    int n = 0;
    cuarr_status s = cuarr_linalg_kernels_compile_all(archs[i], &n);
    if (s != CUARR_OK)
      printf("# sm_%d: %s\n", archs[i], cuarr_last_error());
    CHECK(s == CUARR_OK && n == 9, archs[i] == 80 ? "linalg.cu's nine kernels for sm_80"
                                                  : "linalg.cu's nine kernels for sm_90");
  }
  /* The SVD's kernels by name, so that dropping them from the list above is caught too. */
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s =
      cuarr_nvrtc_compile(cuarr_kernel_source_linalg_cu, "linalg.cu", NULL, 0, 90, &cubin, &size);
  CHECK(s == CUARR_OK, "linalg.cu compiles for sm_90");
  CHECK(s == CUARR_OK && cuarr_cubin_has(cubin, size, "cuarr_linalg_svd_vectors_f4") &&
            cuarr_cubin_has(cubin, size, "cuarr_linalg_svd_vectors_f8"),
        "the batched SVD's layout kernels (f4, f8) are in the cubin");
  free(cubin);
  return ctest_done();
}
