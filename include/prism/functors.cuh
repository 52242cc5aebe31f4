// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::functors: the functors every family is made of, in one namespace. This header holds the
// ones the families share, defined once so that prism::add and prism::sum agree on what an int32
// overflow gives and prism::min and prism::argmin on what NaN does, in every implementation; each
// family's own (exp, sigmoid, a comparison for count_if, ...) sit beside its kernels under
// algorithms/<family>/operations.cuh. All of them run unchanged on the host (impl::cpu) and the GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

namespace prism::functors {

// ---- arithmetic in the type that can do it ------------------------------------------------------

// Signed overflow is undefined in C++, so integers compute as unsigned and convert back: the
// two's-complement wrap-around that every implementation (the CPU one included) then agrees on.
template <class T>
using wrapping_t = std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>,
                                      std::type_identity<T>>::type;

// __half and __nv_bfloat16 are widened to float, computed, and rounded back once.
template <class T>
using compute_t =
    std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;

template <class T>
__host__ __device__ compute_t<T> widen(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

template <class T>
__host__ __device__ T narrow(compute_t<T> x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}

// Only NaN is unequal to itself; false for every integer.
template <class T>
__host__ __device__ constexpr bool is_nan(T x) {
  return x != x;
}

// a + b, a * b, x * x: integers wrap around, the 16-bit floats compute in float.
template <class T>
struct plus {
  __host__ __device__ T operator()(T a, T b) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(static_cast<W>(widen(a)) + static_cast<W>(widen(b))));
  }
};

template <class T>
struct multiplies {
  __host__ __device__ T operator()(T a, T b) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(static_cast<W>(widen(a)) * static_cast<W>(widen(b))));
  }
};

template <class T>
struct square {
  __host__ __device__ T operator()(T x) const { return multiplies<T>{}(x, x); }
};

// ---- the reduction operators --------------------------------------------------------------------

// x as T: the transform of a plain reduction (sum, min, max). Where it changes nothing (T is the
// element type), Thrust and CUB get their plain reduce on the raw pointer, which they vectorize.
template <class T>
struct cast_to {
  template <class X>
  __host__ __device__ T operator()(X x) const {
    return static_cast<T>(x);
  }
};

// The smaller (or, with largest, the larger) of two values; a NaN wins over any number, so a NaN
// anywhere in the input is the result, whatever the order of combination; of equal values, a.
// One comparison and a select, no branch: a comparison with a NaN b is false, so b is taken
// exactly when a is a number that does not beat it (the tests and branches this replaces took
// about eight instructions a combine: docs/benchmarks/reduce_arg.md).
template <class T>
struct extremum {
  bool largest;
  __host__ __device__ T operator()(T a, T b) const {
    const bool keep_a = is_nan(a) || (largest ? a >= b : b >= a);
    return keep_a ? a : b;
  }
  __host__ __device__ T identity() const {
    using limits = cuda::std::numeric_limits<T>;
    if constexpr (limits::has_infinity) {
      return largest ? -limits::infinity() : limits::infinity();
    } else {
      return largest ? limits::lowest() : limits::max();
    }
  }
};

template <class T>
struct range {
  T min, max;
};

// min and max in one pass; NaN propagates into both.
template <class T>
struct min_and_max {
  __host__ __device__ range<T> operator()(range<T> a, range<T> b) const {
    return {extremum<T>{false}(a.min, b.min), extremum<T>{true}(a.max, b.max)};
  }
  __host__ __device__ range<T> identity() const {
    return {extremum<T>{false}.identity(), extremum<T>{true}.identity()};
  }
};

// (value, index). A value narrower than the index gets a spare field, always written, where the
// compiler would leave padding: a result copied back whole holds no uninitialized byte.
template <class T, bool narrow = (sizeof(T) < sizeof(std::int64_t))>
struct located {
  T value;
  std::int64_t index;
  located() = default;
  __host__ __device__ located(T v, std::int64_t i) : value(v), index(i) {}
};
template <class T>
struct located<T, true> {
  T value;
  unsigned char spare[sizeof(std::int64_t) - sizeof(T)];
  std::int64_t index;
  located() = default;
  __host__ __device__ located(T v, std::int64_t i) : value(v), spare{}, index(i) {}
};

// The position of the smallest (largest) value; of equal values the first; a NaN beats any
// number, so the result is the first NaN if there is one (as numpy and torch do). A total order on
// (value, index), so the result does not depend on the order of combination.
template <class T>
struct arg_extremum {
  bool largest;
  __host__ __device__ located<T> operator()(located<T> a, located<T> b) const {
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (largest ? a.value < b.value : b.value < a.value) ? b : a;
  }
  __host__ __device__ located<T> identity() const {
    return {extremum<T>{largest}.identity(), cuda::std::numeric_limits<std::int64_t>::max()};
  }
  // The same where every index of a is below every index of b (a thread's own elements, taken in
  // order): ties keep a, so no index is compared. The raw reduction's per-thread loop uses it.
  __host__ __device__ located<T> ordered(located<T> a, located<T> b) const {
    // b wins where a is a number and b is a NaN or beyond a: one select, no branch.
    const bool b_wins = !is_nan(a.value) && !(largest ? b.value <= a.value : a.value <= b.value);
    return b_wins ? b : a;
  }
};

// Count, mean and the sum of squared deviations from the mean of a part of the input. The count
// is kept in R: the combine needs it as R anyway, and a 64-bit integer conversion per element
// would cost more than the loads (for float, counts past 2^24 round, by under one part in 2^24).
template <class R>
struct moments {
  R count;
  R mean;
  R m2;
};

// Chan, Golub and LeVeque's pairwise combine of two parts' moments: exact in exact arithmetic,
// and without the cancellation of sum(x^2) - sum(x)^2/n.
template <class R>
struct combine_moments {
  __host__ __device__ moments<R> operator()(const moments<R>& a, const moments<R>& b) const {
    if (b.count == 0) return a;
    if (a.count == 0) return b;
    const R count = a.count + b.count;
    const R delta = b.mean - a.mean;
    // b's share of the whole; exactly 1/2 for parts of equal size (the raw kernel's tree), where
    // saying so spares the compiler a division it may not fold.
    const R share_b = a.count == b.count ? R(0.5) : b.count / count;
    return {count, a.mean + delta * share_b, a.m2 + b.m2 + delta * delta * a.count * share_b};
  }
};

// What the result is made of after the reduction (applied once, on the device or the host).
struct no_finalize {
  template <class V>
  __host__ __device__ V operator()(const V& v) const {
    return v;
  }
};

// a == b: what the compiled selections compare with (IEEE for floating point: -0.0 == +0.0, a NaN
// equals nothing). CUB's Unique, Encode and ReduceByKey compare with == themselves: the cub
// implementation calls them where the equality is this one.
template <class T>
struct equal_to {
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a == b; }
};

// A flag that is not zero.
template <class T>
struct nonzero {
  __host__ __device__ bool operator()(const T& flag) const { return flag != T(0); }
};

}  // namespace prism::functors
