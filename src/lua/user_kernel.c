/*
 * user_kernel.c -- the parts of cuarr.ElementwiseKernel (elementwise_kernel.c) and
 * cuarr.ReductionKernel (reduction_kernel.c) that are the same: the kernel object, the
 * [name][, opts] arguments of their constructors, the inputs of a call, the fields nin and nout.
 */
#include <string.h>

#include "user_kernel.h"

/* "ElementwiseKernel" of "cuarr.ElementwiseKernel" */
static const char *class_name(const char *mt) { return strchr(mt, '.') + 1; }

cuarr_lua_kernel *cuarr_lua_new_kernel(lua_State *L, const char *mt) {
  cuarr_lua_kernel *k = lua_newuserdatauv(L, sizeof *k, 0);
  k->any = NULL;
  luaL_setmetatable(L, mt);
  return k;
}

/* The userdata at idx when its metatable is mt (by address, as cuarr_lua_to_array: no registry
 * lookup on every call), else NULL. */
static cuarr_lua_kernel *to_kernel_object(lua_State *L, int idx, const char *mt) {
  const cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const void *want = NULL;
  for (int i = 0; S && i < 2 && !want; i++)
    if (S->kernel_mt_name[i] && (S->kernel_mt_name[i] == mt || !strcmp(S->kernel_mt_name[i], mt)))
      want = S->kernel_mt[i];
  cuarr_lua_kernel *k = lua_touserdata(L, idx);
  if (!want || !k || !lua_getmetatable(L, idx))
    return NULL;
  bool same = lua_topointer(L, -1) == want;
  lua_pop(L, 1);
  return same ? k : NULL;
}

cuarr_lua_kernel *cuarr_lua_check_kernel(lua_State *L, int idx, const char *mt, const char *what) {
  cuarr_lua_kernel *k = to_kernel_object(L, idx, mt);
  if (!k)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #%d must be %s, got %s", idx, what,
                    luaL_typename(L, idx));
  if (!k->any)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the %s has been closed", class_name(mt));
  return k;
}

cuarr_lua_kernel cuarr_lua_close_kernel(lua_State *L, const char *mt) {
  cuarr_lua_kernel *k = luaL_checkudata(L, 1, mt), held = *k;
  k->any = NULL;
  return held;
}

int cuarr_lua_kernel_name_and_opts(lua_State *L, int idx, const char **name) {
  int opts = 0;
  if (lua_type(L, idx) == LUA_TSTRING) {
    *name = lua_tostring(L, idx);
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

int cuarr_lua_kernel_field(lua_State *L, const char *mt, int nin, int nout) {
  const char *key = luaL_checkstring(L, 2);
  if (!strcmp(key, "nin"))
    lua_pushinteger(L, nin);
  else if (!strcmp(key, "nout"))
    lua_pushinteger(L, nout);
  else
    return cuarr_lua_error(L, CUARR_INDEX_ERROR, "%s has no field '%s'", class_name(mt), key);
  return 1;
}

void cuarr_lua_open_kernel_metatable(lua_State *L, int state_idx, const char *mt,
                                     lua_CFunction call, lua_CFunction gc, lua_CFunction index) {
  luaL_newmetatable(L, mt);
  cuarr_lua_state *S = lua_touserdata(L, state_idx);
  for (int i = 0; i < 2; i++) {
    if (!S->kernel_mt_name[i] || !strcmp(S->kernel_mt_name[i], mt)) {
      S->kernel_mt_name[i] = mt;
      S->kernel_mt[i] = lua_topointer(L, -1);
      break;
    }
  }
  const luaL_Reg meta[] = {
      {"__call", call}, {"__gc", gc}, {"__close", gc}, {"__index", index}, {NULL, NULL}};
  lua_pushvalue(L, state_idx);
  luaL_setfuncs(L, meta, 1);
  lua_pop(L, 1);
}
