/*
 * host_register.c -- page-locking memory cuarr did not allocate as pinned, and asking the
 * driver what a foreign pointer is.
 *
 * cuarr_buffer_pin registers a host buffer's bytes with cuMemHostRegister (portable, so every
 * context sees them pinned) and marks the buffer pinned, so that transfers take the
 * asynchronous path; cuarr_buffer_unpin undoes it once the transfers still reading or writing
 * the buffer are done.  Numba's `cuda.pinned(...)` scope is built on the two.
 *
 * cuarr_pointer_range checks that a device address received through the CUDA array interface
 * is device memory the driver knows, and says of which device and how far its allocation goes.
 */
#include <stdint.h>

#include "internal.h"

/* Registration is done in device 0's primary context, which cuarr never destroys (as the pinned
 * pool's allocations are); the thread's own context is put back afterwards. */

cuarr_status cuarr_buffer_pin(cuarr_buffer *b, bool *registered) {
  *registered = false;
  if (b->device != CUARR_HOST)
    return cuarr_fail(CUARR_TYPE_ERROR, "only host memory can be page-locked");
  if (!b->ptr)
    return cuarr_fail(CUARR_VALUE_ERROR, "array has been freed");
  if (b->pinned || b->nbytes == 0)
    return CUARR_OK; /* pinned already (the pinned pool, an outer scope), or nothing to lock */
  CUARR_TRY(cuarr_load_driver());
  CUcontext saved;
  CUARR_TRY(cuarr_device_context_push(0, &saved));
  CUresult r = cuarr_cu.cuMemHostRegister(b->ptr, b->nbytes, CU_MEMHOSTREGISTER_PORTABLE);
  cuarr_device_context_pop(saved);
  if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    return CUARR_OK; /* someone else's registration: theirs to undo, and not ours to rely on */
  CUARR_TRY(cuarr_cu_check(r, "cuMemHostRegister"));
  b->pinned = true;
  *registered = true;
  return CUARR_OK;
}

cuarr_status cuarr_buffer_unpin(cuarr_buffer *b, void *ptr) {
  /* An asynchronous transfer may still be reading or writing the pages. */
  cuarr_defer_wait_for(b);
  b->pinned = false;
  CUcontext saved;
  CUARR_TRY(cuarr_device_context_push(0, &saved));
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuMemHostUnregister(ptr), "cuMemHostUnregister");
  cuarr_device_context_pop(saved);
  return s;
}

cuarr_status cuarr_pointer_range(uintptr_t ptr, int *device, uintptr_t *start, size_t *size) {
  CUARR_TRY(cuarr_load_driver());
  CUdeviceptr d = (CUdeviceptr)ptr, range_start = 0;
  unsigned memory_type = 0;
  int ordinal = -1;
  size_t range_size = 0;
  if (cuarr_cu.cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d) !=
          CUDA_SUCCESS ||
      memory_type != CU_MEMORYTYPE_DEVICE)
    return cuarr_fail(CUARR_VALUE_ERROR, "0x%llx is not device memory the driver knows",
                      (unsigned long long)ptr);
  CUARR_CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
  CUARR_CU(cuPointerGetAttribute(&range_start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d));
  CUARR_CU(cuPointerGetAttribute(&range_size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d));
  *device = ordinal;
  *start = (uintptr_t)range_start;
  *size = range_size;
  return CUARR_OK;
}
