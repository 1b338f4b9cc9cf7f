/*
 * indexing.h -- what indexing.c (integers, ranges, newaxis) and array_index.c (keys holding
 * arrays: NumPy's advanced indexing) share: the readers of index entries and the views they
 * make.  Private to src/lua/.
 */
#ifndef CUARR_LUA_INDEXING_H
#define CUARR_LUA_INDEXING_H

#include "binding.h"

/* Whether the value at idx is cuarr.newaxis. */
bool cuarr_lua_is_newaxis(lua_State *L, int idx);
/* Replace *cur by next, made with status s (raise when s failed); cur's old reference dropped. */
void cuarr_lua_view_replace(lua_State *L, cuarr_array *cur, cuarr_status s, cuarr_array *next);
/* A new axis of extent 1 and stride 0 at position axis of *cur. */
void cuarr_lua_apply_newaxis(lua_State *L, cuarr_array *cur, int axis);
/* A 1-based (or negative) index i along an axis of extent n, as 0-based (IndexError for 0 and
 * out of range). */
int64_t cuarr_lua_index_position(lua_State *L, lua_Integer i, int64_t n, int axis);
/* The integer at idx (`what` names it in the TypeError for anything else). */
lua_Integer cuarr_lua_index_value(lua_State *L, int idx, const char *what, int axis);
/* The range table at tbl applied to `axis` of *cur. */
void cuarr_lua_apply_range(lua_State *L, cuarr_array *cur, int axis, int tbl);

/* array_index.c: a[key] and a[key] = value (array at 1, key at 2, value at 3) for a key that
 * is an array or a table holding one. */
int cuarr_lua_fancy_get(lua_State *L);
int cuarr_lua_fancy_set(lua_State *L);
/* The array at idx (an index, a mask: `what`) where the indexed array is (device): a host one
 * copied to that device (pushed), a device one refused for a host array. */
const cuarr_array *cuarr_lua_index_in_place(lua_State *L, cuarr_lua_state *S, int device, int idx,
                                            const char *what);
/* The value at idx (a number, a boolean, a nested table or an array) as an array on device
 * (pushed when made here; numbers and tables in dtype). */
const cuarr_array *cuarr_lua_index_values(lua_State *L, cuarr_lua_state *S, int idx, int device,
                                          cuarr_dtype dtype);

#endif
