/*
 * comm_rank.c -- one rank of a NCCL communicator over several processes (cuarr.h,
 * cuarr_comm_init_rank): rank 0's unique id handed over (rendezvous_*.c), ncclCommInitRank on
 * this process's device, and the watchdog that keeps a dead rank from hanging the others.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "rendezvous.h"

_Static_assert(sizeof(ncclUniqueId) == CUARR_RENDEZVOUS_ID_BYTES,
               "a NCCL unique id is what the rendezvous hands over");

static cuarr_status check_options(const cuarr_comm_rank_options *o) {
  if (o->world < 1)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "distributed.init: the world size must be at least 1, "
                      "got %d",
                      o->world);
  if (o->rank < 0 || o->rank >= o->world)
    return cuarr_fail(CUARR_VALUE_ERROR, "distributed.init: rank %d is not one of 0 to %d", o->rank,
                      o->world - 1);
  if (!(o->timeout_s > 0) || isinf(o->timeout_s))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "distributed.init: the timeout must be a positive number of seconds, got %g",
                      o->timeout_s);
  if (o->world > 1 && !(o->id_file && *o->id_file) && !(o->address && *o->address))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "distributed.init: %d ranks need a rendezvous: an id file "
                      "(CUARR_NCCL_ID_FILE) or an address and port (MASTER_ADDR, MASTER_PORT)",
                      o->world);
  return CUARR_OK;
}

/* Rank 0's id, made there and handed to every rank. */
static cuarr_status hand_over(const cuarr_comm_rank_options *o, ncclUniqueId *id) {
  memset(id, 0, sizeof *id);
  if (o->rank == 0) {
    CUcontext saved = cuarr_comm_save_context();
    ncclResult_t r = cuarr_nccl.ncclGetUniqueId(id);
    cuarr_comm_restore_context(saved);
    CUARR_TRY(cuarr_nccl_check(r, "ncclGetUniqueId"));
  }
  if (o->world == 1)
    return CUARR_OK;
  unsigned char *bytes = (unsigned char *)id->internal;
  if (o->id_file && *o->id_file)
    return cuarr_rendezvous_file(o->id_file, o->rank, o->world, o->timeout_s, bytes);
  /* Rank 0 listens on every interface: the address the others are given may name this host
   * by a name that resolves here to a loopback address (Debian's 127.0.1.1). */
  return cuarr_rendezvous_tcp(o->rank == 0 ? NULL : o->address, o->port, o->rank, o->world,
                              o->timeout_s, bytes);
}

cuarr_status cuarr_comm_init_rank(const cuarr_comm_rank_options *o, cuarr_comm **out) {
  CUARR_TRY(check_options(o));
  CUARR_TRY(cuarr_device_check(o->device));
  CUARR_TRY(cuarr_comm_ready());
  CUcontext ctx; /* the primary context first, so that NCCL's runtime finds the one cuarr uses */
  CUARR_TRY(cuarr_device_context(o->device, &ctx));
  ncclUniqueId id;
  CUARR_TRY(hand_over(o, &id));
  cuarr_comm *c = calloc(1, sizeof *c);
  if (!c)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a communicator");
  /* NCCL's runtime picks the device by the current context (cudaSetDevice's) */
  CUcontext saved = NULL;
  cuarr_status s = cuarr_device_context_push(o->device, &saved);
  if (s != CUARR_OK) {
    free(c);
    return s;
  }
  ncclResult_t r = cuarr_nccl.ncclCommInitRank(&c->comms[0], o->world, id, o->rank);
  cuarr_device_context_pop(saved);
  if (r != ncclSuccess) {
    free(c);
    return cuarr_nccl_check(r, "ncclCommInitRank");
  }
  c->n = 1;
  c->world = o->world;
  c->first_rank = o->rank;
  c->devices[0] = o->device;
  c->verify = o->verify;
  if (o->world > 1 && (s = cuarr_comm_watch_start(c, o->timeout_s)) != CUARR_OK) {
    cuarr_nccl.ncclCommAbort(c->comms[0]);
    free(c);
    return s;
  }
  *out = c;
  return CUARR_OK;
}
