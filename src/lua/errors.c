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

/* Push field k of the error object at 1, read raw, as text: a string or a number as it is,
 * anything else (a script may have changed it) as def. */
static void push_field_text(lua_State *L, const char *k, const char *def) {
  lua_pushstring(L, k);
  int t = lua_rawget(L, 1);
  if (t != LUA_TSTRING && t != LUA_TNUMBER) {
    lua_pop(L, 1);
    lua_pushstring(L, def);
  }
}

/* "cuarr.<kind>: <message>", joined with their lengths (a NUL byte does not cut them). */
static int error_tostring(lua_State *L) {
  if (!lua_istable(L, 1) || !lua_getmetatable(L, 1) || !luaL_getmetatable(L, CUARR_LUA_ERROR_MT) ||
      !lua_rawequal(L, -1, -2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be an error object, got %s",
                           luaL_typename(L, 1));
  lua_settop(L, 1);
  lua_pushliteral(L, "cuarr.");
  push_field_text(L, "kind", "Error");
  lua_pushliteral(L, ": ");
  push_field_text(L, "message", "");
  lua_concat(L, 4);
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

/* Raise {kind = kind, message = the string at the top of the stack}. */
static int raise_top(lua_State *L, const char *kind) {
  lua_createtable(L, 0, 2);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "kind");
  lua_insert(L, -2);
  lua_setfield(L, -2, "message");
  luaL_setmetatable(L, CUARR_LUA_ERROR_MT);
  return lua_error(L);
}

static int raise(lua_State *L, const char *kind, const char *message) {
  lua_pushstring(L, message);
  return raise_top(L, kind);
}

int cuarr_lua_error_message_at(lua_State *L, cuarr_status kind, int idx) {
  lua_pushvalue(L, idx);
  return raise_top(L, cuarr_status_name(kind));
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
