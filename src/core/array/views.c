/*
 * views.c -- arrays that share their buffer with another: reshape, transpose, squeeze, slices,
 * broadcasts.  Each function builds the view in a local value and only on success retains the
 * buffer and writes *out, so a failure leaves out untouched and leaks nothing.
 *
 * Axes are 0-based and must be in range (the Lua binding converts its 1-based and negative
 * ones); messages print them as given.
 */
#include <string.h>

#include "array/shape_format.h"
#include "cuarr.h"

static cuarr_status axis_error(int axis, int ndim) {
  return cuarr_fail(CUARR_INDEX_ERROR, "axis %d is out of bounds for array of dimension %d", axis,
                    ndim);
}

static cuarr_status finish(const cuarr_array *view, cuarr_array *out) {
  cuarr_buffer_retain(view->buf);
  *out = *view;
  return CUARR_OK;
}

/* ---- reshape */

static cuarr_status size_mismatch(int64_t size, int ndim, const int64_t *shape) {
  char s[CUARR_SHAPE_STR_SIZE];
  return cuarr_fail(CUARR_VALUE_ERROR, "cannot reshape array of size %lld into shape %s",
                    (long long)size, cuarr_shape_format(s, ndim, shape));
}

/* Resolve a -1 extent against the array's size and check the sizes agree, as NumPy's
 * _fix_unknown_dimension: with -1 and a zero among the known extents the shape is ambiguous
 * and refused, even for an empty array. */
static cuarr_status resolve_shape(int64_t size, int ndim, const int64_t *shape, int64_t *out) {
  int unknown = -1;
  int64_t known = 1;
  bool overflow = false;
  for (int i = 0; i < ndim; i++) {
    out[i] = shape[i];
    if (shape[i] == -1) {
      if (unknown >= 0)
        return cuarr_fail(CUARR_VALUE_ERROR, "can only specify one unknown dimension");
      unknown = i;
    } else if (shape[i] < 0) {
      return cuarr_fail(CUARR_VALUE_ERROR, "negative dimension %lld in shape", (long long)shape[i]);
    } else if (shape[i] != 0 && known > INT64_MAX / shape[i]) {
      overflow = true; /* cannot match a real size, unless a 0 comes later */
    } else {
      known *= shape[i];
    }
  }
  if (overflow && known != 0)
    return size_mismatch(size, ndim, shape);
  if (unknown >= 0) {
    if (known == 0 || size % known != 0)
      return size_mismatch(size, ndim, shape);
    out[unknown] = size / known;
  } else if (known != size) {
    return size_mismatch(size, ndim, shape);
  }
  return CUARR_OK;
}

/* NumPy's _attempt_nocopy_reshape (C order): match groups of old axes to groups of new axes
 * with the same element count; each group of old axes must be contiguous within itself, and
 * then the new axes of the group get strides laid out from the group's innermost stride.
 * Extent-1 axes of the old array are dropped first (their strides mean nothing).  The array is
 * not empty (empty arrays are C-contiguous and never get here). */
static bool nocopy_reshape(const cuarr_array *a, int newnd, const int64_t *newdims,
                           int64_t *newstrides) {
  int64_t olddims[CUARR_MAXDIM], oldstrides[CUARR_MAXDIM];
  int oldnd = 0;
  for (int i = 0; i < a->ndim; i++) {
    if (a->shape[i] != 1) {
      olddims[oldnd] = a->shape[i];
      oldstrides[oldnd] = a->strides[i];
      oldnd++;
    }
  }
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newnd && oi < oldnd) {
    int64_t np = newdims[ni], op = olddims[oi];
    while (np != op) {
      if (np < op)
        np *= newdims[nj++]; /* trailing 1s are handled below */
      else
        op *= olddims[oj++];
    }
    for (int ok = oi; ok < oj - 1; ok++) {
      if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1])
        return false;
    }
    newstrides[nj - 1] = oldstrides[oj - 1];
    for (int nk = nj - 1; nk > ni; nk--)
      newstrides[nk - 1] = newstrides[nk] * newdims[nk];
    ni = nj++;
    oi = oj++;
  }
  int64_t last = ni >= 1 ? newstrides[ni - 1] : (int64_t)cuarr_dtype_size(a->dtype);
  for (int nk = ni; nk < newnd; nk++)
    newstrides[nk] = last;
  return true;
}

cuarr_status cuarr_view_reshape(const cuarr_array *a, int ndim, const int64_t *shape,
                                cuarr_array *out, bool *needs_copy) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (ndim < 0 || ndim > CUARR_MAXDIM) {
    return cuarr_fail(CUARR_VALUE_ERROR, "%d dimensions requested, but arrays have at most %d",
                      ndim, CUARR_MAXDIM);
  }
  cuarr_array v = *a;
  st = resolve_shape(cuarr_array_size(a), ndim, shape, v.shape);
  if (st != CUARR_OK)
    return st;
  /* The shape every new array passes (empty's): with a 0 extent, the others can still be too
   * large for the strides computed from them. */
  st = cuarr_shape_check(ndim, v.shape, a->dtype, NULL);
  if (st != CUARR_OK)
    return st;
  v.ndim = ndim;
  if (cuarr_array_is_c_contiguous(a)) {
    cuarr_strides_c(ndim, v.shape, cuarr_dtype_size(a->dtype), v.strides);
  } else if (!nocopy_reshape(a, ndim, v.shape, v.strides)) {
    /* No view: out describes the C-contiguous array the caller is to make (no buffer). */
    cuarr_strides_c(ndim, v.shape, cuarr_dtype_size(a->dtype), v.strides);
    v.buf = NULL;
    v.offset = 0;
    *out = v;
    *needs_copy = true;
    return CUARR_OK;
  }
  *needs_copy = false;
  return finish(&v, out);
}

/* ---- axis permutations */

cuarr_status cuarr_view_transpose(const cuarr_array *a, const int *perm, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  cuarr_array v = *a;
  bool seen[CUARR_MAXDIM] = {false};
  for (int i = 0; i < a->ndim; i++) {
    int p = perm ? perm[i] : a->ndim - 1 - i;
    if (p < 0 || p >= a->ndim || seen[p]) {
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "transpose axes are not a permutation of 0..%d: %s axis %d", a->ndim - 1,
                        p < 0 || p >= a->ndim ? "out-of-range" : "repeated", p);
    }
    seen[p] = true;
    v.shape[i] = a->shape[p];
    v.strides[i] = a->strides[p];
  }
  return finish(&v, out);
}

cuarr_status cuarr_view_swapaxes(const cuarr_array *a, int axis1, int axis2, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (axis1 < 0 || axis1 >= a->ndim)
    return axis_error(axis1, a->ndim);
  if (axis2 < 0 || axis2 >= a->ndim)
    return axis_error(axis2, a->ndim);
  cuarr_array v = *a;
  v.shape[axis1] = a->shape[axis2];
  v.strides[axis1] = a->strides[axis2];
  v.shape[axis2] = a->shape[axis1];
  v.strides[axis2] = a->strides[axis1];
  return finish(&v, out);
}

cuarr_status cuarr_view_diagonal(const cuarr_array *a, int64_t offset, int axis1, int axis2,
                                 cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (a->ndim < 2)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "diagonal needs an array of at least two dimensions, got %d", a->ndim);
  if (axis1 < 0 || axis1 >= a->ndim)
    return axis_error(axis1, a->ndim);
  if (axis2 < 0 || axis2 >= a->ndim)
    return axis_error(axis2, a->ndim);
  if (axis1 == axis2)
    return cuarr_fail(CUARR_VALUE_ERROR, "diagonal: axis1 and axis2 cannot be the same");
  const int64_t n1 = a->shape[axis1], n2 = a->shape[axis2];
  /* Above the main diagonal the walk starts `offset` along axis2, below it along axis1. */
  int64_t len =
      offset >= 0 ? (n2 - offset < n1 ? n2 - offset : n1) : (n1 + offset < n2 ? n1 + offset : n2);
  if (offset <= -n1 || offset >= n2)
    len = 0;
  cuarr_array v = *a;
  if (len > 0)
    v.offset += offset >= 0 ? offset * a->strides[axis2] : -offset * a->strides[axis1];
  v.ndim = 0;
  for (int d = 0; d < a->ndim; d++)
    if (d != axis1 && d != axis2) {
      v.shape[v.ndim] = a->shape[d];
      v.strides[v.ndim++] = a->strides[d];
    }
  v.shape[v.ndim] = len;
  v.strides[v.ndim++] = a->strides[axis1] + a->strides[axis2];
  return finish(&v, out);
}

/* ---- adding and removing axes */

cuarr_status cuarr_view_squeeze(const cuarr_array *a, int axis, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (axis >= a->ndim)
    return axis_error(axis, a->ndim);
  if (axis >= 0 && a->shape[axis] != 1) {
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "cannot select an axis to squeeze out which has size not equal to one");
  }
  cuarr_array v = *a;
  v.ndim = 0;
  for (int i = 0; i < a->ndim; i++) {
    bool drop = axis < 0 ? a->shape[i] == 1 : i == axis;
    if (drop)
      continue;
    v.shape[v.ndim] = a->shape[i];
    v.strides[v.ndim] = a->strides[i];
    v.ndim++;
  }
  return finish(&v, out);
}

cuarr_status cuarr_view_expand_dims(const cuarr_array *a, int axis, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (axis < 0 || axis > a->ndim)
    return axis_error(axis, a->ndim + 1);
  if (a->ndim >= CUARR_MAXDIM) {
    return cuarr_fail(CUARR_VALUE_ERROR, "cannot add an axis: arrays have at most %d dimensions",
                      CUARR_MAXDIM);
  }
  cuarr_array v = *a;
  v.ndim = a->ndim + 1;
  for (int i = a->ndim; i > axis; i--) {
    v.shape[i] = a->shape[i - 1];
    v.strides[i] = a->strides[i - 1];
  }
  /* Any stride would do for an extent-1 axis; this one keeps a C-contiguous layout literally
   * C-contiguous for code that compares strides. */
  v.shape[axis] = 1;
  v.strides[axis] =
      axis < a->ndim ? a->shape[axis] * a->strides[axis] : (int64_t)cuarr_dtype_size(a->dtype);
  return finish(&v, out);
}

/* ---- slices and selections */

cuarr_status cuarr_view_slice(const cuarr_array *a, int axis, int64_t start, int64_t count,
                              int64_t step, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (axis < 0 || axis >= a->ndim)
    return axis_error(axis, a->ndim);
  if (step == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "slice step cannot be zero");
  if (count < 0) {
    return cuarr_fail(CUARR_VALUE_ERROR, "negative slice length %lld", (long long)count);
  }
  int64_t n = a->shape[axis];
  cuarr_array v = *a;
  if (count > 0) { /* an empty slice touches nothing, so its start does not matter */
    /* First and last index in range, tested without computing an overflowing last index. */
    bool ok = start >= 0 && start < n;
    if (ok && count > 1) {
      if (step > 0)
        ok = count - 1 <= (n - 1 - start) / step;
      else
        ok = step != INT64_MIN && count - 1 <= start / -step;
    }
    if (!ok) {
      return cuarr_fail(CUARR_INDEX_ERROR,
                        "slice of %lld elements from %lld step %lld is out of bounds for axis %d "
                        "with size %lld",
                        (long long)count, (long long)start, (long long)step, axis, (long long)n);
    }
    v.offset += start * a->strides[axis];
    if (count > 1)
      v.strides[axis] = a->strides[axis] * step; /* |step| < n: no overflow */
  }
  v.shape[axis] = count;
  return finish(&v, out);
}

cuarr_status cuarr_view_select(const cuarr_array *a, int axis, int64_t i, cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  if (axis < 0 || axis >= a->ndim)
    return axis_error(axis, a->ndim);
  if (i < 0 || i >= a->shape[axis]) {
    return cuarr_fail(CUARR_INDEX_ERROR, "index %lld is out of bounds for axis %d with size %lld",
                      (long long)i, axis, (long long)a->shape[axis]);
  }
  cuarr_array v = *a;
  v.offset += i * a->strides[axis];
  v.ndim = a->ndim - 1;
  for (int k = axis; k < v.ndim; k++) {
    v.shape[k] = a->shape[k + 1];
    v.strides[k] = a->strides[k + 1];
  }
  return finish(&v, out);
}

/* ---- broadcasting */

cuarr_status cuarr_view_broadcast(const cuarr_array *a, int ndim, const int64_t *shape,
                                  cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(a);
  if (st != CUARR_OK)
    return st;
  bool ok = ndim >= a->ndim && ndim <= CUARR_MAXDIM;
  for (int i = 0; ok && i < ndim; i++)
    ok = shape[i] >= 0;
  cuarr_array v = *a;
  v.ndim = ndim;
  /* NumPy's broadcast_to is read-only: a write would land on one element many times (and an
   * output of 10^15 elements over one would run its loop that often). */
  v.readonly = true;
  /* Axes aligned from the right; new leading axes and extent-1 axes get stride 0. */
  for (int i = ndim - 1; ok && i >= 0; i--) {
    int j = i - (ndim - a->ndim);
    if (j < 0 || (a->shape[j] == 1 && shape[i] != 1)) {
      v.strides[i] = 0;
    } else if (a->shape[j] == shape[i]) {
      v.strides[i] = a->strides[j];
    } else {
      ok = false;
    }
    v.shape[i] = shape[i];
  }
  if (!ok) {
    char from[CUARR_SHAPE_STR_SIZE], to[CUARR_SHAPE_STR_SIZE];
    return cuarr_fail(CUARR_VALUE_ERROR, "operands could not be broadcast together: shape %s to %s",
                      cuarr_shape_format(from, a->ndim, a->shape),
                      cuarr_shape_format(to, ndim, shape));
  }
  return finish(&v, out);
}
