/*
 * args.h -- the binding's readers of arguments and options (args.c).
 *
 * Each applies the rules of the README's "Errors" section, naming the argument ("argument #2
 * (shape)") or, for a value read from a table (a negative stack index), the option alone
 * ("priority"): a value of the wrong type is a TypeError, and so is a number with no integer
 * value where an integer is needed (2.0 is 2; 2.5, 1e300 and NaN are not integers); a value
 * of the right type out of range is a ValueError, but for an axis or an index (IndexError).
 * Strings are read with their length: one with a NUL byte is no name, dtype or source.
 */
#ifndef CUARR_LUA_ARGS_H
#define CUARR_LUA_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <lua.h>

#include "cuarr.h"

/* A TypeError when fn got more than max arguments: nothing is silently ignored. */
void cuarr_lua_check_max_args(lua_State *L, int max, const char *fn);
/* An integer: a Lua integer, or a float with an integral value that fits one. */
lua_Integer cuarr_lua_check_integer(lua_State *L, int idx, const char *what);
lua_Integer cuarr_lua_opt_integer(lua_State *L, int idx, const char *what, lua_Integer def);
double cuarr_lua_check_number(lua_State *L, int idx, const char *what);
/* A string with no NUL byte in it (a ValueError: C would read it cut short). */
const char *cuarr_lua_check_string(lua_State *L, int idx, const char *what);
/* Room for n more values on the stack, or an OutOfMemoryError (luaL_checkstack's is a plain
 * string). */
void cuarr_lua_check_stack(lua_State *L, int n);
/* The length of the table at idx, as # gives it (its __len too); a length that is not an
 * integer is a TypeError. */
lua_Integer cuarr_lua_len(lua_State *L, int idx, const char *what);
/* One axis of an array of ndim axes (ndim + 1 positions when `extra`, for a new axis): 1-based,
 * negative from the end; returned 0-based.  Not an integer: TypeError; out of range:
 * IndexError.  fn names the function in the messages. */
int cuarr_lua_check_axis(lua_State *L, int idx, int ndim, bool extra, const char *fn);
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
/* The same, for a value that becomes an element of dtype `to`: a Lua integer `to` cannot hold
 * is a ValueError (cuarr_scalar_check_element, the one rule). */
bool cuarr_lua_to_element(lua_State *L, int idx, cuarr_dtype to, cuarr_scalar *out);

/* The most NVRTC options a user kernel takes from Lua: the binding reads them into a list on the
 * stack, and refuses more (a ValueError) rather than dropping any; the core has no limit. */
#define CUARR_LUA_MAX_OPTIONS 32
/* opts.options (a table of strings) into options[CUARR_LUA_MAX_OPTIONS], the list and its
 * strings left on the stack to keep them alive; returns the count.  More than
 * CUARR_LUA_MAX_OPTIONS is a ValueError naming the limit. */
int cuarr_lua_read_compile_options(lua_State *L, int opts, const char **options);

#endif
