/*
 * rearrange.c -- cuarr.broadcast_to(a, shape) (and cuarr.cpu's): NumPy's, a view with stride 0
 * on the new and stretched axes (cuarr_view_broadcast).  The other rearranging functions (tile,
 * repeat, flip, roll, pad, meshgrid, ...) are built on it and on the other views in
 * lua/cuarr/rearrange.lua; this is the one view they need that Lua could not reach.
 */
#include "binding.h"

static int l_broadcast_to(lua_State *L) {
  cuarr_lua_check_max_args(L, 2, "broadcast_to");
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (lua_isnoneornil(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "broadcast_to: argument #2 (shape) is missing");
  int64_t shape[CUARR_MAXDIM];
  int ndim = cuarr_lua_check_shape(L, 2, shape);
  /* As for a new array (and NumPy): the nonzero extents times the itemsize fit in int64, so the
   * view's size and every offset into it do too, though it spans only a's bytes. */
  int64_t nbytes = (int64_t)cuarr_dtype_size(a->dtype);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      continue;
    if (nbytes > INT64_MAX / shape[i])
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "broadcast_to: the shape is too big (its bytes exceed 2^63 - 1)");
    nbytes *= shape[i];
  }
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_broadcast(a, ndim, shape, v));
  return 1;
}

void cuarr_lua_open_rearrange(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"broadcast_to", l_broadcast_to},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
}
