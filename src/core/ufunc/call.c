/*
 * ufunc/ -- the built-in ufuncs: their list, type resolution, host loops and device programs.
 *
 * call.c -- cuarr_ufunc_call: the checks around a ufunc call, broadcasting, the output, and
 * handing the work to the host loops or the device engine.
 *
 * This is the hot path of `c = a + b`: it resolves with table lookups (resolve.c), builds no
 * strings unless it fails, and allocates nothing but the output (and, rarely, a temporary for
 * an input that overlaps a given output in another layout).
 *
 * The output, when given, follows NumPy's rules: the inputs must broadcast to its shape (it is
 * never stretched), and the result must cast to its dtype under 'same_kind' (float results do
 * not go into integer arrays; int64 results may go into int8 ones, wrapping).  The computation
 * happens in the resolved loop's dtypes whatever the output's dtype; the result is converted
 * on the way out.
 */
#include <stdio.h>
#include <string.h>

#include "array/shape_format.h"
#include "copy/result.h"
#include "ufunc/ufunc.h"

/* "the host" or "device 1" */
static const char *place(char buf[32], int device) {
  if (device == CUARR_HOST)
    return "the host";
  snprintf(buf, 32, "device %d", device);
  return buf;
}

static cuarr_status check_array(const cuarr_ufunc *u, const cuarr_array *a, int device,
                                const char *what, int k) {
  cuarr_status s = cuarr_array_check_live(a);
  if (s != CUARR_OK)
    return s;
  int d = cuarr_array_device(a);
  if (d != device) {
    char b1[32], b2[32], name[32];
    if (k >= 0)
      snprintf(name, sizeof name, "%s %d", what, k + 1);
    else
      snprintf(name, sizeof name, "%s", what);
    return cuarr_fail(CUARR_VALUE_ERROR, "%s: %s is on %s but the operation runs on %s", u->name,
                      name, place(b1, d), place(b2, device));
  }
  return CUARR_OK;
}

/* ---- broadcasting */

static cuarr_status broadcast_error(const cuarr_ufunc *u, const cuarr_operand *in) {
  char msg[3 * (CUARR_SHAPE_STR_SIZE + 1)] = "", shape[CUARR_SHAPE_STR_SIZE];
  for (int i = 0; i < u->nin; i++) {
    const cuarr_array *a = in[i].array;
    if (i)
      strcat(msg, " ");
    strcat(msg, a ? cuarr_shape_format(shape, a->ndim, a->shape) : "()");
  }
  return cuarr_fail(CUARR_VALUE_ERROR, "operands could not be broadcast together with shapes %s",
                    msg);
}

/* The inputs' common shape (NumPy rules; scalars have shape ()). */
static cuarr_status broadcast_shape(const cuarr_ufunc *u, const cuarr_operand *in, int *ndim,
                                    int64_t *shape) {
  *ndim = 0;
  for (int i = 0; i < u->nin; i++) {
    const cuarr_array *a = in[i].array;
    if (a && !cuarr_iter_broadcast_shape(ndim, shape, a->ndim, a->shape))
      return broadcast_error(u, in);
  }
  return CUARR_OK;
}

/* The strides that read a at every index of (ndim, shape), which a broadcasts to (checked
 * before: broadcast_shape, check_out_shape): the iterator's broadcast stage. */
static void broadcast_strides(const cuarr_array *a, int ndim, const int64_t *shape, int64_t *out) {
  (void)cuarr_iter_broadcast(a, ndim, shape, out);
}

/* A given output: the inputs' shape must broadcast to the output's. */
static cuarr_status check_out_shape(const cuarr_array *out, int ndim, const int64_t *shape) {
  bool ok = out->ndim >= ndim;
  for (int k = 0; ok && k < ndim; k++) {
    int64_t e = shape[k], o = out->shape[out->ndim - ndim + k];
    ok = e == o || e == 1;
  }
  if (ok)
    return CUARR_OK;
  char s1[CUARR_SHAPE_STR_SIZE], s2[CUARR_SHAPE_STR_SIZE];
  return cuarr_fail(CUARR_VALUE_ERROR,
                    "non-broadcastable output operand with shape %s doesn't match the broadcast "
                    "shape %s",
                    cuarr_shape_format(s1, out->ndim, out->shape),
                    cuarr_shape_format(s2, ndim, shape));
}

/* ---- overlap between a given output and the inputs */

/* o and a (read with strides astr over o's shape) are the same elements at the same addresses:
 * computing in place is then safe, as each element is read before it is written and by no one
 * else. */
static bool same_elements(const cuarr_array *o, const cuarr_array *a, const int64_t *astr) {
  if (cuarr_array_data(o) != cuarr_array_data(a) ||
      cuarr_dtype_size(o->dtype) != cuarr_dtype_size(a->dtype))
    return false;
  for (int k = 0; k < o->ndim; k++) {
    if (o->shape[k] > 1 && o->strides[k] != astr[k])
      return false;
  }
  return true;
}

/* Inputs that overlap the output in another layout are read from a copy made first. */
static cuarr_status stage_overlaps(cuarr_context *ctx, const cuarr_ufunc *u, int device,
                                   CUstream stream, const cuarr_array *res, cuarr_operand *args,
                                   cuarr_array *tmps) {
  int64_t astr[CUARR_MAXDIM];
  for (int i = 0; i < u->nin; i++) {
    const cuarr_array *a = args[i].array;
    if (!a || !cuarr_array_may_overlap(res, a))
      continue;
    broadcast_strides(a, res->ndim, res->shape, astr);
    if (same_elements(res, a, astr))
      continue;
    CUARR_TRY(cuarr_array_empty(device, a->dtype, a->ndim, a->shape, false, stream,
                                cuarr_ctx_reclaim(ctx), &tmps[i]));
    CUARR_TRY(cuarr_copy(ctx, &tmps[i], a));
    args[i].array = &tmps[i];
  }
  return CUARR_OK;
}

/* ---- integer powers */

static const char negative_power[] = "Integers to negative integer powers are not allowed.";

static bool negative_scalar(const cuarr_operand *a) {
  return !a->array && cuarr_dtype_is_signed(a->scalar.dtype) && a->scalar.v.i < 0;
}

/* Whether a host array of a signed dtype holds a negative element (an odometer over its
 * shape: any layout, broadcast views included). */
static bool host_has_negative(const cuarr_array *a) {
  if (!cuarr_dtype_is_signed(a->dtype) || cuarr_array_size(a) == 0)
    return false;
  const size_t size = cuarr_dtype_size(a->dtype);
  const char *base = cuarr_array_data(a);
  int64_t idx[CUARR_MAXDIM] = {0};
  for (;;) {
    int64_t off = 0;
    for (int d = 0; d < a->ndim; d++)
      off += idx[d] * a->strides[d];
    signed char top; /* the sign is the top byte's (little-endian hosts) */
    memcpy(&top, base + off + size - 1, 1);
    if (top < 0)
      return true;
    int d = a->ndim - 1;
    while (d >= 0 && ++idx[d] == a->shape[d])
      idx[d--] = 0;
    if (d < 0)
      return false;
  }
}

/* NumPy's ValueError for an integer loop of power given a negative exponent: a Lua number on
 * either backend; the elements of a host array.  A device array's exponents are on the device,
 * and reading them would synchronise every power: there, as in CuPy, no check (1 ^ -n is 1,
 * (-1) ^ -n is +-1, any other base 0). */
static cuarr_status check_power(const cuarr_ufunc *u, const cuarr_uf_resolved *r, int device,
                                const cuarr_operand *in) {
  if (u->id != CUARR_UF_ID_power || !cuarr_dtype_is_integer(r->in[1]))
    return CUARR_OK;
  if (negative_scalar(&in[1]) ||
      (device == CUARR_HOST && in[1].array && host_has_negative(in[1].array)))
    return cuarr_fail(CUARR_VALUE_ERROR, "%s", negative_power);
  return CUARR_OK;
}

/* A negative Lua exponent, before the short way (which would not look at it). */
static cuarr_status check_power_scalar(const cuarr_ufunc *u, const cuarr_operand *in,
                                       cuarr_dtype weak_float_dtype) {
  if (u->id != CUARR_UF_ID_power || !negative_scalar(&in[1]))
    return CUARR_OK;
  cuarr_uf_resolved r;
  if (cuarr_uf_resolve(u, in, weak_float_dtype, &r) != CUARR_OK)
    return CUARR_OK; /* the general path reports it */
  return check_power(u, &r, CUARR_HOST, in);
}

/* ---- running */

static void run_host(const cuarr_uf_resolved *r, int nin, const cuarr_operand *args,
                     const cuarr_array *res) {
  int64_t strides[3][CUARR_MAXDIM] = {{0}};
  uint64_t scalars[3];
  cuarr_uf_host_operand ops[4];
  for (int i = 0; i < nin; i++) {
    const cuarr_array *a = args[i].array;
    if (a) {
      broadcast_strides(a, res->ndim, res->shape, strides[i]);
      ops[i] = (cuarr_uf_host_operand){cuarr_array_data(a), a->dtype, strides[i]};
    } else { /* already in the loop's dtype: no conversion per element */
      cuarr_scalar_store(r->scalar[i], r->in[i], &scalars[i]);
      ops[i] = (cuarr_uf_host_operand){(char *)&scalars[i], r->in[i], strides[i]};
    }
  }
  ops[nin] = (cuarr_uf_host_operand){cuarr_array_data(res), res->dtype, res->strides};
  cuarr_uf_host_run(r, nin, ops, res->ndim, res->shape);
}

void cuarr_uf_device_operands(const cuarr_uf_resolved *r, int nin, const cuarr_operand *args,
                              const cuarr_array *res, cuarr_ew_operand *ops) {
  static const char *const names[3] = {"in0", "in1", "in2"};
  for (int i = 0; i < nin; i++) {
    ops[i] = (cuarr_ew_operand){
        .array = args[i].array, .scalar = r->scalar[i], .var_dtype = r->in[i], .name = names[i]};
  }
  ops[nin] = (cuarr_ew_operand){.array = res, .var_dtype = r->out, .name = "out0", .output = true};
}

static cuarr_status run_device(cuarr_context *ctx, int device, const cuarr_uf_resolved *r, int nin,
                               const cuarr_operand *args, const cuarr_array *res) {
  cuarr_ew_operand ops[4];
  cuarr_uf_device_operands(r, nin, args, res, ops);
  return cuarr_ew_launch(ctx, device, r->device, nin + 1, ops, -1);
}

cuarr_status cuarr_ufunc_call(cuarr_context *ctx, const cuarr_ufunc *u, int device,
                              const cuarr_operand *in, cuarr_dtype weak_float_dtype,
                              cuarr_array *out) {
  if (!u || !in || !out)
    return cuarr_fail(CUARR_VALUE_ERROR, "cuarr_ufunc_call: no ufunc, inputs or output");
  /* Before anything else: a broadcast output may span more elements than any loop can visit. */
  CUARR_TRY(cuarr_array_check_writeable(out));
  CUARR_TRY(check_power_scalar(u, in, weak_float_dtype));
  cuarr_status flat;
  if (device != CUARR_HOST && cuarr_uf_flat_call(ctx, u, device, in, weak_float_dtype, out, &flat))
    return flat;
  const int nin = u->nin;
  const bool given = out->buf != NULL;
  for (int i = 0; i < nin; i++) {
    if (in[i].array)
      CUARR_TRY(check_array(u, in[i].array, device, "input", i));
  }
  if (given)
    CUARR_TRY(check_array(u, out, device, "the output", -1));
  CUstream stream = NULL; /* host work has none */
  if (device != CUARR_HOST)
    CUARR_TRY(cuarr_ctx_stream_for(ctx, device, &stream));

  cuarr_uf_resolved r;
  CUARR_TRY(cuarr_uf_resolve(u, in, weak_float_dtype, &r));
  CUARR_TRY(check_power(u, &r, device, in));
  int ndim = 0;
  int64_t shape[CUARR_MAXDIM];
  CUARR_TRY(broadcast_shape(u, in, &ndim, shape));

  if (given) {
    CUARR_TRY(check_out_shape(out, ndim, shape));
    if (!cuarr_can_cast_same_kind(r.out, out->dtype))
      return cuarr_fail(CUARR_TYPE_ERROR,
                        "Cannot cast ufunc '%s' output from %s to %s with casting rule "
                        "'same_kind'",
                        u->name, cuarr_dtype_name(r.out), cuarr_dtype_name(out->dtype));
  }
  /* The engines write a given output in place, casting as they store and staging overlapping
   * inputs themselves (below for the host loop), so the result never needs a temporary. */
  cuarr_result result;
  CUARR_TRY(cuarr_result_begin(&result, ctx, device, stream, r.out, ndim, shape, out));
  cuarr_array *res = &result.res;
  cuarr_status s = CUARR_OK;
  if (cuarr_array_size(res) > 0) {
    cuarr_operand args[3];
    cuarr_array tmps[3] = {{0}};
    for (int i = 0; i < nin; i++)
      args[i] = in[i];
    if (given && device == CUARR_HOST) /* the device engine stages overlaps itself */
      s = stage_overlaps(ctx, u, device, stream, res, args, tmps);
    if (s == CUARR_OK && device == CUARR_HOST)
      run_host(&r, nin, args, res);
    else if (s == CUARR_OK)
      s = run_device(ctx, device, &r, nin, args, res);
    for (int i = 0; i < nin; i++) { /* device memory: stream-ordered, safe once queued */
      if (tmps[i].buf)
        cuarr_array_release(&tmps[i]);
    }
  }
  return cuarr_result_end(&result, ctx, s);
}
