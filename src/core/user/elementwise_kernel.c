/*
 * user/ -- user kernels: ElementwiseKernel, ReductionKernel and their parameter lists.
 *
 * elementwise_kernel.c -- user elementwise kernels with CuPy's semantics (cuarr.h):
 *
 *   cuarr_elementwise_kernel_new("float32 x, T y, raw T z", "T w", "w = x + y + z[i]", "k", ...)
 *
 * Parameters are `[raw] type name`: the type is a dtype name (float32, ...) or a one-letter
 * placeholder (T), as CuPy's ParameterInfo reads them (CuPy takes no C aliases: "float" is an
 * error there too).  Each call binds the placeholders from the arguments' dtypes, checks them,
 * allocates the outputs it is not given, and runs the kernel through the elementwise engine
 * (elementwise.c) with one program per kernel, whose cache keeps the compiled variants.
 *
 * Binding, as CuPy's _decide_params_type: an array argument binds its placeholder to its dtype
 * (outputs first, then inputs) and must match a declared dtype or an earlier binding exactly
 * (CUARR_TYPE_ERROR otherwise: nothing is converted).  Scalars bind nothing in CuPy; here a
 * placeholder that only scalars carry is bound from them rather than failing: a Lua integer
 * as int64, a Lua float as the default float dtype, a boolean as bool, a typed scalar as its
 * dtype, the highest kind winning.  Scalars are then converted to their parameter's dtype.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "elementwise/elementwise.h"
#include "user/kernel_params.h"

struct cuarr_elementwise_kernel {
  int nin, nout;
  cuarr_kparam *params; /* nin inputs, then nout outputs */
  char *name, *operation, *preamble, *loop_prep, *after_loop;
  char **options;
  int n_options;
  cuarr_ew_program program;
};

/* ---------------------------------------------------------------- parsing */

void cuarr_elementwise_kernel_free(cuarr_elementwise_kernel *k) {
  if (!k)
    return;
  cuarr_ew_program_release(&k->program);
  cuarr_kp_free(k->params, k->nin + k->nout);
  cuarr_kp_free_options(k->options, k->n_options);
  free(k->name);
  free(k->operation);
  free(k->preamble);
  free(k->loop_prep);
  free(k->after_loop);
  free(k);
}

cuarr_status cuarr_elementwise_kernel_new(const char *in_params, const char *out_params,
                                          const char *operation, const char *name,
                                          const cuarr_elementwise_kernel_options *opts,
                                          cuarr_elementwise_kernel **out) {
  *out = NULL;
  if (!in_params || !out_params || !operation)
    return cuarr_fail(CUARR_VALUE_ERROR, "a kernel needs in_params, out_params and operation");
  CUARR_TRY(cuarr_kp_check_name_options(&name, "kernel" /* CuPy's default */,
                                        opts ? opts->options : NULL, opts ? opts->n_options : 0));
  cuarr_elementwise_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel");
  int count = 0;
  cuarr_status s = cuarr_kp_parse_signature(in_params, out_params, &k->params, &k->nin, &count);
  k->nout = count - k->nin;
  if (s != CUARR_OK) {
    cuarr_elementwise_kernel_free(k);
    return s;
  }

  bool failed = false;
  k->name = cuarr_kp_dup(name, &failed);
  k->operation = cuarr_kp_dup(operation, &failed);
  if (opts) {
    k->preamble = cuarr_kp_dup(opts->preamble, &failed);
    k->loop_prep = cuarr_kp_dup(opts->loop_prep, &failed);
    k->after_loop = cuarr_kp_dup(opts->after_loop, &failed);
    if (s == CUARR_OK)
      s = cuarr_kp_copy_options(opts->options, opts->n_options, &k->options, &k->n_options);
  }
  if (s == CUARR_OK && failed)
    s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel");
  if (s != CUARR_OK) {
    cuarr_elementwise_kernel_free(k);
    return s;
  }
  k->program = (cuarr_ew_program){
      .name = k->name,
      .operation = k->operation,
      .preamble = k->preamble,
      .loop_prep = k->loop_prep,
      .after_loop = k->after_loop,
      .options = (const char *const *)k->options,
      .n_options = k->n_options,
      .whole_vectors = true,
  };
  *out = k;
  return CUARR_OK;
}

int cuarr_elementwise_kernel_nin(const cuarr_elementwise_kernel *k) { return k ? k->nin : 0; }
int cuarr_elementwise_kernel_nout(const cuarr_elementwise_kernel *k) { return k ? k->nout : 0; }

/* ---------------------------------------------------------------- calling */

static bool is_host(const cuarr_array *a) { return cuarr_array_device(a) == CUARR_HOST; }

static cuarr_status check_device_array(const cuarr_kparam *p, const cuarr_array *a) {
  CUARR_TRY(cuarr_array_check_live(a));
  if (is_host(a))
    return cuarr_fail(CUARR_VALUE_ERROR, "ElementwiseKernel runs on the device: %s is a host array",
                      p->name);
  return CUARR_OK;
}

cuarr_status cuarr_elementwise_kernel_call(cuarr_context *ctx, cuarr_elementwise_kernel *k,
                                           int device, const cuarr_operand *in,
                                           cuarr_array *outputs, int64_t size,
                                           cuarr_dtype weak_float_dtype) {
  if (!k)
    return cuarr_fail(CUARR_VALUE_ERROR, "no kernel");
  if (device == CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "ElementwiseKernel runs on the device (kernel %s)",
                      k->name);
  if (size < -1)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: size must be non-negative", k->name);
  if ((k->nin > 0 && !in) || (k->nout > 0 && !outputs))
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: missing arguments", k->name);
  const cuarr_kparam *ins = k->params, *outs = k->params + k->nin;

  /* Placeholders: outputs given, then input arrays, as CuPy; then scalars for the rest. */
  cuarr_kp_binding b;
  cuarr_kp_binding_init(&b);
  for (int j = 0; j < k->nout; j++) {
    if (!outputs[j].buf)
      continue;
    CUARR_TRY(cuarr_array_check_writeable(&outputs[j]));
    CUARR_TRY(check_device_array(&outs[j], &outputs[j]));
    CUARR_TRY(cuarr_kp_bind_array(&outs[j], &outputs[j], &b));
  }
  for (int j = 0; j < k->nin; j++) {
    if (!in[j].array)
      continue;
    CUARR_TRY(check_device_array(&ins[j], in[j].array));
    CUARR_TRY(cuarr_kp_bind_array(&ins[j], in[j].array, &b));
  }
  cuarr_dtype types[CUARR_EW_MAX_OPERANDS];
  CUARR_TRY(cuarr_kp_bind_types(k->name, k->params, k->nin, k->nin + k->nout, in, weak_float_dtype,
                                &b, types));
  /* A Lua number becomes its parameter's type: one that type cannot hold is refused, as
   * everywhere a Lua number meets a dtype. */
  for (int j = 0; j < k->nin; j++)
    if (!in[j].array && in[j].weak)
      CUARR_TRY(cuarr_scalar_check_element(in[j].scalar, types[j]));

  /* The loop's shape: the non-raw arrays broadcast together (given outputs too, as CuPy), or
   * `size` when there are none. */
  int ndim = 0;
  int64_t shape[CUARR_MAXDIM];
  bool any_array = false;
  for (int j = 0; j < k->nin + k->nout; j++) {
    const cuarr_array *a = j < k->nin                ? in[j].array
                           : outputs[j - k->nin].buf ? &outputs[j - k->nin]
                                                     : NULL;
    if (!a || k->params[j].raw)
      continue;
    if (!cuarr_kp_broadcast_into(&ndim, shape, a)) {
      char sa[CUARR_SHAPE_STR_SIZE], sb[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "kernel %s: operands could not be broadcast together: %s has shape %s, "
                        "the others %s",
                        k->name, k->params[j].name, cuarr_shape_format(sa, a->ndim, a->shape),
                        cuarr_shape_format(sb, ndim, shape));
    }
    any_array = true;
  }
  if (size >= 0 && any_array)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "kernel %s: size can be given only when every array is raw", k->name);
  if (size < 0 && !any_array)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "kernel %s: the loop size is undecided (give size when every array is "
                      "raw)",
                      k->name);
  if (size >= 0) {
    ndim = 1;
    shape[0] = size;
  }
  for (int j = 0; j < k->nout; j++) {
    const cuarr_array *a = &outputs[j];
    if (!a->buf) {
      if (outs[j].raw && size < 0)
        return cuarr_fail(CUARR_VALUE_ERROR,
                          "kernel %s: the size of raw output %s is undecided (give it, or "
                          "size)",
                          k->name, outs[j].name);
      continue;
    }
    if (!outs[j].raw &&
        (a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof *shape) != 0)) {
      char sa[CUARR_SHAPE_STR_SIZE], sb[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: output %s has shape %s, not %s", k->name,
                        outs[j].name, cuarr_shape_format(sa, a->ndim, a->shape),
                        cuarr_shape_format(sb, ndim, shape));
    }
  }

  /* Allocate the missing outputs, then run. */
  cuarr_reclaim none = {NULL, NULL};
  void *stream = ctx && ctx->stream ? ctx->stream->handle : NULL;
  bool made[CUARR_EW_MAX_OPERANDS] = {false};
  cuarr_status s = CUARR_OK;
  for (int j = 0; j < k->nout && s == CUARR_OK; j++) {
    if (outputs[j].buf)
      continue;
    s = cuarr_array_empty(device, types[k->nin + j], ndim, shape, false, stream,
                          ctx ? ctx->reclaim : none, &outputs[j]);
    made[j] = s == CUARR_OK;
  }
  if (s == CUARR_OK) {
    cuarr_ew_operand ops[CUARR_EW_MAX_OPERANDS];
    for (int j = 0; j < k->nin + k->nout; j++) {
      const cuarr_kparam *p = &k->params[j];
      bool output = j >= k->nin;
      ops[j] = (cuarr_ew_operand){
          .array = output ? &outputs[j - k->nin] : in[j].array,
          .scalar = output ? (cuarr_scalar){0} : in[j].scalar,
          .var_dtype = types[j],
          .name = p->name,
          .raw = p->raw,
          .output = output,
          .type_name = p->dtype < 0 ? p->placeholder : NULL,
      };
      if (!ops[j].array)
        ops[j].raw = false; /* a scalar for a raw parameter is just a scalar */
    }
    /* With `size`, any non-raw array here is an output just made with shape (size,): its
     * shape gives the loop (as in CuPy), and the engine takes a size only for all-raw calls. */
    int64_t launch_size = size;
    for (int j = 0; j < k->nin + k->nout && launch_size >= 0; j++)
      if (ops[j].array && !ops[j].raw)
        launch_size = -1;
    s = cuarr_ew_launch(ctx, device, &k->program, k->nin + k->nout, ops, launch_size);
  }
  if (s != CUARR_OK)
    for (int j = 0; j < k->nout; j++)
      if (made[j])
        cuarr_array_release(&outputs[j]); /* leaves it empty (buf NULL) as it came */
  return s;
}
