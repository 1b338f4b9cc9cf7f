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
#include <string.h>

#include "binding.h"

/* Step the GC after this much device memory has been allocated. */
enum { GC_STEP_BYTES = 256 << 20 };

lstate *lstate_new(lua_State *L) {
  lstate *S = lua_newuserdatauv(L, sizeof *S, 0);
  memset(S, 0, sizeof *S);
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  S->main = lua_tothread(L, -1);
  lua_pop(L, 1);
  S->default_float = CUARR_FLOAT64;
  return S;
}

static void reclaim(void *ud) {
  lstate *S = ud;
  lua_gc(S->main, LUA_GCCOLLECT);
  S->since_gc = 0;
}

static cuarr_reclaim lstate_reclaim(lstate *S) {
  cuarr_reclaim r = {reclaim, S};
  return r;
}

void lstate_flush_warnings(lua_State *L) {
  const char *w;
  while ((w = cuarr_take_warning()) != NULL) lua_warning(L, w, 0);
}

cuarr_context *lstate_context(lstate *S, int device) {
  /* Warnings the core queued on this thread (an unwritable kernel cache, ...) reach Lua's
   * warning system at the next call at the latest. */
  lstate_flush_warnings(S->main);
  S->ctx.stream = device >= 0 && device < CUARR_MAX_DEVICES ? S->stream[device] : NULL;
  S->ctx.reclaim = lstate_reclaim(S);
  return &S->ctx;
}

void lstate_account(lua_State *L, lstate *S, size_t nbytes) {
  S->since_gc += nbytes;
  if (S->since_gc >= GC_STEP_BYTES) {
    size_t kb = S->since_gc / 1024;
    S->since_gc = 0;
    lua_gc(L, LUA_GCSTEP, kb > 1 << 30 ? 1 << 30 : (int)kb);
  }
}

int lstate_device(lua_State *L, lstate *S) {
  LTRY(L, cuarr_device_check(S->device));
  return S->device;
}
