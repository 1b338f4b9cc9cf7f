/*
 * user_kernel.h -- what the Lua objects of user kernels share: cuarr.ElementwiseKernel
 * (elementwise_kernel.c) and cuarr.ReductionKernel (reduction_kernel.c).  Each is a userdata
 * of its class (a descriptor in classes.h: fields nin and nout, metamethods __call, __gc and
 * __close) holding the core's kernel, freed by __gc or __close.
 */
#ifndef CUARR_LUA_USER_KERNEL_H
#define CUARR_LUA_USER_KERNEL_H

#include "binding.h"

typedef struct cuarr_lua_kernel {
  union { /* the core's kernel; NULL until made, and once closed */
    cuarr_elementwise_kernel *ew;
    cuarr_reduction_kernel *red;
    void *any;
  };
} cuarr_lua_kernel;

/* A new kernel object of class cls, not holding a kernel yet, on the stack. */
cuarr_lua_kernel *cuarr_lua_new_kernel(lua_State *L, const cuarr_lua_class *cls);
/* The open kernel object of class cls at idx; `what` names the class with an article ("a
 * ReductionKernel"). */
cuarr_lua_kernel *cuarr_lua_check_kernel(lua_State *L, int idx, const cuarr_lua_class *cls,
                                         const char *what);
/* __gc and __close: empties the kernel object at 1 and returns what it held, to be freed. */
cuarr_lua_kernel cuarr_lua_close_kernel(lua_State *L, const cuarr_lua_class *cls);
/* A constructor's [name][, opts] from argument idx on: sets *name (left as it is when not
 * given; opts.name wins) and returns the index of opts, 0 when there is none. */
int cuarr_lua_kernel_name_and_opts(lua_State *L, int idx, const char **name);
/* Input j of a call k(...) (argument j + 2) into *in: an array on the current device, or a
 * number. */
void cuarr_lua_read_kernel_input(lua_State *L, cuarr_lua_state *S, int j, cuarr_operand *in);
/* A TypeError naming kernel and the argument when one of the n values from stack index first on
 * is a host array: user kernels (NVRTC programs) run on the device only, which a host array's
 * caller must hear before anything looks for a device (no driver would be the only word). */
void cuarr_lua_check_no_host_arrays(lua_State *L, const cuarr_lua_state *S, int first, int n,
                                    const char *kernel);

#endif
