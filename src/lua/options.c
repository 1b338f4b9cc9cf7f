/*
 * options.c -- checking an options table's keys: a misspelled or unsupported option is an
 * error naming it, never silently ignored (a result computed without it would be wrong with no
 * sign).  The values are read and checked by the functions themselves (args.h).
 */
#include <string.h>

#include "binding.h"

/* Keys longer than this get no suggestion: the distance is computed in fixed arrays. */
#define LONGEST_SUGGESTED 32
/* The most keys the front end's check takes (its lists have a handful). */
#define MOST_KEYS 32

/* The Levenshtein distance of a and b (each at most LONGEST_SUGGESTED bytes long). */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb) {
  size_t row[LONGEST_SUGGESTED + 1];
  for (size_t j = 0; j <= nb; j++)
    row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t above = row[j];
      size_t best = diagonal + (a[i - 1] != b[j - 1]);
      if (above + 1 < best)
        best = above + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diagonal = above;
    }
  }
  return row[nb];
}

/* A near miss's distance must be below this. */
#define MISS_DISTANCE 3

/* Take candidate as *best when it is nearer key than *best_distance (a near miss: distance
 * <= 2, or one a prefix of the other). */
static void consider(const char *key, size_t len, const char *candidate, size_t n,
                     const char **best, size_t *best_distance) {
  if (len > LONGEST_SUGGESTED)
    return;
  size_t d = n <= LONGEST_SUGGESTED ? edit_distance(key, len, candidate, n) : *best_distance;
  bool prefix = len > 0 && strncmp(key, candidate, len < n ? len : n) == 0;
  if (prefix && d > 2)
    d = 2; /* "keep" for "keepdims": a prefix is a near miss however much is missing */
  if (d < *best_distance) {
    *best = candidate;
    *best_distance = d;
  }
}

/* The accepted key nearest to key when it is a near miss, else NULL. */
static const char *near_miss(const char *key, size_t len, const char *const *accepted) {
  const char *best = NULL;
  size_t best_distance = MISS_DISTANCE;
  for (const char *const *k = accepted; *k; k++)
    consider(key, len, *k, strlen(*k), &best, &best_distance);
  return best;
}

void cuarr_lua_push_near_key(lua_State *L, const char *key, size_t len, int t1, int t2) {
  t1 = lua_absindex(L, t1);
  t2 = lua_absindex(L, t2);
  cuarr_lua_check_stack(L, 2);
  /* best points into a key of t1 or t2, which the tables keep alive */
  const char *best = NULL;
  size_t best_distance = MISS_DISTANCE;
  for (int t = t1;; t = t2) {
    lua_pushnil(L);
    while (lua_next(L, t)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) == LUA_TSTRING) {
        size_t n;
        const char *name = lua_tolstring(L, -1, &n);
        consider(key, len, name, n, &best, &best_distance);
      }
    }
    if (t == t2)
      break;
  }
  if (best)
    lua_pushstring(L, best);
  else
    lua_pushnil(L);
}

/* Raises the ValueError for the unknown key (a string) at key_idx. */
static void unknown_key(lua_State *L, int key_idx, const char *fn, const char *const *accepted) {
  size_t len;
  const char *key = lua_tolstring(L, key_idx, &len);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (const char *const *k = accepted; *k; k++) {
    if (k != accepted)
      luaL_addstring(&b, ", ");
    luaL_addstring(&b, *k);
  }
  if (!*accepted)
    luaL_addstring(&b, "none");
  luaL_pushresult(&b);
  const char *list = lua_tostring(L, -1);
  const char *suggestion = near_miss(key, len, accepted);
  if (suggestion)
    cuarr_lua_error(L, CUARR_VALUE_ERROR,
                    "%s: unknown option '%s' (did you mean '%s'?); the options are: %s", fn, key,
                    suggestion, list);
  cuarr_lua_error(L, CUARR_VALUE_ERROR, "%s: unknown option '%s'; the options are: %s", fn, key,
                  list);
}

static bool is_accepted(const char *key, size_t len, const char *const *accepted) {
  for (const char *const *k = accepted; *k; k++)
    if (strlen(*k) == len && memcmp(*k, key, len) == 0)
      return true;
  return false;
}

void cuarr_lua_check_options(lua_State *L, int idx, const char *fn, const char *const *accepted) {
  idx = lua_absindex(L, idx);
  cuarr_lua_check_stack(L, 3); /* the walk's key and value, and a copy of a key to name it */
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1); /* the value; the key stays for lua_next */
    if (lua_type(L, -1) != LUA_TSTRING) {
      const char *got = luaL_typename(L, -1);
      if (lua_type(L, -1) == LUA_TNUMBER) {
        lua_pushvalue(L, -1);
        got = lua_tostring(L, -1); /* of a copy: lua_next needs the key as it is */
      }
      cuarr_lua_error(L, CUARR_TYPE_ERROR, "%s: options are named, got the key %s", fn, got);
    }
    size_t len;
    const char *key = lua_tolstring(L, -1, &len);
    if (!is_accepted(key, len, accepted))
      unknown_key(L, lua_gettop(L), fn, accepted);
  }
}

int cuarr_lua_has_string_key(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  cuarr_lua_check_stack(L, 2);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

int cuarr_lua_l_near_key(lua_State *L) {
  size_t len;
  const char *key = cuarr_lua_check_string(L, 1, "key");
  len = lua_rawlen(L, 1);
  if (lua_type(L, 2) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #2 (keys) must be a table, got %s",
                           luaL_typename(L, 2));
  cuarr_lua_push_near_key(L, key, len, 2, 2);
  return 1;
}

int cuarr_lua_l_check_options(lua_State *L) {
  if (lua_type(L, 1) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 (options) must be a table, got %s",
                           luaL_typename(L, 1));
  const char *fn = cuarr_lua_check_string(L, 2, "fn");
  if (lua_type(L, 3) != LUA_TTABLE)
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #3 (keys) must be a table, got %s",
                           luaL_typename(L, 3));
  lua_Integer n = cuarr_lua_len(L, 3, "the keys");
  if (n < 0 || n > MOST_KEYS)
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "check_options takes at most %d keys", MOST_KEYS);
  const char *accepted[MOST_KEYS + 1];
  cuarr_lua_check_stack(L, (int)n + 3);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 3, i); /* left on the stack, which keeps it alive */
    accepted[i - 1] = cuarr_lua_check_string(L, -1, "option name");
  }
  accepted[n] = NULL;
  cuarr_lua_check_options(L, 1, fn, accepted);
  return 0;
}
