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

/* A loaded module and a copy of the key that found it.  A module compiled from source is keyed
 * by its source, options and name expressions; one loaded from a binary image (a cubin, PTX or
 * a fatbin) by the image's bytes. */
struct cuarr_module {
  uint64_t hash;
  int device;
  int n_options; /* -1: a binary image, key_len bytes of it in key */
  int n_names;
  size_t key_len;
  char *key;   /* source \0 option_1 \0 ... option_n \0 name_1 \0 ... name_k \0, or the image */
  char *names; /* name expression \0 lowered name \0, n_names times; NULL when none */
  CUmodule module;
  symbol *symbols;
};

/* What a lookup compares: a source with its options and name expressions, or an image. */
typedef struct module_key {
  int device;
  const char *source; /* NULL for an image */
  const char *const *options;
  int n_options;
  const char *const *names;
  int n_names;
  const void *image;
  size_t image_size;
} module_key;

/* One lock for the table and every module's symbol list: only misses of the launchers' own
 * tables come here. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* Open addressing with linear probing; n_slots is a power of two, at most half full. */
static cuarr_module **slots;
static size_t n_slots, n_entries;

/* ---------------------------------------------------------------- the table */

static uint64_t key_hash(const module_key *k) {
  uint64_t h = CUARR_HASH_SEED ^ (uint64_t)(unsigned)k->device ^ ((uint64_t)k->n_options << 32) ^
               ((uint64_t)k->n_names << 48);
  if (!k->source)
    return cuarr_hash_bytes(h ^ 1, k->image, k->image_size);
  h = cuarr_hash_bytes(h, k->source, strlen(k->source));
  for (int i = 0; i < k->n_options; i++)
    h = cuarr_hash_bytes(h, k->options[i], strlen(k->options[i]));
  for (int i = 0; i < k->n_names; i++)
    h = cuarr_hash_bytes(h, k->names[i], strlen(k->names[i]));
  return h;
}

/* Compare the next string of a module's key; returns the position after it, or NULL. */
static const char *key_part(const char *key, const char *s) {
  size_t n = strlen(s) + 1;
  return memcmp(key, s, n) == 0 ? key + n : NULL;
}

static bool module_matches(const cuarr_module *m, uint64_t h, const module_key *k) {
  if (m->hash != h || m->device != k->device)
    return false;
  if (!k->source)
    return m->n_options == -1 && m->key_len == k->image_size &&
           memcmp(m->key, k->image, k->image_size) == 0;
  if (m->n_options != k->n_options || m->n_names != k->n_names)
    return false;
  const char *p = key_part(m->key, k->source);
  for (int i = 0; p && i < k->n_options; i++)
    p = key_part(p, k->options[i]);
  for (int i = 0; p && i < k->n_names; i++)
    p = key_part(p, k->names[i]);
  return p != NULL;
}

static cuarr_module *lookup_locked(uint64_t h, const module_key *k) {
  if (!n_slots)
    return NULL;
  for (size_t i = h & (n_slots - 1);; i = (i + 1) & (n_slots - 1)) {
    cuarr_module *m = slots[i];
    if (!m)
      return NULL;
    if (module_matches(m, h, k))
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
static cuarr_module *module_new(uint64_t h, const module_key *k) {
  size_t size = 0;
  if (k->source) {
    size = strlen(k->source) + 1;
    for (int i = 0; i < k->n_options; i++)
      size += strlen(k->options[i]) + 1;
    for (int i = 0; i < k->n_names; i++)
      size += strlen(k->names[i]) + 1;
  } else {
    size = k->image_size;
  }
  cuarr_module *m = malloc(sizeof *m);
  char *key = malloc(size ? size : 1);
  if (!m || !key) {
    free(m);
    free(key);
    return NULL;
  }
  if (k->source) {
    char *p = append(key, k->source);
    for (int i = 0; i < k->n_options; i++)
      p = append(p, k->options[i]);
    for (int i = 0; i < k->n_names; i++)
      p = append(p, k->names[i]);
  } else {
    memcpy(key, k->image, size);
  }
  *m = (cuarr_module){.hash = h,
                      .device = k->device,
                      .n_options = k->source ? k->n_options : -1,
                      .n_names = k->source ? k->n_names : 0,
                      .key_len = size,
                      .key = key};
  return m;
}

static void module_delete(cuarr_module *m) {
  if (!m)
    return;
  free(m->key);
  free(m->names);
  free(m);
}

/* ---------------------------------------------------------------- compiling and loading */

/* A disk cache entry of a program with name expressions holds their lowered names with the
 * cubin, since a disk hit has no NVRTC program to ask: NAMES_MAGIC, the number of names and
 * the size of the names block (little-endian uint32 each), the block (expression \0 lowered
 * \0 per name), then the cubin.  Programs without name expressions store the bare cubin. */
#define NAMES_MAGIC "cuarrLN1"
#define NAMES_HEADER (sizeof NAMES_MAGIC - 1 + 8)

static void put_u32(char *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (char)(v >> (8 * i));
}
static uint32_t get_u32(const char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)(unsigned char)p[i] << (8 * i);
  return v;
}

/* The size of a names block of n pairs starting at p (at most limit bytes), or 0 when it is
 * not n pairs of NUL-terminated strings within the limit. */
static size_t names_block_size(const char *p, size_t limit, int n) {
  size_t at = 0;
  for (int i = 0; i < 2 * n; i++) {
    const char *end = at < limit ? memchr(p + at, '\0', limit - at) : NULL;
    if (!end)
      return 0;
    at = (size_t)(end - p) + 1;
  }
  return at;
}

/* Split a stored entry into its names block (malloc'd) and cubin (moved to the front of the
 * entry); false when the entry is not one of ours for k->n_names names. */
static bool split_entry(const module_key *k, char *entry, size_t *size, char **names) {
  if (*size < NAMES_HEADER || memcmp(entry, NAMES_MAGIC, sizeof NAMES_MAGIC - 1) != 0)
    return false;
  uint32_t n = get_u32(entry + NAMES_HEADER - 8), bytes = get_u32(entry + NAMES_HEADER - 4);
  const char *block = entry + NAMES_HEADER;
  if (n != (uint32_t)k->n_names || bytes > *size - NAMES_HEADER ||
      names_block_size(block, bytes, k->n_names) != bytes)
    return false;
  /* The expressions must be the key's, in its order. */
  const char *p = block;
  for (int i = 0; i < k->n_names; i++) {
    if (strcmp(p, k->names[i]) != 0)
      return false;
    p += strlen(p) + 1;
    p += strlen(p) + 1;
  }
  char *copy = malloc(bytes);
  if (!copy)
    return false;
  memcpy(copy, block, bytes);
  size_t cubin = *size - NAMES_HEADER - bytes;
  memmove(entry, block + bytes, cubin);
  *size = cubin;
  *names = copy;
  return true;
}

/* The names block of expressions and the lowered names NVRTC gave (consecutive strings). */
static char *pair_names(const module_key *k, const char *lowered, size_t *bytes) {
  size_t size = 0;
  const char *l = lowered;
  for (int i = 0; i < k->n_names; i++) {
    size += strlen(k->names[i]) + 1 + strlen(l) + 1;
    l += strlen(l) + 1;
  }
  char *block = malloc(size ? size : 1), *p = block;
  if (!block)
    return NULL;
  l = lowered;
  for (int i = 0; i < k->n_names; i++) {
    p = append(p, k->names[i]);
    p = append(p, l);
    l += strlen(l) + 1;
  }
  *bytes = size;
  return block;
}

/* Store the cubin (with the names block before it when there is one). */
static void store_entry(const disk_cache_key *key, const char *names, size_t names_bytes,
                        int n_names, const char *cubin, size_t cubin_size) {
  if (!n_names) {
    disk_cache_store(key, cubin, cubin_size);
    return;
  }
  size_t size = NAMES_HEADER + names_bytes + cubin_size;
  char *entry = malloc(size);
  if (!entry)
    return; /* the disk cache is an optimisation */
  memcpy(entry, NAMES_MAGIC, sizeof NAMES_MAGIC - 1);
  put_u32(entry + NAMES_HEADER - 8, (uint32_t)n_names);
  put_u32(entry + NAMES_HEADER - 4, (uint32_t)names_bytes);
  memcpy(entry + NAMES_HEADER, names, names_bytes);
  memcpy(entry + NAMES_HEADER + names_bytes, cubin, cubin_size);
  disk_cache_store(key, entry, size);
  free(entry);
}

/* Compile with NVRTC (and learn the name expressions' lowered names into *names), and keep
 * the result on disk when the disk cache is on for this key. */
static cuarr_status compile_and_store(const module_key *k, const char *program_name,
                                      const char **all, int n_all, const disk_cache_key *key,
                                      char **cubin, size_t *cubin_size, char **names) {
  cuarr_name_expressions exprs = {k->names, k->n_names};
  char *lowered = NULL;
  CUARR_TRY(cuarr_nvrtc_compile_named(k->source, program_name, all, n_all, &exprs, cubin,
                                      cubin_size, &lowered));
  size_t names_bytes = 0;
  if (k->n_names) {
    *names = pair_names(k, lowered, &names_bytes);
    free(lowered);
    if (!*names) {
      free(*cubin);
      *cubin = NULL;
      return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for lowered names");
    }
  }
  /* The key named the NVRTC file the loader was expected to open; store only if it did. */
  if (key && disk_cache_confirm_nvrtc((const void *)cuarr_nvrtc.nvrtcVersion))
    store_entry(key, *names, names_bytes, k->n_names, *cubin, *cubin_size);
  return CUARR_OK;
}

static cuarr_status load_cubin(int device, const char *cubin, CUmodule *out) {
  CUARR_TRY(cuarr_device_activate(device));
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a first use during a capture */
  cuarr_status s = cuarr_cu_check(cuarr_cu.cuModuleLoadData(out, cubin), "cuModuleLoadData");
  cuarr_capture_restore(mode);
  return s;
}

/* The disk cache's name for a program's name expressions: each length-prefixed, so that no
 * two lists give the same text. */
static char *names_key_text(const module_key *k) {
  size_t size = 1;
  for (int i = 0; i < k->n_names; i++)
    size += strlen(k->names[i]) + 24;
  char *text = malloc(size), *p = text;
  if (!text)
    return NULL;
  *p = '\0';
  for (int i = 0; i < k->n_names; i++)
    p += snprintf(p, size - (size_t)(p - text), "%zu:%s;", strlen(k->names[i]), k->names[i]);
  return text;
}

/* The miss path: the disk cache, else compile (and store); then load.  A disk hit touches
 * neither NVRTC nor its library: a file read and cuModuleLoadData. */
static cuarr_status load_module(const module_key *k, const char *program_name, CUmodule *out,
                                char **names) {
  int arch = 0;
  CUARR_TRY(cuarr_device_arch(k->device, &arch)); /* also: no driver, no such device */
  char arch_option[48];
  int n_all = 0;
  const char **all = cuarr_nvrtc_options(arch, k->options, k->n_options, arch_option, &n_all);
  char *names_text = names_key_text(k);
  if (!all || !names_text) {
    free(all);
    free(names_text);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  }
  disk_cache_key key;
  /* Keyed as in memory, by source, options and name expressions: the program's name changes
   * nothing compiled. */
  bool keyed = disk_cache_key_make(k->source, names_text, all, n_all, arch, &key);
  free(names_text);
  char *cubin = NULL;
  size_t cubin_size = 0;
  bool from_disk = keyed && disk_cache_lookup(&key, &cubin, &cubin_size);
  if (from_disk && k->n_names && !split_entry(k, cubin, &cubin_size, names)) {
    free(cubin); /* not an entry of this program's names: compile it again */
    cubin = NULL;
    from_disk = false;
  }
  char nvrtc_name[256];
  snprintf(nvrtc_name, sizeof nvrtc_name, "%s.cu", program_name);
  cuarr_status s = CUARR_OK;
  if (!from_disk)
    s = compile_and_store(k, nvrtc_name, all, n_all, keyed ? &key : NULL, &cubin, &cubin_size,
                          names);
  if (s == CUARR_OK)
    s = load_cubin(k->device, cubin, out);
  if (s != CUARR_OK && from_disk) {
    /* A file that passed every check yet does not load: trust the compiler over it (and
     * replace it), so that a bad cache entry can cost time but never the kernel. */
    free(cubin);
    free(*names);
    *names = NULL;
    cubin = NULL;
    s = compile_and_store(k, nvrtc_name, all, n_all, &key, &cubin, &cubin_size, names);
    if (s == CUARR_OK)
      s = load_cubin(k->device, cubin, out);
  }
  if (s != CUARR_OK) {
    free(*names);
    *names = NULL;
  }
  free(cubin);
  free(all);
  return s;
}

/* The size of the JIT log kept for a PTX image that does not load. */
#define JIT_LOG_BYTES 4096

/* Load a binary image: a cubin or fatbin as it is, PTX through the driver's JIT with its error
 * log, so that bad PTX is a CompileError that says why. */
static cuarr_status load_image(const module_key *k, bool is_ptx, CUmodule *out) {
  CUARR_TRY(cuarr_device_activate(k->device));
  cuarr_capture_mode_saved mode = cuarr_capture_relax(); /* a first use during a capture */
  char log[JIT_LOG_BYTES];
  log[0] = '\0';
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(uintptr_t)sizeof log};
  CUresult r = is_ptx ? cuarr_cu.cuModuleLoadDataEx(out, k->image, 2, keys, values)
                      : cuarr_cu.cuModuleLoadData(out, k->image);
  cuarr_capture_restore(mode);
  if (!is_ptx)
    return cuarr_cu_check(r, "cuModuleLoadData");
  if (r == CUDA_SUCCESS)
    return CUARR_OK;
  if (r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE || log[0]) {
    log[sizeof log - 1] = '\0';
    return cuarr_fail(CUARR_COMPILE_ERROR, "the driver's JIT refused the PTX: %s",
                      log[0] ? log : "no log");
  }
  return cuarr_cu_check(r, "cuModuleLoadDataEx");
}

/* Find the module of key k, or load it with `load` and keep it. */
static cuarr_status module_find_or_load(const module_key *k, const char *program_name, bool is_ptx,
                                        cuarr_module **out) {
  uint64_t h = key_hash(k);
  pthread_mutex_lock(&cache_lock);
  cuarr_module *hit = lookup_locked(h, k);
  pthread_mutex_unlock(&cache_lock);
  if (hit) {
    *out = hit;
    return CUARR_OK;
  }

  /* Compile outside the lock so that other threads' hits do not wait on NVRTC.  Two threads
   * missing on the same key both compile; the second to finish keeps the first one's module. */
  CUmodule loaded = NULL;
  char *names = NULL;
  if (k->source)
    CUARR_TRY(load_module(k, program_name, &loaded, &names));
  else
    CUARR_TRY(load_image(k, is_ptx, &loaded));
  cuarr_module *m = module_new(h, k);
  if (m) {
    m->module = loaded;
    m->names = names;
  } else {
    free(names);
  }

  pthread_mutex_lock(&cache_lock);
  hit = lookup_locked(h, k);
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
   * loaded by this thread into the device's context, which the load left current. */
  cuarr_cu.cuModuleUnload(loaded);
  module_delete(m);
  if (!hit)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache");
  *out = hit;
  return CUARR_OK;
}

cuarr_status cuarr_module_get_named(int device, const char *source, const char *program_name,
                                    const char *const *options, int n_options,
                                    const char *const *names, int n_names, cuarr_module **out) {
  if (!source || !program_name || !*program_name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a program needs a source and a name");
  if (n_options < 0 || (n_options > 0 && !options))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad kernel option list");
  if (n_names < 0 || (n_names > 0 && !names))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad name expression list");
  for (int i = 0; i < n_names; i++)
    if (!names[i] || !*names[i])
      return cuarr_fail(CUARR_VALUE_ERROR, "a name expression is empty");
  module_key k = {.device = device,
                  .source = source,
                  .options = options,
                  .n_options = n_options,
                  .names = names,
                  .n_names = n_names};
  return module_find_or_load(&k, program_name, false, out);
}

cuarr_status cuarr_module_get(int device, const char *source, const char *program_name,
                              const char *const *options, int n_options, cuarr_module **out) {
  return cuarr_module_get_named(device, source, program_name, options, n_options, NULL, 0, out);
}

cuarr_status cuarr_module_get_image(int device, const void *image, size_t size, bool is_ptx,
                                    cuarr_module **out) {
  if (!image || size == 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "an empty module image");
  if (is_ptx && ((const char *)image)[size - 1] != '\0')
    return cuarr_fail(CUARR_VALUE_ERROR, "PTX text must end with a NUL byte");
  module_key k = {.device = device, .image = image, .image_size = size};
  return module_find_or_load(&k, "image", is_ptx, out);
}

const char *cuarr_module_lowered_name(const cuarr_module *m, const char *expr) {
  const char *p = m->names;
  for (int i = 0; p && i < m->n_names; i++) {
    const char *lowered = p + strlen(p) + 1;
    if (strcmp(p, expr) == 0)
      return lowered;
    p = lowered + strlen(lowered) + 1;
  }
  return NULL;
}

int cuarr_module_device(const cuarr_module *m) { return m->device; }

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
