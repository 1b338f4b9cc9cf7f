/*
 * flat_reduce.c -- the short way through a device reduction of every element of a
 * C-contiguous array into a new 0-d result (`a:sum()`, `a:max()`, `a:argmax()`), when one
 * column of blocks does it (no split grid: up to some tens of thousands of elements, where the
 * host's cost per call is what the caller waits for).
 *
 * The op's program and typing are decided once per (op, device, dtype, index base) by the
 * functions the general path uses (cuarr_reduce_resolve, cuarr_device_reduce_program) and
 * remembered per thread with the kernels the engine found for them; a repeated call checks
 * its input, takes its result from the pool and launches through cuarr_red_launch_row.
 * Everything else -- axes, keepdims, dtype, out, views, empty or one-element inputs, grids
 * that split -- goes the general way (reduce.c), which also words every error.
 */
#include <string.h>

#include "reduce/reduce_engine.h"

enum { MEMO_SLOTS = 64 };

typedef struct memo {
  cuarr_red_program *program; /* NULL: empty */
  int device;
  cuarr_reduce_op op;
  cuarr_dtype in;
  int64_t index_base;
  cuarr_dtype result;
  cuarr_red_types types;
  cuarr_red_operand operands[2];
  int n_in;
  cuarr_red_row_kernels kernels; /* found on first use */
  int64_t split_from[2];         /* the fewest elements seen to split the grid, per vector class */
} memo;

static _Thread_local memo memos[MEMO_SLOTS];

static bool same_key(const memo *m, cuarr_reduce_op op, int device, cuarr_dtype in,
                     int64_t index_base) {
  return m->program && m->op == op && m->device == device && m->in == in &&
         m->index_base == index_base;
}

/* The remembered decisions for (op, device, in), made on a miss; NULL when the general path
 * should decide (it then reports what is wrong). */
static memo *memo_for(cuarr_reduce_op op, int device, cuarr_dtype in, int64_t index_base) {
  size_t h = (size_t)op * 131u + (size_t)device * 17u + (size_t)in * 7u + (size_t)index_base;
  memo *m = &memos[h % MEMO_SLOTS];
  if (same_key(m, op, device, in, index_base))
    return m;
  cuarr_dtype acc, result;
  if (cuarr_reduce_resolve(op, in, -1, &acc, &result) != CUARR_OK)
    return NULL;
  *m = (memo){.device = device,
              .op = op,
              .in = in,
              .index_base = index_base,
              .result = result,
              .split_from = {INT64_MAX, INT64_MAX}};
  m->program =
      cuarr_device_reduce_program(op, in, acc, index_base, &m->types, m->operands, &m->n_in);
  return m;
}

/* Live on a device, C-contiguous (axes of extent 1 may have any stride), its data aligned to
 * its itemsize; its element count, or 0 when it is not such an array. */
static int64_t flat_size(const cuarr_array *a) {
  if (!a->buf || !a->buf->ptr || a->buf->device == CUARR_HOST)
    return 0;
  const int64_t itemsize = (int64_t)cuarr_dtype_size(a->dtype);
  if (((uintptr_t)a->buf->ptr + (uint64_t)a->offset) % (uint64_t)itemsize != 0)
    return 0;
  int64_t expected = itemsize;
  for (int d = a->ndim - 1; d >= 0; d--) {
    if (a->shape[d] != 1 && a->strides[d] != expected)
      return 0;
    expected *= a->shape[d];
  }
  return expected / itemsize;
}

bool cuarr_reduce_flat(cuarr_context *ctx, cuarr_reduce_op op, const cuarr_array *in,
                       const cuarr_reduce_args *args, cuarr_array *out, cuarr_status *status) {
  if (out->buf || args->keepdims || args->dtype >= 0 || (unsigned)op >= CUARR_NREDUCE_OPS ||
      (unsigned)in->dtype >= CUARR_NDTYPES)
    return false;
  const uint64_t all = in->ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << in->ndim) - 1;
  if (args->axes != ~(uint64_t)0 && args->axes != all)
    return false;
  const int64_t n = flat_size(in);
  if (n < 2 || n > INT32_MAX)
    return false;
  const int device = in->buf->device;
  memo *m = memo_for(op, device, in->dtype, args->index_base);
  if (!m)
    return false;
  const int vector_class = ((uintptr_t)cuarr_array_data(in) & 15) == 0;
  if (n >= m->split_from[vector_class])
    return false;

  /* What the rest needs, out of the memo now: allocating may run Lua finalizers (the pool's
   * reclaim), and whatever they call may take this thread's slot for another key. */
  memo call = *m;
  call.operands[0].array = in;
  CUstream stream;
  cuarr_status s = cuarr_ctx_stream_for(ctx, device, &stream);
  if (s != CUARR_OK)
    return false; /* the general path words it */
  s = cuarr_array_empty(device, call.result, 0, NULL, false, stream, cuarr_ctx_reclaim(ctx), out);
  if (s != CUARR_OK)
    return *status = s, true;
  s = cuarr_still_live(in); /* internal.h: operands after an allocation */
  if (s != CUARR_OK) {
    cuarr_array_release(out);
    return *status = s, true;
  }
  bool launched = false;
  s = cuarr_red_launch_row(device, stream, call.program, call.n_in, call.operands, &call.types, out,
                           &call.kernels, &launched);
  const bool still = same_key(m, op, device, in->dtype, args->index_base);
  if (still)
    m->kernels = call.kernels;
  if (!launched) { /* a grid that splits (or a layout this way does not take) */
    if (still && m->split_from[vector_class] > n)
      m->split_from[vector_class] = n;
    cuarr_array_release(out);
    return false;
  }
  if (s != CUARR_OK)
    cuarr_array_release(out);
  *status = s;
  return true;
}
