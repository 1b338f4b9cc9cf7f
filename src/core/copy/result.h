/*
 * result.h -- where an operation writes its result, the ending every engine front shares:
 * an output given is written in place; none is allocated (and handed to the caller only on
 * success); a given output the engine cannot write directly (it overlaps an input in a way
 * the kernel cannot handle, or needs a cast) is computed into a temporary, then copied in.
 *
 *   cuarr_result r;
 *   CUARR_TRY(cuarr_result_begin(&r, ctx, device, stream, dtype, ndim, shape, out));
 *   cuarr_array *into;
 *   cuarr_status s = cuarr_result_target(&r, ctx, device, stream, overlaps, r.res.dtype, &into);
 *   if (s == CUARR_OK)
 *     s = run(..., into);
 *   return cuarr_result_end(&r, ctx, s);
 *
 * Nothing is allocated on the host; the arrays live in r, on the caller's stack.
 */
#ifndef CUARR_ARRAY_RESULT_H
#define CUARR_ARRAY_RESULT_H

#include "internal.h"

typedef struct cuarr_result {
  cuarr_array *out; /* the caller's: given (its buf set), or set by cuarr_result_end */
  cuarr_array res;  /* the result: *out when given, else a new array */
  cuarr_array tmp;  /* the temporary the engine writes when res cannot be (buf NULL: none) */
  bool given;
} cuarr_result;

/* Begin the result of (dtype, ndim, shape) on device: *out when it is given (out->buf set;
 * the caller has checked its shape, dtype and device), else a new array on the stream. */
cuarr_status cuarr_result_begin(cuarr_result *r, cuarr_context *ctx, int device, CUstream stream,
                                cuarr_dtype dtype, int ndim, const int64_t *shape,
                                cuarr_array *out);

/* The array the engine writes: res, or, when through_temporary, a new array of res's shape
 * and the given dtype (res's, or the one the engine computes in where out needs a cast),
 * copied into res by cuarr_result_end. */
cuarr_status cuarr_result_target(cuarr_result *r, cuarr_context *ctx, int device, CUstream stream,
                                 bool through_temporary, cuarr_dtype dtype, cuarr_array **target);

/* End with the engine's status s: a temporary is copied into res (when s is CUARR_OK) and
 * released; an allocated result becomes *out on success and is released on failure, so the
 * caller's out is left as it came.  Returns the final status. */
cuarr_status cuarr_result_end(cuarr_result *r, cuarr_context *ctx, cuarr_status s);

/* *tmp: a new C-contiguous copy of x in dtype on device (x checked still live after the
 * allocation, as internal.h asks; tmp released on failure).  The temporary an engine reads
 * when an operand's layout or dtype does not suit its kernel. */
cuarr_status cuarr_copy_new(cuarr_context *ctx, int device, CUstream stream, const cuarr_array *x,
                            cuarr_dtype dtype, cuarr_array *tmp);

#endif
