/*
 * device_programs.c -- one elementwise program per (ufunc, loop dtype), run by the device engine
 * (elementwise/elementwise.h).  Each operation calls the ufunc's scalar function from
 * kernels/include/ufunc_math.cuh, the same function the host loops call, and the programs' preamble
 * is that file (embedded by tools/embed.sh), so both backends compute the same thing.
 *
 * The operands are named in0, in1, in2 and out0; the engine loads each input converted to the
 * loop's dtype (the operand's var_dtype) and stores out0 converted to the output array's dtype.
 * The programs are static (the engine keeps each one's compiled variants in its cache field).
 */
#include "ufunc/ufunc.h"

#include "kernel_sources.h"

#define ARGS_1 "(in0)"
#define ARGS_2 "(in0, in1)"
#define ARGS_3 "(in0, in1, in2)"
#define ARGS_W "(in0, in1, in2)"

#define PROGRAM_NAMED(nm, ar)                                                                      \
  static cuarr_ew_program program_##nm = {                                                         \
      .name = "cuarr_uf_" #nm,                                                                     \
      .operation = "out0 = cuarr_uf_" #nm ARGS_##ar ";",                                           \
      .preamble = cuarr_kernel_source_ufunc_math_cuh,                                              \
  };
#define PROGRAM_(op, dt, ar) PROGRAM_NAMED(op##_##dt, ar)
#define PROGRAM(dt, op, ar) PROGRAM_(op, dt, ar)
#define PROGRAM_ENTRY(dt, op, ar) [CUARR_UF_ENUM_##dt] = &program_##op##_##dt,
#define PROGRAMS(op, ar, types, out, fam, fl)                                                      \
  CUARR_UF_TYPES_##types(PROGRAM, op, ar)                                                          \
      cuarr_ew_program *const cuarr_uf_device_programs_##op[CUARR_NDTYPES] = {                     \
          CUARR_UF_TYPES_##types(PROGRAM_ENTRY, op, ar)};
CUARR_UF_LIST(PROGRAMS)

/* The comparisons of int64 with uint64 by value. */
#define MIXED(op)                                                                                  \
  PROGRAM_NAMED(op##_int64_uint64, 2)                                                              \
  PROGRAM_NAMED(op##_uint64_int64, 2)                                                              \
  cuarr_ew_program *const cuarr_uf_device_mixed_##op[2] = {&program_##op##_int64_uint64,           \
                                                           &program_##op##_uint64_int64};
CUARR_UF_COMPARISONS(MIXED)

int cuarr_uf_device_loops(cuarr_uf_device_loop *out) {
  int n = 0;
  for (int k = 0; k < cuarr_ufunc_count(); k++) {
    const cuarr_ufunc *u = cuarr_ufunc_at(k);
    int first = u->flags & CUARR_UF_WHERE ? 1 : 0;
    for (int d = 0; d < CUARR_NDTYPES; d++) {
      if (!u->device[d])
        continue;
      if (out) {
        cuarr_uf_device_loop *l = &out[n];
        l->u = u;
        l->program = u->device[d];
        for (int i = 0; i < 3; i++)
          l->in[i] = i < first ? CUARR_BOOL : (cuarr_dtype)d;
        l->out = u->bool_out ? CUARR_BOOL : (cuarr_dtype)d;
      }
      n++;
    }
    cuarr_ew_program *const *mixed = u->flags & CUARR_UF_COMPARE ? cuarr_uf_device_mixed(u) : NULL;
    for (int m = 0; mixed && m < 2; m++) {
      if (out) {
        cuarr_uf_device_loop *l = &out[n];
        l->u = u;
        l->program = mixed[m];
        l->in[0] = m == 0 ? CUARR_INT64 : CUARR_UINT64;
        l->in[1] = m == 0 ? CUARR_UINT64 : CUARR_INT64;
        l->in[2] = CUARR_BOOL;
        l->out = CUARR_BOOL;
      }
      n++;
    }
  }
  return n;
}
