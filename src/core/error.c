/*
 * error.c -- the per-thread message of the last failure.
 *
 * Core functions return a cuarr_status; the words go here, so that a caller (the Lua binding,
 * an engine) can turn them into its own kind of error.  Per thread, so two threads failing at
 * once keep their own messages.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cuarr.h"

static _Thread_local char last_message[2048];

const char *cuarr_status_name(cuarr_status s) {
  switch (s) {
  case CUARR_OK: return "OK";
  case CUARR_VALUE_ERROR: return "ValueError";
  case CUARR_TYPE_ERROR: return "TypeError";
  case CUARR_INDEX_ERROR: return "IndexError";
  case CUARR_OUT_OF_MEMORY: return "OutOfMemoryError";
  case CUARR_COMPILE_ERROR: return "CompileError";
  case CUARR_CUDA_ERROR: return "CUDAError";
  case CUARR_NOT_AVAILABLE: return "NotAvailable";
  case CUARR_LINALG_ERROR: return "LinAlgError";
  case CUARR_DISTRIBUTED_ERROR: return "DistributedError";
  }
  return "Error";
}

const char *cuarr_last_error(void) { return last_message; }

cuarr_status cuarr_fail(cuarr_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return s;
}
