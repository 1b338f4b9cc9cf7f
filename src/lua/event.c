/*
 * event.c -- Event objects: cuarr.Event{timing=, blocking=}, e:record([stream]),
 * e:synchronize(), e:query(), the field done, and cuarr.get_elapsed_time(e0, e1) in ms.
 */
#include <string.h>

#include "binding.h"

/* The Event at idx, destroyed or not (the fields read it too, but for done). */
static void *check_event_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_event_class);
}

cuarr_lua_event *cuarr_lua_check_event(lua_State *L, int idx) {
  cuarr_lua_event *e = check_event_object(L, idx);
  if (!e->e.handle)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the event has been destroyed");
  return e;
}

int cuarr_lua_push_event(lua_State *L, int dev, bool timing, bool blocking) {
  cuarr_lua_event *e = lua_newuserdatauv(L, sizeof *e, 0);
  memset(e, 0, sizeof *e);
  luaL_setmetatable(L, CUARR_LUA_EVENT_MT);
  CUARR_LUA_TRY(L, cuarr_event_create(dev, timing, blocking, &e->e));
  return 1;
}

/* cuarr.Event{timing=true, blocking=false} on the current device. */
static int l_event(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (!lua_isnoneornil(L, 1) && !lua_istable(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "Event takes an options table, got %s",
                           luaL_typename(L, 1));
  static const char *const keys[] = {"timing", "blocking", NULL};
  if (lua_istable(L, 1))
    cuarr_lua_check_options(L, 1, "Event", keys);
  bool timing = cuarr_lua_opt_bool_field(L, 1, "timing", true);
  bool blocking = cuarr_lua_opt_bool_field(L, 1, "blocking", false);
  return cuarr_lua_push_event(L, cuarr_lua_current_device(L, S), timing, blocking);
}

static int event_gc(lua_State *L) {
  cuarr_lua_event *e = check_event_object(L, 1);
  if (e->e.handle)
    cuarr_event_destroy(&e->e);
  return 0;
}

/* e:record([stream]) -- on the current stream of e's device when none is given. */
static int event_record(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_event *e = cuarr_lua_check_event(L, 1);
  cuarr_stream *s = cuarr_lua_opt_stream(L, 2);
  if (!s)
    s = cuarr_lua_context(S, e->e.device)->stream;
  cuarr_stream null_stream = {NULL, e->e.device, 0, false};
  CUARR_LUA_TRY(L, cuarr_event_record(&e->e, s ? s : &null_stream));
  e->recorded = true;
  lua_settop(L, 1);
  return 1;
}

static int event_synchronize(lua_State *L) {
  CUARR_LUA_TRY(L, cuarr_event_synchronize(&cuarr_lua_check_event(L, 1)->e));
  return 0;
}

static int event_query(lua_State *L) {
  bool done;
  CUARR_LUA_TRY(L, cuarr_event_query(&cuarr_lua_check_event(L, 1)->e, &done));
  lua_pushboolean(L, done);
  return 1;
}

/* The fields of the Event at index 1. */
static void field_event_ptr(lua_State *L, void *self) {
  lua_pushinteger(L, (lua_Integer)(intptr_t)((cuarr_lua_event *)self)->e.handle);
}
static void field_event_device(lua_State *L, void *self) {
  cuarr_lua_push_device(L, ((cuarr_lua_event *)self)->e.device);
}
static void field_event_timing(lua_State *L, void *self) {
  lua_pushboolean(L, ((cuarr_lua_event *)self)->e.timing);
}
static void field_event_blocking(lua_State *L, void *self) {
  lua_pushboolean(L, ((cuarr_lua_event *)self)->e.blocking);
}
static void field_event_done(lua_State *L, void *self) {
  (void)self;
  bool done;
  CUARR_LUA_TRY(L, cuarr_event_query(&cuarr_lua_check_event(L, 1)->e, &done));
  lua_pushboolean(L, done);
}

/* cuarr.get_elapsed_time(start, stop) -- milliseconds between two recorded events. */
static int l_get_elapsed_time(lua_State *L) {
  cuarr_lua_event *a = cuarr_lua_check_event(L, 1), *b = cuarr_lua_check_event(L, 2);
  if (!a->recorded || !b->recorded)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "get_elapsed_time: both events must be recorded first");
  if (a->e.device != b->e.device)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "get_elapsed_time: the events are of different devices (%d and %d)",
                           a->e.device, b->e.device);
  float ms;
  CUARR_LUA_TRY(L, cuarr_event_elapsed_ms(&a->e, &b->e, &ms));
  lua_pushnumber(L, ms);
  return 1;
}

static const luaL_Reg event_methods[] = {
    {"record", event_record},
    {"synchronize", event_synchronize},
    {"query", event_query},
    {NULL, NULL},
};

static const luaL_Reg event_metamethods[] = {
    {"__gc", event_gc},
    {NULL, NULL},
};

static const cuarr_lua_field event_fields[] = {
    {"ptr", field_event_ptr},       {"device", field_event_device},
    {"timing", field_event_timing}, {"blocking", field_event_blocking},
    {"done", field_event_done},     {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_event_class = {
    .id = CUARR_LUA_EVENT_CLASS,
    .name = "Event",
    .metatable = CUARR_LUA_EVENT_MT,
    .methods = event_methods,
    .metamethods = event_metamethods,
    .fields = event_fields,
    .check = check_event_object,
    .no_such_key = "Event has no field or method '%s'",
    .extendable = true,
};

void cuarr_lua_open_events(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"Event", l_event},
      {"get_elapsed_time", l_get_elapsed_time},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
