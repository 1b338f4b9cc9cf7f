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
 *
 * A communicator of several processes (ncclCommInitRank with nranks > 1) is a directory named
 * after the unique id, in which each rank leaves a file holding its pid: init waits until every
 * rank's file is there (so ranks handed different ids never meet, as with the real NCCL), and
 * ncclCommGetAsyncError reports ncclRemoteError once a peer's file is there but its process is
 * gone (it died without destroying its communicator).  Such a communicator moves no data between
 * the processes: its collectives count and copy as with one rank, for specs of everything around
 * them (the rendezvous, the launcher, the watchdog).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int result;
typedef struct comm {
  int device;
  int rank, nranks; /* nranks > 1: one rank of several processes, in dir */
  char dir[256];
} * comm_t;
typedef struct {
  char internal[128];
} unique_id;

enum { SUCCESS = 0, SYSTEM_ERROR = 2, INVALID_ARGUMENT = 4, INVALID_USAGE = 5, REMOTE_ERROR = 6 };
/* ncclDataType_t's sizes: int8 uint8 int32 uint32 int64 uint64 float16 float32 float64 */
static const size_t type_size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8};

EXPORT const int cuarr_stand_in_nccl = 1;
EXPORT int cuarr_stand_in_nccl_calls; /* collectives and sends run, for the tests */

static int group_depth;
static const void *pending_send;
static size_t pending_bytes;

static result move(void *dst, const void *src, size_t count, int type, comm_t c) {
  if (type < 0 || type > 8)
    return INVALID_ARGUMENT;
  if (!group_depth && c->nranks < 2) /* in one process, cuarr groups every collective */
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
  FILE *f = fopen("/dev/urandom", "rb");
  if (!f || fread(id->internal, 1, 16, f) != 16) {
    if (f)
      fclose(f);
    return SYSTEM_ERROR;
  }
  fclose(f);
  return SUCCESS;
}
EXPORT result ncclCommInitAll(comm_t *comms, int n, const int *devices) {
  if (n != 1)
    return INVALID_ARGUMENT; /* the stand-in driver has one device */
  comms[0] = calloc(1, sizeof **comms);
  if (!comms[0])
    return 2;
  comms[0]->device = devices[0];
  comms[0]->nranks = 1;
  return SUCCESS;
}
static void rank_file(const struct comm *c, int rank, char *path, size_t size) {
  snprintf(path, size, "%s/rank%d", c->dir, rank);
}

/* The pid in rank's file: 0 when there is no file yet, -1 once the rank has left (destroyed or
 * aborted its communicator). */
static long rank_pid(const struct comm *c, int rank) {
  char path[300];
  rank_file(c, rank, path, sizeof path);
  FILE *f = fopen(path, "r");
  long pid = 0;
  if (f) {
    if (fscanf(f, "%ld", &pid) != 1)
      pid = 0;
    fclose(f);
  }
  return pid;
}

EXPORT result ncclCommInitRank(comm_t *out, int n, unique_id id, int rank) {
  if (n < 1 || rank < 0 || rank >= n)
    return INVALID_ARGUMENT;
  comm_t c = calloc(1, sizeof *c);
  if (!c)
    return SYSTEM_ERROR;
  c->rank = rank;
  c->nranks = n;
  if (n == 1) {
    *out = c;
    return SUCCESS;
  }
  const char *tmp = getenv("TMPDIR");
  int len = snprintf(c->dir, sizeof c->dir, "%s/cuarr_fake_nccl_", tmp && *tmp ? tmp : "/tmp");
  for (int i = 0; i < 16; i++)
    len +=
        snprintf(c->dir + len, sizeof c->dir - (size_t)len, "%02x", (unsigned char)id.internal[i]);
  char path[300], part[320];
  rank_file(c, rank, path, sizeof path);
  snprintf(part, sizeof part, "%s.%ld", path, (long)getpid());
  FILE *f = NULL;
  if ((mkdir(c->dir, 0700) != 0 && errno != EEXIST) || !(f = fopen(part, "w"))) {
    free(c);
    return SYSTEM_ERROR;
  }
  fprintf(f, "%ld\n", (long)getpid());
  fclose(f);
  rename(part, path); /* whole or absent, to the peers */
  for (int waited_ms = 0;; waited_ms += 10) {
    int present = 0;
    for (int r = 0; r < n; r++)
      present += rank_pid(c, r) != 0;
    if (present == n)
      break;
    if (waited_ms > 20000) { /* the ranks were handed different ids, or one never came */
      unlink(path);
      rmdir(c->dir);
      free(c);
      return SYSTEM_ERROR;
    }
    nanosleep(&(struct timespec){0, 10000000L}, NULL);
  }
  *out = c;
  return SUCCESS;
}
/* The rank's file stays (a rank still in init must find it), saying the rank has left. */
static void leave(comm_t c) {
  if (c && c->nranks > 1) {
    char path[300];
    rank_file(c, c->rank, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) {
      fputs("-1\n", f);
      fclose(f);
    }
  }
  free(c);
}
EXPORT result ncclCommDestroy(comm_t c) {
  leave(c);
  return SUCCESS;
}
EXPORT result ncclCommAbort(comm_t c) {
  leave(c);
  return SUCCESS;
}
EXPORT result ncclCommGetAsyncError(comm_t c, result *e) {
  *e = SUCCESS;
  for (int r = 0; r < c->nranks && c->nranks > 1; r++) {
    long pid = r == c->rank ? 0 : rank_pid(c, r);
    if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      *e = REMOTE_ERROR; /* its file is there, its process is not: it died */
  }
  return SUCCESS;
}
EXPORT result ncclAllReduce(const void *s, void *r, size_t n, int t, int op, comm_t c, void *st) {
  (void)op, (void)st;
  return move(r, s, n, t, c);
}
EXPORT result ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, comm_t c,
                         void *st) {
  (void)op, (void)st;
  return root < 0 || root >= c->nranks ? INVALID_ARGUMENT : move(r, s, n, t, c);
}
EXPORT result ncclBroadcast(const void *s, void *r, size_t n, int t, int root, comm_t c, void *st) {
  (void)st;
  return root < 0 || root >= c->nranks ? INVALID_ARGUMENT : move(r, s, n, t, c);
}
EXPORT result ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, comm_t c,
                                void *st) {
  (void)op, (void)st;
  return move(r, s, n, t, c);
}
EXPORT result ncclAllGather(const void *s, void *r, size_t n, int t, comm_t c, void *st) {
  (void)st;
  /* several processes: every rank's slot gets this rank's part, as if all had passed the same */
  for (int k = 1; k < c->nranks && t >= 0 && t <= 8; k++)
    memmove((char *)r + (size_t)k * n * type_size[t], s, n * type_size[t]);
  return move(r, s, n, t, c);
}
EXPORT result ncclSend(const void *s, size_t n, int t, int peer, comm_t c, void *st) {
  (void)st;
  if (c->nranks > 1) { /* to another process: counted, not moved */
    if (peer < 0 || peer >= c->nranks || t < 0 || t > 8)
      return INVALID_ARGUMENT;
    cuarr_stand_in_nccl_calls++;
    return SUCCESS;
  }
  if (!group_depth || peer != 0 || pending_send || t < 0 || t > 8)
    return INVALID_USAGE;
  pending_send = s;
  pending_bytes = n * type_size[t];
  return SUCCESS;
}
EXPORT result ncclRecv(void *r, size_t n, int t, int peer, comm_t c, void *st) {
  (void)st;
  if (c->nranks > 1) {
    if (peer < 0 || peer >= c->nranks || t < 0 || t > 8)
      return INVALID_ARGUMENT;
    memset(r, 0, n * type_size[t]);
    cuarr_stand_in_nccl_calls++;
    return SUCCESS;
  }
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
