/*
 * order.h -- the memory order of new arrays (NumPy's order= argument: 'C', 'F', 'A', 'K'), read
 * from Lua and applied to new arrays (order.c).
 */
#ifndef CUARR_LUA_ORDER_H
#define CUARR_LUA_ORDER_H

#include <lua.h>

#include "cuarr.h"

/* The order option of the options table at opts (0 or not a table: def).  allowed lists the
 * letters the function takes ("CF", "CFA", "CFAK").  A value that is not a string is a
 * TypeError; a string other than 'C', 'F', 'A', 'K' a ValueError, and so is a letter outside
 * allowed.  fn names the function in the messages. */
char cuarr_lua_order_option(lua_State *L, int opts, const char *allowed, char def, const char *fn);
/* The same from an argument that may also be the order string itself (a:ravel("F")), or
 * nil/none (def). */
char cuarr_lua_order_arg(lua_State *L, int idx, const char *allowed, char def, const char *fn);
/* 'C' or 'F' for order 'A' with a as the prototype: 'F' when a is F-contiguous and not
 * C-contiguous, as NumPy; other orders are returned as they are. */
char cuarr_lua_resolve_order(char order, const cuarr_array *a);
/* Whether a's layout is already one of `order` ('A' and 'K' take any layout). */
bool cuarr_lua_has_order(const cuarr_array *a, char order);
/* Give r, a new C-contiguous array, the strides of order: F-contiguous for 'F', 'A' as
 * cuarr_lua_resolve_order says, and for 'K' proto's memory order when proto is dense (C, F or
 * another order of its axes, as NumPy); a view with gaps or reversed axes (and a NULL proto)
 * gives C order, so that a copy of a strided view stays C-contiguous.  proto has r's shape. */
void cuarr_lua_lay_out(cuarr_array *r, char order, const cuarr_array *proto);

#endif
