/*
 * array/ -- arrays: dtypes, casting rules and promotion, arrays and views, the one iterator every
 *   engine and host loop uses.
 *
 * array.c -- an array is a view of a reference-counted buffer: dtype, shape, byte strides and
 * a byte offset.  Here: sizes, contiguity flags, shape checks, new arrays and sharing.
 */
#include <math.h>
#include <string.h>

#include "cuarr.h"

int64_t cuarr_array_size(const cuarr_array *a) {
  int64_t n = 1;
  for (int i = 0; i < a->ndim; i++)
    n *= a->shape[i];
  return n;
}

int cuarr_array_device(const cuarr_array *a) { return a->buf ? a->buf->device : CUARR_HOST; }

/* NumPy's definition: axes of extent 1 may have any stride, and an empty array is contiguous
 * both ways.  Axes are walked from the fastest-varying one: the last (C) or the first (F). */
static bool is_contiguous(const cuarr_array *a, bool c_order) {
  for (int i = 0; i < a->ndim; i++) {
    if (a->shape[i] == 0)
      return true;
  }
  int64_t expected = (int64_t)cuarr_dtype_size(a->dtype);
  for (int k = 0; k < a->ndim; k++) {
    int i = c_order ? a->ndim - 1 - k : k;
    if (a->shape[i] == 1)
      continue;
    if (a->strides[i] != expected)
      return false;
    expected *= a->shape[i];
  }
  return true;
}

bool cuarr_array_is_c_contiguous(const cuarr_array *a) { return is_contiguous(a, true); }
bool cuarr_array_is_f_contiguous(const cuarr_array *a) { return is_contiguous(a, false); }

void *cuarr_array_data(const cuarr_array *a) {
  if (!a->buf || !a->buf->ptr)
    return NULL;
  return (char *)a->buf->ptr + a->offset;
}

cuarr_status cuarr_array_check_live(const cuarr_array *a) {
  if (!a->buf || !a->buf->ptr)
    return cuarr_fail(CUARR_VALUE_ERROR, "array has been freed");
  return CUARR_OK;
}

cuarr_status cuarr_array_check_writeable(const cuarr_array *a) {
  if (a && a->buf && a->readonly)
    return cuarr_fail(CUARR_VALUE_ERROR, "assignment destination is read-only");
  return CUARR_OK;
}

static bool repeats_elements(const cuarr_array *a) {
  for (int i = 0; i < a->ndim; i++) {
    if (a->strides[i] == 0 && a->shape[i] > 1)
      return true;
  }
  return false;
}

cuarr_status cuarr_array_set_writeable(cuarr_array *a, bool writeable, const cuarr_array *base,
                                       bool foreign_base) {
  if (writeable && a->readonly && (foreign_base || (base && base->readonly) || repeats_elements(a)))
    return cuarr_fail(CUARR_VALUE_ERROR, "cannot set WRITEABLE flag to True of this array");
  a->readonly = !writeable;
  return CUARR_OK;
}

cuarr_status cuarr_shape_check(int ndim, const int64_t *shape, cuarr_dtype dtype, int64_t *size) {
  if (ndim < 0 || ndim > CUARR_MAXDIM) {
    return cuarr_fail(CUARR_VALUE_ERROR, "%d dimensions requested, but arrays have at most %d",
                      ndim, CUARR_MAXDIM);
  }
  if ((unsigned)dtype >= CUARR_NDTYPES) {
    return cuarr_fail(CUARR_VALUE_ERROR, "unknown dtype %d", (int)dtype);
  }
  int64_t itemsize = (int64_t)cuarr_dtype_size(dtype);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      return cuarr_fail(CUARR_VALUE_ERROR, "negative dimension %lld in shape", (long long)shape[i]);
    }
  }
  /* As NumPy: the nonzero extents times the itemsize must fit, even when some extent is 0, so
   * that every stride and offset computed from the shape fits in int64 too. */
  int64_t count = 1, nbytes = itemsize;
  bool too_big = false;
  double approx = 1; /* for the message */
  for (int i = 0; i < ndim; i++) {
    approx *= (double)(shape[i] ? shape[i] : 1);
    if (shape[i] == 0)
      continue;
    if (nbytes > INT64_MAX / shape[i])
      too_big = true;
    else {
      nbytes *= shape[i];
      count *= shape[i];
    }
  }
  if (too_big) {
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "array is too big: 2^%.1f elements of %lld bytes (at most 2^63 - 1 bytes)",
                      log2(approx), (long long)itemsize);
  }
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      count = 0;
  }
  if (size)
    *size = count;
  return CUARR_OK;
}

/* As NumPy: an extent of 0 counts as 1, so strides stay meaningful for empty arrays. */
void cuarr_strides_c(int ndim, const int64_t *shape, size_t itemsize, int64_t *strides) {
  int64_t s = (int64_t)itemsize;
  for (int i = ndim - 1; i >= 0; i--) {
    strides[i] = s;
    if (shape[i] > 0)
      s *= shape[i];
  }
}

cuarr_status cuarr_array_empty(int device, cuarr_dtype dtype, int ndim, const int64_t *shape,
                               bool pinned, void *stream, cuarr_reclaim reclaim, cuarr_array *out) {
  int64_t size;
  cuarr_status st = cuarr_shape_check(ndim, shape, dtype, &size);
  if (st != CUARR_OK)
    return st;
  size_t nbytes = (size_t)size * cuarr_dtype_size(dtype);
  cuarr_buffer *buf = NULL;
  if (device == CUARR_HOST)
    st = cuarr_buffer_new_host(nbytes, pinned, reclaim, &buf);
  else
    st = cuarr_buffer_new_device(device, nbytes, stream, reclaim, &buf);
  if (st != CUARR_OK)
    return st;
  memset(out, 0, sizeof *out);
  out->buf = buf;
  out->dtype = dtype;
  out->ndim = ndim;
  out->offset = 0;
  if (ndim > 0)
    memcpy(out->shape, shape, (size_t)ndim * sizeof shape[0]);
  cuarr_strides_c(ndim, shape, cuarr_dtype_size(dtype), out->strides);
  return CUARR_OK;
}

void cuarr_array_release(cuarr_array *a) {
  cuarr_buffer *buf = a->buf;
  memset(a, 0, sizeof *a);
  if (buf)
    cuarr_buffer_release(buf);
}

void cuarr_array_share(const cuarr_array *a, cuarr_array *out) {
  if (a->buf)
    cuarr_buffer_retain(a->buf);
  if (out != a)
    *out = *a;
}
