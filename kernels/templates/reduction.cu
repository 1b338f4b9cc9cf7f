/*
 * reduction.cu -- what the reduction kernels share.  src/core/reduce/reduce_source.c writes
 * each kernel's loops around the program's expressions, as elementwise_source.c does for
 * elementwise kernels: a new kernel's first call waits for NVRTC, and NVRTC compiles code
 * written out in the kernel sooner than the same code spread over templates and functions
 * (it optimises every function on its own before inlining it).
 *
 * A generated program is common.cuh (where anything needs it), half.cuh when a
 * float16 is involved, elementwise.cu when an input is a raw array, this file,
 * reduction_ops.cuh (where the program's text uses it: the built-ins' helpers), the placeholder
 * typedefs (the accumulator's _type_reduce, the index types _cuarr_I and _cuarr_S), the
 * preamble and one extern "C" kernel:
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   sum_rows_k0_r1_v4_i32_f4f4_f4f4f4(const float *_cuarr_p0, float *_cuarr_out,
 *       _type_reduce *_cuarr_partial, unsigned int *_cuarr_counters,
 *       const cuarr_red_layout<_cuarr_I, _cuarr_S, 1> _cuarr_L) {
 *     typedef _type_reduce acc_t;
 *     ...                          every thread folds its elements into its accumulator:
 *     {
 *       const long long _i = ..., _j = ...;   the output's index, the element's (C order
 *       const float x = ...;                  over the reduced axes), each input's value
 *       const acc_t _cuarr_m = (acc_t)(map_expr);
 *       { const acc_t a = _cuarr_acc[0], b = _cuarr_m; _cuarr_acc[0] = (acc_t)(fold_expr); }
 *     }
 *     ...                          the block combines its lanes' accumulators with
 *   }                              reduce_expr; the first lane runs post_map_expr and stores
 *
 * The iteration space, after the host collapsed it: n_out outputs (kept axes), each the
 * reduction of n_red elements (reduced axes).  Two ways to spread it over a block of 256
 * threads (blockDim.x * blockDim.y):
 *   rows: the reduced axis is the faster one in memory.  blockDim.x lanes share an output and
 *         read consecutive elements (16-byte vectors when the rows allow); blockDim.y outputs
 *         per block;
 *   cols: a kept axis is the faster one.  blockDim.x lanes take consecutive outputs (a vector
 *         of them each where the layout allows), blockDim.y lanes split the reduced range;
 *         loads are coalesced across the outputs.
 * When there are too few outputs to fill the GPU, gridDim.y blocks split each output's
 * reduced range: each writes a partial result, and the last block of each column of blocks
 * (counted with an atomic) reduces the partials and writes the outputs, in the same launch;
 * only kernels made for split grids have that code.  Offsets along the kept and reduced axes
 * take a division per axis, except in kernels made for a single axis (or a single output).
 *
 * Results combine in a fixed tree within the block, so a reduction gives the same bits on
 * every run.
 */
#ifndef CUARR_REDUCTION_CU
#define CUARR_REDUCTION_CU

/* The layout the host packs (all fields I or S, which have one size: no padding).  Strides are
 * in elements of each operand; so[NIN] is the output's, along the kept axes.  At most 32 axes
 * (the host writes only those in use). */
template <typename I, typename S, int NIN> struct cuarr_red_layout {
  I n_out, n_red, ndo, ndr;
  I shape_o[32];
  I shape_r[32];
  S so[NIN + 1][32];
  S sr[NIN > 0 ? NIN : 1][32];
};

/* V elements of T, loaded as one vector. */
template <typename T, int V> struct alignas(sizeof(T) * V) cuarr_red_vec { T v[V]; };

/* The next kernel on the stream (a programmatic dependent, which waits for this one to finish
 * before touching memory) may be scheduled from here on: placed where a block's loads are
 * done.  In kernels for split grids, not when the grid is split and has more blocks than the
 * GPU has multiprocessors: the next kernel's blocks would then fill the machine, waiting,
 * beside the blocks that finish the split columns, and slow them (it is let in as this grid's
 * blocks exit anyway).  Kernels for unsplit grids (gridDim.y == 1) always let it in, without
 * the test, which takes their compile 0.5 ms. */
#if __CUDA_ARCH__ >= 900
#define CUARR_RED_LET_NEXT_IN() asm volatile("griddepcontrol.launch_dependents;")
#define CUARR_RED_LET_NEXT_IN_SPLIT()                                                              \
  do {                                                                                             \
    unsigned cuarr_sms_;                                                                           \
    asm("mov.u32 %0, %%nsmid;" : "=r"(cuarr_sms_));                                                \
    if (gridDim.y == 1 || gridDim.x * gridDim.y <= cuarr_sms_)                                     \
      asm volatile("griddepcontrol.launch_dependents;");                                           \
  } while (0)
#else
#define CUARR_RED_LET_NEXT_IN() ((void)0)
#define CUARR_RED_LET_NEXT_IN_SPLIT() ((void)0)
#endif

/* Split reductions: each block of a column of blocks (one blockIdx.x, gridDim.y of them)
 * stored its partial results; the last of them to get here finishes.  Its partials were made
 * visible by the fence before the count (CUDA's threadfence reduction).  The count wraps to 0
 * as the last block arrives (atomicInc), which leaves the counters zeroed for the next
 * reduction on the stream (src/core/reduce/split_counters.c). */
__device__ __forceinline__ bool cuarr_red_last_block(unsigned int *counters) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    last = atomicInc(&counters[blockIdx.x], gridDim.y - 1) == gridDim.y - 1;
  __syncthreads();
  if (last)
    __threadfence();
  return last;
}

#endif
