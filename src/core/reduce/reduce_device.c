/*
 * reduce_device.c -- the built-in reductions on the device: each op is a reduction program
 * (map, reduce, post, identity, as a ReductionKernel would spell it) run by the engine
 * (reduce_engine.c), with the helpers of kernels/include/reduction_ops.cuh for NaN-aware min/max
 * and the argmin/argmax pairs.
 *
 * Types: the input is loaded and converted to the op's variable type (the accumulator dtype
 * for sums and products; the input's dtype for min/max and the arg ops, float16 as float,
 * which is exact; bool for all/any/count_nonzero), and the result is stored converted to the
 * output's dtype.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/reduce_engine.h"

/* One program per op (the identity depends on the type, so min/max spell it generically). */
static cuarr_red_program programs[CUARR_NREDUCE_OPS] = {
    [CUARR_REDUCE_SUM] = {"cuarr_sum", "in0", "a + b", "out0 = a", "0"},
    [CUARR_REDUCE_PROD] = {"cuarr_prod", "in0", "a * b", "out0 = a", "1"},
    [CUARR_REDUCE_NANSUM] = {"cuarr_nansum", "cuarr_red_isnan(in0) ? (acc_t)0 : (acc_t)in0",
                             "a + b", "out0 = a", "0"},
    [CUARR_REDUCE_NANPROD] = {"cuarr_nanprod", "cuarr_red_isnan(in0) ? (acc_t)1 : (acc_t)in0",
                              "a * b", "out0 = a", "1"},
    /* The identities of min and max lose to every value: +-inf (or NaN for the nan- ops, which
     * then give NaN only when every element is NaN), or the type's extremes. */
    [CUARR_REDUCE_MIN] = {"cuarr_min", "in0", "cuarr_red_min(a, b)", "out0 = a",
                          "cuarr_red_hi<acc_t>()"},
    [CUARR_REDUCE_MAX] = {"cuarr_max", "in0", "cuarr_red_max(a, b)", "out0 = a",
                          "cuarr_red_lo<acc_t>()"},
    [CUARR_REDUCE_NANMIN] = {"cuarr_nanmin", "in0", "cuarr_red_fmin(a, b)", "out0 = a",
                             "cuarr_red_nan_or_hi<acc_t>()"},
    [CUARR_REDUCE_NANMAX] = {"cuarr_nanmax", "in0", "cuarr_red_fmax(a, b)", "out0 = a",
                             "cuarr_red_nan_or_lo<acc_t>()"},
    [CUARR_REDUCE_ARGMIN] = {"cuarr_argmin", "acc_t{in0, _j}",
                             "cuarr_red_argpick<decltype(a.v), false>(a, b)",
                             "out0 = a.i + index_base",
                             "cuarr_red_arg_identity<decltype(acc_t::v), false>()",
                             .fold_expr = "cuarr_red_argfold<decltype(a.v), false>(a, b)",
                             .ordered = true},
    [CUARR_REDUCE_ARGMAX] = {"cuarr_argmax", "acc_t{in0, _j}",
                             "cuarr_red_argpick<decltype(a.v), true>(a, b)",
                             "out0 = a.i + index_base",
                             "cuarr_red_arg_identity<decltype(acc_t::v), true>()",
                             .fold_expr = "cuarr_red_argfold<decltype(a.v), true>(a, b)",
                             .ordered = true},
    [CUARR_REDUCE_ALL] = {"cuarr_all", "in0", "a && b", "out0 = a", "true"},
    [CUARR_REDUCE_ANY] = {"cuarr_any", "in0", "a || b", "out0 = a", "false"},
    [CUARR_REDUCE_COUNT_NONZERO] = {"cuarr_count_nonzero", "(acc_t)in0", "a + b", "out0 = a", "0"},
};

static bool is_arg(cuarr_reduce_op op) {
  return op == CUARR_REDUCE_ARGMIN || op == CUARR_REDUCE_ARGMAX;
}

/* The variable's dtype: what the element is converted to before the map. */
static cuarr_dtype var_dtype(cuarr_reduce_op op, cuarr_dtype in, cuarr_dtype acc) {
  switch (op) {
  case CUARR_REDUCE_MIN:
  case CUARR_REDUCE_MAX:
  case CUARR_REDUCE_NANMIN:
  case CUARR_REDUCE_NANMAX:
  case CUARR_REDUCE_ARGMIN:
  case CUARR_REDUCE_ARGMAX: return in == CUARR_FLOAT16 ? CUARR_FLOAT32 : in;
  case CUARR_REDUCE_ALL:
  case CUARR_REDUCE_ANY:
  case CUARR_REDUCE_COUNT_NONZERO: return CUARR_BOOL;
  default: return acc;
  }
}

/* The op's typing for an input dtype, accumulator and output storage. */
static void op_types(cuarr_reduce_op op, cuarr_dtype in, cuarr_dtype acc, cuarr_red_types *t,
                     cuarr_red_operand *operands, int *n, int64_t index_base) {
  static const char *const pair_types[CUARR_NDTYPES] = {"cuarr_red_arg<bool>",
                                                        "cuarr_red_arg<signed char>",
                                                        "cuarr_red_arg<short>",
                                                        "cuarr_red_arg<int>",
                                                        "cuarr_red_arg<long long>",
                                                        "cuarr_red_arg<unsigned char>",
                                                        "cuarr_red_arg<unsigned short>",
                                                        "cuarr_red_arg<unsigned int>",
                                                        "cuarr_red_arg<unsigned long long>",
                                                        "cuarr_red_arg<float>",
                                                        "cuarr_red_arg<float>",
                                                        "cuarr_red_arg<double>"};
  cuarr_dtype v = var_dtype(op, in, acc);
  memset(t, 0, sizeof *t);
  t->out_name = "out0";
  if (is_arg(op)) {
    t->acc_type = pair_types[in];
    t->acc_size = 16; /* a value of at most 8 bytes and a long long */
    t->acc = v;
    t->out_var = CUARR_INT64;
  } else {
    t->acc = op == CUARR_REDUCE_ALL || op == CUARR_REDUCE_ANY ? CUARR_BOOL
             : op == CUARR_REDUCE_COUNT_NONZERO               ? CUARR_INT64
             : var_dtype(op, in, acc) == acc                  ? acc
                                                              : v;
    t->acc_size = cuarr_dtype_size(t->acc);
    t->out_var = t->acc;
  }
  *n = 1;
  operands[0] = (cuarr_red_operand){.var_dtype = v, .name = "in0"};
  if (is_arg(op)) {
    operands[1] = (cuarr_red_operand){
        .scalar = {.dtype = CUARR_INT64, .v.i = index_base},
        .var_dtype = CUARR_INT64,
        .name = "index_base",
    };
    *n = 2;
  }
}

cuarr_red_program *cuarr_device_reduce_program(cuarr_reduce_op op, cuarr_dtype in, cuarr_dtype acc,
                                               int64_t index_base, cuarr_red_types *types,
                                               cuarr_red_operand operands[2], int *n_in) {
  op_types(op, in, acc, types, operands, n_in, index_base);
  return &programs[op];
}

cuarr_status cuarr_device_reduce(cuarr_context *ctx, const cuarr_reduce_call *c) {
  if ((unsigned)c->op >= CUARR_NREDUCE_OPS)
    return cuarr_fail(CUARR_VALUE_ERROR, "unknown reduction");
  cuarr_red_types types;
  cuarr_red_operand operands[2];
  int n;
  cuarr_red_program *program =
      cuarr_device_reduce_program(c->op, c->in->dtype, c->acc, c->index_base, &types, operands, &n);
  operands[0].array = c->in;
  return cuarr_red_launch(ctx, cuarr_array_device(c->in), program, n, operands, &types, c->out,
                          c->axes);
}
