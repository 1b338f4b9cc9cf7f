/*
 * sort.c -- cuarr_sort (sort and argsort along an axis, or of the flattened array) and
 * cuarr_lexsort: NumPy's, stable, NaNs last.
 *
 * Both run on rows: the array with the sorting axis moved last, C-contiguous (a view when it
 * already is, one copy otherwise).  Device rows go to the CUB library nvcc built
 * (libcuarr_sort.so, sort_loader.c) with temporary storage from the device pool; host rows to
 * host_sort.c's radix sort.  Each result is written straight into the output when its rows are
 * C-contiguous there (the last axis, or the flattened array) and through a contiguous temporary
 * copied back otherwise.
 */
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "sort/sort_internal.h"

static const char *placement(int device) { return device == CUARR_HOST ? "the host" : "a device"; }

cuarr_status cuarr_sort_new(const cuarr_sort_rows *r, cuarr_dtype dtype, int nd,
                            const int64_t *shape, cuarr_array *out) {
  return cuarr_array_empty(r->device, dtype, nd, shape, false, r->stream, cuarr_ctx_reclaim(r->ctx),
                           out);
}

cuarr_status cuarr_sort_contiguous(const cuarr_sort_rows *r, const cuarr_array *a,
                                   cuarr_dtype dtype, cuarr_array *out) {
  if (a->dtype == dtype && cuarr_array_is_c_contiguous(a)) {
    cuarr_array_share(a, out);
    return CUARR_OK;
  }
  CUARR_TRY(cuarr_sort_new(r, dtype, a->ndim, a->shape, out));
  cuarr_status s = cuarr_still_live(a);
  if (s == CUARR_OK)
    s = cuarr_copy(r->ctx, out, a);
  if (s != CUARR_OK)
    cuarr_array_release(out);
  return s;
}

cuarr_status cuarr_sort_rows_begin(cuarr_sort_rows *r, cuarr_context *ctx, const cuarr_array *a,
                                   int axis, const char *what) {
  CUARR_TRY(cuarr_array_check_live(a));
  r->ctx = ctx;
  r->device = cuarr_array_device(a);
  r->stream = NULL;
  r->flat = axis == CUARR_SORT_FLAT;
  if (!r->flat && (axis < 0 || axis >= a->ndim))
    return cuarr_fail(CUARR_INDEX_ERROR, "%s: axis %d is out of bounds for array of dimension %d",
                      what, axis + 1, a->ndim);
  if (r->device != CUARR_HOST) {
    CUARR_TRY(cuarr_ctx_stream_for(ctx, r->device, &r->stream));
    CUARR_TRY(cuarr_load_sort_library());
  }
  r->n = cuarr_array_size(a);
  if (r->flat) {
    r->nd = 1;
    r->shape[0] = r->n;
    r->seg_len = r->n;
  } else {
    r->nd = a->ndim;
    memcpy(r->shape, a->shape, (size_t)a->ndim * sizeof(int64_t));
    int k = 0;
    for (int d = 0; d < a->ndim; d++)
      if (d != axis)
        r->perm[k++] = d;
    r->perm[k] = axis;
    r->seg_len = a->shape[axis];
  }
  return CUARR_OK;
}

cuarr_status cuarr_sort_rows_view(const cuarr_sort_rows *r, const cuarr_array *x,
                                  cuarr_array *out) {
  if (r->flat) {
    if (x->ndim == 1) {
      cuarr_array_share(x, out);
      return CUARR_OK;
    }
    bool needs_copy = false;
    CUARR_TRY(cuarr_view_reshape(x, 1, &r->n, out, &needs_copy));
    if (!needs_copy)
      return CUARR_OK;
    cuarr_array tmp;
    CUARR_TRY(cuarr_sort_contiguous(r, x, x->dtype, &tmp));
    cuarr_status s = cuarr_view_reshape(&tmp, 1, &r->n, out, &needs_copy);
    cuarr_array_release(&tmp);
    return s;
  }
  return cuarr_view_transpose(x, r->perm, out);
}

cuarr_status cuarr_sort_rows_source(const cuarr_sort_rows *r, const cuarr_array *a,
                                    cuarr_array *out) {
  cuarr_array view;
  CUARR_TRY(cuarr_sort_rows_view(r, a, &view));
  cuarr_status s = cuarr_sort_contiguous(r, &view, view.dtype, out);
  cuarr_array_release(&view);
  return s;
}

cuarr_status cuarr_sort_target_begin(const cuarr_sort_rows *r, const cuarr_array *res,
                                     const cuarr_array *src, bool same_ok, cuarr_sort_target *t) {
  t->tmp.buf = NULL;
  CUARR_TRY(cuarr_sort_rows_view(r, res, &t->view));
  bool direct = cuarr_array_is_c_contiguous(&t->view);
  if (direct && src && cuarr_array_may_overlap(&t->view, src))
    direct = same_ok && cuarr_array_data(&t->view) == cuarr_array_data(src) &&
             t->view.dtype == src->dtype;
  if (direct) {
    t->into = &t->view;
    return CUARR_OK;
  }
  cuarr_status s = cuarr_sort_new(r, t->view.dtype, t->view.ndim, t->view.shape, &t->tmp);
  if (s != CUARR_OK) {
    t->tmp.buf = NULL;
    cuarr_array_release(&t->view);
    return s;
  }
  t->into = &t->tmp;
  return CUARR_OK;
}

cuarr_status cuarr_sort_target_end(const cuarr_sort_rows *r, cuarr_sort_target *t, cuarr_status s) {
  if (t->tmp.buf) {
    if (s == CUARR_OK)
      s = cuarr_copy(r->ctx, &t->view, &t->tmp);
    cuarr_array_release(&t->tmp);
  }
  cuarr_array_release(&t->view);
  return s;
}

cuarr_status cuarr_sort_run(const cuarr_sort_rows *r, const cuarr_array *src, const int64_t *perm,
                            const cuarr_array *keys_out, const cuarr_array *indices_out) {
  const int kind = cuarr_sort_kind(src->dtype), width = (int)cuarr_dtype_size(src->dtype);
  cuarr_status s = cuarr_still_live(src);
  if (s == CUARR_OK && keys_out)
    s = cuarr_still_live(keys_out);
  if (s == CUARR_OK && indices_out)
    s = cuarr_still_live(indices_out);
  if (s != CUARR_OK || r->n == 0)
    return s;
  void *keys = keys_out ? cuarr_array_data(keys_out) : NULL;
  int64_t *indices = indices_out ? cuarr_array_data(indices_out) : NULL;
  if (r->device == CUARR_HOST)
    return cuarr_sort_host_rows(kind, width, cuarr_array_data(src), perm, keys, indices, r->n,
                                r->seg_len);
  /* The library's CUDA runtime works in the context current on this thread: the device's
   * primary context, made current before its first call here. */
  CUARR_TRY(cuarr_device_activate(r->device));
  size_t bytes = 0;
  CUARR_TRY(cuarr_sort_lib_check(cuarr_sort_lib.cuarr_sort_lib_temp_bytes(kind, width, r->n,
                                                                          r->seg_len, keys != NULL,
                                                                          indices != NULL, &bytes),
                                 "sort: the temporary storage query"));
  if (bytes > (size_t)INT64_MAX)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "sort: %zu bytes of temporary storage", bytes);
  int64_t extent = (int64_t)(bytes > 0 ? bytes : 1);
  cuarr_array temp;
  CUARR_TRY(cuarr_array_empty(r->device, CUARR_UINT8, 1, &extent, false, r->stream,
                              cuarr_ctx_reclaim(r->ctx), &temp));
  /* internal.h: the allocation may have run a collection that freed an operand. */
  s = cuarr_still_live(src);
  if (s == CUARR_OK && keys_out)
    s = cuarr_still_live(keys_out);
  if (s == CUARR_OK && indices_out)
    s = cuarr_still_live(indices_out);
  if (s == CUARR_OK)
    s = cuarr_device_activate(r->device);
  if (s == CUARR_OK)
    s = cuarr_sort_lib_check(cuarr_sort_lib.cuarr_sort_lib_run(
                                 kind, width, cuarr_array_data(src), perm, keys, indices, r->n,
                                 r->seg_len, cuarr_array_data(&temp), bytes, r->stream),
                             "sort");
  cuarr_array_release(&temp); /* stream-ordered: reused only after the sort on this stream */
  return s;
}

static cuarr_status check_out(const cuarr_array *out, const char *name, const cuarr_array *a,
                              cuarr_dtype dtype, int nd, const int64_t *shape, const char *what) {
  CUARR_TRY(cuarr_array_check_live(out));
  if (cuarr_array_device(out) != cuarr_array_device(a))
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: %s is on %s and the array on %s", what, name,
                      placement(cuarr_array_device(out)), placement(cuarr_array_device(a)));
  if (out->ndim != nd || memcmp(out->shape, shape, (size_t)nd * sizeof(int64_t)) != 0) {
    char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: %s has shape %s but the result has shape %s", what,
                      name, cuarr_shape_format(got, out->ndim, out->shape),
                      cuarr_shape_format(want, nd, shape));
  }
  if (out->dtype != dtype)
    return cuarr_fail(CUARR_TYPE_ERROR, "%s: %s has dtype %s but the result is %s", what, name,
                      cuarr_dtype_name(out->dtype), cuarr_dtype_name(dtype));
  for (int d = 0; d < nd; d++)
    if (shape[d] > 1 && out->strides[d] == 0)
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: %s has overlapping elements", what, name);
  return CUARR_OK;
}

cuarr_status cuarr_sort(cuarr_context *ctx, const cuarr_array *a, int axis, cuarr_array *sorted,
                        cuarr_array *indices) {
  if (!a || (!sorted && !indices))
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_sort: no array or no output");
  if (sorted)
    CUARR_TRY(cuarr_array_check_writeable(sorted));
  if (indices)
    CUARR_TRY(cuarr_array_check_writeable(indices));
  cuarr_sort_rows r;
  CUARR_TRY(cuarr_sort_rows_begin(&r, ctx, a, axis, "sort"));
  if (sorted && sorted->buf)
    CUARR_TRY(check_out(sorted, "the sorted output", a, a->dtype, r.nd, r.shape, "sort"));
  if (indices && indices->buf)
    CUARR_TRY(check_out(indices, "the indices output", a, CUARR_INT64, r.nd, r.shape, "argsort"));
  if (sorted && indices && sorted->buf && indices->buf && cuarr_array_may_overlap(sorted, indices))
    return cuarr_fail(CUARR_VALUE_ERROR, "sort: the sorted and indices outputs overlap");

  cuarr_result rs, ri;
  rs.given = ri.given = true; /* nothing to end for an output not asked for */
  rs.tmp.buf = ri.tmp.buf = NULL;
  cuarr_status s = CUARR_OK;
  bool began_s = false, began_i = false;
  if (sorted) {
    s = cuarr_result_begin(&rs, ctx, r.device, r.stream, a->dtype, r.nd, r.shape, sorted);
    began_s = s == CUARR_OK;
  }
  if (s == CUARR_OK && indices) {
    s = cuarr_result_begin(&ri, ctx, r.device, r.stream, CUARR_INT64, r.nd, r.shape, indices);
    began_i = s == CUARR_OK;
  }
  if (s == CUARR_OK && r.n > 0) {
    cuarr_array src;
    s = cuarr_sort_rows_source(&r, a, &src);
    if (s == CUARR_OK) {
      cuarr_sort_target ts = {0}, ti = {0};
      bool have_s = false, have_i = false;
      if (sorted) {
        s = cuarr_sort_target_begin(&r, &rs.res, &src, true, &ts);
        have_s = s == CUARR_OK;
      }
      if (s == CUARR_OK && indices) {
        s = cuarr_sort_target_begin(&r, &ri.res, &src, false, &ti);
        have_i = s == CUARR_OK;
      }
      if (s == CUARR_OK)
        s = cuarr_sort_run(&r, &src, NULL, have_s ? ts.into : NULL, have_i ? ti.into : NULL);
      if (have_s)
        s = cuarr_sort_target_end(&r, &ts, s);
      if (have_i)
        s = cuarr_sort_target_end(&r, &ti, s);
      cuarr_array_release(&src);
    }
  }
  if (began_i)
    s = cuarr_result_end(&ri, ctx, s);
  if (began_s)
    s = cuarr_result_end(&rs, ctx, s);
  return s;
}

cuarr_status cuarr_lexsort(cuarr_context *ctx, const cuarr_array *const *keys, int nkeys, int axis,
                           cuarr_array *out) {
  if (!keys || nkeys < 1)
    return cuarr_fail(CUARR_VALUE_ERROR, "need sequence of keys with len > 0 in lexsort");
  if (!out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_lexsort: no output");
  const cuarr_array *k0 = keys[0];
  for (int k = 0; k < nkeys; k++) {
    CUARR_TRY(cuarr_array_check_live(keys[k]));
    if (cuarr_array_device(keys[k]) != cuarr_array_device(k0))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "lexsort: key 1 is on %s and key %d on another place: the keys must be "
                        "in one place",
                        placement(cuarr_array_device(k0)), k + 1);
    if (!cuarr_array_same_shape(keys[k], k0)) {
      char s0[CUARR_SHAPE_STR_SIZE], sk[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "lexsort: all keys need to be the same shape, but key 1 has shape %s and "
                        "key %d has shape %s",
                        cuarr_shape_format(s0, k0->ndim, k0->shape), k + 1,
                        cuarr_shape_format(sk, keys[k]->ndim, keys[k]->shape));
    }
  }
  cuarr_sort_rows r;
  CUARR_TRY(cuarr_sort_rows_begin(&r, ctx, k0, axis, "lexsort"));
  if (out->buf)
    CUARR_TRY(check_out(out, "out", k0, CUARR_INT64, r.nd, r.shape, "lexsort"));
  cuarr_result res;
  CUARR_TRY(cuarr_result_begin(&res, ctx, r.device, r.stream, CUARR_INT64, r.nd, r.shape, out));
  cuarr_status s = CUARR_OK;
  if (r.n > 0) {
    cuarr_sort_target t;
    /* The permutation is the indices output (or its temporary) all along: each step reads
     * position i of it and writes position i before sorting, so it may be both. */
    bool overlaps = false;
    for (int k = 0; k < nkeys && res.given; k++)
      overlaps = overlaps || cuarr_array_may_overlap(&res.res, keys[k]);
    s = cuarr_sort_target_begin(&r, &res.res, overlaps ? &res.res : NULL, false, &t);
    if (s == CUARR_OK) {
      for (int k = 0; k < nkeys && s == CUARR_OK; k++) {
        cuarr_array src;
        s = cuarr_sort_rows_source(&r, keys[k], &src);
        if (s != CUARR_OK)
          break;
        s = cuarr_sort_run(&r, &src, k ? cuarr_array_data(t.into) : NULL, NULL, t.into);
        cuarr_array_release(&src);
      }
      s = cuarr_sort_target_end(&r, &t, s);
    }
  }
  return cuarr_result_end(&res, ctx, s);
}
