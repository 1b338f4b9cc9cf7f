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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"
#include "kernel_sources.h"

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

/* clip(a, nil, hi) and clip(a, lo, nil): NumPy's None bound, no limit on that side.  A nil lower
 * bound becomes a itself, which changes neither the result (max(a, a) is a, NaN included) nor
 * the promotion (a is an operand already).  A nil upper bound (a stands in while the operands
 * are read) becomes the top of what a and lo promote to, as a Lua number (weak, so the
 * promotion stays): +inf for floats, true for bool, 2^64 - 1 for integers (beyond the range,
 * it clamps: no bound).  Both nil: a copy, as NumPy 2 gives.  A bound left out (clip(a, 2))
 * stays the TypeError of a missing argument, as NumPy's.  Returns whether the upper was nil. */
static bool nil_bounds(lua_State *L) {
  bool upper = lua_isnil(L, 3);
  for (int k = 2; k <= 3; k++) {
    if (lua_isnil(L, k)) {
      lua_pushvalue(L, 1);
      lua_replace(L, k);
    }
  }
  return upper;
}

static void no_upper_bound(lua_State *L, const cuarr_lua_state *S, cuarr_operand *in) {
  cuarr_dtype d[2];
  bool weak[2];
  for (int k = 0; k < 2; k++) {
    d[k] = in[k].array ? in[k].array->dtype : in[k].scalar.dtype;
    weak[k] = !in[k].array;
  }
  cuarr_dtype top;
  CUARR_LUA_TRY(L, cuarr_result_type(2, d, weak, S->default_float, &top));
  in[2].array = NULL;
  in[2].weak = true;
  if (cuarr_dtype_is_float(top))
    in[2].scalar = (cuarr_scalar){.dtype = CUARR_FLOAT64, .v.f = HUGE_VAL};
  else if (top == CUARR_BOOL)
    in[2].scalar = (cuarr_scalar){.dtype = CUARR_BOOL, .v.b = true};
  else
    in[2].scalar = (cuarr_scalar){.dtype = CUARR_UINT64, .v.u = UINT64_MAX};
}

static int ufunc_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_ufunc *u = lua_touserdata(L, UP_UFUNC);
  const char *name = cuarr_ufunc_name(u);
  bool metamethod = lua_toboolean(L, UP_METAMETHOD);
  int nin = cuarr_ufunc_nin(u);
  const bool no_upper =
      nin == 3 && !metamethod && lua_gettop(L) >= 3 && !strcmp(name, "clip") && nil_bounds(L);
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
  if (no_upper)
    no_upper_bound(L, S, in);
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

/* where(cond) with one argument is nonzero(cond), as NumPy's (mask.c); with two, an error; with
 * three (or an out), the ufunc: one comparison before ufunc_call, under the same upvalues. */
static int where_call(lua_State *L) {
  const int n = lua_gettop(L);
  if (n == 1)
    return cuarr_lua_nonzero(L, "where");
  if (n == 2)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "where: either both or neither of x and y should be given");
  return ufunc_call(L);
}

static void push_ufunc(lua_State *L, int state_idx, const cuarr_ufunc *u, bool host,
                       bool metamethod) {
  lua_pushvalue(L, state_idx);
  lua_pushlightuserdata(L, (void *)u);
  lua_pushboolean(L, host);
  lua_pushboolean(L, metamethod);
  const bool where = !metamethod && !strcmp(cuarr_ufunc_name(u), "where");
  lua_pushcclosure(L, where ? where_call : ufunc_call, 4);
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

/* ---- for cuarr.fuse (lua/cuarr/jit/fuse*.lua), which computes ufuncs inside a kernel of its
 * own and must type each operation as a real call would: internal functions on `core`. */

/* The ufunc behind a Lua value: a ufunc's closure (cuarr.sin, cuarr.cpu.add, a:add), else NULL. */
static const cuarr_ufunc *ufunc_of(lua_State *L, int idx) {
  lua_CFunction f = lua_tocfunction(L, idx);
  if ((f != ufunc_call && f != where_call) || !lua_getupvalue(L, idx, 2))
    return NULL;
  const cuarr_ufunc *u = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return u;
}

/* core.ufunc_info(v) -> name, nin when v is a ufunc; nothing otherwise. */
static int l_ufunc_info(lua_State *L) {
  const cuarr_ufunc *u = ufunc_of(L, 1);
  if (!u)
    return 0;
  lua_pushstring(L, cuarr_ufunc_name(u));
  lua_pushinteger(L, cuarr_ufunc_nin(u));
  return 2;
}

static void push_scalar(lua_State *L, cuarr_scalar s) {
  if (s.dtype == CUARR_BOOL)
    lua_pushboolean(L, s.v.b);
  else if (cuarr_dtype_is_float(s.dtype))
    lua_pushnumber(L, s.v.f);
  else /* an unsigned value above the int64 range keeps its bits */
    lua_pushinteger(L, (lua_Integer)s.v.i);
}

/* core.ufunc_resolve(ufunc, operands) -> {ins = {dtype...}, out = dtype, fn = "cuarr_uf_add_int32",
 * scalars = {[i] = the weak scalar i converted to its loop dtype}}.  operands[i] is a dtype name
 * (an array of that dtype) or a Lua number or boolean (weak).  The errors of a real call. */
static int l_ufunc_resolve(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_ufunc *u = ufunc_of(L, 1);
  if (!u)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "ufunc_resolve: argument #1 must be a ufunc");
  luaL_checktype(L, 2, LUA_TTABLE);
  int nin = cuarr_ufunc_nin(u);
  cuarr_operand in[3];
  for (int i = 0; i < nin; i++) {
    lua_geti(L, 2, i + 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      in[i].array = NULL; /* a strong operand: only its dtype matters */
      in[i].weak = false;
      in[i].scalar = (cuarr_scalar){.dtype = cuarr_lua_check_dtype(L, -1)};
    } else {
      in[i].array = NULL;
      in[i].weak = true;
      if (!cuarr_lua_to_scalar(L, -1, &in[i].scalar))
        return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                               "ufunc_resolve: operand %d must be a dtype "
                               "name or a number",
                               i + 1);
    }
    lua_pop(L, 1);
  }
  cuarr_ufunc_loop loop;
  CUARR_LUA_TRY(L, cuarr_ufunc_resolve_loop(u, in, S->default_float, &loop));
  lua_createtable(L, 0, 4);
  lua_createtable(L, nin, 0);
  for (int i = 0; i < nin; i++) {
    lua_pushstring(L, cuarr_dtype_name(loop.in[i]));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "ins");
  lua_pushstring(L, cuarr_dtype_name(loop.out));
  lua_setfield(L, -2, "out");
  lua_pushstring(L, loop.function);
  lua_setfield(L, -2, "fn");
  lua_createtable(L, nin, 0);
  for (int i = 0; i < nin; i++) {
    if (!in[i].weak)
      continue;
    push_scalar(L, loop.scalar[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "scalars");
  return 1;
}

/* core.fuse_key(...) -> the arguments' typing and where their arrays are, as one integer: four
 * bits per argument (an array's dtype + 1, 13 a Lua integer, 14 a Lua float), two bits for
 * the default float dtype, then two bits (1: an array on the host, 2: one on a device).  nil and
 * the argument's index for anything else; nil and -1 for more than 15 arguments.  A fused
 * function's every call computes it, so it is a loop of type tests, nothing more. */
static int l_fuse_key(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int n = lua_gettop(L);
  if (n > 15) { /* the key would not fit */
    lua_pushnil(L);
    lua_pushinteger(L, -1);
    return 2;
  }
  lua_Integer key = 0;
  int places = 0;
  for (int i = 1; i <= n; i++) {
    int code;
    cuarr_array *a = lua_type(L, i) == LUA_TUSERDATA ? cuarr_lua_to_array_in(L, S, i) : NULL;
    if (a) {
      code = (int)a->dtype + 1;
      places |= cuarr_array_device(a) == CUARR_HOST ? 1 : 2;
    } else if (lua_type(L, i) == LUA_TNUMBER) {
      code = lua_isinteger(L, i) ? 13 : 14;
    } else {
      lua_pushnil(L);
      lua_pushinteger(L, i);
      return 2;
    }
    key = (lua_Integer)((lua_Unsigned)key << 4 | (lua_Unsigned)code);
  }
  /* The default float dtype types weak floats: a kernel typed under another is another. */
  lua_Unsigned float_code = S->default_float == CUARR_FLOAT64   ? 0
                            : S->default_float == CUARR_FLOAT32 ? 1
                                                                : 2;
  key = (lua_Integer)(((lua_Unsigned)key << 2 | float_code) << 2 | (lua_Unsigned)places);
  lua_pushinteger(L, key);
  return 1;
}

/* result_type(...): NumPy's result_type of arrays (their dtypes), dtype names and Lua numbers
 * (weak), all at once (cuarr_result_type).  It depends only on which (dtype, weak) pairs occur,
 * so at most 2 * CUARR_NDTYPES distinct ones go to the core however many arguments there are. */
static int l_result_type(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const int n = lua_gettop(L);
  if (n == 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "result_type: at least one array or dtype is required");
  bool seen[2][CUARR_NDTYPES] = {{false}};
  cuarr_dtype dtypes[2 * CUARR_NDTYPES];
  bool weak[2 * CUARR_NDTYPES];
  int count = 0;
  for (int i = 1; i <= n; i++) {
    cuarr_array *a = cuarr_lua_to_array_in(L, S, i);
    cuarr_scalar scalar;
    cuarr_dtype d;
    bool w = false;
    if (a) {
      d = cuarr_lua_check_live(L, a)->dtype;
    } else if (lua_type(L, i) == LUA_TSTRING) {
      d = cuarr_lua_check_dtype(L, i);
    } else if (cuarr_lua_to_scalar(L, i, &scalar)) {
      d = scalar.dtype;
      w = true;
    } else {
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "result_type: argument #%d must be an array, a dtype or a number, "
                             "got %s",
                             i, luaL_typename(L, i));
    }
    if (!seen[w][d]) {
      dtypes[count] = d;
      weak[count++] = w;
    }
    seen[w][d] = true;
  }
  cuarr_dtype result;
  CUARR_LUA_TRY(L, cuarr_result_type(count, dtypes, weak, S->default_float, &result));
  lua_pushstring(L, cuarr_dtype_name(result));
  return 1;
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
  static const luaL_Reg internal[] = {{"ufunc_info", l_ufunc_info},
                                      {"ufunc_resolve", l_ufunc_resolve},
                                      {"fuse_key", l_fuse_key},
                                      {NULL, NULL}};
  cuarr_lua_set_functions(L, m, m->functions, internal);
  static const luaL_Reg public[] = {{"result_type", l_result_type}, {NULL, NULL}};
  cuarr_lua_set_functions(L, m, m->functions, public);
  cuarr_lua_set_functions(L, m, m->cpu, public);
  /* The scalar functions' source, the preamble of a fused kernel as of the ufuncs' own, and
   * the NaN-aware max/min a fused max/min reduction folds with. */
  lua_pushstring(L, cuarr_kernel_source_ufunc_math_cuh);
  lua_setfield(L, m->functions, "ufunc_math_source");
  lua_pushstring(L, cuarr_kernel_source_reduction_ops_cuh);
  lua_setfield(L, m->functions, "reduction_ops_source");
}
