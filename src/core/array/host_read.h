/*
 * host_read.h -- how the host reduction and scan loops (reduce_host.c, scan_host.c) read their
 * input: in place as its own dtype, or converted in blocks into the dtype they work in.
 */
#ifndef CUARR_ARRAY_HOST_READ_H
#define CUARR_ARRAY_HOST_READ_H

#include <stdint.h>
#include <string.h>

#include "array/cast.h"

/* The host loops' walk over one row: for each of the n values at x (stepping xs bytes) as `v`
 * of type T, with its position k, run the statement; contiguous values get their own loop, with
 * a stride the compiler knows.  x, xs and n are the calling loop's own variables. */
#define CUARR_HOST_EACH(T, ...)                                                                    \
  do {                                                                                             \
    if (xs == (int64_t)sizeof(T)) {                                                                \
      for (int64_t k = 0; k < n; k++) {                                                            \
        T v;                                                                                       \
        memcpy(&v, x + k * (int64_t)sizeof(T), sizeof v);                                          \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    } else {                                                                                       \
      for (int64_t k = 0; k < n; k++) {                                                            \
        T v;                                                                                       \
        memcpy(&v, x + k * xs, sizeof v);                                                          \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* Elements converted at a time (the callers' buffers hold this many of 8 bytes). */
#define CUARR_HOST_READ_BLOCK 256

typedef struct cuarr_host_read {
  cuarr_dtype in;  /* the input's storage dtype */
  cuarr_dtype via; /* converted through this first (a float16 accumulator), or val */
  cuarr_dtype val; /* the dtype the loops read */
  bool in_place;   /* the input is read where it is, as dtype val */
} cuarr_host_read;

/* Read as stored (integer arithmetic modulo 2^n, truth tests). */
static inline cuarr_host_read cuarr_host_read_raw(cuarr_dtype in) {
  return (cuarr_host_read){in, in, in, true};
}

/* Read converted to the accumulator: float16 accumulates in float32, rounding each element to
 * float16 first unless it is one already. */
static inline cuarr_host_read cuarr_host_read_as(cuarr_dtype in, cuarr_dtype acc) {
  cuarr_host_read r = {.in = in};
  r.val = acc == CUARR_FLOAT16 ? CUARR_FLOAT32 : acc;
  r.via = acc == CUARR_FLOAT16 && in != CUARR_FLOAT16 ? CUARR_FLOAT16 : r.val;
  /* bool bytes other than 0/1 are made 0/1 by converting them, even from bool storage */
  r.in_place = in == r.via && r.via == r.val && r.val != CUARR_BOOL;
  return r;
}

/* n values at x (stepping xs; n <= CUARR_HOST_READ_BLOCK unless in place) as dtype val: in
 * place, or converted into buf; *step is the result's stride. */
static inline const char *cuarr_host_read_load(const cuarr_host_read *r, const char *x, int64_t xs,
                                               int64_t n, char *buf, int64_t *step) {
  if (r->in_place) {
    *step = xs;
    return x;
  }
  _Alignas(16) char tmp[CUARR_HOST_READ_BLOCK * 8];
  cuarr_dtype from = r->in;
  if (r->via != r->val) {
    int64_t ts = (int64_t)cuarr_dtype_size(r->via);
    cuarr_cast_rows[r->via][from](tmp, ts, x, xs, n);
    from = r->via;
    x = tmp;
    xs = ts;
  }
  *step = (int64_t)cuarr_dtype_size(r->val);
  cuarr_cast_rows[r->val][from](buf, *step, x, xs, n);
  return buf;
}

#endif
