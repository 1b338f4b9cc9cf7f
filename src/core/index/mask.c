/*
 * mask.c -- cuarr_nonzero, cuarr_mask_select and cuarr_mask_assign: the checks, the operands
 * brought to the layouts the loops and kernels take (a C-contiguous mask and a, values of a's
 * dtype with one stride per selected element and one along a row), the output, and the host
 * loops (mask_host.c) or the device passes (mask_device.c).
 *
 * Views the passes cannot take are copied first: a non-contiguous mask or a (an assignment then
 * copies a back), values of another dtype, values overlapping a.  The output's size depends on
 * the mask, so a device call reads its count back once.
 */
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "index/mask.h"

static const char *placement(int device) { return device == CUARR_HOST ? "the host" : "a device"; }

static cuarr_status same_place(const char *what, const cuarr_array *a, const char *name_b,
                               const cuarr_array *b) {
  int da = cuarr_array_device(a), db = cuarr_array_device(b);
  if (da == db)
    return CUARR_OK;
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "%s: the array is on %s and %s on %s: they must be in "
                    "one place",
                    what, placement(da), name_b,
                    db == CUARR_HOST || da == CUARR_HOST ? placement(db) : "another device");
}

/* A new C-contiguous copy of a (dtype: its own or another) on a's device. */
static cuarr_status copy_of(cuarr_context *ctx, const cuarr_array *a, cuarr_dtype dtype,
                            CUstream stream, cuarr_array *out) {
  return cuarr_copy_new(ctx, cuarr_array_device(a), stream, a, dtype, out);
}

/* The mask as the loops read it (copied when it is not C-contiguous, or when `apart` from a
 * that an assignment writes overlaps it). */
static cuarr_status mask_view(cuarr_context *ctx, const cuarr_array *mask, const cuarr_array *apart,
                              CUstream stream, cuarr_mask_view *m) {
  m->width = (int)cuarr_dtype_size(mask->dtype);
  m->test = m->width == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * m->width)) - 1;
  if (cuarr_dtype_is_float(mask->dtype))
    m->test >>= 1; /* every bit but the sign's */
  m->n = cuarr_array_size(mask);
  if (cuarr_array_is_c_contiguous(mask) && !(apart && cuarr_array_may_overlap(mask, apart))) {
    cuarr_array_share(mask, &m->mask);
    return CUARR_OK;
  }
  return copy_of(ctx, mask, mask->dtype, stream, &m->mask);
}

/* The mask's count: on the host by a loop, on the device by passes 1 and 2 (d->prefix kept for
 * the scatter pass). */
static cuarr_status count(cuarr_context *ctx, const cuarr_mask_view *m, cuarr_mask_device *d) {
  memset(&d->prefix, 0, sizeof d->prefix);
  if (d->device == CUARR_HOST) {
    d->count = cuarr_mask_host_count(m);
    return CUARR_OK;
  }
  return cuarr_mask_device_count(ctx, m, d);
}

static cuarr_status begin(cuarr_context *ctx, int device, cuarr_mask_device *d) {
  memset(d, 0, sizeof *d);
  d->device = device;
  if (device != CUARR_HOST) {
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &d->stream));
    CUARR_TRY(cuarr_device_activate(device));
  }
  return CUARR_OK;
}

/* ---------------------------------------------------------------- nonzero */

cuarr_status cuarr_nonzero(cuarr_context *ctx, const cuarr_array *mask, int64_t base,
                           cuarr_array *out) {
  if (!mask || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_nonzero: no %s", mask ? "output" : "mask");
  CUARR_TRY(cuarr_array_check_live(mask));
  if (mask->ndim == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "nonzero of a 0-d array is not defined: use "
                                         "atleast_1d(a) first, as NumPy asks");
  const bool given = out->buf != NULL;
  if (given) {
    CUARR_TRY(cuarr_array_check_live(out));
    CUARR_TRY(same_place("nonzero", mask, "out", out));
  }
  cuarr_mask_device d;
  CUARR_TRY(begin(ctx, cuarr_array_device(mask), &d));
  cuarr_mask_view m;
  CUARR_TRY(mask_view(ctx, mask, NULL, d.stream, &m));
  cuarr_status s = count(ctx, &m, &d);
  int64_t shape[2] = {mask->ndim, d.count};
  if (s == CUARR_OK && given && (out->ndim != 2 || memcmp(out->shape, shape, sizeof shape) != 0)) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    s = cuarr_fail(CUARR_VALUE_ERROR, "nonzero: out has shape %s but the result has shape %s",
                   cuarr_shape_format(got, out->ndim, out->shape),
                   cuarr_shape_format(want, 2, shape));
  }
  if (s == CUARR_OK) {
    cuarr_result r;
    s = cuarr_result_begin(&r, ctx, d.device, d.stream, CUARR_INT64, 2, shape, out);
    if (s == CUARR_OK) {
      const bool through =
          given && (out->dtype != CUARR_INT64 || !cuarr_array_is_c_contiguous(out) ||
                    cuarr_array_may_overlap(out, mask));
      cuarr_array *into;
      s = cuarr_result_target(&r, ctx, d.device, d.stream, through, CUARR_INT64, &into);
      if (s == CUARR_OK)
        s = cuarr_both_still_live(&m.mask, into);
      if (s == CUARR_OK && d.count > 0) {
        if (d.device == CUARR_HOST)
          cuarr_mask_host_positions(&m, mask->ndim, mask->shape, base, d.count,
                                    (int64_t *)cuarr_array_data(into));
        else
          s = cuarr_mask_device_positions(ctx, &m, &d, mask->ndim, mask->shape, base, into);
      }
      s = cuarr_result_end(&r, ctx, s);
    }
  }
  cuarr_mask_device_end(&d);
  cuarr_array_release(&m.mask);
  return s;
}

/* ---------------------------------------------------------------- selection and assignment */

/* mask over a's leading axes: its shape theirs (NumPy's IndexErrors); *rows: the elements of
 * a per mask element. */
static cuarr_status check_mask(const char *what, const cuarr_array *a, const cuarr_array *mask,
                               int64_t *rows) {
  CUARR_TRY(cuarr_array_check_live(a));
  CUARR_TRY(cuarr_array_check_live(mask));
  CUARR_TRY(same_place(what, a, "the mask", mask));
  if (mask->ndim > a->ndim)
    return cuarr_fail(CUARR_INDEX_ERROR,
                      "%s: too many indices for array: array is %d-dimensional, but %d were "
                      "indexed by the mask",
                      what, a->ndim, mask->ndim);
  for (int d = 0; d < mask->ndim; d++)
    if (mask->shape[d] != a->shape[d])
      return cuarr_fail(CUARR_INDEX_ERROR,
                        "%s: boolean index did not match indexed array along axis %d; size of "
                        "axis is %lld but size of corresponding boolean axis is %lld",
                        what, d + 1, (long long)a->shape[d], (long long)mask->shape[d]);
  if (a->ndim - mask->ndim + 1 > CUARR_MAXDIM)
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: the result would have more than %d dimensions", what,
                      CUARR_MAXDIM);
  *rows = 1;
  for (int d = mask->ndim; d < a->ndim; d++)
    *rows *= a->shape[d];
  return CUARR_OK;
}

/* The selection's shape: [count, a's extents after the mask's]. */
static int result_shape(const cuarr_array *a, const cuarr_array *mask, int64_t count,
                        int64_t *shape) {
  shape[0] = count;
  for (int d = mask->ndim; d < a->ndim; d++)
    shape[1 + d - mask->ndim] = a->shape[d];
  return a->ndim - mask->ndim + 1;
}

cuarr_status cuarr_mask_select(cuarr_context *ctx, const cuarr_array *a, const cuarr_array *mask,
                               cuarr_array *out) {
  if (!a || !mask || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_mask_select: no %s",
                      !a      ? "array"
                      : !mask ? "mask"
                              : "output");
  int64_t rows;
  CUARR_TRY(check_mask("mask selection", a, mask, &rows));
  const bool given = out->buf != NULL;
  if (given) {
    CUARR_TRY(cuarr_array_check_live(out));
    CUARR_TRY(same_place("mask selection", a, "out", out));
  }
  cuarr_mask_device d;
  CUARR_TRY(begin(ctx, cuarr_array_device(a), &d));
  cuarr_mask_view m;
  CUARR_TRY(mask_view(ctx, mask, NULL, d.stream, &m));
  cuarr_array src = {0};
  cuarr_status s = count(ctx, &m, &d);
  int64_t shape[CUARR_MAXDIM];
  const int nd = result_shape(a, mask, d.count, shape);
  if (s == CUARR_OK && given && (out->ndim != nd || memcmp(out->shape, shape, nd * 8) != 0)) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    s = cuarr_fail(
        CUARR_VALUE_ERROR, "mask selection: out has shape %s but the result has shape %s",
        cuarr_shape_format(got, out->ndim, out->shape), cuarr_shape_format(want, nd, shape));
  }
  if (s == CUARR_OK)
    s = cuarr_shape_check(nd, shape, a->dtype, NULL);
  const bool work = d.count > 0 && rows > 0;
  if (s == CUARR_OK && work) {
    if (cuarr_array_is_c_contiguous(a))
      cuarr_array_share(a, &src);
    else
      s = copy_of(ctx, a, a->dtype, d.stream, &src);
  }
  if (s == CUARR_OK) {
    cuarr_result r;
    s = cuarr_result_begin(&r, ctx, d.device, d.stream, a->dtype, nd, shape, out);
    if (s == CUARR_OK) {
      const bool through =
          given && (out->dtype != a->dtype || !cuarr_array_is_c_contiguous(out) ||
                    cuarr_array_may_overlap(out, a) || cuarr_array_may_overlap(out, mask));
      cuarr_array *into;
      s = cuarr_result_target(&r, ctx, d.device, d.stream, through, a->dtype, &into);
      if (s == CUARR_OK)
        s = cuarr_both_still_live(&m.mask, into);
      if (s == CUARR_OK && work)
        s = cuarr_still_live(&src);
      if (s == CUARR_OK && work) {
        if (d.device == CUARR_HOST)
          cuarr_mask_host_select(&m, cuarr_array_data(&src), rows, cuarr_dtype_size(a->dtype),
                                 d.count, cuarr_array_data(into));
        else
          s = cuarr_mask_device_select(ctx, &m, &d, &src, rows, into);
      }
      s = cuarr_result_end(&r, ctx, s);
    }
  }
  if (src.buf)
    cuarr_array_release(&src);
  cuarr_mask_device_end(&d);
  cuarr_array_release(&m.mask);
  return s;
}

/* Whether v's axes from `from` on step as one axis of `rows` elements (extent-1 axes aside):
 * *step its stride in bytes (0 when they are all broadcast). */
static bool one_stride(const cuarr_array *v, int from, int64_t *step) {
  int64_t expect = -1;
  *step = 0;
  for (int d = v->ndim - 1; d >= from; d--) {
    if (v->shape[d] == 1)
      continue;
    if (expect < 0) {
      *step = v->strides[d];
      expect = v->strides[d] * v->shape[d];
    } else if (v->strides[d] != expect) {
      return false;
    } else {
      expect *= v->shape[d];
    }
  }
  return true;
}

/* a (C-contiguous) [mask] = values, values broadcast to shape (nd axes). */
static cuarr_status assign_into(cuarr_context *ctx, const cuarr_mask_view *m, cuarr_mask_device *d,
                                const cuarr_array *a, int64_t rows, const cuarr_array *values,
                                int nd, const int64_t *shape) {
  cuarr_array conv = {0}, wide = {0}, vb;
  cuarr_status s = CUARR_OK;
  const cuarr_array *v = values;
  if (values->dtype != a->dtype || cuarr_array_may_overlap(values, a)) {
    s = copy_of(ctx, values, a->dtype, d->stream, &conv);
    v = &conv;
  }
  if (s == CUARR_OK)
    s = cuarr_view_broadcast(v, nd, shape, &vb);
  if (s != CUARR_OK) {
    if (conv.buf)
      cuarr_array_release(&conv);
    return s;
  }
  const int64_t size = (int64_t)cuarr_dtype_size(a->dtype);
  int64_t vs0 = vb.strides[0], vs1 = size;
  bool fits = (shape[0] == 1 || vs0 % size == 0) && one_stride(&vb, 1, &vs1) && vs1 % size == 0 &&
              (uintptr_t)cuarr_array_data(&vb) % (uintptr_t)size == 0;
  if (shape[0] == 1)
    vs0 = 0;
  if (!fits) {
    s = copy_of(ctx, &vb, a->dtype, d->stream, &wide);
    if (s == CUARR_OK) {
      vs0 = rows * size;
      vs1 = size;
    }
  }
  const cuarr_array *vv = wide.buf ? &wide : &vb;
  if (s == CUARR_OK)
    s = cuarr_both_still_live(a, vv);
  if (s == CUARR_OK)
    s = cuarr_still_live(&m->mask);
  if (s == CUARR_OK) {
    if (d->device == CUARR_HOST)
      cuarr_mask_host_assign(m, cuarr_array_data(a), rows, (size_t)size, cuarr_array_data(vv), vs0,
                             vs1);
    else
      s = cuarr_mask_device_assign(ctx, m, d, a, rows, vv, vs0 / size, vs1 / size);
  }
  cuarr_array_release(&vb);
  if (wide.buf)
    cuarr_array_release(&wide);
  if (conv.buf)
    cuarr_array_release(&conv);
  return s;
}

cuarr_status cuarr_mask_assign(cuarr_context *ctx, cuarr_array *a, const cuarr_array *mask,
                               const cuarr_array *values) {
  if (!a || !mask || !values)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_mask_assign: no %s",
                      !a      ? "array"
                      : !mask ? "mask"
                              : "values");
  CUARR_TRY(cuarr_array_check_writeable(a));
  int64_t rows;
  CUARR_TRY(check_mask("mask assignment", a, mask, &rows));
  CUARR_TRY(cuarr_array_check_live(values));
  CUARR_TRY(same_place("mask assignment", a, "the values", values));
  cuarr_mask_device d;
  CUARR_TRY(begin(ctx, cuarr_array_device(a), &d));
  cuarr_mask_view m;
  CUARR_TRY(mask_view(ctx, mask, a, d.stream, &m));
  cuarr_status s = count(ctx, &m, &d);
  int64_t shape[CUARR_MAXDIM];
  const int nd = result_shape(a, mask, d.count, shape);
  /* Leading axes of extent 1 beyond the selection's are dropped, as cuarr_copy's assignment
   * drops them (NumPy's too).  The trimmed value shares values' reference, for this call only. */
  cuarr_array trimmed = *values;
  int drop = 0;
  while (trimmed.ndim - drop > nd && trimmed.shape[drop] == 1)
    drop++;
  if (drop > 0) {
    trimmed.ndim -= drop;
    memmove(trimmed.shape, trimmed.shape + drop, (size_t)trimmed.ndim * sizeof(int64_t));
    memmove(trimmed.strides, trimmed.strides + drop, (size_t)trimmed.ndim * sizeof(int64_t));
    values = &trimmed;
  }
  if (s == CUARR_OK && values->ndim > nd) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    s = cuarr_fail(CUARR_VALUE_ERROR,
                   "mask assignment: values of shape %s cannot be broadcast to the selection's "
                   "shape %s",
                   cuarr_shape_format(got, values->ndim, values->shape),
                   cuarr_shape_format(want, nd, shape));
  }
  if (s == CUARR_OK) {
    for (int k = 0; k < values->ndim && s == CUARR_OK; k++) {
      int64_t e = values->shape[values->ndim - 1 - k], t = shape[nd - 1 - k];
      if (e != 1 && e != t) {
        char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
        s = cuarr_fail(CUARR_VALUE_ERROR,
                       "mask assignment: values of shape %s cannot be broadcast to the "
                       "selection's shape %s",
                       cuarr_shape_format(got, values->ndim, values->shape),
                       cuarr_shape_format(want, nd, shape));
      }
    }
  }
  if (s == CUARR_OK && d.count > 0 && rows > 0) {
    if (cuarr_array_is_c_contiguous(a)) {
      s = assign_into(ctx, &m, &d, a, rows, values, nd, shape);
    } else {
      cuarr_array work;
      s = copy_of(ctx, a, a->dtype, d.stream, &work);
      if (s == CUARR_OK) {
        s = assign_into(ctx, &m, &d, &work, rows, values, nd, shape);
        if (s == CUARR_OK)
          s = cuarr_both_still_live(&work, a);
        if (s == CUARR_OK)
          s = cuarr_copy(ctx, a, &work);
        cuarr_array_release(&work);
      }
    }
  }
  cuarr_mask_device_end(&d);
  cuarr_array_release(&m.mask);
  return s;
}
