/*
 * histogram.h -- the counting kernel's specialisations (kernels/templates/histogram.cu): their
 * names and program text (histogram_source.c).  Private to src/core/histogram/.
 */
#ifndef CUARR_HISTOGRAM_HISTOGRAM_H
#define CUARR_HISTOGRAM_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Threads per block (also the kernel's __launch_bounds__). */
#define CUARR_HIST_THREADS 256
/* Shared memory a block's private bins may take (8 bytes a bin): more bins count straight into
 * the output with global atomics. */
#define CUARR_HIST_SHARED_BYTES (32 * 1024)
/* The weight "dtype" of an unweighted count. */
#define CUARR_HIST_NO_WEIGHTS CUARR_NDTYPES

typedef struct cuarr_hist_variant {
  cuarr_bin_rule rule;
  cuarr_dtype x;
  int weights; /* a cuarr_dtype, or CUARR_HIST_NO_WEIGHTS */
  bool exact;  /* the accumulator: int64 (counts, integer weights) or, false, float64 */
  bool shared; /* bins privatised per block in shared memory */
} cuarr_hist_variant;

/* "cuarr_histogram_uniform_float32_w_none_shared" */
void cuarr_hist_variant_name(const cuarr_hist_variant *v, char *buf, size_t size);
/* A malloc'd program of the n variants (common.cuh, histogram.cu, one kernel each); NULL with
 * the error set. */
char *cuarr_hist_program(const cuarr_hist_variant *vs, int n);

#endif
