/*
 * gather.h -- what the files of indexing with integer arrays share (gather*.c, scatter.c,
 * take.c): the walk over a selection that host loops and the kernels
 * (kernels/templates/gather.cu) both follow, and the kernels' specialisations.  Private to
 * src/core/index/.
 */
#ifndef CUARR_INDEX_GATHER_H
#define CUARR_INDEX_GATHER_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Threads per block, positions in flight per thread, and the kernels' capacities: walked axes
 * (1, 2, 4 or 8 after collapsing; more are walked in pieces) and index arrays (1, 2, 4 or
 * CUARR_MAXDIM). */
#define CUARR_GATHER_THREADS 256
#define CUARR_GATHER_BATCH 4
#define CUARR_GATHER_MAX_AXES 8
/* Positions per thread of the flat take (one vector of indices in, one of results out). */
#define CUARR_GATHER_VEC 4

enum { CUARR_GATHER_OP_GATHER, CUARR_GATHER_OP_SCATTER, CUARR_GATHER_OP_CHECK };

typedef struct cuarr_gather_variant {
  int op;       /* CUARR_GATHER_OP_* */
  int itemsize; /* 1, 2, 4 or 8: elements move as bits */
  int axes;     /* 1, 2, 4 or 8 */
  int nidx;     /* 1, 2, 4 or CUARR_MAXDIM */
  bool wide;
  int flat; /* a flat take (gather.cu's cuarr_gather_flat): the index dtype; 0 otherwise */
} cuarr_gather_variant;

/* "cuarr_gather_b4_nd2_ni1_i32" (scatter_, check_ for the other ops; "cuarr_take_b4_int64_i32"
 * for a flat take) */
void cuarr_gather_variant_name(const cuarr_gather_variant *v, char *buf, size_t size);
/* A malloc'd program of the n variants; NULL with the error set. */
char *cuarr_gather_program(const cuarr_gather_variant *vs, int n);

/* The walk: positions over `shape` (C order); at each, a's byte offset over the walked axes,
 * the other operand's and each index array's, then each index array's value moves a along its
 * axis (extent[k], step[k] bytes).  Strides are in bytes. */
typedef struct cuarr_gather_walk {
  int nd, nidx;
  int64_t shape[CUARR_MAXDIM];
  int64_t a_strides[CUARR_MAXDIM];
  int64_t other_strides[CUARR_MAXDIM];
  int64_t index_strides[CUARR_MAXDIM][CUARR_MAXDIM];
  int64_t extent[CUARR_MAXDIM];
  int64_t step[CUARR_MAXDIM];
  cuarr_dtype index_dtype[CUARR_MAXDIM];
  char *a, *other;
  char *index[CUARR_MAXDIM];
  int64_t base;
  cuarr_index_mode mode;
} cuarr_gather_walk;

/* Checks a and ix (live, one place, integer index arrays, distinct axes, broadcastable) and
 * gives the selection's shape and B's (the broadcast index shape) with its position. */
cuarr_status cuarr_gather_check(const cuarr_array *a, const cuarr_fancy_index *ix, int *ndim,
                                int64_t *shape, int *bnd, int64_t *bshape);
/* The walk of a[ix] against other (an array of the selection's shape, or NULL), axes of
 * extent 1 dropped and neighbours merged; index_only: over B's axes alone (the check before a
 * scatter). */
void cuarr_gather_walk_fill(cuarr_gather_walk *w, const cuarr_array *a, const cuarr_fancy_index *ix,
                            const cuarr_array *other, bool index_only);
/* The position index value v selects along an axis of extent e (cuarr_index_mode's rules);
 * false when it selects none. */
static inline bool cuarr_gather_position(int64_t v, int64_t e, int64_t base, cuarr_index_mode m,
                                         int64_t *pos) {
  if (m == CUARR_INDEX_CLIP) {
    int64_t q = v < INT64_MIN + base ? INT64_MIN : v - base;
    *pos = q < 0 ? 0 : (q >= e ? e - 1 : q);
    return e > 0;
  }
  int64_t q = v < 0 ? v + e : v - base;
  if (m == CUARR_INDEX_WRAP) {
    if (e <= 0)
      return false;
    q %= e;
    *pos = q < 0 ? q + e : q;
    return true;
  }
  *pos = q;
  return q >= 0 && q < e;
}
/* The IndexError of a bad value v of index array k. */
cuarr_status cuarr_gather_bad_index(const cuarr_fancy_index *ix, const cuarr_array *a, int k,
                                    int64_t v);

/* The walk on the host (op: CUARR_GATHER_OP_*; itemsize bytes per element).  A bad index
 * stops it with the IndexError (GATHER, CHECK). */
cuarr_status cuarr_gather_host(const cuarr_gather_walk *w, int op, size_t itemsize,
                               const cuarr_fancy_index *ix, const cuarr_array *a);
/* The walk on the device, one launch (pieces beyond CUARR_GATHER_MAX_AXES axes); in RAISE
 * mode with flag (16 zeroed bytes of device memory) given, bad indices are recorded there. */
cuarr_status cuarr_gather_device(int device, CUstream stream, const cuarr_gather_walk *w, int op,
                                 size_t itemsize, void *flag);
/* Raise mode on a device: zeroed flag bytes, the launch, the record read back (one wait) and
 * turned into the IndexError. */
cuarr_status cuarr_gather_device_checked(cuarr_context *ctx, int device, CUstream stream,
                                         const cuarr_gather_walk *w, int op, size_t itemsize,
                                         const cuarr_fancy_index *ix, const cuarr_array *a);

/* The operands as the walk reads them: a and ix, with copies standing in for an a or index
 * arrays whose strides are not whole elements, and for index arrays that overlap `written`
 * (the array a scatter writes; NULL for a gather). */
typedef struct cuarr_gather_operands {
  cuarr_fancy_index ix;
  const cuarr_array *a;
  cuarr_array tmp[CUARR_MAXDIM + 1];
  int ntmp;
} cuarr_gather_operands;
cuarr_status cuarr_gather_prepare(cuarr_gather_operands *o, cuarr_context *ctx, int device,
                                  CUstream stream, const cuarr_array *a,
                                  const cuarr_fancy_index *ix, const cuarr_array *written);
void cuarr_gather_operands_release(cuarr_gather_operands *o);
/* One walk (host loops or a launch; raise mode's record read back for GATHER and CHECK). */
cuarr_status cuarr_gather_run(cuarr_context *ctx, int device, CUstream stream, int op,
                              const cuarr_array *a, const cuarr_fancy_index *ix,
                              const cuarr_array *other, bool index_only);

/* Whether x's data and strides are whole elements (what the kernels need). */
bool cuarr_gather_whole(const cuarr_array *x);

#endif
