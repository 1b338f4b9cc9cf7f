/*
 * deferred.c -- keep pinned host buffers alive until the transfers reading them are done.
 *
 * A copy from a pinned host array to the device is queued and returns at once.  If the script
 * then drops the host array, its memory must not go back to the pinned pool (and into the next
 * host array) while the DMA engine still reads it.  So an asynchronous transfer retains the
 * host buffer here with an event recorded after the copy; the reference is dropped once the
 * event has completed, checked whenever a new transfer starts (as CuPy's watch list does).
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"
#include "transfer.h"

typedef struct pending {
  cuarr_buffer *buffer;
  CUevent done;
  struct pending *next;
} pending;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pending *head;

cuarr_status cuarr_defer_release(cuarr_buffer *b, CUstream stream) {
  pending *p = malloc(sizeof *p);
  if (!p)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory");
  cuarr_status s =
      cuarr_cu_check(cuarr_cu.cuEventCreate(&p->done, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  if (s == CUARR_OK) {
    s = cuarr_cu_check(cuarr_cu.cuEventRecord(p->done, stream), "cuEventRecord");
    if (s != CUARR_OK)
      cuarr_cu.cuEventDestroy(p->done);
  }
  if (s != CUARR_OK) {
    free(p);
    return s;
  }
  cuarr_buffer_retain(b);
  p->buffer = b;
  pthread_mutex_lock(&lock);
  p->next = head;
  head = p;
  pthread_mutex_unlock(&lock);
  return CUARR_OK;
}

void cuarr_defer_poll(void) {
  pending *done = NULL;
  pthread_mutex_lock(&lock);
  for (pending **pp = &head; *pp;) {
    pending *p = *pp;
    if (cuarr_cu.cuEventQuery(p->done) != CUDA_ERROR_NOT_READY) {
      *pp = p->next; /* completed (or failed: nothing will read the buffer any more) */
      p->next = done;
      done = p;
    } else {
      pp = &p->next;
    }
  }
  pthread_mutex_unlock(&lock);
  /* Released outside the lock: releasing may return memory to a pool, which takes its own. */
  while (done) {
    pending *p = done;
    done = p->next;
    cuarr_cu.cuEventDestroy(p->done);
    cuarr_buffer_release(p->buffer);
    free(p);
  }
}

void cuarr_defer_drain(void) {
  pthread_mutex_lock(&lock);
  for (pending *p = head; p; p = p->next)
    cuarr_cu.cuEventSynchronize(p->done);
  pthread_mutex_unlock(&lock);
  cuarr_defer_poll();
}

void cuarr_defer_wait_for(const cuarr_buffer *b) {
  pthread_mutex_lock(&lock);
  bool any = false;
  for (pending *p = head; p; p = p->next)
    if (p->buffer == b) {
      cuarr_cu.cuEventSynchronize(p->done);
      any = true;
    }
  pthread_mutex_unlock(&lock);
  if (any)
    cuarr_defer_poll();
}
