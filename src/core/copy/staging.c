/*
 * staging.c -- byte copies between host and device, staged through pinned memory.
 *
 * The DMA engines read and write only page-locked memory.  Given pageable memory, the driver
 * stages it itself, a little at a time and without overlap (6-8 GB/s on an H100 machine).  We
 * stage through two pinned blocks from the pinned pool instead, so that the CPU's memcpy of one
 * chunk runs while the DMA engine moves the other.
 */
#include <pthread.h>
#include <string.h>

#include "transfer.h"

/* One CPU core copies pageable memory at 7-10 GB/s, well under what the DMA engine moves, and
 * a fresh destination also pays its page faults on that core.  Each staging chunk is therefore
 * copied by a few threads at once. */
enum { COPY_THREADS = 4, PARALLEL_MIN = 1 << 20 };

typedef struct copy_part {
  char *dst;
  const char *src;
  size_t n;
} copy_part;

static void *copy_part_run(void *arg) {
  copy_part *p = arg;
  memcpy(p->dst, p->src, p->n);
  return NULL;
}

static void parallel_memcpy(void *dst, const void *src, size_t n) {
  if (n < PARALLEL_MIN) {
    memcpy(dst, src, n);
    return;
  }
  copy_part parts[COPY_THREADS];
  pthread_t threads[COPY_THREADS];
  bool started[COPY_THREADS] = {false};
  size_t per = ((n + COPY_THREADS - 1) / COPY_THREADS + 63) & ~(size_t)63;
  for (int t = 0; t < COPY_THREADS; t++) {
    size_t off = per * (size_t)t < n ? per * (size_t)t : n;
    size_t len = n - off < per ? n - off : per;
    parts[t] = (copy_part){(char *)dst + off, (const char *)src + off, len};
    /* The last part runs here; a thread that cannot start is done here too. */
    if (t < COPY_THREADS - 1 && len > 0)
      started[t] = pthread_create(&threads[t], NULL, copy_part_run, &parts[t]) == 0;
    if (!started[t])
      copy_part_run(&parts[t]);
  }
  for (int t = 0; t < COPY_THREADS; t++)
    if (started[t])
      pthread_join(threads[t], NULL);
}

enum {
  CHUNK = 8 << 20,           /* bytes per staging step */
  STAGE_THRESHOLD = 1 << 20, /* below this the driver's own path is as fast */
  SMALL_DOWNLOAD = 4096      /* at most this: through one pinned block */
};

/* Two pinned blocks and an event for each: the event says when the DMA using it is done. */
typedef struct stage {
  cuarr_pool *pool;
  cuarr_block *block[2];
  CUevent done[2];
  bool used[2];
} stage;

static void stage_close(stage *st) {
  for (int i = 0; i < 2; i++) {
    if (st->done[i]) {
      if (st->used[i])
        cuarr_cu.cuEventSynchronize(st->done[i]);
      cuarr_cu.cuEventDestroy(st->done[i]);
    }
    if (st->block[i])
      cuarr_pool_free(st->pool, st->block[i], NULL);
  }
}

static cuarr_status stage_open(stage *st) {
  memset(st, 0, sizeof *st);
  st->pool = cuarr_pinned_pool();
  if (!st->pool)
    return CUARR_NOT_AVAILABLE; /* message already set */
  cuarr_reclaim none = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    cuarr_status s = cuarr_pool_alloc(st->pool, CHUNK, NULL, none, &st->block[i]);
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuEventCreate(&st->done[i], CU_EVENT_DISABLE_TIMING),
                         "cuEventCreate");
    if (s != CUARR_OK) {
      stage_close(st);
      return s;
    }
  }
  return CUARR_OK;
}

/* Wait until staging block i is no longer read or written by a DMA. */
static cuarr_status stage_wait(stage *st, int i) {
  if (!st->used[i])
    return CUARR_OK;
  st->used[i] = false;
  return cuarr_cu_check(cuarr_cu.cuEventSynchronize(st->done[i]), "cuEventSynchronize");
}

static cuarr_status stage_mark(stage *st, int i, CUstream stream) {
  st->used[i] = true;
  return cuarr_cu_check(cuarr_cu.cuEventRecord(st->done[i], stream), "cuEventRecord");
}

cuarr_status cuarr_upload(int device, CUstream stream, void *dst, const void *src, size_t n,
                          bool src_pinned) {
  if (!src_pinned)
    CUARR_REFUSE_IN_CAPTURE("a copy from pageable host memory to the device");
  if (n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(device));
  if (src_pinned || n < STAGE_THRESHOLD)
    return cuarr_cu_check(cuarr_cu.cuMemcpyHtoDAsync((CUdeviceptr)dst, src, n, stream),
                          "cuMemcpyHtoDAsync");
  stage st;
  CUARR_TRY(stage_open(&st));
  cuarr_status s = CUARR_OK;
  for (size_t off = 0, k = 0; off < n && s == CUARR_OK; off += CHUNK, k++) {
    int i = (int)(k & 1);
    size_t len = n - off < CHUNK ? n - off : CHUNK;
    s = stage_wait(&st, i);
    if (s != CUARR_OK)
      break;
    parallel_memcpy(st.block[i]->ptr, (const char *)src + off, len);
    s = cuarr_cu_check(
        cuarr_cu.cuMemcpyHtoDAsync((CUdeviceptr)((char *)dst + off), st.block[i]->ptr, len, stream),
        "cuMemcpyHtoDAsync");
    if (s == CUARR_OK)
      s = stage_mark(&st, i, stream);
  }
  stage_close(&st); /* waits for the last DMAs before the blocks go back to the pool */
  return s;
}

static cuarr_status download(int device, CUstream stream, void *dst, const void *src, size_t n,
                             bool dst_pinned) {
  if (!dst_pinned)
    CUARR_REFUSE_IN_CAPTURE("a copy from the device to pageable host memory (get, item, tolist, "
                            "printing)");
  if (n == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(device));
  if (dst_pinned)
    return cuarr_cu_check(cuarr_cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, stream),
                          "cuMemcpyDtoHAsync");
  if (n <= CUARR_READ_BACK_MAX) {
    cuarr_status s = cuarr_read_back(device, stream, dst, src, n);
    if (s != CUARR_NOT_AVAILABLE)
      return s;
  }
  if (n <= SMALL_DOWNLOAD) {
    /* A few bytes (item(), a reduction's result): through a pinned block from the pool, one
     * asynchronous copy and one wait, which the driver's own path for pageable memory takes
     * longer to do. */
    cuarr_pool *pool = cuarr_pinned_pool();
    cuarr_block *b = NULL;
    cuarr_reclaim none = {NULL, NULL};
    if (pool && cuarr_pool_alloc(pool, n, NULL, none, &b) == CUARR_OK) {
      cuarr_status s = cuarr_cu_check(
          cuarr_cu.cuMemcpyDtoHAsync(b->ptr, (CUdeviceptr)src, n, stream), "cuMemcpyDtoHAsync");
      if (s == CUARR_OK)
        s = cuarr_cu_check(cuarr_cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
      if (s == CUARR_OK)
        memcpy(dst, b->ptr, n);
      cuarr_pool_free(pool, b, NULL);
      return s;
    }
  }
  if (n < STAGE_THRESHOLD) {
    CUARR_CU(cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, stream));
    return cuarr_cu_check(cuarr_cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
  stage st;
  CUARR_TRY(stage_open(&st));
  size_t chunks = (n + CHUNK - 1) / CHUNK;
  cuarr_status s = CUARR_OK;
  /* Queue the DMA of chunk k+1 before copying chunk k out, so the two overlap. */
  for (size_t k = 0; k <= chunks && s == CUARR_OK; k++) {
    if (k < chunks) {
      int i = (int)(k & 1);
      size_t off = k * (size_t)CHUNK, len = n - off < CHUNK ? n - off : CHUNK;
      s = cuarr_cu_check(cuarr_cu.cuMemcpyDtoHAsync(
                             st.block[i]->ptr, (CUdeviceptr)((const char *)src + off), len, stream),
                         "cuMemcpyDtoHAsync");
      if (s == CUARR_OK)
        s = stage_mark(&st, i, stream);
    }
    if (k > 0 && s == CUARR_OK) {
      size_t j = k - 1, off = j * (size_t)CHUNK, len = n - off < CHUNK ? n - off : CHUNK;
      s = stage_wait(&st, (int)(j & 1));
      if (s == CUARR_OK)
        parallel_memcpy((char *)dst + off, st.block[j & 1]->ptr, len);
    }
  }
  stage_close(&st);
  return s;
}

cuarr_status cuarr_download(int device, CUstream stream, void *dst, const void *src, size_t n,
                            bool dst_pinned) {
  CUARR_TRY(download(device, stream, dst, src, n, dst_pinned));
  return dst_pinned ? CUARR_OK : cuarr_comm_failure_check(); /* a pinned one did not wait */
}
