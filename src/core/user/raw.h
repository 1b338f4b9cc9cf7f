/*
 * raw.h -- what the files of raw kernels share (raw_module.c: modules and their compiles;
 * raw_kernel.c: a kernel's parameter list and attributes; raw_launch.c: launches).  Private
 * to src/core/user/.
 */
#ifndef CUARR_USER_RAW_H
#define CUARR_USER_RAW_H

#include <pthread.h>

#include "compile/module_cache.h"
#include "internal.h"
#include "user/raw_signature.h"

struct cuarr_raw_module {
  long refs; /* atomically updated */
  pthread_mutex_t lock;
  cuarr_raw_image_kind kind;
  char *source; /* CUDA C, or the image's bytes (PTX with its NUL byte) */
  size_t size;
  char **options; /* the user's NVRTC options */
  int n_options;
  char **names; /* the user's name expressions */
  int n_names;
  /* Per device: the compiled module, and whether it carries the signature probes. */
  cuarr_module *loaded[CUARR_MAX_DEVICES];
  bool probed[CUARR_MAX_DEVICES];
};

struct cuarr_raw_kernel {
  cuarr_raw_module *module; /* a reference */
  int device;
  CUfunction function;
  int n_params; /* -1: unknown */
  cuarr_raw_param *params;
  int params_bytes; /* the parameter buffer's size */
  /* Limits checked before each launch. */
  int max_threads_per_block;
  int max_dynamic_shared;
  int max_block[3], max_grid[3];
  bool dependent; /* launched as a programmatic dependent where the device allows */
  char name[];    /* as the user named it */
};

/* The most bytes of parameters a launch takes: the driver's classic 4 KiB, so that the buffer
 * built on the stack for each launch stays small (CUDA 12.1 allows up to 32764 on Volta and
 * newer; kernels that need that much are refused when they are looked up). */
#define CUARR_RAW_PARAM_BYTES 4096
#define CUARR_RAW_MAX_PARAMS CUARR_SIGNATURE_MAX

/* The module compiled or loaded for device (under its lock, once). */
cuarr_status cuarr_raw_module_loaded(cuarr_raw_module *m, int device, cuarr_module **out);

/* Learn kernel k's parameter list (k->function, k->module, k->device set): the driver's count,
 * offsets and sizes where it tells them, the decoded signature's kinds where the module has a
 * probe for k->name (probed: the module was compiled with the probes). */
cuarr_status cuarr_raw_kernel_learn_params(cuarr_raw_kernel *k, const cuarr_module *loaded,
                                           bool probed);

#endif
