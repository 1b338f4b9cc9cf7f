/*
 * test_reclaim_frees_input.c -- a call whose allocation runs the pool's reclaim hook, and the
 * hook frees one of the call's inputs (the Lua binding's hook is a full garbage collection: a
 * finalizer may call x:free() on an array the call is using).  The call must then fail with
 * "array has been freed" and give back what it allocated; it must never launch on the freed
 * memory, which the pool may just have handed to the result.
 *
 * Against the fake driver of tools/fake_cuda (the Makefile passes its path as
 * CUARR_FAKE_LIBCUDA): device memory is host memory, kernels are compiled with NVRTC and never
 * run.  The pool's limit is set to what is in use, so that the call's allocation fails, the
 * hook runs, and the retry succeeds with the input's memory.
 */
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "internal.h"

#define N 1024

typedef struct victim {
  cuarr_array *array; /* freed by the hook */
  cuarr_array *spare; /* and this too, when not NULL */
  int calls;
} victim;

static void free_victim(void *ud) {
  victim *v = ud;
  v->calls++;
  if (v->array && v->array->buf)
    cuarr_buffer_free(v->array->buf);
  if (v->spare && v->spare->buf)
    cuarr_buffer_free(v->spare->buf);
}

static cuarr_pool *pool;

static bool make(cuarr_dtype dtype, int64_t n, cuarr_array *out) {
  cuarr_reclaim none = {NULL, NULL};
  return cuarr_array_empty(0, dtype, 1, &n, false, NULL, none, out) == CUARR_OK;
}

typedef cuarr_status (*call_fn)(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                                cuarr_array *out);

static cuarr_status add_flat(cuarr_context *ctx, cuarr_array *a, cuarr_array *b, cuarr_array *out) {
  cuarr_operand in[2] = {{.array = a}, {.array = b}};
  return cuarr_ufunc_call(ctx, cuarr_ufunc_find("add"), 0, in, CUARR_FLOAT64, out);
}

/* b of shape (1,) broadcasts: not the short way. */
static cuarr_status add_broadcast(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                                  cuarr_array *out) {
  cuarr_array b1 = *b;
  b1.shape[0] = 1;
  cuarr_operand in[2] = {{.array = a}, {.array = &b1}};
  return cuarr_ufunc_call(ctx, cuarr_ufunc_find("add"), 0, in, CUARR_FLOAT64, out);
}

static cuarr_status sum_all(cuarr_context *ctx, cuarr_array *a, cuarr_array *b, cuarr_array *out) {
  (void)b;
  cuarr_reduce_args args = {.axes = ~(uint64_t)0, .dtype = -1};
  return cuarr_reduce(ctx, CUARR_REDUCE_SUM, a, &args, out);
}

static cuarr_status sum_rows(cuarr_context *ctx, cuarr_array *a, cuarr_array *b, cuarr_array *out) {
  (void)b;
  cuarr_array m = *a; /* (32, 32) */
  m.ndim = 2;
  m.shape[0] = m.shape[1] = 32;
  m.strides[0] = 32 * 4;
  m.strides[1] = 4;
  cuarr_reduce_args args = {.axes = 2, .dtype = -1};
  return cuarr_reduce(ctx, CUARR_REDUCE_SUM, &m, &args, out);
}

static cuarr_status cumsum(cuarr_context *ctx, cuarr_array *a, cuarr_array *b, cuarr_array *out) {
  (void)b;
  return cuarr_scan(ctx, CUARR_SCAN_CUMSUM, a, 0, -1, out);
}

/* Elements [first, first + count) of a 1-D array. */
static cuarr_array part(const cuarr_array *a, int64_t first, int64_t count) {
  cuarr_array v = *a;
  v.offset += first * a->strides[0];
  v.shape[0] = count;
  return v;
}

/* The given output overlaps input 1 one element on: the engine stages that input through a
 * copy (elementwise.c launch_staged), whose allocation frees input 0. */
static cuarr_status add_staged(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                               cuarr_array *out) {
  (void)out;
  cuarr_array x = part(a, 0, N / 2), y = part(b, 0, N / 2), into = part(b, 1, N / 2);
  cuarr_operand in[2] = {{.array = &x}, {.array = &y}};
  return cuarr_ufunc_call(ctx, cuarr_ufunc_find("add"), 0, in, CUARR_FLOAT64, &into);
}

/* Overlapping source and destination in different layouts: copied through a temporary
 * (copy_kernels.c copy_staged). */
static cuarr_status copy_overlapping(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                                     cuarr_array *out) {
  (void)b, (void)out;
  cuarr_array src = part(a, 0, N / 2), dst = part(a, N / 2 - 1, N / 2);
  dst.offset += (N / 2 - 1) * dst.strides[0]; /* reversed: the last element first */
  dst.strides[0] = -dst.strides[0];
  return cuarr_copy(ctx, &dst, &src);
}

/* A device array to the host (copy.c device_to_host): the host landing buffer of another
 * dtype is malloc'd (no reclaim there), so the reclaim is the device side's: here a
 * non-contiguous source made contiguous first. */
static cuarr_status to_host(cuarr_context *ctx, cuarr_array *a, cuarr_array *b, cuarr_array *out) {
  (void)b, (void)out;
  cuarr_array src = part(a, 0, N / 2);
  src.strides[0] *= 2;
  cuarr_array h;
  int64_t n = N / 2;
  cuarr_reclaim none = {NULL, NULL};
  if (cuarr_array_empty(CUARR_HOST, CUARR_FLOAT64, 1, &n, false, NULL, none, &h) != CUARR_OK)
    return CUARR_OUT_OF_MEMORY;
  cuarr_status s = cuarr_copy(ctx, &h, &src);
  cuarr_array_release(&h);
  return s;
}

/* A large sum into a given 0-d output: no result to allocate, but the split reduction's
 * partials (reduce_engine.c). */
static cuarr_status sum_split(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                              cuarr_array *out) {
  (void)out;
  cuarr_array r = part(b, 0, 1);
  r.ndim = 0;
  cuarr_reduce_args args = {.axes = ~(uint64_t)0, .dtype = -1};
  return cuarr_reduce(ctx, CUARR_REDUCE_SUM, a, &args, &r);
}

/* A large cumsum into a given output: no result to allocate, but the look-back kernel's state
 * (scan_device.c). */
static cuarr_status cumsum_state(cuarr_context *ctx, cuarr_array *a, cuarr_array *b,
                                 cuarr_array *out) {
  (void)out;
  return cuarr_scan(ctx, CUARR_SCAN_CUMSUM, a, 0, -1, b);
}

static void check_case(const char *name, call_fn call, int64_t n) {
  cuarr_array a, b, out = {0};
  if (!make(CUARR_FLOAT32, n, &a) || !make(CUARR_FLOAT32, n, &b)) {
    printf("not ok - %s: the inputs (%s)\n", name, cuarr_last_error());
    return;
  }
  victim v = {&a, NULL, 0};
  cuarr_context ctx = {.stream = NULL, .reclaim = {free_victim, &v}};
  cuarr_pool_free_all_blocks(pool); /* no cached chunk to take instead */
  size_t used = cuarr_pool_used_bytes(pool);
  cuarr_pool_set_limit(pool, used);
  cuarr_status s = call(&ctx, &a, &b, &out);
  cuarr_pool_set_limit(pool, 0);
  char what[200];
  snprintf(what, sizeof what, "%s: the allocation ran the reclaim hook, which freed the input",
           name);
  CHECK(v.calls == 1 && a.buf->ptr == NULL, what);
  snprintf(what, sizeof what, "%s: the call fails with \"array has been freed\"", name);
  CHECK(s == CUARR_VALUE_ERROR && strstr(cuarr_last_error(), "freed"), what);
  if (s != CUARR_VALUE_ERROR)
    printf("# status %d: %s\n", (int)s, cuarr_last_error());
  snprintf(what, sizeof what, "%s: and gives back what it allocated", name);
  CHECK(out.buf == NULL && cuarr_pool_used_bytes(pool) == used - (size_t)n * 4, what);
  if (out.buf)
    cuarr_array_release(&out);
  cuarr_array_release(&a);
  cuarr_array_release(&b);
}

/* A host array to the device in another dtype (copy.c host_to_device): the bytes land in a
 * device buffer first, whose allocation frees the host source (and device memory to retry
 * with); reading the source then would read freed host memory. */
static void check_upload(void) {
  cuarr_array h, d, spare;
  int64_t n = N;
  cuarr_reclaim none = {NULL, NULL};
  if (cuarr_array_empty(CUARR_HOST, CUARR_FLOAT64, 1, &n, false, NULL, none, &h) != CUARR_OK ||
      !make(CUARR_FLOAT32, N, &d) || !make(CUARR_FLOAT64, N, &spare)) {
    printf("not ok - upload: the arrays (%s)\n", cuarr_last_error());
    return;
  }
  memset(cuarr_array_data(&h), 0, N * 8);
  victim v = {&h, &spare, 0};
  cuarr_context ctx = {.stream = NULL, .reclaim = {free_victim, &v}};
  cuarr_pool_free_all_blocks(pool);
  size_t used = cuarr_pool_used_bytes(pool);
  cuarr_pool_set_limit(pool, used);
  cuarr_status s = cuarr_copy(&ctx, &d, &h);
  cuarr_pool_set_limit(pool, 0);
  CHECK(v.calls == 1 && h.buf->ptr == NULL,
        "upload in another dtype: the landing buffer's allocation freed the host source");
  CHECK(s == CUARR_VALUE_ERROR && strstr(cuarr_last_error(), "freed"),
        "upload: the copy fails with \"array has been freed\"");
  if (s != CUARR_VALUE_ERROR)
    printf("# status %d: %s\n", (int)s, cuarr_last_error());
  CHECK(cuarr_pool_used_bytes(pool) == used - N * 8, "upload: and gives back the landing buffer");
  cuarr_array_release(&spare);
  cuarr_array_release(&h);
  cuarr_array_release(&d);
}

int main(void) {
  /* Before the first driver call: the loader reads it then. */
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);
  pool = cuarr_device_pool(0);
  CHECK(pool != NULL, "the fake device's pool");
  if (!pool) {
    printf("# %s\n", cuarr_last_error());
    return ctest_done();
  }
  if (cuarr_load_nvrtc() != CUARR_OK) {
    printf("# no NVRTC (%s): skipping\n", cuarr_last_error());
    return ctest_done();
  }
  const int64_t big = 1 << 22;
  check_case("add, the short way (flat_call.c)", add_flat, N);
  check_case("add, the short way again (its kernel known)", add_flat, N);
  check_case("add with broadcasting (call.c)", add_broadcast, N);
  check_case("add into an output overlapping an input (staged)", add_staged, N);
  check_case("sum of everything, the short way (flat_reduce.c)", sum_all, N);
  check_case("sum of everything again (its kernel known)", sum_all, N);
  check_case("sum along an axis (reduce.c)", sum_rows, N);
  check_case("cumsum (scan.c)", cumsum, N);
  check_case("a copy between overlapping views (staged)", copy_overlapping, N);
  check_case("a strided copy to the host (made contiguous first)", to_host, N);
  check_upload();
  /* Last: the large ones leave memory in the pool (the split reductions' counters) that
   * smaller allocations could take without reaching the limit. */
  check_case("a large cumsum into a given output (look-back state)", cumsum_state, big);
  check_case("a split sum into a given output (partials)", sum_split, big);
  return ctest_done();
}
