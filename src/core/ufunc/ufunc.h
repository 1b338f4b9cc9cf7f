/*
 * ufunc.h -- the built-in ufuncs inside the core: the list they are generated from, their
 * descriptors, and how a call is resolved to a loop.  Private to src/core/ufunc/.
 *
 * One list (CUARR_UF_LIST) drives everything: the descriptors (registry.c), the host loops
 * (host_rows_*.c) and the device programs (device_programs.c).  Each entry says
 *   X(op, arity, types, out, family, flags)
 *  - op: the ufunc's name, which is also the name of its scalar functions in
 *    kernels/include/ufunc_math.cuh (cuarr_uf_<op>_<dtype>);
 *  - arity: 1, 2, 3 inputs, or W (where: a bool condition then two values);
 *  - types: the dtypes it has a loop for (a loop computes in one dtype: T,T -> T), in NumPy's
 *    order -- ALL, NUM (no bool), BIT (bool and integers), INT, FLT (floats), LOG (bool only);
 *  - out: SAME (the loop's dtype) or BOOL;
 *  - family: which host_rows_<family>.c file defines its host loops (to keep files, and their
 *    compile times, small);
 *  - flags: what the columns do not say (CUARR_UF_FLAG_<flags>, below).
 */
#ifndef CUARR_UFUNC_UFUNC_H
#define CUARR_UFUNC_UFUNC_H

#include "array/casting.h"
#include "elementwise/elementwise.h"
#include "internal.h"

/* clang-format off */
#define CUARR_UF_LIST(X)                                                                           \
  X(add, 2, ALL, SAME, arith, 0) X(subtract, 2, NUM, SAME, arith, NB)                              \
  X(multiply, 2, ALL, SAME, arith, 0) X(divide, 2, FLT, SAME, arith, TD)                           \
  X(floor_divide, 2, NUM, SAME, arith, 0) X(remainder, 2, NUM, SAME, arith, 0)                     \
  X(power, 2, NUM, SAME, arith, 0) X(negative, 1, NUM, SAME, arith, NB)                            \
  X(positive, 1, NUM, SAME, arith, NB) X(absolute, 1, ALL, SAME, arith, 0)                         \
  X(sign, 1, NUM, SAME, arith, NB)                                                                 \
  X(equal, 2, ALL, BOOL, logic, CMP) X(not_equal, 2, ALL, BOOL, logic, CMP)                        \
  X(less, 2, ALL, BOOL, logic, CMP) X(less_equal, 2, ALL, BOOL, logic, CMP)                        \
  X(greater, 2, ALL, BOOL, logic, CMP) X(greater_equal, 2, ALL, BOOL, logic, CMP)                  \
  X(logical_and, 2, LOG, BOOL, logic, LG) X(logical_or, 2, LOG, BOOL, logic, LG)                   \
  X(logical_xor, 2, LOG, BOOL, logic, LG) X(logical_not, 1, LOG, BOOL, logic, LG)                  \
  X(bitwise_and, 2, BIT, SAME, logic, 0) X(bitwise_or, 2, BIT, SAME, logic, 0)                     \
  X(bitwise_xor, 2, BIT, SAME, logic, 0) X(invert, 1, BIT, SAME, logic, 0)                         \
  X(left_shift, 2, INT, SAME, logic, 0) X(right_shift, 2, INT, SAME, logic, 0)                     \
  X(exp, 1, FLT, SAME, math, 0) X(exp2, 1, FLT, SAME, math, 0) X(expm1, 1, FLT, SAME, math, 0)     \
  X(log, 1, FLT, SAME, math, 0) X(log2, 1, FLT, SAME, math, 0) X(log10, 1, FLT, SAME, math, 0)     \
  X(log1p, 1, FLT, SAME, math, 0) X(sqrt, 1, FLT, SAME, math, 0) X(cbrt, 1, FLT, SAME, math, 0)    \
  X(square, 1, NUM, SAME, arith, 0) X(reciprocal, 1, NUM, SAME, arith, 0)                          \
  X(sin, 1, FLT, SAME, math, 0) X(cos, 1, FLT, SAME, math, 0) X(tan, 1, FLT, SAME, math, 0)        \
  X(arcsin, 1, FLT, SAME, math, 0) X(arccos, 1, FLT, SAME, math, 0)                                \
  X(arctan, 1, FLT, SAME, math, 0) X(arctan2, 2, FLT, SAME, math, 0)                               \
  X(sinh, 1, FLT, SAME, math, 0) X(cosh, 1, FLT, SAME, math, 0) X(tanh, 1, FLT, SAME, math, 0)     \
  X(arcsinh, 1, FLT, SAME, math, 0) X(arccosh, 1, FLT, SAME, math, 0)                              \
  X(arctanh, 1, FLT, SAME, math, 0) X(floor, 1, ALL, SAME, arith, 0)                               \
  X(ceil, 1, ALL, SAME, arith, 0) X(trunc, 1, ALL, SAME, arith, 0)                                 \
  X(rint, 1, FLT, SAME, math, 0) X(hypot, 2, FLT, SAME, math, 0)                                   \
  X(maximum, 2, ALL, SAME, arith, 0) X(minimum, 2, ALL, SAME, arith, 0)                            \
  X(fmax, 2, ALL, SAME, arith, 0) X(fmin, 2, ALL, SAME, arith, 0)                                  \
  X(copysign, 2, FLT, SAME, math, 0) X(isnan, 1, ALL, BOOL, logic, 0)                              \
  X(isinf, 1, ALL, BOOL, logic, 0) X(isfinite, 1, ALL, BOOL, logic, 0)                             \
  X(clip, 3, ALL, SAME, arith, CLIP) X(where, W, ALL, SAME, logic, WHERE)

/* The comparisons, which also have the mixed int64/uint64 loops. */
#define CUARR_UF_COMPARISONS(X)                                                                    \
  X(equal) X(not_equal) X(less) X(less_equal) X(greater) X(greater_equal)

/* Y(dt, ...) for each dtype of a type set, in NumPy's loop order (which is the order in which
 * a call's loop is searched for). */
#define CUARR_UF_TYPES_LOG(Y, ...) Y(boolean, __VA_ARGS__)
#define CUARR_UF_TYPES_INT(Y, ...)                                                                 \
  Y(int8, __VA_ARGS__) Y(uint8, __VA_ARGS__) Y(int16, __VA_ARGS__) Y(uint16, __VA_ARGS__)          \
  Y(int32, __VA_ARGS__) Y(uint32, __VA_ARGS__) Y(int64, __VA_ARGS__) Y(uint64, __VA_ARGS__)
#define CUARR_UF_TYPES_FLT(Y, ...)                                                                 \
  Y(float16, __VA_ARGS__) Y(float32, __VA_ARGS__) Y(float64, __VA_ARGS__)
#define CUARR_UF_TYPES_BIT(Y, ...)                                                                 \
  CUARR_UF_TYPES_LOG(Y, __VA_ARGS__) CUARR_UF_TYPES_INT(Y, __VA_ARGS__)
#define CUARR_UF_TYPES_NUM(Y, ...)                                                                 \
  CUARR_UF_TYPES_INT(Y, __VA_ARGS__) CUARR_UF_TYPES_FLT(Y, __VA_ARGS__)
#define CUARR_UF_TYPES_ALL(Y, ...)                                                                 \
  CUARR_UF_TYPES_BIT(Y, __VA_ARGS__) CUARR_UF_TYPES_FLT(Y, __VA_ARGS__)
/* clang-format on */

/* A dtype's token in these names -> its enum. */
#define CUARR_UF_ENUM_boolean CUARR_BOOL
#define CUARR_UF_ENUM_int8 CUARR_INT8
#define CUARR_UF_ENUM_int16 CUARR_INT16
#define CUARR_UF_ENUM_int32 CUARR_INT32
#define CUARR_UF_ENUM_int64 CUARR_INT64
#define CUARR_UF_ENUM_uint8 CUARR_UINT8
#define CUARR_UF_ENUM_uint16 CUARR_UINT16
#define CUARR_UF_ENUM_uint32 CUARR_UINT32
#define CUARR_UF_ENUM_uint64 CUARR_UINT64
#define CUARR_UF_ENUM_float16 CUARR_FLOAT16
#define CUARR_UF_ENUM_float32 CUARR_FLOAT32
#define CUARR_UF_ENUM_float64 CUARR_FLOAT64

/* The loop's output dtype token for an entry's `out`. */
#define CUARR_UF_OUT_SAME(dt) dt
#define CUARR_UF_OUT_BOOL(dt) boolean
#define CUARR_UF_IS_BOOL_SAME false
#define CUARR_UF_IS_BOOL_BOOL true

#define CUARR_UF_NIN_1 1
#define CUARR_UF_NIN_2 2
#define CUARR_UF_NIN_3 3
#define CUARR_UF_NIN_W 3

/* Bit masks of dtypes, for a type set. */
#define CUARR_UF_BIT(dt, _) | (1u << CUARR_UF_ENUM_##dt)
#define CUARR_UF_MASK(types) (0u CUARR_UF_TYPES_##types(CUARR_UF_BIT, _))

typedef enum cuarr_uf_id {
#define CUARR_UF_ID(op, ar, types, out, fam, fl) CUARR_UF_ID_##op,
  CUARR_UF_LIST(CUARR_UF_ID)
#undef CUARR_UF_ID
      CUARR_UF_COUNT
} cuarr_uf_id;

/* One row of a host loop: n elements; p[0..nin-1] the inputs and p[nin] the output, each
 * stepping s[k] bytes (0 for a scalar), already in the loop's dtypes. */
typedef void (*cuarr_uf_host_row)(char *const *p, const int64_t *s, int64_t n);

enum cuarr_uf_flags {
  CUARR_UF_NO_BOOL = 1,     /* TypeError when every input is bool (subtract, negative, ...) */
  CUARR_UF_TRUE_DIVIDE = 2, /* bool and integer inputs divide in float64 */
  CUARR_UF_LOGICAL = 4,     /* every input converts to bool, whatever its dtype */
  CUARR_UF_COMPARE = 8,     /* mixed int64/uint64 loops; out-of-range integers compare right */
  CUARR_UF_CLIP = 16,       /* out-of-range integer bounds clamp */
  CUARR_UF_WHERE = 32,      /* input 0 is a condition (bool), inputs 1 and 2 the values */
};

#define CUARR_UF_FLAG_0 0
#define CUARR_UF_FLAG_NB CUARR_UF_NO_BOOL
#define CUARR_UF_FLAG_TD CUARR_UF_TRUE_DIVIDE
#define CUARR_UF_FLAG_LG CUARR_UF_LOGICAL
#define CUARR_UF_FLAG_CMP CUARR_UF_COMPARE
#define CUARR_UF_FLAG_CLIP CUARR_UF_CLIP
#define CUARR_UF_FLAG_WHERE CUARR_UF_WHERE

/* A ufunc.  Its loops are indexed by the loop's dtype (NULL where it has none). */
struct cuarr_ufunc {
  const char *name;
  cuarr_uf_id id;
  int nin;
  unsigned types; /* bit d: a loop in dtype d */
  unsigned flags;
  bool bool_out;
  const cuarr_uf_host_row *host;
  cuarr_ew_program *const *device;
};

/* ---- registry.c */
const cuarr_ufunc *cuarr_uf_get(cuarr_uf_id id);
/* A comparison's mixed loops, [0] int64 against uint64 and [1] uint64 against int64. */
const cuarr_uf_host_row *cuarr_uf_host_mixed(const cuarr_ufunc *u);
cuarr_ew_program *const *cuarr_uf_device_mixed(const cuarr_ufunc *u);

/* ---- host_rows_*.c and device_programs.c: each ufunc's loops */
#define CUARR_UF_DECLARE_LOOPS(op, ar, types, out, fam, fl)                                        \
  extern const cuarr_uf_host_row cuarr_uf_host_rows_##op[CUARR_NDTYPES];                           \
  extern cuarr_ew_program *const cuarr_uf_device_programs_##op[CUARR_NDTYPES];
CUARR_UF_LIST(CUARR_UF_DECLARE_LOOPS)
#undef CUARR_UF_DECLARE_LOOPS
#define CUARR_UF_DECLARE_MIXED(op)                                                                 \
  extern const cuarr_uf_host_row cuarr_uf_host_mixed_##op[2];                                      \
  extern cuarr_ew_program *const cuarr_uf_device_mixed_##op[2];
CUARR_UF_COMPARISONS(CUARR_UF_DECLARE_MIXED)
#undef CUARR_UF_DECLARE_MIXED

/* ---- device_programs.c: every device loop, for `make test` to compile them all */
typedef struct cuarr_uf_device_loop {
  const cuarr_ufunc *u;
  cuarr_ew_program *program;
  cuarr_dtype in[3]; /* the inputs' var_dtypes (in[k] for k >= u->nin is unused) */
  cuarr_dtype out;
} cuarr_uf_device_loop;
/* Fills out (when not NULL) and returns the number of loops. */
int cuarr_uf_device_loops(cuarr_uf_device_loop *out);

/* ---- resolve.c */
/* A call resolved to a loop. */
typedef struct cuarr_uf_resolved {
  const cuarr_ufunc *u;   /* the called ufunc, or the comparison that replaced it (uint8 < 300
                             runs as uint8 <= 255) */
  cuarr_dtype in[3];      /* each input's dtype in the loop */
  cuarr_dtype out;        /* the loop's output dtype */
  cuarr_scalar scalar[3]; /* the scalar inputs, converted to in[k] (and clamped, see above) */
  cuarr_uf_host_row host;
  cuarr_ew_program *device;
} cuarr_uf_resolved;

cuarr_status cuarr_uf_resolve(const cuarr_ufunc *u, const cuarr_operand *in,
                              cuarr_dtype weak_float_dtype, cuarr_uf_resolved *r);

/* ---- call.c */
/* The device kernel's operands for a resolved call: in0, in1, in2 (arrays or the converted
 * scalars), then out0 = res. */
void cuarr_uf_device_operands(const cuarr_uf_resolved *r, int nin, const cuarr_operand *args,
                              const cuarr_array *res, cuarr_ew_operand *ops);

/* ---- flat_call.c */
/* cuarr_ufunc_call's short way for a device call whose array inputs (one at least; the rest Lua
 * numbers) are C-contiguous and of one shape, like a given output (see flat_call.c).  false: not
 * such a call, nothing done (the general path takes it); true: done, with the call's status in
 * *status. */
bool cuarr_uf_flat_call(cuarr_context *ctx, const cuarr_ufunc *u, int device,
                        const cuarr_operand *in, cuarr_dtype weak_float_dtype, cuarr_array *out,
                        cuarr_status *status);

/* ---- host_loop.c */
/* An operand of a host loop: data of dtype `dtype`, with strides already broadcast to the
 * iteration shape (0 on broadcast axes and for scalars). */
typedef struct cuarr_uf_host_operand {
  char *data;
  cuarr_dtype dtype;
  const int64_t *strides;
} cuarr_uf_host_operand;

/* Run r's host loop over shape: ops[0..nin-1] the inputs, ops[nin] the output; each input is
 * converted from its dtype to the loop's (and the result to the output's) in small blocks on
 * the stack.  The output may share memory with an input only element for element (the same
 * addresses, the same item size). */
void cuarr_uf_host_run(const cuarr_uf_resolved *r, int nin, const cuarr_uf_host_operand *ops,
                       int ndim, const int64_t *shape);

#endif
