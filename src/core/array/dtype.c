/*
 * dtype.c -- the twelve dtypes: sizes, names, CUDA C type names, predicates, float16, and
 * storing and loading typed scalars with cuarr's casting rules (array/cast.h holds the rules),
 * and the one range rule for a scalar (a Lua number) that becomes an element.
 */
#include <string.h>

#include "array/cast.h"
#include "cuarr.h"

typedef struct dtype_info {
  const char *name;
  const char *ctype; /* as generated kernels spell it; __half_t is the kernels' own struct */
  const char *codes; /* NumPy char codes */
  size_t size;
} dtype_info;

static const dtype_info infos[CUARR_NDTYPES] = {
    [CUARR_BOOL] = {"bool", "bool", "?", 1},
    [CUARR_INT8] = {"int8", "signed char", "b", 1},
    [CUARR_INT16] = {"int16", "short", "h", 2},
    [CUARR_INT32] = {"int32", "int", "i", 4},
    [CUARR_INT64] = {"int64", "long long", "lq", 8},
    [CUARR_UINT8] = {"uint8", "unsigned char", "B", 1},
    [CUARR_UINT16] = {"uint16", "unsigned short", "H", 2},
    [CUARR_UINT32] = {"uint32", "unsigned int", "I", 4},
    [CUARR_UINT64] = {"uint64", "unsigned long long", "LQ", 8},
    [CUARR_FLOAT16] = {"float16", "__half_t", "e", 2},
    [CUARR_FLOAT32] = {"float32", "float", "f", 4},
    [CUARR_FLOAT64] = {"float64", "double", "d", 8},
};

static bool valid(cuarr_dtype d) { return (unsigned)d < CUARR_NDTYPES; }

size_t cuarr_dtype_size(cuarr_dtype d) { return valid(d) ? infos[d].size : 0; }
const char *cuarr_dtype_name(cuarr_dtype d) { return valid(d) ? infos[d].name : "unknown"; }
const char *cuarr_dtype_ctype(cuarr_dtype d) { return valid(d) ? infos[d].ctype : NULL; }

bool cuarr_dtype_from_name(const char *name, cuarr_dtype *out) {
  if (!name || !*name)
    return false;
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    bool is_code = name[1] == '\0' && strchr(infos[d].codes, name[0]) != NULL;
    if (is_code || strcmp(name, infos[d].name) == 0) {
      *out = (cuarr_dtype)d;
      return true;
    }
  }
  return false;
}

bool cuarr_dtype_is_bool(cuarr_dtype d) { return d == CUARR_BOOL; }
bool cuarr_dtype_is_signed(cuarr_dtype d) { return d >= CUARR_INT8 && d <= CUARR_INT64; }
bool cuarr_dtype_is_unsigned(cuarr_dtype d) { return d >= CUARR_UINT8 && d <= CUARR_UINT64; }
bool cuarr_dtype_is_integer(cuarr_dtype d) { return d >= CUARR_INT8 && d <= CUARR_UINT64; }
bool cuarr_dtype_is_float(cuarr_dtype d) { return d >= CUARR_FLOAT16 && d <= CUARR_FLOAT64; }

uint16_t cuarr_float_to_half(float f) { return cuarr_cast_double_to_half((double)f); }
float cuarr_half_to_float(uint16_t h) { return cuarr_cast_half_to_float(h); }

void cuarr_scalar_store(cuarr_scalar s, cuarr_dtype to, void *out) {
  switch (to) {
#define STORE_CASE(_, name, ENUM, load_t, store_t, cls)                                            \
  case ENUM: {                                                                                     \
    store_t r;                                                                                     \
    if (s.dtype == CUARR_BOOL)                                                                     \
      r = cuarr_cast_##name##_from_u64(s.v.b);                                                     \
    else if (cuarr_dtype_is_signed(s.dtype))                                                       \
      r = cuarr_cast_##name##_from_i64(s.v.i);                                                     \
    else if (cuarr_dtype_is_unsigned(s.dtype))                                                     \
      r = cuarr_cast_##name##_from_u64(s.v.u);                                                     \
    else                                                                                           \
      r = cuarr_cast_##name##_from_f64(s.v.f);                                                     \
    memcpy(out, &r, sizeof r);                                                                     \
    return;                                                                                        \
  }
    CUARR_DTYPE_LIST(STORE_CASE, _)
#undef STORE_CASE
  case CUARR_NDTYPES: break;
  }
}

cuarr_scalar cuarr_scalar_load(const void *p, cuarr_dtype d) {
  cuarr_scalar s;
  memset(&s, 0, sizeof s);
  s.dtype = d;
  switch (d) {
#define LOAD_B(x) s.v.b = (x) != 0
#define LOAD_I(x) s.v.i = (x)
#define LOAD_U(x) s.v.u = (x)
#define LOAD_H(x) s.v.f = (double)cuarr_cast_half_to_float(x)
#define LOAD_F(x) s.v.f = (double)(x)
#define LOAD_CASE(_, name, ENUM, load_t, store_t, cls)                                             \
  case ENUM: {                                                                                     \
    load_t x;                                                                                      \
    memcpy(&x, p, sizeof x);                                                                       \
    LOAD_##cls(x);                                                                                 \
    break;                                                                                         \
  }
    CUARR_DTYPE_LIST(LOAD_CASE, _)
#undef LOAD_CASE
  case CUARR_NDTYPES: break;
  }
  return s;
}

int cuarr_scalar_range_side(cuarr_scalar s, cuarr_dtype d) {
  int bits = (int)cuarr_dtype_size(d) * 8;
  if (cuarr_dtype_is_signed(d)) {
    int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1)), hi = -(lo + 1);
    if (cuarr_dtype_is_unsigned(s.dtype))
      return s.v.u > (uint64_t)hi ? 1 : 0;
    return s.v.i < lo ? -1 : s.v.i > hi ? 1 : 0;
  }
  uint64_t hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  if (cuarr_dtype_is_unsigned(s.dtype))
    return s.v.u > hi ? 1 : 0;
  return s.v.i < 0 ? -1 : (uint64_t)s.v.i > hi ? 1 : 0;
}

cuarr_status cuarr_scalar_out_of_bounds(cuarr_scalar s, cuarr_dtype d) {
  if (cuarr_dtype_is_unsigned(s.dtype))
    return cuarr_fail(CUARR_VALUE_ERROR, "integer %llu out of bounds for %s",
                      (unsigned long long)s.v.u, cuarr_dtype_name(d));
  return cuarr_fail(CUARR_VALUE_ERROR, "integer %lld out of bounds for %s", (long long)s.v.i,
                    cuarr_dtype_name(d));
}

cuarr_status cuarr_scalar_check_element(cuarr_scalar s, cuarr_dtype to) {
  if (!cuarr_dtype_is_integer(s.dtype) || !cuarr_dtype_is_integer(to))
    return CUARR_OK; /* floats saturate, bool is (x != 0), float dtypes round (to inf) */
  /* A signed integer is a uint64 element's 64 bits: the way an element >= 2^63, which reads
   * back as a negative Lua integer, is written again (as Lua's 0xFFFFFFFFFFFFFFFF is -1). */
  if (to == CUARR_UINT64 && cuarr_dtype_is_signed(s.dtype))
    return CUARR_OK;
  return cuarr_scalar_range_side(s, to) == 0 ? CUARR_OK : cuarr_scalar_out_of_bounds(s, to);
}
