/*
 * binding.h -- what the files of the Lua binding share.
 *
 * The binding is thin: it checks arguments, converts between Lua values and the core's
 * structures, calls the core and pushes results.  Failures become error objects:
 * tables {kind=, message=} with a __tostring, raised with lua_error.
 *
 * Every function of the module is a C closure whose first upvalue is the per-lua_State
 * binding state (current device, current streams, GC accounting): no globals.  The classes
 * are described in classes.h; every other part of the binding opens through one function,
 * cuarr_lua_open_<part>(L, m), which puts its functions in the module's tables (and its
 * methods in its classes).
 */
#ifndef CUARR_LUA_BINDING_H
#define CUARR_LUA_BINDING_H

#include <lauxlib.h>
#include <lua.h>

#include "args.h"
#include "classes.h"
#include "cuarr.h"
#include "options.h"

#define CUARR_LUA_ARRAY_MT "cuarr.ndarray"
#define CUARR_LUA_TUPLE_MT "cuarr.tuple" /* the metatable of a.shape and a.strides */
#define CUARR_LUA_DEVICE_MT "cuarr.Device"
#define CUARR_LUA_STREAM_MT "cuarr.Stream"
#define CUARR_LUA_EVENT_MT "cuarr.Event"
#define CUARR_LUA_POOL_MT "cuarr.MemoryPool"
#define CUARR_LUA_ERROR_MT "cuarr.Error"
#define CUARR_LUA_PINNED_SCOPE_MT "cuarr.PinnedScope"
#define CUARR_LUA_GRAPH_MT "cuarr.Graph"
#define CUARR_LUA_DEFER_GUARD_MT "cuarr.DeferCleanup"
#define CUARR_LUA_AUTO_SYNC_MT "cuarr.AutoSynchronize"
#define CUARR_LUA_COMMUNICATOR_MT "cuarr.Communicator"

/* ---- state.c */
/* Addresses of array userdata recognised lately (cuarr_lua_to_array_in): a hit needs no
 * metatable lookup.  One per Lua state, in its registry, shared by every load of the module
 * there (all share the array metatable, whose __gc is the last load's); an array's __gc removes
 * it, so an address here is always a userdata not yet collected. */
enum { CUARR_LUA_KNOWN_ARRAYS = 4 };
typedef struct cuarr_lua_known_arrays {
  const void *at[CUARR_LUA_KNOWN_ARRAYS];
  unsigned next;
} cuarr_lua_known_arrays;

/* The binding state: one per lua_State, made by the first load of the module there and found
 * again (in the registry) by every later load, so that all loads share the current device and
 * streams and their functions keep alive what they use.  Its user values are the tables of
 * Stream objects that must live as long as it does. */
enum {
  CUARR_LUA_CURRENT_STREAMS = 1, /* user value: device id -> the current Stream object */
  CUARR_LUA_NULL_STREAMS,        /* user value: device id -> the null Stream object */
  CUARR_LUA_STATE_USER_VALUES = CUARR_LUA_NULL_STREAMS
};
typedef struct cuarr_lua_state {
  lua_State *main;                          /* the main thread, for garbage collections */
  bool counted;                             /* among the lua_States with the module open */
  int device;                               /* current device ordinal */
  cuarr_stream *stream[CUARR_MAX_DEVICES];  /* current stream per device; NULL: null stream */
  size_t since_gc;                          /* device bytes allocated since the last GC step */
  cuarr_dtype default_float;                /* dtype of Lua floats and of float creations */
  cuarr_matmul_precision matmul_precision;  /* set_matmul_precision's (zero: "highest") */
  const void *array_mt;                     /* this Lua state's array metatable (lua_topointer) */
  int array_mt_ref;                         /* and its reference in the registry */
  cuarr_lua_known_arrays *known;            /* the Lua state's recently recognised arrays */
  cuarr_context ctx;                        /* filled by cuarr_lua_context() */
  const void *class_mt[CUARR_LUA_NCLASSES]; /* each class's metatable, by its id */
  /* defer_cleanup (graph.c): open scopes per device, and the hold the outermost one opened */
  int defer_depth[CUARR_MAX_DEVICES];
  cuarr_hold *deferred[CUARR_MAX_DEVICES];
} cuarr_lua_state;

#define CUARR_LUA_STATE(L) ((cuarr_lua_state *)lua_touserdata((L), lua_upvalueindex(1)))

/* Push the lua_State's binding state (a userdata), made on the first call.  When the last
 * lua_State that has one is closed, what the core caches goes back (cuarr_release_cached_memory).
 */
cuarr_lua_state *cuarr_lua_state_push(lua_State *L);
/* A context for work on `device`: its current stream and the GC reclaim hook. */
cuarr_context *cuarr_lua_context(cuarr_lua_state *S, int device);
/* Pass the warnings the core queued on this thread to lua_warning. */
void cuarr_lua_flush_warnings(lua_State *L);
/* Count newly allocated device (or pinned) bytes; steps Lua's GC in proportion. */
void cuarr_lua_account(lua_State *L, cuarr_lua_state *S, size_t nbytes);
/* The current device, checked to exist (raises NotAvailable without a driver). */
int cuarr_lua_current_device(lua_State *L, cuarr_lua_state *S);

/* ---- module.c: where each part opens (absolute stack indices) */
typedef struct cuarr_lua_module {
  int state;     /* the binding state: upvalue 1 of every function */
  int functions; /* the module table: functions that work on the current device */
  int cpu;       /* cuarr.cpu: the functions that make host arrays */
} cuarr_lua_module;

/* Put the functions of `list` (closures with the state as upvalue 1) in the table at idx. */
void cuarr_lua_set_functions(lua_State *L, const cuarr_lua_module *m, int idx,
                             const luaL_Reg *list);

/* ---- errors.c (args.h: the argument and option readers) */
/* Raise an error object of the given kind. */
int cuarr_lua_error(lua_State *L, cuarr_status kind, const char *fmt, ...);
/* Raise an error object of the given kind whose message is the string at idx, as it is. */
int cuarr_lua_error_message_at(lua_State *L, cuarr_status kind, int idx);
/* Raise the core's last failure (kind from s, message from cuarr_last_error()). */
int cuarr_lua_fail(lua_State *L, cuarr_status s);
/* set_front_end(folder): the chunk-name prefix of the front end's files, whose levels an
 * error's place skips (the place is the user's call, not cuarr's own Lua). */
int cuarr_lua_l_set_front_end(lua_State *L);
/* Raise the core's failure if s != CUARR_OK. */
#define CUARR_LUA_TRY(L, expr)                                                                     \
  do {                                                                                             \
    cuarr_status cuarr_lua_try_s_ = (expr);                                                        \
    if (cuarr_lua_try_s_ != CUARR_OK)                                                              \
      cuarr_lua_fail((L), cuarr_lua_try_s_);                                                       \
  } while (0)

/* ---- ndarray.c */
/* A live array, or raise. */
cuarr_array *cuarr_lua_check_array(lua_State *L, int idx);
/* An array userdata (maybe closed/freed), else NULL; cuarr_lua_to_array_in for a caller that
 * has S. */
cuarr_array *cuarr_lua_to_array(lua_State *L, int idx);
cuarr_array *cuarr_lua_to_array_in(lua_State *L, const cuarr_lua_state *S, int idx);
/* a itself, unless closed or freed (then raise). */
cuarr_array *cuarr_lua_check_live(lua_State *L, cuarr_array *a);
/* Push a new array userdata, zeroed (no buffer): fill it in place, so the GC owns it even if
 * an error is raised halfway.  base_idx: the stack index of the array it views, or 0. */
cuarr_array *cuarr_lua_push_array(lua_State *L, int base_idx);
/* Push a new array of the given layout on device (CUARR_HOST: host memory). */
cuarr_array *cuarr_lua_new_array(lua_State *L, cuarr_lua_state *S, int device, cuarr_dtype dtype,
                                 int ndim, const int64_t *shape, bool pinned);
/* Raise unless the array lives on the current device (host arrays always pass). */
void cuarr_lua_check_on_current_device(lua_State *L, cuarr_lua_state *S, const cuarr_array *a);
/* Argument idx of function fn as an operand: an array (TypeError otherwise), live, on the
 * current device. */
cuarr_array *cuarr_lua_array_arg(lua_State *L, cuarr_lua_state *S, int idx, const char *fn);
void cuarr_lua_push_device(lua_State *L, int device); /* a Device object (or the string "cpu") */

/* ---- tuple.c: a.shape and a.strides, sequences that print as (2, 3) */
/* Push the n integers of v as a read-only sequence (a proxy that refuses writes). */
void cuarr_lua_push_tuple(lua_State *L, int n, const int64_t *v);
/* Replace the value at idx by the plain table of its extents when it is such a sequence, so
 * that code reading a list raw (lua_rawlen, lua_rawgeti) reads a.shape as it reads a table. */
void cuarr_lua_tuple_items(lua_State *L, int idx);

/* ---- indexing.c: the array's __index for keys that are not strings, and its __newindex */
int cuarr_lua_array_index_key(lua_State *L);
int cuarr_lua_array_newindex(lua_State *L);
/* Push cuarr.newaxis, the index entry that adds an axis of extent 1. */
void cuarr_lua_push_newaxis(lua_State *L);

/* ---- convert.c */
/* Push the element at p (host memory) as a Lua value. */
void cuarr_lua_push_element(lua_State *L, const void *p, cuarr_dtype dtype);
/* Build a host array from a Lua value (number, boolean, nested table); dtype may be -1 to
 * infer it.  Pushes the array. */
cuarr_array *cuarr_lua_host_array_from_lua(lua_State *L, cuarr_lua_state *S, int idx, int dtype);
/* Push nested tables (or a single value for 0-d) of a host array. */
/* An OutOfMemoryError when the nested Lua table of a's elements cannot be made (an extent past
 * a Lua table's 2^31, or more bytes than the host has: a broadcast view's), before any work. */
void cuarr_lua_check_table_size(lua_State *L, const cuarr_array *a);
void cuarr_lua_push_table(lua_State *L, const cuarr_array *h);

/* ---- stream.c: a Stream userdata (cuarr_stream first, so it can be read as one) */
typedef struct cuarr_lua_stream {
  cuarr_stream s;
  bool destroyed;
} cuarr_lua_stream;
/* An optional Stream argument: NULL for nil, else a live Stream (or raise). */
cuarr_stream *cuarr_lua_opt_stream(lua_State *L, int idx);

/* ---- event.c: an Event userdata */
typedef struct cuarr_lua_event {
  cuarr_event e;
  bool recorded; /* get_elapsed_time needs both events recorded */
} cuarr_lua_event;
/* The live Event at idx, or raise. */
cuarr_lua_event *cuarr_lua_check_event(lua_State *L, int idx);
/* Push a new Event on device dev. */
int cuarr_lua_push_event(lua_State *L, int dev, bool timing, bool blocking);

/* ---- transfer.c */
/* Copy src into dst with the right context (current stream of the device involved). */
void cuarr_lua_copy_into(lua_State *L, cuarr_lua_state *S, const cuarr_array *dst,
                         const cuarr_array *src, cuarr_stream *stream);

/* ---- the parts, in the order module.c opens them */
void cuarr_lua_open_ndarray(lua_State *L, const cuarr_lua_module *m);   /* ndarray.c */
void cuarr_lua_open_devices(lua_State *L, const cuarr_lua_module *m);   /* device.c */
void cuarr_lua_open_streams(lua_State *L, const cuarr_lua_module *m);   /* stream.c */
void cuarr_lua_open_graphs(lua_State *L, const cuarr_lua_module *m);    /* graph.c */
void cuarr_lua_open_events(lua_State *L, const cuarr_lua_module *m);    /* event.c */
void cuarr_lua_open_pools(lua_State *L, const cuarr_lua_module *m);     /* pool.c */
void cuarr_lua_open_transfers(lua_State *L, const cuarr_lua_module *m); /* transfer.c */
void cuarr_lua_open_shape_ops(lua_State *L, const cuarr_lua_module *m); /* shape_ops.c */
void cuarr_lua_open_elementwise_kernels(lua_State *L, const cuarr_lua_module *m);
void cuarr_lua_open_reduction_kernels(lua_State *L, const cuarr_lua_module *m);
void cuarr_lua_open_raw_kernels(lua_State *L, const cuarr_lua_module *m); /* raw_kernel.c */
void cuarr_lua_open_creations(lua_State *L, const cuarr_lua_module *m);   /* creation.c */
void cuarr_lua_open_ufuncs(lua_State *L, const cuarr_lua_module *m);      /* ufuncs.c */
void cuarr_lua_open_reductions(lua_State *L, const cuarr_lua_module *m);  /* reductions.c */
void cuarr_lua_open_pinned(lua_State *L, const cuarr_lua_module *m);      /* pinned.c */
void cuarr_lua_open_cuda_array_interface(lua_State *L, const cuarr_lua_module *m);
void cuarr_lua_open_random(lua_State *L, const cuarr_lua_module *m);    /* random.c */
void cuarr_lua_open_products(lua_State *L, const cuarr_lua_module *m);  /* products.c */
void cuarr_lua_open_linalg(lua_State *L, const cuarr_lua_module *m);    /* linalg.c */
void cuarr_lua_open_join(lua_State *L, const cuarr_lua_module *m);      /* join.c */
void cuarr_lua_open_mask(lua_State *L, const cuarr_lua_module *m);      /* mask.c */
void cuarr_lua_open_rearrange(lua_State *L, const cuarr_lua_module *m); /* rearrange.c */
void cuarr_lua_open_sort(lua_State *L, const cuarr_lua_module *m);      /* sort.c */
void cuarr_lua_open_take(lua_State *L, const cuarr_lua_module *m);      /* take.c */
void cuarr_lua_open_histogram(lua_State *L, const cuarr_lua_module *m); /* histogram.c */
void cuarr_lua_open_comm(lua_State *L, const cuarr_lua_module *m);      /* comm.c */

/* ---- mask.c */
/* fn(a) (nonzero, where with one argument): the 1-based indices of a's nonzero elements, one
 * int64 array per axis, pushed; returns a's ndim. */
int cuarr_lua_nonzero(lua_State *L, const char *fn);

/* ---- cuda_array_interface.c */
/* The field a.__cuda_array_interface__ of the array self (nil for a host array). */
void cuarr_lua_push_cuda_array_interface(lua_State *L, void *self);

#endif
