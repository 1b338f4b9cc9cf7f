/*
 * default_pools.c -- the process-wide pools: one per device (cuMemAlloc) and one of pinned host
 * memory (cuMemHostAlloc).  Created on first use and kept for the life of the process; what
 * they cache goes back to the driver through cuarr_release_cached_memory.
 *
 * The raw allocators make the right primary context current for the driver call and then put
 * back the thread's own: releasing cached memory of device 1 (free_all_blocks, or the retry of a
 * failed allocation) must not leave a thread that works on device 0 switched to device 1.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Atomic(cuarr_pool *) device_pools[CUARR_MAX_DEVICES];
static _Atomic(cuarr_pool *) pinned_pool;
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- contexts */

/* ---------------------------------------------------------------- raw allocators */

static cuarr_status device_alloc(void *state, size_t size, void **ptr) {
  CUcontext saved;
  CUARR_TRY(cuarr_device_context_push((int)(intptr_t)state, &saved));
  CUdeviceptr d = 0;
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a new segment during a capture */
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuMemAlloc(&d, size), "cuMemAlloc");
  cuarr_capture_restore(mode);
  cuarr_device_context_pop(saved);
  if (s == CUARR_OK)
    *ptr = (void *)(uintptr_t)d;
  return s; /* CUDA_ERROR_OUT_OF_MEMORY is CUARR_OUT_OF_MEMORY: the pool then retries */
}

static void device_free(void *state, void *ptr, size_t size) {
  (void)size;
  CUcontext saved;
  if (cuarr_device_context_push((int)(intptr_t)state, &saved) != CUARR_OK)
    return;
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* out of memory during a capture */
  cuarr_cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr);
  cuarr_capture_restore(mode);
  cuarr_device_context_pop(saved);
}

/* Pinned memory is allocated in device 0's primary context, which cuarr never destroys; an
 * embedder's context (current at the time, perhaps) could be, taking the memory with it.
 * PORTABLE makes it pinned for every context. */
static cuarr_status pinned_alloc(void *state, size_t size, void **ptr) {
  (void)state;
  CUcontext saved;
  CUARR_TRY(cuarr_device_context_push(0, &saved));
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuMemHostAlloc(ptr, size, CU_MEMHOSTALLOC_PORTABLE),
                                  "cuMemHostAlloc");
  cuarr_device_context_pop(saved);
  return s;
}

static void pinned_free(void *state, void *ptr, size_t size) {
  (void)state;
  (void)size;
  CUcontext saved;
  if (cuarr_device_context_push(0, &saved) != CUARR_OK)
    return;
  cuarr_cu.cuMemFreeHost(ptr);
  cuarr_device_context_pop(saved);
}

/* ---------------------------------------------------------------- CUARR_GPU_MEMORY_LIMIT */

/* Bytes ("268435456") or a share of the device's memory ("50%", "12.5%"); 0 (no limit) for
 * anything else, as CuPy ignores what it cannot read. */
static size_t limit_from_env(size_t total) {
  const char *s = getenv("CUARR_GPU_MEMORY_LIMIT");
  if (!s || !isdigit((unsigned char)s[0]))
    return 0;
  char *end;
  errno = 0;
  if (strchr(s, '%')) {
    double percent = strtod(s, &end);
    if (errno || strcmp(end, "%") != 0 || !(percent <= 100.0))
      return 0;
    return (size_t)(percent / 100.0 * (double)total);
  }
  unsigned long long bytes = strtoull(s, &end, 10);
  if (errno || *end || bytes > SIZE_MAX)
    return 0;
  return (size_t)bytes;
}

/* ---------------------------------------------------------------- the pools */

static cuarr_pool *device_pool_new(int device) {
  size_t free_bytes = 0, total = 0;
  CUcontext saved = NULL;
  if (cuarr_cu.cuCtxGetCurrent(&saved) != CUDA_SUCCESS)
    saved = NULL;
  if (cuarr_device_memory_info(device, &free_bytes, &total) != CUARR_OK)
    total = 0;                     /* capacity unknown: the pool works without it */
  cuarr_device_context_pop(saved); /* memory_info made the device current */
  cuarr_raw_allocator raw = {device_alloc, device_free, (void *)(intptr_t)device};
  cuarr_pool *p = cuarr_pool_new(raw, total);
  if (!p) {
    cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory creating the pool of device %d", device);
    return NULL;
  }
  cuarr_pool_set_limit(p, limit_from_env(total));
  return p;
}

cuarr_pool *cuarr_device_pool(int device) {
  /* Fast path, without a lock: every device allocation comes here. */
  if (device >= 0 && device < CUARR_MAX_DEVICES) {
    cuarr_pool *p = atomic_load_explicit(&device_pools[device], memory_order_acquire);
    if (p)
      return p;
  }
  if (cuarr_device_check(device) != CUARR_OK)
    return NULL;
  if (device >= CUARR_MAX_DEVICES) {
    cuarr_fail(CUARR_NOT_AVAILABLE, "cuarr handles devices 0 to %d, not %d", CUARR_MAX_DEVICES - 1,
               device);
    return NULL;
  }
  pthread_mutex_lock(&create_lock);
  cuarr_pool *p = atomic_load_explicit(&device_pools[device], memory_order_acquire);
  if (!p && (p = device_pool_new(device)))
    atomic_store_explicit(&device_pools[device], p, memory_order_release);
  pthread_mutex_unlock(&create_lock);
  return p;
}

cuarr_pool *cuarr_pinned_pool(void) {
  cuarr_pool *p = atomic_load_explicit(&pinned_pool, memory_order_acquire);
  if (p)
    return p;
  if (cuarr_load_driver() != CUARR_OK)
    return NULL;
  pthread_mutex_lock(&create_lock);
  p = atomic_load_explicit(&pinned_pool, memory_order_acquire);
  if (!p) {
    cuarr_raw_allocator raw = {pinned_alloc, pinned_free, NULL};
    p = cuarr_pool_new(raw, 0);
    if (p)
      atomic_store_explicit(&pinned_pool, p, memory_order_release);
    else
      cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory creating the pinned pool");
  }
  pthread_mutex_unlock(&create_lock);
  return p;
}

void cuarr_release_cached_memory(void) {
  /* Pinned buffers held for transfers still running go back to their pool first (none are
   * held without a driver: then this does no driver call). */
  cuarr_defer_drain();
  for (int d = 0; d < CUARR_MAX_DEVICES; d++) {
    cuarr_pool *p = atomic_load_explicit(&device_pools[d], memory_order_acquire);
    if (p)
      cuarr_pool_free_all_blocks(p);
  }
  cuarr_pool *pinned = atomic_load_explicit(&pinned_pool, memory_order_acquire);
  if (pinned)
    cuarr_pool_free_all_blocks(pinned);
  cuarr_buffer_release_spares();
}
