/*
 * cuarr.h -- the public C API of cuarr's core.
 *
 * The core has no Lua in it: a C or C++ host (a game engine, a simulator) can use device and
 * host arrays, the memory pools, streams and the copy kernels directly.  The Lua binding
 * (src/lua/) is one client of this header.
 *
 * Conventions
 *  - Functions that can fail return a cuarr_status; on failure the message is kept per thread
 *    and read with cuarr_last_error().  Nothing prints, nothing exits.
 *  - Indices, axes and device ordinals are 0-based here (C's and CUDA's); the Lua binding
 *    converts its 1-based ones.
 *  - Strides and offsets are in bytes.
 *  - Device pointers are carried as void * (a CUdeviceptr fits on every 64-bit platform).
 *  - Every function declared here is marked CUARR_API and exported from core.so; nothing else
 *    is (tools/check_exports.sh, run by `make test`, checks both ways).
 */
#ifndef CUARR_H
#define CUARR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared object exports: everything else is built with -fvisibility=hidden, so
 * a host linked with -rdynamic cannot take over the core's internal names, nor they its own. */
#if defined(__GNUC__)
#define CUARR_API __attribute__((visibility("default")))
#else
#define CUARR_API
#endif

#define CUARR_VERSION "0.1.0"
#define CUARR_MAXDIM 32
#define CUARR_HOST (-1) /* the "device" of host memory */
/* cuarr sees devices 0 .. CUARR_MAX_DEVICES-1; more are not reported (cuarr_device_count). */
#define CUARR_MAX_DEVICES 64

/* ---------------------------------------------------------------- errors */

typedef enum cuarr_status {
  CUARR_OK = 0,
  CUARR_VALUE_ERROR,
  CUARR_TYPE_ERROR,
  CUARR_INDEX_ERROR,
  CUARR_OUT_OF_MEMORY,
  CUARR_COMPILE_ERROR,
  CUARR_CUDA_ERROR,
  CUARR_NOT_AVAILABLE,
  CUARR_LINALG_ERROR, /* a singular or non-positive-definite matrix, as NumPy's LinAlgError */
  /* Ranks of a communicator that did not meet: one died, did not join in time, or called another
   * collective (torch.distributed's DistBackendError). */
  CUARR_DISTRIBUTED_ERROR,
} cuarr_status;

/* "ValueError", "OutOfMemoryError", ... */
CUARR_API const char *cuarr_status_name(cuarr_status s);
/* The message of the last failure on this thread ("" if none). */
CUARR_API const char *cuarr_last_error(void);
/* Record a failure (printf-style message) and return s, so callers write
 * `return cuarr_fail(CUARR_VALUE_ERROR, "bad shape %d", n);`. */
CUARR_API cuarr_status cuarr_fail(cuarr_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---------------------------------------------------------------- dtypes */

typedef enum cuarr_dtype {
  CUARR_BOOL,
  CUARR_INT8,
  CUARR_INT16,
  CUARR_INT32,
  CUARR_INT64,
  CUARR_UINT8,
  CUARR_UINT16,
  CUARR_UINT32,
  CUARR_UINT64,
  CUARR_FLOAT16,
  CUARR_FLOAT32,
  CUARR_FLOAT64,
  CUARR_NDTYPES
} cuarr_dtype;

CUARR_API size_t cuarr_dtype_size(cuarr_dtype d);
CUARR_API const char *cuarr_dtype_name(cuarr_dtype d);  /* "float32" */
CUARR_API const char *cuarr_dtype_ctype(cuarr_dtype d); /* the type's name in generated CUDA C */
/* Accepts the names above and NumPy's char codes ("?", "b", "h", "i", "l"/"q", "B", "H", "I",
 * "L"/"Q", "e", "f", "d"). */
CUARR_API bool cuarr_dtype_from_name(const char *name, cuarr_dtype *out);
CUARR_API bool cuarr_dtype_is_bool(cuarr_dtype d);
CUARR_API bool cuarr_dtype_is_signed(cuarr_dtype d);   /* signed integers */
CUARR_API bool cuarr_dtype_is_unsigned(cuarr_dtype d); /* unsigned integers */
CUARR_API bool cuarr_dtype_is_integer(cuarr_dtype d);  /* signed or unsigned integers, not bool */
CUARR_API bool cuarr_dtype_is_float(cuarr_dtype d);

/* IEEE half <-> float, round to nearest even (host side). */
CUARR_API uint16_t cuarr_float_to_half(float f);
CUARR_API float cuarr_half_to_float(uint16_t h);

/* A typed scalar: the value of one element, or of a Lua number. */
typedef struct cuarr_scalar {
  cuarr_dtype dtype; /* BOOL uses .b, signed ints .i, unsigned .u, floats .f */
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double f;
  } v;
} cuarr_scalar;

/* Store s converted to dtype `to` at out (cuarr_dtype_size(to) bytes), with cuarr's casting
 * rules: float -> integer saturates and NaN becomes 0; integer -> narrower integer wraps;
 * anything -> bool is (x != 0). */
CUARR_API void cuarr_scalar_store(cuarr_scalar s, cuarr_dtype to, void *out);
/* Read the element of dtype d at p. */
CUARR_API cuarr_scalar cuarr_scalar_load(const void *p, cuarr_dtype d);
/* The one range rule for a scalar given as an element of dtype `to` (a Lua number written into
 * an array: creation, fill, assignment, arange, kernel arguments): an integer scalar that `to`,
 * an integer dtype, cannot hold is CUARR_VALUE_ERROR ("integer 300 out of bounds for int8"), as
 * NumPy 2 refuses it; a signed scalar is always a uint64's 64 bits (-1 is 2^64 - 1, which is
 * how a uint64 element reads back).  Float scalars (saturating into integers) and float or bool
 * dtypes are not checked. */
CUARR_API cuarr_status cuarr_scalar_check_element(cuarr_scalar s, cuarr_dtype to);
/* An integer scalar against an integer dtype's range by value: -1 below it, +1 above, 0 in. */
CUARR_API int cuarr_scalar_range_side(cuarr_scalar s, cuarr_dtype d);
/* The ValueError of an integer scalar out of d's range, naming both. */
CUARR_API cuarr_status cuarr_scalar_out_of_bounds(cuarr_scalar s, cuarr_dtype d);

/* ---------------------------------------------------------------- streams and events */

typedef struct cuarr_stream {
  void *handle; /* CUstream; NULL is the device's null (legacy default) stream */
  int device;
  int priority;
  bool non_blocking;
} cuarr_stream;

typedef struct cuarr_event {
  void *handle; /* CUevent */
  int device;
  bool timing;
  bool blocking;
} cuarr_event;

CUARR_API cuarr_status cuarr_stream_create(int device, bool non_blocking, int priority,
                                           cuarr_stream *out);
/* Idempotent; the null stream is a no-op. */
CUARR_API cuarr_status cuarr_stream_destroy(cuarr_stream *s);
CUARR_API cuarr_status cuarr_stream_synchronize(const cuarr_stream *s);
CUARR_API cuarr_status cuarr_stream_query(const cuarr_stream *s, bool *done);
CUARR_API cuarr_status cuarr_stream_wait_event(const cuarr_stream *s, const cuarr_event *e);
/* Range of stream priorities the device allows (least, greatest). */
CUARR_API cuarr_status cuarr_stream_priority_range(int device, int *least, int *greatest);

CUARR_API cuarr_status cuarr_event_create(int device, bool timing, bool blocking, cuarr_event *out);
CUARR_API cuarr_status cuarr_event_destroy(cuarr_event *e); /* idempotent */
CUARR_API cuarr_status cuarr_event_record(const cuarr_event *e, const cuarr_stream *s);
CUARR_API cuarr_status cuarr_event_synchronize(const cuarr_event *e);
CUARR_API cuarr_status cuarr_event_query(const cuarr_event *e, bool *done);
CUARR_API cuarr_status cuarr_event_elapsed_ms(const cuarr_event *start, const cuarr_event *end,
                                              float *ms);

/* ---------------------------------------------------------------- CUDA graphs */

/* A graph captured from a stream: cuarr_graph_begin_capture starts capturing s (not a null
 * stream) and opens an owning hold on the pool of s's device, so that the memory allocated on s
 * during the capture, and every release of that device's memory meanwhile, stays the graph's
 * until cuarr_graph_free.  cuarr_graph_end_capture ends the capture and instantiates the graph;
 * when the driver invalidated the capture it fails (CUARR_CUDA_ERROR, saying so) with the
 * stream no longer capturing.  Either way g is freed with cuarr_graph_free, which waits for
 * the graph's last launch first (or, called while this thread captures, leaves g to the next
 * cuarr_graph_free or end of capture outside one).
 *
 * While a capture begun on this thread is open, the synchronising calls (stream, event and
 * device synchronisation, transfers through pageable host memory, reading elements) fail with
 * CUARR_VALUE_ERROR "... cannot run during graph capture" before calling the driver.  Begin and
 * end a capture on one thread. */
typedef struct cuarr_graph cuarr_graph;
typedef enum cuarr_capture_mode {
  CUARR_CAPTURE_GLOBAL,
  CUARR_CAPTURE_THREAD_LOCAL,
  CUARR_CAPTURE_RELAXED
} cuarr_capture_mode;
CUARR_API cuarr_status cuarr_graph_begin_capture(const cuarr_stream *s, cuarr_capture_mode mode,
                                                 cuarr_graph **out);
CUARR_API cuarr_status cuarr_graph_end_capture(cuarr_graph *g);
/* s NULL: the null stream of the graph's device. */
CUARR_API cuarr_status cuarr_graph_launch(cuarr_graph *g, const cuarr_stream *s);
CUARR_API cuarr_status cuarr_graph_free(cuarr_graph *g);
/* Whether g is still capturing; its node count once captured. */
CUARR_API bool cuarr_graph_capturing(const cuarr_graph *g);
CUARR_API size_t cuarr_graph_node_count(const cuarr_graph *g);
/* The capture's stream handle (to tell whether a stream is g's). */
CUARR_API void *cuarr_graph_stream(const cuarr_graph *g);
/* Whether a capture begun on this thread is open. */
CUARR_API bool cuarr_capturing(void);

/* ---------------------------------------------------------------- devices and runtime */

/* True when the driver loads, initialises and reports at least one device.  Never fails. */
CUARR_API bool cuarr_is_available(void);
/* Fails with CUARR_NOT_AVAILABLE (naming what is missing) when there is no usable driver. */
CUARR_API cuarr_status cuarr_device_count(int *count);
/* CUARR_VALUE_ERROR unless 0 <= device < count (CUARR_NOT_AVAILABLE without a driver). */
CUARR_API cuarr_status cuarr_device_check(int device);
/* Make the device's primary context current on this thread (retained on first use). */
CUARR_API cuarr_status cuarr_device_activate(int device);
CUARR_API cuarr_status cuarr_device_synchronize(int device);

typedef struct cuarr_device_props {
  char name[256];
  char pci_bus_id[32];
  int major, minor; /* compute capability */
  size_t total_memory;
  int multiprocessors;
  int max_threads_per_block;
  int warp_size;
  size_t l2_cache_bytes;
  size_t shared_memory_per_block;
  int clock_rate_khz;
  int memory_clock_rate_khz;
  int memory_bus_width;
} cuarr_device_props;

CUARR_API cuarr_status cuarr_device_properties(int device, cuarr_device_props *out);
CUARR_API cuarr_status cuarr_device_memory_info(int device, size_t *free_bytes,
                                                size_t *total_bytes);
CUARR_API cuarr_status cuarr_device_can_access_peer(int device, int peer, bool *yes);

typedef struct cuarr_runtime_info {
  int driver_version;       /* 13000 for CUDA 13.0; -1 when no driver */
  int nvrtc_version;        /* major*1000 + minor*10; -1 when NVRTC is not found */
  int cublas_version;       /* cuBLAS's integer version; -1 when cuBLAS is not found */
  int cusolver_version;     /* cuSOLVER's, major*10000 + minor*100 + patch; -1 when not found */
  int nccl_version;         /* NCCL's version code (22809 for 2.28.9); -1 when not found */
  char host_blas[256];      /* the system BLAS cuarr opened for host arrays ("" when none) */
  int device_count;         /* 0 when no driver */
  char driver_missing[256]; /* why the driver is unusable, or "" */
} cuarr_runtime_info;

CUARR_API void cuarr_runtime(cuarr_runtime_info *out); /* never fails */

/* ---------------------------------------------------------------- memory pools */

/* A pool hands out blocks carved from larger raw allocations, as CuPy's pools do: sizes rounded
 * up to 512 bytes, best fit among free chunks, split on reuse and merged with free neighbours
 * on release.  Free chunks are kept per stream: a chunk freed on stream S is handed out again
 * only to allocations on S. */
typedef struct cuarr_pool cuarr_pool;
typedef struct cuarr_block {
  void *ptr;   /* device address (or host address for the pinned pool) */
  size_t size; /* rounded size */
} cuarr_block;

/* Where a pool's raw memory comes from: the driver (cuMemAlloc, cuMemHostAlloc), or anything an
 * embedder supplies. */
typedef struct cuarr_raw_allocator {
  cuarr_status (*alloc)(void *state, size_t size, void **ptr); /* CUARR_OUT_OF_MEMORY if none */
  void (*free)(void *state, void *ptr, size_t size);
  void *state;
} cuarr_raw_allocator;

/* Called when an allocation fails, before retrying once: the client releases what it can (the
 * Lua binding runs a full garbage collection).  May be NULL. */
typedef struct cuarr_reclaim {
  void (*fn)(void *ud);
  void *ud;
} cuarr_reclaim;

/* NULL on malloc failure. */
CUARR_API cuarr_pool *cuarr_pool_new(cuarr_raw_allocator raw, size_t capacity);
/* Releases every cached chunk; blocks in use leak. */
CUARR_API void cuarr_pool_delete(cuarr_pool *p);

/* The process-wide pools (created on first use; NULL with the error set when the device does not
 * exist or the driver is unavailable). */
CUARR_API cuarr_pool *cuarr_device_pool(int device);
CUARR_API cuarr_pool *cuarr_pinned_pool(void);
/* Give back what the memory part caches: every default pool's free blocks (free_all_blocks),
 * once the asynchronous transfers still holding pinned buffers are done, and the recycled
 * buffer structs.  Blocks in use stay.  Safe at any time, from any thread; the Lua binding
 * calls it when the last lua_State with the module open is closed. */
CUARR_API void cuarr_release_cached_memory(void);

/* Allocate size bytes (0 is allowed and yields a 512-byte block) for use on `stream` (the handle;
 * NULL for the null stream).  On failure: free cached blocks, call reclaim, retry; then
 * CUARR_OUT_OF_MEMORY with requested size, bytes in use and the limit in the message. */
CUARR_API cuarr_status cuarr_pool_alloc(cuarr_pool *p, size_t size, void *stream,
                                        cuarr_reclaim reclaim, cuarr_block **out);
/* Return a block; its memory may be handed out again at once to work on the same stream. */
CUARR_API void cuarr_pool_free(cuarr_pool *p, cuarr_block *b, void *stream);

CUARR_API size_t cuarr_pool_used_bytes(cuarr_pool *p);  /* in blocks handed out */
CUARR_API size_t cuarr_pool_total_bytes(cuarr_pool *p); /* held from the raw allocator */
CUARR_API size_t cuarr_pool_free_bytes(cuarr_pool *p);  /* total - used */
CUARR_API size_t cuarr_pool_n_free_blocks(cuarr_pool *p);
/* Give back to the raw allocator every raw allocation that is wholly free (whichever streams
 * its free chunks are kept for). */
CUARR_API void cuarr_pool_free_all_blocks(cuarr_pool *p);
CUARR_API void cuarr_pool_set_limit(cuarr_pool *p, size_t limit); /* 0: no limit */
CUARR_API size_t cuarr_pool_get_limit(cuarr_pool *p);
/* E.g. the device's total memory; 0 if unknown. */
CUARR_API size_t cuarr_pool_capacity(cuarr_pool *p);
/* Bytes in blocks released but held back by holds (counted in used_bytes too). */
CUARR_API size_t cuarr_pool_held_bytes(cuarr_pool *p);

/* Holds: releases of a pool's memory held back out of its free lists.  While a hold is open,
 * every block given back to the pool (by any thread or Lua state: holds are per pool, and so
 * process-wide for the default pools) goes to the innermost open hold instead of the free
 * lists, and stays counted in use.  An owning hold (a captured graph's) also owns the blocks
 * allocated on `stream` while it is open: whenever one of them is given back before the hold is
 * released, it is held.  cuarr_hold_end stops a hold taking releases (it keeps what it holds);
 * cuarr_hold_release ends it, gives back what it holds (to the next open hold if one is open,
 * else to the free lists of the streams they were released on), lets go of the blocks it owns
 * and frees it.  Release every hold before cuarr_pool_delete. */
typedef struct cuarr_hold cuarr_hold;
CUARR_API cuarr_status cuarr_hold_begin(cuarr_pool *p, bool owning, void *stream, cuarr_hold **out);
CUARR_API void cuarr_hold_end(cuarr_hold *h);
CUARR_API void cuarr_hold_release(cuarr_hold *h);
CUARR_API size_t cuarr_hold_held_bytes(cuarr_hold *h);

/* ---------------------------------------------------------------- buffers and arrays */

/* A reference-counted allocation.  Every array is a view of one. */
typedef struct cuarr_buffer cuarr_buffer;
struct cuarr_buffer {
  long refs; /* atomically updated through retain/release */
  void *ptr; /* NULL once freed */
  size_t nbytes;
  int device;  /* CUDA ordinal, or CUARR_HOST */
  bool pinned; /* host memory that is page-locked */
  /* Gives ptr back to where it came from (pool, malloc, the embedder); NULL: nothing to do. */
  void (*release)(cuarr_buffer *b);
  void *release_state;
  void *stream; /* stream handle the memory was allocated on (its pool chunk is kept there) */
};

/* Host memory from malloc (pinned=false) or the pinned pool (pinned=true). */
CUARR_API cuarr_status cuarr_buffer_new_host(size_t nbytes, bool pinned, cuarr_reclaim reclaim,
                                             cuarr_buffer **out);
/* Device memory from the device's pool, for use on stream (a handle, or NULL). */
CUARR_API cuarr_status cuarr_buffer_new_device(int device, size_t nbytes, void *stream,
                                               cuarr_reclaim reclaim, cuarr_buffer **out);
/* Wrap memory the caller owns (zero-copy).  release (may be NULL) is called once with the
 * buffer when the last reference goes or on cuarr_buffer_free. */
CUARR_API cuarr_status cuarr_buffer_wrap(void *ptr, size_t nbytes, int device, bool pinned,
                                         void (*release)(cuarr_buffer *b), void *release_state,
                                         cuarr_buffer **out);
CUARR_API void cuarr_buffer_retain(cuarr_buffer *b);
CUARR_API void cuarr_buffer_release(cuarr_buffer *b); /* frees the struct at refs 0 */
/* Give the memory back now; every view of it sees ptr == NULL afterwards.  Idempotent. */
CUARR_API void cuarr_buffer_free(cuarr_buffer *b);
/* Page-lock a host buffer's bytes for as long as the caller needs (cuMemHostRegister, portable)
 * and mark it pinned, so that transfers take the asynchronous path.  *registered says whether
 * this call registered it: false for an empty buffer or one pinned already (the pinned pool's, an
 * outer registration), which the caller must then leave alone.  A device buffer is a
 * CUARR_TYPE_ERROR. */
CUARR_API cuarr_status cuarr_buffer_pin(cuarr_buffer *b, bool *registered);
/* Undo a registration cuarr_buffer_pin made: wait for the transfers still using the buffer, mark
 * it pageable and unregister ptr (the address pinned, given again since a buffer freed in the
 * meantime no longer has it). */
CUARR_API cuarr_status cuarr_buffer_unpin(cuarr_buffer *b, void *ptr);
/* What the driver knows of a device address: its device and the allocation holding it (start,
 * size).  CUARR_VALUE_ERROR when it is not device memory the driver knows. */
CUARR_API cuarr_status cuarr_pointer_range(uintptr_t ptr, int *device, uintptr_t *start,
                                           size_t *size);

typedef struct cuarr_array {
  cuarr_buffer *buf; /* one reference held per array value that owns it */
  cuarr_dtype dtype;
  int ndim;
  int64_t offset; /* bytes from buf->ptr to the first element */
  int64_t shape[CUARR_MAXDIM];
  int64_t strides[CUARR_MAXDIM];
  /* NumPy's writeable flag, inverted so that a zeroed array is writeable: set on broadcast
   * views (cuarr_view_broadcast) and on what a producer exports read-only; every view copies
   * it, and every write into the array fails (cuarr_array_check_writeable). */
  bool readonly;
} cuarr_array;

CUARR_API int64_t cuarr_array_size(const cuarr_array *a);
CUARR_API int cuarr_array_device(const cuarr_array *a); /* CUARR_HOST for host arrays */
CUARR_API bool cuarr_array_is_c_contiguous(const cuarr_array *a);
CUARR_API bool cuarr_array_is_f_contiguous(const cuarr_array *a);
/* Address of the first element (host pointer or device address); NULL if freed. */
CUARR_API void *cuarr_array_data(const cuarr_array *a);
/* Fails with CUARR_VALUE_ERROR "array has been freed" if the buffer was freed. */
CUARR_API cuarr_status cuarr_array_check_live(const cuarr_array *a);
/* Fails with CUARR_VALUE_ERROR "assignment destination is read-only" (NumPy's words) when a is a
 * given destination (a->buf != NULL) marked read-only.  Every function that writes into an array
 * it did not allocate calls it before it touches anything. */
CUARR_API cuarr_status cuarr_array_check_writeable(const cuarr_array *a);
/* NumPy's a.setflags(write=...): read-only is always allowed; writeable again only where the
 * memory's owner is: base is the array whose memory a views (NULL when a owns it), foreign_base
 * says a views a producer's memory (which stays as the producer exported it), and a view with a
 * stride-0 axis of extent > 1 (broadcast) stays read-only.  CUARR_VALUE_ERROR otherwise. */
CUARR_API cuarr_status cuarr_array_set_writeable(cuarr_array *a, bool writeable,
                                                 const cuarr_array *base, bool foreign_base);

/* Check a shape (ndim <= CUARR_MAXDIM, no negative extents, the product of the nonzero
 * extents * itemsize fits in int64, so that every stride computed from it does) and return the
 * element count (size may be NULL). */
CUARR_API cuarr_status cuarr_shape_check(int ndim, const int64_t *shape, cuarr_dtype dtype,
                                         int64_t *size);
/* C-order strides for shape (one cuarr_shape_check accepts: others overflow). */
CUARR_API void cuarr_strides_c(int ndim, const int64_t *shape, size_t itemsize, int64_t *strides);
/* Fortran-order strides for shape: itemsize times the product of the earlier extents. */
CUARR_API void cuarr_strides_f(int ndim, const int64_t *shape, size_t itemsize, int64_t *strides);
/* Contiguous strides for a's shape that visit memory in the order a's strides do (NumPy's
 * order 'K'): axes sorted by decreasing |stride|, ties kept in C order. */
CUARR_API void cuarr_strides_keep(const cuarr_array *a, size_t itemsize, int64_t *strides);
/* Whether a's elements fill one block of bytes in some order of its axes (C, F or another): its
 * strides are cuarr_strides_keep's (axes of extent 1 may have any).  Empty arrays are. */
CUARR_API bool cuarr_array_is_dense(const cuarr_array *a);
/* Whether a and b have the same ndim and extents. */
CUARR_API bool cuarr_array_same_shape(const cuarr_array *a, const cuarr_array *b);
/* Whether the byte ranges the two arrays span may overlap (NumPy's may_share_memory): absolute
 * addresses are compared, so memory wrapped twice counts; interleaved views (a[::2], a[1::2])
 * count too.  False for an empty or freed array and for arrays of two devices. */
CUARR_API bool cuarr_array_may_overlap(const cuarr_array *a, const cuarr_array *b);

/* A new C-contiguous array (uninitialised) on device (CUARR_HOST for host memory).  pinned
 * applies to host arrays.  The array holds the only reference to its new buffer. */
CUARR_API cuarr_status cuarr_array_empty(int device, cuarr_dtype dtype, int ndim,
                                         const int64_t *shape, bool pinned, void *stream,
                                         cuarr_reclaim reclaim, cuarr_array *out);
/* Drop the array's buffer reference (the array value becomes empty). */
CUARR_API void cuarr_array_release(cuarr_array *a);
/* out = a as another value sharing a's buffer (retains it). */
CUARR_API void cuarr_array_share(const cuarr_array *a, cuarr_array *out);

/* Views: out shares a's buffer (retained).  On failure out is untouched. */
/* Reshape without copying when the strides allow it; *needs_copy = false then.  When a view is
 * impossible, nothing is retained and *needs_copy = true (the caller copies a into a new
 * C-contiguous array of that shape).  One extent may be -1. */
CUARR_API cuarr_status cuarr_view_reshape(const cuarr_array *a, int ndim, const int64_t *shape,
                                          cuarr_array *out, bool *needs_copy);
CUARR_API cuarr_status cuarr_view_transpose(const cuarr_array *a,
                                            const int *perm /* NULL: reverse */, cuarr_array *out);
CUARR_API cuarr_status cuarr_view_swapaxes(const cuarr_array *a, int axis1, int axis2,
                                           cuarr_array *out);
/* axis < 0: every axis of extent 1; else that axis (must have extent 1). */
CUARR_API cuarr_status cuarr_view_squeeze(const cuarr_array *a, int axis, cuarr_array *out);
/* Insert an axis of extent 1 at position axis (0..ndim). */
CUARR_API cuarr_status cuarr_view_expand_dims(const cuarr_array *a, int axis, cuarr_array *out);
/* Keep `count` elements along axis, starting at start (0-based, in range), every step-th
 * (step != 0, may be negative). */
CUARR_API cuarr_status cuarr_view_slice(const cuarr_array *a, int axis, int64_t start,
                                        int64_t count, int64_t step, cuarr_array *out);
/* Select index i (0-based, in range) along axis, removing the axis. */
CUARR_API cuarr_status cuarr_view_select(const cuarr_array *a, int axis, int64_t i,
                                         cuarr_array *out);
/* Broadcast a to shape (NumPy rules), using stride 0 on the new or extent-1 axes. */
CUARR_API cuarr_status cuarr_view_broadcast(const cuarr_array *a, int ndim, const int64_t *shape,
                                            cuarr_array *out);

/* ---------------------------------------------------------------- copies and fills */

/* The context of a call: the stream to queue work on and how to reclaim memory. */
typedef struct cuarr_context {
  cuarr_stream *stream; /* NULL: the null stream of the array's device */
  cuarr_reclaim reclaim;
} cuarr_context;

/* dst[...] = src, src broadcast to dst's shape, converting dtype with the casting rules of
 * cuarr_scalar_store.  Works for every placement: host->host, device->same device (a kernel),
 * host<->device (staged through the pinned pool when the host side is pageable), device->other
 * device (peer copy).  Copies that involve pageable host memory have completed on return; the
 * others are queued on the stream.  Overlapping dst and src are handled. */
CUARR_API cuarr_status cuarr_copy(cuarr_context *ctx, const cuarr_array *dst,
                                  const cuarr_array *src);
/* The value of a one-element array (CUARR_VALUE_ERROR otherwise); for a device array this
 * waits for the work queued on ctx's stream, reads the element and returns it. */
CUARR_API cuarr_status cuarr_read_item(cuarr_context *ctx, const cuarr_array *a, cuarr_scalar *out);
/* Every element of dst = value (converted). */
CUARR_API cuarr_status cuarr_fill(cuarr_context *ctx, const cuarr_array *dst, cuarr_scalar value);
/* dst (1-D) element k = start + k * step, computed in double (float dtypes) or int64 (integer
 * dtypes) and converted; if last_is_stop, the final element is `stop` exactly (linspace). */
CUARR_API cuarr_status cuarr_fill_linear(cuarr_context *ctx, const cuarr_array *dst,
                                         cuarr_scalar start, cuarr_scalar step, bool last_is_stop,
                                         cuarr_scalar stop);

/* ---------------------------------------------------------------- type promotion */

/* NumPy 2's promotion (NEP 50) of two operands.  A weak operand is a Lua number: it has a kind
 * (bool, integer, float) but gives way to the other operand's dtype within that kind
 * (int8 array + 3 -> int8; float32 array + 2.5 -> float32); of a higher kind, it takes
 * weak_float_dtype (int8 array + 2.5 -> weak_float_dtype, the binding's default float dtype). */
CUARR_API cuarr_status cuarr_promote(cuarr_dtype a, bool a_weak, cuarr_dtype b, bool b_weak,
                                     cuarr_dtype weak_float_dtype, cuarr_dtype *out);

/* NumPy 2's result_type of n >= 1 operands at once (not folded pairwise, which depends on their
 * order: uint8, int8, float16 is float16).  weak[i] (weak may be NULL: none) marks a Lua number,
 * as in cuarr_promote.  Every n-ary operation (ufuncs, concatenate and the stacks, select)
 * takes its dtype here. */
CUARR_API cuarr_status cuarr_result_type(int n, const cuarr_dtype *dtypes, const bool *weak,
                                         cuarr_dtype weak_float_dtype, cuarr_dtype *out);

/* ---------------------------------------------------------------- elementwise operations */

/* An operand of an elementwise call: an array, or a scalar broadcast everywhere.  A weak
 * scalar is a Lua number (NEP 50: its dtype gives way to the arrays'). */
typedef struct cuarr_operand {
  const cuarr_array *array; /* NULL: the scalar */
  cuarr_scalar scalar;
  bool weak;
} cuarr_operand;

/* The built-in ufuncs (add, exp, maximum, where, ...). */
typedef struct cuarr_ufunc cuarr_ufunc;
/* NULL if there is no ufunc of that name. */
CUARR_API const cuarr_ufunc *cuarr_ufunc_find(const char *name);
CUARR_API const char *cuarr_ufunc_name(const cuarr_ufunc *u);
CUARR_API int cuarr_ufunc_nin(const cuarr_ufunc *u);
CUARR_API int cuarr_ufunc_nout(const cuarr_ufunc *u); /* 1 for every built-in */
/* The ufunc's i-th entry (0 <= i < cuarr_ufunc_count()), for listing them all. */
CUARR_API int cuarr_ufunc_count(void);
CUARR_API const cuarr_ufunc *cuarr_ufunc_at(int i);

/* Resolve the dtypes of a call: the dtype the inputs are converted to for the computation and
 * the output's dtype.  Fails with CUARR_TYPE_ERROR when the ufunc has no loop for them (bitwise
 * ops on floats, ...) and CUARR_VALUE_ERROR for a weak integer that does not fit the array's
 * dtype (uint8 array + 300), as NumPy 2 does. */
CUARR_API cuarr_status cuarr_ufunc_resolve(const cuarr_ufunc *u, const cuarr_operand *in,
                                           cuarr_dtype weak_float_dtype, cuarr_dtype *compute,
                                           cuarr_dtype *out_dtype);

/* A call resolved to its loop, for code generators that compute a ufunc inside a kernel of
 * their own (cuarr.fuse): each input's dtype in the loop (the comparisons' int64 x uint64 loops
 * take two), the output's dtype, the loop's scalar function in kernels/include/ufunc_math.cuh
 * (`cuarr_uf_less_equal_uint8`: the ufunc may differ from u where a weak integer out of range
 * decides a comparison, uint8 < 300 running as uint8 <= 255) and the scalar inputs converted
 * (and clamped) to their loop dtypes.  The same errors as cuarr_ufunc_resolve. */
typedef struct cuarr_ufunc_loop {
  cuarr_dtype in[3];
  cuarr_dtype out;
  const char *function;
  cuarr_scalar scalar[3];
} cuarr_ufunc_loop;
CUARR_API cuarr_status cuarr_ufunc_resolve_loop(const cuarr_ufunc *u, const cuarr_operand *in,
                                                cuarr_dtype weak_float_dtype,
                                                cuarr_ufunc_loop *loop);

/* out = u(in...), broadcasting the inputs.  Every array must be on `device` (CUARR_HOST: host
 * loops, else a kernel on ctx's stream).  *out is either given or allocated here (out->buf ==
 * NULL on entry).  A given output's shape must be the broadcast shape (it is never stretched),
 * and the resolved output dtype must cast to its dtype under NumPy's 'same_kind' rule (a cast
 * within a kind or to a later one of bool, unsigned, signed, float: an int64 result may go into
 * an int8 array, wrapping, a float result not into an integer one; CUARR_TYPE_ERROR otherwise).
 * The computation runs in the resolved dtypes and the result is converted as it is stored.  A
 * given output may alias an input.  On failure nothing is written and *out is as it was. */
CUARR_API cuarr_status cuarr_ufunc_call(cuarr_context *ctx, const cuarr_ufunc *u, int device,
                                        const cuarr_operand *in, cuarr_dtype weak_float_dtype,
                                        cuarr_array *out);

/* User elementwise kernels with CuPy's semantics: cuarr_elementwise_kernel_new("float32 x, T y",
 * "T z", "z = x + y", "my_add", ...).  Device only. */
typedef struct cuarr_elementwise_kernel cuarr_elementwise_kernel;
typedef struct cuarr_elementwise_kernel_options {
  const char *preamble;       /* code at file scope before the kernel (may be NULL) */
  const char *loop_prep;      /* code before the loop */
  const char *after_loop;     /* code after the loop */
  const char *const *options; /* extra NVRTC options */
  int n_options;
} cuarr_elementwise_kernel_options;
/* Parses the parameter lists (CUARR_VALUE_ERROR on a syntax error, an unknown type that is not
 * a placeholder, a duplicate name); compiles nothing yet. */
CUARR_API cuarr_status cuarr_elementwise_kernel_new(const char *in_params, const char *out_params,
                                                    const char *operation, const char *name,
                                                    const cuarr_elementwise_kernel_options *opts,
                                                    cuarr_elementwise_kernel **out);
CUARR_API void cuarr_elementwise_kernel_free(cuarr_elementwise_kernel *k);
CUARR_API int cuarr_elementwise_kernel_nin(const cuarr_elementwise_kernel *k);
CUARR_API int cuarr_elementwise_kernel_nout(const cuarr_elementwise_kernel *k);
/* Run it: args are nin inputs then nout outputs; outputs[j] given (buf != NULL) or allocated
 * here (buf == NULL).  Placeholder types are bound from the arguments as CuPy binds them.
 * size >= 0 gives the index space when every input is raw (else it must be -1); outputs not
 * given are then made with shape (size,). */
CUARR_API cuarr_status cuarr_elementwise_kernel_call(cuarr_context *ctx,
                                                     cuarr_elementwise_kernel *k, int device,
                                                     const cuarr_operand *in, cuarr_array *outputs,
                                                     int64_t size, cuarr_dtype weak_float_dtype);

/* ---------------------------------------------------------------- reductions and scans */

/* The built-in reductions.  NumPy's semantics: min/max propagate NaN, nanmin/nanmax skip it
 * (an all-NaN slice gives NaN), argmin/argmax give the first extreme (the first NaN when there
 * is one), nansum/nanprod count NaN as 0/1; all/any/count_nonzero test x != 0. */
typedef enum cuarr_reduce_op {
  CUARR_REDUCE_SUM,
  CUARR_REDUCE_PROD,
  CUARR_REDUCE_MIN,
  CUARR_REDUCE_MAX,
  CUARR_REDUCE_ARGMIN,
  CUARR_REDUCE_ARGMAX,
  CUARR_REDUCE_ALL,
  CUARR_REDUCE_ANY,
  CUARR_REDUCE_COUNT_NONZERO,
  CUARR_REDUCE_NANSUM,
  CUARR_REDUCE_NANPROD,
  CUARR_REDUCE_NANMIN,
  CUARR_REDUCE_NANMAX,
  CUARR_NREDUCE_OPS
} cuarr_reduce_op;

/* "sum", "argmax", ... */
CUARR_API const char *cuarr_reduce_op_name(cuarr_reduce_op op);
/* Whether the op has an identity (reducing nothing gives it): false for min, max, arg... */
CUARR_API bool cuarr_reduce_op_has_identity(cuarr_reduce_op op);

typedef struct cuarr_reduce_args {
  uint64_t axes;      /* bit k: axis k is reduced (0-based; ~0 for every axis) */
  bool keepdims;      /* reduced axes stay, with extent 1 */
  int dtype;          /* -1: NumPy's default; else the cuarr_dtype of the result (and of the
                         accumulator, except that float16 accumulates in float32) */
  int64_t index_base; /* added to argmin/argmax results (the Lua binding passes 1) */
} cuarr_reduce_args;

/* The accumulator and result dtypes of op over an input of dtype `in` (NumPy's rules: sums and
 * products of bool and integers widen to int64 (uint64 for unsigned ones), float16 accumulates
 * in float32; min/max keep the dtype; arg ops and count_nonzero give int64; all/any bool).
 * dtype >= 0 asks for that result dtype (CUARR_TYPE_ERROR for ops that take none). */
CUARR_API cuarr_status cuarr_reduce_resolve(cuarr_reduce_op op, cuarr_dtype in, int dtype,
                                            cuarr_dtype *acc, cuarr_dtype *out_dtype);

/* out = op(in) over args->axes.  *out is given (out->buf != NULL: its shape must be the result's,
 * with or without the reduced axes as keepdims says; any dtype the result casts to) or
 * allocated here.  On the device, nothing is synchronised: a full reduction is a 0-d device
 * array.  CUARR_VALUE_ERROR for an op without identity over an empty axis (when there are
 * results), for an axis out of range or repeated, and for arg ops over several (not all) axes. */
CUARR_API cuarr_status cuarr_reduce(cuarr_context *ctx, cuarr_reduce_op op, const cuarr_array *in,
                                    const cuarr_reduce_args *args, cuarr_array *out);

/* Cumulative sums and products along an axis. */
typedef enum cuarr_scan_op { CUARR_SCAN_CUMSUM, CUARR_SCAN_CUMPROD, CUARR_NSCAN_OPS } cuarr_scan_op;

/* out = the running op of in along axis (0-based; -1: over the flattened array, C order, out
 * 1-D).  dtype as for cuarr_reduce_resolve's sums (-1: NumPy's default).  out given (its shape
 * must be in's, or (size,) for axis -1; it may be in itself) or allocated here. */
CUARR_API cuarr_status cuarr_scan(cuarr_context *ctx, cuarr_scan_op op, const cuarr_array *in,
                                  int axis, int dtype, cuarr_array *out);

/* User reduction kernels with CuPy's semantics:
 *   cuarr_reduction_kernel_new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm", NULL)
 * map_expr maps the inputs (variables named as the parameters; raw ones are arrays indexed
 * by the expression; `_i` is the output's index and `_j` the element's index over the reduced
 * axes), reduce_expr combines `a` and `b` of the reduce type (`_type_reduce`), post_map_expr
 * sets the output variable from `a`.  identity: a C expression, or NULL/"" for none (the
 * first value seeds the reduction; reducing nothing is then an error).  Exactly one output
 * parameter.  Device only. */
typedef struct cuarr_reduction_kernel cuarr_reduction_kernel;
typedef struct cuarr_reduction_kernel_options {
  const char *reduce_type; /* a dtype name or a placeholder; NULL: the output's type */
  const char *preamble;
  const char *const *options; /* extra NVRTC options */
  int n_options;
} cuarr_reduction_kernel_options;
CUARR_API cuarr_status cuarr_reduction_kernel_new(const char *in_params, const char *out_params,
                                                  const char *map_expr, const char *reduce_expr,
                                                  const char *post_map_expr, const char *identity,
                                                  const char *name,
                                                  const cuarr_reduction_kernel_options *opts,
                                                  cuarr_reduction_kernel **out);
CUARR_API void cuarr_reduction_kernel_free(cuarr_reduction_kernel *k);
CUARR_API int cuarr_reduction_kernel_nin(const cuarr_reduction_kernel *k);
/* Reduce the inputs (non-raw arrays broadcast together) over `axes` (bit k: axis k of the
 * broadcast shape; ~0: all) into *out, given (buf != NULL: the result's shape, its dtype binds
 * the output's type) or allocated here. */
CUARR_API cuarr_status cuarr_reduction_kernel_call(cuarr_context *ctx, cuarr_reduction_kernel *k,
                                                   int device, const cuarr_operand *in,
                                                   uint64_t axes, bool keepdims,
                                                   cuarr_dtype weak_float_dtype, cuarr_array *out);

/* ---------------------------------------------------------------- raw kernels */

/* A user's CUDA C program (or a cubin, PTX or fatbin image) whose __global__ functions are
 * launched as written, CuPy's RawModule.  A module from source compiles for each device's own
 * architecture on first use there (or on cuarr_raw_module_compile), through the kernel cache.
 * Its kernels' parameter lists are learnt from the compiler and the driver, so that every
 * launch checks its arguments against them.  Reference-counted; thread-safe. */
typedef struct cuarr_raw_module cuarr_raw_module;
typedef struct cuarr_raw_kernel cuarr_raw_kernel;

typedef struct cuarr_raw_module_options {
  const char *const *options; /* NVRTC options (strings without NUL bytes) */
  int n_options;
  /* Name expressions ("scale<float>", "&ns::f"): templates and C++ names the module's
   * get_function finds by these spellings. */
  const char *const *name_expressions;
  int n_name_expressions;
} cuarr_raw_module_options;

typedef enum cuarr_raw_image_kind {
  CUARR_RAW_SOURCE, /* CUDA C (a .cu file) */
  CUARR_RAW_CUBIN,
  CUARR_RAW_PTX,
  CUARR_RAW_FATBIN,
} cuarr_raw_image_kind;

/* A module of CUDA C source; nothing is compiled yet.  opts may be NULL. */
CUARR_API cuarr_status cuarr_raw_module_from_source(const char *source,
                                                    const cuarr_raw_module_options *opts,
                                                    cuarr_raw_module **out);
/* A module of a file: .cu (source; opts apply), .cubin, .ptx or .fatbin (loaded as they are;
 * opts must name nothing).  Another extension is a CUARR_VALUE_ERROR. */
CUARR_API cuarr_status cuarr_raw_module_from_file(const char *path,
                                                  const cuarr_raw_module_options *opts,
                                                  cuarr_raw_module **out);
CUARR_API void cuarr_raw_module_retain(cuarr_raw_module *m);
CUARR_API void cuarr_raw_module_release(cuarr_raw_module *m); /* NULL is a no-op */
/* Compile (or load) the module for device now. */
CUARR_API cuarr_status cuarr_raw_module_compile(cuarr_raw_module *m, int device);
/* Compile a module of CUDA C source for sm_<arch> with NVRTC and drop the result: a compile
 * check that needs no device. */
CUARR_API cuarr_status cuarr_raw_module_check_compile(const cuarr_raw_module *m, int arch);
/* The kernel `name` (an extern "C" name, or one of the module's name expressions) on device,
 * compiled there first when needed.  The kernel holds a reference to its module; free it with
 * cuarr_raw_kernel_free. */
CUARR_API cuarr_status cuarr_raw_module_get_function(cuarr_raw_module *m, int device,
                                                     const char *name, cuarr_raw_kernel **out);
/* The device address and size of the __device__ or __constant__ variable `name` (an extern "C"
 * name or a name expression); the memory lives as long as the process. */
CUARR_API cuarr_status cuarr_raw_module_get_global(cuarr_raw_module *m, int device,
                                                   const char *name, void **ptr, size_t *bytes);

CUARR_API void cuarr_raw_kernel_free(cuarr_raw_kernel *k); /* NULL is a no-op */
CUARR_API const char *cuarr_raw_kernel_name(const cuarr_raw_kernel *k);
CUARR_API int cuarr_raw_kernel_device(const cuarr_raw_kernel *k);

/* What a parameter is known to be. */
typedef enum cuarr_raw_param_kind {
  CUARR_RAW_PARAM_BOOL,
  CUARR_RAW_PARAM_SIGNED,
  CUARR_RAW_PARAM_UNSIGNED,
  CUARR_RAW_PARAM_FLOAT,   /* float, double, __half */
  CUARR_RAW_PARAM_POINTER, /* passed an array */
  CUARR_RAW_PARAM_OTHER,   /* a class, a reference...: no Lua value is one */
  CUARR_RAW_PARAM_SIZED,   /* only its size is known (a binary module, or no signature) */
} cuarr_raw_param_kind;

typedef struct cuarr_raw_param {
  cuarr_raw_param_kind kind;
  int size;         /* bytes */
  int offset;       /* bytes into the parameter buffer */
  int pointee;      /* a pointer's element dtype (cuarr_dtype), -1: any array */
  char spelled[40]; /* "const double*", "int"; "8 bytes" when only the size is known */
} cuarr_raw_param;

/* The number of parameters, -1 when the kernel's parameter list could not be learnt (a driver
 * older than CUDA 12.4 with a binary module): its launches are refused. */
CUARR_API int cuarr_raw_kernel_n_params(const cuarr_raw_kernel *k);
CUARR_API cuarr_status cuarr_raw_kernel_param(const cuarr_raw_kernel *k, int i,
                                              cuarr_raw_param *out);

typedef struct cuarr_raw_kernel_attributes {
  int max_threads_per_block, shared_size_bytes, const_size_bytes, local_size_bytes, num_regs,
      ptx_version, binary_version, cache_mode_ca, max_dynamic_shared_size_bytes,
      preferred_shared_memory_carveout;
} cuarr_raw_kernel_attributes;
CUARR_API cuarr_status cuarr_raw_kernel_attributes_get(const cuarr_raw_kernel *k,
                                                       cuarr_raw_kernel_attributes *out);
/* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): later launches may use that much. */
CUARR_API cuarr_status cuarr_raw_kernel_set_max_dynamic_shared(cuarr_raw_kernel *k, int bytes);

/* Later launches of k are programmatic dependent launches where the device allows them (sm_90
 * and newer): the kernel may start while the work before it on the stream finishes, so it must
 * execute `griddepcontrol.wait` (cudaGridDependencySynchronize()) before it touches memory
 * that work reads or writes.  Off by default; a NULL k is a no-op. */
CUARR_API void cuarr_raw_kernel_set_dependent_launch(cuarr_raw_kernel *k, bool on);

/* An argument of a launch: an array (passed as a pointer to its first element), or a value
 * converted to the parameter's own type (a range error rather than a wrap or a truncation). */
typedef enum cuarr_raw_arg_kind {
  CUARR_RAW_ARG_ARRAY,
  CUARR_RAW_ARG_INTEGER,
  CUARR_RAW_ARG_FLOAT,
  CUARR_RAW_ARG_BOOL,
} cuarr_raw_arg_kind;
typedef struct cuarr_raw_arg {
  cuarr_raw_arg_kind kind;
  union {
    const cuarr_array *array;
    int64_t i;
    double f;
    bool b;
  };
} cuarr_raw_arg;

typedef struct cuarr_raw_launch_config {
  unsigned grid[3], block[3]; /* each at least 1 */
  unsigned shared_mem;        /* dynamic shared memory bytes */
} cuarr_raw_launch_config;

/* Launch on ctx's stream (it must be of the kernel's device).  The configuration is checked
 * against the kernel's and the device's limits and the arguments against the parameter list
 * before anything is queued: CUARR_CUDA_ERROR for a configuration the device refuses,
 * CUARR_TYPE_ERROR / CUARR_VALUE_ERROR for an argument, naming the kernel and the argument
 * (1-based) and both types. */
CUARR_API cuarr_status cuarr_raw_kernel_launch(cuarr_context *ctx, const cuarr_raw_kernel *k,
                                               const cuarr_raw_launch_config *config,
                                               const cuarr_raw_arg *args, int n_args);

/* ---------------------------------------------------------------- random numbers */

/* A draw from a Philox4x32-10 stream (kernels/include/philox.cuh): value i of the draw comes
 * from block counter + i / per_block of the stream keyed by seed, so the host and the device
 * give the same values for the same draw. */
typedef enum cuarr_random_dist {
  CUARR_RANDOM_UNIFORM,     /* a + b * [0, 1) */
  CUARR_RANDOM_NORMAL,      /* a + b * N(0, 1) */
  CUARR_RANDOM_EXPONENTIAL, /* a * Exp(1) */
  CUARR_RANDOM_INTEGERS     /* low + [0, m], unbiased */
} cuarr_random_dist;
typedef struct cuarr_random_draw {
  cuarr_random_dist dist;
  uint64_t seed;    /* the Philox key */
  uint64_t counter; /* the state's counter at the draw */
  double a, b;      /* the float distributions' parameters */
  uint64_t low, m;  /* the integers' range, wrapping: low + [0, m] */
} cuarr_random_draw;
/* Values per Philox block (4 or 2) of the draw into dtype. */
CUARR_API int cuarr_random_per_block(const cuarr_random_draw *d, cuarr_dtype dtype);
/* How far a draw of n values advances its state's counter. */
CUARR_API uint64_t cuarr_random_blocks(const cuarr_random_draw *d, cuarr_dtype dtype, int64_t n);
/* Fill a C-contiguous host array (float32/float64; integer dtypes for CUARR_RANDOM_INTEGERS,
 * whose range must fit the dtype) with the draw's values. */
CUARR_API cuarr_status cuarr_random_fill_host(const cuarr_random_draw *d, const cuarr_array *out);
/* dst[i] = src[rows[i]] along the first axis, for C-contiguous host arrays of one dtype. */
CUARR_API cuarr_status cuarr_random_take_rows_host(const cuarr_array *dst, const cuarr_array *src,
                                                   const int64_t *rows, int64_t n);

/* ---------------------------------------------------------------- matrix products */

/* How float32 products run on the device: with float32 multiplies (HIGHEST, the default) or on
 * TF32 tensor cores (inputs rounded to 10-bit mantissas, sums in float32).  Other dtypes and host
 * arrays ignore it. */
typedef enum cuarr_matmul_precision {
  CUARR_MATMUL_HIGHEST,
  CUARR_MATMUL_TF32
} cuarr_matmul_precision;

/* out = a @ b with NumPy's matmul rules: a 1-D a is a row (1, k) and a 1-D b a column (k, 1),
 * that axis removed from the result; the axes before the last two are batch axes, broadcast
 * together.  The result dtype is the promotion of the two dtypes (bool @ bool is bool: or of
 * ands).  Floats go to cuBLAS (device; float16 sums in float32) or the system BLAS (host; float16
 * through float32); integers and bool to cuarr's own kernel or host loop, which sum in the
 * result dtype and wrap as NumPy's do.  Transposed and strided operands reach cuBLAS and BLAS
 * through their op flags and leading dimensions; others are packed first.  *out is given (its
 * shape must be the result's, the result dtype must cast to its dtype under 'same_kind', and it
 * may overlap a or b) or allocated here (out->buf == NULL).  CUARR_VALUE_ERROR for 0-d operands,
 * mismatched inner extents and batch axes that do not broadcast; CUARR_NOT_AVAILABLE without
 * cuBLAS (device floats) or the system BLAS (host floats), naming what to install. */
CUARR_API cuarr_status cuarr_matmul(cuarr_context *ctx, const cuarr_array *a, const cuarr_array *b,
                                    cuarr_matmul_precision precision, cuarr_array *out);

/* The diagonal of a along axes axis1 and axis2 (0-based, distinct) as a view: those axes are
 * removed and one of the diagonal's length is appended; offset > 0 takes a diagonal above the
 * main one, < 0 below (NumPy's diagonal). */
CUARR_API cuarr_status cuarr_view_diagonal(const cuarr_array *a, int64_t offset, int axis1,
                                           int axis2, cuarr_array *out);

/* ---------------------------------------------------------------- linear algebra */

/* NumPy's linalg on stacks of square matrices (the last two axes; the others a batch), host
 * arrays through the system LAPACK, device arrays through cuBLAS's batched routines (many
 * matrices of up to 32 x 32) or cuSOLVER.  bool and integer inputs compute in float64, float32
 * in float32; float16 is a CUARR_TYPE_ERROR, as in NumPy.  Fewer than two axes or matrices that
 * are not square: CUARR_LINALG_ERROR.  Results are new C-contiguous arrays (*out, which must be
 * empty on entry).  inv, solve and cholesky wait for the factorization's statuses, to fail with
 * CUARR_LINALG_ERROR for a singular (or not positive definite) matrix; det and slogdet do not
 * wait: a singular matrix has determinant 0 (sign 0, log -inf). */
CUARR_API cuarr_status cuarr_linalg_det(cuarr_context *ctx, const cuarr_array *a, cuarr_array *out);
CUARR_API cuarr_status cuarr_linalg_slogdet(cuarr_context *ctx, const cuarr_array *a,
                                            cuarr_array *sign, cuarr_array *logabsdet);
CUARR_API cuarr_status cuarr_linalg_inv(cuarr_context *ctx, const cuarr_array *a, cuarr_array *out);
/* b: a stack of (n, k) matrices, or a single (n,) vector (NumPy 2's rule); the batch axes of a
 * and b broadcast. */
CUARR_API cuarr_status cuarr_linalg_solve(cuarr_context *ctx, const cuarr_array *a,
                                          const cuarr_array *b, cuarr_array *out);
/* The lower factor L (L L^T = a), or the upper one U (U^T U = a) when upper; only that triangle
 * of a is read. */
CUARR_API cuarr_status cuarr_linalg_cholesky(cuarr_context *ctx, const cuarr_array *a, bool upper,
                                             cuarr_array *out);
/* The decompositions below take stacks of m x n matrices (square for eigh), the same dtypes,
 * through LAPACK (geqrf/orgqr, syevd, gesvd) or cuSOLVER (the same routines, one call per
 * matrix; eigh's and svd's stacks of matrices up to 32 x 32 in one call of the batched Jacobi
 * solvers, syevjBatched and gesvdjBatched).  Empty matrices are allowed; where NumPy returns an
 * m x m (or n x n) matrix with nothing to decompose, it is the identity.
 * QR, a = q r with q's columns orthonormal and r upper triangular (signs as LAPACK leaves them);
 * k = min(m, n).  mode NULL or "reduced": q (..., m, k), r (..., k, n); "complete": q (..., m, m),
 * r (..., m, n); "r": r (..., k, n) alone (q may be NULL and is left as it is).  Anything else is
 * a CUARR_VALUE_ERROR.  Does not wait for the device. */
CUARR_API cuarr_status cuarr_linalg_qr(cuarr_context *ctx, const cuarr_array *a, const char *mode,
                                       cuarr_array *q, cuarr_array *r);
/* The eigenvalues w (..., n), ascending, of symmetric matrices of which only the lower triangle
 * is read (the upper one when upper: NumPy's UPLO="U"), and with want_vectors the orthonormal
 * eigenvectors v (..., n, n), v[..., :, i] belonging to w[..., i] (v untouched otherwise: NumPy's
 * eigvalsh).  Waits for the statuses: CUARR_LINALG_ERROR when an iteration did not converge. */
CUARR_API cuarr_status cuarr_linalg_eigh(cuarr_context *ctx, const cuarr_array *a, bool upper,
                                         bool want_vectors, cuarr_array *w, cuarr_array *v);
/* a = u diag(s) vh, s (..., k) descending; u (..., m, m) and vh (..., n, n) when
 * full_matrices, else u (..., m, k) and vh (..., k, n); with compute_uv false only s is made
 * (u and vh untouched).  Waits for the statuses: CUARR_LINALG_ERROR when it did not converge. */
CUARR_API cuarr_status cuarr_linalg_svd(cuarr_context *ctx, const cuarr_array *a,
                                        bool full_matrices, bool compute_uv, cuarr_array *u,
                                        cuarr_array *s, cuarr_array *vh);

/* ---------------------------------------------------------------- sorting */

/* Stable sorts, NumPy's order: integers and bools by value, floats numerically with every NaN
 * (of either sign) after +inf.  Device arrays are sorted by CUB's radix sorts, compiled ahead of
 * time into libcuarr_sort.so beside core.so (or where CUARR_LIBSORT names it), opened on first
 * use: without it a device sort is CUARR_NOT_AVAILABLE naming what is missing.  Host arrays: a
 * stable radix sort in C.  Nothing synchronises.  An axis is 0-based, or CUARR_SORT_FLAT for
 * the flattened array (NumPy's axis=None); out of range it is CUARR_INDEX_ERROR.  Each output is
 * NULL (not wanted), given (its buf set: the result's shape and exact dtype, in the array's
 * place; a sorted output may be the array itself, a sort in place) or allocated here, C-contiguous
 * (buf NULL). */
#define CUARR_SORT_FLAT (-1)
/* sorted = a sorted along axis (a's dtype); indices (int64) = argsort + 1: the 1-based
 * positions along the axis of the elements in sorted order, ties in their original order.  At
 * least one output is wanted.  For indices alone -0.0 and +0.0 are equal, as are all NaNs
 * (ties); a sort that makes the values keeps every bit of each, with NaNs last; -0.0 and +0.0
 * are equal there too, in no specified order among themselves (host: -0.0 first; device: as
 * they came, CUB's float order). */
CUARR_API cuarr_status cuarr_sort(cuarr_context *ctx, const cuarr_array *a, int axis,
                                  cuarr_array *sorted, cuarr_array *indices);
/* out (int64) = NumPy's lexsort + 1 of nkeys arrays of one shape along axis: sorted by
 * keys[nkeys - 1] first, ties broken by keys[nkeys - 2], and so on, stable.  Each key is sorted
 * in its own dtype.  CUARR_VALUE_ERROR for no keys, keys of different shapes or places. */
CUARR_API cuarr_status cuarr_lexsort(cuarr_context *ctx, const cuarr_array *const *keys, int nkeys,
                                     int axis, cuarr_array *out);
/* out (int64, values' shape) = the 1-based positions at which values would be inserted into the
 * 1-D array sorted (ascending in the sort's order) to keep it sorted: NumPy's searchsorted + 1,
 * before equal elements or after them (right).  sorter (NULL, or integers as long as sorted:
 * 1-based positions that sort it, an argsort's) reads sorted through it.  Both are compared in
 * their promoted dtype.  A host sorter entry outside 1..n is CUARR_VALUE_ERROR; a device sorter is
 * not read back (the caller checks it: an entry out of range is clamped, never read past).  out
 * is given or allocated (buf NULL). */
CUARR_API cuarr_status cuarr_searchsorted(cuarr_context *ctx, const cuarr_array *sorted,
                                          const cuarr_array *values, bool right,
                                          const cuarr_array *sorter, cuarr_array *out);

/* ---------------------------------------------------------------- joining */

/* out = the n arrays joined along axis (0-based), NumPy's concatenate: every array has the same
 * number of axes (at least one) and the same extents except along axis; the result dtype is
 * their promotion (cuarr_promote).  Device arrays are joined by one kernel launch for up to 64
 * arrays (one per 64 beyond), converting each to the result's dtype as it is read; host arrays
 * by C loops.  All the arrays and out must be in one place.  *out is given (its shape must be
 * the result's, the result dtype must cast to its dtype under 'same_kind'; each array is then
 * converted straight to out's dtype, and out may overlap them) or allocated here (out->buf ==
 * NULL), C-contiguous.  CUARR_VALUE_ERROR for no arrays, 0-d arrays, mismatched extents or
 * placements; CUARR_INDEX_ERROR for an axis out of range. */
CUARR_API cuarr_status cuarr_concatenate(cuarr_context *ctx, const cuarr_array *const *arrays,
                                         int n, int axis, cuarr_array *out);

/* ---------------------------------------------------------------- masks */

/* A mask is an array of any dtype whose nonzero elements (NumPy's x != 0; a float NaN is
 * nonzero) select.  Device masks: the output's size depends on the data, so each call reads one
 * count back (one synchronisation of ctx's stream); everything else is queued.  Host arrays:
 * C loops.  The arrays and out must be in one place (CUARR_VALUE_ERROR otherwise). */

/* Positions of the nonzero elements of mask, in C order: *out is int64 of shape
 * [mask->ndim, count] (row k holds the indices along axis k, each plus base: 0 for C, 1 for
 * Lua).  mask has at least one axis (CUARR_VALUE_ERROR for a 0-d mask, as NumPy 2).  *out is
 * given (that shape, int64) or allocated here (out->buf == NULL), C-contiguous. */
CUARR_API cuarr_status cuarr_nonzero(cuarr_context *ctx, const cuarr_array *mask, int64_t base,
                                     cuarr_array *out);
/* out = a's elements where mask is nonzero, in C order: mask's shape is a's leading mask->ndim
 * extents (CUARR_INDEX_ERROR otherwise, as NumPy's); *out, of shape
 * [count, a->shape[mask->ndim..]] and a's dtype, is given (that shape; any dtype, converted
 * 'unsafe'-ly) or allocated here (out->buf == NULL), C-contiguous.  A 0-d mask over a 0-d a gives
 * shape [1] or [0]. */
CUARR_API cuarr_status cuarr_mask_select(cuarr_context *ctx, const cuarr_array *a,
                                         const cuarr_array *mask, cuarr_array *out);
/* a[mask] = values (mask as for cuarr_mask_select): values broadcast to
 * [count, a->shape[mask->ndim..]] (a 0-d or one-element array fills every selected element;
 * leading axes of extent 1 beyond those are dropped), converted to a's dtype 'unsafe'-ly as
 * cuarr_copy does (NumPy's assignment).  values may overlap a.  CUARR_VALUE_ERROR when values do
 * not broadcast. */
CUARR_API cuarr_status cuarr_mask_assign(cuarr_context *ctx, cuarr_array *a,
                                         const cuarr_array *mask, const cuarr_array *values);

/* ---------------------------------------------------------------- indexing with arrays */

/* What an index value v means along an axis of extent e (base: 0 for C, 1 for Lua).  RAISE:
 * v - base for v >= 0, e + v for v < 0, and a position outside [0, e) is a CUARR_INDEX_ERROR
 * (with base 1, v = 0 is one); WRAP: that position modulo e; CLIP: v - base clamped into
 * [0, e) (negative values count from nothing, as NumPy's clip). */
typedef enum cuarr_index_mode {
  CUARR_INDEX_RAISE,
  CUARR_INDEX_WRAP,
  CUARR_INDEX_CLIP
} cuarr_index_mode;

/* NumPy's advanced indexing by n integer arrays (any integer dtype, not bool: a mask goes
 * through cuarr_nonzero first), broadcast together to a shape B: index[k] selects along axis
 * axes[k] of a (distinct axes, any order).  The selection's shape is a's other axes in order,
 * with B's axes put at position `at` among them (0..a->ndim - n): NumPy puts them where the
 * indexed axes were when those are adjacent in the key, first otherwise. */
typedef struct cuarr_fancy_index {
  int n; /* 1..CUARR_MAXDIM */
  int axes[CUARR_MAXDIM];
  const cuarr_array *index[CUARR_MAXDIM];
  int at;
  int64_t base;
  cuarr_index_mode mode;
} cuarr_fancy_index;

/* The selection's shape (ndim <= CUARR_MAXDIM), or the error ix and a make. */
CUARR_API cuarr_status cuarr_fancy_shape(const cuarr_array *a, const cuarr_fancy_index *ix,
                                         int *ndim, int64_t *shape);
/* out = a[ix]: a copy of the selected elements, of a's dtype.  Device arrays: one kernel launch
 * for any number of index arrays and strides; in RAISE mode the kernel records a bad index on
 * the device and the call reads that record back (one synchronisation of ctx's stream); WRAP
 * and CLIP queue everything.  Host arrays: C loops.  The index arrays must be where a is
 * (CUARR_VALUE_ERROR otherwise).  *out is given (the selection's shape; any dtype, converted
 * 'unsafe'-ly; it may overlap a) or allocated here (out->buf == NULL), C-contiguous.  On an
 * error out is left as it came. */
CUARR_API cuarr_status cuarr_gather(cuarr_context *ctx, const cuarr_array *a,
                                    const cuarr_fancy_index *ix, cuarr_array *out);
/* a[ix] = values: values broadcast to the selection's shape (CUARR_VALUE_ERROR otherwise),
 * converted to a's dtype as cuarr_copy does; they may overlap a.  In RAISE mode every index is
 * checked before anything is written, so a bad one leaves a unchanged (device: a checking
 * launch, one synchronisation, then the writing launch).  Repeated positions: on the host the
 * last value in C order wins, as NumPy's; on a device one of them (unspecified). */
CUARR_API cuarr_status cuarr_scatter(cuarr_context *ctx, const cuarr_array *a,
                                     const cuarr_fancy_index *ix, const cuarr_array *values);
/* NumPy's take along one axis (0-based): cuarr_gather with the one index array in the axis's
 * place. */
CUARR_API cuarr_status cuarr_take(cuarr_context *ctx, const cuarr_array *a,
                                  const cuarr_array *indices, int axis, int64_t base,
                                  cuarr_index_mode mode, cuarr_array *out);

/* ---------------------------------------------------------------- collectives */

/* NCCL, opened with dlopen on first use like the CUDA libraries: CUARR_LIBNCCL names its file,
 * else libnccl.so.2 is looked for on the loader's path, under $CUDA_HOME/lib64 and lib, and
 * where pip puts it.  Its version code (22809 for 2.28.9); CUARR_NOT_AVAILABLE naming what is
 * missing and where it looked. */
CUARR_API cuarr_status cuarr_nccl_version(int *version);

/* One process driving n devices (distinct, 0-based ids) as the ranks 0..n-1 of one NCCL
 * communicator (ncclCommInitAll), rank r on devices[r].  CUARR_NOT_AVAILABLE without NCCL, or
 * when cuarr runs on a driver other than the system's libcuda.so.1 (NCCL's runtime opens that
 * one: the stand-in of tools/fake_cuda is refused before NCCL sees a device). */
typedef struct cuarr_comm cuarr_comm;
CUARR_API cuarr_status cuarr_comm_init_all(int n, const int *devices, cuarr_comm **out);
/* Destroy every rank's communicator (each waits for its queued work) and free c. */
CUARR_API cuarr_status cuarr_comm_destroy(cuarr_comm *c);
/* One rank of a communicator over several processes (one per device, on one host or several):
 * rank 0 makes NCCL's unique id and hands it to the others through id_file (a path on a file
 * system all ranks share, which no earlier job used) or, with id_file NULL, a TCP rendezvous it
 * serves at address:port; then every rank calls ncclCommInitRank on its device.  timeout_s
 * bounds the rendezvous and every collective: a rank that dies, never joins or stops calling
 * collectives makes the others fail with CUARR_DISTRIBUTED_ERROR within it, instead of waiting
 * forever (comm/watchdog.c). */
typedef struct cuarr_comm_rank_options {
  int rank, world, device;
  const char *id_file;
  const char *address;
  int port;
  double timeout_s;
  bool verify; /* every collective's call compared across the ranks first (costs a wait) */
} cuarr_comm_rank_options;
CUARR_API cuarr_status cuarr_comm_init_rank(const cuarr_comm_rank_options *o, cuarr_comm **out);
CUARR_API int cuarr_comm_size(const cuarr_comm *c); /* its ranks, in every process */
/* The ranks this process drives (the size for cuarr_comm_init_all, 1 for cuarr_comm_init_rank),
 * the first one's rank, and local rank r's device (-1 if r is not one). */
CUARR_API int cuarr_comm_local_size(const cuarr_comm *c);
CUARR_API int cuarr_comm_first_rank(const cuarr_comm *c);
CUARR_API int cuarr_comm_device(const cuarr_comm *c, int local_rank);

typedef enum cuarr_comm_op {
  CUARR_COMM_SUM,
  CUARR_COMM_PROD,
  CUARR_COMM_MAX,
  CUARR_COMM_MIN,
  CUARR_COMM_AVG /* integers: the sum divided by the ranks, truncated as C divides */
} cuarr_comm_op;
/* "sum" "prod" "max" "min" "avg". */
CUARR_API bool cuarr_comm_op_from_name(const char *name, cuarr_comm_op *out);

/* One collective call over every rank this process drives: parts[r] is local rank r's array, a
 * device array on its device; all parts have one dtype and one shape (across processes each
 * rank must pass the same, which only the watchdog's timeout can catch).  outs NULL: in place
 * (all_reduce, reduce, broadcast); else outs[r] is rank r's result, of the parts' dtype (NCCL does
 * not convert). streams NULL, or an entry NULL: the device's null stream.  Arrays need not be
 * contiguous (the others go through a C-contiguous temporary); empty ones make the call a no-op
 * once checked. Reductions take int8 uint8 int32 uint32 int64 uint64 float16 float32 float64, and
 * bool for max and min (`or`, `and`); int16 and uint16 are a CUARR_TYPE_ERROR there.  The moves
 * (broadcast, all_gather, all_to_all, send_recv) take every dtype.  Everything is checked
 * before anything is queued; nothing is synchronised. */
typedef struct cuarr_comm_call {
  const cuarr_array *parts;
  const cuarr_array *outs;
  cuarr_stream *const *streams;
  cuarr_reclaim reclaim;
} cuarr_comm_call;

/* Every rank gets op over all parts (outs: the parts' shape). */
CUARR_API cuarr_status cuarr_comm_all_reduce(cuarr_comm *c, const cuarr_comm_call *call,
                                             cuarr_comm_op op);
/* Rank root gets op over all parts; the other ranks' arrays are left alone. */
CUARR_API cuarr_status cuarr_comm_reduce(cuarr_comm *c, const cuarr_comm_call *call,
                                         cuarr_comm_op op, int root);
/* Every rank gets root's part. */
CUARR_API cuarr_status cuarr_comm_broadcast(cuarr_comm *c, const cuarr_comm_call *call, int root);
/* outs (required) of n times a part's size: in C order, rank r's part fills elements
 * r*size .. (r+1)*size-1 of every out. */
CUARR_API cuarr_status cuarr_comm_all_gather(cuarr_comm *c, const cuarr_comm_call *call);
/* outs (required) of a part's size / n: rank r gets op over chunk r (C order) of all parts. */
CUARR_API cuarr_status cuarr_comm_reduce_scatter(cuarr_comm *c, const cuarr_comm_call *call,
                                                 cuarr_comm_op op);
/* outs (required) of a part's size, a multiple of n: chunk p of rank r's part goes to chunk r of
 * rank p's out (grouped ncclSend/ncclRecv). */
CUARR_API cuarr_status cuarr_comm_all_to_all(cuarr_comm *c, const cuarr_comm_call *call);
/* n pairs, each src[i] copied into dst[i] (same dtype and shape, on two different devices of
 * the communicator, whose ranks they name), all in one group: in one process a send must be
 * posted with its receive.  streams: NULL or one per rank, as above. */
CUARR_API cuarr_status cuarr_comm_send_recv(cuarr_comm *c, int n, const cuarr_array *src,
                                            const cuarr_array *dst, cuarr_stream *const *streams,
                                            cuarr_reclaim reclaim);
/* A rank of a communicator over several processes (cuarr_comm_init_rank) sends a to rank peer,
 * or receives into a from it, on stream (NULL: the device's null stream); the peer posts the
 * matching recv or send of as many bytes. */
CUARR_API cuarr_status cuarr_comm_send(cuarr_comm *c, const cuarr_array *a, int peer,
                                       cuarr_stream *stream, cuarr_reclaim reclaim);
CUARR_API cuarr_status cuarr_comm_recv(cuarr_comm *c, const cuarr_array *a, int peer,
                                       cuarr_stream *stream, cuarr_reclaim reclaim);

/* ---------------------------------------------------------------- counting */

/* How cuarr_bin_count finds an element's bin. */
typedef enum cuarr_bin_rule {
  CUARR_BIN_VALUE,   /* the value itself (NumPy's bincount): integers in [0, nbins) */
  CUARR_BIN_UNIFORM, /* evenly spaced edges: the bin computed from the value as NumPy's histogram
                        does, then moved until the edges agree */
  CUARR_BIN_EDGES    /* any increasing edges: a binary search */
} cuarr_bin_rule;
/* out[b] = how many elements of x (any shape and strides) fall in bin b, or the sum of their
 * weights (an array of x's shape, any dtype).  VALUE: x holds bools or integers (a
 * CUARR_TYPE_ERROR otherwise) and an element is in bin x; values outside [0, nbins) are not
 * counted (the caller checks them when that is an error).  UNIFORM and EDGES: edges is a 1-D
 * array of nbins + 1 increasing values (nbins >= 1; not checked: the caller checks what it did
 * not compute), any real dtype, where x is, and lo and hi are its first and last values, as
 * doubles; an element is compared as a double (exact for every dtype but 64-bit integers past
 * 2^53) and falls in bin i when edges[i] <= x < edges[i + 1], the last bin closed (x == hi);
 * with equal edges, in the last bin that starts at or below x; NaN and values outside [lo, hi]
 * are in none.  *out is allocated here (out->buf NULL; CUARR_VALUE_ERROR otherwise), 1-D
 * [nbins]: int64 counts, or sums of bool and integer weights in int64 (wrapping), float64 sums
 * of float weights.  Device arrays: a fill and one kernel launch (the bins privatised per block
 * in shared memory when they fit, global atomics otherwise; float sums in an unspecified order),
 * nothing synchronised; host arrays: a C loop.  Operands that are not C-contiguous are copied
 * first. */
CUARR_API cuarr_status cuarr_bin_count(cuarr_context *ctx, const cuarr_array *x,
                                       cuarr_bin_rule rule, int64_t nbins, const cuarr_array *edges,
                                       double lo, double hi, const cuarr_array *weights,
                                       cuarr_array *out);

/* ---------------------------------------------------------------- diagnostics */

/* The oldest warning the core queued on this thread (e.g. "the kernel cache directory ... is
 * not writable: caching in memory only"), removed from the queue; NULL when none.  The Lua
 * binding passes them to lua_warning. */
CUARR_API const char *cuarr_take_warning(void);
/* Queue a warning (printf-style) for this thread. */
CUARR_API void cuarr_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
