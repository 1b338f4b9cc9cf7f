/*
 * transfer.c -- moving data between host and device: get, set, copy_to_host, to_device,
 * totable and item.
 *
 * The stream argument, where there is one, is the stream the copy is queued on (it must belong
 * to the device involved); without it the device's current stream is used.  Copies from a
 * device into pinned host memory are asynchronous: synchronise the stream before reading.
 * A new copy keeps the layout of its source (an F-order array arrives F-order).
 */
#include "binding.h"
#include "order.h"

void cuarr_lua_copy_into(lua_State *L, cuarr_lua_state *S, const cuarr_array *dst,
                         const cuarr_array *src, cuarr_stream *stream) {
  int dev = cuarr_array_device(dst);
  if (dev == CUARR_HOST)
    dev = cuarr_array_device(src);
  cuarr_context *ctx = cuarr_lua_context(S, dev);
  if (stream)
    ctx->stream = stream;
  CUARR_LUA_TRY(L, cuarr_copy(ctx, dst, src));
  /* Given no stream, a copy to or from pinned host memory is complete on return, as in Numba
   * and CuPy (pageable ones always are); given one, it is queued there. */
  bool pinned = (cuarr_array_device(dst) == CUARR_HOST && dst->buf->pinned) ||
                (cuarr_array_device(src) == CUARR_HOST && src->buf->pinned);
  if (!stream && pinned && dev != CUARR_HOST) {
    cuarr_stream null_stream = {NULL, dev, 0, false};
    CUARR_LUA_TRY(L, cuarr_stream_synchronize(ctx->stream ? ctx->stream : &null_stream));
  }
}

/* Push a host copy of the array at idx (contiguous in its memory order, pageable); stream_idx
 * may be 0. */
static cuarr_array *push_host_copy(lua_State *L, cuarr_lua_state *S, int idx, int stream_idx) {
  const cuarr_array *a = cuarr_lua_check_array(L, idx);
  cuarr_stream *stream = stream_idx ? cuarr_lua_opt_stream(L, stream_idx) : NULL;
  cuarr_array *h = cuarr_lua_new_array(L, S, CUARR_HOST, a->dtype, a->ndim, a->shape, false);
  cuarr_lua_lay_out(h, 'K', a);
  cuarr_lua_copy_into(L, S, h, a, stream);
  return h;
}

/* The stream in argument idx, which is a Stream or an options table {stream=} (fn's). */
static int stream_arg(lua_State *L, int idx, const char *fn) {
  static const char *const keys[] = {"stream", NULL};
  if (lua_type(L, idx) == LUA_TTABLE) {
    cuarr_lua_check_options(L, idx, fn, keys);
    cuarr_lua_get_option(L, idx, "stream");
    lua_replace(L, idx);
  }
  return idx;
}

/* a:get([stream]) -- a host copy (a host array gives itself). */
static int array_get(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (cuarr_array_device(a) == CUARR_HOST) {
    cuarr_lua_opt_stream(
        L, stream_arg(L, 2, "get")); /* checked all the same: a bad argument is an error */
    lua_settop(L, 1);
    return 1;
  }
  push_host_copy(L, CUARR_LUA_STATE(L), 1, stream_arg(L, 2, "get"));
  return 1;
}

/* a:set(h[, stream]) -- copy h (an array of the same shape, or a nested table) into a. */
static int array_set(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_stream *stream = cuarr_lua_opt_stream(L, stream_arg(L, 3, "set"));
  const cuarr_array *src = lua_type(L, 2) == LUA_TTABLE
                               ? cuarr_lua_host_array_from_lua(L, S, 2, a->dtype)
                               : cuarr_lua_check_array(L, 2);
  if (!cuarr_array_same_shape(a, src))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "set: the shapes differ (%d-d into %d-d, or other extents)", src->ndim,
                           a->ndim);
  cuarr_lua_copy_into(L, S, a, src, stream);
  lua_settop(L, 1);
  return 1;
}

/* d:copy_to_host([h][, stream]) -- into h when given (same shape), else a new host array. */
static int array_copy_to_host(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_array(L, 1);
  if (cuarr_lua_to_array(L, 2)) {
    const cuarr_array *a = cuarr_lua_check_array(L, 1), *h = cuarr_lua_check_array(L, 2);
    if (cuarr_array_device(h) != CUARR_HOST)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "copy_to_host: the destination is not a host array");
    if (!cuarr_array_same_shape(a, h))
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "copy_to_host: the shapes differ");
    cuarr_lua_copy_into(L, S, h, a, cuarr_lua_opt_stream(L, stream_arg(L, 3, "copy_to_host")));
    lua_settop(L, 2);
    return 1;
  }
  if (!lua_isnoneornil(L, 2) && !cuarr_lua_to_object(L, S, 2, &cuarr_lua_stream_class) &&
      !lua_istable(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "copy_to_host: argument #2 must be a host array or a Stream, got %s",
                           luaL_typename(L, 2));
  push_host_copy(L, S, 1, stream_arg(L, 2, "copy_to_host"));
  return 1;
}

static int array_totable(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_lua_check_table_size(L, a); /* before a device array's host copy */
  if (cuarr_array_device(a) != CUARR_HOST)
    a = push_host_copy(L, CUARR_LUA_STATE(L), 1, 0);
  cuarr_lua_push_table(L, a);
  return 1;
}

/* x:item() -- the one element of a size-1 array, as a Lua value (waits for the device). */
static int array_item(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (cuarr_array_size(a) != 1)
    return cuarr_lua_error(
        L, CUARR_VALUE_ERROR,
        "item(): only an array of one element converts to a Lua value (size %lld)",
        (long long)cuarr_array_size(a));
  if (cuarr_array_device(a) == CUARR_HOST) {
    cuarr_lua_push_element(L, cuarr_array_data(a), a->dtype);
    return 1;
  }
  /* One element read into the stack: no host array is made (a:sum():item() in a loop). */
  cuarr_scalar v;
  CUARR_LUA_TRY(L, cuarr_read_item(cuarr_lua_context(S, cuarr_array_device(a)), a, &v));
  _Alignas(8) unsigned char bytes[8];
  cuarr_scalar_store(v, a->dtype, bytes);
  cuarr_lua_push_element(L, bytes, a->dtype);
  return 1;
}

/* cuarr.to_device(h[, stream]) -- a device copy (same dtype) on the current device. */
static int to_device(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_stream *stream =
      cuarr_lua_opt_stream(L, stream_arg(L, 2, "to_device")); /* before anything is pushed */
  int hidx = 1;
  const cuarr_array *h;
  if (lua_type(L, 1) == LUA_TTABLE) {
    h = cuarr_lua_host_array_from_lua(L, S, 1, -1);
    hidx = lua_gettop(L);
  } else {
    h = cuarr_lua_check_array(L, 1);
  }
  int dev = stream ? stream->device : cuarr_lua_current_device(L, S);
  cuarr_array *d = cuarr_lua_new_array(L, S, dev, h->dtype, h->ndim, h->shape, false);
  cuarr_lua_lay_out(d, 'K', cuarr_lua_check_array(L, hidx));
  cuarr_lua_copy_into(L, S, d, cuarr_lua_check_array(L, hidx), stream);
  return 1;
}

void cuarr_lua_open_transfers(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg methods[] = {
      {"get", array_get},         {"set", array_set},   {"copy_to_host", array_copy_to_host},
      {"totable", array_totable}, {"item", array_item}, {NULL, NULL},
  };
  static const luaL_Reg functions[] = {
      {"to_device", to_device},
      {NULL, NULL},
  };
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_ndarray_class, methods);
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
