/*
 * elementwise_cache.c -- each program's compiled variants, found by key without locks.
 *
 * Every operator call looks its kernel up here, so a hit must cost next to nothing: the key is
 * a small fixed struct (elementwise_private.h), hashed eight bytes at a time, and the table is
 * open-addressed with atomic slots that readers load without a lock.  Entries and tables are
 * never changed once published: a writer (under the cache's mutex, on a miss only) fills an
 * empty slot, or builds a table twice the size and publishes it whole.  A replaced table may
 * still be read by a concurrent lookup, so it is kept until the program is released; the
 * tables double, so what is kept is less than the live table.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/elementwise_private.h"
#include "kernel/util.h"

typedef struct entry {
  uint64_t hash;
  CUfunction function;
  size_t key_bytes;
  cuarr_ew_key key; /* the first key_bytes are meaningful */
} entry;

typedef struct table {
  size_t mask;         /* slots - 1; slots is a power of two, at most half full */
  struct table *older; /* tables this one replaced, freed with the cache */
  _Atomic(entry *) slots[];
} table;

struct cuarr_ew_cache {
  _Atomic(table *) current;
  pthread_mutex_t lock; /* writers */
  size_t count;
  bool any_order;
};

#define FIRST_SLOTS 16

static table *table_new(size_t slots) {
  table *t = calloc(1, sizeof *t + slots * sizeof t->slots[0]);
  if (!t)
    return NULL;
  t->mask = slots - 1;
  for (size_t i = 0; i < slots; i++)
    atomic_init(&t->slots[i], NULL);
  return t;
}

/* ---------------------------------------------------------------- the cache of a program */

static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;

cuarr_status cuarr_ew_cache_of(cuarr_ew_program *program, cuarr_ew_cache **out) {
  cuarr_ew_cache *c = __atomic_load_n(&program->cache, __ATOMIC_ACQUIRE);
  if (c) {
    *out = c;
    return CUARR_OK;
  }
  pthread_mutex_lock(&make_lock);
  c = __atomic_load_n(&program->cache, __ATOMIC_ACQUIRE);
  if (!c) {
    c = calloc(1, sizeof *c);
    table *t = c ? table_new(FIRST_SLOTS) : NULL;
    if (t) {
      atomic_init(&c->current, t);
      pthread_mutex_init(&c->lock, NULL);
      /* An operation that does not use `i` cannot tell in which order elements are visited,
       * so the launcher may reorder axes for coalesced access. */
      c->any_order =
          !cuarr_ew_uses_index(program->operation) && !cuarr_ew_macros_use_index(program->preamble);
      __atomic_store_n(&program->cache, c, __ATOMIC_RELEASE);
    } else {
      free(c);
      c = NULL;
    }
  }
  pthread_mutex_unlock(&make_lock);
  if (!c)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache of %s",
                      program->name ? program->name : "a kernel");
  *out = c;
  return CUARR_OK;
}

bool cuarr_ew_cache_any_order(const cuarr_ew_cache *c) { return c->any_order; }

uint64_t cuarr_ew_key_hash(const cuarr_ew_key *k) {
  return cuarr_hash_bytes(CUARR_HASH_SEED, k, cuarr_ew_key_bytes(k));
}

static entry *find_in(table *t, const cuarr_ew_key *k, size_t bytes, uint64_t hash) {
  for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
    entry *e = atomic_load_explicit(&t->slots[i], memory_order_acquire);
    if (!e)
      return NULL;
    if (e->hash == hash && e->key_bytes == bytes && memcmp(&e->key, k, bytes) == 0)
      return e;
  }
}

CUfunction cuarr_ew_cache_find(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash) {
  table *t = atomic_load_explicit(&c->current, memory_order_acquire);
  entry *e = find_in(t, k, cuarr_ew_key_bytes(k), hash);
  return e ? e->function : NULL;
}

static void place(table *t, entry *e) {
  size_t i = e->hash & t->mask;
  while (atomic_load_explicit(&t->slots[i], memory_order_relaxed))
    i = (i + 1) & t->mask;
  atomic_store_explicit(&t->slots[i], e, memory_order_release);
}

cuarr_status cuarr_ew_cache_add(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash,
                                CUfunction f) {
  size_t bytes = cuarr_ew_key_bytes(k);
  pthread_mutex_lock(&c->lock);
  table *t = atomic_load_explicit(&c->current, memory_order_relaxed);
  if (find_in(t, k, bytes, hash)) { /* another thread's compile got here first */
    pthread_mutex_unlock(&c->lock);
    return CUARR_OK;
  }
  entry *e = malloc(sizeof *e);
  table *bigger = NULL;
  if (e && (c->count + 1) * 2 > t->mask + 1) {
    bigger = table_new((t->mask + 1) * 2);
    if (bigger) {
      for (size_t i = 0; i <= t->mask; i++) {
        entry *old = atomic_load_explicit(&t->slots[i], memory_order_relaxed);
        if (old)
          place(bigger, old);
      }
      bigger->older = t;
      atomic_store_explicit(&c->current, bigger, memory_order_release);
      t = bigger;
    }
  }
  if (!e || (c->count + 1) * 2 > t->mask + 1) {
    pthread_mutex_unlock(&c->lock);
    free(e);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache");
  }
  memset(e, 0, sizeof *e);
  e->hash = hash;
  e->function = f;
  e->key_bytes = bytes;
  memcpy(&e->key, k, bytes);
  place(t, e);
  c->count++;
  pthread_mutex_unlock(&c->lock);
  return CUARR_OK;
}

void cuarr_ew_program_release(cuarr_ew_program *program) {
  if (!program)
    return;
  cuarr_ew_cache *c = __atomic_exchange_n(&program->cache, NULL, __ATOMIC_ACQ_REL);
  if (!c)
    return;
  table *t = atomic_load(&c->current);
  for (size_t i = 0; i <= t->mask; i++)
    free(atomic_load(&t->slots[i]));
  while (t) {
    table *older = t->older;
    free(t);
    t = older;
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

/* ---------------------------------------------------------------- launch geometry */

#define MAX_DEVICES 64
/* Grid cap, blocks per multiprocessor: as copy_kernels.c's, beyond what is resident at once,
 * so that the last wave of a grid-stride launch is a small share of the work. */
#define BLOCKS_PER_SM 128

static _Atomic unsigned max_blocks[MAX_DEVICES];

cuarr_status cuarr_ew_max_blocks(int device, unsigned *out) {
  if (device < 0 || device >= MAX_DEVICES)
    return cuarr_fail(CUARR_VALUE_ERROR, "device %d: cuarr's kernels support devices 0 to %d",
                      device, MAX_DEVICES - 1);
  unsigned b = atomic_load_explicit(&max_blocks[device], memory_order_relaxed);
  if (!b) { /* two threads may both ask: they store the same value */
    cuarr_device_props props;
    CUARR_TRY(cuarr_device_properties(device, &props));
    b = (unsigned)(props.multiprocessors > 0 ? props.multiprocessors : 1) * BLOCKS_PER_SM;
    atomic_store_explicit(&max_blocks[device], b, memory_order_relaxed);
  }
  *out = b;
  return CUARR_OK;
}
