/*
 * ceilings.c -- the machine's own ceilings, measured with the raw driver API, which cuarr's
 * figures in bench/run.lua are compared against.
 *
 * Prints one machine-readable line per figure (`ceiling <name> <value>`), plus `device <name>`,
 * `driver <version>` and `cublas <version>`.  Device-side times are taken with CUDA events;
 * whatever the host waits for (pageable copies, launch + synchronize, cuMemAlloc + cuMemFree)
 * with CLOCK_MONOTONIC.  Every figure is the median of several repetitions after a warm-up, but
 * for the cuBLAS products' rates, which are the best batch (see best_seconds).  Without cuBLAS
 * its figures are left out, with a note on stderr.
 *
 * Exits 1 with a message on stderr when there is no usable GPU, a CUDA or cuBLAS call fails or a
 * product is wrong: a bench program may print and exit; the library never does.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define MiB ((size_t)1 << 20)

enum {
  D2D_BYTES_MIB = 1024,     /* far above any L2: no rotation needed */
  TRANSFER_BYTES_MIB = 256, /* the size run.lua uses for cuarr's own transfers */
  PEER_BYTES_MIB = 256,     /* bench/distributed.lua's peer copy */
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

/* ---------------------------------------------------------------- peer copies */

typedef struct peer_job {
  CUdeviceptr dst, src;
  CUcontext dst_ctx, src_ctx;
  size_t bytes;
} peer_job;

static void peer_copy(void *arg, CUstream s) {
  peer_job *j = arg;
  CU(cuMemcpyPeerAsync(j->dst, j->dst_ctx, j->src, j->src_ctx, j->bytes, s));
}

/* PEER_BYTES_MIB from device 0 to device 1 by cuMemcpyPeerAsync on device 0's stream, with peer
 * access on where the pair allows it (as cuarr turns it on), by events: what cuarr's copy to
 * another device is measured against.  Nothing on a machine of one device. */
static void bench_peer(const timer *t) {
  int count = 0;
  check(cuarr_device_count(&count));
  if (count < 2)
    return;
  size_t bytes = PEER_BYTES_MIB * MiB;
  peer_job j = {.bytes = bytes};
  check(cuarr_device_activate(1));
  CU(cuCtxGetCurrent(&j.dst_ctx));
  CU(cuMemAlloc(&j.dst, bytes));
  CU(cuMemsetD8Async(j.dst, 0xa5, bytes, NULL));
  CU(cuCtxSynchronize());
  check(cuarr_device_activate(0));
  CU(cuCtxGetCurrent(&j.src_ctx));
  j.src = device_buffer(bytes, 0x5a, t->stream);
  CUdevice d0, d1;
  CU(cuDeviceGet(&d0, 0));
  CU(cuDeviceGet(&d1, 1));
  int can = 0;
  CU(cuDeviceCanAccessPeer(&can, d0, d1));
  if (can) {
    CUresult r = cuarr_cu.cuCtxEnablePeerAccess(j.dst_ctx, 0);
    if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
      check(cuarr_cu_check(r, "cuCtxEnablePeerAccess"));
  }
  double s = median_seconds(t, event_seconds, peer_copy, &j, 3, 15);
  printf("ceiling peer_copy_GBps %.1f\n", (double)bytes / s / 1e9);
  CU(cuMemFree(j.src));
  check(cuarr_device_activate(1));
  CU(cuMemFree(j.dst));
  check(cuarr_device_activate(0));
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

/* ---------------------------------------------------------------- cuBLAS */

/* The products bench/matmul.lua times through cuarr.matmul (and bench/peer_matmul.py through
 * CuPy and PyTorch), with the same sizes and calls per timed batch. */
typedef struct gemm_case {
  const char *name; /* the ceiling's name, less _TFLOPs */
  const char *dtype;
  int n, batch, reps;
} gemm_case;

static const gemm_case gemm_cases[] = {
    {"cublas_f32_4096", "f32", 4096, 1, 20},
    {"cublas_f64_8192", "f64", 8192, 1, 5},
    {"cublas_f16_8192", "f16", 8192, 1, 20},
    {"cublas_f32_1000x64", "f32", 64, 1000, 500},
};

enum {
  GEMM_BATCHES = 7,
  SMALL_N = 64,       /* the per-op product, as bench/matmul.lua's */
  CHECK_BATCH = 3,    /* matrices of a batch compared with the host's */
  WORKSPACE_MIB = 32, /* what cuarr gives each of its handles */
};

/* Uniform [0, 1) in each dtype, from a hash of the index: inputs like those cuarr's and the
 * peers' benches draw, since a product's power draw, hence the clock it holds under the power
 * limit, depends on the data.  float16 values are multiples of 2^-11 (exact), written as bits
 * so that the source needs no cuda_fp16.h. */
static const char *uniform_source =
    "__device__ unsigned long long mix(unsigned long long x) {\n"
    "  x += 0x9e3779b97f4a7c15ull;\n"
    "  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
    "  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;\n"
    "  return x ^ (x >> 31);\n"
    "}\n"
    "#define EACH(i) for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x"
    " + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x)\n"
    "extern \"C\" __global__ void uniform_f64(double *p, unsigned long long n,"
    " unsigned long long seed) {\n"
    "  EACH(i) p[i] = (double)(mix(i + (seed << 40)) >> 11) * (1.0 / 9007199254740992.0);\n"
    "}\n"
    "extern \"C\" __global__ void uniform_f32(float *p, unsigned long long n,"
    " unsigned long long seed) {\n"
    "  EACH(i) p[i] = (float)(mix(i + (seed << 40)) >> 40) * (1.0f / 16777216.0f);\n"
    "}\n"
    "extern \"C\" __global__ void uniform_f16(unsigned short *p, unsigned long long n,"
    " unsigned long long seed) {\n"
    "  EACH(i) {\n"
    "    unsigned m = (unsigned)(mix(i + (seed << 40)) >> 53);\n"
    "    unsigned e = 31 - __clz(m);\n"
    "    p[i] = m ? (unsigned short)(((e + 4) << 10) | ((m << (10 - e)) & 0x3ff)) : 0;\n"
    "  }\n"
    "}\n";

typedef struct gemm_job {
  cublasHandle_t handle;
  cudaDataType type;
  cublasComputeType_t compute;
  size_t itemsize;
  int n, batch, reps;
  CUdeviceptr a, b, c;
} gemm_job;

#define CUBLAS(call) check(cuarr_cublas_check(cuarr_cublas.call, #call))

static void *dptr(CUdeviceptr p) { return (void *)(uintptr_t)p; }

/* The types cuarr.matmul gives cuBLAS for the dtype, and the handle's math mode: float16 sums
 * in float32 with cuBLAS's float16 split-K reductions ruled out, as cuarr rules them out. */
static void gemm_types(gemm_job *j, const char *dtype) {
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  if (!strcmp(dtype, "f64")) {
    j->type = CUDA_R_64F, j->compute = CUBLAS_COMPUTE_64F, j->itemsize = 8;
  } else if (!strcmp(dtype, "f32")) {
    j->type = CUDA_R_32F, j->compute = CUBLAS_COMPUTE_32F, j->itemsize = 4;
  } else {
    j->type = CUDA_R_16F, j->compute = CUBLAS_COMPUTE_32F, j->itemsize = 2;
    math = CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  }
  CUBLAS(cublasSetMathMode(j->handle, math));
}

static void fill_uniform(const char *dtype, CUdeviceptr p, unsigned long long n,
                         unsigned long long seed, CUstream s) {
  char name[32];
  snprintf(name, sizeof name, "uniform_%s", dtype);
  CUfunction f = NULL;
  check(cuarr_kernel_get(0, uniform_source, name, NULL, 0, &f));
  void *args[] = {&p, &n, &seed};
  check(cuarr_launch(f, 1024, 256, 0, s, args));
}

/* The job's operands, uniform inputs and a poisoned output (a product that writes nothing is
 * caught by the check). */
static void gemm_alloc(gemm_job *j, const char *dtype, CUstream s) {
  size_t count = (size_t)j->n * (size_t)j->n * (size_t)j->batch;
  j->a = device_buffer(count * j->itemsize, 0, s);
  j->b = device_buffer(count * j->itemsize, 0, s);
  j->c = device_buffer(count * j->itemsize, 0xff, s);
  fill_uniform(dtype, j->a, count, 1, s);
  fill_uniform(dtype, j->b, count, 2, s);
}

static void gemm_free(gemm_job *j) {
  CU(cuMemFree(j->a));
  CU(cuMemFree(j->b));
  CU(cuMemFree(j->c));
}

/* C = A @ B for row-major n x n matrices, as cuarr calls cuBLAS for it: column-major cuBLAS
 * sees the transposes, so it computes C^T = B^T A^T, B first. */
static void gemm_once(const gemm_job *j) {
  static const double one64 = 1.0, zero64 = 0.0;
  static const float one32 = 1.0f, zero32 = 0.0f;
  bool f64 = j->compute == CUBLAS_COMPUTE_64F;
  const void *one = f64 ? (const void *)&one64 : &one32;
  const void *zero = f64 ? (const void *)&zero64 : &zero32;
  int n = j->n;
  long long stride = (long long)n * n;
  if (j->batch == 1)
    CUBLAS(cublasGemmEx(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, one, dptr(j->b), j->type, n,
                        dptr(j->a), j->type, n, zero, dptr(j->c), j->type, n, j->compute,
                        CUBLAS_GEMM_DEFAULT));
  else
    CUBLAS(cublasGemmStridedBatchedEx(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, one, dptr(j->b),
                                      j->type, n, stride, dptr(j->a), j->type, n, stride, zero,
                                      dptr(j->c), j->type, n, stride, j->batch, j->compute,
                                      CUBLAS_GEMM_DEFAULT));
}

/* The handle queues on the timer's stream, which is why the stream argument goes unused. */
static void gemm_many(void *arg, CUstream s) {
  (void)s;
  const gemm_job *j = arg;
  for (int i = 0; i < j->reps; i++)
    gemm_once(j);
}

static double host_value(const void *buf, cudaDataType type, size_t i) {
  if (type == CUDA_R_64F)
    return ((const double *)buf)[i];
  if (type == CUDA_R_32F)
    return ((const float *)buf)[i];
  unsigned h = ((const unsigned short *)buf)[i];
  unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, (int)e - 25);
  return h & 0x8000 ? -v : v;
}

/* The job's result against the host's product of the same inputs, for the first CHECK_BATCH
 * matrices: a wrong type, layout or operand order would otherwise post a figure for garbage.
 * The tolerance is relative to sums of n positive terms: float64's and float32's rounding over
 * n terms, float16's output rounding (2^-11) with room to spare. */
static void gemm_check(const gemm_job *j, CUstream s) {
  int n = j->n, nb = j->batch < CHECK_BATCH ? j->batch : CHECK_BATCH;
  size_t count = (size_t)n * n * (size_t)nb, bytes = count * j->itemsize;
  char *a = xmalloc(bytes), *b = xmalloc(bytes), *c = xmalloc(bytes);
  CU(cuMemcpyDtoHAsync(a, j->a, bytes, s));
  CU(cuMemcpyDtoHAsync(b, j->b, bytes, s));
  CU(cuMemcpyDtoHAsync(c, j->c, bytes, s));
  CU(cuStreamSynchronize(s));
  double tol = j->type == CUDA_R_64F ? 1e-12 : j->type == CUDA_R_32F ? 1e-5 : 2e-3;
  for (size_t m = 0; m < (size_t)nb; m++)
    for (int r = 0; r < n; r++)
      for (int col = 0; col < n; col++) {
        size_t base = m * (size_t)n * n;
        double want = 0;
        for (int k = 0; k < n; k++)
          want += host_value(a, j->type, base + (size_t)r * n + k) *
                  host_value(b, j->type, base + (size_t)k * n + col);
        double got = host_value(c, j->type, base + (size_t)r * n + col);
        if (!(fabs(got - want) <= tol * fabs(want))) {
          fprintf(stderr, "ceilings: cuBLAS product wrong at [%zu][%d][%d]: %.9g, want %.9g\n", m,
                  r, col, got, want);
          exit(1);
        }
      }
  free(a);
  free(b);
  free(c);
}

/* A 64 x 64 product of the case's dtype (a batch of CHECK_BATCH when the case is batched),
 * checked: the large products go through the same call with the same types. */
static void check_case(cublasHandle_t handle, const gemm_case *gc, CUstream s) {
  gemm_job j = {.handle = handle, .n = SMALL_N, .batch = gc->batch > 1 ? CHECK_BATCH : 1};
  gemm_types(&j, gc->dtype);
  gemm_alloc(&j, gc->dtype, s);
  gemm_once(&j);
  gemm_check(&j, s);
  gemm_free(&j);
}

/* The best batch's seconds, after one untimed batch: a long run of dense products heats the
 * GPU until its clocks drop under the power limit, at a pace that depends on what ran before;
 * the best batch is the rate the product reaches, comparable across the three programs that
 * time it minutes apart.  bench/matmul.lua and bench/peer_matmul.py take the best as well. */
static double best_seconds(const timer *t, work_fn work, void *arg, int n_batches) {
  event_seconds(t, work, arg);
  double best = INFINITY;
  for (int i = 0; i < n_batches; i++) {
    double s = event_seconds(t, work, arg);
    best = s < best ? s : best;
  }
  return best;
}

static void bench_gemm(const timer *t, cublasHandle_t handle, const gemm_case *gc) {
  check_case(handle, gc, t->stream);
  gemm_job j = {.handle = handle, .n = gc->n, .batch = gc->batch, .reps = gc->reps};
  gemm_types(&j, gc->dtype);
  gemm_alloc(&j, gc->dtype, t->stream);
  double s = best_seconds(t, gemm_many, &j, GEMM_BATCHES) / gc->reps;
  double flops = 2.0 * gc->n * (double)gc->n * gc->n * gc->batch;
  printf("ceiling %s_TFLOPs %.2f\n", gc->name, flops / s / 1e12);
  fflush(stdout);
  gemm_free(&j);
}

/* A raw cublasGemmEx's cost per call on 64 x 64 float32 (the device's or the host's, whichever
 * is slower), back to back as launch_us's launches: what cuarr.matmul's per-op figure adds to. */
static void bench_gemm_per_op(const timer *t, cublasHandle_t handle) {
  gemm_job j = {.handle = handle, .n = SMALL_N, .batch = 1, .reps = N_LAUNCHES};
  gemm_types(&j, "f32");
  gemm_alloc(&j, "f32", t->stream);
  double s = median_seconds(t, event_seconds, gemm_many, &j, 1, 5) / N_LAUNCHES;
  printf("ceiling cublas_f32_64_us %.3f\n", 1e6 * s);
  gemm_free(&j);
}

/* The raw cuBLAS figures, the handle set up as cuarr sets up its own: on the stream, with a
 * 32 MiB workspace (set after the stream, since cublasSetStream drops a workspace given before),
 * host scalars. */
static void bench_cublas(const timer *t) {
  if (cuarr_load_cublas() != CUARR_OK) {
    fprintf(stderr, "ceilings: no cuBLAS figures: %s\n", cuarr_last_error());
    return;
  }
  cublasHandle_t handle = NULL;
  cublasStatus_t r = cuarr_cublas.cublasCreate(&handle);
  if (r != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "ceilings: no cuBLAS figures: cublasCreate: %s\n",
            cuarr_cublas.cublasGetStatusName(r));
    return;
  }
  int major = 0, minor = 0, patch = 0;
  CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
  CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
  CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  printf("cublas %d.%d.%d\n", major, minor, patch);
  size_t workspace_bytes = WORKSPACE_MIB * MiB;
  CUdeviceptr workspace = 0;
  CU(cuMemAlloc(&workspace, workspace_bytes));
  CUBLAS(cublasSetStream(handle, (cudaStream_t)t->stream));
  CUBLAS(cublasSetWorkspace(handle, dptr(workspace), workspace_bytes));
  CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

  bench_gemm_per_op(t, handle);
  for (size_t i = 0; i < sizeof gemm_cases / sizeof gemm_cases[0]; i++)
    bench_gemm(t, handle, &gemm_cases[i]);

  CUBLAS(cublasDestroy(handle));
  CU(cuMemFree(workspace));
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
  bench_peer(&t);
  fflush(stdout);
  bench_cublas(&t);

  CU(cuEventDestroy(t.start));
  CU(cuEventDestroy(t.stop));
  CU(cuStreamDestroy(t.stream));
  return 0;
}
