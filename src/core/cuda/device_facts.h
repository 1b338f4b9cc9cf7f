/*
 * device_facts.h -- what the engines need to know of each device, in one place: its
 * architecture, its multiprocessors and the launch geometry that follows from them, and
 * whether it takes dependent launches and unified addresses.
 *
 * The facts of a device are asked of the driver once, on first use, and never change; they
 * are published whole, so every later read is a bounds check and one acquire load, with no
 * lock.  The elementwise, copy, reduce and scan engines and the launcher read them here
 * instead of each keeping its own copy.
 */
#ifndef CUARR_CUDA_DEVICE_FACTS_H
#define CUARR_CUDA_DEVICE_FACTS_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cuarr.h"

/* The grid cap of the grid-stride kernels (elementwise, copy, fill), per multiprocessor: more
 * blocks than are resident at once, so that the last wave of a launch is a small share of the
 * work whatever the occupancy. */
#define CUARR_GRID_STRIDE_BLOCKS_PER_SM 128

typedef struct cuarr_device_facts {
  int arch;                    /* compute capability as major*10+minor (90 for sm_90) */
  unsigned multiprocessors;    /* at least 1 */
  unsigned grid_stride_blocks; /* multiprocessors x CUARR_GRID_STRIDE_BLOCKS_PER_SM */
  bool dependent_launch;       /* programmatic dependent launches: sm_90 and newer, unless
                                  CUARR_DEPENDENT_LAUNCH=0 (read once) asks for plain ones */
  bool unified_addressing;     /* host and device share one address space */
} cuarr_device_facts;

/* Published facts by ordinal; NULL until the device's first use.  Read through
 * cuarr_device_facts_get. */
extern _Atomic(const cuarr_device_facts *) cuarr_device_facts_published[CUARR_MAX_DEVICES];

/* The slow path of cuarr_device_facts_get: check the device, ask the driver, publish. */
cuarr_status cuarr_device_facts_fill(int device, const cuarr_device_facts **out);

/* The device's facts; fails as cuarr_device_check does for a device that does not exist, or
 * with the driver's error. */
static inline cuarr_status cuarr_device_facts_get(int device, const cuarr_device_facts **out) {
  if ((unsigned)device < CUARR_MAX_DEVICES) {
    const cuarr_device_facts *f =
        atomic_load_explicit(&cuarr_device_facts_published[device], memory_order_acquire);
    if (f) {
      *out = f;
      return CUARR_OK;
    }
  }
  return cuarr_device_facts_fill(device, out);
}

#endif
