/*
 * memory/ -- memory: the caching pool allocator, the default device and pinned pools, reference-
 *   counted buffers.
 *
 * pool.c -- a caching allocator in the manner of CuPy's memory pools, independent of CUDA.
 *
 * Raw memory comes in "segments" from a cuarr_raw_allocator (cuMemAlloc, cuMemHostAlloc, an
 * embedder's).  A segment is cut into chunks, kept in address order; a chunk handed out is a
 * cuarr_block.  Sizes are multiples of 512 bytes.
 *
 * Free chunks are filed per stream, in an "arena" found by the stream's handle: a chunk freed on
 * stream S may still be read or written by work queued on S, so only allocations on S may have
 * it (they are ordered after that work).  Neighbouring free chunks of one segment merge only when
 * they are in the same arena, for the same reason.
 *
 * Within an arena, free chunks sit in bins by size class, TLSF-style: a power-of-two class of
 * 512-byte units split into 8 linear sub-classes (exact sizes below 16 units), each bin a list
 * sorted by size, and a bitmap of the non-empty bins.  Best fit looks at the request's own bin,
 * then takes the head of the next non-empty bin: no scan of all free chunks.
 *
 * Chunk structs are recycled through a spare list, so an alloc/free pair served from the free
 * lists never calls malloc.
 *
 * Holds (cuarr_hold_begin) keep released chunks out of the free lists: while a hold is open, a
 * freed chunk goes to the innermost open hold instead, still counted in use, until the hold is
 * released.  An owning hold (a graph's) also owns the chunks allocated on its stream while it
 * is open: freeing one of them at any time before the hold's release goes to that hold, since
 * the graph may still write it at each replay.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuarr.h"

enum {
  UNIT = 512,                            /* allocation granularity, as CuPy's */
  SUB_BITS = 3,                          /* log2 of sub-classes per power of two */
  SUBS = 1 << SUB_BITS,                  /* sub-classes per power of two */
  NBINS = SUBS + (64 - SUB_BITS) * SUBS, /* enough for any size_t */
  BITMAP_WORDS = (NBINS + 63) / 64,
};

typedef struct arena arena;
typedef struct chunk chunk;

struct chunk {
  cuarr_block block;            /* first member: cuarr_pool_free casts the block back */
  chunk *prev, *next;           /* address-order neighbours in the segment */
  chunk *bin_prev, *bin_next;   /* free: the bin's list; spare: bin_next links the spare list */
  chunk *seg_prev, *seg_next;   /* segment heads only (prev == NULL): the pool's segments */
  arena *arena;                 /* free: the arena filing it; NULL while handed out */
  cuarr_hold *owner;            /* the owning hold that has it (allocated or held), or NULL */
  chunk *hold_prev, *hold_next; /* the owner's list: owned in use, or held */
  void *held_stream;            /* held: the stream it was freed on */
};

struct arena {
  void *stream;
  uint64_t nonempty[BITMAP_WORDS];
  chunk *bins[NBINS];
};

struct cuarr_pool {
  pthread_mutex_t lock;
  cuarr_raw_allocator raw;
  size_t capacity, limit;
  size_t used, total, n_free;
  chunk *segments; /* head chunk of each segment (a head never merges away, so it is stable) */
  chunk *spare;    /* recycled chunk structs */
  arena **arenas;
  int n_arenas, cap_arenas;
  arena *last;            /* the arena found last: most programs use one stream */
  cuarr_hold *open_holds; /* innermost open hold first, linked by outer */
  int n_owning;           /* open owning holds (an allocation looks for its owner only then) */
  size_t held;            /* bytes in chunks held back (part of used) */
};

struct cuarr_hold {
  cuarr_pool *pool;
  void *stream; /* owning holds: allocations on this stream belong to the hold */
  bool owning, open;
  cuarr_hold *outer; /* the next open hold of the pool */
  chunk *owned;      /* owning holds: chunks allocated while open, still in use */
  chunk *held;       /* chunks released into the hold */
  size_t held_bytes;
};

/* ---------------------------------------------------------------- bins */

static int bin_of(size_t size) {
  size_t u = size / UNIT; /* >= 1 */
  if (u < SUBS)
    return (int)u;
  int fl = 63 - __builtin_clzll((unsigned long long)u);
  int sl = (int)(u >> (fl - SUB_BITS)) & (SUBS - 1);
  return SUBS + (fl - SUB_BITS) * SUBS + sl;
}

/* The first non-empty bin at or after `from`, or -1. */
static int next_bin(const arena *a, int from) {
  if (from >= NBINS)
    return -1;
  int w = from / 64;
  uint64_t bits = a->nonempty[w] & (~0ULL << (from % 64));
  for (;;) {
    if (bits)
      return w * 64 + __builtin_ctzll(bits);
    if (++w == BITMAP_WORDS)
      return -1;
    bits = a->nonempty[w];
  }
}

/* File c in a, before the first chunk at least as large: bins stay sorted by size, and a chunk
 * of an exact-size bin goes in at the head. */
static void bin_insert(cuarr_pool *p, arena *a, chunk *c) {
  int b = bin_of(c->block.size);
  chunk *prev = NULL, *at = a->bins[b];
  while (at && at->block.size < c->block.size) {
    prev = at;
    at = at->bin_next;
  }
  c->bin_prev = prev;
  c->bin_next = at;
  if (at)
    at->bin_prev = c;
  if (prev)
    prev->bin_next = c;
  else
    a->bins[b] = c;
  a->nonempty[b / 64] |= 1ULL << (b % 64);
  c->arena = a;
  p->n_free++;
}

static void bin_remove(cuarr_pool *p, chunk *c) {
  arena *a = c->arena;
  int b = bin_of(c->block.size);
  if (c->bin_prev)
    c->bin_prev->bin_next = c->bin_next;
  else
    a->bins[b] = c->bin_next;
  if (c->bin_next)
    c->bin_next->bin_prev = c->bin_prev;
  if (!a->bins[b])
    a->nonempty[b / 64] &= ~(1ULL << (b % 64));
  c->arena = NULL;
  p->n_free--;
}

/* The smallest free chunk of a that holds size bytes, or NULL. */
static chunk *best_fit(arena *a, size_t size) {
  int b = bin_of(size);
  for (chunk *c = a->bins[b]; c; c = c->bin_next)
    if (c->block.size >= size)
      return c;
  int next = next_bin(a, b + 1);
  return next < 0 ? NULL : a->bins[next]; /* every chunk there is larger: take the smallest */
}

/* ---------------------------------------------------------------- arenas and chunk structs */

static arena *arena_find(cuarr_pool *p, void *stream) {
  if (p->last && p->last->stream == stream)
    return p->last;
  for (int i = 0; i < p->n_arenas; i++)
    if (p->arenas[i]->stream == stream)
      return p->last = p->arenas[i];
  return NULL;
}

static arena *arena_get(cuarr_pool *p, void *stream) {
  arena *a = arena_find(p, stream);
  if (a)
    return a;
  if (p->n_arenas == p->cap_arenas) {
    int cap = p->cap_arenas ? 2 * p->cap_arenas : 4;
    arena **grown = realloc(p->arenas, (size_t)cap * sizeof *grown);
    if (!grown)
      return NULL;
    p->arenas = grown;
    p->cap_arenas = cap;
  }
  a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  a->stream = stream;
  p->arenas[p->n_arenas++] = a;
  return p->last = a;
}

/* Drop the arenas that file nothing (streams long gone, most likely). */
static void arenas_prune(cuarr_pool *p) {
  int kept = 0;
  for (int i = 0; i < p->n_arenas; i++) {
    arena *a = p->arenas[i];
    if (next_bin(a, 0) < 0)
      free(a);
    else
      p->arenas[kept++] = a;
  }
  p->n_arenas = kept;
  p->last = NULL;
}

static chunk *chunk_get(cuarr_pool *p) {
  chunk *c = p->spare;
  if (c)
    p->spare = c->bin_next;
  else if (!(c = malloc(sizeof *c)))
    return NULL;
  memset(c, 0, sizeof *c);
  return c;
}

static void chunk_put(cuarr_pool *p, chunk *c) {
  c->bin_next = p->spare;
  p->spare = c;
}

static void spares_free(cuarr_pool *p) {
  for (chunk *c = p->spare, *next; c; c = next) {
    next = c->bin_next;
    free(c);
  }
  p->spare = NULL;
}

/* ---------------------------------------------------------------- segments */

static void segment_link(cuarr_pool *p, chunk *head) {
  head->seg_prev = NULL;
  head->seg_next = p->segments;
  if (p->segments)
    p->segments->seg_prev = head;
  p->segments = head;
}

static void segment_unlink(cuarr_pool *p, chunk *head) {
  if (head->seg_prev)
    head->seg_prev->seg_next = head->seg_next;
  else
    p->segments = head->seg_next;
  if (head->seg_next)
    head->seg_next->seg_prev = head->seg_prev;
}

/* Give back every segment whose chunks are all free, on whichever streams' lists they are
 * (a segment freed piecewise on two streams is whole again for the raw allocator). */
static void release_free_segments(cuarr_pool *p) {
  chunk *next_head;
  for (chunk *head = p->segments; head; head = next_head) {
    next_head = head->seg_next;
    size_t size = 0;
    chunk *c = head;
    for (; c && c->arena; c = c->next)
      size += c->block.size;
    if (c)
      continue; /* a chunk is in use */
    void *base = head->block.ptr;
    segment_unlink(p, head);
    for (c = head; c;) {
      chunk *next = c->next;
      bin_remove(p, c);
      chunk_put(p, c);
      c = next;
    }
    p->total -= size;
    p->raw.free(p->raw.state, base, size);
  }
}

/* ---------------------------------------------------------------- allocation */

static void hold_adopt(cuarr_pool *p, chunk *c, void *stream);
static void hold_take(cuarr_pool *p, chunk *c, void *stream);

static size_t round_size(size_t size) { return size == 0 ? UNIT : (size + UNIT - 1) / UNIT * UNIT; }

/* Hand out a chunk of `size` bytes from stream's free chunks; NULL if none fits. */
static chunk *take_free(cuarr_pool *p, size_t size, void *stream) {
  arena *a = arena_find(p, stream);
  chunk *c = a ? best_fit(a, size) : NULL;
  if (!c)
    return NULL;
  bin_remove(p, c);
  chunk *rest = c->block.size > size ? chunk_get(p) : NULL;
  /* Without a struct for the remainder (malloc failed) the whole chunk is handed out: the
   * block is larger than asked, and the statistics stay exact. */
  if (rest) {
    rest->block.ptr = (char *)c->block.ptr + size;
    rest->block.size = c->block.size - size;
    rest->prev = c;
    rest->next = c->next;
    if (c->next)
      c->next->prev = rest;
    c->next = rest;
    c->block.size = size;
    bin_insert(p, a, rest);
  }
  p->used += c->block.size;
  return c;
}

/* A new segment of exactly `size` bytes, handed out whole (CuPy does the same: it keeps
 * fragmentation down for workloads that repeat their sizes). */
static cuarr_status take_new(cuarr_pool *p, size_t size, chunk **out) {
  if (p->limit && (p->total > p->limit || size > p->limit - p->total))
    return CUARR_OUT_OF_MEMORY;
  chunk *c = chunk_get(p);
  if (!c)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory");
  void *ptr = NULL;
  cuarr_status s = p->raw.alloc(p->raw.state, size, &ptr);
  if (s != CUARR_OK) {
    chunk_put(p, c);
    return s;
  }
  c->block.ptr = ptr;
  c->block.size = size;
  segment_link(p, c);
  p->total += size;
  p->used += size;
  *out = c;
  return CUARR_OK;
}

static cuarr_status out_of_memory(cuarr_pool *p, size_t size) {
  char limit[48] = "none", capacity[64] = "";
  if (p->limit)
    snprintf(limit, sizeof limit, "%zu bytes", p->limit);
  if (p->capacity)
    snprintf(capacity, sizeof capacity, ", device total: %zu bytes", p->capacity);
  return cuarr_fail(CUARR_OUT_OF_MEMORY,
                    "out of memory allocating %zu bytes (in use: %zu bytes, limit: %s%s)", size,
                    p->used, limit, capacity);
}

cuarr_status cuarr_pool_alloc(cuarr_pool *p, size_t size, void *stream, cuarr_reclaim reclaim,
                              cuarr_block **out) {
  if (size > SIZE_MAX - UNIT)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of memory allocating %zu bytes", size);
  size = round_size(size);
  chunk *c = NULL;
  cuarr_status s = CUARR_OK;
  pthread_mutex_lock(&p->lock);
  if ((c = take_free(p, size, stream)))
    goto done;
  if ((s = take_new(p, size, &c)) != CUARR_OUT_OF_MEMORY)
    goto done;
  /* 1: the cached segments of every stream go back to the raw allocator. */
  release_free_segments(p);
  if ((s = take_new(p, size, &c)) != CUARR_OUT_OF_MEMORY)
    goto done;
  /* 2: the client frees what it can (Lua's finalizers call cuarr_pool_free, so unlocked). */
  if (reclaim.fn) {
    pthread_mutex_unlock(&p->lock);
    reclaim.fn(reclaim.ud);
    pthread_mutex_lock(&p->lock);
    if ((c = take_free(p, size, stream)))
      goto done;
    release_free_segments(p);
    if ((s = take_new(p, size, &c)) != CUARR_OUT_OF_MEMORY)
      goto done;
  }
  s = out_of_memory(p, size);
done:
  if (c && p->n_owning)
    hold_adopt(p, c, stream);
  pthread_mutex_unlock(&p->lock);
  if (!c)
    return s;
  *out = &c->block;
  return CUARR_OK;
}

/* Give c back to the free lists of stream's arena, merging it with free neighbours there. */
static void free_locked(cuarr_pool *p, chunk *c, void *stream) {
  arena *a = arena_get(p, stream);
  if (!a)
    return; /* no memory for a new arena: the chunk stays counted as in use (a leak, not a crash) */
  p->used -= c->block.size;
  chunk *prev = c->prev, *next = c->next;
  if (prev && prev->arena == a) { /* prev absorbs c */
    bin_remove(p, prev);
    prev->block.size += c->block.size;
    prev->next = next;
    if (next)
      next->prev = prev;
    chunk_put(p, c);
    c = prev;
  }
  if (next && next->arena == a) { /* c absorbs next */
    bin_remove(p, next);
    c->block.size += next->block.size;
    c->next = next->next;
    if (next->next)
      next->next->prev = c;
    chunk_put(p, next);
  }
  bin_insert(p, a, c);
}

void cuarr_pool_free(cuarr_pool *p, cuarr_block *b, void *stream) {
  if (!p || !b)
    return;
  chunk *c = (chunk *)b;
  pthread_mutex_lock(&p->lock);
  if (c->owner || p->open_holds)
    hold_take(p, c, stream);
  else
    free_locked(p, c, stream);
  pthread_mutex_unlock(&p->lock);
}

/* ---------------------------------------------------------------- holds */

static void list_push(chunk **head, chunk *c) {
  c->hold_prev = NULL;
  c->hold_next = *head;
  if (*head)
    (*head)->hold_prev = c;
  *head = c;
}

static void list_remove(chunk **head, chunk *c) {
  if (c->hold_prev)
    c->hold_prev->hold_next = c->hold_next;
  else
    *head = c->hold_next;
  if (c->hold_next)
    c->hold_next->hold_prev = c->hold_prev;
  c->hold_prev = c->hold_next = NULL;
}

/* A chunk just handed out on stream belongs to the innermost open owning hold of that stream. */
static void hold_adopt(cuarr_pool *p, chunk *c, void *stream) {
  for (cuarr_hold *h = p->open_holds; h; h = h->outer)
    if (h->owning && h->stream == stream) {
      c->owner = h;
      list_push(&h->owned, c);
      return;
    }
}

/* A released chunk goes to the hold that owns it, else to the innermost open hold. */
static void hold_take(cuarr_pool *p, chunk *c, void *stream) {
  cuarr_hold *h = c->owner;
  if (h)
    list_remove(&h->owned, c);
  else
    h = p->open_holds;
  c->owner = h;
  c->held_stream = stream;
  list_push(&h->held, c);
  h->held_bytes += c->block.size;
  p->held += c->block.size;
}

static void hold_close_locked(cuarr_pool *p, cuarr_hold *h) {
  if (!h->open)
    return;
  for (cuarr_hold **at = &p->open_holds; *at; at = &(*at)->outer)
    if (*at == h) {
      *at = h->outer;
      break;
    }
  h->outer = NULL;
  h->open = false;
  if (h->owning)
    p->n_owning--;
}

cuarr_status cuarr_hold_begin(cuarr_pool *p, bool owning, void *stream, cuarr_hold **out) {
  if (!p)
    return cuarr_fail(CUARR_VALUE_ERROR, "no pool given");
  cuarr_hold *h = calloc(1, sizeof *h);
  if (!h)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "out of host memory opening a memory hold");
  h->pool = p;
  h->owning = owning;
  h->stream = stream;
  h->open = true;
  pthread_mutex_lock(&p->lock);
  h->outer = p->open_holds;
  p->open_holds = h;
  if (owning)
    p->n_owning++;
  pthread_mutex_unlock(&p->lock);
  *out = h;
  return CUARR_OK;
}

void cuarr_hold_end(cuarr_hold *h) {
  if (!h)
    return;
  pthread_mutex_lock(&h->pool->lock);
  hold_close_locked(h->pool, h);
  pthread_mutex_unlock(&h->pool->lock);
}

void cuarr_hold_release(cuarr_hold *h) {
  if (!h)
    return;
  cuarr_pool *p = h->pool;
  pthread_mutex_lock(&p->lock);
  hold_close_locked(p, h);
  while (h->owned) { /* still in use: ordinary blocks from now on */
    chunk *c = h->owned;
    list_remove(&h->owned, c);
    c->owner = NULL;
  }
  while (h->held) {
    chunk *c = h->held;
    list_remove(&h->held, c);
    c->owner = NULL;
    p->held -= c->block.size;
    if (p->open_holds) /* another hold is open: the release is held there in turn */
      hold_take(p, c, c->held_stream);
    else
      free_locked(p, c, c->held_stream);
  }
  pthread_mutex_unlock(&p->lock);
  free(h);
}

size_t cuarr_hold_held_bytes(cuarr_hold *h) {
  pthread_mutex_lock(&h->pool->lock);
  size_t n = h->held_bytes;
  pthread_mutex_unlock(&h->pool->lock);
  return n;
}

/* ---------------------------------------------------------------- the pool */

cuarr_pool *cuarr_pool_new(cuarr_raw_allocator raw, size_t capacity) {
  cuarr_pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return NULL;
  }
  p->raw = raw;
  p->capacity = capacity;
  return p;
}

void cuarr_pool_delete(cuarr_pool *p) {
  if (!p)
    return;
  release_free_segments(p);
  /* Segments with blocks in use keep their raw memory (it may still be in use); their chunk
   * structs go. */
  for (chunk *head = p->segments, *next_head; head; head = next_head) {
    next_head = head->seg_next;
    for (chunk *c = head, *next; c; c = next) {
      next = c->next;
      free(c);
    }
  }
  spares_free(p);
  for (int i = 0; i < p->n_arenas; i++)
    free(p->arenas[i]);
  free(p->arenas);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

/* Everything cached goes: free segments, the arenas of streams with nothing filed, and the
 * spare chunk structs (the next allocations malloc theirs again). */
void cuarr_pool_free_all_blocks(cuarr_pool *p) {
  pthread_mutex_lock(&p->lock);
  release_free_segments(p);
  arenas_prune(p);
  spares_free(p);
  pthread_mutex_unlock(&p->lock);
}

/* Statistics and settings: one field read or written under the lock. */
#define POOL_GETTER(name, expr)                                                                    \
  size_t name(cuarr_pool *p) {                                                                     \
    pthread_mutex_lock(&p->lock);                                                                  \
    size_t v = (expr);                                                                             \
    pthread_mutex_unlock(&p->lock);                                                                \
    return v;                                                                                      \
  }

POOL_GETTER(cuarr_pool_used_bytes, p->used)
POOL_GETTER(cuarr_pool_total_bytes, p->total)
POOL_GETTER(cuarr_pool_free_bytes, p->total - p->used)
POOL_GETTER(cuarr_pool_n_free_blocks, p->n_free)
POOL_GETTER(cuarr_pool_get_limit, p->limit)
POOL_GETTER(cuarr_pool_held_bytes, p->held)

void cuarr_pool_set_limit(cuarr_pool *p, size_t limit) {
  pthread_mutex_lock(&p->lock);
  p->limit = limit;
  pthread_mutex_unlock(&p->lock);
}

size_t cuarr_pool_capacity(cuarr_pool *p) { return p->capacity; /* fixed at creation */ }
