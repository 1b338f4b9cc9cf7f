/*
 * fake_nccl.c -- a stand-in NCCL of one rank for the stand-in driver (fake_cuda.c), so that the
 * collectives' whole path (checks, temporaries, the group calls, copies back) runs without GPUs
 * (spec/c/test_comm_stand_in.c).  The stand-in driver's "device" memory is host memory: with one
 * rank every collective copies its send buffer to its receive buffer, and a send is matched by
 * the receive posted after it in the same group.  Calls outside a group are refused, so a
 * collective cuarr forgot to group fails here.
 *
 * It exports cuarr_stand_in_nccl: cuarr lets such an NCCL run on any driver (the real NCCL
 * must share the system's libcuda.so.1 with cuarr; this one touches no driver).
 */
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int result;
typedef struct comm {
  int device;
} * comm_t;
typedef struct {
  char internal[128];
} unique_id;

enum { SUCCESS = 0, INVALID_ARGUMENT = 4, INVALID_USAGE = 5 };
/* ncclDataType_t's sizes: int8 uint8 int32 uint32 int64 uint64 float16 float32 float64 */
static const size_t type_size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8};

EXPORT const int cuarr_stand_in_nccl = 1;
EXPORT int cuarr_stand_in_nccl_calls; /* collectives and sends run, for the tests */

static int group_depth;
static const void *pending_send;
static size_t pending_bytes;

static result move(void *dst, const void *src, size_t count, int type) {
  if (type < 0 || type > 8)
    return INVALID_ARGUMENT;
  if (!group_depth)
    return INVALID_USAGE;
  if (dst != src && count)
    memmove(dst, src, count * type_size[type]);
  cuarr_stand_in_nccl_calls++;
  return SUCCESS;
}

EXPORT result ncclGetVersion(int *v) {
  *v = 22809;
  return SUCCESS;
}
EXPORT const char *ncclGetErrorString(result r) {
  return r == SUCCESS ? "no error" : "stand-in NCCL error";
}
EXPORT result ncclGetUniqueId(unique_id *id) {
  memset(id, 0, sizeof *id);
  return SUCCESS;
}
EXPORT result ncclCommInitAll(comm_t *comms, int n, const int *devices) {
  if (n != 1)
    return INVALID_ARGUMENT; /* the stand-in driver has one device */
  comms[0] = calloc(1, sizeof **comms);
  if (!comms[0])
    return 2;
  comms[0]->device = devices[0];
  return SUCCESS;
}
EXPORT result ncclCommInitRank(comm_t *c, int n, unique_id id, int rank) {
  (void)c, (void)n, (void)id, (void)rank;
  return INVALID_USAGE;
}
EXPORT result ncclCommDestroy(comm_t c) {
  free(c);
  return SUCCESS;
}
EXPORT result ncclCommAbort(comm_t c) {
  free(c);
  return SUCCESS;
}
EXPORT result ncclCommGetAsyncError(comm_t c, result *e) {
  (void)c;
  *e = SUCCESS;
  return SUCCESS;
}
EXPORT result ncclAllReduce(const void *s, void *r, size_t n, int t, int op, comm_t c, void *st) {
  (void)op, (void)c, (void)st;
  return move(r, s, n, t);
}
EXPORT result ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, comm_t c,
                         void *st) {
  (void)op, (void)c, (void)st;
  return root != 0 ? INVALID_ARGUMENT : move(r, s, n, t);
}
EXPORT result ncclBroadcast(const void *s, void *r, size_t n, int t, int root, comm_t c, void *st) {
  (void)c, (void)st;
  return root != 0 ? INVALID_ARGUMENT : move(r, s, n, t);
}
EXPORT result ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, comm_t c,
                                void *st) {
  (void)op, (void)c, (void)st;
  return move(r, s, n, t);
}
EXPORT result ncclAllGather(const void *s, void *r, size_t n, int t, comm_t c, void *st) {
  (void)c, (void)st;
  return move(r, s, n, t);
}
EXPORT result ncclSend(const void *s, size_t n, int t, int peer, comm_t c, void *st) {
  (void)c, (void)st;
  if (!group_depth || peer != 0 || pending_send || t < 0 || t > 8)
    return INVALID_USAGE;
  pending_send = s;
  pending_bytes = n * type_size[t];
  return SUCCESS;
}
EXPORT result ncclRecv(void *r, size_t n, int t, int peer, comm_t c, void *st) {
  (void)c, (void)st;
  if (!group_depth || peer != 0 || !pending_send || t < 0 || t > 8 ||
      pending_bytes != n * type_size[t])
    return INVALID_USAGE;
  memmove(r, pending_send, pending_bytes);
  pending_send = NULL;
  cuarr_stand_in_nccl_calls++;
  return SUCCESS;
}
EXPORT result ncclGroupStart(void) {
  group_depth++;
  return SUCCESS;
}
EXPORT result ncclGroupEnd(void) {
  if (!group_depth)
    return INVALID_USAGE;
  if (--group_depth == 0 && pending_send) {
    pending_send = NULL; /* a send no receive matched: a real NCCL would hang */
    return INVALID_USAGE;
  }
  return SUCCESS;
}
