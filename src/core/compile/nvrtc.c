/*
 * nvrtc.c -- compile CUDA C to a cubin with NVRTC, and word its failures.
 *
 * Kernels are compiled for the device's own architecture (sm_XY) straight to a cubin, so the
 * driver has nothing left to JIT.  Loading and keeping what was compiled is the module cache's
 * work (module_cache.c).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/nvrtc.h"

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

const char **cuarr_nvrtc_options(int arch, const char *const *options, int n_options,
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

/* The lowered names of the program's name expressions, copied into one malloc'd block of
 * consecutive NUL-terminated strings (in the order of `names`). */
static cuarr_status take_lowered(nvrtcProgram prog, const cuarr_name_expressions *names,
                                 char **lowered) {
  size_t total = 0;
  for (int i = 0; i < names->n; i++) {
    const char *l = NULL;
    CUARR_TRY(cuarr_nvrtc_check(cuarr_nvrtc.nvrtcGetLoweredName(prog, names->expr[i], &l),
                                "nvrtcGetLoweredName"));
    total += strlen(l) + 1;
  }
  char *block = malloc(total ? total : 1), *at = block;
  if (!block)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for lowered names");
  for (int i = 0; i < names->n; i++) {
    const char *l = NULL;
    cuarr_nvrtc.nvrtcGetLoweredName(prog, names->expr[i], &l);
    size_t n = strlen(l) + 1;
    memcpy(at, l, n);
    at += n;
  }
  *lowered = block;
  return CUARR_OK;
}

static cuarr_status compile_once(const char *source, const char *program_name, const char **all,
                                 int n_all, const cuarr_name_expressions *names, bool quiet,
                                 char **cubin, size_t *cubin_size, char **lowered) {
  nvrtcProgram prog = NULL;
  cuarr_status s =
      cuarr_nvrtc_check(cuarr_nvrtc.nvrtcCreateProgram(&prog, source, program_name, 0, NULL, NULL),
                        "nvrtcCreateProgram");
  for (int i = 0; s == CUARR_OK && names && i < names->n; i++)
    s = cuarr_nvrtc_check(cuarr_nvrtc.nvrtcAddNameExpression(prog, names->expr[i]),
                          "nvrtcAddNameExpression");
  if (s == CUARR_OK) {
    nvrtcResult r = cuarr_nvrtc.nvrtcCompileProgram(prog, n_all, all);
    if (r == NVRTC_SUCCESS)
      s = take_cubin(prog, cubin, cubin_size);
    else
      s = quiet ? CUARR_COMPILE_ERROR : compile_failed(prog, r, source, program_name);
  }
  if (s == CUARR_OK && names && names->n > 0) {
    s = take_lowered(prog, names, lowered);
    if (s != CUARR_OK) {
      free(*cubin);
      *cubin = NULL;
    }
  }
  if (prog)
    cuarr_nvrtc.nvrtcDestroyProgram(&prog);
  return s;
}

cuarr_status cuarr_nvrtc_compile_named(const char *source, const char *program_name,
                                       const char **all, int n_all,
                                       const cuarr_name_expressions *names, char **cubin,
                                       size_t *cubin_size, char **lowered) {
  CUARR_TRY(cuarr_load_nvrtc());
  all[n_all] = MINIMAL;
  if (compile_once(source, program_name, all, n_all + 1, names, true, cubin, cubin_size, lowered) ==
      CUARR_OK)
    return CUARR_OK;
  return compile_once(source, program_name, all, n_all, names, false, cubin, cubin_size, lowered);
}

cuarr_status cuarr_nvrtc_compile_with(const char *source, const char *program_name,
                                      const char **all, int n_all, char **cubin,
                                      size_t *cubin_size) {
  return cuarr_nvrtc_compile_named(source, program_name, all, n_all, NULL, cubin, cubin_size, NULL);
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
  const char **all = cuarr_nvrtc_options(arch, options, n_options, arch_option, &n_all);
  if (!all)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for NVRTC options");
  cuarr_status s = cuarr_nvrtc_compile_with(source, program_name, all, n_all, cubin, cubin_size);
  free(all);
  return s;
}
