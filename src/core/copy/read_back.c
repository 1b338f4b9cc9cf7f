/*
 * read_back.c -- a few bytes of device memory back on the host with the least latency: what
 * item() and a reduction's result read.
 *
 * A copy engine's transfer costs several microseconds more than a kernel doing the same; so a
 * one-block kernel (kernels/templates/read_back.cu) copies the bytes into a block of pinned host
 * memory, which a kernel reaches at its host address under unified addressing, then stores a flag
 * there, and the host watches the flag instead of synchronising the stream.  Reading a
 * 1000-element sum back on an H100 (interleaved runs): cuMemcpyDtoHAsync + cuStreamSynchronize
 * 18.9 us, the kernel + cuStreamSynchronize 14.0, the kernel + watching the flag 12.0; a launch
 * + synchronize alone 9.2.
 *
 * The host spins on the flag only briefly: past SPIN_NS it asks the stream every so often and
 * leaves the waiting to cuStreamSynchronize (the context's own policy: yield or block), so
 * that a long queue ahead does not cost a busy core.  A stream in error ends the wait with the
 * error.  Without unified addressing, NVRTC or a pinned block, cuarr_read_back says so
 * (CUARR_NOT_AVAILABLE) and the caller takes the copy engine.
 */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "transfer.h"

#include "kernel_sources.h"

enum {
  FLAG_OFFSET = CUARR_READ_BACK_MAX, /* the flag's place in the pinned block */
  POLL_EVERY = 256,                  /* spins between looks at the clock and the stream */
  SPIN_NS = 200000                   /* busy-waiting at most this long */
};

/* Per device: 0 not known yet, 1 the kernel path is unavailable, 2 available (unified
 * addressing); then the kernel once compiled. */
static atomic_int usable[CUARR_MAX_DEVICES];
static _Atomic(CUfunction) kernels[CUARR_MAX_DEVICES];
static atomic_uint next_tag;

static bool kernel_path(int device, CUfunction *f) {
  if (device < 0 || device >= CUARR_MAX_DEVICES)
    return false;
  int u = atomic_load_explicit(&usable[device], memory_order_relaxed);
  if (u == 0) {
    const cuarr_device_facts *facts;
    bool ok = cuarr_device_facts_get(device, &facts) == CUARR_OK && facts->unified_addressing;
    u = ok ? 2 : 1;
    atomic_store_explicit(&usable[device], u, memory_order_relaxed);
  }
  if (u != 2)
    return false;
  *f = atomic_load_explicit(&kernels[device], memory_order_acquire);
  if (*f)
    return true;
  /* Two threads missing at once both ask the compile service, which hands both the same
   * kernel.  Without NVRTC the path stays closed for this device; other failures (out of
   * memory) only for this call. */
  if (cuarr_kernel_get(device, cuarr_kernel_source_read_back_cu, "cuarr_read_back", NULL, 0, f) !=
      CUARR_OK) {
    if (cuarr_load_nvrtc() != CUARR_OK)
      atomic_store_explicit(&usable[device], 1, memory_order_relaxed);
    return false;
  }
  atomic_store_explicit(&kernels[device], *f, memory_order_release);
  return true;
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Until *flag == tag or the stream has finished; CUARR_OK either way unless the stream failed. */
static cuarr_status wait_flag(CUstream stream, const unsigned *flag, unsigned tag) {
  int64_t start = now_ns();
  for (unsigned spin = 1;; spin++) {
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == tag)
      return CUARR_OK;
    if (spin % POLL_EVERY)
      continue;
    CUresult r = cuarr_cu.cuStreamQuery(stream);
    if (r == CUDA_SUCCESS)
      return CUARR_OK;
    if (r != CUDA_ERROR_NOT_READY)
      return cuarr_cu_check(r, "cuStreamQuery");
    if (now_ns() - start > SPIN_NS)
      return cuarr_cu_check(cuarr_cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
}

cuarr_status cuarr_read_back(int device, CUstream stream, void *dst, const void *src, size_t n) {
  CUfunction f;
  cuarr_pool *pool = cuarr_pinned_pool();
  if (n > CUARR_READ_BACK_MAX || !pool || !kernel_path(device, &f))
    return CUARR_NOT_AVAILABLE;
  cuarr_block *b = NULL;
  cuarr_reclaim none = {NULL, NULL};
  if (cuarr_pool_alloc(pool, FLAG_OFFSET + 64, NULL, none, &b) != CUARR_OK)
    return CUARR_NOT_AVAILABLE;
  unsigned char *host = b->ptr;
  unsigned *flag = (unsigned *)(host + FLAG_OFFSET);
  unsigned tag = atomic_fetch_add_explicit(&next_tag, 1, memory_order_relaxed) + 1;
  if (tag == 0)
    tag = 1; /* 0 could be a fresh block's */
  __atomic_store_n(flag, 0u, __ATOMIC_RELAXED);
  CUdeviceptr from = (CUdeviceptr)src, to = (CUdeviceptr)host, at = (CUdeviceptr)flag;
  unsigned count = (unsigned)n;
  void *args[] = {&from, &to, &count, &at, &tag};
  if (cuarr_launch_dependent(device, f, 1, 256, 0, stream, args) != CUARR_OK) {
    /* Nothing was queued: the copy engine may still manage (and reports a broken context
     * itself). */
    cuarr_pool_free(pool, b, NULL);
    return CUARR_NOT_AVAILABLE;
  }
  cuarr_status s = wait_flag(stream, flag, tag);
  /* The stream finished without the flag (a driver that runs no kernels): the bytes are not
   * known to be there, so the caller reads them with the copy engine after all. */
  if (s == CUARR_OK && __atomic_load_n(flag, __ATOMIC_ACQUIRE) != tag)
    s = CUARR_NOT_AVAILABLE;
  if (s == CUARR_OK)
    memcpy(dst, host, n);
  /* A wait that failed (a capture error, say) may leave the kernel queued, still to write into
   * the block: it is then leaked rather than handed to someone else. */
  if (s == CUARR_OK || s == CUARR_NOT_AVAILABLE)
    cuarr_pool_free(pool, b, NULL);
  return s;
}
