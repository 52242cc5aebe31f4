// SPDX-License-Identifier: Apache-2.0
#pragma once
// The segmented family, callable from plain C++: one reduction or one prefix sum per segment of an
// array, the segments given by offsets (as CSR rows are) or by a fixed size (the rows of a
// matrix). The standard element types are compiled into the library (algorithms/segmented/); CUDA
// code runs the same implementations with its own operators through <prism/segmented.cuh>.
//
//   prism::segmented_sum(values, offsets, out);             // out[s] = sum of values[offsets[s] .. offsets[s+1])
//   prism::segmented_argmax(values, offsets, positions);    // positions[s]: where segment s's largest is
//   prism::segmented_min(values, prism::fixed_segments{cols}, row_minima);   // a matrix's rows
//   prism::segmented_inclusive_scan(prism::par.on(stream), values, offsets, out);  // restarts per segment
//
// Segments:
// - By offsets: `offsets` has one element more than there are segments (int32 or int64); segment
//   s is values[offsets[s] .. offsets[s+1]). CUB's begin and end offsets are the two views
//   offsets[0 .. S) and offsets[1 .. S]. The offsets must be non-decreasing and within [0, n]
//   (n = values.size()); offsets[0] may be past 0 and offsets[S] before n: the elements outside
//   [offsets[0], offsets[S]) belong to no segment (reductions ignore them, scans do not write
//   them). impl::cpu checks this and refuses broken offsets (std::invalid_argument, every output
//   untouched). The GPU implementations do not check: a check would be a pass over the offsets
//   and a wait for its answer, which would break "nothing waits" and graph capture. Broken
//   offsets there leave the results unspecified, but every segment is clamped into [0, n], so
//   nothing outside the arrays is read or written.
// - By a fixed size: fixed_segments{size}; the number of segments is the output's size (S), and
//   values must have exactly S * size elements (size 0: S empty segments).
//
// Semantics, the same in every implementation (the cpu one included):
// - Element types int32, int64, uint32, uint64, float, double.
// - segmented_sum writes sum_type<T>, as prism::sum returns (int32 and int64 -> int64, uint32 and
//   uint64 -> uint64, wrapping past that; floats in T). Floating-point sums are added in an order
//   each implementation chooses (a tree in raw and cub, a scan's in thrust and cpu, one by one in
//   raw_naive), so different implementations may differ in the last bits, as the reductions do
//   (<prism/reduce.hpp>); the tests hold every one to a float64 reference with a tolerance. raw
//   and raw_naive are run-to-run deterministic; thrust's scan (decoupled look-back) need not be.
//   raw's segmented scans (a single pass with decoupled look-back) need not be either.
// - segmented_min / segmented_max write T; argmin / argmax the position of the element in
//   `values` (not within the segment), in the offsets' type (int64 for fixed_segments).
// - Empty segments: sum 0; min +inf (the largest integer); max -inf (the lowest integer);
//   argmin and argmax -1.
// - NaN, as prism::min and prism::argmin: a segment with a NaN has a NaN as its min and max (of
//   several NaNs with different bits, the one whose bits are smallest as an unsigned integer, so
//   every implementation writes the same bits), and argmin / argmax give the first NaN's position.
//   Ties: argmin and argmax give the lowest position; min of -0.0 and +0.0 is -0.0, max +0.0.
// - Scans: out has values' size and type; the sum restarts at every segment's first element
//   (exclusive: 0 there), accumulates in T (integers wrap around, as prism's scans do). out may be
//   values exactly (in place), never partly. Elements in no segment are not written.
// - Outputs of the reductions overlap nothing. Sizes are 64-bit everywhere.
// - Nothing waits: every call is enqueued on the policy's stream and may be captured into a CUDA
//   graph, except impl::cpu, which runs on the host.
//
// Implementations (rows: bench/segmented.cu):
//   cpu        the offsets checked, then thrust's code (below) through Thrust's OpenMP system.
//   thrust     a scan over the whole array of (segment, value) pairs with the segmented operator
//              (the segment found per element by a binary search in the offsets), writing each
//              segment's last prefix (reductions) or every prefix (scans); empty segments filled first.
//   raw_naive  one thread per segment: the textbook form, and its lesson: one long segment keeps
//              one thread busy while the rest of the GPU idles; neighbouring threads read far apart.
//   raw        tiles of elements, whatever the segments: each thread takes 64 contiguous bytes and
//              finds its segments in the offsets; a reduction is a scan of (value, segment start)
//              pairs, each segment's total written at its last element; a segment that crosses
//              blocks is finished by the last block to arrive, in a fixed order. Rows of a fixed
//              size up to 32 elements: one thread per row. Scans: the scan family's single pass
//              with the same segment starts.
//   cub        cub::DeviceSegmentedReduce::Reduce and cub::DeviceSegmentedScan (CCCL 3.5).
// One segment of the whole array runs on one block in cub: its rows show the cost.
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/reduce.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu), from the
// rows of docs/benchmarks/segmented.md at 2^10 and 2^28 (H200): raw everywhere. Its tiles read
// 2-3x faster than CUB's DeviceSegmentedReduce on short segments given by offsets and 120-190x on
// one segment of everything; its rows of up to 32 elements, staged through shared memory, 2-4.6x
// faster on 32-element rows (and ahead at 2^10); its scans 1.7x to 320x DeviceSegmentedScan.
inline constexpr impl segmented_implementations[] = {impl::cpu, impl::thrust, impl::raw_naive, impl::raw, impl::cub};
inline constexpr automatic_row segmented_automatic[] = {{0, impl::raw}};
inline constexpr family segmented_family{segmented_implementations, segmented_automatic};

// Segments of one fixed size: the rows of a row-major matrix of `size` columns.
struct fixed_segments {
  std::size_t size;
};

template <class T>
concept segmented_element = reduce_element<T>;
template <class I>
concept segment_offset = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

// What a segmented operation reduces.
enum class segment_reduction : std::uint8_t { sum, min, max, argmin, argmax };
enum class segment_scan : std::uint8_t { inclusive, exclusive };

namespace detail {

// How the segments are given, as the compiled entries see it: offsets of type I, or (offsets
// empty, I = int64) a fixed size.
template <class I>
struct segments_view {
  using type_of_offsets = I;
  span<const I> offsets;
  std::size_t fixed_size = 0;
  bool fixed = false;
};

// The library's entry points (algorithms/segmented/*.cu), per element and offset type. Each
// writes one output; a reduction's output has one element per segment.
template <class T, class I>
struct segmented_entry {
  static void sum(const execution_policy&, span<const T>, segments_view<I>, span<sum_type<T>>);
  static void extremum(const execution_policy&, bool largest, span<const T>, segments_view<I>, span<T>);
  static void arg_extremum(const execution_policy&, bool largest, span<const T>, segments_view<I>, span<I>);
  static void scan(const execution_policy&, bool exclusive, span<const T>, segments_view<I>, span<T>);
};

template <class O>
  requires array_like<std::remove_reference_t<O>>
segments_view<value_t<O>> segments_of(O&& offsets) {
  return {input_span(offsets)};
}
inline segments_view<std::int64_t> segments_of(fixed_segments f) { return {{}, f.size, true}; }

// cpu: offsets non-decreasing and within [0, n], read on the host before anything is written (the
// segmented family's and the segmented sorts').
template <class I>
void check_offsets(const char* algorithm, span<const I> offsets_span, std::size_t n) {
  const I* offsets = offsets_span.data();
  const auto refuse = [&](std::size_t k, const std::string& why) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": offsets[" + std::to_string(k) + "] = " +
                                std::to_string(offsets[k]) + " " + why);
  };
  for (std::size_t k = 0; k < offsets_span.size(); ++k) {
    if (offsets[k] < 0 || static_cast<std::size_t>(offsets[k]) > n) {
      refuse(k, "is outside [0, " + std::to_string(n) + "], the values' size");
    }
    if (k > 0 && offsets[k] < offsets[k - 1]) refuse(k, "is less than the offset before it");
  }
}


}  // namespace detail

// The segments: an offsets array of int32 or int64, or fixed_segments.
template <class S>
concept segments_argument =
    std::is_same_v<std::remove_cvref_t<S>, fixed_segments> ||
    (array_like<std::remove_reference_t<S>> && segment_offset<value_t<S>>);
// Positions written for segments S: the offsets' type, int64 for fixed sizes.
template <class S>
using segment_position_t = typename decltype(detail::segments_of(std::declval<S>()))::type_of_offsets;

template <class X>
concept segmented_values = array_like<std::remove_reference_t<X>> && segmented_element<value_t<X>>;

namespace ops {
struct segmented_sum { static constexpr const char* name = "segmented_sum"; };
struct segmented_min { static constexpr const char* name = "segmented_min"; };
struct segmented_max { static constexpr const char* name = "segmented_max"; };
struct segmented_argmin { static constexpr const char* name = "segmented_argmin"; };
struct segmented_argmax { static constexpr const char* name = "segmented_argmax"; };
struct segmented_inclusive_scan { static constexpr const char* name = "segmented_inclusive_scan"; };
struct segmented_exclusive_scan { static constexpr const char* name = "segmented_exclusive_scan"; };

// out[s] = the sum of segment s (0 for an empty one), in sum_type<T>.
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, sum_type<value_t<X>>>
void run(segmented_sum, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  using T = value_t<X>;
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<T, typename decltype(seg)::type_of_offsets>::sum(policy, input_span(values), seg,
                                                                           output_span(out));
}

// out[s] = the smallest (largest) element of segment s.
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, value_t<X>>
void run(segmented_min, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::extremum(
      policy, false, input_span(values), seg, output_span(out));
}
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, value_t<X>>
void run(segmented_max, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::extremum(
      policy, true, input_span(values), seg, output_span(out));
}

// out[s] = the position in `values` of segment s's first smallest (largest) element; -1 if empty.
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, segment_position_t<S>>
void run(segmented_argmin, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::arg_extremum(
      policy, false, input_span(values), seg, output_span(out));
}
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, segment_position_t<S>>
void run(segmented_argmax, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::arg_extremum(
      policy, true, input_span(values), seg, output_span(out));
}

// out[i] = the sum of segment s's elements up to i (inclusive) or before i (exclusive).
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, value_t<X>>
void run(segmented_inclusive_scan, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::scan(
      policy, false, input_span(values), seg, output_span(out));
}
template <class X, class S, class O>
  requires segmented_values<X> && segments_argument<S> && writable_array_of<O, value_t<X>>
void run(segmented_exclusive_scan, const execution_policy& policy, X&& values, S&& segments, O&& out) {
  const auto seg = detail::segments_of(segments);
  detail::segmented_entry<value_t<X>, typename decltype(seg)::type_of_offsets>::scan(
      policy, true, input_span(values), seg, output_span(out));
}
}  // namespace ops

inline constexpr operation<ops::segmented_sum> segmented_sum{};
inline constexpr operation<ops::segmented_min> segmented_min{};
inline constexpr operation<ops::segmented_max> segmented_max{};
inline constexpr operation<ops::segmented_argmin> segmented_argmin{};
inline constexpr operation<ops::segmented_argmax> segmented_argmax{};
inline constexpr operation<ops::segmented_inclusive_scan> segmented_inclusive_scan{};
inline constexpr operation<ops::segmented_exclusive_scan> segmented_exclusive_scan{};

}  // namespace prism
