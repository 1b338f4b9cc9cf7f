/*
 * linalg.c -- cuarr.linalg's functions written in C (det, slogdet, inv, solve, cholesky, qr,
 * eigh, eigvalsh, svd), on cuarr.linalg and cuarr.cpu.linalg.  The others (norm, lstsq, pinv,
 * matrix_power...) are composed in Lua.
 */
#include <string.h>

#include "binding.h"

/* Push a new array userdata and let the core fill it; device bytes are counted for the GC. */
static cuarr_array *result(lua_State *L) { return cuarr_lua_push_array(L, 0); }
static void account(lua_State *L, cuarr_lua_state *S, const cuarr_array *r) {
  if (cuarr_array_device(r) != CUARR_HOST)
    cuarr_lua_account(L, S, r->buf->nbytes);
}

/* f(a) -> one new array: det and inv. */
static int one_result(lua_State *L, const char *fn,
                      cuarr_status (*f)(cuarr_context *, const cuarr_array *, cuarr_array *)) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 1, fn);
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, f(cuarr_lua_context(S, cuarr_array_device(a)), a, r));
  account(L, S, r);
  return 1;
}
static int l_det(lua_State *L) { return one_result(L, "det", cuarr_linalg_det); }
static int l_inv(lua_State *L) { return one_result(L, "inv", cuarr_linalg_inv); }

/* Whether the options table at idx was given (nil: no), checked against keys. */
static bool options_at(lua_State *L, int idx, const char *fn, const char *const *keys) {
  if (lua_isnoneornil(L, idx))
    return false;
  if (!lua_istable(L, idx))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: options must be a table, got %s", fn,
                    luaL_typename(L, idx));
  cuarr_lua_check_options(L, idx, fn, keys);
  return true;
}

/* slogdet(a): sign, logabsdet (two arrays, as NumPy's pair). */
static int l_slogdet(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 1, "slogdet");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "slogdet");
  cuarr_array *sign = result(L), *logabs = result(L);
  CUARR_LUA_TRY(L,
                cuarr_linalg_slogdet(cuarr_lua_context(S, cuarr_array_device(a)), a, sign, logabs));
  account(L, S, sign);
  account(L, S, logabs);
  return 2;
}

static int l_solve(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, "solve");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "solve");
  const cuarr_array *b = cuarr_lua_array_arg(L, S, 2, "solve");
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_solve(cuarr_lua_context(S, cuarr_array_device(a)), a, b, r));
  account(L, S, r);
  return 1;
}

/* cholesky(a[, {upper = false}]) */
static int l_cholesky(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, "cholesky");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "cholesky");
  static const char *const keys[] = {"upper", NULL};
  bool upper = options_at(L, 2, "cholesky", keys) && cuarr_lua_opt_bool_field(L, 2, "upper", false);
  cuarr_array *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_cholesky(cuarr_lua_context(S, cuarr_array_device(a)), a, upper, r));
  account(L, S, r);
  return 1;
}

/* An optional string argument (NumPy's mode and UPLO), `fallback` when absent or nil. */
static const char *opt_string(lua_State *L, int idx, const char *fn, const char *what,
                              const char *fallback) {
  if (lua_isnoneornil(L, idx))
    return fallback;
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: %s must be a string, got %s", fn, what,
                    luaL_typename(L, idx));
  return cuarr_lua_check_string(L, idx, what); /* a NUL byte would cut it short */
}

/* qr(a[, mode]): q, r (mode "reduced" or "complete"), or r alone (mode "r"). */
static int l_qr(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, "qr");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "qr");
  const char *mode = opt_string(L, 2, "qr", "mode", "reduced");
  const bool only_r = strcmp(mode, "r") == 0;
  cuarr_array *q = only_r ? NULL : result(L), *r = result(L);
  CUARR_LUA_TRY(L, cuarr_linalg_qr(cuarr_lua_context(S, cuarr_array_device(a)), a, mode, q, r));
  if (q)
    account(L, S, q);
  account(L, S, r);
  return only_r ? 1 : 2;
}

/* eigh(a[, UPLO]): w, v; eigvalsh(a[, UPLO]): w.  UPLO "L" (the default) or "U", either case. */
static int eigh(lua_State *L, const char *fn, bool want_vectors) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, fn);
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  const char *uplo = opt_string(L, 2, fn, "UPLO", "L");
  if ((uplo[0] != 'L' && uplo[0] != 'l' && uplo[0] != 'U' && uplo[0] != 'u') || uplo[1])
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: UPLO must be 'L' or 'U', got '%s'", fn, uplo);
  const bool upper = uplo[0] == 'U' || uplo[0] == 'u';
  cuarr_array *w = result(L), *v = want_vectors ? result(L) : NULL;
  CUARR_LUA_TRY(L, cuarr_linalg_eigh(cuarr_lua_context(S, cuarr_array_device(a)), a, upper,
                                     want_vectors, w, v));
  account(L, S, w);
  if (v)
    account(L, S, v);
  return want_vectors ? 2 : 1;
}
static int l_eigh(lua_State *L) { return eigh(L, "eigh", true); }
static int l_eigvalsh(lua_State *L) { return eigh(L, "eigvalsh", false); }

/* svd(a[, {full_matrices = true, compute_uv = true}]): u, s, vh, or s alone. */
static int l_svd(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, "svd");
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "svd");
  bool full = true, uv = true;
  static const char *const keys[] = {"full_matrices", "compute_uv", NULL};
  if (options_at(L, 2, "svd", keys)) {
    full = cuarr_lua_opt_bool_field(L, 2, "full_matrices", true);
    uv = cuarr_lua_opt_bool_field(L, 2, "compute_uv", true);
  }
  cuarr_array *u = uv ? result(L) : NULL, *s = result(L), *vh = uv ? result(L) : NULL;
  CUARR_LUA_TRY(
      L, cuarr_linalg_svd(cuarr_lua_context(S, cuarr_array_device(a)), a, full, uv, u, s, vh));
  account(L, S, s);
  if (uv) {
    account(L, S, u);
    account(L, S, vh);
  }
  return uv ? 3 : 1;
}

void cuarr_lua_open_linalg(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"det", l_det},           {"slogdet", l_slogdet}, {"inv", l_inv},   {"solve", l_solve},
      {"cholesky", l_cholesky}, {"qr", l_qr},           {"eigh", l_eigh}, {"eigvalsh", l_eigvalsh},
      {"svd", l_svd},           {NULL, NULL},
  };
  const int tables[2] = {m->functions, m->cpu};
  for (int i = 0; i < 2; i++) {
    lua_newtable(L);
    cuarr_lua_set_functions(L, m, lua_gettop(L), functions);
    lua_setfield(L, tables[i], "linalg");
  }
}
