/*
 * comm.h -- what the files of src/core/comm/ share: the communicator's insides.
 */
#ifndef CUARR_COMM_COMM_H
#define CUARR_COMM_COMM_H

#include "internal.h"
#include "nccl_api.h"

/* One process's ranks of a NCCL communicator: rank r (0-based) drives devices[r] through
 * comms[r].  Made by cuarr_comm_init_all; a destroyed one has n == 0. */
struct cuarr_comm {
  int n;
  int devices[CUARR_MAX_DEVICES];
  ncclComm_t comms[CUARR_MAX_DEVICES];
};

/* NCCL loaded and usable with cuarr's driver (comm.c): NCCL drives the GPUs through the CUDA
 * runtime, which opens libcuda.so.1 by its soname; a driver cuarr opened elsewhere (the
 * stand-in of tools/fake_cuda, through CUARR_LIBCUDA) would hand NCCL addresses it does not
 * know, so that is refused here, before NCCL touches a device. */
cuarr_status cuarr_comm_ready(void);

/* Save and restore this thread's current context around NCCL calls, which make the devices'
 * primary contexts current as they go (the CUDA runtime's cudaSetDevice). */
CUcontext cuarr_comm_save_context(void);
void cuarr_comm_restore_context(CUcontext saved);

#endif
