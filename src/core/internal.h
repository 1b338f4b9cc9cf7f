/*
 * internal.h -- what the core's parts share with each other but not with embedders.
 * Each part's functions are declared here beside the file that defines them.
 */
#ifndef CUARR_INTERNAL_H
#define CUARR_INTERNAL_H

#include "cuarr.h"
#include "cuda/device_facts.h"
#include "cuda/driver.h"

/* ---- cuda/device.c */
/* The device's primary context (retained on first use). */
cuarr_status cuarr_device_context(int device, CUcontext *out);
/* Make the device's primary context current for a while (memory the pools or the registry
 * own outlives any thread's current context); *saved is the one cuarr_device_context_pop puts
 * back, unless something else became current since. */
cuarr_status cuarr_device_context_push(int device, CUcontext *saved);
void cuarr_device_context_pop(CUcontext saved);
/* The device's compute capability as major*10+minor (90 for sm_90): its facts' arch. */
cuarr_status cuarr_device_arch(int device, int *arch);

/* ---- cuda/peer.c */
/* Let device's context access peer's memory (cuCtxEnablePeerAccess), tried once per ordered
 * pair and thread-safe; whether it is on.  Never fails: without it copies between the two go
 * the driver's staged way. */
bool cuarr_peer_enable(int device, int peer);

/* ---- comm/watchdog.c */
/* CUARR_DISTRIBUTED_ERROR when a communicator shared with other processes was aborted since the
 * last call (its collectives' results are garbage): the waits that hand results to the host
 * (downloads, stream and device synchronize) call it after waiting, so such a failure is
 * reported by the first of them, once. */
cuarr_status cuarr_comm_failure_check(void);

/* ---- compile/nvrtc.c : CUDA C compiled to a cubin (no GPU needed) */
/* Compile `source` for sm_<arch> to a cubin (malloc'd, caller frees).  Fails with
 * CUARR_COMPILE_ERROR carrying NVRTC's log and the source lines it points at, or
 * CUARR_NOT_AVAILABLE without NVRTC.  Needs no GPU. */
cuarr_status cuarr_nvrtc_compile(const char *source, const char *program_name,
                                 const char *const *options, int n_options, int arch, char **cubin,
                                 size_t *cubin_size);

/* ---- testing/compile_batches.c : the compile-everything checks of `make test` (no GPU) */
/* How a batch compiles: for sm_<arch>, with these NVRTC options. */
typedef struct cuarr_compile_options {
  int arch;
  const char *const *options;
  int n_options;
} cuarr_compile_options;
/* Compile items [first, end) as one program; *found: how many of them are in the cubin
 * (counted only when it returns CUARR_OK).  Called from several threads at once. */
typedef cuarr_status (*cuarr_compile_batch_fn)(void *ctx, const cuarr_compile_options *o, int first,
                                               int end, int *found);
/* Compile items 0..n_items-1 in batches [first, batch_end(ctx, first)) on a few threads, in
 * NVRTC's fast-compile mode when it has one; *n_compiled: the items found.  Stops taking
 * batches after the first failure, which it returns (status and message). */
cuarr_status cuarr_compile_batches(int arch, int n_items, int (*batch_end)(void *ctx, int first),
                                   cuarr_compile_batch_fn compile, void *ctx, int *n_compiled);
/* Item i's kernel name into buf. */
typedef void (*cuarr_kernel_name_fn)(void *ctx, int i, char *buf, size_t size);
/* The end of a batch: compile `source` with o, then count in *found the items [first, end)
 * whose kernel (named by name_of) is in the cubin; a missing one is a CUARR_COMPILE_ERROR. */
cuarr_status cuarr_compile_and_count(const char *source, const char *program_name,
                                     const cuarr_compile_options *o, void *ctx, int first, int end,
                                     cuarr_kernel_name_fn name_of, int *found);
/* Whether the extern "C" name `name` (a whole name) is in the cubin. */
bool cuarr_cubin_has(const char *cubin, size_t size, const char *name);

/* ---- compile/module_cache.c (module_cache.h has the modules themselves) */
/* The kernel `kernel_name` (an extern "C" name) of `source`, compiled for the device's own
 * architecture and loaded into its primary context; the module is kept by (device, source,
 * options), so the second call compiles nothing.  Thread-safe. */
cuarr_status cuarr_kernel_get(int device, const char *source, const char *kernel_name,
                              const char *const *options, int n_options, CUfunction *out);

/* ---- compile/launch.c */
/* Launch as a programmatic dependent of the work before it on the stream (Hopper and newer):
 * the kernel may be scheduled while its predecessor finishes, so it must begin with
 * `griddepcontrol.wait` before touching memory (the elementwise, reduction and scan kernels do).
 * Falls back to a plain launch on older devices. */
cuarr_status cuarr_launch_dependent(int device, CUfunction f, unsigned grid, unsigned block,
                                    unsigned shared_bytes, CUstream stream, void **args);
/* The same with a 2-D grid and 2-D blocks. */
cuarr_status cuarr_launch_dependent_2d(int device, CUfunction f, unsigned grid_x, unsigned grid_y,
                                       unsigned block_x, unsigned block_y, unsigned shared_bytes,
                                       CUstream stream, void **args);
/* cuLaunchKernel with the status checked (a plain launch, in stream order). */
cuarr_status cuarr_launch(CUfunction f, unsigned grid, unsigned block, unsigned shared_bytes,
                          CUstream stream, void **args);

/* ---- array/iter.c : the one iterator (broadcast, flip, sort, collapse, place, pack) */
#include "array/iter.h"

/* ---- array/layout.c */
/* The lowest and one-past-highest byte offsets (from buf->ptr) the array touches. */
void cuarr_array_extent(const cuarr_array *a, int64_t *lo, int64_t *hi);

/* ---- copy/host_copy.c : C loops for host arrays (no CUDA) */
cuarr_status cuarr_host_copy(const cuarr_array *dst, const cuarr_array *src);
cuarr_status cuarr_host_fill(const cuarr_array *dst, cuarr_scalar value);
cuarr_status cuarr_host_fill_linear(const cuarr_array *dst, cuarr_scalar start, cuarr_scalar step,
                                    bool last_is_stop, cuarr_scalar stop);

/* ---- copy/copy_kernels.c : generated device kernels (from kernels/) */
/* Same device; src broadcast to dst's shape.  Overlapping operands of different layouts are
 * copied through a temporary. */
cuarr_status cuarr_device_copy(cuarr_context *ctx, const cuarr_array *dst, const cuarr_array *src);
/* The same with src on another device whose memory dst's device may read (cuarr_peer_enable
 * said so): one launch on dst's device reads src where it is, any layout and dtype. */
cuarr_status cuarr_device_copy_from_peer(cuarr_context *ctx, const cuarr_array *dst,
                                         const cuarr_array *src);
cuarr_status cuarr_device_fill(cuarr_context *ctx, const cuarr_array *dst, cuarr_scalar value);
cuarr_status cuarr_device_fill_linear(cuarr_context *ctx, const cuarr_array *dst,
                                      cuarr_scalar start, cuarr_scalar step, bool last_is_stop,
                                      cuarr_scalar stop);
/* For `make test`: compile (NVRTC only, no GPU) every copy/fill/linear kernel variant the
 * generator can produce for sm_<arch>; returns how many compiled, fails on the first error. */
cuarr_status cuarr_copy_kernels_compile_all(int arch, int *n_compiled);

/* ---- copy/deferred.c */
/* Wait for the asynchronous transfers still using b (a pinned host buffer) to finish. */
void cuarr_defer_wait_for(const cuarr_buffer *b);
/* Wait for every asynchronous transfer still holding a pinned buffer, and drop those holds. */
void cuarr_defer_drain(void);

/* ---- memory/buffer.c */
/* Free the buffer structs kept for reuse (the next buffers malloc theirs again). */
void cuarr_buffer_release_spares(void);

/* ---- operands after an allocation.  An allocation that does not fit runs the context's reclaim
 * hook before it retries (the Lua binding's is a full garbage collection, whose finalizers may
 * call x:free() on any array), so an operand that was live before it may be freed after it, its
 * memory perhaps the new allocation's.  Data pointers read before an allocation are used only
 * after the operands are checked again; cuarr_array_check_live errors name the freed array. */
static inline cuarr_status cuarr_still_live(const cuarr_array *a) {
  return a && a->buf && !a->buf->ptr ? cuarr_array_check_live(a) : CUARR_OK;
}
/* The source and the destination of a copy (or a scan's input and output), in that order. */
static inline cuarr_status cuarr_both_still_live(const cuarr_array *a, const cuarr_array *b) {
  cuarr_status s = cuarr_still_live(a);
  return s == CUARR_OK ? cuarr_still_live(b) : s;
}

/* ---- the CUstream of a context (NULL = null stream) and its reclaim hook (none without one) */
static inline CUstream cuarr_ctx_stream(const cuarr_context *ctx) {
  return ctx && ctx->stream ? (CUstream)ctx->stream->handle : NULL;
}
static inline cuarr_reclaim cuarr_ctx_reclaim(const cuarr_context *ctx) {
  cuarr_reclaim none = {NULL, NULL};
  return ctx ? ctx->reclaim : none;
}

/* ---- cuda/context.c */
/* The context's stream for work on `device`; a CUARR_VALUE_ERROR when the context names a
 * stream of another device. */
cuarr_status cuarr_ctx_stream_for(const cuarr_context *ctx, int device, CUstream *out);

/* ---- cuda/graph.c */
/* Captures open on this thread (begun and not yet ended). */
extern _Thread_local int cuarr_captures_open;
/* CUARR_VALUE_ERROR "<what> cannot run during graph capture". */
cuarr_status cuarr_capture_refused(const char *what);
/* A driver call that is no stream operation (an allocation, a free, a module load) made while
 * this thread captures: CUDA's global and thread-local modes would refuse it and invalidate the
 * capture (cuMemAlloc "may be unsafe"), though the pool keeps what it allocates alive for the
 * graph.  cuarr_capture_relax switches this thread to the relaxed mode for the call when a
 * capture is open (else does nothing) and cuarr_capture_restore puts the mode back. */
typedef struct cuarr_capture_mode_saved {
  bool switched;
  CUstreamCaptureMode mode;
} cuarr_capture_mode_saved;
cuarr_capture_mode_saved cuarr_capture_relax(void);
void cuarr_capture_restore(cuarr_capture_mode_saved saved);
/* The check at the top of every synchronising call: one thread-local load. */
#define CUARR_REFUSE_IN_CAPTURE(what)                                                              \
  do {                                                                                             \
    if (cuarr_captures_open)                                                                       \
      return cuarr_capture_refused(what);                                                          \
  } while (0)

#endif
