/*
 * math.h -- the ufuncs' scalar functions (kernels/include/ufunc_math.cuh) for the host loops.
 *
 * The functions are written once for C and CUDA, so that both backends compute the same thing;
 * the .cuh lives in kernels/ because tools/embed.sh embeds the .cuh files there for NVRTC.  C needs
 * the standard headers and the float16 conversions of array/cast.h before it.
 */
#ifndef CUARR_UFUNC_MATH_H
#define CUARR_UFUNC_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "array/cast.h"

#include "../../../kernels/include/ufunc_math.cuh"

#endif
