/*
 * host_sort.c -- sorting and searching host arrays' rows: a stable LSD radix sort over the keys
 * of sort/key_transform.h (the device library's keys, so both place NaNs, -0.0 and ties alike),
 * one byte a pass, passes whose byte is the same for every key skipped; rows of up to 32 keys by
 * insertion sort.  The C library's qsort is not stable, which argsort must be.
 */
#include <stdlib.h>
#include <string.h>

#include "sort/sort_internal.h"

enum { SHORT_ROW = 32 };

static uint64_t load_bits(const unsigned char *p, int width) {
  switch (width) {
  case 1: return *p;
  case 2: {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

static void store_bits(unsigned char *p, int width, uint64_t bits) {
  switch (width) {
  case 1: *p = (unsigned char)bits; break;
  case 2: {
    uint16_t v = (uint16_t)bits;
    memcpy(p, &v, 2);
    break;
  }
  case 4: {
    uint32_t v = (uint32_t)bits;
    memcpy(p, &v, 4);
    break;
  }
  default: memcpy(p, &bits, 8);
  }
}

static void insertion_sort(uint64_t *key, int64_t *idx, int64_t len) {
  for (int64_t j = 1; j < len; j++) {
    const uint64_t k = key[j];
    const int64_t v = idx[j];
    int64_t i = j;
    for (; i > 0 && key[i - 1] > k; i--) { /* strictly greater: equal keys keep their order */
      key[i] = key[i - 1];
      idx[i] = idx[i - 1];
    }
    key[i] = k;
    idx[i] = v;
  }
}

/* Sort (key, idx) stably by key over `width` bytes; the result is in *key / *idx, which may
 * come back swapped with the spare buffers. */
static void radix_sort(uint64_t **key, int64_t **idx, uint64_t **key2, int64_t **idx2, int64_t len,
                       int width) {
  if (len <= SHORT_ROW) {
    insertion_sort(*key, *idx, len);
    return;
  }
  for (int pass = 0; pass < width; pass++) {
    const int shift = 8 * pass;
    int64_t count[257] = {0};
    uint64_t *k = *key, *k2 = *key2;
    int64_t *v = *idx, *v2 = *idx2;
    for (int64_t j = 0; j < len; j++)
      count[((k[j] >> shift) & 0xff) + 1]++;
    if (count[((k[0] >> shift) & 0xff) + 1] == len)
      continue; /* one byte value for every key: this pass would move nothing */
    for (int d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (int64_t j = 0; j < len; j++) {
      const int64_t to = count[(k[j] >> shift) & 0xff]++;
      k2[to] = k[j];
      v2[to] = v[j];
    }
    *key = k2;
    *key2 = k;
    *idx = v2;
    *idx2 = v;
  }
}

cuarr_status cuarr_sort_host_rows(int kind, int width, const void *keys_in, const int64_t *perm,
                                  void *keys_out, int64_t *indices_out, int64_t n,
                                  int64_t seg_len) {
  if (n <= 0 || seg_len <= 0)
    return CUARR_OK;
  const int merge = keys_out == NULL;
  const size_t len = (size_t)seg_len;
  if (len > SIZE_MAX / 32)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "sort: rows of %lld elements do not fit in memory",
                      (long long)seg_len);
  uint64_t *scratch = malloc(len * 4 * sizeof(uint64_t));
  if (!scratch)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "sort: out of host memory for %lld bytes of scratch",
                      (long long)(len * 4 * sizeof(uint64_t)));
  const unsigned char *in = keys_in;
  unsigned char *out = keys_out;
  for (int64_t base = 0; base < n; base += seg_len) {
    uint64_t *key = scratch, *key2 = scratch + len;
    int64_t *idx = (int64_t *)(scratch + 2 * len), *idx2 = (int64_t *)(scratch + 3 * len);
    for (int64_t j = 0; j < seg_len; j++) {
      const int64_t from = perm ? perm[base + j] - 1 : j;
      key[j] = cuarr_sk_encode(load_bits(in + (size_t)(base + from) * (size_t)width, width), kind,
                               width, merge);
      idx[j] = from + 1;
    }
    radix_sort(&key, &idx, &key2, &idx2, seg_len, width);
    if (out)
      for (int64_t j = 0; j < seg_len; j++)
        store_bits(out + (size_t)(base + j) * (size_t)width, width,
                   cuarr_sk_decode(key[j], kind, width));
    if (indices_out)
      memcpy(indices_out + base, idx, len * sizeof(int64_t));
  }
  free(scratch);
  return CUARR_OK;
}

void cuarr_searchsorted_host(int kind, int width, const void *sorted, int64_t n,
                             const int64_t *sorter, const void *values, int64_t m, bool right,
                             int64_t *out) {
  const unsigned char *s = sorted, *v = values;
  for (int64_t j = 0; j < m; j++) {
    const uint64_t key =
        cuarr_sk_encode(load_bits(v + (size_t)j * (size_t)width, width), kind, width, 1);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const int64_t at = sorter ? sorter[mid] - 1 : mid;
      const uint64_t k =
          cuarr_sk_encode(load_bits(s + (size_t)at * (size_t)width, width), kind, width, 1);
      if (right ? k <= key : k < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    out[j] = lo + 1;
  }
}
