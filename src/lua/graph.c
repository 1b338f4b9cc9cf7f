/*
 * graph.c -- CUDA graphs and deferred cleanup: s:begin_capture([mode]), s:end_capture() -> a
 * Graph, s:is_capturing(); g:launch([stream]), g:free(), <close>, __gc, tostring, the field
 * n_nodes; and cuarr.defer_cleanup([fn, ...]), a scope guard holding back releases of device
 * memory until the outermost scope of this Lua state ends.  cuarr.graph(fn, ...) is the front
 * end's (lua/cuarr/graph.lua), built from these.
 *
 * The Graph being captured is kept in a registry table by its Stream object, so that
 * end_capture finds it and neither can be collected mid-capture; the Graph keeps the Stream (its
 * user value) so that memory filed under the stream's handle is not filed under a reused one.
 */
#include <string.h>

#include "binding.h"

typedef struct lua_graph {
  cuarr_graph *g; /* NULL once freed */
  int device;
} lua_graph;

/* The registry table: Stream object -> the Graph it is capturing. */
static const char captures_key = 'c';

static void push_captures(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &captures_key) == LUA_TTABLE)
    return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &captures_key);
}

static void *check_graph_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_graph_class);
}

static lua_graph *check_graph(lua_State *L, int idx) {
  lua_graph *g = check_graph_object(L, idx);
  if (!g->g)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the graph has been freed");
  return g;
}

static cuarr_lua_stream *check_live_stream(lua_State *L, int idx) {
  cuarr_lua_stream *s = cuarr_lua_check_object(L, idx, &cuarr_lua_stream_class);
  if (s->destroyed)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the stream has been destroyed");
  return s;
}

/* s:begin_capture([mode]) -- mode "thread_local" (the default), "global" or "relaxed". */
static int stream_begin_capture(lua_State *L) {
  cuarr_lua_stream *s = check_live_stream(L, 1);
  static const char *const modes[] = {"global", "thread_local", "relaxed", NULL};
  cuarr_capture_mode mode = CUARR_CAPTURE_THREAD_LOCAL;
  if (!lua_isnoneornil(L, 2)) {
    const char *name = cuarr_lua_check_string(L, 2, "capture mode");
    int i = 0;
    while (modes[i] && strcmp(modes[i], name) != 0)
      i++;
    if (!modes[i])
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "unknown capture mode '%s' (global, thread_local or relaxed)", name);
    mode = (cuarr_capture_mode)i;
  }
  lua_settop(L, 1);
  push_captures(L); /* 2 */
  lua_pushvalue(L, 1);
  if (lua_rawget(L, 2) != LUA_TNIL)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "the stream is already capturing a graph");
  lua_pop(L, 1);
  lua_graph *g = lua_newuserdatauv(L, sizeof *g, 1); /* 3 */
  memset(g, 0, sizeof *g);
  g->device = s->s.device;
  luaL_setmetatable(L, CUARR_LUA_GRAPH_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, 3, 1);
  CUARR_LUA_TRY(L, cuarr_graph_begin_capture(&s->s, mode, &g->g));
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 3);
  lua_rawset(L, 2);
  return 0;
}

/* s:end_capture() -> the Graph.  A capture the driver invalidated raises a CUDAError; the
 * stream no longer captures either way. */
static int stream_end_capture(lua_State *L) {
  check_live_stream(L, 1);
  lua_settop(L, 1);
  push_captures(L); /* 2 */
  lua_pushvalue(L, 1);
  if (lua_rawget(L, 2) == LUA_TNIL) /* 3 */
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "no graph capture is open on this stream (begin_capture first)");
  lua_graph *g = lua_touserdata(L, 3);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  lua_rawset(L, 2);
  cuarr_status st = cuarr_graph_end_capture(g->g);
  if (st != CUARR_OK) {
    /* Keep the message: the free below may set the error again. */
    lua_pushstring(L, cuarr_last_error());
    cuarr_graph_free(g->g);
    g->g = NULL;
    return cuarr_lua_error_message_at(L, st, -1);
  }
  return 1;
}

static int stream_is_capturing(lua_State *L) {
  check_live_stream(L, 1);
  lua_settop(L, 1);
  push_captures(L);
  lua_pushvalue(L, 1);
  lua_pushboolean(L, lua_rawget(L, 2) != LUA_TNIL);
  return 1;
}

/* g:launch([stream]) -- on the current stream of the graph's device when none is given. */
static int graph_launch(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_graph *g = check_graph(L, 1);
  cuarr_stream *s = cuarr_lua_opt_stream(L, 2);
  if (!s)
    s = cuarr_lua_context(S, g->device)->stream;
  CUARR_LUA_TRY(L, cuarr_graph_launch(g->g, s));
  lua_settop(L, 1);
  return 1;
}

/* g:free(), <close> and __gc: waits for the last launch, then gives back the graph's memory.
 * Freeing twice is fine; freeing the graph a stream is capturing is end_capture's job. */
static int graph_free(lua_State *L) {
  lua_graph *g = check_graph_object(L, 1);
  if (g->g && cuarr_graph_capturing(g->g))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "the graph is still being captured: end the capture first");
  cuarr_graph *graph = g->g;
  g->g = NULL;
  CUARR_LUA_TRY(L, cuarr_graph_free(graph));
  return 0;
}

static int graph_gc(lua_State *L) {
  lua_graph *g = check_graph_object(L, 1);
  cuarr_graph *graph = g->g;
  g->g = NULL;
  cuarr_graph_free(graph); /* ends a capture left open when the Lua state closes */
  return 0;
}

static int graph_tostring(lua_State *L) {
  lua_graph *g = check_graph_object(L, 1);
  if (!g->g)
    lua_pushfstring(L, "<cuarr.Graph freed (device %d)>", g->device);
  else if (cuarr_graph_capturing(g->g))
    lua_pushfstring(L, "<cuarr.Graph capturing (device %d)>", g->device);
  else
    lua_pushfstring(L, "<cuarr.Graph %d nodes (device %d)>", (int)cuarr_graph_node_count(g->g),
                    g->device);
  return 1;
}

static void field_graph_n_nodes(lua_State *L, void *self) {
  lua_graph *g = self;
  lua_pushinteger(L, g->g ? (lua_Integer)cuarr_graph_node_count(g->g) : 0);
}
static void field_graph_device_id(lua_State *L, void *self) {
  lua_pushinteger(L, ((lua_graph *)self)->device);
}
static void field_graph_freed(lua_State *L, void *self) {
  lua_pushboolean(L, ((lua_graph *)self)->g == NULL);
}

static const luaL_Reg graph_methods[] = {
    {"launch", graph_launch},
    {"free", graph_free},
    {NULL, NULL},
};

static const luaL_Reg graph_metamethods[] = {
    {"__gc", graph_gc},
    {"__close", graph_free},
    {"__tostring", graph_tostring},
    {NULL, NULL},
};

static const cuarr_lua_field graph_fields[] = {
    {"n_nodes", field_graph_n_nodes},
    {"device_id", field_graph_device_id},
    {"freed", field_graph_freed},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_graph_class = {
    .id = CUARR_LUA_GRAPH_CLASS,
    .name = "Graph",
    .metatable = CUARR_LUA_GRAPH_MT,
    .methods = graph_methods,
    .metamethods = graph_metamethods,
    .fields = graph_fields,
    .check = check_graph_object,
    .no_such_key = "Graph has no field or method '%s'",
    .extendable = true,
};

/* ---------------------------------------------------------------- defer_cleanup */

/* A scope of cuarr.defer_cleanup: the device whose pool it holds, and whether it is over. */
typedef struct defer_guard {
  int device;
  bool closed;
} defer_guard;

static void *check_guard_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_defer_guard_class);
}

/* Open a scope on the current device: the outermost one of the state opens the hold. */
static void defer_open(lua_State *L, cuarr_lua_state *S, defer_guard *guard) {
  int dev = cuarr_lua_current_device(L, S);
  if (S->defer_depth[dev] == 0) {
    cuarr_pool *pool = cuarr_device_pool(dev);
    if (!pool)
      cuarr_lua_fail(L, CUARR_OUT_OF_MEMORY);
    CUARR_LUA_TRY(L, cuarr_hold_begin(pool, false, NULL, &S->deferred[dev]));
  }
  S->defer_depth[dev]++;
  guard->device = dev;
  guard->closed = false;
}

static void defer_close(cuarr_lua_state *S, defer_guard *guard) {
  if (guard->closed)
    return;
  guard->closed = true;
  int dev = guard->device;
  if (--S->defer_depth[dev] == 0) {
    cuarr_hold_release(S->deferred[dev]);
    S->deferred[dev] = NULL;
  }
}

static int guard_close(lua_State *L) {
  defer_close(CUARR_LUA_STATE(L), check_guard_object(L, 1));
  return 0;
}

static int guard_tostring(lua_State *L) {
  defer_guard *guard = check_guard_object(L, 1);
  lua_pushfstring(L, "<cuarr.DeferCleanup %s (device %d)>", guard->closed ? "closed" : "open",
                  guard->device);
  return 1;
}

/* cuarr.defer_cleanup() -> a guard for `local _ <close> =`; cuarr.defer_cleanup(fn, ...) calls
 * fn(...) in a scope, closed even when fn raises (the error is raised again), and returns what
 * fn returns. */
static int l_defer_cleanup(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int n = lua_gettop(L);
  if (n > 0 && !lua_isfunction(L, 1) && !luaL_getmetafield(L, 1, "__call"))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "defer_cleanup: argument #1 must be a function, got %s",
                           luaL_typename(L, 1));
  lua_settop(L, n);
  defer_guard *guard = lua_newuserdatauv(L, sizeof *guard, 0);
  guard->closed = true; /* until opened: __gc must not close what never opened */
  guard->device = 0;
  luaL_setmetatable(L, CUARR_LUA_DEFER_GUARD_MT);
  defer_open(L, S, guard);
  if (n == 0)
    return 1;
  lua_insert(L, 1); /* guard, fn, args... */
  int status = lua_pcall(L, n - 1, LUA_MULTRET, 0);
  defer_close(S, guard);
  if (status != LUA_OK)
    return lua_error(L);
  return lua_gettop(L) - 1;
}

static const luaL_Reg guard_methods[] = {
    {"close", guard_close},
    {NULL, NULL},
};

static const luaL_Reg guard_metamethods[] = {
    {"__close", guard_close},
    {"__gc", guard_close},
    {"__tostring", guard_tostring},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_defer_guard_class = {
    .id = CUARR_LUA_DEFER_GUARD_CLASS,
    .name = "DeferCleanup",
    .metatable = CUARR_LUA_DEFER_GUARD_MT,
    .methods = guard_methods,
    .metamethods = guard_metamethods,
    .check = check_guard_object,
    .no_such_key = "DeferCleanup has no field or method '%s'",
};

void cuarr_lua_open_graphs(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg stream_methods[] = {
      {"begin_capture", stream_begin_capture},
      {"end_capture", stream_end_capture},
      {"is_capturing", stream_is_capturing},
      {NULL, NULL},
  };
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_stream_class, stream_methods);
  static const luaL_Reg functions[] = {
      {"defer_cleanup", l_defer_cleanup},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
