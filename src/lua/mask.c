/*
 * mask.c -- masks in the binding: cuarr.nonzero(a) and a:nonzero() (one int64 array of 1-based
 * indices per axis, as several results: NumPy's tuple), cuarr.where(cond) with one argument
 * (reached from ufuncs.c's where), and for the front end (lua/cuarr/mask.lua) core.mask_positions
 * (the [ndim, count] array the rows are views of), core.mask_select(a, mask) and
 * core.mask_assign(a, mask, values): the C core's cuarr_nonzero, cuarr_mask_select and
 * cuarr_mask_assign.  Device masks: one synchronisation each (the count sizes the result).
 */
#include "binding.h"

/* The [ndim, count] positions of a's nonzero elements (1-based), pushed. */
static cuarr_array *push_positions(lua_State *L, cuarr_lua_state *S, const cuarr_array *a) {
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  const int device = cuarr_array_device(a);
  CUARR_LUA_TRY(L, cuarr_nonzero(cuarr_lua_context(S, device), a, 1, out));
  if (device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return out;
}

int cuarr_lua_nonzero(lua_State *L, const char *fn) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 1, fn);
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  if (a->ndim == 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "%s of a 0-d array is not defined: use atleast_1d(a) first, as "
                           "NumPy asks",
                           fn);
  cuarr_lua_check_stack(L, a->ndim + 2);
  const cuarr_array *all = push_positions(L, S, a);
  const int at = lua_gettop(L);
  for (int k = 0; k < a->ndim; k++) {
    cuarr_array *row = cuarr_lua_push_array(L, at);
    CUARR_LUA_TRY(L, cuarr_view_select(all, 0, k, row));
  }
  return a->ndim;
}

static int l_nonzero(lua_State *L) { return cuarr_lua_nonzero(L, "nonzero"); }

/* core.mask_positions(a): the [ndim, count] array itself (argwhere is its transpose). */
static int l_mask_positions(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 1, "argwhere");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "argwhere");
  push_positions(L, S, a);
  return 1;
}

/* The name the front end's caller goes by (argument idx: a string, or nil for def). */
static const char *caller_name(lua_State *L, int idx, const char *def) {
  cuarr_lua_check_max_args(L, idx, def);
  if (lua_isnoneornil(L, idx))
    return def;
  return cuarr_lua_check_string(L, idx, "the caller's name");
}

/* core.mask_select(a, mask[, fn]): a[mask], a copy. */
static int l_mask_select(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const char *fn = caller_name(L, 3, "mask selection");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  const cuarr_array *mask = cuarr_lua_array_arg(L, S, 2, fn);
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  const int device = cuarr_array_device(a);
  CUARR_LUA_TRY(L, cuarr_mask_select(cuarr_lua_context(S, device), a, mask, out));
  if (device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

/* core.mask_assign(a, mask, values[, fn]): a[mask] = values (an array). */
static int l_mask_assign(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const char *fn = caller_name(L, 4, "mask assignment");
  cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  const cuarr_array *mask = cuarr_lua_array_arg(L, S, 2, fn);
  const cuarr_array *values = cuarr_lua_array_arg(L, S, 3, fn);
  CUARR_LUA_TRY(L, cuarr_mask_assign(cuarr_lua_context(S, cuarr_array_device(a)), a, mask, values));
  return 0;
}

void cuarr_lua_open_mask(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"nonzero", l_nonzero},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
  static const luaL_Reg internal[] = {
      {"mask_positions", l_mask_positions},
      {"mask_select", l_mask_select},
      {"mask_assign", l_mask_assign},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, internal);
  luaL_getmetatable(L, CUARR_LUA_ARRAY_MT);
  lua_getfield(L, -1, "methods");
  lua_pushvalue(L, m->state);
  lua_pushcclosure(L, l_nonzero, 1);
  lua_setfield(L, -2, "nonzero");
  lua_pop(L, 2);
}
