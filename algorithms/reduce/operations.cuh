#pragma once
// The functors that make each reduction of the family out of prism::transform_reduce's machinery:
// what each element becomes (a transform), how two of those combine (reduction:: in
// <prism/reduce.cuh>), and what the combined value becomes at the end (a finalize).
#include <prism/reduce.cuh>
#include <prism/reduce.hpp>

#include <cuda/std/cmath>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace prism::operations {

using reduction::convert;

template <class Acc>
struct multiply {
  template <class X>
  __host__ __device__ Acc operator()(X a, X b) const {
    return reduction::multiplies<Acc>{}(static_cast<Acc>(a), static_cast<Acc>(b));
  }
};

struct magnitude {
  template <class X>
  __host__ __device__ X operator()(X x) const {
    return cuda::std::fabs(x);
  }
};

struct square {
  template <class X>
  __host__ __device__ X operator()(X x) const {
    return x * x;
  }
};

template <class T>
struct pair_with_itself {
  __host__ __device__ reduction::range<T> operator()(T x) const { return {x, x}; }
};

template <class T>
struct locate {
  __host__ __device__ reduction::located<T> operator()(std::int64_t i, T x) const { return {x, i}; }
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
  __host__ __device__ reduction::moments<R> operator()(X x) const {
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
  __host__ __device__ std::size_t operator()(const reduction::located<T>& v) const {
    return static_cast<std::size_t>(v.index);
  }
};

template <class T>
struct as_minmax_result {
  __host__ __device__ minmax_result<T> operator()(const reduction::range<T>& v) const {
    return {v.min, v.max};
  }
};

// Population variance, or its square root: stddev and variance share one reduction.
template <class R>
struct spread {
  bool root;
  __host__ __device__ R operator()(const reduction::moments<R>& m) const {
    const R v = m.m2 / m.count;
    return root ? cuda::std::sqrt(v) : v;
  }
};

// ---- the common call ----------------------------------------------------------------------------

inline void require_not_empty(std::size_t n, const char* algorithm) {
  if (n == 0) {
    throw std::invalid_argument(std::string("prism::") + algorithm +
                                ": the input is empty, and an empty input has no " + algorithm);
  }
}

// Checks the inputs, then reduces f(x...) with op into `result` (null: returned).
template <class R, class Acc, class F, class Op, class G, class... In>
R run(const char* algorithm, F f, Op op, Acc identity, G finalize, R* result, cudaStream_t stream,
      impl which, span<const In>... x) {
  const std::tuple inputs{x...};
  detail::require_inputs(inputs, which, algorithm);
  return detail::reduce_spans<R>(f, op, identity, finalize, result, inputs, stream, which, algorithm);
}

// f(x) as the generic layer calls it, f(i, x): the reductions of the family ignore the index.
using detail::with_index;

template <class R>
R* result_of(span<R> result, impl which, const char* algorithm) {
  detail::require_result(result, which, algorithm);
  return result.data();
}

}  // namespace prism::operations
