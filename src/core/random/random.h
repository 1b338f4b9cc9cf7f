/*
 * random.h -- the generator of kernels/include/philox.cuh for the host loops.
 *
 * The .cuh lives in kernels/ because tools/embed.sh embeds the .cuh files there for NVRTC; C
 * needs the standard headers before it (memcpy for its bit casts, sqrt).
 */
#ifndef CUARR_RANDOM_H
#define CUARR_RANDOM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../../kernels/include/philox.cuh"

#endif
