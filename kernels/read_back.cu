/*
 * read_back.cu -- a few bytes of device memory written into mapped pinned host memory, then a
 * flag beside them (src/core/transfer/read_back.c watches the flag).
 *
 * One block.  The barrier orders every thread's bytes before thread 0's fence, and the fence
 * (system scope, cumulative) orders them before the flag: a host that sees the flag sees all
 * the bytes.
 */
extern "C" __global__ void __launch_bounds__(256)
cuarr_read_back(const unsigned char *src, unsigned char *dst, unsigned int n,
                volatile unsigned int *flag, unsigned int tag) {
  for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *flag = tag;
  }
}
