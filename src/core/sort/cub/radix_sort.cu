/*
 * radix_sort.cu -- libcuarr_sort.so: cuarr's device sort engine, CUB's radix sorts compiled
 * ahead of time by nvcc when cuarr is built (nothing compiles CUB at run time).
 * core.so opens it with dlopen (sort/sort_loader.c); its C interface is sort_library.h.
 *
 * The common case, a sort that returns only the keys of one row (or of a few long ones), goes
 * straight through CUB's SortKeys with the dtype's own type: no pass but CUB's touches the keys.
 * CUB's twiddle is key_transform.h's map for the integers; for floats it differs only in putting
 * the negative NaNs first, so a run of them at the start of a sorted row is then rotated to its
 * end (two launches that return at once when there is none).  float16 keys take the general way
 * below: CUB's __half order did not keep -0.0 before +0.0.  (A key type of cuarr's with
 * key_transform.h's map as its NumericTraits gave wrong orders, and wrote out of bounds on
 * partial tiles, on an H200.)  Everything else (argsort, lexsort's steps, many rows, a row of
 * 2^32 keys or more) reaches CUB as unsigned keys of the dtype's width, so CUB is
 * instantiated there for four key types only, keys alone and with int64 values, onesweep and a
 * segmented stable sort: one pass encodes the keys (gathering them through a permutation for
 * lexsort, writing the 1-based indices for argsort in the same pass), CUB sorts them in place
 * between two buffers (DoubleBuffer: no extra copy), and one pass decodes them into the
 * caller's output for sort.  A few rows of a million keys or more are sorted one onesweep each;
 * many rows go through DeviceSegmentedSort, whose warp- and block-sized paths suit rows of 8 as
 * well as rows of thousands (its merge sorts compare keys with <, so they get unsigned keys).
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../key_transform.h"
#include "../sort_library.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

/* The Makefile wraps CUB and Thrust in namespaces of cuarr's (CUB_WRAPPED_NAMESPACE), so that
 * another CUB in the process (the embedder's, a library's) never shares their symbols. */
namespace cub = CUB_NS_QUALIFIER;
namespace thrust = THRUST_NS_QUALIFIER;

namespace {

/* Rows at least this long, when there are few of them, are sorted one onesweep each. */
constexpr int64_t LONG_ROW = int64_t(1) << 20;
constexpr int64_t FEW_ROWS = 64;

template <typename K> __device__ __forceinline__ K encode(K bits, int kind, int merge) {
  return (K)cuarr_sk_encode((uint64_t)bits, kind, (int)sizeof(K), merge);
}

/* keys[i] = the key of row r's element perm[i] - 1 (or of i itself), indices[i] its 1-based
 * position in the row. */
template <typename K>
__global__ void encode_kernel(int kind, int merge, const K *in, const int64_t *perm, K *keys,
                              int64_t *indices, int64_t n, int64_t seg_len) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (perm) {
      const int64_t p = perm[i];
      keys[i] = encode(in[i - (i % seg_len) + p - 1], kind, merge);
      indices[i] = p;
    } else {
      keys[i] = encode(in[i], kind, merge);
      if (indices)
        indices[i] = (seg_len == n ? i : i % seg_len) + 1;
    }
  }
}

template <typename K> __global__ void decode_kernel(int kind, const K *keys, K *out, int64_t n) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = (K)cuarr_sk_decode((uint64_t)keys[i], kind, (int)sizeof(K));
}

template <typename K>
__global__ void searchsorted_kernel(int kind, const K *sorted, int64_t n, const int64_t *sorter,
                                    const K *values, int64_t m, int right, int64_t *out) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += stride) {
    const K v = encode(values[j], kind, 1);
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      int64_t at = mid;
      if (sorter) { /* the caller checks the sorter; a wrong one must still not read out of range */
        at = sorter[mid] - 1;
        at = at < 0 ? 0 : at >= n ? n - 1 : at;
      }
      const K k = encode(sorted[at], kind, 1);
      if (right ? k <= v : k < v)
        lo = mid + 1;
      else
        hi = mid;
    }
    out[j] = lo + 1;
  }
}

/* Enough blocks of 256 threads to fill the device several times over; the loops stride. */
unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + 255) / 256;
  return (unsigned)(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

struct row_start {
  int64_t len;
  __host__ __device__ int64_t operator()(int64_t r) const { return r * len; }
};

size_t align_up(size_t x) { return (x + 255) & ~size_t(255); }

/* Where each buffer of one sort lies in the caller's temporary storage. */
struct plan {
  size_t keys_a, keys_b, vals_b, cub, total, cub_bytes;
};

template <typename K> struct sorter {
  int64_t n, seg_len, rows;
  bool pairs;

  bool per_row() const { return rows == 1 || (seg_len >= LONG_ROW && rows <= FEW_ROWS); }

  /* CUB's own storage (d_temp == nullptr: the query) for keys kb and values vb. */
  cudaError_t cub_sort(void *d_temp, size_t &bytes, cub::DoubleBuffer<K> &kb,
                       cub::DoubleBuffer<int64_t> &vb, cudaStream_t stream) const {
    const int bits = 8 * (int)sizeof(K);
    if (per_row()) {
      cudaError_t e = cudaSuccess;
      for (int64_t r = 0; r < rows && e == cudaSuccess; r++) {
        const int64_t at = r * seg_len;
        cub::DoubleBuffer<K> rk(kb.d_buffers[0] + at, kb.d_buffers[1] + at);
        cub::DoubleBuffer<int64_t> rv(pairs ? vb.d_buffers[0] + at : nullptr,
                                      pairs ? vb.d_buffers[1] + at : nullptr);
        if (seg_len <= int64_t(UINT32_MAX)) {
          const uint32_t len = (uint32_t)seg_len;
          e = pairs ? cub::DeviceRadixSort::SortPairs(d_temp, bytes, rk, rv, len, 0, bits, stream)
                    : cub::DeviceRadixSort::SortKeys(d_temp, bytes, rk, len, 0, bits, stream);
        } else {
          e = pairs
                  ? cub::DeviceRadixSort::SortPairs(d_temp, bytes, rk, rv, seg_len, 0, bits, stream)
                  : cub::DeviceRadixSort::SortKeys(d_temp, bytes, rk, seg_len, 0, bits, stream);
        }
        kb.selector = rk.selector;
        vb.selector = rv.selector;
        if (!d_temp)
          break; /* every row asks the same */
      }
      return e;
    }
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0),
                                                 row_start{seg_len});
    auto end = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(1),
                                               row_start{seg_len});
    return pairs ? cub::DeviceSegmentedSort::StableSortPairs(d_temp, bytes, kb, vb, n, rows, begin,
                                                             end, stream)
                 : cub::DeviceSegmentedSort::StableSortKeys(d_temp, bytes, kb, n, rows, begin, end,
                                                            stream);
  }

  cudaError_t layout(bool own_keys, plan &p) const {
    size_t at = 0;
    const size_t key_bytes = align_up((size_t)n * sizeof(K));
    p.keys_a = at;
    if (own_keys)
      at += key_bytes;
    p.keys_b = at;
    at += key_bytes;
    p.vals_b = at;
    if (pairs)
      at += align_up((size_t)n * sizeof(int64_t));
    p.cub = at;
    cub::DoubleBuffer<K> kb(nullptr, nullptr);
    cub::DoubleBuffer<int64_t> vb(nullptr, nullptr);
    p.cub_bytes = 0;
    cudaError_t e = cub_sort(nullptr, p.cub_bytes, kb, vb, 0);
    p.total = at + align_up(p.cub_bytes);
    return e;
  }
};

/* The bits of a float type, and whether a float's bits are a negative NaN. */
template <typename T> struct float_bits;
template <> struct float_bits<float> { using type = uint32_t; };
template <> struct float_bits<double> { using type = uint64_t; };

template <typename U> __device__ __forceinline__ bool negative_nan(U u) {
  const uint64_t x = u, w = sizeof(U), exp = cuarr_sk_exponent(w);
  return (x & cuarr_sk_high(w)) && (x & exp) == exp && (x & cuarr_sk_mantissa(w)) != 0;
}

/* *run = the length of the run of negative NaNs that starts a row sorted in CUB's float order
 * (they all come first there). */
template <typename U> __global__ void nan_run_kernel(const U *row, int64_t n, int64_t *run) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (negative_nan(row[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  *run = lo;
}

/* With a run of negative NaNs before the rest: the row copied aside (aside_it = 1), or the row
 * written back from the copy with the run last (0); nothing otherwise. */
template <typename U>
__global__ void nan_rotate_kernel(U *row, U *aside, int64_t n, const int64_t *run, int aside_it) {
  const int64_t r = *run;
  if (r == 0 || r == n)
    return;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    if (aside_it)
      aside[i] = row[i];
    else
      row[i] = aside[i + r < n ? i + r : i + r - n];
  }
}

/* A sort that returns only the keys, of rows onesweep sorts one by one (see sorter::per_row)
 * shorter than 2^32: CUB's SortKeys from keys_in to keys_out with the dtype's own type (the
 * integer type, float, double), then for floats each row's negative NaNs moved last.  A
 * sort in place copies the keys into the temporary storage first (CUB's SortKeys reads and
 * writes different buffers); the storage always has room for it, and after the sorts it holds
 * the rows set aside for the NaN rotation and, in CUB's part, the run's length. */
template <typename T> struct fused {
  static constexpr bool is_float = std::is_same<T, float>::value || std::is_same<T, double>::value;

  static bool eligible(int64_t n, int64_t seg_len, bool keys, bool indices, bool perm) {
    if (!keys || indices || perm || seg_len > int64_t(UINT32_MAX))
      return false;
    const int64_t rows = n / seg_len;
    return rows == 1 || (seg_len >= LONG_ROW && rows <= FEW_ROWS);
  }

  static cudaError_t layout(int64_t n, int64_t seg_len, size_t &cub_at, size_t &cub_bytes,
                            size_t &total) {
    cub_bytes = 0;
    cudaError_t e =
        cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, (const T *)nullptr, (T *)nullptr,
                                       (uint32_t)seg_len, 0, 8 * (int)sizeof(T), (cudaStream_t)0);
    cub_at = align_up((size_t)n * sizeof(T));
    total = cub_at + align_up(cub_bytes > sizeof(int64_t) ? cub_bytes : sizeof(int64_t));
    return e;
  }

  /* Each sorted row's leading negative NaNs moved after the rest, row by row through the
   * temporary storage (aside: a row's room at its start; run: 8 bytes in CUB's part). */
  static cudaError_t rotate_nans(void *keys_out, int64_t n, int64_t seg_len, char *aside,
                                 int64_t *run, cudaStream_t stream) {
    using U = typename float_bits<T>::type;
    const int threads = 256;
    const int64_t want = (seg_len + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < 2048 ? want : 2048);
    cudaError_t e = cudaSuccess;
    for (int64_t at = 0; at < n && e == cudaSuccess; at += seg_len) {
      U *row = (U *)keys_out + at;
      nan_run_kernel<U><<<1, 1, 0, stream>>>(row, seg_len, run);
      nan_rotate_kernel<U><<<blocks, threads, 0, stream>>>(row, (U *)aside, seg_len, run, 1);
      nan_rotate_kernel<U><<<blocks, threads, 0, stream>>>(row, (U *)aside, seg_len, run, 0);
      e = cudaGetLastError();
    }
    return e;
  }

  static int run(const void *keys_in, void *keys_out, int64_t n, int64_t seg_len, char *temp,
                 size_t temp_bytes, cudaStream_t stream) {
    size_t cub_at, cub_bytes, total;
    cudaError_t e = layout(n, seg_len, cub_at, cub_bytes, total);
    if (e != cudaSuccess)
      return (int)e;
    if (temp_bytes < total)
      return (int)cudaErrorInvalidValue;
    const T *src = (const T *)keys_in;
    if (keys_in == keys_out) {
      e = cudaMemcpyAsync(temp, keys_in, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
      src = (const T *)temp;
    }
    for (int64_t at = 0; at < n && e == cudaSuccess; at += seg_len) {
      size_t bytes = cub_bytes;
      e = cub::DeviceRadixSort::SortKeys(temp + cub_at, bytes, src + at, (T *)keys_out + at,
                                         (uint32_t)seg_len, 0, 8 * (int)sizeof(T), stream);
    }
    if constexpr (is_float)
      if (e == cudaSuccess)
        e = rotate_nans(keys_out, n, seg_len, temp, (int64_t *)(temp + cub_at), stream);
    return (int)e;
  }
};

/* Whether CUB sorts (kind, width) as its own type (every dtype but float16). */
static bool direct_kind(int kind, int width) { return kind != CUARR_SORT_KIND_FLOAT || width > 2; }

/* CUB's key type for a keys-only sort of (kind, width), passed to call as a type tag. */
template <typename F> int by_key_type(int kind, int width, F call) {
  if (kind == CUARR_SORT_KIND_FLOAT)
    return width == 4 ? call(float{}) : call(double{});
  if (kind == CUARR_SORT_KIND_SIGNED)
    return width == 1   ? call(int8_t{})
           : width == 2 ? call(int16_t{})
           : width == 4 ? call(int32_t{})
                        : call(int64_t{});
  return width == 1   ? call(uint8_t{})
         : width == 2 ? call(uint16_t{})
         : width == 4 ? call(uint32_t{})
                      : call(uint64_t{});
}

template <typename K>
int temp_bytes_t(int64_t n, int64_t seg_len, int want_keys, int want_indices, size_t *bytes) {
  if (n <= 0 || seg_len <= 0) {
    *bytes = 0;
    return 0;
  }
  sorter<K> s{n, seg_len, n / seg_len, want_indices != 0};
  plan p;
  cudaError_t e = s.layout(!want_keys, p);
  *bytes = p.total;
  return (int)e;
}

template <typename K>
int run_t(int kind, const K *in, const int64_t *perm, K *keys_out, int64_t *indices_out, int64_t n,
          int64_t seg_len, char *temp, size_t temp_bytes, cudaStream_t stream) {
  if (n <= 0 || seg_len <= 0)
    return 0;
  if ((!keys_out && !indices_out) || (perm && (keys_out || !indices_out)) || n % seg_len != 0)
    return (int)cudaErrorInvalidValue;
  sorter<K> s{n, seg_len, n / seg_len, indices_out != nullptr};
  plan p;
  cudaError_t e = s.layout(keys_out == nullptr, p);
  if (e != cudaSuccess)
    return (int)e;
  if (temp_bytes < p.total)
    return (int)cudaErrorInvalidValue;
  K *keys_a = keys_out ? keys_out : (K *)(temp + p.keys_a);
  K *keys_b = (K *)(temp + p.keys_b);
  int64_t *vals_b = indices_out ? (int64_t *)(temp + p.vals_b) : nullptr;
  const int merge = keys_out == nullptr;
  encode_kernel<K>
      <<<grid_for(n), 256, 0, stream>>>(kind, merge, in, perm, keys_a, indices_out, n, seg_len);
  if ((e = cudaGetLastError()) != cudaSuccess)
    return (int)e;
  cub::DoubleBuffer<K> kb(keys_a, keys_b);
  cub::DoubleBuffer<int64_t> vb(indices_out, vals_b);
  size_t cub_bytes = p.cub_bytes;
  if ((e = s.cub_sort(temp + p.cub, cub_bytes, kb, vb, stream)) != cudaSuccess)
    return (int)e;
  if (keys_out) {
    decode_kernel<K><<<grid_for(n), 256, 0, stream>>>(kind, kb.Current(), keys_out, n);
    if ((e = cudaGetLastError()) != cudaSuccess)
      return (int)e;
  }
  if (indices_out && vb.Current() != indices_out)
    e = cudaMemcpyAsync(indices_out, vb.Current(), (size_t)n * sizeof(int64_t),
                        cudaMemcpyDeviceToDevice, stream);
  return (int)e;
}

template <typename K>
int searchsorted_t(int kind, const K *sorted, int64_t n, const int64_t *sorter, const K *values,
                   int64_t m, int right, int64_t *out, cudaStream_t stream) {
  if (m <= 0)
    return 0;
  searchsorted_kernel<K>
      <<<grid_for(m), 256, 0, stream>>>(kind, sorted, n, sorter, values, m, right, out);
  return (int)cudaGetLastError();
}

bool valid(int kind, int width) {
  if (kind == CUARR_SORT_KIND_FLOAT)
    return width == 2 || width == 4 || width == 8;
  return (kind == CUARR_SORT_KIND_UNSIGNED || kind == CUARR_SORT_KIND_SIGNED) &&
         (width == 1 || width == 2 || width == 4 || width == 8);
}

} // namespace

EXPORT int cuarr_sort_lib_version(void) { return CUARR_SORT_LIB_VERSION; }

EXPORT const char *cuarr_sort_lib_error_name(int code) {
  return cudaGetErrorName((cudaError_t)code);
}

#define BY_WIDTH(width, call)                                                                      \
  switch (width) {                                                                                 \
  case 1: return call(uint8_t);                                                                    \
  case 2: return call(uint16_t);                                                                   \
  case 4: return call(uint32_t);                                                                   \
  default: return call(uint64_t);                                                                  \
  }

EXPORT int cuarr_sort_lib_temp_bytes(int kind, int width, int64_t n, int64_t seg_len, int want_keys,
                                     int want_indices, size_t *bytes) {
  if (!valid(kind, width) || !bytes)
    return (int)cudaErrorInvalidValue;
  if (n > 0 && seg_len > 0 && direct_kind(kind, width) &&
      fused<uint8_t>::eligible(n, seg_len, want_keys != 0, want_indices != 0, false))
    return by_key_type(kind, width, [&](auto tag) {
      size_t cub_at, cub_bytes;
      return (int)fused<decltype(tag)>::layout(n, seg_len, cub_at, cub_bytes, *bytes);
    });
#define TEMP_(K) temp_bytes_t<K>(n, seg_len, want_keys, want_indices, bytes)
  BY_WIDTH(width, TEMP_)
#undef TEMP_
}

EXPORT int cuarr_sort_lib_run(int kind, int width, const void *keys_in, const int64_t *perm,
                              void *keys_out, int64_t *indices_out, int64_t n, int64_t seg_len,
                              void *temp, size_t temp_bytes, void *stream) {
  if (!valid(kind, width))
    return (int)cudaErrorInvalidValue;
  if (n > 0 && seg_len > 0 && n % seg_len == 0 && direct_kind(kind, width) &&
      fused<uint8_t>::eligible(n, seg_len, keys_out != nullptr, indices_out != nullptr,
                               perm != nullptr))
    return by_key_type(kind, width, [&](auto tag) {
      return fused<decltype(tag)>::run(keys_in, keys_out, n, seg_len, (char *)temp, temp_bytes,
                                       (cudaStream_t)stream);
    });
#define RUN_(K)                                                                                    \
  run_t<K>(kind, (const K *)keys_in, perm, (K *)keys_out, indices_out, n, seg_len, (char *)temp,   \
           temp_bytes, (cudaStream_t)stream)
  BY_WIDTH(width, RUN_)
#undef RUN_
}

EXPORT int cuarr_sort_lib_searchsorted(int kind, int width, const void *sorted, int64_t n,
                                       const int64_t *sorter, const void *values, int64_t m,
                                       int right, int64_t *out, void *stream) {
  if (!valid(kind, width))
    return (int)cudaErrorInvalidValue;
#define SEARCH_(K)                                                                                 \
  searchsorted_t<K>(kind, (const K *)sorted, n, sorter, (const K *)values, m, right, out,          \
                    (cudaStream_t)stream)
  BY_WIDTH(width, SEARCH_)
#undef SEARCH_
}
