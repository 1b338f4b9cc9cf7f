/*
 * matmul_kernel.c -- launch kernels/templates/matmul.cu, the products of bool and integer
 * device arrays (matmul.cu says how it works).  The program holds the nine kernels and compiles
 * once per device, on the first such product, through the kernel cache.
 */
#include <stdio.h>

#include "compile/codegen.h"
#include "kernel_sources.h"
#include "linalg/matmul.h"

#define TILE 16
#define MAX_GRID_YZ 65535

static unsigned capped(long long n, long long cap) { return (unsigned)(n < cap ? n : cap); }

cuarr_status cuarr_matmul_kernel(int device, CUstream stream, const cuarr_gemm *g) {
  if (cuarr_dtype_is_float(g->dtype))
    return cuarr_fail(CUARR_TYPE_ERROR, "matmul: no kernel of cuarr's for %s",
                      cuarr_dtype_name(g->dtype));
  char name[32];
  snprintf(name, sizeof name, "cuarr_matmul_%s", cuarr_codegen_dtype_code(g->dtype));
  CUfunction f;
  CUARR_TRY(cuarr_kernel_get(device, cuarr_kernel_source_matmul_cu, name, NULL, 0, &f));
  const long long item = (long long)cuarr_dtype_size(g->dtype);
  long long strides[9] = {g->a_batch, g->b_batch, g->c_batch, g->a_rs, g->a_cs,
                          g->b_rs,    g->b_cs,    g->c_rs,    g->c_cs};
  for (int i = 0; i < 9; i++)
    strides[i] /= item;
  int m = g->m, n = g->n, k = g->k, batch = g->batch, accumulate = g->accumulate;
  void *a = g->a, *b = g->b, *c = g->c;
  void *args[] = {&a,          &b,          &c,          &m,          &n,          &k,
                  &batch,      &strides[0], &strides[1], &strides[2], &strides[3], &strides[4],
                  &strides[5], &strides[6], &strides[7], &strides[8], &accumulate};
  unsigned gx = (unsigned)(((long long)n + TILE - 1) / TILE);
  unsigned gy = capped(((long long)m + TILE - 1) / TILE, MAX_GRID_YZ);
  unsigned gz = capped(batch, MAX_GRID_YZ);
  return cuarr_cu_check(
      cuarr_cu.cuLaunchKernel(f, gx, gy, gz, TILE, TILE, 1, 0, stream, args, NULL),
      "cuLaunchKernel(matmul)");
}
