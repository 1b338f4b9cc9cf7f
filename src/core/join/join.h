/*
 * join.h -- the concatenate kernel's specialisations (kernels/templates/join.cu): their names
 * and program text (join_source.c).  Private to src/core/join/.
 */
#ifndef CUARR_JOIN_JOIN_H
#define CUARR_JOIN_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Threads per block (also the kernel's __launch_bounds__) and loads in flight per thread. */
#define CUARR_JOIN_THREADS 256
#define CUARR_JOIN_BATCH 4
/* Axes a kernel takes after collapsing (1..CUARR_JOIN_MAX_AXES), and the source capacities of
 * its parameter struct: a launch of up to 8 sources passes the small one. */
#define CUARR_JOIN_MAX_AXES 4
#define CUARR_JOIN_SMALL_K 8
#define CUARR_JOIN_LARGE_K 64
/* The source "dtype" of a kernel whose sources have several dtypes. */
#define CUARR_JOIN_MIXED CUARR_NDTYPES

/* runs: the byte-run specialisation (join.cu's cuarr_join_runs), which only k distinguishes. */
typedef struct cuarr_join_variant {
  bool runs;
  cuarr_dtype dst;
  int src;  /* a cuarr_dtype, or CUARR_JOIN_MIXED */
  int axes; /* 1..CUARR_JOIN_MAX_AXES */
  int k;    /* CUARR_JOIN_SMALL_K or CUARR_JOIN_LARGE_K */
  bool wide;
} cuarr_join_variant;

/* "cuarr_join_float32_from_mixed_nd2_k8_i32", "cuarr_join_runs_k8" */
void cuarr_join_variant_name(const cuarr_join_variant *v, char *buf, size_t size);
/* A malloc'd program of the n variants (common.cuh, join.cu, one kernel each); NULL with the
 * error set. */
char *cuarr_join_program(const cuarr_join_variant *vs, int n);

#endif
