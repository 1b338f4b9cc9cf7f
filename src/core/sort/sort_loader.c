/*
 * sort_loader.c -- open libcuarr_sort.so (the device sort engine nvcc builds from
 * sort/cub/radix_sort.cu) with dlopen on first use, as cuda/loader.c opens the CUDA libraries.
 *
 * The library is looked for as CUARR_LIBSORT names it, else beside core.so (the file dladdr
 * reports for this code), else on the loader's path.  A library that is missing, lacks an entry
 * point or is of another interface version leaves every device sort failing with
 * CUARR_NOT_AVAILABLE and a message that says which; everything else in cuarr works without it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort/sort_internal.h"

cuarr_sort_lib_api cuarr_sort_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cuarr_status status = CUARR_OK;
static char message[900];

#define LIBRARY_NAME "libcuarr_sort.so"

/* The folder holding core.so (the object this function lies in), with a trailing '/'. */
static bool own_folder(char *buf, size_t size) {
  Dl_info info;
  if (!dladdr((void *)own_folder, &info) || !info.dli_fname)
    return false;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash || (size_t)(slash - info.dli_fname) + 2 > size)
    return false;
  memcpy(buf, info.dli_fname, (size_t)(slash - info.dli_fname) + 1);
  buf[slash - info.dli_fname + 1] = '\0';
  return true;
}

static void *open_sort_library(char *tried, size_t size) {
  const char *forced = getenv("CUARR_LIBSORT");
  if (forced && *forced) {
    void *h = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    snprintf(tried, size, "CUARR_LIBSORT=%s (%s)", forced, h ? "ok" : dlerror());
    return h;
  }
  char path[700] = "";
  if (own_folder(path, sizeof path - sizeof LIBRARY_NAME)) {
    strcat(path, LIBRARY_NAME);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
      return h;
    snprintf(tried, size, "%s: %s", path, dlerror());
  }
  void *h = dlopen(LIBRARY_NAME, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    size_t used = strlen(tried);
    snprintf(tried + used, size - used, "%s%s not on the loader's path", used ? "; " : "",
             LIBRARY_NAME);
  }
  return h;
}

#define RESOLVE_(f)                                                                                \
  if (ok) {                                                                                        \
    *(void **)&cuarr_sort_lib.f = dlsym(handle, #f);                                               \
    if (!cuarr_sort_lib.f) {                                                                       \
      snprintf(message, sizeof message,                                                            \
               "no device sort: the sort library (" LIBRARY_NAME ") lacks %s", #f);                \
      ok = false;                                                                                  \
    }                                                                                              \
  }

static void load_once(void) {
  char tried[600] = "";
  void *handle = open_sort_library(tried, sizeof tried);
  status = CUARR_NOT_AVAILABLE;
  if (!handle) {
    snprintf(message, sizeof message,
             "no device sort: the sort library (" LIBRARY_NAME
             ", which cuarr builds with nvcc beside core.so) was not found: %s (set CUARR_LIBSORT)",
             tried);
    return;
  }
  bool ok = true;
  CUARR_SORT_LIB_FUNCTIONS(RESOLVE_)
  if (ok && cuarr_sort_lib.cuarr_sort_lib_version() != CUARR_SORT_LIB_VERSION) {
    snprintf(message, sizeof message,
             "no device sort: the sort library (" LIBRARY_NAME
             ") has interface version %d, this cuarr needs %d (rebuild cuarr)",
             cuarr_sort_lib.cuarr_sort_lib_version(), CUARR_SORT_LIB_VERSION);
    ok = false;
  }
  if (!ok) {
    dlclose(handle);
    return;
  }
  status = CUARR_OK;
}

cuarr_status cuarr_load_sort_library(void) {
  pthread_once(&once, load_once);
  if (status != CUARR_OK)
    return cuarr_fail(status, "%s", message);
  return CUARR_OK;
}

cuarr_status cuarr_sort_lib_check(int code, const char *what) {
  if (code == 0)
    return CUARR_OK;
  const char *name = cuarr_sort_lib.cuarr_sort_lib_error_name(code);
  /* cudaErrorMemoryAllocation is 2 in every CUDA runtime. */
  return cuarr_fail(code == 2 ? CUARR_OUT_OF_MEMORY : CUARR_CUDA_ERROR, "%s: %s", what,
                    name ? name : "unknown CUDA runtime error");
}
