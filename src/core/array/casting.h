/*
 * casting.h -- NumPy's casting relations between dtypes (array/promote.c, beside the type
 * promotion they come with): whether a value of one dtype may be stored into another without
 * loss ("safe") or within its kind ("same_kind", what an output given to an operation allows).
 */
#ifndef CUARR_ARRAY_CASTING_H
#define CUARR_ARRAY_CASTING_H

#include "cuarr.h"

bool cuarr_can_cast_safe(cuarr_dtype from, cuarr_dtype to);
bool cuarr_can_cast_same_kind(cuarr_dtype from, cuarr_dtype to);

#endif
