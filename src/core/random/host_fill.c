/*
 * host_fill.c -- draws into host arrays: plain C loops over the blocks of philox.cuh, the
 * functions the device kernels call, so that both give the same values.
 */
#include "internal.h"
#include "random/random.h"

/* The n values of an integer draw, stored in the dtype's width (they are in its range). */
static void store_integer(void *out, int64_t i, size_t item, uint64_t v) {
  char *p = (char *)out + (size_t)i * item;
  switch (item) {
  case 1: {
    uint8_t x = (uint8_t)v;
    memcpy(p, &x, 1);
    break;
  }
  case 2: {
    uint16_t x = (uint16_t)v;
    memcpy(p, &x, 2);
    break;
  }
  case 4: {
    uint32_t x = (uint32_t)v;
    memcpy(p, &x, 4);
    break;
  }
  default: memcpy(p, &v, 8); break;
  }
}

static void fill_integers(const cuarr_random_draw *d, void *out, int64_t n, size_t item) {
  uint64_t v[4];
  int per = d->m <= 0xffffffffu ? CUARR_RNG_PER_BLOCK_32 : CUARR_RNG_PER_BLOCK_64;
  for (int64_t i = 0; i < n; i += per) {
    uint64_t b = (uint64_t)i / (uint64_t)per;
    if (per == CUARR_RNG_PER_BLOCK_32)
      cuarr_rng_integers_32(d->seed, d->counter, b, d->low, d->m, v);
    else
      cuarr_rng_integers_64(d->seed, d->counter, b, d->low, d->m, v);
    for (int k = 0; k < per && i + k < n; k++)
      store_integer(out, i + k, item, v[k]);
  }
}

/* One loop per (distribution, float dtype): the block function is a compile-time name. */
#define FILL_FLOATS(name, type, per, block)                                                        \
  static void name(const cuarr_random_draw *d, type *out, int64_t n) {                             \
    type v[per];                                                                                   \
    for (int64_t i = 0; i < n; i += per) {                                                         \
      block(d->seed, d->counter, (uint64_t)i / per, d->a, d->b, v);                                \
      for (int k = 0; k < per && i + k < n; k++)                                                   \
        out[i + k] = v[k];                                                                         \
    }                                                                                              \
  }
FILL_FLOATS(uniform_f32, float, 4, cuarr_rng_uniform_f32)
FILL_FLOATS(uniform_f64, double, 2, cuarr_rng_uniform_f64)
FILL_FLOATS(normal_f32, float, 4, cuarr_rng_normal_f32)
FILL_FLOATS(normal_f64, double, 2, cuarr_rng_normal_f64)
FILL_FLOATS(exponential_f32, float, 4, cuarr_rng_exponential_f32)
FILL_FLOATS(exponential_f64, double, 2, cuarr_rng_exponential_f64)

cuarr_status cuarr_random_fill_host(const cuarr_random_draw *d, const cuarr_array *out) {
  cuarr_status st = cuarr_array_check_live(out);
  if (st == CUARR_OK)
    st = cuarr_array_check_writeable(out);
  if (st != CUARR_OK)
    return st;
  if (cuarr_array_device(out) != CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "random: the host fill needs a host array");
  if (!cuarr_array_is_c_contiguous(out))
    return cuarr_fail(CUARR_VALUE_ERROR, "random: the host fill needs a C-contiguous array");
  bool integers = d->dist == CUARR_RANDOM_INTEGERS;
  if (integers ? !cuarr_dtype_is_integer(out->dtype)
               : out->dtype != CUARR_FLOAT32 && out->dtype != CUARR_FLOAT64) {
    return cuarr_fail(CUARR_TYPE_ERROR, "random: cannot draw %s values",
                      cuarr_dtype_name(out->dtype));
  }
  int64_t n = cuarr_array_size(out);
  void *p = cuarr_array_data(out);
  if (n == 0)
    return CUARR_OK;
  bool f32 = out->dtype == CUARR_FLOAT32;
  switch (d->dist) {
  case CUARR_RANDOM_UNIFORM: f32 ? uniform_f32(d, p, n) : uniform_f64(d, p, n); break;
  case CUARR_RANDOM_NORMAL: f32 ? normal_f32(d, p, n) : normal_f64(d, p, n); break;
  case CUARR_RANDOM_EXPONENTIAL: f32 ? exponential_f32(d, p, n) : exponential_f64(d, p, n); break;
  case CUARR_RANDOM_INTEGERS: fill_integers(d, p, n, cuarr_dtype_size(out->dtype)); break;
  default: return cuarr_fail(CUARR_VALUE_ERROR, "random: unknown distribution %d", (int)d->dist);
  }
  return CUARR_OK;
}
