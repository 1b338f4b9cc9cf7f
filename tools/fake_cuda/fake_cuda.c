/*
 * fake_cuda.c -- a stand-in for libcuda.so.1 with no GPU behind it, for measuring cuarr's host
 * overhead (Lua -> C -> cuLaunchKernel) with callgrind or perf on a CPU-only machine.
 *
 * It exports every driver entry point cuarr's loader resolves (src/core/cuda/driver.h), under
 * the names cuda.h's macros give them (cuMemAlloc -> cuMemAlloc_v2): the definitions below are
 * written with the plain names and cuda.h renames them, exactly as it renames cuarr's dlsym
 * strings.
 *
 * One device, "Fake H100" (sm_90, 132 SMs, 80 GiB).  "Device" memory is host memory from
 * aligned_alloc, handed out as CUdeviceptr, so copies and memsets really move bytes and data
 * round-trips; kernels are accepted and never run (their results are whatever the memory held).
 * Streams, events, modules and functions are small heap objects; synchronisation always
 * succeeds at once.
 *
 * FAKE_CUDA_COUNT=1 in the environment counts the calls to each entry point and prints the
 * counts on stderr at exit.
 */
#include "cuda/driver.h" /* cuda.h, and the list of entry points */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* ---------------------------------------------------------------- call counting */

/* The entry points: driver.h's own list, which check_exports.c holds the fake to (token pasting
 * and # see the unrenamed names: cuMemAlloc, not cuMemAlloc_v2). */
#define FAKE_ENUM_(f) FAKE_##f,
#define FAKE_NAME_(f) #f,
enum {
  CUARR_DRIVER_FUNCTIONS(FAKE_ENUM_) CUARR_DRIVER_OPTIONAL_FUNCTIONS(FAKE_ENUM_) FAKE_N_FUNCTIONS
};
static const char *const fake_names[FAKE_N_FUNCTIONS] = {
    CUARR_DRIVER_FUNCTIONS(FAKE_NAME_) CUARR_DRIVER_OPTIONAL_FUNCTIONS(FAKE_NAME_)};

static bool counting; /* set once, before any call, by the constructor */
static atomic_ulong fake_counts[FAKE_N_FUNCTIONS];

#define COUNT(f)                                                                                   \
  do {                                                                                             \
    if (counting)                                                                                  \
      atomic_fetch_add_explicit(&fake_counts[FAKE_##f], 1, memory_order_relaxed);                  \
  } while (0)

__attribute__((constructor)) static void fake_start(void) {
  const char *c = getenv("FAKE_CUDA_COUNT");
  counting = c && *c && strcmp(c, "0") != 0;
}

__attribute__((destructor)) static void fake_report(void) {
  if (!counting)
    return;
  fprintf(stderr, "fake_cuda: calls per entry point\n");
  for (int i = 0; i < FAKE_N_FUNCTIONS; i++) {
    unsigned long n = atomic_load(&fake_counts[i]);
    if (n)
      fprintf(stderr, "fake_cuda: %12lu %s\n", n, fake_names[i]);
  }
}

/* ---------------------------------------------------------------- the device */

#define FAKE_TOTAL_MEM ((size_t)80 << 30)
#define FAKE_ALIGN 256 /* cudaMalloc's alignment */

struct CUctx_st {
  int device;
};
static struct CUctx_st primary_ctx = {0};
static _Thread_local CUcontext current_ctx;
static atomic_size_t device_bytes_in_use;

static bool bad_device(CUdevice dev) { return dev != 0; }

static int attribute_value(CUdevice_attribute a) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 48 << 10;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 64 << 10;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1980000; /* kHz */
  case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
  case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
  case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
  case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return 0x19;
  case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
  case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
  case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000; /* kHz */
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 50 << 20;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
  case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 3;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
  case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 228 << 10;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
  case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 227 << 10;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 1;
  default: return 0;
  }
}

/* ---------------------------------------------------------------- memory */

/* Host memory standing in for device memory: FAKE_ALIGN-aligned, its size kept in a header
 * one alignment unit below the pointer handed out so that cuMemGetInfo can tell what is used. */
static void *fake_alloc(size_t bytes) {
  size_t rounded = (bytes + FAKE_ALIGN - 1) / FAKE_ALIGN * FAKE_ALIGN;
  if (bytes == 0 || rounded < bytes || rounded > FAKE_TOTAL_MEM)
    return NULL;
  unsigned char *base = aligned_alloc(FAKE_ALIGN, rounded + FAKE_ALIGN);
  if (!base)
    return NULL;
  memcpy(base, &bytes, sizeof bytes);
  return base + FAKE_ALIGN;
}

static size_t fake_size(void *p) {
  size_t bytes;
  memcpy(&bytes, (unsigned char *)p - FAKE_ALIGN, sizeof bytes);
  return bytes;
}

static void fake_free(void *p) {
  if (p)
    free((unsigned char *)p - FAKE_ALIGN);
}

static void *dptr(CUdeviceptr d) { return (void *)(uintptr_t)d; }

/* ---------------------------------------------------------------- objects */

struct CUstream_st {
  unsigned flags;
  int priority;
  struct CUgraph_st *capture; /* the graph being captured, or NULL */
  bool strict_capture;        /* begun in the global or thread-local mode */
};
/* A recorded copy or memset (kernels never run, so a graph replays these alone). */
typedef struct fake_op {
  enum { FAKE_COPY, FAKE_SET } kind;
  void *dst;
  const void *src;
  size_t n;
  unsigned char value;
} fake_op;
/* A captured graph counts its nodes and records its copies and memsets, in order. */
struct CUgraph_st {
  size_t nodes;
  fake_op *ops;
  size_t n_ops, cap_ops;
  bool invalidated; /* a synchronisation was tried on the capturing stream */
};
struct CUgraphExec_st {
  size_t nodes;
  fake_op *ops;
  size_t n_ops;
};
/* The thread's capture interaction mode (cuThreadExchangeStreamCaptureMode), and the captures
 * this thread began in the global or thread-local mode: while one is open, an allocation or a
 * free from this thread is refused unless the thread switched to the relaxed mode, as the
 * driver refuses such "potentially unsafe" calls. */
static _Thread_local CUstreamCaptureMode thread_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static _Thread_local int strict_captures_here;

static bool unsafe_call_refused(void) {
  return strict_captures_here > 0 && thread_capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED;
}
struct CUevent_st {
  unsigned flags;
};
struct CUfunc_st {
  struct CUfunc_st *next;
  char name[];
};
typedef struct fake_global {
  struct fake_global *next;
  void *data;
} fake_global;
struct CUmod_st {
  struct CUfunc_st *functions;
  fake_global *globals;
};

/* ---------------------------------------------------------------- errors */

#define FAKE_ERRORS(X)                                                                             \
  X(CUDA_SUCCESS, "no error")                                                                      \
  X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                                  \
  X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                                     \
  X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                                            \
  X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                                              \
  X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                                    \
  X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                           \
  X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                                    \
  X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                                          \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device")      \
  X(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid")                                   \
  X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                                          \
  X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                                                \
  X(CUDA_ERROR_NOT_READY, "device not ready")                                                      \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")                        \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch")                 \
  X(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")                                        \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access is not supported between these two devices")  \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled")                      \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "part or all of the requested memory range is "     \
                                               "already mapped")                                   \
  X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                           \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing")     \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "operation failed due to a previous error during "      \
                                           "capture")                                              \
  X(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state")            \
  X(CUDA_ERROR_UNKNOWN, "unknown error")

EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  COUNT(cuGetErrorName);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
#define NAME_CASE_(code, text)                                                                     \
  case code: *pStr = #code; return CUDA_SUCCESS;
  switch (error) { FAKE_ERRORS(NAME_CASE_) default : break; }
#undef NAME_CASE_
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  COUNT(cuGetErrorString);
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
#define TEXT_CASE_(code, text)                                                                     \
  case code: *pStr = text; return CUDA_SUCCESS;
  switch (error) { FAKE_ERRORS(TEXT_CASE_) default : break; }
#undef TEXT_CASE_
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* ---------------------------------------------------------------- initialisation, devices */

EXPORT CUresult CUDAAPI cuInit(unsigned int Flags) {
  COUNT(cuInit);
  return Flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion) {
  COUNT(cuDriverGetVersion);
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  COUNT(cuDeviceGet);
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count) {
  COUNT(cuDeviceGetCount);
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  COUNT(cuDeviceGetName);
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "%s", "Fake H100");
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  COUNT(cuDeviceGetAttribute);
  if (!pi || attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  *pi = attribute_value(attrib);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  COUNT(cuDeviceTotalMem);
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  *bytes = FAKE_TOTAL_MEM;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
  COUNT(cuDeviceGetPCIBusId);
  if (!pciBusId || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf(pciBusId, (size_t)len, "%s", "0000:19:00.0");
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  COUNT(cuDeviceCanAccessPeer);
  if (!canAccessPeer)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev) || bad_device(peerDev))
    return CUDA_ERROR_INVALID_DEVICE;
  *canAccessPeer = 0;
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- contexts */

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  COUNT(cuDevicePrimaryCtxRetain);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (bad_device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  *pctx = &primary_ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  COUNT(cuDevicePrimaryCtxRelease);
  return bad_device(dev) ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  COUNT(cuCtxSetCurrent);
  current_ctx = ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  COUNT(cuCtxGetCurrent);
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = current_ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuCtxSynchronize(void) {
  COUNT(cuCtxSynchronize);
  return current_ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  COUNT(cuCtxEnablePeerAccess);
  if (!peerContext || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED; /* one device: there is no peer */
}

EXPORT CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  COUNT(cuCtxGetStreamPriorityRange);
  if (leastPriority)
    *leastPriority = 0;
  if (greatestPriority)
    *greatestPriority = -5; /* an H100's range */
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- memory */

EXPORT CUresult CUDAAPI cuMemGetInfo(size_t *free_bytes, size_t *total) {
  COUNT(cuMemGetInfo);
  if (!free_bytes || !total)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  size_t used = atomic_load(&device_bytes_in_use);
  *total = FAKE_TOTAL_MEM;
  *free_bytes = used < FAKE_TOTAL_MEM ? FAKE_TOTAL_MEM - used : 0;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr_out, size_t bytesize) {
  COUNT(cuMemAlloc);
  if (!dptr_out || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (unsafe_call_refused())
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (atomic_load(&device_bytes_in_use) + bytesize > FAKE_TOTAL_MEM)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = fake_alloc(bytesize);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  atomic_fetch_add(&device_bytes_in_use, bytesize);
  *dptr_out = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemFree(CUdeviceptr d) {
  COUNT(cuMemFree);
  if (!d)
    return CUDA_SUCCESS;
  if (unsafe_call_refused())
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  atomic_fetch_sub(&device_bytes_in_use, fake_size(dptr(d)));
  fake_free(dptr(d));
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  COUNT(cuMemHostAlloc);
  (void)Flags;
  if (!pp || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  *pp = fake_alloc(bytesize);
  return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuMemFreeHost(void *p) {
  COUNT(cuMemFreeHost);
  fake_free(p);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
  COUNT(cuMemHostRegister);
  (void)Flags;
  return p && bytesize ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p) {
  COUNT(cuMemHostUnregister);
  return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static void run_op(const fake_op *op) {
  if (!op->n)
    return;
  if (op->kind == FAKE_COPY)
    memmove(op->dst, op->src, op->n);
  else
    memset(op->dst, op->value, op->n);
}

/* A copy or memset on hStream: run now, or recorded as a node of the capture there. */
static CUresult enqueue(CUstream hStream, fake_op op) {
  struct CUgraph_st *g = hStream ? hStream->capture : NULL;
  if (!g) {
    run_op(&op);
    return CUDA_SUCCESS;
  }
  if (g->n_ops == g->cap_ops) {
    size_t cap = g->cap_ops ? 2 * g->cap_ops : 16;
    fake_op *grown = realloc(g->ops, cap * sizeof *grown);
    if (!grown)
      return CUDA_ERROR_OUT_OF_MEMORY;
    g->ops = grown;
    g->cap_ops = cap;
  }
  g->ops[g->n_ops++] = op;
  g->nodes++;
  return CUDA_SUCCESS;
}

/* A kernel launched on a capturing stream is a node (it runs neither way). */
static void note_launch(CUstream hStream) {
  if (hStream && hStream->capture)
    hStream->capture->nodes++;
}

/* Waiting on a capturing stream fails and invalidates its capture, as the driver's does. */
static CUresult refuse_if_capturing(CUstream hStream) {
  if (!hStream || !hStream->capture)
    return CUDA_SUCCESS;
  hStream->capture->invalidated = true;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost,
                                          size_t ByteCount, CUstream hStream) {
  COUNT(cuMemcpyHtoDAsync);
  if (ByteCount && (!dstDevice || !srcHost))
    return CUDA_ERROR_INVALID_VALUE;
  return enqueue(hStream, (fake_op){FAKE_COPY, dptr(dstDevice), srcHost, ByteCount, 0});
}

EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                          CUstream hStream) {
  COUNT(cuMemcpyDtoHAsync);
  if (ByteCount && (!dstHost || !srcDevice))
    return CUDA_ERROR_INVALID_VALUE;
  return enqueue(hStream, (fake_op){FAKE_COPY, dstHost, dptr(srcDevice), ByteCount, 0});
}

EXPORT CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                          size_t ByteCount, CUstream hStream) {
  COUNT(cuMemcpyDtoDAsync);
  if (ByteCount && (!dstDevice || !srcDevice))
    return CUDA_ERROR_INVALID_VALUE;
  return enqueue(hStream, (fake_op){FAKE_COPY, dptr(dstDevice), dptr(srcDevice), ByteCount, 0});
}

EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                          CUdeviceptr srcDevice, CUcontext srcContext,
                                          size_t ByteCount, CUstream hStream) {
  COUNT(cuMemcpyPeerAsync);
  (void)hStream;
  if (!dstContext || !srcContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (ByteCount && (!dstDevice || !srcDevice))
    return CUDA_ERROR_INVALID_VALUE;
  if (ByteCount)
    memmove(dptr(dstDevice), dptr(srcDevice), ByteCount);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                        CUstream hStream) {
  COUNT(cuMemsetD8Async);
  if (N && !dstDevice)
    return CUDA_ERROR_INVALID_VALUE;
  return enqueue(hStream, (fake_op){FAKE_SET, dptr(dstDevice), NULL, N, uc});
}

/* ---------------------------------------------------------------- streams and events */

EXPORT CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags,
                                                   int priority) {
  COUNT(cuStreamCreateWithPriority);
  if (!phStream)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUstream s = malloc(sizeof *s);
  if (!s)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->flags = flags;
  s->priority = priority;
  s->capture = NULL;
  s->strict_capture = false;
  *phStream = s;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamDestroy(CUstream hStream) {
  COUNT(cuStreamDestroy);
  if (!hStream)
    return CUDA_ERROR_INVALID_HANDLE;
  free(hStream);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  COUNT(cuStreamSynchronize);
  return refuse_if_capturing(hStream);
}

EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream) {
  COUNT(cuStreamQuery);
  return refuse_if_capturing(hStream);
}

EXPORT CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  COUNT(cuStreamWaitEvent);
  (void)hStream;
  (void)Flags;
  return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  COUNT(cuEventCreate);
  if (!phEvent)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUevent e = malloc(sizeof *e);
  if (!e)
    return CUDA_ERROR_OUT_OF_MEMORY;
  e->flags = Flags;
  *phEvent = e;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventDestroy(CUevent hEvent) {
  COUNT(cuEventDestroy);
  if (!hEvent)
    return CUDA_ERROR_INVALID_HANDLE;
  free(hEvent);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  COUNT(cuEventRecord);
  (void)hStream;
  return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  COUNT(cuEventSynchronize);
  return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
  COUNT(cuEventQuery);
  return hEvent ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  COUNT(cuEventElapsedTime);
  if (!pMilliseconds)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hStart || !hEnd)
    return CUDA_ERROR_INVALID_HANDLE;
  *pMilliseconds = 0.001f;
  return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- modules and launches */

EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  COUNT(cuModuleLoadData);
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUmodule m = calloc(1, sizeof *m);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *module = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  COUNT(cuModuleUnload);
  if (!hmod)
    return CUDA_ERROR_INVALID_HANDLE;
  while (hmod->functions) {
    struct CUfunc_st *f = hmod->functions;
    hmod->functions = f->next;
    free(f);
  }
  while (hmod->globals) {
    fake_global *g = hmod->globals;
    hmod->globals = g->next;
    fake_free(g->data);
    free(g);
  }
  free(hmod);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  COUNT(cuModuleGetFunction);
  if (!hfunc || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hmod)
    return CUDA_ERROR_INVALID_HANDLE;
  for (CUfunction f = hmod->functions; f; f = f->next)
    if (!strcmp(f->name, name)) {
      *hfunc = f;
      return CUDA_SUCCESS;
    }
  size_t len = strlen(name) + 1;
  CUfunction f = malloc(sizeof *f + len);
  if (!f)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(f->name, name, len);
  f->next = hmod->functions;
  hmod->functions = f;
  *hfunc = f;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr *dptr_out, size_t *bytes, CUmodule hmod,
                                          const char *name) {
  COUNT(cuModuleGetGlobal);
  enum { GLOBAL_BYTES = 256 };
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hmod)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_global *g = malloc(sizeof *g);
  void *data = fake_alloc(GLOBAL_BYTES);
  if (!g || !data) {
    free(g);
    fake_free(data);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memset(data, 0, GLOBAL_BYTES);
  g->data = data;
  g->next = hmod->globals;
  hmod->globals = g;
  if (dptr_out)
    *dptr_out = (CUdeviceptr)(uintptr_t)data;
  if (bytes)
    *bytes = GLOBAL_BYTES;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                           int value) {
  COUNT(cuFuncSetAttribute);
  (void)attrib;
  (void)value;
  return hfunc ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The checks a real launch would fail on first; nothing runs. */
static CUresult check_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared) {
  if (!f)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!gx || !gy || !gz || !bx || !by || !bz)
    return CUDA_ERROR_INVALID_VALUE;
  if (gy > 65535 || gz > 65535 || bz > 64 || (uint64_t)bx * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (shared > 227u << 10)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX,
                                       unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra) {
  COUNT(cuLaunchKernel);
  (void)kernelParams;
  (void)extra;
  CUresult r = check_launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                            sharedMemBytes);
  if (r == CUDA_SUCCESS)
    note_launch(hStream);
  return r;
}

EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                         void **kernelParams, void **extra) {
  COUNT(cuLaunchKernelEx);
  (void)kernelParams;
  (void)extra;
  if (!config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r =
      check_launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                   config->blockDimY, config->blockDimZ, config->sharedMemBytes);
  if (r == CUDA_SUCCESS)
    note_launch(config->hStream);
  return r;
}

/* ---------------------------------------------------------------- function attributes */

EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  COUNT(cuFuncGetAttribute);
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 16; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = 48 << 10; break;
  default: *pi = 0; break;
  }
  return CUDA_SUCCESS;
}

/* The stand-in knows no parameter lists. */
EXPORT CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                           size_t *paramSize) {
  COUNT(cuFuncGetParamInfo);
  (void)paramIndex;
  (void)paramOffset;
  (void)paramSize;
  return func ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_HANDLE;
}

/* ---------------------------------------------------------------- stream capture and graphs */

EXPORT CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode) {
  COUNT(cuStreamBeginCapture);
  if (!hStream)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy null stream cannot capture */
  if (hStream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  hStream->capture = calloc(1, sizeof *hStream->capture);
  if (!hStream->capture)
    return CUDA_ERROR_OUT_OF_MEMORY;
  hStream->strict_capture = mode != CU_STREAM_CAPTURE_MODE_RELAXED;
  if (hStream->strict_capture)
    strict_captures_here++;
  return CUDA_SUCCESS;
}

static void graph_delete(struct CUgraph_st *g) {
  if (g)
    free(g->ops);
  free(g);
}

/* A capture that a synchronisation invalidated ends with CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
 * and no graph, the stream no longer capturing. */
EXPORT CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) {
  COUNT(cuStreamEndCapture);
  if (!phGraph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hStream || !hStream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  struct CUgraph_st *g = hStream->capture;
  hStream->capture = NULL;
  if (hStream->strict_capture)
    strict_captures_here--;
  if (g->invalidated) {
    graph_delete(g);
    *phGraph = NULL;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *phGraph = g;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
                                            CUstreamCaptureStatus *captureStatus) {
  COUNT(cuStreamIsCapturing);
  if (!captureStatus)
    return CUDA_ERROR_INVALID_VALUE;
  *captureStatus =
      hStream && hStream->capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  COUNT(cuThreadExchangeStreamCaptureMode);
  if (!mode)
    return CUDA_ERROR_INVALID_VALUE;
  CUstreamCaptureMode previous = thread_capture_mode;
  thread_capture_mode = *mode;
  *mode = previous;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  COUNT(cuGraphGetNodes);
  if (!hGraph || !numNodes)
    return CUDA_ERROR_INVALID_VALUE;
  if (nodes)
    return CUDA_ERROR_NOT_SUPPORTED; /* the stand-in only counts */
  *numNodes = hGraph->nodes;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                    unsigned long long flags) {
  COUNT(cuGraphInstantiateWithFlags);
  (void)flags;
  if (!phGraphExec || !hGraph)
    return CUDA_ERROR_INVALID_VALUE;
  CUgraphExec e = malloc(sizeof *e);
  fake_op *ops = malloc((hGraph->n_ops ? hGraph->n_ops : 1) * sizeof *ops);
  if (!e || !ops) {
    free(e);
    free(ops);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (hGraph->n_ops)
    memcpy(ops, hGraph->ops, hGraph->n_ops * sizeof *ops);
  e->nodes = hGraph->nodes;
  e->ops = ops;
  e->n_ops = hGraph->n_ops;
  *phGraphExec = e;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  COUNT(cuGraphLaunch);
  if (!hGraphExec)
    return CUDA_ERROR_INVALID_HANDLE;
  if (hStream && hStream->capture) {
    hStream->capture->nodes++; /* a child graph node; its copies are not recorded again */
    return CUDA_SUCCESS;
  }
  for (size_t i = 0; i < hGraphExec->n_ops; i++)
    run_op(&hGraphExec->ops[i]);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) {
  COUNT(cuGraphExecDestroy);
  if (!hGraphExec)
    return CUDA_ERROR_INVALID_HANDLE;
  free(hGraphExec->ops);
  free(hGraphExec);
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph) {
  COUNT(cuGraphDestroy);
  if (!hGraph)
    return CUDA_ERROR_INVALID_HANDLE;
  graph_delete(hGraph);
  return CUDA_SUCCESS;
}
