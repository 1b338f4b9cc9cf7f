/*
 * join.c -- cuarr.concatenate(arrays[, axis[, out]]) (and cuarr.cpu.concatenate): NumPy's
 * concatenate over a Lua sequence of arrays, the axis 1-based (default 1, negative from the end).
 * stack, vstack, hstack, dstack, column_stack and the splits are built on it and on views in
 * lua/cuarr/join.lua.
 */
#include "binding.h"

static int l_concatenate(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 3, "concatenate");
  if (!lua_istable(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "concatenate: argument #1 must be a table of arrays, got %s",
                           luaL_typename(L, 1));
  lua_settop(L, 3); /* the arguments keep their slots below what is pushed */
  lua_Integer n = cuarr_lua_len(L, 1, "concatenate: argument #1");
  if (n < 1)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "need at least one array to concatenate");
  if (n > INT32_MAX / 2)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "concatenate: too many arrays (%lld)",
                           (long long)n);
  /* The arrays' pointers, in a userdata the GC owns should an error be raised; the table keeps
   * the arrays alive (its entries are read once, here, so a __index cannot swap them later). */
  const cuarr_array **arrays = lua_newuserdatauv(L, (size_t)n * sizeof *arrays, 1);
  const int list = lua_gettop(L);
  lua_createtable(L, (int)n, 0); /* the arrays themselves, as read, kept with the list */
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    cuarr_array *a = cuarr_lua_to_array_in(L, S, -1);
    if (!a)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "concatenate: entry %lld of argument #1 must be an array, got %s",
                             (long long)i, luaL_typename(L, -1));
    cuarr_lua_check_live(L, a);
    cuarr_lua_check_on_current_device(L, S, a);
    arrays[i - 1] = a;
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, list, 1);
  if (arrays[0]->ndim == 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "zero-dimensional arrays cannot be concatenated");
  int axis =
      lua_isnoneornil(L, 2) ? 0 : cuarr_lua_check_axis(L, 2, arrays[0]->ndim, false, "concatenate");
  const bool given = !lua_isnoneornil(L, 3);
  cuarr_array *out;
  if (given) {
    out = cuarr_lua_to_array_in(L, S, 3);
    if (!out)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR, "concatenate: out must be an array, got %s",
                             luaL_typename(L, 3));
    cuarr_lua_check_live(L, out);
    lua_pushvalue(L, 3);
  } else {
    out = cuarr_lua_push_array(L, 0);
  }
  int device = cuarr_array_device(arrays[0]);
  CUARR_LUA_TRY(L, cuarr_concatenate(cuarr_lua_context(S, device), arrays, (int)n, axis, out));
  if (!given && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

void cuarr_lua_open_join(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"concatenate", l_concatenate},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
}
