/* fake_arrays.h -- array descriptors over fake device buffers for the C tests that check which
 * calls take a short way: their memory is never touched, so no GPU is needed. */
#ifndef CUARR_FAKE_ARRAYS_H
#define CUARR_FAKE_ARRAYS_H
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* A C-contiguous array of buf at byte offset `offset`. */
static inline cuarr_array array_of(cuarr_buffer *buf, cuarr_dtype d, int ndim, const int64_t *shape,
                                   int64_t offset) {
  cuarr_array a = {.buf = buf, .dtype = d, .ndim = ndim, .offset = offset};
  memcpy(a.shape, shape, (size_t)ndim * sizeof *shape);
  cuarr_strides_c(ndim, shape, cuarr_dtype_size(d), a.strides);
  return a;
}
#endif
