/*
 * ceilings.c -- the machine's own ceilings, measured with the raw driver API, which cuarr's
 * figures in bench/run.lua are compared against.
 *
 * Prints one machine-readable line per figure (`ceiling <name> <value>`), plus `device <name>`
 * and `driver <version>`.  Device-side times are taken with CUDA events; whatever the host
 * waits for (pageable copies, launch + synchronize, cuMemAlloc + cuMemFree) with
 * CLOCK_MONOTONIC.  Every figure is the median of several repetitions after a warm-up.
 *
 * Exits 1 with a message on stderr when there is no usable GPU or a CUDA call fails: a bench
 * program may print and exit; the library never does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define MiB ((size_t)1 << 20)

enum {
  D2D_BYTES_MIB = 1024,     /* far above any L2: no rotation needed */
  TRANSFER_BYTES_MIB = 256, /* the size run.lua uses for cuarr's own transfers */
  N_LAUNCHES = 20000,
  N_LAUNCH_SYNC = 2000,
  N_ALLOC_PAIRS = 500,
  ALLOC_BYTES = 4 << 20, /* 2^20 float32, as cuarr.empty(2^20) */
};

/* ---------------------------------------------------------------- failing */

static void check(cuarr_status s) {
  if (s == CUARR_OK)
    return;
  fprintf(stderr, "ceilings: %s: %s\n", cuarr_status_name(s), cuarr_last_error());
  exit(1);
}
#define CU(call) check(cuarr_cu_check(cuarr_cu.call, #call))

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "ceilings: out of host memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

/* ---------------------------------------------------------------- timing */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v in place. */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* What one repetition does: queue (or perform) the work on the stream. */
typedef void (*work_fn)(void *arg, CUstream stream);

typedef struct timer {
  CUstream stream;
  CUevent start, stop;
} timer;

/* Seconds of one run of the work between two events on the stream (device time). */
static double event_seconds(const timer *t, work_fn work, void *arg) {
  CU(cuEventRecord(t->start, t->stream));
  work(arg, t->stream);
  CU(cuEventRecord(t->stop, t->stream));
  CU(cuEventSynchronize(t->stop));
  float ms = 0;
  CU(cuEventElapsedTime(&ms, t->start, t->stop));
  return 1e-3 * ms;
}

/* Seconds the host waits for one run of the work, queue drained before and after. */
static double wall_seconds(const timer *t, work_fn work, void *arg) {
  CU(cuStreamSynchronize(t->stream));
  double t0 = now_s();
  work(arg, t->stream);
  CU(cuStreamSynchronize(t->stream));
  return now_s() - t0;
}

typedef double (*clock_fn)(const timer *t, work_fn work, void *arg);

/* Median seconds over n_repeat runs, after n_warmup untimed ones. */
static double median_seconds(const timer *t, clock_fn clock, work_fn work, void *arg, int n_warmup,
                             int n_repeat) {
  for (int i = 0; i < n_warmup; i++)
    clock(t, work, arg);
  double *v = xmalloc((size_t)n_repeat * sizeof *v);
  for (int i = 0; i < n_repeat; i++)
    v[i] = clock(t, work, arg);
  double m = median(v, n_repeat);
  free(v);
  return m;
}

/* ---------------------------------------------------------------- copies */

typedef struct copy_job {
  CUdeviceptr dst_d, src_d;
  void *host;
  size_t bytes;
} copy_job;

static void d2d(void *arg, CUstream s) {
  copy_job *j = arg;
  CU(cuMemcpyDtoDAsync(j->dst_d, j->src_d, j->bytes, s));
}
static void h2d(void *arg, CUstream s) {
  copy_job *j = arg;
  CU(cuMemcpyHtoDAsync(j->dst_d, j->host, j->bytes, s));
}
static void d2h(void *arg, CUstream s) {
  copy_job *j = arg;
  CU(cuMemcpyDtoHAsync(j->host, j->src_d, j->bytes, s));
}

static CUdeviceptr device_buffer(size_t bytes, unsigned char fill, CUstream s) {
  CUdeviceptr p = 0;
  CU(cuMemAlloc(&p, bytes));
  /* Never time on zeros or untouched memory. */
  CU(cuMemsetD8Async(p, fill, bytes, s));
  return p;
}

static void bench_d2d(const timer *t) {
  size_t bytes = D2D_BYTES_MIB * MiB;
  copy_job j = {.bytes = bytes};
  j.src_d = device_buffer(bytes, 0x5a, t->stream);
  j.dst_d = device_buffer(bytes, 0xa5, t->stream);
  double s = median_seconds(t, event_seconds, d2d, &j, 3, 15);
  /* Bytes read plus bytes written: what the memory system actually moved. */
  printf("ceiling d2d_copy_GBps %.1f\n", 2.0 * (double)bytes / s / 1e9);
  CU(cuMemFree(j.src_d));
  CU(cuMemFree(j.dst_d));
}

/* Host<->device GB/s of `bytes` from `host` (pinned or pageable). */
static void bench_transfers(const timer *t, void *host, const char *kind, clock_fn clock) {
  size_t bytes = TRANSFER_BYTES_MIB * MiB;
  memset(host, 0x3c, bytes); /* touched: page faults stay out of the timings */
  copy_job j = {.host = host, .bytes = bytes};
  j.dst_d = j.src_d = device_buffer(bytes, 0xc3, t->stream);
  double s = median_seconds(t, clock, h2d, &j, 2, 10);
  printf("ceiling %s_h2d_GBps %.2f\n", kind, (double)bytes / s / 1e9);
  s = median_seconds(t, clock, d2h, &j, 2, 10);
  printf("ceiling %s_d2h_GBps %.2f\n", kind, (double)bytes / s / 1e9);
  CU(cuMemFree(j.dst_d));
}

static void bench_pinned(const timer *t) {
  void *host = NULL;
  CU(cuMemHostAlloc(&host, TRANSFER_BYTES_MIB * MiB, 0));
  /* Pinned copies are pure DMA: device time between events is the transfer. */
  bench_transfers(t, host, "pinned", event_seconds);
  CU(cuMemFreeHost(host));
}

static void bench_pageable(const timer *t) {
  void *host = xmalloc(TRANSFER_BYTES_MIB * MiB);
  /* The driver stages pageable memory through its own pinned buffers with the host copying:
   * what counts is how long the caller waits.  (The driver table has only the Async copies;
   * on pageable memory they behave as the synchronous ones.) */
  bench_transfers(t, host, "pageable", wall_seconds);
  free(host);
}

/* ---------------------------------------------------------------- launches */

static const char *empty_source = "extern \"C\" __global__ void empty_kernel() {}\n";
/* The empty kernel as cuarr launches its own: a programmatic dependent that waits for the
 * work before it, with the two instructions every generated kernel begins with. */
static const char *dependent_source = "extern \"C\" __global__ void dependent_kernel() {\n"
                                      "#if __CUDA_ARCH__ >= 900\n"
                                      "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
                                      "  asm volatile(\"griddepcontrol.launch_dependents;\");\n"
                                      "#endif\n"
                                      "}\n";

static void launch_once(CUfunction f, CUstream s) {
  CU(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
}

static void launch_many(void *arg, CUstream s) {
  for (int i = 0; i < N_LAUNCHES; i++)
    launch_once(*(CUfunction *)arg, s);
}

static void launch_dependent_many(void *arg, CUstream s) {
  for (int i = 0; i < N_LAUNCHES; i++)
    check(cuarr_launch_dependent(0, *(CUfunction *)arg, 1, 32, 0, s, NULL));
}

static void launch_sync(void *arg, CUstream s) { launch_once(*(CUfunction *)arg, s); }

static void bench_launch(const timer *t) {
  CUfunction f = NULL, g = NULL;
  check(cuarr_kernel_get(0, empty_source, "empty_kernel", NULL, 0, &f));
  check(cuarr_kernel_get(0, dependent_source, "dependent_kernel", NULL, 0, &g));
  /* Steady state of back-to-back launches: the queue fills, so the events see whichever of the
   * host's submission rate and the device's launch rate is slower.  cuarr's kernels go as
   * programmatic dependents (cuLaunchKernelEx), which the host may submit faster than plain
   * launches: the floor is the cheaper of the two, so that neither kind flatters the
   * library. */
  double plain = median_seconds(t, event_seconds, launch_many, &f, 1, 5) / N_LAUNCHES;
  double dependent = median_seconds(t, event_seconds, launch_dependent_many, &g, 1, 5) / N_LAUNCHES;
  printf("ceiling launch_plain_us %.3f\n", 1e6 * plain);
  printf("ceiling launch_dependent_us %.3f\n", 1e6 * dependent);
  printf("ceiling launch_us %.3f\n", 1e6 * (plain < dependent ? plain : dependent));
  double s = median_seconds(t, wall_seconds, launch_sync, &f, 100, N_LAUNCH_SYNC);
  printf("ceiling launch_sync_us %.2f\n", 1e6 * s);
}

/* ---------------------------------------------------------------- allocation */

static void bench_alloc(void) {
  double v[N_ALLOC_PAIRS];
  for (int i = -20; i < N_ALLOC_PAIRS; i++) { /* the first 20 are the warm-up */
    CUdeviceptr p = 0;
    double t0 = now_s();
    CU(cuMemAlloc(&p, ALLOC_BYTES));
    CU(cuMemFree(p));
    if (i >= 0)
      v[i] = now_s() - t0;
  }
  printf("ceiling cuMemAlloc_free_us %.2f\n", 1e6 * median(v, N_ALLOC_PAIRS));
}

/* ---------------------------------------------------------------- main */

static void open_device(void) {
  int count = 0;
  cuarr_status s = cuarr_device_count(&count);
  if (s != CUARR_OK || count == 0) {
    fprintf(stderr, "ceilings: no usable GPU: %s\n",
            s != CUARR_OK ? cuarr_last_error() : "the driver reports no device");
    exit(1);
  }
  check(cuarr_device_activate(0));
  cuarr_device_props p;
  check(cuarr_device_properties(0, &p));
  int version = 0;
  CU(cuDriverGetVersion(&version));
  printf("device %s\n", p.name);
  printf("driver %d\n", version);
}

int main(void) {
  open_device();
  timer t;
  CU(cuStreamCreateWithPriority(&t.stream, CU_STREAM_NON_BLOCKING, 0));
  CU(cuEventCreate(&t.start, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&t.stop, CU_EVENT_DEFAULT));
  fflush(stdout);

  bench_d2d(&t);
  bench_launch(&t);
  bench_pinned(&t);
  bench_pageable(&t);
  bench_alloc();

  CU(cuEventDestroy(t.start));
  CU(cuEventDestroy(t.stop));
  CU(cuStreamDestroy(t.stream));
  return 0;
}
