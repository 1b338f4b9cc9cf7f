/*
 * raw_kernel.c -- cuarr.RawModule{code= | path=, options=, name_expressions=} and
 * cuarr.RawKernel(code, name[, {options=}]): CUDA C written by the user, launched as written.
 *
 *   local mod = cuarr.RawModule{code = src, name_expressions = {"scale<float>"}}
 *   local k = mod:get_function("scale<float>")        -- compiled here, for the current device
 *   k(grid, block, {x, 2.5, n}[, {shared_mem =, stream =}])   -- CuPy's call
 *   k[{grid, block[, stream[, shared_mem]]}](x, 2.5, n)       -- Numba's
 *   mod:get_global("lut", "float32")                  -- a device array view of a variable
 *   k:compile()  mod:compile()                        -- compiled now, for the current device
 *
 * The core (src/core/user/raw_*.c) checks the configuration and every argument against the
 * kernel's parameter list before anything is queued; the binding reads Lua values into the
 * core's argument records on the C stack, so a launch allocates nothing.
 */
#include <string.h>

#include "binding.h"
#include "user_kernel.h"

/* The most arguments a launch takes from Lua (the driver's parameter space holds fewer
 * useful ones). */
#define MAX_ARGS 512
/* The most name expressions a RawModule takes. */
#define MAX_NAMES 256

typedef struct lua_raw_module {
  cuarr_raw_module *m; /* NULL once closed */
} lua_raw_module;

/* A kernel object: a reference to its module and the kernel resolved on one device (again on
 * another when the current device changes).  Its user value 1 is its name. */
typedef struct lua_raw_kernel {
  cuarr_raw_module *module; /* NULL once closed */
  cuarr_raw_kernel *kernel; /* NULL until resolved */
  bool dependent;           /* RawKernel's dependent_launch option */
} lua_raw_kernel;

/* ---------------------------------------------------------------- objects */

static lua_raw_module *check_module(lua_State *L, int idx) {
  lua_raw_module *m = cuarr_lua_check_object(L, idx, &cuarr_lua_raw_module_class);
  if (!m->m)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the RawModule has been closed");
  return m;
}

static lua_raw_kernel *check_kernel(lua_State *L, int idx) {
  lua_raw_kernel *k = cuarr_lua_check_object(L, idx, &cuarr_lua_raw_kernel_class);
  if (!k->module)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the RawKernel has been closed");
  return k;
}

static void *check_kernel_object(lua_State *L, int idx) { return check_kernel(L, idx); }

/* The core's kernel for the current device (compiled there on first use). */
static cuarr_raw_kernel *resolve(lua_State *L, cuarr_lua_state *S, int idx, lua_raw_kernel *k) {
  int device = cuarr_lua_current_device(L, S);
  if (k->kernel && cuarr_raw_kernel_device(k->kernel) == device)
    return k->kernel;
  lua_getiuservalue(L, idx, 1);
  const char *name = lua_tostring(L, -1);
  cuarr_raw_kernel *found = NULL;
  cuarr_status s = cuarr_raw_module_get_function(k->module, device, name, &found);
  lua_pop(L, 1);
  CUARR_LUA_TRY(L, s);
  cuarr_raw_kernel_set_dependent_launch(found, k->dependent);
  cuarr_raw_kernel_free(k->kernel);
  k->kernel = found;
  return found;
}

/* Push a kernel object of module m named by the string at name_idx. */
static lua_raw_kernel *push_kernel(lua_State *L, cuarr_raw_module *m, int name_idx) {
  name_idx = lua_absindex(L, name_idx);
  lua_raw_kernel *k = lua_newuserdatauv(L, sizeof *k, 1);
  k->module = NULL;
  k->kernel = NULL;
  k->dependent = false;
  luaL_setmetatable(L, cuarr_lua_raw_kernel_class.metatable);
  lua_pushvalue(L, name_idx);
  lua_setiuservalue(L, -2, 1);
  cuarr_raw_module_retain(m);
  k->module = m;
  return k;
}

/* ---------------------------------------------------------------- constructors */

/* opts.name_expressions (a table of strings) into names, the strings left on the stack. */
static int read_names(lua_State *L, int opts, const char **names) {
  cuarr_lua_check_stack(L, MAX_NAMES + 1);
  int t = cuarr_lua_get_option(L, opts, "name_expressions");
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "option 'name_expressions' must be a table of strings, got %s",
                           luaL_typename(L, -1));
  int list = lua_gettop(L);
  lua_Integer len = cuarr_lua_len(L, list, "option 'name_expressions'");
  if (len > MAX_NAMES)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "at most %d name expressions", MAX_NAMES);
  int n = 0;
  for (lua_Integer i = 1; i <= len; i++) {
    lua_geti(L, list, i);
    names[n] = cuarr_lua_check_string(L, -1, "name expression");
    if (!*names[n])
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "name expression #%d is empty", (int)i);
    n++;
  }
  return n;
}

static lua_raw_module *new_module_object(lua_State *L) {
  lua_raw_module *m = lua_newuserdatauv(L, sizeof *m, 0);
  m->m = NULL;
  luaL_setmetatable(L, cuarr_lua_raw_module_class.metatable);
  return m;
}

/* cuarr.RawModule{code = | path =, options =, name_expressions =} */
static int l_raw_module(lua_State *L) {
  if (!lua_istable(L, 1) || cuarr_lua_to_array(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "RawModule takes a table {code = ... | path = ..., options = ..., "
                           "name_expressions = ...}, got %s",
                           luaL_typename(L, 1));
  static const char *const keys[] = {"code", "path", "options", "name_expressions", NULL};
  cuarr_lua_check_options(L, 1, "RawModule", keys);
  const char *code = NULL, *path = NULL;
  if (cuarr_lua_get_option(L, 1, "code") != LUA_TNIL)
    code = cuarr_lua_check_string(L, -1, "code");
  if (cuarr_lua_get_option(L, 1, "path") != LUA_TNIL)
    path = cuarr_lua_check_string(L, -1, "path");
  if (!code == !path)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "RawModule takes exactly one of code= and path=");
  const char *options[CUARR_LUA_MAX_OPTIONS];
  const char *names[MAX_NAMES];
  cuarr_raw_module_options o = {0};
  o.n_options = cuarr_lua_read_compile_options(L, 1, options);
  o.options = options;
  o.n_name_expressions = read_names(L, 1, names);
  o.name_expressions = names;
  lua_raw_module *m = new_module_object(L);
  CUARR_LUA_TRY(L, code ? cuarr_raw_module_from_source(code, &o, &m->m)
                        : cuarr_raw_module_from_file(path, &o, &m->m));
  return 1;
}

/* cuarr.RawKernel(code, name[, {options =, dependent_launch =}]): a module of one kernel,
 * compiled on first use. */
static int l_raw_kernel(lua_State *L) {
  const char *code = cuarr_lua_check_string(L, 1, "code");
  const char *name = cuarr_lua_check_string(L, 2, "name");
  if (!*name)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "RawKernel needs a kernel name");
  const char *options[CUARR_LUA_MAX_OPTIONS];
  cuarr_raw_module_options o = {0};
  bool dependent = false;
  if (!lua_isnoneornil(L, 3)) {
    if (!lua_istable(L, 3))
      return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #3 (opts) must be a table, got %s",
                             luaL_typename(L, 3));
    static const char *const keys[] = {"options", "dependent_launch", NULL};
    cuarr_lua_check_options(L, 3, "RawKernel", keys);
    o.n_options = cuarr_lua_read_compile_options(L, 3, options);
    o.options = options;
    int t = cuarr_lua_get_option(L, 3, "dependent_launch");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "RawKernel's dependent_launch must be a boolean, got %s",
                             luaL_typename(L, -1));
    dependent = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  /* A template-id names itself as the module's one name expression. */
  const char *names[1] = {name};
  if (strchr(name, '<')) {
    o.name_expressions = names;
    o.n_name_expressions = 1;
  }
  lua_raw_module *m = new_module_object(L); /* owns the module until the kernel holds it */
  CUARR_LUA_TRY(L, cuarr_raw_module_from_source(code, &o, &m->m));
  push_kernel(L, m->m, 2)->dependent = dependent;
  return 1;
}

/* ---------------------------------------------------------------- RawModule methods */

/* mod:get_function(name) */
static int module_get_function(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_raw_module *m = check_module(L, 1);
  cuarr_lua_check_string(L, 2, "name");
  lua_raw_kernel *k = push_kernel(L, m->m, 2);
  resolve(L, S, lua_gettop(L), k); /* compiled now, as CuPy's get_function does */
  return 1;
}

/* mod:compile(): compile for the current device now. */
static int module_compile(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_raw_module *m = check_module(L, 1);
  CUARR_LUA_TRY(L, cuarr_raw_module_compile(m->m, cuarr_lua_current_device(L, S)));
  lua_settop(L, 1);
  return 1;
}

/* k:compile(): compile for the current device now, as a launch there would, without launching
 * (CuPy's RawKernel.compile); a wrong kernel name is found here too. */
static int kernel_compile(lua_State *L) {
  resolve(L, CUARR_LUA_STATE(L), 1, check_kernel(L, 1));
  lua_settop(L, 1);
  return 1;
}

/* mod:get_global(name[, dtype[, shape]]): a device array viewing the variable (zero-copy; the
 * module's memory lives as long as the process). */
static int module_get_global(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_raw_module *m = check_module(L, 1);
  const char *name = cuarr_lua_check_string(L, 2, "name");
  cuarr_dtype dtype = cuarr_lua_opt_dtype(L, 3, CUARR_UINT8);
  int64_t shape[CUARR_MAXDIM];
  int ndim = -1;
  if (!lua_isnoneornil(L, 4))
    ndim = cuarr_lua_check_shape(L, 4, shape);
  int device = cuarr_lua_current_device(L, S);
  void *ptr = NULL;
  size_t bytes = 0;
  CUARR_LUA_TRY(L, cuarr_raw_module_get_global(m->m, device, name, &ptr, &bytes));
  size_t item = cuarr_dtype_size(dtype);
  int64_t size = 0;
  if (ndim < 0) {
    if (bytes % item)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "global '%s' has %zu bytes, not a whole number of %s elements", name,
                             bytes, cuarr_dtype_name(dtype));
    ndim = 1;
    shape[0] = (int64_t)(bytes / item);
  }
  CUARR_LUA_TRY(L, cuarr_shape_check(ndim, shape, dtype, &size));
  if ((uint64_t)size * item > bytes)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "global '%s' has %zu bytes: too small for %lld %s elements", name, bytes,
                           (long long)size, cuarr_dtype_name(dtype));
  cuarr_array *a = cuarr_lua_push_array(L, 0);
  cuarr_buffer *buf = NULL;
  CUARR_LUA_TRY(L, cuarr_buffer_wrap(ptr, bytes, device, false, NULL, NULL, &buf));
  a->buf = buf;
  a->dtype = dtype;
  a->ndim = ndim;
  a->offset = 0;
  memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
  cuarr_strides_c(ndim, shape, item, a->strides);
  return 1;
}

static int module_gc(lua_State *L) {
  lua_raw_module *m = cuarr_lua_check_object(L, 1, &cuarr_lua_raw_module_class);
  cuarr_raw_module *held = m->m;
  m->m = NULL;
  cuarr_raw_module_release(held); /* its kernels keep their own references */
  return 0;
}

static int module_tostring(lua_State *L) {
  lua_raw_module *m = cuarr_lua_check_object(L, 1, &cuarr_lua_raw_module_class);
  lua_pushfstring(L, "<cuarr.RawModule%s %p>", m->m ? "" : " (closed)", (void *)m);
  return 1;
}

/* ---------------------------------------------------------------- launches */

/* A grid or block: a positive integer, or a table of 1 to 3 of them. */
static void read_dims(lua_State *L, int idx, const char *what, const char *kernel,
                      unsigned dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  int n = 1;
  if (lua_type(L, idx) == LUA_TTABLE && !cuarr_lua_to_array(L, idx)) {
    cuarr_lua_tuple_items(L, idx); /* grid = a.shape */
    n = (int)lua_rawlen(L, idx);
    if (n < 1 || n > 3)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s of %s must have 1 to 3 extents, got %d", what,
                      kernel, n);
  } else if (lua_type(L, idx) != LUA_TNUMBER) {
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "%s of %s must be a positive integer or a table of 1 to 3, got %s", what,
                    kernel, luaL_typename(L, idx));
  }
  for (int d = 0; d < n; d++) {
    int at = idx;
    if (lua_type(L, idx) == LUA_TTABLE) {
      lua_rawgeti(L, idx, d + 1);
      at = -1;
    }
    int isint = 0;
    lua_Integer v = lua_type(L, at) == LUA_TNUMBER ? lua_tointegerx(L, at, &isint) : 0;
    if (!isint)
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s of %s: extent %d must be an integer, got %s", what,
                      kernel, d + 1,
                      lua_type(L, at) == LUA_TNUMBER ? lua_tostring(L, at) : luaL_typename(L, at));
    if (v < 1 || v > 0x7fffffff)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s of %s: extent %d must be 1 to 2^31-1, got %lld",
                      what, kernel, d + 1, (long long)v);
    dims[d] = (unsigned)v;
    if (at == -1)
      lua_pop(L, 1);
  }
}

/* Lua value at idx as argument `i` of kernel k. */
static void read_arg(lua_State *L, const cuarr_lua_state *S, int idx, int i,
                     const cuarr_raw_kernel *k, cuarr_raw_arg *a) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      a->kind = CUARR_RAW_ARG_INTEGER;
      a->i = lua_tointeger(L, idx);
    } else {
      a->kind = CUARR_RAW_ARG_FLOAT;
      a->f = lua_tonumber(L, idx);
    }
    return;
  case LUA_TBOOLEAN:
    a->kind = CUARR_RAW_ARG_BOOL;
    a->b = lua_toboolean(L, idx);
    return;
  case LUA_TUSERDATA:
    a->array = cuarr_lua_to_array_in(L, S, idx);
    if (a->array) {
      a->kind = CUARR_RAW_ARG_ARRAY;
      return;
    }
    break;
  default: break;
  }
  cuarr_lua_error(L, CUARR_TYPE_ERROR,
                  "argument %d of %s must be an array, a number or a boolean, got %s", i + 1,
                  cuarr_raw_kernel_name(k), luaL_typename(L, idx));
}

/* Launch obj (a checked kernel object, at kidx) with the arguments at [first, first + n) and the
 * stream (may be NULL: the current one) and shared memory given. */
static void launch(lua_State *L, cuarr_lua_state *S, lua_raw_kernel *obj, int kidx,
                   cuarr_raw_launch_config *config, cuarr_stream *stream, int first, int n) {
  if (!obj->module)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "the RawKernel has been closed");
  lua_getiuservalue(L, kidx, 1);
  cuarr_lua_check_no_host_arrays(L, S, first, n, lua_tostring(L, -1));
  lua_pop(L, 1);
  cuarr_raw_kernel *k = resolve(L, S, kidx, obj);
  if (n > MAX_ARGS)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "kernel %s: at most %d arguments, got %d",
                    cuarr_raw_kernel_name(k), MAX_ARGS, n);
  cuarr_raw_arg args[MAX_ARGS];
  for (int i = 0; i < n; i++)
    read_arg(L, S, first + i, i, k, &args[i]);
  int device = cuarr_raw_kernel_device(k);
  cuarr_context ctx = *cuarr_lua_context(S, device);
  if (stream)
    ctx.stream = stream;
  CUARR_LUA_TRY(L, cuarr_raw_kernel_launch(&ctx, k, config, args, n));
}

/* The stream at idx (nil: the current one) of a launch of kernel `name`: a Stream, or a
 * TypeError naming the kernel. */
static cuarr_stream *launch_stream(lua_State *L, int idx, const char *name) {
  if (!lua_isnil(L, idx) &&
      !cuarr_lua_to_object(L, CUARR_LUA_STATE(L), idx, &cuarr_lua_stream_class))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "the stream of a launch of %s must be a Stream, got %s",
                    name, luaL_typename(L, idx));
  return cuarr_lua_opt_stream(L, idx);
}

/* The bytes of dynamic shared memory at idx, in both call styles. */
static unsigned read_shared_mem(lua_State *L, int idx) {
  lua_Integer v = cuarr_lua_check_integer(L, idx, "shared_mem");
  if (v < 0 || v > 0x7fffffff)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "shared_mem must be 0 to 2^31-1 bytes, got %lld",
                    (long long)v);
  return (unsigned)v;
}

/* The launch options {shared_mem =, stream =} at idx. */
static cuarr_stream *read_launch_options(lua_State *L, int idx, const char *name,
                                         cuarr_raw_launch_config *c) {
  static const char *const keys[] = {"shared_mem", "stream", NULL};
  if (!lua_istable(L, idx))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #5 (options) must be a table, got %s",
                    luaL_typename(L, idx));
  cuarr_lua_check_options(L, idx, "RawKernel call", keys);
  if (cuarr_lua_get_option(L, idx, "shared_mem") != LUA_TNIL) {
    c->shared_mem = read_shared_mem(L, -1);
  }
  lua_pop(L, 1);
  cuarr_lua_get_option(L, idx, "stream"); /* left on the stack: it stays alive */
  return launch_stream(L, lua_gettop(L), name);
}

/* k(grid, block, args[, {shared_mem =, stream =}]) */
static int kernel_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_raw_kernel *obj = check_kernel(L, 1);
  lua_getiuservalue(L, 1, 1);
  const char *name = lua_tostring(L, -1);
  lua_pop(L, 1); /* the user value keeps it */
  cuarr_raw_launch_config config = {{1, 1, 1}, {1, 1, 1}, 0};
  read_dims(L, 2, "grid", name, config.grid);
  read_dims(L, 3, "block", name, config.block);
  if (!lua_istable(L, 4) || cuarr_lua_to_array(L, 4))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #4 (args) of %s must be a table, got %s",
                           name, luaL_typename(L, 4));
  cuarr_stream *stream = NULL;
  if (!lua_isnoneornil(L, 5))
    stream = read_launch_options(L, 5, name, &config);
  int n = (int)lua_rawlen(L, 4);
  if (n > MAX_ARGS)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "kernel %s: at most %d arguments, got %d", name,
                           MAX_ARGS, n);
  cuarr_lua_check_stack(L, n);
  int first = lua_gettop(L) + 1;
  for (int i = 1; i <= n; i++)
    lua_rawgeti(L, 4, i);
  launch(L, S, obj, 1, &config, stream, first, n);
  return 0;
}

/* The launcher k[{grid, block[, stream[, shared_mem]]}] returns: upvalues (state, kernel
 * object, configuration userdata, stream or nil). */
static int launcher_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_raw_launch_config *config = lua_touserdata(L, lua_upvalueindex(3));
  lua_pushvalue(L, lua_upvalueindex(4));
  cuarr_stream *stream = cuarr_lua_opt_stream(L, -1);
  lua_pop(L, 1); /* the upvalue keeps it */
  int n = lua_gettop(L);
  /* The kernel object, checked when the launcher was made: only its closing is checked now. */
  lua_raw_kernel *obj = lua_touserdata(L, lua_upvalueindex(2));
  lua_pushvalue(L, lua_upvalueindex(2));
  launch(L, S, obj, n + 1, config, stream, 1, n);
  return 0;
}

/* k[{grid, block[, stream[, shared_mem]]}]: a launcher of this configuration. */
static int kernel_index_other(lua_State *L) {
  check_kernel(L, 1);
  lua_getiuservalue(L, 1, 1);
  const char *name = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (!lua_istable(L, 2) || cuarr_lua_to_array(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "RawKernel is indexed by a configuration {grid, block[, stream[, "
                           "shared_mem]]}, got %s",
                           luaL_typename(L, 2));
  lua_Unsigned len = lua_rawlen(L, 2);
  if (len < 2 || len > 4 || cuarr_lua_has_string_key(L, 2))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "the configuration of %s is {grid, block[, stream[, shared_mem]]}",
                           name);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  cuarr_raw_launch_config *config = lua_newuserdatauv(L, sizeof *config, 0);
  *config = (cuarr_raw_launch_config){{1, 1, 1}, {1, 1, 1}, 0};
  int top = lua_gettop(L);
  lua_rawgeti(L, 2, 1);
  read_dims(L, top + 1, "grid", name, config->grid);
  lua_rawgeti(L, 2, 2);
  read_dims(L, top + 2, "block", name, config->block);
  lua_rawgeti(L, 2, 4);
  if (!lua_isnil(L, -1)) {
    config->shared_mem = read_shared_mem(L, -1);
  }
  lua_settop(L, top);
  lua_rawgeti(L, 2, 3);
  launch_stream(L, lua_gettop(L), name); /* checked now: a wrong one fails here, not later */
  lua_pushcclosure(L, launcher_call, 4);
  return 1;
}

static int kernel_gc(lua_State *L) {
  lua_raw_kernel *k = cuarr_lua_check_object(L, 1, &cuarr_lua_raw_kernel_class);
  cuarr_raw_kernel *kernel = k->kernel;
  cuarr_raw_module *module = k->module;
  k->kernel = NULL;
  k->module = NULL;
  cuarr_raw_kernel_free(kernel);
  cuarr_raw_module_release(module);
  return 0;
}

static int kernel_tostring(lua_State *L) {
  lua_raw_kernel *k = cuarr_lua_check_object(L, 1, &cuarr_lua_raw_kernel_class);
  lua_getiuservalue(L, 1, 1);
  lua_pushfstring(L, "<cuarr.RawKernel %s%s>", lua_tostring(L, -1), k->module ? "" : " (closed)");
  return 1;
}

/* k.max_dynamic_shared_size_bytes = n */
static int kernel_newindex(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  lua_raw_kernel *obj = check_kernel(L, 1);
  if (lua_type(L, 2) != LUA_TSTRING || strcmp(lua_tostring(L, 2), "max_dynamic_shared_size_bytes"))
    return cuarr_lua_error(L, CUARR_INDEX_ERROR,
                           "RawKernel has no settable field '%s' (only "
                           "max_dynamic_shared_size_bytes)",
                           lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2)
                                                         : luaL_typename(L, 2));
  lua_Integer v = cuarr_lua_check_integer(L, 3, "max_dynamic_shared_size_bytes");
  if (v < 0 || v > 0x7fffffff)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "max_dynamic_shared_size_bytes must be 0 to 2^31-1, got %lld",
                           (long long)v);
  CUARR_LUA_TRY(L, cuarr_raw_kernel_set_max_dynamic_shared(resolve(L, S, 1, obj), (int)v));
  return 0;
}

/* ---------------------------------------------------------------- fields */

static void field_name(lua_State *L, void *self) {
  (void)self;
  lua_getiuservalue(L, 1, 1);
}

static void field_attributes(lua_State *L, void *self) {
  cuarr_raw_kernel *k = resolve(L, CUARR_LUA_STATE(L), 1, self);
  cuarr_raw_kernel_attributes a;
  CUARR_LUA_TRY(L, cuarr_raw_kernel_attributes_get(k, &a));
  lua_createtable(L, 0, 10);
#define SET(field)                                                                                 \
  lua_pushinteger(L, a.field);                                                                     \
  lua_setfield(L, -2, #field)
  SET(max_threads_per_block);
  SET(shared_size_bytes);
  SET(const_size_bytes);
  SET(local_size_bytes);
  SET(num_regs);
  SET(ptx_version);
  SET(binary_version);
  SET(cache_mode_ca);
  SET(max_dynamic_shared_size_bytes);
  SET(preferred_shared_memory_carveout);
#undef SET
}

static void field_max_dynamic_shared(lua_State *L, void *self) {
  cuarr_raw_kernel *k = resolve(L, CUARR_LUA_STATE(L), 1, self);
  cuarr_raw_kernel_attributes a;
  CUARR_LUA_TRY(L, cuarr_raw_kernel_attributes_get(k, &a));
  lua_pushinteger(L, a.max_dynamic_shared_size_bytes);
}

/* k.param_types: the parameters as cuarr reads them ("const double*", "int", or "a 4-byte
 * parameter" when only the size is known); nil when the list is unknown. */
static void field_param_types(lua_State *L, void *self) {
  cuarr_raw_kernel *k = resolve(L, CUARR_LUA_STATE(L), 1, self);
  int n = cuarr_raw_kernel_n_params(k);
  if (n < 0) {
    lua_pushnil(L);
    return;
  }
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    cuarr_raw_param p;
    CUARR_LUA_TRY(L, cuarr_raw_kernel_param(k, i, &p));
    lua_pushstring(L, p.spelled);
    lua_rawseti(L, -2, i + 1);
  }
}

/* ---------------------------------------------------------------- jit.rawkernel launches */

/* A kernel written in Lua (lua/cuarr/jit/rawkernel.lua) is a table: [1] its kernels by typing
 * (RawKernel objects), [2] the Lua function that translates and compiles a typing's kernel
 * (called on a miss as miss(self, typing, args...), returning the kernel), [3] its name for
 * messages, [4] its parameter count, [5] the kernel of its last launch.  The typing (a byte
 * string: per argument 'i', 'f', 'b', or 'a' with the dtype, rank and C-contiguity of an array
 * and whether another array argument overlaps it)
 * and the RawKernel's arguments (an array expanded into its data pointer, its extents and,
 * unless contiguous, its element strides) are computed here, so that a launch of a known typing
 * builds no Lua string or table. */
enum { JIT_CACHE = 1, JIT_MISS, JIT_NAME, JIT_NPARAMS, JIT_LAST, JIT_LAST_KEY };

/* The typing key of one launch: 5 bytes for an array, which takes 2 arguments at least. */
#define JIT_KEY_BYTES (4 * MAX_ARGS)

/* The typing of the last launch and its kernel object ([6], a userdata made here, holding the
 * kernel as its user value), so that a launch of the same typing finds its kernel without
 * interning the key; keys longer than this take the cache's way. */
#define JIT_LAST_KEY_BYTES 64
#define JIT_LAST_KEY_MT "cuarr.jit.last_typing"
typedef struct jit_last_key {
  size_t len; /* 0: none */
  lua_raw_kernel *kernel;
  char key[JIT_LAST_KEY_BYTES];
} jit_last_key;

static const char *jit_name(lua_State *L, int self) {
  const char *name = "jit.rawkernel";
  if (lua_rawgeti(L, self, JIT_NAME) == LUA_TSTRING)
    name = lua_tostring(L, -1);
  lua_pop(L, 1); /* the table keeps it */
  return name;
}

/* The kernel table at idx (a TypeError for anything else, as core's functions take any
 * value). */
static void jit_check_self(lua_State *L, int idx) {
  if (!lua_istable(L, idx))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "a cuarr.jit.rawkernel kernel expected, got %s",
                    luaL_typename(L, idx));
}

/* The kernel table's entry at slot, of Lua type want (a TypeError otherwise); pushed. */
static void jit_slot(lua_State *L, int self, int slot, int want) {
  if (lua_rawgeti(L, self, slot) != want)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "not a cuarr.jit.rawkernel kernel (its slot %d is a %s)",
                    slot, luaL_typename(L, -1));
}

/* Argument i (0-based, at idx) of a jit kernel into key and args; returns the args' count. */
static int jit_arg(lua_State *L, const cuarr_lua_state *S, int self, int idx, int i, char *key,
                   size_t *klen, cuarr_raw_arg *args, int na) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      key[(*klen)++] = 'i';
      args[na].kind = CUARR_RAW_ARG_INTEGER;
      args[na].i = lua_tointeger(L, idx);
    } else {
      key[(*klen)++] = 'f';
      args[na].kind = CUARR_RAW_ARG_FLOAT;
      args[na].f = lua_tonumber(L, idx);
    }
    return na + 1;
  case LUA_TBOOLEAN:
    key[(*klen)++] = 'b';
    args[na].kind = CUARR_RAW_ARG_BOOL;
    args[na].b = lua_toboolean(L, idx);
    return na + 1;
  case LUA_TUSERDATA: {
    cuarr_array *a = cuarr_lua_to_array_in(L, S, idx);
    if (!a)
      break;
    if (!a->buf || !a->buf->ptr)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "argument %d of %s: the array has been freed", i + 1,
                      jit_name(L, self));
    if (cuarr_array_device(a) == CUARR_HOST)
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "%s: user kernels take device arrays, got a host array (argument #%d)",
                      jit_name(L, self), i + 1);
    if (a->ndim == 0)
      cuarr_lua_error(L, CUARR_TYPE_ERROR,
                      "argument %d of %s is a 0-d array: pass a 1-element array or the number "
                      "itself",
                      i + 1, jit_name(L, self));
    bool contiguous = cuarr_array_is_c_contiguous(a);
    if (na + 1 + 2 * a->ndim > MAX_ARGS)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: more than %d kernel parameters", jit_name(L, self),
                      MAX_ARGS);
    key[(*klen)++] = 'a';
    key[(*klen)++] = (char)('A' + (int)a->dtype);
    key[(*klen)++] = (char)('A' + a->ndim);
    key[(*klen)++] = contiguous ? 'c' : 's';
    key[(*klen)++] = 'r'; /* or 'o': jit_mark_overlaps */
    args[na].kind = CUARR_RAW_ARG_ARRAY;
    args[na++].array = a;
    for (int d = 0; d < a->ndim; d++) {
      args[na].kind = CUARR_RAW_ARG_INTEGER;
      args[na++].i = a->shape[d];
    }
    if (!contiguous) {
      int64_t item = (int64_t)cuarr_dtype_size(a->dtype);
      for (int d = 0; d < a->ndim; d++) {
        if (a->strides[d] % item)
          cuarr_lua_error(L, CUARR_VALUE_ERROR,
                          "argument %d of %s: a stride of %lld bytes is not a whole number of "
                          "%lld-byte elements",
                          i + 1, jit_name(L, self), (long long)a->strides[d], (long long)item);
        args[na].kind = CUARR_RAW_ARG_INTEGER;
        args[na++].i = a->strides[d] / item;
      }
    }
    return na;
  }
  default: break;
  }
  return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                         "argument %d of %s must be a device array, a number or a boolean, got %s",
                         i + 1, jit_name(L, self), luaL_typename(L, idx));
}

/* The overlap bytes of the typing key (at[k], of array argument arrays[k]): 'o' where another
 * array argument's memory may overlap the array's, so that only arrays that share no memory
 * with the others are declared __restrict__ (which lets the compiler hoist their loads above
 * the stores of earlier iterations). */
static void jit_mark_overlaps(char *key, const cuarr_array *const *arrays, const size_t *at,
                              int n) {
  for (int k = 0; k < n; k++)
    for (int j = k + 1; j < n; j++)
      if (cuarr_array_may_overlap(arrays[k], arrays[j]))
        key[at[k]] = key[at[j]] = 'o';
}

/* Launch the jit kernel at self with the n arguments at [first, first + n). */
static void jit_launch(lua_State *L, cuarr_lua_state *S, int self,
                       const cuarr_raw_launch_config *config, cuarr_stream *stream, int first,
                       int n) {
  jit_slot(L, self, JIT_NPARAMS, LUA_TNUMBER);
  lua_Integer nparams = lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (n != nparams)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s takes %d argument%s, got %d", jit_name(L, self),
                    (int)nparams, nparams == 1 ? "" : "s", n);
  char key[JIT_KEY_BYTES];
  size_t klen = 0;
  cuarr_raw_arg args[MAX_ARGS];
  int na = 0;
  const cuarr_array *arrays[MAX_ARGS];
  size_t overlap_at[MAX_ARGS];
  int narrays = 0;
  for (int i = 0; i < n; i++) {
    size_t at = klen;
    int arg = na;
    na = jit_arg(L, S, self, first + i, i, key, &klen, args, na);
    if (args[arg].kind == CUARR_RAW_ARG_ARRAY) {
      arrays[narrays] = args[arg].array;
      overlap_at[narrays++] = at + 4;
    }
  }
  jit_mark_overlaps(key, arrays, overlap_at, narrays);
  cuarr_lua_check_stack(L, n + 4);
  lua_rawgeti(L, self, JIT_LAST_KEY);
  jit_last_key *last = luaL_testudata(L, -1, JIT_LAST_KEY_MT);
  if (!last) {
    lua_pop(L, 1);
    last = lua_newuserdatauv(L, sizeof *last, 1);
    last->len = 0;
    last->kernel = NULL;
    if (luaL_newmetatable(L, JIT_LAST_KEY_MT)) {
      lua_pushliteral(L, "cuarr.jit.last_typing");
      lua_setfield(L, -2, "__name");
    }
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawseti(L, self, JIT_LAST_KEY);
  }
  int last_idx = lua_gettop(L);
  lua_raw_kernel *obj;
  if (klen > 0 && last->len == klen && !memcmp(last->key, key, klen)) {
    obj = last->kernel;
    lua_getiuservalue(L, last_idx, 1); /* the kernel object, kept alive by the userdata */
    if (!obj->module)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "the RawKernel has been closed");
  } else {
    jit_slot(L, self, JIT_CACHE, LUA_TTABLE);
    lua_pushlstring(L, key, klen);
    if (lua_rawget(L, -2) == LUA_TNIL) {
      lua_pop(L, 1);
      jit_slot(L, self, JIT_MISS, LUA_TFUNCTION);
      lua_pushvalue(L, self);
      lua_pushlstring(L, key, klen);
      for (int i = 0; i < n; i++)
        lua_pushvalue(L, first + i);
      lua_call(L, n + 2, 1);
    }
    obj = check_kernel(L, -1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, self, JIT_LAST);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, last_idx, 1);
    last->kernel = obj;
    last->len = 0;
    if (klen <= JIT_LAST_KEY_BYTES) {
      memcpy(last->key, key, klen);
      last->len = klen;
    }
  }
  int kidx = lua_gettop(L);
  cuarr_raw_kernel *k = resolve(L, S, kidx, obj);
  cuarr_context ctx = *cuarr_lua_context(S, cuarr_raw_kernel_device(k));
  if (stream)
    ctx.stream = stream;
  CUARR_LUA_TRY(L, cuarr_raw_kernel_launch(&ctx, k, config, args, na));
}

/* jit_call(self, grid, block, args[, {shared_mem =, stream =}]): a jit kernel's __call. */
static int l_jit_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  jit_check_self(L, 1);
  const char *name = jit_name(L, 1);
  cuarr_raw_launch_config config = {{1, 1, 1}, {1, 1, 1}, 0};
  if (!lua_istable(L, 4) || cuarr_lua_to_array(L, 4))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #3 (args) of %s must be a table, got %s",
                           name, luaL_typename(L, 4));
  read_dims(L, 2, "grid", name, config.grid);
  read_dims(L, 3, "block", name, config.block);
  cuarr_stream *stream = NULL;
  if (!lua_isnoneornil(L, 5))
    stream = read_launch_options(L, 5, name, &config);
  int n = (int)lua_rawlen(L, 4);
  if (n > MAX_ARGS)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: at most %d arguments, got %d", name, MAX_ARGS,
                           n);
  cuarr_lua_check_stack(L, n);
  int first = lua_gettop(L) + 1;
  for (int i = 1; i <= n; i++)
    lua_rawgeti(L, 4, i);
  jit_launch(L, S, 1, &config, stream, first, n);
  return 0;
}

/* The launcher jit_launcher returns: upvalues (state, the kernel table, configuration
 * userdata, stream or nil). */
static int jit_launcher_call(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const cuarr_raw_launch_config *config = lua_touserdata(L, lua_upvalueindex(3));
  lua_pushvalue(L, lua_upvalueindex(4));
  cuarr_stream *stream = cuarr_lua_opt_stream(L, -1);
  lua_pop(L, 1); /* the upvalue keeps it */
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(2));
  jit_launch(L, S, n + 1, config, stream, 1, n);
  return 0;
}

/* jit_launcher(self, {grid, block[, stream[, shared_mem]]}): a jit kernel's launcher. */
static int l_jit_launcher(lua_State *L) {
  jit_check_self(L, 1);
  const char *name = jit_name(L, 1);
  if (!lua_istable(L, 2) || cuarr_lua_to_array(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "%s is indexed by a configuration {grid, block[, stream[, "
                           "shared_mem]]}, got %s",
                           name, luaL_typename(L, 2));
  lua_Unsigned len = lua_rawlen(L, 2);
  if (len < 2 || len > 4 || cuarr_lua_has_string_key(L, 2))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "the configuration of %s is {grid, block[, stream[, shared_mem]]}",
                           name);
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  cuarr_raw_launch_config *config = lua_newuserdatauv(L, sizeof *config, 0);
  *config = (cuarr_raw_launch_config){{1, 1, 1}, {1, 1, 1}, 0};
  int top = lua_gettop(L);
  lua_rawgeti(L, 2, 1);
  read_dims(L, top + 1, "grid", name, config->grid);
  lua_rawgeti(L, 2, 2);
  read_dims(L, top + 2, "block", name, config->block);
  lua_rawgeti(L, 2, 4);
  if (!lua_isnil(L, -1))
    config->shared_mem = read_shared_mem(L, -1);
  lua_settop(L, top);
  lua_rawgeti(L, 2, 3);
  launch_stream(L, lua_gettop(L), name);
  lua_pushcclosure(L, jit_launcher_call, 4);
  return 1;
}

/* jit_compile(code, arch[, {options =}]): NVRTC compiles code for sm_<arch>, as a RawModule
 * with those options would be, and drops the result (a jit kernel's k:compile(), which needs
 * no device). */
static int l_jit_compile(lua_State *L) {
  const char *code = cuarr_lua_check_string(L, 1, "code");
  lua_Integer arch = cuarr_lua_check_integer(L, 2, "arch");
  if (arch < 10 || arch > 1000)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "no architecture sm_%lld", (long long)arch);
  const char *options[CUARR_LUA_MAX_OPTIONS];
  cuarr_raw_module_options o = {0};
  if (!lua_isnoneornil(L, 3)) {
    o.n_options = cuarr_lua_read_compile_options(L, 3, options);
    o.options = options;
  }
  lua_raw_module *m = new_module_object(L); /* releases the module, error or not */
  CUARR_LUA_TRY(L, cuarr_raw_module_from_source(code, &o, &m->m));
  CUARR_LUA_TRY(L, cuarr_raw_module_check_compile(m->m, (int)arch));
  return 0;
}

/* ---------------------------------------------------------------- classes */

static const luaL_Reg module_methods[] = {
    {"get_function", module_get_function},
    {"get_global", module_get_global},
    {"compile", module_compile},
    {"free", module_gc},
    {NULL, NULL},
};

static const luaL_Reg module_metamethods[] = {
    {"__gc", module_gc},
    {"__close", module_gc},
    {"__tostring", module_tostring},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_raw_module_class = {
    .id = CUARR_LUA_RAW_MODULE_CLASS,
    .name = "RawModule",
    .metatable = "cuarr.RawModule",
    .methods = module_methods,
    .metamethods = module_metamethods,
    .no_such_key = "RawModule has no field '%s'",
};

static const luaL_Reg kernel_methods[] = {
    {"compile", kernel_compile},
    {"free", kernel_gc},
    {NULL, NULL},
};

static const luaL_Reg kernel_metamethods[] = {
    {"__call", kernel_call},         {"__gc", kernel_gc},
    {"__close", kernel_gc},          {"__tostring", kernel_tostring},
    {"__newindex", kernel_newindex}, {NULL, NULL},
};

static const cuarr_lua_field kernel_fields[] = {
    {"name", field_name},
    {"attributes", field_attributes},
    {"max_dynamic_shared_size_bytes", field_max_dynamic_shared},
    {"param_types", field_param_types},
    {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_raw_kernel_class = {
    .id = CUARR_LUA_RAW_KERNEL_CLASS,
    .name = "RawKernel",
    .metatable = "cuarr.RawKernel",
    .methods = kernel_methods,
    .metamethods = kernel_metamethods,
    .fields = kernel_fields,
    .check = check_kernel_object,
    .index_other = kernel_index_other,
    .no_such_key = "RawKernel has no field '%s'",
};

void cuarr_lua_open_raw_kernels(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"RawModule", l_raw_module},      {"RawKernel", l_raw_kernel},    {"jit_call", l_jit_call},
      {"jit_launcher", l_jit_launcher}, {"jit_compile", l_jit_compile}, {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
}
