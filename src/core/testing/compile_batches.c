/*
 * testing/ -- code only the C tests link: the compile-everything checks of `make test`.
 *
 * compile_batches.c -- the driver of the compile-everything checks (the copy kernels' and the
 * ufunc kernels'): items compiled many to an NVRTC program, the programs by a few threads,
 * in NVRTC's fast-compile mode when it has one.  No GPU needed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* NVRTC's fast-compile mode (recent NVRTCs): the same front end, instantiations and code
 * generation as at run time, with fewer optimisation passes -- three times faster, and what is
 * checked is that every specialisation compiles, not how fast it runs.  An NVRTC that does not
 * know the option compiles with the run-time options (none). */
static const char *const fast_options[] = {"--Ofast-compile=max"};

/* At most this many compiling threads. */
#define MAX_THREADS 8

typedef struct job {
  int n_items;
  int (*batch_end)(void *ctx, int first);
  cuarr_compile_batch_fn compile;
  void *ctx;
  cuarr_compile_options options;
  atomic_int next;      /* first item of the next batch to take */
  atomic_int compiled;  /* items the batches found compiled */
  atomic_bool failed;   /* stop taking batches */
  pthread_mutex_t lock; /* guards the first failure's report */
  cuarr_status status;
  char message[2048];
} job;

bool cuarr_cubin_has(const char *cubin, size_t size, const char *name) {
  size_t len = strlen(name) + 1; /* with the terminator: a name, not a prefix of a longer one */
  for (const char *p = cubin; (size_t)(cubin + size - p) >= len; p++) {
    p = memchr(p, name[0], (size_t)(cubin + size - p));
    if (!p || (size_t)(cubin + size - p) < len)
      return false;
    if (memcmp(p, name, len) == 0)
      return true;
  }
  return false;
}

static void *worker(void *arg) {
  job *j = arg;
  while (!atomic_load(&j->failed)) {
    /* Claim batches by their first item; the boundaries depend only on the items. */
    int first = atomic_load(&j->next), end;
    do {
      if (first >= j->n_items)
        return NULL;
      end = j->batch_end(j->ctx, first);
    } while (!atomic_compare_exchange_weak(&j->next, &first, end));
    int found = 0;
    cuarr_status s = j->compile(j->ctx, &j->options, first, end, &found);
    if (s == CUARR_OK) {
      atomic_fetch_add(&j->compiled, found);
      continue;
    }
    /* The message is per thread: keep the first one for the caller's thread. */
    pthread_mutex_lock(&j->lock);
    if (!atomic_load(&j->failed)) {
      j->status = s;
      strncpy(j->message, cuarr_last_error(), sizeof j->message - 1);
      atomic_store(&j->failed, true);
    }
    pthread_mutex_unlock(&j->lock);
  }
  return NULL;
}

cuarr_status cuarr_compile_batches(int arch, int n_items, int (*batch_end)(void *ctx, int first),
                                   cuarr_compile_batch_fn compile, void *ctx, int *n_compiled) {
  *n_compiled = 0;
  job j = {.n_items = n_items,
           .batch_end = batch_end,
           .compile = compile,
           .ctx = ctx,
           .options = {.arch = arch},
           .status = CUARR_OK};
  char *probe = NULL;
  size_t probe_size = 0;
  if (cuarr_nvrtc_compile("extern \"C\" __global__ void probe() {}\n", "probe.cu", fast_options, 1,
                          arch, &probe, &probe_size) == CUARR_OK) {
    j.options.options = fast_options;
    j.options.n_options = 1;
  }
  free(probe);
  atomic_init(&j.next, 0);
  atomic_init(&j.compiled, 0);
  atomic_init(&j.failed, false);
  pthread_mutex_init(&j.lock, NULL);

  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int n_threads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
  pthread_t threads[MAX_THREADS];
  int started = 0;
  /* This thread works too; a thread that cannot be started only means less parallelism. */
  while (started < n_threads - 1 && pthread_create(&threads[started], NULL, worker, &j) == 0)
    started++;
  worker(&j);
  for (int i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  pthread_mutex_destroy(&j.lock);

  *n_compiled = atomic_load(&j.compiled);
  if (atomic_load(&j.failed))
    return cuarr_fail(j.status, "%s", j.message);
  return CUARR_OK;
}

cuarr_status cuarr_compile_and_count(const char *source, const char *program_name,
                                     const cuarr_compile_options *o, void *ctx, int first, int end,
                                     cuarr_kernel_name_fn name_of, int *found) {
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s =
      cuarr_nvrtc_compile(source, program_name, o->options, o->n_options, o->arch, &cubin, &size);
  if (s != CUARR_OK)
    return s;
  *found = 0;
  for (int i = first; i < end && s == CUARR_OK; i++) {
    char name[256];
    name_of(ctx, i, name, sizeof name);
    if (cuarr_cubin_has(cubin, size, name))
      ++*found;
    else
      s = cuarr_fail(CUARR_COMPILE_ERROR, "kernel %s is missing from the compiled program", name);
  }
  free(cubin);
  return s;
}
