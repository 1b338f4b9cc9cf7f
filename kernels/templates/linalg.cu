/*
 * linalg.cu -- the small kernels around cuBLAS's and cuSOLVER's factorizations: the pointer
 * arrays their batched routines take, determinants read off LU factors, the triangle a
 * Cholesky factorization leaves alone, zeroed, and the batched Jacobi SVD's vectors laid out
 * as gesvd's.  Matrices are column-major, one after another.  No slots: every kernel is
 * extern "C", named with its dtype's code (f4, f8).
 */

/* ptrs[i] = base + i * stride (bytes), for the batched routines' arrays of matrices. */
extern "C" __global__ void cuarr_linalg_pointers(char **ptrs, char *base, long long stride,
                                                 long long count) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    ptrs[i] = base + i * stride;
}

/* One matrix per thread: the sign of its determinant and the log of its absolute value, from
 * the diagonal of U and the row swaps of the pivots (1-based), summed in double as the host's
 * loop sums them.  With no logabs, the determinant itself (sign * exp(log), NumPy's det). */
template <typename T>
__device__ __forceinline__ void cuarr_linalg_det(const T *lu, const int *ipiv, int n,
                                                 long long count, T *sign, T *logabs) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const T *m = lu + i * (long long)n * n;
    double s = 1, l = 0;
    for (int k = 0; k < n; k++) {
      double u = (double)m[(long long)k * n + k];
      if (ipiv[i * n + k] != k + 1)
        s = -s;
      if (u < 0)
        s = -s, u = -u;
      if (u == 0) {
        s = 0, l = -__longlong_as_double(0x7ff0000000000000ULL);
        break;
      }
      l += log(u);
    }
    if (logabs) {
      sign[i] = (T)s;
      logabs[i] = (T)l;
    } else {
      sign[i] = (T)(s * exp(l));
    }
  }
}

/* The same with one block per matrix, for large matrices: a thread per matrix would walk n
 * diagonal elements one after another, each a load from another row of the matrix. */
#define CUARR_LINALG_DET_THREADS 256
template <typename T>
__device__ __forceinline__ void cuarr_linalg_det_block(const T *lu, const int *ipiv, int n,
                                                       long long count, T *sign, T *logabs) {
  __shared__ double logs[CUARR_LINALG_DET_THREADS];
  __shared__ int flips[CUARR_LINALG_DET_THREADS], zeros[CUARR_LINALG_DET_THREADS];
  const int t = threadIdx.x;
  for (long long i = blockIdx.x; i < count; i += gridDim.x) {
    const T *m = lu + i * (long long)n * n;
    double l = 0;
    int flip = 0, zero = 0;
    for (int k = t; k < n; k += CUARR_LINALG_DET_THREADS) {
      double u = (double)m[(long long)k * n + k];
      flip ^= (ipiv[i * n + k] != k + 1) ^ (u < 0);
      zero |= u == 0;
      l += log(fabs(u));
    }
    logs[t] = l, flips[t] = flip, zeros[t] = zero;
    __syncthreads();
    for (int half = CUARR_LINALG_DET_THREADS / 2; half > 0; half /= 2) {
      if (t < half) {
        logs[t] += logs[t + half];
        flips[t] ^= flips[t + half];
        zeros[t] |= zeros[t + half];
      }
      __syncthreads();
    }
    if (t == 0) {
      double s = zeros[0] ? 0 : flips[0] ? -1 : 1;
      double sum = zeros[0] ? -__longlong_as_double(0x7ff0000000000000ULL) : logs[0];
      if (logabs) {
        sign[i] = (T)s;
        logabs[i] = (T)sum;
      } else {
        sign[i] = (T)(s * exp(sum));
      }
    }
    __syncthreads(); /* the shared arrays are the next matrix's */
  }
}

/* Zero below the diagonal (upper) or above it (lower) of every matrix. */
template <typename T>
__device__ __forceinline__ void cuarr_linalg_zero_triangle(T *a, int n, long long count,
                                                           int upper) {
  const long long total = count * n * n;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    long long within = e % ((long long)n * n);
    int col = (int)(within / n), row = (int)(within % n);
    if (upper ? row > col : row < col)
      a[e] = (T)0;
  }
}

/* After the batched Jacobi SVD, which leaves each U (m x m) and V (n x n) column-major, one
 * after another: the first ucols columns of every U into u (m x ucols each, packed; ucols 0
 * when U was written in place) and every V transposed into vt, the V^T that gesvd gives.
 * One thread per element written, so the writes are coalesced; the reads of V stay within a
 * matrix of at most 32 x 32. */
template <typename T>
__device__ __forceinline__ void cuarr_linalg_svd_vectors(const T *uf, T *u, int m, int ucols,
                                                         const T *vf, T *vt, int n,
                                                         long long count) {
  const long long in_u = (long long)m * ucols, nn = (long long)n * n, per = in_u + nn;
  const long long total = count * per;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e / per, r = e - i * per;
    if (r < in_u) {
      u[i * in_u + r] = uf[i * m * (long long)m + r]; /* the first columns lie first */
    } else {
      const long long t = r - in_u; /* vt's (row, col) at col * n + row is V's (col, row) */
      const int col = (int)(t / n), row = (int)(t - (long long)col * n);
      vt[i * nn + t] = vf[i * nn + (long long)row * n + col];
    }
  }
}

#define CUARR_LINALG_KERNELS(code, T)                                                              \
  extern "C" __global__ void cuarr_linalg_det_##code(const T *lu, const int *ipiv, int n,          \
                                                     long long count, T *sign, T *logabs) {        \
    cuarr_linalg_det<T>(lu, ipiv, n, count, sign, logabs);                                         \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(CUARR_LINALG_DET_THREADS)                           \
      cuarr_linalg_det_block_##code(const T *lu, const int *ipiv, int n, long long count, T *sign, \
                                    T *logabs) {                                                   \
    cuarr_linalg_det_block<T>(lu, ipiv, n, count, sign, logabs);                                   \
  }                                                                                                \
  extern "C" __global__ void cuarr_linalg_zero_triangle_##code(T *a, int n, long long count,       \
                                                               int upper) {                        \
    cuarr_linalg_zero_triangle<T>(a, n, count, upper);                                             \
  }                                                                                                \
  extern "C" __global__ void cuarr_linalg_svd_vectors_##code(                                      \
      const T *uf, T *u, int m, int ucols, const T *vf, T *vt, int n, long long count) {           \
    cuarr_linalg_svd_vectors<T>(uf, u, m, ucols, vf, vt, n, count);                                \
  }
CUARR_LINALG_KERNELS(f4, float)
CUARR_LINALG_KERNELS(f8, double)
