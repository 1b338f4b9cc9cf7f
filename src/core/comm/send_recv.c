/*
 * send_recv.c -- point-to-point copies between the ranks one process drives: every pair a
 * ncclSend on the source's rank and a ncclRecv on the destination's, all in one group (a send
 * alone would wait for a receive that one thread can never post after it).
 */
#include <stdlib.h>

#include "comm.h"

static const char *const fn = "send_recv";

/* The rank driving the device array a (live), or a ValueError naming the devices. */
static cuarr_status rank_of(const cuarr_comm *c, const cuarr_array *a, int pair, const char *what,
                            int *rank) {
  if (cuarr_array_check_live(a) != CUARR_OK)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: pair %d's %s has been freed", fn, pair, what);
  int dev = cuarr_array_device(a);
  if (dev == CUARR_HOST)
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "%s: pair %d's %s is a host array; NCCL moves device arrays", fn, pair, what);
  for (int r = 0; r < c->n; r++)
    if (c->devices[r] == dev) {
      *rank = r;
      return CUARR_OK;
    }
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "%s: pair %d's %s is on device %d, which is none of the communicator's", fn,
                    pair, what, dev);
}

typedef struct pair_call {
  int from, to;
  cuarr_array src_tmp, dst_tmp;
  bool has_src_tmp, has_dst_tmp;
  const void *src;
  void *dst;
} pair_call;

static cuarr_status check_pairs(const cuarr_comm *c, int n, const cuarr_array *src,
                                const cuarr_array *dst, cuarr_stream *const *streams,
                                pair_call *pc) {
  for (int r = 0; r < c->n; r++)
    if (streams && streams[r] && streams[r]->device != c->devices[r])
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: rank %d's stream belongs to device %d, but rank %d drives device %d",
                        fn, r, streams[r]->device, r, c->devices[r]);
  for (int i = 0; i < n; i++) {
    CUARR_TRY(rank_of(c, &src[i], i + 1, "source", &pc[i].from));
    CUARR_TRY(rank_of(c, &dst[i], i + 1, "destination", &pc[i].to));
    if (pc[i].from == pc[i].to)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: pair %d's arrays are both on device %d; send_recv moves data between "
                        "devices (copy within one)",
                        fn, i + 1, c->devices[pc[i].from]);
    if (src[i].dtype != dst[i].dtype)
      return cuarr_fail(CUARR_TYPE_ERROR,
                        "%s: pair %d's destination is %s but its source %s (NCCL does not "
                        "convert)",
                        fn, i + 1, cuarr_dtype_name(dst[i].dtype), cuarr_dtype_name(src[i].dtype));
    if (!cuarr_array_same_shape(&src[i], &dst[i]))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: pair %d's destination has another shape than its source", fn, i + 1);
  }
  return CUARR_OK;
}

static cuarr_status post(const cuarr_comm *c, int n, const cuarr_array *src, pair_call *pc,
                         CUstream *stream) {
  CUARR_TRY(cuarr_nccl_check(cuarr_nccl.ncclGroupStart(), "ncclGroupStart"));
  ncclResult_t first = ncclSuccess;
  const char *what = "";
  for (int i = 0; i < n && first == ncclSuccess; i++) {
    size_t count = (size_t)cuarr_array_size(&src[i]) * cuarr_dtype_size(src[i].dtype);
    if (count == 0)
      continue;
    /* As bytes: a move needs no element type, and every dtype has one this way. */
    first = cuarr_nccl.ncclSend(pc[i].src, count, ncclUint8, pc[i].to, c->comms[pc[i].from],
                                stream[pc[i].from]);
    what = "ncclSend";
    if (first == ncclSuccess) {
      first = cuarr_nccl.ncclRecv(pc[i].dst, count, ncclUint8, pc[i].from, c->comms[pc[i].to],
                                  stream[pc[i].to]);
      what = "ncclRecv";
    }
  }
  ncclResult_t e = cuarr_nccl.ncclGroupEnd();
  if (first != ncclSuccess)
    return cuarr_nccl_check(first, what);
  return cuarr_nccl_check(e, "ncclGroupEnd");
}

cuarr_status cuarr_comm_send_recv(cuarr_comm *c, int n, const cuarr_array *src,
                                  const cuarr_array *dst, cuarr_stream *const *streams,
                                  cuarr_reclaim reclaim) {
  if (!c || c->n == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the communicator has been destroyed", fn);
  if (n < 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: %d pairs", fn, n);
  if (n == 0)
    return CUARR_OK;
  for (int i = 0; dst && i < n; i++)
    CUARR_TRY(cuarr_array_check_writeable(&dst[i]));
  pair_call *pc = calloc((size_t)n, sizeof *pc);
  if (!pc)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no host memory", fn);
  cuarr_status s = check_pairs(c, n, src, dst, streams, pc);
  bool any = false;
  for (int i = 0; i < n; i++)
    any = any || cuarr_array_size(&src[i]) > 0;
  if (s == CUARR_OK && any)
    s = cuarr_comm_ready();
  if (s != CUARR_OK || !any) {
    free(pc);
    return s;
  }
  CUstream stream[CUARR_MAX_DEVICES];
  cuarr_context ctx[CUARR_MAX_DEVICES];
  for (int r = 0; r < c->n; r++) {
    ctx[r].stream = streams ? streams[r] : NULL;
    ctx[r].reclaim = reclaim;
    stream[r] = ctx[r].stream ? (CUstream)ctx[r].stream->handle : NULL;
  }
  /* Non-contiguous arrays through C-contiguous temporaries on their rank's stream. */
  for (int i = 0; i < n && s == CUARR_OK; i++) {
    pair_call *p = &pc[i];
    p->src = cuarr_array_data(&src[i]);
    p->dst = cuarr_array_data(&dst[i]);
    if (!cuarr_array_is_c_contiguous(&src[i])) {
      s = cuarr_array_empty(c->devices[p->from], src[i].dtype, src[i].ndim, src[i].shape, false,
                            stream[p->from], reclaim, &p->src_tmp);
      p->has_src_tmp = s == CUARR_OK;
      if (s == CUARR_OK)
        s = cuarr_copy(&ctx[p->from], &p->src_tmp, &src[i]);
      p->src = cuarr_array_data(&p->src_tmp);
    }
    if (s == CUARR_OK && !cuarr_array_is_c_contiguous(&dst[i])) {
      s = cuarr_array_empty(c->devices[p->to], dst[i].dtype, dst[i].ndim, dst[i].shape, false,
                            stream[p->to], reclaim, &p->dst_tmp);
      p->has_dst_tmp = s == CUARR_OK;
      p->dst = cuarr_array_data(&p->dst_tmp);
    }
  }
  if (s == CUARR_OK) {
    CUcontext saved = cuarr_comm_save_context();
    s = post(c, n, src, pc, stream);
    cuarr_comm_restore_context(saved);
  }
  for (int i = 0; i < n && s == CUARR_OK; i++)
    if (pc[i].has_dst_tmp)
      s = cuarr_copy(&ctx[pc[i].to], &dst[i], &pc[i].dst_tmp);
  for (int i = 0; i < n; i++) {
    if (pc[i].has_src_tmp)
      cuarr_array_release(&pc[i].src_tmp);
    if (pc[i].has_dst_tmp)
      cuarr_array_release(&pc[i].dst_tmp);
  }
  free(pc);
  return s;
}

/* One rank of a communicator over several processes: a alone to or from peer. */
static cuarr_status one_way(cuarr_comm *c, const cuarr_array *a, int peer, cuarr_stream *stream,
                            cuarr_reclaim reclaim, bool sending) {
  const char *what = sending ? "send" : "recv";
  if (!c || c->n == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the communicator has been destroyed", what);
  if (c->n != 1)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: a communicator of one process over several devices moves data with "
                      "send_recv, which posts each send with its receive",
                      what);
  int me = c->first_rank, dev = c->devices[0];
  if (peer < 0 || peer >= c->world || peer == me)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: peer %d is not another rank (0 to %d, this is %d)",
                      what, peer, c->world - 1, me);
  if (cuarr_array_check_live(a) != CUARR_OK)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the array has been freed", what);
  if (!sending)
    CUARR_TRY(cuarr_array_check_writeable(a));
  if (cuarr_array_device(a) != dev)
    return cuarr_fail(cuarr_array_device(a) == CUARR_HOST ? CUARR_TYPE_ERROR : CUARR_VALUE_ERROR,
                      "%s: the array must be a device array on this rank's device %d", what, dev);
  if (stream && stream->device != dev)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the stream belongs to device %d, this rank's is %d",
                      what, stream->device, dev);
  CUARR_TRY(cuarr_comm_watch_failed(c, what));
  size_t bytes = (size_t)cuarr_array_size(a) * cuarr_dtype_size(a->dtype);
  if (bytes == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_comm_ready());
  cuarr_context ctx = {stream, reclaim};
  CUstream h = stream ? (CUstream)stream->handle : NULL;
  /* A view NCCL cannot take goes through a C-contiguous temporary. */
  cuarr_array tmp;
  bool has_tmp = !cuarr_array_is_c_contiguous(a);
  void *ptr = cuarr_array_data(a);
  if (has_tmp) {
    CUARR_TRY(cuarr_array_empty(dev, a->dtype, a->ndim, a->shape, false, h, reclaim, &tmp));
    ptr = cuarr_array_data(&tmp);
  }
  cuarr_status s = has_tmp && sending ? cuarr_copy(&ctx, &tmp, a) : CUARR_OK;
  if (s == CUARR_OK)
    s = cuarr_comm_watch_enter(c, what);
  if (s == CUARR_OK) {
    CUcontext saved = cuarr_comm_save_context();
    ncclResult_t r = sending ? cuarr_nccl.ncclSend(ptr, bytes, ncclUint8, peer, c->comms[0], h)
                             : cuarr_nccl.ncclRecv(ptr, bytes, ncclUint8, peer, c->comms[0], h);
    cuarr_comm_restore_context(saved);
    s = cuarr_nccl_check(r, sending ? "ncclSend" : "ncclRecv");
    cuarr_status w = cuarr_comm_watch_leave(c, s == CUARR_OK, h, what);
    if (w != CUARR_OK) /* its message is the latest */
      s = w;
  }
  if (s == CUARR_OK && has_tmp && !sending)
    s = cuarr_copy(&ctx, a, &tmp);
  if (has_tmp)
    cuarr_array_release(&tmp);
  return s;
}

cuarr_status cuarr_comm_send(cuarr_comm *c, const cuarr_array *a, int peer, cuarr_stream *stream,
                             cuarr_reclaim reclaim) {
  return one_way(c, a, peer, stream, reclaim, true);
}

cuarr_status cuarr_comm_recv(cuarr_comm *c, const cuarr_array *a, int peer, cuarr_stream *stream,
                             cuarr_reclaim reclaim) {
  return one_way(c, a, peer, stream, reclaim, false);
}
