/*
 * classes.h -- the binding's classes, each described by one const descriptor and registered in
 * one place (classes.c).
 *
 * A class is a userdata metatable with a table of methods (the metatable's field `methods`),
 * fields read by getters (`a.shape`, `d.id`, `k.nin`), metamethods, and an __index that puts
 * them together: a string key finds a method, then a field, else an IndexError; any other key
 * goes to the class's own handler (`a[i]`) or is a TypeError.  Adding a class is writing its
 * descriptor, giving it an id below and listing it in classes.c.
 */
#ifndef CUARR_LUA_CLASSES_H
#define CUARR_LUA_CLASSES_H

#include <stdbool.h>

#include <lauxlib.h>
#include <lua.h>

/* A field: push(L, self) pushes its value, self being the checked object at stack index 1. */
typedef struct cuarr_lua_field {
  const char *name;
  void (*push)(lua_State *L, void *self);
} cuarr_lua_field;

/* Each class's place in classes.c's table and in the state's metatable addresses. */
typedef enum cuarr_lua_class_id {
  CUARR_LUA_ERROR_CLASS,
  CUARR_LUA_NDARRAY_CLASS,
  CUARR_LUA_DEVICE_CLASS,
  CUARR_LUA_STREAM_CLASS,
  CUARR_LUA_EVENT_CLASS,
  CUARR_LUA_POOL_CLASS,
  CUARR_LUA_ELEMENTWISE_KERNEL_CLASS,
  CUARR_LUA_REDUCTION_KERNEL_CLASS,
  CUARR_LUA_RAW_MODULE_CLASS,
  CUARR_LUA_RAW_KERNEL_CLASS,
  CUARR_LUA_PINNED_SCOPE_CLASS,
  CUARR_LUA_GRAPH_CLASS,
  CUARR_LUA_DEFER_GUARD_CLASS,
  CUARR_LUA_COMMUNICATOR_CLASS,
  CUARR_LUA_AUTO_SYNC_CLASS,
  CUARR_LUA_NCLASSES
} cuarr_lua_class_id;

typedef struct cuarr_lua_class {
  cuarr_lua_class_id id;
  const char *name;      /* as users see it ("Device"); its key in core.metatables */
  const char *metatable; /* its name in the registry ("cuarr.Device") */
  /* Functions with the binding state as upvalue 1; each list may be NULL. */
  const luaL_Reg *methods;
  const luaL_Reg *metamethods; /* __gc, __tostring, __call, ... */
  /* Fields, read after the methods; NULL: none.  check(L, 1) gives the object to their getters
   * (raising for a wrong or closed one). */
  const cuarr_lua_field *fields;
  void *(*check)(lua_State *L, int idx);
  /* __index for keys that are not strings (an array's a[i]); NULL: a TypeError. */
  lua_CFunction index_other;
  /* The IndexError for a string that names neither a method nor a field, a format taking the
   * name; NULL with no fields and no index_other: __index is the methods table itself (an
   * unknown name gives nil). */
  const char *no_such_key;
  /* Given to the front end (core.metatables), which may add to its `methods` table. */
  bool extendable;
} cuarr_lua_class;

/* The descriptors, each beside its class's functions. */
extern const cuarr_lua_class cuarr_lua_error_class;              /* errors.c */
extern const cuarr_lua_class cuarr_lua_ndarray_class;            /* ndarray.c */
extern const cuarr_lua_class cuarr_lua_device_class;             /* device.c */
extern const cuarr_lua_class cuarr_lua_stream_class;             /* stream.c */
extern const cuarr_lua_class cuarr_lua_event_class;              /* event.c */
extern const cuarr_lua_class cuarr_lua_pool_class;               /* pool.c */
extern const cuarr_lua_class cuarr_lua_elementwise_kernel_class; /* elementwise_kernel.c */
extern const cuarr_lua_class cuarr_lua_reduction_kernel_class;   /* reduction_kernel.c */
extern const cuarr_lua_class cuarr_lua_raw_module_class;         /* raw_kernel.c */
extern const cuarr_lua_class cuarr_lua_raw_kernel_class;         /* raw_kernel.c */
extern const cuarr_lua_class cuarr_lua_pinned_scope_class;       /* pinned.c */
extern const cuarr_lua_class cuarr_lua_graph_class;              /* graph.c */
extern const cuarr_lua_class cuarr_lua_defer_guard_class;        /* graph.c */
extern const cuarr_lua_class cuarr_lua_communicator_class;       /* comm.c */
extern const cuarr_lua_class cuarr_lua_auto_sync_class;          /* stream.c */

/* Register every class's metatable, its functions with the state at state_idx as upvalue 1,
 * and note each metatable's address in the state.  Leaves the stack as it was. */
void cuarr_lua_open_classes(lua_State *L, int state_idx);
/* Push the methods table of class cls. */
void cuarr_lua_push_methods(lua_State *L, const cuarr_lua_class *cls);
/* Add methods (closures with the state at state_idx as upvalue 1) to class cls. */
void cuarr_lua_add_methods(lua_State *L, int state_idx, const cuarr_lua_class *cls,
                           const luaL_Reg *methods);
struct cuarr_lua_state;
/* This state's metatable of class cls (lua_topointer's address). */
const void *cuarr_lua_class_metatable(const struct cuarr_lua_state *S, const cuarr_lua_class *cls);
/* The userdata at idx when it is an object of class cls, else NULL.  Its metatable is compared
 * by address with the state's: no lookup by name on every call. */
void *cuarr_lua_to_object(lua_State *L, const struct cuarr_lua_state *S, int idx,
                          const cuarr_lua_class *cls);
/* The object of class cls at idx, or a TypeError naming the class (every class is checked
 * this way, by its metatable's address, never by luaL_checkudata's plain-string errors). */
void *cuarr_lua_check_object(lua_State *L, int idx, const cuarr_lua_class *cls);
/* Push core.metatables: the extendable classes' metatables by name. */
void cuarr_lua_push_metatables(lua_State *L);

#endif
