/*
 * test_reverse_compile.c -- the reversed-run copy kernels (cuarr_copy_reversed in
 * kernels/templates/copy.cu, what flip(a):copy() runs on the device) compiled with NVRTC for
 * sm_90 (no GPU needed): every width, both index widths, every kernel in the cubin, and the
 * names the engine asks the module for.
 */
#include <stdlib.h>
#include <string.h>

#include "copy/copy_source.h"
#include "ctest.h"
#include "internal.h"

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  static const cuarr_dtype widths[] = {CUARR_UINT8, CUARR_UINT16, CUARR_UINT32, CUARR_UINT64};
  cuarr_copy_variant vs[8];
  int n = 0;
  for (int wide = 0; wide < 2; wide++)
    for (int w = 0; w < 4; w++)
      vs[n++] = (cuarr_copy_variant){CUARR_FAMILY_REVERSE, widths[w], widths[w], 1, wide == 1};
  char name[128];
  cuarr_copy_variant_name(&vs[2], name, sizeof name);
  CHECK(strcmp(name, "cuarr_reverse_uint32_i32") == 0, "a reverse kernel's name");
  char *source = cuarr_copy_program(vs, n);
  CHECK(source != NULL, "the program of the reverse kernels is written");
  if (!source)
    return ctest_done();
  CHECK(strstr(source,
               "cuarr_reverse_uint64_i64(unsigned long long *dst, const unsigned long "
               "long *src, unsigned long long n) { cuarr_copy_reversed(dst, src, n); }") != NULL,
        "the program instantiates the reverse template");
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(source, "reverse.cu", NULL, 0, 90, &cubin, &size);
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(s == CUARR_OK, "the reverse kernels compile for sm_90");
  int found = 0;
  for (int i = 0; s == CUARR_OK && i < n; i++) {
    cuarr_copy_variant_name(&vs[i], name, sizeof name);
    found += cuarr_cubin_has(cubin, size, name);
  }
  CHECK(found == n, "every reverse kernel is in its cubin");
  int all = cuarr_copy_variants_all(NULL), reverses = 0;
  cuarr_copy_variant *list = malloc((size_t)all * sizeof *list);
  if (list) {
    cuarr_copy_variants_all(list);
    for (int i = 0; i < all; i++)
      reverses += list[i].family == CUARR_FAMILY_REVERSE;
  }
  CHECK(reverses == 8, "compile-all lists the 8 reverse kernels");
  free(list);
  free(cubin);
  free(source);
  return ctest_done();
}
