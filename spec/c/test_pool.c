/* test_pool.c -- the memory pool over a malloc-backed raw allocator, and host buffers.
 * Device pools need a GPU: without one, they must fail cleanly with NotAvailable. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

/* ---------------------------------------------------------------- a counting raw allocator */

typedef struct raw_state {
  int allocs, frees;
  size_t live;            /* bytes held by the pool */
  size_t cap;             /* fail (out of memory) past this many live bytes; 0: no cap */
  cuarr_status fail_with; /* fail every call with this status (CUARR_OK: don't) */
} raw_state;

static cuarr_status raw_alloc(void *state, size_t size, void **ptr) {
  raw_state *r = state;
  if (r->fail_with != CUARR_OK)
    return cuarr_fail(r->fail_with, "raw allocator says no");
  if (r->cap && r->live + size > r->cap)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "raw: full");
  *ptr = malloc(size);
  if (!*ptr)
    return CUARR_OUT_OF_MEMORY;
  r->allocs++;
  r->live += size;
  return CUARR_OK;
}

static void raw_free(void *state, void *ptr, size_t size) {
  raw_state *r = state;
  r->frees++;
  r->live -= size;
  free(ptr);
}

static cuarr_pool *new_pool(raw_state *r, size_t capacity) {
  memset(r, 0, sizeof *r);
  cuarr_raw_allocator raw = {raw_alloc, raw_free, r};
  return cuarr_pool_new(raw, capacity);
}

static const cuarr_reclaim no_reclaim = {NULL, NULL};
#define A ((void *)0x1) /* two stream handles; NULL is the null stream */
#define B ((void *)0x2)

static cuarr_block *get(cuarr_pool *p, size_t size, void *stream) {
  cuarr_block *b = NULL;
  return cuarr_pool_alloc(p, size, stream, no_reclaim, &b) == CUARR_OK ? b : NULL;
}

static bool stats(cuarr_pool *p, size_t used, size_t total, size_t n_free) {
  return cuarr_pool_used_bytes(p) == used && cuarr_pool_total_bytes(p) == total &&
         cuarr_pool_free_bytes(p) == total - used && cuarr_pool_n_free_blocks(p) == n_free;
}

/* ---------------------------------------------------------------- tests */

static void test_rounding(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_block *b0 = get(p, 0, NULL), *b1 = get(p, 1, NULL), *b2 = get(p, 512, NULL),
              *b3 = get(p, 513, NULL);
  CHECK(b0 && b0->size == 512, "rounding: 0 bytes gives a 512-byte block");
  CHECK(b1 && b1->size == 512, "rounding: 1 byte gives 512");
  CHECK(b2 && b2->size == 512, "rounding: 512 stays 512");
  CHECK(b3 && b3->size == 1024, "rounding: 513 gives 1024");
  CHECK(stats(p, 2560, 2560, 0), "rounding: used and total count rounded sizes");
  cuarr_block *huge = NULL;
  CHECK(cuarr_pool_alloc(p, SIZE_MAX - 3, NULL, no_reclaim, &huge) == CUARR_OUT_OF_MEMORY,
        "rounding: a size that overflows when rounded is out of memory");
  cuarr_pool_free(p, b0, NULL);
  cuarr_pool_free(p, b1, NULL);
  cuarr_pool_free(p, b2, NULL);
  cuarr_pool_free(p, b3, NULL);
  cuarr_pool_delete(p);
  CHECK(r.allocs == 4 && r.frees == 4 && r.live == 0, "delete gives every free segment back");
}

static void test_stats(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  CHECK(stats(p, 0, 0, 0), "stats: a new pool is empty");
  cuarr_block *a = get(p, 1000, NULL), *b = get(p, 5000, NULL);
  CHECK(stats(p, 1024 + 5120, 6144, 0), "stats: two blocks, two segments of their size");
  CHECK(r.allocs == 2, "stats: each new block is one raw allocation of the rounded size");
  cuarr_pool_free(p, a, NULL);
  CHECK(stats(p, 5120, 6144, 1), "stats: a freed block is cached, not given back");
  cuarr_block *c = get(p, 512, NULL);
  CHECK(c && r.allocs == 2, "stats: a smaller request is carved from the cached chunk");
  CHECK(stats(p, 5632, 6144, 1), "stats: the split leaves one free remainder");
  cuarr_pool_free(p, c, NULL);
  CHECK(stats(p, 5120, 6144, 1), "stats: freeing merges back into one free chunk");
  cuarr_pool_free(p, b, NULL);
  CHECK(stats(p, 0, 6144, 2), "stats: everything free, two segments");
  cuarr_pool_free_all_blocks(p);
  CHECK(stats(p, 0, 0, 0) && r.frees == 2 && r.live == 0, "stats: free_all_blocks empties it");
  cuarr_pool_delete(p);
}

static void test_best_fit(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_block *s4 = get(p, 4096, NULL), *s2 = get(p, 2048, NULL), *s8 = get(p, 8192, NULL);
  void *p4 = s4->ptr, *p2 = s2->ptr, *p8 = s8->ptr;
  cuarr_pool_free(p, s8, NULL);
  cuarr_pool_free(p, s2, NULL);
  cuarr_pool_free(p, s4, NULL);
  cuarr_block *x = get(p, 2000, NULL);
  CHECK(x && x->ptr == p2 && x->size == 2048, "best fit: 2048 from the 2048 chunk");
  cuarr_block *y = get(p, 3000, NULL);
  CHECK(y && y->ptr == p4 && y->size == 3072, "best fit: 3072 from the 4096 chunk, not 8192");
  cuarr_block *z = get(p, 6000, NULL);
  CHECK(z && z->ptr == p8, "best fit: 6144 from the 8192 chunk");
  CHECK(r.allocs == 3, "best fit: no new segment");
  cuarr_pool_free(p, x, NULL);
  cuarr_pool_free(p, y, NULL);
  cuarr_pool_free(p, z, NULL);
  cuarr_pool_free_all_blocks(p);

  /* Sizes of one size class (40..43 units of 512): the bin is searched in size order. */
  cuarr_block *u43 = get(p, 43 * 512, NULL), *u41 = get(p, 41 * 512, NULL);
  void *p43 = u43->ptr, *p41 = u41->ptr;
  cuarr_pool_free(p, u43, NULL);
  cuarr_pool_free(p, u41, NULL);
  cuarr_block *v = get(p, 40 * 512, NULL);
  CHECK(v && v->ptr == p41, "best fit: within a size class the smallest fitting chunk");
  cuarr_block *w = get(p, 42 * 512, NULL);
  CHECK(w && w->ptr == p43, "best fit: then the next one up");
  cuarr_block *big = get(p, 42 * 512, NULL);
  CHECK(big && big->ptr != p43 && big->ptr != p41, "best fit: none fits, a new segment");
  cuarr_pool_free(p, v, NULL);
  cuarr_pool_free(p, w, NULL);
  cuarr_pool_free(p, big, NULL);
  cuarr_pool_delete(p);
  CHECK(r.live == 0 && r.allocs == r.frees, "best fit: all given back");
}

static void test_split_merge(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_block *s = get(p, 8192, NULL);
  char *base = s->ptr;
  cuarr_pool_free(p, s, NULL);
  cuarr_block *a = get(p, 1024, NULL), *b = get(p, 2048, NULL), *c = get(p, 1024, NULL);
  CHECK(a && b && c && r.allocs == 1, "split: three blocks from one segment");
  CHECK(a->ptr == base && (char *)b->ptr == base + 1024 && (char *)c->ptr == base + 3072,
        "split: blocks are laid out in order");
  CHECK(stats(p, 4096, 8192, 1), "split: the rest is one free chunk");
  cuarr_pool_free(p, b, NULL);
  CHECK(stats(p, 2048, 8192, 2), "merge: a chunk between two in use stays alone");
  cuarr_pool_free(p, a, NULL);
  CHECK(stats(p, 1024, 8192, 2), "merge: with its free right neighbour");
  cuarr_pool_free(p, c, NULL);
  CHECK(stats(p, 0, 8192, 1), "merge: left and right, back to one chunk");
  cuarr_block *all = get(p, 8192, NULL);
  CHECK(all && all->ptr == base && r.allocs == 1, "merge: the whole segment is handed out again");
  cuarr_pool_free(p, all, NULL);
  cuarr_pool_delete(p);
}

static void test_streams(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_block *a = get(p, 4096, A);
  void *pa = a->ptr;
  cuarr_pool_free(p, a, A);
  cuarr_block *b = get(p, 4096, B);
  CHECK(b && b->ptr != pa && r.allocs == 2, "streams: A's free chunk is not given to B");
  cuarr_block *n = get(p, 4096, NULL);
  CHECK(n && n->ptr != pa && r.allocs == 3, "streams: nor to the null stream");
  cuarr_block *a2 = get(p, 4096, A);
  CHECK(a2 && a2->ptr == pa && r.allocs == 3, "streams: but to A again");
  cuarr_pool_free(p, a2, B); /* last used on B: filed under B */
  cuarr_block *a3 = get(p, 4096, A);
  CHECK(a3 && a3->ptr != pa, "streams: a block freed on B is B's");
  cuarr_block *b2 = get(p, 4096, B);
  CHECK(b2 && b2->ptr == pa, "streams: B gets it");
  cuarr_pool_free(p, a3, A);
  cuarr_pool_free(p, b, B);
  cuarr_pool_free(p, b2, B);
  cuarr_pool_free(p, n, NULL);
  cuarr_pool_free_all_blocks(p);
  CHECK(stats(p, 0, 0, 0), "streams: free_all_blocks releases every stream's segments");

  /* Neighbours freed on different streams do not merge; the segment is still wholly free. */
  cuarr_block *s = get(p, 8192, A);
  cuarr_pool_free(p, s, A);
  cuarr_block *x = get(p, 4096, A), *y = get(p, 4096, A);
  cuarr_pool_free(p, x, A);
  cuarr_pool_free(p, y, B);
  CHECK(stats(p, 0, 8192, 2), "streams: neighbours on two streams stay two chunks");
  cuarr_pool_free_all_blocks(p);
  CHECK(stats(p, 0, 0, 0) && r.live == 0, "streams: a segment free across streams is released");
  cuarr_pool_delete(p);
}

static void test_limit(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  CHECK(cuarr_pool_get_limit(p) == 0, "limit: none by default");
  cuarr_pool_set_limit(p, 4096);
  CHECK(cuarr_pool_get_limit(p) == 4096, "limit: set and get");
  cuarr_block *a = get(p, 2048, NULL), *b = get(p, 2048, NULL), *c = NULL;
  CHECK(a && b, "limit: allocations up to the limit succeed");
  cuarr_status s = cuarr_pool_alloc(p, 1, NULL, no_reclaim, &c);
  const char *msg = cuarr_last_error();
  CHECK(s == CUARR_OUT_OF_MEMORY && !c, "limit: the one crossing it is out of memory");
  CHECK(strstr(msg, "allocating 512 bytes") && strstr(msg, "in use: 4096 bytes") &&
            strstr(msg, "limit: 4096 bytes"),
        "limit: the message names requested, in use and limit");
  cuarr_pool_free(p, a, NULL);
  c = get(p, 1, NULL);
  CHECK(c != NULL && r.allocs == 2, "limit: works again after a free");
  cuarr_pool_free(p, b, NULL);
  cuarr_pool_free(p, c, NULL);

  /* Cached segments of another stream are given back to make room. */
  cuarr_pool_free_all_blocks(p);
  cuarr_block *on_a = get(p, 4096, A);
  cuarr_pool_free(p, on_a, A);
  int frees = r.frees;
  cuarr_block *on_b = get(p, 4096, B);
  CHECK(on_b && r.frees == frees + 1, "limit: A's cached segment is released for B");
  cuarr_pool_free(p, on_b, B);
  cuarr_pool_delete(p);

  /* The message without a limit, with the capacity known. */
  p = new_pool(&r, 1 << 20);
  r.cap = 1 << 20;
  CHECK(cuarr_pool_capacity(p) == 1 << 20, "limit: capacity as given");
  s = cuarr_pool_alloc(p, 2 << 20, NULL, no_reclaim, &c);
  msg = cuarr_last_error();
  CHECK(s == CUARR_OUT_OF_MEMORY && strstr(msg, "allocating 2097152 bytes") &&
            strstr(msg, "limit: none") && strstr(msg, "1048576"),
        "limit: 'limit: none' and the device total");
  cuarr_pool_delete(p);
}

/* A reclaim callback that frees a block the "client" held, as Lua's GC would. */
typedef struct held {
  cuarr_pool *pool;
  cuarr_block *block;
  int calls;
} held;

static void reclaim_held(void *ud) {
  held *h = ud;
  h->calls++;
  if (h->block)
    cuarr_pool_free(h->pool, h->block, NULL); /* takes the pool's lock */
  h->block = NULL;
}

static void test_reclaim(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_pool_set_limit(p, 2048);
  held h = {p, NULL, 0};
  cuarr_reclaim rc = {reclaim_held, &h};
  cuarr_block *b = NULL;
  CHECK(cuarr_pool_alloc(p, 2048, NULL, rc, &b) == CUARR_OK && h.calls == 0,
        "reclaim: not called when memory is there");
  h.block = b;
  void *where = b->ptr;
  cuarr_block *c = NULL;
  CHECK(cuarr_pool_alloc(p, 1024, NULL, rc, &c) == CUARR_OK && h.calls == 1,
        "reclaim: called once, and the block it frees makes the retry succeed");
  CHECK(c && c->ptr == where && stats(p, 1024, 2048, 1) && r.allocs == 1,
        "reclaim: the retry reuses the freed block");
  cuarr_block *d = NULL;
  CHECK(cuarr_pool_alloc(p, 2048, NULL, rc, &d) == CUARR_OUT_OF_MEMORY && h.calls == 2,
        "reclaim: nothing to reclaim, out of memory after one call");
  cuarr_pool_free(p, c, NULL);
  cuarr_pool_delete(p);
  CHECK(r.live == 0, "reclaim: all given back");
}

static void test_free_all_blocks(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  cuarr_block *s1 = get(p, 8192, NULL);
  cuarr_pool_free(p, s1, NULL);
  cuarr_block *live = get(p, 1024, NULL); /* in segment 1 */
  cuarr_block *s2 = get(p, 16384, NULL);  /* too big for segment 1: segment 2 */
  cuarr_pool_free(p, s2, NULL);
  CHECK(r.allocs == 2 && stats(p, 1024, 24576, 2), "free_all_blocks: before");
  cuarr_pool_free_all_blocks(p);
  CHECK(r.frees == 1 && stats(p, 1024, 8192, 1),
        "free_all_blocks: only the wholly free segment goes");
  cuarr_pool_free(p, live, NULL);
  cuarr_pool_free_all_blocks(p);
  CHECK(r.frees == 2 && stats(p, 0, 0, 0), "free_all_blocks: then the other");
  cuarr_pool_delete(p);
}

static void test_raw_failure(void) {
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  r.cap = 10000;
  cuarr_block *a = get(p, 8192, NULL), *b = NULL;
  cuarr_status s = cuarr_pool_alloc(p, 4096, NULL, no_reclaim, &b);
  CHECK(a && s == CUARR_OUT_OF_MEMORY && !b, "raw failure: out of memory");
  CHECK(strstr(cuarr_last_error(), "allocating 4096 bytes") &&
            strstr(cuarr_last_error(), "in use: 8192 bytes"),
        "raw failure: the pool's message");
  CHECK(stats(p, 8192, 8192, 0), "raw failure: stats unchanged");
  cuarr_pool_free(p, a, A); /* cached on A */
  b = get(p, 4096, B);
  CHECK(b && r.frees == 1 && stats(p, 4096, 4096, 0),
        "raw failure: cached segments are released and the retry succeeds");
  r.fail_with = CUARR_CUDA_ERROR;
  cuarr_block *c = NULL;
  s = cuarr_pool_alloc(p, 512, NULL, no_reclaim, &c);
  CHECK(s == CUARR_CUDA_ERROR && strstr(cuarr_last_error(), "raw allocator says no"),
        "raw failure: other errors pass through as they are");
  r.fail_with = CUARR_OK;
  cuarr_pool_free(p, b, B);
  cuarr_pool_delete(p);
  CHECK(r.live == 0, "raw failure: all given back");
}

/* ---------------------------------------------------------------- stress */

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

typedef struct live_block {
  cuarr_block *b;
  void *stream;
  unsigned char tag;
} live_block;

static int by_ptr(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)((const live_block *)x)->b->ptr;
  uintptr_t b = (uintptr_t)((const live_block *)y)->b->ptr;
  return (a > b) - (a < b);
}

static bool tag_intact(const live_block *l) {
  const unsigned char *m = l->b->ptr;
  for (size_t i = 0; i < l->b->size; i += 61)
    if (m[i] != l->tag)
      return false;
  return m[l->b->size - 1] == l->tag;
}

static void test_stress(void) {
  enum { OPS = 10000, MAX_LIVE = 300 };
  void *streams[3] = {NULL, A, B};
  raw_state r;
  cuarr_pool *p = new_pool(&r, 0);
  live_block live[MAX_LIVE], sorted[MAX_LIVE];
  int n = 0;
  bool ok_alloc = true, ok_stats = true, ok_overlap = true, ok_tags = true;
  for (int op = 0; op < OPS; op++) {
    if (n < MAX_LIVE && (n == 0 || rng() % 100 < 55)) {
      /* small sizes mostly, a few large ones, some exact repeats */
      size_t size = rng() % 10 == 0 ? rng() % (256 << 10) : rng() % 8 == 0 ? 4096 : rng() % 5000;
      void *stream = streams[rng() % 3];
      cuarr_block *b = get(p, size, stream);
      if (!b || b->size < size || b->size % 512 || (size == 0 && b->size != 512)) {
        ok_alloc = false;
        break;
      }
      live[n] = (live_block){b, stream, (unsigned char)(op & 0xff)};
      memset(b->ptr, live[n].tag, b->size);
      n++;
    } else {
      int i = (int)(rng() % (uint64_t)n);
      if (!tag_intact(&live[i]))
        ok_tags = false;
      void *stream = rng() % 10 == 0 ? streams[rng() % 3] : live[i].stream;
      cuarr_pool_free(p, live[i].b, stream);
      live[i] = live[--n];
    }
    if (op % 997 == 0)
      cuarr_pool_free_all_blocks(p);
    size_t used = 0;
    for (int i = 0; i < n; i++)
      used += live[i].b->size;
    size_t total = cuarr_pool_total_bytes(p), n_free = cuarr_pool_n_free_blocks(p);
    if (cuarr_pool_used_bytes(p) != used || total != r.live || total < used ||
        cuarr_pool_free_bytes(p) != total - used || (n_free == 0) != (total == used))
      ok_stats = false;
    memcpy(sorted, live, (size_t)n * sizeof *live);
    qsort(sorted, (size_t)n, sizeof *sorted, by_ptr);
    for (int i = 0; i + 1 < n; i++)
      if ((char *)sorted[i].b->ptr + sorted[i].b->size > (char *)sorted[i + 1].b->ptr)
        ok_overlap = false;
  }
  CHECK(ok_alloc, "stress: every allocation succeeds with a rounded size");
  CHECK(ok_stats, "stress: used/total/free/n_free_blocks stay exact");
  CHECK(ok_overlap, "stress: no two live blocks overlap");
  CHECK(ok_tags, "stress: no block's contents are disturbed by others");
  for (int i = 0; i < n; i++)
    cuarr_pool_free(p, live[i].b, live[i].stream);
  CHECK(cuarr_pool_used_bytes(p) == 0, "stress: all freed");
  cuarr_pool_free_all_blocks(p);
  CHECK(stats(p, 0, 0, 0) && r.live == 0 && r.allocs == r.frees,
        "stress: every segment merged whole and given back");
  cuarr_pool_delete(p);
}

/* Several threads on one pool, each on its own stream and on the shared null stream. */
typedef struct worker {
  cuarr_pool *pool;
  void *stream;
  uint64_t seed;
  bool ok;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  cuarr_block *mine[64] = {0};
  w->ok = true;
  for (int i = 0; i < 20000; i++) {
    w->seed = w->seed * 6364136223846793005ULL + 1442695040888963407ULL;
    int k = (int)((w->seed >> 33) % 64);
    void *stream = k % 2 ? w->stream : NULL;
    if (mine[k]) {
      cuarr_pool_free(w->pool, mine[k], stream);
      mine[k] = NULL;
    } else if (cuarr_pool_alloc(w->pool, (w->seed >> 40) % 20000, stream, no_reclaim, &mine[k]) !=
               CUARR_OK) {
      w->ok = false;
    } else {
      memset(mine[k]->ptr, k, mine[k]->size);
    }
  }
  for (int k = 0; k < 64; k++)
    if (mine[k])
      cuarr_pool_free(w->pool, mine[k], k % 2 ? w->stream : NULL);
  return NULL;
}

static void test_threads(void) {
  raw_state r;
  /* the raw allocator's counters are not atomic: the pool calls it under its lock */
  cuarr_pool *p = new_pool(&r, 0);
  worker w[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){p, (void *)(uintptr_t)(0x100 + i), (uint64_t)i + 1, false};
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  bool ok = true;
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    ok = ok && w[i].ok;
  }
  CHECK(ok, "threads: every allocation succeeded");
  CHECK(cuarr_pool_used_bytes(p) == 0 && cuarr_pool_total_bytes(p) == r.live,
        "threads: stats consistent afterwards");
  cuarr_pool_free_all_blocks(p);
  CHECK(stats(p, 0, 0, 0) && r.live == 0, "threads: everything merged and given back");
  cuarr_pool_delete(p);
}

/* ---------------------------------------------------------------- buffers */

static int released;
static void count_release(cuarr_buffer *b) {
  released++;
  (void)b;
}

static void test_buffers(void) {
  cuarr_buffer *b = NULL;
  CHECK(cuarr_buffer_new_host(0, false, no_reclaim, &b) == CUARR_OK && b && b->ptr &&
            b->nbytes == 0 && b->refs == 1 && b->device == CUARR_HOST && !b->pinned,
        "buffer: a 0-byte host buffer has an address");
  cuarr_buffer_release(b);

  CHECK(cuarr_buffer_new_host(100, false, no_reclaim, &b) == CUARR_OK && b->nbytes == 100,
        "buffer: host buffer of 100 bytes");
  memset(b->ptr, 7, 100);
  cuarr_buffer_retain(b);
  CHECK(b->refs == 2, "buffer: retain counts");
  cuarr_buffer_release(b);
  CHECK(b->refs == 1 && b->ptr, "buffer: release counts down, memory stays");
  cuarr_buffer_free(b);
  CHECK(b->ptr == NULL, "buffer: free gives the memory back now");
  cuarr_buffer_free(b);
  CHECK(b->ptr == NULL, "buffer: free twice is harmless");
  cuarr_buffer_release(b); /* the struct goes (valgrind checks) */

  int owned = 42;
  released = 0;
  CHECK(cuarr_buffer_wrap(&owned, sizeof owned, CUARR_HOST, false, count_release, &owned, &b) ==
                CUARR_OK &&
            b->ptr == &owned && b->release_state == &owned,
        "wrap: the caller's memory, zero-copy");
  cuarr_buffer_retain(b);
  cuarr_buffer_release(b);
  CHECK(released == 0, "wrap: not released while referenced");
  cuarr_buffer_free(b);
  cuarr_buffer_free(b);
  CHECK(released == 1 && b->ptr == NULL, "wrap: free calls release once");
  cuarr_buffer_release(b);
  CHECK(released == 1, "wrap: and the last release does not call it again");

  released = 0;
  cuarr_buffer_wrap(&owned, sizeof owned, 0, false, count_release, NULL, &b);
  cuarr_buffer_retain(b);
  cuarr_buffer_release(b);
  cuarr_buffer_release(b);
  CHECK(released == 1, "wrap: the last release calls release once");

  CHECK(cuarr_buffer_wrap(&owned, sizeof owned, CUARR_HOST, false, NULL, NULL, &b) == CUARR_OK,
        "wrap: without a release callback");
  cuarr_buffer_free(b);
  cuarr_buffer_release(b);
}

/* Without a GPU the device pools fail cleanly; with one, they work. */
static void test_device_pools(void) {
  cuarr_reclaim none = {NULL, NULL};
  cuarr_buffer *b = NULL;
  if (!cuarr_is_available()) {
    CHECK(cuarr_device_pool(0) == NULL && cuarr_last_error()[0],
          "device pool: none without a GPU, with a message");
    CHECK(cuarr_buffer_new_device(0, 1024, NULL, none, &b) == CUARR_NOT_AVAILABLE,
          "device buffer: NotAvailable without a GPU");
    CHECK(cuarr_pinned_pool() == NULL, "pinned pool: none without a driver");
    CHECK(cuarr_buffer_new_host(1024, true, none, &b) == CUARR_NOT_AVAILABLE,
          "pinned buffer: NotAvailable without a driver");
    return;
  }
  cuarr_pool *p = cuarr_device_pool(0);
  CHECK(p && p == cuarr_device_pool(0), "device pool: one per device");
  CHECK(p && cuarr_pool_capacity(p) > 0, "device pool: capacity is the device's memory");
  CHECK(cuarr_device_pool(1 << 20) == NULL, "device pool: none for a device that does not exist");
  size_t used = p ? cuarr_pool_used_bytes(p) : 0;
  CHECK(cuarr_buffer_new_device(0, 1000, NULL, none, &b) == CUARR_OK && b->ptr && b->device == 0,
        "device buffer: allocated");
  CHECK(p && cuarr_pool_used_bytes(p) == used + 1024, "device buffer: from the pool");
  cuarr_buffer_release(b);
  CHECK(p && cuarr_pool_used_bytes(p) == used, "device buffer: back to the pool");
  CHECK(cuarr_buffer_new_host(1000, true, none, &b) == CUARR_OK && b->pinned && b->ptr,
        "pinned buffer: allocated");
  if (b && b->ptr)
    memset(b->ptr, 1, 1000);
  cuarr_buffer_release(b);
  cuarr_pool *pinned = cuarr_pinned_pool();
  CHECK(pinned && cuarr_pool_used_bytes(pinned) == 0, "pinned buffer: back to the pool");
}

int main(void) {
  test_rounding();
  test_stats();
  test_best_fit();
  test_split_merge();
  test_streams();
  test_limit();
  test_reclaim();
  test_free_all_blocks();
  test_raw_failure();
  test_stress();
  test_threads();
  test_buffers();
  test_device_pools();
  return ctest_done();
}
