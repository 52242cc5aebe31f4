// SPDX-License-Identifier: Apache-2.0
#pragma once
// The functors that make each reduction of the family out of prism::transform_reduce's machinery:
// what each element becomes (a transform), how two of those combine (the shared operators of
// <prism/functors.cuh>), and what the combined value becomes at the end (a finalize).
//
// Thrust dispatches its reductions on both 32- and 64-bit offsets (two kernels per call) unless
// told to use one: 64-bit offsets work for every size and halve what Thrust compiles here. The
// macro comes before the first Thrust header (as in the scan family's operations.cuh).
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/functors.cuh>
#include <prism/reduce.cuh>
#include <prism/reduce.hpp>

#include <cuda/std/cmath>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace prism::functors {

// a * b in the accumulator's type: dot of int32 multiplies in 64 bits.
template <class Acc>
struct widened_product {
  template <class X>
  __host__ __device__ Acc operator()(X a, X b) const {
    return multiplies<Acc>{}(static_cast<Acc>(a), static_cast<Acc>(b));
  }
};

struct magnitude {
  template <class X>
  __host__ __device__ X operator()(X x) const {
    return cuda::std::fabs(x);
  }
};

template <class T>
struct pair_with_itself {
  __host__ __device__ range<T> operator()(T x) const { return {x, x}; }
};

template <class T>
struct locate {
  static constexpr bool pairs_with_index = true;  // detail::pairs_with_index
  __host__ __device__ located<T> operator()(std::int64_t i, T x) const { return {x, i}; }
};

template <class T>
struct satisfies {
  comparison compare;
  T value;
  __host__ __device__ std::uint64_t operator()(T x) const {
    switch (compare) {
      case comparison::equal: return x == value;
      case comparison::not_equal: return x != value;
      case comparison::less: return x < value;
      case comparison::less_equal: return x <= value;
      case comparison::greater: return x > value;
      case comparison::greater_equal: return x >= value;
    }
    return 0;
  }
};

template <class R>
struct one_moment {
  template <class X>
  __host__ __device__ moments<R> operator()(X x) const {
    return {R(1), static_cast<R>(x), R(0)};
  }
};

// ---- finalizers ---------------------------------------------------------------------------------

template <class R>
struct divide_by {
  R divisor;
  __host__ __device__ R operator()(R v) const { return v / divisor; }
};

struct square_root {
  template <class X>
  __host__ __device__ X operator()(X v) const {
    return cuda::std::sqrt(v);
  }
};

struct position {
  template <class T>
  __host__ __device__ std::size_t operator()(const located<T>& v) const {
    return static_cast<std::size_t>(v.index);
  }
};

template <class T>
struct as_minmax_result {
  __host__ __device__ minmax_result<T> operator()(const range<T>& v) const { return {v.min, v.max}; }
};

// Population variance, or its square root: stddev and variance share one reduction.
template <class R>
struct spread {
  bool root;
  __host__ __device__ R operator()(const moments<R>& m) const {
    const R v = m.m2 / m.count;
    return root ? cuda::std::sqrt(v) : v;
  }
};

}  // namespace prism::functors

namespace prism::detail {

inline void require_not_empty(std::size_t n, const char* algorithm) {
  if (n == 0) {
    throw std::invalid_argument(std::string("prism::") + algorithm +
                                ": the input is empty, and an empty input has no " + algorithm);
  }
}

// Checks the call, then reduces f(x...) with op into `into` (null: returned). The reductions of
// the family ignore the element's index, except argmin and argmax (whose f takes it).
template <class R, class Acc, class F, class Op, class G, class... In>
R run(const char* algorithm, const execution_policy& policy, F f, Op op, Acc identity, G finalize,
      span<R>* into, span<const In>... x) {
  return reduce_spans<R>(algorithm, reduce_family, policy, f, op, identity, finalize, into,
                         std::tuple{x...});
}

}  // namespace prism::detail
