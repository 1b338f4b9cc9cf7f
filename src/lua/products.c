/*
 * products.c -- matrix products: cuarr.matmul(a, b[, out]) (and a:matmul(b[, out])), the
 * precision of float32 products on the device (set_matmul_precision / get_matmul_precision,
 * per lua_State), and the diagonal view products are read through (trace).  dot, tensordot and
 * the others are built on these in lua/cuarr/products.lua.
 */
#include <string.h>

#include "binding.h"

static const char *const precision_names[] = {"highest", "tf32"};

static int l_matmul(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 3, "matmul");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "matmul");
  const cuarr_array *b = cuarr_lua_array_arg(L, S, 2, "matmul");
  const bool given = !lua_isnoneornil(L, 3);
  cuarr_array *out;
  if (given) {
    out = cuarr_lua_array_arg(L, S, 3, "matmul");
    lua_pushvalue(L, 3);
  } else {
    out = cuarr_lua_push_array(L, 0);
  }
  int device = cuarr_array_device(a);
  CUARR_LUA_TRY(L, cuarr_matmul(cuarr_lua_context(S, device), a, b, S->matmul_precision, out));
  if (!given && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

static int l_set_matmul_precision(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 1, "set_matmul_precision");
  const char *name = cuarr_lua_check_string(L, 1, "set_matmul_precision: the precision");
  for (int p = 0; p <= CUARR_MATMUL_TF32; p++)
    if (strcmp(name, precision_names[p]) == 0) {
      S->matmul_precision = (cuarr_matmul_precision)p;
      return 0;
    }
  return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                         "set_matmul_precision: unknown precision '%s' (\"highest\" or \"tf32\")",
                         name);
}

static int l_get_matmul_precision(lua_State *L) {
  lua_pushstring(L, precision_names[CUARR_LUA_STATE(L)->matmul_precision]);
  return 1;
}

/* diagonal(a[, offset[, axis1[, axis2]]]): NumPy's, a view; axes 1-based (default 1 and 2). */
static int l_diagonal(lua_State *L) {
  cuarr_lua_check_max_args(L, 4, "diagonal");
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  lua_Integer offset = cuarr_lua_opt_integer(L, 2, "diagonal: the offset", 0);
  if (a->ndim < 2)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "diagonal needs an array of at least two dimensions, got %d", a->ndim);
  int axis1 = lua_isnoneornil(L, 3) ? 0 : cuarr_lua_check_axis(L, 3, a->ndim, false, "diagonal");
  int axis2 = lua_isnoneornil(L, 4) ? 1 : cuarr_lua_check_axis(L, 4, a->ndim, false, "diagonal");
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_diagonal(a, (int64_t)offset, axis1, axis2, v));
  return 1;
}

void cuarr_lua_open_products(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg methods[] = {
      {"matmul", l_matmul},
      {"diagonal", l_diagonal},
      {NULL, NULL},
  };
  static const luaL_Reg functions[] = {
      {"set_matmul_precision", l_set_matmul_precision},
      {"get_matmul_precision", l_get_matmul_precision},
      {NULL, NULL},
  };
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_ndarray_class, methods);
  cuarr_lua_set_functions(L, m, m->functions, methods);
  cuarr_lua_set_functions(L, m, m->cpu, methods);
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
}
