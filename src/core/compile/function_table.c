/*
 * function_table.c -- open addressing over atomic slots, read without locks.
 *
 * Every operator call looks its kernel up here, so a hit must cost next to nothing.  Entries
 * and tables are never changed once published: a writer (under the mutex, on a miss only)
 * fills an empty slot, or builds a table twice the size and publishes it whole.  A replaced
 * table may still be read by a concurrent lookup, so it is kept until the table is freed; the
 * tables double, so what is kept is less than the live table.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/function_table.h"
#include "compile/hash.h"

typedef struct entry {
  uint64_t hash;
  CUfunction function;
  size_t key_bytes;
  unsigned char key[]; /* key_bytes of them */
} entry;

typedef struct slots {
  size_t mask;         /* slots - 1; slots is a power of two, at most half full */
  struct slots *older; /* tables this one replaced, freed with it */
  _Atomic(entry *) slot[];
} slots;

struct cuarr_function_table {
  _Atomic(slots *) current;
  pthread_mutex_t lock; /* writers */
  size_t count;
};

#define FIRST_SLOTS 16

static slots *slots_new(size_t n) {
  slots *s = calloc(1, sizeof *s + n * sizeof s->slot[0]);
  if (!s)
    return NULL;
  s->mask = n - 1;
  for (size_t i = 0; i < n; i++)
    atomic_init(&s->slot[i], NULL);
  return s;
}

cuarr_function_table *cuarr_function_table_new(void) {
  cuarr_function_table *t = calloc(1, sizeof *t);
  slots *s = t ? slots_new(FIRST_SLOTS) : NULL;
  if (!s) {
    free(t);
    return NULL;
  }
  atomic_init(&t->current, s);
  pthread_mutex_init(&t->lock, NULL);
  return t;
}

void *cuarr_make_once(void **slot, void *(*make)(void *arg), void *arg) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  void *v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (v)
    return v;
  pthread_mutex_lock(&lock);
  v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!v) {
    v = make(arg);
    if (v)
      __atomic_store_n(slot, v, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return v;
}

void cuarr_function_table_free(cuarr_function_table *t) {
  if (!t)
    return;
  slots *s = atomic_load(&t->current);
  for (size_t i = 0; i <= s->mask; i++)
    free(atomic_load(&s->slot[i]));
  while (s) {
    slots *older = s->older;
    free(s);
    s = older;
  }
  pthread_mutex_destroy(&t->lock);
  free(t);
}

static entry *find_in(slots *s, const void *key, size_t bytes, uint64_t hash) {
  for (size_t i = hash & s->mask;; i = (i + 1) & s->mask) {
    entry *e = atomic_load_explicit(&s->slot[i], memory_order_acquire);
    if (!e)
      return NULL;
    if (e->hash == hash && e->key_bytes == bytes && memcmp(e->key, key, bytes) == 0)
      return e;
  }
}

CUfunction cuarr_function_table_find(cuarr_function_table *t, const void *key, size_t bytes,
                                     uint64_t hash) {
  entry *e = find_in(atomic_load_explicit(&t->current, memory_order_acquire), key, bytes, hash);
  return e ? e->function : NULL;
}

static void place(slots *s, entry *e) {
  size_t i = e->hash & s->mask;
  while (atomic_load_explicit(&s->slot[i], memory_order_relaxed))
    i = (i + 1) & s->mask;
  atomic_store_explicit(&s->slot[i], e, memory_order_release);
}

/* The current slots with room for one more entry (grown and published if need be); NULL when
 * out of memory.  Under the lock. */
static slots *room_for_one(cuarr_function_table *t) {
  slots *s = atomic_load_explicit(&t->current, memory_order_relaxed);
  if ((t->count + 1) * 2 <= s->mask + 1)
    return s;
  slots *bigger = slots_new((s->mask + 1) * 2);
  if (!bigger)
    return NULL;
  for (size_t i = 0; i <= s->mask; i++) {
    entry *old = atomic_load_explicit(&s->slot[i], memory_order_relaxed);
    if (old)
      place(bigger, old);
  }
  bigger->older = s;
  atomic_store_explicit(&t->current, bigger, memory_order_release);
  return bigger;
}

cuarr_status cuarr_function_table_add(cuarr_function_table *t, const void *key, size_t bytes,
                                      uint64_t hash, CUfunction f) {
  pthread_mutex_lock(&t->lock);
  cuarr_status s = CUARR_OK;
  if (!find_in(atomic_load_explicit(&t->current, memory_order_relaxed), key, bytes, hash)) {
    entry *e = malloc(sizeof *e + bytes);
    slots *room = e ? room_for_one(t) : NULL;
    if (room) {
      e->hash = hash;
      e->function = f;
      e->key_bytes = bytes;
      memcpy(e->key, key, bytes);
      place(room, e);
      t->count++;
    } else {
      free(e);
      s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache");
    }
  }
  pthread_mutex_unlock(&t->lock);
  return s;
}

static void *make_table(void *arg) {
  (void)arg;
  return cuarr_function_table_new();
}

cuarr_status cuarr_function_table_variant(void **table, uint64_t key, int device,
                                          const cuarr_variant_writer *writer, const void *variant,
                                          CUfunction *out) {
  cuarr_function_table *t = cuarr_make_once(table, make_table, NULL);
  if (!t)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel table");
  uint64_t hash = cuarr_hash_bytes(CUARR_HASH_SEED, &key, sizeof key);
  CUfunction f = key ? cuarr_function_table_find(t, &key, sizeof key, hash) : NULL;
  if (!f) {
    char name[128];
    writer->name(variant, name, sizeof name);
    char *source = writer->program(variant);
    if (!source)
      return CUARR_OUT_OF_MEMORY;
    cuarr_status s = cuarr_kernel_get(device, source, name, NULL, 0, &f);
    free(source);
    if (s != CUARR_OK)
      return s;
    /* Not kept when out of host memory: the next call asks the compile service again. */
    if (key)
      (void)cuarr_function_table_add(t, &key, sizeof key, hash, f);
  }
  *out = f;
  return CUARR_OK;
}

cuarr_status cuarr_function_table_named(void **table, int device, const char *(*source)(void),
                                        const char *name, CUfunction *out) {
  cuarr_function_table *t = cuarr_make_once(table, make_table, NULL);
  if (!t)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a kernel table");
  struct {
    int32_t device;
    char name[64];
  } key;
  memset(&key, 0, sizeof key);
  key.device = device;
  snprintf(key.name, sizeof key.name, "%s", name);
  uint64_t hash = cuarr_hash_bytes(CUARR_HASH_SEED, &key, sizeof key);
  CUfunction f = cuarr_function_table_find(t, &key, sizeof key, hash);
  if (!f) {
    const char *text = source();
    if (!text)
      return CUARR_OUT_OF_MEMORY; /* source() said why */
    CUARR_TRY(cuarr_kernel_get(device, text, name, NULL, 0, &f));
    /* Not kept when out of host memory: the next call asks the compile service again. */
    (void)cuarr_function_table_add(t, &key, sizeof key, hash, f);
  }
  *out = f;
  return CUARR_OK;
}
