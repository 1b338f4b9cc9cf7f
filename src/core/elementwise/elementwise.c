/*
 * elementwise/ -- the device elementwise engine: layouts, kernel variants, generated loops,
 *   launches.
 *
 * elementwise.c -- cuarr_ew_launch: check the operands, choose the layout class, find the
 * kernel in the program's cache (compiling it on the first call) and launch it.
 *
 * Layout classes, after broadcasting (stride 0) and collapsing the array operands' axes (the
 * iterator's stages, array/iter.h):
 *  - contiguous: one axis of stride 1 in every array operand; 16-byte vectors when every
 *    pointer is aligned for them, else element by element;
 *  - strided with 1..4 axes, or up to CUARR_MAXDIM counted at run time; with 1..4 axes the
 *    innermost axis moves vectors when every operand steps 1 or 0 along it (a row broadcast,
 *    a column broadcast), its extent is a multiple of the vector width and the rows start
 *    aligned.
 * 32-bit indexing when the element count and every operand's span fit, 64-bit beyond.  When
 * the operation does not use `i`, the axes are first reordered by the first output's strides
 * (flipped where it steps backwards, the largest first), so transposed and reversed operands
 * collapse and are accessed in memory order.
 *
 * A call that finds its kernel compiles nothing, builds no text and allocates nothing from the
 * heap (up to STACK_SLOTS array operands and STACK_ARG_BYTES of kernel parameters).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "compile/codegen.h"
#include "elementwise/elementwise_private.h"

/* Array operands whose strides fit on the stack, and kernel-parameter bytes likewise. */
#define STACK_SLOTS 16
#define STACK_ARG_BYTES 8192

/* ---------------------------------------------------------------- checks */

static cuarr_status operand_error(const cuarr_ew_program *p, const cuarr_ew_operand *o,
                                  const char *why) {
  return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s, operand %s: %s", p->name,
                    o->name ? o->name : "?", why);
}

static cuarr_status broadcast_error(const cuarr_ew_program *p, const cuarr_ew_operand *o, int ndim,
                                    const int64_t *shape) {
  char from[CUARR_SHAPE_STR_SIZE], into[CUARR_SHAPE_STR_SIZE];
  return cuarr_fail(
      CUARR_VALUE_ERROR, "kernel %s: operand %s of shape %s does not broadcast to the shape %s",
      p->name, o->name ? o->name : "?", cuarr_shape_format(from, o->array->ndim, o->array->shape),
      cuarr_shape_format(into, ndim, shape));
}

/* The shape the non-raw inputs broadcast to (when no output gives it). */
static cuarr_status broadcast_inputs(const cuarr_ew_program *p, int n, const cuarr_ew_operand *ops,
                                     int *ndim, int64_t *shape) {
  *ndim = 0;
  for (int k = 0; k < n; k++) {
    const cuarr_array *a = ops[k].array;
    if (!a || ops[k].raw)
      continue;
    if (!cuarr_iter_broadcast_shape(ndim, shape, a->ndim, a->shape))
      return broadcast_error(p, &ops[k], *ndim, shape);
  }
  return CUARR_OK;
}

/* in (its strides broadcast) addresses the same bytes as out, element for element. */
static bool same_layout(const cuarr_array *out, const cuarr_array *in, const int64_t *strides) {
  if (cuarr_array_data(out) != cuarr_array_data(in) ||
      cuarr_dtype_size(out->dtype) != cuarr_dtype_size(in->dtype))
    return false;
  for (int d = 0; d < out->ndim; d++)
    if (out->shape[d] > 1 && out->strides[d] != strides[d])
      return false;
  return true;
}

/* Whether non-raw input k shares memory with a non-raw output in another layout: reading it
 * while the kernel writes would see elements already overwritten. */
static bool overlaps_an_output(int n, const cuarr_ew_operand *ops, int k, int ndim,
                               const int64_t *shape) {
  int64_t strides[CUARR_MAXDIM];
  for (int j = 0; j < n; j++) {
    const cuarr_array *out = ops[j].array;
    if (!out || ops[j].raw || !ops[j].output || !cuarr_array_may_overlap(out, ops[k].array))
      continue;
    if (!cuarr_iter_broadcast(ops[k].array, ndim, shape, strides) ||
        !same_layout(out, ops[k].array, strides))
      return true;
  }
  return false;
}

/* ---------------------------------------------------------------- planning */

typedef struct slot {
  int op;     /* the operand */
  char *data; /* address of element (0, ..., 0) */
  int64_t itemsize;
  int64_t *strides; /* CUARR_MAXDIM of them, in elements */
  int64_t origin;   /* elements from base to element (0, ..., 0) */
  CUdeviceptr base; /* the lowest element touched */
  bool splat;       /* vectorised strided loops: stride 0 along the inner axis */
} slot;

typedef struct plan {
  int n_slots;
  slot *slots;
  int ndim; /* after collapsing, at least 1 */
  int64_t n;
  int64_t shape[CUARR_MAXDIM];
  int layout;
  bool wide;
  int vec;
  bool whole; /* contiguous vectors and no tail (cuarr_ew_program.whole_vectors) */
} plan;

static bool aligned(CUdeviceptr a, int64_t bytes) { return a % (uint64_t)bytes == 0; }

/* Whether the innermost axis can move vectors of v elements (see the file comment). */
static bool rows_vectorise(plan *p, int v) {
  int inner = p->ndim - 1;
  if (v < 2 || p->ndim > CUARR_EW_ND_MAX || p->shape[inner] % v != 0)
    return false;
  for (int s = 0; s < p->n_slots; s++) {
    slot *sl = &p->slots[s];
    int64_t st = sl->strides[inner];
    if (st != 0 && st != 1)
      return false;
    sl->splat = st == 0;
    if (sl->splat)
      continue;
    if (!aligned(sl->base, v * sl->itemsize) || sl->origin % v != 0)
      return false;
    for (int d = 0; d < inner; d++)
      if (sl->strides[d] % v != 0)
        return false;
  }
  return true;
}

/* Reorder (any_order: the iterator flips the axes along which the lead slot steps backwards,
 * in every slot, and orders the axes by its strides, largest first), collapse, measure and
 * classify.  The slots' data and element strides are filled. */
static cuarr_status plan_layout(plan *p, const cuarr_ew_program *program, bool any_order,
                                int lead) {
  int64_t *strides[CUARR_EW_MAX_OPERANDS];
  for (int s = 0; s < p->n_slots; s++)
    strides[s] = p->slots[s].strides;
  if (any_order && p->n_slots > 0) {
    char *data[CUARR_EW_MAX_OPERANDS];
    int64_t itemsize[CUARR_EW_MAX_OPERANDS];
    for (int s = 0; s < p->n_slots; s++) {
      data[s] = p->slots[s].data;
      itemsize[s] = p->slots[s].itemsize;
    }
    cuarr_iter_flip(p->ndim, p->shape, p->n_slots, strides, data, itemsize, lead, -1);
    cuarr_iter_sort(p->ndim, p->shape, p->n_slots, strides, cuarr_iter_by(lead));
    for (int s = 0; s < p->n_slots; s++)
      p->slots[s].data = data[s];
  }
  p->ndim = cuarr_iter_collapse_kernel(p->ndim, p->shape, p->n_slots, strides);
  bool contig = p->ndim == 1, fits = p->n <= INT32_MAX;
  int64_t widest = 0;
  for (int s = 0; s < p->n_slots; s++) {
    slot *sl = &p->slots[s];
    int64_t span;
    char *base;
    if (!cuarr_iter_place(p->ndim, p->shape, sl->strides, sl->data, sl->itemsize, &sl->origin,
                          &base, &span))
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: array strides are too large to index",
                        program->name);
    sl->base = (CUdeviceptr)base;
    fits = fits && cuarr_iter_span_fits32(span);
    contig = contig && (sl->strides[0] == 1 || p->shape[0] == 1);
    widest = sl->itemsize > widest ? sl->itemsize : widest;
  }
  p->wide = !fits;
  int v = cuarr_ew_vector_width((size_t)widest);
  if (contig) {
    p->layout = CUARR_EW_CONTIG;
    p->vec = v;
    for (int s = 0; s < p->n_slots && p->vec > 1; s++)
      if (!aligned(p->slots[s].base, v * p->slots[s].itemsize))
        p->vec = 1;
    if (p->n_slots == 0)
      p->vec = 1;
    p->whole = program->whole_vectors && p->vec > 1 && p->n % p->vec == 0;
    return CUARR_OK;
  }
  p->layout = p->ndim <= CUARR_EW_ND_MAX ? p->ndim : CUARR_EW_GENERIC;
  p->whole = false; /* the key copies it: every layout must set it */
  p->vec = rows_vectorise(p, v) ? v : 1;
  if (p->vec == 1)
    for (int s = 0; s < p->n_slots; s++)
      p->slots[s].splat = false;
  return CUARR_OK;
}

/* Every non-raw array operand C-contiguous with the loop's shape. */
static bool all_contiguous(int n, const cuarr_ew_operand *ops, int ndim, const int64_t *shape) {
  for (int k = 0; k < n; k++) {
    const cuarr_array *a = ops[k].array;
    if (!a || ops[k].raw)
      continue;
    if (a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof *shape) != 0 ||
        !cuarr_array_is_c_contiguous(a))
      return false;
  }
  return true;
}

/* ---------------------------------------------------------------- kernel parameters */

typedef struct args {
  unsigned char *bytes;
  size_t used, size;
  void *ptrs[CUARR_EW_MAX_OPERANDS + 1];
  int count;
} args;

/* Room for one parameter of `size` bytes, 8-aligned, recorded as the next argument. */
static void *arg_next(args *a, size_t size) {
  void *p = a->bytes + a->used;
  a->used += (size + 7) & ~(size_t)7;
  a->ptrs[a->count++] = p;
  return p;
}

/* Bytes of cuarr_layout<I, axes, n_slots>. */
static size_t layout_bytes(const plan *p) {
  int axes = p->layout == CUARR_EW_GENERIC ? CUARR_MAXDIM : p->layout;
  return (size_t)(2 + p->n_slots + axes + p->n_slots * axes) * (p->wide ? 8 : 4);
}

static void put_index(unsigned char *at, int i, bool wide, uint64_t v) {
  if (wide) {
    memcpy(at + 8 * (size_t)i, &v, 8);
  } else {
    uint32_t w = (uint32_t)v; /* negative strides wrap, as the kernels expect */
    memcpy(at + 4 * (size_t)i, &w, 4);
  }
}

/* The layout (kernels/include/common.cuh's cuarr_layout): n, ndim, origin[], shape[], strides[][],
 * over vectors when the inner axis is vectorised. */
static void pack_layout(const plan *p, unsigned char *at) {
  int axes = p->layout == CUARR_EW_GENERIC ? CUARR_MAXDIM : p->layout, i = 0, inner = p->ndim - 1;
  put_index(at, i++, p->wide, (uint64_t)(p->n / p->vec));
  put_index(at, i++, p->wide, (uint64_t)p->ndim);
  for (int s = 0; s < p->n_slots; s++)
    put_index(at, i++, p->wide, (uint64_t)p->slots[s].origin);
  for (int d = 0; d < axes; d++) { /* the generic kernel's unused axes: extent 1, stride 0 */
    int64_t e = d < p->ndim ? p->shape[d] : 1;
    put_index(at, i++, p->wide, (uint64_t)(d == inner ? e / p->vec : e));
  }
  for (int s = 0; s < p->n_slots; s++) {
    const slot *sl = &p->slots[s];
    for (int d = 0; d < axes; d++) {
      int64_t st = d < p->ndim ? sl->strides[d] : 0;
      if (d == inner && p->vec > 1)
        st = sl->splat ? 0 : p->vec; /* in elements: one vector per step */
      put_index(at, i++, p->wide, (uint64_t)st);
    }
  }
}

/* ---------------------------------------------------------------- launching */

static void fill_key(cuarr_ew_key *key, int device, const plan *p, int n,
                     const cuarr_ew_operand *ops) {
  key->device = device;
  key->n = (uint8_t)n;
  key->layout = (uint8_t)p->layout;
  key->wide = p->wide;
  key->vec = (uint8_t)p->vec;
  key->whole = p->whole;
  int s = 0;
  for (int k = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    uint8_t *op = key->op[k];
    op[1] = (uint8_t)o->var_dtype;
    op[3] = 0;
    if (!o->array) {
      op[0] = (uint8_t)o->var_dtype;
      op[2] = CUARR_EW_SCALAR;
      continue;
    }
    op[0] = (uint8_t)o->array->dtype;
    if (o->raw) {
      op[2] = CUARR_EW_RAW | (cuarr_array_is_c_contiguous(o->array) ? CUARR_EW_RAW_CONTIG : 0);
      op[3] = (uint8_t)o->array->ndim;
    } else {
      op[2] = CUARR_EW_ARRAY | (p->slots[s++].splat ? CUARR_EW_SPLAT : 0);
    }
    if (o->output)
      op[2] |= CUARR_EW_OUTPUT;
  }
}

static cuarr_status kernel_for(int device, cuarr_ew_cache *cache, cuarr_ew_program *program,
                               const cuarr_ew_operand *ops, const cuarr_ew_key *key,
                               CUfunction *out) {
  uint64_t hash = cuarr_ew_key_hash(key);
  CUfunction f = cuarr_ew_cache_find(cache, key, hash);
  if (f) {
    *out = f;
    return CUARR_OK;
  }
  char *name = NULL, *source = NULL;
  CUARR_TRY(cuarr_ew_key_source(program, ops, key, &source, &name));
  /* NVRTC's fast-compile mode at its lightest, after the program's own options (unless they
   * choose a mode): a new kernel's first call waits for NVRTC, and the mode takes 2 ms off the
   * contiguous float32 kernel's 26 ms (VM), for the same loads, arithmetic and stores in the
   * PTX of the memory-bound loops (as the reductions, reduce_engine.c). */
  cuarr_status s =
      cuarr_codegen_kernel_get(device, source, name, program->options, program->n_options, &f);
  free(source);
  free(name);
  if (s == CUARR_OK)
    s = cuarr_ew_cache_add(cache, key, hash, f);
  if (s == CUARR_OK)
    *out = f;
  return s;
}

static unsigned grid_for(const plan *p, unsigned max_blocks) {
  int64_t per_thread = p->vec > 1                      ? (int64_t)p->vec * CUARR_EW_VECTOR_UNROLL
                       : p->layout == CUARR_EW_CONTIG  ? 1
                       : p->layout == CUARR_EW_GENERIC ? CUARR_EW_GENERIC_BATCH
                                                       : CUARR_EW_STRIDED_BATCH;
  int64_t per_block = CUARR_EW_THREADS * per_thread;
  int64_t blocks = (p->n + per_block - 1) / per_block;
  if (blocks > (int64_t)max_blocks)
    blocks = max_blocks;
  return blocks < 1 ? 1 : (unsigned)blocks;
}

/* Plan, find the kernel, pack the parameters and launch.  The operands are checked; n_slots
 * of them are non-raw arrays; the loop has `count` elements of the shape (ndim, shape). */
static cuarr_status launch_checked(cuarr_ew_cache *cache, int device, CUstream stream,
                                   cuarr_ew_program *program, int n, const cuarr_ew_operand *ops,
                                   int n_slots, int lead, int ndim, const int64_t *shape,
                                   int64_t count) {
  slot stack_slots[STACK_SLOTS];
  int64_t stack_strides[STACK_SLOTS * CUARR_MAXDIM];
  uint64_t stack_args[STACK_ARG_BYTES / 8];
  /* Field by field, not `= {...}`: zero-filling the parameter-pointer array and the shape on
   * every call was a tenth of the host's cost of cuarr.add(a, b, c). */
  plan p;
  p.n_slots = n_slots;
  p.slots = stack_slots;
  p.ndim = ndim;
  p.n = count;
  int64_t *all_strides = stack_strides;
  args a;
  a.bytes = (unsigned char *)stack_args;
  a.size = sizeof stack_args;
  a.used = 0;
  a.count = 0;
  cuarr_status s = CUARR_OK;
  if (n_slots > STACK_SLOTS) {
    p.slots = malloc((size_t)n_slots * sizeof *p.slots);
    all_strides = malloc((size_t)n_slots * CUARR_MAXDIM * sizeof *all_strides);
    if (!p.slots || !all_strides) {
      s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory to plan kernel %s", program->name);
      goto done;
    }
  }
  memcpy(p.shape, shape, (size_t)ndim * sizeof *shape);

  /* Each array operand's element strides over the loop's shape; when every one is
   * C-contiguous with that shape, one axis of stride 1 (nothing to broadcast, reorder or
   * collapse). */
  bool contig = n_slots > 0 && all_contiguous(n, ops, ndim, shape);
  int lead_slot = 0;
  for (int k = 0, sn = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    if (!o->array || o->raw)
      continue;
    slot *sl = &p.slots[sn];
    *sl = (slot){.op = k,
                 .data = cuarr_array_data(o->array),
                 .itemsize = (int64_t)cuarr_dtype_size(o->array->dtype),
                 .strides = all_strides + (size_t)sn * CUARR_MAXDIM};
    if (k == lead)
      lead_slot = sn;
    bool ok;
    if (contig) {
      sl->strides[0] = 1;
      ok = (uintptr_t)sl->data % (uintptr_t)sl->itemsize == 0;
    } else {
      int64_t bytes[CUARR_MAXDIM];
      cuarr_iter_broadcast(o->array, ndim, shape, bytes); /* checked by the caller */
      ok = cuarr_iter_element_strides(ndim, shape, bytes, sl->data, sl->itemsize, sl->strides);
    }
    if (!ok) {
      s = operand_error(program, o, "array data or strides are not multiples of the itemsize");
      goto done;
    }
    sn++;
  }
  if (n_slots == 0 || contig) { /* a flat loop: of `size` elements when every array is raw */
    p.ndim = 1;
    p.shape[0] = count;
  }
  s = plan_layout(&p, program, cuarr_ew_cache_any_order(cache), lead_slot);
  if (s != CUARR_OK)
    goto done;

  cuarr_ew_key key;
  fill_key(&key, device, &p, n, ops);
  CUfunction f;
  s = kernel_for(device, cache, program, ops, &key, &f);
  if (s != CUARR_OK)
    goto done;
  unsigned max_blocks;
  s = cuarr_ew_max_blocks(device, &max_blocks);
  if (s != CUARR_OK)
    goto done;

  /* The parameters: each operand's, then the element count or the layout. */
  size_t need = (p.layout == CUARR_EW_CONTIG ? 8 : layout_bytes(&p) + 8);
  for (int k = 0; k < n; k++)
    need += ops[k].array && ops[k].raw ? cuarr_iter_raw_bytes(ops[k].array) + 8 : 8;
  if (need > a.size) {
    a.bytes = malloc(need);
    a.size = need;
    if (!a.bytes) {
      s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the parameters of kernel %s",
                     program->name);
      goto done;
    }
  }
  for (int k = 0, sn = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    if (!o->array) {
      cuarr_scalar_store(o->scalar, o->var_dtype, arg_next(&a, 8));
    } else if (o->raw) {
      cuarr_iter_pack_raw(o->array, arg_next(&a, cuarr_iter_raw_bytes(o->array)));
    } else {
      uint64_t base = (uint64_t)p.slots[sn++].base;
      memcpy(arg_next(&a, 8), &base, 8);
    }
  }
  if (p.layout == CUARR_EW_CONTIG) {
    unsigned char *at = arg_next(&a, 8);
    put_index(at, 0, p.wide, (uint64_t)p.n);
  } else {
    pack_layout(&p, arg_next(&a, layout_bytes(&p)));
  }
  /* As a programmatic dependent: on an H100, 20 000 add(a, b, c) of 1000 elements cost 4.2-4.4
   * us each this way against 5.8-5.9 with plain launches (interleaved runs, 2026-11-22). */
  s = cuarr_launch_dependent(device, f, grid_for(&p, max_blocks), CUARR_EW_THREADS, 0, stream,
                             a.ptrs);

done:
  if (a.bytes != (unsigned char *)stack_args)
    free(a.bytes);
  if (p.slots != stack_slots)
    free(p.slots);
  if (all_strides != stack_strides)
    free(all_strides);
  return s;
}

/* Inputs that share memory with an output in another layout are read from copies, made on
 * the same stream first (and released right after queueing: the pool reuses memory in stream
 * order). */
static cuarr_status launch_staged(cuarr_context *ctx, cuarr_ew_cache *cache, int device,
                                  CUstream stream, cuarr_ew_program *program, int n,
                                  const cuarr_ew_operand *ops, int n_slots, int lead, int ndim,
                                  const int64_t *shape, int64_t count) {
  cuarr_ew_operand *copy = malloc((size_t)n * sizeof *copy);
  cuarr_array *tmp = calloc((size_t)n, sizeof *tmp);
  cuarr_status s = CUARR_OK;
  if (!copy || !tmp)
    s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory to stage kernel %s", program->name);
  cuarr_reclaim none = {NULL, NULL};
  for (int k = 0; k < n && s == CUARR_OK; k++) {
    copy[k] = ops[k];
    if (!ops[k].array || ops[k].raw || ops[k].output || !overlaps_an_output(n, ops, k, ndim, shape))
      continue;
    const cuarr_array *a = ops[k].array;
    s = cuarr_array_empty(device, a->dtype, a->ndim, a->shape, false, stream,
                          ctx ? ctx->reclaim : none, &tmp[k]);
    if (s == CUARR_OK)
      s = cuarr_device_copy(ctx, &tmp[k], a);
    copy[k].array = &tmp[k];
  }
  /* The copies' allocations may have freed an operand (internal.h: operands after an
   * allocation); launch_checked reads their pointers now. */
  for (int k = 0; k < n && s == CUARR_OK; k++)
    s = cuarr_still_live(ops[k].array);
  if (s == CUARR_OK)
    s = launch_checked(cache, device, stream, program, n, copy, n_slots, lead, ndim, shape, count);
  for (int k = 0; tmp && k < n; k++)
    if (tmp[k].buf)
      cuarr_array_release(&tmp[k]);
  free(copy);
  free(tmp);
  return s;
}

cuarr_status cuarr_ew_launch(cuarr_context *ctx, int device, cuarr_ew_program *program, int n,
                             const cuarr_ew_operand *ops, int64_t size) {
  if (!program || !program->name || !program->operation)
    return cuarr_fail(CUARR_VALUE_ERROR, "an elementwise launch needs a named program");
  if (n < 0 || n > CUARR_EW_MAX_OPERANDS || (n > 0 && !ops))
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: %d operands (at most %d)", program->name, n,
                      CUARR_EW_MAX_OPERANDS);
  if (device == CUARR_HOST)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s runs on the device, not on host arrays",
                      program->name);
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  cuarr_ew_cache *cache;
  CUARR_TRY(cuarr_ew_cache_of(program, &cache));

  /* The operands, and the shape the loop runs over. */
  int n_slots = 0, lead = -1;
  for (int k = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    if ((unsigned)o->var_dtype >= CUARR_NDTYPES)
      return operand_error(program, o, "unknown var_dtype");
    if (!o->array) {
      if (o->output)
        return operand_error(program, o, "an output must be an array");
      if ((unsigned)o->scalar.dtype >= CUARR_NDTYPES)
        return operand_error(program, o, "a scalar of unknown dtype");
      continue;
    }
    CUARR_TRY(cuarr_array_check_live(o->array));
    int on = cuarr_array_device(o->array);
    if (on == CUARR_HOST)
      return operand_error(program, o, "a host array: elementwise kernels run on the device");
    if (on != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s runs on device %d but %s is on device %d",
                        program->name, device, o->name ? o->name : "an operand", on);
    if (o->raw)
      continue;
    if (o->output && lead < 0)
      lead = k;
    n_slots++;
  }
  int ndim = 1;
  int64_t shape[CUARR_MAXDIM];
  if (n_slots == 0) {
    if (size < 0)
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "kernel %s: the loop size is undecided (give a size when every array "
                        "is raw)",
                        program->name);
    shape[0] = size;
  } else if (size >= 0) {
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "kernel %s: a size can be given only when every array is raw", program->name);
  } else if (lead >= 0) {
    ndim = ops[lead].array->ndim;
    memcpy(shape, ops[lead].array->shape, (size_t)ndim * sizeof *shape);
  } else {
    CUARR_TRY(broadcast_inputs(program, n, ops, &ndim, shape));
  }
  int64_t count = 1;
  for (int d = 0; d < ndim; d++) /* inputs alone can broadcast to more than int64 counts */
    if (__builtin_mul_overflow(count, shape[d], &count))
      return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: the broadcast shape is too large",
                        program->name);
  if (n_slots == 0)
    count = size;

  /* Outputs have the loop's shape exactly and no two elements in one place; inputs
   * broadcast to it. */
  bool stage = false;
  for (int k = 0; k < n; k++) {
    const cuarr_ew_operand *o = &ops[k];
    const cuarr_array *a = o->array;
    if (!a || o->raw)
      continue;
    if (o->output) {
      if (a->ndim != ndim || memcmp(a->shape, shape, (size_t)ndim * sizeof *shape) != 0) {
        char got[CUARR_SHAPE_STR_SIZE], want[CUARR_SHAPE_STR_SIZE];
        return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: output %s has shape %s, not %s",
                          program->name, o->name ? o->name : "?",
                          cuarr_shape_format(got, a->ndim, a->shape),
                          cuarr_shape_format(want, ndim, shape));
      }
      for (int d = 0; d < ndim; d++)
        if (a->shape[d] > 1 && a->strides[d] == 0)
          return operand_error(program, o,
                               "an output whose elements overlap (a broadcast view) cannot be "
                               "written");
    } else {
      int64_t strides[CUARR_MAXDIM];
      if (!cuarr_iter_broadcast(a, ndim, shape, strides))
        return broadcast_error(program, o, ndim, shape);
      stage = stage || overlaps_an_output(n, ops, k, ndim, shape);
    }
  }
  if (count == 0)
    return CUARR_OK;
  CUARR_TRY(cuarr_device_activate(device));
  if (stage)
    return launch_staged(ctx, cache, device, stream, program, n, ops, n_slots, lead, ndim, shape,
                         count);
  return launch_checked(cache, device, stream, program, n, ops, n_slots, lead, ndim, shape, count);
}

/* ---------------------------------------------------------------- flat launches */

cuarr_status cuarr_ew_flat_kernel(int device, cuarr_ew_program *program, int n,
                                  const cuarr_ew_operand *ops, int vec, cuarr_ew_flat *out) {
  if (n < 1 || n > CUARR_EW_MAX_OPERANDS)
    return cuarr_fail(CUARR_VALUE_ERROR, "kernel %s: %d operands", program->name, n);
  cuarr_ew_cache *cache;
  CUARR_TRY(cuarr_ew_cache_of(program, &cache));
  slot slots[CUARR_EW_MAX_OPERANDS] = {{0}}; /* no splats */
  plan p = {.n_slots = n, .slots = slots, .ndim = 1, .layout = CUARR_EW_CONTIG, .vec = vec};
  cuarr_ew_key key;
  fill_key(&key, device, &p, n, ops);
  CUARR_TRY(kernel_for(device, cache, program, ops, &key, &out->function));
  CUARR_TRY(cuarr_ew_max_blocks(device, &out->max_blocks));
  out->vec = vec;
  return CUARR_OK;
}

cuarr_status cuarr_ew_flat_launch(int device, const cuarr_ew_flat *k, CUstream stream, int n,
                                  const CUdeviceptr *ptrs, int64_t count) {
  void *params[CUARR_EW_MAX_OPERANDS + 1];
  for (int i = 0; i < n; i++)
    params[i] = (void *)&ptrs[i];
  uint32_t n32 = (uint32_t)count; /* the contiguous kernels' element count, 32-bit indexing */
  params[n] = &n32;
  plan p;
  p.n = count;
  p.vec = k->vec;
  p.layout = CUARR_EW_CONTIG;
  return cuarr_launch_dependent(device, k->function, grid_for(&p, k->max_blocks), CUARR_EW_THREADS,
                                0, stream, params);
}
