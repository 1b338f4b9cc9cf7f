/*
 * test_comm_stand_in.c -- the collectives' whole path without GPUs: a communicator of one rank
 * made by cuarr_comm_init_all over the stand-in driver (tools/fake_cuda/fake_cuda.c) and the
 * stand-in NCCL (tools/fake_cuda/fake_nccl.c), whose "device" memory is host memory.  Each
 * collective must reach NCCL inside a group (the stand-in refuses calls outside one), with the
 * right buffers and counts (its one rank copies send to receive, so the values show them), go
 * through temporaries for strided arrays without failing (the stand-in driver runs no copy
 * kernels, so their values are not checked), and do nothing for empty arrays.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "ctest.h"

static cuarr_reclaim none = {NULL, NULL};
static int *calls; /* the stand-in's count of collectives run */

static cuarr_array filled(int64_t n, float start) {
  cuarr_array a;
  if (cuarr_array_empty(0, CUARR_FLOAT32, 1, &n, false, NULL, none, &a) != CUARR_OK)
    abort();
  float *p = cuarr_array_data(&a); /* the stand-in's device memory is host memory */
  for (int64_t i = 0; i < n; i++)
    p[i] = start + (float)i;
  return a;
}

static bool holds(const cuarr_array *a, float start) {
  const float *p = cuarr_array_data(a);
  for (int64_t i = 0; i < cuarr_array_size(a); i++)
    if (p[i] != start + (float)i)
      return false;
  return true;
}

static bool ran(cuarr_status s, int before) {
  if (s != CUARR_OK)
    printf("# %s: %s\n", cuarr_status_name(s), cuarr_last_error());
  return s == CUARR_OK && *calls == before + 1;
}

int main(void) {
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_LIBNCCL", CUARR_FAKE_LIBNCCL, 1);
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);
  int device = 0;
  cuarr_comm *c = NULL;
  cuarr_status s = cuarr_comm_init_all(1, &device, &c);
  CHECK(s == CUARR_OK, "init_all over the stand-ins");
  if (s != CUARR_OK) {
    printf("# %s\n", cuarr_last_error());
    return ctest_done();
  }
  void *lib = dlopen(CUARR_FAKE_LIBNCCL, RTLD_NOW | RTLD_NOLOAD);
  calls = lib ? dlsym(lib, "cuarr_stand_in_nccl_calls") : NULL;
  CHECK(calls != NULL, "the stand-in NCCL is the one loaded");
  if (!calls)
    return ctest_done();
  CHECK(cuarr_comm_size(c) == 1 && cuarr_comm_device(c, 0) == 0 && cuarr_comm_device(c, 1) == -1,
        "size and devices");

  cuarr_array a = filled(10, 1), out = filled(10, 100);
  cuarr_comm_call call = {&a, &out, NULL, none};
  int n = *calls;
  CHECK(ran(cuarr_comm_all_reduce(c, &call, CUARR_COMM_AVG), n) && holds(&out, 1),
        "all_reduce into out");
  call.outs = NULL;
  n = *calls;
  CHECK(ran(cuarr_comm_broadcast(c, &call, 0), n) && holds(&a, 1), "broadcast in place");
  call.outs = &out;
  cuarr_array b = filled(10, 7);
  call.parts = &b;
  n = *calls;
  CHECK(ran(cuarr_comm_reduce(c, &call, CUARR_COMM_MAX, 0), n) && holds(&out, 7),
        "reduce into the root's out");
  cuarr_array g = filled(10, 50);
  call.parts = &a;
  call.outs = &g;
  n = *calls;
  CHECK(ran(cuarr_comm_all_gather(c, &call), n) && holds(&g, 1), "all_gather");
  cuarr_array rs = filled(10, 60);
  call.outs = &rs;
  n = *calls;
  CHECK(ran(cuarr_comm_reduce_scatter(c, &call, CUARR_COMM_SUM), n) && holds(&rs, 1),
        "reduce_scatter");
  cuarr_array t = filled(10, 70);
  call.outs = &t;
  n = *calls; /* one rank: one send and one receive */
  CHECK(ran(cuarr_comm_all_to_all(c, &call), n) && holds(&t, 1), "all_to_all");

  /* strided: through temporaries, copied in and back by (stand-in) kernels */
  cuarr_array base = filled(12, 0), view;
  CHECK(cuarr_view_slice(&base, 0, 1, 6, 2, &view) == CUARR_OK, "a strided view");
  call.parts = &view;
  call.outs = NULL;
  n = *calls;
  CHECK(ran(cuarr_comm_all_reduce(c, &call, CUARR_COMM_SUM), n), "all_reduce of a strided view");
  cuarr_array o6 = filled(6, 0);
  call.outs = &o6;
  n = *calls;
  CHECK(ran(cuarr_comm_broadcast(c, &call, 0), n), "broadcast of a strided view into out");
  call.parts = &o6;
  call.outs = &view;
  n = *calls;
  CHECK(ran(cuarr_comm_all_reduce(c, &call, CUARR_COMM_MIN), n), "all_reduce into a strided out");

  /* empty: nothing reaches NCCL */
  cuarr_array e = filled(0, 0);
  cuarr_comm_call ecall = {&e, NULL, NULL, none};
  n = *calls;
  CHECK(cuarr_comm_all_reduce(c, &ecall, CUARR_COMM_SUM) == CUARR_OK && *calls == n,
        "empty arrays: nothing queued");

  CHECK(cuarr_comm_destroy(c) == CUARR_OK, "destroy");
  cuarr_array *all[] = {&a, &out, &b, &g, &rs, &t, &base, &view, &o6, &e};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    cuarr_array_release(all[i]);
  return ctest_done();
}
