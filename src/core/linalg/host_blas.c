/*
 * host_blas.c -- open the system BLAS (host_blas.h says where it is looked for).
 */
#include "linalg/host_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cuarr_host_blas blas;
static cuarr_status status = CUARR_OK;
static char message[512];

static void *open_first(const char *const *names, const char **opened) {
  for (const char *const *name = names; *name; name++) {
    void *h = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (h) {
      *opened = *name;
      return h;
    }
  }
  return NULL;
}

static void load_once(void) {
  static const char *const names[] = {"libopenblas.so.0", "libblas.so.3", "libopenblas.so",
                                      "libblas.so", NULL};
  const char *forced = getenv("CUARR_LIBBLAS"), *opened = NULL;
  void *h = NULL;
  if (forced && *forced) {
    h = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    opened = forced;
    if (!h) {
      status = CUARR_NOT_AVAILABLE;
      snprintf(message, sizeof message, "no BLAS for host arrays: CUARR_LIBBLAS=%s (%s)", forced,
               dlerror());
      return;
    }
  } else {
    h = open_first(names, &opened);
  }
  if (!h) {
    status = CUARR_NOT_AVAILABLE;
    snprintf(message, sizeof message,
             "no BLAS for host arrays: install Debian's libopenblas0 (or libblas3 and "
             "liblapack3), or set CUARR_LIBBLAS to a BLAS library");
    return;
  }
  *(void **)&blas.sgemm = dlsym(h, "sgemm_");
  *(void **)&blas.dgemm = dlsym(h, "dgemm_");
  if (!blas.sgemm || !blas.dgemm) {
    status = CUARR_NOT_AVAILABLE;
    snprintf(message, sizeof message, "the BLAS %s lacks sgemm_ or dgemm_", opened);
    dlclose(h);
    return;
  }
  snprintf(blas.path, sizeof blas.path, "%s", opened);
}

cuarr_status cuarr_load_host_blas(const cuarr_host_blas **out) {
  pthread_once(&once, load_once);
  if (status != CUARR_OK)
    return cuarr_fail(status, "%s", message);
  *out = &blas;
  return CUARR_OK;
}
