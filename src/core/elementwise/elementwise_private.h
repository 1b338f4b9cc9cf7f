/*
 * elementwise_private.h -- what the parts of the elementwise engine share: the specialisation
 * key (which is also the dispatch cache's key), source generation from a key, and the
 * per-program cache of compiled variants.  Private to src/core/elementwise/ (and its tests).
 */
#ifndef CUARR_KERNEL_ELEMENTWISE_PRIVATE_H
#define CUARR_KERNEL_ELEMENTWISE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elementwise/elementwise.h"

/* Threads per block of every elementwise kernel (also its __launch_bounds__). */
#define CUARR_EW_THREADS 256
/* Elements in flight per thread: vectors per operand in the vectorised loops, elements in the
 * strided ones (the generic loop takes fewer: its offsets cost more code per element). */
#define CUARR_EW_VECTOR_UNROLL 1
#define CUARR_EW_STRIDED_BATCH 4
#define CUARR_EW_GENERIC_BATCH 2

/* Layout classes (the `layout` of a key). */
enum {
  CUARR_EW_CONTIG = 0,  /* 1-D, stride 1 in every array operand (or no array operands) */
  CUARR_EW_ND_MAX = 4,  /* 1..4: strided with that many axes */
  CUARR_EW_GENERIC = 5, /* strided, up to CUARR_MAXDIM axes counted at run time */
};

/* Operand flags in a key. */
enum {
  CUARR_EW_ARRAY = 1,       /* a broadcast array operand (in the layout) */
  CUARR_EW_SCALAR = 2,      /* passed by value */
  CUARR_EW_RAW = 4,         /* a raw array (cuarr_raw) */
  CUARR_EW_OUTPUT = 8,      /* written */
  CUARR_EW_SPLAT = 16,      /* vectorised strided loops: inner stride 0, one element per vector */
  CUARR_EW_RAW_CONTIG = 32, /* raw and C-contiguous */
};

/* Everything that decides a kernel's text besides the program and the operands' names: the
 * dispatch cache is keyed by it (with the device), so a hit needs no source text.  Fixed
 * layout, zero-filled: hashed and compared as bytes, the first cuarr_ew_key_bytes() of them. */
typedef struct cuarr_ew_key {
  int32_t device;
  uint8_t n;      /* operands */
  uint8_t layout; /* CUARR_EW_CONTIG, 1..4, CUARR_EW_GENERIC */
  uint8_t wide;   /* 64-bit indexing */
  uint8_t vec;    /* elements per vector access (1: none) */
  uint8_t whole;  /* contiguous, vec > 1: the count is a multiple of vec (no tail) */
  /* Per operand: storage dtype, var dtype, flags, a raw operand's ndim. */
  uint8_t op[CUARR_EW_MAX_OPERANDS][4];
} cuarr_ew_key;

static inline size_t cuarr_ew_key_bytes(const cuarr_ew_key *k) {
  return offsetof(cuarr_ew_key, op) + 4 * (size_t)k->n;
}

/* ---- elementwise_source.c */

/* Check the program and the operands' names (identifiers, not reserved, distinct; type names
 * that agree), then write the program text of the kernel for `key` and its name (both
 * malloc'd; NULL on failure). */
cuarr_status cuarr_ew_key_source(const cuarr_ew_program *program, const cuarr_ew_operand *ops,
                                 const cuarr_ew_key *key, char **source, char **kernel_name);
/* Whether `text` uses the identifier `i` (outside comments and literals); whether the
 * preprocessor lines of a preamble do (a macro the operation expands may use it). */
bool cuarr_ew_uses_index(const char *text);
bool cuarr_ew_macros_use_index(const char *preamble);

/* ---- elementwise_cache.c */

typedef struct cuarr_ew_cache cuarr_ew_cache;
/* The program's cache, made on first use (thread-safe). */
cuarr_status cuarr_ew_cache_of(cuarr_ew_program *program, cuarr_ew_cache **out);
/* The operation does not use `i`: the loop may visit elements in any order. */
bool cuarr_ew_cache_any_order(const cuarr_ew_cache *c);
uint64_t cuarr_ew_key_hash(const cuarr_ew_key *k);
/* The kernel for key, or NULL: lock-free, allocates nothing. */
CUfunction cuarr_ew_cache_find(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash);
/* Publish a compiled kernel (a concurrent duplicate keeps the first). */
cuarr_status cuarr_ew_cache_add(cuarr_ew_cache *c, const cuarr_ew_key *k, uint64_t hash,
                                CUfunction f);
/* The device's grid cap (its facts' grid_stride_blocks: cuda/device_facts.h). */
static inline cuarr_status cuarr_ew_max_blocks(int device, unsigned *out) {
  const cuarr_device_facts *f;
  CUARR_TRY(cuarr_device_facts_get(device, &f));
  *out = f->grid_stride_blocks;
  return CUARR_OK;
}

#endif
