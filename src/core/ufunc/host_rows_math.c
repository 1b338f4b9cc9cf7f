/*
 * host_rows_math.c -- host loops of the float-only math (exp, log, trigonometry, rint, hypot,
 * copysign, ...) (see host_rows.h).
 */
#include "ufunc/host_rows.h"

#define FAMILY_arith(...)
#define FAMILY_logic(...)
#define FAMILY_math(...) __VA_ARGS__
#define DEFINE(op, ar, types, out, fam, fl) FAMILY_##fam(CUARR_UF_HOST_ROWS(op, ar, types, out))
CUARR_UF_LIST(DEFINE)
