/*
 * test_comm_checks.c -- the collectives' checks (src/core/comm/), which run before NCCL is
 * called: every refusal of bad parts, outs, roots, dtypes and streams, the no-op of empty
 * arrays, and the refusal of the stand-in driver before NCCL sees a device.  Also where NCCL is
 * looked for when CUARR_LIBNCCL names a missing file (in a child process: the loader runs once).
 *
 * Against the fake driver of tools/fake_cuda (the Makefile passes its path as
 * CUARR_FAKE_LIBCUDA): device memory is host memory, one device.  Communicators are made by
 * hand here (ncclCommInitAll would need real GPUs); a call that passes every check stops at
 * cuarr_comm_ready, whose NotAvailable proves the checks let it through.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "comm/comm.h"
#include "ctest.h"

static cuarr_reclaim none = {NULL, NULL};

static cuarr_array dev_array(cuarr_dtype d, int64_t n) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  if (cuarr_array_empty(0, d, 1, &n, false, NULL, none, &a) != CUARR_OK)
    abort();
  return a;
}

static cuarr_array host_array(cuarr_dtype d, int64_t n) {
  cuarr_array a;
  memset(&a, 0, sizeof a);
  if (cuarr_array_empty(CUARR_HOST, d, 1, &n, false, NULL, none, &a) != CUARR_OK)
    abort();
  return a;
}

static bool fails(cuarr_status got, cuarr_status want, const char *text) {
  if (got != want) {
    printf("# got %s: %s\n", cuarr_status_name(got), cuarr_last_error());
    return false;
  }
  if (text && !strstr(cuarr_last_error(), text)) {
    printf("# message lacks '%s': %s\n", text, cuarr_last_error());
    return false;
  }
  return true;
}

/* Where NCCL is looked for, from a child with CUARR_LIBNCCL naming a missing file. */
static void missing_nccl(void) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("CUARR_LIBNCCL", "/nonexistent/libnccl.so.2", 1);
    int v = 0;
    cuarr_status s = cuarr_nccl_version(&v);
    bool ok = s == CUARR_NOT_AVAILABLE && strstr(cuarr_last_error(), "CUARR_LIBNCCL=") &&
              strstr(cuarr_last_error(), "/nonexistent/libnccl.so.2");
    cuarr_comm *c = NULL;
    int dev = 0;
    ok = ok && cuarr_comm_init_all(1, &dev, &c) == CUARR_NOT_AVAILABLE;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
        "CUARR_LIBNCCL naming a missing file: NotAvailable naming it");
}

int main(void) {
  setenv("CUARR_LIBCUDA", CUARR_FAKE_LIBCUDA, 1);
  setenv("CUARR_CACHE_IN_MEMORY", "1", 1);
  missing_nccl();

  int version = -1;
  cuarr_status vs = cuarr_nccl_version(&version);
  bool have_nccl = vs == CUARR_OK;
  CHECK(vs == CUARR_OK ? version >= 21000 : vs == CUARR_NOT_AVAILABLE,
        "cuarr_nccl_version: a version code, or NotAvailable");
  cuarr_runtime_info info;
  cuarr_runtime(&info);
  CHECK(info.nccl_version == (have_nccl ? version : -1), "cuarr_runtime reports NCCL's version");

  cuarr_comm_op op;
  CHECK(cuarr_comm_op_from_name("avg", &op) && op == CUARR_COMM_AVG, "op names");
  CHECK(!cuarr_comm_op_from_name("mean", &op), "unknown op names");

  int devs[2] = {0, 0};
  cuarr_comm *made = NULL;
  CHECK(fails(cuarr_comm_init_all(2, devs, &made), CUARR_VALUE_ERROR, "listed twice"),
        "init_all: a device twice");
  CHECK(fails(cuarr_comm_init_all(0, devs, &made), CUARR_VALUE_ERROR, "1 to"), "init_all: none");
  devs[0] = 3;
  CHECK(fails(cuarr_comm_init_all(1, devs, &made), CUARR_VALUE_ERROR, "device 3"),
        "init_all: a device that does not exist");
  devs[0] = 0;
  if (have_nccl)
    CHECK(fails(cuarr_comm_init_all(1, devs, &made), CUARR_NOT_AVAILABLE, "system's CUDA driver"),
          "init_all: the stand-in driver is refused before NCCL sees it");

  /* Two ranks both "on" device 0: the checks compare devices, they never ask NCCL. */
  cuarr_comm c;
  memset(&c, 0, sizeof c);
  c.n = 2;
  c.world = 2;
  cuarr_array a0 = dev_array(CUARR_FLOAT32, 12), a1 = dev_array(CUARR_FLOAT32, 12);
  cuarr_array parts[2] = {a0, a1};
  cuarr_comm_call call = {parts, NULL, NULL, none};
  const cuarr_status ready = CUARR_NOT_AVAILABLE; /* NCCL refused with the stand-in */

  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), ready, NULL),
        "valid parts pass every check (and stop at the driver's refusal)");

  cuarr_array h = host_array(CUARR_FLOAT32, 12);
  parts[1] = h;
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_TYPE_ERROR, "host array"),
        "a host part");
  parts[1] = a1;

  c.devices[1] = 1;
  CHECK(fails(cuarr_comm_broadcast(&c, &call, 0), CUARR_VALUE_ERROR,
              "rank 1's part is on device 0, but rank 1 drives device 1"),
        "a part on another device than its rank's");
  c.devices[1] = 0;

  cuarr_array i32 = dev_array(CUARR_INT32, 12);
  parts[1] = i32;
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_TYPE_ERROR, "int32"),
        "parts of two dtypes");
  cuarr_array short_ = dev_array(CUARR_FLOAT32, 11);
  parts[1] = short_;
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_VALUE_ERROR, "shape"),
        "parts of two shapes");
  parts[1] = a1;

  cuarr_array s0 = dev_array(CUARR_INT16, 4), s1 = dev_array(CUARR_INT16, 4);
  cuarr_array sp[2] = {s0, s1};
  cuarr_comm_call scall = {sp, NULL, NULL, none};
  CHECK(fails(cuarr_comm_all_reduce(&c, &scall, CUARR_COMM_MAX), CUARR_TYPE_ERROR,
              "NCCL cannot reduce int16"),
        "int16 reductions are refused");
  CHECK(fails(cuarr_comm_broadcast(&c, &scall, 1), ready, NULL), "int16 broadcasts pass");
  cuarr_array b0 = dev_array(CUARR_BOOL, 4), b1 = dev_array(CUARR_BOOL, 4);
  cuarr_array bp[2] = {b0, b1};
  cuarr_comm_call bcall = {bp, NULL, NULL, none};
  CHECK(fails(cuarr_comm_all_reduce(&c, &bcall, CUARR_COMM_SUM), CUARR_TYPE_ERROR,
              "NCCL cannot sum bool"),
        "bool sums are refused");
  CHECK(fails(cuarr_comm_all_reduce(&c, &bcall, CUARR_COMM_MIN), ready, NULL),
        "bool min passes (as uint8)");

  CHECK(fails(cuarr_comm_reduce(&c, &call, CUARR_COMM_SUM, 2), CUARR_VALUE_ERROR, "root 2"),
        "a root past the ranks");
  CHECK(fails(cuarr_comm_broadcast(&c, &call, -1), CUARR_VALUE_ERROR, "root -1"),
        "a negative root");

  /* outs */
  cuarr_array g0 = dev_array(CUARR_FLOAT32, 24), g1 = dev_array(CUARR_FLOAT32, 24);
  cuarr_array gouts[2] = {g0, g1};
  call.outs = gouts;
  CHECK(fails(cuarr_comm_all_gather(&c, &call), ready, NULL), "all_gather: outs of 2 x 12");
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_VALUE_ERROR, "shape"),
        "all_reduce: outs of another shape");
  CHECK(fails(cuarr_comm_all_to_all(&c, &call), CUARR_VALUE_ERROR, "as many elements"),
        "all_to_all: outs of another size");
  cuarr_array r0 = dev_array(CUARR_FLOAT32, 6), r1 = dev_array(CUARR_FLOAT32, 6);
  cuarr_array routs[2] = {r0, r1};
  call.outs = routs;
  CHECK(fails(cuarr_comm_reduce_scatter(&c, &call, CUARR_COMM_AVG), ready, NULL),
        "reduce_scatter: outs of 12 / 2");
  CHECK(fails(cuarr_comm_all_gather(&c, &call), CUARR_VALUE_ERROR, "2 x 12 = 24"),
        "all_gather: outs too small");
  cuarr_array d0 = dev_array(CUARR_FLOAT64, 12), d1 = dev_array(CUARR_FLOAT64, 12);
  cuarr_array douts[2] = {d0, d1};
  call.outs = douts;
  CHECK(
      fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_TYPE_ERROR, "does not convert"),
      "outs of another dtype");
  call.outs = NULL;
  CHECK(fails(cuarr_comm_all_gather(&c, &call), CUARR_VALUE_ERROR, "needs outs"),
        "all_gather without outs");
  cuarr_array o0 = dev_array(CUARR_FLOAT32, 5), o1 = dev_array(CUARR_FLOAT32, 5);
  cuarr_array odd[2] = {o0, o1};
  cuarr_comm_call ocall = {odd, odd, NULL, none};
  CHECK(fails(cuarr_comm_all_to_all(&c, &ocall), CUARR_VALUE_ERROR, "equal chunks"),
        "all_to_all of 5 elements over 2 ranks");

  /* streams */
  cuarr_stream other = {NULL, 1, 0, false};
  cuarr_stream *streams[2] = {NULL, &other};
  call.streams = streams;
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_VALUE_ERROR,
              "rank 1's stream belongs to device 1"),
        "a stream of another device");
  call.streams = NULL;

  /* empty: checked, then nothing (NCCL is not reached) */
  cuarr_array e0 = dev_array(CUARR_FLOAT32, 0), e1 = dev_array(CUARR_FLOAT32, 0);
  cuarr_array ep[2] = {e0, e1};
  cuarr_comm_call ecall = {ep, NULL, NULL, none};
  CHECK(cuarr_comm_all_reduce(&c, &ecall, CUARR_COMM_PROD) == CUARR_OK, "empty parts: a no-op");
  CHECK(cuarr_comm_all_gather(&c, &ecall) == CUARR_VALUE_ERROR, "empty parts still checked");

  /* send_recv */
  cuarr_array src[1] = {a0}, dst[1] = {a1};
  CHECK(fails(cuarr_comm_send_recv(&c, 1, src, dst, NULL, none), CUARR_VALUE_ERROR,
              "both on device 0"),
        "send_recv within one device");
  c.devices[1] = 1;
  cuarr_array hd[1] = {h};
  CHECK(fails(cuarr_comm_send_recv(&c, 1, src, hd, NULL, none), CUARR_TYPE_ERROR, "host array"),
        "send_recv to a host array");
  c.devices[0] = 2;
  CHECK(fails(cuarr_comm_send_recv(&c, 1, src, dst, NULL, none), CUARR_VALUE_ERROR,
              "none of the communicator's"),
        "send_recv from a device outside the communicator");
  c.devices[0] = 0;
  CHECK(cuarr_comm_send_recv(&c, 0, src, dst, NULL, none) == CUARR_OK, "no pairs: a no-op");

  /* a freed part, a destroyed communicator */
  cuarr_buffer_free(a1.buf);
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_VALUE_ERROR, "freed"),
        "a freed part");
  c.n = 0;
  CHECK(fails(cuarr_comm_all_reduce(&c, &call, CUARR_COMM_SUM), CUARR_VALUE_ERROR, "destroyed"),
        "a destroyed communicator");

  cuarr_array *all[] = {&a0, &a1, &h,  &i32, &short_, &s0, &s1, &b0, &b1, &g0,
                        &g1, &r0, &r1, &d0,  &d1,     &o0, &o1, &e0, &e1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    cuarr_array_release(all[i]);
  return ctest_done();
}
