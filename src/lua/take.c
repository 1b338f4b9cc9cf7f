/*
 * take.c -- the binding of cuarr_gather and cuarr_scatter for the Lua front end
 * (lua/cuarr/take.lua builds take, put, take_along_axis, put_along_axis, choose and select on
 * them): core.fancy_gather(a, indices, axes, at, mode[, out]) and
 * core.fancy_scatter(a, indices, axes, at, mode, values), indices a sequence of integer arrays,
 * axes their 1-based axes of a, at the position of the broadcast index axes among a's others
 * (0-based count), mode "raise" | "wrap" | "clip".  Index values are 1-based.
 */
#include <string.h>

#include "indexing.h"

static cuarr_index_mode mode_arg(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: mode must be a string, got %s", fn,
                    luaL_typename(L, idx));
  size_t len;
  const char *m = lua_tolstring(L, idx, &len);
  if (len == 5 && !memcmp(m, "raise", 5))
    return CUARR_INDEX_RAISE;
  if (len == 4 && !memcmp(m, "wrap", 4))
    return CUARR_INDEX_WRAP;
  if (len == 4 && !memcmp(m, "clip", 4))
    return CUARR_INDEX_CLIP;
  cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: mode must be 'raise', 'wrap' or 'clip', got '%s'", fn,
                  m);
  return CUARR_INDEX_RAISE;
}

/* Arguments 1..5 read into ix; returns a. */
static const cuarr_array *read_index(lua_State *L, cuarr_lua_state *S, cuarr_fancy_index *ix,
                                     const char *fn) {
  const cuarr_array *a = cuarr_lua_array_arg(L, S, 1, fn);
  const int device = cuarr_array_device(a);
  if (!lua_istable(L, 2) || !lua_istable(L, 3))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: the indices and their axes must be tables", fn);
  lua_Integer n = cuarr_lua_len(L, 2, fn);
  if (n < 1 || n > a->ndim || cuarr_lua_len(L, 3, fn) != n)
    cuarr_lua_error(L, CUARR_INDEX_ERROR,
                    "%s: %lld index arrays for an array of %d dimensions (one axis each)", fn,
                    (long long)n, a->ndim);
  memset(ix, 0, sizeof *ix);
  ix->n = (int)n;
  ix->base = 1;
  cuarr_lua_check_stack(L, 2 * (int)n + 4);
  for (int k = 0; k < ix->n; k++) {
    lua_geti(L, 3, k + 1);
    int isint = 0;
    lua_Integer axis = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint || axis < 1 || axis > a->ndim)
      cuarr_lua_error(L, CUARR_INDEX_ERROR, "%s: axis entry %d is not an axis of the array", fn,
                      k + 1);
    ix->axes[k] = (int)axis - 1;
    lua_geti(L, 2, k + 1);
    if (!cuarr_lua_to_array_in(L, S, -1))
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: indices must be arrays, got %s", fn,
                      luaL_typename(L, -1));
    ix->index[k] = cuarr_lua_index_in_place(L, S, device, lua_gettop(L), "an index array");
  }
  int isint = 0;
  lua_Integer at = lua_tointegerx(L, 4, &isint);
  if (!isint || at < 0 || at > a->ndim - ix->n)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "%s: no place for the index axes", fn);
  ix->at = (int)at;
  ix->mode = mode_arg(L, 5, fn);
  return a;
}

static int l_fancy_gather(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 6, "take");
  lua_settop(L, 6);
  cuarr_fancy_index ix;
  const cuarr_array *a = read_index(L, S, &ix, "take");
  const int device = cuarr_array_device(a);
  cuarr_array *out;
  const bool given = !lua_isnil(L, 6);
  if (given) {
    out = cuarr_lua_to_array_in(L, S, 6);
    if (!out)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR, "take: out must be an array, got %s",
                             luaL_typename(L, 6));
    cuarr_lua_check_live(L, out);
    lua_pushvalue(L, 6);
  } else {
    out = cuarr_lua_push_array(L, 0);
  }
  CUARR_LUA_TRY(L, cuarr_gather(cuarr_lua_context(S, device), a, &ix, out));
  if (!given && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

static int l_fancy_scatter(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 6, "put");
  lua_settop(L, 6);
  cuarr_fancy_index ix;
  const cuarr_array *a = read_index(L, S, &ix, "put");
  const int device = cuarr_array_device(a);
  const cuarr_array *v = cuarr_lua_index_values(L, S, 6, device, a->dtype);
  CUARR_LUA_TRY(L, cuarr_scatter(cuarr_lua_context(S, device), a, &ix, v));
  return 0;
}

void cuarr_lua_open_take(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"fancy_gather", l_fancy_gather},
      {"fancy_scatter", l_fancy_scatter},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
