/*
 * split_counters.c -- the arrival counters of split reductions: one zeroed array per (device,
 * stream), made on first use and kept for the life of the process.
 *
 * The blocks of a split reduction count their arrival on their column's counter, and the last
 * to arrive finishes the column (kernels/templates/reduction.cu).  Its atomicInc also wraps the
 * counter back to zero, so the array is all zeros whenever no reduction is running on the stream;
 * and on one stream reductions run one after another (each kernel waits for the one before it
 * before it touches memory).  So the zeros are written once, when the array is made, instead
 * of by a memset before every launch -- a second driver call per reduction.  Per stream, not
 * per device: reductions on two streams may run at once.  Entries are never freed: a destroyed
 * stream's handle is not handed out again before its queued work is done (the driver keeps
 * the stream until then), and a later stream given the same handle finds the counters at
 * zero.
 */
#include <pthread.h>

#include "reduce/reduce_engine.h"

enum { MAX_STREAMS = 256 }; /* distinct (device, stream) pairs; past that, the caller memsets */

typedef struct counters {
  int device;
  CUstream stream;
  CUdeviceptr ptr; /* 0: empty */
  size_t count;
} counters;

static counters table[MAX_STREAMS];
static int used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local counters last; /* this thread's last answer: most calls end here */

cuarr_status cuarr_red_split_counters(int device, CUstream stream, size_t count, size_t capacity,
                                      CUdeviceptr *out) {
  /* The per-thread default stream is one handle for many streams: no shared counters there. */
  if (stream == CU_STREAM_PER_THREAD || stream == CU_STREAM_LEGACY)
    return CUARR_NOT_AVAILABLE;
  if (last.ptr && last.device == device && last.stream == stream && last.count >= count) {
    *out = last.ptr;
    return CUARR_OK;
  }
  cuarr_status s = CUARR_OK;
  pthread_mutex_lock(&lock);
  counters *c = NULL;
  for (int i = 0; i < used && !c; i++)
    if (table[i].device == device && table[i].stream == stream)
      c = &table[i];
  if (!c && used < MAX_STREAMS) {
    /* Made in the device's context (current: the caller activated it); zeroed on the stream,
     * so before any reduction queued on it after this. */
    CUdeviceptr p = 0;
    cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* first use during a capture */
    s = cuarr_cu_check(cuarr_cu.cuMemAlloc(&p, capacity * sizeof(unsigned)), "cuMemAlloc");
    cuarr_capture_restore(mode);
    if (s == CUARR_OK) {
      s = cuarr_cu_check(cuarr_cu.cuMemsetD8Async(p, 0, capacity * sizeof(unsigned), stream),
                         "cuMemsetD8Async");
      if (s != CUARR_OK)
        cuarr_cu.cuMemFree(p);
    }
    if (s == CUARR_OK) {
      c = &table[used++];
      *c = (counters){.device = device, .stream = stream, .ptr = p, .count = capacity};
    }
  }
  /* The table full, its array too short, or no device memory for one (the pool may still
   * have some to give, through its own reclaim): the caller zeroes counters of its own. */
  if (s != CUARR_OK || !c || c->count < count)
    s = CUARR_NOT_AVAILABLE;
  if (s == CUARR_OK) {
    last = *c;
    *out = c->ptr;
  }
  pthread_mutex_unlock(&lock);
  return s;
}
