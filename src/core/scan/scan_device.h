/*
 * scan_device.h -- the device scans (cumsum, cumprod): the kernel specialisations of
 * kernels/templates/scan.cu, their names and program text (scan_source.c), and how a call is laid
 * out for them (scan_device.c), exposed so that tests can check both without a device.  Private to
 * src/core/.
 */
#ifndef CUARR_SCAN_DEVICE_H
#define CUARR_SCAN_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reduce/reduce.h"

/* Threads per block of the scan kernels (CUARR_SCAN_THREADS of scan.cu), but for the 16-byte
 * ones (CUARR_SCAN_VEC_BLOCK). */
#define CUARR_SCAN_BLOCK 256
#define CUARR_SCAN_VEC_BLOCK 128
/* Bytes before the status slots in a rows kernel's state memory (CUARR_SCAN_STATE_HEADER). */
#define CUARR_SCAN_HEADER_BYTES 128

/* The kernel a scan runs (kernels/templates/scan.cu says how each works). */
typedef enum cuarr_scan_shape {
  CUARR_SCAN_ROWS_ONE,        /* one-pass kernel, in and out contiguous, one row */
  CUARR_SCAN_ROWS_CONTIG,     /* one-pass kernel, in and out contiguous, rows one after another */
  CUARR_SCAN_ROWS_ONE_VEC,    /* ROWS_ONE in 16-byte accesses (cuarr_scan_vec_fits) */
  CUARR_SCAN_ROWS_CONTIG_VEC, /* ROWS_CONTIG in 16-byte accesses */
  CUARR_SCAN_ROWS_ND2,        /* one-pass kernel, any strides, at most one kept axis */
  CUARR_SCAN_ROWS_NDN,        /* one-pass kernel, any strides, up to 31 kept axes */
  CUARR_SCAN_COLS_ND2,        /* a thread per row, at most one kept axis */
  CUARR_SCAN_COLS_ND3,        /* a thread per row, two kept axes */
  CUARR_SCAN_COLS_NDN,        /* a thread per row, up to 31 kept axes */
  CUARR_SCAN_NSHAPES
} cuarr_scan_shape;

typedef struct cuarr_scan_variant {
  cuarr_scan_op op;
  cuarr_dtype in, acc, out;
  cuarr_scan_shape shape;
  bool wide; /* 64-bit indexing (unsigned long long), else 32-bit (unsigned int) */
} cuarr_scan_variant;

/* Whether the shape is one of the one-pass (look-back) kernels. */
bool cuarr_scan_shape_is_rows(cuarr_scan_shape shape);
/* Axes of the kernel's cuarr_layout (the scan axis included): 2, 3 or CUARR_MAXDIM; 0 for the
 * contiguous kernels, which take none. */
int cuarr_scan_layout_axes(cuarr_scan_shape shape);
/* Whether the shape is one of the contiguous one-pass kernels, and of those the 16-byte ones. */
bool cuarr_scan_shape_is_contig(cuarr_scan_shape shape);
bool cuarr_scan_shape_is_vec(cuarr_scan_shape shape);
/* Whether the 16-byte kernels take dtypes of these sizes: in, acc and out all 4 or all 8 bytes. */
bool cuarr_scan_vec_fits(size_t in_size, size_t acc_size, size_t out_size);
/* Elements per thread of the one-pass kernels (their ITEMS): 32, or 8 for 8-byte accumulators. */
int cuarr_scan_items(cuarr_dtype acc);
/* Elements per thread and threads per block of a one-pass kernel of this shape. */
int cuarr_scan_shape_items(cuarr_scan_shape shape, cuarr_dtype acc);
int cuarr_scan_shape_threads(cuarr_scan_shape shape);

/* The kernel's extern "C" name, e.g. "cuarr_cumsum_float32_float32_float32_one_i32". */
void cuarr_scan_variant_name(const cuarr_scan_variant *v, char *buf, size_t size);
/* A malloc'd program: common.cuh + scan.cu + the kernels of vs[0..n).  NULL with
 * CUARR_OUT_OF_MEMORY set when out of host memory. */
char *cuarr_scan_program(const cuarr_scan_variant *vs, int n);
/* The specialisations compile-all checks (every shape and index width for the default dtypes
 * of both ops and every input dtype; every explicit dtype with one shape each); returns how
 * many, and writes them to out when out is not NULL. */
int cuarr_scan_variants_all(cuarr_scan_variant *out);

/* How scan_device.c lays out a call, for tests (no arrays, no device). */
typedef struct cuarr_scan_plan_info {
  cuarr_scan_shape shape;
  bool wide;
  int64_t n, rows, len; /* elements, rows, elements per row (the scan axis' extent) */
  int ndim;             /* layout axes in use, the scan axis last */
  int64_t extent[CUARR_MAXDIM];
  int64_t strides[2][CUARR_MAXDIM]; /* in elements: in, out */
  int64_t origin[2];
  int64_t base[2]; /* the kernel's pointers, in elements from the arrays' data addresses */
  int64_t chunk;   /* thread-per-row kernels: elements per thread along a row */
  int64_t grid, block;
  int64_t slots; /* look-back status slots (tiles, or rows x chunks); 0: no look-back */
  int64_t state_bytes, zeroed_bytes; /* the state memory, and how much of it is zeroed */
} cuarr_scan_plan_info;

/* The plan of a scan along `axis` of an array of `shape` with dtype `in` and byte strides
 * in_strides into one of dtype `out` with byte strides out_strides, accumulating in acc, both
 * data addresses aligned.  Fails as a scan would on unaligned or unindexable strides. */
cuarr_status cuarr_scan_plan_describe(int ndim, const int64_t *shape, int axis, cuarr_dtype in,
                                      const int64_t *in_strides, cuarr_dtype out,
                                      const int64_t *out_strides, cuarr_dtype acc,
                                      cuarr_scan_plan_info *info);

#endif
