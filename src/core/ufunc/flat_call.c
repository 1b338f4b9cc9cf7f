/*
 * flat_call.c -- the short way through a device ufunc call whose array operands are all
 * C-contiguous and of one shape, the others Lua numbers (`a + b`, `cuarr.add(a, b, c)`,
 * `cuarr.exp(x)`, `a * 2`).
 *
 * With nothing to broadcast, reorder or collapse, the loop, the kernel and its grid depend
 * only on the ufunc, the dtypes (a Lua number's kind) and whether the pointers suit 16-byte
 * vectors.  Those are decided once by the same functions the general path uses
 * (cuarr_uf_resolve, the elementwise engine's kernel cache) and remembered per thread; a
 * repeated call checks its operands, takes its output, packs the pointers and scalars and
 * launches.  A Lua integer's value matters only when it falls outside its loop's integer
 * dtype (uint8 + 300, uint8 < 300): such a call, like every other one -- broadcasting, a view,
 * an output that overlaps an input elsewhere than in place, 2^31 elements or more, anything
 * that fails a check -- goes the general way (call.c), which also words every error.
 */
#include <string.h>

#include "ufunc/ufunc.h"

/* Remembered decisions: direct-mapped, per thread (no locks); a collision costs a lookup in
 * the elementwise engine's cache. */
enum { MEMO_SLOTS = 64, NO_OUT = 0xff, SCALAR = 0x40 };

typedef struct memo {
  const cuarr_ufunc *u; /* NULL: empty */
  int device;
  uint8_t in[3];      /* the inputs' dtypes; SCALAR | the dtype of a Lua number's kind */
  uint8_t out;        /* a given output's dtype, or NO_OUT */
  uint8_t weak_float; /* the dtype a Lua float becomes beside integers */
  cuarr_uf_resolved r;
  int64_t itemsize[4];     /* the array inputs', then the output's (0: a scalar) */
  uint64_t misaligned[4];  /* address bits that rule out 16-byte vectors, per operand */
  int vec;                 /* elements per vector */
  bool int_scalars;        /* a Lua integer meets an integer loop dtype: its range is checked */
  cuarr_ew_flat kernel[2]; /* [0] element by element, [1] in vectors; function NULL until used */
} memo;

static _Thread_local memo memos[MEMO_SLOTS];

/* Live, on the device, of shape (ndim, shape), C-contiguous with this itemsize (NumPy's rule:
 * axes of extent 1 may have any stride), its data aligned to the itemsize (the general path
 * refuses the rest, which only the C API can make).  itemsize is the memo's for the dtype the
 * key was made with. */
static bool flat_operand(const cuarr_array *a, int device, int ndim, const int64_t *shape,
                         int64_t itemsize) {
  if (!a->buf || !a->buf->ptr || a->buf->device != device || a->ndim != ndim)
    return false;
  if (((uintptr_t)a->buf->ptr + (uint64_t)a->offset) % (uint64_t)itemsize != 0)
    return false;
  int64_t expected = itemsize;
  for (int d = ndim - 1; d >= 0; d--) {
    if (a->shape[d] != shape[d])
      return false;
    if (shape[d] != 1 && a->strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

static CUdeviceptr data_of(const cuarr_array *a) { /* a is live */
  return (CUdeviceptr)((char *)a->buf->ptr + a->offset);
}

/* An output written where an input is read is fine when both are the same elements (each is
 * read before it is written, by the same thread); any other overlap needs the general path's
 * staging copy. */
static bool clashes(const cuarr_array *out, int64_t osize, const cuarr_array *in, int64_t isize,
                    int64_t n) {
  CUdeviceptr o = data_of(out), i = data_of(in);
  if (o == i && osize == isize)
    return false;
  return o < i + (CUdeviceptr)(n * isize) && i < o + (CUdeviceptr)(n * osize);
}

/* A Lua integer that its loop's integer dtype cannot hold changes the call (an error, or a
 * comparison decided by the range): not for this path. */
static bool scalars_fit(const cuarr_uf_resolved *r, int nin, const cuarr_operand *in) {
  for (int i = 0; i < nin; i++) {
    const cuarr_operand *a = &in[i];
    if (!a->array && cuarr_dtype_is_integer(a->scalar.dtype) && cuarr_dtype_is_integer(r->in[i]) &&
        cuarr_scalar_range_side(a->scalar, r->in[i]) != 0)
      return false;
  }
  return true;
}

static bool same_key(const memo *a, const memo *b) {
  return a->u == b->u && a->device == b->device && memcmp(a->in, b->in, 3) == 0 &&
         a->out == b->out && a->weak_float == b->weak_float;
}

/* The remembered decisions for this call, made on a miss; NULL when the call has no flat
 * loop to take (the general path then resolves again and reports). */
static memo *memo_for(memo *table, const cuarr_ufunc *u, int device, const cuarr_operand *in,
                      cuarr_dtype weak_float, const cuarr_array *given) {
  const int nin = u->nin;
  uint8_t key_in[3] = {0, 0, 0};
  for (int i = 0; i < nin; i++)
    key_in[i] = in[i].array ? (uint8_t)in[i].array->dtype : (uint8_t)(SCALAR | in[i].scalar.dtype);
  uint8_t key_out = given ? (uint8_t)given->dtype : NO_OUT;
  size_t h = ((uintptr_t)u >> 4) * 31u + (size_t)device * 7u + key_in[0] * 131u + key_in[1] * 17u +
             key_in[2] * 5u + key_out;
  memo *m = &table[h % MEMO_SLOTS];
  if (m->u == u && m->device == device && m->in[0] == key_in[0] && m->in[1] == key_in[1] &&
      m->in[2] == key_in[2] && m->out == key_out && m->weak_float == (uint8_t)weak_float)
    return m;
  cuarr_uf_resolved r;
  if (cuarr_uf_resolve(u, in, weak_float, &r) != CUARR_OK || !r.device || r.u != u ||
      !scalars_fit(&r, nin, in))
    return NULL;
  if (given && !cuarr_can_cast_same_kind(r.out, given->dtype))
    return NULL;
  *m = (memo){.u = u, .device = device, .out = key_out, .weak_float = (uint8_t)weak_float, .r = r};
  memcpy(m->in, key_in, 3);
  int64_t widest = 0;
  for (int i = 0; i <= nin; i++) {
    if (i < nin && !in[i].array)
      continue; /* a scalar: passed by value, not in the layout */
    cuarr_dtype d = i < nin ? in[i].array->dtype : given ? given->dtype : r.out;
    m->itemsize[i] = (int64_t)cuarr_dtype_size(d);
    widest = m->itemsize[i] > widest ? m->itemsize[i] : widest;
  }
  m->vec = cuarr_ew_vector_width((size_t)widest);
  for (int i = 0; i < nin; i++)
    m->int_scalars =
        m->int_scalars || (!in[i].array && cuarr_dtype_is_integer(in[i].scalar.dtype) &&
                           cuarr_dtype_is_integer(r.in[i]));
  for (int i = 0; i <= nin; i++)
    m->misaligned[i] = m->itemsize[i] ? (uint64_t)(m->vec * m->itemsize[i]) - 1 : 0;
  return m;
}

bool cuarr_uf_flat_call(cuarr_context *ctx, const cuarr_ufunc *u, int device,
                        const cuarr_operand *in, cuarr_dtype weak_float_dtype, cuarr_array *out,
                        cuarr_status *status) {
  const int nin = u->nin;
  const cuarr_array *first = NULL;
  for (int i = 0; i < nin && !first; i++)
    first = in[i].array;
  if (!first)
    return false;
  const int ndim = first->ndim;
  const int64_t *shape = first->shape;
  int64_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d]; /* no overflow: a live array's byte size fits in int64 */
  if (n < 1 || n > INT32_MAX)
    return false;
  for (int i = 0; i < nin; i++)
    if (!in[i].array && (!in[i].weak || (unsigned)in[i].scalar.dtype >= CUARR_NDTYPES))
      return false;
  const bool given = out->buf != NULL;
  if (given && (unsigned)out->dtype >= CUARR_NDTYPES)
    return false;
  memo *m = memo_for(memos, u, device, in, weak_float_dtype, given ? out : NULL);
  if (!m)
    return false;
  for (int i = 0; i < nin; i++)
    if (in[i].array && !flat_operand(in[i].array, device, ndim, shape, m->itemsize[i]))
      return false;
  if (given) {
    if (!flat_operand(out, device, ndim, shape, m->itemsize[nin]))
      return false;
    for (int i = 0; i < nin; i++)
      if (in[i].array && clashes(out, m->itemsize[nin], in[i].array, m->itemsize[i], n))
        return false;
  }
  if (m->int_scalars && !scalars_fit(&m->r, nin, in))
    return false;

  /* The kernel's parameters: an array's address, or a scalar converted to its loop dtype (in
   * the low bytes of the 8, as the general path passes it); the result's address comes later
   * when it is allocated here (the pool's are aligned for vectors: checked below). */
  CUdeviceptr ptrs[4];
  uint64_t misaligned = 0;
  for (int i = 0; i < nin; i++) {
    if (in[i].array) {
      ptrs[i] = data_of(in[i].array);
      misaligned |= ptrs[i] & m->misaligned[i];
    } else {
      uint64_t bits = 0;
      cuarr_scalar_store(in[i].scalar, m->r.in[i], &bits);
      ptrs[i] = bits;
    }
  }
  if (given)
    misaligned |= data_of(out) & m->misaligned[nin];
  const bool vectors = m->vec > 1 && misaligned == 0;
  /* What the rest needs, out of the memo now: allocating may run Lua finalizers (the pool's
   * reclaim), whose own ufunc calls may take this thread's slot for another key.  The whole
   * memo only when its kernel is still to be found. */
  cuarr_ew_flat kernel = m->kernel[vectors];
  const cuarr_dtype result_dtype = m->r.out;
  const uint64_t result_misaligned = m->misaligned[nin];
  memo *const slot = m, snapshot;
  if (!kernel.function) {
    snapshot = *slot;
    m = &snapshot;
  }

  /* Decided: from here on the call is this path's, and so are its errors. */
  CUstream stream;
  cuarr_status s = cuarr_ctx_stream_for(ctx, device, &stream);
  if (s != CUARR_OK)
    return *status = s, true;
  /* The result straight into *out (cuarr_array_empty writes nothing when it fails); released
   * again, which leaves *out empty as it came, if the launch fails. */
  if (!given) {
    s = cuarr_array_empty(device, result_dtype, ndim, shape, false, stream, cuarr_ctx_reclaim(ctx),
                          out);
    if (s != CUARR_OK)
      return *status = s, true;
    /* ptrs were read before the allocation (internal.h: operands after an allocation). */
    for (int i = 0; i < nin && s == CUARR_OK; i++)
      s = cuarr_still_live(in[i].array);
    if (s != CUARR_OK) {
      cuarr_array_release(out);
      return *status = s, true;
    }
    if (vectors && (data_of(out) & result_misaligned) != 0) { /* not from this pool */
      cuarr_array_release(out);
      return false;
    }
  }
  ptrs[nin] = data_of(out);
  if (!kernel.function) { /* the first call of this key with this alignment */
    cuarr_ew_operand ops[4];
    cuarr_uf_device_operands(&m->r, nin, in, out, ops);
    s = cuarr_ew_flat_kernel(device, m->r.device, nin + 1, ops, vectors ? m->vec : 1, &kernel);
    if (s == CUARR_OK && same_key(slot, m)) /* the slot still holds this key */
      slot->kernel[vectors] = kernel;
  }
  if (s == CUARR_OK)
    s = cuarr_device_activate(device);
  if (s == CUARR_OK)
    s = cuarr_ew_flat_launch(device, &kernel, stream, nin + 1, ptrs, n);
  if (!given && s != CUARR_OK)
    cuarr_array_release(out);
  *status = s;
  return true;
}
