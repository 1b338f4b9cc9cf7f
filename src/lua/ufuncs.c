/*
 * ufuncs.c -- the built-in ufuncs as Lua functions, methods and operators.
 *
 * Every ufunc is one C closure (upvalues: the state, the cuarr_ufunc, whether the namespace
 * makes host arrays, whether it serves as a metamethod), registered as cuarr.<name>,
 * cuarr.cpu.<name>, the array method a:<name>(...) and, for the operators, the metamethod.
 * `c = a + b` therefore goes from __add to the core without running Lua code: the arguments
 * are read, the result userdata pushed, and cuarr_ufunc_call resolves dtypes, finds the kernel
 * in its cache and launches it.
 */
#include <stdio.h>
#include <string.h>

#include "binding.h"

#define UP_UFUNC lua_upvalueindex(2)
#define UP_HOST lua_upvalueindex(3)
#define UP_METAMETHOD lua_upvalueindex(4)

/* Read argument idx as an operand; returns the array's device, or `none` for a scalar. */
static int read_operand(lua_State *L, const cuarr_lua_state *S, int idx, cuarr_operand *arg,
                        int none, const char *ufunc) {
  cuarr_array *a = cuarr_lua_to_array_in(L, S, idx);
  if (a) {
    arg->array = cuarr_lua_check_live(L, a);
    arg->weak = false;
    return cuarr_array_device(a);
  }
  arg->array = NULL;
  arg->weak = true;
  if (!cuarr_lua_to_scalar(L, idx, &arg->scalar))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #%d must be an array or a number, got %s",
                    ufunc, idx, luaL_typename(L, idx));
  return none;
}

static const char *device_name(char *buf, size_t n, int device) {
  if (device == CUARR_HOST)
    snprintf(buf, n, "the host");
  else
    snprintf(buf, n, "device %d", device);
  return buf;
}

static int ufunc_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_ufunc *u = lua_touserdata(L, UP_UFUNC);
  const char *name = cuarr_ufunc_name(u);
  bool metamethod = lua_toboolean(L, UP_METAMETHOD);
  int nin = cuarr_ufunc_nin(u);
  enum { NO_DEVICE = -2 };
  cuarr_operand in[4];
  int device = NO_DEVICE;
  for (int k = 0; k < nin; k++) {
    int d = read_operand(L, S, k + 1, &in[k], NO_DEVICE, name);
    if (d == NO_DEVICE)
      continue;
    if (device != NO_DEVICE && d != device) {
      char a[32], b[32];
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: operands are on %s and %s", name,
                      device_name(a, sizeof a, device), device_name(b, sizeof b, d));
    }
    device = d;
  }
  /* The output: argument nin+1 when given (never for a metamethod: Lua passes the operand of
   * a unary operator twice). */
  int out_idx = 0;
  if (!metamethod && !lua_isnoneornil(L, nin + 1)) {
    out_idx = nin + 1;
    if (lua_istable(L, out_idx)) { /* {out = a} */
      static const char *const keys[] = {"out", NULL};
      cuarr_lua_check_options(L, out_idx, name, keys);
      cuarr_lua_get_option(L, out_idx, "out");
      lua_replace(L, out_idx);
      if (lua_isnil(L, out_idx))
        out_idx = 0;
    }
  }
  cuarr_array *out;
  if (out_idx) {
    out = cuarr_lua_to_array_in(L, S, out_idx);
    out = out ? cuarr_lua_check_live(L, out)
              : cuarr_lua_check_array(L, out_idx); /* the latter raises */
    int d = cuarr_array_device(out);
    if (device == NO_DEVICE)
      device = d;
    if (d != device) {
      char a[32], b[32];
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: out is on %s but the operands on %s", name,
                      device_name(a, sizeof a, d), device_name(b, sizeof b, device));
    }
  }
  if (device == NO_DEVICE) /* only Lua numbers: a 0-d array where this namespace puts arrays */
    device = lua_toboolean(L, UP_HOST) ? CUARR_HOST : cuarr_lua_current_device(L, S);
  if (device != CUARR_HOST && device != S->device)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "%s: the arrays are on device %d but the current device is %d (use "
                    "cuarr.asarray to copy them across)",
                    name, device, S->device);
  if (out_idx) {
    lua_pushvalue(L, out_idx);
  } else {
    out = cuarr_lua_push_array(L, 0);
  }
  CUARR_LUA_TRY(
      L, cuarr_ufunc_call(cuarr_lua_context(S, device), u, device, in, S->default_float, out));
  if (!out_idx && device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

static void push_ufunc(lua_State *L, int state_idx, const cuarr_ufunc *u, bool host,
                       bool metamethod) {
  lua_pushvalue(L, state_idx);
  lua_pushlightuserdata(L, (void *)u);
  lua_pushboolean(L, host);
  lua_pushboolean(L, metamethod);
  lua_pushcclosure(L, ufunc_call, 4);
}

/* Other names NumPy (2) gives the same ufuncs: the registry's aliases (registry.c). */
static const char *const aliases[][2] = {
    {"true_divide", "divide"},
    {"abs", "absolute"},
    {"pow", "power"},
    {"mod", "remainder"},
    {"bitwise_not", "invert"},
    {"bitwise_invert", "invert"},
    {"bitwise_left_shift", "left_shift"},
    {"bitwise_right_shift", "right_shift"},
    {"asin", "arcsin"},
    {"acos", "arccos"},
    {"atan", "arctan"},
    {"atan2", "arctan2"},
    {"asinh", "arcsinh"},
    {"acosh", "arccosh"},
    {"atanh", "arctanh"},
};

/* Set every ufunc (and alias) in the table at the top of the stack. */
static void set_ufuncs(lua_State *L, int state_idx, bool host) {
  for (int i = 0; i < cuarr_ufunc_count(); i++) {
    const cuarr_ufunc *u = cuarr_ufunc_at(i);
    push_ufunc(L, state_idx, u, host, false);
    lua_setfield(L, -2, cuarr_ufunc_name(u));
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    const cuarr_ufunc *u = cuarr_ufunc_find(aliases[i][1]);
    if (!u || lua_getfield(L, -1, aliases[i][0]) != LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    lua_pop(L, 1);
    push_ufunc(L, state_idx, u, host, false);
    lua_setfield(L, -2, aliases[i][0]);
  }
}

/* The comparison methods: a:lt(b) is cuarr.less(a, b). */
static const char *const comparisons[][2] = {
    {"lt", "less"},          {"le", "less_equal"}, {"gt", "greater"},
    {"ge", "greater_equal"}, {"eq", "equal"},      {"ne", "not_equal"},
};

static const char *const operators[][2] = {
    {"__add", "add"},         {"__sub", "subtract"},      {"__mul", "multiply"},
    {"__div", "true_divide"}, {"__idiv", "floor_divide"}, {"__mod", "remainder"},
    {"__pow", "power"},       {"__unm", "negative"},      {"__band", "bitwise_and"},
    {"__bor", "bitwise_or"},  {"__bxor", "bitwise_xor"},  {"__shl", "left_shift"},
    {"__shr", "right_shift"}, {"__bnot", "invert"},
};

/* The array metatable at mt_idx gets the operators; its methods table every ufunc. */
static void set_array_ufuncs(lua_State *L, int state_idx, int mt_idx) {
  lua_getfield(L, mt_idx, "methods");
  set_ufuncs(L, state_idx, false);
  for (size_t i = 0; i < sizeof comparisons / sizeof comparisons[0]; i++) {
    const cuarr_ufunc *u = cuarr_ufunc_find(comparisons[i][1]);
    if (!u)
      continue;
    push_ufunc(L, state_idx, u, false, false);
    lua_setfield(L, -2, comparisons[i][0]);
  }
  lua_pop(L, 1);
  for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
    const cuarr_ufunc *u = cuarr_ufunc_find(operators[i][1]);
    if (!u)
      continue;
    push_ufunc(L, state_idx, u, false, true);
    lua_setfield(L, mt_idx, operators[i][0]);
  }
}

/* The array's operators and ufunc methods, then every ufunc in the module and in cuarr.cpu. */
void cuarr_lua_open_ufuncs(lua_State *L, const cuarr_lua_module *m) {
  luaL_getmetatable(L, CUARR_LUA_ARRAY_MT);
  set_array_ufuncs(L, m->state, lua_gettop(L));
  lua_pop(L, 1);
  lua_pushvalue(L, m->functions);
  set_ufuncs(L, m->state, false);
  lua_pushvalue(L, m->cpu);
  set_ufuncs(L, m->state, true);
  lua_pop(L, 2);
}
