/*
 * errors.c -- error objects.
 *
 * Errors are raised as tables {kind = "ValueError", message = "..."} whose metatable gives
 * tostring(e) == "cuarr.ValueError: ...", so scripts can branch on e.kind and still print a
 * readable message.
 */
#include <stdarg.h>
#include <stdio.h>

#include "binding.h"

static int error_tostring(lua_State *L) {
  lua_getfield(L, 1, "kind");
  lua_getfield(L, 1, "message");
  lua_pushfstring(L, "cuarr.%s: %s", luaL_optstring(L, 2, "Error"), luaL_optstring(L, 3, ""));
  return 1;
}

static const luaL_Reg error_metamethods[] = {
    {"__tostring", error_tostring},
    {NULL, NULL},
};

/* Error objects are tables: their own fields (kind, message) need no getters. */
const cuarr_lua_class cuarr_lua_error_class = {
    .id = CUARR_LUA_ERROR_CLASS,
    .name = "Error",
    .metatable = CUARR_LUA_ERROR_MT,
    .metamethods = error_metamethods,
    .extendable = true,
};

static int raise(lua_State *L, const char *kind, const char *message) {
  lua_createtable(L, 0, 2);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "kind");
  lua_pushstring(L, message);
  lua_setfield(L, -2, "message");
  luaL_setmetatable(L, CUARR_LUA_ERROR_MT);
  return lua_error(L);
}

int cuarr_lua_error(lua_State *L, cuarr_status kind, const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return raise(L, cuarr_status_name(kind), message);
}

int cuarr_lua_fail(lua_State *L, cuarr_status s) {
  return raise(L, cuarr_status_name(s), cuarr_last_error());
}
