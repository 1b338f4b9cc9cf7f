/*
 * order.c -- NumPy's order= in the binding: which letters a function takes, and the strides a
 * new array gets for each.  A new array is always made C-contiguous first; another order only
 * permutes its strides over the same bytes, so no allocation path knows about orders.
 */
#include <string.h>

#include "binding.h"
#include "order.h"

static char check_letter(lua_State *L, int idx, const char *allowed, const char *fn) {
  if (lua_type(L, idx) != LUA_TSTRING)
    return (char)cuarr_lua_error(L, CUARR_TYPE_ERROR,
                                 "%s: order must be a string ('C', 'F', 'A' or 'K'), got %s", fn,
                                 luaL_typename(L, idx));
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  if (len != 1 || !strchr("CFAK", s[0]))
    return (char)cuarr_lua_error(L, CUARR_VALUE_ERROR,
                                 "%s: order must be one of 'C', 'F', 'A', 'K', got '%s'", fn, s);
  if (!strchr(allowed, s[0])) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *c = allowed; *c; c++) {
      lua_pushfstring(L, c == allowed ? "'%c'" : c[1] ? ", '%c'" : " or '%c'", *c);
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return (char)cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: order '%s' is not permitted here (%s)",
                                 fn, s, lua_tostring(L, -1));
  }
  return s[0];
}

char cuarr_lua_order_option(lua_State *L, int opts, const char *allowed, char def, const char *fn) {
  if (!opts || cuarr_lua_get_option(L, opts, "order") == LUA_TNIL) {
    if (opts)
      lua_pop(L, 1);
    return def;
  }
  char order = check_letter(L, -1, allowed, fn);
  lua_pop(L, 1);
  return order;
}

char cuarr_lua_order_arg(lua_State *L, int idx, const char *allowed, char def, const char *fn) {
  switch (lua_type(L, idx)) {
  case LUA_TNONE:
  case LUA_TNIL: return def;
  case LUA_TTABLE: return cuarr_lua_order_option(L, lua_absindex(L, idx), allowed, def, fn);
  default: return check_letter(L, idx, allowed, fn);
  }
}

char cuarr_lua_resolve_order(char order, const cuarr_array *a) {
  if (order != 'A')
    return order;
  return cuarr_array_is_f_contiguous(a) && !cuarr_array_is_c_contiguous(a) ? 'F' : 'C';
}

bool cuarr_lua_has_order(const cuarr_array *a, char order) {
  switch (order) {
  case 'C': return cuarr_array_is_c_contiguous(a);
  case 'F': return cuarr_array_is_f_contiguous(a);
  default: return true;
  }
}

void cuarr_lua_lay_out(cuarr_array *r, char order, const cuarr_array *proto) {
  size_t itemsize = cuarr_dtype_size(r->dtype);
  order = proto ? cuarr_lua_resolve_order(order, proto) : order;
  if (order == 'F')
    cuarr_strides_f(r->ndim, r->shape, itemsize, r->strides);
  else if (order == 'K' && proto && cuarr_array_is_dense(proto))
    cuarr_strides_keep(proto, itemsize, r->strides);
}
