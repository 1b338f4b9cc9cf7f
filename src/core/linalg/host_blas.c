/*
 * host_blas.c -- open the system BLAS and LAPACK (host_blas.h says where they are looked for).
 */
#include "linalg/host_blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cuarr_host_blas blas;
static void *blas_handle;
static cuarr_status status = CUARR_OK;
static char message[512];

static pthread_once_t lapack_once = PTHREAD_ONCE_INIT;
static cuarr_host_lapack lapack;
static cuarr_status lapack_status = CUARR_OK;
static char lapack_message[512];

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
  blas_handle = h;
}

static bool resolve_lapack(void *h) {
  *(void **)&lapack.sgetrf = dlsym(h, "sgetrf_");
  *(void **)&lapack.dgetrf = dlsym(h, "dgetrf_");
  *(void **)&lapack.sgetrs = dlsym(h, "sgetrs_");
  *(void **)&lapack.dgetrs = dlsym(h, "dgetrs_");
  *(void **)&lapack.spotrf = dlsym(h, "spotrf_");
  *(void **)&lapack.dpotrf = dlsym(h, "dpotrf_");
  *(void **)&lapack.sgeqrf = dlsym(h, "sgeqrf_");
  *(void **)&lapack.dgeqrf = dlsym(h, "dgeqrf_");
  *(void **)&lapack.sorgqr = dlsym(h, "sorgqr_");
  *(void **)&lapack.dorgqr = dlsym(h, "dorgqr_");
  *(void **)&lapack.ssyevd = dlsym(h, "ssyevd_");
  *(void **)&lapack.dsyevd = dlsym(h, "dsyevd_");
  *(void **)&lapack.sgesvd = dlsym(h, "sgesvd_");
  *(void **)&lapack.dgesvd = dlsym(h, "dgesvd_");
  return lapack.sgetrf && lapack.dgetrf && lapack.sgetrs && lapack.dgetrs && lapack.spotrf &&
         lapack.dpotrf && lapack.sgeqrf && lapack.dgeqrf && lapack.sorgqr && lapack.dorgqr &&
         lapack.ssyevd && lapack.dsyevd && lapack.sgesvd && lapack.dgesvd;
}

static void load_lapack_once(void) {
  const cuarr_host_blas *unused;
  const char *forced = getenv("CUARR_LIBLAPACK");
  if (!(forced && *forced) && cuarr_load_host_blas(&unused) == CUARR_OK &&
      resolve_lapack(blas_handle)) {
    snprintf(lapack.path, sizeof lapack.path, "%s", blas.path);
    return;
  }
  const char *name = forced && *forced ? forced : "liblapack.so.3";
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h && resolve_lapack(h)) {
    snprintf(lapack.path, sizeof lapack.path, "%s", name);
    return;
  }
  lapack_status = CUARR_NOT_AVAILABLE;
  snprintf(lapack_message, sizeof lapack_message,
           "no LAPACK for host arrays: install Debian's libopenblas0 (or liblapack3), or set "
           "CUARR_LIBLAPACK to a LAPACK library (%s: %s)",
           name, h ? "lacks one of getrf, getrs, potrf, geqrf, orgqr, syevd, gesvd" : dlerror());
  if (h)
    dlclose(h);
}

cuarr_status cuarr_load_host_lapack(const cuarr_host_lapack **out) {
  pthread_once(&lapack_once, load_lapack_once);
  if (lapack_status != CUARR_OK)
    return cuarr_fail(lapack_status, "%s", lapack_message);
  *out = &lapack;
  return CUARR_OK;
}

cuarr_status cuarr_load_host_blas(const cuarr_host_blas **out) {
  pthread_once(&once, load_once);
  if (status != CUARR_OK)
    return cuarr_fail(status, "%s", message);
  *out = &blas;
  return CUARR_OK;
}
