/*
 * elementwise_cache.c -- each program's compiled variants (a function table, found by key
 * without locks: compile/function_table.c).
 *
 * Every operator call looks its kernel up here: the key is a small fixed struct
 * (elementwise_private.h), hashed eight bytes at a time.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "compile/function_table.h"
#include "compile/hash.h"
#include "elementwise/elementwise_private.h"

struct cuarr_ew_cache {
  cuarr_function_table *table;
  bool any_order;
};

/* ---------------------------------------------------------------- the cache of a program */

static void *make_cache(void *arg) {
  const cuarr_ew_program *program = arg;
  cuarr_ew_cache *c = calloc(1, sizeof *c);
  if (!c || !(c->table = cuarr_function_table_new())) {
    free(c);
    return NULL;
  }
  /* An operation that does not use `i` cannot tell in which order elements are visited, so
   * the launcher may reorder axes for coalesced access. */
  c->any_order =
      !cuarr_ew_uses_index(program->operation) && !cuarr_ew_macros_use_index(program->preamble);
  return c;
}

cuarr_status cuarr_ew_cache_of(cuarr_ew_program *program, cuarr_ew_cache **out) {
  cuarr_ew_cache *c = cuarr_make_once(&program->cache, make_cache, program);
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

CUfunction cuarr_ew_cache_find(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash) {
  return cuarr_function_table_find(c->table, k, cuarr_ew_key_bytes(k), hash);
}

cuarr_status cuarr_ew_cache_add(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash,
                                CUfunction f) {
  return cuarr_function_table_add(c->table, k, cuarr_ew_key_bytes(k), hash, f);
}

void cuarr_ew_program_release(cuarr_ew_program *program) {
  if (!program)
    return;
  cuarr_ew_cache *c = __atomic_exchange_n(&program->cache, NULL, __ATOMIC_ACQ_REL);
  if (!c)
    return;
  cuarr_function_table_free(c->table);
  free(c);
}
