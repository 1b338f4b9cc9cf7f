/*
 * test_kernels_compile.c -- every copy, transpose, fill and linear kernel the engine can emit
 * compiles with NVRTC for sm_90 (no GPU needed), and a broken program is a CompileError.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy/copy_source.h"
#include "ctest.h"
#include "internal.h"
#include "kernel_sources.h"

/* The specialisations, counted by hand from the rules in kernels/templates/copy.cu, transpose.cu
 * and fill.cu.  32-bit indexing:
 *  - copies: 132 pairs of different dtypes x 6 shapes (contig, nd1..nd4, ndN), plus the 4
 *    same-width bit copies (uint8..uint64) x 5 strided shapes (contiguous ones are memcpys);
 *  - transposes: the same 132 + 4 pairs, one kernel each (any number of batch axes);
 *  - fills: 4 widths x 6 shapes; linear: 12 dtypes; reversed runs: 4 widths.
 * 64-bit indexing: the same with only the contig and ndN shapes, and the transposes. */
#define EXPECTED_TRANSPOSES (132 + 4)
#define EXPECTED_NARROW (132 * 6 + 4 * 5 + EXPECTED_TRANSPOSES + 4 * 6 + 12 + 4)
#define EXPECTED_WIDE (132 * 2 + 4 * 1 + EXPECTED_TRANSPOSES + 4 * 2 + 12 + 4)
#define EXPECTED_KERNELS (EXPECTED_NARROW + EXPECTED_WIDE)

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void test_variant_list(void) {
  int n = cuarr_copy_variants_all(NULL);
  CHECK(n == EXPECTED_KERNELS, "the generator lists every specialisation");
  cuarr_copy_variant *vs = malloc((size_t)n * sizeof *vs);
  if (!vs)
    return;
  cuarr_copy_variants_all(vs);
  /* Names are what the loaded module is asked for: they must be distinct. */
  bool distinct = true;
  char(*names)[128] = malloc((size_t)n * sizeof *names);
  for (int i = 0; names && i < n; i++)
    cuarr_copy_variant_name(&vs[i], names[i], sizeof names[i]);
  for (int i = 0; names && i < n && distinct; i++)
    for (int j = i + 1; j < n && distinct; j++)
      distinct = strcmp(names[i], names[j]) != 0;
  CHECK(names && distinct, "kernel names are unique");
  free(names);

  char name[128];
  cuarr_copy_variant v = {CUARR_FAMILY_COPY, CUARR_INT8, CUARR_FLOAT32, 2, false};
  cuarr_copy_variant_name(&v, name, sizeof name);
  CHECK(strcmp(name, "cuarr_copy_float32_to_int8_nd2_i32") == 0, "a copy kernel's name");
  char *src = cuarr_copy_program(&v, 1);
  CHECK(src && strstr(src, "cuarr_copy_float32_to_int8_nd2_i32(signed char *dst, const float "
                           "*src, cuarr_layout<unsigned int, 2, 2> p)") != NULL,
        "the program instantiates the copy template");
  CHECK(src && strstr(src, "struct __half_t") != NULL, "the program starts with common.cuh");
  free(src);

  v = (cuarr_copy_variant){CUARR_FAMILY_TRANSPOSE, CUARR_FLOAT16, CUARR_FLOAT64, 0, true};
  cuarr_copy_variant_name(&v, name, sizeof name);
  CHECK(strcmp(name, "cuarr_transpose_float64_to_float16_i64") == 0, "a transpose kernel's name");
  src = cuarr_copy_program(&v, 1);
  CHECK(src && strstr(src, "cuarr_transpose_float64_to_float16_i64(__half_t *dst, const double "
                           "*src, cuarr_layout<unsigned long long, 32, 2> p) "
                           "{ cuarr_copy_transpose<256, 64>(dst, src, p); }") != NULL,
        "the program instantiates the transpose template with the host's block and tile");
  free(src);

  int transposes = 0;
  for (int i = 0; i < n; i++)
    transposes += vs[i].family == CUARR_FAMILY_TRANSPOSE;
  CHECK(transposes == 2 * EXPECTED_TRANSPOSES, "a transpose per dtype pair and index width");
  free(vs);
}

static void test_compile_all(void) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = 0;
  cuarr_status s = cuarr_copy_kernels_compile_all(90, &n);
  double t = seconds_since(&t0);
  CHECK(s == CUARR_OK, "every copy/transpose/fill/linear kernel compiles for sm_90");
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(n == EXPECTED_KERNELS, "compile-all compiled the expected number of kernels");
  printf("# %d kernels compiled in %.1f s\n", n, t);
}

static void test_broken_source(void) {
  const char *bad = "extern \"C\" __global__ void k(float *x) { x[0] = undefined_name; }\n";
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(bad, "broken_copy.cu", NULL, 0, 90, &cubin, &size);
  CHECK(s == CUARR_COMPILE_ERROR, "a broken kernel source is a CompileError");
  CHECK(cubin == NULL, "no cubin for a broken source");
  CHECK(strstr(cuarr_last_error(), "undefined_name") != NULL, "the error names the problem");
  free(cubin);
}

/* The read-back kernel of item() (kernels/templates/read_back.cu) stands alone: no common.cuh. */
static void test_read_back(void) {
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(cuarr_kernel_source_read_back_cu, "read_back.cu", NULL, 0,
                                       90, &cubin, &size);
  CHECK(s == CUARR_OK && cubin && size > 0, "the read-back kernel compiles for sm_90");
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  free(cubin);
}

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  test_variant_list();
  test_broken_source();
  test_read_back();
  test_compile_all();
  return ctest_done();
}
