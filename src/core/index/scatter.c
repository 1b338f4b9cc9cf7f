/*
 * scatter.c -- cuarr_scatter: a[ix] = values (NumPy's assignment through integer index arrays).
 *
 * In raise mode every index is checked before anything is written (on a device: a checking
 * launch over the index arrays alone and its record read back, then the writing launch), so a
 * bad index leaves a as it was.  Values are converted to a's dtype first (a copy, when their
 * dtype differs or they overlap a), so the walk moves bits.
 */
#include "array/shape_format.h"
#include "copy/result.h"
#include "index/gather.h"

cuarr_status cuarr_scatter(cuarr_context *ctx, const cuarr_array *a, const cuarr_fancy_index *ix,
                           const cuarr_array *values) {
  int nd, nb;
  int64_t shape[CUARR_MAXDIM], bshape[CUARR_MAXDIM];
  CUARR_TRY(cuarr_array_check_writeable(a));
  CUARR_TRY(cuarr_gather_check(a, ix, &nd, shape, &nb, bshape));
  if (!values)
    return cuarr_fail(CUARR_VALUE_ERROR, "indexing: no values to assign");
  CUARR_TRY(cuarr_array_check_live(values));
  const int device = cuarr_array_device(a);
  if (cuarr_array_device(values) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "indexing: the values and the array must be in one place");
  cuarr_array vb;
  if (cuarr_view_broadcast(values, nd, shape, &vb) != CUARR_OK) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(
        CUARR_VALUE_ERROR, "could not broadcast values from shape %s into the selection's shape %s",
        cuarr_shape_format(got, values->ndim, values->shape), cuarr_shape_format(want, nd, shape));
  }
  cuarr_array_release(&vb);
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));

  /* The values as the walk reads them: a's dtype, whole elements, apart from a. */
  cuarr_array conv = {0}, target = {0};
  cuarr_status s = CUARR_OK;
  const cuarr_array *v = values;
  if (values->dtype != a->dtype || !cuarr_gather_whole(values) ||
      cuarr_array_may_overlap(values, a)) {
    s = cuarr_copy_new(ctx, device, stream, values, a->dtype, &conv);
    v = &conv;
  }
  /* An a whose strides are not whole elements is written through a copy. */
  const cuarr_array *dst = a;
  if (s == CUARR_OK && !cuarr_gather_whole(a)) {
    s = cuarr_copy_new(ctx, device, stream, a, a->dtype, &target);
    dst = &target;
  }
  cuarr_gather_operands o;
  bool prepared = false;
  if (s == CUARR_OK)
    s = cuarr_both_still_live(a, values);
  if (s == CUARR_OK) {
    s = cuarr_gather_prepare(&o, ctx, device, stream, dst, ix, dst);
    prepared = s == CUARR_OK;
  }
  if (s == CUARR_OK && ix->mode == CUARR_INDEX_RAISE)
    s = cuarr_gather_run(ctx, device, stream, CUARR_GATHER_OP_CHECK, o.a, &o.ix, NULL, true);
  if (s == CUARR_OK) {
    if (cuarr_view_broadcast(v, nd, shape, &vb) == CUARR_OK) {
      s = cuarr_gather_run(ctx, device, stream, CUARR_GATHER_OP_SCATTER, o.a, &o.ix, &vb, false);
      cuarr_array_release(&vb);
    } else {
      s = cuarr_fail(CUARR_VALUE_ERROR, "indexing: the values do not broadcast");
    }
  }
  if (s == CUARR_OK && dst == &target)
    s = cuarr_copy(ctx, a, &target);
  if (prepared)
    cuarr_gather_operands_release(&o);
  if (conv.buf)
    cuarr_array_release(&conv);
  if (target.buf)
    cuarr_array_release(&target);
  return s;
}
