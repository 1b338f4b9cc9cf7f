/*
 * compile/ -- compiling: the code generator, NVRTC, the disk cache, loaded modules, dispatch
 *   tables, launching.
 *
 * module_cache.c -- compiled programs loaded on their device, with their kernels and globals
 * (see module_cache.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/disk_cache.h"
#include "compile/hash.h"
#include "compile/module_cache.h"
#include "compile/nvrtc.h"

/* A kernel or global found in a module: modules are asked for a few names each. */
typedef struct symbol {
  struct symbol *next;
  bool is_global;
  CUfunction function;
  CUdeviceptr ptr;
  size_t bytes;
  char name[]; /* NUL-terminated */
} symbol;

/* A loaded module and a copy of the key that found it. */
struct cuarr_module {
  uint64_t hash;
  int device;
  int n_options;
  char *key; /* source \0 option_1 \0 ... option_n \0 */
  CUmodule module;
  symbol *symbols;
};

/* One lock for the table and every module's symbol list: only misses of the launchers' own
 * tables come here. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* Open addressing with linear probing; n_slots is a power of two, at most half full. */
static cuarr_module **slots;
static size_t n_slots, n_entries;

/* ---------------------------------------------------------------- the table */

static uint64_t key_hash(int device, const char *source, const char *const *options,
                         int n_options) {
  uint64_t h = CUARR_HASH_SEED ^ (uint64_t)(unsigned)device ^ ((uint64_t)n_options << 32);
  h = cuarr_hash_bytes(h, source, strlen(source));
  for (int i = 0; i < n_options; i++)
    h = cuarr_hash_bytes(h, options[i], strlen(options[i]));
  return h;
}

/* Compare the next string of a module's key; returns the position after it, or NULL. */
static const char *key_part(const char *key, const char *s) {
  size_t n = strlen(s) + 1;
  return memcmp(key, s, n) == 0 ? key + n : NULL;
}

static bool module_matches(const cuarr_module *m, uint64_t h, int device, const char *source,
                           const char *const *options, int n_options) {
  if (m->hash != h || m->device != device || m->n_options != n_options)
    return false;
  const char *k = key_part(m->key, source);
  for (int i = 0; k && i < n_options; i++)
    k = key_part(k, options[i]);
  return k != NULL;
}

static cuarr_module *lookup_locked(uint64_t h, int device, const char *source,
                                   const char *const *options, int n_options) {
  if (!n_slots)
    return NULL;
  for (size_t i = h & (n_slots - 1);; i = (i + 1) & (n_slots - 1)) {
    cuarr_module *m = slots[i];
    if (!m)
      return NULL;
    if (module_matches(m, h, device, source, options, n_options))
      return m;
  }
}

static void place_locked(cuarr_module **table, size_t size, cuarr_module *m) {
  size_t i = m->hash & (size - 1);
  while (table[i])
    i = (i + 1) & (size - 1);
  table[i] = m;
}

/* Make room for one more module; false when out of host memory. */
static bool reserve_locked(void) {
  if ((n_entries + 1) * 2 <= n_slots)
    return true;
  size_t size = n_slots ? n_slots * 2 : 64;
  cuarr_module **table = calloc(size, sizeof *table);
  if (!table)
    return false;
  for (size_t i = 0; i < n_slots; i++)
    if (slots[i])
      place_locked(table, size, slots[i]);
  free(slots);
  slots = table;
  n_slots = size;
  return true;
}

/* Copy s with its terminator to k; returns the position after it. */
static char *append(char *k, const char *s) {
  size_t n = strlen(s) + 1;
  memcpy(k, s, n);
  return k + n;
}

/* A new module record owning a copy of the key (not yet in the table); NULL when out of
 * memory. */
static cuarr_module *module_new(uint64_t h, int device, const char *source,
                                const char *const *options, int n_options) {
  size_t size = strlen(source) + 1;
  for (int i = 0; i < n_options; i++)
    size += strlen(options[i]) + 1;
  cuarr_module *m = malloc(sizeof *m);
  char *key = malloc(size);
  if (!m || !key) {
    free(m);
    free(key);
    return NULL;
  }
  char *k = append(key, source);
  for (int i = 0; i < n_options; i++)
    k = append(k, options[i]);
  *m = (cuarr_module){.hash = h, .device = device, .n_options = n_options, .key = key};
  return m;
}

/* ---------------------------------------------------------------- compiling and loading */

/* Compile with NVRTC, and keep the cubin on disk when the disk cache is on for this key. */
static cuarr_status compile_and_store(const char *source, const char *program_name,
                                      const char **all, int n_all, const disk_cache_key *key,
                                      char **cubin, size_t *cubin_size) {
  CUARR_TRY(cuarr_nvrtc_compile_with(source, program_name, all, n_all, cubin, cubin_size));
  /* The key named the NVRTC file the loader was expected to open; store only if it did. */
  if (key && disk_cache_confirm_nvrtc((const void *)cuarr_nvrtc.nvrtcVersion))
    disk_cache_store(key, *cubin, *cubin_size);
  return CUARR_OK;
}

static cuarr_status load_cubin(int device, const char *cubin, CUmodule *out) {
  CUARR_TRY(cuarr_device_activate(device));
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a first use during a capture */
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuModuleLoadData(out, cubin), "cuModuleLoadData");
  cuarr_capture_restore(mode);
  return s;
}

/* The miss path: the disk cache, else compile (and store); then load.  A disk hit touches
 * neither NVRTC nor its library: a file read and cuModuleLoadData. */
static cuarr_status load_module(int device, const char *source, const char *program_name,
                                const char *const *options, int n_options, CUmodule *out) {
  int arch = 0;
  CUARR_TRY(cuarr_device_arch(device, &arch)); /* also: no driver, no such device */
  char arch_option[48];
  int n_all = 0;
  const char **all = cuarr_nvrtc_options(arch, options, n_options, arch_option, &n_all);
  if (!all)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  disk_cache_key key;
  /* Keyed as in memory, by source and options: the program's name changes nothing compiled. */
  bool keyed = disk_cache_key_make(source, "", all, n_all, arch, &key);
  char *cubin = NULL;
  size_t cubin_size = 0;
  bool from_disk = keyed && disk_cache_lookup(&key, &cubin, &cubin_size);
  char nvrtc_name[256];
  snprintf(nvrtc_name, sizeof nvrtc_name, "%s.cu", program_name);
  cuarr_status s = CUARR_OK;
  if (!from_disk)
    s = compile_and_store(source, nvrtc_name, all, n_all, keyed ? &key : NULL, &cubin, &cubin_size);
  if (s == CUARR_OK)
    s = load_cubin(device, cubin, out);
  if (s != CUARR_OK && from_disk) {
    /* A file that passed every check yet does not load: trust the compiler over it (and
     * replace it), so that a bad cache entry can cost time but never the kernel. */
    free(cubin);
    cubin = NULL;
    s = compile_and_store(source, nvrtc_name, all, n_all, &key, &cubin, &cubin_size);
    if (s == CUARR_OK)
      s = load_cubin(device, cubin, out);
  }
  free(cubin);
  free(all);
  return s;
}

cuarr_status cuarr_module_get(int device, const char *source, const char *program_name,
                              const char *const *options, int n_options, cuarr_module **out) {
  if (!source || !program_name || !*program_name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a program needs a source and a name");
  if (n_options < 0 || (n_options > 0 && !options))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad kernel option list");
  uint64_t h = key_hash(device, source, options, n_options);

  pthread_mutex_lock(&cache_lock);
  cuarr_module *hit = lookup_locked(h, device, source, options, n_options);
  pthread_mutex_unlock(&cache_lock);
  if (hit) {
    *out = hit;
    return CUARR_OK;
  }

  /* Compile outside the lock so that other threads' hits do not wait on NVRTC.  Two threads
   * missing on the same key both compile; the second to finish keeps the first one's module. */
  CUmodule loaded = NULL;
  CUARR_TRY(load_module(device, source, program_name, options, n_options, &loaded));
  cuarr_module *m = module_new(h, device, source, options, n_options);
  if (m)
    m->module = loaded;

  pthread_mutex_lock(&cache_lock);
  hit = lookup_locked(h, device, source, options, n_options);
  bool inserted = false;
  if (!hit && m && reserve_locked()) {
    place_locked(slots, n_slots, m);
    n_entries++;
    inserted = true;
  }
  pthread_mutex_unlock(&cache_lock);

  if (inserted) {
    *out = m;
    return CUARR_OK;
  }
  /* Not kept: another thread's module won, or there was no memory to keep it.  The module was
   * loaded by this thread into the device's context, which load_module left current. */
  cuarr_cu.cuModuleUnload(loaded);
  if (m)
    free(m->key);
  free(m);
  if (!hit)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache");
  *out = hit;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- symbols */

static symbol *find_symbol_locked(const cuarr_module *m, const char *name, bool is_global) {
  for (symbol *s = m->symbols; s; s = s->next)
    if (s->is_global == is_global && strcmp(s->name, name) == 0)
      return s;
  return NULL;
}

/* Look `name` up in the driver's module and remember it (the driver's own lookups compare
 * strings as well, and a module is asked again on every miss of a launcher's table). */
static cuarr_status find_symbol(cuarr_module *m, const char *name, bool is_global, symbol *out) {
  if (!name || !*name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a kernel or global needs a name");
  pthread_mutex_lock(&cache_lock);
  symbol *known = find_symbol_locked(m, name, is_global);
  if (known)
    *out = *known;
  pthread_mutex_unlock(&cache_lock);
  if (known)
    return CUARR_OK;

  /* The driver looks symbols up in the current context: the module's device's. */
  CUARR_TRY(cuarr_device_activate(m->device));
  symbol found = {.is_global = is_global};
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a lazy kernel load during a capture */
  CUresult r = is_global ? cuarr_cu.cuModuleGetGlobal(&found.ptr, &found.bytes, m->module, name)
                         : cuarr_cu.cuModuleGetFunction(&found.function, m->module, name);
  cuarr_capture_restore(mode);
  if (r == CUDA_ERROR_NOT_FOUND)
    return is_global ? cuarr_fail(CUARR_VALUE_ERROR,
                                  "global %s not found in its source (a __device__ or __constant__ "
                                  "variable, extern \"C\" or named by its lowered name)",
                                  name)
                     : cuarr_fail(CUARR_CUDA_ERROR,
                                  "kernel %s not found in its source (it must be extern \"C\" "
                                  "__global__)",
                                  name);
  CUARR_TRY(cuarr_cu_check(r, is_global ? "cuModuleGetGlobal" : "cuModuleGetFunction"));
  *out = found;

  /* Remembering is an optimisation: without memory for it, the answer still stands. */
  size_t len = strlen(name) + 1;
  symbol *s = malloc(sizeof *s + len);
  if (!s)
    return CUARR_OK;
  *s = found;
  memcpy(s->name, name, len);
  pthread_mutex_lock(&cache_lock);
  if (find_symbol_locked(m, name, is_global)) {
    free(s);
  } else {
    s->next = m->symbols;
    m->symbols = s;
  }
  pthread_mutex_unlock(&cache_lock);
  return CUARR_OK;
}

cuarr_status cuarr_module_function(cuarr_module *m, const char *name, CUfunction *out) {
  symbol s;
  CUARR_TRY(find_symbol(m, name, false, &s));
  *out = s.function;
  return CUARR_OK;
}

cuarr_status cuarr_module_global(cuarr_module *m, const char *name, CUdeviceptr *ptr,
                                 size_t *bytes) {
  symbol s;
  CUARR_TRY(find_symbol(m, name, true, &s));
  *ptr = s.ptr;
  *bytes = s.bytes;
  return CUARR_OK;
}

cuarr_status cuarr_kernel_get(int device, const char *source, const char *kernel_name,
                              const char *const *options, int n_options, CUfunction *out) {
  if (!kernel_name || !*kernel_name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a kernel needs a source and a name");
  cuarr_module *m = NULL;
  CUARR_TRY(cuarr_module_get(device, source, kernel_name, options, n_options, &m));
  return cuarr_module_function(m, kernel_name, out);
}
