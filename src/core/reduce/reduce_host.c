/*
 * reduce_host.c -- the built-in reductions over host arrays (the semantics are in reduce.h).
 *
 * Walk.  The kept axes (those of the results) are ordered by the input's strides and
 * collapsed; the results along the densest one are computed in one of two ways:
 *  - by rows: when the reduced axes are the denser ones in memory (a sum over the last axis, a
 *    full reduction), each result folds its own sub-array, row after row along the innermost
 *    reduced axis;
 *  - by columns: otherwise (a sum over the first axis of a C-contiguous matrix), up to COLS
 *    results at a time, each step folding the elements at one position of the reduced axes
 *    into their accumulators, so that reads stay sequential however long the reduced axes are.
 * Reduced axes are walked in the order of their strides, except for argmin/argmax: their
 * index is the C-order flat index over the reduced axes as given, and the first extreme wins,
 * so they walk those axes in C order and count positions as they go.
 *
 * Types.  Each element is converted to the value dtype (the accumulator) in blocks through a
 * buffer on the stack, or read in place when it already is of that dtype; one typed fold per
 * (op, value dtype) then serves every input dtype.  Integer sums and products run in uint64
 * (wrapping, well defined) and are cut to the accumulator's width on the way out: that is the
 * same arithmetic modulo 2^width, so integer inputs are folded in place whatever the integer
 * accumulator.  all, any and count_nonzero test x != 0 on the input's own type.  A float16
 * accumulator is held as float32: exact for min/max and the arg ops, whose values are float16;
 * sums keep float32's precision until the result is stored (cuarr_reduce_resolve never gives a
 * float16 accumulator for sums anyway).
 *
 * Float sums are pairwise, as NumPy's: blocks of PW_BLOCK elements are summed straight (in 8
 * partial sums) and combined pairwise into leaves of up to ROW_LEAF elements (by rows), or
 * each result sums COL_LEAF positions straight into a leaf (by columns); the leaves are
 * combined as a binary counter (level i holds the sum of 2^i leaves), so the rounding error
 * grows as log n rather than n, whichever way the walk goes.
 */
#include <math.h>
#include <stdlib.h>

#include "array/cast.h"
#include "array/host_read.h"
#include "reduce/reduce.h"

enum {
  TILE = 128,                    /* results stored at a time */
  COLS = 1024,                   /* results computed together by columns */
  BLOCK = CUARR_HOST_READ_BLOCK, /* elements converted at a time */
  PW_BLOCK = 128,                /* elements a pairwise sum adds straight */
  ROW_LEAF = 1024,               /* elements of a pairwise leaf, by rows */
  COL_LEAF = 128,                /* positions of a pairwise leaf, by columns */
  MAXLEVEL = 64,
};

/* The running states of the results are dense arrays of one type (the accumulator's value
 * type, uint64 for integer sums and counts, uint8 for all/any), read and written with memcpy,
 * plus an array of indices for argmin/argmax (the flat index over the reduced axes of the
 * best value so far).
 *
 * Fold n values x[k] (x stepping xs bytes).  Rows fold them all into the state s[0]; columns
 * fold x[k] into s[k].  j is the flat index over the reduced axes of x[0] (rows) or of the
 * position (columns); the arg ops start afresh at j == 0. */
typedef void (*fold_fn)(char *s, int64_t *ix, const char *x, int64_t xs, int64_t n, int64_t j);
typedef struct fold {
  fold_fn row, cols;
  void (*init)(char *s, int64_t n);                 /* the identity (arg ops: nothing yet) */
  void (*merge)(char *a, const char *b, int64_t n); /* a[k] += b[k]: set for pairwise sums */
} fold;

/* ---- the typed folds */

/* The value types, with their lowest and highest values (the identities of max and min).
 * Class F has NaN; I (integers and bool) has not. */
#define VALUE_TYPES(X)                                                                             \
  X(boolean, CUARR_BOOL, uint8_t, I, 0, 1)                                                         \
  X(int8, CUARR_INT8, int8_t, I, INT8_MIN, INT8_MAX)                                               \
  X(int16, CUARR_INT16, int16_t, I, INT16_MIN, INT16_MAX)                                          \
  X(int32, CUARR_INT32, int32_t, I, INT32_MIN, INT32_MAX)                                          \
  X(int64, CUARR_INT64, int64_t, I, INT64_MIN, INT64_MAX)                                          \
  X(uint8, CUARR_UINT8, uint8_t, I, 0, UINT8_MAX)                                                  \
  X(uint16, CUARR_UINT16, uint16_t, I, 0, UINT16_MAX)                                              \
  X(uint32, CUARR_UINT32, uint32_t, I, 0, UINT32_MAX)                                              \
  X(uint64, CUARR_UINT64, uint64_t, I, 0, UINT64_MAX)                                              \
  X(float32, CUARR_FLOAT32, float, F, -INFINITY, INFINITY)                                         \
  X(float64, CUARR_FLOAT64, double, F, -INFINITY, INFINITY)

/* ld_<name>(p), st_<name>(p, v): a state or value at p (memcpy: no alignment or aliasing
 * assumption; compilers make plain loads and stores of them). */
#define ACCESS(name, ENUM, T, cls, LO, HI)                                                         \
  static inline T ld_##name(const char *p) {                                                       \
    T v;                                                                                           \
    memcpy(&v, p, sizeof v);                                                                       \
    return v;                                                                                      \
  }                                                                                                \
  static inline void st_##name(char *p, T v) { memcpy(p, &v, sizeof v); }
VALUE_TYPES(ACCESS)

#define ISNAN_F(x) ((x) != (x))
#define ISNAN_I(x) 0

#define FOLD_ARGS char *s, int64_t *ix, const char *x, int64_t xs, int64_t n, int64_t j
#define UNUSED_FOLD_ARGS                                                                           \
  do {                                                                                             \
    (void)ix;                                                                                      \
    (void)j;                                                                                       \
  } while (0)

/* s[k] of type T (a state array) */
#define S(T, k) (s + (k) * (int64_t)sizeof(T))

/* Integer (and bool) sums and products, in uint64 states: a signed value sign-extends, which
 * is the same value modulo 2^width. */
static void init_u0(char *s, int64_t n) { memset(s, 0, (size_t)n * sizeof(uint64_t)); }
static void init_u1(char *s, int64_t n) {
  for (int64_t k = 0; k < n; k++)
    st_uint64(S(uint64_t, k), 1);
}
#define INT_SUMS(name, T)                                                                          \
  static void isum_row_##name(FOLD_ARGS) {                                                         \
    UNUSED_FOLD_ARGS;                                                                              \
    uint64_t a = 0;                                                                                \
    CUARR_HOST_EACH(T, a += (uint64_t)v);                                                          \
    st_uint64(s, ld_uint64(s) + a);                                                                \
  }                                                                                                \
  static void isum_cols_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, st_uint64(S(uint64_t, k), ld_uint64(S(uint64_t, k)) + (uint64_t)v));        \
  }                                                                                                \
  static void iprod_row_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    uint64_t a = 1;                                                                                \
    CUARR_HOST_EACH(T, a *= (uint64_t)v);                                                          \
    st_uint64(s, ld_uint64(s) * a);                                                                \
  }                                                                                                \
  static void iprod_cols_##name(FOLD_ARGS) {                                                       \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, st_uint64(S(uint64_t, k), ld_uint64(S(uint64_t, k)) * (uint64_t)v));        \
  }

/* Float sums (fam fsum, fnansum) and products (fprod, fnanprod), in the value type; MAP turns
 * NaN into the identity for the nan- ops. */
#define MAP_PLAIN(x) (x)
#define MAP_NAN0(x) ((x) != (x) ? 0 : (x))
#define MAP_NAN1(x) ((x) != (x) ? 1 : (x))
#define FLOAT_SUM(fam, MAP, name, T)                                                               \
  /* Up to PW_BLOCK values: 8 partial sums, combined pairwise, then the tail. */                   \
  static inline T fam##_block_##name(const char *x, int64_t xs, int64_t n) {                       \
    T r[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;                                                   \
    int64_t k = 0;                                                                                 \
    for (; k + 8 <= n; k += 8) {                                                                   \
      for (int i = 0; i < 8; i++)                                                                  \
        r[i] += MAP(ld_##name(x + (k + i) * xs));                                                  \
    }                                                                                              \
    for (; k < n; k++)                                                                             \
      tail += MAP(ld_##name(x + k * xs));                                                          \
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])) + tail;               \
  }                                                                                                \
  /* NumPy's pairwise_sum: halves (cut at a multiple of 8) down to PW_BLOCK values. */             \
  static T fam##_pairwise_##name(const char *x, int64_t xs, int64_t n) {                           \
    if (n <= PW_BLOCK)                                                                             \
      return xs == (int64_t)sizeof(T) ? fam##_block_##name(x, (int64_t)sizeof(T), n)               \
                                      : fam##_block_##name(x, xs, n);                              \
    int64_t h = n / 2 / 8 * 8;                                                                     \
    return fam##_pairwise_##name(x, xs, h) + fam##_pairwise_##name(x + h * xs, xs, n - h);         \
  }                                                                                                \
  static void fam##_row_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    st_##name(s, ld_##name(s) + fam##_pairwise_##name(x, xs, n));                                  \
  }                                                                                                \
  static void fam##_cols_##name(FOLD_ARGS) {                                                       \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, st_##name(S(T, k), ld_##name(S(T, k)) + MAP(v)));                           \
  }
#define FLOAT_PROD(fam, MAP, name, T)                                                              \
  static void fam##_row_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    T a = 1;                                                                                       \
    CUARR_HOST_EACH(T, a *= MAP(v));                                                               \
    st_##name(s, ld_##name(s) * a);                                                                \
  }                                                                                                \
  static void fam##_cols_##name(FOLD_ARGS) {                                                       \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, st_##name(S(T, k), ld_##name(S(T, k)) * MAP(v)));                           \
  }
#define FLOAT_FOLDS(name, T)                                                                       \
  FLOAT_SUM(fsum, MAP_PLAIN, name, T)                                                              \
  FLOAT_SUM(fnansum, MAP_NAN0, name, T)                                                            \
  FLOAT_PROD(fprod, MAP_PLAIN, name, T)                                                            \
  FLOAT_PROD(fnanprod, MAP_NAN1, name, T)                                                          \
  static void init0_##name(char *s, int64_t n) {                                                   \
    for (int64_t k = 0; k < n; k++)                                                                \
      st_##name(S(T, k), 0);                                                                       \
  }                                                                                                \
  static void init1_##name(char *s, int64_t n) {                                                   \
    for (int64_t k = 0; k < n; k++)                                                                \
      st_##name(S(T, k), 1);                                                                       \
  }                                                                                                \
  static void merge_##name(char *s, const char *b, int64_t n) {                                    \
    for (int64_t k = 0; k < n; k++)                                                                \
      st_##name(S(T, k), ld_##name(S(T, k)) + ld_##name(b + k * (int64_t)sizeof(T)));              \
  }

/* min/max and their nan- forms, for every value type.  TAKE(cls, v, a): v replaces the running
 * a.  min/max: a NaN replaces anything and nothing replaces it; nanmin/nanmax start from NaN
 * (floats) and any value replaces a NaN, so NaN remains only when every value is NaN.  (| not
 * ||: both sides are cheap, and a select without branches pipelines.) */
#define TAKE_MIN(cls, v, a) (((v) < (a)) | ISNAN_##cls(v))
#define TAKE_MAX(cls, v, a) (((v) > (a)) | ISNAN_##cls(v))
#define TAKE_NANMIN(cls, v, a) (((v) < (a)) | ISNAN_##cls(a))
#define TAKE_NANMAX(cls, v, a) (((v) > (a)) | ISNAN_##cls(a))
#define NANID_F(id) NAN
#define NANID_I(id) id
/* Rows run 8 lanes (independent chains), folded into the running value at the end: the
 * result does not depend on the order, NaN included. */
#define EXTREME(fam, TAKE, ID, name, T, cls)                                                       \
  static inline void fam##_lanes_##name(T *l, const char *x, int64_t xs, int64_t n) {              \
    for (int64_t k = 0; k + 8 <= n; k += 8) {                                                      \
      for (int i = 0; i < 8; i++) {                                                                \
        T v = ld_##name(x + (k + i) * xs);                                                         \
        l[i] = TAKE(cls, v, l[i]) ? v : l[i];                                                      \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  static void fam##_row_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    T l[8] = {ID, ID, ID, ID, ID, ID, ID, ID}, a = ld_##name(s);                                   \
    if (xs == (int64_t)sizeof(T))                                                                  \
      fam##_lanes_##name(l, x, (int64_t)sizeof(T), n);                                             \
    else                                                                                           \
      fam##_lanes_##name(l, x, xs, n);                                                             \
    for (int i = 0; i < 8; i++)                                                                    \
      a = TAKE(cls, l[i], a) ? l[i] : a;                                                           \
    for (int64_t k = n / 8 * 8; k < n; k++) {                                                      \
      T v = ld_##name(x + k * xs);                                                                 \
      a = TAKE(cls, v, a) ? v : a;                                                                 \
    }                                                                                              \
    st_##name(s, a);                                                                               \
  }                                                                                                \
  static void fam##_cols_##name(FOLD_ARGS) {                                                       \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, T a = ld_##name(S(T, k)); st_##name(S(T, k), TAKE(cls, v, a) ? v : a));     \
  }                                                                                                \
  static void fam##_init_##name(char *s, int64_t n) {                                              \
    for (int64_t k = 0; k < n; k++)                                                                \
      st_##name(S(T, k), ID);                                                                      \
  }

/* argmin/argmax: a strictly better value moves the index (ties keep the first); the first NaN
 * is better than any number and stays. */
#define BETTER_MIN(cls, v, a) ((v) < (a) || (ISNAN_##cls(v) && !ISNAN_##cls(a)))
#define BETTER_MAX(cls, v, a) ((v) > (a) || (ISNAN_##cls(v) && !ISNAN_##cls(a)))
#define ARG(fam, BETTER, name, T, cls)                                                             \
  static void fam##_row_##name(FOLD_ARGS) {                                                        \
    if (n == 0)                                                                                    \
      return;                                                                                      \
    if (j == 0) { /* the first value is the best so far */                                         \
      st_##name(s, ld_##name(x));                                                                  \
      *ix = 0;                                                                                     \
      x += xs;                                                                                     \
      n--;                                                                                         \
      j++;                                                                                         \
    }                                                                                              \
    T a = ld_##name(s);                                                                            \
    int64_t at = *ix;                                                                              \
    CUARR_HOST_EACH(T, bool b = BETTER(cls, v, a); a = b ? v : a; at = b ? j + k : at);            \
    st_##name(s, a);                                                                               \
    *ix = at;                                                                                      \
  }                                                                                                \
  static void fam##_cols_##name(FOLD_ARGS) {                                                       \
    if (j == 0) {                                                                                  \
      CUARR_HOST_EACH(T, st_##name(S(T, k), v); ix[k] = 0);                                        \
      return;                                                                                      \
    }                                                                                              \
    CUARR_HOST_EACH(T, T a = ld_##name(S(T, k)); bool b = BETTER(cls, v, a);                       \
                    st_##name(S(T, k), b ? v : a); ix[k] = b ? j : ix[k]);                         \
  }

/* The arg ops' values are set by their first position. */
static void init_arg(char *s, int64_t n) {
  (void)s;
  (void)n;
}

#define SUMS_I(name, T) INT_SUMS(name, T)
#define SUMS_F(name, T) FLOAT_FOLDS(name, T)
#define DEFINE_FOLDS(name, ENUM, T, cls, LO, HI)                                                   \
  SUMS_##cls(name, T) EXTREME(min, TAKE_MIN, HI, name, T, cls)                                     \
      EXTREME(max, TAKE_MAX, LO, name, T, cls)                                                     \
          EXTREME(nanmin, TAKE_NANMIN, NANID_##cls(HI), name, T, cls)                              \
              EXTREME(nanmax, TAKE_NANMAX, NANID_##cls(LO), name, T, cls)                          \
                  ARG(argmin, BETTER_MIN, name, T, cls) ARG(argmax, BETTER_MAX, name, T, cls)
VALUE_TYPES(DEFINE_FOLDS)

/* all, any and count_nonzero, on every input dtype as stored (cast.h's list: class H is
 * float16's bits, zero when all but the sign bit are; NaN is true).  States: uint8 for
 * all/any, uint64 for counts. */
#define NZ_B(x) ((x) != 0)
#define NZ_I(x) ((x) != 0)
#define NZ_U(x) ((x) != 0)
#define NZ_F(x) ((x) != 0)
#define NZ_H(x) (((x)&0x7fff) != 0)
static void init_true(char *s, int64_t n) { memset(s, 1, (size_t)n); }
static void init_false(char *s, int64_t n) { memset(s, 0, (size_t)n); }
#define DEFINE_TRUTH(_, name, ENUM, T, store_t, cls)                                               \
  static void all_row_##name(FOLD_ARGS) {                                                          \
    UNUSED_FOLD_ARGS;                                                                              \
    unsigned a = (unsigned char)*s;                                                                \
    CUARR_HOST_EACH(T, a &= NZ_##cls(v));                                                          \
    *s = (char)a;                                                                                  \
  }                                                                                                \
  static void all_cols_##name(FOLD_ARGS) {                                                         \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, s[k] &= NZ_##cls(v));                                                       \
  }                                                                                                \
  static void any_row_##name(FOLD_ARGS) {                                                          \
    UNUSED_FOLD_ARGS;                                                                              \
    unsigned a = (unsigned char)*s;                                                                \
    CUARR_HOST_EACH(T, a |= NZ_##cls(v));                                                          \
    *s = (char)a;                                                                                  \
  }                                                                                                \
  static void any_cols_##name(FOLD_ARGS) {                                                         \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, s[k] |= NZ_##cls(v));                                                       \
  }                                                                                                \
  static void count_row_##name(FOLD_ARGS) {                                                        \
    UNUSED_FOLD_ARGS;                                                                              \
    uint64_t c = 0;                                                                                \
    CUARR_HOST_EACH(T, c += NZ_##cls(v));                                                          \
    st_uint64(s, ld_uint64(s) + c);                                                                \
  }                                                                                                \
  static void count_cols_##name(FOLD_ARGS) {                                                       \
    UNUSED_FOLD_ARGS;                                                                              \
    CUARR_HOST_EACH(T, st_uint64(S(uint64_t, k), ld_uint64(S(uint64_t, k)) + NZ_##cls(v)));        \
  }
CUARR_DTYPE_LIST(DEFINE_TRUTH, _)

/* ---- the table: folds[op][value dtype] */

#define F_SUM_I(name)                                                                              \
  { isum_row_##name, isum_cols_##name, init_u0, NULL }
#define F_SUM_F(name)                                                                              \
  { fsum_row_##name, fsum_cols_##name, init0_##name, merge_##name }
#define F_NANSUM_I(name) F_SUM_I(name)
#define F_NANSUM_F(name)                                                                           \
  { fnansum_row_##name, fnansum_cols_##name, init0_##name, merge_##name }
#define F_PROD_I(name)                                                                             \
  { iprod_row_##name, iprod_cols_##name, init_u1, NULL }
#define F_PROD_F(name)                                                                             \
  { fprod_row_##name, fprod_cols_##name, init1_##name, NULL }
#define F_NANPROD_I(name) F_PROD_I(name)
#define F_NANPROD_F(name)                                                                          \
  { fnanprod_row_##name, fnanprod_cols_##name, init1_##name, NULL }
#define F_EXT(fam, name)                                                                           \
  { fam##_row_##name, fam##_cols_##name, fam##_init_##name, NULL }
#define F_ARG(fam, name)                                                                           \
  { fam##_row_##name, fam##_cols_##name, init_arg, NULL }

#define E_SUM(name, ENUM, T, cls, LO, HI) [ENUM] = F_SUM_##cls(name),
#define E_NANSUM(name, ENUM, T, cls, LO, HI) [ENUM] = F_NANSUM_##cls(name),
#define E_PROD(name, ENUM, T, cls, LO, HI) [ENUM] = F_PROD_##cls(name),
#define E_NANPROD(name, ENUM, T, cls, LO, HI) [ENUM] = F_NANPROD_##cls(name),
#define E_MIN(name, ENUM, T, cls, LO, HI) [ENUM] = F_EXT(min, name),
#define E_MAX(name, ENUM, T, cls, LO, HI) [ENUM] = F_EXT(max, name),
#define E_NANMIN(name, ENUM, T, cls, LO, HI) [ENUM] = F_EXT(nanmin, name),
#define E_NANMAX(name, ENUM, T, cls, LO, HI) [ENUM] = F_EXT(nanmax, name),
#define E_ARGMIN(name, ENUM, T, cls, LO, HI) [ENUM] = F_ARG(argmin, name),
#define E_ARGMAX(name, ENUM, T, cls, LO, HI) [ENUM] = F_ARG(argmax, name),
#define E_ALL(_, name, ENUM, T, store_t, cls)                                                      \
  [ENUM] = {all_row_##name, all_cols_##name, init_true, NULL},
#define E_ANY(_, name, ENUM, T, store_t, cls)                                                      \
  [ENUM] = {any_row_##name, any_cols_##name, init_false, NULL},
#define E_COUNT(_, name, ENUM, T, store_t, cls)                                                    \
  [ENUM] = {count_row_##name, count_cols_##name, init_u0, NULL},

/* all, any and count_nonzero are indexed by the input's dtype (they read it as it is). */
static const fold folds[CUARR_NREDUCE_OPS][CUARR_NDTYPES] = {
    [CUARR_REDUCE_SUM] = {VALUE_TYPES(E_SUM)},
    [CUARR_REDUCE_PROD] = {VALUE_TYPES(E_PROD)},
    [CUARR_REDUCE_MIN] = {VALUE_TYPES(E_MIN)},
    [CUARR_REDUCE_MAX] = {VALUE_TYPES(E_MAX)},
    [CUARR_REDUCE_ARGMIN] = {VALUE_TYPES(E_ARGMIN)},
    [CUARR_REDUCE_ARGMAX] = {VALUE_TYPES(E_ARGMAX)},
    [CUARR_REDUCE_ALL] = {CUARR_DTYPE_LIST(E_ALL, _)},
    [CUARR_REDUCE_ANY] = {CUARR_DTYPE_LIST(E_ANY, _)},
    [CUARR_REDUCE_COUNT_NONZERO] = {CUARR_DTYPE_LIST(E_COUNT, _)},
    [CUARR_REDUCE_NANSUM] = {VALUE_TYPES(E_NANSUM)},
    [CUARR_REDUCE_NANPROD] = {VALUE_TYPES(E_NANPROD)},
    [CUARR_REDUCE_NANMIN] = {VALUE_TYPES(E_NANMIN)},
    [CUARR_REDUCE_NANMAX] = {VALUE_TYPES(E_NANMAX)},
};

/* ---- a call's plan: the fold and the dtypes along the way */

typedef struct plan {
  fold f;
  bool arg;
  int64_t index_base;
  cuarr_host_read rd; /* how the input is read */
  cuarr_dtype state;  /* the states' dtype (see state_dtype) */
  int64_t ssize;      /* its size */
  cuarr_dtype acc, out;
} plan;

/* The states hold the value for min/max and the arg ops (the index is beside it); bool for
 * all/any; for sums, products and counts the float, or the uint64 sum modulo 2^64 (as is when
 * the accumulator is 64-bit, to be cut to its width otherwise). */
static cuarr_dtype state_dtype(cuarr_reduce_op op, cuarr_dtype val, cuarr_dtype acc) {
  bool wide = acc == CUARR_INT64 || acc == CUARR_UINT64;
  switch (op) {
  case CUARR_REDUCE_MIN:
  case CUARR_REDUCE_MAX:
  case CUARR_REDUCE_NANMIN:
  case CUARR_REDUCE_NANMAX:
  case CUARR_REDUCE_ARGMIN:
  case CUARR_REDUCE_ARGMAX: return val;
  case CUARR_REDUCE_ALL:
  case CUARR_REDUCE_ANY: return CUARR_BOOL;
  case CUARR_REDUCE_COUNT_NONZERO: return wide ? acc : CUARR_UINT64;
  default: return cuarr_dtype_is_float(val) ? val : wide ? acc : CUARR_UINT64;
  }
}

static void make_plan(const cuarr_reduce_call *c, plan *p) {
  cuarr_reduce_op op = c->op;
  p->arg = op == CUARR_REDUCE_ARGMIN || op == CUARR_REDUCE_ARGMAX;
  p->index_base = c->index_base;
  p->acc = c->acc;
  p->out = c->out->dtype;
  bool truth = op == CUARR_REDUCE_ALL || op == CUARR_REDUCE_ANY || op == CUARR_REDUCE_COUNT_NONZERO;
  bool sum_like = op == CUARR_REDUCE_SUM || op == CUARR_REDUCE_PROD || op == CUARR_REDUCE_NANSUM ||
                  op == CUARR_REDUCE_NANPROD;
  bool modular = sum_like && cuarr_dtype_is_integer(p->acc) && cuarr_dtype_is_integer(c->in->dtype);
  p->rd = truth || modular ? cuarr_host_read_raw(c->in->dtype)
                           : cuarr_host_read_as(c->in->dtype, p->acc);
  p->f = folds[op][p->rd.val];
  p->state = state_dtype(op, p->rd.val, p->acc);
  p->ssize = (int64_t)cuarr_dtype_size(p->state);
}

/* The results of t <= TILE states (s, and ix for the arg ops) to o, stepping os bytes:
 * state -> acc -> out, or index + index_base -> out. */
static void store(const plan *p, const char *s, const int64_t *ix, int64_t t, char *o, int64_t os) {
  if (p->arg) {
    int64_t at[TILE];
    for (int64_t k = 0; k < t; k++)
      at[k] = (int64_t)((uint64_t)ix[k] + (uint64_t)p->index_base);
    cuarr_cast_rows[p->out][CUARR_INT64](o, os, (const char *)at, sizeof at[0], t);
    return;
  }
  cuarr_dtype d = p->state;
  int64_t ss = p->ssize;
  _Alignas(16) char tmp[TILE * 8];
  if (d != p->acc) { /* cut integer sums to the accumulator's width; float16 rounding */
    int64_t ts = (int64_t)cuarr_dtype_size(p->acc);
    cuarr_cast_rows[p->acc][d](tmp, ts, s, ss, t);
    s = tmp;
    ss = ts;
    d = p->acc;
  }
  cuarr_cast_rows[p->out][d](o, os, s, ss, t);
}

/* ---- pairwise sums: a binary counter of leaf sums, n results wide */

typedef struct cascade {
  char *levels;  /* level i: width states, the sums of 2^i leaves */
  int64_t width; /* in bytes */
  uint64_t mask; /* bit i: level i holds sums */
} cascade;

/* Push the leaves s[0..n) up the counter, and reset them to the identity. */
static void cascade_push(const plan *p, cascade *c, char *s, int64_t n) {
  int i = 0;
  for (; c->mask >> i & 1; i++) {
    p->f.merge(s, c->levels + i * c->width, n);
    c->mask &= ~((uint64_t)1 << i);
  }
  memcpy(c->levels + i * c->width, s, (size_t)(n * p->ssize));
  c->mask |= (uint64_t)1 << i;
  p->f.init(s, n);
}

/* s[k] += every level, smallest first. */
static void cascade_finish(const plan *p, const cascade *c, char *s, int64_t n) {
  for (int i = 0; i < MAXLEVEL; i++)
    if (c->mask >> i & 1)
      p->f.merge(s, c->levels + i * c->width, n);
}

/* ---- geometry */

typedef struct geom {
  char *in, *out;
  int nk; /* kept axes (extent > 1), collapsed, densest (in the input) last */
  int64_t kshape[CUARR_MAXDIM], kin[CUARR_MAXDIM], kout[CUARR_MAXDIM];
  int nr; /* reduced axes (extent > 1), collapsed, in walk order */
  int64_t rshape[CUARR_MAXDIM], rin[CUARR_MAXDIM];
  int64_t nred; /* reduced elements per result */
} geom;

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* False when there is no result to compute.  ordered: walk the reduced axes in C order. */
static bool make_geom(const cuarr_reduce_call *c, bool ordered, geom *g) {
  const cuarr_array *in = c->in, *out = c->out;
  g->in = cuarr_array_data(in);
  g->out = cuarr_array_data(out);
  g->nk = g->nr = 0;
  g->nred = 1;
  for (int d = 0; d < in->ndim; d++) {
    int64_t n = in->shape[d];
    if (c->axes >> d & 1) {
      g->nred *= n;
      if (n <= 1)
        continue;
      g->rshape[g->nr] = n;
      g->rin[g->nr++] = in->strides[d];
    } else {
      if (n == 0)
        return false;
      if (n == 1)
        continue;
      g->kshape[g->nk] = n;
      g->kin[g->nk] = in->strides[d];
      g->kout[g->nk++] = out->strides[d];
    }
  }
  /* The kept axes: flipped in both where the input steps backwards, so it is read forwards;
   * the reduced ones too where any order will do. */
  int64_t *ks[2] = {g->kin, g->kout};
  char *kdata[2] = {g->in, g->out};
  cuarr_iter_flip(g->nk, g->kshape, 2, ks, kdata, NULL, 0, -1);
  g->in = kdata[0];
  g->out = kdata[1];
  cuarr_iter_sort(g->nk, g->kshape, 2, ks, cuarr_iter_by(0));
  g->nk = cuarr_iter_collapse(g->nk, g->kshape, 2, ks);
  if (g->nred == 0) {
    g->nr = 0; /* nothing to walk: every result is the identity */
    return true;
  }
  int64_t *rs[1] = {g->rin};
  if (!ordered) {
    cuarr_iter_flip(g->nr, g->rshape, 1, rs, &g->in, NULL, 0, -1);
    cuarr_iter_sort(g->nr, g->rshape, 1, rs, cuarr_iter_by(0));
  }
  g->nr = cuarr_iter_collapse(g->nr, g->rshape, 1, rs); /* keeps C order: flat indices survive */
  return true;
}

/* Step an odometer over axes [0, n) of shape (the last fastest), moving p0 (and p1 unless
 * NULL) by their strides; false when it has wrapped around. */
static bool odometer(int n, const int64_t *shape, int64_t *idx, char **p0, const int64_t *s0,
                     char **p1, const int64_t *s1) {
  for (int d = n - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) {
      *p0 += s0[d];
      if (p1)
        *p1 += s1[d];
      return true;
    }
    idx[d] = 0;
    *p0 -= (shape[d] - 1) * s0[d];
    if (p1)
      *p1 -= (shape[d] - 1) * s1[d];
  }
  return false;
}

/* ---- by rows: one result (state s, index ix) from its sub-array at base */

static void fold_rows(const plan *p, const geom *g, const char *base, char *s, int64_t *ix) {
  _Alignas(16) char levels[MAXLEVEL * 8], buf[BLOCK * 8];
  cascade cas = {levels, p->ssize, 0};
  p->f.init(s, 1);
  if (g->nred == 0)
    return;
  const int64_t len = g->nr ? g->rshape[g->nr - 1] : 1, xs = g->nr ? g->rin[g->nr - 1] : 0;
  int64_t idx[CUARR_MAXDIM] = {0}, j = 0, in_leaf = 0;
  char *row = (char *)base;
  do {
    const char *x = row;
    for (int64_t n = len; n > 0;) {
      int64_t m = p->rd.in_place || n < BLOCK ? n : BLOCK;
      if (p->f.merge && m > ROW_LEAF - in_leaf)
        m = ROW_LEAF - in_leaf; /* a leaf sums at most ROW_LEAF values */
      int64_t vs;
      const char *v = cuarr_host_read_load(&p->rd, x, xs, m, buf, &vs);
      p->f.row(s, ix, v, vs, m, j);
      j += m;
      x += m * xs;
      n -= m;
      if (p->f.merge && (in_leaf += m) == ROW_LEAF) {
        cascade_push(p, &cas, s, 1);
        in_leaf = 0;
      }
    }
  } while (odometer(g->nr - 1, g->rshape, idx, &row, g->rin, NULL, NULL));
  if (p->f.merge)
    cascade_finish(p, &cas, s, 1);
}

/* ---- by columns: w <= COLS results at base, stepping ks bytes */

typedef struct columns {
  char *s;      /* COLS states */
  int64_t *ix;  /* COLS indices */
  char *levels; /* the pairwise counter, COLS states a level; NULL when no sum needs it */
} columns;

static void fold_columns(const plan *p, const geom *g, const char *base, int64_t ks, int64_t w,
                         const columns *cols) {
  char *s = cols->s;
  cascade cas = {cols->levels, COLS * p->ssize, 0};
  _Alignas(16) char buf[BLOCK * 8];
  p->f.init(s, w);
  if (g->nred == 0)
    return;
  const int64_t len = g->nr ? g->rshape[g->nr - 1] : 1, rs = g->nr ? g->rin[g->nr - 1] : 0;
  const int64_t step = p->rd.in_place ? w : BLOCK;
  int64_t idx[CUARR_MAXDIM] = {0}, j = 0, in_leaf = 0;
  char *row = (char *)base;
  do {
    for (int64_t r = 0; r < len; r++, j++) {
      const char *at = row + r * rs;
      for (int64_t c0 = 0; c0 < w; c0 += step) {
        int64_t m = w - c0 < step ? w - c0 : step, vs;
        const char *v = cuarr_host_read_load(&p->rd, at + c0 * ks, ks, m, buf, &vs);
        p->f.cols(s + c0 * p->ssize, cols->ix + c0, v, vs, m, j);
      }
      if (cas.levels && ++in_leaf == COL_LEAF) {
        cascade_push(p, &cas, s, w);
        in_leaf = 0;
      }
    }
  } while (odometer(g->nr - 1, g->rshape, idx, &row, g->rin, NULL, NULL));
  if (cas.levels)
    cascade_finish(p, &cas, s, w);
}

/* ---- the walk over the results */

static void walk(const plan *p, geom *g, const columns *cols) {
  _Alignas(16) char s[TILE * 8];
  int64_t ix[TILE];
  const int nk = g->nk;
  const int64_t n0 = nk ? g->kshape[nk - 1] : 1, is0 = nk ? g->kin[nk - 1] : 0,
                os0 = nk ? g->kout[nk - 1] : 0;
  int64_t idx[CUARR_MAXDIM] = {0};
  char *in = g->in, *out = g->out;
  do {
    if (cols) {
      for (int64_t c0 = 0; c0 < n0; c0 += COLS) {
        int64_t w = n0 - c0 < COLS ? n0 - c0 : COLS;
        fold_columns(p, g, in + c0 * is0, is0, w, cols);
        for (int64_t t0 = 0; t0 < w; t0 += TILE)
          store(p, cols->s + t0 * p->ssize, cols->ix + t0, w - t0 < TILE ? w - t0 : TILE,
                out + (c0 + t0) * os0, os0);
      }
    } else {
      for (int64_t c0 = 0; c0 < n0; c0 += TILE) {
        int64_t t = n0 - c0 < TILE ? n0 - c0 : TILE;
        for (int64_t k = 0; k < t; k++)
          fold_rows(p, g, in + (c0 + k) * is0, s + k * p->ssize, &ix[k]);
        store(p, s, ix, t, out + c0 * os0, os0);
      }
    }
  } while (odometer(nk - 1, g->kshape, idx, &in, g->kin, &out, g->kout));
}

cuarr_status cuarr_host_reduce(const cuarr_reduce_call *c) {
  plan p;
  geom g;
  make_plan(c, &p);
  if (!make_geom(c, p.arg, &g))
    return CUARR_OK;
  /* By columns when the kept axes are the denser ones, or when each result reduces so few
   * elements that a call per result would cost more than the work. */
  bool by_columns =
      g.nk > 0 && (g.nr == 0 || g.nred < 8 || abs64(g.rin[g.nr - 1]) > abs64(g.kin[g.nk - 1]));
  if (!by_columns) {
    walk(&p, &g, NULL);
    return CUARR_OK;
  }
  int n_levels = 0;
  if (p.f.merge && g.nred >= COL_LEAF) /* the counter's highest bit, for nred / COL_LEAF */
    n_levels = 64 - __builtin_clzll((uint64_t)g.nred / COL_LEAF);
  /* states, indices, levels: COLS 8-byte items each */
  char *mem = malloc((size_t)(2 + n_levels) * COLS * 8);
  if (!mem)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory for a reduction's accumulators");
  columns cols = {mem, (int64_t *)(void *)(mem + COLS * 8), n_levels ? mem + 2 * COLS * 8 : NULL};
  walk(&p, &g, &cols);
  free(mem);
  return CUARR_OK;
}
