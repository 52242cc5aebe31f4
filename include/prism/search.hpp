// SPDX-License-Identifier: Apache-2.0
#pragma once
// The search family, callable from plain C++: many queries looked up in one sorted array at once.
// The standard element types are compiled into the library (algorithms/search/); CUDA code can
// search any type with its own comparator through <prism/search.cuh>.
//
//   prism::lower_bound(sorted, queries, out);        // out[i]: first p with !(sorted[p] < queries[i])
//   prism::upper_bound(sorted, queries, out);        // out[i]: first p with queries[i] < sorted[p]
//   prism::equal_range(sorted, queries, lo, hi);     // both bounds: [lo[i], hi[i]) equal queries[i]
//   prism::binary_search(sorted, queries, found);    // found[i]: queries[i] is in sorted (bool or uint8)
//   prism::lower_bound(prism::par.on(stream), sorted, queries, out, prism::query_order::sorted);
//
// Semantics, the same in every implementation (the cpu one included):
// - Element types int32, int64, uint32, uint64, float, double; the queries have the sorted array's
//   type. Positions are written as int32, int64, uint32 or uint64, the output's type; a sorted
//   array with more elements than the output's type holds (2^31 - 1 for int32) is refused.
//   binary_search writes 1 (found) or 0 into bool or uint8 elements.
// - The order is the sort family's (<prism/sort.hpp>), so the array prism::sort produced is the
//   sorted array these expect, NaNs and zeros included:
//       -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN
//   -0.0 and +0.0 are equal (lower_bound of -0.0 is the first zero of either sign; binary_search
//   finds +0.0 by -0.0), a NaN is a value like any other: found where it is, ordered by its sign
//   bit and then by its payload (lower_bound(+NaN) is past every number). NumPy's searchsorted
//   orders NaNs last whatever their sign, and tells -0.0 from nothing either; arrays without
//   sign-bit NaNs (every NaN NumPy's arithmetic makes) search alike in both.
// - The sorted array must be sorted in that order; the results of a search in an unsorted array
//   are unspecified (every output is still written, and nothing outside the arrays is touched).
//   query_order::sorted promises the queries are sorted too (raw and cub then search by merging):
//   broken, it leaves the results unspecified, and possibly some outputs unwritten, but touches
//   nothing outside the arrays.
// - The outputs overlap nothing: not the inputs, not each other. Sizes are 64-bit everywhere, past
//   2^32 queries and elements alike. An empty sorted array gives 0 (false) for every query.
// - Nothing waits: every call is enqueued on the policy's stream (and may be captured into a CUDA
//   graph) except impl::cpu, which runs on the host.
//
// Implementations (rows: bench/search.cu):
//   cpu        thrust::lower_bound / upper_bound / binary_search, vectorized, through Thrust's
//              OpenMP system.
//   thrust     the same on the GPU, on the caller's stream (par_nosync), scratch from prism's.
//   raw_naive  one thread per query, the textbook binary search over global memory.
//   raw        unsorted queries: the first 11 levels of the search tree (2047 elements) staged in
//              shared memory by each block, then four queries per thread searched together so
//              four loads are in flight. Sorted queries (as many as a sixteenth of the array or
//              more): a sorted search by merge path, the array and the queries streamed once.
//              Random queries that are many (2^24 or more, a sixteenth of the array or more) in an
//              array larger than the L2 cache: sorted first with their places (the sort
//              family's raw radix sort; scratch of about three times the queries' bytes), then
//              searched by merge path, each result written to its query's place.
//   cub        cub::DeviceFind::LowerBound (one binary search per query; upper bounds through it
//              with the comparator turned), LowerBoundSortedValues / UpperBoundSortedValues for
//              sorted queries; binary_search is LowerBound writing through an output iterator that
//              compares the element found.
// equal_range runs the lower and the upper bound one after the other, in every implementation.
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/key_kind.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu). Not yet
// measured: raw, whose kernels were written for both kinds of query, until bench/search.cu's rows
// are committed and bench/report derives the table.
inline constexpr impl search_implementations[] = {impl::cpu, impl::thrust, impl::raw_naive, impl::raw, impl::cub};
inline constexpr automatic_row search_automatic[] = {{0, impl::raw}};
inline constexpr family search_family{search_implementations, search_automatic};

// Whether the queries are sorted too (in the same order as the array): a promise the caller makes.
enum class query_order { any, sorted };

constexpr std::string_view name(query_order order) noexcept { return order == query_order::any ? "any" : "sorted"; }

// The element types compiled into the library.
template <class T>
concept search_element = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
                         std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint32_t> ||
                         std::is_same_v<T, std::uint64_t>;
// The position types, and binary_search's flags.
template <class I>
concept search_index = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t> ||
                       std::is_same_v<I, std::uint32_t> || std::is_same_v<I, std::uint64_t>;
template <class F>
concept search_flag = std::is_same_v<F, bool> || std::is_same_v<F, std::uint8_t>;

// ---- the lesson: from one binary search per query to the sorted search by merge path -----------
// algorithms/search/lesson.cuh says what each stage changes and what it costs.
enum class search_stage {
  textbook,    // 1: raw_naive: one thread per query, every level of the search in global memory
  staged_top,  // 2: the top 11 levels in shared memory, four queries per thread in flight
  merge_path,  // 3: sorted queries: the array and the queries merged, each read once
  sort_first,  // 4: queries in any order sorted with their places (a radix sort), then stage 3
};
inline constexpr search_stage search_lesson[] = {search_stage::textbook, search_stage::staged_top,
                                                 search_stage::merge_path, search_stage::sort_first};
constexpr std::string_view name(search_stage stage) noexcept {
  constexpr std::string_view names[] = {"textbook", "staged_top", "merge_path", "sort_first"};
  return names[static_cast<int>(stage)];
}

namespace detail {

// The standard types compare by their bits in the documented order (<prism/key_kind.hpp>), so
// the search is compiled per element size.

template <std::size_t Size>
using search_bits = std::conditional_t<Size == 4, std::uint32_t, std::uint64_t>;

// Which bounds a call writes: lower_bound's, upper_bound's, or both (equal_range).
enum class bound_sides : std::uint8_t { lower, upper, both };

// The library's entry points (algorithms/search/*.cu), per element size. bounds() writes the lower
// bounds into `lower` and the upper bounds into `upper`, as `sides` asks (the other is empty);
// `limit` is the largest position the output's type holds. Positions are written as unsigned
// integers of their size.
template <std::size_t Size>
struct search_entry {
  using bits = search_bits<Size>;
  template <class I>
  static void bounds(bound_sides sides, const execution_policy& policy, key_kind kind, span<const bits> sorted,
                     span<const bits> queries, span<I> lower, span<I> upper, query_order order, std::size_t limit);
  static void contains(const execution_policy& policy, key_kind kind, span<const bits> sorted,
                       span<const bits> queries, span<std::uint8_t> found, query_order order);
};
// The lesson's stages: uint32 elements, int64 positions (device memory).
void lower_bound_by_stage(search_stage stage, const execution_policy& policy, span<const std::uint32_t> sorted,
                          span<const std::uint32_t> queries, span<std::int64_t> out);

template <class T>
span<const search_bits<sizeof(T)>> key_bits(span<const T> s) noexcept {
  return {reinterpret_cast<const search_bits<sizeof(T)>*>(s.data()), s.size()};
}
template <class I>
span<search_bits<sizeof(I)>> index_bits(span<I> s) noexcept {
  return {reinterpret_cast<search_bits<sizeof(I)>*>(s.data()), s.size()};
}

template <class I, class S, class Q>
void run_bounds(bound_sides sides, const execution_policy& policy, S&& sorted, Q&& queries, span<I> lower,
                span<I> upper, query_order order) {
  using T = value_t<S>;
  using U = search_bits<sizeof(I)>;
  search_entry<sizeof(T)>::template bounds<U>(sides, policy, key_kind_of<T>, key_bits(input_span(sorted)),
                                              key_bits(input_span(queries)), index_bits(lower), index_bits(upper),
                                              order, static_cast<std::size_t>(std::numeric_limits<I>::max()));
}

}  // namespace detail

// A sorted array and queries of one compiled element type; writable positions; writable flags.
template <class S, class Q>
concept search_arrays =
    array_like<std::remove_reference_t<S>> && search_element<value_t<S>> && array_of<Q, value_t<S>>;
template <class O>
concept search_index_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && search_index<value_t<O>>;
template <class O>
concept search_flag_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && search_flag<value_t<O>>;

namespace ops {
struct lower_bound { static constexpr const char* name = "lower_bound"; };
struct upper_bound { static constexpr const char* name = "upper_bound"; };
struct equal_range { static constexpr const char* name = "equal_range"; };
struct binary_search { static constexpr const char* name = "binary_search"; };

// out[i] = the first position p of `sorted` whose element is not before queries[i] (the number of
// elements before it); out has the queries' size.
template <class S, class Q, class O>
  requires search_arrays<S, Q> && search_index_output<O>
void run(lower_bound, const execution_policy& policy, S&& sorted, Q&& queries, O&& out,
         query_order order = query_order::any) {
  using I = value_t<O>;
  detail::run_bounds<I>(detail::bound_sides::lower, policy, sorted, queries, output_span(out), span<I>(), order);
}

// out[i] = the first position p of `sorted` whose element is after queries[i].
template <class S, class Q, class O>
  requires search_arrays<S, Q> && search_index_output<O>
void run(upper_bound, const execution_policy& policy, S&& sorted, Q&& queries, O&& out,
         query_order order = query_order::any) {
  using I = value_t<O>;
  detail::run_bounds<I>(detail::bound_sides::upper, policy, sorted, queries, span<I>(), output_span(out), order);
}

// lower[i] and upper[i]: the lower and the upper bound of queries[i], so that the elements equal to
// it are [lower[i], upper[i]). The two outputs have one type.
template <class S, class Q, class L, class U>
  requires search_arrays<S, Q> && search_index_output<L> && writable_array_of<U, value_t<L>>
void run(equal_range, const execution_policy& policy, S&& sorted, Q&& queries, L&& lower, U&& upper,
         query_order order = query_order::any) {
  detail::run_bounds<value_t<L>>(detail::bound_sides::both, policy, sorted, queries, output_span(lower), output_span(upper),
                                 order);
}

// found[i] = whether an element of `sorted` equals queries[i] (1 or 0).
template <class S, class Q, class F>
  requires search_arrays<S, Q> && search_flag_output<F>
void run(binary_search, const execution_policy& policy, S&& sorted, Q&& queries, F&& found,
         query_order order = query_order::any) {
  using T = value_t<S>;
  const auto f = output_span(found);
  detail::search_entry<sizeof(T)>::contains(policy, detail::key_kind_of<T>, detail::key_bits(input_span(sorted)),
                                            detail::key_bits(input_span(queries)),
                                            span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(f.data()), f.size()),
                                            order);
}

// ---- the lesson ----------------------------------------------------------------------------------
// lower_bound of uint32 queries into int64 positions by one stage of the lesson (device memory; the
// policy's stream and scratch; its implementation is not used). merge_path expects sorted queries.
template <class S, class Q, class O>
  requires array_of<S, std::uint32_t> && array_of<Q, std::uint32_t> && writable_array_of<O, std::int64_t>
void run(lower_bound, search_stage stage, const execution_policy& policy, S&& sorted, Q&& queries, O&& out) {
  detail::lower_bound_by_stage(stage, policy, input_span(sorted), input_span(queries), output_span(out));
}
}  // namespace ops

inline constexpr operation<ops::lower_bound> lower_bound{};
inline constexpr operation<ops::upper_bound> upper_bound{};
inline constexpr operation<ops::equal_range> equal_range{};
inline constexpr operation<ops::binary_search> binary_search{};

}  // namespace prism
