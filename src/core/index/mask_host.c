/*
 * mask_host.c -- the mask operations' C loops over host arrays: the mask is C-contiguous and
 * read as words of its width (index/mask.h), a's rows are copied as bytes.
 *
 * A random mask makes a branch per element a misprediction every other element, which costs
 * more than the work: the loops of single elements store every element and advance the output
 * by the mask's bit (the stores past the last selected element go to a spare), and the widths
 * are dispatched once per call, outside the loops.
 */
#include <string.h>

#include "index/mask.h"

/* For each mask element i (words of type U at p, n of them): `nz` (0 or 1) whether it is
 * nonzero, then the statement. */
#define MASK_EACH(U, m, p, n, ...)                                                                 \
  do {                                                                                             \
    const U test_ = (U)(m)->test;                                                                  \
    for (int64_t i = 0; i < (n); i++) {                                                            \
      U w_;                                                                                        \
      memcpy(&w_, (p) + i * (int64_t)sizeof(U), sizeof w_);                                        \
      const int64_t nz = (w_ & test_) != 0;                                                        \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  } while (0)

/* The statement once per mask width. */
#define MASK_DISPATCH(m, p, n, ...)                                                                \
  do {                                                                                             \
    switch ((m)->width) {                                                                          \
    case 1: MASK_EACH(uint8_t, m, p, n, __VA_ARGS__); break;                                       \
    case 2: MASK_EACH(uint16_t, m, p, n, __VA_ARGS__); break;                                      \
    case 4: MASK_EACH(uint32_t, m, p, n, __VA_ARGS__); break;                                      \
    default: MASK_EACH(uint64_t, m, p, n, __VA_ARGS__); break;                                     \
    }                                                                                              \
  } while (0)

static const unsigned char *mask_bytes(const cuarr_mask_view *m) {
  return (const unsigned char *)cuarr_array_data(&m->mask);
}

int64_t cuarr_mask_host_count(const cuarr_mask_view *m) {
  const unsigned char *p = mask_bytes(m);
  int64_t count = 0;
  MASK_DISPATCH(m, p, m->n, count += nz);
  return count;
}

void cuarr_mask_host_positions(const cuarr_mask_view *m, int ndim, const int64_t *shape,
                               int64_t base, int64_t count, int64_t *out) {
  const unsigned char *p = mask_bytes(m);
  if (ndim == 1) {
    int64_t j = 0, spare;
    MASK_DISPATCH(m, p, m->n, {
      *(j < count ? &out[j] : &spare) = i + base;
      j += nz;
    });
    return;
  }
  int64_t idx[CUARR_MAXDIM] = {0};
  int64_t j = 0;
  MASK_DISPATCH(m, p, m->n, {
    if (nz) {
      for (int d = 0; d < ndim; d++)
        out[d * count + j] = idx[d] + base;
      j++;
    }
    for (int d = ndim - 1; d >= 0; d--) { /* the next element's index, C order */
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  });
}

/* out[j] = a[i_j] for elements of type T. */
#define SELECT_ONE(T)                                                                              \
  do {                                                                                             \
    T spare;                                                                                       \
    int64_t j = 0;                                                                                 \
    MASK_DISPATCH(m, p, m->n, {                                                                    \
      T v;                                                                                         \
      memcpy(&v, a + i * (int64_t)sizeof(T), sizeof v);                                            \
      memcpy(j < count ? (void *)(out + j * (int64_t)sizeof(T)) : (void *)&spare, &v, sizeof v);   \
      j += nz;                                                                                     \
    });                                                                                            \
  } while (0)

void cuarr_mask_host_select(const cuarr_mask_view *m, const char *a, int64_t rows, size_t size,
                            int64_t count, char *out) {
  const unsigned char *p = mask_bytes(m);
  if (rows == 1) {
    switch (size) {
    case 1: SELECT_ONE(uint8_t); return;
    case 2: SELECT_ONE(uint16_t); return;
    case 4: SELECT_ONE(uint32_t); return;
    default: SELECT_ONE(uint64_t); return;
    }
  }
  const size_t row = (size_t)rows * size;
  MASK_DISPATCH(m, p, m->n, {
    if (nz) {
      memcpy(out, a + (size_t)i * row, row);
      out += row;
    }
  });
}

void cuarr_mask_host_assign(const cuarr_mask_view *m, char *a, int64_t rows, size_t size,
                            const char *values, int64_t vs0, int64_t vs1) {
  const unsigned char *p = mask_bytes(m);
  const size_t row = (size_t)rows * size;
  int64_t j = 0;
  MASK_DISPATCH(m, p, m->n, {
    if (nz) {
      char *dst = a + (size_t)i * row;
      const char *src = values + j * vs0;
      if (vs1 == (int64_t)size)
        memcpy(dst, src, row);
      else
        for (int64_t r = 0; r < rows; r++)
          memcpy(dst + (size_t)r * size, src + r * vs1, size);
      j++;
    }
  });
}
