/*
 * raw_kernel.c -- a RawKernel's parameter list and attributes.
 *
 * The driver (cuFuncGetParamInfo, CUDA 12.4 and newer) tells each parameter's offset and size,
 * not whether 4 bytes are an int or a float, nor whether 8 are a pointer; the signature probe
 * compiled into a module from source (raw_signature.h) tells the types.  With both, they must
 * agree (else the driver's sizes are kept and the kinds dropped); with only the types, the
 * offsets follow the ABI's natural alignment; with only sizes, launches pass integers of those
 * sizes and arrays as pointers, and refuse what they cannot tell apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user/raw.h"
#include "user/raw_signature.h"

/* Count, offsets and sizes from the driver into offsets/sizes (max entries); -1 when the
 * driver cannot tell (no cuFuncGetParamInfo, or it answers otherwise than for an index past
 * the end). */
static int driver_params(CUfunction f, int *offsets, int *sizes, int max) {
  if (!cuarr_cu.cuFuncGetParamInfo)
    return -1;
  for (int i = 0; i <= max; i++) {
    size_t offset = 0, size = 0;
    CUresult r = cuarr_cu.cuFuncGetParamInfo(f, (size_t)i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE)
      return i; /* past the last parameter */
    if (r != CUDA_SUCCESS || i == max)
      return -1;
    offsets[i] = (int)offset;
    sizes[i] = (int)size;
  }
  return -1;
}

/* The decoded parameter types of kernel `name` of a probed module into types; -1 when there
 * is no probe for it or its name does not decode. */
static int decoded_params(const cuarr_module *loaded, const char *name, cuarr_param_type *types,
                          int max) {
  char expr[1024];
  if (!cuarr_signature_expression(name, expr, sizeof expr))
    return -1;
  const char *lowered = cuarr_module_lowered_name(loaded, expr);
  int n = 0;
  if (!lowered || cuarr_signature_decode(lowered, types, max, &n) != CUARR_OK)
    return -1;
  return n;
}

static void spell_sized(cuarr_raw_param *p) {
  snprintf(p->spelled, sizeof p->spelled, "a %d-byte parameter", p->size);
}

_Static_assert((int)CUARR_RAW_PARAM_BOOL == (int)CUARR_PARAM_BOOL &&
                   (int)CUARR_RAW_PARAM_SIGNED == (int)CUARR_PARAM_SIGNED &&
                   (int)CUARR_RAW_PARAM_UNSIGNED == (int)CUARR_PARAM_UNSIGNED &&
                   (int)CUARR_RAW_PARAM_FLOAT == (int)CUARR_PARAM_FLOAT &&
                   (int)CUARR_RAW_PARAM_POINTER == (int)CUARR_PARAM_POINTER &&
                   (int)CUARR_RAW_PARAM_OTHER == (int)CUARR_PARAM_OTHER,
               "the public parameter kinds are the signature's");

cuarr_status cuarr_raw_kernel_learn_params(cuarr_raw_kernel *k, const cuarr_module *loaded,
                                           bool probed) {
  enum { MAX = CUARR_SIGNATURE_MAX };
  int *offsets = malloc(2 * MAX * sizeof *offsets), *sizes = offsets ? offsets + MAX : NULL;
  cuarr_param_type *types = malloc(MAX * sizeof *types);
  if (!offsets || !types) {
    free(offsets);
    free(types);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a parameter list");
  }
  int nd = driver_params(k->function, offsets, sizes, MAX);
  int nt = probed ? decoded_params(loaded, k->name, types, MAX) : -1;
  /* Types that disagree with the driver's sizes are not trusted. */
  if (nd >= 0 && nt >= 0) {
    bool agree = nd == nt;
    for (int i = 0; agree && i < nd; i++)
      agree = types[i].kind == CUARR_PARAM_OTHER || types[i].size == sizes[i];
    if (!agree)
      nt = -1;
  }
  int n = nd >= 0 ? nd : nt;
  cuarr_status s = CUARR_OK;
  if (n >= 0) {
    k->params = calloc((size_t)(n ? n : 1), sizeof *k->params);
    if (!k->params)
      s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a parameter list");
  }
  int end = 0;
  for (int i = 0; s == CUARR_OK && i < n; i++) {
    cuarr_raw_param *p = &k->params[i];
    p->pointee = -1;
    if (nt >= 0) {
      p->kind = (cuarr_raw_param_kind)types[i].kind;
      p->size = types[i].size;
      p->pointee = types[i].pointee;
      snprintf(p->spelled, sizeof p->spelled, "%s", types[i].spelled);
    } else {
      p->kind = CUARR_RAW_PARAM_SIZED;
    }
    if (nd >= 0) {
      p->size = sizes[i];
      p->offset = offsets[i];
    } else if (p->size <= 0) {
      /* A class passed by value (OTHER), of a size the decoder does not know: no Lua value
       * converts to it, so a launch fails on it before it needs any later offset. */
      p->offset = end;
    } else {
      p->offset = (end + p->size - 1) / p->size * p->size; /* scalars and pointers: naturally
                                                              aligned */
    }
    if (p->kind == CUARR_RAW_PARAM_SIZED)
      spell_sized(p);
    if (p->offset + p->size > end)
      end = p->offset + p->size;
  }
  if (s == CUARR_OK && end > CUARR_RAW_PARAM_BYTES)
    s = cuarr_fail(CUARR_VALUE_ERROR, "kernel %s takes %d bytes of parameters, more than %d",
                   k->name, end, CUARR_RAW_PARAM_BYTES);
  if (s == CUARR_OK && n < 0) {
    free(k->params);
    k->params = NULL;
  }
  k->n_params = n;
  k->params_bytes = end;
  free(offsets);
  free(types);
  return s;
}

int cuarr_raw_kernel_n_params(const cuarr_raw_kernel *k) { return k->n_params; }

cuarr_status cuarr_raw_kernel_param(const cuarr_raw_kernel *k, int i, cuarr_raw_param *out) {
  if (k->n_params < 0)
    return cuarr_fail(CUARR_NOT_AVAILABLE, "the parameter list of kernel %s is unknown", k->name);
  if (i < 0 || i >= k->n_params)
    return cuarr_fail(CUARR_INDEX_ERROR, "kernel %s has %d parameters, not %d", k->name,
                      k->n_params, i + 1);
  *out = k->params[i];
  return CUARR_OK;
}

/* ---------------------------------------------------------------- attributes */

cuarr_status cuarr_raw_kernel_attributes_get(const cuarr_raw_kernel *k,
                                             cuarr_raw_kernel_attributes *out) {
  static const struct {
    CUfunction_attribute attr;
    size_t offset;
  } wanted[] = {
#define ATTR(a, field) {a, offsetof(cuarr_raw_kernel_attributes, field)}
      ATTR(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, max_threads_per_block),
      ATTR(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, shared_size_bytes),
      ATTR(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, const_size_bytes),
      ATTR(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, local_size_bytes),
      ATTR(CU_FUNC_ATTRIBUTE_NUM_REGS, num_regs),
      ATTR(CU_FUNC_ATTRIBUTE_PTX_VERSION, ptx_version),
      ATTR(CU_FUNC_ATTRIBUTE_BINARY_VERSION, binary_version),
      ATTR(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, cache_mode_ca),
      ATTR(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dynamic_shared_size_bytes),
      ATTR(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, preferred_shared_memory_carveout),
#undef ATTR
  };
  cuarr_raw_kernel_attributes a;
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    int v = 0;
    CUARR_TRY(cuarr_cu_check(cuarr_cu.cuFuncGetAttribute(&v, wanted[i].attr, k->function),
                             "cuFuncGetAttribute"));
    memcpy((char *)&a + wanted[i].offset, &v, sizeof v);
  }
  *out = a;
  return CUARR_OK;
}

void cuarr_raw_kernel_set_dependent_launch(cuarr_raw_kernel *k, bool on) {
  if (k)
    k->dependent = on;
}

cuarr_status cuarr_raw_kernel_set_max_dynamic_shared(cuarr_raw_kernel *k, int bytes) {
  CUdevice dev;
  int optin = 0, fixed = 0;
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuDeviceGet(&dev, k->device), "cuDeviceGet"));
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuDeviceGetAttribute(
                               &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
                           "cuDeviceGetAttribute"));
  CUARR_TRY(cuarr_cu_check(
      cuarr_cu.cuFuncGetAttribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function),
      "cuFuncGetAttribute"));
  if (bytes < 0 || bytes > optin - fixed)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "max_dynamic_shared_size_bytes of kernel %s must be 0 to %d (the device's "
                      "%d bytes per block less the kernel's %d static ones), got %d",
                      k->name, optin - fixed, optin, fixed, bytes);
  CUARR_TRY(cuarr_device_activate(k->device));
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuFuncSetAttribute(
                               k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
                           "cuFuncSetAttribute"));
  k->max_dynamic_shared = bytes;
  return CUARR_OK;
}
