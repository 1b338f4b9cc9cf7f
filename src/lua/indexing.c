/*
 * indexing.c -- a[i], a[{i, j}], a[{ {}, {2, 4} }] and assignment to them.
 *
 * Lua's conventions: indices are 1-based, ranges {start, stop[, step]} include
 * both ends, negative numbers count from the end (-1 is the last), {} is a whole axis and {i}
 * is the one-element range {i, i} (which keeps the axis, as in Torch7).  An integer drops its
 * axis; when every axis is dropped the result is the element's Lua value.  0 is never a valid
 * index: it is an IndexError, so that 0-based habits fail loudly.  cuarr.newaxis (NumPy's
 * np.newaxis) adds an axis of extent 1 and stride 0 where it stands; it takes no axis of the
 * array.
 *
 * A key that is an array, or a table holding one, is NumPy's advanced indexing: it goes to
 * array_index.c.  Telling it apart costs the integer and range paths nothing: a bare key's
 * type is looked at only after it is found to be no number, and a table's entries are typed
 * once as they are read anyway.
 */
#include "indexing.h"
#include "binding.h"

/* cuarr.newaxis: a light userdata, so that telling it apart costs nothing on the paths of
 * integers and ranges, and no Lua value but itself compares equal to it. */
static const char newaxis_sentinel = 0;

bool cuarr_lua_is_newaxis(lua_State *L, int idx) {
  return lua_islightuserdata(L, idx) && lua_touserdata(L, idx) == &newaxis_sentinel;
}

/* Replace *cur by a view made from it (the old reference is dropped). */
void cuarr_lua_view_replace(lua_State *L, cuarr_array *cur, cuarr_status s, cuarr_array *next) {
  if (s != CUARR_OK)
    cuarr_lua_fail(L, s);
  cuarr_array_release(cur);
  *cur = *next;
}

/* A new axis of extent 1 and stride 0 (as NumPy's) at position axis of *cur. */
void cuarr_lua_apply_newaxis(lua_State *L, cuarr_array *cur, int axis) {
  cuarr_array next;
  cuarr_status s = cuarr_view_expand_dims(cur, axis, &next);
  if (s == CUARR_OK)
    next.strides[axis] = 0;
  cuarr_lua_view_replace(L, cur, s, &next);
}

/* A 1-based (or negative) index along an axis of extent n, as 0-based. */
int64_t cuarr_lua_index_position(lua_State *L, lua_Integer i, int64_t n, int axis) {
  if (i == 0)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "index 0 is invalid for axis %d: indices start at 1",
                    axis + 1);
  /* ipairs(a) ends here: Lua 5.4 gives it no hook, and it stops only at a nil. */
  if (i > n || i < -n)
    cuarr_lua_error(L, CUARR_INDEX_ERROR,
                    "index %lld is out of bounds for axis %d with size %lld%s", (long long)i,
                    axis + 1, (long long)n,
                    i == n + 1 && axis == 0
                        ? " (to loop over an array use pairs(a) or a:iter(): ipairs(a) reads "
                          "past the end)"
                        : "");
  return i > 0 ? i - 1 : n + i;
}

/* An index or a range bound at idx (`what` names it): an integer, or a float with an integral
 * value that fits one; anything else is a TypeError, as for every integer argument. */
lua_Integer cuarr_lua_index_value(lua_State *L, int idx, const char *what, int axis) {
  int isint = 0;
  lua_Integer v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isint) : 0;
  if (!isint) {
    lua_pushvalue(L, idx); /* converted for the message on a copy */
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s for axis %d must be integers, got %s", what, axis + 1,
                    lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, -1));
  }
  return v;
}

static lua_Integer range_bound(lua_State *L, int tbl, int k, lua_Integer def, int axis) {
  lua_Integer v = def;
  if (lua_geti(L, tbl, k) != LUA_TNIL)
    v = cuarr_lua_index_value(L, lua_gettop(L), "range bounds", axis);
  lua_pop(L, 1);
  return v;
}

/* The range table at tbl applied to `axis` of *cur. */
void cuarr_lua_apply_range(lua_State *L, cuarr_array *cur, int axis, int tbl) {
  int64_t n = cur->shape[axis];
  lua_Integer len = cuarr_lua_len(L, tbl, "a range");
  if (len > 3)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "a range is {start, stop[, step]}; got %lld entries",
                    (long long)len);
  lua_Integer step = range_bound(L, tbl, 3, 1, axis);
  if (step == 0)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "range step cannot be zero");
  lua_Integer start = range_bound(L, tbl, 1, step > 0 ? 1 : -1, axis);
  lua_Integer stop = range_bound(L, tbl, 2, len == 1 ? start : (step > 0 ? -1 : 1), axis);
  if (start == 0 || stop == 0)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "index 0 is invalid for axis %d: indices start at 1",
                    axis + 1);
  /* As 0-based inclusive bounds, clamped the way NumPy clamps slices. */
  int64_t s0 = start > 0 ? start - 1 : n + start;
  int64_t e0 = stop > 0 ? stop - 1 : n + stop;
  int64_t count;
  if (step > 0) {
    if (s0 < 0)
      s0 = 0;
    if (e0 > n - 1)
      e0 = n - 1;
    count = e0 >= s0 ? (e0 - s0) / step + 1 : 0;
  } else {
    if (s0 > n - 1)
      s0 = n - 1;
    if (e0 < 0)
      e0 = 0;
    /* -step overflows for math.mininteger: divide as unsigned */
    count = s0 >= e0 ? (int64_t)((uint64_t)(s0 - e0) / (0 - (uint64_t)step)) + 1 : 0;
  }
  if (count == 0)
    s0 = 0;
  cuarr_array next;
  cuarr_lua_view_replace(L, cur, cuarr_view_slice(cur, axis, s0, count, step, &next), &next);
}

/* Apply the key at key_idx to the array at index 1; pushes the resulting view and returns it.
 * *element is true when every axis was selected by an integer.  NULL (nothing pushed) for a
 * key that is an array or a table holding one: advanced indexing, array_index.c's. */
static cuarr_array *key_view(lua_State *L, int key_idx, bool *element) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_array *cur = cuarr_lua_push_array(L, 1);
  cuarr_array_share(a, cur);
  *element = false;
  if (lua_type(L, key_idx) == LUA_TNUMBER) {
    if (a->ndim == 0)
      cuarr_lua_error(L, CUARR_INDEX_ERROR, "a 0-d array cannot be indexed");
    lua_Integer i = cuarr_lua_index_value(L, key_idx, "indices", 0);
    cuarr_array next;
    cuarr_lua_view_replace(
        L, cur, cuarr_view_select(cur, 0, cuarr_lua_index_position(L, i, cur->shape[0], 0), &next),
        &next);
    *element = cur->ndim == 0;
    return cur;
  }
  if (cuarr_lua_is_newaxis(L, key_idx)) {
    cuarr_lua_apply_newaxis(L, cur, 0);
    return cur;
  }
  if (lua_type(L, key_idx) != LUA_TTABLE) {
    if (cuarr_lua_to_array(L, key_idx)) {
      lua_pop(L, 1);
      return NULL;
    }
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "arrays are indexed by integers, tables or arrays, not %s",
                    luaL_typename(L, key_idx));
  }
  lua_Integer n = cuarr_lua_len(L, key_idx, "an index");
  /* Each entry takes an axis or adds one (newaxis), and no result has more than CUARR_MAXDIM:
   * a longer key is refused before any entry is read (its length may be a hostile __len). */
  if (n > (lua_Integer)a->ndim + CUARR_MAXDIM)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "too many indices: %lld for an array of %d dimensions",
                    (long long)n, a->ndim);
  /* Every entry read once, onto the stack: newaxis entries take no axis, so they are counted
   * before any is applied. */
  cuarr_lua_check_stack(L, (int)n);
  int first = lua_gettop(L) + 1;
  lua_Integer used = 0;
  bool arrays = false;
  for (lua_Integer k = 1; k <= n; k++) {
    int t = lua_geti(L, key_idx, k);
    if (t != LUA_TNUMBER && t != LUA_TTABLE) {
      used += !cuarr_lua_is_newaxis(L, -1);
      arrays = arrays || (t == LUA_TUSERDATA && cuarr_lua_to_array(L, -1));
    } else {
      used++;
    }
  }
  if (arrays) {
    lua_settop(L, first - 2); /* the entries and cur */
    return NULL;
  }
  if (used > a->ndim)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "too many indices: %lld for an array of %d dimensions",
                    (long long)used, a->ndim);
  int axis = 0, selected = 0; /* axis: position in *cur of the original axis k */
  for (lua_Integer k = 1; k <= n; k++) {
    int entry = first + (int)k - 1;
    int t = lua_type(L, entry);
    if (t == LUA_TNUMBER) {
      lua_Integer i = cuarr_lua_index_value(L, entry, "indices", (int)k - 1);
      cuarr_array next;
      cuarr_lua_view_replace(
          L, cur,
          cuarr_view_select(cur, axis, cuarr_lua_index_position(L, i, cur->shape[axis], (int)k - 1),
                            &next),
          &next);
      selected++;
    } else if (t == LUA_TTABLE) {
      cuarr_lua_apply_range(L, cur, axis, entry);
      axis++;
    } else if (cuarr_lua_is_newaxis(L, entry)) {
      cuarr_lua_apply_newaxis(L, cur, axis);
      axis++;
    } else {
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "index entry %lld must be an integer, a range table or cuarr.newaxis, got %s",
                      (long long)k, luaL_typename(L, entry));
    }
  }
  lua_settop(L, first - 1);
  *element = selected == a->ndim && a->ndim > 0 && cur->ndim == 0;
  return cur;
}

/* The element of the 0-d view v (device or host) as a Lua value. */
static void push_view_element(lua_State *L, cuarr_lua_state *S, const cuarr_array *v) {
  int dev = cuarr_array_device(v);
  if (dev == CUARR_HOST) {
    cuarr_lua_push_element(L, cuarr_array_data(v), v->dtype);
    return;
  }
  unsigned char bytes[8];
  cuarr_buffer *stage;
  CUARR_LUA_TRY(L, cuarr_buffer_wrap(bytes, sizeof bytes, CUARR_HOST, false, NULL, NULL, &stage));
  cuarr_array h = {.buf = stage, .dtype = v->dtype, .ndim = 0};
  cuarr_status s = cuarr_copy(cuarr_lua_context(S, dev), &h, v);
  cuarr_buffer_release(stage);
  CUARR_LUA_TRY(L, s);
  cuarr_lua_push_element(L, bytes, v->dtype);
}

void cuarr_lua_push_newaxis(lua_State *L) { lua_pushlightuserdata(L, (void *)&newaxis_sentinel); }

int cuarr_lua_array_index_key(lua_State *L) {
  bool element;
  cuarr_array *v = key_view(L, 2, &element);
  if (!v)
    return cuarr_lua_fancy_get(L);
  if (element)
    push_view_element(L, CUARR_LUA_STATE(L), v);
  return 1;
}

int cuarr_lua_array_newindex(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (lua_type(L, 2) == LUA_TSTRING)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "array fields cannot be assigned ('%s')",
                           lua_tostring(L, 2));
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_lua_check_on_current_device(L, S, a);
  bool element;
  cuarr_array *dst = key_view(L, 2, &element);
  if (!dst)
    return cuarr_lua_fancy_set(L);
  int dev = cuarr_array_device(dst);
  cuarr_scalar value;
  if (cuarr_lua_to_element(L, 3, dst->dtype, &value)) {
    CUARR_LUA_TRY(L, cuarr_fill(cuarr_lua_context(S, dev), dst, value));
    return 0;
  }
  const cuarr_array *src;
  if (lua_type(L, 3) == LUA_TTABLE) {
    src = cuarr_lua_host_array_from_lua(L, S, 3, dst->dtype);
  } else {
    src = cuarr_lua_to_array(L, 3);
    if (!src)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "an array element can be set to a number, boolean, table or array, "
                             "not %s",
                             luaL_typename(L, 3));
    src = cuarr_lua_check_array(L, 3);
    cuarr_lua_check_on_current_device(L, S, src);
  }
  cuarr_lua_copy_into(L, S, dst, src, NULL);
  return 0;
}
