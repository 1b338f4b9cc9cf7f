/*
 * options.h -- the one check of an options table's keys (options.c), shared by every binding
 * function that takes options and, through cuarr.core.check_options, by the Lua front end.
 */
#ifndef CUARR_LUA_OPTIONS_H
#define CUARR_LUA_OPTIONS_H

#include <stddef.h>

#include <lua.h>

/* Every key of the table at idx is a string among `accepted` (a NULL-terminated list); else a
 * ValueError naming fn, the key, the accepted keys and, for a near miss (an edit distance of at
 * most 2, or a prefix), "did you mean". A key that is not a string is a TypeError.  One raw
 * walk over the table's keys; nothing is allocated unless it raises. */
void cuarr_lua_check_options(lua_State *L, int idx, const char *fn, const char *const *accepted);

/* Push the string key of the tables at t1 and t2 (the same index twice for one table) nearest
 * key when it is a near miss, as the options' check suggests one; else nil. */
void cuarr_lua_push_near_key(lua_State *L, const char *key, size_t len, int t1, int t2);

/* Whether the table at idx has a string key: such a table is options, one with only integer
 * keys a sequence (of axes, say). */
int cuarr_lua_has_string_key(lua_State *L, int idx);

/* near_key(key, t): the string key of t nearest key when it is a near miss, else nil; for the
 * front end's classes' "did you mean". */
int cuarr_lua_l_near_key(lua_State *L);

/* check_options(opts, fn, keys): the same check for the front end, keys a sequence of names. */
int cuarr_lua_l_check_options(lua_State *L);

#endif
