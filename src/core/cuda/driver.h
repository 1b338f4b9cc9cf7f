/*
 * driver.h -- the CUDA driver, NVRTC, cuBLAS and cuSOLVER entry points cuarr uses, loaded with
 * dlopen.
 *
 * cuarr links none of the CUDA libraries: building needs only the toolkit's headers, and
 * `require "cuarr"` works on a machine with no driver.  Each library is opened on first use
 * (cuarr_load_driver() and friends), looked for on the loader's path, then under
 * $CUDA_HOME/lib64 (default /usr/local/cuda), and CUARR_LIBCUDA / CUARR_LIBNVRTC /
 * CUARR_LIBCUBLAS / CUARR_LIBCUSOLVER name a file outright.
 *
 * The tables are X-macros: a function listed here becomes a member of the same name, with the
 * type of the header's declaration.  cuda.h maps some names to versioned symbols
 * (cuMemAlloc -> cuMemAlloc_v2); the member and the dlsym'd symbol both go through that
 * mapping, so `cuarr_cu.cuMemAlloc(...)` calls the symbol the header means.
 */
#ifndef CUARR_CUDA_DRIVER_H
#define CUARR_CUDA_DRIVER_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cusolverDn.h>
#include <nvrtc.h>

#include "cuarr.h"

#define CUARR_DRIVER_FUNCTIONS(X)                                                                  \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem)                                                                              \
  X(cuDeviceGetPCIBusId)                                                                           \
  X(cuDeviceCanAccessPeer)                                                                         \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxSetCurrent)                                                                               \
  X(cuCtxGetCurrent)                                                                               \
  X(cuCtxSynchronize)                                                                              \
  X(cuCtxEnablePeerAccess)                                                                         \
  X(cuCtxGetStreamPriorityRange)                                                                   \
  X(cuMemGetInfo)                                                                                  \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemHostAlloc)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuMemHostRegister)                                                                             \
  X(cuMemHostUnregister)                                                                           \
  X(cuPointerGetAttribute)                                                                         \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoHAsync)                                                                             \
  X(cuMemcpyDtoDAsync)                                                                             \
  X(cuMemcpyPeerAsync)                                                                             \
  X(cuMemsetD8Async)                                                                               \
  X(cuStreamCreateWithPriority)                                                                    \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamQuery)                                                                                 \
  X(cuStreamWaitEvent)                                                                             \
  X(cuStreamBeginCapture)                                                                          \
  X(cuStreamEndCapture)                                                                            \
  X(cuStreamIsCapturing)                                                                           \
  X(cuThreadExchangeStreamCaptureMode)                                                             \
  X(cuGraphInstantiateWithFlags)                                                                   \
  X(cuGraphLaunch)                                                                                 \
  X(cuGraphExecDestroy)                                                                            \
  X(cuGraphDestroy)                                                                                \
  X(cuGraphGetNodes)                                                                               \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy)                                                                                \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventQuery)                                                                                  \
  X(cuEventElapsedTime)                                                                            \
  X(cuModuleLoadData)                                                                              \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuModuleGetGlobal)                                                                             \
  X(cuFuncSetAttribute)                                                                            \
  X(cuFuncGetAttribute)                                                                            \
  X(cuLaunchKernel)                                                                                \
  X(cuLaunchKernelEx)

/* Entry points newer than the oldest driver cuarr runs on: resolved when the driver has them,
 * NULL otherwise (callers check).  cuFuncGetParamInfo: CUDA 12.4. */
#define CUARR_DRIVER_OPTIONAL_FUNCTIONS(X) X(cuFuncGetParamInfo)

#define CUARR_NVRTC_FUNCTIONS(X)                                                                   \
  X(nvrtcVersion)                                                                                  \
  X(nvrtcGetErrorString)                                                                           \
  X(nvrtcCreateProgram)                                                                            \
  X(nvrtcDestroyProgram)                                                                           \
  X(nvrtcCompileProgram)                                                                           \
  X(nvrtcGetProgramLogSize)                                                                        \
  X(nvrtcGetProgramLog)                                                                            \
  X(nvrtcGetCUBINSize)                                                                             \
  X(nvrtcGetCUBIN)                                                                                 \
  X(nvrtcAddNameExpression)                                                                        \
  X(nvrtcGetLoweredName)

#define CUARR_MEMBER_(f) __typeof__(&f) f;

typedef struct cuarr_driver_api {
  CUARR_DRIVER_FUNCTIONS(CUARR_MEMBER_)
  CUARR_DRIVER_OPTIONAL_FUNCTIONS(CUARR_MEMBER_)
} cuarr_driver_api;

typedef struct cuarr_nvrtc_api {
  CUARR_NVRTC_FUNCTIONS(CUARR_MEMBER_)
} cuarr_nvrtc_api;

/* cublas_v2.h maps these names to the _v2 symbols, as cuda.h does the driver's. */
#define CUARR_CUBLAS_FUNCTIONS(X)                                                                  \
  X(cublasGetProperty)                                                                             \
  X(cublasGetStatusName)                                                                           \
  X(cublasCreate)                                                                                  \
  X(cublasDestroy)                                                                                 \
  X(cublasSetStream)                                                                               \
  X(cublasSetWorkspace)                                                                            \
  X(cublasSetMathMode)                                                                             \
  X(cublasSetPointerMode)                                                                          \
  X(cublasGemmEx)                                                                                  \
  X(cublasGemmStridedBatchedEx)                                                                    \
  X(cublasSgetrfBatched)                                                                           \
  X(cublasDgetrfBatched)                                                                           \
  X(cublasSgetrsBatched)                                                                           \
  X(cublasDgetrsBatched)

/* cuSOLVER's dense solvers, for the factorizations of large matrices. */
#define CUARR_CUSOLVER_FUNCTIONS(X)                                                                \
  X(cusolverGetProperty)                                                                           \
  X(cusolverDnCreate)                                                                              \
  X(cusolverDnDestroy)                                                                             \
  X(cusolverDnSetStream)                                                                           \
  X(cusolverDnSgetrf_bufferSize)                                                                   \
  X(cusolverDnDgetrf_bufferSize)                                                                   \
  X(cusolverDnSgetrf)                                                                              \
  X(cusolverDnDgetrf)                                                                              \
  X(cusolverDnSgetrs)                                                                              \
  X(cusolverDnDgetrs)                                                                              \
  X(cusolverDnSpotrf_bufferSize)                                                                   \
  X(cusolverDnDpotrf_bufferSize)                                                                   \
  X(cusolverDnSpotrf)                                                                              \
  X(cusolverDnDpotrf)                                                                              \
  X(cusolverDnSpotrfBatched)                                                                       \
  X(cusolverDnDpotrfBatched)                                                                       \
  X(cusolverDnSgeqrf_bufferSize)                                                                   \
  X(cusolverDnDgeqrf_bufferSize)                                                                   \
  X(cusolverDnSgeqrf)                                                                              \
  X(cusolverDnDgeqrf)                                                                              \
  X(cusolverDnSorgqr_bufferSize)                                                                   \
  X(cusolverDnDorgqr_bufferSize)                                                                   \
  X(cusolverDnSorgqr)                                                                              \
  X(cusolverDnDorgqr)                                                                              \
  X(cusolverDnSsyevd_bufferSize)                                                                   \
  X(cusolverDnDsyevd_bufferSize)                                                                   \
  X(cusolverDnSsyevd)                                                                              \
  X(cusolverDnDsyevd)                                                                              \
  X(cusolverDnCreateSyevjInfo)                                                                     \
  X(cusolverDnDestroySyevjInfo)                                                                    \
  X(cusolverDnXsyevjSetTolerance)                                                                  \
  X(cusolverDnXsyevjSetMaxSweeps)                                                                  \
  X(cusolverDnXsyevjSetSortEig)                                                                    \
  X(cusolverDnSsyevjBatched_bufferSize)                                                            \
  X(cusolverDnDsyevjBatched_bufferSize)                                                            \
  X(cusolverDnSsyevjBatched)                                                                       \
  X(cusolverDnDsyevjBatched)                                                                       \
  X(cusolverDnCreateGesvdjInfo)                                                                    \
  X(cusolverDnDestroyGesvdjInfo)                                                                   \
  X(cusolverDnXgesvdjSetSortEig)                                                                   \
  X(cusolverDnSgesvdjBatched_bufferSize)                                                           \
  X(cusolverDnDgesvdjBatched_bufferSize)                                                           \
  X(cusolverDnSgesvdjBatched)                                                                      \
  X(cusolverDnDgesvdjBatched)                                                                      \
  X(cusolverDnSgesvd_bufferSize)                                                                   \
  X(cusolverDnDgesvd_bufferSize)                                                                   \
  X(cusolverDnSgesvd)                                                                              \
  X(cusolverDnDgesvd)

typedef struct cuarr_cusolver_api {
  CUARR_CUSOLVER_FUNCTIONS(CUARR_MEMBER_)
} cuarr_cusolver_api;

typedef struct cuarr_cublas_api {
  CUARR_CUBLAS_FUNCTIONS(CUARR_MEMBER_)
} cuarr_cublas_api;

/* Filled by the loaders below; valid only after they succeed. */
extern cuarr_driver_api cuarr_cu;
extern cuarr_nvrtc_api cuarr_nvrtc;
extern cuarr_cublas_api cuarr_cublas;
extern cuarr_cusolver_api cuarr_cusolver;

/* Open the library (once, thread-safe) and resolve every entry point.  The driver loader also
 * runs cuInit(0).  On failure: CUARR_NOT_AVAILABLE with a message naming what is missing
 * (the same message on every later call). */
cuarr_status cuarr_load_driver(void);
cuarr_status cuarr_load_nvrtc(void);
cuarr_status cuarr_load_cublas(void);
cuarr_status cuarr_load_cusolver(void);

/* Turn a failed driver call into CUARR_CUDA_ERROR ("what: CUDA_ERROR_X (description)");
 * CUDA_ERROR_OUT_OF_MEMORY becomes CUARR_OUT_OF_MEMORY.  CUDA_SUCCESS gives CUARR_OK. */
cuarr_status cuarr_cu_check(CUresult r, const char *what);
cuarr_status cuarr_nvrtc_check(nvrtcResult r, const char *what);
/* A failed cuBLAS call: CUARR_CUDA_ERROR naming the status (CUBLAS_STATUS_ALLOC_FAILED:
 * CUARR_OUT_OF_MEMORY). */
cuarr_status cuarr_cublas_check(cublasStatus_t r, const char *what);
cuarr_status cuarr_cusolver_check(cusolverStatus_t r, const char *what);

/* Shorthand: return on failure. */
#define CUARR_TRY(expr)                                                                            \
  do {                                                                                             \
    cuarr_status cuarr_try_status_ = (expr);                                                       \
    if (cuarr_try_status_ != CUARR_OK)                                                             \
      return cuarr_try_status_;                                                                    \
  } while (0)
#define CUARR_CU(call) CUARR_TRY(cuarr_cu_check(cuarr_cu.call, #call))

#endif
