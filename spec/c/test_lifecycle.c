/* test_lifecycle.c -- the module's life in a host process: loaded twice in one state, and
 * opened, used and closed with its state in a loop.
 *
 * A reload in one state must not let the first load's functions use a Stream the state no
 * longer keeps alive.  A state closed after work must leave nothing behind once it was the last
 * to have the module open: the process's heap stays flat from cycle to cycle and the default
 * pools hold no memory.  The device paths run on the fake driver of tools/fake_cuda (the
 * Makefile passes its path as CUARR_FAKE_LIBCUDA): its device memory is host memory, so what
 * the pools keep shows in the heap too. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctest.h"
#include "cuarr.h"
#include "lua_host.h"

/* Run chunk; prints its error and returns false when it fails. */
static bool run(lua_State *L, const char *chunk) {
  if (luaL_loadstring(L, chunk) == LUA_OK && lua_pcall(L, 0, 0, 0) == LUA_OK)
    return true;
  const char *msg = luaL_tolstring(L, -1, NULL);
  fprintf(stderr, "lua error: %s\n", msg);
  lua_pop(L, 2);
  return false;
}

/* A new state with the module's C half preloaded and the front end on the path. */
static lua_State *open_state(void) {
  lua_State *L = luaL_newstate();
  if (!lua_host_prepare(L))
    fprintf(stderr, "lua error: %s\n", lua_tostring(L, -1));
  return L;
}

/* Host work: creations, ufuncs, reductions, views, explicit frees, <close>. */
static const char host_work[] = "local cuarr = require 'cuarr'\n"
                                "local cpu = cuarr.cpu\n"
                                "for i = 1, 20 do\n"
                                "  local a = cpu.arange(300, 'float32')\n"
                                "  local b = a * 2 + 1\n"
                                "  assert(b:sum():item() == 300 * 299 + 300)\n"
                                "  local v = b[{ {11, 20} }]\n"
                                "  assert(v:max():item() == 39)\n"
                                "  local m <close> = cpu.ones({10, 30}, 'float64')\n"
                                "  assert(m:sum(1)[3] == 10 and m:transpose().shape[1] == 30)\n"
                                "  local t = cpu.array({ {1, 2}, {3, 4} }):reshape(4)\n"
                                "  assert(t[4] == 4)\n"
                                "  b:free()\n"
                                "end\n";

/* Device work on the fake driver (results are not checked: kernels never run there): arrays
 * on the null stream and on a Stream of this cycle, transfers, pinned memory, the pools. */
static const char device_work[] =
    "local cuarr = require 'cuarr'\n"
    "assert(cuarr.is_available())\n"
    "local keep = {}\n"
    "for i = 1, 10 do\n"
    "  local s = cuarr.Stream{}\n"
    "  s:use()\n"
    "  local d = cuarr.empty(4096, 'float32')\n"
    "  local e = cuarr.asarray(cuarr.cpu.ones(1000, 'float32'))\n"
    "  local p = cuarr.cpu.empty(20000, 'float64', { pinned = true })\n"
    "  local h = e:get()\n"
    "  keep[#keep + 1] = cuarr.empty(100000 + i * 512, 'uint8')\n"
    "  cuarr.null_stream():use()\n"
    "end\n"
    "assert(cuarr.get_default_memory_pool():used_bytes() > 0)\n"
    "assert(cuarr.get_default_pinned_memory_pool():total_bytes() > 0)\n";

/* Bytes of the C heap in use, mapped chunks included.  glibc counts the blocks its per-thread
 * cache keeps as in use, which fills up over many cycles: main() runs the test with that cache
 * off, so that only what the program holds is counted. */
static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static bool cycle(const char *work) {
  lua_State *L = open_state();
  bool ok = run(L, work);
  lua_close(L);
  return ok;
}

/* Growth of the heap over `n` cycles of work, after `warm` cycles. */
static long heap_growth(const char *work, int warm, int n, bool *all_ok) {
  for (int i = 0; i < warm; i++)
    *all_ok &= cycle(work);
  size_t before = heap_in_use();
  for (int i = 0; i < n; i++)
    *all_ok &= cycle(work);
  return (long)heap_in_use() - (long)before;
}

/* Finding 3: a Stream made current through the first load stays alive (and current) for that
 * load's functions after a second load of the module in the same state. */
static void reload_keeps_current_stream(void) {
  lua_State *L = open_state();
  CHECK(run(L, "first = require 'cuarr'\n"
               "first.Stream{}:use()\n"
               "device = first.empty(1).device\n"
               "package.loaded.cuarr = nil\n"
               "package.loaded['cuarr.core'] = nil\n"
               "second = require 'cuarr'\n"
               "assert(second ~= first)\n"
               "collectgarbage(); collectgarbage()\n"
               "assert(not first.get_current_stream().is_null, 'the current stream was lost')\n"
               "local a = first.empty(1000, 'float32')\n"
               "local b = first.zeros(10) + 1\n"
               "assert(rawequal(first.get_current_stream(), second.get_current_stream()))\n"
               "second.null_stream():use()\n"
               "collectgarbage(); collectgarbage()\n"
               "assert(first.get_current_stream().is_null)\n"
               "local c = first.empty(1000, 'float32')\n"
               "assert(rawequal(second.empty(1).device, device), 'a second Device object')"),
        "a reloaded module shares its state's current stream, kept alive, and Device objects");
  CHECK(run(L, "package.loaded.cuarr = nil\n"
               "local third = require 'cuarr'\n"
               "third.set_default_dtype('float32')\n"
               "assert(first.array({1.5}).dtype == 'float32')\n"
               "third.set_default_dtype('float64')"),
        "every load of the module in one state shares that state's settings");
  lua_close(L);
}

/* Several states open at once, closed in another order than opened: the pools keep what the
 * open ones use. */
static void states_overlap(void) {
  lua_State *a = open_state(), *b = open_state();
  CHECK(run(a, "cuarr = require 'cuarr'; kept = cuarr.empty(5000, 'float32')"),
        "state A has a device array");
  CHECK(run(b, "cuarr = require 'cuarr'; local t = cuarr.empty(3000, 'float32')"),
        "state B works beside it");
  lua_close(b);
  CHECK(cuarr_pool_used_bytes(cuarr_device_pool(0)) >= 5000 * 4,
        "closing B leaves A's array in the pool");
  CHECK(run(a, "assert(kept:get().size == 5000); local more = cuarr.zeros(100)"),
        "A still works after B closed");
  lua_close(a);
}

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("CUARR_TEST_LIFECYCLE_EXEC")) {
    setenv("CUARR_TEST_LIFECYCLE_EXEC", "1", 1);
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
    execv("/proc/self/exe", argv); /* returns only when it fails: measure with the cache on */
  }
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_DIR", CUARR_TEST_CACHE_DIR, 1);
  unsetenv("CUARR_GPU_MEMORY_LIMIT");

  reload_keeps_current_stream();
  states_overlap();

  bool all_ok = true;
  long host_growth = heap_growth(host_work, 5, 20, &all_ok);
  CHECK(all_ok, "host work runs in every cycle");
  printf("# host cycles: heap grew %ld bytes over 20 cycles\n", host_growth);
  CHECK(host_growth < 1024, "a state opened, used on the host and closed leaves nothing behind");

  all_ok = true;
  long device_growth = heap_growth(device_work, 5, 20, &all_ok);
  CHECK(all_ok, "device work runs in every cycle");
  printf("# device cycles: heap grew %ld bytes over 20 cycles\n", device_growth);
  CHECK(device_growth < 1024,
        "a state opened, used on the (fake) device and closed leaves nothing behind");

  cuarr_pool *dev = cuarr_device_pool(0), *pinned = cuarr_pinned_pool();
  CHECK(dev && cuarr_pool_used_bytes(dev) == 0 && cuarr_pool_total_bytes(dev) == 0,
        "the device pool holds nothing after the last state closed");
  CHECK(pinned && cuarr_pool_used_bytes(pinned) == 0 && cuarr_pool_total_bytes(pinned) == 0,
        "the pinned pool holds nothing after the last state closed");
  return ctest_done();
}
