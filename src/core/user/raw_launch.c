/*
 * raw_launch.c -- launching a RawKernel: the configuration checked against the kernel's and
 * the device's limits, each argument checked against its parameter and converted to the
 * parameter's own type in one aligned buffer on the stack, then one cuLaunchKernel.  Nothing
 * is allocated and nothing is queued unless every check passes.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/device_facts.h"
#include "user/raw.h"

/* ---------------------------------------------------------------- messages */

/* What an argument is, for messages: "4096.5", "true", "a float32 array". */
static void describe(const cuarr_raw_arg *a, char *buf, size_t size) {
  switch (a->kind) {
  case CUARR_RAW_ARG_INTEGER: snprintf(buf, size, "%lld", (long long)a->i); break;
  case CUARR_RAW_ARG_FLOAT: snprintf(buf, size, "%.14g", a->f); break;
  case CUARR_RAW_ARG_BOOL: snprintf(buf, size, "%s", a->b ? "true" : "false"); break;
  case CUARR_RAW_ARG_ARRAY:
    if (!a->array)
      snprintf(buf, size, "no array");
    else
      snprintf(buf, size, "a %s%s array", cuarr_array_device(a->array) == CUARR_HOST ? "host " : "",
               cuarr_dtype_name(a->array->dtype));
    break;
  }
}

/* "argument 3 of mulReg is int, got 4096.5" (and a reason after it, when there is one). */
static cuarr_status wrong(cuarr_status kind, const cuarr_raw_kernel *k, int i,
                          const cuarr_raw_arg *a, const char *why) {
  char got[64];
  describe(a, got, sizeof got);
  return cuarr_fail(kind, "argument %d of %s is %s, got %s%s", i + 1, k->name, k->params[i].spelled,
                    got, why);
}

/* ---------------------------------------------------------------- values */

/* The integer value of a, or an error: a float with no integer value is a TypeError, a value
 * outside [lo, hi] a ValueError.  lo and hi as doubles bound floats before conversion. */
static cuarr_status integer_value(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                                  int64_t lo, uint64_t hi, uint64_t *bits) {
  if (a->kind == CUARR_RAW_ARG_FLOAT) {
    if (!(a->f == floor(a->f)) || !isfinite(a->f))
      return wrong(CUARR_TYPE_ERROR, k, i, a, " (not an integer)");
    if (a->f < (double)lo || a->f >= ldexp((double)(hi / 2 + 1), 1))
      return wrong(CUARR_VALUE_ERROR, k, i, a, " (out of its range)");
    *bits = a->f < 0 ? (uint64_t)(int64_t)a->f : (uint64_t)a->f;
    return CUARR_OK;
  }
  if (a->kind != CUARR_RAW_ARG_INTEGER)
    return wrong(CUARR_TYPE_ERROR, k, i, a, "");
  if (a->i < lo || (a->i > 0 && (uint64_t)a->i > hi))
    return wrong(CUARR_VALUE_ERROR, k, i, a, " (out of its range)");
  *bits = (uint64_t)a->i;
  return CUARR_OK;
}

static void store_bits(unsigned char *at, uint64_t bits, int size) {
  switch (size) {
  case 1: *at = (unsigned char)bits; break;
  case 2: {
    uint16_t v = (uint16_t)bits;
    memcpy(at, &v, 2);
    break;
  }
  case 4: {
    uint32_t v = (uint32_t)bits;
    memcpy(at, &v, 4);
    break;
  }
  default: memcpy(at, &bits, 8); break;
  }
}

static cuarr_status put_integer(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                                unsigned char *at) {
  const cuarr_raw_param *p = &k->params[i];
  int bits_n = 8 * p->size;
  if (p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8)
    return wrong(CUARR_TYPE_ERROR, k, i, a, " (no Lua value has that size)");
  int64_t lo = 0;
  uint64_t hi;
  if (p->kind == CUARR_RAW_PARAM_UNSIGNED) {
    hi = bits_n == 64 ? UINT64_MAX : (UINT64_C(1) << bits_n) - 1;
  } else {
    lo = bits_n == 64 ? INT64_MIN : -(INT64_C(1) << (bits_n - 1));
    hi = bits_n == 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (bits_n - 1)) - 1;
    if (p->kind == CUARR_RAW_PARAM_SIZED && bits_n < 64)
      hi = (UINT64_C(1) << bits_n) - 1; /* signed or not: either spelling of the bits */
  }
  uint64_t bits = 0;
  CUARR_TRY(integer_value(k, i, a, lo, hi, &bits));
  store_bits(at, bits, p->size);
  return CUARR_OK;
}

static cuarr_status put_float(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                              unsigned char *at) {
  const cuarr_raw_param *p = &k->params[i];
  double v;
  if (a->kind == CUARR_RAW_ARG_FLOAT)
    v = a->f;
  else if (a->kind == CUARR_RAW_ARG_INTEGER)
    v = (double)a->i;
  else
    return wrong(CUARR_TYPE_ERROR, k, i, a, "");
  double max = p->size == 2 ? 65504.0 : p->size == 4 ? (double)FLT_MAX : DBL_MAX;
  if (isfinite(v) && fabs(v) > max)
    return wrong(CUARR_VALUE_ERROR, k, i, a, " (out of its range)");
  if (p->size == 2) {
    uint16_t h = cuarr_float_to_half((float)v);
    memcpy(at, &h, 2);
  } else if (p->size == 4) {
    float f = (float)v;
    memcpy(at, &f, 4);
  } else if (p->size == 8) {
    memcpy(at, &v, 8);
  } else {
    return wrong(CUARR_TYPE_ERROR, k, i, a, " (no Lua value has that size)");
  }
  return CUARR_OK;
}

static cuarr_status put_pointer(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                                unsigned char *at) {
  const cuarr_raw_param *p = &k->params[i];
  if (a->kind != CUARR_RAW_ARG_ARRAY || !a->array)
    return wrong(CUARR_TYPE_ERROR, k, i, a, " (pass an array)");
  const cuarr_array *arr = a->array;
  if (!arr->buf || !arr->buf->ptr)
    return wrong(CUARR_VALUE_ERROR, k, i, a, " (the array has been freed)");
  int device = cuarr_array_device(arr);
  if (device == CUARR_HOST)
    return wrong(CUARR_TYPE_ERROR, k, i, a, " (kernels take device arrays)");
  if (device != k->device) {
    char why[96];
    snprintf(why, sizeof why, " on device %d (the kernel is on device %d)", device, k->device);
    return wrong(CUARR_VALUE_ERROR, k, i, a, why);
  }
  if (p->pointee >= 0 && (int)arr->dtype != p->pointee)
    return wrong(CUARR_TYPE_ERROR, k, i, a, "");
  if (p->size != 8)
    return wrong(CUARR_TYPE_ERROR, k, i, a, " (a pointer is 8 bytes)");
  uint64_t address = (uint64_t)(uintptr_t)((char *)arr->buf->ptr + arr->offset);
  memcpy(at, &address, 8);
  return CUARR_OK;
}

/* A parameter known by its size alone: an array is a pointer (8 bytes), a Lua integer an
 * integer of that size, a boolean one byte; a float, or an integer for 8 bytes (a pointer or
 * an int64?), cannot be told apart from garbage. */
static cuarr_status put_sized(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                              unsigned char *at) {
  const cuarr_raw_param *p = &k->params[i];
  if (a->kind == CUARR_RAW_ARG_ARRAY && p->size == 8)
    return put_pointer(k, i, a, at);
  if (a->kind == CUARR_RAW_ARG_BOOL && p->size == 1) {
    *at = a->b;
    return CUARR_OK;
  }
  if (a->kind == CUARR_RAW_ARG_INTEGER && p->size < 8)
    return put_integer(k, i, a, at);
  return wrong(CUARR_TYPE_ERROR, k, i, a,
               " (its type is unknown: declare the kernel in CUDA C source so that cuarr can "
               "read its signature, or pass an array for a pointer)");
}

static cuarr_status put_arg(const cuarr_raw_kernel *k, int i, const cuarr_raw_arg *a,
                            unsigned char *at) {
  switch (k->params[i].kind) {
  case CUARR_RAW_PARAM_BOOL:
    if (a->kind != CUARR_RAW_ARG_BOOL)
      return wrong(CUARR_TYPE_ERROR, k, i, a, " (pass true or false)");
    *at = a->b;
    return CUARR_OK;
  case CUARR_RAW_PARAM_SIGNED:
  case CUARR_RAW_PARAM_UNSIGNED: return put_integer(k, i, a, at);
  case CUARR_RAW_PARAM_FLOAT: return put_float(k, i, a, at);
  case CUARR_RAW_PARAM_POINTER: return put_pointer(k, i, a, at);
  case CUARR_RAW_PARAM_SIZED: return put_sized(k, i, a, at);
  case CUARR_RAW_PARAM_OTHER: break;
  }
  return wrong(CUARR_TYPE_ERROR, k, i, a, " (no Lua value converts to that type)");
}

/* ---------------------------------------------------------------- the configuration */

static cuarr_status bad_config(const cuarr_raw_kernel *k, const cuarr_raw_launch_config *c,
                               const char *why) {
  return cuarr_fail(CUARR_CUDA_ERROR,
                    "kernel %s cannot launch with grid (%u, %u, %u), block (%u, %u, %u), "
                    "shared_mem %u: %s",
                    k->name, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
                    c->block[2], c->shared_mem, why);
}

static cuarr_status check_config(const cuarr_raw_kernel *k, const cuarr_raw_launch_config *c) {
  static const char axes[] = "xyz";
  char why[160];
  uint64_t threads = 1;
  for (int d = 0; d < 3; d++) {
    if (c->grid[d] < 1 || c->block[d] < 1)
      return bad_config(k, c, "every extent must be at least 1");
    if (c->grid[d] > (unsigned)k->max_grid[d]) {
      snprintf(why, sizeof why, "the device's grid is at most %d along %c", k->max_grid[d],
               axes[d]);
      return bad_config(k, c, why);
    }
    if (c->block[d] > (unsigned)k->max_block[d]) {
      snprintf(why, sizeof why, "the device's block is at most %d along %c", k->max_block[d],
               axes[d]);
      return bad_config(k, c, why);
    }
    threads *= c->block[d];
  }
  if (threads > (uint64_t)k->max_threads_per_block) {
    snprintf(why, sizeof why, "%llu threads per block, more than the kernel's %d",
             (unsigned long long)threads, k->max_threads_per_block);
    return bad_config(k, c, why);
  }
  if (c->shared_mem > (unsigned)k->max_dynamic_shared) {
    snprintf(why, sizeof why,
             "more dynamic shared memory than the kernel's max_dynamic_shared_size_bytes %d",
             k->max_dynamic_shared);
    return bad_config(k, c, why);
  }
  return CUARR_OK;
}

/* ---------------------------------------------------------------- launching */

/* A launch that may overlap the tail of the work before it on the stream (the kernel waits
 * for it with griddepcontrol.wait): it hides most of the launch latency.  A plain launch where
 * the device's facts do not allow it. */
static CUresult launch_dependent(const cuarr_raw_kernel *k, const cuarr_raw_launch_config *c,
                                 CUstream stream, void **pointers) {
  const cuarr_device_facts *facts;
  if (cuarr_device_facts_get(k->device, &facts) != CUARR_OK || !facts->dependent_launch)
    return cuarr_cu.cuLaunchKernel(k->function, c->grid[0], c->grid[1], c->grid[2], c->block[0],
                                   c->block[1], c->block[2], c->shared_mem, stream, pointers, NULL);
  CUlaunchAttribute attr;
  memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config;
  memset(&config, 0, sizeof config);
  config.gridDimX = c->grid[0];
  config.gridDimY = c->grid[1];
  config.gridDimZ = c->grid[2];
  config.blockDimX = c->block[0];
  config.blockDimY = c->block[1];
  config.blockDimZ = c->block[2];
  config.sharedMemBytes = c->shared_mem;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cuarr_cu.cuLaunchKernelEx(&config, k->function, pointers, NULL);
}

cuarr_status cuarr_raw_kernel_launch(cuarr_context *ctx, const cuarr_raw_kernel *k,
                                     const cuarr_raw_launch_config *config,
                                     const cuarr_raw_arg *args, int n_args) {
  if (!k || !config || (n_args > 0 && !args))
    return cuarr_fail(CUARR_VALUE_ERROR, "a launch needs a kernel, a configuration and args");
  CUARR_TRY(check_config(k, config));
  if (k->n_params < 0)
    return cuarr_fail(CUARR_NOT_AVAILABLE,
                      "the parameter list of kernel %s is unknown (the driver is older than "
                      "CUDA 12.4 and the module has no CUDA C source): it cannot be launched "
                      "safely",
                      k->name);
  if (n_args != k->n_params)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s takes %d arguments, got %d", k->name,
                      k->n_params, n_args);
  CUstream stream;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, k->device, &stream));

  _Alignas(16) unsigned char buffer[CUARR_RAW_PARAM_BYTES];
  void *pointers[CUARR_RAW_MAX_PARAMS];
  for (int i = 0; i < n_args; i++) {
    unsigned char *at = buffer + k->params[i].offset;
    CUARR_TRY(put_arg(k, i, &args[i], at));
    pointers[i] = at;
  }
  CUARR_TRY(cuarr_device_activate(k->device));
  CUresult r = k->dependent ? launch_dependent(k, config, stream, pointers)
                            : cuarr_cu.cuLaunchKernel(k->function, config->grid[0], config->grid[1],
                                                      config->grid[2], config->block[0],
                                                      config->block[1], config->block[2],
                                                      config->shared_mem, stream, pointers, NULL);
  if (r == CUDA_SUCCESS)
    return CUARR_OK;
  const char *name = NULL, *text = NULL;
  cuarr_cu.cuGetErrorName(r, &name);
  cuarr_cu.cuGetErrorString(r, &text);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "launching kernel %s: %s", k->name,
                      text ? text : "out of memory");
  return cuarr_fail(CUARR_CUDA_ERROR,
                    "launching kernel %s with grid (%u, %u, %u), block (%u, %u, %u), shared_mem "
                    "%u: %s (%s)",
                    k->name, config->grid[0], config->grid[1], config->grid[2], config->block[0],
                    config->block[1], config->block[2], config->shared_mem,
                    name ? name : "CUDA error", text ? text : "");
}
