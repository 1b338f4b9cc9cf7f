/* context.c -- the per-call context (cuarr.h): which stream work on a device goes to. */
#include "internal.h"

cuarr_status cuarr_ctx_stream_for(const cuarr_context *ctx, int device, CUstream *out) {
  if (ctx && ctx->stream && ctx->stream->device != device)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "the stream belongs to device %d but the array is on device %d",
                      ctx->stream->device, device);
  *out = cuarr_ctx_stream(ctx);
  return CUARR_OK;
}
