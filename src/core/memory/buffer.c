/*
 * buffer.c -- reference-counted allocations, the storage under every array.
 *
 * A buffer's memory can go back before the struct does: cuarr_buffer_free (x:free(), a <close>
 * variable) releases it at once, while views may still hold the struct; they then see
 * ptr == NULL and refuse to run.  The struct goes when the last reference does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

/* A buffer carved from a pool: the block to give back, and which pool. */
typedef struct pooled_buffer {
  cuarr_buffer buf; /* first member: the release hook casts back */
  cuarr_pool *pool;
  cuarr_block *block;
} pooled_buffer;

/* Buffer structs are recycled through a small free list, so that making and dropping arrays
 * in a loop (c = a + b) allocates no C heap memory once warm.  Every struct has the size of
 * the largest kind (a pooled_buffer). */
enum { SPARE_STRUCTS = 256 };
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static void *spare[SPARE_STRUCTS];
static int n_spare;

static void *struct_alloc(void) {
  void *p = NULL;
  pthread_mutex_lock(&spare_lock);
  if (n_spare > 0)
    p = spare[--n_spare];
  pthread_mutex_unlock(&spare_lock);
  return p ? p : malloc(sizeof(pooled_buffer));
}

static void struct_free(void *p) {
  pthread_mutex_lock(&spare_lock);
  if (n_spare < SPARE_STRUCTS) {
    spare[n_spare++] = p;
    p = NULL;
  }
  pthread_mutex_unlock(&spare_lock);
  free(p);
}

void cuarr_buffer_release_spares(void) {
  pthread_mutex_lock(&spare_lock);
  while (n_spare > 0)
    free(spare[--n_spare]);
  pthread_mutex_unlock(&spare_lock);
}

static void release_malloc(cuarr_buffer *b) { free(b->ptr); }

/* Large host arrays are mapped directly and asked for huge pages: a fresh 256 MiB array then
 * takes 128 page faults on first touch instead of 65536, which is most of the cost of copying
 * a device array into a new host array. */
enum { HUGE_PAGE = 2 << 20, MAP_THRESHOLD = 4 << 20 };

static size_t mapped_size(size_t nbytes) {
  return (nbytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
}

static void release_mapped(cuarr_buffer *b) { munmap(b->ptr, mapped_size(b->nbytes)); }

static void *map_host(size_t nbytes) {
  void *p =
      mmap(NULL, mapped_size(nbytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, mapped_size(nbytes), MADV_HUGEPAGE); /* advice only: fine if refused */
#endif
  return p;
}

/* The chunk is filed under the stream the memory was allocated on, so that only work ordered
 * after its use there can have it next (as in CuPy: an array used on another stream needs the
 * user's own synchronisation before it is freed). */
static void release_pooled(cuarr_buffer *b) {
  pooled_buffer *pb = (pooled_buffer *)b;
  cuarr_pool_free(pb->pool, pb->block, b->stream);
  pb->block = NULL;
}

static void buffer_init(cuarr_buffer *b, void *ptr, size_t nbytes, int device, bool pinned,
                        void (*release)(cuarr_buffer *), void *release_state, void *stream) {
  b->refs = 1;
  b->ptr = ptr;
  b->nbytes = nbytes;
  b->device = device;
  b->pinned = pinned;
  b->release = release;
  b->release_state = release_state;
  b->stream = stream;
}

static cuarr_status out_of_host_memory(size_t nbytes) {
  return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory allocating %zu bytes", nbytes);
}

/* A block of pool for stream, wrapped in a new buffer. */
static cuarr_status new_pooled(cuarr_pool *pool, int device, bool pinned, size_t nbytes,
                               void *stream, cuarr_reclaim reclaim, cuarr_buffer **out) {
  pooled_buffer *pb = struct_alloc();
  if (!pb)
    return out_of_host_memory(sizeof *pb);
  cuarr_status s = cuarr_pool_alloc(pool, nbytes, stream, reclaim, &pb->block);
  if (s != CUARR_OK) {
    struct_free(pb);
    return s;
  }
  pb->pool = pool;
  buffer_init(&pb->buf, pb->block->ptr, nbytes, device, pinned, release_pooled, pool, stream);
  *out = &pb->buf;
  return CUARR_OK;
}

cuarr_status cuarr_buffer_new_host(size_t nbytes, bool pinned, cuarr_reclaim reclaim,
                                   cuarr_buffer **out) {
  if (pinned) {
    cuarr_pool *pool = cuarr_pinned_pool();
    if (!pool) { /* the driver is missing (that status again), or malloc failed */
      cuarr_status s = cuarr_load_driver();
      return s != CUARR_OK ? s : CUARR_OUT_OF_MEMORY;
    }
    return new_pooled(pool, CUARR_HOST, true, nbytes, NULL, reclaim, out);
  }
  (void)reclaim; /* the C heap has no cache of ours to reclaim from */
  bool mapped = nbytes >= MAP_THRESHOLD;
#ifdef __SANITIZE_ADDRESS__
  /* Under AddressSanitizer every host array comes from malloc: ASan then puts redzones around
   * large arrays too, and its allocation limit (the fuzzer's max_allocation_size_mb) bounds
   * them, where a mapping would escape it and let a hostile size run minutes of work. */
  mapped = false;
#endif
  cuarr_buffer *b = struct_alloc();
  /* a 0-byte buffer still has an address */
  void *ptr = mapped ? map_host(nbytes) : malloc(nbytes ? nbytes : 1);
  if (!b || !ptr) {
    if (b)
      struct_free(b);
    if (ptr && mapped)
      munmap(ptr, mapped_size(nbytes));
    else
      free(ptr);
    return out_of_host_memory(nbytes);
  }
  buffer_init(b, ptr, nbytes, CUARR_HOST, false, mapped ? release_mapped : release_malloc, NULL,
              NULL);
  *out = b;
  return CUARR_OK;
}

cuarr_status cuarr_buffer_new_device(int device, size_t nbytes, void *stream, cuarr_reclaim reclaim,
                                     cuarr_buffer **out) {
  /* No cuarr_device_activate: a pool hit needs no context, and a new segment's raw allocator
   * makes the device's context current for itself. */
  cuarr_pool *pool = cuarr_device_pool(device);
  if (!pool) { /* the device check's status again, or malloc failed */
    cuarr_status s = cuarr_device_check(device);
    return s != CUARR_OK ? s : CUARR_OUT_OF_MEMORY;
  }
  return new_pooled(pool, device, false, nbytes, stream, reclaim, out);
}

cuarr_status cuarr_buffer_wrap(void *ptr, size_t nbytes, int device, bool pinned,
                               void (*release)(cuarr_buffer *b), void *release_state,
                               cuarr_buffer **out) {
  cuarr_buffer *b = struct_alloc();
  if (!b)
    return out_of_host_memory(sizeof *b);
  buffer_init(b, ptr, nbytes, device, pinned, release, release_state, NULL);
  *out = b;
  return CUARR_OK;
}

void cuarr_buffer_retain(cuarr_buffer *b) { __atomic_fetch_add(&b->refs, 1, __ATOMIC_RELAXED); }

void cuarr_buffer_release(cuarr_buffer *b) {
  if (!b || __atomic_fetch_sub(&b->refs, 1, __ATOMIC_ACQ_REL) != 1)
    return;
  cuarr_buffer_free(b);
  struct_free(b); /* a pooled_buffer starts with its buffer: the same pointer */
}

void cuarr_buffer_free(cuarr_buffer *b) {
  if (!b)
    return;
  /* Pinned memory goes straight back to the pinned pool: first let any transfer still
   * reading or writing it finish. */
  if (b->pinned)
    cuarr_defer_wait_for(b);
  /* Taking the hook out atomically makes it run once, even if two threads free at once. */
  void (*release)(cuarr_buffer *) = __atomic_exchange_n(&b->release, NULL, __ATOMIC_ACQ_REL);
  if (release)
    release(b);
  __atomic_store_n(&b->ptr, NULL, __ATOMIC_RELEASE);
}
