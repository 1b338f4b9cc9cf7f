/* test_threads.c -- several lua_States on several threads at once, each with the module open:
 * host arrays (results checked), device arrays on the fake driver of tools/fake_cuda (calls
 * must succeed; kernels never run there, so their results are not checked), ufuncs,
 * reductions, scans, an ElementwiseKernel, streams, events and the pools (free_all_blocks too),
 * while other threads open and close states of their own.  `make sanitize` runs it under
 * ThreadSanitizer too. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"
#include "lua_host.h"

enum { WORKERS = 4, ROUNDS = 6, CHURNERS = 2, CHURN_CYCLES = 12 };

static atomic_int failures;

/* Run chunk with the integer argument `seed`; prints its error and returns false on failure. */
static bool run(lua_State *L, const char *chunk, int seed) {
  if (luaL_loadstring(L, chunk) == LUA_OK) {
    lua_pushinteger(L, seed);
    if (lua_pcall(L, 1, 0, 0) == LUA_OK)
      return true;
  }
  fprintf(stderr, "thread %d: %s\n", seed, luaL_tolstring(L, -1, NULL));
  lua_pop(L, 2);
  atomic_fetch_add(&failures, 1);
  return false;
}

static lua_State *open_state(void) {
  lua_State *L = luaL_newstate();
  if (!lua_host_prepare(L)) {
    fprintf(stderr, "lua error: %s\n", lua_tostring(L, -1));
    atomic_fetch_add(&failures, 1);
  }
  return L;
}

/* Host work whose every result is known. */
static const char host_work[] =
    "local seed = ...\n"
    "local cpu = require('cuarr').cpu\n"
    "for i = 1, 25 do\n"
    "  local n = 100 + (seed * 7 + i) % 50\n"
    "  local a = cpu.arange(n, 'float64')\n"
    "  local b = a * 2 + seed\n"
    "  assert(b:sum():item() == n * (n - 1) + seed * n, 'sum')\n"
    "  assert(b[{ {2, n, 2} }]:max():item() == 2 * (n - 1 - (n % 2)) + seed, 'strided max')\n"
    "  assert(a:cumsum()[n] == n * (n - 1) / 2, 'cumsum')\n"
    "  local m = cpu.ones({4, n}, 'float32'):sum(1)\n"
    "  assert(m.shape[1] == n and m[n] == 4, 'axis sum')\n"
    "  local t = (a:astype('int32') % 3):reshape(1, n)\n"
    "  assert(t:max():item() == 2 and t[{1, 3}] == 2, 'int ops')\n"
    "  local k <close> = cpu.zeros(n)\n"
    "  assert(cpu.less(a, 10):sum():item() == 10, 'comparison')\n"
    "end\n";

/* Device work on the fake driver: every call must succeed. */
static const char device_work[] =
    "local seed = ...\n"
    "local cuarr = require 'cuarr'\n"
    "local twice = cuarr.ElementwiseKernel('float32 x', 'float32 y', 'y = x * 2', 'twice')\n"
    "local s = cuarr.Stream{ non_blocking = seed % 2 == 0 }\n"
    "s:use()\n"
    "for i = 1, 8 do\n"
    "  local d = cuarr.arange(1000 + seed, 'float32')\n"
    "  local e = d * 2 + d\n"
    "  local r = e:sum()\n"
    "  local c = twice(e)\n"
    "  local v = c[{ {2, 900, 3} }]:max(); v:item()\n"
    "  local h = e:get()\n"
    "  assert(h.size == 1000 + seed)\n"
    "  local p = cuarr.cpu.ones(500, 'float32', { pinned = true })\n"
    "  local x = cuarr.asarray(p)\n"
    "  d:free()\n"
    "end\n"
    "-- dtypes the warm-up did not compile: first uses race in the kernel caches\n"
    "local dt = ({ 'float64', 'int32', 'int16', 'uint8' })[seed % 4 + 1]\n"
    "local y = cuarr.ones({ 3, 50 }, dt) * 3 - 1\n"
    "local z = y:sum(2); z:get()\n"
    "local w = cuarr.arange(300, 'float32'):cumsum()\n"
    "local ev = s:record(); ev:synchronize()\n"
    "local pool = cuarr.get_default_memory_pool()\n"
    "pool:free_all_blocks(); assert(pool:total_bytes() >= pool:used_bytes())\n"
    "cuarr.get_default_pinned_memory_pool():free_all_blocks()\n"
    "assert(cuarr.runtime.device_count == 1)\n"
    "s:synchronize()\n"
    "assert(cuarr.get_default_memory_pool():used_bytes() >= 0)\n"
    "cuarr.null_stream():use()\n";

/* A worker keeps one state for all its rounds, or opens a new one each round (odd ids). */
static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  lua_State *L = NULL;
  for (int round = 0; round < ROUNDS; round++) {
    if (!L)
      L = open_state();
    run(L, host_work, id * 10 + round);
    run(L, device_work, id * 10 + round);
    if (id % 2) {
      lua_close(L);
      L = NULL;
    }
  }
  if (L)
    lua_close(L);
  return NULL;
}

/* States opened, lightly used and closed in a loop, beside the workers. */
static void *churner(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int i = 0; i < CHURN_CYCLES; i++) {
    lua_State *L = open_state();
    run(L,
        "local seed = ...\n"
        "local cuarr = require 'cuarr'\n"
        "assert(cuarr.cpu.arange(seed + 1):sum():item() == seed * (seed + 1) // 2)\n"
        "local d = cuarr.empty(4096 + seed)\n"
        "local p = cuarr.cpu.empty(64, 'int8', { pinned = true })\n",
        id * 100 + i);
    lua_close(L);
  }
  return NULL;
}

int main(void) {
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_DIR", CUARR_TEST_CACHE_DIR, 1);
  unsetenv("CUARR_GPU_MEMORY_LIMIT");

  /* One state first, alone: most kernels are compiled (or read from the disk cache) once before
   * the threads start, so that the test's time goes to the concurrent work; the device work
   * of each thread also compiles a few of its own, concurrently. */
  lua_State *warm = open_state();
  CHECK(run(warm, device_work, 0), "the device work runs on one thread");
  CHECK(run(warm, host_work, 0), "the host work runs on one thread");
  lua_close(warm);

  pthread_t threads[WORKERS + CHURNERS];
  int started = 0;
  for (int i = 0; i < WORKERS; i++)
    started += pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)(i + 1)) == 0;
  for (int i = 0; i < CHURNERS; i++)
    started += pthread_create(&threads[WORKERS + i], NULL, churner,
                              (void *)(intptr_t)(WORKERS + i + 1)) == 0;
  CHECK(started == WORKERS + CHURNERS, "the threads start");
  for (int i = 0; i < started; i++)
    pthread_join(threads[i], NULL);
  CHECK(atomic_load(&failures) == 0,
        "states on several threads work at once, host results right, device calls succeed");

  cuarr_pool *dev = cuarr_device_pool(0), *pinned = cuarr_pinned_pool();
  CHECK(dev && cuarr_pool_used_bytes(dev) == 0 && cuarr_pool_total_bytes(dev) == 0,
        "the device pool holds nothing once every state is closed");
  CHECK(pinned && cuarr_pool_used_bytes(pinned) == 0 && cuarr_pool_total_bytes(pinned) == 0,
        "the pinned pool holds nothing once every state is closed");
  return ctest_done();
}
