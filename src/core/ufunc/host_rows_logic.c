/*
 * host_rows_logic.c -- host loops of comparisons, logical and bitwise ufuncs, shifts,
 * isnan/isinf/isfinite and where (see host_rows.h).
 */
#include "ufunc/host_rows.h"

#define FAMILY_arith(...)
#define FAMILY_logic(...) __VA_ARGS__
#define FAMILY_math(...)
#define DEFINE(op, ar, types, out, fam, fl) FAMILY_##fam(CUARR_UF_HOST_ROWS(op, ar, types, out))
CUARR_UF_LIST(DEFINE)

/* The comparisons of int64 with uint64, by value. */
#define MIXED(op)                                                                                  \
  CUARR_UF_ROW2_GENERAL(row_##op##_int64_uint64, cuarr_uf_##op##_int64_uint64, int64, uint64,      \
                        boolean)                                                                   \
  CUARR_UF_ROW2_GENERAL(row_##op##_uint64_int64, cuarr_uf_##op##_uint64_int64, uint64, int64,      \
                        boolean)                                                                   \
  const cuarr_uf_host_row cuarr_uf_host_mixed_##op[2] = {row_##op##_int64_uint64,                  \
                                                         row_##op##_uint64_int64};
CUARR_UF_COMPARISONS(MIXED)
