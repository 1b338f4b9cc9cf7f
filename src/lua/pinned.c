/*
 * pinned.c -- cuarr.pinned(h1, h2, ...): Numba's `cuda.pinned(*arrays)` scope, said the Lua way.
 *
 *   do local _ <close> = cuarr.pinned(h1, h2) ... end
 *
 * page-locks the host arrays' buffers (cuarr_buffer_pin) and returns a PinnedScope guard that
 * unregisters them when it is closed (`<close>`, g:close(), or its collection), an error
 * included.  Inside the scope the buffers are marked pinned, so transfers take the asynchronous
 * path.  A buffer pinned already (the pinned pool's, or an outer scope's) is left alone; views of
 * one buffer register it once.  The guard holds a reference to each buffer it registered, so an
 * array collected inside the scope leaves no registration behind its memory.
 */
#include <string.h>

#include "binding.h"

typedef struct pinned_entry {
  cuarr_buffer *buf; /* retained until the scope closes */
  void *ptr;         /* the address registered */
} pinned_entry;

typedef struct pinned_scope {
  int n; /* registrations still held; 0 once closed */
  pinned_entry entry[];
} pinned_scope;

static void *check_scope(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_pinned_scope_class);
}

/* Unregister and drop every buffer the scope holds; the first failure is returned (the others
 * are still undone). */
static cuarr_status scope_release(pinned_scope *g) {
  cuarr_status first = CUARR_OK;
  while (g->n > 0) {
    pinned_entry *e = &g->entry[--g->n];
    cuarr_status s = cuarr_buffer_unpin(e->buf, e->ptr);
    if (first == CUARR_OK)
      first = s;
    cuarr_buffer_release(e->buf);
  }
  return first;
}

static bool already_held(const pinned_scope *g, const cuarr_buffer *b) {
  for (int i = 0; i < g->n; i++)
    if (g->entry[i].buf == b)
      return true;
  return false;
}

/* cuarr.pinned(h1, h2, ...) -> a guard. */
static int l_pinned(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int n = lua_gettop(L);
  /* Every argument is checked before anything is registered. */
  for (int i = 1; i <= n; i++) {
    cuarr_array *a = cuarr_lua_to_array_in(L, S, i);
    if (!a)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "pinned: argument #%d must be a host array, got %s", i,
                             luaL_typename(L, i));
    cuarr_lua_check_live(L, a);
    if (cuarr_array_device(a) != CUARR_HOST)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "pinned: argument #%d is a device array; only host arrays can be "
                             "page-locked",
                             i);
  }
  pinned_scope *g = lua_newuserdatauv(L, sizeof *g + (size_t)n * sizeof(pinned_entry), 0);
  g->n = 0;
  luaL_setmetatable(L, cuarr_lua_pinned_scope_class.metatable);
  for (int i = 1; i <= n; i++) {
    cuarr_buffer *b = cuarr_lua_to_array_in(L, S, i)->buf;
    if (already_held(g, b))
      continue;
    void *ptr = b->ptr;
    bool registered;
    cuarr_status s = cuarr_buffer_pin(b, &registered);
    if (s != CUARR_OK) {
      char message[512];
      snprintf(message, sizeof message, "pinned: argument #%d: %s", i, cuarr_last_error());
      scope_release(g); /* what this call registered goes back before the error */
      return cuarr_lua_error(L, s, "%s", message);
    }
    if (registered) {
      cuarr_buffer_retain(b);
      g->entry[g->n++] = (pinned_entry){b, ptr};
    }
  }
  return 1;
}

/* g:close() and __close: unregister now; a second close does nothing. */
static int scope_close(lua_State *L) {
  pinned_scope *g = check_scope(L, 1);
  CUARR_LUA_TRY(L, scope_release(g));
  return 0;
}

/* A guard never closed is undone when collected (errors cannot be raised from here). */
static int scope_gc(lua_State *L) {
  pinned_scope *g = check_scope(L, 1);
  scope_release(g);
  return 0;
}

static int scope_tostring(lua_State *L) {
  pinned_scope *g = check_scope(L, 1);
  lua_pushfstring(L, "PinnedScope (%d buffer%s registered)", g->n, g->n == 1 ? "" : "s");
  return 1;
}

static void field_closed(lua_State *L, void *self) {
  lua_pushboolean(L, ((pinned_scope *)self)->n == 0);
}
static void field_n_registered(lua_State *L, void *self) {
  lua_pushinteger(L, ((pinned_scope *)self)->n);
}

static const luaL_Reg scope_methods[] = {
    {"close", scope_close},
    {NULL, NULL},
};

static const luaL_Reg scope_metamethods[] = {
    {"__close", scope_close},
    {"__gc", scope_gc},
    {"__tostring", scope_tostring},
    {NULL, NULL},
};

static const cuarr_lua_field scope_fields[] = {
    {"closed", field_closed},
    {"n_registered", field_n_registered},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_pinned_scope_class = {
    .id = CUARR_LUA_PINNED_SCOPE_CLASS,
    .name = "PinnedScope",
    .metatable = CUARR_LUA_PINNED_SCOPE_MT,
    .methods = scope_methods,
    .metamethods = scope_metamethods,
    .fields = scope_fields,
    .check = check_scope,
    .no_such_key = "PinnedScope has no field or method '%s'",
};

void cuarr_lua_open_pinned(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"pinned", l_pinned},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
