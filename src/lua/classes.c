/*
 * classes.c -- the metatables of the binding's classes (Device, Stream, Event, ndarray,
 * MemoryPool) and the method lookup their __index functions share.
 *
 * A class's methods live in one table, kept as the metatable's field `methods` so that the
 * front end can add its own (ndarray printing, Device:enter, ...).  __index is a closure with
 * upvalues (state, methods): it looks up methods first, then the class's fields.
 */
#include "binding.h"

void cuarr_lua_new_class(lua_State *L, int state_idx, const char *name, const luaL_Reg *methods,
                         lua_CFunction index, const luaL_Reg *meta) {
  int top = lua_gettop(L);
  luaL_newmetatable(L, name);
  int mt = lua_gettop(L);
  lua_newtable(L);
  int m = lua_gettop(L);
  lua_pushvalue(L, state_idx);
  luaL_setfuncs(L, methods, 1);
  lua_pushvalue(L, m);
  lua_setfield(L, mt, "methods");
  if (index) {
    lua_pushvalue(L, state_idx);
    lua_pushvalue(L, m);
    lua_pushcclosure(L, index, 2);
  } else {
    lua_pushvalue(L, m);
  }
  lua_setfield(L, mt, "__index");
  lua_settop(L, mt);
  if (meta) {
    lua_pushvalue(L, state_idx);
    luaL_setfuncs(L, meta, 1);
  }
  lua_settop(L, top);
}

void cuarr_lua_add_methods(lua_State *L, int state_idx, const char *name, const luaL_Reg *methods) {
  luaL_getmetatable(L, name);
  lua_getfield(L, -1, "methods");
  lua_pushvalue(L, state_idx);
  luaL_setfuncs(L, methods, 1);
  lua_pop(L, 2);
}

bool cuarr_lua_get_method(lua_State *L, const char *cls, const char **key) {
  if (lua_type(L, 2) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s fields are named by strings, not %s", cls,
                    luaL_typename(L, 2));
  *key = lua_tostring(L, 2);
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL)
    return true;
  lua_pop(L, 1);
  return false;
}
