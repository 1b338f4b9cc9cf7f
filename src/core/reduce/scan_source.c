/*
 * scan_source.c -- names and program text of the scan kernels, and the compile-everything
 * check of `make test`.
 *
 * The templates live in kernels/scan.cu (embedded by tools/embed.sh); each specialisation
 * becomes one extern "C" kernel that instantiates its template under a name saying what it is
 * (the name is also what the loaded module is asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/scan_device.h"

extern const char cuarr_kernel_source_common_cuh[];
extern const char cuarr_kernel_source_scan_cu[];

/* The longest kernel text below is well under this (names and types are short). */
#define KERNEL_TEXT_MAX 640

bool cuarr_scan_shape_is_rows(cuarr_scan_shape shape) { return shape <= CUARR_SCAN_ROWS_NDN; }

bool cuarr_scan_shape_is_contig(cuarr_scan_shape shape) {
  return shape <= CUARR_SCAN_ROWS_CONTIG_VEC;
}

bool cuarr_scan_shape_is_vec(cuarr_scan_shape shape) {
  return shape == CUARR_SCAN_ROWS_ONE_VEC || shape == CUARR_SCAN_ROWS_CONTIG_VEC;
}

bool cuarr_scan_vec_fits(size_t in_size, size_t acc_size, size_t out_size) {
  return (acc_size == 4 || acc_size == 8) && in_size == acc_size && out_size == acc_size;
}

static bool vec_fits(cuarr_dtype in, cuarr_dtype acc, cuarr_dtype out) {
  return cuarr_scan_vec_fits(cuarr_dtype_size(in), cuarr_dtype_size(acc), cuarr_dtype_size(out));
}

int cuarr_scan_layout_axes(cuarr_scan_shape shape) {
  switch (shape) {
  case CUARR_SCAN_ROWS_ND2:
  case CUARR_SCAN_COLS_ND2: return 2;
  case CUARR_SCAN_COLS_ND3: return 3;
  case CUARR_SCAN_ROWS_NDN:
  case CUARR_SCAN_COLS_NDN: return CUARR_MAXDIM;
  default: return 0;
  }
}

/* 64 bytes of accumulators per thread: 16 floats or 8 doubles, which keeps registers (and so
 * occupancy) alike across dtypes and makes the shared-memory padding of scan.cu
 * conflict-free.  Narrower accumulators (an explicit bool/int8/int16 dtype) take 16 as well. */
/* 32 per thread for accumulators of up to 4 bytes: a cumsum of 2^28 float32 on an H100 ran
 * at 2132 GB/s with 16 and 2322 with 32 (fewer tiles to look back over). */
int cuarr_scan_items(cuarr_dtype acc) { return cuarr_dtype_size(acc) == 8 ? 8 : 32; }

/* The 16-byte kernels keep 256 bytes of accumulators per thread in 128-thread blocks (the same
 * 8192 float32 a tile): a cumsum of 2^28 float32 on an H100 ran at 84% of the copy rate
 * against 78% for the element-wise loads (128 x 32: 82%, 256 x 64: 81%, 512 x 32: 81%). */
int cuarr_scan_shape_items(cuarr_scan_shape shape, cuarr_dtype acc) {
  if (cuarr_scan_shape_is_vec(shape))
    return 256 / (int)cuarr_dtype_size(acc);
  return cuarr_scan_items(acc);
}

int cuarr_scan_shape_threads(cuarr_scan_shape shape) {
  return cuarr_scan_shape_is_vec(shape) ? CUARR_SCAN_VEC_BLOCK : CUARR_SCAN_BLOCK;
}

static const char *shape_suffix(cuarr_scan_shape shape) {
  static const char *const names[CUARR_SCAN_NSHAPES] = {"one",      "rows",     "one_vec",
                                                        "rows_vec", "rows_nd2", "rows_ndN",
                                                        "cols_nd2", "cols_nd3", "cols_ndN"};
  return names[shape];
}

void cuarr_scan_variant_name(const cuarr_scan_variant *v, char *buf, size_t size) {
  snprintf(buf, size, "cuarr_%s_%s_%s_%s_%s_%s", v->op == CUARR_SCAN_CUMPROD ? "cumprod" : "cumsum",
           cuarr_dtype_name(v->in), cuarr_dtype_name(v->acc), cuarr_dtype_name(v->out),
           shape_suffix(v->shape), v->wide ? "i64" : "i32");
}

/* One extern "C" kernel instantiating the shape's template; returns its length. */
static int kernel_text(const cuarr_scan_variant *v, char *buf, size_t size) {
  char name[128];
  cuarr_scan_variant_name(v, name, sizeof name);
  const char *it = v->wide ? "unsigned long long" : "unsigned int";
  const char *in = cuarr_dtype_ctype(v->in), *acc = cuarr_dtype_ctype(v->acc),
             *out = cuarr_dtype_ctype(v->out);
  int op = v->op == CUARR_SCAN_CUMPROD ? 1 : 0, axes = cuarr_scan_layout_axes(v->shape);
  const char *generic = axes == CUARR_MAXDIM ? "true" : "false";
  int n = snprintf(buf, size,
                   "extern \"C\" __global__ void __launch_bounds__(%d) %s(const %s *in, %s *out, ",
                   cuarr_scan_shape_threads(v->shape), name, in, out);
  size_t used = n > 0 ? (size_t)n : 0;
  char *p = buf + used;
  size_t room = used < size ? size - used : 0;
  switch (v->shape) {
  case CUARR_SCAN_ROWS_ONE:
  case CUARR_SCAN_ROWS_CONTIG:
  case CUARR_SCAN_ROWS_ONE_VEC:
  case CUARR_SCAN_ROWS_CONTIG_VEC: {
    bool seg = v->shape == CUARR_SCAN_ROWS_CONTIG || v->shape == CUARR_SCAN_ROWS_CONTIG_VEC;
    n = snprintf(p, room,
                 "%s n, %s len, void *state) { cuarr_scan_rows_contig<%d, %s, %s, %s, %s, %d, "
                 "%s, %d, %s>(in, out, n, len, state); }\n",
                 it, it, op, in, acc, out, it, cuarr_scan_shape_items(v->shape, v->acc),
                 seg ? "true" : "false", cuarr_scan_shape_threads(v->shape),
                 cuarr_scan_shape_is_vec(v->shape) ? "true" : "false");
    break;
  }
  case CUARR_SCAN_ROWS_ND2:
  case CUARR_SCAN_ROWS_NDN:
    n = snprintf(p, room,
                 "cuarr_layout<%s, %d, 2> p, void *state) { cuarr_scan_rows_strided<%d, %s, %s, "
                 "%s, %s, %d, %d, %s>(in, out, p, state); }\n",
                 it, axes, op, in, acc, out, it, cuarr_scan_items(v->acc), axes, generic);
    break;
  default:
    n = snprintf(p, room,
                 "cuarr_layout<%s, %d, 2> p, %s rows, %s chunk, void *state) { cuarr_scan_cols<%d, "
                 "%s, %s, %s, %s, %d, %s>(in, out, p, rows, chunk, state); }\n",
                 it, axes, it, it, op, in, acc, out, it, axes, generic);
    break;
  }
  size_t total = used + (n > 0 ? (size_t)n : 0);
  return (int)(total < size ? total : size - 1); /* never truncates: KERNEL_TEXT_MAX is ample */
}

char *cuarr_scan_program(const cuarr_scan_variant *vs, int n) {
  const char *common = cuarr_kernel_source_common_cuh, *tmpl = cuarr_kernel_source_scan_cu;
  size_t common_len = strlen(common), tmpl_len = strlen(tmpl);
  size_t size = common_len + tmpl_len + 2 + (size_t)n * KERNEL_TEXT_MAX + 1;
  char *text = malloc(size);
  if (!text) {
    cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for a %zu-byte kernel source", size);
    return NULL;
  }
  memcpy(text, common, common_len);
  size_t used = common_len;
  text[used++] = '\n';
  memcpy(text + used, tmpl, tmpl_len);
  used += tmpl_len;
  text[used++] = '\n';
  for (int i = 0; i < n; i++)
    used += (size_t)kernel_text(&vs[i], text + used, size - used);
  text[used] = '\0';
  return text;
}

/* ---------------------------------------------------------------- make test */

int cuarr_scan_variants_all(cuarr_scan_variant *out) {
  int n = 0;
#define EMIT(...)                                                                                  \
  do {                                                                                             \
    if (out)                                                                                       \
      out[n] = (cuarr_scan_variant){__VA_ARGS__};                                                  \
    n++;                                                                                           \
  } while (0)
  for (int op = 0; op < CUARR_NSCAN_OPS; op++) {
    cuarr_reduce_op rop = op == CUARR_SCAN_CUMPROD ? CUARR_REDUCE_PROD : CUARR_REDUCE_SUM;
    for (int in = 0; in < CUARR_NDTYPES; in++) {
      cuarr_dtype acc, res, dacc, dres;
      if (cuarr_reduce_resolve(rop, (cuarr_dtype)in, -1, &dacc, &dres) != CUARR_OK)
        continue;
      /* The default dtypes: every kernel they can take. */
      for (int shape = 0; shape < CUARR_SCAN_NSHAPES; shape++)
        for (int wide = 0; wide < 2; wide++)
          if (!cuarr_scan_shape_is_vec(shape) || vec_fits(in, dacc, dres))
            EMIT((cuarr_scan_op)op, (cuarr_dtype)in, dacc, dres, (cuarr_scan_shape)shape, wide);
      /* Every explicit dtype (its accumulator and result): one kernel each, the shapes and
       * widths taken in turn, so that each template meets every accumulator type. */
      for (int d = 0; d < CUARR_NDTYPES; d++) {
        if (cuarr_reduce_resolve(rop, (cuarr_dtype)in, d, &acc, &res) != CUARR_OK ||
            (acc == dacc && res == dres))
          continue;
        int turn = in * CUARR_NDTYPES + d + op;
        cuarr_scan_shape shape = (cuarr_scan_shape)(turn % CUARR_SCAN_NSHAPES);
        if (cuarr_scan_shape_is_vec(shape) && !vec_fits(in, acc, res))
          shape = shape == CUARR_SCAN_ROWS_ONE_VEC ? CUARR_SCAN_ROWS_ONE : CUARR_SCAN_ROWS_CONTIG;
        EMIT((cuarr_scan_op)op, (cuarr_dtype)in, acc, res, shape, (turn / CUARR_SCAN_NSHAPES) % 2);
      }
    }
  }
#undef EMIT
  return n;
}

/* Kernels per program: a program costs NVRTC's start-up and the templates' parsing once. */
#define KERNELS_PER_PROGRAM 32

typedef struct job {
  const cuarr_scan_variant *variants;
  int n_variants;
} job;

static int program_end(void *ctx, int first) {
  const job *j = ctx;
  return first + KERNELS_PER_PROGRAM < j->n_variants ? first + KERNELS_PER_PROGRAM : j->n_variants;
}

static void name_of(void *ctx, int i, char *buf, size_t size) {
  cuarr_scan_variant_name(&((const job *)ctx)->variants[i], buf, size);
}

static cuarr_status compile_program(void *ctx, const cuarr_compile_options *o, int first, int end,
                                    int *found) {
  const job *j = ctx;
  char *source = cuarr_scan_program(j->variants + first, end - first);
  if (!source)
    return CUARR_OUT_OF_MEMORY;
  char program_name[160];
  cuarr_scan_variant_name(&j->variants[first], program_name, sizeof program_name - 8);
  strcat(program_name, "_etc.cu");
  cuarr_status s =
      cuarr_compile_and_count(source, program_name, o, ctx, first, end, name_of, found);
  free(source);
  return s;
}

cuarr_status cuarr_scan_kernels_compile_all(int arch, int *n_compiled) {
  *n_compiled = 0;
  CUARR_TRY(cuarr_load_nvrtc());
  int n = cuarr_scan_variants_all(NULL);
  cuarr_scan_variant *variants = malloc((size_t)n * sizeof *variants);
  if (!variants)
    return cuarr_fail(CUARR_OUT_OF_MEMORY, "no host memory for the kernel list");
  cuarr_scan_variants_all(variants);
  job j = {.variants = variants, .n_variants = n};
  cuarr_status s = cuarr_compile_batches(arch, n, program_end, compile_program, &j, n_compiled);
  free(variants);
  return s;
}
