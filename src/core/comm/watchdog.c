/*
 * watchdog.c -- the thread that keeps a rank of a communicator over several processes from
 * waiting forever for a rank that died (comm.h, "watchdog"), as torch.distributed's NCCL
 * watchdog does.
 *
 * Each collective queued records an event after itself on its stream; the thread polls the
 * oldest pending event and NCCL's asynchronous error.  A collective that has not finished within
 * the timeout (counted from when it was queued, or from when the one before it finished if that
 * was later: a long chain of collectives is not one slow one), or an asynchronous error, makes
 * the thread abort the communicator.  ncclCommAbort ends the communicator's kernels, so a wait on
 * them returns; the reason is kept for the communicator's later calls and reported once to the
 * process's next wait (cuarr_comm_failure_check).
 *
 * Locks: `lock` guards the queue and the state; `nccl` is held by the calling thread while it is
 * inside NCCL, so the thread never aborts under a call in progress, unless that call itself
 * does not come back within a second (a call blocked on a dead rank): then it aborts anyway,
 * the only way out.  The calling thread takes nccl before lock; the watchdog never holds lock
 * while it waits for nccl.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm.h"
#include "rendezvous_common.h" /* cuarr_rv_now: the monotonic clock in seconds */

#define POLL_NS 20000000L /* how often the thread looks: 20 ms */

typedef struct pending {
  CUevent event;
  double since; /* when the wait for it began (seconds, CLOCK_MONOTONIC) */
  const char *what;
  unsigned long long seq;
} pending;

struct cuarr_comm_watch {
  pthread_t thread;
  pthread_mutex_t lock, nccl;
  pthread_cond_t wake, progress;
  ncclComm_t comm;
  int device, rank, world;
  double timeout_s;
  bool stop, aborted;
  atomic_bool failed;
  char why[640];
  double call_since; /* > 0 while the calling thread is inside NCCL, since then */
  const char *call_what;
  pending *queue; /* a ring of cap entries, count of them from head */
  size_t head, count, cap;
  CUevent *spare; /* finished events, reused */
  size_t n_spare, cap_spare;
  unsigned long long seq;
};

/* Failures not yet reported by a wait, and the latest one's reason. */
static pthread_mutex_t unreported_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int unreported;
static char unreported_why[640];

/* With w->lock held: record why, once. */
static void fail_locked(cuarr_comm_watch *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail_locked(cuarr_comm_watch *w, const char *fmt, ...) {
  if (atomic_load(&w->failed))
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->why, sizeof w->why, fmt, ap);
  va_end(ap);
  atomic_store(&w->failed, true);
  pthread_mutex_lock(&unreported_lock);
  snprintf(unreported_why, sizeof unreported_why, "%s", w->why);
  atomic_fetch_add(&unreported, 1);
  pthread_mutex_unlock(&unreported_lock);
  pthread_cond_broadcast(&w->progress);
}

/* With w->lock held: retire the finished collectives at the queue's head; fail on one past the
 * timeout. */
static void look_at_queue(cuarr_comm_watch *w) {
  while (w->count && !atomic_load(&w->failed)) {
    pending *p = &w->queue[w->head];
    CUresult r = cuarr_cu.cuEventQuery(p->event);
    if (r == CUDA_ERROR_NOT_READY) {
      double waited = cuarr_rv_now() - p->since;
      if (waited > w->timeout_s)
        fail_locked(w,
                    "rank %d of %d: %s (this rank's collective #%llu) did not finish within %g s: "
                    "another rank died, stopped calling collectives or called a different one "
                    "(cuarr.distributed.init{timeout=} sets the wait); the communicator is "
                    "aborted",
                    w->rank, w->world, p->what, p->seq, w->timeout_s);
      return;
    }
    if (r != CUDA_SUCCESS) {
      const char *name = "?";
      cuarr_cu.cuGetErrorName(r, &name);
      fail_locked(w, "rank %d of %d: %s failed on the device (%s); the communicator is aborted",
                  w->rank, w->world, p->what, name);
      return;
    }
    if (w->n_spare < w->cap_spare)
      w->spare[w->n_spare++] = p->event;
    else
      cuarr_cu.cuEventDestroy(p->event);
    w->head = (w->head + 1) % w->cap;
    w->count--;
    if (w->count) /* the next one's wait begins now (it was queued earlier) */
      w->queue[w->head].since = cuarr_rv_now();
    pthread_cond_broadcast(&w->progress);
  }
}

/* With w->lock held: a call into NCCL that has not come back (the first collective sets up the
 * connections to its peers, and waits for a dead one). */
static void look_at_call(cuarr_comm_watch *w) {
  if (atomic_load(&w->failed) || w->call_since <= 0 ||
      cuarr_rv_now() - w->call_since <= w->timeout_s)
    return;
  fail_locked(w,
              "rank %d of %d: queueing %s did not return within %g s: another rank died or does "
              "not call it (cuarr.distributed.init{timeout=} sets the wait); the communicator is "
              "aborted",
              w->rank, w->world, w->call_what, w->timeout_s);
}

/* With w->lock held: NCCL's own verdict (a peer's connection lost, a remote error). */
static void look_at_nccl(cuarr_comm_watch *w) {
  if (atomic_load(&w->failed))
    return;
  ncclResult_t e = ncclSuccess;
  if (cuarr_nccl.ncclCommGetAsyncError(w->comm, &e) != ncclSuccess || e == ncclSuccess ||
      e == ncclInProgress)
    return;
  fail_locked(w,
              "rank %d of %d: NCCL reports \"%s\" (error %d): another rank has probably died; "
              "the communicator is aborted",
              w->rank, w->world, cuarr_nccl.ncclGetErrorString(e), (int)e);
}

/* Called with w->lock held and returns with it held; lets go of it while it waits for nccl. */
static void abort_comm(cuarr_comm_watch *w) {
  pthread_mutex_unlock(&w->lock);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 1;
  bool locked = pthread_mutex_timedlock(&w->nccl, &until) == 0;
  cuarr_nccl.ncclCommAbort(w->comm);
  if (locked)
    pthread_mutex_unlock(&w->nccl);
  pthread_mutex_lock(&w->lock);
  w->aborted = true;
  pthread_cond_broadcast(&w->progress);
}

static void *watch(void *arg) {
  cuarr_comm_watch *w = arg;
  CUcontext ctx = NULL;
  if (cuarr_device_context(w->device, &ctx) == CUARR_OK)
    cuarr_cu.cuCtxSetCurrent(ctx); /* for cuEventQuery */
  pthread_mutex_lock(&w->lock);
  while (!w->stop) {
    look_at_queue(w);
    look_at_call(w);
    look_at_nccl(w);
    if (atomic_load(&w->failed) && !w->aborted)
      abort_comm(w);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += POLL_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    if (!w->stop)
      pthread_cond_timedwait(&w->wake, &w->lock, &until);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* The watch's locks and memory (its thread has ended, or never started). */
static void watch_free(cuarr_comm_watch *w) {
  pthread_mutex_destroy(&w->lock);
  pthread_mutex_destroy(&w->nccl);
  pthread_cond_destroy(&w->wake);
  pthread_cond_destroy(&w->progress);
  free(w->queue);
  free(w->spare);
  free(w);
}

cuarr_status cuarr_comm_watch_start(cuarr_comm *c, double timeout_s) {
  cuarr_comm_watch *w = calloc(1, sizeof *w);
  if (!w)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a communicator's watchdog");
  w->comm = c->comms[0];
  w->device = c->devices[0];
  w->rank = c->first_rank;
  w->world = c->world;
  w->timeout_s = timeout_s;
  w->cap = 64;
  w->cap_spare = 64;
  w->queue = malloc(w->cap * sizeof *w->queue);
  w->spare = malloc(w->cap_spare * sizeof *w->spare);
  if (!w->queue || !w->spare) {
    free(w->queue);
    free(w->spare);
    free(w);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a communicator's watchdog");
  }
  pthread_mutex_init(&w->lock, NULL);
  pthread_mutex_init(&w->nccl, NULL);
  pthread_cond_init(&w->wake, NULL);
  pthread_cond_init(&w->progress, NULL);
  int e = pthread_create(&w->thread, NULL, watch, w);
  if (e) {
    watch_free(w);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "cannot start a communicator's watchdog: %s",
                      strerror(e));
  }
  c->watch = w;
  return CUARR_OK;
}

static cuarr_status failed_error(cuarr_comm_watch *w, const char *what) {
  return cuarr_fail(CUARR_DISTRIBUTED_ERROR, "%s: %s", what, w->why);
}

cuarr_status cuarr_comm_watch_enter(cuarr_comm *c, const char *what) {
  cuarr_comm_watch *w = c->watch;
  if (!w)
    return CUARR_OK;
  pthread_mutex_lock(&w->nccl);
  pthread_mutex_lock(&w->lock);
  cuarr_status s = CUARR_OK;
  if (atomic_load(&w->failed)) {
    s = failed_error(w, what);
  } else {
    w->call_since = cuarr_rv_now();
    w->call_what = what;
  }
  pthread_mutex_unlock(&w->lock);
  if (s != CUARR_OK)
    pthread_mutex_unlock(&w->nccl);
  return s;
}

/* With w->lock held: room for one more pending collective. */
static bool grow(cuarr_comm_watch *w) {
  if (w->count < w->cap)
    return true;
  size_t cap = w->cap * 2;
  pending *q = malloc(cap * sizeof *q);
  if (!q)
    return false;
  for (size_t i = 0; i < w->count; i++)
    q[i] = w->queue[(w->head + i) % w->cap];
  free(w->queue);
  w->queue = q;
  w->head = 0;
  w->cap = cap;
  return true;
}

cuarr_status cuarr_comm_watch_leave(cuarr_comm *c, bool queued, CUstream stream, const char *what) {
  cuarr_comm_watch *w = c->watch;
  if (!w)
    return CUARR_OK;
  cuarr_status s = CUARR_OK;
  pthread_mutex_lock(&w->lock);
  w->call_since = 0;
  bool failed = atomic_load(&w->failed);
  pthread_mutex_unlock(&w->lock);
  if (failed) { /* aborted under the call: nothing it queued will run */
    pthread_mutex_unlock(&w->nccl);
    return cuarr_comm_watch_failed(c, what);
  }
  CUcontext saved = NULL;
  if (queued && (s = cuarr_device_context_push(w->device, &saved)) == CUARR_OK) {
    pthread_mutex_lock(&w->lock);
    CUevent ev = w->n_spare ? w->spare[--w->n_spare] : NULL;
    pthread_mutex_unlock(&w->lock);
    if (!ev)
      s = cuarr_cu_check(cuarr_cu.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuEventRecord(ev, stream), "cuEventRecord");
    pthread_mutex_lock(&w->lock);
    if (s == CUARR_OK && !grow(w))
      s = cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no host memory to watch it", what);
    if (s == CUARR_OK) {
      w->queue[(w->head + w->count) % w->cap] = (pending){ev, cuarr_rv_now(), what, ++w->seq};
      w->count++;
    } else if (ev) {
      cuarr_cu.cuEventDestroy(ev);
    }
    pthread_mutex_unlock(&w->lock);
    cuarr_device_context_pop(saved);
  }
  pthread_mutex_unlock(&w->nccl);
  return s;
}

bool cuarr_comm_watch_stop(cuarr_comm *c) {
  cuarr_comm_watch *w = c->watch;
  if (!w)
    return false;
  pthread_mutex_lock(&w->lock);
  while (w->count && !atomic_load(&w->failed))
    pthread_cond_wait(&w->progress, &w->lock);
  while (atomic_load(&w->failed) && !w->aborted)
    pthread_cond_wait(&w->progress, &w->lock);
  w->stop = true;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  bool aborted = w->aborted;
  for (size_t i = 0; i < w->count; i++)
    cuarr_cu.cuEventDestroy(w->queue[(w->head + i) % w->cap].event);
  for (size_t i = 0; i < w->n_spare; i++)
    cuarr_cu.cuEventDestroy(w->spare[i]);
  watch_free(w);
  c->watch = NULL;
  return aborted;
}

cuarr_status cuarr_comm_failure_check(void) {
  if (atomic_load_explicit(&unreported, memory_order_relaxed) == 0)
    return CUARR_OK;
  pthread_mutex_lock(&unreported_lock);
  cuarr_status s = CUARR_OK;
  if (atomic_load(&unreported) > 0) {
    atomic_fetch_sub(&unreported, 1);
    s = cuarr_fail(CUARR_DISTRIBUTED_ERROR,
                   "a collective this wait depends on was abandoned (its results are garbage): %s",
                   unreported_why);
  }
  pthread_mutex_unlock(&unreported_lock);
  return s;
}

/* The calling thread's failure if the communicator has failed (comm.c's calls ask first). */
cuarr_status cuarr_comm_watch_failed(cuarr_comm *c, const char *what) {
  cuarr_comm_watch *w = c->watch;
  if (!w || !atomic_load(&w->failed))
    return CUARR_OK;
  pthread_mutex_lock(&w->lock);
  cuarr_status s = failed_error(w, what);
  pthread_mutex_unlock(&w->lock);
  return s;
}
