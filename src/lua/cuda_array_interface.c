/*
 * cuda_array_interface.c -- the CUDA array interface (version 3) said the Lua way, for sharing
 * device memory with other libraries without copying.
 *
 * An object carries it as a field `__cuda_array_interface__` holding a table
 *   {shape = {...}, typestr = "<f4", data = {ptr, readonly}, strides = nil or {...} (bytes),
 *    version = 3, stream = nil or an integer}
 * cuarr's device arrays expose it (a.__cuda_array_interface__, made on each read; host arrays
 * give nil); cuarr.is_cuda_array(obj) says whether obj carries it, and cuarr.as_cuda_array(obj)
 * makes a device array viewing the same memory, which keeps obj alive (the array's base).
 * Every field is checked, and the pointer is asked of the driver: it must be device memory
 * whose allocation holds every byte the shape and strides reach.  A `stream` is waited for on
 * the current stream, as CuPy does.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

#define CAI "__cuda_array_interface__"

/* ---------------------------------------------------------------- typestr */

static const char *typestr_of(cuarr_dtype d) {
  static const char *const names[CUARR_NDTYPES] = {
      [CUARR_BOOL] = "|b1",    [CUARR_INT8] = "|i1",    [CUARR_INT16] = "<i2",
      [CUARR_INT32] = "<i4",   [CUARR_INT64] = "<i8",   [CUARR_UINT8] = "|u1",
      [CUARR_UINT16] = "<u2",  [CUARR_UINT32] = "<u4",  [CUARR_UINT64] = "<u8",
      [CUARR_FLOAT16] = "<f2", [CUARR_FLOAT32] = "<f4", [CUARR_FLOAT64] = "<f8",
  };
  return names[d];
}

/* The dtype of a typestr ("<f4", "|b1"; "=" is this little-endian host's order), or -1. */
static int dtype_of_typestr(const char *s, size_t len) {
  if (len != 3 || s[0] == '\0' || !strchr("<|=", s[0]))
    return -1;
  for (int d = 0; d < CUARR_NDTYPES; d++) {
    const char *t = typestr_of((cuarr_dtype)d);
    if (s[1] == t[1] && s[2] == t[2])
      return d;
  }
  return -1;
}

/* ---------------------------------------------------------------- exporting */

static void push_integer_list(lua_State *L, int n, const int64_t *v) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

void cuarr_lua_push_cuda_array_interface(lua_State *L, void *self) {
  const cuarr_array *a = self;
  int dev = cuarr_array_device(a);
  if (dev == CUARR_HOST) {
    lua_pushnil(L); /* host memory is not shared this way */
    return;
  }
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_createtable(L, 0, 6);
  push_integer_list(L, a->ndim, a->shape);
  lua_setfield(L, -2, "shape");
  lua_pushstring(L, typestr_of(a->dtype));
  lua_setfield(L, -2, "typestr");
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, cuarr_array_size(a) ? (lua_Integer)(intptr_t)cuarr_array_data(a) : 0);
  lua_rawseti(L, -2, 1);
  lua_pushboolean(L, a->readonly);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, "data");
  if (!cuarr_array_is_c_contiguous(a)) { /* nil strides mean C order */
    push_integer_list(L, a->ndim, a->strides);
    lua_setfield(L, -2, "strides");
  }
  lua_pushinteger(L, 3);
  lua_setfield(L, -2, "version");
  /* The stream the data is valid on: the current one of its device (1: the legacy default). */
  cuarr_stream *s = S->stream[dev];
  lua_pushinteger(L, s && s->handle ? (lua_Integer)(intptr_t)s->handle : 1);
  lua_setfield(L, -2, "stream");
}

/* ---------------------------------------------------------------- reading one */

/* Push obj's interface table if it has one (a getter that raises counts as none); returns
 * whether it did. */
static int get_field(lua_State *L) {
  lua_getfield(L, 1, CAI);
  return 1;
}
static bool push_interface(lua_State *L, int obj) {
  int t = lua_type(L, obj);
  if (t != LUA_TTABLE && t != LUA_TUSERDATA)
    return false;
  lua_pushcfunction(L, get_field);
  lua_pushvalue(L, obj);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  return true;
}

/* An integer entry read onto the stack top: a TypeError unless it is one. */
static int64_t to_integer(lua_State *L, const char *what) {
  int isnum = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "as_cuda_array: %s must be an integer, got %s", what,
                    lua_type(L, -1) == LUA_TNUMBER ? "a non-integral number"
                                                   : luaL_typename(L, -1));
  lua_pop(L, 1);
  return (int64_t)v;
}

/* A list of up to CUARR_MAXDIM integers from the table at the stack top (popped). */
static int read_integer_list(lua_State *L, const char *what, int64_t *v) {
  lua_Integer n = cuarr_lua_len(L, -1, what);
  if (n > CUARR_MAXDIM)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "as_cuda_array: %s has %d entries; at most %d", what,
                    (int)n, CUARR_MAXDIM);
  for (lua_Integer i = 1; i <= n; i++) {
    char entry[48];
    snprintf(entry, sizeof entry, "%s[%d]", what, (int)i);
    lua_geti(L, -1, i);
    v[i - 1] = to_integer(L, entry);
  }
  lua_pop(L, 1);
  return (int)n;
}

/* The table field `name` of the interface at idx, pushed; a TypeError when required and
 * missing or not a table. */
static bool push_table_field(lua_State *L, int idx, const char *name, bool required) {
  int t = lua_getfield(L, idx, name);
  if (t == LUA_TNIL && !required) {
    lua_pop(L, 1);
    return false;
  }
  if (t != LUA_TTABLE)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "as_cuda_array: %s must be a table, got %s", name,
                    lua_typename(L, t));
  return true;
}

/* What the interface describes. */
typedef struct interface_desc {
  cuarr_dtype dtype;
  int ndim;
  int64_t shape[CUARR_MAXDIM], strides[CUARR_MAXDIM];
  uintptr_t ptr;
  bool readonly; /* data[2]: the array cuarr makes refuses writes (cuarr_array.readonly) */
  bool has_stream;
  intptr_t stream;
} interface_desc;

static void read_interface(lua_State *L, int cai, interface_desc *d) {
  lua_getfield(L, cai, "version");
  int64_t version = to_integer(L, "version");
  if (version < 0 || version > 3)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "as_cuda_array: version %d is not one of 0 to 3",
                    (int)version);

  if (lua_getfield(L, cai, "typestr") != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "as_cuda_array: typestr must be a string, got %s",
                    luaL_typename(L, -1));
  size_t len;
  const char *ts = lua_tolstring(L, -1, &len);
  int dtype = dtype_of_typestr(ts, len);
  if (dtype < 0)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "as_cuda_array: typestr '%s' is not one of cuarr's dtypes (little-endian "
                    "b1, i1-i8, u1-u8, f2-f8)",
                    ts);
  lua_pop(L, 1);
  d->dtype = (cuarr_dtype)dtype;

  push_table_field(L, cai, "shape", true);
  d->ndim = read_integer_list(L, "shape", d->shape);
  CUARR_LUA_TRY(L, cuarr_shape_check(d->ndim, d->shape, d->dtype, NULL));

  int64_t itemsize = (int64_t)cuarr_dtype_size(d->dtype);
  if (push_table_field(L, cai, "strides", false)) {
    int n = read_integer_list(L, "strides", d->strides);
    if (n != d->ndim)
      cuarr_lua_error(L, CUARR_VALUE_ERROR,
                      "as_cuda_array: strides has %d entries but shape has %d", n, d->ndim);
    for (int i = 0; i < n; i++)
      if (d->strides[i] % itemsize != 0)
        cuarr_lua_error(L, CUARR_VALUE_ERROR,
                        "as_cuda_array: strides[%d] = %lld is not a multiple of the item size %d",
                        i + 1, (long long)d->strides[i], (int)itemsize);
  } else {
    cuarr_strides_c(d->ndim, d->shape, (size_t)itemsize, d->strides);
  }

  push_table_field(L, cai, "data", true);
  lua_geti(L, -1, 1);
  int64_t ptr = to_integer(L, "data[1] (the pointer)");
  if (lua_geti(L, -1, 2) != LUA_TBOOLEAN)
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "as_cuda_array: data[2] (readonly) must be a boolean, "
                    "got %s",
                    luaL_typename(L, -1));
  d->readonly = lua_toboolean(L, -1);
  lua_pop(L, 2);
  d->ptr = (uintptr_t)ptr;

  if (lua_getfield(L, cai, "mask") != LUA_TNIL)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "as_cuda_array: masked arrays (mask) are not supported");
  lua_pop(L, 1);

  d->has_stream = lua_getfield(L, cai, "stream") != LUA_TNIL;
  if (d->has_stream) {
    int64_t s = to_integer(L, "stream");
    if (s == 0)
      cuarr_lua_error(L, CUARR_VALUE_ERROR,
                      "as_cuda_array: stream 0 is not allowed (1: the legacy default stream, 2: "
                      "the per-thread one)");
    d->stream = (intptr_t)s;
  } else {
    lua_pop(L, 1);
  }
}

/* The byte offsets [lo, hi) from the pointer that the layout reaches (a non-empty array). */
static void byte_extent(lua_State *L, const interface_desc *d, int64_t *lo, int64_t *hi) {
  int64_t low = 0, high = 0, step;
  for (int i = 0; i < d->ndim; i++) {
    if (__builtin_mul_overflow(d->shape[i] - 1, d->strides[i], &step) ||
        __builtin_add_overflow(step < 0 ? low : high, step, step < 0 ? &low : &high))
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "as_cuda_array: the strides reach too far");
  }
  *lo = low;
  *hi = high + (int64_t)cuarr_dtype_size(d->dtype);
}

/* The current stream of device dev waits for the work queued on the interface's stream. */
static void wait_for_stream(lua_State *L, cuarr_lua_state *S, int dev, intptr_t stream) {
  cuarr_stream *current = cuarr_lua_context(S, dev)->stream;
  void *handle = current ? current->handle : NULL;
  if ((intptr_t)handle == stream || (!handle && stream == 1))
    return; /* the same stream: in order already */
  cuarr_stream producer = {(void *)stream, dev, 0, false};
  cuarr_stream null_stream = {NULL, dev, 0, false};
  cuarr_event e;
  CUARR_LUA_TRY(L, cuarr_event_create(dev, false, false, &e));
  cuarr_status s = cuarr_event_record(&e, &producer);
  if (s == CUARR_OK)
    s = cuarr_stream_wait_event(current ? current : &null_stream, &e);
  cuarr_event_destroy(&e);
  CUARR_LUA_TRY(L, s);
}

/* cuarr.as_cuda_array(obj) -> a device array viewing obj's memory. */
static int l_as_cuda_array(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_settop(L, 1);
  cuarr_array *own = cuarr_lua_to_array_in(L, S, 1);
  if (own) {
    cuarr_lua_check_live(L, own);
    if (cuarr_array_device(own) == CUARR_HOST)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "as_cuda_array: a host array has no device memory to share (use "
                             "cuarr.asarray to copy it)");
    return 1; /* a device array is one already */
  }
  if (!push_interface(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "as_cuda_array: argument #1 (a %s) has no " CAI " table",
                           luaL_typename(L, 1));
  int cai = lua_gettop(L);
  interface_desc d;
  read_interface(L, cai, &d);
  int64_t size;
  CUARR_LUA_TRY(L, cuarr_shape_check(d.ndim, d.shape, d.dtype, &size));
  if (size == 0) { /* no memory to share: an empty array of the shape */
    cuarr_lua_new_array(L, S, cuarr_lua_current_device(L, S), d.dtype, d.ndim, d.shape, false)
        ->readonly = d.readonly;
    return 1;
  }
  int64_t lo, hi;
  byte_extent(L, &d, &lo, &hi);
  if (d.ptr == 0 || (lo < 0 && d.ptr < (uint64_t)-lo))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "as_cuda_array: data[1] is a null pointer");
  uintptr_t first = d.ptr + (uintptr_t)lo;
  int dev;
  uintptr_t start;
  size_t range;
  CUARR_LUA_TRY(L, cuarr_pointer_range(first, &dev, &start, &range));
  if (first + (uintptr_t)(hi - lo) > start + range)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "as_cuda_array: the layout reaches %lld bytes from 0x%llx, past the end "
                           "of its allocation (%llu bytes from 0x%llx)",
                           (long long)(hi - lo), (unsigned long long)first,
                           (unsigned long long)range, (unsigned long long)start);
  CUARR_LUA_TRY(L, cuarr_device_check(dev));
  if (d.has_stream)
    wait_for_stream(L, S, dev, d.stream);
  cuarr_array *a = cuarr_lua_push_array(L, 1); /* obj as its base keeps the memory's owner */
  CUARR_LUA_TRY(
      L, cuarr_buffer_wrap((void *)first, (size_t)(hi - lo), dev, false, NULL, NULL, &a->buf));
  a->dtype = d.dtype;
  a->ndim = d.ndim;
  a->offset = -lo;
  memcpy(a->shape, d.shape, sizeof d.shape);
  memcpy(a->strides, d.strides, sizeof d.strides);
  a->readonly = d.readonly;
  return 1;
}

/* cuarr.is_cuda_array(obj): a device array, or an object with the interface table. */
static int l_is_cuda_array(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_settop(L, 1);
  cuarr_array *own = cuarr_lua_to_array_in(L, S, 1);
  if (own)
    lua_pushboolean(L, own->buf && cuarr_array_device(own) != CUARR_HOST);
  else
    lua_pushboolean(L, push_interface(L, 1));
  return 1;
}

void cuarr_lua_open_cuda_array_interface(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"is_cuda_array", l_is_cuda_array},
      {"as_cuda_array", l_as_cuda_array},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
