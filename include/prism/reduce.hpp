// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reduction family, callable from plain C++: the standard reductions on the standard types
// are compiled into the library (algorithms/reduce/). CUDA code can run the same implementations
// on its own functors with <prism/reduce.cuh>.
//
//   float s = prism::sum(x);                                       // returned: the call waits
//   prism::sum(prism::par.on(stream), x, result);                  // into result[0]: nothing waits
//   std::size_t i = prism::argmax(prism::par.with(prism::impl::cub), x);
//   auto s = prism::reduce(x, 10);                                 // std::reduce: 10 + the sum, once
//   auto m = prism::reduce(x, 0.5f, prism::max);                   // max(0.5, the largest element)
//
// Two deliveries of a result. Returned: the call waits for the stream and returns the value (a
// stream that is capturing a graph is refused). Into a one-element array `result` (device memory,
// host memory for cpu): nothing waits, in every implementation (impl::thrust through Thrust's
// reduce_into), and the call may be captured into a CUDA graph. count, any and all are returned
// only; count_if has both.
//
// Semantics:
// - Empty input: sum, dot and the norms give 0, product 1, count 0, any false, all true; min, max,
//   minmax, argmin, argmax, mean, variance and stddev throw std::invalid_argument.
// - NaN: min, max and minmax return NaN if any element is NaN; argmin and argmax return the index
//   of the first NaN if there is one (as numpy and torch do). Of equal values argmin and argmax
//   return the first index, in every implementation. -0.0 and +0.0 are equal: either may be min.
// - Accumulators: sum, product and dot of integers accumulate in 64 bits of the input's signedness
//   (sum_type<T>: int32 and int64 -> int64, uint32 and uint64 -> uint64) and wrap around
//   (two's complement) past that, in every implementation. Floating point accumulates in T.
//   mean, variance and stddev accumulate in real_type<T> (T for float and double, double for
//   integers) and return it. variance is the population variance (divided by n), computed in one
//   pass with Chan's pairwise combine of per-part (count, mean, squared deviations): stable where
//   sum(x^2)/n - mean^2 cancels. norm2 does not rescale: it overflows where sum(x^2) does.
// - Determinism: every implementation is run-to-run deterministic (bitwise, for floating point)
//   on the same device with the same n and alignment; cpu whatever the number of processors (it
//   adds pairwise, as NumPy: runs of 16 elements in order, then a balanced tree of those, over
//   parts of 2^16 elements that the threads share). Different implementations add in different
//   orders and may differ in the last bits.
// - Counting compares with IEEE semantics: a NaN is not equal to anything, itself included.
// - reduce(x, init, op) is std::reduce's: init combined once with every element (init alone for an
//   empty input), for op std::plus, std::multiplies (of any type or of none), prism::min or
//   prism::max; reduce(x, init) adds, reduce(x) is sum(x). It accumulates and returns what sum
//   (product) does, sum_type<T>, and T for min and max: init is converted to that first. But a
//   floating-point init of integer elements is not cut to an integer (std::reduce accumulates in
//   init's type): the elements are reduced exactly as above, then combined once with init in
//   their common type, which is returned (reduce of {1, 2} with init 0.5 is 3.5). Into a
//   one-element array of the integer result, such an init does not compile.
//   <prism/reduce.cuh> adds reduce with any other operator, in CUDA translation units.
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <span>
#include <limits>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu), which
// include/prism/automatic.hpp holds, generated from docs/benchmarks/reduce.json.gz.
inline constexpr impl reduce_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub};
inline constexpr family reduce_family{reduce_implementations, reduce_automatic};

// The element types compiled into the library for reductions.
template <class T>
concept reduce_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::uint64_t>;

// The types for arithmetic beyond adding up: product, dot, mean, variance.
template <class T>
concept signed_reduce_element = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

template <class T>
concept floating_element = std::is_same_v<T, float> || std::is_same_v<T, double>;

// What sum, product and dot of T accumulate in and return.
template <class T>
using sum_type = std::conditional_t<std::is_floating_point_v<T>, T,
                                    std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

// What mean, variance and stddev of T accumulate in and return.
template <class T>
using real_type = std::conditional_t<std::is_same_v<T, float>, float, double>;

template <class T>
struct minmax_result {
  T min;
  T max;
};

// What count_if, any and all compare each element with: x < value, say.
enum class comparison { equal, not_equal, less, less_equal, greater, greater_equal };

// ---- the lesson: the classic reduction progression, one kernel per stage ----------------------
// From the textbook tree in shared memory to a kernel near the bandwidth ceiling; the stage after
// the last is impl::raw. algorithms/reduce/lesson.cuh has the kernels and what each changes.
enum class reduce_stage {
  interleaved_divergent,  // 1: interleaved addressing, divergent branch (tid % (2s) == 0)
  interleaved,            // 2: interleaved addressing, contiguous active threads
  sequential,             // 3: sequential addressing, no shared-memory bank conflicts
  first_add,              // 4: the first addition during the load, half the blocks
  warp_shuffle,           // 5: the last warp reduces with __shfl_down_sync
  multiple,               // 6: many elements per thread, a grid of the GPU's size
};
inline constexpr reduce_stage reduce_lesson[] = {
    reduce_stage::interleaved_divergent, reduce_stage::interleaved, reduce_stage::sequential,
    reduce_stage::first_add,             reduce_stage::warp_shuffle, reduce_stage::multiple};
constexpr std::string_view name(reduce_stage stage) noexcept {
  constexpr std::string_view names[] = {"interleaved_divergent", "interleaved", "sequential",
                                        "first_add", "warp_shuffle", "multiple"};
  return names[static_cast<int>(stage)];
}

namespace detail {

// The library's entry points. `into` is the one-element result array, or null: returned.
template <reduce_element T>
sum_type<T> sum(const execution_policy&, span<const T>, span<sum_type<T>>* into);
template <reduce_element T>
sum_type<T> sum_from(const execution_policy&, span<const T>, sum_type<T> init, span<sum_type<T>>* into);
template <signed_reduce_element T>
sum_type<T> product_from(const execution_policy&, span<const T>, sum_type<T> init, span<sum_type<T>>* into);
template <reduce_element T>
T min_from(const execution_policy&, span<const T>, T init, span<T>* into);
template <reduce_element T>
T max_from(const execution_policy&, span<const T>, T init, span<T>* into);
template <reduce_element T>
sum_type<T> sum_by_stage(reduce_stage, const execution_policy&, span<const T>, span<sum_type<T>>* into);
template <signed_reduce_element T>
sum_type<T> product(const execution_policy&, span<const T>, span<sum_type<T>>* into);
template <reduce_element T>
T min(const execution_policy&, span<const T>, span<T>* into);
template <reduce_element T>
T max(const execution_policy&, span<const T>, span<T>* into);
template <reduce_element T>
minmax_result<T> minmax(const execution_policy&, span<const T>, span<minmax_result<T>>* into);
template <reduce_element T>
std::size_t argmin(const execution_policy&, span<const T>, span<std::size_t>* into);
template <reduce_element T>
std::size_t argmax(const execution_policy&, span<const T>, span<std::size_t>* into);
template <reduce_element T>
std::uint64_t count_if(const execution_policy&, span<const T>, comparison, T value,
                       span<std::uint64_t>* into);
template <signed_reduce_element T>
sum_type<T> dot(const execution_policy&, span<const T>, span<const T>, span<sum_type<T>>* into);
template <floating_element T>
T norm1(const execution_policy&, span<const T>, span<T>* into);
template <floating_element T>
T norm2(const execution_policy&, span<const T>, span<T>* into);
template <floating_element T>
T norm_inf(const execution_policy&, span<const T>, span<T>* into);
template <signed_reduce_element T>
real_type<T> mean(const execution_policy&, span<const T>, span<real_type<T>>* into);
template <signed_reduce_element T>
real_type<T> variance(const execution_policy&, span<const T>, span<real_type<T>>* into);
template <signed_reduce_element T>
real_type<T> stddev(const execution_policy&, span<const T>, span<real_type<T>>* into);

}  // namespace detail

// An input array of a reduction, by the types it is offered for.
template <class X>
concept reduce_array = array_like<std::remove_reference_t<X>> && reduce_element<value_t<X>>;
// A one-element array for a result of type R.
template <class O, class R>
concept result_array = writable_array_of<O, R>;

// ---- the reductions: returned, or into result[0]; with a policy first or without --------------
// The family's table: one entry per reduction of one array, read by the forms below, by the
// sharded arrays (<prism/distributed.hpp>) and by the Python module. Each says the element types
// the reduction is offered for, what it returns for T, and the library's entry point; the tag
// carries the name.

namespace ops {
template <class Op>
struct reduction;  // specialized once per reduction of one array

struct sum { static constexpr const char* name = "sum"; };
struct product { static constexpr const char* name = "product"; };
struct minmax { static constexpr const char* name = "minmax"; };
struct argmin { static constexpr const char* name = "argmin"; };
struct argmax { static constexpr const char* name = "argmax"; };
struct norm1 { static constexpr const char* name = "norm1"; };
struct norm2 { static constexpr const char* name = "norm2"; };
struct norm_inf { static constexpr const char* name = "norm_inf"; };
struct mean { static constexpr const char* name = "mean"; };
struct variance { static constexpr const char* name = "variance"; };
struct stddev { static constexpr const char* name = "stddev"; };

template <>
struct reduction<sum> {
  static constexpr const char* doc = "The sum of the elements (0 for none).";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = sum_type<T>;
  template <class T> static constexpr auto entry = &detail::sum<T>;
};
template <>
struct reduction<product> {
  static constexpr const char* doc = "The product of the elements (1 for none).";
  template <class T> static constexpr bool offered = signed_reduce_element<T>;
  template <class T> using result = sum_type<T>;
  template <class T> static constexpr auto entry = &detail::product<T>;
};
template <>
struct reduction<min> {
  static constexpr const char* doc = "The smallest element (NaN if any is NaN).";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = T;
  template <class T> static constexpr auto entry = &detail::min<T>;
};
template <>
struct reduction<max> {
  static constexpr const char* doc = "The largest element (NaN if any is NaN).";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = T;
  template <class T> static constexpr auto entry = &detail::max<T>;
};
template <>
struct reduction<minmax> {
  static constexpr const char* doc = "The smallest and the largest, in one pass.";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = minmax_result<T>;
  template <class T> static constexpr auto entry = &detail::minmax<T>;
};
template <>
struct reduction<argmin> {
  static constexpr const char* doc = "The index of the first smallest element (of the first NaN, if any).";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = std::size_t;
  template <class T> static constexpr auto entry = &detail::argmin<T>;
};
template <>
struct reduction<argmax> {
  static constexpr const char* doc = "The index of the first largest element (of the first NaN, if any).";
  template <class T> static constexpr bool offered = reduce_element<T>;
  template <class T> using result = std::size_t;
  template <class T> static constexpr auto entry = &detail::argmax<T>;
};
template <>
struct reduction<norm1> {
  static constexpr const char* doc = "sum |x[i]|.";
  template <class T> static constexpr bool offered = floating_element<T>;
  template <class T> using result = T;
  template <class T> static constexpr auto entry = &detail::norm1<T>;
};
template <>
struct reduction<norm2> {
  static constexpr const char* doc = "sqrt(sum x[i]^2).";
  template <class T> static constexpr bool offered = floating_element<T>;
  template <class T> using result = T;
  template <class T> static constexpr auto entry = &detail::norm2<T>;
};
template <>
struct reduction<norm_inf> {
  static constexpr const char* doc = "max |x[i]| (NaN if any element is NaN).";
  template <class T> static constexpr bool offered = floating_element<T>;
  template <class T> using result = T;
  template <class T> static constexpr auto entry = &detail::norm_inf<T>;
};
template <>
struct reduction<mean> {
  static constexpr const char* doc = "The mean, in real_type.";
  template <class T> static constexpr bool offered = signed_reduce_element<T>;
  template <class T> using result = real_type<T>;
  template <class T> static constexpr auto entry = &detail::mean<T>;
};
template <>
struct reduction<variance> {
  static constexpr const char* doc = "The population variance (divided by n), in real_type.";
  template <class T> static constexpr bool offered = signed_reduce_element<T>;
  template <class T> using result = real_type<T>;
  template <class T> static constexpr auto entry = &detail::variance<T>;
};
template <>
struct reduction<stddev> {
  static constexpr const char* doc = "The square root of the population variance.";
  template <class T> static constexpr bool offered = signed_reduce_element<T>;
  template <class T> using result = real_type<T>;
  template <class T> static constexpr auto entry = &detail::stddev<T>;
};

// The reductions of one array, in the order the Python module and the benchmarks list them.
using reductions = type_list<sum, product, min, max, minmax, argmin, argmax, norm1, norm2, norm_inf, mean,
                             variance, stddev>;

// An array that reduction Op is offered for, and Op's result for it.
template <class Op, class X>
concept reducible = requires { reduction<Op>::template entry<float>; } && reduce_array<X> &&
                    reduction<Op>::template offered<value_t<X>>;
template <class Op, class X>
using reduction_result = typename reduction<Op>::template result<value_t<X>>;

// Every reduction of the table: returned (the call waits) ...
template <class Op, class X>
  requires reducible<Op, X>
auto run(Op, const execution_policy& policy, X&& x) {
  using R = reduction_result<Op, X>;
  return reduction<Op>::template entry<value_t<X>>(policy, input_span(x), static_cast<span<R>*>(nullptr));
}
// ... or into result[0] (nothing waits).
template <class Op, class X, class O>
  requires reducible<Op, X> && result_array<O, reduction_result<Op, X>>
void run(Op, const execution_policy& policy, X&& x, O&& result) {
  span<reduction_result<Op, X>> into = output_span(result);
  reduction<Op>::template entry<value_t<X>>(policy, input_span(x), &into);
}

// sum of a[i] * b[i]; a and b have the same size.
struct dot { static constexpr const char* name = "dot"; };
template <class A, class B>
  requires reduce_array<A> && signed_reduce_element<value_t<A>> && array_of<B, value_t<A>>
auto run(dot, const execution_policy& policy, A&& a, B&& b) {
  using R = sum_type<value_t<A>>;
  return detail::dot(policy, input_span(a), input_span(b), static_cast<span<R>*>(nullptr));
}
template <class A, class B, class O>
  requires reduce_array<A> && signed_reduce_element<value_t<A>> && array_of<B, value_t<A>> &&
           result_array<O, sum_type<value_t<A>>>
void run(dot, const execution_policy& policy, A&& a, B&& b, O&& result) {
  span<sum_type<value_t<A>>> into = output_span(result);
  detail::dot(policy, input_span(a), input_span(b), &into);
}

// How many elements satisfy `x[i] compare value`.
struct count_if { static constexpr const char* name = "count_if"; };
template <class X>
  requires reduce_array<X>
std::uint64_t run(count_if, const execution_policy& policy, X&& x, comparison compare, value_t<X> value) {
  return detail::count_if(policy, input_span(x), compare, value, static_cast<span<std::uint64_t>*>(nullptr));
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::uint64_t>
void run(count_if, const execution_policy& policy, X&& x, comparison compare, value_t<X> value, O&& result) {
  span<std::uint64_t> into = output_span(result);
  detail::count_if(policy, input_span(x), compare, value, &into);
}

// How many elements equal value; whether some (every) element satisfies `x[i] compare value`:
// a count, returned, without an early exit (a reduction reads everything anyway at the same speed).
// For every array count_if takes (the sharded ones of <prism/distributed.hpp> too); the tag is a
// parameter so that asking whether count_if runs does not ask these first.
struct count { static constexpr const char* name = "count"; };
struct any { static constexpr const char* name = "any"; };
struct all { static constexpr const char* name = "all"; };
template <class Tag, class X, class V>
  requires std::is_same_v<Tag, count> && runs_as_written<count_if, const execution_policy&, X, comparison, V>
std::uint64_t run(Tag, const execution_policy& policy, X&& x, V value) {
  return run(count_if{}, policy, x, comparison::equal, value);
}
template <class Tag, class X, class V>
  requires std::is_same_v<Tag, any> && runs_as_written<count_if, const execution_policy&, X, comparison, V>
bool run(Tag, const execution_policy& policy, X&& x, comparison compare, V value) {
  return run(count_if{}, policy, x, compare, value) > 0;
}
template <class Tag, class X, class V>
  requires std::is_same_v<Tag, all> && runs_as_written<count_if, const execution_policy&, X, comparison, V>
bool run(Tag, const execution_policy& policy, X&& x, comparison compare, V value) {
  return run(count_if{}, policy, x, compare, value) == std::size(x);
}

// std::reduce's forms: init combined once with the elements by one of the standard operators.
struct reduce { static constexpr const char* name = "reduce"; };
}  // namespace ops

// The operators the compiled reduce takes: what each becomes among the library's reductions.
enum class reduce_operator { none, plus, multiplies, min, max };
template <class Op>
inline constexpr reduce_operator standard_reduce_operator_v = reduce_operator::none;
template <class V>
inline constexpr reduce_operator standard_reduce_operator_v<std::plus<V>> = reduce_operator::plus;
template <class V>
inline constexpr reduce_operator standard_reduce_operator_v<std::multiplies<V>> = reduce_operator::multiplies;
template <>
inline constexpr reduce_operator standard_reduce_operator_v<operation<ops::min>> = reduce_operator::min;
template <>
inline constexpr reduce_operator standard_reduce_operator_v<operation<ops::max>> = reduce_operator::max;
template <class Op>
concept standard_reduce_operator = standard_reduce_operator_v<std::remove_cvref_t<Op>> != reduce_operator::none;

namespace detail {
// What reduce(x, init, op) of T accumulates in and returns.
template <class T, reduce_operator Op>
using reduce_result_t = std::conditional_t<Op == reduce_operator::min || Op == reduce_operator::max, T, sum_type<T>>;

// The operator's identity in R: what an empty input reduces to without an init.
template <class R, reduce_operator Op>
constexpr R identity_of() {
  if constexpr (Op == reduce_operator::plus) return R(0);
  else if constexpr (Op == reduce_operator::multiplies) return R(1);
  else if constexpr (Op == reduce_operator::min) return std::numeric_limits<R>::max();
  else return std::numeric_limits<R>::lowest();
}

template <reduce_operator Op, class T>
  requires(Op != reduce_operator::multiplies || signed_reduce_element<T>)
reduce_result_t<T, Op> reduce_from(const execution_policy& policy, span<const T> x, reduce_result_t<T, Op> init,
                                   span<reduce_result_t<T, Op>>* into) {
  if constexpr (Op == reduce_operator::plus) {
    return sum_from<T>(policy, x, init, into);
  } else if constexpr (Op == reduce_operator::multiplies) {
    return product_from<T>(policy, x, init, into);
  } else if constexpr (Op == reduce_operator::min) {
    return min_from<T>(policy, x, init, into);
  } else {
    return max_from<T>(policy, x, init, into);
  }
}
}  // namespace detail

namespace ops {
template <class X, class Op>
concept reduces_with = reduce_array<X> && standard_reduce_operator<Op> &&
                       (standard_reduce_operator_v<std::remove_cvref_t<Op>> != reduce_operator::multiplies ||
                        signed_reduce_element<value_t<X>>);
template <class X, class Op>
using reduce_result = detail::reduce_result_t<value_t<X>, standard_reduce_operator_v<std::remove_cvref_t<Op>>>;
template <class I, class X, class Op>
concept reduce_init = std::is_arithmetic_v<std::remove_cvref_t<I>> && std::convertible_to<I, reduce_result<X, Op>>;

// A fractional init of an integer reduction (above): joins the exact result in their common type.
template <class I, class X, class Op>
concept fractional_init = std::is_floating_point_v<std::remove_cvref_t<I>> && std::is_integral_v<reduce_result<X, Op>>;

template <class X, class I, class Op>
  requires reduces_with<X, Op> && reduce_init<I, X, Op>
auto run(reduce, const execution_policy& policy, X&& x, I init, Op) {
  constexpr reduce_operator op = standard_reduce_operator_v<std::remove_cvref_t<Op>>;
  using R = reduce_result<X, Op>;
  if constexpr (fractional_init<I, X, Op>) {
    using C = std::common_type_t<R, I>;
    // Empty input too goes through the reduction, so that the policy is checked before init returns.
    const auto in = input_span(x);
    const auto r = static_cast<C>(detail::reduce_from<op, value_t<X>>(policy, in, detail::identity_of<R, op>(),
                                                                     static_cast<span<R>*>(nullptr)));
    const auto c = static_cast<C>(init);
    if (in.size() == 0) return c;
    if constexpr (op == reduce_operator::plus) return r + c;
    else if constexpr (op == reduce_operator::multiplies) return r * c;
    else if constexpr (op == reduce_operator::min) return c < r || c != c ? c : r;  // a NaN init propagates
    else return r < c || c != c ? c : r;
  } else {
    return detail::reduce_from<op, value_t<X>>(policy, input_span(x), static_cast<R>(init),
                                               static_cast<span<R>*>(nullptr));
  }
}
template <class X, class O, class I, class Op>
  requires reduces_with<X, Op> && result_array<O, reduce_result<X, Op>> && reduce_init<I, X, Op> &&
           (!fractional_init<I, X, Op>)
void run(reduce, const execution_policy& policy, X&& x, O&& result, I init, Op) {
  constexpr reduce_operator op = standard_reduce_operator_v<std::remove_cvref_t<Op>>;
  using R = reduce_result<X, Op>;
  span<R> into = output_span(result);
  detail::reduce_from<op, value_t<X>>(policy, input_span(x), static_cast<R>(init), &into);
}
template <class X, class I>
  requires reduces_with<X, std::plus<>> && reduce_init<I, X, std::plus<>>
auto run(reduce, const execution_policy& policy, X&& x, I init) {
  return run(reduce{}, policy, x, init, std::plus<>{});
}
template <class X>
  requires reduce_array<X>
auto run(reduce, const execution_policy& policy, X&& x) {
  return run(sum{}, policy, x);
}

// The lesson: the sum by one stage of the progression (device memory; the policy's stream and
// scratch; its implementation is not used). Tested and timed beside the implementations.
template <class X>
  requires reduce_array<X>
auto run(sum, reduce_stage stage, const execution_policy& policy, X&& x) {
  using R = sum_type<value_t<X>>;
  return detail::sum_by_stage(stage, policy, input_span(x), static_cast<span<R>*>(nullptr));
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void run(sum, reduce_stage stage, const execution_policy& policy, X&& x, O&& result) {
  span<sum_type<value_t<X>>> into = output_span(result);
  detail::sum_by_stage(stage, policy, input_span(x), &into);
}
}  // namespace ops

inline constexpr operation<ops::sum> sum{};
inline constexpr operation<ops::product> product{};
inline constexpr operation<ops::minmax> minmax{};
inline constexpr operation<ops::argmin> argmin{};
inline constexpr operation<ops::argmax> argmax{};
inline constexpr operation<ops::norm1> norm1{};
inline constexpr operation<ops::norm2> norm2{};
inline constexpr operation<ops::norm_inf> norm_inf{};
inline constexpr operation<ops::mean> mean{};
inline constexpr operation<ops::variance> variance{};
inline constexpr operation<ops::stddev> stddev{};
inline constexpr operation<ops::dot> dot{};
inline constexpr operation<ops::count_if> count_if{};
inline constexpr operation<ops::count> count{};
inline constexpr operation<ops::any> any{};
inline constexpr operation<ops::all> all{};
inline constexpr operation<ops::reduce> reduce{};
// min and max: <prism/operation.hpp> (they are element-wise operations too).

}  // namespace prism
