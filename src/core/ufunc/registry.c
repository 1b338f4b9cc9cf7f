/*
 * registry.c -- the table of built-in ufuncs, generated from CUARR_UF_LIST, and finding them by
 * name: NumPy's names and its aliases (true_divide, abs, mod, pow, bitwise_not, acos, ...).
 */
#include <string.h>

#include "ufunc/ufunc.h"

static const cuarr_ufunc ufuncs[CUARR_UF_COUNT] = {
#define ENTRY(op, ar, ts, out, fam, fl)                                                            \
  [CUARR_UF_ID_##op] = {.name = #op,                                                               \
                        .id = CUARR_UF_ID_##op,                                                    \
                        .nin = CUARR_UF_NIN_##ar,                                                  \
                        .types = CUARR_UF_MASK(ts),                                                \
                        .flags = CUARR_UF_FLAG_##fl,                                               \
                        .bool_out = CUARR_UF_IS_BOOL_##out,                                        \
                        .host = cuarr_uf_host_rows_##op,                                           \
                        .device = cuarr_uf_device_programs_##op},
    CUARR_UF_LIST(ENTRY)
#undef ENTRY
};

typedef struct mixed_loops {
  const cuarr_uf_host_row *host;
  cuarr_ew_program *const *device;
} mixed_loops;

static const mixed_loops mixed[CUARR_UF_COUNT] = {
#define MIXED(op) [CUARR_UF_ID_##op] = {cuarr_uf_host_mixed_##op, cuarr_uf_device_mixed_##op},
    CUARR_UF_COMPARISONS(MIXED)
#undef MIXED
};

/* Other names NumPy (2) gives the same ufuncs. */
static const struct alias {
  const char *name;
  cuarr_uf_id id;
} aliases[] = {
    {"true_divide", CUARR_UF_ID_divide},
    {"mod", CUARR_UF_ID_remainder},
    {"pow", CUARR_UF_ID_power},
    {"abs", CUARR_UF_ID_absolute},
    {"bitwise_not", CUARR_UF_ID_invert},
    {"bitwise_invert", CUARR_UF_ID_invert},
    {"bitwise_left_shift", CUARR_UF_ID_left_shift},
    {"bitwise_right_shift", CUARR_UF_ID_right_shift},
    {"asin", CUARR_UF_ID_arcsin},
    {"acos", CUARR_UF_ID_arccos},
    {"atan", CUARR_UF_ID_arctan},
    {"atan2", CUARR_UF_ID_arctan2},
    {"asinh", CUARR_UF_ID_arcsinh},
    {"acosh", CUARR_UF_ID_arccosh},
    {"atanh", CUARR_UF_ID_arctanh},
};

const cuarr_ufunc *cuarr_uf_get(cuarr_uf_id id) { return &ufuncs[id]; }

const cuarr_uf_host_row *cuarr_uf_host_mixed(const cuarr_ufunc *u) { return mixed[u->id].host; }

cuarr_ew_program *const *cuarr_uf_device_mixed(const cuarr_ufunc *u) { return mixed[u->id].device; }

/* A linear search: callers (the binding) look a ufunc up once and keep the pointer. */
const cuarr_ufunc *cuarr_ufunc_find(const char *name) {
  if (!name)
    return NULL;
  for (int i = 0; i < CUARR_UF_COUNT; i++) {
    if (strcmp(ufuncs[i].name, name) == 0)
      return &ufuncs[i];
  }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    if (strcmp(aliases[i].name, name) == 0)
      return &ufuncs[aliases[i].id];
  }
  return NULL;
}

const char *cuarr_ufunc_name(const cuarr_ufunc *u) { return u ? u->name : NULL; }
int cuarr_ufunc_nin(const cuarr_ufunc *u) { return u ? u->nin : 0; }
int cuarr_ufunc_nout(const cuarr_ufunc *u) { return u ? 1 : 0; }
int cuarr_ufunc_count(void) { return CUARR_UF_COUNT; }
const cuarr_ufunc *cuarr_ufunc_at(int i) {
  return i >= 0 && i < CUARR_UF_COUNT ? &ufuncs[i] : NULL;
}
