/*
 * nccl_loader.c -- open NCCL with dlopen on first use.
 *
 * Looked for as CUARR_LIBNCCL names it (that file only), else libnccl.so.2 / libnccl.so on the
 * loader's path, under $CUDA_HOME/lib64 and $CUDA_HOME/lib (default /usr/local/cuda), then
 * where pip puts the nvidia-nccl-cu* wheels (.../python3.X/{site,dist}-packages/nvidia/nccl/lib
 * under /usr/local/lib, /usr/lib, ~/.local/lib, $VIRTUAL_ENV/lib and $CONDA_PREFIX/lib).  When
 * it is missing, or lacks an entry point, every call fails with the same NotAvailable message
 * saying where it looked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_api.h"

cuarr_nccl_api cuarr_nccl;

static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;
static cuarr_status nccl_status = CUARR_OK;
static char nccl_message[1024];
static char nccl_opened[512];
static bool nccl_stand_in; /* the library exports cuarr_stand_in_nccl (tools/fake_cuda) */

static const char *const sonames[] = {"libnccl.so.2", "libnccl.so", NULL};

static void *try_open(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h)
    snprintf(nccl_opened, sizeof nccl_opened, "%.500s", path);
  return h;
}

/* The first libnccl.so.2 of a pip wheel under prefix/python3.X/{site,dist}-packages. */
static void *open_pip(const char *prefix) {
  if (!prefix || !*prefix)
    return NULL;
  static const char *const kinds[] = {"site-packages", "dist-packages"};
  for (int k = 0; k < 2; k++) {
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/python3*/%s/nvidia/nccl/lib/libnccl.so.2", prefix,
             kinds[k]);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
      continue;
    void *h = NULL;
    for (size_t i = 0; i < g.gl_pathc && !h; i++)
      h = try_open(g.gl_pathv[i]);
    globfree(&g);
    if (h)
      return h;
  }
  return NULL;
}

static void *open_nccl(void) {
  const char *forced = getenv("CUARR_LIBNCCL");
  if (forced && *forced) {
    void *h = try_open(forced);
    if (!h)
      snprintf(nccl_message, sizeof nccl_message, "no NCCL: CUARR_LIBNCCL=%s (%s)", forced,
               dlerror());
    return h;
  }
  for (const char *const *name = sonames; *name; name++) {
    void *h = try_open(*name);
    if (h)
      return h;
  }
  const char *home = getenv("CUDA_HOME");
  if (!home || !*home)
    home = "/usr/local/cuda";
  static const char *const subdirs[] = {"lib64", "lib"};
  for (int d = 0; d < 2; d++)
    for (const char *const *name = sonames; *name; name++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s/%s", home, subdirs[d], *name);
      void *h = try_open(path);
      if (h)
        return h;
    }
  char user[1024] = "";
  const char *h_env = getenv("HOME");
  if (h_env && *h_env)
    snprintf(user, sizeof user, "%s/.local/lib", h_env);
  char venv[1024] = "", conda[1024] = "";
  const char *v = getenv("VIRTUAL_ENV"), *c = getenv("CONDA_PREFIX");
  if (v && *v)
    snprintf(venv, sizeof venv, "%s/lib", v);
  if (c && *c)
    snprintf(conda, sizeof conda, "%s/lib", c);
  const char *const prefixes[] = {"/usr/local/lib", "/usr/lib", user, venv, conda};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    void *h = open_pip(prefixes[i]);
    if (h)
      return h;
  }
  snprintf(nccl_message, sizeof nccl_message,
           "no NCCL: libnccl.so.2 is not on the loader's path, nor in %s/lib64 or %s/lib, nor a "
           "pip package (python3*/site-packages/nvidia/nccl/lib under /usr/local/lib, /usr/lib, "
           "~/.local/lib, $VIRTUAL_ENV/lib, $CONDA_PREFIX/lib); install NCCL or set "
           "CUARR_LIBNCCL to its file",
           home, home);
  return NULL;
}

#define CUARR_NCCL_RESOLVE_(f, type)                                                               \
  if (ok) {                                                                                        \
    *(void **)&cuarr_nccl.f = dlsym(handle, #f);                                                   \
    if (!cuarr_nccl.f) {                                                                           \
      snprintf(nccl_message, sizeof nccl_message,                                                  \
               "NCCL (%.500s) lacks %s: NCCL 2.10 or newer is "                                    \
               "needed",                                                                           \
               nccl_opened, #f);                                                                   \
      ok = 0;                                                                                      \
    }                                                                                              \
  }

static void load_nccl_once(void) {
  void *handle = open_nccl();
  if (!handle) {
    nccl_status = CUARR_NOT_AVAILABLE;
    nccl_opened[0] = '\0';
    return;
  }
  int ok = 1;
  CUARR_NCCL_FUNCTIONS(CUARR_NCCL_RESOLVE_)
  if (!ok) {
    nccl_status = CUARR_NOT_AVAILABLE;
    dlclose(handle);
    memset(&cuarr_nccl, 0, sizeof cuarr_nccl);
    return;
  }
  nccl_stand_in = dlsym(handle, "cuarr_stand_in_nccl") != NULL;
}

cuarr_status cuarr_load_nccl(void) {
  pthread_once(&nccl_once, load_nccl_once);
  if (nccl_status != CUARR_OK)
    return cuarr_fail(nccl_status, "%s", nccl_message);
  return CUARR_OK;
}

bool cuarr_nccl_is_stand_in(void) { return nccl_status == CUARR_OK && nccl_stand_in; }

cuarr_status cuarr_nccl_check(ncclResult_t r, const char *what) {
  static const char *const names[] = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress"};
  if (r == ncclSuccess)
    return CUARR_OK;
  const char *name = (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "ncclResult";
  const char *text = cuarr_nccl.ncclGetErrorString ? cuarr_nccl.ncclGetErrorString(r) : "";
  return cuarr_fail(CUARR_CUDA_ERROR, "%s: NCCL failed: %s (%s %d)", what, text ? text : "", name,
                    (int)r);
}
