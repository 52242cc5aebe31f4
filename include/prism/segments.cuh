// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the segmented family (<prism/segmented.cuh>) works on: the segments (by offsets or by a
// fixed size; clamped into the array, so that broken offsets read nothing outside it) and the
// reductions over one segment (sum, min, max, argmin, argmax), each a load, an associative
// combine, an identity and a finish, which every implementation of the family shares.
#include <prism/functors.cuh>
#include <prism/segmented.hpp>

#include <cuda/std/bit>
#include <cuda/std/limits>

#include <cstdint>
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

}  // namespace detail
}  // namespace prism
