/*
 * elementwise.cu -- device helpers of the elementwise kernels
 * (src/core/elementwise/elementwise_source.c writes their loops).
 *
 * A generated program is common.cuh and half.cuh where the kernel needs them, this
 * file, the placeholder typedefs (`typedef float T;`), the program's preamble, then one
 * extern "C" kernel whose loops are written out by the generator around the operation's text,
 * e.g. (float32 out0 = in0 + in1, contiguous, 16-byte vectors, 32-bit indexing):
 *
 *   extern "C" __global__ void __launch_bounds__(256)
 *   add_contig_v4_i32_f4f4f4(const float *_cuarr_p0, const float *_cuarr_p1,
 *                            float *_cuarr_p2, const unsigned int _cuarr_n) {
 *     ... a vector of 4 floats per operand loaded, then for each of the 4 elements:
 *         const long long i = ...;
 *         const float in0 = ..., in1 = ...;
 *         float out0 = ...;          // loaded too: the operation may read it (CuPy's outputs
 *                                    // are references); dead loads are removed by the compiler
 *         { out0 = in0 + in1; }
 *         ... lane = out0 ...
 *     ... vectors stored; the last n % 4 elements one to a thread (ElementwiseKernel's
 *         kernels for a count of whole vectors, add_contig_v4w_..., have no such tail)
 *   }
 *
 * The operation is pasted inside the loop (not called through a function or lambda) so that
 * it is always inlined and can use loop_prep's variables, `i`, `_ind` and `continue` as it
 * can in CuPy.  Every name the generator introduces starts with _cuarr (parameter names may
 * not), apart from CuPy's `i` and `_ind`.
 */
#ifndef CUARR_ELEMENTWISE_CU
#define CUARR_ELEMENTWISE_CU

/* V elements moved by one 16-byte (or narrower) access: the struct is aligned to its size. */
template <typename T, int V> struct alignas(sizeof(T) * V) cuarr_ew_vec { T v[V]; };

/* The vector at element offset off (a multiple of V, aligned as the host checked): the strided
 * loops' vector loads and stores.  The contiguous loops index cuarr_ew_vec pointers
 * directly, which compiles sooner than a function template. */
template <int V, typename T, typename I>
__device__ __forceinline__ cuarr_ew_vec<T, V> cuarr_ew_vload_at(const T *p, I off) {
  return *(const cuarr_ew_vec<T, V> *)(p + off);
}
template <int V, typename T, typename I>
__device__ __forceinline__ void cuarr_ew_vstore_at(T *p, I off, const cuarr_ew_vec<T, V> &v) {
  *(cuarr_ew_vec<T, V> *)(p + off) = v;
}

/* `_ind` in the operation: CuPy's indexer, of which only size() is offered. */
struct cuarr_ew_indexer {
  long long size_;
  __device__ __forceinline__ long long size() const { return size_; }
};

/* A raw operand: the array as it is (not broadcast, not collapsed), indexed by the operation
 * with a flat C-order index (x[j]) or a multi-index (x[idx], idx an array of ndim integers),
 * as CuPy's CArray.  shape() and strides() (in bytes) are the array's own.  ND is its ndim;
 * CONTIG says it is C-contiguous, which makes x[j] a plain pointer access.  The host fills it
 * as data, size, shape[max(ND, 1)], strides[max(ND, 1)]: 8-byte fields, no padding. */
template <typename T, int ND, bool CONTIG> struct cuarr_raw {
  T *data_;
  long long size_;
  long long shape_[ND > 0 ? ND : 1];
  long long strides_[ND > 0 ? ND : 1];

  static constexpr int ndim = ND;
  __device__ __forceinline__ long long size() const { return size_; }
  __device__ __forceinline__ const long long *shape() const { return shape_; }
  __device__ __forceinline__ const long long *strides() const { return strides_; }
  __device__ __forceinline__ T *data() const { return data_; }

  __device__ __forceinline__ T &operator[](long long j) const {
    if constexpr (CONTIG || ND <= 1) {
      if constexpr (CONTIG || ND == 0)
        return data_[j];
      else
        return *(T *)((char *)data_ + j * strides_[0]);
    } else if (size_ <= 0xffffffffll) {
      /* Peel the axes off j, innermost first; 32-bit divisions when the array allows. */
      unsigned int q = (unsigned int)j;
      long long off = 0;
#pragma unroll
      for (int d = ND - 1; d > 0; --d) {
        const unsigned int e = (unsigned int)shape_[d], r = q % e;
        q /= e;
        off += (long long)r * strides_[d];
      }
      return *(T *)((char *)data_ + off + (long long)q * strides_[0]);
    } else {
      unsigned long long q = (unsigned long long)j;
      long long off = 0;
#pragma unroll
      for (int d = ND - 1; d > 0; --d) {
        const unsigned long long e = (unsigned long long)shape_[d], r = q % e;
        q /= e;
        off += (long long)r * strides_[d];
      }
      return *(T *)((char *)data_ + off + (long long)q * strides_[0]);
    }
  }

  template <typename J> __device__ __forceinline__ T &operator[](const J *idx) const {
    long long off = 0;
#pragma unroll
    for (int d = 0; d < ND; ++d)
      off += (long long)idx[d] * strides_[d];
    return *(T *)((char *)data_ + off);
  }
};

#endif
