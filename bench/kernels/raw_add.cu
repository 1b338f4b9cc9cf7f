// bench/kernels/raw_add.cu -- the RawKernel of the launch-cost case, read by bench/raw_kernels.lua
// and bench/compare_peers.py so that cuarr and CuPy launch the same source.
extern "C" __global__ void bench_raw_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
