/*
 * test_join_compile.c -- the concatenate kernel (kernels/templates/join.cu) compiled with NVRTC
 * for sm_90 (no GPU needed): for every result dtype, sources of that dtype and of mixed dtypes,
 * at both ends of the axes and source counts and both index widths, and the byte-run kernels of
 * both source counts: every kernel in the cubin.
 */
#include <stdlib.h>

#include "ctest.h"
#include "internal.h"
#include "join/join.h"

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  cuarr_join_variant vs[CUARR_NDTYPES * 4 + 2];
  int n = 0;
  for (int d = 0; d < CUARR_NDTYPES; d++)
    for (int mixed = 0; mixed < 2; mixed++)
      for (int end = 0; end < 2; end++)
        vs[n++] = (cuarr_join_variant){false,
                                       (cuarr_dtype)d,
                                       mixed ? CUARR_JOIN_MIXED : d,
                                       end ? CUARR_JOIN_MAX_AXES : 1,
                                       end ? CUARR_JOIN_LARGE_K : CUARR_JOIN_SMALL_K,
                                       end == 1};
  vs[n++] = (cuarr_join_variant){.runs = true, .axes = 1, .k = CUARR_JOIN_SMALL_K};
  vs[n++] = (cuarr_join_variant){.runs = true, .axes = 1, .k = CUARR_JOIN_LARGE_K};
  char *source = cuarr_join_program(vs, n);
  CHECK(source != NULL, "the program of the join kernels is written");
  if (!source)
    return ctest_done();
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(source, "join.cu", NULL, 0, 90, &cubin, &size);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK, "the join kernels compile for sm_90");
  int found = 0;
  for (int i = 0; s == CUARR_OK && i < n; i++) {
    char name[128];
    cuarr_join_variant_name(&vs[i], name, sizeof name);
    found += cuarr_cubin_has(cubin, size, name);
  }
  CHECK(found == n, "every join kernel is in its cubin");
  free(cubin);
  free(source);
  return ctest_done();
}
