// red_small.cu -- what a chain of small programmatic-dependent sums costs on the device, by the
// way the block combines its threads' values: a shared-memory tree of 256 threads with a
// barrier per level (cuarr's reduction kernels before session 6), warp shuffles then one
// shared-memory exchange, and one warp alone.  Beside them the empty dependent kernel (the
// launch floor) and an add of the same size.  Back to back (20 000 launches between events)
// and the host's own submit time (500 launches, a queue that never fills).
// Not part of the build; on the GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o red_small red_small.cu && ./red_small
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
__global__ void add_dep(const float *a, const float *b, float *c, unsigned n) {
  wait_prev();
  let_next();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// Each thread: its float4s at t, t + blockDim.x, ... (two in flight), then the tail.
__device__ __forceinline__ float thread_sum(const float *a, unsigned n) {
  const float4 *p = (const float4 *)a;
  unsigned nv = n / 4, step = blockDim.x, v = threadIdx.x;
  float s = 0;
  for (; v + step < nv; v += 2 * step) {
    float4 x = p[v], y = p[v + step];
    s += x.x + x.y + x.z + x.w + y.x + y.y + y.z + y.w;
  }
  for (; v < nv; v += step) {
    float4 x = p[v];
    s += x.x + x.y + x.z + x.w;
  }
  for (unsigned j = nv * 4 + threadIdx.x; j < n; j += step)
    s += a[j];
  return s;
}

// A shared-memory tree with a barrier per level; thread 0 stores the block's sum.
__device__ __forceinline__ void tree_store(float s, float *out) {
  __shared__ float sh[256];
  unsigned t = threadIdx.x;
  sh[t] = s;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) {
      s += sh[t + k];
      sh[t] = s;
    }
    __syncthreads();
  }
  if (t == 0)
    *out = s;
}

__global__ void sum_tree(const float *a, float *out, unsigned n) {
  wait_prev();
  float s = thread_sum(a, n);
  let_next();
  tree_store(s, out);
}

// The same with cuarr's parameter list: input, output, partials, counters and a 656-byte layout
// (32-bit cuarr_red_layout with one input) of which it reads the element count.
struct layout656 {
  unsigned n_out, n_red, ndo, ndr, rest[160];
};
__global__ void sum_tree_big(const float *a, float *out, float *partial, unsigned *counters,
                             layout656 L) {
  wait_prev();
  float s = thread_sum(a, L.n_red);
  let_next();
  tree_store(s, out);
}

__device__ __forceinline__ float warp_sum(float s) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1)
    s += __shfl_down_sync(0xffffffffu, s, k);
  return s;
}

__global__ void sum_shfl(const float *a, float *out, unsigned n) {
  wait_prev();
  float s = thread_sum(a, n);
  let_next();
  __shared__ float sh[32];
  s = warp_sum(s);
  unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0)
    sh[w] = s;
  __syncthreads();
  if (w == 0) {
    s = lane < blockDim.x / 32 ? sh[lane] : 0.f;
    s = warp_sum(s);
    if (lane == 0)
      *out = s;
  }
}

__global__ void sum_warp(const float *a, float *out, unsigned n) {
  wait_prev();
  float s = thread_sum(a, n);
  let_next();
  s = warp_sum(s);
  if (threadIdx.x == 0)
    *out = s;
}

static double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename... A>
static void launch(void (*k)(A...), unsigned threads, cudaStream_t s, A... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = 1;
  cfg.blockDim = threads;
  cfg.stream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, k, args...);
}

int main() {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const unsigned n = 1000;
  float *a, *b, *c, *out;
  cudaMalloc(&a, 4 * n);
  cudaMalloc(&b, 4 * n);
  cudaMalloc(&c, 4 * n);
  cudaMalloc(&out, 4096);
  std::vector<float> h(n);
  for (unsigned i = 0; i < n; i++)
    h[i] = (float)(i % 7) * 0.25f;
  cudaMemcpy(a, h.data(), 4 * n, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), 4 * n, cudaMemcpyHostToDevice);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const char *names[] = {"empty, dependent",  "add n=1000",        "sum tree 256",
                         "sum shfl 256",      "sum shfl 128",      "sum shfl 64",
                         "sum warp 32",       "sum tree 656 B"};
  layout656 L{};
  L.n_out = 1;
  L.n_red = n;
  const int M = 8, N = 20000, H = 500;
  std::vector<double> dev[M], host[M];
  int r = 0;
  auto one = [&](int m) {
    float *o = out + (r++ & 511);
    switch (m) {
    case 0: launch(empty_dep, 32, s); break;
    case 1: launch(add_dep, 256 * 4, s, (const float *)a, (const float *)b, c, n); break;
    case 2: launch(sum_tree, 256, s, (const float *)a, o, n); break;
    case 3: launch(sum_shfl, 256, s, (const float *)a, o, n); break;
    case 4: launch(sum_shfl, 128, s, (const float *)a, o, n); break;
    case 5: launch(sum_shfl, 64, s, (const float *)a, o, n); break;
    case 6: launch(sum_warp, 32, s, (const float *)a, o, n); break;
    default: launch(sum_tree_big, 256, s, (const float *)a, o, c, (unsigned *)b, L); break;
    }
  };
  for (int m = 0; m < M; m++)
    for (int i = 0; i < 1000; i++)
      one(m);
  cudaStreamSynchronize(s);
  float check[512];
  cudaMemcpy(check, out, sizeof check, cudaMemcpyDeviceToHost);
  double want = 0;
  for (unsigned i = 0; i < n; i++)
    want += h[i];
  printf("sum %.3f want %.3f\n", check[0], want);
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
      double t0 = now_us();
      for (int i = 0; i < H; i++)
        one(m);
      host[m].push_back((now_us() - t0) / H);
      cudaStreamSynchronize(s);
    }
  for (int m = 0; m < M; m++) {
    std::sort(dev[m].begin(), dev[m].end());
    std::sort(host[m].begin(), host[m].end());
    printf("%-20s back-to-back %.2f us/op (min %.2f max %.2f)   host submit %.2f us\n", names[m],
           dev[m][4], dev[m][0], dev[m][8], host[m][4]);
  }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
