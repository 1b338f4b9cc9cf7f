/*
 * creation.c -- empty, zeros, ones, full and their *_like, arange, linspace, eye, identity,
 * array, asarray, device_array(_like), pinned_array, set_default_dtype.
 *
 * Each function is registered twice: in the module (device arrays, on the current device) and
 * in cuarr.cpu (host arrays); upvalue 2 says which.  Host creations take {pinned = true}.
 * empty, zeros, ones, full, their *_like and array/asarray take {order = ...} (NumPy's).
 */
#include <math.h>

#include "binding.h"
#include "order.h"

#define ON_HOST(L) lua_toboolean((L), lua_upvalueindex(2))

/* Where new arrays of this function go: the current device, or the host. */
static int placement(lua_State *L, cuarr_lua_state *S) {
  return ON_HOST(L) ? CUARR_HOST : cuarr_lua_current_device(L, S);
}

/* The options each kind of creation takes ("order" is NumPy's layout: C or F). */
static const char *const SHAPED_KEYS[] = {"dtype", "pinned", "order", NULL};
static const char *const RANGE_KEYS[] = {"dtype", "pinned", NULL};
static const char *const LINSPACE_KEYS[] = {"dtype", "pinned", "endpoint", NULL};

/* The first argument from idx on that is not an explicit nil followed by more arguments: a
 * positional nil means "the default" (eye(3, nil, nil, "float64"), zeros(n, nil, opts)). */
static int skip_nils(lua_State *L, int idx) {
  while (lua_isnil(L, idx) && lua_gettop(L) > idx)
    idx++;
  return idx;
}

/* The optional trailing arguments from idx on: a dtype string and/or an options table
 * ({dtype=, pinned=, ...}) whose keys are among `keys`.  Returns the options table's index (0
 * when none). */
static int tail_args(lua_State *L, int idx, int *dtype, const char *fn, const char *const *keys) {
  int opts = 0;
  idx = skip_nils(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING) {
    *dtype = (int)cuarr_lua_check_dtype(L, idx);
    idx = skip_nils(L, idx + 1);
  }
  if (lua_type(L, idx) == LUA_TTABLE) {
    opts = idx;
    cuarr_lua_check_options(L, opts, fn, keys);
    if (cuarr_lua_get_option(L, opts, "dtype") != LUA_TNIL)
      *dtype = (int)cuarr_lua_check_dtype(L, -1);
    lua_pop(L, 1);
  } else if (!lua_isnoneornil(L, idx)) {
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "%s: argument #%d must be a dtype or an options table, got %s", fn, idx,
                    luaL_typename(L, idx));
  }
  return opts;
}

static bool pinned_option(lua_State *L, int opts) {
  bool pinned = opts ? cuarr_lua_opt_bool_field(L, opts, "pinned", false) : false;
  if (pinned && !ON_HOST(L))
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "pinned applies to host arrays (cuarr.cpu.*)");
  return pinned;
}

/* zeros(2, 3) for zeros({2, 3}): NumPy's shape is one argument, a number or a table; say so
 * with the call that was meant (the leading numbers as one table). */
static void check_not_spread_shape(lua_State *L, const char *fn) {
  if (lua_type(L, 1) != LUA_TNUMBER || lua_type(L, 2) != LUA_TNUMBER)
    return;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= lua_gettop(L) && lua_type(L, i) == LUA_TNUMBER; i++) {
    if (i > 1)
      luaL_addstring(&b, ", ");
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  cuarr_lua_error(L, CUARR_TYPE_ERROR,
                  "%s: argument #2 must be a dtype or an options table, got number (the shape is "
                  "one argument: %s({%s}))",
                  fn, fn, lua_tostring(L, -1));
}

/* The new array for a creation: shape from argument 1, dtype/options from tail_idx on. */
static cuarr_array *create(lua_State *L, int tail_idx, int dtype_default, const char *fn) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int64_t shape[CUARR_MAXDIM];
  if (tail_idx == 2)
    check_not_spread_shape(L, fn);
  int ndim = cuarr_lua_check_shape(L, 1, shape);
  int dtype = dtype_default;
  int opts = tail_args(L, tail_idx, &dtype, fn, SHAPED_KEYS);
  bool pinned = pinned_option(L, opts);
  char order = cuarr_lua_order_option(L, opts, "CF", 'C', fn);
  cuarr_array *r =
      cuarr_lua_new_array(L, S, placement(L, S), (cuarr_dtype)dtype, ndim, shape, pinned);
  cuarr_lua_lay_out(r, order, NULL);
  return r;
}

static void fill(lua_State *L, cuarr_array *a, cuarr_scalar v) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  CUARR_LUA_TRY(L, cuarr_fill(cuarr_lua_context(S, cuarr_array_device(a)), a, v));
}

static cuarr_scalar scalar_int(int64_t i) {
  cuarr_scalar s = {.dtype = CUARR_INT64, .v.i = i};
  return s;
}

static int l_empty(lua_State *L) {
  create(L, 2, (int)CUARR_LUA_STATE(L)->default_float, "empty");
  return 1;
}

static int l_zeros(lua_State *L) {
  fill(L, create(L, 2, (int)CUARR_LUA_STATE(L)->default_float, "zeros"), scalar_int(0));
  return 1;
}

static int l_ones(lua_State *L) {
  fill(L, create(L, 2, (int)CUARR_LUA_STATE(L)->default_float, "ones"), scalar_int(1));
  return 1;
}

/* The dtype a Lua value makes: integers int64, floats the default float, booleans bool. */
static cuarr_dtype dtype_of_value(cuarr_lua_state *S, cuarr_scalar v) {
  return v.dtype == CUARR_FLOAT64 ? S->default_float : v.dtype;
}

static int l_full(lua_State *L) {
  cuarr_scalar v;
  if (!cuarr_lua_to_scalar(L, 2, &v))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "full: the fill value must be a number or boolean, got %s",
                           luaL_typename(L, 2));
  cuarr_array *r = create(L, 3, (int)dtype_of_value(CUARR_LUA_STATE(L), v), "full");
  cuarr_lua_to_element(L, 2, r->dtype, &v);
  fill(L, r, v);
  return 1;
}

/* *_like(a[, dtype][, opts]): a's shape (and dtype unless given); order 'K' keeps a's layout. */
static cuarr_array *create_like(lua_State *L, int tail_idx, const char *fn) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  int dtype = (int)a->dtype;
  int opts = tail_args(L, tail_idx, &dtype, fn, SHAPED_KEYS);
  bool pinned = pinned_option(L, opts);
  char order = cuarr_lua_order_option(L, opts, "CFAK", 'K', fn);
  cuarr_array *r =
      cuarr_lua_new_array(L, S, placement(L, S), (cuarr_dtype)dtype, a->ndim, a->shape, pinned);
  cuarr_lua_lay_out(r, order, a);
  return r;
}

static int l_empty_like(lua_State *L) {
  create_like(L, 2, "empty_like");
  return 1;
}

static int l_zeros_like(lua_State *L) {
  fill(L, create_like(L, 2, "zeros_like"), scalar_int(0));
  return 1;
}

static int l_ones_like(lua_State *L) {
  fill(L, create_like(L, 2, "ones_like"), scalar_int(1));
  return 1;
}

static int l_full_like(lua_State *L) {
  cuarr_scalar v;
  if (!cuarr_lua_to_scalar(L, 2, &v))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "full_like: the fill value must be a number or boolean, got %s",
                           luaL_typename(L, 2));
  cuarr_array *r = create_like(L, 3, "full_like");
  cuarr_lua_to_element(L, 2, r->dtype, &v);
  fill(L, r, v);
  return 1;
}

/* Whether x truncates to an int64 (NaN does not). */
static bool fits_int64(double x) { return x >= -0x1p63 && x < 0x1p63; }

/* The elements an integer arange's dtype must hold, as NumPy 2 checks them: its first two
 * (start and start + step, which are between start and stop, so computed without overflow);
 * later ones wrap as NumPy's do. */
static void check_first_two(lua_State *L, cuarr_scalar start, cuarr_scalar step, int64_t n,
                            cuarr_dtype dtype) {
  if (n >= 1)
    CUARR_LUA_TRY(L, cuarr_scalar_check_element(start, dtype));
  if (n >= 2)
    CUARR_LUA_TRY(L, cuarr_scalar_check_element(scalar_int(start.v.i + step.v.i), dtype));
}

/* arange([start, ]stop[, step][, dtype]) -- values as NumPy's: start, start+step, ... < stop. */
static int l_arange(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int nnum = 0;
  bool all_int = true;
  while (nnum < 3 && lua_type(L, nnum + 1) == LUA_TNUMBER) {
    all_int = all_int && lua_isinteger(L, nnum + 1);
    nnum++;
  }
  if (nnum == 0)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "arange needs numbers: arange([start,] stop[, step][, dtype])");
  int dtype = all_int ? CUARR_INT64 : (int)S->default_float;
  int opts = tail_args(L, nnum + 1, &dtype, "arange", RANGE_KEYS);
  bool pinned = pinned_option(L, opts);
  int64_t n;
  cuarr_scalar start, step, none = {0};
  if (all_int) {
    lua_Integer a = nnum >= 2 ? lua_tointeger(L, 1) : 0;
    lua_Integer b = nnum >= 2 ? lua_tointeger(L, 2) : lua_tointeger(L, 1);
    lua_Integer st = nnum == 3 ? lua_tointeger(L, 3) : 1;
    if (st == 0)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "arange: step cannot be zero");
    /* ceil((b - a) / st) without overflow: |b - a| and |st| as unsigned 64-bit numbers (b - a
     * itself overflows for arange(math.mininteger, math.maxinteger)). */
    if ((st > 0 && b <= a) || (st < 0 && b >= a)) {
      n = 0;
    } else {
      uint64_t span = st > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
      uint64_t ust = st > 0 ? (uint64_t)st : 0 - (uint64_t)st;
      uint64_t count = span / ust + (span % ust != 0);
      if (count > (uint64_t)INT64_MAX)
        return cuarr_lua_error(L, CUARR_VALUE_ERROR, "arange: too many elements (%llu)",
                               (unsigned long long)count);
      n = (int64_t)count;
    }
    start = scalar_int(a);
    step = scalar_int(st);
    check_first_two(L, start, step, n, (cuarr_dtype)dtype);
  } else {
    double a = nnum >= 2 ? lua_tonumber(L, 1) : 0;
    double b = nnum >= 2 ? lua_tonumber(L, 2) : lua_tonumber(L, 1);
    double st = nnum == 3 ? lua_tonumber(L, 3) : 1;
    if (st == 0)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "arange: step cannot be zero");
    double len = ceil((b - a) / st);
    if (!isfinite(len))
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "arange: the length is not finite");
    if (len > 9.0e18)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "arange: too many elements");
    n = len > 0 ? (int64_t)len : 0;
    start.dtype = step.dtype = CUARR_FLOAT64;
    start.v.f = a;
    step.v.f = st;
    if ((cuarr_dtype_is_integer((cuarr_dtype)dtype) || dtype == CUARR_BOOL) && n > 0) {
      /* Integer dtypes count in integers: start and step are truncated, and must fit (a cast
       * of a float beyond int64 is undefined in C). */
      if (!fits_int64(a) || !fits_int64(st))
        return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                               "arange: %s %g does not fit in an integer (dtype %s)",
                               fits_int64(a) ? "step" : "start", fits_int64(a) ? st : a,
                               cuarr_dtype_name((cuarr_dtype)dtype));
      start = scalar_int((int64_t)a);
      step = scalar_int((int64_t)st);
    }
  }
  cuarr_array *r = cuarr_lua_new_array(L, S, placement(L, S), (cuarr_dtype)dtype, 1, &n, pinned);
  if (n > 0)
    CUARR_LUA_TRY(L, cuarr_fill_linear(cuarr_lua_context(S, cuarr_array_device(r)), r, start, step,
                                       false, none));
  return 1;
}

/* linspace(start, stop[, num=50][, dtype][, {endpoint=true, dtype=}]) */
static int l_linspace(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  double a = cuarr_lua_check_number(L, 1, "start"), b = cuarr_lua_check_number(L, 2, "stop");
  int tail = 3;
  lua_Integer num = 50;
  if (lua_type(L, 3) == LUA_TNUMBER) {
    num = cuarr_lua_check_integer(L, 3, "num");
    tail = 4;
  }
  if (num < 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "linspace: num must be non-negative, got %lld",
                           (long long)num);
  int dtype = (int)S->default_float;
  int opts = tail_args(L, tail, &dtype, "linspace", LINSPACE_KEYS);
  bool endpoint = opts ? cuarr_lua_opt_bool_field(L, opts, "endpoint", true) : true;
  bool pinned = pinned_option(L, opts);
  int64_t n = num;
  cuarr_array *r = cuarr_lua_new_array(L, S, placement(L, S), (cuarr_dtype)dtype, 1, &n, pinned);
  if (n == 0)
    return 1;
  lua_Integer div = endpoint ? num - 1 : num;
  cuarr_scalar start = {.dtype = CUARR_FLOAT64, .v.f = a};
  cuarr_scalar step = {.dtype = CUARR_FLOAT64, .v.f = div > 0 ? (b - a) / (double)div : 0};
  cuarr_scalar stop = {.dtype = CUARR_FLOAT64, .v.f = b};
  if (cuarr_dtype_is_float((cuarr_dtype)dtype)) {
    CUARR_LUA_TRY(L, cuarr_fill_linear(cuarr_lua_context(S, cuarr_array_device(r)), r, start, step,
                                       endpoint && num > 1, stop));
    return 1;
  }
  /* Integer and bool dtypes: a linear fill of those counts in integers (a fractional step
   * would be truncated first), so the values are computed in float64 and then converted with
   * the casting rules, as NumPy's linspace(..., dtype=int) does; for integer dtypes floored
   * first, as NumPy 2's (linspace(4, -3, 5, "int32") is 4 2 0 -2 -3, -1.25 going to -2). */
  cuarr_context *ctx = cuarr_lua_context(S, cuarr_array_device(r));
  cuarr_array *tmp = cuarr_lua_new_array(L, S, cuarr_array_device(r), CUARR_FLOAT64, 1, &n, false);
  CUARR_LUA_TRY(L, cuarr_fill_linear(ctx, tmp, start, step, endpoint && num > 1, stop));
  if (cuarr_dtype_is_integer((cuarr_dtype)dtype)) {
    cuarr_operand in = {.array = tmp};
    CUARR_LUA_TRY(L, cuarr_ufunc_call(ctx, cuarr_ufunc_find("floor"), cuarr_array_device(r), &in,
                                      CUARR_FLOAT64, tmp));
  }
  CUARR_LUA_TRY(L, cuarr_copy(ctx, r, tmp));
  lua_pop(L, 1); /* tmp; r is on top again */
  return 1;
}

/* eye(n[, m][, k][, dtype]) -- ones on the k-th diagonal (k > 0 above the main one). */
static int eye_from(lua_State *L, lua_Integer n, lua_Integer m, lua_Integer k, int tail,
                    const char *fn) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  if (n < 0 || m < 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "eye: negative dimensions are not allowed");
  int dtype = (int)S->default_float;
  int opts = tail_args(L, tail, &dtype, fn, RANGE_KEYS);
  bool pinned = pinned_option(L, opts);
  int64_t shape[2] = {n, m};
  cuarr_array *r = cuarr_lua_new_array(L, S, placement(L, S), (cuarr_dtype)dtype, 2, shape, pinned);
  cuarr_context *ctx = cuarr_lua_context(S, cuarr_array_device(r));
  CUARR_LUA_TRY(L, cuarr_fill(ctx, r, scalar_int(0)));
  /* A diagonal outside the matrix has no elements; ruled out before negating k, which may be
   * math.mininteger.  Then row0 < n and col0 < m, and the lengths below cannot overflow. */
  if (k <= -n || k >= m)
    return 1;
  int64_t row0 = k < 0 ? -k : 0, col0 = k > 0 ? k : 0;
  int64_t len = n - row0 < m - col0 ? n - row0 : m - col0;
  if (len <= 0)
    return 1;
  /* The diagonal as a strided 1-D view of r. */
  cuarr_array diag = *r;
  diag.ndim = 1;
  diag.offset += row0 * r->strides[0] + col0 * r->strides[1];
  diag.shape[0] = len;
  diag.strides[0] = r->strides[0] + r->strides[1];
  CUARR_LUA_TRY(L, cuarr_fill(ctx, &diag, scalar_int(1)));
  return 1;
}

static int l_eye(lua_State *L) {
  lua_Integer n = cuarr_lua_check_integer(L, 1, "N");
  int tail = 2;
  lua_Integer m = n, k = 0;
  if (lua_type(L, 2) == LUA_TNUMBER || (lua_isnil(L, 2) && lua_gettop(L) > 2)) {
    m = cuarr_lua_opt_integer(L, 2, "M", n);
    tail = 3;
    if (lua_type(L, 3) == LUA_TNUMBER) {
      k = cuarr_lua_check_integer(L, 3, "k");
      tail = 4;
    }
  }
  return eye_from(L, n, m, k, tail, "eye");
}

static int l_identity(lua_State *L) {
  lua_Integer n = cuarr_lua_check_integer(L, 1, "n");
  return eye_from(L, n, n, 0, 2, "identity");
}

/* array(obj[, dtype][, opts]) copies always; asarray returns obj itself when it is already an
 * array of the right placement, dtype and order.  Order 'K' (the default) keeps an array's
 * layout; a table's elements are in C order. */
static int make_array(lua_State *L, bool always_copy, const char *fn) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  int dtype = -1;
  int opts = tail_args(L, 2, &dtype, fn, SHAPED_KEYS);
  bool pinned = pinned_option(L, opts);
  char order = cuarr_lua_order_option(L, opts, "CFAK", 'K', fn);
  int where = placement(L, S);
  if (lua_type(L, 1) == LUA_TTABLE || lua_type(L, 1) == LUA_TNUMBER ||
      lua_type(L, 1) == LUA_TBOOLEAN) {
    const cuarr_array *h = cuarr_lua_host_array_from_lua(L, S, 1, dtype);
    if (where == CUARR_HOST && !pinned && cuarr_lua_has_order(h, order))
      return 1;
    cuarr_array *r = cuarr_lua_new_array(L, S, where, h->dtype, h->ndim, h->shape, pinned);
    cuarr_lua_lay_out(r, order, h);
    cuarr_lua_copy_into(L, S, r, cuarr_lua_check_array(L, -2), NULL);
    return 1;
  }
  const cuarr_array *a = cuarr_lua_check_array(L, 1);
  cuarr_dtype d = dtype >= 0 ? (cuarr_dtype)dtype : a->dtype;
  if (!always_copy && cuarr_array_device(a) == where && d == a->dtype &&
      (!pinned || a->buf->pinned) && cuarr_lua_has_order(a, order)) {
    lua_settop(L, 1);
    return 1;
  }
  cuarr_array *r = cuarr_lua_new_array(L, S, where, d, a->ndim, a->shape, pinned);
  cuarr_lua_lay_out(r, order, a);
  cuarr_lua_copy_into(L, S, r, cuarr_lua_check_array(L, 1), NULL);
  return 1;
}

static int l_array(lua_State *L) { return make_array(L, true, "array"); }
static int l_asarray(lua_State *L) { return make_array(L, false, "asarray"); }

static int l_set_default_dtype(lua_State *L) {
  cuarr_dtype d = cuarr_lua_check_dtype(L, 1);
  if (!cuarr_dtype_is_float(d))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "the default dtype must be a float dtype, not %s",
                           cuarr_dtype_name(d));
  CUARR_LUA_STATE(L)->default_float = d;
  return 0;
}

static int l_get_default_dtype(lua_State *L) {
  lua_pushstring(L, cuarr_dtype_name(CUARR_LUA_STATE(L)->default_float));
  return 1;
}

static const luaL_Reg creations[] = {
    {"empty", l_empty},
    {"zeros", l_zeros},
    {"ones", l_ones},
    {"full", l_full},
    {"empty_like", l_empty_like},
    {"zeros_like", l_zeros_like},
    {"ones_like", l_ones_like},
    {"full_like", l_full_like},
    {"arange", l_arange},
    {"linspace", l_linspace},
    {"eye", l_eye},
    {"identity", l_identity},
    {"array", l_array},
    {"asarray", l_asarray},
    {"set_default_dtype", l_set_default_dtype},
    {"get_default_dtype", l_get_default_dtype},
    {NULL, NULL},
};

/* The creations into `into`, with upvalue 2 saying whether they make host arrays. */
static void set_creations(lua_State *L, const cuarr_lua_module *m, int into, bool host) {
  for (const luaL_Reg *r = creations; r->name; r++) {
    lua_pushvalue(L, m->state);
    lua_pushboolean(L, host);
    lua_pushcclosure(L, r->func, 2);
    lua_setfield(L, into, r->name);
  }
}

void cuarr_lua_open_creations(lua_State *L, const cuarr_lua_module *m) {
  set_creations(L, m, m->functions, false);
  set_creations(L, m, m->cpu, true);
}
