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
/* A dtype name (exactly: no char codes, no C names) or a one-letter placeholder, [s, s + n),
 * into p's dtype and placeholder; false when it is neither. */
bool cuarr_kp_parse_type(const char *s, size_t n, cuarr_kparam *p);
/* A user kernel's name (NULL: default_name, into *name) and NVRTC option list, checked before
 * anything is parsed. */
cuarr_status cuarr_kp_check_name_options(const char **name, const char *default_name,
                                         const char *const *options, int n_options);
/* A copy of n NVRTC options (NULL ones as ""), or none when n <= 0. */
cuarr_status cuarr_kp_copy_options(const char *const *options, int n, char ***out, int *n_out);
void cuarr_kp_free_options(char **options, int n);

/* Placeholder bindings, per letter. */
/* Per placeholder letter, at cuarr_kp_slot(letter). */
typedef struct cuarr_kp_binding {
  int dtype[64];        /* bound by an array, or -1 */
  int scalar_dtype[64]; /* bound by scalars alone, or -1 */
  int rank[64];         /* that scalar's: kind * 2 + strong, to let the strongest win */
} cuarr_kp_binding;

/* A placeholder is one identifier character: A-Z, _ and a-z take the distinct slots 1-26, 31
 * and 33-58 (a binding is set up on every call: 64 slots, not 256). */
static inline unsigned cuarr_kp_slot(const cuarr_kparam *p) {
  return (unsigned char)p->placeholder[0] & 63u;
}

/* Nothing bound. */
void cuarr_kp_binding_init(cuarr_kp_binding *b);
/* Bind p's placeholder to a's dtype, or check a against p's type (CUARR_TYPE_ERROR). */
cuarr_status cuarr_kp_bind_array(const cuarr_kparam *p, const cuarr_array *a, cuarr_kp_binding *b);
/* Once the arrays are bound: the placeholders that only scalar inputs carry (in[j].array NULL
 * for params[j], j < nin) bound from them, then types[j] for params[0, n) (CUARR_TYPE_ERROR
 * when nothing binds one).  A weak Lua integer binds int64, a weak float weak_float, a boolean
 * bool, a typed scalar its dtype; the highest kind wins.  `kernel` names the kernel in errors. */
cuarr_status cuarr_kp_bind_types(const char *kernel, const cuarr_kparam *params, int nin, int n,
                                 const cuarr_operand *in, cuarr_dtype weak_float,
                                 cuarr_kp_binding *b, cuarr_dtype *types);
/* The dtype of p (a parameter, or a reduce type) once bound; -1 when nothing binds it. */
int cuarr_kp_type_of(const cuarr_kparam *p, const cuarr_kp_binding *b);
/* Broadcast a's shape into (ndim, shape) (NumPy's rules); false when it does not fit. */
bool cuarr_kp_broadcast_into(int *ndim, int64_t *shape, const cuarr_array *a);

#endif
