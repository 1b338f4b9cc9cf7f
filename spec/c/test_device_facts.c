/*
 * test_device_facts.c -- the per-device facts (src/core/cuda/device_facts.h) as the engines
 * read them, against the fake driver of tools/fake_cuda (one "Fake H100": sm_90, 132
 * multiprocessors, unified addressing), so that it runs without a GPU.
 *
 * The Makefile builds the fake and passes its path as CUARR_FAKE_LIBCUDA.
 */
#include <stdlib.h>

#include "ctest.h"
#include "internal.h"

int main(void) {
  /* Before the first driver call: the loader reads it then. */
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  unsetenv("CUARR_DEPENDENT_LAUNCH");

  const cuarr_device_facts *f = NULL;
  cuarr_status s = cuarr_device_facts_get(0, &f);
  CHECK(s == CUARR_OK && f, "device 0's facts are filled on first use");
  if (s != CUARR_OK) {
    printf("# %s\n", cuarr_last_error());
    return ctest_done();
  }
  CHECK(f->arch == 90, "arch is major*10+minor");
  CHECK(f->multiprocessors == 132, "multiprocessors as the driver reports them");
  CHECK(f->grid_stride_blocks == 132u * CUARR_GRID_STRIDE_BLOCKS_PER_SM,
        "the grid-stride cap is multiprocessors x CUARR_GRID_STRIDE_BLOCKS_PER_SM");
  CHECK(f->dependent_launch, "sm_90 takes dependent launches");
  CHECK(f->unified_addressing, "unified addressing as the driver reports it");

  const cuarr_device_facts *again = NULL;
  CHECK(cuarr_device_facts_get(0, &again) == CUARR_OK && again == f,
        "a second read is the same published facts");
  int arch = 0;
  CHECK(cuarr_device_arch(0, &arch) == CUARR_OK && arch == 90, "cuarr_device_arch reads them");

  s = cuarr_device_facts_get(1, &again);
  CHECK(s == CUARR_VALUE_ERROR, "a device that does not exist is a ValueError");
  s = cuarr_device_facts_get(-1, &again);
  CHECK(s == CUARR_VALUE_ERROR, "a negative ordinal is a ValueError");
  s = cuarr_device_facts_get(CUARR_MAX_DEVICES, &again);
  CHECK(s == CUARR_VALUE_ERROR, "an ordinal past CUARR_MAX_DEVICES is a ValueError");
  CHECK(again == f, "a failed read leaves the output alone");
  return ctest_done();
}
