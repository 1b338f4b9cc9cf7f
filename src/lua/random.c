/*
 * random.c -- the C side of cuarr.random (lua/cuarr/random.lua holds the states, the
 * Generators and the argument checks): the host fill of a draw, a draw's values per Philox block,
 * and the device program's source (philox.cuh then random.cu, the text the host loops compile
 * too).  These are internal functions of `core`, kept out of the user's namespace by init.lua.
 */
#include <string.h>

#include "binding.h"
#include "kernel_sources.h"

static const char *const DISTS[] = {"uniform", "normal", "exponential", "integers", NULL};

/* A distribution's name (a cuarr error, not luaL_checkoption's plain string, for anything
 * else). */
static cuarr_random_dist check_dist(lua_State *L, int idx) {
  const char *name = cuarr_lua_check_string(L, idx, "distribution");
  for (int i = 0; DISTS[i]; i++)
    if (!strcmp(name, DISTS[i]))
      return (cuarr_random_dist)i;
  cuarr_lua_error(L, CUARR_VALUE_ERROR, "unknown distribution '%s'", name);
  return CUARR_RANDOM_UNIFORM;
}

/* The draw described by arguments idx.. : dist, seed, counter, a, b, low, m (integers are
 * 64-bit words: Lua's wrapping integers). */
static cuarr_random_draw check_draw(lua_State *L, int idx) {
  cuarr_random_draw d;
  d.dist = check_dist(L, idx);
  d.seed = (uint64_t)cuarr_lua_check_integer(L, idx + 1, "seed");
  d.counter = (uint64_t)cuarr_lua_check_integer(L, idx + 2, "counter");
  d.a = cuarr_lua_check_number(L, idx + 3, "a");
  d.b = cuarr_lua_check_number(L, idx + 4, "b");
  d.low = (uint64_t)cuarr_lua_check_integer(L, idx + 5, "low");
  d.m = (uint64_t)cuarr_lua_check_integer(L, idx + 6, "m");
  return d;
}

/* random_fill_host(out, dist, seed, counter, a, b, low, m) */
static int l_random_fill_host(lua_State *L) {
  cuarr_array *out = cuarr_lua_check_array(L, 1);
  cuarr_random_draw d = check_draw(L, 2);
  CUARR_LUA_TRY(L, cuarr_random_fill_host(&d, out));
  return 0;
}

/* random_per_block(dist, dtype, m): values per Philox block of such a draw. */
static int l_random_per_block(lua_State *L) {
  cuarr_random_draw d = {0};
  d.dist = check_dist(L, 1);
  cuarr_dtype dtype = cuarr_lua_check_dtype(L, 2);
  d.m = (uint64_t)cuarr_lua_check_integer(L, 3, "m");
  lua_pushinteger(L, cuarr_random_per_block(&d, dtype));
  return 1;
}

/* random_take_rows_host(dst, src, rows): dst[i] = src[rows[i]] (rows: 0-based, int64). */
static int l_random_take_rows_host(lua_State *L) {
  cuarr_array *dst = cuarr_lua_check_array(L, 1);
  cuarr_array *src = cuarr_lua_check_array(L, 2);
  cuarr_array *rows = cuarr_lua_check_array(L, 3);
  if (cuarr_array_device(rows) != CUARR_HOST || rows->dtype != CUARR_INT64 || rows->ndim != 1 ||
      !cuarr_array_is_c_contiguous(rows))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "take_rows: rows must be a 1-D int64 host array");
  CUARR_LUA_TRY(L, cuarr_random_take_rows_host(dst, src, cuarr_array_data(rows), rows->shape[0]));
  return 0;
}

/* random_program(): the device program's source. */
static int l_random_program(lua_State *L) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, cuarr_kernel_source_philox_cuh);
  luaL_addstring(&b, cuarr_kernel_source_random_cu);
  luaL_pushresult(&b);
  return 1;
}

void cuarr_lua_open_random(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"random_fill_host", l_random_fill_host},
      {"random_per_block", l_random_per_block},
      {"random_program", l_random_program},
      {"random_take_rows_host", l_random_take_rows_host},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
