/* test_array_identity.c -- the binding's memory of recently recognised arrays
 * (cuarr_lua_to_array_in, src/lua/ndarray.c) never takes another userdata for a collected array at
 * the same address.
 *
 * Lua code cannot place a foreign userdata where an array was; C can: after an array the
 * binding has remembered is collected, a userdata of the array's size is made (the state's
 * allocator hands the freed block back), zero-filled, and passed where an array goes.  It must be
 * refused with a TypeError, not taken for a closed array.  Host arrays only: no GPU needed. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"
#include "lua/binding.h"
#include "lua_host.h"

/* Run chunk; returns its error's kind ("TypeError", ...), "ok", or "lua error". */
static const char *run(lua_State *L, const char *chunk) {
  static char kind[64];
  if (luaL_loadstring(L, chunk) != LUA_OK || lua_pcall(L, 0, 0, 0) != LUA_OK) {
    strcpy(kind, "lua error");
    if (lua_istable(L, -1) || lua_isuserdata(L, -1)) {
      lua_getfield(L, -1, "kind");
      if (lua_isstring(L, -1))
        snprintf(kind, sizeof kind, "%s", lua_tostring(L, -1));
      lua_pop(L, 1);
    } else {
      fprintf(stderr, "%s\n", lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return kind;
  }
  return "ok";
}

/* The state's allocator: realloc, except that freed blocks are kept and handed back, newest
 * first, to the next request of the same size.  glibc's per-thread cache does that too, but
 * not every allocator does (AddressSanitizer's holds freed blocks back on purpose), and the
 * test needs the reuse to happen. */
enum { KEPT_MAX = 4096 };
static struct {
  void *block;
  size_t size;
} kept[KEPT_MAX];
static int n_kept;

static void *reusing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    if (!ptr)
      return NULL;
    if (n_kept == KEPT_MAX) { /* the oldest goes */
      free(kept[0].block);
      memmove(kept, kept + 1, (KEPT_MAX - 1) * sizeof kept[0]);
      n_kept--;
    }
    kept[n_kept].block = ptr;
    kept[n_kept++].size = osize;
    return NULL;
  }
  if (!ptr) /* a new block: osize is the kind of object, not a size */
    for (int i = n_kept - 1; i >= 0; i--)
      if (kept[i].size == nsize) {
        void *block = kept[i].block;
        memmove(kept + i, kept + i + 1, (size_t)(n_kept - i - 1) * sizeof kept[0]);
        n_kept--;
        return block;
      }
  return realloc(ptr, nsize);
}

int main(void) {
  lua_State *L = lua_newstate(reusing_alloc, NULL);
  CHECK(lua_host_prepare(L) && strcmp(run(L, "cuarr = require 'cuarr'"), "ok") == 0,
        "the module loads");

  /* Arrays the binding remembers (its registry entry), then collected. */
  /* Few arrays, whose blocks the allocator keeps newest first, so that the next userdata of
   * that size are given exactly those blocks. */
  CHECK(strcmp(run(L, "collectgarbage(); collectgarbage()\n"
                      "for i = 1, 2 do\n"
                      "  local a = cuarr.cpu.arange(5, 'float32'); cuarr.cpu.add(a, a, a)\n"
                      "end"),
               "ok") == 0,
        "arrays are made and used");
  lua_getfield(L, LUA_REGISTRYINDEX, "cuarr.known_arrays");
  const cuarr_lua_known_arrays *known = lua_touserdata(L, -1);
  lua_pop(L, 1); /* the registry keeps it */
  enum { N = CUARR_LUA_KNOWN_ARRAYS };
  const void *seen[N];
  int n_seen = 0;
  for (int i = 0; known && i < N; i++)
    if (known->at[i])
      seen[n_seen++] = known->at[i];
  CHECK(n_seen > 0, "the binding remembers arrays");
  CHECK(strcmp(run(L, "collectgarbage(); collectgarbage()"), "ok") == 0,
        "the arrays are collected");

  /* Foreign userdata of an array's size until one lands where a remembered array was. */
  lua_newtable(L);
  int reused = 0;
  for (int k = 0; k < 16 && !reused; k++) {
    void *p = lua_newuserdatauv(L, sizeof(cuarr_array), 1);
    memset(p, 0, sizeof(cuarr_array));
    lua_rawseti(L, -2, k + 1);
    for (int i = 0; i < n_seen; i++)
      reused += p == seen[i];
  }
  lua_setglobal(L, "foreign");
  CHECK(reused, "a foreign userdata took a collected array's address (the allocator reuses it)");
  CHECK(strcmp(run(L, "for _, f in ipairs(foreign) do\n"
                      "  local ok, e = pcall(cuarr.cpu.add, f, 1)\n"
                      "  if ok or e.kind ~= 'TypeError' then error(e) end\n"
                      "end"),
               "ok") == 0,
        "every foreign userdata is refused with a TypeError");
  CHECK(strcmp(run(L, "local a = cuarr.cpu.ones(3, 'int32')\n"
                      "assert(cuarr.cpu.add(a, a)[1] == 2)"),
               "ok") == 0,
        "arrays are still recognised afterwards");
  lua_close(L);
  for (int i = 0; i < n_kept; i++)
    free(kept[i].block);
  return ctest_done();
}
