/*
 * shape_ops.c -- reshape, ravel, flatten, transpose, T, swapaxes, squeeze, expand_dims, copy,
 * astype, ascontiguousarray, fill.  Each is a method (a:reshape(2, 3)) and, through the front
 * end, a function (cuarr.reshape(a, 2, 3)).  Axes are 1-based; negative ones count from the end.
 * reshape, ravel, flatten, copy and astype take NumPy's order ('C', 'F', 'A', 'K'): an index
 * order in F is the C order of the reversed axes, so each is done on a transposed view.
 */
#include "binding.h"
#include "order.h"

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

/* A contiguous copy of the array at idx (same device and dtype unless dtype >= 0), laid out in
 * order ('K': as the array is). */
static cuarr_array *push_copy(lua_State *L, cuarr_lua_state *S, int idx, int dtype, char order) {
  const cuarr_array *a = cuarr_lua_check_array(L, idx);
  cuarr_lua_check_on_current_device(L, S, a);
  int dev = cuarr_array_device(a);
  cuarr_array *c = cuarr_lua_new_array(L, S, dev, dtype >= 0 ? (cuarr_dtype)dtype : a->dtype,
                                       a->ndim, a->shape, false);
  cuarr_lua_lay_out(c, order, a);
  CUARR_LUA_TRY(L, cuarr_copy(cuarr_lua_context(S, dev), c, a));
  return c;
}

/* The stack index of a view of the array at idx whose C index order is order's: the array
 * itself for 'C' (nothing pushed), else a pushed view with its axes reversed ('F') or sorted
 * by decreasing |stride|, the memory order ('K').  'A' must be resolved first. */
static int push_order_view(lua_State *L, int idx, char order) {
  idx = lua_absindex(L, idx);
  const cuarr_array *a = cuarr_lua_check_array(L, idx);
  if (order == 'C')
    return idx;
  cuarr_array *v = cuarr_lua_push_array(L, idx);
  int perm[CUARR_MAXDIM];
  for (int i = 0; i < a->ndim; i++) {
    int j = i;
    int64_t si = a->strides[i] < 0 ? -a->strides[i] : a->strides[i];
    while (order == 'K' && j > 0) {
      int64_t sp = a->strides[perm[j - 1]];
      if ((sp < 0 ? -sp : sp) >= si)
        break;
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = i;
  }
  CUARR_LUA_TRY(L, cuarr_view_transpose(a, order == 'K' ? perm : NULL, v));
  return lua_gettop(L);
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

/* Push the array at idx reshaped in C index order (shape resolved): a view when the strides
 * allow one, else a view of a C-contiguous copy. */
static void push_reshaped(lua_State *L, int idx, int n, const int64_t *shape) {
  idx = lua_absindex(L, idx);
  cuarr_array probe;
  bool needs_copy = false;
  CUARR_LUA_TRY(L,
                cuarr_view_reshape(cuarr_lua_check_array(L, idx), n, shape, &probe, &needs_copy));
  if (!needs_copy) {
    cuarr_array *v = cuarr_lua_push_array(L, idx);
    *v = probe;
    return;
  }
  push_copy(L, CUARR_LUA_STATE(L), idx, -1, 'C'); /* strides forbid a view: reshape a copy */
  int base = lua_gettop(L);
  cuarr_array *v = cuarr_lua_push_array(L, base);
  CUARR_LUA_TRY(L, cuarr_view_reshape(cuarr_lua_check_array(L, base), n, shape, v, &needs_copy));
}

/* a:reshape(shape[, {order=}]): in F order, a's reversed axes reshaped to the reversed shape,
 * then reversed back. */
static int array_reshape(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int top = lua_gettop(L);
  char order = 'C';
  if (top >= 3 && lua_type(L, top) == LUA_TTABLE) {
    check_order_options(L, top, "reshape");
    order = cuarr_lua_order_option(L, top, "CFA", 'C', "reshape");
    lua_settop(L, --top);
  }
  int64_t shape[CUARR_MAXDIM];
  int n = int_list(L, 2, shape, "shape");
  resolve_shape(L, cuarr_array_size(a), n, shape);
  order = cuarr_lua_resolve_order(order, a);
  if (order == 'C') {
    push_reshaped(L, 1, n, shape);
    return 1;
  }
  int64_t reversed[CUARR_MAXDIM];
  for (int i = 0; i < n; i++)
    reversed[i] = shape[n - 1 - i];
  push_reshaped(L, push_order_view(L, 1, 'F'), n, reversed);
  int r = lua_gettop(L);
  cuarr_array *v = cuarr_lua_push_array(L, r);
  CUARR_LUA_TRY(L, cuarr_view_transpose(cuarr_lua_check_array(L, r), NULL, v));
  return 1;
}

/* a:ravel([order]) is a view when a is contiguous in that index order; a:flatten([order])
 * always copies.  'K' reads the elements in memory order. */
static int array_ravel(lua_State *L) {
  check_order_options(L, 2, "ravel");
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  char order = cuarr_lua_resolve_order(cuarr_lua_order_arg(L, 2, "CFAK", 'C', "ravel"), a);
  int64_t n = cuarr_array_size(a);
  push_reshaped(L, push_order_view(L, 1, order), 1, &n);
  return 1;
}

static int array_flatten(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  check_order_options(L, 2, "flatten");
  char order = cuarr_lua_resolve_order(cuarr_lua_order_arg(L, 2, "CFAK", 'C', "flatten"), a);
  int64_t n = cuarr_array_size(a);
  push_copy(L, CUARR_LUA_STATE(L), push_order_view(L, 1, order), -1, 'C');
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

/* a:copy([order]) -- C order unless told, as NumPy's ndarray.copy ('K' keeps a's layout). */
static int array_copy(lua_State *L) {
  check_order_options(L, 2, "copy");
  char order = cuarr_lua_order_arg(L, 2, "CFAK", 'C', "copy");
  push_copy(L, CUARR_LUA_STATE(L), 1, -1, order);
  return 1;
}

/* a:astype(dtype[, {copy = false, order = "K"}]) -- converted copy; a itself when copy=false
 * and neither the dtype nor the order asks for a change. */
static int array_astype(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_dtype d = cuarr_lua_check_dtype(L, 2);
  static const char *const keys[] = {"copy", "order", NULL};
  if (lua_istable(L, 3))
    cuarr_lua_check_options(L, 3, "astype", keys);
  char order = cuarr_lua_order_option(L, lua_istable(L, 3) ? 3 : 0, "CFAK", 'K', "astype");
  if (d == a->dtype && !cuarr_lua_opt_bool_field(L, 3, "copy", true) &&
      cuarr_lua_has_order(a, order)) {
    lua_settop(L, 1);
    return 1;
  }
  push_copy(L, CUARR_LUA_STATE(L), 1, (int)d, order);
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
  push_copy(L, CUARR_LUA_STATE(L), 1, (int)d, 'C');
  return 1;
}

/* a:is_c_contiguous(), a:is_f_contiguous() -- Numba's DeviceNDArray methods (a.flags too). */
static int array_is_c_contiguous(lua_State *L) {
  lua_pushboolean(L, cuarr_array_is_c_contiguous(cuarr_lua_check_array(L, 1)));
  return 1;
}

static int array_is_f_contiguous(lua_State *L) {
  lua_pushboolean(L, cuarr_array_is_f_contiguous(cuarr_lua_check_array(L, 1)));
  return 1;
}

/* a:setflags{write = bool}: NumPy's a.setflags(write=...), the one writable flag (a.flags is a
 * fresh table on each read, so assigning a.flags.writeable changes nothing). */
static int array_setflags(lua_State *L) {
  cuarr_array *a = cuarr_lua_check_array(L, 1);
  static const char *const keys[] = {"write", NULL};
  if (!lua_istable(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "setflags: argument #1 must be a table {write = "
                           "bool}, got %s",
                           luaL_typename(L, 2));
  cuarr_lua_check_options(L, 2, "setflags", keys);
  if (lua_getfield(L, 2, "write") == LUA_TNIL)
    return 0;
  if (!lua_isboolean(L, -1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "setflags: write must be a boolean, got %s",
                           luaL_typename(L, -1));
  bool write = lua_toboolean(L, -1);
  lua_getiuservalue(L, 1, 1);
  const cuarr_array *base = cuarr_lua_to_array_in(L, CUARR_LUA_STATE(L), -1);
  bool foreign = !base && !lua_isnil(L, -1);
  CUARR_LUA_TRY(L, cuarr_array_set_writeable(a, write, base, foreign));
  return 0;
}

/* check_writeable(a): the core's refusal of a read-only destination, for the Lua code that
 * writes through a kernel of its own (random draws into out). */
static int l_check_writeable(lua_State *L) {
  CUARR_LUA_TRY(L, cuarr_array_check_writeable(cuarr_lua_check_array(L, 1)));
  return 0;
}

/* cuarr.may_share_memory(a, b): whether the arrays' memory may overlap, by the byte ranges they
 * span (NumPy's may_share_memory: interleaved views count as sharing). */
static int l_may_share_memory(lua_State *L) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  const cuarr_array *b = cuarr_lua_check_array(L, 2);
  lua_pushboolean(L, cuarr_array_may_overlap(a, b));
  return 1;
}

static int array_fill(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_scalar v;
  if (!cuarr_lua_to_element(L, 2, a->dtype, &v))
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
  static const luaL_Reg layout_methods[] = {
      {"is_c_contiguous", array_is_c_contiguous},
      {"is_f_contiguous", array_is_f_contiguous},
      {"setflags", array_setflags},
      {NULL, NULL},
  };
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_ndarray_class, methods);
  cuarr_lua_set_functions(L, m, m->functions, methods);
  cuarr_lua_add_methods(L, m->state, &cuarr_lua_ndarray_class, layout_methods);
  static const luaL_Reg functions[] = {
      {"may_share_memory", l_may_share_memory},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
  static const luaL_Reg internal[] = {
      {"check_writeable", l_check_writeable},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, internal);
}
