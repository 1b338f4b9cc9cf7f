/*
 * nvrtc.h -- what the module cache (module_cache.c) needs of the compiler (nvrtc.c) beyond
 * cuarr_nvrtc_compile (internal.h): the full option list, which the disk cache also keys on,
 * and a compile with that list.  Private to src/core/compile/.
 */
#ifndef CUARR_COMPILE_NVRTC_H
#define CUARR_COMPILE_NVRTC_H

#include "internal.h"

/* The options NVRTC is given: the architecture, what cuarr always adds, then the caller's;
 * malloc'd (the strings are not copied) with one slot to spare at [*n_all], NULL when out of
 * memory.  The disk cache keys on this same list, so that a change to cuarr's own options
 * misses there too. */
const char **cuarr_nvrtc_options(int arch, const char *const *options, int n_options,
                                 char arch_option[48], int *n_all);
/* NVRTC name expressions ("scale<float>", "&probe<...>"): each is added to the program before
 * it compiles, and its lowered (mangled) name read after. */
typedef struct cuarr_name_expressions {
  const char *const *expr;
  int n;
} cuarr_name_expressions;
/* Compile source with the list cuarr_nvrtc_options made (it uses the spare slot) and the name
 * expressions (NULL or n == 0: none); *lowered then gets their lowered names, consecutive
 * NUL-terminated strings in one malloc'd block (untouched without expressions). */
cuarr_status cuarr_nvrtc_compile_named(const char *source, const char *program_name,
                                       const char **all, int n_all,
                                       const cuarr_name_expressions *names, char **cubin,
                                       size_t *cubin_size, char **lowered);
/* Compile source with the list cuarr_nvrtc_options made (it uses the spare slot). */
cuarr_status cuarr_nvrtc_compile_with(const char *source, const char *program_name,
                                      const char **all, int n_all, char **cubin,
                                      size_t *cubin_size);

#endif
