/*
 * errors.c -- error objects and argument checks.
 *
 * Errors are raised as tables {kind = "ValueError", message = "..."} whose metatable gives
 * tostring(e) == "cuarr.ValueError: ...", so scripts can branch on e.kind and still print a
 * readable message.  The argument checks here raise TypeError objects where lauxlib's would
 * raise plain strings.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

static int error_tostring(lua_State *L) {
  lua_getfield(L, 1, "kind");
  lua_getfield(L, 1, "message");
  lua_pushfstring(L, "cuarr.%s: %s", luaL_optstring(L, 2, "Error"), luaL_optstring(L, 3, ""));
  return 1;
}

void cuarr_lua_open_errors(lua_State *L) {
  if (luaL_newmetatable(L, CUARR_ERROR_MT)) {
    lua_pushcfunction(L, error_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushstring(L, "cuarr.Error");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
}

static int raise(lua_State *L, const char *kind, const char *message) {
  lua_createtable(L, 0, 2);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "kind");
  lua_pushstring(L, message);
  lua_setfield(L, -2, "message");
  luaL_setmetatable(L, CUARR_ERROR_MT);
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

/* "argument #2 (shape)"; a value read from a table (a negative stack index) is named by
 * `what` alone ("priority", "size"): its stack position means nothing to the caller. */
static const char *arg_name(lua_State *L, int idx, const char *what) {
  if (idx < 0) return lua_pushstring(L, what);
  return lua_pushfstring(L, "argument #%d (%s)", idx, what);
}

lua_Integer check_integer(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be an integer, got %s", arg_name(L, idx, what),
                    luaL_typename(L, idx));
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s must be an integer, got %s", arg_name(L, idx, what),
                    lua_tostring(L, idx));
  return v;
}

lua_Integer opt_integer(lua_State *L, int idx, const char *what, lua_Integer def) {
  return lua_isnoneornil(L, idx) ? def : check_integer(L, idx, what);
}

double check_number(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be a number, got %s", arg_name(L, idx, what),
                    luaL_typename(L, idx));
  return lua_tonumber(L, idx);
}

const char *check_string(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be a string, got %s", arg_name(L, idx, what),
                    luaL_typename(L, idx));
  return lua_tostring(L, idx);
}

int get_option(lua_State *L, int idx, const char *name) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  return lua_getfield(L, idx, name);
}

bool opt_bool_field(lua_State *L, int idx, const char *name, bool def) {
  int t = get_option(L, idx, name);
  bool v = def;
  if (t == LUA_TBOOLEAN)
    v = lua_toboolean(L, -1);
  else if (t != LUA_TNIL)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "option '%s' must be a boolean, got %s", name,
                    luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

cuarr_dtype check_dtype(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "dtype must be a string such as \"float32\", got %s",
                    luaL_typename(L, idx));
  cuarr_dtype d;
  if (!cuarr_dtype_from_name(lua_tostring(L, idx), &d))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "unknown dtype '%s'", lua_tostring(L, idx));
  return d;
}

cuarr_dtype opt_dtype(lua_State *L, int idx, cuarr_dtype def) {
  return lua_isnoneornil(L, idx) ? def : check_dtype(L, idx);
}

/* One extent: an integer, or a float with an integral value (1e6 is a float in Lua). */
static int64_t extent_of(lua_State *L, int idx, int axis) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "shape entries must be integers, got %s at position %d",
                    luaL_typename(L, idx), axis + 1);
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "shape entries must be integers, got %s at position %d",
                    lua_tostring(L, idx), axis + 1);
  if (v < 0)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "negative dimensions are not allowed (%lld at position %d)",
                    (long long)v, axis + 1);
  return (int64_t)v;
}

int check_shape(lua_State *L, int idx, int64_t *shape) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    shape[0] = extent_of(L, idx, 0);
    return 1;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "shape must be an integer or a table of integers, got %s",
                    luaL_typename(L, idx));
  lua_Integer n = luaL_len(L, idx);
  if (n > CUARR_MAXDIM)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "too many dimensions: %lld (at most %d)", (long long)n,
                    CUARR_MAXDIM);
  for (int i = 0; i < (int)n; i++) {
    lua_geti(L, idx, i + 1);
    shape[i] = extent_of(L, -1, i);
    lua_pop(L, 1);
  }
  return (int)n;
}

bool to_scalar(lua_State *L, int idx, cuarr_scalar *out) {
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN:
    out->dtype = CUARR_BOOL;
    out->v.b = lua_toboolean(L, idx);
    return true;
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      out->dtype = CUARR_INT64;
      out->v.i = lua_tointeger(L, idx);
    } else {
      out->dtype = CUARR_FLOAT64;
      out->v.f = lua_tonumber(L, idx);
    }
    return true;
  default: return false;
  }
}
