/*
 * collectives.c -- NCCL's collectives over the ranks one process drives (cuarr.h,
 * "collectives"): all_reduce, reduce, broadcast, all_gather, reduce_scatter, all_to_all and
 * paired send/recv, each one ncclGroupStart/End over the ranks.
 *
 * Every part is checked before anything is queued (live, a device array on its rank's device,
 * dtypes and shapes agreeing, the dtype one NCCL can reduce), so a refused call changes
 * nothing.  NCCL moves flat buffers: a part or out that is not C-contiguous goes through a
 * C-contiguous temporary on its rank's stream (copied in before, back after), and so does a
 * part that overlaps its out other than exactly (in place).
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

typedef enum kind { ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL } kind;
const char *const cuarr_comm_kind_names[CUARR_COMM_KINDS] = {
    "all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all"};
const char *const cuarr_comm_op_names[CUARR_COMM_AVG + 1] = {"sum", "prod", "max", "min", "avg"};

static bool is_reduction(kind k) { return k == ALL_REDUCE || k == REDUCE || k == REDUCE_SCATTER; }

/* How NCCL sees a dtype: its type and how many of its elements make one of ours.  Reductions
 * need NCCL's own type (bool reduces as uint8 for max and min only, its `or` and `and`);
 * moves take any dtype, as bytes where NCCL has no type of that width. */
static cuarr_status nccl_type(cuarr_dtype d, bool reduction, cuarr_comm_op op, const char *fn,
                              ncclDataType_t *t, size_t *scale) {
  *scale = 1;
  switch (d) {
  case CUARR_INT8: *t = ncclInt8; return CUARR_OK;
  case CUARR_UINT8: *t = ncclUint8; return CUARR_OK;
  case CUARR_INT32: *t = ncclInt32; return CUARR_OK;
  case CUARR_UINT32: *t = ncclUint32; return CUARR_OK;
  case CUARR_INT64: *t = ncclInt64; return CUARR_OK;
  case CUARR_UINT64: *t = ncclUint64; return CUARR_OK;
  case CUARR_FLOAT16: *t = ncclFloat16; return CUARR_OK;
  case CUARR_FLOAT32: *t = ncclFloat32; return CUARR_OK;
  case CUARR_FLOAT64: *t = ncclFloat64; return CUARR_OK;
  default: break;
  }
  if (!reduction) {
    *t = ncclUint8;
    *scale = cuarr_dtype_size(d);
    return CUARR_OK;
  }
  if (d == CUARR_BOOL && (op == CUARR_COMM_MAX || op == CUARR_COMM_MIN)) {
    *t = ncclUint8;
    return CUARR_OK;
  }
  if (d == CUARR_BOOL)
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "%s: NCCL cannot %s bool arrays (max and min reduce them, as `or` and "
                      "`and`); convert them with astype first",
                      fn, cuarr_comm_op_names[op]);
  return cuarr_fail(CUARR_TYPE_ERROR,
                    "%s: NCCL cannot reduce %s arrays (it has no 16-bit integer type); convert "
                    "them with astype first",
                    fn, cuarr_dtype_name(d));
}

/* a: live, a device array on local rank r's device (messages name the communicator's rank). */
static cuarr_status check_placed(const cuarr_comm *c, const cuarr_array *a, int local,
                                 const char *fn, const char *what) {
  int r = c->first_rank + local;
  if (cuarr_array_check_live(a) != CUARR_OK)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: rank %d's %s has been freed", fn, r, what);
  int dev = cuarr_array_device(a);
  if (dev == CUARR_HOST)
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "%s: rank %d's %s is a host array; NCCL moves device arrays (rank %d's on "
                      "device %d)",
                      fn, r, what, r, c->devices[local]);
  if (dev != c->devices[local])
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: rank %d's %s is on device %d, but rank %d drives device %d", fn, r, what,
                      dev, r, c->devices[local]);
  return CUARR_OK;
}

static cuarr_status check_stream(const cuarr_comm *c, cuarr_stream *const *streams, int local,
                                 const char *fn) {
  int r = c->first_rank + local;
  if (streams && streams[local] && streams[local]->device != c->devices[local])
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: rank %d's stream belongs to device %d, but rank %d drives device %d", fn,
                      r, streams[local]->device, r, c->devices[local]);
  return CUARR_OK;
}

/* Every array of `list` (n, one per rank) agrees with list[0] in dtype and shape. */
static cuarr_status check_agree(const cuarr_array *list, int n, const char *fn, const char *what) {
  for (int r = 1; r < n; r++) {
    if (list[r].dtype != list[0].dtype)
      return cuarr_fail(CUARR_TYPE_ERROR, "%s: rank %d's %s is %s but rank 0's is %s", fn, r, what,
                        cuarr_dtype_name(list[r].dtype), cuarr_dtype_name(list[0].dtype));
    if (!cuarr_array_same_shape(&list[r], &list[0]))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: rank %d's %s has another shape than rank 0's (%d axes, %lld "
                        "elements against %d, %lld)",
                        fn, r, what, list[r].ndim, (long long)cuarr_array_size(&list[r]),
                        list[0].ndim, (long long)cuarr_array_size(&list[0]));
  }
  return CUARR_OK;
}

/* One array as NCCL takes it: the array itself when C-contiguous (and not to be kept apart
 * from another), else a C-contiguous temporary. */
typedef struct flat {
  cuarr_array tmp;
  bool has_tmp;
  void *ptr;
} flat;

static cuarr_status flatten(const cuarr_array *a, bool copy_in, bool force, int device,
                            cuarr_context *ctx, flat *f) {
  if (!force && cuarr_array_is_c_contiguous(a)) {
    f->ptr = cuarr_array_data(a);
    return CUARR_OK;
  }
  void *stream = ctx->stream ? ctx->stream->handle : NULL;
  CUARR_TRY(
      cuarr_array_empty(device, a->dtype, a->ndim, a->shape, false, stream, ctx->reclaim, &f->tmp));
  f->has_tmp = true;
  f->ptr = cuarr_array_data(&f->tmp);
  if (copy_in)
    CUARR_TRY(cuarr_copy(ctx, &f->tmp, a));
  return CUARR_OK;
}

static void flat_release(flat *f) {
  if (f->has_tmp)
    cuarr_array_release(&f->tmp);
  f->has_tmp = false;
}

/* What one rank gives NCCL. */
typedef struct rank_call {
  flat in, out;
  const cuarr_array *copy_back; /* the array the result's temporary goes back to, or NULL */
  const cuarr_array *copy_from; /* that temporary (in's when in place, else out's) */
  CUstream stream;
  cuarr_context ctx;
} rank_call;

typedef struct request {
  kind k;
  cuarr_comm_op op;
  int root;
} request;

/* The sizes each collective's outs must have, from its parts'. */
static cuarr_status check_out_size(const request *q, int n, const cuarr_array *part,
                                   const cuarr_array *out, const char *fn) {
  int64_t ps = cuarr_array_size(part), os = cuarr_array_size(out);
  switch (q->k) {
  case ALL_GATHER:
    if (os != ps * n)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: each out needs %d x %lld = %lld elements (every rank's part), got "
                        "%lld",
                        fn, n, (long long)ps, (long long)(ps * n), (long long)os);
    return CUARR_OK;
  case REDUCE_SCATTER:
    if (os * n != ps)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: each out needs 1/%d of a part's %lld elements, got %lld", fn, n,
                        (long long)ps, (long long)os);
    return CUARR_OK;
  case ALL_TO_ALL:
    if (os != ps)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "%s: each out needs as many elements as a part (%lld), got %lld", fn,
                        (long long)ps, (long long)os);
    return CUARR_OK;
  default:
    if (!cuarr_array_same_shape(part, out))
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: each out needs the parts' shape", fn);
    return CUARR_OK;
  }
}

static cuarr_status check_call(const cuarr_comm *c, const request *q, const cuarr_comm_call *call,
                               const char *fn) {
  int n = c->n, world = c->world;
  if (n == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the communicator has been destroyed", fn);
  if ((q->k == REDUCE || q->k == BROADCAST) && (q->root < 0 || q->root >= world))
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: root %d is not a rank of this communicator (0 to %d)",
                      fn, q->root, world - 1);
  if (is_reduction(q->k) && ((unsigned)q->op > CUARR_COMM_AVG))
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: unknown reduction %d", fn, (int)q->op);
  if (!call->outs && (q->k == ALL_GATHER || q->k == REDUCE_SCATTER || q->k == ALL_TO_ALL))
    return cuarr_fail(CUARR_VALUE_ERROR, "%s needs outs", fn);
  for (int r = 0; r < n; r++) {
    CUARR_TRY(check_placed(c, &call->parts[r], r, fn, "part"));
    if (call->outs)
      CUARR_TRY(check_placed(c, &call->outs[r], r, fn, "out"));
    /* The results land in the outs, or in place in the parts. */
    CUARR_TRY(cuarr_array_check_writeable(call->outs ? &call->outs[r] : &call->parts[r]));
    CUARR_TRY(check_stream(c, call->streams, r, fn));
  }
  CUARR_TRY(check_agree(call->parts, n, fn, "part"));
  if (call->outs) {
    CUARR_TRY(check_agree(call->outs, n, fn, "out"));
    if (call->outs[0].dtype != call->parts[0].dtype)
      return cuarr_fail(
          CUARR_TYPE_ERROR, "%s: the outs are %s but the parts %s (NCCL does not convert)", fn,
          cuarr_dtype_name(call->outs[0].dtype), cuarr_dtype_name(call->parts[0].dtype));
    CUARR_TRY(check_out_size(q, world, &call->parts[0], &call->outs[0], fn));
  }
  if ((q->k == ALL_TO_ALL || q->k == REDUCE_SCATTER) &&
      cuarr_array_size(&call->parts[0]) % world != 0)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "%s: a part's %lld elements do not split into %d equal chunks", fn,
                      (long long)cuarr_array_size(&call->parts[0]), world);
  return CUARR_OK;
}

/* Whether rank r (the communicator's) gets a result, in its out or in place in its part. */
static bool receives(const request *q, int rank) { return q->k != REDUCE || rank == q->root; }

static cuarr_status prepare(const cuarr_comm *c, const request *q, const cuarr_comm_call *call,
                            int r, rank_call *rc) {
  rc->ctx.stream = call->streams ? call->streams[r] : NULL;
  rc->ctx.reclaim = call->reclaim;
  rc->stream = rc->ctx.stream ? (CUstream)rc->ctx.stream->handle : NULL;
  const cuarr_array *part = &call->parts[r];
  int dev = c->devices[r], rank = c->first_rank + r;
  if (!call->outs) { /* in place; a broadcast overwrites the other ranks' parts unread */
    bool read = q->k != BROADCAST || rank == q->root;
    CUARR_TRY(flatten(part, read, false, dev, &rc->ctx, &rc->in));
    rc->out.ptr = rc->in.ptr;
    bool changed = receives(q, rank) && !(q->k == BROADCAST && rank == q->root);
    if (rc->in.has_tmp && changed) {
      rc->copy_back = part;
      rc->copy_from = &rc->in.tmp;
    }
    return CUARR_OK;
  }
  const cuarr_array *out = &call->outs[r];
  bool same = cuarr_array_data(part) == cuarr_array_data(out) &&
              cuarr_array_is_c_contiguous(part) && cuarr_array_is_c_contiguous(out) &&
              (q->k == ALL_REDUCE || q->k == REDUCE || q->k == BROADCAST);
  bool apart = !same && cuarr_array_may_overlap(part, out);
  CUARR_TRY(flatten(part, true, apart, dev, &rc->ctx, &rc->in));
  if (!receives(q, rank)) {
    rc->out.ptr = rc->in.ptr; /* not written: NCCL's reduce uses recvbuff at the root only */
    return CUARR_OK;
  }
  CUARR_TRY(flatten(out, false, false, dev, &rc->ctx, &rc->out));
  if (rc->out.has_tmp) {
    rc->copy_back = out;
    rc->copy_from = &rc->out.tmp;
  }
  return CUARR_OK;
}

static cuarr_status group_end(ncclResult_t first, const char *first_what) {
  ncclResult_t e = cuarr_nccl.ncclGroupEnd();
  if (first != ncclSuccess)
    return cuarr_nccl_check(first, first_what);
  return cuarr_nccl_check(e, "ncclGroupEnd");
}

static cuarr_status launch(const cuarr_comm *c, const request *q, rank_call *rcs, ncclDataType_t t,
                           size_t count, size_t elem_bytes, ncclRedOp_t op) {
  int n = c->n, world = c->world;
  CUARR_TRY(cuarr_nccl_check(cuarr_nccl.ncclGroupStart(), "ncclGroupStart"));
  ncclResult_t first = ncclSuccess;
  const char *what = "";
  for (int r = 0; r < n && first == ncclSuccess; r++) {
    rank_call *rc = &rcs[r];
    ncclComm_t comm = c->comms[r];
    switch (q->k) {
    case ALL_REDUCE:
      first = cuarr_nccl.ncclAllReduce(rc->in.ptr, rc->out.ptr, count, t, op, comm, rc->stream);
      what = "ncclAllReduce";
      break;
    case REDUCE:
      first =
          cuarr_nccl.ncclReduce(rc->in.ptr, rc->out.ptr, count, t, op, q->root, comm, rc->stream);
      what = "ncclReduce";
      break;
    case BROADCAST:
      first =
          cuarr_nccl.ncclBroadcast(rc->in.ptr, rc->out.ptr, count, t, q->root, comm, rc->stream);
      what = "ncclBroadcast";
      break;
    case ALL_GATHER:
      first = cuarr_nccl.ncclAllGather(rc->in.ptr, rc->out.ptr, count, t, comm, rc->stream);
      what = "ncclAllGather";
      break;
    case REDUCE_SCATTER:
      first = cuarr_nccl.ncclReduceScatter(rc->in.ptr, rc->out.ptr, count / (size_t)world, t, op,
                                           comm, rc->stream);
      what = "ncclReduceScatter";
      break;
    case ALL_TO_ALL: {
      /* Chunk p of rank r's part goes to chunk r of rank p's out. */
      size_t chunk = count / (size_t)world, chunk_bytes = chunk * elem_bytes;
      for (int p = 0; p < world && first == ncclSuccess; p++) {
        first = cuarr_nccl.ncclSend((char *)rc->in.ptr + (size_t)p * chunk_bytes, chunk, t, p, comm,
                                    rc->stream);
        what = "ncclSend";
        if (first == ncclSuccess) {
          first = cuarr_nccl.ncclRecv((char *)rc->out.ptr + (size_t)p * chunk_bytes, chunk, t, p,
                                      comm, rc->stream);
          what = "ncclRecv";
        }
      }
      break;
    }
    }
  }
  return group_end(first, what);
}

static cuarr_status run(cuarr_comm *c, const request *q, const cuarr_comm_call *call) {
  const char *fn = cuarr_comm_kind_names[q->k];
  if (!c)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: no communicator", fn);
  CUARR_TRY(check_call(c, q, call, fn));
  CUARR_TRY(cuarr_comm_watch_failed(c, fn));
  ncclDataType_t t = ncclUint8;
  size_t scale;
  CUARR_TRY(nccl_type(call->parts[0].dtype, is_reduction(q->k), q->op, fn, &t, &scale));
  int64_t size = cuarr_array_size(&call->parts[0]);
  if (c->verify) { /* before the empty case returns: every rank must take part */
    CUARR_TRY(cuarr_comm_ready());
    cuarr_comm_check v = {q->k,
                          call->parts[0].dtype,
                          size,
                          call->outs ? cuarr_array_size(&call->outs[0]) : -1,
                          is_reduction(q->k) ? (int64_t)q->op : -1,
                          q->k == REDUCE || q->k == BROADCAST ? q->root : -1};
    cuarr_context ctx = {call->streams ? call->streams[0] : NULL, call->reclaim};
    CUARR_TRY(cuarr_comm_verify(c, &v, &ctx, fn));
  }
  if (size == 0 || (call->outs && cuarr_array_size(&call->outs[0]) == 0))
    return CUARR_OK;
  CUARR_TRY(cuarr_comm_ready());
  int n = c->n;
  rank_call *rcs = calloc((size_t)n, sizeof *rcs);
  if (!rcs)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "%s: no host memory", fn);
  cuarr_status s = CUARR_OK;
  for (int r = 0; r < n && s == CUARR_OK; r++)
    s = prepare(c, q, call, r, &rcs[r]);
  if (s == CUARR_OK) {
    size_t elem_bytes = cuarr_dtype_size(call->parts[0].dtype) / scale;
    static const ncclRedOp_t ops[] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
    s = cuarr_comm_watch_enter(c, fn);
    if (s == CUARR_OK) {
      CUcontext saved = cuarr_comm_save_context();
      s = launch(c, q, rcs, t, (size_t)size * scale, elem_bytes, ops[q->op]);
      cuarr_comm_restore_context(saved);
      cuarr_status w = cuarr_comm_watch_leave(c, s == CUARR_OK, rcs[0].stream, fn);
      if (w != CUARR_OK) /* its message is the latest */
        s = w;
    }
  }
  for (int r = 0; r < n && s == CUARR_OK; r++)
    if (rcs[r].copy_back)
      s = cuarr_copy(&rcs[r].ctx, rcs[r].copy_back, rcs[r].copy_from);
  for (int r = 0; r < n; r++) {
    flat_release(&rcs[r].in);
    flat_release(&rcs[r].out);
  }
  free(rcs);
  return s;
}

cuarr_status cuarr_comm_all_reduce(cuarr_comm *c, const cuarr_comm_call *call, cuarr_comm_op op) {
  request q = {ALL_REDUCE, op, 0};
  return run(c, &q, call);
}

cuarr_status cuarr_comm_reduce(cuarr_comm *c, const cuarr_comm_call *call, cuarr_comm_op op,
                               int root) {
  request q = {REDUCE, op, root};
  return run(c, &q, call);
}

cuarr_status cuarr_comm_broadcast(cuarr_comm *c, const cuarr_comm_call *call, int root) {
  request q = {BROADCAST, CUARR_COMM_SUM, root};
  return run(c, &q, call);
}

cuarr_status cuarr_comm_all_gather(cuarr_comm *c, const cuarr_comm_call *call) {
  request q = {ALL_GATHER, CUARR_COMM_SUM, 0};
  return run(c, &q, call);
}

cuarr_status cuarr_comm_reduce_scatter(cuarr_comm *c, const cuarr_comm_call *call,
                                       cuarr_comm_op op) {
  request q = {REDUCE_SCATTER, op, 0};
  return run(c, &q, call);
}

cuarr_status cuarr_comm_all_to_all(cuarr_comm *c, const cuarr_comm_call *call) {
  request q = {ALL_TO_ALL, CUARR_COMM_SUM, 0};
  return run(c, &q, call);
}

bool cuarr_comm_op_from_name(const char *name, cuarr_comm_op *out) {
  for (int i = 0; i <= CUARR_COMM_AVG; i++)
    if (!strcmp(name, cuarr_comm_op_names[i])) {
      *out = (cuarr_comm_op)i;
      return true;
    }
  return false;
}
