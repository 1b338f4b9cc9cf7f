/*
 * pool.c -- MemoryPool objects: the device pool of a device, or the pinned host pool, with
 * CuPy's methods (used_bytes, total_bytes, free_bytes, n_free_blocks, free_all_blocks,
 * set_limit{size=|fraction=}, get_limit), and held_bytes: released blocks that graphs and
 * defer_cleanup scopes hold back (counted in used_bytes too).
 */
#include <string.h>

#include "binding.h"

typedef struct lpool {
  cuarr_pool *pool;
  int device; /* CUARR_HOST for the pinned pool */
} lpool;

static lpool *check_pool_object(lua_State *L) {
  return cuarr_lua_check_object(L, 1, &cuarr_lua_pool_class);
}

static cuarr_pool *check_pool(lua_State *L) { return check_pool_object(L)->pool; }

static void push_pool(lua_State *L, cuarr_pool *p, int device) {
  lpool *lp = lua_newuserdatauv(L, sizeof *lp, 0);
  lp->pool = p;
  lp->device = device;
  luaL_setmetatable(L, CUARR_LUA_POOL_MT);
}

static int l_get_default_memory_pool(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int dev = cuarr_lua_current_device(L, S);
  cuarr_pool *p = cuarr_device_pool(dev);
  if (!p)
    return cuarr_lua_fail(L, CUARR_NOT_AVAILABLE);
  push_pool(L, p, dev);
  return 1;
}

static int l_get_default_pinned_memory_pool(lua_State *L) {
  cuarr_pool *p = cuarr_pinned_pool();
  if (!p)
    return cuarr_lua_fail(L, CUARR_NOT_AVAILABLE);
  push_pool(L, p, CUARR_HOST);
  return 1;
}

#define POOL_STAT(fn)                                                                              \
  static int pool_##fn(lua_State *L) {                                                             \
    lua_pushinteger(L, (lua_Integer)cuarr_pool_##fn(check_pool(L)));                               \
    return 1;                                                                                      \
  }
POOL_STAT(used_bytes)
POOL_STAT(total_bytes)
POOL_STAT(free_bytes)
POOL_STAT(n_free_blocks)
POOL_STAT(held_bytes)
POOL_STAT(get_limit)

static int pool_free_all_blocks(lua_State *L) {
  cuarr_pool_free_all_blocks(check_pool(L));
  return 0;
}

/* p:set_limit{size = bytes} or p:set_limit{fraction = 0.5} (of the device's memory); 0 or no
 * argument removes the limit. */
static int pool_set_limit(lua_State *L) {
  cuarr_pool *p = check_pool(L);
  if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "set_limit takes a table {size=} or {fraction=}, got %s",
                           luaL_typename(L, 2));
  static const char *const keys[] = {"size", "fraction", NULL};
  if (lua_istable(L, 2))
    cuarr_lua_check_options(L, 2, "set_limit", keys);
  int ts = cuarr_lua_get_option(L, 2, "size"), tf = cuarr_lua_get_option(L, 2, "fraction");
  if (ts != LUA_TNIL && tf != LUA_TNIL)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "set_limit: give size or fraction, not both");
  size_t limit = 0;
  if (ts != LUA_TNIL) {
    lua_Integer size = cuarr_lua_check_integer(L, -2, "size");
    if (size < 0)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "set_limit: size must be non-negative");
    limit = (size_t)size;
  } else if (tf != LUA_TNIL) {
    double f = cuarr_lua_check_number(L, -1, "fraction");
    if (!(f >= 0 && f <= 1))
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "set_limit: fraction must be within [0, 1], got %g", f);
    limit = (size_t)(f * (double)cuarr_pool_capacity(p));
  }
  cuarr_pool_set_limit(p, limit);
  return 0;
}

static int pool_tostring(lua_State *L) {
  lpool *lp = check_pool_object(L);
  if (lp->device == CUARR_HOST)
    lua_pushliteral(L, "<cuarr.PinnedMemoryPool>");
  else
    lua_pushfstring(L, "<cuarr.MemoryPool device %d>", lp->device);
  return 1;
}

static const luaL_Reg pool_methods[] = {
    {"used_bytes", pool_used_bytes},
    {"total_bytes", pool_total_bytes},
    {"free_bytes", pool_free_bytes},
    {"n_free_blocks", pool_n_free_blocks},
    {"held_bytes", pool_held_bytes},
    {"free_all_blocks", pool_free_all_blocks},
    {"set_limit", pool_set_limit},
    {"get_limit", pool_get_limit},
    {NULL, NULL},
};

static const luaL_Reg pool_metamethods[] = {
    {"__tostring", pool_tostring},
    {NULL, NULL},
};

/* No fields: __index is the method table. */
const cuarr_lua_class cuarr_lua_pool_class = {
    .id = CUARR_LUA_POOL_CLASS,
    .name = "MemoryPool",
    .metatable = CUARR_LUA_POOL_MT,
    .methods = pool_methods,
    .metamethods = pool_metamethods,
    .no_such_key = "MemoryPool has no field or method '%s'",
    .extendable = true,
};

void cuarr_lua_open_pools(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"get_default_memory_pool", l_get_default_memory_pool},
      {"get_default_pinned_memory_pool", l_get_default_pinned_memory_pool},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
