/*
 * reduce_engine.c -- cuarr_red_launch: lay a reduction out, choose the kernel variant and the
 * grid, find the kernel in the program's cache (compiling it on first use) and launch it.
 *
 * Layout: the axes split into kept ones (the outputs) and reduced ones.  Each group is sorted
 * by the first input's strides, largest first (the reduced group stays in order when the map
 * uses _j: argmax's index), and collapsed where its axes are contiguous with each other in
 * every operand.  Then:
 *  - rows when the reduced axis is the faster in memory (lanes along a row; 16-byte vectors
 *    when the single input's rows are contiguous and aligned), cols otherwise (lanes along
 *    the outputs; vectors of up to 4 outputs when they are contiguous);
 *  - when the outputs are too few to give every multiprocessor work, the reduced range is
 *    split over gridDim.y blocks, and the last block of each column finishes the partial
 *    results (one launch; the arrival counters stay zeroed per stream, split_counters.c).
 * 32-bit indexing when every count and offset fits, 64-bit beyond.
 *
 * A call that finds its kernel builds no text and allocates nothing from the host heap (the
 * partial results of split reductions come from the device pool).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array/shape_format.h"
#include "array/span.h"
#include "compile/codegen.h"
#include "compile/function_table.h"
#include "compile/hash.h"
#include "reduce/reduce_engine.h"

#define THREADS 256
#define MAX_SLOTS 16             /* array inputs of one reduction */
#define MAX_INPUTS 64            /* every input */
#define RESIDENT_BLOCKS_PER_SM 8 /* resident 256-thread blocks that fill a multiprocessor */
#define LAYOUT_MAXDIM 32 /* the arrays of kernels/templates/reduction.cu's cuarr_red_layout */
/* Split grids.  A grid splits when its lanes would take at least SPLIT_FROM items (vectors or
 * elements) each: below that one column of blocks does the work sooner than a split grid and
 * its finish (and a ReductionKernel's first call on a small input compiles the smaller,
 * unsplit kernel).  A split grid then gives each lane as few as PER_SPLIT_MIN items, so that
 * mid-sized reductions fill the GPU with loads in flight (H100, float32 sums of 10^6
 * elements: 359 GB/s at 16 a lane, 506 at 8, 638 at 4, 668 at 2, 615 at 1; 10^7 and 2^28
 * within 1-2%).  -D overrides them for measurements (bench/experiments/NOTES.md). */
#ifndef SPLIT_FROM
#define SPLIT_FROM 32
#endif
#ifndef PER_SPLIT_MIN
#define PER_SPLIT_MIN 2
#endif

/* ---------------------------------------------------------------- dispatch cache */

/* Everything that decides a kernel's text besides the program and the names. */
typedef struct red_key {
  int32_t device;
  uint8_t variant, vec, wide, n_in;
  uint8_t acc, out_var, out_storage, acc_is_type;
  uint8_t op[MAX_INPUTS][4]; /* storage, var, kind (0 scalar, 1 array, 2 raw), raw ndim/contig */
} red_key;

static size_t key_bytes(const red_key *k) { return offsetof(red_key, op) + 4 * (size_t)k->n_in; }

/* The program's compiled variants (compile/function_table.c), made on first use. */
static void *make_table(void *arg) {
  (void)arg;
  return cuarr_function_table_new();
}

static cuarr_status cache_of(cuarr_red_program *p, cuarr_function_table **out) {
  *out = cuarr_make_once(&p->cache, make_table, NULL);
  return *out ? CUARR_OK : cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel cache");
}

void cuarr_red_program_release(cuarr_red_program *p) {
  if (!p)
    return;
  cuarr_function_table_free(p->cache);
  p->cache = NULL;
}

/* ---------------------------------------------------------------- planning */

typedef struct plan {
  int n_slots;
  int ndo, ndr;
  int64_t shape_o[CUARR_MAXDIM], shape_r[CUARR_MAXDIM];
  int64_t so[MAX_SLOTS + 1][CUARR_MAXDIM]; /* element strides along the kept axes; [n_slots]:
                                              the output's */
  int64_t sr[MAX_SLOTS][CUARR_MAXDIM];
  char *data[MAX_SLOTS + 1]; /* element (0, ..., 0) */
  int64_t itemsize[MAX_SLOTS + 1];
  int64_t n_out, n_red;
  int variant, vec;
  int layout; /* the layout's class: CUARR_RED_KEPT_ONE, _KEPT_NONE, _REDUCED_ONE, _WHOLE_VECTORS */
  bool wide;
  unsigned bx, by, gx, splits;
} plan;

/* A group of axes (the kept ones, or the reduced ones) through the iterator: sorted by the
 * first operand's |stride|, largest first (unless the group's order is fixed), then collapsed
 * to at least one axis.  The groups are arranged apart, so no axis moves between them. */
static int arrange_group(int nd, int64_t *shape, int nops, int64_t (*strides)[CUARR_MAXDIM],
                         bool sort) {
  int64_t *ptrs[MAX_SLOTS + 1];
  for (int k = 0; k < nops; k++)
    ptrs[k] = strides[k];
  if (sort)
    cuarr_iter_sort(nd, shape, nops, ptrs, cuarr_iter_by(0));
  return cuarr_iter_collapse_kernel(nd, shape, nops, ptrs);
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

static unsigned pow2_at_least(int64_t n, unsigned most) {
  unsigned p = 1;
  while (p < most && (int64_t)p < n)
    p *= 2;
  return p;
}

static bool aligned(const char *p, int64_t bytes) { return (uintptr_t)p % (uintptr_t)bytes == 0; }

/* Rows vectors: one array input (scalars and raw arrays aside), one reduced axis of stride 1, rows
 * aligned for v elements (any length: the kernel takes a row's last n_red % v one by one). */
static bool rows_vectorise(const plan *p, int v) {
  if (p->n_slots != 1 || v < 2 || p->ndr != 1 || p->sr[0][0] != 1 ||
      !aligned(p->data[0], v * p->itemsize[0]))
    return false;
  for (int d = 0; d < p->ndo; d++)
    if (p->so[0][d] % v != 0)
      return false;
  return true;
}

/* Cols vectors: v outputs at once along the innermost kept axis (stride 1 in the input). */
static bool cols_vectorise(const plan *p, int v) {
  int inner = p->ndo - 1;
  if (p->n_slots != 1 || v < 2 || p->so[0][inner] != 1 || p->shape_o[inner] % v != 0 ||
      !aligned(p->data[0], v * p->itemsize[0]))
    return false;
  for (int d = 0; d < inner; d++)
    if (p->so[0][d] % v != 0)
      return false;
  for (int d = 0; d < p->ndr; d++)
    if (p->sr[0][d] % v != 0)
      return false;
  return true;
}

static cuarr_status multiprocessors(int device, unsigned *out) {
  const cuarr_device_facts *f;
  CUARR_TRY(cuarr_device_facts_get(device, &f));
  *out = f->multiprocessors;
  return CUARR_OK;
}

/* The grid: block shape, blocks over the outputs, splits of the reduced range. */
static void plan_grid(plan *p, unsigned target_blocks) {
  int64_t work;
  if (p->variant == CUARR_RED_ROWS) {
    work = (p->n_red + p->vec - 1) / p->vec; /* items along a row (a partial vector too) */
    p->bx = pow2_at_least(work, THREADS);
    if (p->bx < (unsigned)p->vec) /* a lane for each element after a row's last vector */
      p->bx = (unsigned)p->vec;
    /* A single output: one row of lanes, no idle ones (and its kernel needs no test of which
     * output a thread's is). */
    p->by = p->n_out == 1 ? 1 : THREADS / p->bx;
    p->gx = (unsigned)((p->n_out + p->by - 1) / p->by);
    work = (work + p->bx - 1) / p->bx; /* items per lane */
  } else {
    int64_t lanes = (p->n_out + p->vec - 1) / p->vec;
    p->bx = pow2_at_least(lanes, 32);
    p->by = THREADS / p->bx;
    p->gx = (unsigned)((lanes + p->bx - 1) / p->bx);
    work = (p->n_red + p->by - 1) / p->by;
  }
  p->splits = 1;
  if (p->gx < target_blocks && work >= SPLIT_FROM) {
    int64_t s = (target_blocks + p->gx - 1) / p->gx, most = work / PER_SPLIT_MIN;
    if (s > most)
      s = most;
    if (s > 65535)
      s = 65535;
    p->splits = s > 1 ? (unsigned)s : 1;
  }
}

/* Element strides of array a broadcast to (ndim, shape); false if misaligned. */
static bool element_strides(const cuarr_array *a, int ndim, const int64_t *shape, int64_t *out) {
  int64_t size = (int64_t)cuarr_dtype_size(a->dtype);
  int extra = ndim - a->ndim;
  bool ok = (uintptr_t)cuarr_array_data(a) % (uintptr_t)size == 0;
  for (int d = 0; d < ndim; d++) {
    int j = d - extra;
    int64_t b = j < 0 || (a->shape[j] == 1 && shape[d] != 1) || shape[d] == 1 ? 0 : a->strides[j];
    ok = ok && b % size == 0;
    out[d] = b / size;
  }
  return ok;
}

/* The layout plan_layout finds, the short way, for the commonest reduction (a:sum(), a:max(),
 * a:argmax()): one array input, C-contiguous and aligned, reduced over every axis -- one row
 * of n_red elements, stride 1, into one output (its data and dtype are all that is read of
 * out) -- the other inputs scalars.  false: not that case. */
static bool plan_row(plan *p, int n_in, const cuarr_red_operand *in, const cuarr_array *out) {
  if (n_in < 1 || !in[0].array || in[0].raw)
    return false;
  for (int k = 1; k < n_in; k++)
    if (in[k].array)
      return false;
  const cuarr_array *a = in[0].array;
  if (!cuarr_array_is_c_contiguous(a))
    return false;
  int64_t n = cuarr_array_size(a), size = (int64_t)cuarr_dtype_size(a->dtype);
  char *data = cuarr_array_data(a), *out_data = cuarr_array_data(out);
  int64_t out_size = (int64_t)cuarr_dtype_size(out->dtype);
  if (n < 2 || n > INT32_MAX || (uintptr_t)data % (uintptr_t)size != 0 ||
      (uintptr_t)out_data % (uintptr_t)out_size != 0)
    return false;
  p->n_slots = 1;
  p->data[0] = data;
  p->itemsize[0] = size;
  p->data[1] = out_data;
  p->itemsize[1] = out_size;
  p->ndo = p->ndr = 1;
  p->shape_o[0] = 1;
  p->so[0][0] = p->so[1][0] = 0;
  p->shape_r[0] = n;
  p->sr[0][0] = 1;
  p->n_out = 1;
  p->n_red = n;
  p->wide = false;
  return true;
}

/* out: the keepdims view (in[0]'s ndim) of a single element. */
static bool plan_one_row(plan *p, int n_in, const cuarr_red_operand *in, const cuarr_array *out,
                         uint64_t axes) {
  int ndim = out->ndim;
  uint64_t all = ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << ndim) - 1;
  return n_in >= 1 && in[0].array && in[0].array->ndim == ndim && (axes & all) == all &&
         plan_row(p, n_in, in, out);
}

static cuarr_status plan_layout(plan *p, const cuarr_red_program *program, int n_in,
                                const cuarr_red_operand *in, const cuarr_array *out, uint64_t axes,
                                const int64_t *full) {
  if (plan_one_row(p, n_in, in, out, axes))
    return CUARR_OK;
  int ndim = out->ndim;
  int64_t st[MAX_SLOTS + 1][CUARR_MAXDIM];
  p->n_slots = 0;
  for (int k = 0; k < n_in; k++) {
    if (!in[k].array || in[k].raw)
      continue;
    int s = p->n_slots++;
    p->data[s] = cuarr_array_data(in[k].array);
    p->itemsize[s] = (int64_t)cuarr_dtype_size(in[k].array->dtype);
    if (!element_strides(in[k].array, ndim, full, st[s]))
      return cuarr_fail(CUARR_VALUE_ERROR,
                        "reduction %s: input %s: array data or strides are not multiples of "
                        "the itemsize",
                        program->name, in[k].name ? in[k].name : "?");
  }
  int o = p->n_slots;
  p->data[o] = cuarr_array_data(out);
  p->itemsize[o] = (int64_t)cuarr_dtype_size(out->dtype);
  if (!element_strides(out, ndim, out->shape, st[o]))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "reduction %s: the output's data or strides are not multiples of the "
                      "itemsize",
                      program->name);
  p->ndo = p->ndr = 0;
  for (int d = 0; d < ndim; d++) {
    if (axes >> d & 1) {
      p->shape_r[p->ndr] = full[d];
      for (int k = 0; k < o; k++)
        p->sr[k][p->ndr] = st[k][d];
      p->ndr++;
    } else {
      p->shape_o[p->ndo] = full[d];
      for (int k = 0; k <= o; k++)
        p->so[k][p->ndo] = st[k][d];
      p->ndo++;
    }
  }
  p->ndo = arrange_group(p->ndo, p->shape_o, o + 1, p->so, true);
  p->ndr = arrange_group(p->ndr, p->shape_r, o, p->sr, !program->ordered);
  p->n_out = p->n_red = 1;
  for (int d = 0; d < p->ndo; d++)
    p->n_out *= p->shape_o[d];
  for (int d = 0; d < p->ndr; d++)
    p->n_red *= p->shape_r[d];

  /* 32-bit when the element count and every operand's reach fit in an int. */
  int64_t total;
  bool fits = !__builtin_mul_overflow(p->n_out, p->n_red, &total) && total <= INT32_MAX;
  for (int k = 0; k <= o && fits; k++) {
    int64_t below, span_o, span_r = 0;
    fits = cuarr_span_of(p->ndo, p->shape_o, p->so[k], &below, &span_o) &&
           (k == o || cuarr_span_of(p->ndr, p->shape_r, p->sr[k], &below, &span_r)) &&
           span_o + span_r <= INT32_MAX;
  }
  p->wide = !fits;
  return CUARR_OK;
}

static void choose_variant(plan *p) {
  int64_t inner_r = abs64(p->sr[0][p->ndr - 1]), inner_o = abs64(p->so[0][p->ndo - 1]);
  int v = (int)(16 / p->itemsize[0]);
  if (p->n_out == 1 || p->n_red == 1 || inner_r <= inner_o || inner_o == 0) {
    p->variant = CUARR_RED_ROWS;
    p->vec = rows_vectorise(p, v) ? v : 1;
  } else {
    p->variant = CUARR_RED_COLS;
    v = v > 4 ? 4 : v;
    p->vec = cols_vectorise(p, v) ? v : 1;
  }
  /* The kernels of the special classes leave out the per-axis divisions (a single output all
   * of its offsets; rows of whole vectors the code for the elements after them); a single
   * output always reduces by rows. */
  p->layout = p->n_out == 1 && p->variant == CUARR_RED_ROWS ? CUARR_RED_KEPT_NONE
              : p->ndo == 1                                 ? CUARR_RED_KEPT_ONE
                                                            : 0;
  if (p->ndr == 1)
    p->layout |= CUARR_RED_REDUCED_ONE;
  if (p->variant == CUARR_RED_ROWS && p->vec > 1 && p->n_red % p->vec == 0)
    p->layout |= CUARR_RED_WHOLE_VECTORS;
}

/* ---------------------------------------------------------------- kernel parameters */

typedef struct args {
  uint64_t bytes[2048];
  size_t used;
  void *ptrs[MAX_INPUTS + 4];
  int count;
} args;

static void *arg_next(args *a, size_t size) {
  void *p = (unsigned char *)a->bytes + a->used;
  a->used += (size + 7) & ~(size_t)7;
  a->ptrs[a->count++] = p;
  return p;
}

static size_t layout_bytes(const plan *p) {
  return (size_t)(4 + 2 * LAYOUT_MAXDIM + (2 * p->n_slots + 1) * LAYOUT_MAXDIM) * (p->wide ? 8 : 4);
}

static void put_value(unsigned char *at, size_t *i, bool wide, int64_t v) {
  if (wide) {
    memcpy(at + 8 * *i, &v, 8);
  } else {
    int32_t w = (int32_t)v;
    memcpy(at + 4 * *i, &w, 4);
  }
  ++*i;
}

/* Values at index `first` on of the layout (index-sized slots). */
static void put_values(unsigned char *at, size_t first, bool wide, const int64_t *v, int n) {
  for (int d = 0; d < n; d++) {
    size_t i = first + (size_t)d;
    put_value(at, &i, wide, v[d]);
  }
}

/* kernels/templates/reduction.cu's cuarr_red_layout.  Only the axes in use are written: the kernels
 * read no further (the rest of the fixed-size arrays is never looked at), and this runs on every
 * call. */
static void pack_layout(const plan *p, unsigned char *at) {
  const int64_t head[4] = {p->n_out, p->n_red, p->ndo, p->ndr};
  const size_t shape_o = 4, shape_r = shape_o + LAYOUT_MAXDIM, so = shape_r + LAYOUT_MAXDIM,
               sr = so + (size_t)(p->n_slots + 1) * LAYOUT_MAXDIM;
  put_values(at, 0, p->wide, head, 4);
  put_values(at, shape_o, p->wide, p->shape_o, p->ndo);
  put_values(at, shape_r, p->wide, p->shape_r, p->ndr);
  for (int k = 0; k <= p->n_slots; k++)
    put_values(at, so + (size_t)k * LAYOUT_MAXDIM, p->wide, p->so[k], p->ndo);
  for (int k = 0; k < p->n_slots; k++)
    put_values(at, sr + (size_t)k * LAYOUT_MAXDIM, p->wide, p->sr[k], p->ndr);
}

/* ---------------------------------------------------------------- launching */

static void fill_key(red_key *key, int device, const plan *p, int variant, int n_in,
                     const cuarr_red_operand *in, const cuarr_red_types *types,
                     cuarr_dtype out_storage) {
  memset(key, 0, offsetof(red_key, op));
  key->device = device;
  key->variant = (uint8_t)(variant | p->layout);
  key->vec = (uint8_t)p->vec;
  key->wide = p->wide;
  key->n_in = (uint8_t)n_in;
  key->acc = (uint8_t)types->acc;
  key->acc_is_type = types->acc_type != NULL;
  key->out_var = (uint8_t)types->out_var;
  key->out_storage = (uint8_t)out_storage;
  for (int k = 0; k < n_in; k++) {
    const cuarr_red_operand *o = &in[k];
    uint8_t *b = key->op[k];
    b[0] = (uint8_t)(o->array ? o->array->dtype : o->var_dtype);
    b[1] = (uint8_t)o->var_dtype;
    b[2] = !o->array ? 0 : o->raw ? 2 : 1;
    b[3] = o->array && o->raw
               ? (uint8_t)(o->array->ndim | (cuarr_array_is_c_contiguous(o->array) ? 0x80 : 0))
               : 0;
  }
}

static cuarr_status kernel_for(cuarr_function_table *c, int device, cuarr_red_program *program,
                               int n_in, const cuarr_red_operand *in, const cuarr_red_types *types,
                               cuarr_dtype out_storage, const red_key *key, CUfunction *out) {
  uint64_t h = cuarr_hash_bytes(CUARR_HASH_SEED, key, key_bytes(key));
  CUfunction f = cuarr_function_table_find(c, key, key_bytes(key), h);
  if (f) {
    *out = f;
    return CUARR_OK;
  }
  cuarr_dtype storage[MAX_INPUTS];
  for (int k = 0; k < n_in; k++)
    storage[k] = in[k].array ? in[k].array->dtype : in[k].var_dtype;
  char *name = NULL;
  char *source = cuarr_red_source(program, n_in, in, storage, types, out_storage, key->variant,
                                  key->vec, key->wide, NULL, &name);
  if (!source) /* the error is set */
    return CUARR_OUT_OF_MEMORY;
  /* NVRTC's fast-compile mode at its lightest, unless the program's options choose a mode:
   * half the compile time of a new kernel (the first call of a ReductionKernel waits for it)
   * for no measurable loss on these memory-bound loops. */
  cuarr_status s =
      cuarr_codegen_kernel_get(device, source, name, program->options, program->n_options, &f);
  free(source);
  free(name);
  if (s == CUARR_OK)
    s = cuarr_function_table_add(c, key, key_bytes(key), h, f);
  if (s == CUARR_OK)
    *out = f;
  return s;
}

/* The parameters: every input, the output, the partials, the layout. */
static void pack_args(args *a, const plan *p, int n_in, const cuarr_red_operand *in,
                      CUdeviceptr partial, CUdeviceptr counters) {
  a->used = 0;
  a->count = 0;
  for (int k = 0, s = 0; k < n_in; k++) {
    const cuarr_red_operand *o = &in[k];
    if (!o->array) {
      cuarr_scalar_store(o->scalar, o->var_dtype, arg_next(a, 8));
    } else if (o->raw) {
      cuarr_iter_pack_raw(o->array, arg_next(a, cuarr_iter_raw_bytes(o->array)));
    } else {
      uint64_t ptr = (uint64_t)(uintptr_t)p->data[s++];
      memcpy(arg_next(a, 8), &ptr, 8);
    }
  }
  uint64_t out = (uint64_t)(uintptr_t)p->data[p->n_slots], part = (uint64_t)partial,
           count = (uint64_t)counters;
  memcpy(arg_next(a, 8), &out, 8);
  memcpy(arg_next(a, 8), &part, 8);
  memcpy(arg_next(a, 8), &count, 8);
  pack_layout(p, arg_next(a, layout_bytes(p)));
}

static cuarr_status check_inputs(const cuarr_red_program *program, int device, int n_in,
                                 const cuarr_red_operand *in, const cuarr_array *out, uint64_t axes,
                                 int64_t *full) {
  if (n_in < 0 || n_in > MAX_INPUTS)
    return cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: %d inputs (at most %d)", program->name,
                      n_in, MAX_INPUTS);
  int ndim = out->ndim, slots = 0;
  for (int d = 0; d < ndim; d++)
    full[d] = 1;
  for (int k = 0; k < n_in; k++) {
    const cuarr_array *a = in[k].array;
    if ((unsigned)in[k].var_dtype >= CUARR_NDTYPES)
      return cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: input %d of unknown type", program->name,
                        k + 1);
    if (!a)
      continue;
    CUARR_TRY(cuarr_array_check_live(a));
    if (cuarr_array_device(a) != device)
      return cuarr_fail(CUARR_VALUE_ERROR, "reduction %s runs on device %d but %s is not there",
                        program->name, device, in[k].name ? in[k].name : "an input");
    if (in[k].raw)
      continue;
    slots++;
    if (a->ndim > ndim)
      goto shape_error;
    for (int j = 0; j < a->ndim; j++) {
      int64_t e = a->shape[j], *f = &full[ndim - a->ndim + j];
      if (e == *f || e == 1)
        continue;
      if (*f != 1)
        goto shape_error;
      *f = e;
    }
  }
  if (slots == 0 || slots > MAX_SLOTS)
    return cuarr_fail(CUARR_VALUE_ERROR, "reduction %s: %d array inputs (1 to %d)", program->name,
                      slots, MAX_SLOTS);
  for (int d = 0; d < ndim; d++)
    if (out->shape[d] != ((axes >> d & 1) ? 1 : full[d]))
      goto shape_error;
  return CUARR_OK;
shape_error : {
  char s[CUARR_SHAPE_STR_SIZE];
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "reduction %s: the inputs do not broadcast to the output's shape %s",
                    program->name, cuarr_shape_format(s, out->ndim, out->shape));
}
}

cuarr_status cuarr_red_launch(cuarr_context *ctx, int device, cuarr_red_program *program, int n_in,
                              const cuarr_red_operand *in, const cuarr_red_types *types,
                              const cuarr_array *out, uint64_t axes) {
  int64_t full[CUARR_MAXDIM];
  CUARR_TRY(check_inputs(program, device, n_in, in, out, axes, full));
  CUstream stream = NULL;
  CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));
  cuarr_function_table *c = NULL;
  CUARR_TRY(cache_of(program, &c));
  unsigned sms = 1;
  CUARR_TRY(multiprocessors(device, &sms));
  plan p;
  CUARR_TRY(plan_layout(&p, program, n_in, in, out, axes, full));
  if (p.n_out == 0)
    return CUARR_OK;
  if (p.n_red == 0 && !program->identity)
    return cuarr_fail(CUARR_VALUE_ERROR, "reduction %s over an empty axis has no identity",
                      program->name);
  choose_variant(&p);
  plan_grid(&p, sms * RESIDENT_BLOCKS_PER_SM);
  CUARR_TRY(cuarr_device_activate(device));

  red_key key;
  CUfunction f;
  fill_key(&key, device, &p, p.variant | (p.splits > 1 ? CUARR_RED_SPLIT : 0), n_in, in, types,
           out->dtype);
  CUARR_TRY(kernel_for(c, device, program, n_in, in, types, out->dtype, &key, &f));
  /* Split reductions: the partials, and a zeroed counter per column of blocks -- the stream's
   * own (split_counters.c), or, when there is no room for one more stream, counters after the
   * partials, zeroed here. */
  cuarr_array partial;
  partial.buf = NULL; /* all that is read of it without splits (not a 0.5 KB memset a call) */
  CUdeviceptr counters = 0;
  bool zero_counters = false;
  if (p.splits > 1) {
    zero_counters =
        cuarr_red_split_counters(device, stream, p.gx, (size_t)sms * RESIDENT_BLOCKS_PER_SM,
                                 &counters) != CUARR_OK;
    int64_t bytes = (p.n_out * (int64_t)p.splits * (int64_t)types->acc_size + 15) & ~(int64_t)15;
    int64_t total = bytes + (zero_counters ? 4 * (int64_t)p.gx : 0);
    CUARR_TRY(cuarr_array_empty(device, CUARR_UINT8, 1, &total, false, stream,
                                cuarr_ctx_reclaim(ctx), &partial));
    /* The plan's pointers were read before it (internal.h: operands after an allocation). */
    cuarr_status live = cuarr_still_live(out);
    for (int k = 0; k < n_in && live == CUARR_OK; k++)
      live = cuarr_still_live(in[k].array);
    if (live != CUARR_OK) {
      cuarr_array_release(&partial);
      return live;
    }
    if (zero_counters)
      counters = (CUdeviceptr)(uintptr_t)cuarr_array_data(&partial) + (CUdeviceptr)bytes;
  }
  cuarr_status s = CUARR_OK;
  if (zero_counters)
    s = cuarr_cu_check(cuarr_cu.cuMemsetD8Async(counters, 0, 4 * (size_t)p.gx, stream),
                       "cuMemsetD8Async");
  args a;
  pack_args(&a, &p, n_in, in, (CUdeviceptr)(uintptr_t)cuarr_array_data(&partial), counters);
  if (s == CUARR_OK)
    s = cuarr_launch_dependent_2d(device, f, p.gx, p.splits, p.bx, p.by, 0, stream, a.ptrs);
  if (partial.buf) /* stream-ordered pool: reusable by later work on this stream */
    cuarr_array_release(&partial);
  return s;
}

/* ---------------------------------------------------------------- the short way */

cuarr_status cuarr_red_launch_row(int device, CUstream stream, cuarr_red_program *program, int n_in,
                                  const cuarr_red_operand *in, const cuarr_red_types *types,
                                  const cuarr_array *out, cuarr_red_row_kernels *kernels,
                                  bool *launched) {
  *launched = false;
  unsigned sms = 1;
  CUARR_TRY(multiprocessors(device, &sms));
  plan p;
  if (!plan_row(&p, n_in, in, out))
    return CUARR_OK;
  choose_variant(&p);
  plan_grid(&p, sms * RESIDENT_BLOCKS_PER_SM);
  if (p.splits > 1)
    return CUARR_OK;
  *launched = true;
  /* A slot per vector width and layout class (the class depends on the size: whole vectors or
   * a tail), each marked with what its kernel was made for. */
  const uint8_t variant = (uint8_t)(p.variant | p.layout), vec = (uint8_t)p.vec;
  const int i = (p.vec > 1) | ((p.layout & CUARR_RED_WHOLE_VECTORS) ? 2 : 0);
  if (!kernels->f[i] || kernels->variant[i] != variant || kernels->vec[i] != vec) {
    red_key key;
    cuarr_function_table *c = NULL;
    CUARR_TRY(cache_of(program, &c));
    fill_key(&key, device, &p, p.variant, n_in, in, types, out->dtype);
    CUfunction f;
    CUARR_TRY(kernel_for(c, device, program, n_in, in, types, out->dtype, &key, &f));
    kernels->f[i] = f;
    kernels->variant[i] = variant;
    kernels->vec[i] = vec;
  }
  CUARR_TRY(cuarr_device_activate(device));
  args a;
  pack_args(&a, &p, n_in, in, 0, 0);
  return cuarr_launch_dependent_2d(device, kernels->f[i], p.gx, 1, p.bx, p.by, 0, stream, a.ptrs);
}

cuarr_status cuarr_red_plan_describe(const cuarr_red_program *program, int n_in,
                                     const cuarr_red_operand *in, const cuarr_array *out,
                                     uint64_t axes, unsigned multiprocessors,
                                     cuarr_red_plan_info *info) {
  int64_t full[CUARR_MAXDIM];
  CUARR_TRY(check_inputs(program, cuarr_array_device(out), n_in, in, out, axes, full));
  plan p;
  CUARR_TRY(plan_layout(&p, program, n_in, in, out, axes, full));
  choose_variant(&p);
  plan_grid(&p, multiprocessors * RESIDENT_BLOCKS_PER_SM);
  *info = (cuarr_red_plan_info){.variant = p.variant,
                                .vec = p.vec,
                                .layout = p.layout,
                                .wide = p.wide,
                                .ndo = p.ndo,
                                .ndr = p.ndr,
                                .n_out = p.n_out,
                                .n_red = p.n_red,
                                .block_x = p.bx,
                                .block_y = p.by,
                                .grid_x = p.gx,
                                .splits = p.splits};
  return CUARR_OK;
}
