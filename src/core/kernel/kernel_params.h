/*
 * kernel_params.h -- parameter lists of user kernels and placeholder binding, shared by
 * ElementwiseKernel and ReductionKernel.  Private to src/core/.
 */
#ifndef CUARR_KERNEL_PARAMS_H
#define CUARR_KERNEL_PARAMS_H

#include "internal.h"

/* Most parameters of one user kernel. */
#define CUARR_KP_MAX 128

/* One "[raw] type name". */
typedef struct cuarr_kparam {
  char *name;
  int dtype;           /* a cuarr_dtype, or -1 for a placeholder */
  char placeholder[2]; /* its one-letter name */
  bool raw;
} cuarr_kparam;

bool cuarr_kp_is_identifier(const char *s, size_t n);
char *cuarr_kp_copy(const char *s, size_t n); /* NUL-terminated copy, or NULL */
/* A copy of s (NULL stays NULL); sets *failed when out of memory. */
char *cuarr_kp_dup(const char *s, bool *failed);
/* A comma-separated list into params[*count...] (at most CUARR_KP_MAX in all); `which` names
 * the list in errors ("input", "output").  An empty or blank list has none. */
cuarr_status cuarr_kp_parse_list(const char *list, const char *which, cuarr_kparam *params,
                                 int *count);
int cuarr_kp_count_commas(const char *s);
/* in_params then out_params into a new array (*params; *nin inputs, *count in all), checked to
 * have distinct names.  Free it with cuarr_kp_free. */
cuarr_status cuarr_kp_parse_signature(const char *in_params, const char *out_params,
                                      cuarr_kparam **params, int *nin, int *count);
void cuarr_kp_free(cuarr_kparam *params, int count);
/* A copy of n NVRTC options (NULL ones as ""), or none when n <= 0. */
cuarr_status cuarr_kp_copy_options(const char *const *options, int n, char ***out, int *n_out);

/* bool < integers < floats, as NumPy orders kinds. */
int cuarr_kp_kind_of(cuarr_dtype d);

/* Placeholder bindings, per letter. */
typedef struct cuarr_kp_binding {
  int dtype[256]; /* the bound dtype, or -1 */
  int rank[256];  /* scalar bindings: kind * 2 + strong, to let the strongest win */
} cuarr_kp_binding;

/* Bind p's placeholder to a's dtype, or check a against p's type (CUARR_TYPE_ERROR). */
cuarr_status cuarr_kp_bind_array(const cuarr_kparam *p, const cuarr_array *a, cuarr_kp_binding *b);
/* Broadcast a's shape into (ndim, shape) (NumPy's rules); false when it does not fit. */
bool cuarr_kp_broadcast_into(int *ndim, int64_t *shape, const cuarr_array *a);

#endif
