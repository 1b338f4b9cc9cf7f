/*
 * cublas_handles.c -- one cuBLAS handle per (device, stream) in use, each with a workspace from
 * the device's pool, and beside it a cuSOLVER handle on the same stream, made on first use.
 *
 * A handle is tied to a stream and owns its workspace: two streams sharing one would let their
 * products overwrite each other's workspace, which is why cuBLAS asks for a handle per stream
 * (or per thread) and why this table is keyed by the stream.  The table is small: a program
 * uses few streams, and the least recently used handle makes room for a new one (cublasDestroy
 * waits for the device, a price paid only by programs that use many streams in turn).
 *
 * One mutex guards the table and the calls made with a handle: cuBLAS's calls only queue work,
 * and a handle's settings (its math mode) must not change under another thread's call.
 *
 * The workspace comes from the pool of the null stream, not the handle's: it is the handle's
 * for as long as the handle lives, whatever stream the handle serves, and a handle first used
 * during a graph capture must not hand it to the graph.
 */
#include <pthread.h>

#include "linalg/matmul.h"

/* cuBLAS's recommended workspace on Hopper: enough for its split-K and stream-K kernels. */
#define WORKSPACE_BYTES ((size_t)32 << 20)
#define MAX_HANDLES 32

struct cuarr_cublas_handle {
  int device;
  CUstream stream;
  cublasHandle_t handle; /* NULL: the slot is free */
  cuarr_buffer *workspace;
  cusolverDnHandle_t solver; /* NULL until asked for */
  unsigned long long last_use;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cuarr_cublas_handle table[MAX_HANDLES];
static unsigned long long clock_ticks;

static void destroy(cuarr_cublas_handle *h) {
  cuarr_device_activate(h->device);
  cuarr_cublas.cublasDestroy(h->handle); /* waits for the work queued with it */
  if (h->solver)
    cuarr_cusolver.cusolverDnDestroy(h->solver);
  cuarr_buffer_release(h->workspace);
  *h = (cuarr_cublas_handle){0};
}

static cuarr_status create(cuarr_cublas_handle *h, int device, CUstream stream) {
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a first use during a capture */
  cublasHandle_t handle = NULL;
  cuarr_buffer *workspace = NULL;
  cuarr_reclaim none = {NULL, NULL};
  cuarr_status s = cuarr_cublas_check(cuarr_cublas.cublasCreate(&handle), "cublasCreate");
  if (s == CUARR_OK)
    s = cuarr_cublas_check(cuarr_cublas.cublasSetStream(handle, (cudaStream_t)stream),
                           "cublasSetStream");
  if (s == CUARR_OK)
    s = cuarr_buffer_new_device(device, WORKSPACE_BYTES, NULL, none, &workspace);
  if (s == CUARR_OK)
    s = cuarr_cublas_check(cuarr_cublas.cublasSetWorkspace(handle, workspace->ptr, WORKSPACE_BYTES),
                           "cublasSetWorkspace");
  cuarr_capture_restore(mode);
  if (s != CUARR_OK) {
    if (handle)
      cuarr_cublas.cublasDestroy(handle);
    if (workspace)
      cuarr_buffer_release(workspace);
    return s;
  }
  *h = (cuarr_cublas_handle){device, stream, handle, workspace, NULL, 0};
  return CUARR_OK;
}

cuarr_status cuarr_cublas_handle_lock(int device, CUstream stream, cuarr_cublas_handle **out) {
  CUARR_TRY(cuarr_load_cublas());
  CUARR_TRY(cuarr_device_activate(device));
  pthread_mutex_lock(&lock);
  cuarr_cublas_handle *found = NULL, *spare = NULL;
  for (int i = 0; i < MAX_HANDLES && !found; i++) {
    cuarr_cublas_handle *h = &table[i];
    if (h->handle && h->device == device && h->stream == stream)
      found = h;
    else if (!spare || (spare->handle && (!h->handle || h->last_use < spare->last_use)))
      spare = h;
  }
  if (!found) {
    if (spare->handle) {
      destroy(spare);
      cuarr_device_activate(device);
    }
    cuarr_status s = create(spare, device, stream);
    if (s != CUARR_OK) {
      pthread_mutex_unlock(&lock);
      return s;
    }
    found = spare;
  }
  found->last_use = ++clock_ticks;
  *out = found;
  return CUARR_OK;
}

void cuarr_cublas_handle_unlock(cuarr_cublas_handle *h) {
  (void)h;
  pthread_mutex_unlock(&lock);
}

cublasHandle_t cuarr_cublas_handle_get(const cuarr_cublas_handle *h) { return h->handle; }

cuarr_status cuarr_cublas_handle_solver(cuarr_cublas_handle *h, cusolverDnHandle_t *out) {
  if (!h->solver) {
    CUARR_TRY(cuarr_load_cusolver());
    cuarr_capture_mode_saved mode = cuarr_capture_relax();
    cusolverDnHandle_t solver = NULL;
    cuarr_status s =
        cuarr_cusolver_check(cuarr_cusolver.cusolverDnCreate(&solver), "cusolverDnCreate");
    if (s == CUARR_OK)
      s = cuarr_cusolver_check(cuarr_cusolver.cusolverDnSetStream(solver, (cudaStream_t)h->stream),
                               "cusolverDnSetStream");
    cuarr_capture_restore(mode);
    if (s != CUARR_OK) {
      if (solver)
        cuarr_cusolver.cusolverDnDestroy(solver);
      return s;
    }
    h->solver = solver;
  }
  *out = h->solver;
  return CUARR_OK;
}
