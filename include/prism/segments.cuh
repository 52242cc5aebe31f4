// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the segmented family (<prism/segmented.cuh>) works on: the segments (by offsets or by a
// fixed size; clamped into the array, so that broken offsets read nothing outside it) and the
// reductions over one segment (sum, min, max, argmin, argmax), each a load, an associative
// combine, an identity and a finish, which every implementation of the family shares; and the
// kernels that give each segment one thread (raw_naive's, and raw's for short rows). Also
// segment_bounds: the segments with the offsets' width told at run time, which the segmented sort
// and top_k_segments read.
#include <prism/functors.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/segmented.hpp>
#include <prism/segmented_sort.hpp>  // segment_list
#include <prism/span.hpp>

#include <cuda/std/bit>
#include <cuda/std/limits>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {
namespace detail {

// ---- the segments ---------------------------------------------------------------------------------

// Segment s is [begin(s), end(s)), clamped into [0, n] whatever the offsets hold. segment_of(i) is
// the segment element i is in, for offsets that are right (-1 or count for an element in none);
// for broken ones some value in [-1, count], never decreasing in i.
template <class I>
struct offset_segments {
  const I* offsets;
  std::int64_t count, n;

  __host__ __device__ std::int64_t clamped(std::int64_t k, std::int64_t lo) const {
    const std::int64_t v = static_cast<std::int64_t>(offsets[k]);
    return v < lo ? lo : v > n ? n : v;
  }
  __host__ __device__ std::int64_t begin(std::int64_t s) const { return clamped(s, 0); }
  __host__ __device__ std::int64_t end(std::int64_t s) const { return clamped(s + 1, begin(s)); }
  // The number of offsets not after i, less one: an upper bound over offsets[0 .. count]. A
  // binary search is monotone in its query even over an unsorted array, so broken offsets still
  // give non-decreasing segments (what keeps thrust's scan inside its outputs).
  __host__ __device__ std::int64_t segment_of(std::int64_t i) const {
    std::int64_t lo = 0, len = count + 1;
    while (len > 0) {
      const std::int64_t half = len / 2;
      if (static_cast<std::int64_t>(offsets[lo + half]) <= i) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    return lo - 1;
  }
  // The first segment in [lo, hi] that ends after element j (hi if none before it does): a binary
  // search over the ends offsets[lo + 1 .. hi].
  __host__ __device__ std::int64_t locate(std::int64_t j, std::int64_t lo, std::int64_t hi) const {
    std::int64_t len = hi - lo;
    while (len > 0) {
      const std::int64_t half = len / 2;
      if (static_cast<std::int64_t>(offsets[lo + half + 1]) <= j) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    return lo;
  }
};

struct fixed_size_segments {
  std::int64_t size, count;
  __host__ __device__ std::int64_t begin(std::int64_t s) const { return s * size; }
  __host__ __device__ std::int64_t end(std::int64_t s) const { return s * size + size; }
  __host__ __device__ std::int64_t segment_of(std::int64_t i) const { return size == 0 ? count : i / size; }
  __host__ __device__ std::int64_t locate(std::int64_t j, std::int64_t, std::int64_t) const { return segment_of(j); }
};

// The segments with the offsets' width told at run time, as the segmented sort and top_k_segments
// read them (one instantiation for both offset types): offset s of the S + 1 (the offsets'
// element, or s * size), clamped into [0, n]; a segment that would end before it starts is empty.
// So broken offsets on the GPU never reach outside the arrays.
struct segment_bounds {
  const void* offsets;
  unsigned width;  // 4 or 8; 0: fixed size
  std::int64_t fixed_size;
  std::int64_t segments;
  std::int64_t n;

  __host__ __device__ std::int64_t offset(std::int64_t s) const {
    const std::int64_t o = width == 4   ? std::int64_t{static_cast<const std::int32_t*>(offsets)[s]}
                           : width == 8 ? static_cast<const std::int64_t*>(offsets)[s]
                                        : s * fixed_size;
    return o < 0 ? 0 : (o > n ? n : o);
  }
  __host__ __device__ std::int64_t begin(std::int64_t s) const { return offset(s); }
  __host__ __device__ std::int64_t end(std::int64_t s) const {
    const std::int64_t b = offset(s), e = offset(s + 1);
    return e < b ? b : e;
  }
  // Which part of the array position p is in, in the order of the parts: 0 before the first
  // segment, 1 + s in segment s, S + 1 past the last (the number of offsets at or before p).
  __host__ __device__ std::int64_t part(std::int64_t p) const {
    if (width == 0) return p / fixed_size + 1;
    std::int64_t lo = 0, hi = segments + 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (offset(mid) <= p) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  // Whether output position i is in a segment (written).
  __host__ __device__ bool covers(std::int64_t i) const { return i >= offset(0) && i < offset(segments); }
};

// The checks every call makes on the host (sizes only: the offsets' values live where the elements
// do), and the segments' count.
inline segment_bounds segment_bounds_of(const char* algorithm, segment_list list, std::size_t n) {
  const auto count = static_cast<std::int64_t>(n);
  if (list.offset_bytes == 0) {
    if (list.fixed_size == 0 ? n != 0 : n % list.fixed_size != 0) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                  " elements are not a whole number of segments of " + std::to_string(list.fixed_size));
    }
    const auto size = static_cast<std::int64_t>(list.fixed_size);
    return {nullptr, 0, size, size == 0 ? 0 : count / size, count};
  }
  if (list.offsets_count == 0) {
    throw std::invalid_argument(std::string("prism::") + algorithm +
                                ": the offsets have one element more than there are segments: at least one");
  }
  return {list.offsets, list.offset_bytes, 0, static_cast<std::int64_t>(list.offsets_count) - 1, count};
}

// impl::cpu's check of the offsets themselves (host memory): non-decreasing, within [0, n].
inline void check_segment_offsets(const char* algorithm, const segment_bounds& seg) {
  if (seg.width == 0) return;
  const auto count = static_cast<std::size_t>(seg.segments) + 1;
  const auto n = static_cast<std::size_t>(seg.n);
  if (seg.width == 4) {
    detail::check_offsets(algorithm, span<const std::int32_t>(static_cast<const std::int32_t*>(seg.offsets), count), n);
  } else {
    detail::check_offsets(algorithm, span<const std::int64_t>(static_cast<const std::int64_t*>(seg.offsets), count), n);
  }
}

template <class Segments>
struct begin_of {
  Segments segments;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return segments.begin(s); }
};
template <class Segments>
struct end_of {
  Segments segments;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return segments.end(s); }
};

// ---- the reductions ---------------------------------------------------------------------------------
// A reduction is load(x, i) -> A, combine(A, A) -> A (associative and commutative: CUB and the
// trees regroup and reorder), identity() (combine(identity, a) == a), and finish(A) -> R; an empty
// segment gets finish(identity()).

template <class T>
struct sum_reduction {
  using value_type = T;
  using accumulator = sum_type<T>;
  using result = sum_type<T>;
  __host__ __device__ accumulator load(T x, std::int64_t) const { return static_cast<accumulator>(x); }
  __host__ __device__ accumulator combine(accumulator a, accumulator b) const { return functors::plus<accumulator>{}(a, b); }
  __host__ __device__ accumulator identity() const { return accumulator{}; }
  __host__ __device__ result finish(accumulator a) const { return a; }
};

// min or max with one answer whatever the order of combination (prism::min's extremum keeps its
// first argument of two equal ones): of two NaNs the one with the smaller bits, of -0.0 and +0.0
// the negative for min and the positive for max. So every implementation writes the same bits.
template <class T>
struct order_free_extremum {
  bool largest;
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      const bool a_nan = functors::is_nan(a), b_nan = functors::is_nan(b);
      if (a_nan || b_nan) {
        if (a_nan && b_nan) return cuda::std::bit_cast<U>(a) <= cuda::std::bit_cast<U>(b) ? a : b;
        return a_nan ? a : b;
      }
      if (a == b) {
        const bool a_negative = (cuda::std::bit_cast<U>(a) >> (sizeof(U) * 8 - 1)) != 0;
        return a_negative != largest ? a : b;
      }
    }
    return (largest ? a < b : b < a) ? b : a;
  }
};

template <class T>
struct extremum_reduction {
  using value_type = T;
  using accumulator = T;
  using result = T;
  bool largest;
  __host__ __device__ T load(T x, std::int64_t) const { return x; }
  __host__ __device__ T combine(T a, T b) const { return order_free_extremum<T>{largest}(a, b); }
  __host__ __device__ T identity() const { return functors::extremum<T>{largest}.identity(); }
  __host__ __device__ T finish(T a) const { return a; }
};

// (value, position): functors::arg_extremum, prism::argmin's (the first NaN, the lowest position
// of equal values), whose identity has a position no element has: it finishes as -1.
template <class T, class I>
struct arg_reduction {
  using value_type = T;
  using accumulator = functors::located<T>;
  using result = I;
  bool largest;
  __host__ __device__ accumulator load(T x, std::int64_t i) const { return {x, i}; }
  __host__ __device__ accumulator combine(accumulator a, accumulator b) const {
    return functors::arg_extremum<T>{largest}(a, b);
  }
  __host__ __device__ accumulator identity() const { return functors::arg_extremum<T>{largest}.identity(); }
  __host__ __device__ I finish(accumulator a) const {
    return a.index == cuda::std::numeric_limits<std::int64_t>::max() ? I(-1) : static_cast<I>(a.index);
  }
};

template <class Reduction>
struct combine_of {
  Reduction r;
  template <class A>
  __host__ __device__ A operator()(const A& a, const A& b) const {
    return r.combine(a, b);
  }
};

// ---- raw_naive: one thread per segment ------------------------------------------------------------

template <class Reduction, class Segments>
__global__ void segmented_reduce_naive_kernel(const typename Reduction::value_type* x,
                                              typename Reduction::result* out, Segments segments, Reduction r) {
  const std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (s >= segments.count) return;
  auto acc = r.identity();
  for (std::int64_t i = segments.begin(s), e = segments.end(s); i < e; ++i) acc = r.combine(acc, r.load(x[i], i));
  out[s] = r.finish(acc);
}

template <class T, class Segments>
__global__ void segmented_scan_naive_kernel(const T* x, T* out, Segments segments, bool exclusive) {
  const std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (s >= segments.count) return;
  T sum{};
  for (std::int64_t i = segments.begin(s), e = segments.end(s); i < e; ++i) {
    const T v = x[i];  // read before the write: in place works
    const T next = functors::plus<T>{}(sum, v);
    out[i] = exclusive ? sum : next;
    sum = next;
  }
}

// ---- raw's short rows: one thread per row, staged through shared memory ---------------------------

// Rows of a fixed size up to this many elements are a thread's each (run_segmented_tiles).
inline constexpr std::int64_t short_row = 32;
template <class T>
inline constexpr std::int64_t rows_per_block = sizeof(T) <= 4 ? 256 : 128;

// raw_naive's thread per row reads a warp's 32 rows' k-th elements at once, 32 places a row apart.
// Here the block first loads its rows' elements with coalesced reads (a warp's load is 32
// neighbouring elements; 8 loads of a thread in flight before any is stored), then each thread
// folds its row from shared memory in order, k = 0, 1, ... as raw_naive does (the same bits). The
// rows sit there at an odd stride (width | 1), so that a warp's 32 rows fall in 32 banks.
// block_size threads; 4- and 8-byte elements; rows.size in [1, short_row].
template <class Reduction>
__global__ void __launch_bounds__(block_size)
    segmented_rows_kernel(const typename Reduction::value_type* x, typename Reduction::result* out,
                          fixed_size_segments rows, Reduction r) {
  using T = typename Reduction::value_type;
  constexpr int threads = block_size, in_flight = 8, most = static_cast<int>(rows_per_block<T>);
  __shared__ alignas(16) unsigned char bytes[most * (short_row + 1) * sizeof(T)];
  T* s = reinterpret_cast<T*>(bytes);
  const int w = static_cast<int>(rows.size), stride = w | 1;
  const std::int64_t row0 = blockIdx.x * std::int64_t{most};
  const int count = static_cast<int>(rows.count - row0 < most ? rows.count - row0 : most);
  const int elements = count * w;
  const T* from = x + row0 * w;
  // Element e of the block goes to row e / w, place e % w; e steps by `threads`.
  const int row_step = threads / w, place_step = threads % w;
  int row = threadIdx.x / w, place = threadIdx.x % w;
  for (int first = threadIdx.x; first < elements; first += in_flight * threads) {
    T v[in_flight];
#pragma unroll
    for (int j = 0; j < in_flight; ++j)
      if (first + j * threads < elements) v[j] = from[first + j * threads];
#pragma unroll
    for (int j = 0; j < in_flight; ++j) {
      if (first + j * threads < elements) s[row * stride + place] = v[j];
      row += row_step;
      place += place_step;
      if (place >= w) place -= w, ++row;
    }
  }
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < count) {
    const std::int64_t begin = (row0 + threadIdx.x) * w;
    auto acc = r.identity();
    for (int k = 0; k < w; ++k) acc = r.combine(acc, r.load(s[threadIdx.x * stride + k], begin + k));
    out[row0 + threadIdx.x] = r.finish(acc);
  }
}

}  // namespace detail
}  // namespace prism
