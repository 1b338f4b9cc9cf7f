/*
 * matmul_kernel.c -- launch kernels/templates/matmul.cu: the products of bool and integer
 * device arrays, and float products too small for cuBLAS (matmul.cu says how it works).  The
 * program holds the twelve kernels and compiles once per device, on the first such product.
 */
#include <pthread.h>
#include <stdio.h>

#include "compile/codegen.h"
#include "compile/function_table.h"
#include "kernel_sources.h"
#include "linalg/matmul.h"

#define TILE 16
#define MAX_GRID_YZ 65535

static unsigned capped(long long n, long long cap) { return (unsigned)(n < cap ? n : cap); }

static pthread_once_t program_once = PTHREAD_ONCE_INIT;
static char *program;

static void make_program(void) {
  cuarr_text t = {0};
  cuarr_codegen_put_headers(&t, CUARR_HEADER_COMMON | CUARR_HEADER_HALF);
  cuarr_text_put(&t, cuarr_kernel_source_matmul_cu);
  program = cuarr_text_finish(&t);
}

const char *cuarr_matmul_program(void) {
  pthread_once(&program_once, make_program);
  if (!program)
    cuarr_fail(CUARR_OUT_OF_MEMORY, "matmul: no memory for the kernel's source");
  return program;
}

/* Each device's kernels, found by name in a dispatch table: the compile service's key is the
 * program's whole text, whose hashing would cost a small product more than its launch. */
static void *table;

static cuarr_status kernel_of(int device, cuarr_dtype dtype, CUfunction *out) {
  char name[32];
  snprintf(name, sizeof name, "cuarr_matmul_%s", cuarr_codegen_dtype_code(dtype));
  return cuarr_function_table_named(&table, device, cuarr_matmul_program, name, out);
}

cuarr_status cuarr_matmul_kernel(int device, CUstream stream, const cuarr_gemm *g) {
  CUfunction f;
  CUARR_TRY(kernel_of(device, g->dtype, &f));
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
