/*
 * read_back.cu -- a few bytes of device memory written into mapped pinned host memory, then a
 * flag beside them (src/core/copy/read_back.c watches the flag).
 *
 * One block.  The barrier orders every thread's bytes before thread 0's fence, and the fence
 * (system scope, cumulative) orders them before the flag: a host that sees the flag sees all
 * the bytes.
 *
 * Launched as a programmatic dependent of the kernel before it (the reduction whose result it
 * reads): it is scheduled while that one runs and waits here for it to finish and its memory
 * to be visible, so the read back starts as soon as the result is there rather than a launch
 * later.
 */
extern "C" __global__ void __launch_bounds__(256)
    cuarr_read_back(const unsigned char *src, unsigned char *dst, unsigned int n,
                    volatile unsigned int *flag, unsigned int tag) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *flag = tag;
  }
}
