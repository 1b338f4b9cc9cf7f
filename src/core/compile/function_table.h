/*
 * function_table.h -- the dispatch cache: compiled kernels found by key without locks, what
 * the elementwise, reduction, scan, join and linalg launchers look up on every call (one table
 * per elementwise or reduction program, one for every scan kernel, one for every join kernel,
 * one per fixed program of linalg/).  Private to src/core/.
 *
 * Keys are byte strings (a launcher's fixed struct, zero-filled, its first `bytes` meaningful)
 * with a hash the caller computes.  Lookups load atomic slots and take no lock; additions (on
 * a miss, after a compile) take the table's mutex.
 *
 * Not through here: the copy kernels (copy/copy_kernels.c) and the read-back kernel
 * (copy/read_back.c), whose variants are few enough to index an array of slots per device
 * directly (a hit is one atomic load, no hashing); the compile service's module cache
 * (compile/module_cache.c), keyed by source text and owning the loaded modules, which the launchers
 * reach only on a miss here; and flat_call.c's per-thread memo of whole call decisions.
 */
#ifndef CUARR_FUNCTION_TABLE_H
#define CUARR_FUNCTION_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

typedef struct cuarr_function_table cuarr_function_table;

/* *slot, made by make(arg) when still NULL: how the launchers make a program's cache on first
 * use.  One lock for every slot, taken only until the slot is set; NULL when make fails. */
void *cuarr_make_once(void **slot, void *(*make)(void *arg), void *arg);

/* A new, empty table; NULL when out of host memory. */
cuarr_function_table *cuarr_function_table_new(void);
/* Frees the table and its entries (no lookup may be running). */
void cuarr_function_table_free(cuarr_function_table *t);
/* The function stored under key, or NULL. */
CUfunction cuarr_function_table_find(cuarr_function_table *t, const void *key, size_t bytes,
                                     uint64_t hash);
/* Stores f under key (a key already there keeps its function: two threads compiled the same
 * kernel); CUARR_OUT_OF_MEMORY when the table cannot grow. */
cuarr_status cuarr_function_table_add(cuarr_function_table *t, const void *key, size_t bytes,
                                      uint64_t hash, CUfunction f);

/* How a launcher names one of its kernel variants and writes the program holding it alone
 * (malloc'd; NULL with the error set), for cuarr_function_table_variant. */
typedef struct cuarr_variant_writer {
  void (*name)(const void *variant, char *buf, size_t size);
  char *(*program)(const void *variant);
} cuarr_variant_writer;

/* The kernel of `variant` on device, stored under `key` (a nonzero 64-bit packing of the device
 * and the variant; 0: not kept) in the table at *table (made on first use); on a miss, its
 * program is written and compiled through cuarr_kernel_get, then stored.  What the scan and join
 * launchers do on every call. */
cuarr_status cuarr_function_table_variant(void **table, uint64_t key, int device,
                                          const cuarr_variant_writer *writer, const void *variant,
                                          CUfunction *out);

/* The kernel `name` (at most 63 bytes) of a fixed program, one whose text source() gives the
 * same every time (linalg's matmul.cu and linalg.cu), on device: looked up in the table at
 * *table (made on first use) by (device, name), so that a call neither writes nor hashes the
 * program; the first call per device and name compiles it through cuarr_kernel_get. */
cuarr_status cuarr_function_table_named(void **table, int device, const char *(*source)(void),
                                        const char *name, CUfunction *out);

#endif
