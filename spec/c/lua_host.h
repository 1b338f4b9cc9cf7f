/*
 * lua_host.h -- for the C tests that embed Lua as a host program does: the whole module in a
 * state, its C half preloaded (as if require had found core.so) and the front end read from the
 * checkout's lua/ (the tests run from the repository's root).
 */
#ifndef CUARR_SPEC_LUA_HOST_H
#define CUARR_SPEC_LUA_HOST_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

int luaopen_cuarr_core(lua_State *L);

/* Open the standard libraries in L and make `require "cuarr"` load this build's module.
 * Returns false (the error message printed) when setting the path failed. */
static inline int lua_host_prepare(lua_State *L) {
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_cuarr_core);
  lua_setfield(L, -2, "cuarr.core");
  lua_pop(L, 1);
  return luaL_dostring(L, "package.path = 'lua/?.lua;lua/?/init.lua;' .. package.path") == LUA_OK;
}

#endif
