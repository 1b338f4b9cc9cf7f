/*
 * host_fill.c -- fills of host arrays: one value everywhere, or a linear sequence (arange,
 * linspace).
 */
#include "array/cast.h"
#include "copy/host_iterate.h"
#include "internal.h"

static cuarr_status check_host(const cuarr_array *dst) {
  cuarr_status st = cuarr_array_check_live(dst);
  if (st != CUARR_OK)
    return st;
  if (dst->buf->device != CUARR_HOST) {
    return cuarr_fail(CUARR_VALUE_ERROR, "host fill: the array is on device %d, not on the host",
                      dst->buf->device);
  }
  return CUARR_OK;
}

/* The value is converted once; the fill is then a copy from a source of stride 0. */
cuarr_status cuarr_host_fill(const cuarr_array *dst, cuarr_scalar value) {
  cuarr_status st = check_host(dst);
  if (st != CUARR_OK)
    return st;
  if (cuarr_array_size(dst) == 0)
    return CUARR_OK;
  uint64_t item = 0; /* 8 bytes, aligned for every dtype */
  cuarr_scalar_store(value, dst->dtype, &item);
  int64_t zero[CUARR_MAXDIM] = {0};
  cuarr_host_iterate(dst->ndim, dst->shape, cuarr_array_data(dst), dst->strides,
                     (const char *)&item, zero, cuarr_host_raw_row(cuarr_dtype_size(dst->dtype)));
  return CUARR_OK;
}

static double scalar_as_double(cuarr_scalar s) {
  if (s.dtype == CUARR_BOOL)
    return s.v.b;
  if (cuarr_dtype_is_signed(s.dtype))
    return (double)s.v.i;
  if (cuarr_dtype_is_unsigned(s.dtype))
    return (double)s.v.u;
  return s.v.f;
}

/* Two's-complement bits of an integer scalar: arithmetic on them wraps like int64 without C's
 * signed-overflow undefined behaviour, and they are right for uint64 values above INT64_MAX.
 * A float scalar given for an integer dtype is cast to int64 (saturating). */
static uint64_t scalar_as_bits(cuarr_scalar s) {
  if (s.dtype == CUARR_BOOL)
    return s.v.b;
  if (cuarr_dtype_is_signed(s.dtype))
    return (uint64_t)s.v.i;
  if (cuarr_dtype_is_unsigned(s.dtype))
    return s.v.u;
  return cuarr_cast_int64_from_f64(s.v.f);
}

/* Float dtypes: start + k*step in double.  Integer and bool dtypes: in 64-bit integers,
 * wrapping, then narrowed with the casting rules (integer -> narrower integer wraps). */
#define LINEAR_F(name)                                                                             \
  for (int64_t k = 0; k < n; k++) {                                                                \
    store_t r = cuarr_cast_##name##_from_f64(f0 + (double)k * fstep);                              \
    memcpy(d + k * ds, &r, sizeof r);                                                              \
  }
#define LINEAR_I(name)                                                                             \
  for (int64_t k = 0; k < n; k++) {                                                                \
    store_t r = cuarr_cast_##name##_from_u64(i0 + (uint64_t)k * istep);                            \
    memcpy(d + k * ds, &r, sizeof r);                                                              \
  }
#define LINEAR_B LINEAR_I
#define LINEAR_U LINEAR_I
#define LINEAR_H LINEAR_F

cuarr_status cuarr_host_fill_linear(const cuarr_array *dst, cuarr_scalar start, cuarr_scalar step,
                                    bool last_is_stop, cuarr_scalar stop) {
  cuarr_status st = check_host(dst);
  if (st != CUARR_OK)
    return st;
  if (dst->ndim != 1) {
    return cuarr_fail(CUARR_VALUE_ERROR, "a linear fill needs a 1-D array, not %d-D", dst->ndim);
  }
  int64_t n = dst->shape[0], ds = dst->strides[0];
  if (n == 0)
    return CUARR_OK;
  char *d = cuarr_array_data(dst);
  double f0 = scalar_as_double(start), fstep = scalar_as_double(step);
  uint64_t i0 = scalar_as_bits(start), istep = scalar_as_bits(step);
  switch (dst->dtype) {
#define LINEAR_CASE(_, name, ENUM, load_t, store_type, cls)                                        \
  case ENUM: {                                                                                     \
    typedef store_type store_t;                                                                    \
    LINEAR_##cls(name) break;                                                                      \
  }
    CUARR_DTYPE_LIST(LINEAR_CASE, _)
#undef LINEAR_CASE
  case CUARR_NDTYPES: break;
  }
  (void)f0, (void)fstep, (void)i0, (void)istep;
  if (last_is_stop)
    cuarr_scalar_store(stop, dst->dtype, d + (n - 1) * ds);
  return CUARR_OK;
}
