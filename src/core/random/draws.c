/*
 * draws.c -- what a draw is: how many values one Philox block gives and so how far a draw of n
 * values advances its state's counter, the same for the host loops and the device kernels.
 */
#include "internal.h"
#include "random/random.h"

int cuarr_random_per_block(const cuarr_random_draw *d, cuarr_dtype dtype) {
  if (d->dist == CUARR_RANDOM_INTEGERS)
    return d->m <= 0xffffffffu ? CUARR_RNG_PER_BLOCK_32 : CUARR_RNG_PER_BLOCK_64;
  return dtype == CUARR_FLOAT32 ? CUARR_RNG_PER_BLOCK_32 : CUARR_RNG_PER_BLOCK_64;
}

uint64_t cuarr_random_blocks(const cuarr_random_draw *d, cuarr_dtype dtype, int64_t n) {
  uint64_t per = (uint64_t)cuarr_random_per_block(d, dtype);
  return n <= 0 ? 0 : ((uint64_t)n + per - 1) / per;
}
