// SPDX-License-Identifier: Apache-2.0
#pragma once
// The top-k family, callable from plain C++: the k largest (or smallest) elements of an array and
// their positions, and the same per row of a batch of rows of one length. The standard element
// types are compiled into the library (algorithms/top_k/), one instantiation per element size.
//
//   prism::top_k(x, k, values, indices);                     // the k largest, best first
//   prism::top_k(x, k, values, indices, false);              // the k smallest
//   prism::top_k(prism::par.on(stream), x, k, values, indices);
//   prism::top_k_rows(x, row_length, k, values, indices);    // each row of row_length: its k best
//   prism::top_k_segments(x, offsets, k, values, indices);   // each [offsets[s], offsets[s+1]): its k best
//
// Semantics, the same in every implementation (the cpu one included), so every one gives the same
// bits:
// - Element types int32, int64, uint32, uint64, float, double; indices int32 or int64 (int32 holds
//   positions below 2^31: a longer array is refused with int32 indices).
// - The order is the sort family's (<prism/sort.hpp>), one total order on the bits:
//       -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN
//   so a NaN with the sign bit clear is larger than +inf (it comes first among the largest), one
//   with it set smaller than -inf, and -0.0 and +0.0 are equal elements.
// - Results sorted: values[0] is the best (largest, or smallest with largest = false), and
//   indices[j] is the position values[j] came from: values[j] is x[indices[j]] bit for bit (so a
//   -0.0 stays -0.0). Ties, at the k-th value and above it, are broken by the lower index: of equal
//   elements the earlier one is taken first and comes first.
// - values and indices have k elements each; k = 0 does nothing; k > n is refused
//   (std::invalid_argument), outputs untouched. The outputs overlap nothing (not x, not each other).
// - top_k_rows: x holds rows of row_length elements, one after another (its size a multiple of
//   row_length, not 0 unless x is empty); values and indices hold k per row, row after row, the
//   indices counted within the row. Each row is one top_k (k > row_length is refused).
// - top_k_segments: the segments as the segmented sort takes them (<prism/segmented_sort.hpp>):
//   offsets (int32 or int64, one more than there are segments, S) or fixed_segments{size}; values
//   and indices hold k per segment, segment after segment, the indices counted within the
//   segment. A segment of m < k elements (an empty one too) fills its first m slots; the other
//   k - m are padding: index -1, value 0 (every bit clear). impl::cpu checks the offsets and
//   refuses broken ones (std::invalid_argument, outputs untouched); the GPU implementations clamp
//   them as the segmented sort does. int32 indices take x of up to 2^31 - 1 elements.
// - Nothing waits: every call is enqueued on the policy's stream except impl::cpu, which runs on
//   the host. Sizes are 64-bit.
//
// Implementations (figures: docs/benchmarks/top_k.md):
//   cpu     sort then take: every element's sort key and position sorted stably (Thrust's OpenMP
//           system), the first k positions taken, their values gathered.
//   thrust  the same on the GPU (Thrust's radix sort by key), on the caller's stream; its n ranks
//           and positions come from the device's stream-ordered pool (cudaMallocAsync), since
//           Thrust's own temporary storage holds prism's scratch meanwhile.
//   raw     radix select (AIR top-k, Zhang et al., SC'23): one histogram of an 8-bit digit per pass,
//           most significant first, over the elements whose higher digits match the k-th value's,
//           so after the passes the k-th value and how many of its ties to take are known; then one
//           filtering pass writes the chosen elements in index order, and a stable radix sort of
//           those k puts them best first. For k up to 128, one read of x instead: each warp
//           keeps its best k so far in shared memory and lets through only what beats its k-th
//           (a queue, merged 32 at a time), and a few small launches keep the best k of the
//           warps' (input already sorted towards the best is its slow case: every element enters
//           a queue). The lesson: algorithms/top_k/lesson.cuh
//           (prism::top_k(top_k_stage, policy, x, k, values, indices)).
//   cub     cub::DeviceTopK (AIR top-k) over (sort key, complemented position) pairs, so that the
//           k it chooses are exactly the documented ones whatever order its ties would take; its
//           unordered k are then sorted (by position, then stably by key) into the same bits.
//   top_k_segments: sort then take. Every element's rank and position sorted within its segment
//           by the segmented sort of the same implementation (two arrays of n: the device's
//           stream-ordered pool, host vectors for cpu), then the first k of each segment taken.
//           raw, for k up to 128 and at least as many segments as the GPU has multiprocessors,
//           reads each segment once instead: a block per segment, a queue of the best k per warp,
//           then one over the warps' (top_k_rows' raw does the same for as many rows). Its slow
//           case: one very long segment among many (a block reads it alone).
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/key_kind.hpp>
#include <prism/operation.hpp>
#include <prism/segmented_sort.hpp>  // segment_list, segments_argument
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu). Not yet
// measured: raw until bench/top_k.cu's rows are committed.
inline constexpr impl top_k_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub};
inline constexpr automatic_row top_k_automatic[] = {{0, impl::raw}};
inline constexpr family top_k_family{top_k_implementations, top_k_automatic};

template <class T>
concept top_k_element = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
                        std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint32_t> ||
                        std::is_same_v<T, std::uint64_t>;
template <class I>
concept top_k_index = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

// ---- the lesson: from sorting everything to selecting by the k-th value's digits --------------
// algorithms/top_k/lesson.cuh says what each stage changes and what it costs.
enum class top_k_stage {
  sort_then_take,  // 1: thrust: every element's rank and position sorted, the first k taken
  radix_select,    // 2: the k-th rank found digit by digit, the k filtered, then only k sorted
  fused_select,    // 3: raw: for k <= 128 one read, each warp's best k in a queue (radix_select past it)
};
inline constexpr top_k_stage top_k_lesson[] = {top_k_stage::sort_then_take, top_k_stage::radix_select,
                                               top_k_stage::fused_select};
constexpr std::string_view name(top_k_stage stage) noexcept {
  constexpr std::string_view names[] = {"sort_then_take", "radix_select", "fused_select"};
  return names[static_cast<int>(stage)];
}

namespace detail {

// The elements' order on their bits: <prism/key_kind.hpp>, told at run time.

// The library's entry points (algorithms/top_k/*.cu), per element size and index size: elements and
// values by their bits, indices as unsigned integers of their size; rows of row_length (the plain form: one row).
template <std::size_t Size, std::size_t IndexSize>
struct top_k_entry {
  using bits = bits_of_size<Size>;
  using index_bits = bits_of_size<IndexSize>;
  static void run(const execution_policy& policy, key_kind kind, span<const bits> x, std::size_t row_length,
                  std::size_t k, span<bits> values, span<index_bits> indices, bool largest);
  static void run_segments(const execution_policy& policy, key_kind kind, span<const bits> x, segment_list segments,
                           std::size_t k, span<bits> values, span<index_bits> indices, bool largest);
};

// The lesson's stages: the k largest floats, int32 indices (device memory).
void top_k_by_stage(top_k_stage stage, const execution_policy& policy, span<const float> x, std::size_t k,
                    span<float> values, span<std::int32_t> indices);

template <class X, class V, class I>
void run_top_k(const execution_policy& policy, X&& x, std::size_t row_length, std::size_t k, V&& values, I&& indices,
               bool largest) {
  using T = value_t<X>;
  using Entry = top_k_entry<sizeof(T), sizeof(value_t<I>)>;
  Entry::run(policy, key_kind_of<T>, reinterpret_span<const typename Entry::bits>(input_span(x)), row_length, k,
             reinterpret_span<typename Entry::bits>(output_span(values)),
             reinterpret_span<typename Entry::index_bits>(output_span(indices)), largest);
}

template <class X, class V, class I>
void run_top_k_segments(const execution_policy& policy, X&& x, segment_list segments, std::size_t k, V&& values,
                        I&& indices, bool largest) {
  using T = value_t<X>;
  using Entry = top_k_entry<sizeof(T), sizeof(value_t<I>)>;
  Entry::run_segments(policy, key_kind_of<T>, reinterpret_span<const typename Entry::bits>(input_span(x)), segments,
                      k, reinterpret_span<typename Entry::bits>(output_span(values)),
                      reinterpret_span<typename Entry::index_bits>(output_span(indices)), largest);
}

}  // namespace detail

template <class X, class V, class I>
concept top_k_arrays = array_like<std::remove_reference_t<X>> && top_k_element<value_t<X>> &&
                       writable_array_of<V, value_t<X>> && array_like<std::remove_reference_t<I>> &&
                       !std::is_const_v<element_t<I>> && top_k_index<value_t<I>>;

namespace ops {
struct top_k { static constexpr const char* name = "top_k"; };
struct top_k_rows { static constexpr const char* name = "top_k_rows"; };
struct top_k_segments { static constexpr const char* name = "top_k_segments"; };

// values[j], indices[j]: the j-th best element of x and its position, j < k.
template <class X, class V, class I>
  requires top_k_arrays<X, V, I>
void run(top_k, const execution_policy& policy, X&& x, std::size_t k, V&& values, I&& indices, bool largest = true) {
  detail::run_top_k(policy, x, input_span(x).size(), k, values, indices, largest);
}

// The same for each row of row_length elements: values[r * k + j], indices[r * k + j] (within row r).
template <class X, class V, class I>
  requires top_k_arrays<X, V, I>
void run(top_k_rows, const execution_policy& policy, X&& x, std::size_t row_length, std::size_t k, V&& values,
         I&& indices, bool largest = true) {
  detail::run_top_k(policy, x, row_length, k, values, indices, largest);
}

// The same for each segment (offsets or fixed_segments): values[s * k + j], indices[s * k + j]
// (within segment s), padded past a segment's end.
template <class X, class S, class V, class I>
  requires top_k_arrays<X, V, I> && segments_argument<S>
void run(top_k_segments, const execution_policy& policy, X&& x, S&& segments, std::size_t k, V&& values,
         I&& indices, bool largest = true) {
  detail::run_top_k_segments(policy, x, detail::segment_list_of(segments), k, values, indices, largest);
}

// The lesson: the k largest floats by one stage (device memory; the policy's stream and scratch;
// its implementation is not used).
template <class X, class V, class I>
  requires array_of<X, float> && writable_array_of<V, float> && writable_array_of<I, std::int32_t>
void run(top_k, top_k_stage stage, const execution_policy& policy, X&& x, std::size_t k, V&& values, I&& indices) {
  detail::top_k_by_stage(stage, policy, input_span(x), k, output_span(values), output_span(indices));
}
}  // namespace ops

inline constexpr operation<ops::top_k> top_k{};
inline constexpr operation<ops::top_k_rows> top_k_rows{};
inline constexpr operation<ops::top_k_segments> top_k_segments{};

}  // namespace prism
