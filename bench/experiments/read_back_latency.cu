// read_back_latency.cu -- how long a small result takes to reach the host after a kernel: a DMA
// copy + stream synchronize, a copy kernel into pinned memory + stream synchronize, the same +
// watching a flag the kernel writes (what src/core/copy/read_back.c does), the reduction
// writing pinned memory itself, and a bare launch + synchronize; then the cost of back-to-back
// launches with and without parameters.  Interleaved rounds, medians.
// Not part of the build; on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o read_back_latency read_back_latency.cu && ./read_back_latency
#include <cstdio>
#include <chrono>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>
__global__ void empty() {}
__global__ void add4(const float *a, const float *b, float *c, unsigned n) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
__global__ void sum1000(const float *a, float *out) {
  __shared__ float s[256];
  float v = 0; for (int i = threadIdx.x; i < 1000; i += 256) v += a[i];
  s[threadIdx.x] = v; __syncthreads();
  for (int d = 128; d; d >>= 1) { if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d]; __syncthreads(); }
  if (threadIdx.x == 0) *out = s[0];
}
__global__ void copy8(const unsigned long long *src, volatile unsigned long long *dst, volatile unsigned *flag, unsigned tag) { *dst = *src; __threadfence_system(); *flag = tag; }
static double now() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *a, *b, *c, *out; cudaMalloc(&a, 4000); cudaMalloc(&b, 4000); cudaMalloc(&c, 4000); cudaMalloc(&out, 8); cudaMemset(a, 0, 4000);
  void *pinned; cudaHostAlloc(&pinned, 4096, cudaHostAllocPortable);
  volatile unsigned *flag = (volatile unsigned *)((char *)pinned + 64);
  unsigned tag = 0;
  const char *names[] = {"sum+memcpyD2H+streamsync", "sum+copykern+streamsync", "sum+copykern+poll", "sum->pinned+streamsync", "launch+sync (floor)"};
  std::vector<double> v[5];
  for (int round = 0; round < 15; round++)
    for (int m = 0; m < 5; m++) {
      double t0 = now();
      for (int i = 0; i < 1000; i++) {
        switch (m) {
        case 0: sum1000<<<1, 256, 0, s>>>(a, out); cudaMemcpyAsync(pinned, out, 8, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); break;
        case 1: sum1000<<<1, 256, 0, s>>>(a, out); copy8<<<1, 1, 0, s>>>((const unsigned long long *)out, (unsigned long long *)pinned, flag, ++tag); cudaStreamSynchronize(s); break;
        case 2: sum1000<<<1, 256, 0, s>>>(a, out); copy8<<<1, 1, 0, s>>>((const unsigned long long *)out, (unsigned long long *)pinned, flag, ++tag); while (*flag != tag) {} break;
        case 3: sum1000<<<1, 256, 0, s>>>(a, (float *)pinned); cudaStreamSynchronize(s); break;
        case 4: empty<<<1, 1, 0, s>>>(); cudaStreamSynchronize(s); break;
        }
      }
      cudaStreamSynchronize(s);
      v[m].push_back((now() - t0) / 1000);
    }
  for (int m = 0; m < 5; m++) { std::sort(v[m].begin(), v[m].end()); printf("%-28s median %.2f us  (min %.2f max %.2f)\n", names[m], v[m][7], v[m][0], v[m][14]); }
  // launch cost with and without parameters, back to back, interleaved
  const int N = 20000; std::vector<double> w[3];
  const char *ln[] = {"empty<<<1,1>>> no params", "add4<<<4,256>>> 4 params", "sum1000<<<1,256>>> 2 params"};
  for (int round = 0; round < 9; round++)
    for (int m = 0; m < 3; m++) {
      cudaStreamSynchronize(s); double t0 = now();
      for (int i = 0; i < N; i++) { if (m == 0) empty<<<1, 1, 0, s>>>(); else if (m == 1) add4<<<4, 256, 0, s>>>(a, b, c, 1000u); else sum1000<<<1, 256, 0, s>>>(a, out); }
      cudaStreamSynchronize(s); w[m].push_back((now() - t0) / N);
    }
  for (int m = 0; m < 3; m++) { std::sort(w[m].begin(), w[m].end()); printf("%-28s median %.2f us/launch (min %.2f)\n", ln[m], w[m][4], w[m][0]); }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
