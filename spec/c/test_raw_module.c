/*
 * test_raw_module.c -- raw kernels through the public C API (cuarr_raw_module_*,
 * cuarr_raw_kernel_*) and the module cache's name expressions, against the fake driver of
 * tools/fake_cuda (kernels never run; NVRTC compiles for real), so that it runs without a GPU.
 *
 * The Makefile builds the fake and passes its path as CUARR_FAKE_LIBCUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/module_cache.h"
#include "ctest.h"
#include "internal.h"

static const char *SOURCE =
    "extern \"C\" __global__ void axpy(float a, const float* x, float* y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] += a * x[i];\n"
    "}\n"
    "template<typename T> __global__ void scale(T* x, T a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n";

static void name_expressions(void) {
  const char *names[] = {"scale<float>", "scale<double>"};
  cuarr_module *m = NULL;
  cuarr_status s = cuarr_module_get_named(0, SOURCE, "test_raw", NULL, 0, names, 2, &m);
  CHECK(s == CUARR_OK && m, "a module compiles with name expressions");
  if (s != CUARR_OK) {
    printf("# %s\n", cuarr_last_error());
    return;
  }
  const char *f = cuarr_module_lowered_name(m, "scale<float>");
  const char *d = cuarr_module_lowered_name(m, "scale<double>");
  CHECK(f && strcmp(f, "_Z5scaleIfEvPT_S0_i") == 0, "scale<float>'s lowered name");
  CHECK(d && strcmp(d, "_Z5scaleIdEvPT_S0_i") == 0, "scale<double>'s lowered name");
  CHECK(cuarr_module_lowered_name(m, "scale<int>") == NULL, "an expression not given has none");
  cuarr_module *again = NULL;
  CHECK(cuarr_module_get_named(0, SOURCE, "test_raw", NULL, 0, names, 2, &again) == CUARR_OK &&
            again == m,
        "the same source and expressions find the same module");
  cuarr_module *fewer = NULL;
  CHECK(cuarr_module_get_named(0, SOURCE, "test_raw", NULL, 0, names, 1, &fewer) == CUARR_OK &&
            fewer != m && cuarr_module_lowered_name(fewer, "scale<double>") == NULL,
        "other expressions are another module");
  cuarr_module *plain = NULL;
  CHECK(cuarr_module_get(0, SOURCE, "test_raw", NULL, 0, &plain) == CUARR_OK && plain != m &&
            cuarr_module_lowered_name(plain, "scale<float>") == NULL,
        "no expressions is another module still");
  const char *empty[] = {""};
  CHECK(cuarr_module_get_named(0, SOURCE, "test_raw", NULL, 0, empty, 1, &plain) ==
            CUARR_VALUE_ERROR,
        "an empty name expression is a ValueError");
}

static cuarr_raw_arg arg_array(const cuarr_array *a) {
  return (cuarr_raw_arg){.kind = CUARR_RAW_ARG_ARRAY, .array = a};
}
static cuarr_raw_arg arg_int(int64_t i) {
  return (cuarr_raw_arg){.kind = CUARR_RAW_ARG_INTEGER, .i = i};
}
static cuarr_raw_arg arg_float(double f) {
  return (cuarr_raw_arg){.kind = CUARR_RAW_ARG_FLOAT, .f = f};
}

static void raw_api(void) {
  const char *names[] = {"scale<float>"};
  cuarr_raw_module_options o = {.name_expressions = names, .n_name_expressions = 1};
  cuarr_raw_module *m = NULL;
  CHECK(cuarr_raw_module_from_source(SOURCE, &o, &m) == CUARR_OK, "a module from source");
  cuarr_raw_kernel *axpy = NULL, *scale = NULL;
  cuarr_status s = cuarr_raw_module_get_function(m, 0, "axpy", &axpy);
  CHECK(s == CUARR_OK, "get_function finds an extern \"C\" kernel");
  if (s != CUARR_OK) {
    printf("# %s\n", cuarr_last_error());
    cuarr_raw_module_release(m);
    return;
  }
  CHECK(cuarr_raw_module_get_function(m, 0, "scale<float>", &scale) == CUARR_OK,
        "get_function finds a name expression");
  cuarr_raw_module_release(m); /* the kernels hold their own references */

  CHECK(cuarr_raw_kernel_n_params(axpy) == 4, "axpy has 4 parameters");
  cuarr_raw_param p[4];
  for (int i = 0; i < 4; i++)
    cuarr_raw_kernel_param(axpy, i, &p[i]);
  CHECK(p[0].kind == CUARR_RAW_PARAM_FLOAT && p[0].size == 4 && p[0].offset == 0,
        "float a: 4 bytes at 0");
  CHECK(p[1].kind == CUARR_RAW_PARAM_POINTER && p[1].pointee == CUARR_FLOAT32 && p[1].offset == 8 &&
            strcmp(p[1].spelled, "const float*") == 0,
        "const float* x: a pointer to float32, aligned to 8");
  CHECK(p[3].kind == CUARR_RAW_PARAM_SIGNED && p[3].size == 4 && p[3].offset == 24,
        "int n: 4 bytes after the second pointer");
  cuarr_raw_param none;
  CHECK(cuarr_raw_kernel_param(axpy, 4, &none) == CUARR_INDEX_ERROR,
        "a parameter past the end is an IndexError");

  int64_t shape[1] = {256};
  cuarr_array x, y, h;
  cuarr_reclaim no_reclaim = {NULL, NULL};
  CHECK(cuarr_array_empty(0, CUARR_FLOAT32, 1, shape, false, NULL, no_reclaim, &x) == CUARR_OK &&
            cuarr_array_empty(0, CUARR_FLOAT32, 1, shape, false, NULL, no_reclaim, &y) ==
                CUARR_OK &&
            cuarr_array_empty(CUARR_HOST, CUARR_FLOAT32, 1, shape, false, NULL, no_reclaim, &h) ==
                CUARR_OK,
        "arrays for the launches");
  cuarr_raw_launch_config c = {{1, 1, 1}, {256, 1, 1}, 0};
  cuarr_raw_arg good[] = {arg_float(2.5), arg_array(&x), arg_array(&y), arg_int(256)};
  CHECK(cuarr_raw_kernel_launch(NULL, axpy, &c, good, 4) == CUARR_OK, "a good launch");
  CHECK(cuarr_raw_kernel_launch(NULL, axpy, &c, good, 3) == CUARR_VALUE_ERROR,
        "a wrong count is a ValueError");
  cuarr_raw_arg half_int[] = {arg_float(2.5), arg_array(&x), arg_array(&y), arg_float(2.5)};
  s = cuarr_raw_kernel_launch(NULL, axpy, &c, half_int, 4);
  CHECK(s == CUARR_TYPE_ERROR &&
            strstr(cuarr_last_error(), "argument 4 of axpy is int, got 2.5") != NULL,
        "a non-integral number for int names the kernel, the argument and both types");
  cuarr_raw_arg host[] = {arg_float(2.5), arg_array(&h), arg_array(&y), arg_int(256)};
  CHECK(cuarr_raw_kernel_launch(NULL, axpy, &c, host, 4) == CUARR_TYPE_ERROR,
        "a host array is a TypeError");
  cuarr_raw_launch_config too_big = {{1, 1, 1}, {2048, 1, 1}, 0};
  s = cuarr_raw_kernel_launch(NULL, axpy, &too_big, good, 4);
  CHECK(s == CUARR_CUDA_ERROR && strstr(cuarr_last_error(), "axpy") != NULL,
        "too many threads per block is a CUDAError naming the kernel");
  cuarr_raw_arg scale_args[] = {arg_array(&x), arg_int(3), arg_int(256)};
  CHECK(cuarr_raw_kernel_launch(NULL, scale, &c, scale_args, 3) == CUARR_OK,
        "an integer for a float parameter converts");
  cuarr_raw_arg scale_bad[] = {arg_array(&x), arg_float(1e40), arg_int(256)};
  CHECK(cuarr_raw_kernel_launch(NULL, scale, &c, scale_bad, 3) == CUARR_VALUE_ERROR,
        "a float out of float's range is a ValueError");

  cuarr_raw_kernel_attributes a;
  CHECK(cuarr_raw_kernel_attributes_get(axpy, &a) == CUARR_OK && a.max_threads_per_block > 0,
        "attributes are read");
  CHECK(cuarr_raw_kernel_set_max_dynamic_shared(axpy, -1) == CUARR_VALUE_ERROR,
        "a negative dynamic shared size is a ValueError");
  c.shared_mem = 64 << 10;
  CHECK(cuarr_raw_kernel_launch(NULL, axpy, &c, good, 4) == CUARR_CUDA_ERROR,
        "64 KiB of dynamic shared memory needs the attribute raised");
  CHECK(cuarr_raw_kernel_set_max_dynamic_shared(axpy, 64 << 10) == CUARR_OK &&
            cuarr_raw_kernel_launch(NULL, axpy, &c, good, 4) == CUARR_OK,
        "and launches once it is");

  cuarr_array_release(&x);
  cuarr_array_release(&y);
  cuarr_array_release(&h);
  cuarr_raw_kernel_free(axpy);
  cuarr_raw_kernel_free(scale);
}

static void files(void) {
  cuarr_raw_module *m = NULL;
  CHECK(cuarr_raw_module_from_file("kernel.txt", NULL, &m) == CUARR_VALUE_ERROR,
        "an unknown extension is a ValueError");
  CHECK(cuarr_raw_module_from_file("/nonexistent/kernel.cubin", NULL, &m) == CUARR_VALUE_ERROR,
        "a missing file is a ValueError");
  const char *opt[] = {"-O3"};
  cuarr_raw_module_options o = {.options = opt, .n_options = 1};
  CHECK(cuarr_raw_module_from_file("kernel.ptx", &o, &m) == CUARR_VALUE_ERROR,
        "options for a binary image are a ValueError");
  char path[] = "/tmp/cuarr_test_raw_XXXXXX.cu";
  int fd = mkstemps(path, 3);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f) {
    fputs(SOURCE, f);
    fclose(f);
  }
  cuarr_raw_kernel *k = NULL;
  CHECK(f && cuarr_raw_module_from_file(path, NULL, &m) == CUARR_OK &&
            cuarr_raw_module_get_function(m, 0, "axpy", &k) == CUARR_OK &&
            cuarr_raw_kernel_n_params(k) == 4,
        "a .cu file is compiled and probed as source");
  cuarr_raw_kernel_free(k);
  cuarr_raw_module_release(m);
  remove(path);
}

int main(void) {
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);
  name_expressions();
  raw_api();
  files();
  return ctest_done();
}
