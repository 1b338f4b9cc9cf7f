/*
 * hash.h -- the hash of the in-memory caches: kernel sources (hashed on every call that looks a
 * program up) and dispatch keys (on every launch).
 */
#ifndef CUARR_COMPILE_HASH_H
#define CUARR_COMPILE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
