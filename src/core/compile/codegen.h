/*
 * codegen.h -- the one code generator's tools, shared by every generator of CUDA C
 * (elementwise/, reduce/, scan/, copy/): a growing text, templates with named slots, the
 * names generated code gives dtypes, and the pieces every program and kernel repeats (the
 * headers a program carries, the placeholder typedefs, the launch prologue, the program of n
 * kernels of one family).
 *
 * Generating text happens only when a kernel is not in a cache (just before NVRTC compiles
 * it), never on a call's way to its launch.
 */
#ifndef CUARR_COMPILE_CODEGEN_H
#define CUARR_COMPILE_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* ---------------------------------------------------------------- the text */

/* A growing string, zero-initialised to start (`cuarr_text t = {0};`).  Out of memory, or a
 * template slot without a value, marks it failed: later writes do nothing, and
 * cuarr_text_finish reports it, so writers check once, at the end. */
typedef struct cuarr_text {
  char *p;
  size_t len, cap;
  bool failed;
  char bad_slot[48]; /* the first slot a template could not fill ("" if none) */
} cuarr_text;

void cuarr_text_put(cuarr_text *t, const char *s);
void cuarr_text_putn(cuarr_text *t, const char *s, size_t n);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cuarr_text_printf(cuarr_text *t, const char *fmt, ...);

/* Append part's text to t and free part; a failed part fails t (with its slot error). */
void cuarr_text_take(cuarr_text *t, cuarr_text *part);

/* The text (malloc'd, the caller's), or NULL with the error set and the text freed:
 * CUARR_OUT_OF_MEMORY, or CUARR_VALUE_ERROR naming a template slot that had no value. */
char *cuarr_text_finish(cuarr_text *t);
void cuarr_text_free(cuarr_text *t);

/* ---------------------------------------------------------------- templates */

/* A slot's value: text, or (text NULL) a number. */
typedef struct cuarr_slot {
  const char *name;
  const char *text;
  long long number;
} cuarr_slot;

#define SLOT(name_, text_) ((cuarr_slot){.name = (name_), .text = (text_)})
#define INT_SLOT(name_, n_) ((cuarr_slot){.name = (name_), .number = (n_)})

/* Append tmpl with each `${name}` replaced by that slot's value, e.g.
 *   cuarr_text_fill(t, "for (${I} k = ${first}; k < n; k += ${step}) {\n", slots, 3);
 * A slot the template names but the table lacks, a table entry the template never names
 * (a misspelt name) and an unclosed `${` are programming errors: the text fails with the slot
 * named (cuarr_text_finish reports it).  At most 64 slots. */
void cuarr_text_fill(cuarr_text *t, const char *tmpl, const cuarr_slot *slots, int n_slots);

/* The same with every line the template starts indented by `indent` (not lines that start
 * with `#`, which preprocessor lines leave at the margin): a template is written at the
 * margin and placed at any depth of the generated code. */
void cuarr_text_fill_indented(cuarr_text *t, const char *indent, const char *tmpl,
                              const cuarr_slot *slots, int n_slots);

/* A template with no slots, indented so. */
void cuarr_text_put_at(cuarr_text *t, const char *indent, const char *tmpl);

/* cuarr_text_fill with the slots (one or more) listed in place:
 *   FILL(t, "${a} = ${b};\n", SLOT("a", x), INT_SLOT("b", 4)); */
#define FILL(t, tmpl, ...)                                                                         \
  cuarr_text_fill((t), (tmpl), (const cuarr_slot[]){__VA_ARGS__},                                  \
                  (int)(sizeof((const cuarr_slot[]){__VA_ARGS__}) / sizeof(cuarr_slot)))
#define FILL_AT(t, indent, tmpl, ...)                                                              \
  cuarr_text_fill_indented((t), (indent), (tmpl), (const cuarr_slot[]){__VA_ARGS__},               \
                           (int)(sizeof((const cuarr_slot[]){__VA_ARGS__}) / sizeof(cuarr_slot)))

/* ---------------------------------------------------------------- names in generated code */

/* A variable's C type: float16 variables are of the float16 class (half.cuh), the other
 * dtypes cuarr_dtype_ctype's. */
const char *cuarr_codegen_var_ctype(cuarr_dtype d);
/* Two characters naming a dtype in kernel names: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8. */
const char *cuarr_codegen_dtype_code(cuarr_dtype d);
/* The index types: unsigned for counts and flat indices, signed for offsets. */
const char *cuarr_codegen_index_ctype(bool wide);
const char *cuarr_codegen_offset_ctype(bool wide);

/* ---------------------------------------------------------------- pieces of programs */

/* The embedded files a program may carry before its own code, in the order they go. */
enum {
  CUARR_HEADER_COMMON = 1,        /* kernels/include/common.cuh: casts, loads, layouts */
  CUARR_HEADER_HALF = 2,          /* kernels/include/half.cuh: the float16 class */
  CUARR_HEADER_ELEMENTWISE = 4,   /* kernels/templates/elementwise.cu: vectors, _ind, raw */
  CUARR_HEADER_REDUCTION = 8,     /* kernels/templates/reduction.cu */
  CUARR_HEADER_REDUCTION_OPS = 16 /* kernels/include/reduction_ops.cuh */
};
/* Those of `headers`, each followed by a newline. */
void cuarr_codegen_put_headers(cuarr_text *t, unsigned headers);

/* Whether any of the n texts (NULL ones skipped) of a program names something of cuarr's
 * headers (every name there starts with cuarr, CUARR or __half): a built-in's text calls their
 * helpers, and a user's kernel may call anything; a program that does carries common.cuh. */
bool cuarr_codegen_mentions_cuarr(const char *const *texts, int n);

/* The opening of a generated kernel, up to its parameters:
 * `\nextern "C" __global__ void __launch_bounds__(<threads>)\n<name>(`. */
void cuarr_codegen_put_kernel_head(cuarr_text *t, int threads, const char *name);

/* `typedef <ctype> <name>;` for each named placeholder (names[k] NULL: none), each name once,
 * the first one's type winning (the caller has checked that they agree). */
void cuarr_codegen_put_typedefs(cuarr_text *t, int n, const char *const *names,
                                const char *const *ctypes);

/* What a kernel launched as a programmatic dependent (cuarr_launch_dependent) does first: wait
 * for the kernel before it on the stream to finish and its memory to be visible; and, with
 * let_next_in, let the next one be scheduled at once, so that its launch overlaps this one's
 * run (kernels that do it later, after their loads, leave it out here). */
void cuarr_codegen_put_launch_prologue(cuarr_text *t, bool let_next_in);

/* A program of n kernels of one family: common.cuh, the family's template (an embedded
 * kernels/templates file), then put_kernel(t, kernels, i) for i in 0..n-1, each writing one
 * extern "C" kernel that instantiates the template.  Malloc'd; NULL with the error set. */
typedef void (*cuarr_kernel_writer)(cuarr_text *t, const void *kernels, int i);
char *cuarr_codegen_program(const char *family_template, int n, cuarr_kernel_writer put_kernel,
                            const void *kernels);

/* ---------------------------------------------------------------- compile options */

/* The option that asks NVRTC for its fast-compile mode at its lightest: a new kernel's first
 * call waits for NVRTC, and the mode shortens that for no measurable loss on cuarr's
 * memory-bound loops.  An NVRTC that does not know it (before CUDA 12.8) is asked again
 * without it. */
#define CUARR_FAST_COMPILE_OPTION "--Ofast-compile=min"

/* The options a generated kernel compiles with, in out (room for n + 1): the program's own,
 * then CUARR_FAST_COMPILE_OPTION unless they choose a mode themselves (--Ofast-compile=... or
 * -Ofc=..., NVRTC's spellings; NVRTC takes the last of two, which would be ours).  One rule
 * for ElementwiseKernel and ReductionKernel alike.  Returns the count. */
int cuarr_codegen_compile_options(const char *const *options, int n, const char **out);

/* cuarr_kernel_get for a generated kernel of a program with these options of its own, with
 * cuarr_codegen_compile_options's, and again with the program's alone where NVRTC does not
 * know CUARR_FAST_COMPILE_OPTION. */
cuarr_status cuarr_codegen_kernel_get(int device, const char *source, const char *kernel_name,
                                      const char *const *options, int n_options, CUfunction *out);

#endif
