/*
 * module.c -- luaopen_cuarr_core: builds the C half of the module.  Loading it again in one
 * lua_State (after package.loaded is cleared) builds new tables of functions over the same
 * binding state and the same metatables.
 *
 * Returns a table with the device functions (arrays on the current device), `cpu` with the
 * same creations for host arrays, the metatables the front end (lua/cuarr/init.lua) extends,
 * and perf_counter.  Nothing touches the CUDA driver here: loading works without a GPU.
 *
 * The classes are registered first, from their descriptors (classes.c); then each part of the
 * binding opens through its cuarr_lua_open_<part>(L, m), adding its functions to the module's
 * tables and its methods to its classes.
 */
#include <string.h>
#include <time.h>

#include "binding.h"

void cuarr_lua_set_functions(lua_State *L, const cuarr_lua_module *m, int idx,
                             const luaL_Reg *list) {
  idx = lua_absindex(L, idx);
  for (const luaL_Reg *r = list; r->name; r++) {
    lua_pushvalue(L, m->state);
    lua_pushcclosure(L, r->func, 1);
    lua_setfield(L, idx, r->name);
  }
}

/* The parts, in order: where two put a function of the same name in a table, the later wins
 * (and an alias never replaces a name already there). */
static void (*const parts[])(lua_State *L, const cuarr_lua_module *m) = {
    cuarr_lua_open_ndarray,
    cuarr_lua_open_devices,
    cuarr_lua_open_streams,
    cuarr_lua_open_graphs,
    cuarr_lua_open_events,
    cuarr_lua_open_pools,
    cuarr_lua_open_transfers,
    cuarr_lua_open_shape_ops,
    cuarr_lua_open_elementwise_kernels,
    cuarr_lua_open_reduction_kernels,
    cuarr_lua_open_raw_kernels,
    cuarr_lua_open_creations,
    cuarr_lua_open_ufuncs,
    cuarr_lua_open_reductions,
    cuarr_lua_open_pinned,
    cuarr_lua_open_cuda_array_interface,
    cuarr_lua_open_random,
    cuarr_lua_open_products,
    cuarr_lua_open_linalg,
    cuarr_lua_open_join,
    cuarr_lua_open_mask,
    cuarr_lua_open_rearrange,
    cuarr_lua_open_sort,
    cuarr_lua_open_take,
    cuarr_lua_open_histogram,
    cuarr_lua_open_comm,
};

/* Wall-clock seconds (monotonic), for benchmarks and timeouts. */
static int l_perf_counter(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

/* raise(kind, message): for the Lua front end, which raises the same error objects. */
static int l_raise(lua_State *L) {
  const char *kind = cuarr_lua_check_string(L, 1, "kind");
  if (lua_type(L, 2) != LUA_TSTRING)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #2 (message) must be a string, got %s",
                           luaL_typename(L, 2));
  for (cuarr_status s = CUARR_VALUE_ERROR; s <= CUARR_DISTRIBUTED_ERROR; s++)
    if (!strcmp(kind, cuarr_status_name(s)))
      return cuarr_lua_error_message_at(L, s, 2); /* the message as it is, NUL bytes too */
  return cuarr_lua_error(L, CUARR_VALUE_ERROR, "unknown error kind '%s'", kind);
}

CUARR_API int luaopen_cuarr_core(lua_State *L) {
  cuarr_lua_module m;
  cuarr_lua_state_push(L); /* the state's own, shared with its earlier loads of the module */
  m.state = lua_gettop(L);
  cuarr_lua_open_classes(L, m.state);
  lua_newtable(L);
  m.functions = lua_gettop(L);
  lua_newtable(L);
  m.cpu = lua_gettop(L);
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    parts[i](L, &m);

  lua_pushcfunction(L, l_perf_counter);
  lua_setfield(L, m.functions, "perf_counter");
  lua_pushcfunction(L, l_raise);
  lua_setfield(L, m.functions, "raise");
  lua_pushcfunction(L, cuarr_lua_l_set_front_end);
  lua_setfield(L, m.functions, "set_front_end");
  lua_pushcfunction(L, cuarr_lua_l_near_key);
  lua_setfield(L, m.functions, "near_key");
  lua_pushcfunction(L, cuarr_lua_l_check_options);
  lua_setfield(L, m.functions, "check_options");
  lua_pushvalue(L, m.cpu);
  lua_setfield(L, m.functions, "cpu");
  /* The metatables, for the front end to extend (printing, guards, ...). */
  cuarr_lua_push_metatables(L);
  lua_setfield(L, m.functions, "metatables");
  lua_pushliteral(L, CUARR_VERSION);
  lua_setfield(L, m.functions, "__version__");
  cuarr_lua_push_newaxis(L); /* in both namespaces, for code written over either */
  lua_setfield(L, m.functions, "newaxis");
  cuarr_lua_push_newaxis(L);
  lua_setfield(L, m.cpu, "newaxis");
  lua_settop(L, m.functions);
  return 1;
}
