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
//   either argument is NaN (as IEEE 754-2019 minimum/maximum, not C's fmin/fmax); of -0.0 and
//   +0.0, which compare equal, they return the first argument (IEEE 754-2019 orders -0.0 below
//   +0.0; NumPy's minimum and maximum return the second). relu and clamp pass a NaN x through; a
//   NaN bound of clamp bounds nothing (NumPy's clip gives NaN). sqrt and log of negatives give
//   NaN, log(0) = -inf, rsqrt(0) = +inf. The GPU math functions (exp, log, sin, cos, tanh,
//   rsqrt) are CUDA's: within 2 ulp of the exact result, not always the same bits as the host's
//   libm.
// - axpby, axpy and sequence round each product, then the sum (no fused multiply-add; fma is the
//   one operation that rounds once): the cpu's bits on the GPU too.
// - __half and __nv_bfloat16 are stored in 16 bits and computed in float: each result is the
//   float result rounded to the nearest 16-bit value. Their scalar parameters (alpha, lo, start,
//   ...) are float.
// - Integers wrap (two's complement) on overflow: add, sub, mul, negate, square, scale, axpby, fma
//   and sequence, and abs(INT_MIN) = INT_MIN. Division by zero gives 0, and INT_MIN / -1 gives
//   INT_MIN (the wrapped quotient): neither traps, on the GPU or the CPU.
// - cast: float to integer truncates toward zero and saturates at the integer's range, NaN gives
//   0 (CUDA's conversion, made the CPU's too); integer to float rounds to nearest; to __half and
//   __nv_bfloat16 rounds to nearest even, overflowing to infinity, and any NaN becomes CUDA's
//   canonical NaN (0x7FFF, its sign clear; NumPy keeps the sign).
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
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

// ---- adjacent differences, gathers and scatters ---------------------------------------------------

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
// gather and scatter compiled per element size and index type (algorithms/elementwise/gather.cu).
template <std::size_t Size, class I>
struct permutation {
  using bits = bits_of_size<Size>;
  static void gather(const execution_policy& policy, span<const I> map, span<const bits> values, span<bits> out,
                     bounds checking);
  static void scatter(const execution_policy& policy, span<const bits> values, span<const I> map, span<bits> out,
                      bounds checking);
};

}  // namespace detail

// ---- the operations -------------------------------------------------------------------------
// Each with a policy first, or without (par: automatic, the default stream). The family's tables,
// read by these forms, the sharded arrays and the Python module: the binary and the unary
// operations, each with what it computes and the library's code for it (the tag carries the
// name); a unary operation also says which element types it is offered for.

namespace ops {
template <class Op>
struct binary;  // out[i] = a[i] op b[i]
template <class Op>
struct unary;  // out[i] = f(x[i])

struct add { static constexpr const char* name = "add"; };
struct sub { static constexpr const char* name = "sub"; };
struct mul { static constexpr const char* name = "mul"; };
struct div { static constexpr const char* name = "div"; };
template <> struct binary<add> { static constexpr const char* doc = "out[i] = a[i] + b[i]."; static constexpr binary_op code = binary_op::add; };
template <> struct binary<sub> { static constexpr const char* doc = "out[i] = a[i] - b[i]."; static constexpr binary_op code = binary_op::sub; };
template <> struct binary<mul> { static constexpr const char* doc = "out[i] = a[i] * b[i]."; static constexpr binary_op code = binary_op::mul; };
template <> struct binary<div> { static constexpr const char* doc = "out[i] = a[i] / b[i]; integers truncate toward zero, x / 0 = 0."; static constexpr binary_op code = binary_op::div; };
template <> struct binary<min> { static constexpr const char* doc = "out[i] = the smaller of a[i] and b[i] (NaN if either is NaN; of -0.0 and +0.0, a[i])."; static constexpr binary_op code = binary_op::min; };
template <> struct binary<max> { static constexpr const char* doc = "out[i] = the larger of a[i] and b[i] (NaN if either is NaN; of -0.0 and +0.0, a[i])."; static constexpr binary_op code = binary_op::max; };
using binaries = type_list<add, sub, mul, div, min, max>;

template <class Op, class A, class B, class O>
  requires requires { binary<Op>::code; } && elementwise_arrays<O, A, B>
void run(Op, const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::elementwise<value_t<O>>::binary(policy, binary<Op>::code, input_span(a), input_span(b), output_span(out));
}

struct negate { static constexpr const char* name = "negate"; };
struct abs { static constexpr const char* name = "abs"; };
struct square { static constexpr const char* name = "square"; };
struct relu { static constexpr const char* name = "relu"; };
struct copy { static constexpr const char* name = "copy"; };
struct sqrt { static constexpr const char* name = "sqrt"; };
struct rsqrt { static constexpr const char* name = "rsqrt"; };
struct exp { static constexpr const char* name = "exp"; };
struct log { static constexpr const char* name = "log"; };
struct sin { static constexpr const char* name = "sin"; };
struct cos { static constexpr const char* name = "cos"; };
struct tanh { static constexpr const char* name = "tanh"; };
struct sigmoid { static constexpr const char* name = "sigmoid"; };
template <unary_op Code, template <class> class Offered>
struct unary_entry {
  static constexpr unary_op code = Code;
  template <class T> static constexpr bool offered = Offered<T>::value;
};
template <class T> using any_type = std::bool_constant<arithmetic_element<T>>;
template <class T> using signed_type = std::bool_constant<signed_element<T>>;
template <class T> using floating_type = std::bool_constant<floating_point_element<T>>;
template <> struct unary<negate> : unary_entry<unary_op::negate, signed_type> { static constexpr const char* doc = "out[i] = -x[i]"; };
template <> struct unary<abs> : unary_entry<unary_op::abs, signed_type> { static constexpr const char* doc = "out[i] = |x[i]|"; };
template <> struct unary<square> : unary_entry<unary_op::square, any_type> { static constexpr const char* doc = "out[i] = x[i] * x[i]"; };
template <> struct unary<relu> : unary_entry<unary_op::relu, signed_type> { static constexpr const char* doc = "out[i] = max(x[i], 0)"; };
template <> struct unary<copy> : unary_entry<unary_op::copy, any_type> { static constexpr const char* doc = "out[i] = x[i]"; };
template <> struct unary<sqrt> : unary_entry<unary_op::sqrt, floating_type> { static constexpr const char* doc = "out[i] = sqrt(x[i])"; };
template <> struct unary<rsqrt> : unary_entry<unary_op::rsqrt, floating_type> { static constexpr const char* doc = "out[i] = 1 / sqrt(x[i])"; };
template <> struct unary<exp> : unary_entry<unary_op::exp, floating_type> { static constexpr const char* doc = "out[i] = exp(x[i])"; };
template <> struct unary<log> : unary_entry<unary_op::log, floating_type> { static constexpr const char* doc = "out[i] = log(x[i]), the natural logarithm"; };
template <> struct unary<sin> : unary_entry<unary_op::sin, floating_type> { static constexpr const char* doc = "out[i] = sin(x[i])"; };
template <> struct unary<cos> : unary_entry<unary_op::cos, floating_type> { static constexpr const char* doc = "out[i] = cos(x[i])"; };
template <> struct unary<tanh> : unary_entry<unary_op::tanh, floating_type> { static constexpr const char* doc = "out[i] = tanh(x[i])"; };
template <> struct unary<sigmoid> : unary_entry<unary_op::sigmoid, floating_type> { static constexpr const char* doc = "out[i] = 1 / (1 + exp(-x[i]))"; };
using unaries = type_list<negate, abs, square, relu, copy, sqrt, rsqrt, exp, log, sin, cos, tanh, sigmoid>;

template <class Op, class X, class O>
  requires requires { unary<Op>::code; } && elementwise_arrays<O, X> && (unary<Op>::template offered<value_t<O>>)
void run(Op, const execution_policy& policy, X&& x, O&& out) {
  detail::elementwise<value_t<O>>::unary(policy, unary<Op>::code, input_span(x), output_span(out), {}, {});
}

// out[i] = alpha * x[i].
struct scale { static constexpr const char* name = "scale"; };
template <class X, class O>
  requires elementwise_arrays<O, X>
void run(scale, const execution_policy& policy, scalar_of<O> alpha, X&& x, O&& out) {
  detail::elementwise<value_t<O>>::unary(policy, unary_op::scale, input_span(x), output_span(out), alpha, {});
}
// out[i] = x[i] limited to [lo, hi]; lo > hi throws std::invalid_argument.
struct clamp { static constexpr const char* name = "clamp"; };
template <class X, class O>
  requires elementwise_arrays<O, X>
void run(clamp, const execution_policy& policy, X&& x, O&& out, scalar_of<O> lo, scalar_of<O> hi) {
  detail::elementwise<value_t<O>>::unary(policy, unary_op::clamp, input_span(x), output_span(out), lo, hi);
}
// out[i] = alpha * x[i] + beta * y[i].
struct axpby { static constexpr const char* name = "axpby"; };
template <class X, class Y, class O>
  requires elementwise_arrays<O, X, Y>
void run(axpby, const execution_policy& policy, scalar_of<O> alpha, X&& x, scalar_of<O> beta, Y&& y, O&& out) {
  detail::elementwise<value_t<O>>::axpby(policy, "axpby", alpha, input_span(x), beta, input_span(y), output_span(out));
}
// y[i] = alpha * x[i] + y[i], in place (BLAS axpy).
struct axpy { static constexpr const char* name = "axpy"; };
template <class X, class Y>
  requires elementwise_arrays<Y, X>
void run(axpy, const execution_policy& policy, scalar_of<Y> alpha, X&& x, Y&& y) {
  detail::elementwise<value_t<Y>>::axpby(policy, "axpy", alpha, input_span(x), scalar_of<Y>(1), input_span(y),
                                         output_span(y));
}
// out[i] = a[i] * b[i] + c[i], rounded once for float and double.
struct fma { static constexpr const char* name = "fma"; };
template <class A, class B, class C, class O>
  requires elementwise_arrays<O, A, B, C>
void run(fma, const execution_policy& policy, A&& a, B&& b, C&& c, O&& out) {
  detail::elementwise<value_t<O>>::fma(policy, input_span(a), input_span(b), input_span(c), output_span(out));
}
// out[i] = condition[i] ? a[i] : b[i]; the condition is bytes (uint8_t or bool), true when not 0.
struct where { static constexpr const char* name = "where"; };
template <class M, class A, class B, class O>
  requires elementwise_arrays<O, A, B> && (array_of<M, std::uint8_t> || array_of<M, bool>)
void run(where, const execution_policy& policy, M&& condition, A&& a, B&& b, O&& out) {
  static_assert(sizeof(bool) == 1);  // bool is one byte holding 0 or 1 where CUDA runs
  const auto mask = input_span(condition);
  const span<const std::uint8_t> bytes{reinterpret_cast<const std::uint8_t*>(mask.data()), mask.size()};
  detail::elementwise<value_t<O>>::where(policy, bytes, input_span(a), input_span(b), output_span(out));
}
// out[i] = x[i] converted to out's type: prism::cast(floats, halves).
struct cast { static constexpr const char* name = "cast"; };
template <class X, class O>
  requires elementwise_output<O> && castable<value_t<X>, value_t<O>>
void run(cast, const execution_policy& policy, X&& in, O&& out) {
  detail::conversion<value_t<X>, value_t<O>>::cast(policy, input_span(in), output_span(out));
}
// out[i] = value.
struct fill { static constexpr const char* name = "fill"; };
template <class O>
  requires elementwise_output<O>
void run(fill, const execution_policy& policy, O&& out, scalar_of<O> value) {
  detail::elementwise<value_t<O>>::generate(policy, generator_op::fill, output_span(out), value, {});
}
// out[i] = start + i * step (step 1 if not given), computed in scalar<T> (integers wrap).
struct sequence { static constexpr const char* name = "sequence"; };
template <class O>
  requires elementwise_output<O>
void run(sequence, const execution_policy& policy, O&& out, scalar_of<O> start, scalar_of<O> step = scalar_of<O>(1)) {
  detail::elementwise<value_t<O>>::generate(policy, generator_op::sequence, output_span(out), start, step);
}

// out[0] = x[0], out[i] = x[i] - x[i - 1] (the family's subtraction: integers wrap, the 16-bit
// floats compute in float). out may be x exactly (in place). Any other operator: the generic
// prism::adjacent_difference(x, out, op) of <prism/adjacent_difference.cuh>.

struct adjacent_difference { static constexpr const char* name = "adjacent_difference"; };
template <class X, class O>
  requires elementwise_arrays<O, X>
void run(adjacent_difference, const execution_policy& policy, X&& x, O&& out) {
  detail::elementwise<value_t<O>>::adjacent_difference(policy, input_span(x), output_span(out));
}

// out[i] = values[map[i]]: out has the map's size and overlaps nothing.
struct gather { static constexpr const char* name = "gather"; };
template <class M, class V, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void run(gather, const execution_policy& policy, M&& map, V&& values, O&& out, bounds checking = bounds::unchecked) {
  using P = detail::permutation<sizeof(value_t<O>), value_t<M>>;
  P::gather(policy, input_span(map), detail::as_bits(input_span(values)), detail::as_bits(output_span(out)), checking);
}

// out[map[i]] = values[i]: the map has the values' size; out overlaps nothing, and keeps the
// elements no index names. An index that appears twice leaves one of its values, which one is not
// defined.
struct scatter { static constexpr const char* name = "scatter"; };
template <class V, class M, class O>
  requires index_array<M> && array_like<std::remove_reference_t<O>> && movable_element<value_t<O>> &&
           array_of<V, value_t<O>>
void run(scatter, const execution_policy& policy, V&& values, M&& map, O&& out, bounds checking = bounds::unchecked) {
  using P = detail::permutation<sizeof(value_t<O>), value_t<M>>;
  P::scatter(policy, detail::as_bits(input_span(values)), input_span(map), detail::as_bits(output_span(out)), checking);
}
}  // namespace ops

inline constexpr operation<ops::add> add{};
inline constexpr operation<ops::sub> sub{};
inline constexpr operation<ops::mul> mul{};
inline constexpr operation<ops::div> div{};
// min and max: <prism/operation.hpp> (they are reductions too).
inline constexpr operation<ops::negate> negate{};
inline constexpr operation<ops::abs> abs{};
inline constexpr operation<ops::square> square{};
inline constexpr operation<ops::relu> relu{};
inline constexpr operation<ops::copy> copy{};
inline constexpr operation<ops::sqrt> sqrt{};
inline constexpr operation<ops::rsqrt> rsqrt{};
inline constexpr operation<ops::exp> exp{};
inline constexpr operation<ops::log> log{};
inline constexpr operation<ops::sin> sin{};
inline constexpr operation<ops::cos> cos{};
inline constexpr operation<ops::tanh> tanh{};
inline constexpr operation<ops::sigmoid> sigmoid{};
inline constexpr operation<ops::scale> scale{};
inline constexpr operation<ops::clamp> clamp{};
inline constexpr operation<ops::axpby> axpby{};
inline constexpr operation<ops::axpy> axpy{};
inline constexpr operation<ops::fma> fma{};
inline constexpr operation<ops::where> where{};
inline constexpr operation<ops::cast> cast{};
inline constexpr operation<ops::fill> fill{};
inline constexpr operation<ops::sequence> sequence{};
inline constexpr operation<ops::adjacent_difference> adjacent_difference{};
inline constexpr operation<ops::gather> gather{};
inline constexpr operation<ops::scatter> scatter{};

}  // namespace prism
