/*
 * stream.c -- Stream objects and the current stream (events: event.c).
 *
 * Each device has a current stream per Lua state (the null stream until one is made current).
 * The binding state keeps the current Stream object referenced in its user value, so it cannot
 * be collected while work is queued on it by default, nor while any load of the module that
 * points at it is alive.
 */
#include <limits.h>
#include <string.h>

#include "binding.h"

/* Push the binding state's table `which` (CUARR_LUA_CURRENT_STREAMS or CUARR_LUA_NULL_STREAMS). */
static void push_streams(lua_State *L, int which) {
  lua_getiuservalue(L, lua_upvalueindex(1), which);
}

/* The Stream at idx, destroyed or not (the fields read it too). */
static void *check_stream_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_stream_class);
}

static cuarr_lua_stream *check_stream(lua_State *L, int idx) {
  cuarr_lua_stream *s = check_stream_object(L, idx);
  if (s->destroyed)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the stream has been destroyed");
  return s;
}

cuarr_stream *cuarr_lua_opt_stream(lua_State *L, int idx) {
  if (lua_isnoneornil(L, idx))
    return NULL;
  return &check_stream(L, idx)->s;
}

/* The null stream's object for device dev (made once). */
static void push_null_stream(lua_State *L, int dev) {
  push_streams(L, CUARR_LUA_NULL_STREAMS);
  if (lua_rawgeti(L, -1, dev) == LUA_TNIL) {
    lua_pop(L, 1);
    cuarr_lua_stream *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    s->s.device = dev;
    luaL_setmetatable(L, CUARR_LUA_STREAM_MT);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, dev);
  }
  lua_remove(L, -2);
}

/* cuarr.Stream{non_blocking=false, priority=0} on the current device. */
static int l_stream(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (!lua_isnoneornil(L, 1) && !lua_istable(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "Stream takes an options table, got %s",
                           luaL_typename(L, 1));
  static const char *const keys[] = {"non_blocking", "priority", NULL};
  if (lua_istable(L, 1))
    cuarr_lua_check_options(L, 1, "Stream", keys);
  bool non_blocking = cuarr_lua_opt_bool_field(L, 1, "non_blocking", false);
  int priority = 0;
  if (cuarr_lua_get_option(L, 1, "priority") != LUA_TNIL) {
    lua_Integer p = cuarr_lua_check_integer(L, -1, "priority");
    if (p < INT_MIN || p > INT_MAX) /* would wrap round to some valid priority */
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "stream priority %lld is out of range",
                             (long long)p);
    priority = (int)p;
  }
  lua_pop(L, 1);
  int dev = cuarr_lua_current_device(L, S);
  cuarr_lua_stream *s = lua_newuserdatauv(L, sizeof *s, 0);
  memset(s, 0, sizeof *s);
  s->destroyed = true; /* until created: __gc must not destroy a stream that never was */
  luaL_setmetatable(L, CUARR_LUA_STREAM_MT);
  CUARR_LUA_TRY(L, cuarr_stream_create(dev, non_blocking, priority, &s->s));
  s->destroyed = false;
  return 1;
}

static int stream_gc(lua_State *L) {
  cuarr_lua_stream *s = check_stream_object(L, 1);
  if (!s->destroyed && s->s.handle)
    cuarr_stream_destroy(&s->s);
  s->destroyed = true;
  return 0;
}

static int stream_synchronize(lua_State *L) {
  CUARR_LUA_TRY(L, cuarr_stream_synchronize(&check_stream(L, 1)->s));
  return 0;
}

static int stream_query(lua_State *L) {
  bool done;
  CUARR_LUA_TRY(L, cuarr_stream_query(&check_stream(L, 1)->s, &done));
  lua_pushboolean(L, done);
  return 1;
}

static int stream_wait_event(lua_State *L) {
  cuarr_lua_stream *s = check_stream(L, 1);
  cuarr_lua_event *e = cuarr_lua_check_event(L, 2);
  CUARR_LUA_TRY(L, cuarr_stream_wait_event(&s->s, &e->e));
  return 0;
}

/* s:record([event]) -- records (a new event when none is given) on s and returns it. */
static int stream_record(lua_State *L) {
  cuarr_lua_stream *s = check_stream(L, 1);
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    cuarr_lua_push_event(L, s->s.device, true, false); /* becomes argument 2 */
  }
  cuarr_lua_event *e = cuarr_lua_check_event(L, 2);
  CUARR_LUA_TRY(L, cuarr_event_record(&e->e, &s->s));
  e->recorded = true;
  lua_settop(L, 2);
  return 1;
}

/* s:use() -- make s the current stream of its device. */
static int stream_use(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_stream *s = check_stream(L, 1);
  push_streams(L, CUARR_LUA_CURRENT_STREAMS);
  lua_pushvalue(L, 1);
  lua_rawseti(L, -2, s->s.device);
  S->stream[s->s.device] = s->s.handle ? &s->s : NULL;
  lua_settop(L, 1);
  return 1;
}

static int l_get_current_stream(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int dev = cuarr_lua_current_device(L, S);
  push_streams(L, CUARR_LUA_CURRENT_STREAMS);
  if (lua_rawgeti(L, -1, dev) == LUA_TNIL)
    push_null_stream(L, dev);
  return 1;
}

static int l_null_stream(lua_State *L) {
  push_null_stream(L, cuarr_lua_current_device(L, CUARR_LUA_STATE(L)));
  return 1;
}

/* The fields of the Stream at index 1. */
static void field_stream_ptr(lua_State *L, void *self) {
  lua_pushinteger(L, (lua_Integer)(intptr_t)((cuarr_lua_stream *)self)->s.handle);
}
static void field_stream_device(lua_State *L, void *self) {
  cuarr_lua_push_device(L, ((cuarr_lua_stream *)self)->s.device);
}
static void field_stream_device_id(lua_State *L, void *self) {
  lua_pushinteger(L, ((cuarr_lua_stream *)self)->s.device);
}
static void field_stream_non_blocking(lua_State *L, void *self) {
  lua_pushboolean(L, ((cuarr_lua_stream *)self)->s.non_blocking);
}
static void field_stream_priority(lua_State *L, void *self) {
  lua_pushinteger(L, ((cuarr_lua_stream *)self)->s.priority);
}
static void field_stream_is_null(lua_State *L, void *self) {
  lua_pushboolean(L, ((cuarr_lua_stream *)self)->s.handle == NULL);
}

/* ---------------------------------------------------------------- auto_synchronize */

/* s:auto_synchronize() -> a scope for `local _ <close> =` (Numba's stream.auto_synchronize()):
 * its close waits for the stream, which its user value 1 keeps alive. */
typedef struct auto_sync {
  bool closed;
} auto_sync;

static void *check_auto_sync_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_auto_sync_class);
}

static int stream_auto_synchronize(lua_State *L) {
  check_stream(L, 1);
  auto_sync *scope = lua_newuserdatauv(L, sizeof *scope, 1);
  scope->closed = false;
  luaL_setmetatable(L, CUARR_LUA_AUTO_SYNC_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* __close(scope, err): waits once.  A scope left by an error still waits, but a failure to wait
 * does not replace that error (Lua would report the second one only). */
static int auto_sync_close(lua_State *L) {
  auto_sync *scope = check_auto_sync_object(L, 1);
  if (scope->closed)
    return 0;
  scope->closed = true;
  lua_getiuservalue(L, 1, 1);
  cuarr_lua_stream *s = check_stream(L, -1);
  cuarr_status status = cuarr_stream_synchronize(&s->s);
  if (lua_isnoneornil(L, 2))
    CUARR_LUA_TRY(L, status);
  return 0;
}

static int auto_sync_tostring(lua_State *L) {
  auto_sync *scope = check_auto_sync_object(L, 1);
  lua_pushfstring(L, "<cuarr.AutoSynchronize %s>", scope->closed ? "closed" : "open");
  return 1;
}

static const luaL_Reg auto_sync_methods[] = {
    {"close", auto_sync_close},
    {NULL, NULL},
};

static const luaL_Reg auto_sync_metamethods[] = {
    {"__close", auto_sync_close},
    {"__tostring", auto_sync_tostring},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_auto_sync_class = {
    .id = CUARR_LUA_AUTO_SYNC_CLASS,
    .name = "AutoSynchronize",
    .metatable = CUARR_LUA_AUTO_SYNC_MT,
    .methods = auto_sync_methods,
    .metamethods = auto_sync_metamethods,
    .check = check_auto_sync_object,
};

/* ---------------------------------------------------------------- Stream */

static int stream_tostring(lua_State *L) {
  cuarr_lua_stream *s = check_stream_object(L, 1);
  if (!s->s.handle)
    lua_pushfstring(L, "<cuarr.Stream null (device %d)>", s->s.device);
  else
    lua_pushfstring(L, "<cuarr.Stream %p (device %d)>", s->s.handle, s->s.device);
  return 1;
}

static const luaL_Reg stream_methods[] = {
    {"synchronize", stream_synchronize},
    {"query", stream_query},
    {"wait_event", stream_wait_event},
    {"record", stream_record},
    {"use", stream_use},
    {"auto_synchronize", stream_auto_synchronize},
    {NULL, NULL},
};

static const luaL_Reg stream_metamethods[] = {
    {"__gc", stream_gc},
    {"__tostring", stream_tostring},
    {NULL, NULL},
};

static const cuarr_lua_field stream_fields[] = {
    {"ptr", field_stream_ptr},
    {"device", field_stream_device},
    {"device_id", field_stream_device_id},
    {"non_blocking", field_stream_non_blocking},
    {"priority", field_stream_priority},
    {"is_null", field_stream_is_null},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_stream_class = {
    .id = CUARR_LUA_STREAM_CLASS,
    .name = "Stream",
    .metatable = CUARR_LUA_STREAM_MT,
    .methods = stream_methods,
    .metamethods = stream_metamethods,
    .fields = stream_fields,
    .check = check_stream_object,
    .no_such_key = "Stream has no field or method '%s'",
    .extendable = true,
};

/* The functions (the tables of current and null streams are the binding state's). */
void cuarr_lua_open_streams(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"Stream", l_stream},
      {"get_current_stream", l_get_current_stream},
      {"null_stream", l_null_stream},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
