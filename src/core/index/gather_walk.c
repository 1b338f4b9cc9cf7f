/*
 * gather_walk.c -- what a gather or a scatter walks: the checks of an advanced index, the
 * selection's shape (NumPy's placement of the broadcast index axes) and the walk itself, with
 * axes of extent 1 dropped and neighbours merged where every operand allows, so that the kernel
 * divides as little as it can.
 */
#include <inttypes.h>
#include <string.h>

#include "array/shape_format.h"
#include "index/gather.h"

static const char *placement(int device) { return device == CUARR_HOST ? "the host" : "a device"; }

cuarr_status cuarr_gather_check(const cuarr_array *a, const cuarr_fancy_index *ix, int *ndim,
                                int64_t *shape, int *bnd, int64_t *bshape) {
  if (!a || !ix)
    return cuarr_fail(CUARR_VALUE_ERROR, "indexing: no array or no index");
  CUARR_TRY(cuarr_array_check_live(a));
  if (ix->n < 1 || ix->n > a->ndim)
    return cuarr_fail(CUARR_INDEX_ERROR,
                      "too many indices: %d index arrays for an array of %d "
                      "dimensions",
                      ix->n, a->ndim);
  if ((unsigned)ix->mode > CUARR_INDEX_CLIP)
    return cuarr_fail(CUARR_VALUE_ERROR, "indexing: unknown mode %d", (int)ix->mode);
  const int device = cuarr_array_device(a);
  bool taken[CUARR_MAXDIM] = {false};
  int nb = 0;
  for (int k = 0; k < ix->n; k++) {
    const cuarr_array *x = ix->index[k];
    if (!x)
      return cuarr_fail(CUARR_VALUE_ERROR, "indexing: index array %d is missing", k + 1);
    CUARR_TRY(cuarr_array_check_live(x));
    if (!cuarr_dtype_is_integer(x->dtype))
      return cuarr_fail(CUARR_INDEX_ERROR,
                        "arrays used as indices must be of integer (or boolean) type, not %s",
                        cuarr_dtype_name(x->dtype));
    if (cuarr_array_device(x) != device)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "indexing: the array is on %s and index array %d on %s: they must be in "
                        "one place",
                        placement(device), k + 1,
                        cuarr_array_device(x) == CUARR_HOST ? "the host"
                        : device == CUARR_HOST              ? "a device"
                                                            : "another device");
    const int axis = ix->axes[k];
    if (axis < 0 || axis >= a->ndim)
      return cuarr_fail(CUARR_INDEX_ERROR, "axis %d is out of bounds for an array of dimension %d",
                        axis + 1, a->ndim);
    if (taken[axis])
      return cuarr_fail(CUARR_INDEX_ERROR, "indexing: axis %d is indexed twice", axis + 1);
    taken[axis] = true;
    /* NumPy's broadcast of the index shapes, right-aligned */
    if (x->ndim > nb) {
      memmove(bshape + (x->ndim - nb), bshape, (size_t)nb * sizeof(int64_t));
      for (int d = 0; d < x->ndim - nb; d++)
        bshape[d] = 1;
      nb = x->ndim;
    }
    for (int d = 0; d < x->ndim; d++) {
      int64_t *b = &bshape[nb - x->ndim + d];
      int64_t e = x->shape[d];
      if (e == *b || e == 1)
        continue;
      if (*b != 1) {
        char s1[CUARR_SHAPE_STR_SIZE], s2[CUARR_SHAPE_STR_SIZE];
        return cuarr_fail(CUARR_INDEX_ERROR,
                          "shape mismatch: indexing arrays could not be broadcast together with "
                          "shapes %s %s",
                          cuarr_shape_format(s1, ix->index[0]->ndim, ix->index[0]->shape),
                          cuarr_shape_format(s2, x->ndim, x->shape));
      }
      *b = e;
    }
  }
  const int nrest = a->ndim - ix->n;
  if (ix->at < 0 || ix->at > nrest)
    return cuarr_fail(CUARR_VALUE_ERROR, "indexing: position %d of the index axes is not in 0..%d",
                      ix->at, nrest);
  if (nrest + nb > CUARR_MAXDIM)
    return cuarr_fail(CUARR_INDEX_ERROR,
                      "indexing: the result would have %d dimensions (at most "
                      "%d)",
                      nrest + nb, CUARR_MAXDIM);
  *bnd = nb;
  int64_t bsize = 1;
  for (int e = 0; e < nb; e++)
    if (__builtin_mul_overflow(bsize, bshape[e], &bsize))
      bsize = INT64_MAX;
  for (int k = 0; k < ix->n && bsize > 0; k++)
    if (a->shape[ix->axes[k]] == 0) /* raise mode finds every index bad; wrap and clip have none */
      return cuarr_fail(CUARR_INDEX_ERROR, "cannot take %lld elements from the empty axis %d",
                        (long long)bsize, ix->axes[k] + 1);
  int nd = 0, r = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (taken[d])
      continue;
    if (r == ix->at)
      for (int e = 0; e < nb; e++)
        shape[nd++] = bshape[e];
    shape[nd++] = a->shape[d];
    r++;
  }
  if (r == ix->at)
    for (int e = 0; e < nb; e++)
      shape[nd++] = bshape[e];
  *ndim = nd;
  return cuarr_shape_check(nd, shape, a->dtype, NULL);
}

cuarr_status cuarr_fancy_shape(const cuarr_array *a, const cuarr_fancy_index *ix, int *ndim,
                               int64_t *shape) {
  int nb;
  int64_t bshape[CUARR_MAXDIM];
  return cuarr_gather_check(a, ix, ndim, shape, &nb, bshape);
}

cuarr_status cuarr_gather_bad_index(const cuarr_fancy_index *ix, const cuarr_array *a, int k,
                                    int64_t v) {
  const int axis = ix->axes[k];
  if (v == 0 && ix->base == 1)
    return cuarr_fail(CUARR_INDEX_ERROR, "index 0 is invalid for axis %d: indices start at 1",
                      axis + 1);
  return cuarr_fail(CUARR_INDEX_ERROR,
                    "index %" PRId64 " is out of bounds for axis %d with size %" PRId64, v,
                    axis + 1, a->shape[axis]);
}

/* ---------------------------------------------------------------- the walk */

/* The strides operand op has along walked axis d (op: 0 a, 1 other, 2 + k index array k). */
static int64_t *stride_of(cuarr_gather_walk *w, int op, int d) {
  return op == 0 ? &w->a_strides[d] : op == 1 ? &w->other_strides[d] : &w->index_strides[op - 2][d];
}

static void drop_axis(cuarr_gather_walk *w, int d) {
  for (int e = d; e < w->nd - 1; e++) {
    w->shape[e] = w->shape[e + 1];
    for (int op = 0; op < 2 + w->nidx; op++)
      *stride_of(w, op, e) = *stride_of(w, op, e + 1);
  }
  w->nd--;
}

static void collapse(cuarr_gather_walk *w) {
  for (int d = w->nd - 1; d >= 0 && w->nd > 1; d--)
    if (w->shape[d] == 1)
      drop_axis(w, d);
  for (int d = w->nd - 1; d > 0; d--) {
    bool ok = true;
    for (int op = 0; op < 2 + w->nidx && ok; op++) {
      int64_t whole;
      ok = !__builtin_mul_overflow(*stride_of(w, op, d), w->shape[d], &whole) &&
           whole == *stride_of(w, op, d - 1);
    }
    if (!ok)
      continue;
    w->shape[d - 1] *= w->shape[d];
    for (int op = 0; op < 2 + w->nidx; op++)
      *stride_of(w, op, d - 1) = *stride_of(w, op, d);
    drop_axis(w, d);
  }
}

/* B's axes as walked axes *nd.. : each index array's strides, right-aligned, 0 where it is
 * broadcast. */
static void put_b(cuarr_gather_walk *w, const cuarr_fancy_index *ix, int nb, const int64_t *bshape,
                  int *nd) {
  for (int e = 0; e < nb; e++, (*nd)++) {
    w->shape[*nd] = bshape[e];
    for (int k = 0; k < ix->n; k++) {
      const cuarr_array *x = ix->index[k];
      int xd = e - (nb - x->ndim);
      w->index_strides[k][*nd] = xd >= 0 && x->shape[xd] != 1 ? x->strides[xd] : 0;
    }
  }
}

void cuarr_gather_walk_fill(cuarr_gather_walk *w, const cuarr_array *a, const cuarr_fancy_index *ix,
                            const cuarr_array *other, bool index_only) {
  memset(w, 0, sizeof *w);
  int sel_nd, nb;
  int64_t sel[CUARR_MAXDIM], bshape[CUARR_MAXDIM];
  (void)cuarr_gather_check(a, ix, &sel_nd, sel, &nb, bshape); /* checked by the caller */
  bool taken[CUARR_MAXDIM] = {false};
  for (int k = 0; k < ix->n; k++)
    taken[ix->axes[k]] = true;
  w->nidx = ix->n;
  w->a = cuarr_array_data(a);
  w->other = other ? cuarr_array_data(other) : NULL;
  w->base = ix->base;
  w->mode = ix->mode;
  for (int k = 0; k < ix->n; k++) {
    w->extent[k] = a->shape[ix->axes[k]];
    w->step[k] = a->strides[ix->axes[k]];
    w->index[k] = cuarr_array_data(ix->index[k]);
    w->index_dtype[k] = ix->index[k]->dtype;
  }
  /* The walked axes: B's alone, or the selection's (a's other axes, B's at position at) */
  int nd = 0;
  if (index_only) {
    put_b(w, ix, nb, bshape, &nd);
  } else {
    int r = 0;
    bool placed = false;
    for (int d = 0; d < a->ndim; d++) {
      if (taken[d])
        continue;
      if (!placed && r == ix->at) {
        put_b(w, ix, nb, bshape, &nd);
        placed = true;
      }
      w->shape[nd] = a->shape[d];
      w->a_strides[nd] = a->strides[d];
      nd++;
      r++;
    }
    if (!placed)
      put_b(w, ix, nb, bshape, &nd);
  }
  w->nd = nd;
  if (other && !index_only)
    for (int d = 0; d < nd; d++)
      w->other_strides[d] = other->shape[d] == 1 ? 0 : other->strides[d];
  if (w->nd == 0) { /* a 0-d selection: one position */
    w->nd = 1;
    w->shape[0] = 1;
  }
  collapse(w);
}

bool cuarr_gather_whole(const cuarr_array *x) {
  const int64_t size = (int64_t)cuarr_dtype_size(x->dtype);
  if ((uintptr_t)cuarr_array_data(x) % (uintptr_t)size)
    return false;
  for (int d = 0; d < x->ndim; d++)
    if (x->strides[d] % size)
      return false;
  return true;
}
