/*
 * verify.c -- the check a communicator over several processes makes before each collective
 * when asked to (cuarr.distributed.init{verify = true}, torch's TORCH_DISTRIBUTED_DEBUG=DETAIL):
 * every rank's description of the call (which collective, dtype, sizes, op, root) gathered to
 * every rank and compared, so that ranks calling different collectives or passing other dtypes
 * or sizes all fail with an error naming the ranks, instead of NCCL moving the wrong bytes or
 * waiting until the watchdog's timeout.  It costs a small all_gather and a wait per collective,
 * which is why it is asked for rather than always on: one process's own parts are checked
 * against each other anyway.
 */
#include <string.h>

#include "comm.h"

enum { KIND, DTYPE, PART, OUT, OP, ROOT, WORDS };

/* "all_reduce of 12 float32 (sum)" into buf. */
static void describe(const int64_t *w, char *buf, size_t size) {
  const char *kind =
      w[KIND] >= 0 && w[KIND] < CUARR_COMM_KINDS ? cuarr_comm_kind_names[w[KIND]] : "?";
  int n = snprintf(
      buf, size, "%s of %lld %s", kind, (long long)w[PART],
      w[DTYPE] >= 0 && w[DTYPE] < CUARR_NDTYPES ? cuarr_dtype_name((cuarr_dtype)w[DTYPE]) : "?");
  if (n > 0 && (size_t)n < size && w[OUT] >= 0)
    n += snprintf(buf + n, size - (size_t)n, " into %lld", (long long)w[OUT]);
  if (n > 0 && (size_t)n < size && w[OP] >= 0 && w[OP] <= CUARR_COMM_AVG)
    n += snprintf(buf + n, size - (size_t)n, " (%s)", cuarr_comm_op_names[w[OP]]);
  if (n > 0 && (size_t)n < size && w[ROOT] >= 0)
    snprintf(buf + n, size - (size_t)n, " to/from root %lld", (long long)w[ROOT]);
}

/* The gathered table: every rank's words against rank 0's. */
static cuarr_status compare(const cuarr_comm *c, const int64_t *all, const char *fn) {
  for (int r = 1; r < c->world; r++) {
    const int64_t *w = all + (size_t)r * WORDS;
    if (memcmp(w, all, WORDS * sizeof *w) == 0)
      continue;
    char theirs[160], zeros[160];
    describe(w, theirs, sizeof theirs);
    describe(all, zeros, sizeof zeros);
    cuarr_status kind = w[KIND] != all[KIND] || w[OP] != all[OP] || w[ROOT] != all[ROOT]
                            ? CUARR_DISTRIBUTED_ERROR
                        : w[DTYPE] != all[DTYPE] ? CUARR_TYPE_ERROR
                                                 : CUARR_VALUE_ERROR;
    return cuarr_fail(kind,
                      "%s: the ranks disagree (verify): rank %d calls %s, rank 0 %s; every rank "
                      "must make the same call (this is rank %d)",
                      fn, r, theirs, zeros, c->first_rank);
  }
  return CUARR_OK;
}

cuarr_status cuarr_comm_verify(cuarr_comm *c, const cuarr_comm_check *q, cuarr_context *ctx,
                               const char *fn) {
  int64_t mine[WORDS] = {q->kind, q->dtype, q->part, q->out, q->op, q->root};
  int dev = c->devices[0];
  void *stream = ctx->stream ? ctx->stream->handle : NULL;
  int64_t one = WORDS, all_n = (int64_t)c->world * WORDS;
  cuarr_array host_mine = {0}, host_all = {0}, dev_mine = {0}, dev_all = {0};
  cuarr_status s =
      cuarr_array_empty(CUARR_HOST, CUARR_INT64, 1, &one, false, NULL, ctx->reclaim, &host_mine);
  if (s == CUARR_OK)
    s = cuarr_array_empty(CUARR_HOST, CUARR_INT64, 1, &all_n, false, NULL, ctx->reclaim, &host_all);
  if (s == CUARR_OK)
    s = cuarr_array_empty(dev, CUARR_INT64, 1, &one, false, stream, ctx->reclaim, &dev_mine);
  if (s == CUARR_OK)
    s = cuarr_array_empty(dev, CUARR_INT64, 1, &all_n, false, stream, ctx->reclaim, &dev_all);
  if (s == CUARR_OK) {
    memcpy(cuarr_array_data(&host_mine), mine, sizeof mine);
    s = cuarr_copy(ctx, &dev_mine, &host_mine);
  }
  if (s == CUARR_OK)
    s = cuarr_comm_watch_enter(c, fn);
  if (s == CUARR_OK) {
    CUcontext saved = cuarr_comm_save_context();
    ncclResult_t r =
        cuarr_nccl.ncclAllGather(cuarr_array_data(&dev_mine), cuarr_array_data(&dev_all), WORDS,
                                 ncclInt64, c->comms[0], (CUstream)stream);
    cuarr_comm_restore_context(saved);
    s = cuarr_nccl_check(r, "ncclAllGather (verify)");
    cuarr_status w = cuarr_comm_watch_leave(c, s == CUARR_OK, (CUstream)stream, fn);
    if (w != CUARR_OK) /* its message is the latest */
      s = w;
  }
  if (s == CUARR_OK)
    s = cuarr_copy(ctx, &host_all, &dev_all); /* waits */
  if (s == CUARR_OK)
    s = compare(c, cuarr_array_data(&host_all), fn);
  cuarr_array_release(&host_mine);
  cuarr_array_release(&host_all);
  cuarr_array_release(&dev_mine);
  cuarr_array_release(&dev_all);
  return s;
}
