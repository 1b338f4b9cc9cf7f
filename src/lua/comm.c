/*
 * comm.c -- cuarr.distributed.init{devices = {...}} and the Communicator it returns: NCCL's
 * collectives over the devices one process drives (src/core/comm/).  lua/cuarr/distributed.lua
 * adds barrier and the namespace's own functions.
 *
 * Ranks are 0-based, as NCCL's, MPI's and torch.distributed's are (and as device ids are):
 * parts[r + 1] is rank r's array, on comm.devices[r + 1].  Every call reads its tables once,
 * keeps what it read on the stack and checks everything before the core queues anything.
 */
#include <string.h>

#include "binding.h"

typedef struct lua_comm {
  cuarr_comm *c; /* NULL once destroyed */
  int n;         /* the ranks this process drives */
  int world;     /* the communicator's ranks, in every process */
  int rank;      /* of one rank per process: its rank; else -1 */
  int devices[CUARR_MAX_DEVICES];
} lua_comm;

static void *check_comm_object(lua_State *L, int idx) {
  return cuarr_lua_check_object(L, idx, &cuarr_lua_communicator_class);
}

static lua_comm *check_comm(lua_State *L, int idx, const char *fn) {
  lua_comm *c = check_comm_object(L, idx);
  if (!c->c)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: the communicator has been destroyed", fn);
  return c;
}

/* Option `key` of the table at 1, an integer (required: the front end fills it in). */
static lua_Integer int_option(lua_State *L, const char *fn, const char *key) {
  int t = cuarr_lua_get_option(L, 1, key);
  if (t != LUA_TNUMBER || !lua_isinteger(L, -1))
    cuarr_lua_error(L, t == LUA_TNUMBER ? CUARR_VALUE_ERROR : CUARR_TYPE_ERROR,
                    "%s: %s must be an integer, got %s", fn, key,
                    t == LUA_TNUMBER ? "a fraction" : luaL_typename(L, -1));
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Option `key`, a string or nil; kept on the stack (its text is used later). */
static const char *string_option(lua_State *L, const char *fn, const char *key) {
  int t = cuarr_lua_get_option(L, 1, key);
  if (t == LUA_TNIL)
    return NULL;
  if (t != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: %s must be a string, got %s", fn, key,
                    luaL_typename(L, -1));
  return cuarr_lua_check_string(L, -1, key); /* a NUL inside is refused, not cut short */
}

/* cuarr.distributed.init{rank=, size=, device=, id_file= | address=, port=, timeout=}: one
 * rank of a communicator over several processes (lua/cuarr/distributed.lua fills the options
 * from the environment). */
static int init_rank(lua_State *L, const char *fn) {
  cuarr_comm_rank_options o = {0};
  lua_Integer rank = int_option(L, fn, "rank"), size = int_option(L, fn, "size");
  cuarr_lua_get_option(L, 1, "device");
  int *dev = cuarr_lua_to_object(L, CUARR_LUA_STATE(L), -1, &cuarr_lua_device_class);
  lua_Integer device = dev ? *dev : -1;
  lua_pop(L, 1);
  if (!dev)
    device = int_option(L, fn, "device");
  if (size < 1 || size > (1 << 24))
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: size must be 1 to %d ranks, got %lld", fn,
                           1 << 24, (long long)size);
  if (rank < 0 || rank >= size)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: rank %lld is not one of 0 to %lld", fn,
                           (long long)rank, (long long)size - 1);
  if (device < 0 || device >= CUARR_MAX_DEVICES)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: device %lld does not exist", fn,
                           (long long)device);
  o.rank = (int)rank, o.world = (int)size, o.device = (int)device;
  o.id_file = string_option(L, fn, "id_file");
  o.address = string_option(L, fn, "address");
  if (o.address) {
    lua_Integer port = int_option(L, fn, "port");
    if (port < 1 || port > 65535)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: port must be 1 to 65535, got %lld", fn,
                             (long long)port);
    o.port = (int)port;
  } else if (cuarr_lua_get_option(L, 1, "port") != LUA_TNIL) {
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: a port needs an address", fn);
  } else {
    lua_pop(L, 1);
  }
  if (o.id_file && o.address)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "%s: give an id file or an address, not both (they are two ways to "
                           "hand the id over)",
                           fn);
  if (cuarr_lua_get_option(L, 1, "timeout") != LUA_TNUMBER)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: timeout must be a number of seconds, got %s",
                           fn, luaL_typename(L, -1));
  o.timeout_s = lua_tonumber(L, -1);
  lua_pop(L, 1);
  int v = cuarr_lua_get_option(L, 1, "verify");
  if (v != LUA_TNIL && v != LUA_TBOOLEAN)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: verify must be a boolean, got %s", fn,
                           luaL_typename(L, -1));
  o.verify = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_comm *c = lua_newuserdatauv(L, sizeof *c, 0);
  memset(c, 0, sizeof *c);
  luaL_setmetatable(L, CUARR_LUA_COMMUNICATOR_MT); /* the GC owns it from here */
  CUARR_LUA_TRY(L, cuarr_comm_init_rank(&o, &c->c));
  c->n = 1;
  c->world = o.world;
  c->rank = o.rank;
  c->devices[0] = o.device;
  return 1;
}

/* cuarr.distributed.init{devices = {0, 1, ...}} */
static int l_init(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  static const char *const fn = "distributed.init";
  cuarr_lua_check_max_args(L, 1, fn);
  if (!lua_istable(L, 1))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #1 must be an options table, got %s",
                           fn, luaL_typename(L, 1));
  static const char *const keys[] = {"devices", "rank", "size",    "device", "id_file",
                                     "address", "port", "timeout", "verify", NULL};
  cuarr_lua_check_options(L, 1, fn, keys);
  lua_settop(L, 1);
  int t = cuarr_lua_get_option(L, 1, "devices"); /* slot 2 */
  if (t == LUA_TNIL)
    return init_rank(L, fn);
  for (const char *const *k = keys + 1; *k; k++) {
    if (cuarr_lua_get_option(L, 1, *k) != LUA_TNIL)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "%s: devices (one process over several devices) and %s (one process "
                             "per device) do not go together",
                             fn, *k);
    lua_pop(L, 1);
  }
  if (t != LUA_TTABLE || cuarr_lua_to_array_in(L, S, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "%s: devices must be a sequence of device ids, got %s", fn,
                           luaL_typename(L, 2));
  lua_Integer n = cuarr_lua_len(L, 2, "devices");
  if (n < 1 || n > CUARR_MAX_DEVICES)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: devices must list 1 to %d devices, got %lld",
                           fn, CUARR_MAX_DEVICES, (long long)n);
  int devices[CUARR_MAX_DEVICES];
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 2, i);
    int *dev = cuarr_lua_to_object(L, S, -1, &cuarr_lua_device_class);
    if (dev) {
      devices[i - 1] = *dev;
    } else {
      if (!lua_isinteger(L, -1) && lua_type(L, -1) != LUA_TNUMBER)
        return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                               "%s: devices[%lld] must be a device id or a Device, got %s", fn,
                               (long long)i, luaL_typename(L, -1));
      lua_Integer v = cuarr_lua_check_integer(L, -1, "device id");
      if (v < 0 || v >= CUARR_MAX_DEVICES) {
        int count = 0;
        CUARR_LUA_TRY(L, cuarr_device_count(&count));
        return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: device %lld does not exist (%d device%s)",
                               fn, (long long)v, count, count == 1 ? "" : "s");
      }
      devices[i - 1] = (int)v;
    }
    lua_pop(L, 1);
  }
  lua_comm *c = lua_newuserdatauv(L, sizeof *c, 0);
  memset(c, 0, sizeof *c);
  luaL_setmetatable(L, CUARR_LUA_COMMUNICATOR_MT); /* the GC owns it from here */
  CUARR_LUA_TRY(L, cuarr_comm_init_all((int)n, devices, &c->c));
  c->n = (int)n;
  c->world = (int)n;
  c->rank = -1;
  memcpy(c->devices, devices, (size_t)n * sizeof *devices);
  return 1;
}

/* The arrays of the sequence at idx, one per rank, into list[]; they are kept in the table at
 * `keep` (so a __index cannot hand the core an array the GC then takes). */
static void read_arrays(lua_State *L, cuarr_lua_state *S, const lua_comm *c, int idx, int keep,
                        const char *fn, const char *what, cuarr_array *list) {
  cuarr_array *one = cuarr_lua_to_array_in(L, S, idx);
  if (one && c->n == 1) { /* one rank here: its array itself */
    cuarr_lua_check_live(L, one);
    list[0] = *one;
    lua_pushvalue(L, idx);
    lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
    return;
  }
  if (!lua_istable(L, idx) || one)
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "%s: %s must be a sequence of arrays, one per rank, got %s", fn, what,
                    luaL_typename(L, idx));
  lua_Integer n = cuarr_lua_len(L, idx, what);
  if (n != c->n)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: %lld %s for %d ranks (one array per device)", fn,
                    (long long)n, what, c->n);
  for (int r = 0; r < c->n; r++) {
    lua_geti(L, idx, r + 1);
    cuarr_array *a = cuarr_lua_to_array_in(L, S, -1);
    if (!a)
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: %s[%d] must be an array, got %s", fn, what, r + 1,
                      luaL_typename(L, -1));
    cuarr_lua_check_live(L, a);
    list[r] = *a;
    lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
  }
}

/* The Stream at idx, kept in `keep`. */
static cuarr_stream *read_stream(lua_State *L, cuarr_lua_state *S, int idx, int keep,
                                 const char *fn, const char *what) {
  cuarr_lua_stream *s = cuarr_lua_to_object(L, S, idx, &cuarr_lua_stream_class);
  if (!s)
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: %s must be a Stream, got %s", fn, what,
                    luaL_typename(L, idx));
  if (s->destroyed)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: %s has been destroyed", fn, what);
  lua_pushvalue(L, idx);
  lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
  return &s->s;
}

/* opts.streams: one Stream per rank this process drives, or opts.stream, one Stream when it
 * drives one (NULL when absent: each device's current stream). */
static void read_streams(lua_State *L, cuarr_lua_state *S, const lua_comm *c, int opts, int keep,
                         const char *fn, cuarr_stream **streams) {
  for (int r = 0; r < c->n; r++)
    streams[r] = S->stream[c->devices[r]];
  if (lua_istable(L, opts) && cuarr_lua_get_option(L, opts, "stream") != LUA_TNIL) {
    if (c->n != 1)
      cuarr_lua_error(L, CUARR_VALUE_ERROR,
                      "%s: this process drives %d ranks: give streams = {...}, one per rank", fn,
                      c->n);
    streams[0] = read_stream(L, S, lua_gettop(L), keep, fn, "stream");
    lua_pop(L, 1);
    if (cuarr_lua_get_option(L, opts, "streams") != LUA_TNIL)
      cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: give stream or streams, not both", fn);
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, opts))
    return;
  if (cuarr_lua_get_option(L, opts, "streams") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  int t = lua_gettop(L);
  if (!lua_istable(L, t))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: streams must be a sequence of Streams, got %s", fn,
                    luaL_typename(L, t));
  lua_Integer n = cuarr_lua_len(L, t, "streams");
  if (n != c->n)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: %lld streams for %d ranks (one per device)", fn,
                    (long long)n, c->n);
  for (int r = 0; r < c->n; r++) {
    lua_geti(L, t, r + 1);
    char what[32];
    snprintf(what, sizeof what, "streams[%d]", r + 1);
    streams[r] = read_stream(L, S, lua_gettop(L), keep, fn, what);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static cuarr_comm_op check_op(lua_State *L, int idx, const char *fn) {
  if (lua_type(L, idx) != LUA_TSTRING)
    cuarr_lua_error(L, CUARR_TYPE_ERROR,
                    "%s: the reduction must be a string (\"sum\", \"prod\", \"max\", \"min\", "
                    "\"avg\"), got %s",
                    fn, luaL_typename(L, idx));
  cuarr_comm_op op;
  if (!cuarr_comm_op_from_name(cuarr_lua_check_string(L, idx, "op"), &op))
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: unknown reduction '%s' (sum, prod, max, min or avg)",
                    fn, lua_tostring(L, idx));
  return op;
}

static int check_root(lua_State *L, const lua_comm *c, int idx, const char *fn) {
  lua_Integer root = cuarr_lua_check_integer(L, idx, "root");
  if (root < 0 || root >= c->world)
    cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: root %lld is not a rank (0 to %d)", fn,
                    (long long)root, c->world - 1);
  return (int)root;
}

/* A method's options at idx (the method's argument idx - 1): nil, or a table of those keys. */
static void check_call_options(lua_State *L, int idx, const char *fn, const char *const *keys) {
  if (lua_isnil(L, idx))
    return;
  if (!lua_istable(L, idx))
    cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #%d must be an options table, got %s", fn,
                    idx - 1, luaL_typename(L, idx));
  cuarr_lua_check_options(L, idx, fn, keys);
}

/* What a collective's call reads: n parts (and outs) and streams, in one userdata the GC owns
 * should anything raise, sized for the ranks this process drives (a call is the hot path of a
 * training loop: a block sized for every possible device would be tens of KB for the GC). */
typedef struct call_state {
  cuarr_array *parts, *outs;
  cuarr_stream **streams;
} call_state;

static call_state new_call_state(lua_State *L, int n) {
  size_t arrays = (size_t)n * sizeof(cuarr_array);
  char *mem = lua_newuserdatauv(L, 2 * arrays + (size_t)n * sizeof(cuarr_stream *), 0);
  return (call_state){(cuarr_array *)mem, (cuarr_array *)(mem + arrays),
                      (cuarr_stream **)(mem + 2 * arrays)};
}

typedef enum which { ALL_REDUCE, REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL } which;

/* comm:<fn>(parts, ...): positional outs at outs_idx (0: opts.out, for the in-place kinds), op
 * at op_idx (0: none), root at root_idx (0: none), options at opts_idx. */
static int collective(lua_State *L, which w, const char *fn, int outs_idx, int op_idx, int root_idx,
                      int opts_idx) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, opts_idx, fn);
  lua_comm *c = check_comm(L, 1, fn);
  lua_settop(L, opts_idx);
  static const char *const in_place_keys[] = {"out", "streams", "stream", NULL};
  static const char *const keys[] = {"streams", "stream", NULL};
  check_call_options(L, opts_idx, fn, outs_idx ? keys : in_place_keys);
  cuarr_comm_op op = op_idx ? check_op(L, op_idx, fn) : CUARR_COMM_SUM;
  int root = root_idx ? check_root(L, c, root_idx, fn) : 0;
  call_state state = new_call_state(L, c->n), *cs = &state;
  lua_newtable(L);
  int keep = lua_gettop(L);
  read_arrays(L, S, c, 2, keep, fn, "parts", cs->parts);
  bool has_outs = false;
  if (outs_idx) {
    read_arrays(L, S, c, outs_idx, keep, fn, "outs", cs->outs);
    has_outs = true;
  } else if (cuarr_lua_get_option(L, opts_idx, "out") != LUA_TNIL) {
    read_arrays(L, S, c, lua_gettop(L), keep, fn, "out", cs->outs);
    has_outs = true;
  }
  read_streams(L, S, c, opts_idx, keep, fn, cs->streams);
  cuarr_comm_call call = {cs->parts, has_outs ? cs->outs : NULL, cs->streams,
                          cuarr_lua_context(S, c->devices[0])->reclaim};
  cuarr_status s = CUARR_OK;
  switch (w) {
  case ALL_REDUCE: s = cuarr_comm_all_reduce(c->c, &call, op); break;
  case REDUCE: s = cuarr_comm_reduce(c->c, &call, op, root); break;
  case BROADCAST: s = cuarr_comm_broadcast(c->c, &call, root); break;
  case ALL_GATHER: s = cuarr_comm_all_gather(c->c, &call); break;
  case REDUCE_SCATTER: s = cuarr_comm_reduce_scatter(c->c, &call, op); break;
  case ALL_TO_ALL: s = cuarr_comm_all_to_all(c->c, &call); break;
  }
  CUARR_LUA_TRY(L, s);
  return 0;
}

/* comm:all_reduce(parts, op[, {out=, streams=}]) */
static int comm_all_reduce(lua_State *L) {
  return collective(L, ALL_REDUCE, "all_reduce", 0, 3, 0, 4);
}
/* comm:reduce(parts, op, root[, {out=, streams=}]) */
static int comm_reduce(lua_State *L) { return collective(L, REDUCE, "reduce", 0, 3, 4, 5); }
/* comm:broadcast(parts, root[, {out=, streams=}]) */
static int comm_broadcast(lua_State *L) {
  return collective(L, BROADCAST, "broadcast", 0, 0, 3, 4);
}
/* comm:all_gather(parts, outs[, {streams=}]) */
static int comm_all_gather(lua_State *L) {
  return collective(L, ALL_GATHER, "all_gather", 3, 0, 0, 4);
}
/* comm:reduce_scatter(parts, outs, op[, {streams=}]) */
static int comm_reduce_scatter(lua_State *L) {
  return collective(L, REDUCE_SCATTER, "reduce_scatter", 3, 4, 0, 5);
}
/* comm:all_to_all(parts, outs[, {streams=}]) */
static int comm_all_to_all(lua_State *L) {
  return collective(L, ALL_TO_ALL, "all_to_all", 3, 0, 0, 4);
}

/* comm:send_recv({{src1, dst1}, {src2, dst2}, ...}[, {streams=}]) */
static int comm_send_recv(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  static const char *const fn = "send_recv";
  cuarr_lua_check_max_args(L, 3, fn);
  lua_comm *c = check_comm(L, 1, fn);
  lua_settop(L, 3);
  static const char *const keys[] = {"streams", NULL};
  check_call_options(L, 3, fn, keys);
  if (!lua_istable(L, 2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                           "%s: argument #1 must be a sequence of {source, destination} pairs, "
                           "got %s",
                           fn, luaL_typename(L, 2));
  lua_Integer n = cuarr_lua_len(L, 2, "pairs");
  if (n < 0 || n > 1 << 20)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: %lld pairs", fn, (long long)n);
  size_t bytes = (size_t)(n ? n : 1) * sizeof(cuarr_array);
  cuarr_array *src = lua_newuserdatauv(L, bytes, 0);
  cuarr_array *dst = lua_newuserdatauv(L, bytes, 0);
  cuarr_stream **streams = lua_newuserdatauv(L, CUARR_MAX_DEVICES * sizeof *streams, 0);
  lua_newtable(L);
  int keep = lua_gettop(L);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 2, i);
    int pair = lua_gettop(L);
    if (!lua_istable(L, pair) || cuarr_lua_to_array_in(L, S, pair))
      return cuarr_lua_error(L, CUARR_TYPE_ERROR,
                             "%s: pairs[%lld] must be a {source, destination} table, got %s", fn,
                             (long long)i, luaL_typename(L, pair));
    if (cuarr_lua_len(L, pair, "pair") != 2)
      return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                             "%s: pairs[%lld] must hold two arrays, source and destination", fn,
                             (long long)i);
    for (int k = 1; k <= 2; k++) {
      lua_geti(L, pair, k);
      cuarr_array *a = cuarr_lua_to_array_in(L, S, -1);
      if (!a)
        return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: pairs[%lld][%d] must be an array, got %s",
                               fn, (long long)i, k, luaL_typename(L, -1));
      cuarr_lua_check_live(L, a);
      (k == 1 ? src : dst)[i - 1] = *a;
      lua_rawseti(L, keep, (lua_Integer)lua_rawlen(L, keep) + 1);
    }
    lua_settop(L, keep);
  }
  read_streams(L, S, c, 3, keep, fn, streams);
  CUARR_LUA_TRY(L, cuarr_comm_send_recv(c->c, (int)n, src, dst, streams,
                                        cuarr_lua_context(S, c->devices[0])->reclaim));
  return 0;
}

/* comm:send(x, peer[, {stream=}]) and comm:recv(y, peer[, {stream=}]): a rank of one process
 * per device (in one process over several devices, send_recv posts each send with its receive:
 * a send alone would wait forever). */
static int one_way(lua_State *L, bool sending) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  const char *fn = sending ? "send" : "recv";
  cuarr_lua_check_max_args(L, 4, fn);
  lua_comm *c = check_comm(L, 1, fn);
  if (c->rank < 0)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "%s: a communicator of one process over several devices moves data "
                           "with comm:send_recv{{source, destination}, ...}, which posts each "
                           "send with its receive",
                           fn);
  lua_settop(L, 4);
  cuarr_array *a = cuarr_lua_to_array_in(L, S, 2);
  if (!a)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: argument #1 must be an array, got %s", fn,
                           luaL_typename(L, 2));
  cuarr_lua_check_live(L, a);
  lua_Integer peer = cuarr_lua_check_integer(L, 3, "peer");
  if (peer < 0 || peer >= c->world || peer == c->rank)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR,
                           "%s: peer %lld is not another rank (0 to %d; this one is %d)", fn,
                           (long long)peer, c->world - 1, c->rank);
  static const char *const keys[] = {"stream", NULL};
  check_call_options(L, 4, fn, keys);
  lua_newtable(L);
  int keep = lua_gettop(L);
  cuarr_stream *streams[CUARR_MAX_DEVICES];
  read_streams(L, S, c, 4, keep, fn, streams);
  cuarr_array arr = *a;
  cuarr_reclaim reclaim = cuarr_lua_context(S, c->devices[0])->reclaim;
  CUARR_LUA_TRY(L, sending ? cuarr_comm_send(c->c, &arr, (int)peer, streams[0], reclaim)
                           : cuarr_comm_recv(c->c, &arr, (int)peer, streams[0], reclaim));
  return 0;
}

static int comm_send(lua_State *L) { return one_way(L, true); }
static int comm_recv(lua_State *L) { return one_way(L, false); }

/* comm:destroy(), <close> and __gc: idempotent. */
static int comm_close(lua_State *L) {
  lua_comm *c = check_comm_object(L, 1);
  cuarr_comm *inner = c->c;
  c->c = NULL;
  if (inner)
    CUARR_LUA_TRY(L, cuarr_comm_destroy(inner));
  return 0;
}

static int comm_destroy(lua_State *L) {
  check_comm_object(L, 1);
  cuarr_lua_check_max_args(L, 1, "destroy");
  return comm_close(L);
}

static int comm_gc(lua_State *L) {
  lua_comm *c = check_comm_object(L, 1);
  cuarr_comm *inner = c->c;
  c->c = NULL;
  if (inner)
    cuarr_comm_destroy(inner); /* nowhere to raise from a finaliser */
  return 0;
}

static int comm_tostring(lua_State *L) {
  lua_comm *c = check_comm_object(L, 1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "<cuarr.Communicator ");
  if (!c->c)
    luaL_addstring(&b, "destroyed ");
  if (c->rank >= 0)
    lua_pushfstring(L, "rank %d of %d on device ", c->rank, c->world);
  else
    lua_pushfstring(L, "%d rank%s on devices ", c->n, c->n == 1 ? "" : "s");
  luaL_addvalue(&b);
  for (int r = 0; r < c->n; r++) {
    lua_pushfstring(L, r ? ", %d" : "%d", c->devices[r]);
    luaL_addvalue(&b);
  }
  luaL_addstring(&b, ">");
  luaL_pushresult(&b);
  return 1;
}

static void field_size(lua_State *L, void *self) { lua_pushinteger(L, ((lua_comm *)self)->world); }

/* One rank per process: its rank and its Device; nil for one process over several devices. */
static void field_rank(lua_State *L, void *self) {
  const lua_comm *c = self;
  if (c->rank < 0)
    lua_pushnil(L);
  else
    lua_pushinteger(L, c->rank);
}

static void field_device(lua_State *L, void *self) {
  const lua_comm *c = self;
  if (c->rank < 0)
    lua_pushnil(L);
  else
    cuarr_lua_push_device(L, c->devices[0]);
}

static void field_devices(lua_State *L, void *self) {
  const lua_comm *c = self;
  lua_createtable(L, c->n, 0);
  for (int r = 0; r < c->n; r++) {
    cuarr_lua_push_device(L, c->devices[r]);
    lua_rawseti(L, -2, r + 1);
  }
}

static void field_destroyed(lua_State *L, void *self) {
  lua_pushboolean(L, ((lua_comm *)self)->c == NULL);
}

static const luaL_Reg comm_methods[] = {
    {"all_reduce", comm_all_reduce},
    {"reduce", comm_reduce},
    {"broadcast", comm_broadcast},
    {"all_gather", comm_all_gather},
    {"reduce_scatter", comm_reduce_scatter},
    {"all_to_all", comm_all_to_all},
    {"send_recv", comm_send_recv},
    {"send", comm_send},
    {"recv", comm_recv},
    {"destroy", comm_destroy},
    {NULL, NULL},
};

static const luaL_Reg comm_metamethods[] = {
    {"__gc", comm_gc},
    {"__close", comm_close},
    {"__tostring", comm_tostring},
    {NULL, NULL},
};

static const cuarr_lua_field comm_fields[] = {
    {"size", field_size},     {"devices", field_devices},     {"rank", field_rank},
    {"device", field_device}, {"destroyed", field_destroyed}, {NULL, NULL},
};

const cuarr_lua_class cuarr_lua_communicator_class = {
    .id = CUARR_LUA_COMMUNICATOR_CLASS,
    .name = "Communicator",
    .metatable = CUARR_LUA_COMMUNICATOR_MT,
    .methods = comm_methods,
    .metamethods = comm_metamethods,
    .fields = comm_fields,
    .check = check_comm_object,
    .no_such_key = "Communicator has no field or method '%s'",
    .extendable = true,
};

/* core.distributed = {init = ...}: the front end (lua/cuarr/distributed.lua) completes it. */
void cuarr_lua_open_comm(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"init", l_init},
      {NULL, NULL},
  };
  lua_newtable(L);
  cuarr_lua_set_functions(L, m, -1, functions);
  lua_setfield(L, m->functions, "distributed");
}
