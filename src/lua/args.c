/*
 * args.c -- reading arguments and options: the checks raise TypeError and ValueError objects
 * naming the argument or option, where lauxlib's would raise plain strings.
 *
 * Options are tables ({keepdims = true}); a value of the wrong type is a TypeError naming the
 * option.
 */

#include <string.h>

#include "binding.h"

/* "argument #2 (shape)"; a value read from a table (a negative stack index) is named by
 * `what` alone ("priority", "size"): its stack position means nothing to the caller. */
static const char *arg_name(lua_State *L, int idx, const char *what) {
  if (idx < 0)
    return lua_pushstring(L, what);
  return lua_pushfstring(L, "argument #%d (%s)", idx, what);
}

/* What the value at idx (an absolute index) is, for a message: a number's text (of a copy:
 * lua_tostring changes the value it converts), else its type's name. */
static const char *value_text(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    return luaL_typename(L, idx);
  lua_pushvalue(L, idx);
  return lua_tostring(L, -1);
}

void cuarr_lua_check_max_args(lua_State *L, int max, const char *fn) {
  if (lua_gettop(L) > max)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s takes at most %d arguments, got %d", fn, max,
                    lua_gettop(L));
}

lua_Integer cuarr_lua_check_integer(lua_State *L, int idx, const char *what) {
  int isint = 0;
  lua_Integer v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
  if (!isint) {
    const char *got = value_text(L, lua_absindex(L, idx));
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be an integer, got %s", arg_name(L, idx, what),
                    got);
  }
  return v;
}

lua_Integer cuarr_lua_opt_integer(lua_State *L, int idx, const char *what, lua_Integer def) {
  return lua_isnoneornil(L, idx) ? def : cuarr_lua_check_integer(L, idx, what);
}

double cuarr_lua_check_number(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be a number, got %s", arg_name(L, idx, what),
                    luaL_typename(L, idx));
  return lua_tonumber(L, idx);
}

const char *cuarr_lua_check_string(lua_State *L, int idx, const char *what) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s must be a string, got %s", arg_name(L, idx, what),
                    luaL_typename(L, idx));
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  if (strlen(s) != len)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s must not contain a NUL byte", arg_name(L, idx, what));
  return s;
}

void cuarr_lua_check_stack(lua_State *L, int n) {
  if (!lua_checkstack(L, n))
    cuarr_lua_error(L, CUARR_OUT_OF_MEMORY, "no room for %d more values on the Lua stack", n);
}

lua_Integer cuarr_lua_len(lua_State *L, int idx, const char *what) {
  lua_len(L, idx);
  int isint = 0;
  lua_Integer n = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
  if (!isint)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "the length of %s must be an integer, got %s", what,
                    value_text(L, lua_gettop(L)));
  lua_pop(L, 1);
  return n;
}

int cuarr_lua_check_axis(lua_State *L, int idx, int ndim, bool extra, const char *fn) {
  int isint = 0;
  lua_Integer k = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
  if (!isint)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: an axis must be an integer, got %s", fn,
                    value_text(L, lua_absindex(L, idx)));
  int n = ndim + (extra ? 1 : 0);
  if (k >= 1 && k <= n)
    return (int)(k - 1);
  if (k < 0 && k >= -n)
    return (int)(n + k);
  return cuarr_lua_error(L, CUARR_INDEX_ERROR,
                         "%s: axis %lld is out of bounds for an array of %d dimensions (axes are "
                         "1-based)",
                         fn, (long long)k, n);
}

int cuarr_lua_get_option(lua_State *L, int idx, const char *name) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    lua_pushnil(L);
    return LUA_TNIL;
  }
  return lua_getfield(L, idx, name);
}

bool cuarr_lua_opt_bool_field(lua_State *L, int idx, const char *name, bool def) {
  int t = cuarr_lua_get_option(L, idx, name);
  bool v = def;
  if (t == LUA_TBOOLEAN)
    v = lua_toboolean(L, -1);
  else if (t != LUA_TNIL)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "option '%s' must be a boolean, got %s", name,
                    luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

cuarr_dtype cuarr_lua_check_dtype(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "dtype must be a string such as \"float32\", got %s",
                    luaL_typename(L, idx));
  size_t len;
  const char *name = lua_tolstring(L, idx, &len);
  cuarr_dtype d;
  if (strlen(name) != len) /* "float32\0x" is no float32 */
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "unknown dtype '%s...' (the name has a NUL byte)", name);
  if (!cuarr_dtype_from_name(name, &d))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "unknown dtype '%s'", name);
  return d;
}

cuarr_dtype cuarr_lua_opt_dtype(lua_State *L, int idx, cuarr_dtype def) {
  return lua_isnoneornil(L, idx) ? def : cuarr_lua_check_dtype(L, idx);
}

/* One extent: an integer, or a float with an integral value (1e6 is a float in Lua). */
static int64_t extent_of(lua_State *L, int idx, int axis) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "shape entries must be integers, got %s at position %d",
                    luaL_typename(L, idx), axis + 1);
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "shape entries must be integers, got %s at position %d",
                    lua_tostring(L, idx), axis + 1);
  if (v < 0)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "negative dimensions are not allowed (%lld at position %d)", (long long)v,
                    axis + 1);
  return (int64_t)v;
}

int cuarr_lua_check_shape(lua_State *L, int idx, int64_t *shape) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    shape[0] = extent_of(L, idx, 0);
    return 1;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "shape must be an integer or a table of integers, got %s",
                    luaL_typename(L, idx));
  lua_Integer n = cuarr_lua_len(L, idx, "a shape");
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

bool cuarr_lua_to_scalar(lua_State *L, int idx, cuarr_scalar *out) {
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

bool cuarr_lua_to_element(lua_State *L, int idx, cuarr_dtype to, cuarr_scalar *out) {
  if (!cuarr_lua_to_scalar(L, idx, out))
    return false;
  CUARR_LUA_TRY(L, cuarr_scalar_check_element(*out, to));
  return true;
}

const char *cuarr_lua_opt_string_field(lua_State *L, int idx, const char *name) {
  cuarr_lua_check_stack(L, 1);
  int t = cuarr_lua_get_option(L, idx, name);
  if (t == LUA_TSTRING)
    return cuarr_lua_check_string(L, -1, name); /* left on the stack, which keeps it alive */
  if (t != LUA_TNIL)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "option '%s' must be a string, got %s", name,
                    luaL_typename(L, -1));
  lua_pop(L, 1);
  return NULL;
}

int cuarr_lua_read_compile_options(lua_State *L, int opts, const char **options) {
  cuarr_lua_check_stack(L, CUARR_LUA_MAX_OPTIONS + 1);
  int n = 0;
  int t = cuarr_lua_get_option(L, opts, "options");
  if (t == LUA_TTABLE) {
    int list = lua_gettop(L);
    lua_Integer len = cuarr_lua_len(L, list, "option 'options'");
    if (len > CUARR_LUA_MAX_OPTIONS)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "at most %d compile options",
                             CUARR_LUA_MAX_OPTIONS);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, list, i); /* left on the stack, which keeps it alive */
      options[n++] = cuarr_lua_check_string(L, -1, "compile option");
    }
  } else if (t != LUA_TNIL) {
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "option 'options' must be a table of strings");
  } else {
    lua_pop(L, 1);
  }
  return n;
}
