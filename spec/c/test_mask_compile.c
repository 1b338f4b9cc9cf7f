/*
 * test_mask_compile.c -- the mask kernels (kernels/templates/mask.cu) compiled with NVRTC for
 * sm_90 (no GPU needed): every kernel the launcher can ask for (each mask width, each element
 * width, nonzero for each fixed number of axes and for any), every one in the cubin; and the
 * parameter struct the host fills is as large as the kernels' (its last member, the extents,
 * ends it).
 */
#include <stddef.h>
#include <stdlib.h>

#include "ctest.h"
#include "index/mask.h"
#include "internal.h"

int main(void) {
  CHECK(offsetof(cuarr_mask_params, shape) == 112, "the mask parameters lie as mask.cu's");
  CHECK(sizeof(cuarr_mask_params) == 112 + 8 * CUARR_MAXDIM, "and end with the extents");
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  cuarr_mask_variant vs[128];
  int n = 0;
  vs[n++] = (cuarr_mask_variant){CUARR_MASK_SCAN, 0, 0, 0};
  for (int w = 1; w <= 8; w *= 2) {
    vs[n++] = (cuarr_mask_variant){CUARR_MASK_COUNT, w, 0, 0};
    for (int nd = 0; nd <= CUARR_MASK_FIXED_ND; nd++)
      vs[n++] = (cuarr_mask_variant){CUARR_MASK_POSITIONS, w, 0, nd};
    for (int e = 1; e <= 8; e *= 2) {
      vs[n++] = (cuarr_mask_variant){CUARR_MASK_SELECT, w, e, 0};
      vs[n++] = (cuarr_mask_variant){CUARR_MASK_ASSIGN, w, e, 0};
    }
  }
  for (int e = 1; e <= 8; e *= 2) {
    vs[n++] = (cuarr_mask_variant){CUARR_MASK_SELECT_ROWS, 0, e, 0};
    vs[n++] = (cuarr_mask_variant){CUARR_MASK_ASSIGN_ROWS, 0, e, 0};
  }
  char *source = cuarr_mask_program(vs, n);
  CHECK(source != NULL, "the program of the mask kernels is written");
  if (!source)
    return ctest_done();
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(source, "mask.cu", NULL, 0, 90, &cubin, &size);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK, "the mask kernels compile for sm_90");
  int found = 0;
  for (int i = 0; s == CUARR_OK && i < n; i++) {
    char name[96];
    cuarr_mask_variant_name(&vs[i], name, sizeof name);
    found += cuarr_cubin_has(cubin, size, name);
  }
  CHECK(found == n, "every mask kernel is in its cubin");
  free(cubin);
  free(source);
  return ctest_done();
}
