/*
 * mask_cpu_emulation.cpp -- the mask kernels (kernels/templates/mask.cu) run on the CPU, for
 * checking their logic on a machine without a GPU: each CUDA thread of a block is a pthread,
 * blocks run one after another, __syncthreads is a block barrier and __shfl_up_sync a warp
 * exchange through slots and barriers (__shared__ variables become statics, which one block at
 * a time makes per-block).  It runs the passes as src/core/index/mask_device.c orders them
 * (count, scan of the tiles, then nonzero's positions, selection, assignment and the rows
 * kernels) over masks of 1 to 40000 elements (aligned and not, bool, float32 with NaN and -0.0
 * as 1-D, 2-D and 5-D masks, all-true and all-false int64) and compares with plain loops.
 *
 *   g++ -std=c++17 -O1 -pthread -w bench/experiments/mask_cpu_emulation.cpp -o /tmp/mask_emu
 *   /tmp/mask_emu        # "ALL OK", or each difference
 *
 * A kernel bug such as an inclusive block scan where the exclusive one belongs shows at once.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <vector>
struct dim3_ {
  unsigned x, y, z;
};
extern thread_local dim3_ threadIdx;
extern dim3_ blockIdx_g, blockDim, gridDim;
#define blockIdx blockIdx_g
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(n)
struct uint4 {
  unsigned x, y, z, w;
};
inline uint4 __ldg(const uint4 *p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
extern pthread_barrier_t block_bar;
extern pthread_barrier_t warp_bar[64];
inline void __syncthreads() { pthread_barrier_wait(&block_bar); }
extern long long warp_slot[2048];
template <typename T> T __shfl_up_sync(unsigned, T v, int o) {
  int t = threadIdx.x, w = t >> 5, lane = t & 31;
  pthread_barrier_wait(&warp_bar[w]);
  long long x = 0;
  memcpy(&x, &v, sizeof v);
  warp_slot[t] = x;
  pthread_barrier_wait(&warp_bar[w]);
  T r = v;
  if (lane >= o)
    memcpy(&r, &warp_slot[t - o], sizeof r);
  pthread_barrier_wait(&warp_bar[w]);
  return r;
}

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
thread_local dim3_ threadIdx;
dim3_ blockIdx_g, blockDim, gridDim;
pthread_barrier_t block_bar;
pthread_barrier_t warp_bar[64];
long long warp_slot[2048];
#include "../../kernels/templates/mask.cu"

typedef std::function<void(const cuarr_mask_params &)> kernel;
struct targ {
  kernel k;
  const cuarr_mask_params *p;
  unsigned t;
};
static void *run_thread(void *a) {
  targ *x = (targ *)a;
  threadIdx = {x->t, 0, 0};
  x->k(*x->p);
  return NULL;
}
static void launch(kernel k, unsigned grid, unsigned block, const cuarr_mask_params &p) {
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  pthread_barrier_init(&block_bar, NULL, block);
  for (unsigned w = 0; w < block / 32; w++)
    pthread_barrier_init(&warp_bar[w], NULL, 32);
  std::vector<pthread_t> th(block);
  std::vector<targ> args(block);
  for (unsigned b = 0; b < grid; b++) {
    blockIdx_g = {b, 0, 0};
    for (unsigned t = 0; t < block; t++) {
      args[t] = {k, &p, t};
      pthread_create(&th[t], NULL, run_thread, &args[t]);
    }
    for (unsigned t = 0; t < block; t++)
      pthread_join(th[t], NULL);
  }
  pthread_barrier_destroy(&block_bar);
  for (unsigned w = 0; w < block / 32; w++)
    pthread_barrier_destroy(&warp_bar[w]);
}

static int failures = 0;
#define EXPECT(c, ...)                                                                             \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      failures++;                                                                                  \
      printf("FAIL: " __VA_ARGS__);                                                                \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

// Emulate the host's passes for a mask of n bytes (bool) / floats.
template <typename W>
static void run_case(long long n, const std::vector<W> &mask, unsigned long long test, int nd,
                     const long long *shape, int rows_sel) {
  long long tiles = (n + CUARR_MASK_TILE - 1) / CUARR_MASK_TILE;
  std::vector<long long> prefix(tiles + 1, -7);
  cuarr_mask_params p;
  memset(&p, 0, sizeof p);
  // unaligned start when rows_sel == 2, to test the scalar path
  p.mask = (unsigned long long)mask.data();
  p.test = test;
  p.n = n;
  p.prefix = (unsigned long long)prefix.data();
  p.vec_mask = ((uintptr_t)mask.data() % 16) == 0;
  launch([](const cuarr_mask_params &q) { cuarr_mask_count<W>(q); }, tiles, 256, p);
  launch([](const cuarr_mask_params &q) { cuarr_mask_scan_tiles(q); }, 1, 1024, p);
  long long count = prefix[tiles];
  // reference
  std::vector<long long> ref;
  for (long long i = 0; i < n; i++)
    if (mask[i] & (W)test)
      ref.push_back(i);
  EXPECT(count == (long long)ref.size(), "count %lld vs %zu (n=%lld)", count, ref.size(), n);
  p.count = count;
  // positions
  std::vector<long long> out(nd * count + 1, -1);
  p.dst = (unsigned long long)out.data();
  p.base = 1;
  p.nd = nd;
  for (int d = 0; d < nd; d++)
    p.shape[d] = shape[d];
  if (nd == 1)
    launch([](const cuarr_mask_params &q) { cuarr_mask_positions1<W>(q); }, tiles, 256, p);
  else if (nd == 2)
    launch([](const cuarr_mask_params &q) { cuarr_mask_positions<W, 2>(q); }, tiles, 256, p);
  else
    launch([](const cuarr_mask_params &q) { cuarr_mask_positions<W, 0>(q); }, tiles, 256, p);
  for (long long j = 0; j < count; j++) {
    long long rest = ref[j];
    for (int d = nd - 1; d >= 0; d--) {
      long long want = rest % shape[d] + 1;
      rest /= shape[d];
      EXPECT(out[d * count + j] == want, "pos d%d j%lld got %lld want %lld", d, j,
             out[d * count + j], want);
      if (out[d * count + j] != want)
        return;
    }
  }
  // select of float32 a (rows 1)
  std::vector<float> a(n), sel(count + 1, -1);
  for (long long i = 0; i < n; i++)
    a[i] = (float)i;
  p.src = (unsigned long long)a.data();
  p.dst = (unsigned long long)sel.data();
  p.vec_src = ((uintptr_t)a.data() % 16) == 0;
  launch([](const cuarr_mask_params &q) { cuarr_mask_select<W, unsigned>(q); }, tiles, 256, p);
  for (long long j = 0; j < count; j++)
    EXPECT(sel[j] == (float)ref[j], "sel j%lld", j);
  // assign with vs0 = 1 (values j + 1000)
  std::vector<double> b(n, -5), v(count + 1);
  for (long long j = 0; j < count; j++)
    v[j] = 1000 + j;
  p.src = (unsigned long long)v.data();
  p.dst = (unsigned long long)b.data();
  p.vs0 = 1;
  launch([](const cuarr_mask_params &q) { cuarr_mask_assign<W, unsigned long long>(q); }, tiles,
         256, p);
  {
    long long j = 0;
    for (long long i = 0; i < n; i++) {
      if (j < count && ref[j] == i) {
        EXPECT(b[i] == 1000 + j, "assign i%lld", i);
        j++;
      } else
        EXPECT(b[i] == -5, "untouched i%lld", i);
    }
  }
  // rows: flat positions then select_rows with rows = 3
  if (rows_sel) {
    std::vector<long long> idx(count + 1);
    p.dst = (unsigned long long)idx.data();
    p.base = 0;
    launch([](const cuarr_mask_params &q) { cuarr_mask_positions1<W>(q); }, tiles, 256, p);
    const long long R = 3;
    std::vector<short> big(n * R), rsel(count * R + 1, -1);
    for (long long i = 0; i < n * R; i++)
      big[i] = (short)(i % 30000);
    p.src = (unsigned long long)big.data();
    p.dst = (unsigned long long)rsel.data();
    p.index = (unsigned long long)idx.data();
    p.rows = R;
    launch([](const cuarr_mask_params &q) { cuarr_mask_select_rows<unsigned short>(q); }, 3, 256,
           p);
    for (long long j = 0; j < count; j++)
      for (long long r = 0; r < R; r++)
        EXPECT(rsel[j * R + r] == (short)((ref[j] * R + r) % 30000), "rows j%lld r%lld", j, r);
    // assign rows: a row broadcast (vs0 = 0, vs1 = 1)
    std::vector<short> vals = {7, 8, 9};
    p.src = (unsigned long long)vals.data();
    p.dst = (unsigned long long)big.data();
    p.vs0 = 0;
    p.vs1 = 1;
    launch([](const cuarr_mask_params &q) { cuarr_mask_assign_rows<unsigned short>(q); }, 2, 256,
           p);
    {
      long long j = 0;
      for (long long i = 0; i < n; i++) {
        bool s = j < count && ref[j] == i;
        if (s)
          j++;
        for (long long r = 0; r < R; r++) {
          short want = s ? vals[r] : (short)((i * R + r) % 30000);
          EXPECT(big[i * R + r] == want, "assign rows i%lld", i);
        }
      }
    }
  }
}

int main() {
  srand(3);
  long long sizes[] = {1, 15, 16, 17, 255, 257, 4095, 4096, 4097, 9000, 40000};
  for (long long n : sizes) {
    std::vector<unsigned char> m(n + 16);
    for (long long i = 0; i < n + 16; i++)
      m[i] = (rand() % 100 < 45) ? (unsigned char)(1 + rand() % 255) : 0;
    long long shape1[1] = {n};
    run_case<unsigned char>(n, m, 0xff, 1, shape1, 1);
    // unaligned: start one byte in
    std::vector<unsigned char> mu(m.begin() + 1, m.end());
    run_case<unsigned char>(n, mu, 0xff, 1, shape1, 0);
    // float32 masks with NaN and -0.0, as 2-D and 5-D
    std::vector<unsigned> f(n);
    for (long long i = 0; i < n; i++) {
      float x = (rand() % 100 < 50) ? (rand() % 2 ? -0.0f : 0.0f) : (rand() % 3 == 0 ? NAN : -1.5f);
      memcpy(&f[i], &x, 4);
    }
    if (n % 5 == 0) {
      long long s2[2] = {n / 5, 5};
      run_case<unsigned>(n, f, 0x7fffffffu, 2, s2, 0);
    } else {
      long long s1[1] = {n};
      run_case<unsigned>(n, f, 0x7fffffffu, 1, s1, 0);
    }
    if (n == 40000) {
      long long s5[5] = {5, 2, 4, 25, 40};
      run_case<unsigned>(n, f, 0x7fffffffu, 5, s5, 0);
    }
    // all true / all false int64
    std::vector<unsigned long long> t(n, 5ull), z(n, 0);
    run_case<unsigned long long>(n, t, ~0ull, 1, shape1, 1);
    run_case<unsigned long long>(n, z, ~0ull, 1, shape1, 0);
    printf("n=%lld done, failures %d\n", n, failures);
  }
  printf("%s\n", failures ? "FAILED" : "ALL OK");
  return failures != 0;
}
