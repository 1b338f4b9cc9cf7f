/*
 * linear.cu -- dst[k] = start + k * step for a 1-D strided dst (arange, linspace).
 *
 * Templates only; the generator appends one extern "C" kernel per dtype and index width, e.g.
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   cuarr_linear_float32_i32(float *dst, cuarr_layout<unsigned int, 1, 1> p, double start,
 *                            double step, float stop, int last_is_stop)
 *   { cuarr_linear<float>(dst, p, start, step, stop, last_is_stop); }
 *
 * The value is computed in C = double for float dtypes and C = long long for bool and integer
 * dtypes, exactly as the host computes it (src/core/copy/host_fill.c), then converted with
 * cuarr_cast.  When last_is_stop is set the last element is `stop` (linspace's endpoint),
 * which the host has already converted to the dtype, as its own loop does.
 */

/* start + k * step, the multiply and the add rounded separately as on the host. */
__device__ __forceinline__ double cuarr_linear_value(double start, double step,
                                                     unsigned long long k) {
  return cuarr_dadd_rn(start, cuarr_dmul_rn((double)k, step));
}

/* Wrapping (two's complement) rather than undefined on overflow, as the host's. */
__device__ __forceinline__ long long cuarr_linear_value(long long start, long long step,
                                                        unsigned long long k) {
  return (long long)((unsigned long long)start + k * (unsigned long long)step);
}

template <typename T, typename C, typename I>
__device__ __forceinline__ void cuarr_linear(T *dst, const cuarr_layout<I, 1, 1> &p, C start,
                                             C step, T stop, int last_is_stop) {
  const I n = p.n, stride = p.strides[0][0], origin = p.origin[0];
  const I count = cuarr_thread_count<I>();
  for (I i = cuarr_thread_index<I>(); i < n; i += count) {
    dst[origin + i * stride] =
        last_is_stop && i == n - 1 ? stop : cuarr_cast<T>(cuarr_linear_value(start, step, i));
  }
}
