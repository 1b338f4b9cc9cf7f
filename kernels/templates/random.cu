/*
 * random.cu -- cuarr.random's device kernels, compiled after kernels/include/philox.cuh (the
 * draws' functions, shared with the host loops) with -fmad=false.
 *
 * Each thread takes Philox blocks b = its index, + the grid's size, ... (the grid is sized to
 * the device) and writes the block's values (4 of 32-bit draws, 2 of 64-bit ones) with one
 * vector store when the block is whole and the output aligned, one by one otherwise.  Which
 * thread computes a block changes nothing: each value depends on (seed, counter, index) alone.
 *
 * Slots: none.  The kernels are extern "C" and take `void *out` (the launch passes a
 * C-contiguous array of the kernel's dtype), the count n, the seed and counter as 64-bit
 * integers, and the distribution's parameters.
 */

template <typename T, int PER> struct cuarr_rng_vec;
template <> struct cuarr_rng_vec<float, 4> { typedef float4 type; };
template <> struct cuarr_rng_vec<double, 2> { typedef double2 type; };

template <typename T, int PER,
          void (*BLOCK)(cuarr_rng_u64, cuarr_rng_u64, cuarr_rng_u64, double, double, T *)>
__device__ __forceinline__ void cuarr_rng_floats(void *out, long long n, long long seed,
                                                 long long ctr, double a, double b) {
  typedef typename cuarr_rng_vec<T, PER>::type vec;
  T *o = (T *)out;
  bool aligned = ((unsigned long long)out & (sizeof(vec) - 1)) == 0;
  cuarr_rng_u64 blocks = ((cuarr_rng_u64)n + PER - 1) / PER;
  cuarr_rng_u64 stride = (cuarr_rng_u64)gridDim.x * blockDim.x;
  for (cuarr_rng_u64 blk = (cuarr_rng_u64)blockIdx.x * blockDim.x + threadIdx.x; blk < blocks;
       blk += stride) {
    T v[PER];
    BLOCK((cuarr_rng_u64)seed, (cuarr_rng_u64)ctr, blk, a, b, v);
    cuarr_rng_u64 i = blk * PER;
    if (aligned && i + PER <= (cuarr_rng_u64)n) {
      vec w;
      memcpy(&w, v, sizeof w);
      *(vec *)(o + i) = w;
    } else {
      for (int k = 0; k < PER && i + k < (cuarr_rng_u64)n; k++)
        o[i + k] = v[k];
    }
  }
}

/* Written out one by one (not through a macro) so that cuarr reads their signatures. */
extern "C" __global__ void cuarr_random_uniform_float32(void *out, long long n, long long seed,
                                                        long long ctr, double a, double b) {
  cuarr_rng_floats<float, 4, cuarr_rng_uniform_f32>(out, n, seed, ctr, a, b);
}
extern "C" __global__ void cuarr_random_uniform_float64(void *out, long long n, long long seed,
                                                        long long ctr, double a, double b) {
  cuarr_rng_floats<double, 2, cuarr_rng_uniform_f64>(out, n, seed, ctr, a, b);
}
extern "C" __global__ void cuarr_random_normal_float32(void *out, long long n, long long seed,
                                                       long long ctr, double a, double b) {
  cuarr_rng_floats<float, 4, cuarr_rng_normal_f32>(out, n, seed, ctr, a, b);
}
extern "C" __global__ void cuarr_random_normal_float64(void *out, long long n, long long seed,
                                                       long long ctr, double a, double b) {
  cuarr_rng_floats<double, 2, cuarr_rng_normal_f64>(out, n, seed, ctr, a, b);
}
extern "C" __global__ void cuarr_random_exponential_float32(void *out, long long n, long long seed,
                                                            long long ctr, double a, double b) {
  cuarr_rng_floats<float, 4, cuarr_rng_exponential_f32>(out, n, seed, ctr, a, b);
}
extern "C" __global__ void cuarr_random_exponential_float64(void *out, long long n, long long seed,
                                                            long long ctr, double a, double b) {
  cuarr_rng_floats<double, 2, cuarr_rng_exponential_f64>(out, n, seed, ctr, a, b);
}

/* Integers of width sizeof(T): 4 values per block when m < 2^32, else 2; the whole block is
 * stored at once (PER * sizeof(T) bytes) when aligned to that. */
template <typename T, int PER>
__device__ __forceinline__ void cuarr_rng_integers(T *o, long long n, long long seed, long long ctr,
                                                   long long low, long long m) {
  const unsigned long long bytes = PER * sizeof(T);
  bool aligned = ((unsigned long long)o & (bytes - 1)) == 0;
  cuarr_rng_u64 blocks = ((cuarr_rng_u64)n + PER - 1) / PER;
  cuarr_rng_u64 stride = (cuarr_rng_u64)gridDim.x * blockDim.x;
  for (cuarr_rng_u64 blk = (cuarr_rng_u64)blockIdx.x * blockDim.x + threadIdx.x; blk < blocks;
       blk += stride) {
    cuarr_rng_u64 v[4];
    if (PER == 4)
      cuarr_rng_integers_32((cuarr_rng_u64)seed, (cuarr_rng_u64)ctr, blk, (cuarr_rng_u64)low,
                            (cuarr_rng_u64)m, v);
    else
      cuarr_rng_integers_64((cuarr_rng_u64)seed, (cuarr_rng_u64)ctr, blk, (cuarr_rng_u64)low,
                            (cuarr_rng_u64)m, v);
    T t[PER];
    for (int k = 0; k < PER; k++)
      t[k] = (T)v[k];
    cuarr_rng_u64 i = blk * PER;
    if (aligned && i + PER <= (cuarr_rng_u64)n) {
      if (bytes == 32) {
        ((ulonglong2 *)(o + i))[0] = make_ulonglong2(t[0], t[1]);
        ((ulonglong2 *)(o + i))[1] = make_ulonglong2(t[2], t[3]);
      } else if (bytes == 16) {
        uint4 w;
        memcpy(&w, t, 16);
        *(uint4 *)(o + i) = w;
      } else if (bytes == 8) {
        uint2 w;
        memcpy(&w, t, 8);
        *(uint2 *)(o + i) = w;
      } else if (bytes == 4) {
        unsigned int w;
        memcpy(&w, t, 4);
        *(unsigned int *)(o + i) = w;
      } else {
        for (int k = 0; k < PER; k++)
          o[i + k] = t[k];
      }
    } else {
      for (int k = 0; k < PER && i + k < (cuarr_rng_u64)n; k++)
        o[i + k] = t[k];
    }
  }
}

extern "C" __global__ void cuarr_random_integers_1(void *out, long long n, long long seed,
                                                   long long ctr, long long low, long long m) {
  if ((unsigned long long)m <= 0xffffffffull)
    cuarr_rng_integers<unsigned char, 4>((unsigned char *)out, n, seed, ctr, low, m);
  else
    cuarr_rng_integers<unsigned char, 2>((unsigned char *)out, n, seed, ctr, low, m);
}
extern "C" __global__ void cuarr_random_integers_2(void *out, long long n, long long seed,
                                                   long long ctr, long long low, long long m) {
  if ((unsigned long long)m <= 0xffffffffull)
    cuarr_rng_integers<unsigned short, 4>((unsigned short *)out, n, seed, ctr, low, m);
  else
    cuarr_rng_integers<unsigned short, 2>((unsigned short *)out, n, seed, ctr, low, m);
}
extern "C" __global__ void cuarr_random_integers_4(void *out, long long n, long long seed,
                                                   long long ctr, long long low, long long m) {
  if ((unsigned long long)m <= 0xffffffffull)
    cuarr_rng_integers<unsigned int, 4>((unsigned int *)out, n, seed, ctr, low, m);
  else
    cuarr_rng_integers<unsigned int, 2>((unsigned int *)out, n, seed, ctr, low, m);
}
extern "C" __global__ void cuarr_random_integers_8(void *out, long long n, long long seed,
                                                   long long ctr, long long low, long long m) {
  if ((unsigned long long)m <= 0xffffffffull)
    cuarr_rng_integers<unsigned long long, 4>((unsigned long long *)out, n, seed, ctr, low, m);
  else
    cuarr_rng_integers<unsigned long long, 2>((unsigned long long *)out, n, seed, ctr, low, m);
}
