// scan_tile.cu -- a cumsum of 2^27 ELEM through kernels/templates/scan.cu's 16-byte one-pass template at
// NTHREADS threads x NITEMS elements a block, against a device-to-device copy of the same bytes,
// to choose the tile (src/core/scan/scan_source.c, cuarr_scan_shape_items/threads).  Not part
// of the build; on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -DNTHREADS=128 -DNITEMS=64 -DELEM=float -DTNAME='"float"' \
//        -o scan_tile scan_tile.cu && ./scan_tile
// NITEMS * sizeof(ELEM) must be a multiple of 16 and the tile fit in 48 KiB of shared memory.
// Figures and what was tried: bench/experiments/NOTES.md.
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "../../kernels/include/common.cuh"
#include "../../kernels/templates/scan.cu"
__global__ void __launch_bounds__(NTHREADS) kscan(const ELEM *in, ELEM *out, unsigned n, unsigned len, void *state) {
  cuarr_scan_rows_contig<0, ELEM, ELEM, ELEM, unsigned, NITEMS, false, NTHREADS, true>(in, out, n, len, state);
}
int main() {
  const unsigned n = 1u << 27;
  ELEM *in, *out, *copy; cudaMalloc(&in, sizeof(ELEM) * n); cudaMalloc(&out, sizeof(ELEM) * n); cudaMalloc(&copy, sizeof(ELEM) * n);
  std::vector<ELEM> h(n); srand(1); for (unsigned i = 0; i < n; i++) h[i] = (ELEM)(rand() % 1000);
  cudaMemcpy(in, h.data(), sizeof(ELEM) * n, cudaMemcpyHostToDevice);
  const unsigned tile = NTHREADS * NITEMS, tiles = (n + tile - 1) / tile;
  size_t state_bytes = 128 + 20ull * tiles; void *state; cudaMalloc(&state, state_bytes);
  // the counter line, then a 64-bit status word a tile (4-byte accumulators) or a 32-bit flag
  // a tile followed by two 8-byte value slots (8-byte ones): scan.cu's cuarr_scan_status
  size_t zero = sizeof(ELEM) <= 4 ? 128 + 8ull * tiles : 128 + 4ull * tiles;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto run = [&] { cudaMemsetAsync(state, 0, zero); kscan<<<tiles, NTHREADS>>>(in, out, n, n, state); };
  auto time = [&](auto f) { std::vector<float> v; for (int r = 0; r < 3; r++) f(); for (int r = 0; r < 15; r++) { cudaEventRecord(e0); f(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); v.push_back(ms); } std::sort(v.begin(), v.end()); return v[7]; };
  float ms = time(run);
  float cms = time([&] { cudaMemcpyAsync(copy, in, sizeof(ELEM) * n, cudaMemcpyDeviceToDevice); });
  std::vector<ELEM> r(n); cudaMemcpy(r.data(), out, sizeof(ELEM) * n, cudaMemcpyDeviceToHost);
  // exact for 8-byte types; float32 within 1e-5 of a double reference
  long long bad = 0; double acc = 0; for (unsigned i = 0; i < n; i++) { acc += h[i]; if (fabs((double)r[i] - acc) > 1e-5 * acc + (sizeof(ELEM) == 8 ? 0 : 1)) bad++; }
  printf("%s NTHREADS %d NITEMS %d: %.3f ms %.0f GB/s (%.1f%% of copy) bad %lld %s\n", TNAME, NTHREADS, NITEMS, ms, 2.0 * sizeof(ELEM) * n / ms / 1e6, 100.0 * cms / ms, bad, cudaGetErrorString(cudaGetLastError()));
}
