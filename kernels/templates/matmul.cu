/*
 * matmul.cu -- C = A @ B (or C += A @ B) for the dtypes cuBLAS does not multiply, bool and
 * the integers, and for float products too small to be worth a cuBLAS call (whose host cost is
 * several kernel launches').  NumPy's integer products sum in the result dtype and wrap; here
 * the sums run in an unsigned type at least 32 bits wide (signed overflow is undefined, and
 * narrower unsigned types promote to int before they multiply) and are cut to the dtype's width
 * when stored, which wraps the same.  bool is an or of ands.  float16 sums in float32, as
 * cuBLAS's float16 products do here.  Compiled after common.cuh and half.cuh.
 *
 * A block computes a 16 x 16 tile of C, walking the inner extent 16 at a time through two tiles
 * of A and B in shared memory; the grid's x, y and z step over C's columns, rows and the batch,
 * and a block loops when one of them is longer than the grid (y and z are capped at 65535).
 * Every operand has its own strides (in elements), so views need no copies.  No slots: the
 * kernels are extern "C" and named cuarr_matmul_<dtype code> (cuarr_matmul_f4 for float32).
 */

#define CUARR_MM_TILE 16

template <typename T> struct cuarr_mm_sum { typedef unsigned int type; };
template <> struct cuarr_mm_sum<long long> { typedef unsigned long long type; };
template <> struct cuarr_mm_sum<unsigned long long> { typedef unsigned long long type; };
template <> struct cuarr_mm_sum<bool> { typedef bool type; };
template <> struct cuarr_mm_sum<float> { typedef float type; };
template <> struct cuarr_mm_sum<double> { typedef double type; };
template <> struct cuarr_mm_sum<__half_t> { typedef float type; };

/* An element as the sum's type, and a sum as the element's. */
template <typename U, typename T> __device__ __forceinline__ U cuarr_mm_load(T x) { return (U)x; }
template <> __device__ __forceinline__ float cuarr_mm_load<float, __half_t>(__half_t x) {
  return (float)float16(x);
}
template <typename T, typename U> __device__ __forceinline__ T cuarr_mm_store(U sum) {
  return (T)sum;
}
template <> __device__ __forceinline__ __half_t cuarr_mm_store<__half_t, float>(float sum) {
  return (__half_t)float16(sum);
}

template <typename U> __device__ __forceinline__ U cuarr_mm_madd(U sum, U x, U y) {
  return sum + x * y;
}
template <> __device__ __forceinline__ bool cuarr_mm_madd<bool>(bool sum, bool x, bool y) {
  return sum || (x && y);
}

template <typename T>
__device__ __forceinline__ void
cuarr_matmul(const T *a, const T *b, T *c, int m, int n, int k, int batch, long long a_batch,
             long long b_batch, long long c_batch, long long a_rs, long long a_cs, long long b_rs,
             long long b_cs, long long c_rs, long long c_cs, int accumulate) {
  typedef typename cuarr_mm_sum<T>::type U;
  __shared__ U ta[CUARR_MM_TILE][CUARR_MM_TILE + 1], tb[CUARR_MM_TILE][CUARR_MM_TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (long long i = blockIdx.z; i < batch; i += gridDim.z)
    for (long long row0 = (long long)blockIdx.y * CUARR_MM_TILE; row0 < m;
         row0 += (long long)gridDim.y * CUARR_MM_TILE)
      for (long long col0 = (long long)blockIdx.x * CUARR_MM_TILE; col0 < n;
           col0 += (long long)gridDim.x * CUARR_MM_TILE) {
        const long long row = row0 + ty, col = col0 + tx;
        U sum = 0;
        for (int k0 = 0; k0 < k; k0 += CUARR_MM_TILE) {
          ta[ty][tx] =
              row < m && k0 + tx < k
                  ? cuarr_mm_load<U>(cuarr_load(a + i * a_batch + row * a_rs + (k0 + tx) * a_cs))
                  : (U)0;
          tb[ty][tx] =
              k0 + ty < k && col < n
                  ? cuarr_mm_load<U>(cuarr_load(b + i * b_batch + (k0 + ty) * b_rs + col * b_cs))
                  : (U)0;
          __syncthreads();
#pragma unroll
          for (int kk = 0; kk < CUARR_MM_TILE; kk++)
            sum = cuarr_mm_madd<U>(sum, ta[ty][kk], tb[kk][tx]);
          __syncthreads();
        }
        if (row < m && col < n) {
          T *out = c + i * c_batch + row * c_rs + col * c_cs;
          *out = cuarr_mm_store<T>(
              accumulate ? cuarr_mm_madd<U>(sum, cuarr_mm_load<U>(cuarr_load(out)), (U)1) : sum);
        }
      }
}

#define CUARR_MM_KERNEL(code, T)                                                                   \
  extern "C" __global__ void __launch_bounds__(CUARR_MM_TILE *CUARR_MM_TILE) cuarr_matmul_##code(  \
      const T *a, const T *b, T *c, int m, int n, int k, int batch, long long a_batch,             \
      long long b_batch, long long c_batch, long long a_rs, long long a_cs, long long b_rs,        \
      long long b_cs, long long c_rs, long long c_cs, int accumulate) {                            \
    cuarr_matmul<T>(a, b, c, m, n, k, batch, a_batch, b_batch, c_batch, a_rs, a_cs, b_rs, b_cs,    \
                    c_rs, c_cs, accumulate);                                                       \
  }
CUARR_MM_KERNEL(b1, bool)
CUARR_MM_KERNEL(i1, signed char)
CUARR_MM_KERNEL(i2, short)
CUARR_MM_KERNEL(i4, int)
CUARR_MM_KERNEL(i8, long long)
CUARR_MM_KERNEL(u1, unsigned char)
CUARR_MM_KERNEL(u2, unsigned short)
CUARR_MM_KERNEL(u4, unsigned int)
CUARR_MM_KERNEL(u8, unsigned long long)
CUARR_MM_KERNEL(f2, __half_t)
CUARR_MM_KERNEL(f4, float)
CUARR_MM_KERNEL(f8, double)
