/*
 * tuple.c -- the sequences a.shape and a.strides return.  Each is an empty proxy table whose own
 * metatable reads from a hidden table of the extents, so that t[1], #t, ipairs, pairs and
 * table.unpack work as on any sequence while a write (t[1] = 5, t[#t + 1] = 1) is a TypeError,
 * as NumPy's tuple refuses item assignment: a write to a plain table would be silently lost.
 * The shared functions print the proxy as NumPy prints its tuples -- (2, 3), (3,), () -- and
 * compare with == element by element, with each other and with plain tables.  Code that reads
 * a list raw (lua_rawlen, lua_rawgeti) unwraps a tuple first with cuarr_lua_tuple_items.
 */
#include <string.h>

#include "binding.h"

void cuarr_lua_tuple_items(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
    return;
  bool tuple = lua_getfield(L, -1, "__name") == LUA_TSTRING &&
               strcmp(lua_tostring(L, -1), CUARR_LUA_TUPLE_MT) == 0;
  lua_pop(L, 1);
  if (tuple && lua_getfield(L, -1, "__index") == LUA_TTABLE) {
    lua_replace(L, idx);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, tuple ? 2 : 1);
}

/* __tostring: Python's repr of a tuple. */
static int tuple_tostring(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "argument #1 must be a shape or strides table, got %s",
                           luaL_typename(L, 1));
  cuarr_lua_tuple_items(L, 1);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addchar(&b, '(');
  for (lua_Integer i = 1; i <= n; i++) {
    if (i > 1)
      luaL_addstring(&b, ", ");
    lua_rawgeti(L, 1, i);
    luaL_tolstring(L, -1, NULL);
    lua_remove(L, -2);
    luaL_addvalue(&b);
  }
  if (n == 1)
    luaL_addchar(&b, ',');
  luaL_addchar(&b, ')');
  luaL_pushresult(&b);
  return 1;
}

/* __eq: Lua calls it only for two tables that are not the same one; equal when both are
 * sequences of one length with equal elements (2 == 2.0, as Lua's ==). */
static int tuple_eq(lua_State *L) {
  bool equal = lua_type(L, 1) == LUA_TTABLE && lua_type(L, 2) == LUA_TTABLE;
  if (equal) {
    cuarr_lua_tuple_items(L, 1);
    cuarr_lua_tuple_items(L, 2);
  }
  size_t n = equal ? lua_rawlen(L, 1) : 0;
  equal = equal && lua_rawlen(L, 2) == n;
  for (size_t i = 1; equal && i <= n; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i);
    lua_rawgeti(L, 2, (lua_Integer)i);
    equal = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
  }
  lua_pushboolean(L, equal);
  return 1;
}

static int tuple_len(lua_State *L) {
  cuarr_lua_tuple_items(L, 1);
  lua_pushinteger(L, lua_type(L, 1) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, 1) : 0);
  return 1;
}

static int tuple_next(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be a shape table, got %s",
                           luaL_typename(L, 1));
  lua_settop(L, 2);
  if (lua_next(L, 1))
    return 2;
  lua_pushnil(L);
  return 1;
}

/* __pairs: next over the extents, so that pairs(a.shape) visits 1..n as on a plain table. */
static int tuple_pairs(lua_State *L) {
  cuarr_lua_tuple_items(L, 1);
  lua_pushcfunction(L, tuple_next);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

static int tuple_newindex(lua_State *L) {
  return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                         "a.shape and a.strides are read-only (NumPy's tuples): copy one to "
                         "change it ({table.unpack(a.shape)}), or use a:reshape");
}

static const luaL_Reg tuple_meta[] = {
    {"__newindex", tuple_newindex}, {"__len", tuple_len}, {"__pairs", tuple_pairs},
    {"__tostring", tuple_tostring}, {"__eq", tuple_eq},   {NULL, NULL},
};

void cuarr_lua_push_tuple(lua_State *L, int n, const int64_t *v) {
  cuarr_lua_check_stack(L, 4);
  lua_createtable(L, 0, 0); /* the proxy */
  lua_createtable(L, 0, 7); /* its metatable */
  lua_createtable(L, n, 0); /* the extents */
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, CUARR_LUA_TUPLE_MT);
  lua_setfield(L, -2, "__name");
  luaL_setfuncs(L, tuple_meta, 0);
  lua_setmetatable(L, -2);
}
