/*
 * cast_rows.c -- the 144 typed conversion rows, one per (dst, src) dtype pair, with cuarr's
 * casting rules from array/cast.h: used by host copies (copy/host_copy.c) and by the ufunc host
 * loops (an input to the loop's dtype, the loop's result to the output's), the same conversions
 * as the device kernels' loads and stores.
 */
#include "array/cast.h"

#define TYPEDEFS(_, name, ENUM, load_t, store_t, cls)                                              \
  typedef load_t load_##name;                                                                      \
  typedef store_t store_##name;
CUARR_DTYPE_LIST(TYPEDEFS, _)
#undef TYPEDEFS

#define BODY(dst, src, cls, DSTEP, SSTEP)                                                          \
  for (int64_t k = 0; k < n; k++) {                                                                \
    load_##src x;                                                                                  \
    memcpy(&x, s + k * (SSTEP), sizeof x);                                                         \
    store_##dst r = CUARR_CAST_FROM_##cls(dst, x);                                                 \
    memcpy(d + k * (DSTEP), &r, sizeof r);                                                         \
  }
/* Contiguous rows (the ufunc loops' blocks, most copies) get their own (vectorisable) loop. */
#define DEFINE_ROW(dst, src, ENUM, load_t, store_t, cls)                                           \
  static void cast_##src##_to_##dst(char *d, int64_t ds, const char *s, int64_t ss, int64_t n) {   \
    if (ds == (int64_t)sizeof(store_##dst) && ss == (int64_t)sizeof(load_t)) {                     \
      BODY(dst, src, cls, (int64_t)sizeof(store_##dst), (int64_t)sizeof(load_t))                   \
    } else {                                                                                       \
      BODY(dst, src, cls, ds, ss)                                                                  \
    }                                                                                              \
  }
#define DEFINE_ROWS_TO(_, dst, ENUM, load_t, store_t, cls) CUARR_DTYPE_LIST2(DEFINE_ROW, dst)
CUARR_DTYPE_LIST(DEFINE_ROWS_TO, _)

#define ENTRY(dst, src, ENUM, load_t, store_t, cls) [ENUM] = cast_##src##_to_##dst,
#define TABLE_LINE(_, dst, ENUM, load_t, store_t, cls) [ENUM] = {CUARR_DTYPE_LIST2(ENTRY, dst)},
const cuarr_cast_row_fn cuarr_cast_rows[CUARR_NDTYPES][CUARR_NDTYPES] = {/* [dst][src] */
                                                                         CUARR_DTYPE_LIST(
                                                                             TABLE_LINE, _)};
