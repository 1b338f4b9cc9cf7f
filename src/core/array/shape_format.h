/*
 * shape_format.h -- shapes written as NumPy writes them in its messages: "(2,3)", "(4,)", "()".
 * Shared by the core's messages.
 */
#ifndef CUARR_ARRAY_SHAPE_FORMAT_H
#define CUARR_ARRAY_SHAPE_FORMAT_H

#include <inttypes.h>
#include <stdio.h>

#include "cuarr.h"

/* Enough for CUARR_MAXDIM extents of 20 digits and a sign each. */
#define CUARR_SHAPE_STR_SIZE (CUARR_MAXDIM * 22 + 4)

static inline const char *cuarr_shape_format(char buf[CUARR_SHAPE_STR_SIZE], int ndim,
                                             const int64_t *shape) {
  size_t n = 0;
  buf[n++] = '(';
  for (int i = 0; i < ndim && i < CUARR_MAXDIM; i++) {
    n +=
        (size_t)snprintf(buf + n, CUARR_SHAPE_STR_SIZE - n, i ? ",%" PRId64 : "%" PRId64, shape[i]);
  }
  if (ndim == 1)
    buf[n++] = ',';
  buf[n++] = ')';
  buf[n] = '\0';
  return buf;
}

#endif
