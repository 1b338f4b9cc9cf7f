/*
 * launch.c -- launching a loaded kernel: plainly, or as a programmatic dependent of the work
 * before it on the stream (Hopper and newer), with the status checked.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda/device_facts.h"
#include "internal.h"

cuarr_status cuarr_launch(CUfunction f, unsigned grid, unsigned block, unsigned shared_bytes,
                          CUstream stream, void **args) {
  if (!f)
    return cuarr_fail(CUARR_VALUE_ERROR, "launch of a NULL kernel");
  return cuarr_cu_check(
      cuarr_cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared_bytes, stream, args, NULL),
      "cuLaunchKernel");
}

cuarr_status cuarr_launch_dependent(int device, CUfunction f, unsigned grid, unsigned block,
                                    unsigned shared_bytes, CUstream stream, void **args) {
  return cuarr_launch_dependent_2d(device, f, grid, 1, block, 1, shared_bytes, stream, args);
}

cuarr_status cuarr_launch_dependent_2d(int device, CUfunction f, unsigned grid_x, unsigned grid_y,
                                       unsigned block_x, unsigned block_y, unsigned shared_bytes,
                                       CUstream stream, void **args) {
  if (!f)
    return cuarr_fail(CUARR_VALUE_ERROR, "launch of a NULL kernel");
  /* Dependent launches where the device's facts allow them (sm_90 and newer, unless
   * CUARR_DEPENDENT_LAUNCH=0 asks for plain ones, for measurements); plain ones elsewhere. */
  const cuarr_device_facts *facts;
  if (cuarr_device_facts_get(device, &facts) != CUARR_OK || !facts->dependent_launch)
    return cuarr_cu_check(cuarr_cu.cuLaunchKernel(f, grid_x, grid_y, 1, block_x, block_y, 1,
                                                  shared_bytes, stream, args, NULL),
                          "cuLaunchKernel");
  CUlaunchAttribute attr;
  memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config;
  memset(&config, 0, sizeof config);
  config.gridDimX = grid_x;
  config.gridDimY = grid_y;
  config.gridDimZ = 1;
  config.blockDimX = block_x;
  config.blockDimY = block_y;
  config.blockDimZ = 1;
  config.sharedMemBytes = shared_bytes;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cuarr_cu_check(cuarr_cu.cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx");
}
