/*
 * comm.c -- NCCL communicators of one process over several devices (ncclCommInitAll): making,
 * describing and destroying them (those of one rank per process too: comm_rank.c makes them),
 * and NCCL's version.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

cuarr_status cuarr_nccl_version(int *version) {
  CUARR_TRY(cuarr_load_nccl());
  int v = 0;
  CUARR_TRY(cuarr_nccl_check(cuarr_nccl.ncclGetVersion(&v), "ncclGetVersion"));
  *version = v;
  return CUARR_OK;
}

cuarr_status cuarr_comm_ready(void) {
  /* Once true it stays so: the libraries are never unloaded. */
  static _Atomic bool ready = false;
  if (ready)
    return CUARR_OK;
  CUARR_TRY(cuarr_load_driver());
  CUARR_TRY(cuarr_load_nccl());
  /* The driver NCCL's runtime will open is the object the soname libcuda.so.1 names; it must be
   * the one cuarr calls.  RTLD_NOLOAD finds it only when it is loaded already, by that soname
   * (a real libcuda.so.1 opened through a path has it too; the stand-in has none). */
  if (cuarr_nccl_is_stand_in()) {
    ready = true;
    return CUARR_OK;
  }
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void *theirs = h ? dlsym(h, "cuInit") : NULL;
  if (h)
    dlclose(h);
  if (!theirs || theirs != (void *)cuarr_cu.cuInit) {
    Dl_info info;
    const char *ours =
        dladdr((void *)cuarr_cu.cuInit, &info) && info.dli_fname ? info.dli_fname : "?";
    return cuarr_fail(CUARR_NOT_AVAILABLE,
                      "NCCL needs the system's CUDA driver (libcuda.so.1), but cuarr runs on %s "
                      "(CUARR_LIBCUDA): collectives are not available with it",
                      ours);
  }
  ready = true;
  return CUARR_OK;
}

CUcontext cuarr_comm_save_context(void) {
  CUcontext c = NULL;
  if (cuarr_cu.cuCtxGetCurrent(&c) != CUDA_SUCCESS)
    c = NULL;
  return c;
}

void cuarr_comm_restore_context(CUcontext saved) {
  CUcontext now = NULL;
  if (cuarr_cu.cuCtxGetCurrent(&now) == CUDA_SUCCESS && now != saved)
    cuarr_cu.cuCtxSetCurrent(saved);
}

cuarr_status cuarr_comm_init_all(int n, const int *devices, cuarr_comm **out) {
  if (n < 1 || n > CUARR_MAX_DEVICES)
    return cuarr_fail(CUARR_VALUE_ERROR, "a communicator needs 1 to %d devices, got %d",
                      CUARR_MAX_DEVICES, n);
  for (int r = 0; r < n; r++) {
    if (devices[r] < 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "device %d does not exist", devices[r]);
    for (int q = 0; q < r; q++)
      if (devices[q] == devices[r])
        return cuarr_fail(CUARR_VALUE_ERROR,
                          "device %d is listed twice (ranks %d and %d): NCCL needs one rank per "
                          "device in a process",
                          devices[r], q, r);
  }
  for (int r = 0; r < n; r++)
    CUARR_TRY(cuarr_device_check(devices[r]));
  CUARR_TRY(cuarr_comm_ready());
  /* The primary contexts first, so that NCCL's runtime finds the ones cuarr uses. */
  for (int r = 0; r < n; r++) {
    CUcontext ctx;
    CUARR_TRY(cuarr_device_context(devices[r], &ctx));
  }
  cuarr_comm *c = calloc(1, sizeof *c);
  if (!c)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a communicator");
  CUcontext saved = cuarr_comm_save_context();
  ncclResult_t r = cuarr_nccl.ncclCommInitAll(c->comms, n, devices);
  cuarr_comm_restore_context(saved);
  if (r != ncclSuccess) {
    free(c);
    return cuarr_nccl_check(r, "ncclCommInitAll");
  }
  c->n = n;
  c->world = n;
  memcpy(c->devices, devices, (size_t)n * sizeof *devices);
  *out = c;
  return CUARR_OK;
}

cuarr_status cuarr_comm_destroy(cuarr_comm *c) {
  if (!c)
    return CUARR_OK;
  cuarr_status s = CUARR_OK;
  if (cuarr_comm_watch_stop(c)) { /* aborted: NCCL has freed it */
    free(c);
    return s;
  }
  CUcontext saved = cuarr_comm_save_context();
  /* As NCCL's own example for one process over several devices: each rank destroyed in turn
   * (ncclCommDestroy waits for the work queued on it). */
  for (int r = 0; r < c->n; r++) {
    ncclResult_t e = cuarr_nccl.ncclCommDestroy(c->comms[r]);
    if (e != ncclSuccess && s == CUARR_OK)
      s = cuarr_nccl_check(e, "ncclCommDestroy");
  }
  cuarr_comm_restore_context(saved);
  free(c);
  return s;
}

int cuarr_comm_size(const cuarr_comm *c) { return c->world; }
int cuarr_comm_local_size(const cuarr_comm *c) { return c->n; }
int cuarr_comm_first_rank(const cuarr_comm *c) { return c->first_rank; }

int cuarr_comm_device(const cuarr_comm *c, int local_rank) {
  return local_rank >= 0 && local_rank < c->n ? c->devices[local_rank] : -1;
}
