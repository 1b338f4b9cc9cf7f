/*
 * module.c -- luaopen_cuarr_core: builds the C half of the module.
 *
 * Returns a table with the device functions (arrays on the current device), `cpu` with the
 * same creations for host arrays, the metatables the front end (lua/cuarr/init.lua) extends,
 * and perf_counter.  Nothing touches the CUDA driver here: loading works without a GPU.
 */
#include <string.h>
#include <time.h>

#include "binding.h"

static void set_funcs(lua_State *L, int state_idx, const luaL_Reg *list) {
  lua_pushvalue(L, state_idx);
  luaL_setfuncs(L, list, 1);
}

/* The creation functions, with upvalue 2 saying whether they make host arrays. */
static void set_creations(lua_State *L, int state_idx, bool host) {
  for (const luaL_Reg *r = cuarr_creation_functions; r->name; r++) {
    lua_pushvalue(L, state_idx);
    lua_pushboolean(L, host);
    lua_pushcclosure(L, r->func, 2);
    lua_setfield(L, -2, r->name);
  }
}

/* Wall-clock seconds (monotonic), for benchmarks and timeouts. */
static int l_perf_counter(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

/* raise(kind, message): for the Lua front end, which raises the same error objects. */
static int l_raise(lua_State *L) {
  const char *kind = luaL_checkstring(L, 1), *message = luaL_checkstring(L, 2);
  for (cuarr_status s = CUARR_VALUE_ERROR; s <= CUARR_NOT_AVAILABLE; s++)
    if (!strcmp(kind, cuarr_status_name(s)))
      return cuarr_lua_error(L, s, "%s", message);
  return luaL_error(L, "unknown error kind '%s'", kind);
}

int luaopen_cuarr_core(lua_State *L) {
  cuarr_lua_open_errors(L);
  cuarr_lua_state_new(L);
  int state_idx = lua_gettop(L);
  cuarr_lua_open_ndarray(L);
  cuarr_lua_open_devices(L);
  cuarr_lua_open_streams(L);
  cuarr_lua_open_pools(L);
  cuarr_lua_open_elementwise_kernels(L, state_idx);
  cuarr_lua_open_reduction_kernels(L, state_idx);
  luaL_getmetatable(L, CUARR_LUA_ARRAY_MT);
  cuarr_lua_set_array_ufuncs(L, state_idx, lua_gettop(L));
  lua_getfield(L, -1, "methods");
  cuarr_lua_set_reductions(L, state_idx);
  lua_pop(L, 2);

  lua_newtable(L);
  set_funcs(L, state_idx, cuarr_device_functions);
  set_funcs(L, state_idx, cuarr_stream_functions);
  set_funcs(L, state_idx, cuarr_pool_functions);
  set_funcs(L, state_idx, cuarr_transfer_functions);
  set_funcs(L, state_idx, cuarr_shape_methods);
  set_funcs(L, state_idx, cuarr_elementwise_kernel_functions);
  set_funcs(L, state_idx, cuarr_reduction_kernel_functions);
  set_creations(L, state_idx, false);
  cuarr_lua_set_ufuncs(L, state_idx, false);
  cuarr_lua_set_reductions(L, state_idx);
  lua_pushcfunction(L, l_perf_counter);
  lua_setfield(L, -2, "perf_counter");
  lua_pushcfunction(L, l_raise);
  lua_setfield(L, -2, "raise");

  lua_newtable(L);
  set_creations(L, state_idx, true);
  cuarr_lua_set_ufuncs(L, state_idx, true);
  cuarr_lua_set_reductions(L, state_idx);
  lua_setfield(L, -2, "cpu");

  /* The metatables, for the front end to extend (printing, guards, ...). */
  const char *classes[][2] = {{"ndarray", CUARR_LUA_ARRAY_MT},   {"Device", CUARR_LUA_DEVICE_MT},
                              {"Stream", CUARR_LUA_STREAM_MT},   {"Event", CUARR_LUA_EVENT_MT},
                              {"MemoryPool", CUARR_LUA_POOL_MT}, {"Error", CUARR_LUA_ERROR_MT}};
  lua_newtable(L);
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    luaL_getmetatable(L, classes[i][1]);
    lua_setfield(L, -2, classes[i][0]);
  }
  lua_setfield(L, -2, "metatables");
  lua_pushliteral(L, CUARR_VERSION);
  lua_setfield(L, -2, "__version__");
  return 1;
}
