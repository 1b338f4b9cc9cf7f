/*
 * sort.c -- sorting in the binding, for the front end (lua/cuarr/sort.lua, which reads the
 * arguments and options and offers sort, argsort, partition, lexsort, searchsorted and the
 * methods): core.sort_rows(a, axis, mode), core.lexsort_rows(keys, axis) and
 * core.searchsorted_rows(sorted, values, right, sorter), over the C core's cuarr_sort,
 * cuarr_lexsort and cuarr_searchsorted.  Axes here are the core's: 0-based, -1 for the
 * flattened array (and named so in the messages: one plus a Lua integer can overflow).
 */
#include <string.h>

#include "binding.h"

static void account(lua_State *L, cuarr_lua_state *S, const cuarr_array *out) {
  if (cuarr_array_device(out) != CUARR_HOST && out->buf)
    cuarr_lua_account(L, S, out->buf->nbytes);
}

/* core.sort_rows(a, axis, mode): mode "sort" pushes the sorted copy, "argsort" the 1-based
 * indices (int64), "inplace" sorts a itself and pushes nothing. */
static int l_sort_rows(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 3, "sort");
  cuarr_array *a = cuarr_lua_array_arg(L, S, 1, "sort");
  const lua_Integer axis = cuarr_lua_check_integer(L, 2, "sort: the axis");
  const char *mode = cuarr_lua_check_string(L, 3, "sort: the mode");
  if (axis < CUARR_SORT_FLAT || axis >= CUARR_MAXDIM)
    return cuarr_lua_error(L, CUARR_INDEX_ERROR, "sort: axis %lld (0-based) is out of range",
                           (long long)axis);
  cuarr_context *ctx = cuarr_lua_context(S, cuarr_array_device(a));
  if (strcmp(mode, "inplace") == 0) {
    CUARR_LUA_TRY(L, cuarr_sort(ctx, a, (int)axis, a, NULL));
    return 0;
  }
  const bool indices = strcmp(mode, "argsort") == 0;
  if (!indices && strcmp(mode, "sort") != 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "sort_rows: unknown mode '%s'", mode);
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  CUARR_LUA_TRY(L, cuarr_sort(ctx, a, (int)axis, indices ? NULL : out, indices ? out : NULL));
  account(L, S, out);
  return 1;
}

/* core.lexsort_rows(keys, axis): keys a sequence of arrays (the front end has checked it). */
static int l_lexsort_rows(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 2, "lexsort");
  if (!lua_istable(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "lexsort: the keys must be a table, got %s",
                           luaL_typename(L, 1));
  const lua_Integer axis = cuarr_lua_check_integer(L, 2, "lexsort: the axis");
  if (axis < CUARR_SORT_FLAT || axis >= CUARR_MAXDIM)
    return cuarr_lua_error(L, CUARR_INDEX_ERROR, "lexsort: axis %lld (0-based) is out of range",
                           (long long)axis);
  lua_settop(L, 2);
  const lua_Integer n = cuarr_lua_len(L, 1, "lexsort: the keys");
  if (n < 1)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "need sequence of keys with len > 0 in lexsort");
  if (n > INT32_MAX / 2)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "lexsort: too many keys (%lld)", (long long)n);
  /* As concatenate's list (join.c): pointers in a userdata the GC owns, the arrays kept in a
   * table of its own, each read once. */
  const cuarr_array **keys = lua_newuserdatauv(L, (size_t)n * sizeof *keys, 1);
  const int list = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    cuarr_array *k = cuarr_lua_to_array_in(L, S, -1);
    if (!k)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR, "lexsort: key %lld must be an array, got %s",
                             (long long)i, luaL_typename(L, -1));
    cuarr_lua_check_live(L, k);
    cuarr_lua_check_on_current_device(L, S, k);
    keys[i - 1] = k;
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, list, 1);
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  const int device = cuarr_array_device(keys[0]);
  CUARR_LUA_TRY(L, cuarr_lexsort(cuarr_lua_context(S, device), keys, (int)n, (int)axis, out));
  account(L, S, out);
  return 1;
}

/* core.searchsorted_rows(sorted, values, right, sorter): sorter an array or nil. */
static int l_searchsorted_rows(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 4, "searchsorted");
  const cuarr_array *sorted = cuarr_lua_array_arg(L, S, 1, "searchsorted");
  const cuarr_array *values = cuarr_lua_array_arg(L, S, 2, "searchsorted");
  const bool right = lua_toboolean(L, 3);
  const cuarr_array *sorter =
      lua_isnoneornil(L, 4) ? NULL : cuarr_lua_array_arg(L, S, 4, "searchsorted");
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  const int device = cuarr_array_device(sorted);
  CUARR_LUA_TRY(
      L, cuarr_searchsorted(cuarr_lua_context(S, device), sorted, values, right, sorter, out));
  account(L, S, out);
  return 1;
}

void cuarr_lua_open_sort(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"sort_rows", l_sort_rows},
      {"lexsort_rows", l_lexsort_rows},
      {"searchsorted_rows", l_searchsorted_rows},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
