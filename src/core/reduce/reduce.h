/*
 * reduce.h -- what the parts of the reductions and scans share: a resolved call, checked and
 * laid out by reduce.c / scan.c, and run by the host loops (reduce_host.c, scan_host.c) or
 * the device kernels (reduce_device.c, scan_device.c).  Private to src/core/.
 *
 * Element semantics, the same on both sides (one script, one answer):
 *  - each element is read in the input's dtype and converted to the accumulator dtype `acc`
 *    with cuarr's casting rules (cuarr_scalar_store / kernels' cuarr_cast); the result is
 *    converted from acc to the output's dtype the same way;
 *  - sum/prod/nansum/nanprod accumulate in acc (NaN counts as 0 / 1 for the nan- ops; on
 *    integer dtypes the nan- ops are the plain ones);
 *  - min/max: NaN wins (the result is NaN when any element is NaN); nanmin/nanmax skip NaN
 *    and give NaN only when every element is NaN; acc is the input's dtype;
 *  - argmin/argmax: the index of the first extreme, or of the first NaN; the index is the
 *    C-order flat index over the reduced axes in their original order, plus index_base;
 *  - all/any: x != 0 (NaN is true); count_nonzero counts x != 0 into int64.
 */
#ifndef CUARR_REDUCE_H
#define CUARR_REDUCE_H

#include "internal.h"

/* A reduction ready to run.  in and out are live and on the same device (or both on the
 * host); out has in's ndim, extent 1 on every reduced axis and in's extent on the others (a
 * keepdims view of the result; its strides may be anything, including 0 only on extent-1
 * axes); out's dtype is the result dtype, or any dtype the caller wants it converted to.
 * There is at least one output element; the reduced extent may be 0 only for ops with an
 * identity (the result is then the identity).  out does not overlap in. */
typedef struct cuarr_reduce_call {
  cuarr_reduce_op op;
  const cuarr_array *in;
  uint64_t axes;   /* bit k: axis k of in is reduced */
  cuarr_dtype acc; /* accumulator dtype */
  const cuarr_array *out;
  int64_t index_base;
} cuarr_reduce_call;

/* flat_reduce.c: the short way of cuarr_reduce for a full reduction of a C-contiguous device
 * array into a new 0-d result.  true: the call was this way's, and *status is its outcome;
 * false: nothing was done (out untouched), take the general way. */
bool cuarr_reduce_flat(cuarr_context *ctx, cuarr_reduce_op op, const cuarr_array *in,
                       const cuarr_reduce_args *args, cuarr_array *out, cuarr_status *status);

cuarr_status cuarr_host_reduce(const cuarr_reduce_call *c);                       /* host */
cuarr_status cuarr_device_reduce(cuarr_context *ctx, const cuarr_reduce_call *c); /* device */

/* A scan ready to run: out has in's shape (any strides without overlapping elements, any
 * dtype: the running value is converted from acc on each store); out is in itself or does not
 * overlap it.  The axis has extent >= 1 and in has >= 1 element. */
typedef struct cuarr_scan_call {
  cuarr_scan_op op;
  const cuarr_array *in;
  int axis;        /* 0-based */
  cuarr_dtype acc; /* accumulator dtype */
  const cuarr_array *out;
} cuarr_scan_call;

cuarr_status cuarr_host_scan(const cuarr_scan_call *c);
cuarr_status cuarr_device_scan(cuarr_context *ctx, const cuarr_scan_call *c);

/* For `make test`: compile (NVRTC, no GPU) every kernel variant the device reductions and
 * scans can generate for sm_<arch>; *n_compiled counts them. */
cuarr_status cuarr_reduce_kernels_compile_all(int arch, int *n_compiled);
cuarr_status cuarr_scan_kernels_compile_all(int arch, int *n_compiled);

#endif
