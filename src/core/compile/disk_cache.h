/*
 * disk_cache.h -- compiled kernels kept on disk between processes.
 *
 * One file per kernel in the cache directory (CUARR_CACHE_DIR, default ~/.cuarr/kernel_cache),
 * named by a 128-bit key over everything that decides the cubin: the source, the kernel name,
 * the full NVRTC option list, the architecture, the NVRTC library and cuarr's version.
 * CUARR_CACHE_IN_MEMORY=1 turns it off; so does a directory that cannot be created or written
 * (with one warning per process through cuarr_warn), and so does an NVRTC library that cannot be
 * located.  When off, every function here is a cheap no-op that reports a miss.
 *
 * Thread-safe.  Nothing here loads NVRTC or the driver: a hit costs a file read.
 */
#ifndef CUARR_DISK_CACHE_H
#define CUARR_DISK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct disk_cache_key {
  uint64_t h[2];
} disk_cache_key;

/* The key of a kernel.  `options` is the complete list NVRTC is given (the architecture and the
 * options cuarr adds included), so that a change to those misses too.  False when the disk cache
 * is off, or when the options name include paths (-I, --include-path, --pre-include,
 * -include): files the key cannot see. */
bool disk_cache_key_make(const char *source, const char *kernel_name, const char *const *options,
                         int n_options, int arch, disk_cache_key *key);

/* The cubin stored under key (malloc'd, caller frees); false on a miss.  A file that fails any
 * check (magic, format, key, sizes, checksums) is a miss and is removed. */
bool disk_cache_lookup(const disk_cache_key *key, char **cubin, size_t *size);

/* Store a cubin under key: written to a temporary file in the directory and renamed over the
 * final name, so that readers see the old file, the new one, or none, never a part.  A write
 * that fails turns the disk cache off for the process with a warning. */
void disk_cache_store(const disk_cache_key *key, const char *cubin, size_t size);

/* The compile path calls this once NVRTC is loaded, with the address of any of its functions:
 * false (and no stores from then on) when the library the process really loaded is not the one
 * the key named, since the key's identity was worked out without loading it. */
bool disk_cache_confirm_nvrtc(const void *nvrtc_symbol);

/* ---- for tests */
/* The file a key is stored in; false when the disk cache is off. */
bool disk_cache_path(const disk_cache_key *key, char *path, size_t path_size);
/* Forget the setup (environment, directory, NVRTC identity, the warning already given) so that
 * the next call reads the environment again.  Not for concurrent use. */
void disk_cache_reset(void);

#endif
