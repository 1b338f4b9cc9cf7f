/*
 * copy/ -- copies and fills of every placement: host loops, device kernels, transfers between host
 *   and device, reading results back.
 *
 * copy.c -- cuarr_copy, cuarr_fill and cuarr_fill_linear: one entry point for every placement.
 *
 * Host-to-host copies are C loops; copies within one device are kernels; anything that crosses
 * between host and device (or between devices) moves bytes in one contiguous block, with the
 * conversions (dtype, broadcasting, strides) done by a loop or kernel on whichever side has a
 * temporary in the right layout.  A block is any dense layout (C, F, or another order of the
 * axes): an F-order array crosses as its bytes, into an F-order array or a landing buffer laid
 * out as it is.
 */
#include <string.h>

#include "transfer.h"

/* dst can take src's bytes as they are: same dtype and shape, both dense in the same order. */
static bool bytes_match(const cuarr_array *dst, const cuarr_array *src) {
  if (dst->dtype != src->dtype || !cuarr_array_same_shape(dst, src) || !cuarr_array_is_dense(dst) ||
      !cuarr_array_is_dense(src))
    return false;
  if (cuarr_array_size(dst) == 0)
    return true;
  for (int i = 0; i < dst->ndim; i++)
    if (dst->shape[i] > 1 && dst->strides[i] != src->strides[i])
      return false;
  return true;
}

/* A new array on dev that takes the dense array like's bytes as they are (its layout). */
static cuarr_status new_landing(const cuarr_context *ctx, int dev, CUstream stream,
                                const cuarr_array *like, cuarr_array *out) {
  CUARR_TRY(cuarr_array_empty(dev, like->dtype, like->ndim, like->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), out));
  cuarr_strides_keep(like, cuarr_dtype_size(like->dtype), out->strides);
  return CUARR_OK;
}

static size_t nbytes_of(const cuarr_array *a) {
  return (size_t)cuarr_array_size(a) * cuarr_dtype_size(a->dtype);
}

/* A dense copy of a (C-contiguous) on its own side (host or device), or a itself if it is dense
 * already.  *made tells whether the caller must release it. */
static cuarr_status contiguous(const cuarr_context *ctx, CUstream stream, const cuarr_array *a,
                               cuarr_array *out, bool *made) {
  *made = false;
  if (cuarr_array_is_dense(a)) {
    *out = *a;
    return CUARR_OK;
  }
  int dev = cuarr_array_device(a);
  CUARR_TRY(cuarr_array_empty(dev, a->dtype, a->ndim, a->shape, false, stream,
                              cuarr_ctx_reclaim(ctx), out));
  cuarr_context local = {ctx ? ctx->stream : NULL, cuarr_ctx_reclaim(ctx)};
  cuarr_status s = dev == CUARR_HOST ? cuarr_host_copy(out, a) : cuarr_device_copy(&local, out, a);
  if (s != CUARR_OK) {
    cuarr_array_release(out);
    return s;
  }
  *made = true;
  return CUARR_OK;
}

static cuarr_status host_to_device(cuarr_context *ctx, const cuarr_array *dst,
                                   const cuarr_array *src) {
  int dev = cuarr_array_device(dst);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, dev, &stream));
  cuarr_defer_poll();
  cuarr_array hsrc, landing;
  bool hsrc_made, landing_made = false;
  CUARR_TRY(contiguous(ctx, stream, src, &hsrc, &hsrc_made));
  cuarr_status s = CUARR_OK;
  if (bytes_match(dst, &hsrc)) {
    landing = *dst;
  } else { /* land src's bytes on the device, then convert with a kernel */
    s = new_landing(ctx, dev, stream, &hsrc, &landing);
    landing_made = s == CUARR_OK;
  }
  /* src and dst were checked before the allocations above (internal.h: operands after an
   * allocation). */
  if (s == CUARR_OK)
    s = cuarr_both_still_live(src, dst);
  bool pinned = hsrc.buf->pinned;
  if (s == CUARR_OK)
    s = cuarr_upload(dev, stream, cuarr_array_data(&landing), cuarr_array_data(&hsrc),
                     nbytes_of(&hsrc), pinned);
  /* An asynchronous read of a pinned host array: keep its memory until the DMA is done. */
  if (s == CUARR_OK && pinned)
    s = cuarr_defer_release(hsrc.buf, stream);
  if (s == CUARR_OK && landing_made) {
    cuarr_context local = {ctx ? ctx->stream : NULL, cuarr_ctx_reclaim(ctx)};
    s = cuarr_device_copy(&local, dst, &landing);
  }
  if (landing_made)
    cuarr_array_release(&landing); /* stream-ordered: safe after queueing */
  if (hsrc_made)
    cuarr_array_release(&hsrc);
  return s;
}

static cuarr_status device_to_host(cuarr_context *ctx, const cuarr_array *dst,
                                   const cuarr_array *src) {
  int dev = cuarr_array_device(src);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, dev, &stream));
  cuarr_defer_poll();
  cuarr_array dsrc, landing;
  bool dsrc_made, landing_made = false;
  CUARR_TRY(contiguous(ctx, stream, src, &dsrc, &dsrc_made));
  cuarr_status s = CUARR_OK;
  if (bytes_match(dst, &dsrc)) {
    landing = *dst;
  } else {
    s = new_landing(ctx, CUARR_HOST, NULL, &dsrc, &landing);
    landing_made = s == CUARR_OK;
  }
  /* src and dst were checked before the allocations above (internal.h: operands after an
   * allocation). */
  if (s == CUARR_OK)
    s = cuarr_both_still_live(src, dst);
  /* Asynchronous only into a pinned array the caller gave; a landing buffer must be complete
   * before the host loop reads it. */
  bool pinned = s == CUARR_OK && !landing_made && landing.buf->pinned;
  if (s == CUARR_OK)
    s = cuarr_download(dev, stream, cuarr_array_data(&landing), cuarr_array_data(&dsrc),
                       nbytes_of(&dsrc), pinned);
  if (s == CUARR_OK && pinned)
    s = cuarr_defer_release(landing.buf, stream);
  if (s == CUARR_OK && landing_made)
    s = cuarr_host_copy(dst, &landing);
  if (landing_made)
    cuarr_array_release(&landing);
  if (dsrc_made)
    cuarr_array_release(&dsrc);
  return s;
}

/* Between two devices: wait for src's device (its work may still be writing src), then either
 * one launch on dst's device reading src where it is (peer access on, a strided or converting
 * copy), or make src contiguous on its device and copy the bytes peer to peer, converting on
 * dst's device if needed; and wait for the copy (src may be freed, and its memory reused on its
 * own device, as soon as this returns).  The bytes go on src's device, once dst's stream has
 * drained (dst may be memory that stream freed and the pool handed out again): its copy engines
 * then push them over the link, which writes faster than dst's engines pull them. */
static cuarr_status device_to_device(cuarr_context *ctx, const cuarr_array *dst,
                                     const cuarr_array *src) {
  CUARR_REFUSE_IN_CAPTURE("a copy between devices");
  int ddev = cuarr_array_device(dst), sdev = cuarr_array_device(src);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, ddev, &stream));
  if (!bytes_match(dst, src) && cuarr_array_size(dst) > 0 && cuarr_peer_enable(ddev, sdev)) {
    cuarr_status s = cuarr_device_synchronize(sdev);
    if (s == CUARR_OK)
      s = cuarr_device_copy_from_peer(ctx, dst, src);
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuStreamSynchronize(stream), "peer copy");
    return s;
  }
  cuarr_context src_ctx = {NULL, cuarr_ctx_reclaim(ctx)};
  cuarr_array csrc, landing;
  bool csrc_made, landing_made = false;
  CUARR_TRY(contiguous(&src_ctx, NULL, src, &csrc, &csrc_made));
  cuarr_status s = CUARR_OK;
  s = cuarr_device_synchronize(sdev);
  CUcontext dctx = NULL, sctx = NULL;
  if (s == CUARR_OK)
    s = cuarr_device_context(ddev, &dctx);
  if (s == CUARR_OK)
    s = cuarr_device_context(sdev, &sctx);
  if (s == CUARR_OK && bytes_match(dst, &csrc)) {
    landing = *dst;
  } else if (s == CUARR_OK) {
    s = new_landing(ctx, ddev, stream, &csrc, &landing);
    landing_made = s == CUARR_OK;
  }
  /* src and dst were checked before the allocations above (internal.h: operands after an
   * allocation). */
  if (s == CUARR_OK)
    s = cuarr_both_still_live(src, dst);
  if (s == CUARR_OK && nbytes_of(&csrc) > 0) {
    /* Peer access both ways, once per pair: the copy engines then move the bytes directly. */
    cuarr_peer_enable(ddev, sdev);
    cuarr_peer_enable(sdev, ddev);
  }
  if (s == CUARR_OK && nbytes_of(&csrc) > 0) {
    s = cuarr_device_activate(ddev);
    CUresult idle = s == CUARR_OK ? cuarr_cu.cuStreamQuery(stream) : CUDA_SUCCESS;
    if (idle == CUDA_ERROR_NOT_READY)
      idle = cuarr_cu.cuStreamSynchronize(stream);
    if (s == CUARR_OK)
      s = cuarr_cu_check(idle, "peer copy");
    if (s == CUARR_OK)
      s = cuarr_device_activate(sdev);
    /* src's device has drained: its null stream waits for nothing */
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuMemcpyPeerAsync((CUdeviceptr)cuarr_array_data(&landing), dctx,
                                                    (CUdeviceptr)cuarr_array_data(&csrc), sctx,
                                                    nbytes_of(&csrc), NULL),
                         "cuMemcpyPeerAsync");
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuStreamSynchronize(NULL), "peer copy");
  }
  if (s == CUARR_OK && landing_made) {
    cuarr_context local = {ctx ? ctx->stream : NULL, cuarr_ctx_reclaim(ctx)};
    s = cuarr_device_copy(&local, dst, &landing);
    if (s == CUARR_OK)
      s = cuarr_device_activate(ddev);
    if (s == CUARR_OK)
      s = cuarr_cu_check(cuarr_cu.cuStreamSynchronize(stream), "peer copy");
  }
  if (csrc_made)
    cuarr_array_release(&csrc);
  if (landing_made)
    cuarr_array_release(&landing);
  return s;
}

/* src without the leading extent-1 axes it has beyond dst's (NumPy's assignment accepts them:
 * a[1] = {{1, 2, 3}}). */
static cuarr_array trim_leading_ones(const cuarr_array *src, int dst_ndim) {
  cuarr_array t = *src;
  int drop = 0;
  while (t.ndim - drop > dst_ndim && t.shape[drop] == 1)
    drop++;
  if (drop > 0) {
    t.ndim -= drop;
    for (int i = 0; i < t.ndim; i++) {
      t.shape[i] = src->shape[i + drop];
      t.strides[i] = src->strides[i + drop];
    }
  }
  return t;
}

cuarr_status cuarr_copy(cuarr_context *ctx, const cuarr_array *dst, const cuarr_array *src_in) {
  CUARR_TRY(cuarr_array_check_live(dst));
  CUARR_TRY(cuarr_array_check_writeable(dst));
  CUARR_TRY(cuarr_array_check_live(src_in));
  cuarr_array trimmed = trim_leading_ones(src_in, dst->ndim);
  const cuarr_array *src = &trimmed; /* shares src_in's buffer reference: not released */
  int ddev = cuarr_array_device(dst), sdev = cuarr_array_device(src);
  if (ddev == CUARR_HOST && sdev == CUARR_HOST)
    return cuarr_host_copy(dst, src);
  if (ddev == sdev) {
    CUstream stream = NULL;
    CUARR_TRY(cuarr_ctx_stream_for(ctx, ddev, &stream));
    return cuarr_device_copy(ctx, dst, src);
  }
  /* Crossing copies move src's bytes whole, so src must already have dst's shape or broadcast
   * to it: check first, so that nothing moves when it does not. */
  cuarr_array probe;
  CUARR_TRY(cuarr_view_broadcast(src, dst->ndim, dst->shape, &probe));
  cuarr_array_release(&probe);
  if (cuarr_array_size(dst) == 0)
    return CUARR_OK;
  if (ddev == CUARR_HOST)
    return device_to_host(ctx, dst, src);
  if (sdev == CUARR_HOST)
    return host_to_device(ctx, dst, src);
  return device_to_device(ctx, dst, src);
}

cuarr_status cuarr_fill(cuarr_context *ctx, const cuarr_array *dst, cuarr_scalar value) {
  CUARR_TRY(cuarr_array_check_live(dst));
  CUARR_TRY(cuarr_array_check_writeable(dst));
  int dev = cuarr_array_device(dst);
  if (dev == CUARR_HOST)
    return cuarr_host_fill(dst, value);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, dev, &stream));
  /* Zero is all-zero bytes in every dtype: a memset, for a contiguous array. */
  unsigned char bytes[8] = {0}, zero[8] = {0};
  cuarr_scalar_store(value, dst->dtype, bytes);
  size_t n = nbytes_of(dst);
  if (n > 0 && cuarr_array_is_c_contiguous(dst) &&
      memcmp(bytes, zero, cuarr_dtype_size(dst->dtype)) == 0) {
    CUARR_TRY(cuarr_device_activate(dev));
    return cuarr_cu_check(
        cuarr_cu.cuMemsetD8Async((CUdeviceptr)cuarr_array_data(dst), 0, n, stream),
        "cuMemsetD8Async");
  }
  return cuarr_device_fill(ctx, dst, value);
}

cuarr_status cuarr_fill_linear(cuarr_context *ctx, const cuarr_array *dst, cuarr_scalar start,
                               cuarr_scalar step, bool last_is_stop, cuarr_scalar stop) {
  CUARR_TRY(cuarr_array_check_live(dst));
  CUARR_TRY(cuarr_array_check_writeable(dst));
  if (dst->ndim != 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "a linear fill needs a 1-D array");
  int dev = cuarr_array_device(dst);
  if (dev == CUARR_HOST)
    return cuarr_host_fill_linear(dst, start, step, last_is_stop, stop);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, dev, &stream));
  return cuarr_device_fill_linear(ctx, dst, start, step, last_is_stop, stop);
}

cuarr_status cuarr_read_item(cuarr_context *ctx, const cuarr_array *a, cuarr_scalar *out) {
  CUARR_TRY(cuarr_array_check_live(a));
  if (cuarr_array_size(a) != 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "only an array of one element has an item (size %lld)",
                      (long long)cuarr_array_size(a));
  int dev = cuarr_array_device(a);
  if (dev == CUARR_HOST) {
    *out = cuarr_scalar_load(cuarr_array_data(a), a->dtype);
    return CUARR_OK;
  }
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, dev, &stream));
  _Alignas(8) unsigned char bytes[8];
  CUARR_TRY(
      cuarr_download(dev, stream, bytes, cuarr_array_data(a), cuarr_dtype_size(a->dtype), false));
  *out = cuarr_scalar_load(bytes, a->dtype);
  return CUARR_OK;
}
