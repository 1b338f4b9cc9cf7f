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
/* The same with NVRTC name expressions ("scale<float>"): they are part of the key, and their
 * lowered names are kept with the module (and with its cubin in the disk cache). */
cuarr_status cuarr_module_get_named(int device, const char *source, const char *program_name,
                                    const char *const *options, int n_options,
                                    const char *const *names, int n_names, cuarr_module **out);
/* The module of a binary image (a cubin, a fatbin, or PTX text ending with its NUL byte, which
 * the driver's JIT compiles: a refusal is a CUARR_COMPILE_ERROR with its log), loaded into the
 * device's primary context and kept by (device, the image's bytes).  Thread-safe. */
cuarr_status cuarr_module_get_image(int device, const void *image, size_t size, bool is_ptx,
                                    cuarr_module **out);
/* The lowered name of the module's name expression `expr`; NULL when it is not one. */
const char *cuarr_module_lowered_name(const cuarr_module *m, const char *expr);
/* The device the module is loaded on. */
int cuarr_module_device(const cuarr_module *m);
/* The kernel `name` (an extern "C" name, or a name expression's lowered name) of the module. */
cuarr_status cuarr_module_function(cuarr_module *m, const char *name, CUfunction *out);
/* The address and size of the __device__ or __constant__ variable `name` of the module. */
cuarr_status cuarr_module_global(cuarr_module *m, const char *name, CUdeviceptr *ptr,
                                 size_t *bytes);

#endif
