/*
 * nccl_api.h -- the NCCL entry points cuarr uses, loaded with dlopen (nccl_loader.c).
 *
 * Like the CUDA libraries (cuda/driver.h), NCCL is not linked: building needs none of its
 * files, not even nccl.h, whose few types are declared here with NCCL's own values (its ABI
 * keeps them: the enums are part of every release's interface since 2.0, ncclAvg since 2.10).
 * The table is an X-macro: a function listed becomes a member of that name and type.
 */
#ifndef CUARR_COMM_NCCL_API_H
#define CUARR_COMM_NCCL_API_H

#include <cuda.h>
#include <stddef.h>

#include "cuarr.h"

typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8
} ncclDataType_t;

/* The prototypes, as nccl.h declares them. */
typedef ncclResult_t (*cuarr_nccl_get_version_fn)(int *version);
typedef const char *(*cuarr_nccl_get_error_string_fn)(ncclResult_t result);
typedef ncclResult_t (*cuarr_nccl_get_unique_id_fn)(ncclUniqueId *id);
typedef ncclResult_t (*cuarr_nccl_comm_init_all_fn)(ncclComm_t *comms, int ndev,
                                                    const int *devlist);
typedef ncclResult_t (*cuarr_nccl_comm_init_rank_fn)(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                                     int rank);
typedef ncclResult_t (*cuarr_nccl_comm_fn)(ncclComm_t comm);
typedef ncclResult_t (*cuarr_nccl_comm_async_error_fn)(ncclComm_t comm, ncclResult_t *error);
typedef ncclResult_t (*cuarr_nccl_reduce_fn)(const void *send, void *recv, size_t count,
                                             ncclDataType_t type, ncclRedOp_t op, int root,
                                             ncclComm_t comm, CUstream stream);
typedef ncclResult_t (*cuarr_nccl_all_reduce_fn)(const void *send, void *recv, size_t count,
                                                 ncclDataType_t type, ncclRedOp_t op,
                                                 ncclComm_t comm, CUstream stream);
typedef ncclResult_t (*cuarr_nccl_broadcast_fn)(const void *send, void *recv, size_t count,
                                                ncclDataType_t type, int root, ncclComm_t comm,
                                                CUstream stream);
typedef ncclResult_t (*cuarr_nccl_reduce_scatter_fn)(const void *send, void *recv,
                                                     size_t recv_count, ncclDataType_t type,
                                                     ncclRedOp_t op, ncclComm_t comm,
                                                     CUstream stream);
typedef ncclResult_t (*cuarr_nccl_all_gather_fn)(const void *send, void *recv, size_t send_count,
                                                 ncclDataType_t type, ncclComm_t comm,
                                                 CUstream stream);
typedef ncclResult_t (*cuarr_nccl_send_fn)(const void *send, size_t count, ncclDataType_t type,
                                           int peer, ncclComm_t comm, CUstream stream);
typedef ncclResult_t (*cuarr_nccl_recv_fn)(void *recv, size_t count, ncclDataType_t type, int peer,
                                           ncclComm_t comm, CUstream stream);
typedef ncclResult_t (*cuarr_nccl_group_fn)(void);

/* X(member, type): every entry point is required (all are in NCCL 2.10 and later). */
#define CUARR_NCCL_FUNCTIONS(X)                                                                    \
  X(ncclGetVersion, cuarr_nccl_get_version_fn)                                                     \
  X(ncclGetErrorString, cuarr_nccl_get_error_string_fn)                                            \
  X(ncclGetUniqueId, cuarr_nccl_get_unique_id_fn)                                                  \
  X(ncclCommInitAll, cuarr_nccl_comm_init_all_fn)                                                  \
  X(ncclCommInitRank, cuarr_nccl_comm_init_rank_fn)                                                \
  X(ncclCommDestroy, cuarr_nccl_comm_fn)                                                           \
  X(ncclCommAbort, cuarr_nccl_comm_fn)                                                             \
  X(ncclCommGetAsyncError, cuarr_nccl_comm_async_error_fn)                                         \
  X(ncclReduce, cuarr_nccl_reduce_fn)                                                              \
  X(ncclAllReduce, cuarr_nccl_all_reduce_fn)                                                       \
  X(ncclBroadcast, cuarr_nccl_broadcast_fn)                                                        \
  X(ncclReduceScatter, cuarr_nccl_reduce_scatter_fn)                                               \
  X(ncclAllGather, cuarr_nccl_all_gather_fn)                                                       \
  X(ncclSend, cuarr_nccl_send_fn)                                                                  \
  X(ncclRecv, cuarr_nccl_recv_fn)                                                                  \
  X(ncclGroupStart, cuarr_nccl_group_fn)                                                           \
  X(ncclGroupEnd, cuarr_nccl_group_fn)

#define CUARR_NCCL_MEMBER_(f, type) type f;
typedef struct cuarr_nccl_api {
  CUARR_NCCL_FUNCTIONS(CUARR_NCCL_MEMBER_)
} cuarr_nccl_api;

/* Filled by cuarr_load_nccl; valid only after it succeeds. */
extern cuarr_nccl_api cuarr_nccl;

/* Open NCCL (once, thread-safe) and resolve every entry point.  On failure CUARR_NOT_AVAILABLE
 * naming what is missing and every place looked in (the same message on every later call). */
cuarr_status cuarr_load_nccl(void);
/* Whether the NCCL loaded is tools/fake_cuda's stand-in (it exports cuarr_stand_in_nccl), which
 * touches no driver and so may run with any (after cuarr_load_nccl succeeded). */
bool cuarr_nccl_is_stand_in(void);
/* A failed NCCL call: CUARR_CUDA_ERROR "what: <NCCL's description> (ncclX)". */
cuarr_status cuarr_nccl_check(ncclResult_t r, const char *what);

#endif
