// dependent_loads.cu -- what a chain of small programmatic-dependent kernels costs on the device
// when each one reads memory: an empty kernel (the floor bench/ceilings.c measures), an add that
// waits for the previous kernel before its loads (cuarr's kernels), and an add that issues its
// loads before the wait (legal only when the previous kernel did not write what it reads).
// Also the host's own cost of a launch, timed on a queue that never fills.
// Not part of the build; on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o dependent_loads dependent_loads.cu && ./dependent_loads
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

__device__ __forceinline__ void wait_prev() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void let_next() { asm volatile("griddepcontrol.launch_dependents;"); }

__global__ void empty_dep() {
  wait_prev();
  let_next();
}
__global__ void add_wait_first(const float *a, const float *b, float *c, unsigned n) {
  wait_prev();
  let_next();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
__global__ void add_loads_first(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0, y = 0;
  if (i < n) {
    x = a[i];
    y = b[i];
  }
  wait_prev();
  let_next();
  if (i < n)
    c[i] = x + y;
}
__global__ void add_plain(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename... A>
static void launch(bool dep, void (*k)(A...), unsigned blocks, cudaStream_t s, A... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = blocks;
  cfg.blockDim = 256;
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = dep ? 1 : 0;
  cudaLaunchKernelEx(&cfg, k, args...);
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float *a, *b, *c;
  cudaMalloc(&a, 4096);
  cudaMalloc(&b, 4096);
  cudaMalloc(&c, 4096);
  cudaMemset(a, 0, 4096);
  cudaMemset(b, 0, 4096);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const char *names[] = {"empty, dependent",       "empty, plain",    "add n=1 wait first",
                         "add n=1 loads first",    "add n=1 plain",   "add n=1000 wait first",
                         "add n=1000 loads first", "add n=1000 plain"};
  const int M = 8, N = 20000, H = 500;
  std::vector<double> dev[M], host[M];
  auto one = [&](int m) {
    unsigned n = m >= 5 ? 1000u : 1u, blocks = (n + 255) / 256;
    switch (m) {
    case 0: launch(true, empty_dep, 1, s); break;
    case 1: launch(false, empty_dep, 1, s); break;
    case 2:
    case 5:
      launch(true, add_wait_first, blocks, s, (const float *)a, (const float *)b, c, n);
      break;
    case 3:
    case 6:
      launch(true, add_loads_first, blocks, s, (const float *)a, (const float *)b, c, n);
      break;
    default: launch(false, add_plain, blocks, s, (const float *)a, (const float *)b, c, n); break;
    }
  };
  for (int m = 0; m < M; m++)
    for (int i = 0; i < 1000; i++)
      one(m);
  cudaStreamSynchronize(s);
  for (int round = 0; round < 9; round++)
    for (int m = 0; m < M; m++) {
      cudaEventRecord(e0, s);
      for (int i = 0; i < N; i++)
        one(m);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      dev[m].push_back(1e3 * ms / N);
      double t0 = now_us(); // the host alone: a queue of H launches never fills
      for (int i = 0; i < H; i++)
        one(m);
      host[m].push_back((now_us() - t0) / H);
      cudaStreamSynchronize(s);
    }
  for (int m = 0; m < M; m++) {
    std::sort(dev[m].begin(), dev[m].end());
    std::sort(host[m].begin(), host[m].end());
    printf("%-24s back-to-back %.2f us/op (min %.2f max %.2f)   host submit %.2f us\n", names[m],
           dev[m][4], dev[m][0], dev[m][8], host[m][4]);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
