/*
 * read_back.cu -- a few bytes of device memory written into mapped pinned host memory, then a
 * flag beside them (src/core/transfer/read_back.c watches the flag).
 *
 * One block.  Every thread fences its own bytes to system scope before the barrier, so that
 * when thread 0 stores the flag after it, the host that sees the flag sees all the bytes.
 */
extern "C" __global__ void __launch_bounds__(256)
cuarr_read_back(const unsigned char *src, unsigned char *dst, unsigned int n,
                volatile unsigned int *flag, unsigned int tag) {
  for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0)
    *flag = tag;
}
