// param_size.cu -- the cost of a launch as its parameters grow: back-to-back programmatic
// dependent launches of an empty kernel taking one struct of N bytes by value (a reduction's
// layout is one such struct), and the host's own submit time (a queue that never fills).
// Not part of the build; on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o param_size param_size.cu && ./param_size
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <int N> struct blob { unsigned char b[N]; };
template <int N> __global__ void take(const blob<N> p) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  if (p.b[N - 1] == 255 && threadIdx.x == 1000) asm volatile("trap;");
}

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <int N> static void launch(cudaStream_t s, const blob<N> &p) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = 1; cfg.blockDim = 256; cfg.stream = s; cfg.attrs = &attr; cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, take<N>, p);
}

template <int N> static void measure(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1) {
  blob<N> p{};
  const int n = 20000, h = 500;
  for (int i = 0; i < 1000; i++) launch(s, p);
  cudaStreamSynchronize(s);
  std::vector<double> dev, host;
  for (int r = 0; r < 7; r++) {
    cudaEventRecord(e0, s);
    for (int i = 0; i < n; i++) launch(s, p);
    cudaEventRecord(e1, s); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); dev.push_back(1e3 * ms / n);
    double t0 = now_us();
    for (int i = 0; i < h; i++) launch(s, p);
    host.push_back((now_us() - t0) / h);
    cudaStreamSynchronize(s);
  }
  std::sort(dev.begin(), dev.end()); std::sort(host.begin(), host.end());
  printf("%5d-byte parameter: back-to-back %.2f us/launch, host submit %.2f us\n", N, dev[3], host[3]);
}

int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int round = 0; round < 2; round++) {
    measure<8>(s, e0, e1); measure<64>(s, e0, e1); measure<256>(s, e0, e1);
    measure<656>(s, e0, e1); measure<1184>(s, e0, e1); measure<4096>(s, e0, e1);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
