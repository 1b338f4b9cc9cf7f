/*
 * user/ -- kernels users write: ElementwiseKernel, ReductionKernel, RawModule and RawKernel.
 *
 * raw_module.c -- cuarr.RawModule's core: a user's CUDA C program or binary image, compiled or
 * loaded for each device on first use there through the module cache (memory and disk), and
 * the kernels and globals found in it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "user/raw.h"
#include "user/raw_signature.h"

/* ---------------------------------------------------------------- making and freeing */

static void free_strings(char **v, int n) {
  for (int i = 0; v && i < n; i++)
    free(v[i]);
  free(v);
}

static void module_free(cuarr_raw_module *m) {
  free(m->source);
  free_strings(m->options, m->n_options);
  free_strings(m->names, m->n_names);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

/* Copies of n strings (each checked to be present); NULL with the error set on failure. */
static cuarr_status copy_strings(const char *const *v, int n, const char *what, char ***out) {
  *out = NULL;
  if (n < 0 || (n > 0 && !v))
    return cuarr_fail(CUARR_VALUE_ERROR, "bad %s list", what);
  if (n == 0)
    return CUARR_OK;
  char **copy = calloc((size_t)n, sizeof *copy);
  if (!copy)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for %s", what);
  for (int i = 0; i < n; i++) {
    if (!v[i] || !*v[i]) {
      free_strings(copy, n);
      return cuarr_fail(CUARR_VALUE_ERROR, "%s #%d is empty", what, i + 1);
    }
    copy[i] = strdup(v[i]);
    if (!copy[i]) {
      free_strings(copy, n);
      return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for %s", what);
    }
  }
  *out = copy;
  return CUARR_OK;
}

/* A module holding a copy of `bytes` (size of them; a NUL byte is added after). */
/* Whether the user's options already name an include directory. */
static bool names_include_path(char **options, int n) {
  for (int i = 0; i < n; i++)
    if (strncmp(options[i], "-I", 2) == 0 || strncmp(options[i], "--include-path", 14) == 0)
      return true;
  return false;
}

/* A source that includes headers gets the toolkit's include directory on NVRTC's search path,
 * as CuPy's kernels do, so that `#include <cuda_fp16.h>` works as under nvcc.  Such a module is
 * not kept on disk (disk_cache.h: the key cannot see included files); one that includes
 * nothing, or names its own include directories, is compiled as given. */
static cuarr_status add_toolkit_include(cuarr_raw_module *m) {
  if (!strstr(m->source, "#include") || names_include_path(m->options, m->n_options))
    return CUARR_OK;
  const char *home = getenv("CUDA_HOME");
  if (!home || !*home)
    home = "/usr/local/cuda";
  char option[1100], probe[1100];
  int n = snprintf(option, sizeof option, "--include-path=%s/include", home);
  snprintf(probe, sizeof probe, "%s/include/cuda_fp16.h", home);
  if (n <= 0 || (size_t)n >= sizeof option || access(probe, R_OK) != 0)
    return CUARR_OK; /* no toolkit headers here: NVRTC's own message names what is missing */
  char **grown = realloc(m->options, (size_t)(m->n_options + 1) * sizeof *grown);
  if (!grown)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  m->options = grown;
  if (!(m->options[m->n_options] = strdup(option)))
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  m->n_options++;
  return CUARR_OK;
}

static cuarr_status module_new(cuarr_raw_image_kind kind, const char *bytes, size_t size,
                               const cuarr_raw_module_options *opts, cuarr_raw_module **out) {
  cuarr_raw_module *m = calloc(1, sizeof *m);
  if (!m)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a RawModule");
  pthread_mutex_init(&m->lock, NULL);
  m->refs = 1;
  m->kind = kind;
  m->source = malloc(size + 1);
  if (!m->source) {
    module_free(m);
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a %zu-byte module", size);
  }
  memcpy(m->source, bytes, size);
  m->source[size] = '\0';
  m->size = size;
  cuarr_status s = CUARR_OK;
  if (opts) {
    s = copy_strings(opts->options, opts->n_options, "option", &m->options);
    if (s == CUARR_OK) {
      m->n_options = opts->n_options;
      s = copy_strings(opts->name_expressions, opts->n_name_expressions, "name expression",
                       &m->names);
    }
    if (s == CUARR_OK)
      m->n_names = opts->n_name_expressions;
  }
  if (s == CUARR_OK && kind == CUARR_RAW_SOURCE)
    s = add_toolkit_include(m);
  if (s != CUARR_OK) {
    module_free(m);
    return s;
  }
  *out = m;
  return CUARR_OK;
}

cuarr_status cuarr_raw_module_from_source(const char *source, const cuarr_raw_module_options *opts,
                                          cuarr_raw_module **out) {
  if (!source)
    return cuarr_fail(CUARR_VALUE_ERROR, "a RawModule needs a source");
  return module_new(CUARR_RAW_SOURCE, source, strlen(source), opts, out);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The whole file at path (malloc'd); a CUARR_VALUE_ERROR naming it when it cannot be read. */
static cuarr_status read_file(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return cuarr_fail(CUARR_VALUE_ERROR, "cannot open module file '%s'", path);
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      size_t bigger = cap ? cap * 2 : 65536;
      char *grown = realloc(buf, bigger);
      if (!grown) {
        free(buf);
        fclose(f);
        return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory to read '%s'", path);
      }
      buf = grown;
      cap = bigger;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    return cuarr_fail(CUARR_VALUE_ERROR, "cannot read module file '%s'", path);
  }
  *data = buf;
  *size = n;
  return CUARR_OK;
}

cuarr_status cuarr_raw_module_from_file(const char *path, const cuarr_raw_module_options *opts,
                                        cuarr_raw_module **out) {
  if (!path || !*path)
    return cuarr_fail(CUARR_VALUE_ERROR, "a RawModule file needs a path");
  cuarr_raw_image_kind kind;
  if (ends_with(path, ".cu"))
    kind = CUARR_RAW_SOURCE;
  else if (ends_with(path, ".cubin"))
    kind = CUARR_RAW_CUBIN;
  else if (ends_with(path, ".ptx"))
    kind = CUARR_RAW_PTX;
  else if (ends_with(path, ".fatbin"))
    kind = CUARR_RAW_FATBIN;
  else
    return cuarr_fail(CUARR_VALUE_ERROR, "module file '%s' is none of .cu, .cubin, .ptx, .fatbin",
                      path);
  if (kind != CUARR_RAW_SOURCE && opts && (opts->n_options || opts->n_name_expressions))
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "'%s' is a compiled image: options and name expressions apply to "
                      "CUDA C source only",
                      path);
  char *data = NULL;
  size_t size = 0;
  CUARR_TRY(read_file(path, &data, &size));
  cuarr_status s = CUARR_OK;
  if (size == 0)
    s = cuarr_fail(CUARR_VALUE_ERROR, "module file '%s' is empty", path);
  else if (kind == CUARR_RAW_SOURCE && memchr(data, '\0', size))
    s = cuarr_fail(CUARR_VALUE_ERROR, "source file '%s' has a NUL byte", path);
  else if (kind == CUARR_RAW_PTX && data[size - 1] == '\0')
    size--; /* the copy adds the one NUL the driver needs */
  if (s == CUARR_OK && kind == CUARR_RAW_PTX && memchr(data, '\0', size))
    s = cuarr_fail(CUARR_VALUE_ERROR, "PTX file '%s' has a NUL byte before its end", path);
  if (s == CUARR_OK)
    s = module_new(kind, data, size, kind == CUARR_RAW_SOURCE ? opts : NULL, out);
  free(data);
  return s;
}

void cuarr_raw_module_retain(cuarr_raw_module *m) {
  __atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
}

void cuarr_raw_module_release(cuarr_raw_module *m) {
  if (m && __atomic_fetch_sub(&m->refs, 1, __ATOMIC_ACQ_REL) == 1)
    module_free(m);
}

/* ---------------------------------------------------------------- compiling */

/* The program name NVRTC's messages use: "raw_module.cu". */
#define PROGRAM_NAME "raw_module"

/* Compile the user's source as it is, with the user's name expressions. */
static cuarr_status compile_plain(cuarr_raw_module *m, int device, cuarr_module **out) {
  return cuarr_module_get_named(device, m->source, PROGRAM_NAME, (const char *const *)m->options,
                                m->n_options, (const char *const *)m->names, m->n_names, out);
}

/* Compile the source with the signature prelude appended and, beside the user's name
 * expressions, one probe per kernel that may be launched: the user's name expressions and the
 * non-template kernels the source declares.  Fails (quietly: the caller compiles the plain
 * source for the user's error) when the probes do not compile. */
static cuarr_status compile_probed(cuarr_raw_module *m, int device, cuarr_module **out) {
  enum { MAX_FOUND = 256, FOUND_BYTES = 16384, EXPR_BYTES = 1024 };
  char *found = malloc(FOUND_BYTES);
  int n_found = found ? cuarr_signature_kernel_names(m->source, found, FOUND_BYTES, MAX_FOUND) : 0;
  int n_kernels = m->n_names + n_found;
  const char *prelude = cuarr_signature_prelude();
  size_t source_len = strlen(m->source), prelude_len = strlen(prelude);
  char *source = malloc(source_len + prelude_len + 2);
  const char **names = malloc((size_t)(m->n_names + n_kernels + 1) * sizeof *names);
  char *exprs = malloc((size_t)(n_kernels + 1) * EXPR_BYTES);
  cuarr_status s = CUARR_OK;
  if (!found || !source || !names || !exprs) {
    s = cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory to probe a RawModule's kernels");
    goto done;
  }
  memcpy(source, m->source, source_len);
  source[source_len] = '\n';
  memcpy(source + source_len + 1, prelude, prelude_len + 1);
  int n = 0;
  for (int i = 0; i < m->n_names; i++)
    names[n++] = m->names[i];
  const char *name = found;
  for (int i = 0; i < n_kernels; i++) {
    const char *kernel = i < m->n_names ? m->names[i] : name;
    if (i >= m->n_names)
      name += strlen(name) + 1;
    char *expr = exprs + (size_t)i * EXPR_BYTES;
    if (!cuarr_signature_expression(kernel, expr, EXPR_BYTES))
      continue;        /* too long to probe: that kernel is checked by its sizes alone */
    bool seen = false; /* a name expression that is also a declared kernel: one probe */
    for (int j = m->n_names; j < n && !seen; j++)
      seen = strcmp(names[j], expr) == 0;
    if (!seen)
      names[n++] = expr;
  }
  s = cuarr_module_get_named(device, source, PROGRAM_NAME, (const char *const *)m->options,
                             m->n_options, names, n, out);
done:
  free(found);
  free(source);
  free(names);
  free(exprs);
  return s;
}

cuarr_status cuarr_raw_module_loaded(cuarr_raw_module *m, int device, cuarr_module **out) {
  CUARR_TRY(cuarr_device_check(device));
  pthread_mutex_lock(&m->lock);
  cuarr_module *loaded = m->loaded[device];
  cuarr_status s = CUARR_OK;
  if (!loaded) {
    if (m->kind != CUARR_RAW_SOURCE) {
      s = cuarr_module_get_image(device, m->source,
                                 m->kind == CUARR_RAW_PTX ? m->size + 1 : m->size,
                                 m->kind == CUARR_RAW_PTX, &loaded);
    } else {
      s = compile_probed(m, device, &loaded);
      if (s == CUARR_COMPILE_ERROR)
        s = compile_plain(m, device, &loaded); /* the user's own error, with its line numbers */
      else if (s == CUARR_OK)
        m->probed[device] = true;
    }
    if (s == CUARR_OK)
      m->loaded[device] = loaded;
  }
  pthread_mutex_unlock(&m->lock);
  if (s == CUARR_OK)
    *out = loaded;
  return s;
}

cuarr_status cuarr_raw_module_check_compile(const cuarr_raw_module *m, int arch) {
  if (!m || m->kind != CUARR_RAW_SOURCE)
    return cuarr_fail(CUARR_VALUE_ERROR, "only a module of CUDA C source compiles for an "
                                         "architecture");
  char *cubin = NULL;
  size_t size = 0;
  cuarr_status s =
      cuarr_nvrtc_compile(m->source, PROGRAM_NAME ".cu", (const char *const *)m->options,
                          m->n_options, arch, &cubin, &size);
  free(cubin);
  return s;
}

cuarr_status cuarr_raw_module_compile(cuarr_raw_module *m, int device) {
  cuarr_module *loaded;
  return cuarr_raw_module_loaded(m, device, &loaded);
}

/* The name the module knows `name` by: a name expression's lowered name, else the name. */
static const char *symbol_name(const cuarr_module *loaded, const char *name) {
  const char *lowered = cuarr_module_lowered_name(loaded, name);
  return lowered ? lowered : name;
}

cuarr_status cuarr_raw_module_get_global(cuarr_raw_module *m, int device, const char *name,
                                         void **ptr, size_t *bytes) {
  if (!name || !*name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a global needs a name");
  cuarr_module *loaded;
  CUARR_TRY(cuarr_raw_module_loaded(m, device, &loaded));
  CUdeviceptr p = 0;
  size_t n = 0;
  cuarr_status s = cuarr_module_global(loaded, symbol_name(loaded, name), &p, &n);
  if (s != CUARR_OK && s != CUARR_VALUE_ERROR && s != CUARR_CUDA_ERROR)
    return s; /* out of memory, no driver: as they are */
  if (s != CUARR_OK)
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "RawModule has no global '%s' (a __device__ or __constant__ variable: "
                      "declare it extern \"C\", or give its C++ name in name_expressions)",
                      name);
  *ptr = (void *)(uintptr_t)p;
  *bytes = n;
  return CUARR_OK;
}

/* ---------------------------------------------------------------- kernels */

static cuarr_status device_limit(int device, CUdevice_attribute a, int *out) {
  CUdevice dev;
  CUARR_TRY(cuarr_cu_check(cuarr_cu.cuDeviceGet(&dev, device), "cuDeviceGet"));
  return cuarr_cu_check(cuarr_cu.cuDeviceGetAttribute(out, a, dev), "cuDeviceGetAttribute");
}

static cuarr_status function_limit(CUfunction f, CUfunction_attribute a, int *out) {
  return cuarr_cu_check(cuarr_cu.cuFuncGetAttribute(out, a, f), "cuFuncGetAttribute");
}

cuarr_status cuarr_raw_module_get_function(cuarr_raw_module *m, int device, const char *name,
                                           cuarr_raw_kernel **out) {
  if (!name || !*name)
    return cuarr_fail(CUARR_VALUE_ERROR, "a kernel needs a name");
  cuarr_module *loaded;
  CUARR_TRY(cuarr_raw_module_loaded(m, device, &loaded));
  size_t len = strlen(name) + 1;
  cuarr_raw_kernel *k = calloc(1, sizeof *k + len);
  if (!k)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a RawKernel");
  memcpy(k->name, name, len);
  k->device = device;
  k->n_params = -1;
  cuarr_status s = cuarr_module_function(loaded, symbol_name(loaded, name), &k->function);
  if (s == CUARR_OUT_OF_MEMORY || s == CUARR_NOT_AVAILABLE) {
    free(k);
    return s;
  }
  if (s != CUARR_OK) {
    free(k);
    return cuarr_fail(CUARR_VALUE_ERROR,
                      "RawModule has no kernel '%s' (declare it extern \"C\" __global__, or "
                      "give its C++ name, \"%s<float>\" for a template, in name_expressions)",
                      name, name);
  }
  s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &k->max_block[0]);
  if (s == CUARR_OK)
    s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &k->max_block[1]);
  if (s == CUARR_OK)
    s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &k->max_block[2]);
  if (s == CUARR_OK)
    s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &k->max_grid[0]);
  if (s == CUARR_OK)
    s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &k->max_grid[1]);
  if (s == CUARR_OK)
    s = device_limit(device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &k->max_grid[2]);
  if (s == CUARR_OK)
    s = function_limit(k->function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                       &k->max_threads_per_block);
  if (s == CUARR_OK)
    s = function_limit(k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                       &k->max_dynamic_shared);
  if (s == CUARR_OK)
    s = cuarr_raw_kernel_learn_params(k, loaded, m->probed[device]);
  if (s != CUARR_OK) {
    free(k->params);
    free(k);
    return s;
  }
  cuarr_raw_module_retain(m);
  k->module = m;
  *out = k;
  return CUARR_OK;
}

void cuarr_raw_kernel_free(cuarr_raw_kernel *k) {
  if (!k)
    return;
  cuarr_raw_module_release(k->module);
  free(k->params);
  free(k);
}

const char *cuarr_raw_kernel_name(const cuarr_raw_kernel *k) { return k->name; }
int cuarr_raw_kernel_device(const cuarr_raw_kernel *k) { return k->device; }
