/*
 * raw_signature.h -- the parameter types of a user's CUDA kernel, learnt from the compiler.
 *
 * The driver tells a kernel's parameter count and sizes, not whether a 4-byte parameter is an
 * int or a float, nor whether 8 bytes are a pointer.  A RawModule compiled from source asks
 * NVRTC: the program gets a variable template appended (cuarr_signature_prelude) and, for each
 * kernel it may launch, a name expression `&cuarr_signature_<decltype(kernel)>`.  The lowered
 * (mangled) name of that expression spells the kernel's function type in the Itanium ABI, with
 * typedefs, macros and template arguments already resolved by the compiler; cuarr_signature_
 * decode reads the parameter types back from it.  Private to src/core/.
 */
#ifndef CUARR_USER_RAW_SIGNATURE_H
#define CUARR_USER_RAW_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* Most parameters a signature holds (the driver's own limit is 4 KiB of parameters). */
#define CUARR_SIGNATURE_MAX 512

typedef enum cuarr_param_kind {
  CUARR_PARAM_BOOL,
  CUARR_PARAM_SIGNED,   /* signed integers, char included */
  CUARR_PARAM_UNSIGNED, /* unsigned integers */
  CUARR_PARAM_FLOAT,    /* float, double, __half */
  CUARR_PARAM_POINTER,  /* a pointer (or array parameter) to anything */
  CUARR_PARAM_OTHER,    /* a class, an enum, a reference, ...: Lua values cannot be passed */
} cuarr_param_kind;

typedef struct cuarr_param_type {
  cuarr_param_kind kind;
  /* Bytes of a scalar (bool, integer, float); 8 for a pointer; 0 when unknown (OTHER). */
  int size;
  /* The element dtype a pointer points to (a cuarr_dtype), or -1 when it takes any array:
   * void, char, a class other than __half, a pointer.  -1 for non-pointers. */
  int pointee;
  bool pointee_const; /* a pointer to const */
  char spelled[40];   /* the type as C spells it, for messages ("const double*", "int") */
} cuarr_param_type;

/* Source text to append to a user's program (after everything else) so that probe name
 * expressions can name it. */
const char *cuarr_signature_prelude(void);

/* The name expression that makes NVRTC spell `kernel`'s type (an identifier, or a template-id
 * such as "scale<float>") into buf; false when it does not fit. */
bool cuarr_signature_expression(const char *kernel, char *buf, size_t size);

/* The parameter types spelled by the lowered name of a cuarr_signature_expression into
 * params[0, *n) (at most max).  CUARR_VALUE_ERROR when the name is not one of those or uses
 * what the decoder does not read (the caller then checks counts and sizes alone). */
cuarr_status cuarr_signature_decode(const char *lowered, cuarr_param_type *params, int max, int *n);

/* The names of the non-template __global__ functions a source declares (comments and string
 * literals skipped), for probing them all when a RawModule is compiled: written to names as
 * consecutive NUL-terminated strings, at most max of them; returns how many.  A name found by
 * mistake (in an #if 0 block, say) makes the probe fail to compile, which the caller handles
 * by compiling without probes. */
int cuarr_signature_kernel_names(const char *source, char *names, size_t size, int max);

#endif
