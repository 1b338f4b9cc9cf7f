/* test_pool_holds.c -- holds on a pool (pool.c): releases held back while a hold is open, nested
 * and out-of-order holds, owning holds (a graph's), statistics, and threads freeing into a hold.
 * Over a malloc-backed raw allocator: no GPU needed. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctest.h"
#include "cuarr.h"

static cuarr_status raw_alloc(void *state, size_t size, void **ptr) {
  (void)state;
  *ptr = malloc(size);
  return *ptr ? CUARR_OK : CUARR_OUT_OF_MEMORY;
}

static void raw_free(void *state, void *ptr, size_t size) {
  (void)state;
  (void)size;
  free(ptr);
}

static cuarr_pool *new_pool(void) {
  cuarr_raw_allocator raw = {raw_alloc, raw_free, NULL};
  return cuarr_pool_new(raw, 0);
}

static const cuarr_reclaim no_reclaim = {NULL, NULL};
#define A ((void *)0x1) /* two stream handles */
#define B ((void *)0x2)

static cuarr_block *get(cuarr_pool *p, size_t size, void *stream) {
  cuarr_block *b = NULL;
  return cuarr_pool_alloc(p, size, stream, no_reclaim, &b) == CUARR_OK ? b : NULL;
}

static void test_hold_and_release(void) {
  cuarr_pool *p = new_pool();
  cuarr_block *x = get(p, 1024, NULL);
  void *at = x->ptr;
  cuarr_hold *h = NULL;
  CHECK(cuarr_hold_begin(p, false, NULL, &h) == CUARR_OK && h, "hold: begins");
  cuarr_pool_free(p, x, NULL);
  CHECK(cuarr_pool_held_bytes(p) == 1024 && cuarr_hold_held_bytes(h) == 1024,
        "hold: a release is held");
  CHECK(cuarr_pool_used_bytes(p) == 1024 && cuarr_pool_n_free_blocks(p) == 0,
        "hold: held bytes stay counted in use, not free");
  cuarr_block *y = get(p, 1024, NULL);
  CHECK(y && y->ptr != at, "hold: a held block is not handed out again");
  cuarr_pool_free(p, y, NULL);
  size_t total = cuarr_pool_total_bytes(p);
  cuarr_pool_free_all_blocks(p);
  CHECK(cuarr_pool_total_bytes(p) == total, "hold: free_all_blocks keeps held segments");
  cuarr_hold_release(h);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 0,
        "hold: the release gives everything back");
  CHECK(cuarr_pool_n_free_blocks(p) == 2, "hold: released blocks are free blocks");
  cuarr_block *z = get(p, 1024, NULL);
  CHECK(z && (z->ptr == at || cuarr_pool_n_free_blocks(p) == 1),
        "hold: a released block is handed out again");
  cuarr_pool_free(p, z, NULL);
  cuarr_pool_delete(p);
}

static void test_nesting(void) {
  cuarr_pool *p = new_pool();
  cuarr_hold *outer = NULL, *inner = NULL;
  cuarr_hold_begin(p, false, NULL, &outer);
  cuarr_hold_begin(p, false, NULL, &inner);
  cuarr_pool_free(p, get(p, 512, NULL), NULL);
  CHECK(cuarr_hold_held_bytes(inner) == 512 && cuarr_hold_held_bytes(outer) == 0,
        "nesting: the innermost open hold takes a release");
  cuarr_hold_release(inner);
  CHECK(cuarr_hold_held_bytes(outer) == 512 && cuarr_pool_held_bytes(p) == 512,
        "nesting: releasing the inner hold passes its blocks to the outer one");
  cuarr_pool_free(p, get(p, 2048, NULL), NULL);
  CHECK(cuarr_hold_held_bytes(outer) == 2560, "nesting: the outer hold takes releases again");
  cuarr_hold_release(outer);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 0,
        "nesting: the outermost release frees everything");
  /* out of order: ending the outer hold first leaves the inner one taking releases */
  cuarr_hold_begin(p, false, NULL, &outer);
  cuarr_hold_begin(p, false, NULL, &inner);
  cuarr_hold_end(outer);
  cuarr_pool_free(p, get(p, 512, NULL), NULL);
  CHECK(cuarr_hold_held_bytes(inner) == 512 && cuarr_hold_held_bytes(outer) == 0,
        "nesting: a hold ended out of order stops taking releases");
  cuarr_hold_end(inner);
  cuarr_pool_free(p, get(p, 512, NULL), NULL);
  CHECK(cuarr_pool_held_bytes(p) == 512, "nesting: with every hold ended, releases are free");
  cuarr_hold_release(inner);
  cuarr_hold_release(outer);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 0,
        "nesting: ended holds release what they held");
  cuarr_pool_delete(p);
}

static void test_owning(void) {
  cuarr_pool *p = new_pool();
  cuarr_hold *g = NULL;
  cuarr_hold_begin(p, true, A, &g);
  cuarr_block *mine = get(p, 1024, A), *other = get(p, 1024, B), *kept = get(p, 512, A);
  cuarr_hold_end(g);
  void *at = mine->ptr;
  cuarr_pool_free(p, other, B);
  CHECK(cuarr_pool_held_bytes(p) == 0, "owning: a block of another stream is not owned");
  cuarr_pool_free(p, mine, A);
  CHECK(cuarr_hold_held_bytes(g) == 1024, "owning: an owned block released after the capture "
                                          "is held");
  cuarr_block *next = get(p, 1024, A);
  CHECK(next && next->ptr != at, "owning: an owned block is not handed out again");
  cuarr_pool_free(p, next, A);
  CHECK(cuarr_pool_held_bytes(p) == 1024, "owning: blocks allocated after the end are not owned");
  cuarr_hold_release(g);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 512,
        "owning: the release gives back the held blocks, the one in use stays");
  cuarr_pool_free(p, kept, A);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 0,
        "owning: a block that outlived its hold is an ordinary one");
  cuarr_pool_delete(p);
}

enum { THREADS = 4, ROUNDS = 500 };

static void *churn(void *arg) {
  cuarr_pool *p = arg;
  for (int i = 0; i < ROUNDS; i++) {
    cuarr_block *b = get(p, (size_t)(i % 7 + 1) * 512, B);
    if (b)
      cuarr_pool_free(p, b, B);
  }
  return NULL;
}

static void test_threads(void) {
  cuarr_pool *p = new_pool();
  cuarr_hold *h = NULL;
  cuarr_hold_begin(p, true, A, &h);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, churn, p);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  size_t expected = 0;
  for (int i = 0; i < ROUNDS; i++)
    expected += (size_t)(i % 7 + 1) * 512;
  CHECK(cuarr_pool_held_bytes(p) == THREADS * expected,
        "threads: every release from every thread is held");
  CHECK(cuarr_pool_used_bytes(p) == THREADS * expected, "threads: and counted in use");
  cuarr_hold_release(h);
  CHECK(cuarr_pool_held_bytes(p) == 0 && cuarr_pool_used_bytes(p) == 0,
        "threads: the release gives everything back");
  cuarr_pool_delete(p);
}

static void test_bad_input(void) {
  cuarr_hold_end(NULL); /* both do nothing (a crash fails the test) */
  cuarr_hold_release(NULL);
  cuarr_hold *h = (cuarr_hold *)0x1;
  CHECK(cuarr_hold_begin(NULL, false, NULL, &h) == CUARR_VALUE_ERROR && h == (cuarr_hold *)0x1,
        "bad input: no pool is a ValueError, and nothing is returned");
}

int main(void) {
  test_hold_and_release();
  test_nesting();
  test_owning();
  test_threads();
  test_bad_input();
  return ctest_done();
}
