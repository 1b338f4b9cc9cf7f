/*
 * convert.c -- between Lua values and host arrays: nested tables in, nested tables out.
 *
 * Lua integers become int64, Lua floats the default float dtype (float64 unless
 * cuarr.set_default_dtype said otherwise), booleans bool; a table mixing them takes the widest
 * kind, as NumPy's array() does.  uint64 values beyond Lua's integers come back as floats.
 */
#include <string.h>

#include "binding.h"

static void push_scalar(lua_State *L, cuarr_scalar s) {
  switch (s.dtype) {
  case CUARR_BOOL: lua_pushboolean(L, s.v.b); break;
  case CUARR_FLOAT16:
  case CUARR_FLOAT32:
  case CUARR_FLOAT64: lua_pushnumber(L, s.v.f); break;
  case CUARR_UINT8:
  case CUARR_UINT16:
  case CUARR_UINT32:
  case CUARR_UINT64:
    if (s.v.u > (uint64_t)INT64_MAX)
      lua_pushnumber(L, (lua_Number)s.v.u);
    else
      lua_pushinteger(L, (lua_Integer)s.v.u);
    break;
  default: lua_pushinteger(L, s.v.i); break;
  }
}

void cuarr_lua_push_element(lua_State *L, const void *p, cuarr_dtype dtype) {
  push_scalar(L, cuarr_scalar_load(p, dtype));
}

/* What a nested table holds: its shape and the widest kind of its leaves. */
typedef struct table_info {
  int ndim;
  int64_t shape[CUARR_MAXDIM];
  int kind; /* 0 none yet, 1 bool, 2 integer, 3 float */
} table_info;

static void fail_ragged(lua_State *L, int depth) {
  cuarr_lua_error(L, CUARR_VALUE_ERROR,
                  "the nested table has an inhomogeneous shape (at depth %d): every row must "
                  "have the same length",
                  depth + 1);
}

/* Walk the table at idx (depth `depth`), checking it against info->shape and noting kinds. */
static void survey(lua_State *L, int idx, int depth, table_info *info) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    if (depth != info->ndim)
      fail_ragged(L, depth);
    int t = lua_type(L, idx);
    int kind = t == LUA_TBOOLEAN ? 1 : t == LUA_TNUMBER ? (lua_isinteger(L, idx) ? 2 : 3) : 0;
    if (!kind)
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "array elements must be numbers or booleans, got %s",
                      luaL_typename(L, idx));
    if (kind > info->kind)
      info->kind = kind;
    return;
  }
  if (depth >= info->ndim || luaL_len(L, idx) != info->shape[depth])
    fail_ragged(L, depth);
  luaL_checkstack(L, 4, "nested table too deep");
  for (int64_t i = 1; i <= info->shape[depth]; i++) {
    lua_geti(L, idx, i);
    survey(L, lua_gettop(L), depth + 1, info);
    lua_pop(L, 1);
  }
}

/* Store the leaves of the table at idx into consecutive elements at *p. */
static void store(lua_State *L, int idx, cuarr_dtype dtype, size_t itemsize, char **p) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    cuarr_scalar s;
    cuarr_lua_to_scalar(L, idx, &s);
    cuarr_scalar_store(s, dtype, *p);
    *p += itemsize;
    return;
  }
  lua_Integer n = luaL_len(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    store(L, lua_gettop(L), dtype, itemsize, p);
    lua_pop(L, 1);
  }
}

cuarr_array *cuarr_lua_host_array_from_lua(lua_State *L, cuarr_lua_state *S, int idx, int dtype) {
  idx = lua_absindex(L, idx);
  table_info info = {0};
  /* The shape comes from the first element at each depth; survey() checks the rest. */
  lua_pushvalue(L, idx);
  while (lua_type(L, -1) == LUA_TTABLE) {
    if (info.ndim == CUARR_MAXDIM)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "nested table has more than %d levels", CUARR_MAXDIM);
    lua_Integer n = luaL_len(L, -1);
    info.shape[info.ndim++] = n;
    if (n == 0)
      break;
    lua_geti(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_pop(L, 1);
  survey(L, idx, 0, &info);
  cuarr_dtype d = dtype >= 0       ? (cuarr_dtype)dtype
                  : info.kind == 1 ? CUARR_BOOL
                  : info.kind == 2 ? CUARR_INT64
                                   : S->default_float;
  cuarr_array *h = cuarr_lua_new_array(L, S, CUARR_HOST, d, info.ndim, info.shape, false);
  char *p = cuarr_array_data(h);
  store(L, idx, d, cuarr_dtype_size(d), &p);
  return h;
}

static void push_level(lua_State *L, const cuarr_array *h, int depth, const char *p) {
  if (depth == h->ndim) {
    cuarr_lua_push_element(L, p, h->dtype);
    return;
  }
  luaL_checkstack(L, 3, "array too deep");
  int64_t n = h->shape[depth];
  lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
  for (int64_t i = 0; i < n; i++) {
    push_level(L, h, depth + 1, p + i * h->strides[depth]);
    lua_rawseti(L, -2, i + 1);
  }
}

void cuarr_lua_push_table(lua_State *L, const cuarr_array *h) {
  push_level(L, h, 0, cuarr_array_data(h));
}
