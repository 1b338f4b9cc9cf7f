/*
 * device.c -- Device objects, the current device, the runtime's versions.
 *
 * Device ids are CUDA's ordinals (0-based), as nvidia-smi shows them.  A Device object is a
 * userdata holding the ordinal, interned per id (cuarr_lua_push_device), so == compares them.
 */
#include <limits.h>
#include <string.h>

#include "binding.h"

static int check_device_ud(lua_State *L, int idx) {
  return *(int *)cuarr_lua_check_object(L, idx, &cuarr_lua_device_class);
}

/* A device ordinal argument, checked to exist; ids beyond int's range do not (they must not
 * wrap round to a device that does). */
static int check_device_id(lua_State *L, int idx, const char *what) {
  lua_Integer v = cuarr_lua_check_integer(L, idx, what);
  if (v < 0 || v > INT_MAX) {
    int n = 0;
    CUARR_LUA_TRY(L,
                  cuarr_device_count(&n)); /* NotAvailable without a driver, as for any other id */
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "device %lld does not exist (%d device%s)", (long long)v,
                    n, n == 1 ? "" : "s");
  }
  CUARR_LUA_TRY(L, cuarr_device_check((int)v));
  return (int)v;
}

/* cuarr.Device([id]) -- the current device when id is nil. */
static int l_device(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int id = S->device;
  if (lua_isnoneornil(L, 1))
    CUARR_LUA_TRY(L, cuarr_device_check(id));
  else
    id = check_device_id(L, 1, "device id");
  cuarr_lua_push_device(L, id);
  return 1;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void push_properties(lua_State *L, int id) {
  cuarr_device_props p;
  CUARR_LUA_TRY(L, cuarr_device_properties(id, &p));
  lua_createtable(L, 0, 14);
  lua_pushstring(L, p.name);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, p.pci_bus_id);
  lua_setfield(L, -2, "pci_bus_id");
  lua_pushfstring(L, "%d%d", p.major, p.minor);
  lua_setfield(L, -2, "compute_capability");
  set_int(L, "major", p.major);
  set_int(L, "minor", p.minor);
  set_int(L, "total_memory", (lua_Integer)p.total_memory);
  set_int(L, "multiprocessors", p.multiprocessors);
  set_int(L, "max_threads_per_block", p.max_threads_per_block);
  set_int(L, "warp_size", p.warp_size);
  set_int(L, "l2_cache_bytes", (lua_Integer)p.l2_cache_bytes);
  set_int(L, "shared_memory_per_block", (lua_Integer)p.shared_memory_per_block);
  set_int(L, "clock_rate_khz", p.clock_rate_khz);
  set_int(L, "memory_clock_rate_khz", p.memory_clock_rate_khz);
  set_int(L, "memory_bus_width", p.memory_bus_width);
}

/* d:use() -- make d the current device of this Lua state. */
static int device_use(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int id = check_device_ud(L, 1);
  CUARR_LUA_TRY(L, cuarr_device_activate(id));
  S->device = id;
  lua_settop(L, 1);
  return 1;
}

static int device_synchronize(lua_State *L) {
  CUARR_LUA_TRY(L, cuarr_device_synchronize(check_device_ud(L, 1)));
  return 0;
}

/* d:mem_info() -- free and total bytes of device memory, as the driver counts them. */
static int device_mem_info(lua_State *L) {
  size_t free_bytes, total;
  CUARR_LUA_TRY(L, cuarr_device_memory_info(check_device_ud(L, 1), &free_bytes, &total));
  lua_pushinteger(L, (lua_Integer)free_bytes);
  lua_pushinteger(L, (lua_Integer)total);
  return 2;
}

static int device_can_access_peer(lua_State *L) {
  bool yes;
  int self = check_device_ud(L, 1);
  int peer = check_device_id(L, 2, "peer device id");
  CUARR_LUA_TRY(L, cuarr_device_can_access_peer(self, peer, &yes));
  lua_pushboolean(L, yes);
  return 1;
}

/* The fields of the Device at index 1. */
static void *check_device_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_device_class);
}
static void field_id(lua_State *L, void *self) { lua_pushinteger(L, *(int *)self); }
static void field_properties(lua_State *L, void *self) { push_properties(L, *(int *)self); }
static void field_compute_capability(lua_State *L, void *self) {
  push_properties(L, *(int *)self);
  lua_getfield(L, -1, "compute_capability");
}

static int device_tostring(lua_State *L) {
  lua_pushfstring(L, "<CUDA Device %d>", check_device_ud(L, 1));
  return 1;
}

static int device_eq(lua_State *L) {
  const cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int *a = cuarr_lua_to_object(L, S, 1, &cuarr_lua_device_class),
      *b = cuarr_lua_to_object(L, S, 2, &cuarr_lua_device_class);
  lua_pushboolean(L, a && b && *a == *b);
  return 1;
}

static int l_get_device_id(lua_State *L) {
  lua_pushinteger(L, CUARR_LUA_STATE(L)->device);
  return 1;
}

static int l_synchronize(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  CUARR_LUA_TRY(L, cuarr_device_synchronize(cuarr_lua_current_device(L, S)));
  return 0;
}

static int l_is_available(lua_State *L) {
  lua_pushboolean(L, cuarr_is_available());
  return 1;
}

/* cuarr.runtime_info() -- versions and device count; never raises. */
static int l_runtime_info(lua_State *L) {
  cuarr_runtime_info r;
  cuarr_runtime(&r);
  lua_createtable(L, 0, 5);
  set_int(L, "driver_version", r.driver_version);
  set_int(L, "nvrtc_version", r.nvrtc_version);
  set_int(L, "cublas_version", r.cublas_version);
  set_int(L, "cusolver_version", r.cusolver_version);
  set_int(L, "nccl_version", r.nccl_version);
  set_int(L, "device_count", r.device_count);
  lua_pushstring(L, r.driver_missing);
  lua_setfield(L, -2, "driver_missing");
  lua_pushstring(L, r.host_blas);
  lua_setfield(L, -2, "host_blas");
  lua_pushliteral(L, CUARR_VERSION);
  lua_setfield(L, -2, "cuarr_version");
  return 1;
}

static const luaL_Reg device_methods[] = {
    {"use", device_use},
    {"synchronize", device_synchronize},
    {"mem_info", device_mem_info},
    {"can_access_peer", device_can_access_peer},
    {NULL, NULL},
};

static const luaL_Reg device_metamethods[] = {
    {"__tostring", device_tostring},
    {"__eq", device_eq},
    {NULL, NULL},
};

static const cuarr_lua_field device_fields[] = {
    {"id", field_id},
    {"properties", field_properties},
    {"compute_capability", field_compute_capability},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_device_class = {
    .id = CUARR_LUA_DEVICE_CLASS,
    .name = "Device",
    .metatable = CUARR_LUA_DEVICE_MT,
    .methods = device_methods,
    .metamethods = device_metamethods,
    .fields = device_fields,
    .check = check_device_object,
    .no_such_key = "Device has no field or method '%s'",
    .extendable = true,
};

void cuarr_lua_open_devices(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"Device", l_device},
      {"get_device_id", l_get_device_id},
      {"synchronize", l_synchronize},
      {"is_available", l_is_available},
      {"runtime_info", l_runtime_info},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
