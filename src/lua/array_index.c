/*
 * array_index.c -- a[key] and a[key] = value for keys holding arrays: NumPy's advanced indexing,
 * said the Lua way (indices 1-based, negative from the end, 0 an IndexError).
 *
 *  - a[mask], a boolean array of a's leading extents alone (or alone in a table): the selected
 *    elements, cuarr_mask_select / cuarr_mask_assign;
 *  - a[idx], an integer array: rows along the first axis, cuarr_gather / cuarr_scatter;
 *  - a[{...}] mixing integer arrays, boolean arrays (their nonzero() index arrays, one per axis
 *    they cover), integers, range tables and cuarr.newaxis: the ranges and newaxis make a view,
 *    the arrays and integers are the advanced indices (broadcast together).  Their result axes
 *    go where the advanced entries stand when those are adjacent in the key, first otherwise.
 *
 * A host index array (or mask, or values) used with a device array is copied to the device
 * first; a device one with a host array is a ValueError.  Out-of-range indices are IndexErrors
 * checked on the device; an assignment checks every index before it writes anything.
 */
#include <string.h>

#include "indexing.h"

typedef struct fancy_key {
  cuarr_array *cur;        /* a with the key's ranges, integers and newaxis applied */
  const cuarr_array *mask; /* a key that is one boolean array: the mask path */
  cuarr_fancy_index ix;
} fancy_key;

const cuarr_array *cuarr_lua_index_in_place(lua_State *L, cuarr_lua_state *S, int device, int idx,
                                            const char *what) {
  cuarr_array *x = cuarr_lua_check_live(L, cuarr_lua_to_array_in(L, S, idx));
  const int xd = cuarr_array_device(x);
  if (xd == device)
    return x;
  if (device == CUARR_HOST)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "a device array cannot be used as %s of a host array (use :get() first)", what);
  if (xd != CUARR_HOST)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s is on device %d and the array on device %d", what, xd,
                    device);
  cuarr_array *y = cuarr_lua_new_array(L, S, device, x->dtype, x->ndim, x->shape, false);
  CUARR_LUA_TRY(L, cuarr_copy(cuarr_lua_context(S, device), y, x));
  return y;
}

static void need_axes(lua_State *L, int axis, int count, const cuarr_array *cur, int ndim) {
  if (axis + count > cur->ndim)
    cuarr_lua_error(L, CUARR_INDEX_ERROR, "too many indices for an array of %d dimensions", ndim);
}

/* A boolean entry covering axes axis.. of cur: its nonzero() rows as index arrays. */
static void add_mask_entry(lua_State *L, cuarr_lua_state *S, fancy_key *fk, int axis, int idx,
                           int ndim) {
  const int device = cuarr_array_device(fk->cur);
  const cuarr_array *m = cuarr_lua_to_array_in(L, S, idx);
  if (m->ndim == 0)
    cuarr_lua_error(L, CUARR_INDEX_ERROR,
                    "a 0-d boolean array inside a table key is not supported (use it alone)");
  need_axes(L, axis, m->ndim, fk->cur, ndim);
  for (int d = 0; d < m->ndim; d++)
    if (m->shape[d] != fk->cur->shape[axis + d])
      cuarr_lua_error(L, CUARR_INDEX_ERROR,
                      "boolean index did not match indexed array along axis %d; size of axis is "
                      "%lld but size of corresponding boolean axis is %lld",
                      axis + d + 1, (long long)fk->cur->shape[axis + d], (long long)m->shape[d]);
  m = cuarr_lua_index_in_place(L, S, device, idx, "a boolean index");
  cuarr_array *nz = cuarr_lua_push_array(L, 0);
  CUARR_LUA_TRY(L, cuarr_nonzero(cuarr_lua_context(S, device), m, 1, nz));
  if (device != CUARR_HOST)
    cuarr_lua_account(L, S, nz->buf->nbytes);
  const int nz_idx = lua_gettop(L);
  for (int r = 0; r < m->ndim; r++) {
    cuarr_array *row = cuarr_lua_push_array(L, nz_idx);
    CUARR_LUA_TRY(L, cuarr_view_select(nz, 0, r, row));
    fk->ix.axes[fk->ix.n] = axis + r;
    fk->ix.index[fk->ix.n++] = row;
  }
}

/* The key at 2 applied to the array at 1; what it pushes stays on the stack. */
static void parse_key(lua_State *L, cuarr_lua_state *S, fancy_key *fk) {
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  const int device = cuarr_array_device(a);
  memset(fk, 0, sizeof *fk);
  fk->ix.base = 1;
  fk->ix.mode = CUARR_INDEX_RAISE;
  fk->cur = cuarr_lua_push_array(L, 1);
  cuarr_array_share(a, fk->cur);
  int first, n;
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_Integer len = cuarr_lua_len(L, 2, "an index");
    if (len > (lua_Integer)a->ndim + CUARR_MAXDIM)
      cuarr_lua_error(L, CUARR_INDEX_ERROR, "too many indices: %lld for an array of %d dimensions",
                      (long long)len, a->ndim);
    n = (int)len;
    cuarr_lua_check_stack(L, n + 3 * CUARR_MAXDIM + 8);
    first = lua_gettop(L) + 1;
    for (int k = 1; k <= n; k++) /* each entry read once */
      lua_geti(L, 2, k);
  } else {
    n = 1;
    cuarr_lua_check_stack(L, 3 * CUARR_MAXDIM + 8);
    lua_pushvalue(L, 2);
    first = lua_gettop(L);
  }
  if (n == 1) {
    cuarr_array *m = cuarr_lua_to_array_in(L, S, first);
    if (m && cuarr_lua_check_live(L, m)->dtype == CUARR_BOOL) {
      fk->mask = cuarr_lua_index_in_place(L, S, device, first, "a boolean index");
      return;
    }
  }
  int axis = 0, first_adv = -1, last_adv = -1, at = 0;
  bool split = false;
  for (int k = 1; k <= n; k++) {
    const int e = first + k - 1;
    const int t = lua_type(L, e);
    cuarr_array *x = t == LUA_TUSERDATA ? cuarr_lua_to_array_in(L, S, e) : NULL;
    bool advanced = false;
    const int before = axis;
    if (t == LUA_TNUMBER) {
      need_axes(L, axis, 1, fk->cur, a->ndim);
      lua_Integer i = cuarr_lua_index_value(L, e, "indices", k - 1);
      cuarr_array next;
      cuarr_lua_view_replace(
          L, fk->cur,
          cuarr_view_select(fk->cur, axis,
                            cuarr_lua_index_position(L, i, fk->cur->shape[axis], k - 1), &next),
          &next);
      advanced = true;
    } else if (t == LUA_TTABLE) {
      need_axes(L, axis, 1, fk->cur, a->ndim);
      cuarr_lua_apply_range(L, fk->cur, axis, e);
      axis++;
    } else if (cuarr_lua_is_newaxis(L, e)) {
      cuarr_lua_apply_newaxis(L, fk->cur, axis);
      axis++;
    } else if (x && cuarr_lua_check_live(L, x)->dtype == CUARR_BOOL) {
      add_mask_entry(L, S, fk, axis, e, a->ndim);
      axis += x->ndim;
      advanced = true;
    } else if (x) {
      need_axes(L, axis, 1, fk->cur, a->ndim);
      fk->ix.axes[fk->ix.n] = axis;
      fk->ix.index[fk->ix.n++] = cuarr_lua_index_in_place(L, S, device, e, "an index array");
      axis++;
      advanced = true;
    } else {
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "index entry %d must be an integer, a range table, an array or "
                      "cuarr.newaxis, got %s",
                      k, luaL_typename(L, e));
    }
    if (advanced) {
      if (first_adv < 0) {
        first_adv = k;
        at = before;
      } else if (last_adv != k - 1) {
        split = true;
      }
      last_adv = k;
    }
  }
  /* Integers dropped their axes in cur; the arrays' axes are what is left of the advanced. */
  fk->ix.at = split ? 0 : at;
}

/* Whether the array at 1 is a host array (for the accounting of what a call allocates). */
static void account(lua_State *L, cuarr_lua_state *S, const cuarr_array *out) {
  if (cuarr_array_device(out) != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
}

int cuarr_lua_fancy_get(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  fancy_key fk;
  parse_key(L, S, &fk);
  const int device = cuarr_array_device(fk.cur);
  cuarr_context *ctx = cuarr_lua_context(S, device);
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  if (fk.mask)
    CUARR_LUA_TRY(L, cuarr_mask_select(ctx, fk.cur, fk.mask, out));
  else
    CUARR_LUA_TRY(L, cuarr_gather(ctx, fk.cur, &fk.ix, out));
  account(L, S, out);
  return 1;
}

const cuarr_array *cuarr_lua_index_values(lua_State *L, cuarr_lua_state *S, int idx, int device,
                                          cuarr_dtype dtype) {
  cuarr_scalar value;
  if (cuarr_lua_to_element(L, idx, dtype, &value)) {
    cuarr_array *v = cuarr_lua_new_array(L, S, device, dtype, 0, NULL, false);
    CUARR_LUA_TRY(L, cuarr_fill(cuarr_lua_context(S, device), v, value));
    return v;
  }
  if (lua_type(L, idx) == LUA_TTABLE) {
    const cuarr_array *h = cuarr_lua_host_array_from_lua(L, S, idx, dtype);
    if (device == CUARR_HOST)
      return h;
    cuarr_array *v = cuarr_lua_new_array(L, S, device, dtype, h->ndim, h->shape, false);
    CUARR_LUA_TRY(L, cuarr_copy(cuarr_lua_context(S, device), v, h));
    return v;
  }
  cuarr_array *src = cuarr_lua_to_array_in(L, S, idx);
  if (!src)
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "an array element can be set to a number, boolean, table or array, not %s",
                    luaL_typename(L, idx));
  cuarr_lua_check_live(L, src);
  cuarr_lua_check_on_current_device(L, S, src);
  if (cuarr_array_device(src) == device)
    return src;
  /* Another placement: copied over first, as a plain assignment's copy would. */
  cuarr_array *v = cuarr_lua_new_array(L, S, device, src->dtype, src->ndim, src->shape, false);
  CUARR_LUA_TRY(
      L, cuarr_copy(cuarr_lua_context(S, device == CUARR_HOST ? cuarr_array_device(src) : device),
                    v, src));
  return v;
}

int cuarr_lua_fancy_set(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_settop(L, 3);
  fancy_key fk;
  parse_key(L, S, &fk);
  const int device = cuarr_array_device(fk.cur);
  const cuarr_array *v = cuarr_lua_index_values(L, S, 3, device, fk.cur->dtype);
  cuarr_context *ctx = cuarr_lua_context(S, device);
  if (fk.mask)
    CUARR_LUA_TRY(L, cuarr_mask_assign(ctx, fk.cur, fk.mask, v));
  else
    CUARR_LUA_TRY(L, cuarr_scatter(ctx, fk.cur, &fk.ix, v));
  return 0;
}
