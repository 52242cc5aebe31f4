// SPDX-License-Identifier: Apache-2.0
#pragma once
// The element-wise family, callable from plain C++: the standard operations on the standard
// types are compiled into the library (algorithms/elementwise/). CUDA code can run the same
// implementations on its own functors with <prism/transform.cuh>.
//
//   prism::add(a, b, out);                                    // host arrays: cpu; device: fastest
//   prism::add(prism::par.on(stream), a, b, out);             // on a stream
//   prism::add(prism::par.with(prism::impl::raw), a, b, out); // a chosen implementation
//   prism::exp(x, y);                                         // unary: y[i] = exp(x[i])
//   prism::axpby(2.0, x, -1.0, y, z);                         // z[i] = 2 x[i] - y[i]
//   prism::cast(x_float, y_half);                             // conversion
//
// Arrays are any contiguous arrays (std::vector, std::array, C arrays, std::span,
// thrust::device_vector, prism::device_buffer, prism::span); the element type comes from the
// output, and the inputs must have the same one. Every output may be one of its inputs exactly
// (in place: same address, same bytes) but may not overlap any other array.
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
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/span.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu), which
// include/prism/automatic.hpp holds, generated from docs/benchmarks/elementwise.json.gz.
inline constexpr impl elementwise_implementations[] = {impl::cpu, impl::thrust, impl::raw_naive,
                                                       impl::raw, impl::cub};
inline constexpr family elementwise_family{elementwise_implementations, elementwise_automatic};

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

// The conversions compiled into the library for cast(from, to): every pair of distinct floating
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
  static void binary(const execution_policy& policy, binary_op op, span<const T> a,
                     span<const T> b, span<T> out);
  // p and q are the operation's parameters: scale's alpha, clamp's lo and hi.
  static void unary(const execution_policy& policy, unary_op op, span<const T> x, span<T> out,
                    scalar<T> p, scalar<T> q);
  static void axpby(const execution_policy& policy, const char* algorithm, scalar<T> alpha,
                    span<const T> x, scalar<T> beta, span<const T> y, span<T> out);
  static void fma(const execution_policy& policy, span<const T> a, span<const T> b,
                  span<const T> c, span<T> out);
  static void where(const execution_policy& policy, span<const std::uint8_t> condition,
                    span<const T> a, span<const T> b, span<T> out);
  static void generate(const execution_policy& policy, generator_op op, span<T> out,
                       scalar<T> start, scalar<T> step);
  static void adjacent_difference(const execution_policy& policy, span<const T> x, span<T> out);
};

template <class From, class To>
  requires castable<From, To>
struct conversion {
  static void cast(const execution_policy& policy, span<const From> in, span<To> out);
};

}  // namespace detail

// An output array of an element type the library has, and inputs of the same type.
template <class O>
concept elementwise_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> &&
    arithmetic_element<value_t<O>>;
template <class O, class... In>
concept elementwise_arrays = elementwise_output<O> && (array_of<In, value_t<O>> && ...);

// The scalar parameter type of an operation writing O.
template <class O>
using scalar_of = scalar<value_t<O>>;

// ---- binary ---------------------------------------------------------------------------------
// Each operation: with a policy first, or without (par: automatic, the default stream).

// out[i] = a[i] + b[i].
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void add(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::add, input_span(a), input_span(b), output_span(out));
}
// out[i] = a[i] - b[i].
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void sub(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::sub, input_span(a), input_span(b), output_span(out));
}
// out[i] = a[i] * b[i].
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void mul(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::mul, input_span(a), input_span(b), output_span(out));
}
// out[i] = a[i] / b[i]; integers truncate toward zero, x / 0 = 0.
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void div(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::div, input_span(a), input_span(b), output_span(out));
}
// out[i] = the smaller of a[i] and b[i] (NaN if either is NaN).
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void min(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::min, input_span(a), input_span(b), output_span(out));
}
// out[i] = the larger of a[i] and b[i] (NaN if either is NaN).
template <class A, class B, class O>
  requires elementwise_arrays<O, A, B>
void max(const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary_op::max, input_span(a), input_span(b), output_span(out));
}
// out[i] = alpha * x[i] + beta * y[i].
template <class X, class Y, class O>
  requires elementwise_arrays<O, X, Y>
void axpby(const execution_policy& policy, scalar_of<O> alpha, X&& x, scalar_of<O> beta, Y&& y,
           O&& out) {
  detail::elementwise<value_t<O>>::axpby(policy, "axpby", alpha, input_span(x), beta, input_span(y), output_span(out));
}
// y[i] = alpha * x[i] + y[i], in place (BLAS axpy).
template <class X, class Y>
  requires elementwise_arrays<Y, X>
void axpy(const execution_policy& policy, scalar_of<Y> alpha, X&& x, Y&& y) {
  detail::elementwise<value_t<Y>>::axpby(policy, "axpy", alpha, input_span(x), scalar_of<Y>(1), input_span(y), output_span(y));
}
// out[i] = a[i] * b[i] + c[i], rounded once for float and double.
template <class A, class B, class C, class O>
  requires elementwise_arrays<O, A, B, C>
void fma(const execution_policy& policy, A&& a, B&& b, C&& c, O&& out) {
  detail::elementwise<value_t<O>>::fma(policy, input_span(a), input_span(b), input_span(c), output_span(out));
}
// out[i] = condition[i] ? a[i] : b[i]; the condition is bytes (uint8_t or bool), true when not 0.
template <class M, class A, class B, class O>
  requires elementwise_arrays<O, A, B> && (array_of<M, std::uint8_t> || array_of<M, bool>)
void where(const execution_policy& policy, M&& condition, A&& a, B&& b, O&& out) {
  static_assert(sizeof(bool) == 1);  // bool is one byte holding 0 or 1 where CUDA runs
  const auto mask = input_span(condition);
  const span<const std::uint8_t> bytes{reinterpret_cast<const std::uint8_t*>(mask.data()), mask.size()};
  detail::elementwise<value_t<O>>::where(policy, bytes, input_span(a), input_span(b), output_span(out));
}

// ---- unary ----------------------------------------------------------------------------------

template <class X, class O>
concept unary_arrays = elementwise_arrays<O, X>;

namespace detail {
template <class X, class O>
void unary(const execution_policy& policy, unary_op op, X&& x, O&& out, scalar_of<O> p = {},
           scalar_of<O> q = {}) {
  elementwise<value_t<O>>::unary(policy, op, input_span(x), output_span(out), p, q);
}
}  // namespace detail

// out[i] = -x[i].
template <class X, class O>
  requires unary_arrays<X, O> && signed_element<value_t<O>>
void negate(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::negate, x, out); }
// out[i] = |x[i]|.
template <class X, class O>
  requires unary_arrays<X, O> && signed_element<value_t<O>>
void abs(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::abs, x, out); }
// out[i] = x[i] * x[i].
template <class X, class O>
  requires unary_arrays<X, O>
void square(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::square, x, out); }
// out[i] = max(x[i], 0).
template <class X, class O>
  requires unary_arrays<X, O> && signed_element<value_t<O>>
void relu(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::relu, x, out); }
// out[i] = alpha * x[i].
template <class X, class O>
  requires unary_arrays<X, O>
void scale(const execution_policy& policy, scalar_of<O> alpha, X&& x, O&& out) {
  detail::unary(policy, unary_op::scale, x, out, alpha);
}
// out[i] = x[i] limited to [lo, hi]; lo > hi throws std::invalid_argument.
template <class X, class O>
  requires unary_arrays<X, O>
void clamp(const execution_policy& policy, X&& x, O&& out, scalar_of<O> lo, scalar_of<O> hi) {
  detail::unary(policy, unary_op::clamp, x, out, lo, hi);
}
// out[i] = x[i].
template <class X, class O>
  requires unary_arrays<X, O>
void copy(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::copy, x, out); }

// The floating-point functions: out[i] = f(x[i]).
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sqrt(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::sqrt, x, out); }
// 1 / sqrt(x).
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void rsqrt(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::rsqrt, x, out); }
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void exp(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::exp, x, out); }
// The natural logarithm.
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void log(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::log, x, out); }
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sin(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::sin, x, out); }
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void cos(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::cos, x, out); }
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void tanh(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::tanh, x, out); }
// 1 / (1 + exp(-x)).
template <class X, class O>
  requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sigmoid(const execution_policy& policy, X&& x, O&& out) { detail::unary(policy, unary_op::sigmoid, x, out); }

// out[i] = x[i] converted to out's type: prism::cast(floats, halves).
template <class X, class O>
  requires elementwise_output<O> && castable<value_t<X>, value_t<O>>
void cast(const execution_policy& policy, X&& in, O&& out) {
  detail::conversion<value_t<X>, value_t<O>>::cast(policy, input_span(in), output_span(out));
}

// ---- generators -----------------------------------------------------------------------------

// out[i] = value.
template <class O>
  requires elementwise_output<O>
void fill(const execution_policy& policy, O&& out, scalar_of<O> value) {
  detail::elementwise<value_t<O>>::generate(policy, generator_op::fill, output_span(out), value, {});
}
// out[i] = start + i * step, computed in scalar<T> (integers wrap).
template <class O>
  requires elementwise_output<O>
void sequence(const execution_policy& policy, O&& out, scalar_of<O> start,
              scalar_of<O> step = scalar_of<O>(1)) {
  detail::elementwise<value_t<O>>::generate(policy, generator_op::sequence, output_span(out), start, step);
}

// ---- adjacent differences, gathers and scatters ---------------------------------------------------

// out[0] = x[0], out[i] = x[i] - x[i - 1] (the family's subtraction: integers wrap, the 16-bit
// floats compute in float). out may be x exactly (in place). Any other operator: the generic
// prism::adjacent_difference(x, out, op) of <prism/adjacent_difference.cuh>.
template <class X, class O>
  requires elementwise_arrays<O, X>
void adjacent_difference(const execution_policy& policy, X&& x, O&& out) {
  detail::elementwise<value_t<O>>::adjacent_difference(policy, input_span(x), output_span(out));
}

// How gather and scatter treat an index outside the array it points into.
enum class bounds {
  unchecked,  // the caller promises none is (as Thrust does): one outside is undefined behaviour
  checked,    // every index is checked first, by a reduction over the map that the call waits for
              // (so not inside a graph capture); one outside refuses the call, std::invalid_argument
              // naming the first, with nothing written
};

// The index types of a map: int32 and int64.
template <class M>
concept index_array = array_of<M, std::int32_t> || array_of<M, std::int64_t>;

// Elements that move as bits: any trivially copyable type of 1, 2, 4, 8 or 16 bytes aligned to its
// size (so that one access of that size moves it: a 16-byte struct of floats needs alignas(16)).
template <class T>
concept movable_element = std::is_trivially_copyable_v<T> && alignof(T) == sizeof(T) &&
                          (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

namespace detail {
struct alignas(16) bits128 {
  std::uint64_t low, high;
};
template <std::size_t Size>
using bits_of_size = std::conditional_t<
    Size == 1, std::uint8_t,
    std::conditional_t<Size == 2, std::uint16_t,
                       std::conditional_t<Size == 4, std::uint32_t, std::conditional_t<Size == 8, std::uint64_t, bits128>>>>;

// gather and scatter compiled per element size and index type (algorithms/elementwise/gather.cu).
template <std::size_t Size, class I>
struct permutation {
  using bits = bits_of_size<Size>;
  static void gather(const execution_policy& policy, span<const I> map, span<const bits> values, span<bits> out,
                     bounds checking);
  static void scatter(const execution_policy& policy, span<const bits> values, span<const I> map, span<bits> out,
                      bounds checking);
};

// The same array seen as the unsigned bits of its elements' size: same address, size and alignment.
template <class T>
span<const bits_of_size<sizeof(T)>> as_bits(span<const T> s) noexcept {
  static_assert(alignof(bits_of_size<sizeof(T)>) == alignof(T), "an element moved as bits is aligned to its size");
  return {reinterpret_cast<const bits_of_size<sizeof(T)>*>(s.data()), s.size()};
}
template <class T>
span<bits_of_size<sizeof(T)>> as_bits(span<T> s) noexcept {
  static_assert(alignof(bits_of_size<sizeof(T)>) == alignof(T), "an element moved as bits is aligned to its size");
  return {reinterpret_cast<bits_of_size<sizeof(T)>*>(s.data()), s.size()};
}
}  // namespace detail

// out[i] = values[map[i]]: out has the map's size and overlaps nothing.
template <class M, class V, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void gather(const execution_policy& policy, M&& map, V&& values, O&& out, bounds checking = bounds::unchecked) {
  using P = detail::permutation<sizeof(value_t<O>), value_t<M>>;
  P::gather(policy, input_span(map), detail::as_bits(input_span(values)), detail::as_bits(output_span(out)), checking);
}

// out[map[i]] = values[i]: the map has the values' size; out overlaps nothing, and keeps the
// elements no index names. An index that appears twice leaves one of its values, which one is not
// defined.
template <class V, class M, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void scatter(const execution_policy& policy, V&& values, M&& map, O&& out, bounds checking = bounds::unchecked) {
  using P = detail::permutation<sizeof(value_t<O>), value_t<M>>;
  P::scatter(policy, detail::as_bits(input_span(values)), input_span(map), detail::as_bits(output_span(out)), checking);
}

// ---- the same without a policy: automatic, on the default stream ------------------------------

template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void add(A&& a, B&& b, O&& out) { add(par, a, b, out); }
template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void sub(A&& a, B&& b, O&& out) { sub(par, a, b, out); }
template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void mul(A&& a, B&& b, O&& out) { mul(par, a, b, out); }
template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void div(A&& a, B&& b, O&& out) { div(par, a, b, out); }
template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void min(A&& a, B&& b, O&& out) { min(par, a, b, out); }
template <class A, class B, class O> requires elementwise_arrays<O, A, B>
void max(A&& a, B&& b, O&& out) { max(par, a, b, out); }
template <class X, class Y, class O> requires elementwise_arrays<O, X, Y>
void axpby(scalar_of<O> alpha, X&& x, scalar_of<O> beta, Y&& y, O&& out) { axpby(par, alpha, x, beta, y, out); }
template <class X, class Y> requires elementwise_arrays<Y, X>
void axpy(scalar_of<Y> alpha, X&& x, Y&& y) { axpy(par, alpha, x, y); }
template <class A, class B, class C, class O> requires elementwise_arrays<O, A, B, C>
void fma(A&& a, B&& b, C&& c, O&& out) { fma(par, a, b, c, out); }
template <class M, class A, class B, class O>
  requires elementwise_arrays<O, A, B> && (array_of<M, std::uint8_t> || array_of<M, bool>)
void where(M&& condition, A&& a, B&& b, O&& out) { where(par, condition, a, b, out); }
template <class X, class O> requires unary_arrays<X, O> && signed_element<value_t<O>>
void negate(X&& x, O&& out) { negate(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && signed_element<value_t<O>>
void abs(X&& x, O&& out) { abs(par, x, out); }
template <class X, class O> requires unary_arrays<X, O>
void square(X&& x, O&& out) { square(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && signed_element<value_t<O>>
void relu(X&& x, O&& out) { relu(par, x, out); }
template <class X, class O> requires unary_arrays<X, O>
void scale(scalar_of<O> alpha, X&& x, O&& out) { scale(par, alpha, x, out); }
template <class X, class O> requires unary_arrays<X, O>
void clamp(X&& x, O&& out, scalar_of<O> lo, scalar_of<O> hi) { clamp(par, x, out, lo, hi); }
template <class X, class O> requires unary_arrays<X, O>
void copy(X&& x, O&& out) { copy(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sqrt(X&& x, O&& out) { sqrt(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void rsqrt(X&& x, O&& out) { rsqrt(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void exp(X&& x, O&& out) { exp(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void log(X&& x, O&& out) { log(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sin(X&& x, O&& out) { sin(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void cos(X&& x, O&& out) { cos(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void tanh(X&& x, O&& out) { tanh(par, x, out); }
template <class X, class O> requires unary_arrays<X, O> && floating_point_element<value_t<O>>
void sigmoid(X&& x, O&& out) { sigmoid(par, x, out); }
template <class X, class O>
  requires elementwise_output<O> && castable<value_t<X>, value_t<O>>
void cast(X&& in, O&& out) { cast(par, in, out); }
template <class O> requires elementwise_output<O>
void fill(O&& out, scalar_of<O> value) { fill(par, out, value); }
template <class O> requires elementwise_output<O>
void sequence(O&& out, scalar_of<O> start, scalar_of<O> step = scalar_of<O>(1)) {
  sequence(par, out, start, step);
}
template <class X, class O> requires elementwise_arrays<O, X>
void adjacent_difference(X&& x, O&& out) { adjacent_difference(par, x, out); }
template <class M, class V, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void gather(M&& map, V&& values, O&& out, bounds checking = bounds::unchecked) { gather(par, map, values, out, checking); }
template <class V, class M, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void scatter(V&& values, M&& map, O&& out, bounds checking = bounds::unchecked) { scatter(par, values, map, out, checking); }

}  // namespace prism
