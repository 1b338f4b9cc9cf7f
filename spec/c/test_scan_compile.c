/*
 * test_scan_compile.c -- every scan kernel the engine can emit compiles with NVRTC for sm_90
 * (no GPU needed), the generated text is what the launcher passes, and calls are laid out on
 * the kernel the engine means (one-pass look-back or thread per row, contiguous or strided,
 * 32- or 64-bit).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctest.h"
#include "internal.h"
#include "scan/scan_device.h"

/* The specialisations, counted from the rules of cuarr_scan_variants_all: for both ops and
 * the 12 input dtypes, the default dtypes with the 7 element-wise shapes x 2 index widths,
 * plus one kernel per explicit dtype whose (accumulator, result) differs from the default: 11
 * of the 12 for every input (the default result dtype is one of the 12, and float16 with
 * float16 is the float16 default); plus the 2 16-byte shapes x 2 widths for the 4 inputs
 * whose default dtypes are all of one size (float32, float64, int64, uint64). */
#define EXPECTED_KERNELS (2 * 12 * (7 * 2 + 11) + 2 * 4 * 2 * 2)

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static void test_variant_list(void) {
  int n = cuarr_scan_variants_all(NULL);
  CHECK(n == EXPECTED_KERNELS, "the generator lists every specialisation");
  cuarr_scan_variant *vs = malloc((size_t)n * sizeof *vs);
  if (!vs)
    return;
  cuarr_scan_variants_all(vs);
  bool distinct = true;
  char(*names)[128] = malloc((size_t)n * sizeof *names);
  for (int i = 0; names && i < n; i++)
    cuarr_scan_variant_name(&vs[i], names[i], sizeof names[i]);
  for (int i = 0; names && i < n && distinct; i++)
    for (int j = i + 1; j < n && distinct; j++)
      distinct = strcmp(names[i], names[j]) != 0;
  CHECK(names && distinct, "kernel names are unique");
  free(names);
  /* Every accumulator dtype but float16 meets the templates. */
  bool acc_seen[CUARR_NDTYPES] = {false};
  for (int i = 0; i < n; i++)
    acc_seen[vs[i].acc] = true;
  bool all = !acc_seen[CUARR_FLOAT16];
  for (int d = 0; d < CUARR_NDTYPES; d++)
    all = all && (d == CUARR_FLOAT16 || acc_seen[d]);
  CHECK(all, "every accumulator dtype but float16 is compiled");
  free(vs);

  char name[128];
  cuarr_scan_variant v = {CUARR_SCAN_CUMSUM, CUARR_FLOAT32,       CUARR_FLOAT32,
                          CUARR_FLOAT32,     CUARR_SCAN_ROWS_ONE, false};
  cuarr_scan_variant_name(&v, name, sizeof name);
  CHECK(strcmp(name, "cuarr_cumsum_float32_float32_float32_one_i32") == 0, "a scan kernel's name");
  char *src = cuarr_scan_program(&v, 1);
  CHECK(src && strstr(src, "cuarr_cumsum_float32_float32_float32_one_i32(const float *in, float "
                           "*out, unsigned int n, unsigned int len, void *state) "
                           "{ cuarr_scan_rows_contig<0, float, float, float, unsigned int, 32, "
                           "false, 256, false>(in, out, n, len, state); }") != NULL,
        "the program instantiates the one-pass template with the host's ITEMS");
  CHECK(src && strstr(src, "struct __half_t") != NULL, "the program starts with common.cuh");
  free(src);

  v.shape = CUARR_SCAN_ROWS_CONTIG_VEC;
  src = cuarr_scan_program(&v, 1);
  CHECK(src &&
            strstr(src, "__launch_bounds__(128) cuarr_cumsum_float32_float32_float32_rows_vec_i32("
                        "const float *in, float *out, unsigned int n, unsigned int len, void "
                        "*state) { cuarr_scan_rows_contig<0, float, float, float, unsigned int, "
                        "64, true, 128, true>(in, out, n, len, state); }") != NULL,
        "the 16-byte kernel: 128 threads of 64 float32, segmented rows");
  free(src);

  v = (cuarr_scan_variant){CUARR_SCAN_CUMPROD, CUARR_INT32,         CUARR_INT64,
                           CUARR_INT64,        CUARR_SCAN_COLS_NDN, true};
  cuarr_scan_variant_name(&v, name, sizeof name);
  CHECK(strcmp(name, "cuarr_cumprod_int32_int64_int64_cols_ndN_i64") == 0,
        "a thread-per-row kernel's name");
  src = cuarr_scan_program(&v, 1);
  CHECK(src && strstr(src, "(const int *in, long long *out, cuarr_layout<unsigned long long, 32, "
                           "2> p, unsigned long long rows, unsigned long long chunk, void *state) "
                           "{ cuarr_scan_cols<1, int, long long, long long, unsigned long long, "
                           "32, true>(in, out, p, rows, chunk, state); }") != NULL,
        "the program instantiates the thread-per-row template");
  free(src);
  CHECK(cuarr_scan_items(CUARR_FLOAT32) == 32 && cuarr_scan_items(CUARR_FLOAT64) == 8,
        "32 elements per thread, 8 of 8-byte accumulators");
  CHECK(cuarr_scan_shape_items(CUARR_SCAN_ROWS_ONE_VEC, CUARR_FLOAT32) == 64 &&
            cuarr_scan_shape_items(CUARR_SCAN_ROWS_ONE_VEC, CUARR_INT64) == 32 &&
            cuarr_scan_shape_threads(CUARR_SCAN_ROWS_ONE_VEC) == 128 &&
            cuarr_scan_shape_items(CUARR_SCAN_ROWS_ONE, CUARR_FLOAT32) == 32 &&
            cuarr_scan_shape_threads(CUARR_SCAN_ROWS_ONE) == 256,
        "16-byte kernels: 256 bytes of accumulators a thread, 128 threads a block");
  CHECK(cuarr_scan_vec_fits(4, 4, 4) && cuarr_scan_vec_fits(8, 8, 8) &&
            !cuarr_scan_vec_fits(4, 8, 8) && !cuarr_scan_vec_fits(2, 4, 2) &&
            !cuarr_scan_vec_fits(1, 1, 1),
        "16-byte kernels only for one size of 4 or 8 bytes");
}

/* ---------------------------------------------------------------- plans */

static cuarr_scan_plan_info plan_of(int ndim, const int64_t *shape, int axis, cuarr_dtype in,
                                    const int64_t *in_strides, cuarr_dtype out,
                                    const int64_t *out_strides, cuarr_dtype acc, bool *ok) {
  cuarr_scan_plan_info info;
  memset(&info, 0, sizeof info);
  *ok = cuarr_scan_plan_describe(ndim, shape, axis, in, in_strides, out, out_strides, acc, &info) ==
        CUARR_OK;
  if (!*ok)
    printf("# %s\n", cuarr_last_error());
  return info;
}

static void test_plans(void) {
  bool ok;
  /* 1-D contiguous float32 (aligned: describe's addresses are): the 16-byte one-pass kernel,
   * one row, tiles of 128 x 64 elements. */
  int64_t n1[1] = {1 << 28}, s4[1] = {4};
  cuarr_scan_plan_info p =
      plan_of(1, n1, 0, CUARR_FLOAT32, s4, CUARR_FLOAT32, s4, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ONE_VEC && !p.wide && p.rows == 1 && p.len == (1 << 28),
        "1-D contiguous: one-pass in 16-byte packs, one row, 32-bit");
  CHECK(ok && p.grid == (1 << 28) / 8192 && p.block == 128 && p.slots == p.grid &&
            p.zeroed_bytes == 128 + 8 * p.slots && p.state_bytes == p.zeroed_bytes,
        "1-D float32: a tile of 8192, a 64-bit status word per tile");

  /* float64 accumulators: tiles of 128 x 32, flags + two value slots. */
  int64_t s8[1] = {8};
  p = plan_of(1, n1, 0, CUARR_FLOAT64, s8, CUARR_FLOAT64, s8, CUARR_FLOAT64, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ONE_VEC && p.slots == (1 << 28) / 4096 &&
            p.zeroed_bytes == 128 + 4 * p.slots && p.state_bytes == 128 + 20 * p.slots,
        "1-D float64: a flag and two 8-byte slots per tile");

  /* int32 into int64 (the default cumsum): element-wise loads, tiles of 256 x 8. */
  p = plan_of(1, n1, 0, CUARR_INT32, s4, CUARR_INT64, s8, CUARR_INT64, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ONE && p.block == 256 && p.slots == (1 << 28) / 2048,
        "int32 summed into int64: no 16-byte packs, element-wise one-pass");

  /* Over 2^31 elements: 64-bit indexing. */
  int64_t big[1] = {(int64_t)3 << 30}, s1[1] = {1};
  p = plan_of(1, big, 0, CUARR_INT8, s1, CUARR_INT8, s1, CUARR_INT64, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ONE && p.wide, "3 * 2^30 elements: 64-bit indexing");

  /* C-contiguous 2-D along the last axis: contiguous rows one after another. */
  int64_t m[2] = {1000, 3000}, mc[2] = {3000 * 4, 4};
  p = plan_of(2, m, 1, CUARR_FLOAT32, mc, CUARR_FLOAT32, mc, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_CONTIG_VEC && p.rows == 1000 && p.len == 3000,
        "C-contiguous along the last axis: one-pass, contiguous rows");

  /* The same along the first axis, many columns: a thread per row. */
  int64_t wide_m[2] = {100, 100000}, wc[2] = {100000 * 4, 4};
  p = plan_of(2, wide_m, 0, CUARR_FLOAT32, wc, CUARR_FLOAT32, wc, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_COLS_ND2 && p.rows == 100000 && p.len == 100 &&
            p.extent[0] == 100000 && p.strides[0][0] == 1 && p.strides[0][1] == 100000,
        "along the first axis of a wide matrix: a thread per row, rows contiguous");
  CHECK(ok && p.chunk == 100 && p.slots == 0 && p.state_bytes == 0 && p.block == 256 &&
            p.grid == (100000 + 255) / 256,
        "many rows: a thread walks a whole row, no look-back");

  /* Few long rows (a time axis first): rows cut into chunks, with a look-back along them. */
  int64_t series[2] = {1000000, 64}, ss[2] = {64 * 4, 4};
  p = plan_of(2, series, 0, CUARR_FLOAT32, ss, CUARR_FLOAT32, ss, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_COLS_ND2 && p.rows == 64 && p.block == 64 && p.chunk == 245 &&
            p.grid == (1000000 + 244) / 245 && p.slots == 64 * p.grid &&
            p.zeroed_bytes == 128 + 8 * p.slots,
        "64 long rows: 245-element chunks, a status slot per (row, chunk)");

  /* A long axis and few columns: the one-pass kernel over strided rows. */
  int64_t tall[2] = {1000000, 4}, tc[2] = {16, 4};
  p = plan_of(2, tall, 0, CUARR_FLOAT32, tc, CUARR_FLOAT32, tc, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ND2 && p.rows == 4 && p.ndim == 2 &&
            p.strides[0][1] == 4 && p.strides[0][0] == 1,
        "along the long axis of a tall narrow matrix: one-pass over strided rows");

  /* Reversed 1-D: the scan axis keeps its direction (stride -1 from the last element). */
  int64_t n10[1] = {10}, neg[1] = {-4};
  p = plan_of(1, n10, 0, CUARR_FLOAT32, neg, CUARR_FLOAT32, s4, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ND2 && p.strides[0][1] == -1 && p.origin[0] == 9 &&
            p.base[0] == -9 && p.origin[1] == 0,
        "a reversed input: strided, origin at the far end");

  /* A reversed kept axis is flipped; the scan axis is not. */
  int64_t sq[2] = {50, 40000}, rev[2] = {-40000 * 4, 4}, cc[2] = {40000 * 4, 4};
  p = plan_of(2, sq, 1, CUARR_FLOAT32, rev, CUARR_FLOAT32, cc, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_ND2 && p.strides[0][0] == 40000 &&
            p.strides[1][0] == -40000,
        "a reversed kept axis is walked forwards in the input");

  /* 3-D along the middle axis, C order: kept axes 0 and 2 do not merge. */
  int64_t cube[3] = {64, 8, 1024}, cs[3] = {8 * 1024 * 4, 1024 * 4, 4};
  p = plan_of(3, cube, 1, CUARR_FLOAT32, cs, CUARR_FLOAT32, cs, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_COLS_ND3 && p.rows == 65536 && p.ndim == 3,
        "3-D along the middle axis: a thread per row over two kept axes");

  /* In place over a transposed view (F order along the last axis): the scan axis is the
   * slower one, and there are many rows. */
  int64_t ft[2] = {30000, 20}, fs[2] = {4, 30000 * 4};
  p = plan_of(2, ft, 1, CUARR_FLOAT32, fs, CUARR_FLOAT32, fs, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_COLS_ND2 && p.rows == 30000,
        "F order along the last axis: a thread per row");

  /* Five kept axes that cannot merge (every other element of a larger C-order array along
   * each of them): the generic layouts. */
  int64_t five[6] = {3, 5, 7, 11, 13, 17}, gs[6];
  int64_t stride = 4;
  for (int d = 5; d >= 0; d--) {
    gs[d] = d < 5 ? 2 * stride : stride;
    stride *= d < 5 ? 2 * five[d] : five[d];
  }
  p = plan_of(6, five, 5, CUARR_FLOAT32, gs, CUARR_FLOAT32, gs, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_ROWS_NDN && p.ndim == 6 && p.wide == false,
        "many kept axes: generic layout");
  p = plan_of(6, five, 0, CUARR_FLOAT32, gs, CUARR_FLOAT32, gs, CUARR_FLOAT32, &ok);
  CHECK(ok && p.shape == CUARR_SCAN_COLS_NDN && p.ndim == 6 && p.extent[5] == 3 &&
            p.extent[4] == 17,
        "the same along the first axis: generic thread-per-row layout, the scan axis last");

  /* Unaligned strides are refused. */
  int64_t odd[1] = {6};
  ok = cuarr_scan_plan_describe(1, n10, 0, CUARR_FLOAT32, odd, CUARR_FLOAT32, s4, CUARR_FLOAT32,
                                &p) == CUARR_OK;
  CHECK(!ok, "strides that are not multiples of the itemsize are an error");
}

static void test_compile_all(void) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = 0;
  cuarr_status s = cuarr_scan_kernels_compile_all(90, &n);
  double t = seconds_since(&t0);
  CHECK(s == CUARR_OK, "every scan kernel compiles for sm_90");
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(n == EXPECTED_KERNELS, "compile-all compiled the expected number of kernels");
  printf("# %d scan kernels compiled in %.1f s\n", n, t);
}

int main(void) {
  test_variant_list();
  test_plans();
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# NVRTC not found: %s\n", cuarr_last_error());
    CHECK(0, "NVRTC is available");
    return ctest_done();
  }
  test_compile_all();
  return ctest_done();
}
