/*
 * device_facts.c -- filling a device's facts (device_facts.h) on its first use.
 *
 * Each device's facts live in a static slot, written once under a lock and then published by
 * pointer; a slot is never written again, so readers need no lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

_Atomic(const cuarr_device_facts *) cuarr_device_facts_published[CUARR_MAX_DEVICES];

static cuarr_device_facts facts[CUARR_MAX_DEVICES];
static pthread_mutex_t fill_lock = PTHREAD_MUTEX_INITIALIZER;

static cuarr_status attribute(CUdevice dev, CUdevice_attribute which, const char *name, int *out) {
  return cuarr_cu_check(cuarr_cu.cuDeviceGetAttribute(out, which, dev), name);
}

static cuarr_status ask_driver(int device, cuarr_device_facts *f) {
  CUdevice dev;
  int major = 0, minor = 0, sms = 0, unified = 0;
  CUARR_CU(cuDeviceGet(&dev, device));
  CUARR_TRY(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                      "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)", &major));
  CUARR_TRY(attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                      "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", &minor));
  CUARR_TRY(attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                      "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)", &sms));
  /* Without the answer the device is taken not to have it (read-backs take the copy engine). */
  if (cuarr_cu.cuDeviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, dev) !=
      CUDA_SUCCESS)
    unified = 0;
  const char *env = getenv("CUARR_DEPENDENT_LAUNCH");
  bool dependent_off = env && strcmp(env, "0") == 0;

  f->arch = major * 10 + minor;
  f->multiprocessors = sms > 0 ? (unsigned)sms : 1;
  f->grid_stride_blocks = f->multiprocessors * CUARR_GRID_STRIDE_BLOCKS_PER_SM;
  f->dependent_launch = !dependent_off && f->arch >= 90;
  f->unified_addressing = unified != 0;
  return CUARR_OK;
}

cuarr_status cuarr_device_facts_fill(int device, const cuarr_device_facts **out) {
  CUARR_TRY(cuarr_device_check(device)); /* also: no driver; device < cuarr_device_count */
  pthread_mutex_lock(&fill_lock);
  const cuarr_device_facts *f =
      atomic_load_explicit(&cuarr_device_facts_published[device], memory_order_relaxed);
  cuarr_status s = CUARR_OK;
  if (!f) {
    s = ask_driver(device, &facts[device]);
    if (s == CUARR_OK) {
      f = &facts[device];
      atomic_store_explicit(&cuarr_device_facts_published[device], f, memory_order_release);
    }
  }
  pthread_mutex_unlock(&fill_lock);
  if (s == CUARR_OK)
    *out = f;
  return s;
}
