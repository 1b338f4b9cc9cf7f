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
 * Module images are read as the real driver reads them (cubin_elf.c for ELF cubins and the
 * cubin inside a fatbin, ptx_text.c for PTX; anything else is CUDA_ERROR_INVALID_IMAGE): kernels
 * and globals are found by name (CUDA_ERROR_NOT_FOUND otherwise), cuFuncGetParamInfo gives each
 * parameter's offset and size, cuFuncGetAttribute the kernel's registers, shared, constant and
 * local sizes, max threads per block and versions, globals have their real sizes and initial
 * contents, and launches past a kernel's max threads or dynamic shared limit are refused.  A
 * fatbin with no cubin inside is accepted unread: any name is then found.
 *
 * FAKE_CUDA_COUNT=1 in the environment counts the calls to each entry point and prints the
 * counts on stderr at exit.
 */
#include "cuda/driver.h" /* cuda.h, and the list of entry points */

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

#include "cubin_elf.c" /* reading real module images */
#include "ptx_text.c"

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

/* Address ranges: the device allocations (for cuPointerGetAttribute) and the registered host
 * ranges (cuMemHostRegister).  A short list searched linearly: the stand-in holds few. */
typedef struct fake_ranges {
  pthread_mutex_t lock;
  uintptr_t *start;
  size_t *size;
  size_t n, cap;
} fake_ranges;
static fake_ranges device_ranges = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0};
static fake_ranges registered_ranges = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0};

static bool fake_range_add(fake_ranges *r, uintptr_t start, size_t size) {
  pthread_mutex_lock(&r->lock);
  bool ok = true;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    uintptr_t *s = realloc(r->start, cap * sizeof *s);
    if (s)
      r->start = s;
    size_t *z = s ? realloc(r->size, cap * sizeof *z) : NULL;
    if (z)
      r->size = z;
    ok = s && z;
    if (ok)
      r->cap = cap;
  }
  if (ok) {
    r->start[r->n] = start;
    r->size[r->n++] = size;
  }
  pthread_mutex_unlock(&r->lock);
  return ok;
}

/* Remove the range starting exactly at start; false if there is none. */
static bool fake_range_remove(fake_ranges *r, uintptr_t start) {
  pthread_mutex_lock(&r->lock);
  bool found = false;
  for (size_t i = 0; i < r->n && !found; i++)
    if (r->start[i] == start) {
      r->start[i] = r->start[--r->n];
      r->size[i] = r->size[r->n];
      found = true;
    }
  pthread_mutex_unlock(&r->lock);
  return found;
}

/* The range holding address p (its start and size), if any. */
static bool fake_range_find(fake_ranges *r, uintptr_t p, uintptr_t *start, size_t *size) {
  pthread_mutex_lock(&r->lock);
  bool found = false;
  for (size_t i = 0; i < r->n && !found; i++)
    if (p >= r->start[i] && p - r->start[i] < r->size[i]) {
      found = true;
      if (start)
        *start = r->start[i];
      if (size)
        *size = r->size[i];
    }
  pthread_mutex_unlock(&r->lock);
  return found;
}

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
  struct CUmod_st *module;
  int max_dynamic_shared; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, as last set */
  int max_threads;        /* per block, read from the image once so that launches stay cheap */
  char name[];
};
typedef struct fake_global {
  struct fake_global *next;
  void *data;
  size_t bytes;
  char name[];
} fake_global;
struct CUmod_st {
  struct CUfunc_st *functions;
  fake_global *globals;
  unsigned char *image; /* a copy of the ELF cubin, NULL for an image the stand-in cannot read */
  cubin elf;            /* over image */
  char *ptx;            /* a copy of a PTX image's text */
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
  if (!fake_range_add(&device_ranges, (uintptr_t)p, bytesize)) {
    fake_free(p);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
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
  fake_range_remove(&device_ranges, d);
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

/* Registered host ranges are recorded, so that registering one twice or unregistering one that
 * is not registered fails as with the real driver. */
EXPORT CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
  COUNT(cuMemHostRegister);
  (void)Flags;
  if (!p || !bytesize)
    return CUDA_ERROR_INVALID_VALUE;
  if (fake_range_find(&registered_ranges, (uintptr_t)p, NULL, NULL))
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  return fake_range_add(&registered_ranges, (uintptr_t)p, bytesize) ? CUDA_SUCCESS
                                                                    : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p) {
  COUNT(cuMemHostUnregister);
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  return fake_range_remove(&registered_ranges, (uintptr_t)p)
             ? CUDA_SUCCESS
             : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
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

/* A function's limits, read from its module's image (function attributes, below). */
static int max_threads(CUfunction f);
static int static_shared(CUfunction f);

/* What kind of image the loader was given, by its first bytes (checked one at a time, so that a
 * short image is not read past its end). */
static bool starts_with(const unsigned char *p, const char *prefix) {
  for (; *prefix; p++, prefix++)
    if (*p != (unsigned char)*prefix)
      return false;
  return true;
}

/* The first ELF cubin inside a fatbin (magic 0xBA55ED50, then u16 version, u16 header size,
 * u64 size of what follows), NULL when there is none. */
static const unsigned char *fatbin_cubin(const unsigned char *image) {
  uint16_t header;
  uint64_t size;
  memcpy(&header, image + 6, 2);
  memcpy(&size, image + 8, 8);
  for (uint64_t i = header; i + 4 <= header + size; i++)
    if (starts_with(image + i, ELFMAG) && cubin_elf_size(image + i))
      return image + i;
  return NULL;
}

/* Keeps a copy of a cubin, or of a PTX text, so that names, parameters and globals are found in
 * it as the real driver finds them; a fatbin without a cubin is accepted unread. */
static CUresult load_image(CUmodule m, const void *image) {
  const unsigned char *bytes = image, *elf = NULL;
  if (starts_with(bytes, "\x50\xed\x55\xba"))
    elf = fatbin_cubin(bytes);
  else if (starts_with(bytes, ELFMAG)) {
    elf = bytes;
    if (!cubin_elf_size(elf))
      return CUDA_ERROR_INVALID_IMAGE;
  } else {
    const char *text = image;
    text += strspn(text, " \t\r\n");
    if (!starts_with((const unsigned char *)text, "//") &&
        !starts_with((const unsigned char *)text, ".version"))
      return CUDA_ERROR_INVALID_IMAGE;
    m->ptx = strdup(image);
    return m->ptx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (!elf)
    return CUDA_SUCCESS;
  size_t n = cubin_elf_size(elf);
  m->image = malloc(n);
  if (!m->image)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(m->image, elf, n);
  m->elf = (cubin){m->image, n, (const Elf64_Ehdr *)m->image};
  return CUDA_SUCCESS;
}

static CUresult load_module(CUmodule *module, const void *image) {
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current_ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUmodule m = calloc(1, sizeof *m);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = load_image(m, image);
  if (r != CUDA_SUCCESS) {
    free(m);
    return r;
  }
  *module = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  COUNT(cuModuleLoadData);
  return load_module(module, image);
}

/* The JIT options are accepted and not used: the stand-in compiles nothing. */
EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
                                           unsigned int numOptions, CUjit_option *options,
                                           void **optionValues) {
  COUNT(cuModuleLoadDataEx);
  if (numOptions && (!options || !optionValues))
    return CUDA_ERROR_INVALID_VALUE;
  return load_module(module, image);
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
  free(hmod->image);
  free(hmod->ptx);
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
  if (hmod->image && !cubin_has_kernel(&hmod->elf, name))
    return CUDA_ERROR_NOT_FOUND;
  if (hmod->ptx && !ptx_entry(hmod->ptx, name))
    return CUDA_ERROR_NOT_FOUND;
  size_t len = strlen(name) + 1;
  CUfunction f = malloc(sizeof *f + len);
  if (!f)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(f->name, name, len);
  f->module = hmod;
  f->max_dynamic_shared = 48 << 10;
  f->max_threads = max_threads(f);
  f->next = hmod->functions;
  hmod->functions = f;
  *hfunc = f;
  return CUDA_SUCCESS;
}

/* A global's size and initial bytes (NULL: zero-filled), from the image; a made-up zeroed
 * 256-byte block for an image the stand-in cannot read. */
static bool find_global(CUmodule m, const char *name, size_t *bytes, const unsigned char **init) {
  *init = NULL;
  if (m->image)
    return cubin_global(&m->elf, name, bytes, init);
  if (m->ptx)
    return ptx_global(m->ptx, name, bytes);
  *bytes = 256;
  return true;
}

/* Each global is allocated once per module, at its first lookup, as the real driver keeps one
 * copy per loaded module. */
EXPORT CUresult CUDAAPI cuModuleGetGlobal(CUdeviceptr *dptr_out, size_t *bytes, CUmodule hmod,
                                          const char *name) {
  COUNT(cuModuleGetGlobal);
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hmod)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_global *g = hmod->globals;
  while (g && strcmp(g->name, name))
    g = g->next;
  if (!g) {
    size_t n;
    const unsigned char *init;
    if (!find_global(hmod, name, &n, &init))
      return CUDA_ERROR_NOT_FOUND;
    size_t len = strlen(name) + 1;
    g = malloc(sizeof *g + len);
    void *data = fake_alloc(n ? n : 1);
    if (!g || !data) {
      free(g);
      fake_free(data);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (init)
      memcpy(data, init, n);
    else
      memset(data, 0, n);
    if (hmod->ptx)
      ptx_global_init(hmod->ptx, name, data, n);
    memcpy(g->name, name, len);
    g->data = data;
    g->bytes = n;
    g->next = hmod->globals;
    hmod->globals = g;
  }
  if (dptr_out)
    *dptr_out = (CUdeviceptr)(uintptr_t)g->data;
  if (bytes)
    *bytes = g->bytes;
  return CUDA_SUCCESS;
}

/* The opt-in limit of dynamic shared memory per block on sm_90 (227 KiB). */
#define FAKE_MAX_OPTIN_SHARED (227 << 10)

EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                           int value) {
  COUNT(cuFuncSetAttribute);
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || (int64_t)value + static_shared(hfunc) > FAKE_MAX_OPTIN_SHARED)
      return CUDA_ERROR_INVALID_VALUE;
    hfunc->max_dynamic_shared = value;
  }
  return CUDA_SUCCESS;
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
  if ((uint64_t)bx * by * bz > (uint64_t)f->max_threads || shared > (unsigned)f->max_dynamic_shared)
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

/* Registers of a function: from its cubin, else a made-up 16. */
static int registers(CUfunction f) {
  return f->module->image ? cubin_kernel_figure(&f->module->elf, f->name, EIATTR_REGCOUNT) : 16;
}

static int static_shared(CUfunction f) {
  return f->module->image ? (int)cubin_shared_bytes(&f->module->elf, f->name) : 0;
}

/* 1024, or __launch_bounds__' figure, and no more than the registers allow: 64K registers per
 * SM, handed out per warp in units of 256 (8 per thread). */
static int max_threads(CUfunction f) {
  int n = 1024;
  if (!f->module->image)
    return n;
  uint64_t bound = cubin_launch_bound(&f->module->elf, f->name);
  if (bound && bound < (uint64_t)n)
    n = (int)bound;
  int regs = registers(f);
  if (regs > 0) {
    int per_warp = (regs * 32 + 255) / 256 * 256;
    int warps = 65536 / per_warp;
    if (warps * 32 < n)
      n = warps * 32;
  }
  return n;
}

EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  COUNT(cuFuncGetAttribute);
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (!hfunc)
    return CUDA_ERROR_INVALID_HANDLE;
  const cubin *c = hfunc->module->image ? &hfunc->module->elf : NULL;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = hfunc->max_threads; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = registers(hfunc); break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = static_shared(hfunc); break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = c ? (int)cubin_const_bytes(c) : 0; break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *pi = c ? cubin_kernel_figure(c, hfunc->name, EIATTR_FRAME_SIZE) : 0;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = c ? cubin_sm_version(c) : 90; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = hfunc->max_dynamic_shared; break;
  default: *pi = 0; break;
  }
  return CUDA_SUCCESS;
}

/* From the cubin's KPARAM_INFO records or the PTX .param list; an image the stand-in cannot
 * read has no parameter list to give. */
EXPORT CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                           size_t *paramSize) {
  COUNT(cuFuncGetParamInfo);
  if (!func)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!paramOffset) /* the size is optional, the offset is not */
    return CUDA_ERROR_INVALID_VALUE;
  size_t offset, size;
  bool found;
  if (paramIndex > UINT32_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  if (func->module->image)
    found = cubin_param(&func->module->elf, func->name, (uint32_t)paramIndex, &offset, &size, NULL);
  else if (func->module->ptx)
    found = ptx_param(func->module->ptx, func->name, (uint32_t)paramIndex, &offset, &size, NULL);
  else
    return CUDA_ERROR_NOT_SUPPORTED;
  if (!found)
    return CUDA_ERROR_INVALID_VALUE;
  *paramOffset = offset;
  if (paramSize)
    *paramSize = size;
  return CUDA_SUCCESS;
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

/* What cuarr asks of a pointer: whether it is device memory, of which device, and the
 * allocation holding it.  Only the stand-in's own device allocations are device memory. */
EXPORT CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                              CUdeviceptr ptr) {
  COUNT(cuPointerGetAttribute);
  if (!data)
    return CUDA_ERROR_INVALID_VALUE;
  uintptr_t start;
  size_t size;
  if (!fake_range_find(&device_ranges, (uintptr_t)ptr, &start, &size))
    return CUDA_ERROR_INVALID_VALUE; /* as the driver says of memory it does not know */
  switch (attribute) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = CU_MEMORYTYPE_DEVICE; break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = (CUdeviceptr)start; break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = size; break;
  default: return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}
