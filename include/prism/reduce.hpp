// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reduction family, callable from plain C++: the standard reductions on the standard types
// are compiled into the library (algorithms/reduce/). CUDA code can run the same implementations
// on its own functors with <prism/reduce.cuh>.
//
//   float s = prism::sum(x);                                       // returned: the call waits
//   prism::sum(prism::par.on(stream), x, result);                  // into result[0]: nothing waits
//   std::size_t i = prism::argmax(prism::par.with(prism::impl::cub), x);
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
//   on the same device with the same n and alignment; cpu, on a machine with the same number of
//   processors (Thrust cuts the input into one interval per processor). Different
//   implementations add in different orders and may differ in the last bits.
// - Counting compares with IEEE semantics: a NaN is not equal to anything, itself included.
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
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

// Calls a compiled entry point returned (into = null) or into a result array.
template <class R, class Entry>
R returned(Entry entry) {
  return entry(static_cast<span<R>*>(nullptr));
}
template <class R, class Out, class Entry>
void into(Out&& result, Entry entry) {
  span<R> r = output_span(result);
  entry(&r);
}
}  // namespace detail

// An input array of a reduction, by the types it is offered for.
template <class X>
concept reduce_array = array_like<std::remove_reference_t<X>> && reduce_element<value_t<X>>;
template <class X>
concept signed_reduce_array = reduce_array<X> && signed_reduce_element<value_t<X>>;
template <class X>
concept floating_array = reduce_array<X> && floating_element<value_t<X>>;
// A one-element array for a result of type R.
template <class O, class R>
concept result_array = writable_array_of<O, R>;

// ---- the reductions: returned, or into result[0]; with a policy first or without --------------

// The sum of the elements (0 for none).
template <class X>
  requires reduce_array<X>
auto sum(const execution_policy& policy, X&& x) {
  return detail::returned<sum_type<value_t<X>>>([&](auto* into) { return detail::sum(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void sum(const execution_policy& policy, X&& x, O&& result) {
  detail::into<sum_type<value_t<X>>>(result, [&](auto* into) { return detail::sum(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto sum(X&& x) {
  return sum(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void sum(X&& x, O&& result) {
  sum(par, x, result);
}

// The product of the elements (1 for none).
template <class X>
  requires signed_reduce_array<X>
auto product(const execution_policy& policy, X&& x) {
  return detail::returned<sum_type<value_t<X>>>([&](auto* into) { return detail::product(policy, input_span(x), into); });
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void product(const execution_policy& policy, X&& x, O&& result) {
  detail::into<sum_type<value_t<X>>>(result, [&](auto* into) { return detail::product(policy, input_span(x), into); });
}
template <class X>
  requires signed_reduce_array<X>
auto product(X&& x) {
  return product(par, x);
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void product(X&& x, O&& result) {
  product(par, x, result);
}

// The smallest element (NaN if any is NaN).
template <class X>
  requires reduce_array<X>
auto min(const execution_policy& policy, X&& x) {
  return detail::returned<value_t<X>>([&](auto* into) { return detail::min(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, value_t<X>>
void min(const execution_policy& policy, X&& x, O&& result) {
  detail::into<value_t<X>>(result, [&](auto* into) { return detail::min(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto min(X&& x) {
  return min(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, value_t<X>>
void min(X&& x, O&& result) {
  min(par, x, result);
}

// The largest element (NaN if any is NaN).
template <class X>
  requires reduce_array<X>
auto max(const execution_policy& policy, X&& x) {
  return detail::returned<value_t<X>>([&](auto* into) { return detail::max(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, value_t<X>>
void max(const execution_policy& policy, X&& x, O&& result) {
  detail::into<value_t<X>>(result, [&](auto* into) { return detail::max(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto max(X&& x) {
  return max(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, value_t<X>>
void max(X&& x, O&& result) {
  max(par, x, result);
}

// The smallest and the largest, in one pass.
template <class X>
  requires reduce_array<X>
auto minmax(const execution_policy& policy, X&& x) {
  return detail::returned<minmax_result<value_t<X>>>([&](auto* into) { return detail::minmax(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, minmax_result<value_t<X>>>
void minmax(const execution_policy& policy, X&& x, O&& result) {
  detail::into<minmax_result<value_t<X>>>(result, [&](auto* into) { return detail::minmax(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto minmax(X&& x) {
  return minmax(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, minmax_result<value_t<X>>>
void minmax(X&& x, O&& result) {
  minmax(par, x, result);
}

// The index of the first smallest element (of the first NaN, if any).
template <class X>
  requires reduce_array<X>
auto argmin(const execution_policy& policy, X&& x) {
  return detail::returned<std::size_t>([&](auto* into) { return detail::argmin(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::size_t>
void argmin(const execution_policy& policy, X&& x, O&& result) {
  detail::into<std::size_t>(result, [&](auto* into) { return detail::argmin(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto argmin(X&& x) {
  return argmin(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::size_t>
void argmin(X&& x, O&& result) {
  argmin(par, x, result);
}

// The index of the first largest element (of the first NaN, if any).
template <class X>
  requires reduce_array<X>
auto argmax(const execution_policy& policy, X&& x) {
  return detail::returned<std::size_t>([&](auto* into) { return detail::argmax(policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::size_t>
void argmax(const execution_policy& policy, X&& x, O&& result) {
  detail::into<std::size_t>(result, [&](auto* into) { return detail::argmax(policy, input_span(x), into); });
}
template <class X>
  requires reduce_array<X>
auto argmax(X&& x) {
  return argmax(par, x);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::size_t>
void argmax(X&& x, O&& result) {
  argmax(par, x, result);
}

// sum |x[i]|.
template <class X>
  requires floating_array<X>
auto norm1(const execution_policy& policy, X&& x) {
  return detail::returned<value_t<X>>([&](auto* into) { return detail::norm1(policy, input_span(x), into); });
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm1(const execution_policy& policy, X&& x, O&& result) {
  detail::into<value_t<X>>(result, [&](auto* into) { return detail::norm1(policy, input_span(x), into); });
}
template <class X>
  requires floating_array<X>
auto norm1(X&& x) {
  return norm1(par, x);
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm1(X&& x, O&& result) {
  norm1(par, x, result);
}

// sqrt(sum x[i]^2).
template <class X>
  requires floating_array<X>
auto norm2(const execution_policy& policy, X&& x) {
  return detail::returned<value_t<X>>([&](auto* into) { return detail::norm2(policy, input_span(x), into); });
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm2(const execution_policy& policy, X&& x, O&& result) {
  detail::into<value_t<X>>(result, [&](auto* into) { return detail::norm2(policy, input_span(x), into); });
}
template <class X>
  requires floating_array<X>
auto norm2(X&& x) {
  return norm2(par, x);
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm2(X&& x, O&& result) {
  norm2(par, x, result);
}

// max |x[i]| (NaN if any element is NaN).
template <class X>
  requires floating_array<X>
auto norm_inf(const execution_policy& policy, X&& x) {
  return detail::returned<value_t<X>>([&](auto* into) { return detail::norm_inf(policy, input_span(x), into); });
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm_inf(const execution_policy& policy, X&& x, O&& result) {
  detail::into<value_t<X>>(result, [&](auto* into) { return detail::norm_inf(policy, input_span(x), into); });
}
template <class X>
  requires floating_array<X>
auto norm_inf(X&& x) {
  return norm_inf(par, x);
}
template <class X, class O>
  requires floating_array<X> && result_array<O, value_t<X>>
void norm_inf(X&& x, O&& result) {
  norm_inf(par, x, result);
}

// The mean, in real_type.
template <class X>
  requires signed_reduce_array<X>
auto mean(const execution_policy& policy, X&& x) {
  return detail::returned<real_type<value_t<X>>>([&](auto* into) { return detail::mean(policy, input_span(x), into); });
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void mean(const execution_policy& policy, X&& x, O&& result) {
  detail::into<real_type<value_t<X>>>(result, [&](auto* into) { return detail::mean(policy, input_span(x), into); });
}
template <class X>
  requires signed_reduce_array<X>
auto mean(X&& x) {
  return mean(par, x);
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void mean(X&& x, O&& result) {
  mean(par, x, result);
}

// The population variance (divided by n), in real_type.
template <class X>
  requires signed_reduce_array<X>
auto variance(const execution_policy& policy, X&& x) {
  return detail::returned<real_type<value_t<X>>>([&](auto* into) { return detail::variance(policy, input_span(x), into); });
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void variance(const execution_policy& policy, X&& x, O&& result) {
  detail::into<real_type<value_t<X>>>(result, [&](auto* into) { return detail::variance(policy, input_span(x), into); });
}
template <class X>
  requires signed_reduce_array<X>
auto variance(X&& x) {
  return variance(par, x);
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void variance(X&& x, O&& result) {
  variance(par, x, result);
}

// The square root of the population variance.
template <class X>
  requires signed_reduce_array<X>
auto stddev(const execution_policy& policy, X&& x) {
  return detail::returned<real_type<value_t<X>>>([&](auto* into) { return detail::stddev(policy, input_span(x), into); });
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void stddev(const execution_policy& policy, X&& x, O&& result) {
  detail::into<real_type<value_t<X>>>(result, [&](auto* into) { return detail::stddev(policy, input_span(x), into); });
}
template <class X>
  requires signed_reduce_array<X>
auto stddev(X&& x) {
  return stddev(par, x);
}
template <class X, class O>
  requires signed_reduce_array<X> && result_array<O, real_type<value_t<X>>>
void stddev(X&& x, O&& result) {
  stddev(par, x, result);
}

// sum of a[i] * b[i]; a and b have the same size.
template <class A, class B>
  requires signed_reduce_array<A> && array_of<B, value_t<A>>
auto dot(const execution_policy& policy, A&& a, B&& b) {
  return detail::returned<sum_type<value_t<A>>>(
      [&](auto* into) { return detail::dot(policy, input_span(a), input_span(b), into); });
}
template <class A, class B, class O>
  requires signed_reduce_array<A> && array_of<B, value_t<A>> &&
           result_array<O, sum_type<value_t<A>>>
void dot(const execution_policy& policy, A&& a, B&& b, O&& result) {
  detail::into<sum_type<value_t<A>>>(
      result, [&](auto* into) { return detail::dot(policy, input_span(a), input_span(b), into); });
}
template <class A, class B>
  requires signed_reduce_array<A> && array_of<B, value_t<A>>
auto dot(A&& a, B&& b) {
  return dot(par, a, b);
}
template <class A, class B, class O>
  requires signed_reduce_array<A> && array_of<B, value_t<A>> &&
           result_array<O, sum_type<value_t<A>>>
void dot(A&& a, B&& b, O&& result) {
  dot(par, a, b, result);
}

// How many elements satisfy `x[i] compare value`.
template <class X>
  requires reduce_array<X>
std::uint64_t count_if(const execution_policy& policy, X&& x, comparison compare,
                       value_t<X> value) {
  return detail::returned<std::uint64_t>(
      [&](auto* into) { return detail::count_if(policy, input_span(x), compare, value, into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::uint64_t>
void count_if(const execution_policy& policy, X&& x, comparison compare, value_t<X> value,
              O&& result) {
  detail::into<std::uint64_t>(
      result, [&](auto* into) { return detail::count_if(policy, input_span(x), compare, value, into); });
}
template <class X>
  requires reduce_array<X>
std::uint64_t count_if(X&& x, comparison compare, value_t<X> value) {
  return count_if(par, x, compare, value);
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, std::uint64_t>
void count_if(X&& x, comparison compare, value_t<X> value, O&& result) {
  count_if(par, x, compare, value, result);
}

// How many elements equal value.
template <class X>
  requires reduce_array<X>
std::uint64_t count(const execution_policy& policy, X&& x, value_t<X> value) {
  return count_if(policy, x, comparison::equal, value);
}
template <class X>
  requires reduce_array<X>
std::uint64_t count(X&& x, value_t<X> value) {
  return count(par, x, value);
}

// Whether some (every) element satisfies `x[i] compare value`: a count, without an early exit
// (a reduction reads everything anyway at the same speed).
template <class X>
  requires reduce_array<X>
bool any(const execution_policy& policy, X&& x, comparison compare, value_t<X> value) {
  return count_if(policy, x, compare, value) > 0;
}
template <class X>
  requires reduce_array<X>
bool any(X&& x, comparison compare, value_t<X> value) {
  return any(par, x, compare, value);
}
template <class X>
  requires reduce_array<X>
bool all(const execution_policy& policy, X&& x, comparison compare, value_t<X> value) {
  return count_if(policy, x, compare, value) == input_span(x).size();
}
template <class X>
  requires reduce_array<X>
bool all(X&& x, comparison compare, value_t<X> value) {
  return all(par, x, compare, value);
}

// ---- the lesson ----------------------------------------------------------------------------
// The sum by one stage of the progression (device memory; the policy's stream and scratch; its
// implementation is not used). Tested and timed beside the implementations.
template <class X>
  requires reduce_array<X>
auto sum(reduce_stage stage, const execution_policy& policy, X&& x) {
  return detail::returned<sum_type<value_t<X>>>(
      [&](auto* into) { return detail::sum_by_stage(stage, policy, input_span(x), into); });
}
template <class X, class O>
  requires reduce_array<X> && result_array<O, sum_type<value_t<X>>>
void sum(reduce_stage stage, const execution_policy& policy, X&& x, O&& result) {
  detail::into<sum_type<value_t<X>>>(
      result, [&](auto* into) { return detail::sum_by_stage(stage, policy, input_span(x), into); });
}

}  // namespace prism
