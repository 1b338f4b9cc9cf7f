/*
 * linalg_kernels.c -- the launches of kernels/templates/linalg.cu (pointer arrays,
 * determinants, triangles zeroed, the batched SVD's vectors) that the factorizations and
 * decompositions share.  The kernels are found through one dispatch table
 * (compile/function_table.h) by device and name.
 */
#include <stdio.h>

#include "compile/function_table.h"
#include "kernel_sources.h"
#include "linalg/factor.h"

#define THREADS 256
#define MAX_BLOCKS 65536 /* the kernels loop past it */

static void *table;

static const char *linalg_program(void) { return cuarr_kernel_source_linalg_cu; }

cuarr_status cuarr_linalg_launch(int device, CUstream stream, const char *name, int64_t work,
                                 void **args) {
  CUfunction f;
  CUARR_TRY(cuarr_function_table_named(&table, device, linalg_program, name, &f));
  int64_t blocks = (work + THREADS - 1) / THREADS;
  unsigned grid = (unsigned)(blocks < MAX_BLOCKS ? (blocks > 0 ? blocks : 1) : MAX_BLOCKS);
  return cuarr_launch(f, grid, THREADS, 0, stream, args);
}

cuarr_status cuarr_linalg_zero_triangle(int device, CUstream stream, cuarr_dtype dtype, char *a,
                                        int n, int64_t count, bool upper) {
  char name[48];
  snprintf(name, sizeof name, "cuarr_linalg_zero_triangle_%s",
           dtype == CUARR_FLOAT64 ? "f8" : "f4");
  void *p = a;
  int up = upper;
  long long c = count;
  void *args[] = {&p, &n, &c, &up};
  return cuarr_linalg_launch(device, stream, name, count * n * n, args);
}

cuarr_status cuarr_linalg_svd_vectors(int device, CUstream stream, cuarr_dtype dtype,
                                      const char *uf, char *u, int m, int ucols, const char *vf,
                                      char *vt, int n, int64_t count) {
  char name[48];
  snprintf(name, sizeof name, "cuarr_linalg_svd_vectors_%s", dtype == CUARR_FLOAT64 ? "f8" : "f4");
  const void *pu = uf, *pv = vf;
  void *qu = u, *qv = vt;
  long long c = count;
  void *args[] = {&pu, &qu, &m, &ucols, &pv, &qv, &n, &c};
  return cuarr_linalg_launch(device, stream, name, count * ((int64_t)m * ucols + (int64_t)n * n),
                             args);
}
