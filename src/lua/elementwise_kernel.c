/*
 * elementwise_kernel.c -- cuarr.ElementwiseKernel(in_params, out_params, operation, name, opts).
 *
 * The declarations are parsed once, by the core, when the kernel object is made; each call
 * reads its arguments, binds the type placeholders and runs the kernel variant for those
 * dtypes and that layout (compiled on first use and cached).  Calls:
 *   k(x, y)             inputs (arrays or numbers); outputs allocated and returned
 *   k(x, y, z)          outputs given after the inputs
 *   k(x, y, {size = n}) the index space, when every parameter is raw
 */
#include <string.h>

#include "user_kernel.h"

static cuarr_lua_kernel *check_kernel(lua_State *L, int idx) {
  return cuarr_lua_check_kernel(L, idx, &cuarr_lua_elementwise_kernel_class,
                                "an ElementwiseKernel");
}

/* cuarr.ElementwiseKernel(in_params, out_params, operation[, name][, opts]) */
static int l_elementwise_kernel(lua_State *L) {
  const char *in_params = cuarr_lua_check_string(L, 1, "in_params");
  const char *out_params = cuarr_lua_check_string(L, 2, "out_params");
  const char *operation = cuarr_lua_check_string(L, 3, "operation");
  const char *name = "kernel";
  int opts = cuarr_lua_kernel_name_and_opts(L, 4, &name);
  static const char *const keys[] = {"name",       "preamble", "loop_prep",
                                     "after_loop", "options",  NULL};
  if (opts)
    cuarr_lua_check_options(L, opts, "ElementwiseKernel", keys);
  cuarr_elementwise_kernel_options o = {0};
  const char *options[CUARR_LUA_MAX_OPTIONS];
  if (opts) {
    o.preamble = cuarr_lua_opt_string_field(L, opts, "preamble");
    o.loop_prep = cuarr_lua_opt_string_field(L, opts, "loop_prep");
    o.after_loop = cuarr_lua_opt_string_field(L, opts, "after_loop");
    o.n_options = cuarr_lua_read_compile_options(L, opts, options);
    o.options = options;
  }
  cuarr_lua_kernel *k = cuarr_lua_new_kernel(L, &cuarr_lua_elementwise_kernel_class);
  CUARR_LUA_TRY(L,
                cuarr_elementwise_kernel_new(in_params, out_params, operation, name, &o, &k->ew));
  return 1;
}

static int kernel_gc(lua_State *L) {
  cuarr_elementwise_kernel_free(cuarr_lua_close_kernel(L, &cuarr_lua_elementwise_kernel_class).ew);
  return 0;
}

/* k(inputs...[, outputs...][, {size = n}]) */
static int kernel_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_kernel *k = check_kernel(L, 1);
  int nin = cuarr_elementwise_kernel_nin(k->ew), nout = cuarr_elementwise_kernel_nout(k->ew);
  int nargs = lua_gettop(L) - 1;
  int64_t size = -1;
  if (nargs > 0 && lua_istable(L, nargs + 1) && !cuarr_lua_to_array(L, nargs + 1)) {
    static const char *const keys[] = {"size", NULL};
    cuarr_lua_check_options(L, nargs + 1, "ElementwiseKernel call", keys);
    if (cuarr_lua_get_option(L, nargs + 1, "size") != LUA_TNIL) {
      size = cuarr_lua_check_integer(L, -1, "size");
      if (size < 0)
        return cuarr_lua_error(L, CUARR_VALUE_ERROR, "size must be non-negative");
    }
    lua_pop(L, 1);
    nargs--;
  }
  if (nargs != nin && nargs != nin + nout)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "the kernel takes %d inputs (and optionally %d outputs), got %d "
                           "arguments",
                           nin, nout, nargs);
  cuarr_lua_check_no_host_arrays(L, S, 2, nargs, "ElementwiseKernel");
  int device = cuarr_lua_current_device(L, S);
  cuarr_operand in[64];
  if (nin > 64)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "at most 64 inputs");
  for (int j = 0; j < nin; j++) {
    cuarr_lua_read_kernel_input(L, S, j, &in[j]);
  }
  /* Outputs: the given arrays, or new userdata the core fills in.  They are the results, one
   * stack slot each: room for them first (a coroutine's stack starts small, and a C function
   * is promised only LUA_MINSTACK slots). */
  int first_out = lua_gettop(L) + 1;
  cuarr_array outs[64];
  if (nout > 64)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "at most 64 outputs");
  if (!lua_checkstack(L, nout))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "no room on the Lua stack for the %d outputs",
                           nout);
  for (int j = 0; j < nout; j++) {
    if (nargs == nin + nout) {
      const cuarr_array *o = cuarr_lua_check_array(L, nin + 2 + j);
      cuarr_lua_check_on_current_device(L, S, o);
      lua_pushvalue(L, nin + 2 + j);
      outs[j] = *o;
    } else {
      cuarr_lua_push_array(L, 0);
      memset(&outs[j], 0, sizeof outs[j]);
    }
  }
  CUARR_LUA_TRY(L, cuarr_elementwise_kernel_call(cuarr_lua_context(S, device), k->ew, device, in,
                                                 outs, size, S->default_float));
  if (nargs != nin + nout) { /* move the new arrays into their userdata */
    for (int j = 0; j < nout; j++) {
      cuarr_array *ud = lua_touserdata(L, first_out + j);
      *ud = outs[j];
      cuarr_lua_account(L, S, ud->buf->nbytes);
    }
  }
  return nout;
}

/* The fields of the kernel object at index 1 (checked open). */
static void *check_kernel_object(lua_State *L, int idx) { return check_kernel(L, idx); }
static void field_nin(lua_State *L, void *self) {
  lua_pushinteger(L, cuarr_elementwise_kernel_nin(((cuarr_lua_kernel *)self)->ew));
}
static void field_nout(lua_State *L, void *self) {
  lua_pushinteger(L, cuarr_elementwise_kernel_nout(((cuarr_lua_kernel *)self)->ew));
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

const cuarr_lua_class cuarr_lua_elementwise_kernel_class = {
    .id = CUARR_LUA_ELEMENTWISE_KERNEL_CLASS,
    .name = "ElementwiseKernel",
    .metatable = "cuarr.ElementwiseKernel",
    .metamethods = kernel_metamethods,
    .fields = kernel_fields,
    .check = check_kernel_object,
    .no_such_key = "ElementwiseKernel has no field '%s'",
};

void cuarr_lua_open_elementwise_kernels(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"ElementwiseKernel", l_elementwise_kernel},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
