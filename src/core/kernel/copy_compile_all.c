/*
 * copy_compile_all.c -- compile every copy, fill and linear kernel the engine can emit, with
 * NVRTC only (no GPU), so that `make test` catches a template that fails for some dtype pair,
 * shape or index width before any device runs it.
 *
 * Each program carries many kernels of one family (a program costs NVRTC's start-up once;
 * its kernels only add code generation), and the programs are compiled by a few threads
 * (NVRTC 13 serialises most of a compile within a process, so they gain only some 15%).  A
 * kernel counts as compiled when its name is in the resulting cubin.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/copy_source.h"

/* NVRTC's fast-compile mode (recent NVRTCs): the same front end, instantiations and code
 * generation as at run time, with fewer optimisation passes -- three times faster, and what is
 * checked here is that every specialisation compiles, not how fast it runs.  An NVRTC that
 * does not know the option compiles with the run-time options (none). */
static const char *const fast_options[] = {"--Ofast-compile=max"};

/* Kernels per program, and at most this many compiling threads. */
#define KERNELS_PER_PROGRAM 64
#define MAX_THREADS 8

typedef struct job {
  int arch;
  const char *const *options;
  int n_options;
  const cuarr_copy_variant *variants;
  int n_variants;
  atomic_int next;      /* first variant of the next program to take */
  atomic_int compiled;  /* kernels found in their cubins */
  atomic_bool failed;   /* stop taking programs */
  pthread_mutex_t lock; /* guards the first failure's report */
  cuarr_status status;
  char message[2048];
} job;

/* Variants [first, end) are of one family, at most KERNELS_PER_PROGRAM of them. */
static int program_end(const job *j, int first) {
  int end = first + 1;
  while (end < j->n_variants && end - first < KERNELS_PER_PROGRAM &&
         j->variants[end].family == j->variants[first].family)
    end++;
  return end;
}

static bool cubin_has(const char *cubin, size_t size, const char *name) {
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

static cuarr_status compile_program(const job *j, int first, int end, int *found) {
  char *source = cuarr_copy_program(j->variants + first, end - first);
  if (!source)
    return CUARR_OUT_OF_MEMORY;
  char program_name[160];
  cuarr_copy_variant_name(&j->variants[first], program_name, sizeof program_name - 8);
  strcat(program_name, "_etc.cu");
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s =
      cuarr_nvrtc_compile(source, program_name, j->options, j->n_options, j->arch, &cubin, &size);
  free(source);
  if (s != CUARR_OK)
    return s;
  *found = 0;
  for (int i = first; i < end && s == CUARR_OK; i++) {
    char name[128];
    cuarr_copy_variant_name(&j->variants[i], name, sizeof name);
    if (cubin_has(cubin, size, name))
      ++*found;
    else
      s = cuarr_fail(CUARR_COMPILE_ERROR, "kernel %s is missing from the compiled program", name);
  }
  free(cubin);
  return s;
}

static void *worker(void *arg) {
  job *j = arg;
  while (!atomic_load(&j->failed)) {
    /* Claim programs by their first variant; the boundaries depend only on the list. */
    int first = atomic_load(&j->next), end;
    do {
      if (first >= j->n_variants)
        return NULL;
      end = program_end(j, first);
    } while (!atomic_compare_exchange_weak(&j->next, &first, end));
    int found = 0;
    cuarr_status s = compile_program(j, first, end, &found);
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

cuarr_status cuarr_copy_kernels_compile_all(int arch, int *n_compiled) {
  *n_compiled = 0;
  CUARR_TRY(cuarr_load_nvrtc());
  int n = cuarr_copy_variants_all(NULL);
  cuarr_copy_variant *variants = malloc((size_t)n * sizeof *variants);
  if (!variants)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel list");
  cuarr_copy_variants_all(variants);

  job j = {.arch = arch, .variants = variants, .n_variants = n, .status = CUARR_OK};
  char *probe = NULL;
  size_t probe_size = 0;
  if (cuarr_nvrtc_compile("extern \"C\" __global__ void probe() {}\n", "probe.cu", fast_options, 1,
                          arch, &probe, &probe_size) == CUARR_OK) {
    j.options = fast_options;
    j.n_options = 1;
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
  free(variants);

  *n_compiled = atomic_load(&j.compiled);
  if (atomic_load(&j.failed))
    return cuarr_fail(j.status, "%s", j.message);
  return CUARR_OK;
}
