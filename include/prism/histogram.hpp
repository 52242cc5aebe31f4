// SPDX-License-Identifier: Apache-2.0
#pragma once
// Histograms, callable from plain C++: how many samples fall into each bin, for bins of equal
// width over [lo, hi) or between edges of your own. Compiled into the library for int8, uint8,
// int16, uint16, int32, uint32, float and double samples (char as int8) and uint32 or uint64
// counts (algorithms/histogram/).
//
//   prism::histogram(samples, counts, 0.0f, 1.0f);                  // counts.size() equal bins
//   prism::histogram(prism::par.on(stream), samples, counts, lo, hi);
//   prism::histogram(samples, edges, counts);                        // bin k: [edges[k], edges[k+1])
//
// Semantics, the same in every implementation (the cpu one included):
// - The counts are overwritten, not added to: after the call counts[k] is the number of samples
//   in bin k. They are written into the counts array (device memory for the GPU
//   implementations) on the policy's stream; nothing waits.
// - Samples outside the bins are not counted: below lo (edges[0]), at or above hi (the last
//   edge), NaN, and -inf / +inf (lo and hi are finite). So a sample equal to hi is not counted;
//   one equal to lo is counted in bin 0.
// - Levels. lo, hi and edges have the level type histogram_level_t<T>: the sample type for float
//   and double, int64 for the integers (so that 256 bins of bytes are [0, 256)).
// - The binning rule of equal bins (counts.size() = bins):
//   * integer samples: exact. x in [lo, hi) goes to bin floor((x - lo) * bins / (hi - lo)),
//     computed in integers: bin k holds lo + k (hi - lo) / bins <= x < lo + (k + 1) (hi - lo) / bins
//     in exact arithmetic (CUB's HistogramEven computes the same for integers).
//   * float and double samples: bin k holds histogram_edge(lo, hi, bins, k) <= x <
//     histogram_edge(lo, hi, bins, k + 1), compared exactly in T, where edge k is lo + k * w with
//     w = (hi - lo) / bins, computed in double (each operation rounded once, no fused
//     multiply-add), then rounded to T and capped at hi; edge 0 is lo and edge bins is hi. The
//     edges are concrete values of T: a sample equal to an edge is in the bin that starts there,
//     and histogram_edge() tells a caller (a test) where every edge is. This differs from
//     CUB's float rule, bin = int((x - lo) * (bins / (hi - lo))) in T, which rounds twice and can
//     put a sample next to an edge into the neighbouring bin (or, just below hi, into bin
//     `bins`); prism's cub implementation therefore feeds CUB bins computed by this rule.
// - Edges (the second form): bin k holds edges[k] <= x < edges[k + 1], compared exactly in the
//   level type; counts.size() must be edges.size() - 1 >= 1. Edges must be strictly increasing:
//   host edges (cpu) are checked, and a NaN or an out-of-order edge is refused; edges in device
//   memory are not read by the call (that would make it wait), so their order is the caller's
//   promise: out-of-order device edges give unspecified counts but no out-of-bounds access.
// - Checked before anything is touched (std::invalid_argument): at least one bin and at most
//   2^31 - 2 (CUB counts levels in int); lo < hi, both finite, and hi - lo finite in T; for
//   integer samples lo and hi within [min(T), max(T) + 1]; the counts overlap neither the
//   samples nor the edges (a histogram never runs in place).
// - uint32 counts wrap around past 2^32 - 1 samples in a bin (modulo 2^32, in every
//   implementation); uint64 counts do not.
// - Sizes past 2^32 samples work in every implementation (cub splits them into calls of at most
//   2^30 samples: CUB 3.0.1 counts its tiles in int).
// - Graph capture: every GPU implementation may be captured. Results are exact integers: every
//   implementation gives the same counts, run after run.
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` tables (device memory; host memory runs cpu): one for
// float samples and one for uint8 samples in equal bins up to the 256 measured, one for the rest
// (int32 and double samples, edges, more bins). include/prism/automatic.hpp holds them, generated
// from docs/benchmarks/histogram.json.gz.
inline constexpr impl histogram_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub};
inline constexpr family histogram_family{histogram_implementations, histogram_automatic};
inline constexpr family histogram_float_family{histogram_implementations, histogram_float_automatic};
inline constexpr family histogram_uint8_family{histogram_implementations, histogram_uint8_automatic};
inline constexpr std::size_t histogram_measured_bins = 256;

template <class T>
concept histogram_sample = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int8_t> ||
                           std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t> ||
                           std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
                           std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, char>;
template <class C>
concept histogram_counter = std::is_same_v<C, std::uint32_t> || std::is_same_v<C, std::uint64_t>;

// The type of lo, hi and edges for samples of type T.
template <class T>
using histogram_level_t = std::conditional_t<std::is_integral_v<T>, std::int64_t, T>;

// The most bins a histogram may have.
inline constexpr std::size_t histogram_max_bins = (std::size_t{1} << 31) - 2;

// Edge k (0 <= k <= bins) of `bins` equal bins over [lo, hi) for float or double samples: the
// value the binning rule above compares samples with.
template <class T>
  requires std::is_floating_point_v<T>
T histogram_edge(T lo, T hi, std::size_t bins, std::size_t k) {
  if (k == 0) return lo;
  if (k >= bins) return hi;
  // Separate statements, plain IEEE double operations: the device code computes the same with
  // __dmul_rn and __dadd_rn (no contraction into a fused multiply-add).
  const double width = (static_cast<double>(hi) - static_cast<double>(lo)) / static_cast<double>(bins);
  const double offset = static_cast<double>(k) * width;
  const double edge = static_cast<double>(lo) + offset;
  return std::min(static_cast<T>(edge), hi);
}

// ---- the lesson: from one global atomic per sample to sub-histograms in shared memory ----------
// algorithms/histogram/lesson.cuh has the kernels and what each one changes.
enum class histogram_stage {
  global_atomics,  // 1: one thread per sample, one atomic add on the global counts per sample
  shared_atomics,  // 2: a private histogram per block in shared memory, merged at the end
  sub_histograms,  // 3: impl::raw: a sub-histogram per warp, 16-byte loads, aggregated adds
};
inline constexpr histogram_stage histogram_lesson[] = {
    histogram_stage::global_atomics, histogram_stage::shared_atomics, histogram_stage::sub_histograms};
constexpr std::string_view name(histogram_stage stage) noexcept {
  constexpr std::string_view names[] = {"global_atomics", "shared_atomics", "sub_histograms"};
  return names[static_cast<int>(stage)];
}

namespace detail {
// A char string's samples are int8 (whatever char's sign on the host).
template <class T>
using histogram_storage = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;
template <class T>
span<const histogram_storage<T>> histogram_samples_of(span<const T> x) {
  return reinterpret_span<const histogram_storage<T>>(x);
}
// The library's entry points (algorithms/histogram/*.cu).
template <class T, class C>
void histogram_even(const execution_policy&, span<const T> samples, span<C> counts, histogram_level_t<T> lo,
                    histogram_level_t<T> hi);
template <class T, class C>
void histogram_range(const execution_policy&, span<const T> samples, span<const histogram_level_t<T>> edges,
                     span<C> counts);
void histogram_by_stage(histogram_stage, const execution_policy&, span<const float> samples,
                        span<std::uint32_t> counts, float lo, float hi);
}  // namespace detail

template <class X>
concept histogram_samples = array_like<std::remove_reference_t<X>> && histogram_sample<value_t<X>>;
template <class N>
concept histogram_counts =
    array_like<std::remove_reference_t<N>> && !std::is_const_v<element_t<N>> && histogram_counter<value_t<N>>;
template <class E, class X>
concept histogram_edges = array_of<E, histogram_level_t<value_t<X>>>;

namespace ops {
struct histogram { static constexpr const char* name = "histogram"; };

// counts.size() equal bins over [lo, hi).
template <class X, class N>
  requires histogram_samples<X> && histogram_counts<N>
void run(histogram, const execution_policy& policy, X&& samples, N&& counts, histogram_level_t<value_t<X>> lo,
               histogram_level_t<value_t<X>> hi) {
  detail::histogram_even<detail::histogram_storage<value_t<X>>, value_t<N>>(
      policy, detail::histogram_samples_of(input_span(samples)), output_span(counts), lo, hi);
}

// Bin k: edges[k] <= x < edges[k + 1]; counts.size() == edges.size() - 1.
template <class X, class E, class N>
  requires histogram_samples<X> && histogram_edges<E, X> && histogram_counts<N>
void run(histogram, const execution_policy& policy, X&& samples, E&& edges, N&& counts) {
  detail::histogram_range<detail::histogram_storage<value_t<X>>, value_t<N>>(
      policy, detail::histogram_samples_of(input_span(samples)), input_span(edges), output_span(counts));
}

// The lesson: float samples, uint32 counts, equal bins, by one stage (device memory; the policy's
// stream and scratch; its implementation is not used). Tested and timed beside the implementations.
template <class X, class N>
  requires array_of<X, float> && writable_array_of<N, std::uint32_t>
void run(histogram, histogram_stage stage, const execution_policy& policy, X&& samples, N&& counts, float lo, float hi) {
  detail::histogram_by_stage(stage, policy, input_span(samples), output_span(counts), lo, hi);
}
}  // namespace ops

inline constexpr operation<ops::histogram> histogram{};

}  // namespace prism
