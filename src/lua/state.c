/*
 * state.c -- what the binding keeps per lua_State: the current device and streams, and the
 * accounting that lets Lua's garbage collector see device memory.
 *
 * Lua's GC counts only its own heap: a loop that drops 1 GiB device arrays looks to it like a
 * loop that drops a few hundred bytes.  So every device allocation is counted here, and once
 * enough has been allocated the GC is stepped as if that much Lua memory had been: temporaries
 * are collected long before the device runs out.  When it does run out anyway, the pool calls
 * reclaim() (a full collection) before giving up.
 */
#include <pthread.h>
#include <string.h>

#include "binding.h"

#define STATE_KEY "cuarr.state" /* registry: the lua_State's binding state */

/* Step the GC after this much device memory has been allocated, counting every allocation as
 * at least GC_MIN_BYTES: Lua sees a few hundred bytes per array, so without a floor a loop of
 * small temporaries piles up thousands of unfinalized arrays between collections, and every one
 * past the pool's free blocks is a new cuMemAlloc.  With the floor a step comes at least every
 * 1024 arrays; under tools/fake_cuda, 120 000 `c = a + b` of 1000 float32 in six rounds made
 * 7501 cuMemAllocs without it and 1029 with it (the pool stops growing after the first rounds),
 * 1.03 -> 0.65 us an op (generational GC; incremental: 0.80 -> 0.61). */
enum { GC_STEP_BYTES = 256 << 20, GC_MIN_BYTES = 256 << 10 };

/* The lua_States of the process that have the module open.  When the last is closed no array
 * of the binding is left, and the pools' free memory, pinned memory included, goes back to the
 * driver: a host that opens and closes states in a loop does not keep a pool per state's
 * streams.  The module and kernel caches stay, bounded, for the next state.  The lock also
 * orders a release with a state opened at the same time on another thread. */
static pthread_mutex_t open_states_lock = PTHREAD_MUTEX_INITIALIZER;
static int open_states;

/* __gc of the binding state: it is made before any object of the module in its lua_State, so
 * lua_close finalizes it after all of them (Lua runs finalizers newest first). */
static int state_gc(lua_State *L) {
  cuarr_lua_state *S = lua_touserdata(L, 1);
  if (!S || !S->counted)
    return 0;
  S->counted = false;
  pthread_mutex_lock(&open_states_lock);
  if (--open_states == 0)
    cuarr_release_cached_memory();
  pthread_mutex_unlock(&open_states_lock);
  return 0;
}

cuarr_lua_state *cuarr_lua_state_push(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, STATE_KEY) == LUA_TUSERDATA)
    return lua_touserdata(L, -1);
  lua_pop(L, 1);
  cuarr_lua_state *S = lua_newuserdatauv(L, sizeof *S, CUARR_LUA_STATE_USER_VALUES);
  memset(S, 0, sizeof *S);
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  S->main = lua_tothread(L, -1);
  lua_pop(L, 1);
  S->default_float = CUARR_FLOAT64;
  S->array_mt_ref = LUA_NOREF;
  for (int i = 1; i <= CUARR_LUA_STATE_USER_VALUES; i++) {
    lua_newtable(L);
    lua_setiuservalue(L, -2, i);
  }
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, state_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, STATE_KEY);
  pthread_mutex_lock(&open_states_lock);
  open_states++;
  pthread_mutex_unlock(&open_states_lock);
  S->counted = true;
  return S;
}

static void reclaim(void *ud) {
  cuarr_lua_state *S = ud;
  lua_gc(S->main, LUA_GCCOLLECT);
  S->since_gc = 0;
}

static cuarr_reclaim state_reclaim(cuarr_lua_state *S) {
  cuarr_reclaim r = {reclaim, S};
  return r;
}

void cuarr_lua_flush_warnings(lua_State *L) {
  const char *w;
  while ((w = cuarr_take_warning()) != NULL)
    lua_warning(L, w, 0);
}

cuarr_context *cuarr_lua_context(cuarr_lua_state *S, int device) {
  /* Warnings the core queued on this thread (an unwritable kernel cache, ...) reach Lua's
   * warning system at the next call at the latest. */
  cuarr_lua_flush_warnings(S->main);
  S->ctx.stream = device >= 0 && device < CUARR_MAX_DEVICES ? S->stream[device] : NULL;
  S->ctx.reclaim = state_reclaim(S);
  return &S->ctx;
}

void cuarr_lua_account(lua_State *L, cuarr_lua_state *S, size_t nbytes) {
  S->since_gc += nbytes < GC_MIN_BYTES ? GC_MIN_BYTES : nbytes;
  if (S->since_gc >= GC_STEP_BYTES) {
    size_t kb = S->since_gc / 1024;
    S->since_gc = 0;
    lua_gc(L, LUA_GCSTEP, kb > 1 << 30 ? 1 << 30 : (int)kb);
  }
}

int cuarr_lua_current_device(lua_State *L, cuarr_lua_state *S) {
  CUARR_LUA_TRY(L, cuarr_device_check(S->device));
  return S->device;
}
