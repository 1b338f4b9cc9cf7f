/*
 * histogram.c -- the binding of cuarr_bin_count for the front end (lua/cuarr/histogram.lua),
 * which builds bincount, histogram, histogram_bin_edges and digitize on it and takes it out of
 * the user's namespace:
 *
 *   bin_count(x, rule, nbins[, edges, lo, hi][, weights]) -> counts
 *
 * rule is "value", "uniform" or "edges"; edges is nil for "value".  The front end has checked
 * the values' range, the edges' order and the weights' length.
 */
#include <string.h>

#include "binding.h"

static int l_bin_count(lua_State *L) {
  cuarr_lua_state *S = CUARR_LUA_STATE(L);
  cuarr_lua_check_max_args(L, 7, "bin_count");
  lua_settop(L, 7);
  cuarr_array *x = cuarr_lua_array_arg(L, S, 1, "bin_count");
  const char *rule_name = cuarr_lua_check_string(L, 2, "bin_count: rule");
  cuarr_bin_rule rule;
  if (strcmp(rule_name, "value") == 0)
    rule = CUARR_BIN_VALUE;
  else if (strcmp(rule_name, "uniform") == 0)
    rule = CUARR_BIN_UNIFORM;
  else if (strcmp(rule_name, "edges") == 0)
    rule = CUARR_BIN_EDGES;
  else
    return cuarr_lua_error(L, CUARR_VALUE_ERROR, "bin_count: unknown rule '%s'", rule_name);
  lua_Integer nbins = cuarr_lua_check_integer(L, 3, "bin_count: nbins");
  cuarr_array *edges = lua_isnil(L, 4) ? NULL : cuarr_lua_array_arg(L, S, 4, "bin_count");
  double lo = lua_isnil(L, 5) ? 0.0 : cuarr_lua_check_number(L, 5, "bin_count: lo");
  double hi = lua_isnil(L, 6) ? 0.0 : cuarr_lua_check_number(L, 6, "bin_count: hi");
  cuarr_array *weights = lua_isnil(L, 7) ? NULL : cuarr_lua_array_arg(L, S, 7, "bin_count");
  cuarr_array *out = cuarr_lua_push_array(L, 0);
  const int device = cuarr_array_device(x);
  CUARR_LUA_TRY(L, cuarr_bin_count(cuarr_lua_context(S, device), x, rule, (int64_t)nbins, edges, lo,
                                   hi, weights, out));
  if (device != CUARR_HOST)
    cuarr_lua_account(L, S, out->buf->nbytes);
  return 1;
}

void cuarr_lua_open_histogram(lua_State *L, const cuarr_lua_module *m) {
  static const luaL_Reg functions[] = {
      {"bin_count", l_bin_count},
      {NULL, NULL},
  };
  cuarr_lua_set_functions(L, m, m->functions, functions);
  cuarr_lua_set_functions(L, m, m->cpu, functions);
}
