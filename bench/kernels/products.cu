// bench/kernels/products.cu -- the product over z of in[z][y][x]: mul accumulates in global
// memory, mulReg in a register.  Read by bench/raw_kernels.lua and bench/compare_peers.py so that
// cuarr and CuPy compile the same source.
extern "C" __global__ void mul(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) { out[y*X + x] = 1.; for (int z = 0; z < Z; z++) out[y*X + x] *= in[z*Y*X + y*X + x]; }
}
extern "C" __global__ void mulReg(const double* in, double* out, int Z, int Y, int X) {
  int x = blockDim.x * blockIdx.x + threadIdx.x, y = blockDim.y * blockIdx.y + threadIdx.y;
  if (x < X && y < Y) { double t = 1.; for (int z = 0; z < Z; z++) t *= in[z*Y*X + y*X + x]; out[y*X + x] = t; }
}
