/*
 * util.h -- small helpers the parts of src/core/kernel/ share: how far a kernel operand reaches
 * from its element (0, ..., 0) (the copy kernels and the elementwise engine both index operands
 * from their lowest touched element), and the in-memory caches' hash.  Private to
 * src/core/kernel/.
 */
#ifndef CUARR_KERNEL_UTIL_H
#define CUARR_KERNEL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* *acc += extent_minus_1 * |stride|; false on overflow. */
static inline bool cuarr_span_add_extent(int64_t extent_minus_1, int64_t stride, int64_t *acc) {
  int64_t term;
  if (stride == INT64_MIN)
    return false;
  if (__builtin_mul_overflow(extent_minus_1, stride < 0 ? -stride : stride, &term))
    return false;
  return !__builtin_add_overflow(*acc, term, acc);
}

/* Elements before element (0, ..., 0) (*below) and from the lowest to the highest touched
 * element (*span) of an operand of ndim axes (shape, element strides); false when either
 * does not fit in int64_t. */
static inline bool cuarr_span_of(int ndim, const int64_t *shape, const int64_t *strides,
                                 int64_t *below, int64_t *span) {
  int64_t lo = 0, hi = 0; /* elements before and after element (0,...,0) */
  bool ok = true;
  for (int d = 0; d < ndim && ok; d++)
    ok = cuarr_span_add_extent(shape[d] - 1, strides[d], strides[d] < 0 ? &lo : &hi);
  if (!ok || __builtin_add_overflow(lo, hi, span))
    return false;
  *below = lo;
  return true;
}

/* The starting value of cuarr_hash_bytes (FNV's 64-bit offset basis). */
#define CUARR_HASH_SEED UINT64_C(0xcbf29ce484222325)

/* n bytes at p folded into h, eight at a time (kernel sources are kilobytes long and hashed on
 * every call; dispatch keys on every launch); collisions cost only a comparison, since the
 * caches compare whole keys on a hit. */
static inline uint64_t cuarr_hash_bytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  const uint64_t k = 0x9e3779b97f4a7c15u;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  memcpy(&w, p, n);
  h = (h ^ w ^ ((uint64_t)n << 56)) * k;
  return h ^ (h >> 32);
}

#endif
