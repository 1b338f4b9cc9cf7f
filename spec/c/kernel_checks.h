/* kernel_checks.h -- what the C tests that compile generated kernels share: whether a source
 * brings a header its batch lacks.  Looking for a kernel's name in a cubin is
 * cuarr_cubin_has (src/core/testing/compile_batches.c, declared in internal.h). */
#ifndef CUARR_KERNEL_CHECKS_H
#define CUARR_KERNEL_CHECKS_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Whether source has a header that program (the batch so far) lacks: a generated source holds
 * only the headers its kernel uses (common.cuh, the float16 class). */
static inline bool brings_header(const char *program, const char *source) {
  static const char *const marks[] = {"#define CUARR_COMMON_CUH", "struct float16"};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
    if (strstr(source, marks[i]) && !(program && strstr(program, marks[i])))
      return true;
  return false;
}
#endif
