/*
 * module_cache.h -- compiled programs loaded on their device, kept for the life of the process
 * with the kernels and globals found in them.
 *
 * A module is keyed by (device, source, options): everything that decides its machine code, the
 * device standing for its architecture.  A miss tries the disk cache (disk_cache.c) before
 * NVRTC, so that a fresh process reuses earlier processes' cubins.  Finding a module or a symbol
 * takes a lock and compares the whole key, so the launchers keep what they found in their own
 * lock-free tables (function_table.h) and come here only on a miss.
 */
#ifndef CUARR_COMPILE_MODULE_CACHE_H
#define CUARR_COMPILE_MODULE_CACHE_H

#include "internal.h"

typedef struct cuarr_module cuarr_module;

/* The module of `source` compiled with these NVRTC options for the device's architecture and
 * loaded into its primary context (compiled, or read from the disk cache, on first use).
 * program_name names the program in NVRTC's messages (the first caller's name is the one
 * kept); the disk cache keys on source and options alone, as the memory does.  Thread-safe. */
cuarr_status cuarr_module_get(int device, const char *source, const char *program_name,
                              const char *const *options, int n_options, cuarr_module **out);
/* The kernel `name` (an extern "C" name, or a name expression's lowered name) of the module. */
cuarr_status cuarr_module_function(cuarr_module *m, const char *name, CUfunction *out);
/* The address and size of the __device__ or __constant__ variable `name` of the module. */
cuarr_status cuarr_module_global(cuarr_module *m, const char *name, CUdeviceptr *ptr,
                                 size_t *bytes);

#endif
