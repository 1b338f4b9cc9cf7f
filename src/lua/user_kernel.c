/*
 * user_kernel.c -- the parts of cuarr.ElementwiseKernel (elementwise_kernel.c) and
 * cuarr.ReductionKernel (reduction_kernel.c) that are the same: the kernel object, the
 * [name][, opts] arguments of their constructors, the inputs of a call.
 */
#include "user_kernel.h"

cuarr_lua_kernel *cuarr_lua_new_kernel(lua_State *L, const cuarr_lua_class *cls) {
  cuarr_lua_kernel *k = lua_newuserdatauv(L, sizeof *k, 0);
  k->any = NULL;
  luaL_setmetatable(L, cls->metatable);
  return k;
}

cuarr_lua_kernel *cuarr_lua_check_kernel(lua_State *L, int idx, const cuarr_lua_class *cls,
                                         const char *what) {
  cuarr_lua_kernel *k = cuarr_lua_to_object(L, CUARR_LUA_STATE(L), idx, cls);
  if (!k)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #%d must be %s, got %s", idx, what,
                    luaL_typename(L, idx));
  if (!k->any)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the %s has been closed", cls->name);
  return k;
}

cuarr_lua_kernel cuarr_lua_close_kernel(lua_State *L, const cuarr_lua_class *cls) {
  cuarr_lua_kernel *k = cuarr_lua_check_object(L, 1, cls), held = *k;
  k->any = NULL;
  return held;
}

int cuarr_lua_kernel_name_and_opts(lua_State *L, int idx, const char **name) {
  int opts = 0;
  if (lua_type(L, idx) == LUA_TSTRING) {
    *name = cuarr_lua_check_string(L, idx, "name");
    if (lua_istable(L, idx + 1))
      opts = idx + 1;
  } else if (lua_istable(L, idx)) {
    opts = idx;
  } else if (!lua_isnoneornil(L, idx)) {
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #%d (name) must be a string, got %s", idx,
                    luaL_typename(L, idx));
  }
  if (opts && cuarr_lua_opt_string_field(L, opts, "name"))
    *name = cuarr_lua_opt_string_field(L, opts, "name");
  return opts;
}

void cuarr_lua_check_no_host_arrays(lua_State *L, const cuarr_lua_state *S, int first, int n,
                                    const char *kernel) {
  for (int i = 0; i < n; i++) {
    const cuarr_array *a = cuarr_lua_to_array_in(L, S, first + i);
    if (a && a->buf && cuarr_array_device(a) == CUARR_HOST) /* a freed one is raised later */
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "%s: user kernels take device arrays, got a host array (argument #%d)",
                      kernel, i + 1);
  }
}

void cuarr_lua_read_kernel_input(lua_State *L, cuarr_lua_state *S, int j, cuarr_operand *in) {
  int idx = j + 2;
  cuarr_array *a = cuarr_lua_to_array(L, idx);
  if (a) {
    in->array = cuarr_lua_check_live(L, a);
    in->weak = false;
    cuarr_lua_check_on_current_device(L, S, in->array);
  } else {
    in->array = NULL;
    in->weak = true;
    if (!cuarr_lua_to_scalar(L, idx, &in->scalar))
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "kernel argument #%d must be an array or a number, got %s", j + 1,
                      luaL_typename(L, idx));
  }
}
