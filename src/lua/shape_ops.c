/*
 * shape_ops.c -- reshape, ravel, flatten, transpose, T, swapaxes, squeeze, expand_dims, copy,
 * astype, ascontiguousarray, fill.  Each is a method (a:reshape(2, 3)) and, through the front
 * end, a function (cuarr.reshape(a, 2, 3)).  Axes are 1-based; negative ones count from the end.
 */
#include "binding.h"

/* Integers given as a table at idx or as the arguments idx, idx+1, ... (1-based). */
static int int_list(lua_State *L, int idx, int64_t *out, const char *what) {
  if (lua_type(L, idx) == LUA_TTABLE) {
    lua_Integer n = cuarr_lua_len(L, idx, what);
    if (n > CUARR_MAXDIM)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "too many dimensions: %lld (at most %d)", (long long)n,
                      CUARR_MAXDIM);
    for (int i = 0; i < (int)n; i++) {
      lua_geti(L, idx, i + 1);
      out[i] = cuarr_lua_check_integer(L, -1, what);
      lua_pop(L, 1);
    }
    return (int)n;
  }
  int n = lua_gettop(L) - idx + 1;
  if (n > CUARR_MAXDIM)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "too many dimensions: %d (at most %d)", n, CUARR_MAXDIM);
  for (int i = 0; i < n; i++)
    out[i] = cuarr_lua_check_integer(L, idx + i, what);
  return n < 0 ? 0 : n;
}

/* The options of reshape, ravel, flatten and copy: {order=} (NumPy's layout, read by the
 * functions that take it); a table at idx is checked, so that no other key is ignored. */
static void check_order_options(lua_State *L, int idx, const char *fn) {
  static const char *const keys[] = {"order", NULL};
  if (lua_istable(L, idx))
    cuarr_lua_check_options(L, idx, fn, keys);
}

/* A C-contiguous copy of the array at idx (same device and dtype unless dtype >= 0). */
static cuarr_array *push_copy(lua_State *L, cuarr_lua_state *S, int idx, int dtype) {
  const cuarr_array *a = cuarr_lua_check_array(L, idx);
  cuarr_lua_check_on_current_device(L, S, a);
  int dev = cuarr_array_device(a);
  cuarr_array *c = cuarr_lua_new_array(L, S, dev, dtype >= 0 ? (cuarr_dtype)dtype : a->dtype,
                                       a->ndim, a->shape, false);
  CUARR_LUA_TRY(L, cuarr_copy(cuarr_lua_context(S, dev), c, a));
  return c;
}

static void fail_reshape(lua_State *L, int64_t size, int n, const int64_t *shape) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; i < n; i++) {
    lua_pushfstring(L, i ? ", %I" : "%I", (lua_Integer)shape[i]);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  cuarr_lua_error(L, CUARR_VALUE_ERROR, "cannot reshape array of size %lld into shape (%s%s)",
                  (long long)size, lua_tostring(L, -1), n == 1 ? "," : "");
}

/* Resolve a -1 extent and check the element count matches. */
static void resolve_shape(lua_State *L, int64_t size, int n, int64_t *shape) {
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < n; i++) {
    if (shape[i] == -1 && unknown < 0) {
      unknown = i;
    } else if (shape[i] < 0) {
      if (shape[i] == -1)
        cuarr_lua_error(L, CUARR_VALUE_ERROR, "can only specify one unknown dimension");
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "negative dimension %lld in reshape",
                      (long long)shape[i]);
    } else if (shape[i] != 0 && known > INT64_MAX / shape[i]) {
      fail_reshape(L, size, n, shape);
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known)
      fail_reshape(L, size, n, shape);
    shape[unknown] = size / known;
  } else if (known != size) {
    fail_reshape(L, size, n, shape);
  }
}

static int array_reshape(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int64_t shape[CUARR_MAXDIM];
  if (lua_istable(L, 2))
    check_order_options(L, 3, "reshape");
  int n = int_list(L, 2, shape, "shape");
  resolve_shape(L, cuarr_array_size(a), n, shape);
  int base = 1;
  cuarr_array probe;
  bool needs_copy = false;
  CUARR_LUA_TRY(L, cuarr_view_reshape(a, n, shape, &probe, &needs_copy));
  if (!needs_copy) {
    cuarr_array *v = cuarr_lua_push_array(L, 1);
    *v = probe;
    return 1;
  }
  push_copy(L, CUARR_LUA_STATE(L), 1, -1); /* strides forbid a view: reshape a contiguous copy */
  base = lua_gettop(L);
  cuarr_array *v = cuarr_lua_push_array(L, base);
  CUARR_LUA_TRY(L, cuarr_view_reshape(cuarr_lua_check_array(L, base), n, shape, v, &needs_copy));
  return 1;
}

/* a:ravel() is a view when a is contiguous; a:flatten() always copies. */
static int array_ravel(lua_State *L) {
  check_order_options(L, 2, "ravel");
  lua_settop(L, 1);
  lua_pushinteger(L, -1);
  return array_reshape(L);
}

static int array_flatten(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  check_order_options(L, 2, "flatten");
  int64_t n = cuarr_array_size(a);
  push_copy(L, CUARR_LUA_STATE(L), 1, -1);
  cuarr_array *v = cuarr_lua_push_array(L, -1);
  bool needs_copy;
  CUARR_LUA_TRY(L, cuarr_view_reshape(cuarr_lua_check_array(L, -2), 1, &n, v, &needs_copy));
  return 1;
}

/* The axes of a:transpose(axes) given as a table at idx or as the arguments idx, idx+1, ...,
 * each read by the one axis reader, into perm (0-based); returns how many. */
static int axes_list(lua_State *L, int idx, int ndim, int *perm) {
  bool table = lua_type(L, idx) == LUA_TTABLE;
  lua_Integer n = table ? cuarr_lua_len(L, idx, "the axes") : lua_gettop(L) - idx + 1;
  if (n != ndim)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "axes don't match array: %lld axes for %d dimensions", (long long)n,
                           ndim);
  for (int i = 0; i < ndim; i++) {
    if (table)
      lua_geti(L, idx, i + 1);
    else
      lua_pushvalue(L, idx + i);
    perm[i] = cuarr_lua_check_axis(L, -1, ndim, false, "transpose");
    for (int j = 0; j < i; j++) /* named here as given: the core's message is 0-based */
      if (perm[j] == perm[i])
        cuarr_lua_error(L, CUARR_VALUE_ERROR, "repeated axis in transpose: %s",
                        lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  return ndim;
}

static int array_transpose(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int perm[CUARR_MAXDIM];
  bool given = lua_gettop(L) >= 2 && !lua_isnil(L, 2);
  if (given)
    axes_list(L, 2, a->ndim, perm);
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_transpose(a, given ? perm : NULL, v));
  return 1;
}

static int array_swapaxes(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int a1 = cuarr_lua_check_axis(L, 2, a->ndim, false, "swapaxes");
  int a2 = cuarr_lua_check_axis(L, 3, a->ndim, false, "swapaxes");
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_swapaxes(a, a1, a2, v));
  return 1;
}

static int array_squeeze(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int axis = lua_isnoneornil(L, 2) ? -1 : cuarr_lua_check_axis(L, 2, a->ndim, false, "squeeze");
  if (axis >= 0 && a->shape[axis] != 1)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "cannot select an axis to squeeze out which has size not equal to one");
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_squeeze(a, axis, v));
  return 1;
}

static int array_expand_dims(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  if (a->ndim >= CUARR_MAXDIM)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "too many dimensions (at most %d)", CUARR_MAXDIM);
  int axis = cuarr_lua_check_axis(L, 2, a->ndim, true, "expand_dims");
  cuarr_array *v = cuarr_lua_push_array(L, 1);
  CUARR_LUA_TRY(L, cuarr_view_expand_dims(a, axis, v));
  return 1;
}

static int array_copy(lua_State *L) {
  check_order_options(L, 2, "copy");
  push_copy(L, CUARR_LUA_STATE(L), 1, -1);
  return 1;
}

/* a:astype(dtype[, {copy = false}]) -- converted copy; a itself when copy=false and no change. */
static int array_astype(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_dtype d = cuarr_lua_check_dtype(L, 2);
  static const char *const keys[] = {"copy", "order", NULL};
  if (lua_istable(L, 3))
    cuarr_lua_check_options(L, 3, "astype", keys);
  if (d == a->dtype && !cuarr_lua_opt_bool_field(L, 3, "copy", true)) {
    lua_settop(L, 1);
    return 1;
  }
  push_copy(L, CUARR_LUA_STATE(L), 1, (int)d);
  return 1;
}

/* cuarr.ascontiguousarray(a[, dtype]) -- a itself when already C-contiguous of that dtype. */
static int array_ascontiguousarray(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_dtype d = cuarr_lua_opt_dtype(L, 2, a->dtype);
  if (d == a->dtype && cuarr_array_is_c_contiguous(a)) {
    lua_settop(L, 1);
    return 1;
  }
  push_copy(L, CUARR_LUA_STATE(L), 1, (int)d);
  return 1;
}

static int array_fill(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_scalar v;
  if (!cuarr_lua_to_scalar(L, 2, &v))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "fill: the value must be a number or boolean, got %s",
                           luaL_typename(L, 2));
  cuarr_lua_check_on_current_device(L, S, a);
  CUARR_LUA_TRY(L, cuarr_fill(cuarr_lua_context(S, cuarr_array_device(a)), a, v));
  lua_settop(L, 1);
  return 1;
}

/* Array methods, and module functions: a:reshape(...) is cuarr.reshape(a, ...). */
void cuarr_lua_open_shape_ops(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg methods[] = {
      {"reshape", array_reshape},
      {"ravel", array_ravel},
      {"flatten", array_flatten},
      {"transpose", array_transpose},
      {"swapaxes", array_swapaxes},
      {"squeeze", array_squeeze},
      {"expand_dims", array_expand_dims},
      {"copy", array_copy},
      {"astype", array_astype},
      {"ascontiguousarray", array_ascontiguousarray},
      {"fill", array_fill},
      {NULL, NULL},
  };
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_ndarray_class, methods);
  cuarr_lua_set_functions(L, m, m->functions, methods);
}
