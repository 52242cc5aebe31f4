// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-wise family: every operation is one functor, and prism::transform runs it in every
// implementation (include/prism/transform.cuh has them side by side, with why each is as fast as
// it is). Vector add is the pattern:
//
//   detail::transform_spans("add", policy, functors::plus<T>{}, out, std::tuple{a, b});
//
// The functors below (and the shared ones of <prism/functors.cuh>) run unchanged on the host
// (impl::cpu) and on the GPU, so every implementation computes the same thing; the semantics they
// implement are stated in include/prism/elementwise.hpp. The entry points at the bottom (one per
// shape of operation) pick the functor at run time; each .cu file beside this one compiles them
// for one or two element types, so that the build spreads over several translation units; the
// operations that only move bytes (copy, fill, where) are compiled once per element size instead
// (moves.cu), and the typed entry points hand them their arrays as unsigned integers of that size.
//
// Thrust picks 64-bit offsets for every size with this macro (before the first Thrust header), as
// CUB's DeviceTransform always does: where a Thrust algorithm would otherwise dispatch on both
// widths, it compiles one kernel, not two (see algorithms/scan/operations.cuh).
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/adjacent_difference.cuh>
#include <prism/elementwise.hpp>
#include <prism/functors.cuh>
#include <prism/transform.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cuda/std/limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::functors {

// a * b rounded on its own. nvcc contracts `a * b + c` into one fused multiply-add (one rounding)
// while the host's compiler, in standard mode, rounds twice: axpby and sequence would differ in
// the last bit between the GPU and the cpu for about a quarter of the elements. CUDA never fuses
// its _rn intrinsics, so every implementation rounds the product, then the sum.
template <class W>
__host__ __device__ W rounded_product(W a, W b) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<W, float>) return __fmul_rn(a, b);
  if constexpr (std::is_same_v<W, double>) return __dmul_rn(a, b);
#endif
  return a * b;
}

// ---- binary ---------------------------------------------------------------------------------

template <class T>
struct minus {
  __host__ __device__ T operator()(T a, T b) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(static_cast<W>(widen(a)) - static_cast<W>(widen(b))));
  }
};

// Integer division traps on x86 for x / 0 and INT_MIN / -1, and is undefined in C++: both are
// answered before dividing (0, and the wrapped quotient INT_MIN).
template <class T>
struct divides {
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return static_cast<T>(wrapping_t<T>(0) - static_cast<wrapping_t<T>>(a));
      }
      return a / b;
    } else {
      return narrow<T>(widen(a) / widen(b));
    }
  }
};

// NaN wins (IEEE 754-2019 minimum); a + b is that NaN.
template <class T>
struct minimum {
  __host__ __device__ T operator()(T a, T b) const {
    const auto x = widen(a), y = widen(b);
    if (is_nan(x) || is_nan(y)) return narrow<T>(x + y);
    return y < x ? b : a;
  }
};

template <class T>
struct maximum {
  __host__ __device__ T operator()(T a, T b) const {
    const auto x = widen(a), y = widen(b);
    if (is_nan(x) || is_nan(y)) return narrow<T>(x + y);
    return x < y ? b : a;
  }
};

// alpha * x + beta * y, each product and the sum rounded; axpy is beta = 1 (exact: 1 * y is y).
template <class T>
struct linear_combination {
  compute_t<T> alpha, beta;
  __host__ __device__ T operator()(T x, T y) const {
    using W = wrapping_t<compute_t<T>>;
    const W ax = rounded_product(static_cast<W>(alpha), static_cast<W>(widen(x)));
    const W by = rounded_product(static_cast<W>(beta), static_cast<W>(widen(y)));
    return narrow<T>(static_cast<compute_t<T>>(ax + by));
  }
};

// a * b + c with one rounding for floating point (fma on both host and device).
template <class T>
struct fused_multiply_add {
  __host__ __device__ T operator()(T a, T b, T c) const {
    if constexpr (std::is_integral_v<T>) {
      return plus<T>{}(multiplies<T>{}(a, b), c);
    } else if constexpr (std::is_same_v<compute_t<T>, float>) {
      return narrow<T>(::fmaf(widen(a), widen(b), widen(c)));
    } else {
      return ::fma(a, b, c);
    }
  }
};

template <class T>
struct select {
  __host__ __device__ T operator()(std::uint8_t condition, T a, T b) const {
    return condition != 0 ? a : b;
  }
};

// ---- unary ----------------------------------------------------------------------------------

// The floating-point functions in float or double. On the GPU these are CUDA's math functions;
// rsqrt has no host counterpart and is 1 / sqrt there.
struct math {
  __host__ __device__ static float abs(float x) { return ::fabsf(x); }
  __host__ __device__ static double abs(double x) { return ::fabs(x); }
  __host__ __device__ static float sqrt(float x) { return ::sqrtf(x); }
  __host__ __device__ static double sqrt(double x) { return ::sqrt(x); }
  __host__ __device__ static float rsqrt(float x) {
#ifdef __CUDA_ARCH__
    return ::rsqrtf(x);
#else
    return 1.0f / ::sqrtf(x);
#endif
  }
  __host__ __device__ static double rsqrt(double x) {
#ifdef __CUDA_ARCH__
    return ::rsqrt(x);
#else
    return 1.0 / ::sqrt(x);
#endif
  }
  __host__ __device__ static float exp(float x) { return ::expf(x); }
  __host__ __device__ static double exp(double x) { return ::exp(x); }
  __host__ __device__ static float log(float x) { return ::logf(x); }
  __host__ __device__ static double log(double x) { return ::log(x); }
  __host__ __device__ static float sin(float x) { return ::sinf(x); }
  __host__ __device__ static double sin(double x) { return ::sin(x); }
  __host__ __device__ static float cos(float x) { return ::cosf(x); }
  __host__ __device__ static double cos(double x) { return ::cos(x); }
  __host__ __device__ static float tanh(float x) { return ::tanhf(x); }
  __host__ __device__ static double tanh(double x) { return ::tanh(x); }
};

template <class T>
struct negate {
  __host__ __device__ T operator()(T x) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(W(0) - static_cast<W>(widen(x))));
  }
};

// Floating point: -x flips the sign bit, so negate(0) = -0; integers wrap through 0 - x.
template <floating_point_element T>
struct negate<T> {
  __host__ __device__ T operator()(T x) const { return narrow<T>(-widen(x)); }
};

template <class T>
struct absolute {
  __host__ __device__ T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return x < 0 ? negate<T>{}(x) : x;
    } else {
      return narrow<T>(math::abs(widen(x)));
    }
  }
};

// The math functions, one functor each, all of the same shape.
template <class T, unary_op Op>
struct elementary_function {
  __host__ __device__ T operator()(T x) const {
    const compute_t<T> v = widen(x);
    if constexpr (Op == unary_op::sqrt) {
      return narrow<T>(math::sqrt(v));
    } else if constexpr (Op == unary_op::rsqrt) {
      return narrow<T>(math::rsqrt(v));
    } else if constexpr (Op == unary_op::exp) {
      return narrow<T>(math::exp(v));
    } else if constexpr (Op == unary_op::log) {
      return narrow<T>(math::log(v));
    } else if constexpr (Op == unary_op::sin) {
      return narrow<T>(math::sin(v));
    } else if constexpr (Op == unary_op::cos) {
      return narrow<T>(math::cos(v));
    } else if constexpr (Op == unary_op::tanh) {
      return narrow<T>(math::tanh(v));
    } else {
      static_assert(Op == unary_op::sigmoid);
      return narrow<T>(compute_t<T>(1) / (compute_t<T>(1) + math::exp(-v)));
    }
  }
};

// x < 0 ? 0 : x lets NaN through, where x > 0 ? x : 0 would turn it into 0.
template <class T>
struct rectifier {
  __host__ __device__ T operator()(T x) const { return widen(x) < 0 ? narrow<T>(0) : x; }
};

template <class T>
struct scaled {
  compute_t<T> alpha;
  __host__ __device__ T operator()(T x) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(static_cast<W>(alpha) * static_cast<W>(widen(x))));
  }
};

// Comparisons with NaN are false, so NaN passes through.
template <class T>
struct clamped {
  compute_t<T> lo, hi;
  __host__ __device__ T operator()(T x) const {
    const compute_t<T> v = widen(x);
    if (v < lo) return narrow<T>(lo);
    if (hi < v) return narrow<T>(hi);
    return x;
  }
};

template <class T>
struct identity {
  __host__ __device__ T operator()(T x) const { return x; }
};

// ---- conversion -----------------------------------------------------------------------------

// From any compiled type to any other (castable): through float for the 16-bit types, with the
// float-to-integer conversion made total (truncate, saturate, NaN -> 0) as the GPU does it.
template <class To, class From>
__host__ __device__ To convert_to(From x) {
  if constexpr (half_precision_element<From>) {
    return convert_to<To>(widen(x));
  } else if constexpr (std::is_same_v<To, __half>) {
    if constexpr (std::is_same_v<From, double>) return __double2half(x);
    else return __float2half_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    if constexpr (std::is_same_v<From, double>) return __double2bfloat16(x);
    else return __float2bfloat16_rn(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // The integer's limits in From: min is 0 or -2^k (exact); max is exact in double for 32-bit
    // integers and rounds up to 2^k otherwise, and either way x >= high saturates correctly.
    constexpr From low = static_cast<From>(cuda::std::numeric_limits<To>::min());
    constexpr From high = static_cast<From>(cuda::std::numeric_limits<To>::max());
    if (is_nan(x)) return 0;
    if (x <= low) return cuda::std::numeric_limits<To>::min();
    if (x >= high) return cuda::std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

template <class From, class To>
struct converter {
  __host__ __device__ To operator()(From x) const { return convert_to<To>(x); }
};

// ---- generators: functions of the index -----------------------------------------------------

template <class T>
struct constant {
  T value;
  __host__ __device__ T operator()(std::int64_t) const { return value; }
};

template <class T>
struct arithmetic_progression {
  compute_t<T> start, step;
  __host__ __device__ T operator()(std::int64_t i) const {
    using W = wrapping_t<compute_t<T>>;
    return narrow<T>(static_cast<compute_t<T>>(static_cast<W>(start) +
                                               rounded_product(static_cast<W>(i), static_cast<W>(step))));
  }
};

}  // namespace prism::functors

namespace prism::detail {

inline const char* name_of(binary_op op) {
  constexpr const char* names[] = {"add", "sub", "mul", "div", "min", "max"};
  return names[static_cast<int>(op)];
}

inline const char* name_of(unary_op op) {
  constexpr const char* names[] = {"negate", "abs",  "square",  "sqrt", "rsqrt",
                                   "exp",    "log",  "sin",     "cos",  "tanh",
                                   "sigmoid", "relu", "scale",  "clamp", "copy"};
  return names[static_cast<int>(op)];
}

[[noreturn]] inline void not_offered(const char* algorithm, const char* type) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": not offered for " + type);
}

// ---- the operations that only move bytes, compiled per element size ---------------------------

// copy, fill and where never look at a value, only carry it: a float and an int32 are the same
// four bytes to them. So each is compiled once per element size, on the unsigned integer of that
// size, and every type of the size runs that one instantiation (one set of kernels for float,
// int32 and uint32, not three). Bit for bit: NaN payloads and -0.0 arrive unchanged.
// B: the unsigned integer of its own size (bits_of_size, <prism/elementwise.hpp>, which gather
// and scatter share).
template <class T>
concept moved_element = std::is_same_v<T, bits_of_size<sizeof(T)>>;

template <moved_element B>
struct moves {
  static void copy(const execution_policy& policy, span<const B> x, span<B> out);
  static void fill(const execution_policy& policy, span<B> out, B value);
  static void where(const execution_policy& policy, span<const std::uint8_t> condition,
                    span<const B> a, span<const B> b, span<B> out);
};

template <moved_element B>
void moves<B>::copy(const execution_policy& policy, span<const B> x, span<B> out) {
  transform_spans("copy", policy, functors::identity<B>{}, out, std::tuple{x});
}

template <moved_element B>
void moves<B>::fill(const execution_policy& policy, span<B> out, B value) {
  transform_spans("fill", policy, functors::constant<B>{value}, out, std::tuple<>{});
}

template <moved_element B>
void moves<B>::where(const execution_policy& policy, span<const std::uint8_t> condition,
                     span<const B> a, span<const B> b, span<B> out) {
  transform_spans("where", policy, functors::select<B>{}, out, std::tuple{condition, a, b});
}

// Compiled in moves.cu only; the typed files call these, they do not instantiate them again.
extern template struct moves<std::uint16_t>;
extern template struct moves<std::uint32_t>;
extern template struct moves<std::uint64_t>;

template <arithmetic_element T>
void elementwise<T>::binary(const execution_policy& policy, binary_op op, span<const T> a,
                            span<const T> b, span<T> out) {
  const auto run = [&](auto f) { transform_spans(name_of(op), policy, f, out, std::tuple{a, b}); };
  switch (op) {
    case binary_op::add: return run(functors::plus<T>{});
    case binary_op::sub: return run(functors::minus<T>{});
    case binary_op::mul: return run(functors::multiplies<T>{});
    case binary_op::div: return run(functors::divides<T>{});
    case binary_op::min: return run(functors::minimum<T>{});
    case binary_op::max: return run(functors::maximum<T>{});
  }
  not_offered(name_of(op), "this type");
}

// The public templates offer each operation only for the types it makes sense for (concepts in
// elementwise.hpp); the rest are not even compiled here.
template <arithmetic_element T>
void elementwise<T>::unary(const execution_policy& policy, unary_op op, span<const T> x,
                           span<T> out, scalar<T> p, scalar<T> q) {
  const auto run = [&](auto f) { transform_spans(name_of(op), policy, f, out, std::tuple{x}); };
  if constexpr (signed_element<T>) {
    switch (op) {
      case unary_op::negate: return run(functors::negate<T>{});
      case unary_op::abs: return run(functors::absolute<T>{});
      case unary_op::relu: return run(functors::rectifier<T>{});
      default: break;
    }
  }
  if constexpr (floating_point_element<T>) {
    switch (op) {
      case unary_op::sqrt: return run(functors::elementary_function<T, unary_op::sqrt>{});
      case unary_op::rsqrt: return run(functors::elementary_function<T, unary_op::rsqrt>{});
      case unary_op::exp: return run(functors::elementary_function<T, unary_op::exp>{});
      case unary_op::log: return run(functors::elementary_function<T, unary_op::log>{});
      case unary_op::sin: return run(functors::elementary_function<T, unary_op::sin>{});
      case unary_op::cos: return run(functors::elementary_function<T, unary_op::cos>{});
      case unary_op::tanh: return run(functors::elementary_function<T, unary_op::tanh>{});
      case unary_op::sigmoid: return run(functors::elementary_function<T, unary_op::sigmoid>{});
      default: break;
    }
  }
  switch (op) {
    case unary_op::square: return run(functors::square<T>{});
    case unary_op::scale: return run(functors::scaled<T>{p});
    case unary_op::clamp:
      if (q < p) throw std::invalid_argument("prism::clamp: lo is greater than hi");
      return run(functors::clamped<T>{p, q});
    case unary_op::copy: return moves<bits_of_size<sizeof(T)>>::copy(policy, as_bits(x), as_bits(out));
    default: not_offered(name_of(op), "this type");
  }
}

template <arithmetic_element T>
void elementwise<T>::axpby(const execution_policy& policy, const char* algorithm, scalar<T> alpha,
                           span<const T> x, scalar<T> beta, span<const T> y, span<T> out) {
  transform_spans(algorithm, policy, functors::linear_combination<T>{alpha, beta}, out,
                  std::tuple{x, y});
}

template <arithmetic_element T>
void elementwise<T>::fma(const execution_policy& policy, span<const T> a, span<const T> b,
                         span<const T> c, span<T> out) {
  transform_spans("fma", policy, functors::fused_multiply_add<T>{}, out, std::tuple{a, b, c});
}

template <arithmetic_element T>
void elementwise<T>::where(const execution_policy& policy, span<const std::uint8_t> condition,
                           span<const T> a, span<const T> b, span<T> out) {
  moves<bits_of_size<sizeof(T)>>::where(policy, condition, as_bits(a), as_bits(b), as_bits(out));
}

template <arithmetic_element T>
void elementwise<T>::generate(const execution_policy& policy, generator_op op, span<T> out,
                              scalar<T> start, scalar<T> step) {
  if (op == generator_op::fill) {
    // The value rounded to T on the host, then filled as its bits.
    const T value = functors::narrow<T>(start);
    moves<bits_of_size<sizeof(T)>>::fill(policy, as_bits(out), std::bit_cast<bits_of_size<sizeof(T)>>(value));
  } else {
    transform_spans("sequence", policy, functors::arithmetic_progression<T>{start, step}, out,
                    std::tuple<>{});
  }
}

template <arithmetic_element T>
void elementwise<T>::adjacent_difference(const execution_policy& policy, span<const T> x, span<T> out) {
  adjacent_difference_spans("adjacent_difference", policy, x, out, functors::minus<T>{});
}

template <class From, class To>
  requires castable<From, To>
void conversion<From, To>::cast(const execution_policy& policy, span<const From> in, span<To> out) {
  transform_spans("cast", policy, functors::converter<From, To>{}, out, std::tuple{in});
}

}  // namespace prism::detail
