/*
 * host_rows_arith.c -- host loops of arithmetic, rounding, maximum/minimum and clip (see
 * host_rows.h).
 */
#include "ufunc/host_rows.h"

#define FAMILY_arith(...) __VA_ARGS__
#define FAMILY_logic(...)
#define FAMILY_math(...)
#define DEFINE(op, ar, types, out, fam, fl) FAMILY_##fam(CUARR_UF_HOST_ROWS(op, ar, types, out))
CUARR_UF_LIST(DEFINE)
