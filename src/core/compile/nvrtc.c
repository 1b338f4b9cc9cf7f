/*
 * nvrtc.c -- compile CUDA C with NVRTC, keep the loaded kernels, launch them.
 *
 * Kernels are compiled for the device's own architecture (sm_XY) straight to a cubin, so the
 * driver has nothing left to JIT.  Loaded kernels are kept in a process-wide table keyed by
 * everything that decides the machine code; finding one there allocates nothing and compiles
 * nothing, since every operator call goes through it.  A miss there tries the disk cache
 * (disk_cache.c) before compiling, so that a fresh process reuses earlier processes' cubins.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "compile/disk_cache.h"
#include "compile/hash.h"

/* ---------------------------------------------------------------- compiling */

/* error.c keeps up to 2048 bytes of a message; the log is cut to leave room for the lines. */
#define MESSAGE_MAX 2040
#define MAX_QUOTED_LINES 5
#define MAX_QUOTED_WIDTH 160

/* Text of 1-based line `line` of source: its start and length, or NULL past the end. */
static const char *source_line(const char *source, long line, size_t *len) {
  if (line < 1)
    return NULL;
  const char *p = source;
  for (long i = 1; i < line; i++) {
    p = strchr(p, '\n');
    if (!p)
      return NULL;
    p++;
  }
  *len = strcspn(p, "\r\n");
  return p;
}

/* The distinct line numbers of `<program_name>(LINE): error` (or `catastrophic error`) in the
 * log, in order of appearance; returns how many (at most max). */
static int error_lines(const char *log, const char *program_name, long *lines, int max) {
  size_t name_len = strlen(program_name);
  int n = 0;
  for (const char *p = strstr(log, program_name); p && n < max;
       p = strstr(p + name_len, program_name)) {
    const char *q = p + name_len;
    if (*q != '(' || !isdigit((unsigned char)q[1]))
      continue;
    char *end;
    long line = strtol(q + 1, &end, 10);
    if (strncmp(end, "): error", 8) != 0 && strncmp(end, "): catastrophic error", 21) != 0)
      continue;
    bool seen = false;
    for (int i = 0; i < n; i++)
      seen = seen || lines[i] == line;
    if (!seen)
      lines[n++] = line;
  }
  return n;
}

/* The CompileError: header, NVRTC's log, then the source lines the log points at. */
static cuarr_status compile_failed(nvrtcProgram prog, nvrtcResult result, const char *source,
                                   const char *program_name) {
  size_t log_size = 0;
  char *log = NULL;
  if (cuarr_nvrtc.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
    log = malloc(log_size + 1);
    if (log && cuarr_nvrtc.nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
      log[log_size] = '\0';
    else if (log)
      log[0] = '\0';
  }
  const char *text = log && *log ? log : cuarr_nvrtc.nvrtcGetErrorString(result);
  size_t text_len = strlen(text);
  while (text_len > 0 && isspace((unsigned char)text[text_len - 1]))
    text_len--;

  /* The quoted lines first, so that a long log is what gets cut. */
  char quoted[MAX_QUOTED_LINES * (MAX_QUOTED_WIDTH + 32) + 1];
  size_t q = 0;
  quoted[0] = '\0';
  long lines[MAX_QUOTED_LINES];
  int n = log ? error_lines(log, program_name, lines, MAX_QUOTED_LINES) : 0;
  for (int i = 0; i < n; i++) {
    size_t len = 0;
    const char *at = source_line(source, lines[i], &len);
    if (!at)
      continue;
    int width = len > MAX_QUOTED_WIDTH ? MAX_QUOTED_WIDTH : (int)len;
    q += (size_t)snprintf(quoted + q, sizeof quoted - q, "  %ld | %.*s%s\n", lines[i], width, at,
                          len > MAX_QUOTED_WIDTH ? " ..." : "");
  }

  char message[MESSAGE_MAX];
  int head = snprintf(message, sizeof message, "nvrtc: compiling %s failed:\n", program_name);
  if (head < 0 || (size_t)head >= sizeof message)
    head = (int)sizeof message - 1;
  size_t used = (size_t)head + q + 32; /* 32: the "[log truncated]" note and newlines */
  size_t room = used < sizeof message ? sizeof message - used : 0;
  const char *cut = "";
  if (text_len > room) {
    text_len = room;
    cut = "\n[log truncated]";
  }
  snprintf(message + head, sizeof message - (size_t)head, "%.*s%s\n%s", (int)text_len, text, cut,
           quoted);
  free(log);
  return cuarr_fail(CUARR_COMPILE_ERROR, "%s", message);
}

static cuarr_status take_cubin(nvrtcProgram prog, char **cubin, size_t *cubin_size) {
  size_t size = 0;
  CUARR_TRY(cuarr_nvrtc_check(cuarr_nvrtc.nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize"));
  if (size == 0)
    return cuarr_fail(CUARR_COMPILE_ERROR, "nvrtc: the compilation gave no cubin");
  char *buf = malloc(size);
  if (!buf)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a %zu-byte cubin", size);
  cuarr_status s = cuarr_nvrtc_check(cuarr_nvrtc.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN");
  if (s != CUARR_OK) {
    free(buf);
    return s;
  }
  *cubin = buf;
  *cubin_size = size;
  return CUARR_OK;
}

/* The options NVRTC is given: the architecture, what cuarr always adds, then the caller's;
 * malloc'd (the strings are not copied) with one slot to spare for MINIMAL, NULL when out of
 * memory.  The disk cache keys on this same list, so that a change to cuarr's own options
 * misses there too. */
static const char **full_options(int arch, const char *const *options, int n_options,
                                 char arch_option[48], int *n_all) {
  snprintf(arch_option, 48, "--gpu-architecture=sm_%d", arch);
  const char **all = malloc(((size_t)n_options + 3) * sizeof *all);
  if (!all)
    return NULL;
  all[0] = arch_option; /* sm_, not compute_: a cubin, nothing left for the driver to JIT */
  all[1] = "--std=c++17";
  for (int i = 0; i < n_options; i++)
    all[i + 2] = options[i];
  *n_all = n_options + 2;
  return all;
}

/* NVRTC's minimal mode leaves out of its front end what cuarr's kernels never use (texture
 * types, the device runtime, launches from device code): 2-4 ms less a compile, the same cubin
 * for code that does not test the mode's own macros.  A user's kernel may use those, and an
 * older NVRTC lacks the option, so a program that fails with it is compiled again without it,
 * and that compile's result (or log) is the answer.  Either way one source gives one cubin. */
#define MINIMAL "--minimal"

static cuarr_status compile_once(const char *source, const char *program_name, const char **all,
                                 int n_all, bool quiet, char **cubin, size_t *cubin_size) {
  nvrtcProgram prog = NULL;
  cuarr_status s =
      cuarr_nvrtc_check(cuarr_nvrtc.nvrtcCreateProgram(&prog, source, program_name, 0, NULL, NULL),
                        "nvrtcCreateProgram");
  if (s == CUARR_OK) {
    nvrtcResult r = cuarr_nvrtc.nvrtcCompileProgram(prog, n_all, all);
    if (r == NVRTC_SUCCESS)
      s = take_cubin(prog, cubin, cubin_size);
    else
      s = quiet ? CUARR_COMPILE_ERROR : compile_failed(prog, r, source, program_name);
  }
  if (prog)
    cuarr_nvrtc.nvrtcDestroyProgram(&prog);
  return s;
}

/* all has a spare slot at all[n_all] (full_options). */
static cuarr_status compile_program(const char *source, const char *program_name, const char **all,
                                    int n_all, char **cubin, size_t *cubin_size) {
  CUARR_TRY(cuarr_load_nvrtc());
  all[n_all] = MINIMAL;
  if (compile_once(source, program_name, all, n_all + 1, true, cubin, cubin_size) == CUARR_OK)
    return CUARR_OK;
  return compile_once(source, program_name, all, n_all, false, cubin, cubin_size);
}

cuarr_status cuarr_nvrtc_compile(const char *source, const char *program_name,
                                 const char *const *options, int n_options, int arch, char **cubin,
                                 size_t *cubin_size) {
  CUARR_TRY(cuarr_load_nvrtc());
  if (!source)
    return cuarr_fail(CUARR_VALUE_ERROR, "nvrtc: no source given");
  if (n_options < 0 || (n_options > 0 && !options))
    return cuarr_fail(CUARR_VALUE_ERROR, "nvrtc: bad option list");
  if (arch <= 0)
    return cuarr_fail(CUARR_VALUE_ERROR, "nvrtc: bad architecture sm_%d", arch);
  if (!program_name || !*program_name)
    program_name = "cuarr_kernel.cu";
  char arch_option[48];
  int n_all = 0;
  const char **all = full_options(arch, options, n_options, arch_option, &n_all);
  if (!all)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  cuarr_status s = compile_program(source, program_name, all, n_all, cubin, cubin_size);
  free(all);
  return s;
}

/* ---------------------------------------------------------------- the kernel cache */

/* A loaded kernel and a copy of the key that found it.  The key is (device, source, options,
 * name); the architecture is the device's, so the device stands for it. */
typedef struct kernel_entry {
  uint64_t hash;
  int device;
  int n_options;
  char *key; /* kernel_name \0 source \0 option_1 \0 ... option_n \0 */
  CUmodule module;
  CUfunction function;
} kernel_entry;

/* Open addressing with linear probing; n_slots is a power of two, at most half full. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static kernel_entry **slots;
static size_t n_slots, n_entries;

static uint64_t key_hash(int device, const char *source, const char *name,
                         const char *const *options, int n_options) {
  uint64_t h = CUARR_HASH_SEED ^ (uint64_t)(unsigned)device ^ ((uint64_t)n_options << 32);
  h = cuarr_hash_bytes(h, name, strlen(name));
  h = cuarr_hash_bytes(h, source, strlen(source));
  for (int i = 0; i < n_options; i++)
    h = cuarr_hash_bytes(h, options[i], strlen(options[i]));
  return h;
}

/* Compare the next string of an entry's key; returns the position after it, or NULL. */
static const char *key_part(const char *key, const char *s) {
  size_t n = strlen(s) + 1;
  return memcmp(key, s, n) == 0 ? key + n : NULL;
}

static bool entry_matches(const kernel_entry *e, uint64_t h, int device, const char *source,
                          const char *name, const char *const *options, int n_options) {
  if (e->hash != h || e->device != device || e->n_options != n_options)
    return false;
  const char *k = key_part(e->key, name);
  if (k)
    k = key_part(k, source);
  for (int i = 0; k && i < n_options; i++)
    k = key_part(k, options[i]);
  return k != NULL;
}

static kernel_entry *lookup_locked(uint64_t h, int device, const char *source, const char *name,
                                   const char *const *options, int n_options) {
  if (!n_slots)
    return NULL;
  for (size_t i = h & (n_slots - 1);; i = (i + 1) & (n_slots - 1)) {
    kernel_entry *e = slots[i];
    if (!e)
      return NULL;
    if (entry_matches(e, h, device, source, name, options, n_options))
      return e;
  }
}

static void place_locked(kernel_entry **table, size_t size, kernel_entry *e) {
  size_t i = e->hash & (size - 1);
  while (table[i])
    i = (i + 1) & (size - 1);
  table[i] = e;
}

/* Make room for one more entry; false when out of host memory. */
static bool reserve_locked(void) {
  if ((n_entries + 1) * 2 <= n_slots)
    return true;
  size_t size = n_slots ? n_slots * 2 : 64;
  kernel_entry **table = calloc(size, sizeof *table);
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

/* A new entry owning a copy of the key (not yet in the table); NULL when out of memory. */
static kernel_entry *entry_new(uint64_t h, int device, const char *source, const char *name,
                               const char *const *options, int n_options) {
  size_t size = strlen(name) + 1 + strlen(source) + 1;
  for (int i = 0; i < n_options; i++)
    size += strlen(options[i]) + 1;
  kernel_entry *e = malloc(sizeof *e);
  char *key = malloc(size);
  if (!e || !key) {
    free(e);
    free(key);
    return NULL;
  }
  char *k = append(key, name);
  k = append(k, source);
  for (int i = 0; i < n_options; i++)
    k = append(k, options[i]);
  *e = (kernel_entry){.hash = h, .device = device, .n_options = n_options, .key = key};
  return e;
}

/* Load a cubin into the device's primary context and find the kernel in it. */
static cuarr_status load_module(int device, const char *cubin, const char *name, CUmodule *module,
                                CUfunction *function) {
  CUARR_TRY(cuarr_device_activate(device));
  CUmodule m = NULL;
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuModuleLoadData(&m, cubin), "cuModuleLoadData"));
  CUfunction f = NULL;
  CUresult r = cuarr_cu.cuModuleGetFunction(&f, m, name);
  if (r != CUDA_SUCCESS) {
    cuarr_status s =
        r == CUDA_ERROR_NOT_FOUND
            ? cuarr_fail(CUARR_CUDA_ERROR,
                         "kernel %s not found in its source (it must be extern \"C\" __global__)",
                         name)
            : cuarr_cu_check(r, "cuModuleGetFunction");
    cuarr_cu.cuModuleUnload(m);
    return s;
  }
  *module = m;
  *function = f;
  return CUARR_OK;
}

/* Compile with NVRTC, and keep the cubin on disk when the disk cache is on for this key. */
static cuarr_status compile_and_store(const char *source, const char *name, const char **all,
                                      int n_all, const disk_cache_key *key, char **cubin,
                                      size_t *cubin_size) {
  char program_name[256];
  snprintf(program_name, sizeof program_name, "%s.cu", name);
  CUARR_TRY(compile_program(source, program_name, all, n_all, cubin, cubin_size));
  /* The key named the NVRTC file the loader was expected to open; store only if it did. */
  if (key && disk_cache_confirm_nvrtc((const void *)cuarr_nvrtc.nvrtcVersion))
    disk_cache_store(key, *cubin, *cubin_size);
  return CUARR_OK;
}

/* The miss path of the in-memory cache: the disk cache, else compile (and store); then load.
 * A disk hit touches neither NVRTC nor its library: a file read and cuModuleLoadData. */
static cuarr_status load_kernel(int device, const char *source, const char *name,
                                const char *const *options, int n_options, CUmodule *module,
                                CUfunction *function) {
  int arch = 0;
  CUARR_TRY(cuarr_device_arch(device, &arch)); /* also: no driver, no such device */
  char arch_option[48];
  int n_all = 0;
  const char **all = full_options(arch, options, n_options, arch_option, &n_all);
  if (!all)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  disk_cache_key key;
  bool keyed = disk_cache_key_make(source, name, all, n_all, arch, &key);
  char *cubin = NULL;
  size_t cubin_size = 0;
  bool from_disk = keyed && disk_cache_lookup(&key, &cubin, &cubin_size);
  cuarr_status s = CUARR_OK;
  if (!from_disk)
    s = compile_and_store(source, name, all, n_all, keyed ? &key : NULL, &cubin, &cubin_size);
  if (s == CUARR_OK)
    s = load_module(device, cubin, name, module, function);
  if (s != CUARR_OK && from_disk) {
    /* A file that passed every check yet does not load: trust the compiler over it (and
     * replace it), so that a bad cache entry can cost time but never the kernel. */
    free(cubin);
    cubin = NULL;
    s = compile_and_store(source, name, all, n_all, &key, &cubin, &cubin_size);
    if (s == CUARR_OK)
      s = load_module(device, cubin, name, module, function);
  }
  free(cubin);
  free(all);
  return s;
}

cuarr_status cuarr_kernel_get(int device, const char *source, const char *kernel_name,
                              const char *const *options, int n_options, CUfunction *out) {
  if (!source || !kernel_name || !*kernel_name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a kernel needs a source and a name");
  if (n_options < 0 || (n_options > 0 && !options))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad kernel option list");
  uint64_t h = key_hash(device, source, kernel_name, options, n_options);

  pthread_mutex_lock(&cache_lock);
  kernel_entry *hit = lookup_locked(h, device, source, kernel_name, options, n_options);
  CUfunction found = hit ? hit->function : NULL;
  pthread_mutex_unlock(&cache_lock);
  if (found) {
    *out = found;
    return CUARR_OK;
  }

  /* Compile outside the lock so that other threads' hits do not wait on NVRTC.  Two threads
   * missing on the same key both compile; the second to finish keeps the first one's entry. */
  CUmodule module = NULL;
  CUfunction function = NULL;
  CUARR_TRY(load_kernel(device, source, kernel_name, options, n_options, &module, &function));
  kernel_entry *e = entry_new(h, device, source, kernel_name, options, n_options);
  if (e) {
    e->module = module;
    e->function = function;
  }

  pthread_mutex_lock(&cache_lock);
  hit = lookup_locked(h, device, source, kernel_name, options, n_options);
  bool inserted = false;
  if (!hit && e && reserve_locked()) {
    place_locked(slots, n_slots, e);
    n_entries++;
    inserted = true;
  }
  found = hit ? hit->function : NULL;
  pthread_mutex_unlock(&cache_lock);

  if (inserted) {
    *out = function;
    return CUARR_OK;
  }
  /* Not kept: another thread's entry won, or there was no memory to keep it.  The module was
   * loaded by this thread into the device's context, which load_kernel left current. */
  cuarr_cu.cuModuleUnload(module);
  if (e)
    free(e->key);
  free(e);
  if (!found)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel cache");
  *out = found;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- launching */

cuarr_status cuarr_launch(CUfunction f, unsigned grid, unsigned block, unsigned shared_bytes,
                          CUstream stream, void **args) {
  if (!f)
    return cuarr_fail(CUARR_VALUE_ERROR, "launch of a NULL kernel");
  return cuarr_cu_check(
      cuarr_cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shared_bytes, stream, args, NULL),
      "cuLaunchKernel");
}

cuarr_status cuarr_launch_dependent(int device, CUfunction f, unsigned grid, unsigned block,
                                    unsigned shared_bytes, CUstream stream, void **args) {
  return cuarr_launch_dependent_2d(device, f, grid, 1, block, 1, shared_bytes, stream, args);
}

cuarr_status cuarr_launch_dependent_2d(int device, CUfunction f, unsigned grid_x, unsigned grid_y,
                                       unsigned block_x, unsigned block_y, unsigned shared_bytes,
                                       CUstream stream, void **args) {
  if (!f)
    return cuarr_fail(CUARR_VALUE_ERROR, "launch of a NULL kernel");
  /* Dependent launches where the device's facts allow them (sm_90 and newer, unless
   * CUARR_DEPENDENT_LAUNCH=0 asks for plain ones, for measurements); plain ones elsewhere. */
  const cuarr_device_facts *facts;
  if (cuarr_device_facts_get(device, &facts) != CUARR_OK || !facts->dependent_launch)
    return cuarr_cu_check(cuarr_cu.cuLaunchKernel(f, grid_x, grid_y, 1, block_x, block_y, 1,
                                                  shared_bytes, stream, args, NULL),
                          "cuLaunchKernel");
  CUlaunchAttribute attr;
  memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config;
  memset(&config, 0, sizeof config);
  config.gridDimX = grid_x;
  config.gridDimY = grid_y;
  config.gridDimZ = 1;
  config.blockDimX = block_x;
  config.blockDimY = block_y;
  config.blockDimZ = 1;
  config.sharedMemBytes = shared_bytes;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cuarr_cu_check(cuarr_cu.cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx");
}
