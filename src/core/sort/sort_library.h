/*
 * sort_library.h -- the C interface of libcuarr_sort.so, the device sort engine that nvcc
 * compiles ahead of time from radix_sort.cu around CUB (see the Makefile).  core.so opens the
 * library with dlopen (sort/sort_loader.c); nothing here is compiled at run time.
 *
 * Keys are described by (kind, width): kind CUARR_SORT_KIND_* and the width in bytes (1, 2, 4,
 * 8; floats 2, 4, 8).  Every dtype maps onto unsigned keys of its width by an order-preserving
 * transform (signed: the sign bit flipped; floats: the sign-magnitude twiddle, NaNs of either
 * sign moved above +inf), so CUB sorts only unsigned keys.  The data are `n` keys in rows of
 * `seg_len` (n a multiple of it), each row sorted on its own, stably.
 *
 * Functions return 0 or a cudaError_t code; cuarr_sort_lib_error_name names one.  Pointers are
 * device addresses in the current context (cuarr's primary context), `stream` a CUstream.
 */
#ifndef CUARR_SORT_LIBRARY_H
#define CUARR_SORT_LIBRARY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a signature below changes: the loader refuses a library of another version. */
#define CUARR_SORT_LIB_VERSION 1

enum { CUARR_SORT_KIND_UNSIGNED = 0, CUARR_SORT_KIND_SIGNED = 1, CUARR_SORT_KIND_FLOAT = 2 };

/* The X-macro list the loader resolves (sort/sort_loader.c) and the C test checks. */
#define CUARR_SORT_LIB_FUNCTIONS(X)                                                                \
  X(cuarr_sort_lib_version)                                                                        \
  X(cuarr_sort_lib_error_name)                                                                     \
  X(cuarr_sort_lib_temp_bytes)                                                                     \
  X(cuarr_sort_lib_run)                                                                            \
  X(cuarr_sort_lib_searchsorted)

int cuarr_sort_lib_version(void);
const char *cuarr_sort_lib_error_name(int code);

/* Bytes of temporary storage cuarr_sort_lib_run needs for the same arguments (want_keys: a
 * keys_out is given; want_indices: an indices_out is given). */
int cuarr_sort_lib_temp_bytes(int kind, int width, int64_t n, int64_t seg_len, int want_keys,
                              int want_indices, size_t *bytes);

/* Sort each row of keys_in (contiguous, n keys) stably.  keys_out (may be keys_in, may be NULL)
 * receives the sorted keys; indices_out (may be NULL) the 1-based positions within the row of
 * the keys in sorted order (NumPy's argsort + 1).  perm (NULL, or n 1-based positions within the
 * row) makes row r sort the keys keys_in[r][perm[r][j] - 1] and carry perm's entries as the
 * indices (an argsort of a gathered key: one lexsort step); keys_out must then be NULL.  At
 * least one of keys_out and indices_out is given.  Float keys: every NaN sorts after +inf; for
 * indices, -0.0 equals +0.0 and all NaNs are equal (ties keep their order), while a keys-only sort
 * keeps every bit of every value (NaNs last by their bits; float32 and float64 keys go through
 * CUB's own float order, which keeps -0.0 and +0.0 as they came). */
int cuarr_sort_lib_run(int kind, int width, const void *keys_in, const int64_t *perm,
                       void *keys_out, int64_t *indices_out, int64_t n, int64_t seg_len, void *temp,
                       size_t temp_bytes, void *stream);

/* out[j] = the 1-based position at which values[j] would be inserted into the sorted row
 * `sorted` of n keys (or, with sorter, of the keys sorted[sorter[k] - 1], sorter 1-based) to
 * keep it sorted: before the equal keys (right = 0, NumPy's side='left') or after them
 * (right = 1).  The order is the sort's (NaNs last and equal to each other, -0.0 == +0.0). */
int cuarr_sort_lib_searchsorted(int kind, int width, const void *sorted, int64_t n,
                                const int64_t *sorter, const void *values, int64_t m, int right,
                                int64_t *out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
