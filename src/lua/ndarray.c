/*
 * ndarray.c -- the array userdata: creation, fields, lifetime.
 *
 * An array userdata holds a cuarr_array (a view: buffer reference + dtype + shape + strides +
 * offset) and, as its user value, the array it was made from (`base`), as NumPy's does.
 * Memory goes back three ways: `x:free()` gives the buffer's memory back now, for every view
 * of it; `__close` and `__gc` drop this array's reference, so the memory goes once no view
 * uses it.  A freed or closed array raises an error on use and never touches memory.
 */
#include <string.h>

#include "binding.h"

/* The metatable is compared by address with the state's (every cuarr closure has the state as
 * upvalue 1): no lookup at all, where luaL_testudata hashes the name and a registry lookup
 * hashes a key.  Before that, the few arrays recognised last (S->known) are matched by address
 * alone: the operands of a loop's calls, two Lua API calls instead of five.  Only live arrays
 * are remembered (a finalized one has no buffer), so none is put back after its __gc has
 * removed it.  A function without the state recognises no array rather than crashing. */
cuarr_array *cuarr_lua_to_array_in(lua_State *L, const cuarr_lua_state *S, int idx) {
  if (!S || lua_type(L, idx) != LUA_TUSERDATA)
    return NULL;
  cuarr_array *a = lua_touserdata(L, idx);
  cuarr_lua_known_arrays *k = S->known;
  for (int i = 0; i < CUARR_LUA_KNOWN_ARRAYS; i++)
    if (k->at[i] == a)
      return a;
  if (!lua_getmetatable(L, idx))
    return NULL;
  bool is_array = lua_topointer(L, -1) == S->array_mt;
  lua_pop(L, 1);
  if (!is_array)
    return NULL;
  if (a->buf)
    k->at[k->next++ % CUARR_LUA_KNOWN_ARRAYS] = a;
  return a;
}

cuarr_array *cuarr_lua_to_array(lua_State *L, int idx) {
  return cuarr_lua_to_array_in(L, CUARR_LUA_STATE(L), idx);
}

cuarr_array *cuarr_lua_check_live(lua_State *L, cuarr_array *a) {
  if (!a->buf)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "array has been closed");
  CUARR_LUA_TRY(L, cuarr_array_check_live(a));
  return a;
}

cuarr_array *cuarr_lua_check_array(lua_State *L, int idx) {
  cuarr_array *a = cuarr_lua_to_array(L, idx);
  if (!a)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #%d must be an array, got %s", idx,
                    luaL_typename(L, idx));
  return cuarr_lua_check_live(L, a);
}

cuarr_array *cuarr_lua_push_array(lua_State *L, int base_idx) {
  if (base_idx)
    base_idx = lua_absindex(L, base_idx);
  cuarr_array *a = lua_newuserdatauv(L, sizeof *a, 1);
  memset(a, 0, sizeof *a);
  /* The metatable by the state's reference (an integer key: the registry's array part), not
   * by its name (luaL_setmetatable hashes it on every call); by name outside a cuarr closure. */
  const cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (S)
    lua_rawgeti(L, LUA_REGISTRYINDEX, S->array_mt_ref);
  else
    luaL_getmetatable(L, CUARR_LUA_ARRAY_MT);
  lua_setmetatable(L, -2);
  if (base_idx) {
    /* The base of a view is the array that owns the data, as in NumPy.  Only an array's base
     * is followed: another base (the producer of as_cuda_array, a table) is the base itself,
     * and reading a table as a userdata's user value would push garbage. */
    bool of_array = S ? cuarr_lua_to_array_in(L, S, base_idx) != NULL
                      : luaL_testudata(L, base_idx, CUARR_LUA_ARRAY_MT) != NULL;
    if (of_array)
      lua_getiuservalue(L, base_idx, 1);
    else
      lua_pushnil(L);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_pushvalue(L, base_idx);
    }
    lua_setiuservalue(L, -2, 1);
  }
  return a;
}

cuarr_array *cuarr_lua_new_array(lua_State *L, cuarr_lua_state *S, int device, cuarr_dtype dtype,
                                 int ndim, const int64_t *shape, bool pinned) {
  cuarr_array *a = cuarr_lua_push_array(L, 0);
  cuarr_context *ctx = cuarr_lua_context(S, device);
  void *stream = ctx->stream ? ctx->stream->handle : NULL;
  CUARR_LUA_TRY(L, cuarr_array_empty(device, dtype, ndim, shape, pinned, stream, ctx->reclaim, a));
  if (device != CUARR_HOST || pinned)
    cuarr_lua_account(L, S, a->buf->nbytes);
  return a;
}

void cuarr_lua_check_on_current_device(lua_State *L, cuarr_lua_state *S, const cuarr_array *a) {
  int dev = cuarr_array_device(a);
  if (dev != CUARR_HOST && dev != S->device)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "the array is on device %d but the current device is %d (use "
                    "cuarr.asarray to copy it across)",
                    dev, S->device);
}

cuarr_array *cuarr_lua_array_arg(lua_State *L, cuarr_lua_state *S, int idx, const char *fn) {
  cuarr_array *a = cuarr_lua_to_array_in(L, S, idx);
  if (!a)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #%d must be an array, got %s", fn, idx,
                    luaL_typename(L, idx));
  cuarr_lua_check_live(L, a);
  cuarr_lua_check_on_current_device(L, S, a);
  return a;
}

/* __close: drop this array's reference.  Idempotent. */
static int array_close(lua_State *L) {
  cuarr_array *a = cuarr_lua_to_array(L, 1);
  if (!a)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be an array, got %s",
                           luaL_typename(L, 1));
  /* Only the buffer matters to a closed array (every use checks it first): no 0.5 KB memset
   * in every collected array's finalizer. */
  cuarr_buffer *buf = a->buf;
  a->buf = NULL;
  if (buf)
    cuarr_buffer_release(buf);
  return 0;
}

/* __gc: the same, and the address leaves the recognised arrays before Lua frees it. */
static int array_gc(lua_State *L) {
  array_close(L);
  cuarr_lua_known_arrays *k = CUARR_LUA_STATE(L)->known;
  const void *a = lua_touserdata(L, 1);
  for (int i = 0; i < CUARR_LUA_KNOWN_ARRAYS; i++)
    if (k->at[i] == a)
      k->at[i] = NULL;
  return 0;
}

/* x:free(): give the memory back now; every view of it becomes unusable. */
static int array_free(lua_State *L) {
  cuarr_array *a = cuarr_lua_to_array(L, 1);
  if (!a)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be an array, got %s",
                           luaL_typename(L, 1));
  if (a->buf)
    cuarr_buffer_free(a->buf);
  return 0;
}

static int array_len(lua_State *L) {
  cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (a->ndim == 0)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "len() of a 0-d array");
  lua_pushinteger(L, a->shape[0]);
  return 1;
}

static int array_lt(lua_State *L) {
  return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                         "arrays cannot be compared with < or <= (Lua needs a boolean result): "
                         "use a:lt(b), a:le(b), a:gt(b), a:ge(b) or cuarr.less(a, b) and friends");
}

void cuarr_lua_push_device(lua_State *L, int device) {
  if (device == CUARR_HOST) {
    lua_pushliteral(L, "cpu");
    return;
  }
  /* Device objects are interned in a registry table, so a.device == b.device is cheap. */
  lua_getfield(L, LUA_REGISTRYINDEX, CUARR_LUA_DEVICE_MT ".cache");
  if (lua_rawgeti(L, -1, device) == LUA_TNIL) {
    lua_pop(L, 1);
    int *d = lua_newuserdatauv(L, sizeof *d, 0);
    *d = device;
    luaL_setmetatable(L, CUARR_LUA_DEVICE_MT);
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, device);
  }
  lua_remove(L, -2);
}

static void push_flags(lua_State *L, const cuarr_array *a) {
  lua_createtable(L, 0, 4);
  lua_pushboolean(L, cuarr_array_is_c_contiguous(a));
  lua_setfield(L, -2, "c_contiguous");
  lua_pushboolean(L, cuarr_array_is_f_contiguous(a));
  lua_setfield(L, -2, "f_contiguous");
  lua_pushboolean(L, lua_getiuservalue(L, 1, 1) == LUA_TNIL);
  lua_remove(L, -2);
  lua_setfield(L, -2, "owndata");
  lua_pushboolean(L, !a->readonly);
  lua_setfield(L, -2, "writeable");
}

/* The fields: getters of the array at index 1 (self, checked live). */
static void field_dtype(lua_State *L, void *self) {
  lua_pushstring(L, cuarr_dtype_name(((cuarr_array *)self)->dtype));
}
static void field_shape(lua_State *L, void *self) {
  const cuarr_array *a = self;
  cuarr_lua_push_tuple(L, a->ndim, a->shape);
}
static void field_strides(lua_State *L, void *self) {
  const cuarr_array *a = self;
  cuarr_lua_push_tuple(L, a->ndim, a->strides);
}
static void field_ndim(lua_State *L, void *self) {
  lua_pushinteger(L, ((cuarr_array *)self)->ndim);
}
static void field_size(lua_State *L, void *self) { lua_pushinteger(L, cuarr_array_size(self)); }
static void field_nbytes(lua_State *L, void *self) {
  const cuarr_array *a = self;
  lua_pushinteger(L, cuarr_array_size(a) * (int64_t)cuarr_dtype_size(a->dtype));
}
static void field_itemsize(lua_State *L, void *self) {
  lua_pushinteger(L, (lua_Integer)cuarr_dtype_size(((cuarr_array *)self)->dtype));
}
static void field_device(lua_State *L, void *self) {
  cuarr_lua_push_device(L, cuarr_array_device(self));
}
static void field_flags(lua_State *L, void *self) { push_flags(L, self); }
static void field_base(lua_State *L, void *self) {
  (void)self;
  lua_getiuservalue(L, 1, 1);
}
static void field_data(lua_State *L, void *self) {
  lua_pushinteger(L, (lua_Integer)(intptr_t)cuarr_array_data(self));
}
static void field_is_pinned(lua_State *L, void *self) {
  lua_pushboolean(L, ((cuarr_array *)self)->buf->pinned);
}
/* a.T: the transposed view (the axes reversed), a field as NumPy's. */
static void field_T(lua_State *L, void *self) {
  const cuarr_array *a = self;
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_transpose(a, NULL, v));
}

static const cuarr_lua_field array_fields[] = {
    {"dtype", field_dtype},
    {"shape", field_shape},
    {"strides", field_strides},
    {"ndim", field_ndim},
    {"size", field_size},
    {"nbytes", field_nbytes},
    {"itemsize", field_itemsize},
    {"device", field_device},
    {"flags", field_flags},
    {"base", field_base},
    {"data", field_data},
    {"is_pinned", field_is_pinned},
    {"T", field_T},
    {"__cuda_array_interface__", cuarr_lua_push_cuda_array_interface},
    {NULL, NULL},
};

static void *check_array_object(lua_State *L, int idx) { return cuarr_lua_check_array(L, idx); }

/* The iterator of pairs(a): (a, i) -> i + 1, a[i + 1], as a[k] gives it (a Lua value for a 1-D
 * array, a view otherwise); nothing past the end. */
static int array_next(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (a->ndim == 0)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "iteration over a 0-d array");
  int isint = 0;
  lua_Integer i = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &isint) : 0;
  if (!isint)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "the iterator's control value must be an integer, got %s",
                           luaL_typename(L, 2));
  if (i < 0 || i >= a->shape[0])
    return 0;
  lua_settop(L, 1);
  lua_pushinteger(L, i + 1);
  cuarr_lua_array_index_key(L); /* a, i + 1, ..., a[i + 1] */
  lua_pushvalue(L, 2);
  lua_insert(L, -2);
  return 2;
}

/* pairs(a) and a:iter(): the first axis, as a Python for loop walks a NumPy array.  ipairs
 * cannot do the same (Lua 5.4 has no __ipairs; it reads a[n + 1], an IndexError). */
static int array_pairs(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (a->ndim == 0)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "iteration over a 0-d array");
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, array_next, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

/* core.dead_array(a): nothing for a usable array; for a freed or closed one, "freed" or
 * "closed", its dtype and its shape, which stay readable so that it can still be printed. */
static int array_dead(lua_State *L) {
  const cuarr_array *a = cuarr_lua_to_array(L, 1);
  if (!a)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be an array, got %s",
                           luaL_typename(L, 1));
  if (a->buf && a->buf->ptr)
    return 0;
  lua_pushstring(L, a->buf ? "freed" : "closed");
  lua_pushstring(L, cuarr_dtype_name(a->dtype));
  cuarr_lua_push_tuple(L, a->ndim, a->shape);
  return 3;
}

static const luaL_Reg array_methods[] = {
    {"free", array_free},
    {"iter", array_pairs},
    {NULL, NULL},
};

static const luaL_Reg array_metamethods[] = {
    {"__newindex", cuarr_lua_array_newindex},
    {"__gc", array_gc},
    {"__close", array_close},
    {"__len", array_len},
    {"__pairs", array_pairs},
    {"__lt", array_lt},
    {"__le", array_lt},
    {NULL, NULL},
};

/* One method table for free, the shape operations, the transfers, the ufuncs and reductions
 * (their parts add them); the front end adds its own (printing, ...).  The operators are
 * metamethods the ufuncs part sets.  a[i] and a[{...}] are indexing.c's. */
const cuarr_lua_class cuarr_lua_ndarray_class = {
    .id = CUARR_LUA_NDARRAY_CLASS,
    .name = "ndarray",
    .metatable = CUARR_LUA_ARRAY_MT,
    .methods = array_methods,
    .metamethods = array_metamethods,
    .fields = array_fields,
    .check = check_array_object,
    .index_other = cuarr_lua_array_index_key,
    .no_such_key = "arrays have no field or method '%s'",
    .extendable = true,
};

/* The Lua state's cuarr_lua_known_arrays (made by its first load of the module). */
static cuarr_lua_known_arrays *known_arrays_of(lua_State *L) {
  static const char key[] = "cuarr.known_arrays";
  cuarr_lua_known_arrays *k;
  if (lua_getfield(L, LUA_REGISTRYINDEX, key) == LUA_TUSERDATA) {
    k = lua_touserdata(L, -1);
  } else {
    k = lua_newuserdatauv(L, sizeof *k, 0);
    memset(k, 0, sizeof *k);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
  }
  lua_pop(L, 1);
  return k;
}

/* What the array's metatable needs besides its class: the state's fast ways to it, the
 * recently recognised arrays, the interned Device objects. */
void cuarr_lua_open_ndarray(lua_State *L, const cuarr_lua_module *m) {
  cuarr_lua_state *S = lua_touserdata(L, m->state);
  S->array_mt = cuarr_lua_class_metatable(S, &cuarr_lua_ndarray_class);
  S->known = known_arrays_of(L);
  static const luaL_Reg functions[] = {
      {"dead_array", array_dead},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  if (S->array_mt_ref == LUA_NOREF) { /* a later load finds the same metatable */
    luaL_getmetatable(L, CUARR_LUA_ARRAY_MT);
    S->array_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  /* One cache of Device objects for every load: a.device == b.device across loads too. */
  if (lua_getfield(L, LUA_REGISTRYINDEX, CUARR_LUA_DEVICE_MT ".cache") != LUA_TTABLE) {
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, CUARR_LUA_DEVICE_MT ".cache");
  }
  lua_pop(L, 1);
}
