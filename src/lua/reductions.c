/*
 * reductions.c -- the built-in reductions and scans as Lua functions and array methods:
 *
 *   a:sum()  a:sum(2)  a:sum({1, 3}, {keepdims = true, dtype = "float64", out = o})
 *   a:sum{axis = -1, keepdims = true}      cuarr.argmax(a, 1)      cuarr.cumsum(a, 2)
 *
 * Axes are 1-based (negative ones count from the end); argmin/argmax give 1-based indices.
 * Each function is one C closure (upvalues: the state, the op), so `a:sum()` goes to the core
 * without running Lua code; on the device nothing is synchronised (a full reduction is a 0-d
 * device array; item() gives the number).  any() and all() over every element, with no option
 * that asks for an array (keepdims, dtype, out), are the exception: they give a Lua boolean, read
 * back from the device as CuPy's bool() does, since a 0-d array is always true in a Lua `if`.
 */
#include <string.h>

#include "binding.h"

#define UP_OP lua_upvalueindex(2)

typedef struct options {
  uint64_t axes; /* ~0: every axis */
  bool axis_given;
  bool keepdims;
  int dtype; /* -1: the default */
  int out;   /* stack index of out, or 0 */
} options;

/* An axis argument: nil (every axis), an integer, or a sequence of integers. */
static void read_axes(lua_State *L, int idx, int ndim, const char *fn, bool one, options *o) {
  if (lua_isnoneornil(L, idx))
    return;
  o->axis_given = true;
  o->axes = 0;
  if (!lua_istable(L, idx)) {
    o->axes = (uint64_t)1 << cuarr_lua_check_axis(L, idx, ndim, false, fn);
    return;
  }
  if (one)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s takes one axis (an integer) or none, got a table", fn);
  lua_Integer n = cuarr_lua_len(L, idx, "the axes");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, idx, i);
    int d = cuarr_lua_check_axis(L, -1, ndim, false, fn);
    lua_pop(L, 1);
    if (o->axes >> d & 1)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: duplicate value in 'axis'", fn);
    o->axes |= (uint64_t)1 << d;
  }
}

/* The options of the reductions and scans (a scan refuses keepdims = true itself). */
static const char *const OPTION_KEYS[] = {"axis", "keepdims", "dtype", "out", NULL};

/* A table is options when it has a string key ({keepdim = true} too, to be refused by name) or
 * one of their keys read through __index; otherwise a sequence of axes. */
static bool is_options(lua_State *L, int idx) {
  static const char *const keys[] = {"axis", "keepdims", "dtype", "out", "ddof"};
  if (!lua_istable(L, idx))
    return false;
  if (cuarr_lua_has_string_key(L, idx))
    return true;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    bool has = lua_getfield(L, idx, keys[i]) != LUA_TNIL;
    lua_pop(L, 1);
    if (has)
      return true;
  }
  return false;
}

/* fn(a [, axis] [, opts]) or fn(a, opts): the options, with the axis where either gave it. */
static void read_options(lua_State *L, const cuarr_array *a, const char *fn, bool one, bool scan,
                         options *o) {
  *o = (options){.axes = ~(uint64_t)0, .dtype = -1};
  int opts = 0;
  int ndim = scan && a->ndim == 0 ? 1 : a->ndim;
  if (is_options(L, 2)) {
    opts = 2;
    if (!lua_isnoneornil(L, 3))
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "%s: the options are given twice (argument #2 is options), got a %s after",
                      fn, luaL_typename(L, 3));
  } else {
    read_axes(L, 2, ndim, fn, one || scan, o);
    if (!lua_isnoneornil(L, 3)) {
      if (!lua_istable(L, 3))
        cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: options must be a table, got %s", fn,
                        luaL_typename(L, 3));
      opts = 3;
    }
  }
  if (!opts)
    return;
  cuarr_lua_check_options(L, opts, fn, OPTION_KEYS);
  if (cuarr_lua_get_option(L, opts, "axis") != LUA_TNIL) {
    if (o->axis_given)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: the axis is given twice", fn);
    read_axes(L, lua_gettop(L), ndim, fn, one || scan, o);
  }
  lua_pop(L, 1);
  o->keepdims = cuarr_lua_opt_bool_field(L, opts, "keepdims", false);
  if (cuarr_lua_get_option(L, opts, "dtype") != LUA_TNIL)
    o->dtype = (int)cuarr_lua_check_dtype(L, lua_gettop(L));
  lua_pop(L, 1);
  if (cuarr_lua_get_option(L, opts, "out") != LUA_TNIL) {
    cuarr_lua_check_array(L, lua_gettop(L));
    o->out = lua_gettop(L); /* stays on the stack */
  } else {
    lua_pop(L, 1);
  }
}

/* The array to reduce, checked to be live and where the work can run. */
static cuarr_array *input(lua_State *L, cuarr_lua_state *S, const char *fn) {
  cuarr_array *a = cuarr_lua_to_array(L, 1);
  if (!a)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #1 must be an array, got %s", fn,
                    luaL_typename(L, 1));
  cuarr_lua_check_live(L, a);
  cuarr_lua_check_on_current_device(L, S, a);
  return a;
}

/* The result: out (pushed again) or a new array to fill. */
static cuarr_array *result(lua_State *L, cuarr_lua_state *S, const cuarr_array *a,
                           const options *o) {
  if (!o->out)
    return cuarr_lua_push_array(L, 0);
  cuarr_array *out = cuarr_lua_check_array(L, o->out);
  if (cuarr_array_device(out) != cuarr_array_device(a))
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "out is not on the input's device");
  (void)S;
  lua_pushvalue(L, o->out);
  return out;
}

/* any()/all() of every element into no array the caller asked for: answered as a Lua boolean. */
static bool answers_boolean(cuarr_reduce_op op, const options *o) {
  return (op == CUARR_REDUCE_ANY || op == CUARR_REDUCE_ALL) && !o->axis_given && !o->keepdims &&
         o->dtype < 0 && !o->out;
}

/* Replace the 0-d bool result at the top of the stack by its value (waits for the device). */
static void to_boolean(lua_State *L, cuarr_lua_state *S, const cuarr_array *result) {
  unsigned char byte;
  if (cuarr_array_device(result) == CUARR_HOST) {
    byte = *(const unsigned char *)cuarr_array_data(result);
  } else {
    cuarr_scalar v;
    CUARR_LUA_TRY(L, cuarr_read_item(cuarr_lua_context(S, cuarr_array_device(result)), result, &v));
    cuarr_scalar_store(v, CUARR_BOOL, &byte);
  }
  lua_pop(L, 1);
  lua_pushboolean(L, byte != 0);
}

static int reduce_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_reduce_op op = (cuarr_reduce_op)lua_tointeger(L, UP_OP);
  const char *fn = cuarr_reduce_op_name(op);
  cuarr_array *a = input(L, S, fn);
  options o;
  read_options(L, a, fn, op == CUARR_REDUCE_ARGMIN || op == CUARR_REDUCE_ARGMAX, false, &o);
  cuarr_reduce_args args = {
      .axes = o.axes, .keepdims = o.keepdims, .dtype = o.dtype, .index_base = 1};
  int device = cuarr_array_device(a);
  cuarr_array *out = result(L, S, a, &o);
  CUARR_LUA_TRY(L, cuarr_reduce(cuarr_lua_context(S, device), op, a, &args, out));
  if (!o.out && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  if (answers_boolean(op, &o))
    to_boolean(L, S, out);
  return 1;
}

static int scan_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_scan_op op = (cuarr_scan_op)lua_tointeger(L, UP_OP);
  const char *fn = op == CUARR_SCAN_CUMPROD ? "cumprod" : "cumsum";
  cuarr_array *a = input(L, S, fn);
  options o;
  read_options(L, a, fn, true, true, &o);
  if (o.keepdims)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s takes no keepdims", fn);
  int axis = -1;
  if (o.axes != ~(uint64_t)0)
    axis = __builtin_ctzll(o.axes);
  int device = cuarr_array_device(a);
  cuarr_array *out = result(L, S, a, &o);
  CUARR_LUA_TRY(L, cuarr_scan(cuarr_lua_context(S, device), op, a, axis, o.dtype, out));
  if (!o.out && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

/* Other names NumPy gives the same reductions. */
static const struct {
  const char *name;
  cuarr_reduce_op op;
} aliases[] = {{"amin", CUARR_REDUCE_MIN}, {"amax", CUARR_REDUCE_MAX}};

/* Every reduction and scan into the table at the top of the stack. */
static void set_reductions(lua_State *L, int state_idx) {
  for (int op = 0; op < CUARR_NREDUCE_OPS; op++) {
    lua_pushvalue(L, state_idx);
    lua_pushinteger(L, op);
    lua_pushcclosure(L, reduce_call, 2);
    lua_setfield(L, -2, cuarr_reduce_op_name((cuarr_reduce_op)op));
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    lua_pushvalue(L, state_idx);
    lua_pushinteger(L, aliases[i].op);
    lua_pushcclosure(L, reduce_call, 2);
    lua_setfield(L, -2, aliases[i].name);
  }
  static const char *const scans[CUARR_NSCAN_OPS] = {"cumsum", "cumprod"};
  for (int op = 0; op < CUARR_NSCAN_OPS; op++) {
    lua_pushvalue(L, state_idx);
    lua_pushinteger(L, op);
    lua_pushcclosure(L, scan_call, 2);
    lua_setfield(L, -2, scans[op]);
  }
}

/* The reductions as array methods, in the module and in cuarr.cpu. */
void cuarr_lua_open_reductions(lua_State *L, const cuarr_lua_module *m) {
  cuarr_lua_push_methods(L, &cuarr_lua_ndarray_class);
  set_reductions(L, m->state);
  lua_pushvalue(L, m->functions);
  set_reductions(L, m->state);
  lua_pushvalue(L, m->cpu);
  set_reductions(L, m->state);
  lua_pop(L, 3);
}
