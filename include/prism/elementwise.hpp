#pragma once
// The element-wise family, callable from plain C++: the standard operations on the standard
// types are compiled into the library (algorithms/elementwise/). CUDA code can run the same
// implementations on its own functors with <prism/transform.cuh>.
//
//   prism::add<float>(a, b, out);                            // fastest implementation, default stream
//   prism::add<float>(a, b, out, stream, prism::impl::raw);  // a chosen one, on a stream
//   prism::exp<__half>(x, y);                                // unary: y[i] = exp(x[i])
//   prism::axpby<double>(2.0, x, -1.0, y, z);                // z[i] = 2 x[i] - y[i]
//   prism::cast<__half>(x_float, y_half);                    // conversion
//
// Inputs convert from any span or container of T (thrust::device_vector, prism::device_buffer,
// std::vector for impl::cpu); naming T picks the overload, or pass a prism::span<T> as `out`.
// Every output may be one of its inputs exactly (in place) but may not overlap one partly.
//
// Semantics, the same in every implementation (the cpu one included):
// - Floating point: NaN and infinity propagate as IEEE 754 says. min and max return NaN when
//   either argument is NaN (IEEE 754-2019 minimum/maximum, not C's fmin/fmax); relu and clamp
//   pass NaN through. sqrt and log of negatives give NaN, log(0) = -inf, rsqrt(0) = +inf. The GPU
//   math functions (exp, log, sin, cos, tanh, rsqrt) are CUDA's: within 2 ulp of the exact result,
//   not always the same bits as the host's libm.
// - __half and __nv_bfloat16 are stored in 16 bits and computed in float: each result is the
//   float result rounded to the nearest 16-bit value. Their scalar parameters (alpha, lo, start,
//   ...) are float.
// - Integers wrap (two's complement) on overflow: add, sub, mul, negate, square, scale, axpby, fma
//   and sequence, and abs(INT_MIN) = INT_MIN. Division by zero gives 0, and INT_MIN / -1 gives
//   INT_MIN (the wrapped quotient): neither traps, on the GPU or the CPU.
// - cast: float to integer truncates toward zero and saturates at the integer's range, NaN gives
//   0 (CUDA's conversion, made the CPU's too); integer to float rounds to nearest; to __half and
//   __nv_bfloat16 rounds to nearest even, overflowing to infinity.
#include <prism/registry.hpp>
#include <prism/span.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace prism {

// ---- element types --------------------------------------------------------------------------

template <class T>
concept half_precision_element = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
concept floating_point_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || half_precision_element<T>;

template <class T>
concept integer_element = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                          std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

// Every element type compiled into the library: all of them have arithmetic.
template <class T>
concept arithmetic_element = floating_point_element<T> || integer_element<T>;

// The types with a sign: negate, abs and relu are offered for these only.
template <class T>
concept signed_element = floating_point_element<T> || std::is_same_v<T, std::int32_t> ||
                         std::is_same_v<T, std::int64_t>;

// The scalar parameter type of an operation on T: float for the 16-bit types, T otherwise.
template <arithmetic_element T>
using scalar = std::conditional_t<half_precision_element<T>, float, T>;

// The conversions compiled into the library for cast<To>(from): every pair of distinct floating
// types, every integer type to and from float and double, and int32 <-> int64, uint32 <-> uint64.
template <class From, class To>
concept castable =
    arithmetic_element<From> && arithmetic_element<To> && !std::is_same_v<From, To> &&
    ((floating_point_element<From> && floating_point_element<To>) ||
     (integer_element<From> && (std::is_same_v<To, float> || std::is_same_v<To, double>)) ||
     (integer_element<To> && (std::is_same_v<From, float> || std::is_same_v<From, double>)) ||
     (integer_element<From> && integer_element<To> &&
      std::is_signed_v<From> == std::is_signed_v<To>));

// ---- what the library compiles: one entry point per shape of operation ----------------------

enum class binary_op { add, sub, mul, div, min, max };
enum class unary_op {
  negate, abs, square, sqrt, rsqrt, exp, log, sin, cos, tanh, sigmoid, relu, scale, clamp, copy
};
enum class generator_op { fill, sequence };

namespace detail {
// The library's entry points for T, one per shape of operation; each picks the operation's functor
// at run time. Compiled for every arithmetic_element (one explicit instantiation of the struct).
template <arithmetic_element T>
struct elementwise {
  static void binary(binary_op op, span<const T> a, span<const T> b, span<T> out,
                     cudaStream_t stream, impl which);
  // p and q are the operation's parameters: scale's alpha, clamp's lo and hi.
  static void unary(unary_op op, span<const T> x, span<T> out, scalar<T> p, scalar<T> q,
                    cudaStream_t stream, impl which);
  static void axpby(scalar<T> alpha, span<const T> x, scalar<T> beta, span<const T> y, span<T> out,
                    cudaStream_t stream, impl which, const char* algorithm);
  static void fma(span<const T> a, span<const T> b, span<const T> c, span<T> out,
                  cudaStream_t stream, impl which);
  static void where(span<const std::uint8_t> condition, span<const T> a, span<const T> b,
                    span<T> out, cudaStream_t stream, impl which);
  static void generate(generator_op op, span<T> out, scalar<T> start, scalar<T> step,
                       cudaStream_t stream, impl which);
};

template <class From, class To>
  requires castable<From, To>
struct conversion {
  static void cast(span<const From> in, span<To> out, cudaStream_t stream, impl which);
};

template <class C>
using element_of = std::remove_cv_t<typename decltype(span{std::declval<C&>()})::element_type>;
}  // namespace detail

// ---- binary ---------------------------------------------------------------------------------

// out[i] = a[i] + b[i].
template <arithmetic_element T>
void add(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::add, a, b, out, stream, which);
}
// out[i] = a[i] - b[i].
template <arithmetic_element T>
void sub(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::sub, a, b, out, stream, which);
}
// out[i] = a[i] * b[i].
template <arithmetic_element T>
void mul(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::mul, a, b, out, stream, which);
}
// out[i] = a[i] / b[i]; integers truncate toward zero, x / 0 = 0.
template <arithmetic_element T>
void div(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::div, a, b, out, stream, which);
}
// out[i] = the smaller of a[i] and b[i] (NaN if either is NaN).
template <arithmetic_element T>
void min(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::min, a, b, out, stream, which);
}
// out[i] = the larger of a[i] and b[i] (NaN if either is NaN).
template <arithmetic_element T>
void max(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::binary(binary_op::max, a, b, out, stream, which);
}
// out[i] = alpha * x[i] + beta * y[i].
template <arithmetic_element T>
void axpby(scalar<T> alpha, input<T> x, scalar<T> beta, input<T> y, span<T> out,
           cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::axpby(alpha, x, beta, y, out, stream, which, "axpby");
}
// y[i] = alpha * x[i] + y[i], in place (BLAS axpy).
template <arithmetic_element T>
void axpy(scalar<T> alpha, input<T> x, span<T> y, cudaStream_t stream = nullptr,
          impl which = impl::automatic) {
  detail::elementwise<T>::axpby(alpha, x, scalar<T>(1), y, y, stream, which, "axpy");
}
// out[i] = a[i] * b[i] + c[i], rounded once for float and double.
template <arithmetic_element T>
void fma(input<T> a, input<T> b, input<T> c, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic) {
  detail::elementwise<T>::fma(a, b, c, out, stream, which);
}
// out[i] = condition[i] ? a[i] : b[i]; a condition byte is true when it is not zero.
template <arithmetic_element T>
void where(input<std::uint8_t> condition, input<T> a, input<T> b, span<T> out,
           cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::where(condition, a, b, out, stream, which);
}
template <arithmetic_element T>
void where(input<bool> condition, input<T> a, input<T> b, span<T> out,
           cudaStream_t stream = nullptr, impl which = impl::automatic) {
  // bool is one byte holding 0 or 1 on every platform CUDA supports.
  static_assert(sizeof(bool) == 1);
  const span<const std::uint8_t> bytes{reinterpret_cast<const std::uint8_t*>(condition.data()),
                                       condition.size()};
  detail::elementwise<T>::where(bytes, a, b, out, stream, which);
}

// ---- unary ----------------------------------------------------------------------------------

// out[i] = -x[i].
template <signed_element T>
void negate(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::negate, x, out, {}, {}, stream, which);
}
// out[i] = |x[i]|.
template <signed_element T>
void abs(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::abs, x, out, {}, {}, stream, which);
}
// out[i] = x[i] * x[i].
template <arithmetic_element T>
void square(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::square, x, out, {}, {}, stream, which);
}
// out[i] = max(x[i], 0).
template <signed_element T>
void relu(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::relu, x, out, {}, {}, stream, which);
}
// out[i] = alpha * x[i].
template <arithmetic_element T>
void scale(scalar<T> alpha, input<T> x, span<T> out, cudaStream_t stream = nullptr,
           impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::scale, x, out, alpha, {}, stream, which);
}
// out[i] = x[i] limited to [lo, hi]; lo > hi throws std::invalid_argument.
template <arithmetic_element T>
void clamp(input<T> x, span<T> out, scalar<T> lo, scalar<T> hi, cudaStream_t stream = nullptr,
           impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::clamp, x, out, lo, hi, stream, which);
}
// out[i] = x[i].
template <arithmetic_element T>
void copy(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::copy, x, out, {}, {}, stream, which);
}

// The floating-point functions: out[i] = f(x[i]).
template <floating_point_element T>
void sqrt(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::sqrt, x, out, {}, {}, stream, which);
}
// 1 / sqrt(x).
template <floating_point_element T>
void rsqrt(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::rsqrt, x, out, {}, {}, stream, which);
}
template <floating_point_element T>
void exp(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::exp, x, out, {}, {}, stream, which);
}
// The natural logarithm.
template <floating_point_element T>
void log(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::log, x, out, {}, {}, stream, which);
}
template <floating_point_element T>
void sin(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::sin, x, out, {}, {}, stream, which);
}
template <floating_point_element T>
void cos(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::cos, x, out, {}, {}, stream, which);
}
template <floating_point_element T>
void tanh(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::tanh, x, out, {}, {}, stream, which);
}
// 1 / (1 + exp(-x)).
template <floating_point_element T>
void sigmoid(input<T> x, span<T> out, cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::unary(unary_op::sigmoid, x, out, {}, {}, stream, which);
}

// out[i] = x[i] converted to To: prism::cast<__half>(floats, halves).
template <class To, class From>
  requires castable<detail::element_of<const From>, To>
void cast(const From& in, span<To> out, cudaStream_t stream = nullptr,
          impl which = impl::automatic) {
  using F = detail::element_of<const From>;
  detail::conversion<F, To>::cast(span<const F>(span{in}), out, stream, which);
}

// ---- generators -----------------------------------------------------------------------------

// out[i] = value.
template <arithmetic_element T>
void fill(span<T> out, scalar<T> value, cudaStream_t stream = nullptr,
          impl which = impl::automatic) {
  detail::elementwise<T>::generate(generator_op::fill, out, value, {}, stream, which);
}
// out[i] = start + i * step, computed in scalar<T> (integers wrap).
template <arithmetic_element T>
void sequence(span<T> out, scalar<T> start, scalar<T> step = scalar<T>(1),
              cudaStream_t stream = nullptr, impl which = impl::automatic) {
  detail::elementwise<T>::generate(generator_op::sequence, out, start, step, stream, which);
}

}  // namespace prism
