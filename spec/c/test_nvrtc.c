/*
 * test_nvrtc.c -- the compile service, and the device layer on a machine without a GPU.
 *
 * Runs anywhere libnvrtc is found; the device checks expect no usable driver (as on the build
 * machine) and are skipped where one is found.
 */
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "internal.h"

static const char *good_source = "extern \"C\" __global__ void scale(float *x, float a, int n) {\n"
                                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "  if (i < n) x[i] *= a;\n"
                                 "}\n";

/* Line 3 has a syntax error. */
static const char *bad_source = "extern \"C\" __global__ void broken(float *x) {\n"
                                "  int i = threadIdx.x;\n"
                                "  x[i] = = 2.0f;\n"
                                "}\n";

static void test_compile(void) {
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(good_source, "scale.cu", NULL, 0, 90, &cubin, &size);
  CHECK(s == CUARR_OK, "nvrtc compiles a kernel for sm_90");
  if (s != CUARR_OK)
    printf("# %s\n", cuarr_last_error());
  CHECK(size > 4 && cubin &&
            memcmp(cubin,
                   "\x7f"
                   "ELF",
                   4) == 0,
        "the result is an ELF cubin");
  free(cubin);

  const char *opts[] = {"-DFACTOR=3", "--use_fast_math"};
  cubin = NULL;
  s = cuarr_nvrtc_compile("extern \"C\" __global__ void k(float *x) { x[0] = FACTOR; }", "k.cu",
                          opts, 2, 90, &cubin, &size);
  CHECK(s == CUARR_OK && cubin && size > 0, "caller options reach nvrtc");
  free(cubin);
}

static void test_compile_error(void) {
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s = cuarr_nvrtc_compile(bad_source, "broken.cu", NULL, 0, 90, &cubin, &size);
  const char *msg = cuarr_last_error();
  CHECK(s == CUARR_COMPILE_ERROR, "a syntax error is a CompileError");
  CHECK(cubin == NULL, "no cubin on failure");
  CHECK(strstr(msg, "compiling broken.cu failed") != NULL, "the message names the program");
  CHECK(strstr(msg, "broken.cu(") != NULL && strstr(msg, "error") != NULL,
        "the message carries NVRTC's log");
  CHECK(strstr(msg, "broken.cu(3): error") != NULL, "NVRTC's log points at line 3");
  CHECK(strstr(msg, "  3 |   x[i] = = 2.0f;\n") != NULL, "the message quotes line 3");
  if (s != CUARR_COMPILE_ERROR || !strstr(msg, "  3 | "))
    printf("# %s\n", msg);

  s = cuarr_nvrtc_compile(good_source, "scale.cu", (const char *[]){"--no-such-option"}, 1, 90,
                          &cubin, &size);
  CHECK(s == CUARR_COMPILE_ERROR && strstr(cuarr_last_error(), "no-such-option") != NULL,
        "a bad option is a CompileError naming it");
  s = cuarr_nvrtc_compile(good_source, "scale.cu", NULL, 0, 0, &cubin, &size);
  CHECK(s == CUARR_VALUE_ERROR, "a bad architecture is a ValueError");
}

static void test_runtime_without_gpu(void) {
  cuarr_runtime_info info;
  cuarr_runtime(&info);
  CHECK(info.nvrtc_version >= 12000, "runtime reports the NVRTC version");
  CHECK(info.cublas_version == -1 || info.cublas_version >= 10000,
        "runtime reports a cuBLAS version or -1");
  if (cuarr_load_driver() == CUARR_OK) {
    printf("# a CUDA driver is usable here: the no-GPU checks are skipped\n");
    return;
  }
  CHECK(info.device_count == 0, "runtime: no devices without a driver");
  CHECK(info.driver_version == -1, "runtime: driver version -1 without a driver");
  CHECK(info.driver_missing[0] != '\0', "runtime says why the driver is missing");

  CHECK(!cuarr_is_available(), "cuarr_is_available is false");
  int n = -1;
  cuarr_status s = cuarr_device_count(&n);
  CHECK(s == CUARR_NOT_AVAILABLE && n == -1, "device_count fails with NotAvailable");
  CHECK(strlen(cuarr_last_error()) > 0, "... with a message");
  CHECK(cuarr_device_activate(0) == CUARR_NOT_AVAILABLE, "activate fails with NotAvailable");
  CHECK(cuarr_device_check(0) == CUARR_NOT_AVAILABLE, "device_check fails with NotAvailable");

  cuarr_stream st = {0};
  CHECK(cuarr_stream_create(0, true, 0, &st) == CUARR_NOT_AVAILABLE && st.handle == NULL,
        "stream_create fails with NotAvailable");
  cuarr_event ev = {0};
  CHECK(cuarr_event_create(0, true, false, &ev) == CUARR_NOT_AVAILABLE && ev.handle == NULL,
        "event_create fails with NotAvailable");
  CHECK(cuarr_stream_destroy(&st) == CUARR_OK, "destroying the null stream is a no-op");
  CHECK(cuarr_event_destroy(&ev) == CUARR_OK, "destroying a destroyed event is a no-op");
  CHECK(cuarr_event_record(&ev, NULL) == CUARR_VALUE_ERROR, "recording a destroyed event fails");

  CUfunction f = NULL;
  s = cuarr_kernel_get(0, good_source, "scale", NULL, 0, &f);
  CHECK(s == CUARR_NOT_AVAILABLE && f == NULL, "kernel_get fails with NotAvailable");
}

int main(void) {
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# no NVRTC here (%s): compile checks skipped\n", cuarr_last_error());
  } else {
    test_compile();
    test_compile_error();
  }
  test_runtime_without_gpu();
  return ctest_done();
}
