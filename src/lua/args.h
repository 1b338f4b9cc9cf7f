/*
 * args.h -- the binding's readers of arguments and options (args.c).
 *
 * Each raises a TypeError object for a value of the wrong type and a ValueError for a value out
 * of range, naming the argument ("argument #2 (shape)") or, for a value read from a table (a
 * negative stack index), the option alone ("priority").
 */
#ifndef CUARR_LUA_ARGS_H
#define CUARR_LUA_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "cuarr.h"

lua_Integer cuarr_lua_check_integer(lua_State *L, int idx, const char *what);
lua_Integer cuarr_lua_opt_integer(lua_State *L, int idx, const char *what, lua_Integer def);
double cuarr_lua_check_number(lua_State *L, int idx, const char *what);
const char *cuarr_lua_check_string(lua_State *L, int idx, const char *what);
/* An option from the table at idx (or nil when idx is not a table). */
int cuarr_lua_get_option(lua_State *L, int idx,
                         const char *name); /* pushes the value; returns its type */
bool cuarr_lua_opt_bool_field(lua_State *L, int idx, const char *name, bool def);
/* A string option; NULL when absent.  The string is left on the stack, which keeps it alive
 * until the calling function returns (an options table's __index may make a new string each
 * time and drop it). */
const char *cuarr_lua_opt_string_field(lua_State *L, int idx, const char *name);
cuarr_dtype cuarr_lua_check_dtype(lua_State *L, int idx);
/* A dtype argument that may be nil (gives def). */
cuarr_dtype cuarr_lua_opt_dtype(lua_State *L, int idx, cuarr_dtype def);
/* A shape: an integer, or a table of integers; floats with integral values are accepted. */
int cuarr_lua_check_shape(lua_State *L, int idx, int64_t *shape);
/* A Lua number/boolean as a scalar (integers int64, floats float64, booleans bool). */
bool cuarr_lua_to_scalar(lua_State *L, int idx, cuarr_scalar *out);

/* The most NVRTC options a user kernel takes from Lua: the binding reads them into a list on the
 * stack, and refuses more (a ValueError) rather than dropping any; the core has no limit. */
#define CUARR_LUA_MAX_OPTIONS 32
/* opts.options (a table of strings) into options[CUARR_LUA_MAX_OPTIONS], the list and its
 * strings left on the stack to keep them alive; returns the count.  More than
 * CUARR_LUA_MAX_OPTIONS is a ValueError naming the limit. */
int cuarr_lua_read_compile_options(lua_State *L, int opts, const char **options);

#endif
