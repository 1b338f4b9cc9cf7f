/*
 * loader.c -- open libcuda, libnvrtc, libcublas and libcusolver with dlopen on first use.
 *
 * Each library is looked for as CUARR_LIB* names it, then by its sonames on the loader's
 * path, then under $CUDA_HOME/lib64 (default /usr/local/cuda).  A library that is missing, or
 * lacks an entry point, leaves its loader failing with a message that says which, every time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

cuarr_driver_api cuarr_cu;
cuarr_nvrtc_api cuarr_nvrtc;
cuarr_cublas_api cuarr_cublas;
cuarr_cusolver_api cuarr_cusolver;

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x) /* the name after cuda.h's renaming: cuMemAlloc -> "cuMemAlloc_v2" */

/* One library's loading state: done once, the outcome kept. */
typedef struct library {
  pthread_once_t once;
  cuarr_status status;
  char message[512];
  void *handle;
} library;

static library driver_lib = {PTHREAD_ONCE_INIT, CUARR_OK, "", NULL};
static library nvrtc_lib = {PTHREAD_ONCE_INIT, CUARR_OK, "", NULL};
static library cublas_lib = {PTHREAD_ONCE_INIT, CUARR_OK, "", NULL};
static library cusolver_lib = {PTHREAD_ONCE_INIT, CUARR_OK, "", NULL};

/* Try env_var's file, then each soname on the loader's path, then under $CUDA_HOME/lib64. */
static void *open_library(const char *env_var, const char *const *sonames, char *tried,
                          size_t tried_size) {
  const char *forced = getenv(env_var);
  if (forced && *forced) {
    void *h = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    snprintf(tried, tried_size, "%s=%s (%s)", env_var, forced, h ? "ok" : dlerror());
    return h;
  }
  const char *home = getenv("CUDA_HOME");
  if (!home || !*home)
    home = "/usr/local/cuda";
  for (const char *const *name = sonames; *name; name++) {
    void *h = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (h)
      return h;
  }
  for (const char *const *name = sonames; *name; name++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/lib64/%s", home, *name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
      return h;
  }
  snprintf(tried, tried_size, "%s not found on the loader's path nor in %s/lib64 (set %s)",
           sonames[0], home, env_var);
  return NULL;
}

static void fail_library(library *lib, const char *fmt, const char *a, const char *b) {
  lib->status = CUARR_NOT_AVAILABLE;
  snprintf(lib->message, sizeof lib->message, fmt, a, b);
  if (lib->handle)
    dlclose(lib->handle);
  lib->handle = NULL;
}

/* Open lib (open_library's search); when it is not found, fail it with "no <label>: " and where
 * it was looked for. */
static bool open_or_fail(library *lib, const char *label, const char *env_var,
                         const char *const *sonames) {
  char tried[600] = "";
  lib->handle = open_library(env_var, sonames, tried, sizeof tried);
  if (!lib->handle)
    fail_library(lib, "no %s: %s", label, tried);
  return lib->handle != NULL;
}

#define RESOLVE_(f)                                                                                \
  if (ok) {                                                                                        \
    *(void **)&api->f = dlsym(lib->handle, XSTR(f));                                               \
    if (!api->f) {                                                                                 \
      fail_library(lib, "%s lacks %s", what, XSTR(f));                                             \
      ok = 0;                                                                                      \
    }                                                                                              \
  }

#define RESOLVE_OPTIONAL_(f) *(void **)&api->f = dlsym(lib->handle, XSTR(f));

static void load_driver_once(void) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
  library *lib = &driver_lib;
  cuarr_driver_api *api = &cuarr_cu;
  const char *what = "the CUDA driver (libcuda.so.1)";
  if (!open_or_fail(lib, "CUDA driver", "CUARR_LIBCUDA", names))
    return;
  int ok = 1;
  CUARR_DRIVER_FUNCTIONS(RESOLVE_)
  if (!ok)
    return;
  CUARR_DRIVER_OPTIONAL_FUNCTIONS(RESOLVE_OPTIONAL_)
  CUresult r = cuarr_cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *name = "unknown error";
    cuarr_cu.cuGetErrorName(r, &name);
    fail_library(lib, "the CUDA driver did not initialise: cuInit failed with %s%s", name,
                 r == CUDA_ERROR_NO_DEVICE ? " (no CUDA device)" : "");
  }
}

static void load_nvrtc_once(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
  library *lib = &nvrtc_lib;
  cuarr_nvrtc_api *api = &cuarr_nvrtc;
  const char *what = "NVRTC (libnvrtc.so)";
  if (!open_or_fail(lib, "NVRTC", "CUARR_LIBNVRTC", names))
    return;
  int ok = 1;
  CUARR_NVRTC_FUNCTIONS(RESOLVE_)
}

static void load_cublas_once(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so", NULL};
  library *lib = &cublas_lib;
  cuarr_cublas_api *api = &cuarr_cublas;
  const char *what = "cuBLAS (libcublas.so)";
  if (!open_or_fail(lib, "cuBLAS", "CUARR_LIBCUBLAS", names))
    return;
  int ok = 1;
  CUARR_CUBLAS_FUNCTIONS(RESOLVE_)
}

static void load_cusolver_once(void) {
  static const char *const names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so",
                                      NULL};
  library *lib = &cusolver_lib;
  cuarr_cusolver_api *api = &cuarr_cusolver;
  const char *what = "cuSOLVER (libcusolver.so)";
  if (!open_or_fail(lib, "cuSOLVER", "CUARR_LIBCUSOLVER", names))
    return;
  int ok = 1;
  CUARR_CUSOLVER_FUNCTIONS(RESOLVE_)
}

static cuarr_status finish(library *lib, void (*init)(void)) {
  pthread_once(&lib->once, init);
  if (lib->status != CUARR_OK)
    return cuarr_fail(lib->status, "%s", lib->message);
  return CUARR_OK;
}

cuarr_status cuarr_load_driver(void) { return finish(&driver_lib, load_driver_once); }
cuarr_status cuarr_load_nvrtc(void) { return finish(&nvrtc_lib, load_nvrtc_once); }
cuarr_status cuarr_load_cublas(void) { return finish(&cublas_lib, load_cublas_once); }
cuarr_status cuarr_load_cusolver(void) { return finish(&cusolver_lib, load_cusolver_once); }

cuarr_status cuarr_cu_check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return CUARR_OK;
  const char *name = "CUDA_ERROR_UNKNOWN", *text = "unknown error";
  cuarr_cu.cuGetErrorName(r, &name);
  cuarr_cu.cuGetErrorString(r, &text);
  cuarr_status s = r == CUDA_ERROR_OUT_OF_MEMORY ? CUARR_OUT_OF_MEMORY : CUARR_CUDA_ERROR;
  return cuarr_fail(s, "%s: %s (%s)", what, name, text);
}

cuarr_status cuarr_cublas_check(cublasStatus_t r, const char *what) {
  if (r == CUBLAS_STATUS_SUCCESS)
    return CUARR_OK;
  cuarr_status s = r == CUBLAS_STATUS_ALLOC_FAILED ? CUARR_OUT_OF_MEMORY : CUARR_CUDA_ERROR;
  return cuarr_fail(s, "%s: %s", what, cuarr_cublas.cublasGetStatusName(r));
}

cuarr_status cuarr_cusolver_check(cusolverStatus_t r, const char *what) {
  static const char *const names[] = {"CUSOLVER_STATUS_SUCCESS",
                                      "CUSOLVER_STATUS_NOT_INITIALIZED",
                                      "CUSOLVER_STATUS_ALLOC_FAILED",
                                      "CUSOLVER_STATUS_INVALID_VALUE",
                                      "CUSOLVER_STATUS_ARCH_MISMATCH",
                                      "CUSOLVER_STATUS_MAPPING_ERROR",
                                      "CUSOLVER_STATUS_EXECUTION_FAILED",
                                      "CUSOLVER_STATUS_INTERNAL_ERROR",
                                      "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
                                      "CUSOLVER_STATUS_NOT_SUPPORTED"};
  if (r == CUSOLVER_STATUS_SUCCESS)
    return CUARR_OK;
  cuarr_status s = r == CUSOLVER_STATUS_ALLOC_FAILED ? CUARR_OUT_OF_MEMORY : CUARR_CUDA_ERROR;
  if ((unsigned)r < sizeof names / sizeof names[0])
    return cuarr_fail(s, "%s: %s", what, names[r]);
  return cuarr_fail(s, "%s: cuSOLVER status %d", what, (int)r);
}

cuarr_status cuarr_nvrtc_check(nvrtcResult r, const char *what) {
  if (r == NVRTC_SUCCESS)
    return CUARR_OK;
  return cuarr_fail(CUARR_COMPILE_ERROR, "%s: %s", what, cuarr_nvrtc.nvrtcGetErrorString(r));
}
