/*
 * tuple.c -- the sequences a.shape and a.strides return: plain Lua tables (t[1], #t, ipairs
 * and table.unpack work on them as on any sequence) with one shared metatable, so that they
 * print as NumPy prints its tuples -- (2, 3), (3,), () -- and compare with == element by
 * element, with each other and with plain tables.
 */
#include "binding.h"

/* __tostring: Python's repr of a tuple, whatever the table holds now. */
static int tuple_tostring(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "argument #1 must be a shape or strides table, got %s",
                           luaL_typename(L, 1));
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
  size_t n = lua_rawlen(L, 1);
  bool equal =
      lua_type(L, 1) == LUA_TTABLE && lua_type(L, 2) == LUA_TTABLE && lua_rawlen(L, 2) == n;
  for (size_t i = 1; equal && i <= n; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i);
    lua_rawgeti(L, 2, (lua_Integer)i);
    equal = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
  }
  lua_pushboolean(L, equal);
  return 1;
}

void cuarr_lua_push_tuple(lua_State *L, int n, const int64_t *v) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  /* By the state's reference (the registry's array part), not by name: no string lookup. */
  const cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (S && S->tuple_mt_ref != LUA_NOREF)
    lua_rawgeti(L, LUA_REGISTRYINDEX, S->tuple_mt_ref);
  else
    luaL_getmetatable(L, CUARR_LUA_TUPLE_MT);
  lua_setmetatable(L, -2);
}

void cuarr_lua_open_tuple(lua_State *L, cuarr_lua_state *S) {
  if (luaL_newmetatable(L, CUARR_LUA_TUPLE_MT)) {
    lua_pushcfunction(L, tuple_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, tuple_eq);
    lua_setfield(L, -2, "__eq");
  }
  if (S->tuple_mt_ref == LUA_NOREF) /* a later load finds the same metatable */
    S->tuple_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  else
    lua_pop(L, 1);
}
