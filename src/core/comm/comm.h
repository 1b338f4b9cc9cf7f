/*
 * comm.h -- what the files of src/core/comm/ share: the communicator's insides.
 */
#ifndef CUARR_COMM_COMM_H
#define CUARR_COMM_COMM_H

#include "internal.h"
#include "nccl_api.h"

typedef struct cuarr_comm_watch cuarr_comm_watch;

/* One process's ranks of a NCCL communicator of `world` ranks: its local rank r (0-based) is the
 * communicator's rank first_rank + r and drives devices[r] through comms[r].  Made by
 * cuarr_comm_init_all (every rank here: world == n, first_rank 0) or cuarr_comm_init_rank (one
 * rank of a communicator over several processes, watched by `watch`); a destroyed one has n == 0.
 */
struct cuarr_comm {
  int n;
  int world;
  int first_rank;
  int devices[CUARR_MAX_DEVICES];
  ncclComm_t comms[CUARR_MAX_DEVICES];
  cuarr_comm_watch *watch;
  bool verify; /* compare every collective's description across the ranks first (verify.c) */
};

/* The collectives' names by collectives.c's kind (all_reduce, reduce, broadcast, all_gather,
 * reduce_scatter, all_to_all), and the reductions' by cuarr_comm_op: for messages. */
#define CUARR_COMM_KINDS 6
extern const char *const cuarr_comm_kind_names[CUARR_COMM_KINDS];
extern const char *const cuarr_comm_op_names[CUARR_COMM_AVG + 1];

/* What a rank says of a collective it is about to make (verify.c): collectives.c's kind, the
 * dtype, the part's and the out's sizes (-1: none), the op and the root (-1: none). */
typedef struct cuarr_comm_check {
  int64_t kind, dtype, part, out, op, root;
} cuarr_comm_check;

/* Gathers every rank's check to every rank (a small all_gather and a wait on ctx's stream) and
 * fails the same way on all of them when one differs from rank 0's: CUARR_DISTRIBUTED_ERROR for
 * another collective, op or root, CUARR_TYPE_ERROR for another dtype, CUARR_VALUE_ERROR for
 * other sizes, naming the first rank that differs. */
cuarr_status cuarr_comm_verify(cuarr_comm *c, const cuarr_comm_check *q, cuarr_context *ctx,
                               const char *fn);

/* The watchdog of a communicator whose other ranks live in other processes (watchdog.c).  Such
 * a rank can die, or stop calling collectives, and then this one's NCCL kernels would wait for
 * it forever: a thread watches each queued collective (an event recorded after it) and NCCL's
 * asynchronous error, and when one does not finish within the timeout, or NCCL reports an
 * error, it aborts the communicator (ncclCommAbort ends its kernels, so whatever waits on them
 * returns) and remembers why.  From then on the communicator's calls fail with that
 * DistributedError, and so does the next wait of this process (cuarr_comm_failure_check). */
cuarr_status cuarr_comm_watch_start(cuarr_comm *c, double timeout_s);
/* Before a collective: the communicator's failure, if it failed; else holds the lock that keeps
 * the watchdog from aborting while NCCL is being called (cuarr_comm_watch_leave releases it). */
cuarr_status cuarr_comm_watch_enter(cuarr_comm *c, const char *what);
/* After queueing `what` on stream (when queued is true): the event the watchdog waits for. */
cuarr_status cuarr_comm_watch_leave(cuarr_comm *c, bool queued, CUstream stream, const char *what);
/* The communicator's DistributedError if the watchdog gave up on it (CUARR_OK unwatched). */
cuarr_status cuarr_comm_watch_failed(cuarr_comm *c, const char *what);
/* Waits until the queued collectives have finished or the watchdog gave up on them, stops the
 * thread and frees the watch; whether the communicator was aborted (and so must not be
 * destroyed). */
bool cuarr_comm_watch_stop(cuarr_comm *c);

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
