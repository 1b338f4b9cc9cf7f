/*
 * lua_main.c -- a minimal Lua 5.4 interpreter for profiling: `lua_main script.lua args...`.
 *
 * Debian's /usr/bin/lua5.4 is stripped, so callgrind and perf see its functions as bare
 * addresses.  This one links the same Lua (liblua5.4.a, whose symbol table is intact) and
 * exports the C API to modules (-rdynamic), so profiles name luaV_execute, luaH_getshortstr and
 * the rest.
 *
 * Like lua.c it runs the collector in generational mode (LUA_MAIN_GC=incremental gives the
 * incremental mode of a plain luaL_newstate, as an embedding program has by default) and sets
 * the global `arg` (arg[0] the script, arg[1..] the arguments).  It adds one global,
 * profiled_region(fn, ...): it calls fn(...) and returns its results.  It exists to
 * be a function that nothing else calls, so that
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=profiled_region
 * counts exactly the work fn does.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* noinline and externally visible: callgrind must see a call to a function of this name. */
__attribute__((noinline)) int profiled_region(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg)
    msg = luaL_tolstring(L, 1, NULL);
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static int run(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = lua_touserdata(L, 2);
  const char *gc = getenv("LUA_MAIN_GC");
  lua_gc(L, LUA_GCSTOP); /* as lua.c: no collection while the libraries load */
  luaL_openlibs(L);
  lua_gc(L, LUA_GCRESTART);
  if (!gc || strcmp(gc, "incremental") != 0)
    lua_gc(L, LUA_GCGEN, 0, 0);
  lua_pushcfunction(L, profiled_region);
  lua_setglobal(L, "profiled_region");
  lua_createtable(L, argc, 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1); /* argv[0] is this program: arg[-1] */
  }
  lua_setglobal(L, "arg");
  if (luaL_loadfile(L, argv[1]) != LUA_OK)
    return lua_error(L);
  for (int i = 2; i < argc; i++)
    lua_pushstring(L, argv[i]);
  lua_call(L, argc - 2, 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s script.lua [args...]\n", argv[0]);
    return 2;
  }
  lua_State *L = luaL_newstate();
  if (!L) {
    fprintf(stderr, "%s: cannot create the Lua state\n", argv[0]);
    return 1;
  }
  lua_pushcfunction(L, traceback);
  lua_pushcfunction(L, run);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 2, 0, 1);
  if (status != LUA_OK)
    fprintf(stderr, "%s: %s\n", argv[0], lua_tostring(L, -1));
  lua_close(L);
  return status == LUA_OK ? 0 : 1;
}
