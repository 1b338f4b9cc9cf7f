/*
 * mask_host.c -- the mask operations' C loops over host arrays: the mask is C-contiguous and
 * read as words of its width (index/mask.h), a's rows are copied as bytes.
 */
#include <string.h>

#include "index/mask.h"

/* Whether mask element i is nonzero. */
static inline bool nonzero_at(const cuarr_mask_view *m, const unsigned char *p, int64_t i) {
  switch (m->width) {
  case 1: return (p[i] & (uint8_t)m->test) != 0;
  case 2: {
    uint16_t w;
    memcpy(&w, p + 2 * i, 2);
    return (w & (uint16_t)m->test) != 0;
  }
  case 4: {
    uint32_t w;
    memcpy(&w, p + 4 * i, 4);
    return (w & (uint32_t)m->test) != 0;
  }
  default: {
    uint64_t w;
    memcpy(&w, p + 8 * i, 8);
    return (w & m->test) != 0;
  }
  }
}

static const unsigned char *mask_bytes(const cuarr_mask_view *m) {
  return (const unsigned char *)cuarr_array_data(&m->mask);
}

int64_t cuarr_mask_host_count(const cuarr_mask_view *m) {
  const unsigned char *p = mask_bytes(m);
  int64_t count = 0;
  for (int64_t i = 0; i < m->n; i++)
    count += nonzero_at(m, p, i);
  return count;
}

void cuarr_mask_host_positions(const cuarr_mask_view *m, int ndim, const int64_t *shape,
                               int64_t base, int64_t count, int64_t *out) {
  const unsigned char *p = mask_bytes(m);
  int64_t idx[CUARR_MAXDIM] = {0};
  int64_t j = 0;
  for (int64_t i = 0; i < m->n; i++) {
    if (nonzero_at(m, p, i)) {
      for (int d = 0; d < ndim; d++)
        out[d * count + j] = idx[d] + base;
      j++;
    }
    for (int d = ndim - 1; d >= 0; d--) { /* the next element's index, C order */
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

void cuarr_mask_host_select(const cuarr_mask_view *m, const char *a, int64_t rows, size_t size,
                            char *out) {
  const unsigned char *p = mask_bytes(m);
  const size_t row = (size_t)rows * size;
  for (int64_t i = 0; i < m->n; i++)
    if (nonzero_at(m, p, i)) {
      memcpy(out, a + (size_t)i * row, row);
      out += row;
    }
}

void cuarr_mask_host_assign(const cuarr_mask_view *m, char *a, int64_t rows, size_t size,
                            const char *values, int64_t vs0, int64_t vs1) {
  const unsigned char *p = mask_bytes(m);
  const size_t row = (size_t)rows * size;
  int64_t j = 0;
  for (int64_t i = 0; i < m->n; i++)
    if (nonzero_at(m, p, i)) {
      char *dst = a + (size_t)i * row;
      const char *src = values + j * vs0;
      if (vs1 == (int64_t)size)
        memcpy(dst, src, row);
      else
        for (int64_t r = 0; r < rows; r++)
          memcpy(dst + (size_t)r * size, src + r * vs1, size);
      j++;
    }
}
