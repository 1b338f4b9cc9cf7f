/*
 * test_gather_compile.c -- the kernels of indexing with integer arrays
 * (kernels/templates/gather.cu) compiled with NVRTC for sm_90 (no GPU needed): gather, scatter
 * and check, for every itemsize, every axis and index-array capacity and both index widths,
 * and the flat take for every index dtype, every kernel in the cubin; and the largest parameter
 * struct within the 4 KiB a launch takes.
 */
#include <stdlib.h>

#include "ctest.h"
#include "index/gather.h"
#include "internal.h"

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  /* The largest struct: 8-byte addresses (3 + 32) and 64-bit indices (4 + 3 axes rows + 32 x 8
   * strides + 3 x 32). */
  size_t largest =
      8 * (3 + CUARR_MAXDIM) +
      8 * (4 + 3 * CUARR_GATHER_MAX_AXES + CUARR_MAXDIM * CUARR_GATHER_MAX_AXES + 3 * CUARR_MAXDIM);
  CHECK(largest <= 4096, "the widest gather parameters fit a launch's 4 KiB");
  static const int sizes[] = {1, 2, 4, 8};
  static const int axes[] = {1, 2, 4, CUARR_GATHER_MAX_AXES};
  static const int nidx[] = {1, 2, 4, CUARR_MAXDIM};
  /* Each op with each itemsize; the axes, index capacities and widths cycle through theirs. */
  cuarr_gather_variant vs[3 * 4 + 8];
  int n = 0;
  for (int op = 0; op < 3; op++)
    for (int s = 0; s < 4; s++)
      vs[n++] = (cuarr_gather_variant){
          op, sizes[s], axes[(op + s) % 4], nidx[(op + 2 * s) % 4], (op + s) % 2 == 1, 0};
  /* The flat takes: every index dtype, the itemsizes cycling. */
  for (int x = CUARR_INT8; x <= CUARR_UINT64; x++)
    vs[n++] = (cuarr_gather_variant){CUARR_GATHER_OP_GATHER, sizes[x % 4], 1, 1, x % 2 == 0, x};
  char *source = cuarr_gather_program(vs, n);
  CHECK(source != NULL, "the program of the gather kernels is written");
  if (!source)
    return ctest_done();
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status st = cuarr_nvrtc_compile(source, "gather.cu", NULL, 0, 90, &cubin, &size);
  if (st != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(st == CUARR_OK, "the gather kernels compile for sm_90");
  int found = 0;
  for (int i = 0; st == CUARR_OK && i < n; i++) {
    char name[128];
    cuarr_gather_variant_name(&vs[i], name, sizeof name);
    found += cuarr_cubin_has(cubin, size, name);
  }
  CHECK(found == n, "every gather kernel is in its cubin");
  free(cubin);
  free(source);
  return ctest_done();
}
