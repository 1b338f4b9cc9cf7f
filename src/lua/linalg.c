/*
 * linalg.c -- cuarr.linalg's factorization-based functions (det, slogdet, inv, solve,
 * cholesky), on cuarr.linalg and cuarr.cpu.linalg.  The others (norm, lstsq, pinv,
 * matrix_power...) are composed in Lua.
 */
#include "binding.h"

static cuarr_array *array_arg(lua_State *L, cuarr_lua_state *S, int idx, const char *fn) {
  cuarr_array *a = cuarr_lua_to_array_in(L, S, idx);
  if (!a)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #%d must be an array, got %s", fn, idx,
                    luaL_typename(L, idx));
  cuarr_lua_check_live(L, a);
  cuarr_lua_check_on_current_device(L, S, a);
  return a;
}

static void check_max_args(lua_State *L, int max, const char *fn) {
  if (lua_gettop(L) > max)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s takes at most %d arguments, got %d", fn, max,
                    lua_gettop(L));
}

/* Push a new array userdata and let the core fill it; device bytes are counted for the GC. */
static cuarr_array *result(lua_State *L) { return cuarr_lua_push_array(L, 0); }
static void account(lua_State *L, cuarr_lua_state *S, const cuarr_array *r) {
  if (cuarr_array_device(r) != CUARR_HOST)
    cuarr_lua_account(L, S, r->buf->nbytes);
}

static int l_det(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  check_max_args(L, 1, "det");
  const cuarr_array *a = array_arg(L, S, 1, "det");
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_det(cuarr_lua_context(S, cuarr_array_device(a)), a, r));
  account(L, S, r);
  return 1;
}

/* slogdet(a): sign, logabsdet (two arrays, as NumPy's pair). */
static int l_slogdet(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  check_max_args(L, 1, "slogdet");
  const cuarr_array *a = array_arg(L, S, 1, "slogdet");
  cuarr_array *sign = result(L), *logabs = result(L);
  CUARR_LUA_TRY(L,
                cuarr_linalg_slogdet(cuarr_lua_context(S, cuarr_array_device(a)), a, sign, logabs));
  account(L, S, sign);
  account(L, S, logabs);
  return 2;
}

static int l_inv(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  check_max_args(L, 1, "inv");
  const cuarr_array *a = array_arg(L, S, 1, "inv");
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_inv(cuarr_lua_context(S, cuarr_array_device(a)), a, r));
  account(L, S, r);
  return 1;
}

static int l_solve(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  check_max_args(L, 2, "solve");
  const cuarr_array *a = array_arg(L, S, 1, "solve");
  const cuarr_array *b = array_arg(L, S, 2, "solve");
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_solve(cuarr_lua_context(S, cuarr_array_device(a)), a, b, r));
  account(L, S, r);
  return 1;
}

/* cholesky(a[, {upper = false}]) */
static int l_cholesky(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  check_max_args(L, 2, "cholesky");
  const cuarr_array *a = array_arg(L, S, 1, "cholesky");
  bool upper = false;
  if (!lua_isnoneornil(L, 2)) {
    if (!lua_istable(L, 2))
      return cuarr_lua_error(L, CUARR_TYPE_ERROR, "cholesky: options must be a table, got %s",
                             luaL_typename(L, 2));
    static const char *const keys[] = {"upper", NULL};
    cuarr_lua_check_options(L, 2, "cholesky", keys);
    upper = cuarr_lua_opt_bool_field(L, 2, "upper", false);
  }
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_cholesky(cuarr_lua_context(S, cuarr_array_device(a)), a, upper, r));
  account(L, S, r);
  return 1;
}

void cuarr_lua_open_linalg(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"det", l_det},     {"slogdet", l_slogdet},   {"inv", l_inv},
      {"solve", l_solve}, {"cholesky", l_cholesky}, {NULL, NULL},
  };
  const int tables[2] = {m->functions, m->cpu};
  for (int i = 0; i < 2; i++) {
    lua_newtable(L);
    cuarr_lua_set_functions(L, m, lua_gettop(L), functions);
    lua_setfield(L, tables[i], "linalg");
  }
}
