/*
 * test_histogram_compile.c -- the counting kernel (kernels/templates/histogram.cu) compiled
 * with NVRTC for sm_90 (no GPU needed): every value dtype under each bin rule without weights,
 * every weight dtype (both accumulators), shared and global bins: every kernel in the cubin.
 */
#include <stdlib.h>

#include "ctest.h"
#include "histogram/histogram.h"
#include "internal.h"

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  cuarr_hist_variant vs[CUARR_NDTYPES * 3 * 2 + CUARR_NDTYPES * 2];
  int n = 0;
  for (int d = 0; d < CUARR_NDTYPES; d++)
    for (int rule = 0; rule < 3; rule++)
      for (int shared = 0; shared < 2; shared++) {
        if (rule == CUARR_BIN_VALUE && d >= CUARR_FLOAT16)
          continue; /* bincount counts integers only */
        vs[n++] = (cuarr_hist_variant){(cuarr_bin_rule)rule, (cuarr_dtype)d, CUARR_HIST_NO_WEIGHTS,
                                       true, shared == 1};
      }
  for (int d = 0; d < CUARR_NDTYPES; d++)
    for (int rule = 0; rule < 2; rule++)
      vs[n++] = (cuarr_hist_variant){rule ? CUARR_BIN_UNIFORM : CUARR_BIN_VALUE,
                                     rule ? CUARR_FLOAT32 : CUARR_INT64, d,
                                     !cuarr_dtype_is_float((cuarr_dtype)d), rule == 1};
  char *source = cuarr_hist_program(vs, n);
  CHECK(source != NULL, "the program of the counting kernels is written");
  if (!source)
    return ctest_done();
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(source, "histogram.cu", NULL, 0, 90, &cubin, &size);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK, "the counting kernels compile for sm_90");
  int found = 0;
  for (int i = 0; s == CUARR_OK && i < n; i++) {
    char name[128];
    cuarr_hist_variant_name(&vs[i], name, sizeof name);
    found += cuarr_cubin_has(cubin, size, name);
  }
  CHECK(found == n, "every counting kernel is in its cubin");
  free(cubin);
  free(source);
  return ctest_done();
}
