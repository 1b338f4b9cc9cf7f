/*
 * reduction_kernel.c -- user reduction kernels with CuPy's semantics (cuarr.h):
 *
 *   cuarr_reduction_kernel_new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm", ...)
 *
 * The parameter lists are parsed as ElementwiseKernel's (user/kernel_params.c); a call binds
 * the placeholders from its arguments (the output when given, then the input arrays, then the
 * scalars), broadcasts the non-raw inputs, allocates the output when it is not given, and runs
 * the reduction engine (reduce_engine.c) with one program per kernel, whose cache keeps the
 * compiled variants.  The reduce type is opts->reduce_type (a dtype or a placeholder), else
 * the output's type, as in CuPy.
 */
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "reduce/reduce_engine.h"
#include "user/kernel_params.h"

struct cuarr_reduction_kernel {
  int nin, n_params;
  cuarr_kparam *params;     /* nin inputs, then the output */
  cuarr_kparam reduce_type; /* its dtype or placeholder (name unused) */
  bool reduce_type_given;
  char *name, *map_expr, *reduce_expr, *post_expr, *identity, *preamble;
  char **options;
  int n_options;
  cuarr_red_program program;
};

void cuarr_reduction_kernel_free(cuarr_reduction_kernel *k) {
  if (!k)
    return;
  cuarr_red_program_release(&k->program);
  cuarr_kp_free(k->params, k->n_params);
  cuarr_kp_free_options(k->options, k->n_options);
  free(k->name);
  free(k->map_expr);
  free(k->reduce_expr);
  free(k->post_expr);
  free(k->identity);
  free(k->preamble);
  free(k);
}

int cuarr_reduction_kernel_nin(const cuarr_reduction_kernel *k) { return k ? k->nin : 0; }

cuarr_status cuarr_reduction_kernel_new(const char *in_params, const char *out_params,
                                        const char *map_expr, const char *reduce_expr,
                                        const char *post_map_expr, const char *identity,
                                        const char *name,
                                        const cuarr_reduction_kernel_options *opts,
                                        cuarr_reduction_kernel **out) {
  *out = NULL;
  if (!in_params || !out_params || !map_expr || !reduce_expr || !post_map_expr)
    return cuarr_fail(CUARR_VALUE_ERROR, "a reduction kernel needs in_params, out_params, "
                                         "map_expr, reduce_expr and post_map_expr");
  CUARR_TRY(cuarr_kp_check_name_options(&name, "reduce_kernel", opts ? opts->options : NULL,
                                        opts ? opts->n_options : 0));
  cuarr_reduction_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel");
  int count = 0;
  cuarr_status s = cuarr_kp_parse_signature(in_params, out_params, &k->params, &k->nin, &count);
  k->n_params = count;
  if (s == CUARR_OK && count - k->nin != 1)
    s = cuarr_fail(CUARR_VALUE_ERROR,
                   "a reduction kernel has exactly one output parameter, "
                   "not %d",
                   count - k->nin);
  if (s == CUARR_OK && k->params[k->nin].raw)
    s = cuarr_fail(CUARR_VALUE_ERROR, "the output of a reduction kernel cannot be raw");
  for (int i = 0; i < count && s == CUARR_OK; i++) {
    const char *n = k->params[i].name;
    if (!strcmp(n, "a") || !strcmp(n, "b") || !strcmp(n, "_i") || !strcmp(n, "_j") ||
        !strcmp(n, "_type_reduce"))
      s = cuarr_fail(CUARR_VALUE_ERROR,
                     "the name \"%s\" is reserved in a reduction (a, b, _i, _j, _type_reduce)", n);
  }
  if (s == CUARR_OK && opts && opts->reduce_type) {
    k->reduce_type_given = true;
    if (!cuarr_kp_parse_type(opts->reduce_type, strlen(opts->reduce_type), &k->reduce_type))
      s = cuarr_fail(CUARR_VALUE_ERROR,
                     "unknown reduce_type \"%s\" (a dtype name such as float32, or a one-letter "
                     "placeholder such as T)",
                     opts->reduce_type);
  }
  if (s != CUARR_OK) {
    cuarr_reduction_kernel_free(k);
    return s;
  }
  bool failed = false;
  k->name = cuarr_kp_dup(name, &failed);
  k->map_expr = cuarr_kp_dup(map_expr, &failed);
  k->reduce_expr = cuarr_kp_dup(reduce_expr, &failed);
  k->post_expr = cuarr_kp_dup(post_map_expr, &failed);
  k->identity = identity && *identity ? cuarr_kp_dup(identity, &failed) : NULL;
  if (opts) {
    k->preamble = cuarr_kp_dup(opts->preamble, &failed);
  }
  if (opts && !failed &&
      cuarr_kp_copy_options(opts->options, opts->n_options, &k->options, &k->n_options) != CUARR_OK)
    failed = true;
  if (failed) {
    cuarr_reduction_kernel_free(k);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel");
  }
  k->program = (cuarr_red_program){
      .name = k->name,
      .map_expr = k->map_expr,
      .reduce_expr = k->reduce_expr,
      .post_expr = k->post_expr,
      .identity = k->identity,
      .preamble = k->preamble,
      .options = (const char *const *)k->options,
      .n_options = k->n_options,
      .ordered = true, /* the map may use _j */
  };
  *out = k;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- calling */

static cuarr_status check_device_array(const cuarr_reduction_kernel *k, const cuarr_kparam *p,
                                       const cuarr_array *a, int device) {
  CUARR_TRY(cuarr_array_check_live(a));
  if (cuarr_array_device(a) != device)
    return cuarr_fail(CUARR_VALUE_ERROR, "ReductionKernel %s runs on device %d: %s is %s", k->name,
                      device, p->name,
                      cuarr_array_device(a) == CUARR_HOST ? "a host array" : "on another device");
  return CUARR_OK;
}

/* Placeholders: the given output, the input arrays, then scalars for the rest (see
 * cuarr_kp_bind_types: a Lua integer binds int64, a float the default float dtype). */
static cuarr_status bind(const cuarr_reduction_kernel *k, const cuarr_operand *in,
                         const cuarr_array *out, int device, cuarr_dtype weak_float,
                         cuarr_dtype *types, int *reduce) {
  cuarr_kp_binding b;
  cuarr_kp_binding_init(&b);
  const cuarr_kparam *ins = k->params, *op = &k->params[k->nin];
  if (out) {
    CUARR_TRY(check_device_array(k, op, out, device));
    CUARR_TRY(cuarr_kp_bind_array(op, out, &b));
  }
  for (int j = 0; j < k->nin; j++) {
    if (!in[j].array)
      continue;
    CUARR_TRY(check_device_array(k, &ins[j], in[j].array, device));
    CUARR_TRY(cuarr_kp_bind_array(&ins[j], in[j].array, &b));
  }
  CUARR_TRY(cuarr_kp_bind_types(k->name, k->params, k->nin, k->nin + 1, in, weak_float, &b, types));
  /* A Lua number becomes its parameter's type: one that type cannot hold is refused, as
   * everywhere a Lua number meets a dtype. */
  for (int j = 0; j < k->nin; j++)
    if (!in[j].array && in[j].weak)
      CUARR_TRY(cuarr_scalar_check_element(in[j].scalar, types[j]));
  *reduce = k->reduce_type_given ? cuarr_kp_type_of(&k->reduce_type, &b) : (int)types[k->nin];
  if (*reduce < 0)
    return cuarr_fail(CUARR_TYPE_ERROR, "kernel %s: cannot determine the reduce type %s", k->name,
                      k->reduce_type.placeholder);
  return CUARR_OK;
}

cuarr_status cuarr_reduction_kernel_call(cuarr_context *ctx, cuarr_reduction_kernel *k, int device,
                                         const cuarr_operand *in, uint64_t axes, bool keepdims,
                                         cuarr_dtype weak_float_dtype, cuarr_array *out) {
  if (!k || !out || (k->nin > 0 && !in))
    return cuarr_fail(CUARR_VALUE_ERROR, "no kernel, inputs or output");
  if (device == CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "ReductionKernel runs on the device (kernel %s)", k->name);
  const bool given = out->buf != NULL;
  CUARR_TRY(cuarr_array_check_writeable(out));
  cuarr_dtype types[CUARR_KP_MAX];
  int reduce = 0;
  CUARR_TRY(bind(k, in, given ? out : NULL, device, weak_float_dtype, types, &reduce));

  /* The shape the non-raw inputs broadcast to, and the reduced axes of it. */
  int ndim = 0;
  int64_t shape[CUARR_MAXDIM];
  bool any = false;
  for (int j = 0; j < k->nin; j++) {
    const cuarr_array *a = in[j].array;
    if (!a || k->params[j].raw)
      continue;
    any = true;
    if (!cuarr_kp_broadcast_into(&ndim, shape, a)) {
      char sa[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "kernel %s: operands could not be broadcast together (%s has shape %s)",
                        k->name, k->params[j].name, cuarr_shape_format(sa, a->ndim, a->shape));
    }
  }
  if (!any)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: a reduction needs a non-raw array input",
                      k->name);
  uint64_t all = ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << ndim) - 1;
  if (axes == ~(uint64_t)0)
    axes = all;
  if (axes & ~all)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "kernel %s: axis out of range for operands of %d dimensions", k->name, ndim);
  int64_t rshape[CUARR_MAXDIM];
  int rnd = 0;
  for (int d = 0; d < ndim; d++) {
    if (!(axes >> d & 1))
      rshape[rnd++] = shape[d];
    else if (keepdims)
      rshape[rnd++] = 1;
  }
  cuarr_dtype out_dtype = types[k->nin];
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  if (given) {
    if (out->ndim != rnd || memcmp(out->shape, rshape, (size_t)rnd * sizeof *rshape) != 0) {
      char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: out has shape %s, not %s", k->name,
                        cuarr_shape_format(got, out->ndim, out->shape),
                        cuarr_shape_format(want, rnd, rshape));
    }
    for (int j = 0; j < k->nin; j++)
      if (in[j].array && cuarr_array_may_overlap(out, in[j].array))
        return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: out shares memory with input %s", k->name,
                          k->params[j].name);
  }
  cuarr_result r;
  CUARR_TRY(cuarr_result_begin(&r, ctx, device, stream, out_dtype, rnd, rshape, out));
  const cuarr_array res = r.res;
  cuarr_status s = CUARR_OK;
  if (cuarr_array_size(&res) > 0) {
    /* out seen with the inputs' ndim: extent 1, stride 0 on the reduced axes */
    cuarr_array view = res;
    view.ndim = ndim;
    for (int d = 0, j = 0; d < ndim; d++) {
      bool reduced = axes >> d & 1;
      view.shape[d] = reduced ? 1 : res.shape[j];
      view.strides[d] = reduced ? 0 : res.strides[j];
      j += !reduced || keepdims;
    }
    cuarr_red_operand ops[CUARR_KP_MAX];
    for (int j = 0; j < k->nin; j++) {
      const cuarr_kparam *p = &k->params[j];
      ops[j] = (cuarr_red_operand){
          .array = in[j].array,
          .scalar = in[j].scalar,
          .var_dtype = types[j],
          .name = p->name,
          .raw = p->raw && in[j].array,
          .type_name = p->dtype < 0 ? p->placeholder : NULL,
      };
    }
    const cuarr_kparam *op = &k->params[k->nin];
    cuarr_red_types t = {
        .acc = (cuarr_dtype)reduce,
        .acc_size = cuarr_dtype_size((cuarr_dtype)reduce),
        .out_var = out_dtype,
        .out_name = op->name,
        .out_type_name = op->dtype < 0 ? op->placeholder : NULL,
    };
    s = cuarr_red_launch(ctx, device, &k->program, k->nin, ops, &t, &view, axes);
  }
  return cuarr_result_end(&r, ctx, s);
}
