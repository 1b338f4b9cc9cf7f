/*
 * resolve.c -- which loop a ufunc call runs: NumPy 2's type resolution with NEP 50 weak
 * scalars.
 *
 * 1. Each input gets a dtype: arrays and strong scalars their own; a weak scalar (a Lua number)
 *    the NEP 50 promotion of its kind with the strong inputs' common dtype (int8 array + 3:
 *    int8; bool array + 3: int64; int32 array + 2.5: the default float dtype), or with the
 *    other weak scalars when there is no strong input.
 * 2. The loop is the first of the ufunc's loops, in NumPy's order (bool, int8, uint8, int16,
 *    ..., uint64, float16, float32, float64), that every input's dtype casts to safely: NumPy's
 *    linear search, which gives the promoted dtype for the arithmetic ufuncs and
 *    arctan2(int8, uint8) -> float16 for the float-only ones.  Special cases, as NumPy's type
 *    resolvers: true_divide of integers runs in float64; subtract, negative, positive and sign
 *    refuse bool; the logical ufuncs convert every input to bool; the comparisons have int64 x
 *    uint64 loops that compare by value.
 * 3. A weak integer must fit the integer dtype it is converted to (uint8 array + 300 is a
 *    ValueError, as NumPy 2's OverflowError).  Except where NumPy 2 gives an answer: a
 *    comparison with an integer out of the dtype's range is decided by the range (uint8 < 300
 *    is true everywhere), which is computed without widening by clamping the integer and
 *    adjusting the comparison (a < 300 becomes a <= 255); and clip bounds beyond the range
 *    clamp to it (a lower bound above the maximum, or an upper bound below the minimum, is an
 *    error: its result is not representable).
 *
 * Everything here is table lookups and a dozen comparisons: it runs on every call.
 */
#include "ufunc/ufunc.h"
#include <string.h>

static const cuarr_dtype search_order[CUARR_NDTYPES] = {
    CUARR_BOOL,   CUARR_INT8,  CUARR_UINT8,  CUARR_INT16,   CUARR_UINT16,  CUARR_INT32,
    CUARR_UINT32, CUARR_INT64, CUARR_UINT64, CUARR_FLOAT16, CUARR_FLOAT32, CUARR_FLOAT64};

static bool valid(cuarr_dtype d) { return (unsigned)d < CUARR_NDTYPES; }

static cuarr_dtype dtype_of(const cuarr_operand *a) {
  return a->array ? a->array->dtype : a->scalar.dtype;
}
static bool is_weak(const cuarr_operand *a) { return !a->array && a->weak; }

/* ---- step 1 */

static cuarr_status input_dtypes(const cuarr_ufunc *u, const cuarr_operand *in,
                                 cuarr_dtype weak_float, cuarr_dtype *eff) {
  int first = u->flags & CUARR_UF_WHERE ? 1 : 0;
  bool any_strong = false, any_weak = false;
  cuarr_dtype strong = CUARR_BOOL, weak = CUARR_BOOL;
  cuarr_dtype strongs[3];
  int nstrong = 0;
  for (int i = 0; i < u->nin; i++) {
    cuarr_dtype d = dtype_of(&in[i]);
    if (!valid(d))
      return cuarr_fail(CUARR_VALUE_ERROR, "%s: input %d has an invalid dtype", u->name, i + 1);
    eff[i] = d;
    if (i < first)
      continue;
    if (!is_weak(&in[i])) {
      strongs[nstrong++] = d; /* promoted all at once below: clip(uint8, int8, float16) */
      any_strong = true;
    } else {
      if (any_weak)
        cuarr_promote(weak, true, d, true, weak_float, &weak);
      else
        cuarr_promote(d, true, d, true, weak_float, &weak); /* its kind's default dtype */
      any_weak = true;
    }
  }
  if (any_strong)
    cuarr_result_type(nstrong, strongs, NULL, weak_float, &strong);
  bool weak_float_wins = false;
  for (int i = first; i < u->nin; i++) {
    if (!is_weak(&in[i]))
      continue;
    if (any_strong)
      cuarr_promote(strong, false, eff[i], true, weak_float, &eff[i]);
    else
      eff[i] = weak;
    weak_float_wins = weak_float_wins ||
                      (any_strong && cuarr_dtype_is_float(eff[i]) && !cuarr_dtype_is_float(strong));
  }
  /* A weak float beside bool or integer inputs makes the result the default float dtype,
   * as cuarr_promote says (int32 array + 2.5: float32 when that is the default, where the
   * search below would find float64 for int32 and float32). */
  for (int i = first; weak_float_wins && i < u->nin; i++)
    eff[i] = weak_float;
  return CUARR_OK;
}

/* ---- step 2 */

static bool all_cast_to(const cuarr_dtype *eff, int first, int nin, cuarr_dtype to) {
  for (int i = first; i < nin; i++) {
    if (!cuarr_can_cast_safe(eff[i], to))
      return false;
  }
  return true;
}

/* The inputs' dtypes for a message: the arrays' own, and what the weak scalars became. */
static cuarr_status no_loop(const cuarr_ufunc *u, const cuarr_operand *in, cuarr_dtype weak_float) {
  cuarr_dtype eff[3];
  input_dtypes(u, in, weak_float, eff);
  for (int i = 0; i < u->nin; i++) {
    if (!is_weak(&in[i]))
      eff[i] = dtype_of(&in[i]);
  }
  if (u->nin == 1)
    return cuarr_fail(CUARR_TYPE_ERROR, "ufunc '%s' not supported for the input type %s", u->name,
                      cuarr_dtype_name(eff[0]));
  return cuarr_fail(CUARR_TYPE_ERROR, "ufunc '%s' not supported for the input types (%s, %s%s%s)",
                    u->name, cuarr_dtype_name(eff[0]), cuarr_dtype_name(eff[1]),
                    u->nin > 2 ? ", " : "", u->nin > 2 ? cuarr_dtype_name(eff[2]) : "");
}

static cuarr_status bool_refused(const cuarr_ufunc *u) {
  switch (u->id) {
  case CUARR_UF_ID_subtract:
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "boolean subtract is not supported: use bitwise_xor or logical_xor instead");
  case CUARR_UF_ID_negative:
    return cuarr_fail(CUARR_TYPE_ERROR,
                      "boolean negative is not supported: use invert or logical_not instead");
  default:
    return cuarr_fail(CUARR_TYPE_ERROR, "ufunc '%s' not supported for the input type bool",
                      u->name);
  }
}

/* Sets r->in, r->out and the loop functions. */
static cuarr_status choose_loop(const cuarr_ufunc *u, const cuarr_operand *in,
                                cuarr_dtype weak_float, const cuarr_dtype *eff,
                                cuarr_uf_resolved *r) {
  const int nin = u->nin, first = u->flags & CUARR_UF_WHERE ? 1 : 0;
  if (u->flags & CUARR_UF_LOGICAL) {
    for (int i = 0; i < nin; i++)
      r->in[i] = CUARR_BOOL;
    r->out = CUARR_BOOL;
    r->host = u->host[CUARR_BOOL];
    r->device = u->device[CUARR_BOOL];
    return CUARR_OK;
  }
  if (u->flags & CUARR_UF_NO_BOOL) {
    bool all_bool = true;
    for (int i = 0; i < nin; i++)
      all_bool = all_bool && eff[i] == CUARR_BOOL;
    if (all_bool)
      return bool_refused(u);
  }
  cuarr_dtype loop = CUARR_NDTYPES;
  if (u->flags & CUARR_UF_TRUE_DIVIDE) { /* bool and integers divide in float64 */
    bool integral = true;
    for (int i = 0; i < nin; i++)
      integral = integral && !cuarr_dtype_is_float(eff[i]);
    if (integral)
      loop = CUARR_FLOAT64;
  }
  for (int k = 0; loop == CUARR_NDTYPES && k < CUARR_NDTYPES; k++) {
    cuarr_dtype t = search_order[k];
    if ((u->types >> t & 1u) && all_cast_to(eff, first, nin, t)) {
      loop = t;
      break;
    }
    if (t == CUARR_UINT64 && (u->flags & CUARR_UF_COMPARE)) { /* NumPy's qQ and Qq loops */
      const cuarr_uf_host_row *host = cuarr_uf_host_mixed(u);
      cuarr_ew_program *const *device = cuarr_uf_device_mixed(u);
      int m =
          cuarr_can_cast_safe(eff[0], CUARR_INT64) && cuarr_can_cast_safe(eff[1], CUARR_UINT64) ? 0
          : cuarr_can_cast_safe(eff[0], CUARR_UINT64) && cuarr_can_cast_safe(eff[1], CUARR_INT64)
              ? 1
              : -1;
      if (m >= 0) {
        r->in[0] = m == 0 ? CUARR_INT64 : CUARR_UINT64;
        r->in[1] = m == 0 ? CUARR_UINT64 : CUARR_INT64;
        r->out = CUARR_BOOL;
        r->host = host[m];
        r->device = device[m];
        return CUARR_OK;
      }
    }
  }
  if (loop == CUARR_NDTYPES)
    return no_loop(u, in, weak_float);
  for (int i = 0; i < nin; i++)
    r->in[i] = i < first ? CUARR_BOOL : loop;
  r->out = u->bool_out ? CUARR_BOOL : loop;
  r->host = u->host[loop];
  r->device = u->device[loop];
  return CUARR_OK;
}

/* ---- step 3 */

/* The dtype's minimum (side < 0) or maximum (side > 0) as a scalar of that dtype. */
static cuarr_scalar range_end(cuarr_dtype d, int side) {
  cuarr_scalar s = {.dtype = d};
  int bits = (int)cuarr_dtype_size(d) * 8;
  if (cuarr_dtype_is_signed(d)) {
    int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    s.v.i = side < 0 ? lo : -(lo + 1);
  } else {
    s.v.u = side < 0 ? 0 : bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  }
  return s;
}

static cuarr_uf_id mirror(cuarr_uf_id id) { /* a OP b == b mirror(OP) a */
  switch (id) {
  case CUARR_UF_ID_less: return CUARR_UF_ID_greater;
  case CUARR_UF_ID_less_equal: return CUARR_UF_ID_greater_equal;
  case CUARR_UF_ID_greater: return CUARR_UF_ID_less;
  case CUARR_UF_ID_greater_equal: return CUARR_UF_ID_less_equal;
  default: return id;
  }
}

/* `a OP v` for every a of a dtype whose maximum (side > 0) is below v, or whose minimum
 * (side < 0) is above it: the same answer as `a OP' end` with v clamped to that end. */
static cuarr_uf_id clamped_op(cuarr_uf_id id, int side) {
  switch (id) {
  case CUARR_UF_ID_less: /* always true above; always false below */
    return side > 0 ? CUARR_UF_ID_less_equal : CUARR_UF_ID_less;
  case CUARR_UF_ID_less_equal: return side > 0 ? CUARR_UF_ID_less_equal : CUARR_UF_ID_less;
  case CUARR_UF_ID_greater: return side > 0 ? CUARR_UF_ID_greater : CUARR_UF_ID_greater_equal;
  case CUARR_UF_ID_greater_equal: return side > 0 ? CUARR_UF_ID_greater : CUARR_UF_ID_greater_equal;
  case CUARR_UF_ID_equal: /* always false */
    return side > 0 ? CUARR_UF_ID_greater : CUARR_UF_ID_less;
  default: /* not_equal: always true */
    return side > 0 ? CUARR_UF_ID_less_equal : CUARR_UF_ID_greater_equal;
  }
}

/* Input i is a weak integer that does not fit r->in[i] (side says which way). */
static cuarr_status weak_out_of_range(const cuarr_ufunc *u, int i, cuarr_scalar *s, int side,
                                      cuarr_uf_resolved *r) {
  cuarr_dtype d = r->in[i];
  if (u->flags & CUARR_UF_COMPARE) {
    /* written as `a OP v` with v the scalar (input 1), then back in the call's order */
    cuarr_uf_id id = i == 1 ? u->id : mirror(u->id);
    id = clamped_op(id, side);
    id = i == 1 ? id : mirror(id);
    r->u = cuarr_uf_get(id);
    r->host = r->u->host[d];
    r->device = r->u->device[d];
    *s = range_end(d, side);
    return CUARR_OK;
  }
  if ((u->flags & CUARR_UF_CLIP) && ((i == 1 && side < 0) || (i == 2 && side > 0))) {
    *s = range_end(d, side); /* no bound on that side */
    return CUARR_OK;
  }
  return cuarr_scalar_out_of_bounds(*s, d);
}

/* The loop chosen for (ufunc, effective input dtypes), remembered per thread: the search
 * through the loops and the casting table costs more than the rest of a small call, and a
 * script calls few combinations over and over.  Direct-mapped; a miss just searches again. */
enum { MEMO_SLOTS = 128 };
typedef struct memo_entry {
  const cuarr_ufunc *u;
  uint8_t eff[3];
  cuarr_uf_resolved r;
} memo_entry;
static _Thread_local memo_entry memo[MEMO_SLOTS];

static cuarr_status choose_loop_memo(const cuarr_ufunc *u, const cuarr_operand *in,
                                     cuarr_dtype weak_float, const cuarr_dtype *eff,
                                     cuarr_uf_resolved *r) {
  uint8_t e[3] = {0, 0, 0};
  for (int i = 0; i < u->nin && i < 3; i++)
    e[i] = (uint8_t)eff[i];
  size_t h = ((uintptr_t)u >> 4) * 31u + e[0] * 131u + e[1] * 17u + e[2];
  memo_entry *m = &memo[h % MEMO_SLOTS];
  if (m->u == u && memcmp(m->eff, e, 3) == 0) {
    *r = m->r;
    return CUARR_OK;
  }
  CUARR_TRY(choose_loop(u, in, weak_float, eff, r));
  m->u = u;
  memcpy(m->eff, e, 3);
  m->r = *r;
  return CUARR_OK;
}

cuarr_status cuarr_uf_resolve(const cuarr_ufunc *u, const cuarr_operand *in,
                              cuarr_dtype weak_float_dtype, cuarr_uf_resolved *r) {
  if (!valid(weak_float_dtype) || !cuarr_dtype_is_float(weak_float_dtype))
    return cuarr_fail(CUARR_VALUE_ERROR, "the default float dtype must be a float dtype, not %s",
                      cuarr_dtype_name(weak_float_dtype));
  cuarr_dtype eff[3];
  CUARR_TRY(input_dtypes(u, in, weak_float_dtype, eff));
  r->u = u;
  CUARR_TRY(choose_loop_memo(u, in, weak_float_dtype, eff, r));
  for (int i = 0; i < u->nin; i++) {
    if (in[i].array)
      continue;
    cuarr_scalar s = in[i].scalar;
    cuarr_dtype d = r->in[i];
    if (is_weak(&in[i]) && cuarr_dtype_is_integer(s.dtype) && cuarr_dtype_is_integer(d)) {
      int side = cuarr_scalar_range_side(s, d);
      if (side != 0)
        CUARR_TRY(weak_out_of_range(u, i, &s, side, r));
    }
    /* in the loop's dtype, with cuarr's casting rules (a strong float64 scalar into an int
     * loop saturates, as any float -> int conversion) */
    uint64_t bits = 0;
    cuarr_scalar_store(s, d, &bits);
    r->scalar[i] = cuarr_scalar_load(&bits, d);
  }
  return CUARR_OK;
}

cuarr_status cuarr_ufunc_resolve(const cuarr_ufunc *u, const cuarr_operand *in,
                                 cuarr_dtype weak_float_dtype, cuarr_dtype *compute,
                                 cuarr_dtype *out_dtype) {
  if (!u || !in)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_ufunc_resolve: no ufunc or no inputs");
  cuarr_uf_resolved r;
  CUARR_TRY(cuarr_uf_resolve(u, in, weak_float_dtype, &r));
  *compute = r.in[u->flags & CUARR_UF_WHERE ? 1 : 0];
  *out_dtype = r.out;
  return CUARR_OK;
}

cuarr_status cuarr_ufunc_resolve_loop(const cuarr_ufunc *u, const cuarr_operand *in,
                                      cuarr_dtype weak_float_dtype, cuarr_ufunc_loop *loop) {
  if (!u || !in || !loop)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_ufunc_resolve_loop: no ufunc, inputs or loop");
  cuarr_uf_resolved r;
  CUARR_TRY(cuarr_uf_resolve(u, in, weak_float_dtype, &r));
  for (int i = 0; i < 3; i++) {
    loop->in[i] = i < u->nin ? r.in[i] : CUARR_BOOL;
    loop->scalar[i] = i < u->nin && !in[i].array ? r.scalar[i] : (cuarr_scalar){0};
  }
  loop->out = r.out;
  loop->function = r.device ? r.device->name : NULL;
  return CUARR_OK;
}
