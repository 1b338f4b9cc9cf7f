/*
 * classes.c -- every class of the binding registered from its descriptor (classes.h), and the
 * __index they share.
 *
 * A class's methods live in one table, kept as the metatable's field `methods` so that the
 * front end can add its own (ndarray printing, Device:enter, ...).  __index is a closure with
 * upvalues (state, methods, fields, descriptor): it looks up methods first, then the class's
 * fields, each a table lookup of the (interned) key, so `a:sum()` costs one rawget as before.
 */
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* The classes, in the order they are registered: errors first, so that anything that raises
 * during the rest finds their metatable. */
static const cuarr_lua_class *const classes[CUARR_LUA_NCLASSES] = {
    [CUARR_LUA_ERROR_CLASS] = &cuarr_lua_error_class,
    [CUARR_LUA_NDARRAY_CLASS] = &cuarr_lua_ndarray_class,
    [CUARR_LUA_DEVICE_CLASS] = &cuarr_lua_device_class,
    [CUARR_LUA_STREAM_CLASS] = &cuarr_lua_stream_class,
    [CUARR_LUA_EVENT_CLASS] = &cuarr_lua_event_class,
    [CUARR_LUA_POOL_CLASS] = &cuarr_lua_pool_class,
    [CUARR_LUA_ELEMENTWISE_KERNEL_CLASS] = &cuarr_lua_elementwise_kernel_class,
    [CUARR_LUA_REDUCTION_KERNEL_CLASS] = &cuarr_lua_reduction_kernel_class,
    [CUARR_LUA_RAW_MODULE_CLASS] = &cuarr_lua_raw_module_class,
    [CUARR_LUA_RAW_KERNEL_CLASS] = &cuarr_lua_raw_kernel_class,
    [CUARR_LUA_PINNED_SCOPE_CLASS] = &cuarr_lua_pinned_scope_class,
    [CUARR_LUA_GRAPH_CLASS] = &cuarr_lua_graph_class,
    [CUARR_LUA_DEFER_GUARD_CLASS] = &cuarr_lua_defer_guard_class,
    [CUARR_LUA_COMMUNICATOR_CLASS] = &cuarr_lua_communicator_class,
    [CUARR_LUA_AUTO_SYNC_CLASS] = &cuarr_lua_auto_sync_class,
};

#define UP_METHODS lua_upvalueindex(2)
#define UP_FIELDS lua_upvalueindex(3)
#define UP_CLASS lua_upvalueindex(4)

/* The IndexError for the string key at 2, which names no method or field: with the nearest
 * of those when it is a near miss ("did you mean 'sum'?"), as an option's typo gets. */
static int no_such_key(lua_State *L, const cuarr_lua_class *cls) {
  size_t len;
  const char *key = lua_tolstring(L, 2, &len);
  char message[512];
  snprintf(message, sizeof message, cls->no_such_key, key);
  cuarr_lua_push_near_key(L, key, len, UP_METHODS, UP_FIELDS);
  if (lua_isnil(L, -1))
    return cuarr_lua_error(L, CUARR_INDEX_ERROR, "%s", message);
  return cuarr_lua_error(L, CUARR_INDEX_ERROR, "%s (did you mean '%s'?)", message,
                         lua_tostring(L, -1));
}

/* __index(object, key) of a class with fields or keys of its own. */
static int class_index(lua_State *L) {
  if (lua_type(L, 2) == LUA_TSTRING) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, UP_METHODS) != LUA_TNIL)
      return 1;
    const cuarr_lua_class *cls = lua_touserdata(L, UP_CLASS);
    void *self = cls->check ? cls->check(L, 1) : NULL;
    lua_pushvalue(L, 2);
    if (lua_rawget(L, UP_FIELDS) == LUA_TLIGHTUSERDATA) {
      const cuarr_lua_field *f = lua_touserdata(L, -1);
      f->push(L, self);
      return 1;
    }
    if (!cls->no_such_key)
      return 0;
    return no_such_key(L, cls);
  }
  const cuarr_lua_class *cls = lua_touserdata(L, UP_CLASS);
  if (cls->index_other)
    return cls->index_other(L);
  return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s fields are named by strings, not %s", cls->name,
                         luaL_typename(L, 2));
}

static void set_functions(lua_State *L, int state_idx, const luaL_Reg *list) {
  if (!list)
    return;
  lua_pushvalue(L, state_idx);
  luaL_setfuncs(L, list, 1);
}

/* Register cls: leaves the stack as it was. */
static void open_class(lua_State *L, int state_idx, const cuarr_lua_class *cls) {
  int top = lua_gettop(L);
  luaL_newmetatable(L, cls->metatable); /* the existing one when the module is loaded again */
  int mt = lua_gettop(L);
  lua_newtable(L);
  int methods = lua_gettop(L);
  set_functions(L, state_idx, cls->methods);
  lua_pushvalue(L, methods);
  lua_setfield(L, mt, "methods");
  if (cls->fields || cls->index_other || cls->no_such_key) {
    lua_pushvalue(L, state_idx);
    lua_pushvalue(L, methods);
    lua_newtable(L);
    for (const cuarr_lua_field *f = cls->fields; f && f->name; f++) {
      lua_pushlightuserdata(L, (void *)f);
      lua_setfield(L, -2, f->name);
    }
    lua_pushlightuserdata(L, (void *)cls);
    lua_pushcclosure(L, class_index, 4);
  } else {
    lua_pushvalue(L, methods);
  }
  lua_setfield(L, mt, "__index");
  lua_settop(L, mt);
  set_functions(L, state_idx, cls->metamethods);
  lua_settop(L, top);
}

void cuarr_lua_open_classes(lua_State *L, int state_idx) {
  cuarr_lua_state *S = lua_touserdata(L, state_idx);
  for (int i = 0; i < CUARR_LUA_NCLASSES; i++) {
    open_class(L, state_idx, classes[i]);
    luaL_getmetatable(L, classes[i]->metatable);
    S->class_mt[classes[i]->id] = lua_topointer(L, -1);
    lua_pop(L, 1);
  }
}

const void *cuarr_lua_class_metatable(const cuarr_lua_state *S, const cuarr_lua_class *cls) {
  return S->class_mt[cls->id];
}

void *cuarr_lua_to_object(lua_State *L, const cuarr_lua_state *S, int idx,
                          const cuarr_lua_class *cls) {
  /* A full userdata only: a light userdata given a class's metatable (the debug library can)
   * would be read as an object. */
  if (!S || lua_type(L, idx) != LUA_TUSERDATA)
    return NULL;
  void *p = lua_touserdata(L, idx);
  if (!lua_getmetatable(L, idx))
    return NULL;
  const void *want = S->class_mt[cls->id];
  bool same = lua_topointer(L, -1) == want;
  lua_pop(L, 1);
  return same ? p : NULL;
}

void *cuarr_lua_check_object(lua_State *L, int idx, const cuarr_lua_class *cls) {
  void *p = cuarr_lua_to_object(L, CUARR_LUA_STATE(L), idx, cls);
  if (!p) {
    bool vowel = strchr("AEIOU", cls->name[0]) != NULL;
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #%d must be %s %s, got %s", idx,
                    vowel ? "an" : "a", cls->name, luaL_typename(L, idx));
  }
  return p;
}

void cuarr_lua_push_methods(lua_State *L, const cuarr_lua_class *cls) {
  luaL_getmetatable(L, cls->metatable);
  lua_getfield(L, -1, "methods");
  lua_remove(L, -2);
}

void cuarr_lua_add_methods(lua_State *L, int state_idx, const cuarr_lua_class *cls,
                           const luaL_Reg *methods) {
  state_idx = lua_absindex(L, state_idx);
  cuarr_lua_push_methods(L, cls);
  set_functions(L, state_idx, methods);
  lua_pop(L, 1);
}

void cuarr_lua_push_metatables(lua_State *L) {
  lua_newtable(L);
  for (int i = 0; i < CUARR_LUA_NCLASSES; i++) {
    if (!classes[i]->extendable)
      continue;
    luaL_getmetatable(L, classes[i]->metatable);
    lua_setfield(L, -2, classes[i]->name);
  }
}
