/*
 * host_rows.h -- the typed rows of the host loops, generated for each (ufunc, loop dtype) from
 * the scalar functions of kernels/include/ufunc_math.cuh.  Included by host_rows_<family>.c, each
 * of which expands the entries of CUARR_UF_LIST of its family.
 *
 * A row gets its operands already in the loop's dtypes (host_loop.c converts around it), so
 * there is one row per loop rather than one per combination of storage dtypes.  Each row has
 * separate loops for the common layouts -- everything contiguous, and for binary ufuncs one
 * operand a broadcast scalar -- with strides the compiler knows, so that it can vectorise them;
 * then a general strided loop.  Elements are read and written with memcpy: host memory an
 * embedder wrapped may be unaligned, and the compiler turns the fixed-size copies into plain
 * loads and stores.
 */
#ifndef CUARR_UFUNC_HOST_ROWS_H
#define CUARR_UFUNC_HOST_ROWS_H

#include <string.h>

#include "ufunc/math.h"
#include "ufunc/ufunc.h"

/* ---- element access: bool is read as a byte compared with 0 (any non-zero byte is true) */

#define CUARR_UF_ACCESS(dt, ST)                                                                    \
  static inline cuarr_uf_##dt cuarr_uf_ld_##dt(const char *p) {                                    \
    ST v;                                                                                          \
    memcpy(&v, p, sizeof v);                                                                       \
    return (cuarr_uf_##dt)v;                                                                       \
  }                                                                                                \
  static inline void cuarr_uf_st_##dt(char *p, cuarr_uf_##dt x) {                                  \
    ST v = (ST)x;                                                                                  \
    memcpy(p, &v, sizeof v);                                                                       \
  }
CUARR_UF_ACCESS(int8, int8_t)
CUARR_UF_ACCESS(int16, int16_t)
CUARR_UF_ACCESS(int32, int32_t)
CUARR_UF_ACCESS(int64, int64_t)
CUARR_UF_ACCESS(uint8, uint8_t)
CUARR_UF_ACCESS(uint16, uint16_t)
CUARR_UF_ACCESS(uint32, uint32_t)
CUARR_UF_ACCESS(uint64, uint64_t)
CUARR_UF_ACCESS(float16, uint16_t)
CUARR_UF_ACCESS(float32, float)
CUARR_UF_ACCESS(float64, double)
static inline bool cuarr_uf_ld_boolean(const char *p) { return *(const unsigned char *)p != 0; }
static inline void cuarr_uf_st_boolean(char *p, bool x) { *(unsigned char *)p = x; }

#define CUARR_UF_SZ(dt) ((int64_t)sizeof(cuarr_uf_##dt))

/* ---- rows by arity; odt is the output's dtype token */

#define CUARR_UF_LOOP1(op, dt, odt, SA, SO)                                                        \
  for (int64_t k = 0; k < n; k++)                                                                  \
    cuarr_uf_st_##odt(o + k * (SO), cuarr_uf_##op##_##dt(cuarr_uf_ld_##dt(a + k * (SA))));
#define CUARR_UF_ROW1_(op, dt, odt)                                                                \
  static void row_##op##_##dt(char *const *p, const int64_t *s, int64_t n) {                       \
    const char *a = p[0];                                                                          \
    char *o = p[1];                                                                                \
    if (s[0] == CUARR_UF_SZ(dt) && s[1] == CUARR_UF_SZ(odt)) {                                     \
      CUARR_UF_LOOP1(op, dt, odt, CUARR_UF_SZ(dt), CUARR_UF_SZ(odt))                               \
    } else {                                                                                       \
      CUARR_UF_LOOP1(op, dt, odt, s[0], s[1])                                                      \
    }                                                                                              \
  }

/* ta, tb: the two inputs' dtype tokens (different only in the mixed comparisons). */
#define CUARR_UF_LOOP2(fn, ta, tb, odt, SA, SB, SO)                                                \
  for (int64_t k = 0; k < n; k++)                                                                  \
    cuarr_uf_st_##odt(o + k * (SO),                                                                \
                      fn(cuarr_uf_ld_##ta(a + k * (SA)), cuarr_uf_ld_##tb(b + k * (SB))));
#define CUARR_UF_ROW2_GENERAL(name, fn, ta, tb, odt)                                               \
  static void name(char *const *p, const int64_t *s, int64_t n) {                                  \
    const char *a = p[0], *b = p[1];                                                               \
    char *o = p[2];                                                                                \
    const int64_t za = CUARR_UF_SZ(ta), zb = CUARR_UF_SZ(tb), zo = CUARR_UF_SZ(odt);               \
    if (s[0] == za && s[1] == zb && s[2] == zo) {                                                  \
      CUARR_UF_LOOP2(fn, ta, tb, odt, za, zb, zo)                                                  \
    } else if (s[0] == za && s[1] == 0 && s[2] == zo) {                                            \
      CUARR_UF_LOOP2(fn, ta, tb, odt, za, 0, zo)                                                   \
    } else if (s[0] == 0 && s[1] == zb && s[2] == zo) {                                            \
      CUARR_UF_LOOP2(fn, ta, tb, odt, 0, zb, zo)                                                   \
    } else {                                                                                       \
      CUARR_UF_LOOP2(fn, ta, tb, odt, s[0], s[1], s[2])                                            \
    }                                                                                              \
  }
#define CUARR_UF_ROW2_(op, dt, odt)                                                                \
  CUARR_UF_ROW2_GENERAL(row_##op##_##dt, cuarr_uf_##op##_##dt, dt, dt, odt)

/* Three inputs: clip (x, lo, hi all of dtype dt) and where (a bool condition, then x and y). */
#define CUARR_UF_LOOP3(fn, t0, dt, odt, S0, S1, S2, SO)                                            \
  for (int64_t k = 0; k < n; k++)                                                                  \
    cuarr_uf_st_##odt(o + k * (SO),                                                                \
                      fn(cuarr_uf_ld_##t0(a + k * (S0)), cuarr_uf_ld_##dt(b + k * (S1)),           \
                         cuarr_uf_ld_##dt(c + k * (S2))));
#define CUARR_UF_ROW3_GENERAL(op, t0, dt, odt)                                                     \
  static void row_##op##_##dt(char *const *p, const int64_t *s, int64_t n) {                       \
    const char *a = p[0], *b = p[1], *c = p[2];                                                    \
    char *o = p[3];                                                                                \
    const int64_t z0 = CUARR_UF_SZ(t0), z = CUARR_UF_SZ(dt), zo = CUARR_UF_SZ(odt);                \
    if (s[0] == z0 && s[1] == z && s[2] == z && s[3] == zo) {                                      \
      CUARR_UF_LOOP3(cuarr_uf_##op##_##dt, t0, dt, odt, z0, z, z, zo)                              \
    } else if (s[0] == z0 && s[1] == 0 && s[2] == 0 && s[3] == zo) {                               \
      CUARR_UF_LOOP3(cuarr_uf_##op##_##dt, t0, dt, odt, z0, 0, 0, zo)                              \
    } else {                                                                                       \
      CUARR_UF_LOOP3(cuarr_uf_##op##_##dt, t0, dt, odt, s[0], s[1], s[2], s[3])                    \
    }                                                                                              \
  }
#define CUARR_UF_ROW3_(op, dt, odt) CUARR_UF_ROW3_GENERAL(op, dt, dt, odt)
#define CUARR_UF_ROWW_(op, dt, odt) CUARR_UF_ROW3_GENERAL(op, boolean, dt, odt)

/* Y of the type sets: (dt, op, out) -> a row */
#define CUARR_UF_ROW_1(dt, op, out) CUARR_UF_ROW1_(op, dt, CUARR_UF_OUT_##out(dt))
#define CUARR_UF_ROW_2(dt, op, out) CUARR_UF_ROW2_(op, dt, CUARR_UF_OUT_##out(dt))
#define CUARR_UF_ROW_3(dt, op, out) CUARR_UF_ROW3_(op, dt, CUARR_UF_OUT_##out(dt))
#define CUARR_UF_ROW_W(dt, op, out) CUARR_UF_ROWW_(op, dt, CUARR_UF_OUT_##out(dt))
#define CUARR_UF_ROW_ENTRY(dt, op, out) [CUARR_UF_ENUM_##dt] = row_##op##_##dt,

/* Every row of an entry of CUARR_UF_LIST, and its table cuarr_uf_host_rows_<op>. */
#define CUARR_UF_HOST_ROWS(op, ar, types, out)                                                     \
  CUARR_UF_TYPES_##types(CUARR_UF_ROW_##ar, op, out)                                               \
      const cuarr_uf_host_row cuarr_uf_host_rows_##op[CUARR_NDTYPES] = {                           \
          CUARR_UF_TYPES_##types(CUARR_UF_ROW_ENTRY, op, out)};

#endif
