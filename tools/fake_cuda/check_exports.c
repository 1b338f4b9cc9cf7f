/*
 * check_exports.c -- dlopen the fake driver and dlsym every entry point cuarr's loader resolves
 * (the X-macro list of src/core/cuda/driver.h, renamed as the loader renames it), so that an
 * entry point added to driver.h and missing from fake_cuda.c is caught at build time.
 *
 * Usage: check_exports path/to/libcuda.so.1   (exit 1 and the missing names on stderr)
 */
#include <dlfcn.h>
#include <stdio.h>

#include "cuda/driver.h"

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s libcuda.so\n", argv[0]);
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "check_exports: %s\n", dlerror());
    return 1;
  }
  int n = 0, missing = 0;
#define CHECK_(f)                                                                                  \
  n++;                                                                                             \
  if (!dlsym(h, XSTR(f))) {                                                                        \
    fprintf(stderr, "check_exports: %s lacks %s\n", argv[1], XSTR(f));                             \
    missing++;                                                                                     \
  }
  CUARR_DRIVER_FUNCTIONS(CHECK_)
  CUARR_DRIVER_OPTIONAL_FUNCTIONS(CHECK_)
  if (!missing)
    printf("check_exports: all %d driver entry points of driver.h exported\n", n);
  return missing ? 1 : 0;
}
