/*
 * cuda/ -- the CUDA driver: loading it (and NVRTC) with dlopen, devices and their facts, streams
 *   and events, the per-call context.
 *
 * device.c -- devices, their primary contexts, and what the runtime reports.
 *
 * cuarr works in each device's primary context (cuDevicePrimaryCtxRetain), so it shares one
 * context with any CUDA runtime code in the process (an engine's renderer, another library).
 * A device's context is retained once, on first use, and kept for the life of the process.
 * Nothing here touches the driver before a function needs it.  What the engines read on every
 * call (architecture, multiprocessors, launch geometry) is kept in device_facts.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "linalg/host_blas.h"

/* A driver call whose failure names the function alone, not its argument expressions. */
#define CHECKED(fn, ...) CUARR_TRY(cuarr_cu_check(cuarr_cu.fn(__VA_ARGS__), #fn))

typedef struct device_slot {
  CUdevice dev;  /* valid once known is set */
  bool known;    /* dev looked up */
  CUcontext ctx; /* primary context; NULL until retained */
} device_slot;

/* Process-wide, guarded by devices_lock. */
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_devices = -1; /* -1 until counted; the count is fixed once cuInit has run (set
                              once under the lock, read without it once set) */
static device_slot devices[CUARR_MAX_DEVICES];

/* The primary contexts this thread has already obtained.  A context, once retained, stays the
 * same for the process, so re-activating a device the thread has used costs no lock. */
static _Thread_local CUcontext thread_contexts[CUARR_MAX_DEVICES];

static cuarr_status count_locked(void) {
  if (n_devices >= 0)
    return CUARR_OK;
  int n = 0;
  CHECKED(cuDeviceGetCount, &n);
  __atomic_store_n(&n_devices, n > CUARR_MAX_DEVICES ? CUARR_MAX_DEVICES : n, __ATOMIC_RELEASE);
  return CUARR_OK;
}

cuarr_status cuarr_device_count(int *count) {
  /* Once counted, read without the lock: every operation checks its device. */
  int n = __atomic_load_n(&n_devices, __ATOMIC_ACQUIRE);
  if (n < 0) {
    CUARR_TRY(cuarr_load_driver());
    pthread_mutex_lock(&devices_lock);
    cuarr_status s = count_locked();
    n = n_devices;
    pthread_mutex_unlock(&devices_lock);
    CUARR_TRY(s);
  }
  *count = n;
  return CUARR_OK;
}

bool cuarr_is_available(void) {
  int n = 0;
  return cuarr_device_count(&n) == CUARR_OK && n > 0;
}

cuarr_status cuarr_device_check(int device) {
  int n = 0;
  CUARR_TRY(cuarr_device_count(&n));
  if (device < 0 || device >= n)
    return cuarr_fail(CUARR_VALUE_ERROR, "device %d does not exist (%d device%s)", device, n,
                      n == 1 ? "" : "s");
  return CUARR_OK;
}

/* The CUdevice of a checked ordinal. */
static cuarr_status handle_locked(int device, CUdevice *out) {
  device_slot *d = &devices[device];
  if (!d->known) {
    CHECKED(cuDeviceGet, &d->dev, device);
    d->known = true;
  }
  *out = d->dev;
  return CUARR_OK;
}

static cuarr_status device_handle(int device, CUdevice *out) {
  CUARR_TRY(cuarr_device_check(device));
  pthread_mutex_lock(&devices_lock);
  cuarr_status s = handle_locked(device, out);
  pthread_mutex_unlock(&devices_lock);
  return s;
}

static cuarr_status retain_locked(int device) {
  device_slot *d = &devices[device];
  if (d->ctx)
    return CUARR_OK;
  CUdevice dev;
  CUARR_TRY(handle_locked(device, &dev));
  CUcontext ctx = NULL;
  CHECKED(cuDevicePrimaryCtxRetain, &ctx, dev);
  d->ctx = ctx;
  return CUARR_OK;
}

cuarr_status cuarr_device_context(int device, CUcontext *out) {
  if (device >= 0 && device < CUARR_MAX_DEVICES && thread_contexts[device]) {
    *out = thread_contexts[device];
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_device_check(device));
  pthread_mutex_lock(&devices_lock);
  cuarr_status s = retain_locked(device);
  CUcontext ctx = devices[device].ctx;
  pthread_mutex_unlock(&devices_lock);
  if (s != CUARR_OK)
    return s;
  thread_contexts[device] = ctx;
  *out = ctx;
  return CUARR_OK;
}

cuarr_status cuarr_device_context_push(int device, CUcontext *saved) {
  CUcontext ctx;
  CUARR_TRY(cuarr_device_context(device, &ctx));
  CHECKED(cuCtxGetCurrent, saved);
  if (*saved != ctx)
    CHECKED(cuCtxSetCurrent, ctx);
  return CUARR_OK;
}

void cuarr_device_context_pop(CUcontext saved) {
  CUcontext now = NULL;
  if (cuarr_cu.cuCtxGetCurrent(&now) == CUDA_SUCCESS && now != saved)
    cuarr_cu.cuCtxSetCurrent(saved);
}

cuarr_status cuarr_device_activate(int device) {
  CUcontext want = NULL, current = NULL;
  CUARR_TRY(cuarr_device_context(device, &want));
  /* Ask the driver rather than trusting a cache of our own: other code on this thread (the
   * CUDA runtime, an engine) may have made another context current since.  It is a
   * thread-local read in the driver. */
  CHECKED(cuCtxGetCurrent, &current);
  if (current == want)
    return CUARR_OK;
  CHECKED(cuCtxSetCurrent, want);
  return CUARR_OK;
}

cuarr_status cuarr_device_synchronize(int device) {
  CUARR_REFUSE_IN_CAPTURE("device synchronize");
  CUARR_TRY(cuarr_device_activate(device));
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuCtxSynchronize(), "cuCtxSynchronize"));
  return cuarr_comm_failure_check();
}

cuarr_status cuarr_device_arch(int device, int *arch) {
  const cuarr_device_facts *f;
  CUARR_TRY(cuarr_device_facts_get(device, &f));
  *arch = f->arch;
  return CUARR_OK;
}

static cuarr_status attribute(CUdevice dev, CUdevice_attribute which, const char *name, int *out) {
  char what[96];
  CUresult r = cuarr_cu.cuDeviceGetAttribute(out, which, dev);
  if (r == CUDA_SUCCESS)
    return CUARR_OK;
  snprintf(what, sizeof what, "cuDeviceGetAttribute(%s)", name);
  return cuarr_cu_check(r, what);
}

cuarr_status cuarr_device_properties(int device, cuarr_device_props *out) {
  CUdevice dev;
  CUARR_TRY(device_handle(device, &dev));
  cuarr_device_props p;
  memset(&p, 0, sizeof p);
  CHECKED(cuDeviceGetName, p.name, (int)sizeof p.name, dev);
  CHECKED(cuDeviceGetPCIBusId, p.pci_bus_id, (int)sizeof p.pci_bus_id, dev);
  CHECKED(cuDeviceTotalMem, &p.total_memory, dev);
  int l2 = 0, shared = 0;
#define ATTR(id, dst) CUARR_TRY(attribute(dev, CU_DEVICE_ATTRIBUTE_##id, #id, dst))
  ATTR(COMPUTE_CAPABILITY_MAJOR, &p.major);
  ATTR(COMPUTE_CAPABILITY_MINOR, &p.minor);
  ATTR(MULTIPROCESSOR_COUNT, &p.multiprocessors);
  ATTR(MAX_THREADS_PER_BLOCK, &p.max_threads_per_block);
  ATTR(WARP_SIZE, &p.warp_size);
  ATTR(L2_CACHE_SIZE, &l2);
  ATTR(MAX_SHARED_MEMORY_PER_BLOCK, &shared);
  ATTR(CLOCK_RATE, &p.clock_rate_khz);
  ATTR(MEMORY_CLOCK_RATE, &p.memory_clock_rate_khz);
  ATTR(GLOBAL_MEMORY_BUS_WIDTH, &p.memory_bus_width);
#undef ATTR
  p.l2_cache_bytes = (size_t)l2;
  p.shared_memory_per_block = (size_t)shared;
  *out = p;
  return CUARR_OK;
}

cuarr_status cuarr_device_memory_info(int device, size_t *free_bytes, size_t *total_bytes) {
  /* cuMemGetInfo answers for the current context. */
  CUARR_TRY(cuarr_device_activate(device));
  size_t f = 0, t = 0;
  CHECKED(cuMemGetInfo, &f, &t);
  *free_bytes = f;
  *total_bytes = t;
  return CUARR_OK;
}

cuarr_status cuarr_device_can_access_peer(int device, int peer, bool *yes) {
  CUdevice dev, peer_dev;
  CUARR_TRY(device_handle(device, &dev));
  CUARR_TRY(device_handle(peer, &peer_dev));
  /* A device is not its own peer; the driver is not asked (its answer there is not one). */
  if (device == peer) {
    *yes = false;
    return CUARR_OK;
  }
  int can = 0;
  CHECKED(cuDeviceCanAccessPeer, &can, dev, peer_dev);
  *yes = can != 0;
  return CUARR_OK;
}

void cuarr_runtime(cuarr_runtime_info *out) {
  memset(out, 0, sizeof *out);
  out->driver_version = -1;
  out->nvrtc_version = -1;
  out->cublas_version = -1;

  if (cuarr_load_driver() == CUARR_OK) {
    int v = 0, n = 0;
    if (cuarr_cu.cuDriverGetVersion(&v) == CUDA_SUCCESS)
      out->driver_version = v;
    if (cuarr_device_count(&n) == CUARR_OK)
      out->device_count = n;
  } else {
    snprintf(out->driver_missing, sizeof out->driver_missing, "%s", cuarr_last_error());
  }

  if (cuarr_load_nvrtc() == CUARR_OK) {
    int major = 0, minor = 0;
    if (cuarr_nvrtc.nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
      out->nvrtc_version = major * 1000 + minor * 10;
  }

  const cuarr_host_blas *blas;
  out->host_blas[0] = '\0';
  if (cuarr_load_host_blas(&blas) == CUARR_OK)
    snprintf(out->host_blas, sizeof out->host_blas, "%s", blas->path);

  out->cusolver_version = -1;
  if (cuarr_load_cusolver() == CUARR_OK) {
    int major = 0, minor = 0, patch = 0;
    if (cuarr_cusolver.cusolverGetProperty(MAJOR_VERSION, &major) == CUSOLVER_STATUS_SUCCESS &&
        cuarr_cusolver.cusolverGetProperty(MINOR_VERSION, &minor) == CUSOLVER_STATUS_SUCCESS &&
        cuarr_cusolver.cusolverGetProperty(PATCH_LEVEL, &patch) == CUSOLVER_STATUS_SUCCESS)
      out->cusolver_version = major * 10000 + minor * 100 + patch;
  }

  out->nccl_version = -1;
  int nccl = 0;
  if (cuarr_nccl_version(&nccl) == CUARR_OK)
    out->nccl_version = nccl;

  if (cuarr_load_cublas() == CUARR_OK) {
    int major = 0, minor = 0, patch = 0;
    if (cuarr_cublas.cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cuarr_cublas.cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cuarr_cublas.cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
      out->cublas_version = major * 10000 + minor * 100 + patch;
  }
}
