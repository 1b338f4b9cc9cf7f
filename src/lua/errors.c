/*
 * errors.c -- error objects.
 *
 * Errors are raised as tables {kind = "ValueError", message = "...", where = "script.lua:5: ",
 * traceback = "stack traceback: ..."} whose metatable gives tostring(e) ==
 * "script.lua:5: cuarr.ValueError: ...", so scripts can branch on e.kind and still print a
 * readable message with its place, as Lua's own errors have.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* Push field k of the error object at 1, read raw, as text: a string or a number as it is,
 * anything else (a script may have changed it) as def. */
static void push_field_text(lua_State *L, const char *k, const char *def) {
  lua_pushstring(L, k);
  int t = lua_rawget(L, 1);
  if (t != LUA_TSTRING && t != LUA_TNUMBER) {
    lua_pop(L, 1);
    lua_pushstring(L, def);
  }
}

/* Whether the function at level ar is a C function. */
static bool is_c_level(lua_State *L, int level, lua_Debug *ar) {
  return lua_getstack(L, level, ar) && lua_getinfo(L, "Sn", ar) && ar->what[0] == 'C';
}

/* Whether this __tostring of the error object at 1 is called by a message handler while the
 * error is being raised: the standalone interpreter's handler turns an error object into its
 * message with __tostring and adds no traceback, so that message must carry it.  A handler is
 * a C function called by no named call (level 1) from the C function that raises (level 2),
 * whose last stack value is the copy of the error object raise_top left, or none (error(e),
 * assert and coroutine.wrap re-raise an error object alone on their stacks).  A script's
 * tostring(e) or print(e) is a named call; pcall(tostring, e) leaves pcall's own values. */
static bool in_message_handler(lua_State *L) {
  lua_Debug ar;
  if (!is_c_level(L, 1, &ar) || ar.name || !is_c_level(L, 2, &ar))
    return false;
  int n = 0;
  while (lua_getlocal(L, &ar, n + 1)) {
    n++;
    lua_pop(L, 1);
  }
  if (n == 0)
    return true;
  lua_getlocal(L, &ar, n);
  bool raising = lua_rawequal(L, -1, 1);
  lua_pop(L, 1);
  return raising;
}

/* "<where>cuarr.<kind>: <message>", joined with their lengths (a NUL byte does not cut them),
 * as Lua's own errors read ("script.lua:5: ..."); a message handler (in_message_handler) gets
 * the traceback after it.  A caught error prints as one line: its traceback is e.traceback. */
static int error_tostring(lua_State *L) {
  if (!lua_istable(L, 1) || !lua_getmetatable(L, 1) || !luaL_getmetatable(L, CUARR_LUA_ERROR_MT) ||
      !lua_rawequal(L, -1, -2))
    return cuarr_lua_error(L, CUARR_TYPE_ERROR, "argument #1 must be an error object, got %s",
                           luaL_typename(L, 1));
  lua_settop(L, 1);
  bool with_traceback = in_message_handler(L);
  push_field_text(L, "where", "");
  lua_pushliteral(L, "cuarr.");
  push_field_text(L, "kind", "Error");
  lua_pushliteral(L, ": ");
  push_field_text(L, "message", "");
  int n = 5;
  if (with_traceback) {
    lua_pushliteral(L, "\n");
    push_field_text(L, "traceback", "");
    n += 2;
  }
  lua_concat(L, n);
  return 1;
}

static const luaL_Reg error_metamethods[] = {
    {"__tostring", error_tostring},
    {NULL, NULL},
};

/* Error objects are tables: their own fields (kind, message) need no getters. */
const cuarr_lua_class cuarr_lua_error_class = {
    .id = CUARR_LUA_ERROR_CLASS,
    .name = "Error",
    .metatable = CUARR_LUA_ERROR_MT,
    .metamethods = error_metamethods,
    .extendable = true,
};

/* The registry key of the front end's folder (its files' chunk names start with it). */
#define FRONT_END_KEY "cuarr.front_end"

/* Whether the function at level ar runs from a file of cuarr's own Lua front end. */
static bool in_front_end(lua_State *L, lua_Debug *ar, const char *front, size_t front_len) {
  lua_getinfo(L, "S", ar);
  return front && strncmp(ar->source, front, front_len) == 0;
}

/* Push "chunk:line: ", the place of the call into cuarr: the first level above the raising C
 * function outside the front end's files (an error raised by lua/cuarr/x.lua points at the
 * user's line that called it, not at x.lua), as luaL_where writes it; "" when that level is a C
 * function (Lua's own errors have no place there either). */
static void push_where(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, FRONT_END_KEY);
  size_t front_len = 0;
  const char *front = lua_tolstring(L, -1, &front_len);
  lua_Debug ar;
  int level = 1;
  while (lua_getstack(L, level, &ar) && in_front_end(L, &ar, front, front_len))
    level++;
  lua_pop(L, 1);
  if (!lua_getstack(L, level, &ar))
    level = 1; /* only the front end's levels: name the nearest */
  luaL_where(L, level);
}

/* The levels a traceback shows at its start and at its end when the stack is deeper (Lua's). */
enum { TRACEBACK_HEAD = 10, TRACEBACK_TAIL = 11 };

/* "in function <...>" and the like for the level ar ("Slnt" read), as luaL_traceback writes it
 * except for the search of package.loaded for a global function's name, which walks every
 * loaded module's fields (a hundred times the cost of the rest of a raise). */
static void add_function_name(luaL_Buffer *b, lua_State *L, const lua_Debug *ar) {
  if (*ar->namewhat)
    lua_pushfstring(L, "%s '%s'", ar->namewhat, ar->name);
  else if (*ar->what == 'm')
    lua_pushliteral(L, "main chunk");
  else if (*ar->what != 'C')
    lua_pushfstring(L, "function <%s:%d>", ar->short_src, ar->linedefined);
  else
    lua_pushliteral(L, "?");
  luaL_addvalue(b);
}

/* The number of levels on L's stack, found as lauxlib's traceback finds it: doubling, then
 * halving (lua_getstack walks the levels from the top, so counting them one by one would cost
 * the square of a deep recursion's depth). */
static int stack_depth(lua_State *L) {
  lua_Debug ar;
  int below = 0, above = 1; /* level `below` exists; level `above` is to be tried */
  while (lua_getstack(L, above, &ar)) {
    below = above;
    above *= 2;
  }
  while (below + 1 < above) {
    int middle = below + (above - below) / 2;
    if (lua_getstack(L, middle, &ar))
      below = middle;
    else
      above = middle;
  }
  return lua_getstack(L, 0, &ar) ? below + 1 : 0;
}

/* Push "stack traceback:\n\t..." of L from level 0 (the raising C function) up, as
 * luaL_traceback lays it out. */
static void push_traceback(lua_State *L) {
  lua_Debug ar;
  int depth = stack_depth(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "stack traceback:");
  for (int level = 0; level < depth; level++) {
    if (level == TRACEBACK_HEAD && depth > TRACEBACK_HEAD + TRACEBACK_TAIL) {
      int skipped = depth - TRACEBACK_HEAD - TRACEBACK_TAIL;
      lua_pushfstring(L, "\n\t...\t(skipping %d levels)", skipped);
      luaL_addvalue(&b);
      level += skipped - 1;
      continue;
    }
    lua_getstack(L, level, &ar);
    lua_getinfo(L, "Slnt", &ar);
    if (ar.currentline <= 0)
      lua_pushfstring(L, "\n\t%s: in ", ar.short_src);
    else
      lua_pushfstring(L, "\n\t%s:%d: in ", ar.short_src, ar.currentline);
    luaL_addvalue(&b);
    add_function_name(&b, L, &ar);
    if (ar.istailcall)
      luaL_addstring(&b, "\n\t(...tail calls...)");
  }
  luaL_pushresult(&b);
}

/* Raise {kind = kind, message = the string at the top of the stack, where = its place,
 * traceback = the stack at the raise}.  The traceback is written at once (the stack is gone
 * after the raise) but cheaply: a few microseconds, which a script that raises and catches in a
 * loop, or cuarr's own tries (the translator's), can pay.  A
 * copy of the error object stays just below the one raised: a message handler's __tostring
 * recognises the raise in progress by it (error_tostring). */
static int raise_top(lua_State *L, const char *kind) {
  luaL_checkstack(L, 8, "raising an error");
  lua_createtable(L, 0, 4);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "kind");
  lua_insert(L, -2);
  lua_setfield(L, -2, "message");
  push_where(L);
  lua_setfield(L, -2, "where");
  push_traceback(L);
  lua_setfield(L, -2, "traceback");
  luaL_setmetatable(L, CUARR_LUA_ERROR_MT);
  lua_pushvalue(L, -1);
  return lua_error(L);
}

static int raise(lua_State *L, const char *kind, const char *message) {
  lua_pushstring(L, message);
  return raise_top(L, kind);
}

int cuarr_lua_error_message_at(lua_State *L, cuarr_status kind, int idx) {
  lua_pushvalue(L, idx);
  return raise_top(L, cuarr_status_name(kind));
}

int cuarr_lua_error(lua_State *L, cuarr_status kind, const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  return raise(L, cuarr_status_name(kind), message);
}

int cuarr_lua_fail(lua_State *L, cuarr_status s) {
  return raise(L, cuarr_status_name(s), cuarr_last_error());
}

int cuarr_lua_l_set_front_end(lua_State *L) {
  cuarr_lua_check_string(L, 1, "folder");
  lua_settop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, FRONT_END_KEY);
  return 0;
}
