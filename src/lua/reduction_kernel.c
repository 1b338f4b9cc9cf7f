/*
 * reduction_kernel.c -- cuarr.ReductionKernel(in_params, out_params, map_expr, reduce_expr,
 * post_map_expr, identity, name, opts), CuPy's ReductionKernel:
 *
 *   local l2 = cuarr.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2")
 *   l2(x)                                   -- every axis: a 0-d array
 *   l2(x, {axis = 2, keepdims = true})      -- axes 1-based, as everywhere in cuarr
 *   l2(x, {out = o})
 *
 * opts: reduce_type (a dtype name or placeholder), preamble, options (NVRTC options).  The
 * identity may be nil: the first value then seeds each reduction.
 */
#include "user_kernel.h"

static cuarr_lua_kernel *check_kernel(lua_State *L, int idx) {
  return cuarr_lua_check_kernel(L, idx, &cuarr_lua_reduction_kernel_class, "a ReductionKernel");
}

static int l_reduction_kernel(lua_State *L) {
  const char *in_params = cuarr_lua_check_string(L, 1, "in_params");
  const char *out_params = cuarr_lua_check_string(L, 2, "out_params");
  const char *map_expr = cuarr_lua_check_string(L, 3, "map_expr");
  const char *reduce_expr = cuarr_lua_check_string(L, 4, "reduce_expr");
  const char *post_expr = cuarr_lua_check_string(L, 5, "post_map_expr");
  const char *identity = NULL;
  if (lua_type(L, 6) == LUA_TNUMBER)
    identity = lua_tostring(L, 6); /* a number becomes its text */
  else if (lua_type(L, 6) == LUA_TSTRING)
    identity = cuarr_lua_check_string(L, 6, "identity");
  else if (!lua_isnoneornil(L, 6))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "identity must be a string or nil, got %s",
                           luaL_typename(L, 6));
  const char *name = "reduce_kernel";
  int opts = cuarr_lua_kernel_name_and_opts(L, 7, &name);
  static const char *const keys[] = {"name", "reduce_type", "preamble", "options", NULL};
  if (opts)
    cuarr_lua_check_options(L, opts, "ReductionKernel", keys);
  cuarr_reduction_kernel_options o = {0};
  const char *options[CUARR_LUA_MAX_OPTIONS];
  if (opts) {
    o.reduce_type = cuarr_lua_opt_string_field(L, opts, "reduce_type");
    o.preamble = cuarr_lua_opt_string_field(L, opts, "preamble");
    o.n_options = cuarr_lua_read_compile_options(L, opts, options);
    o.options = options;
  }
  cuarr_lua_kernel *k = cuarr_lua_new_kernel(L, &cuarr_lua_reduction_kernel_class);
  CUARR_LUA_TRY(L, cuarr_reduction_kernel_new(in_params, out_params, map_expr, reduce_expr,
                                              post_expr, identity, name, &o, &k->red));
  return 1;
}

static int kernel_gc(lua_State *L) {
  cuarr_reduction_kernel_free(cuarr_lua_close_kernel(L, &cuarr_lua_reduction_kernel_class).red);
  return 0;
}

/* One axis (1-based, negative from the end) of ndim as a bit. */
static uint64_t axis_bit(lua_State *L, int idx, int ndim) {
  return (uint64_t)1 << cuarr_lua_check_axis(L, idx, ndim, false, "ReductionKernel");
}

/* k(inputs...[, {axis=, keepdims=, out=}]) */
static int kernel_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_kernel *k = check_kernel(L, 1);
  int nin = cuarr_reduction_kernel_nin(k->red);
  int nargs = lua_gettop(L) - 1, opts = 0;
  if (nargs > 0 && lua_istable(L, nargs + 1) && !cuarr_lua_to_array(L, nargs + 1))
    opts = nargs-- + 1;
  if (nargs != nin)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "the kernel takes %d inputs, got %d arguments",
                           nin, nargs);
  cuarr_lua_check_no_host_arrays(L, S, 2, nargs, "ReductionKernel");
  int device = cuarr_lua_current_device(L, S);
  cuarr_operand in[64];
  if (nin > 64)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "at most 64 inputs");
  int ndim = 0;
  for (int j = 0; j < nin; j++) {
    cuarr_lua_read_kernel_input(L, S, j, &in[j]);
    if (in[j].array && in[j].array->ndim > ndim)
      ndim = in[j].array->ndim;
  }
  uint64_t axes = ~(uint64_t)0;
  bool keepdims = false;
  int out_idx = 0;
  if (opts) {
    static const char *const keys[] = {"axis", "keepdims", "out", NULL};
    cuarr_lua_check_options(L, opts, "ReductionKernel call", keys);
    int t = cuarr_lua_get_option(L, opts, "axis");
    if (t == LUA_TTABLE) {
      axes = 0;
      lua_Integer n = cuarr_lua_len(L, -1, "the axes");
      for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        uint64_t bit = axis_bit(L, -1, ndim);
        if (axes & bit)
          cuarr_lua_error(L, CUARR_VALUE_ERROR, "duplicate value in 'axis'");
        axes |= bit;
        lua_pop(L, 1);
      }
    } else if (t != LUA_TNIL) {
      axes = axis_bit(L, -1, ndim);
    }
    lua_pop(L, 1);
    keepdims = cuarr_lua_opt_bool_field(L, opts, "keepdims", false);
    if (cuarr_lua_get_option(L, opts, "out") != LUA_TNIL) {
      cuarr_lua_check_array(L, -1);
      out_idx = lua_gettop(L);
    } else {
      lua_pop(L, 1);
    }
  }
  cuarr_array *out;
  if (out_idx) {
    out = cuarr_lua_check_array(L, out_idx);
    cuarr_lua_check_on_current_device(L, S, out);
    lua_pushvalue(L, out_idx);
  } else {
    out = cuarr_lua_push_array(L, 0);
  }
  CUARR_LUA_TRY(L, cuarr_reduction_kernel_call(cuarr_lua_context(S, device), k->red, device, in,
                                               axes, keepdims, S->default_float, out));
  if (!out_idx)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

/* The fields of the kernel object at index 1 (checked open). */
static void *check_kernel_object(lua_State *L, int idx) { return check_kernel(L, idx); }
static void field_nin(lua_State *L, void *self) {
  lua_pushinteger(L, cuarr_reduction_kernel_nin(((cuarr_lua_kernel *)self)->red));
}
static void field_nout(lua_State *L, void *self) {
  (void)self;
  lua_pushinteger(L, 1);
}

static const luaL_Reg kernel_metamethods[] = {
    {"__call", kernel_call},
    {"__gc", kernel_gc},
    {"__close", kernel_gc},
    {NULL, NULL},
};

static const cuarr_lua_field kernel_fields[] = {
    {"nin", field_nin},
    {"nout", field_nout},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_reduction_kernel_class = {
    .id = CUARR_LUA_REDUCTION_KERNEL_CLASS,
    .name = "ReductionKernel",
    .metatable = "cuarr.ReductionKernel",
    .metamethods = kernel_metamethods,
    .fields = kernel_fields,
    .check = check_kernel_object,
    .no_such_key = "ReductionKernel has no field '%s'",
};

void cuarr_lua_open_reduction_kernels(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"ReductionKernel", l_reduction_kernel},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
