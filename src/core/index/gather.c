/*
 * gather.c -- cuarr_gather (out = a[ix], NumPy's advanced indexing by integer arrays) and
 * cuarr_take, with the operands' preparation cuarr_scatter shares: index arrays that a write
 * could change, or whose strides are not whole elements, are read from copies.
 */
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "index/gather.h"

cuarr_status cuarr_gather_prepare(cuarr_gather_operands *o, cuarr_context *ctx, int device,
                                  CUstream stream, const cuarr_array *a,
                                  const cuarr_fancy_index *ix, const cuarr_array *written) {
  o->ix = *ix;
  o->ntmp = 0;
  o->a = a;
  cuarr_status s = CUARR_OK;
  if (!cuarr_gather_whole(a)) {
    s = cuarr_copy_new(ctx, device, stream, a, a->dtype, &o->tmp[o->ntmp]);
    if (s == CUARR_OK)
      o->a = &o->tmp[o->ntmp++];
  }
  for (int k = 0; k < ix->n && s == CUARR_OK; k++) {
    const cuarr_array *x = ix->index[k];
    if (cuarr_gather_whole(x) && !(written && cuarr_array_may_overlap(written, x)))
      continue;
    s = cuarr_copy_new(ctx, device, stream, x, x->dtype, &o->tmp[o->ntmp]);
    if (s == CUARR_OK)
      o->ix.index[k] = &o->tmp[o->ntmp++];
  }
  if (s != CUARR_OK)
    cuarr_gather_operands_release(o);
  return s;
}

void cuarr_gather_operands_release(cuarr_gather_operands *o) {
  for (int i = 0; i < o->ntmp; i++)
    cuarr_array_release(&o->tmp[i]);
  o->ntmp = 0;
}

cuarr_status cuarr_gather_run(cuarr_context *ctx, int device, CUstream stream, int op,
                              const cuarr_array *a, const cuarr_fancy_index *ix,
                              const cuarr_array *other, bool index_only) {
  cuarr_gather_walk *w = malloc(sizeof *w);
  if (!w)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for an indexing walk");
  cuarr_gather_walk_fill(w, a, ix, other, index_only);
  const size_t itemsize = cuarr_dtype_size(a->dtype);
  cuarr_status s;
  if (device == CUARR_HOST)
    s = cuarr_gather_host(w, op, itemsize, ix, a);
  else if (ix->mode == CUARR_INDEX_RAISE && op != CUARR_GATHER_OP_SCATTER)
    s = cuarr_gather_device_checked(ctx, device, stream, w, op, itemsize, ix, a);
  else
    s = cuarr_gather_device(device, stream, w, op, itemsize, NULL);
  free(w);
  return s;
}

static int64_t size_of(int nd, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < nd; d++)
    n *= shape[d];
  return n;
}

cuarr_status cuarr_gather(cuarr_context *ctx, const cuarr_array *a, const cuarr_fancy_index *ix,
                          cuarr_array *out) {
  if (!out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_gather: no output");
  int nd, nb;
  int64_t shape[CUARR_MAXDIM], bshape[CUARR_MAXDIM];
  CUARR_TRY(cuarr_gather_check(a, ix, &nd, shape, &nb, bshape));
  const int device = cuarr_array_device(a);
  const bool given = out->buf != NULL;
  if (given) {
    CUARR_TRY(cuarr_array_check_live(out));
    if (cuarr_array_device(out) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "indexing: out and the array must be in one place");
    if (out->ndim != nd || memcmp(out->shape, shape, (size_t)nd * sizeof(int64_t)) != 0) {
      char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR, "indexing: out has shape %s but the result has shape %s",
                        cuarr_shape_format(got, out->ndim, out->shape),
                        cuarr_shape_format(want, nd, shape));
    }
  }
  CUstream stream = NULL;
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  cuarr_result r;
  CUARR_TRY(
      cuarr_result_begin(&r, ctx, device, stream, given ? out->dtype : a->dtype, nd, shape, out));
  bool through = given && (out->dtype != a->dtype || !cuarr_gather_whole(out) ||
                           cuarr_array_may_overlap(out, a));
  for (int k = 0; k < ix->n && given && !through; k++)
    through = cuarr_array_may_overlap(out, ix->index[k]);
  for (int d = 0; d < nd && given && !through; d++)
    through = shape[d] > 1 && out->strides[d] == 0;
  cuarr_array *into;
  cuarr_status s = cuarr_result_target(&r, ctx, device, stream, through, a->dtype, &into);
  cuarr_gather_operands o;
  if (s == CUARR_OK)
    s = cuarr_still_live(a);
  for (int k = 0; k < ix->n && s == CUARR_OK; k++)
    s = cuarr_still_live(ix->index[k]);
  if (s == CUARR_OK)
    s = cuarr_gather_prepare(&o, ctx, device, stream, a, ix, NULL);
  if (s == CUARR_OK) {
    if (size_of(nd, shape) > 0)
      s = cuarr_gather_run(ctx, device, stream, CUARR_GATHER_OP_GATHER, o.a, &o.ix, into, false);
    else if (ix->mode == CUARR_INDEX_RAISE && size_of(nb, bshape) > 0)
      s = cuarr_gather_run(ctx, device, stream, CUARR_GATHER_OP_CHECK, o.a, &o.ix, NULL, true);
    cuarr_gather_operands_release(&o);
  }
  return cuarr_result_end(&r, ctx, s);
}

cuarr_status cuarr_take(cuarr_context *ctx, const cuarr_array *a, const cuarr_array *indices,
                        int axis, int64_t base, cuarr_index_mode mode, cuarr_array *out) {
  if (!a || !indices)
    return cuarr_fail(CUARR_VALUE_ERROR, "take: no array or no indices");
  CUARR_TRY(cuarr_array_check_writeable(out));
  CUARR_TRY(cuarr_array_check_live(a));
  if (axis < 0 || axis >= a->ndim)
    return cuarr_fail(CUARR_INDEX_ERROR,
                      "take: axis %d is out of bounds for an array of "
                      "dimension %d",
                      axis + 1, a->ndim);
  cuarr_fancy_index ix = {.n = 1, .at = axis, .base = base, .mode = mode};
  ix.axes[0] = axis;
  ix.index[0] = indices;
  return cuarr_gather(ctx, a, &ix, out);
}
