// SPDX-License-Identifier: Apache-2.0
#pragma once
// Segmented sorts, callable from plain C++: every segment of an array sorted on its own, the
// segments given by offsets (as CSR rows are) or by a fixed size (the rows of a matrix). Part of
// the sort family: its keys, values, order and implementations' registry are <prism/sort.hpp>'s.
// The standard key types are compiled into the library (algorithms/sort/segmented_*.cu); the
// implementations are <prism/segmented_sort.cuh>.
//
//   prism::segmented_sort(keys_in, offsets, keys_out);                  // each [offsets[s], offsets[s+1]) sorted
//   prism::segmented_sort(keys, prism::fixed_segments{cols});          // each row of a matrix, in place
//   prism::segmented_sort(prism::par.on(stream), keys, offsets, prism::sort_order::descending);
//   prism::segmented_sort_by_key(keys, values, offsets);               // values follow their keys
//   prism::segmented_sort_by_key(keys_in, values_in, offsets, keys_out, values_out);
//
// Segments:
// - By offsets: int32 or int64, one element more than there are segments (S + 1, at least one);
//   segment s is keys[offsets[s] .. offsets[s+1]). The offsets must be non-decreasing and within
//   [0, n]; offsets[0] may be past 0 and offsets[S] before n: elements outside [offsets[0],
//   offsets[S]) belong to no segment and are not written (out of place their outputs keep what
//   they held), as CUB's DeviceSegmentedSort leaves them. impl::cpu checks the offsets and refuses
//   broken ones (std::invalid_argument, every output untouched); the GPU implementations do not
//   (a check is a pass over the offsets and a wait for its answer: it would break "nothing waits"
//   and graph capture). Broken offsets there leave the results unspecified, but every offset is
//   clamped into [0, n] and a segment that would end before it starts is empty, so nothing outside
//   the arrays is read or written.
// - By a fixed size: fixed_segments{size}; n must be a multiple of size (n / size segments; size
//   0 only for n = 0).
//
// Semantics, the same in every implementation, bit for bit (the cpu one included):
// - Keys int32, int64, uint32, uint64, float, double; values of any 4- or 8-byte type, moved by
//   their bits.
// - The order is the sort family's one total order (<prism/sort.hpp>): -NaN < -inf < ... < -0.0 ==
//   +0.0 < ... < +inf < +NaN, NaNs of one sign by their payload; descending reverses it.
// - Stable: equal keys (-0.0 and +0.0 among them) keep their input order within their segment, in
//   ascending and descending order alike (descending is not the reverse of ascending).
// - In place, or out of place with an output that is exactly its input; every other overlap (the
//   offsets included) is refused. Sizes are 64-bit everywhere.
// - Nothing waits: every call is enqueued on the policy's stream (and may be captured into a CUDA
//   graph) except impl::cpu, which runs on the host.
//
// Implementations (rows: bench/segmented_sort.cu; docs/benchmarks/segmented_sort.md):
//   cpu     the offsets checked, then thrust's two passes (below) through Thrust's OpenMP system.
//   thrust  two stable sorts instead of one sort per segment: the positions sorted by their keys
//           (a radix sort of the keys' ordered bits), then stably by the segment each position is
//           in (found by a binary search in the offsets), which leaves every segment's positions
//           in key order; then keys and values gathered through them. Four arrays of scratch.
//   raw     one block per segment. A segment of up to one tile (2048 keys, or 4-byte keys with
//           4-byte values; 1024 where key and value take 16 bytes) is sorted whole in shared
//           memory: the merge sort's block sort of <prism/sort.cuh> (each thread's 8 elements by
//           insertion, then merges in shared memory). A longer one takes tiles of 15 elements per
//           thread (7 of 8 bytes, 3 of 16: an odd count, whose merges in shared memory meet no bank
//           conflict; docs/benchmarks/segmented_sort.md, "The tile by the segment's length"): sorted
//           whole if one such tile holds it, else tile by tile into scratch, then merged by the
//           same block, doubling the sorted runs each pass
//           (merge path, as the merge sort's global passes), the last pass writing the output.
//           One long segment therefore runs on one SM (as in CUB's segmented sort, which also
//           gives each large segment one block): for a single huge segment prism::sort is the
//           call. Scratch: 2 n elements (keys, or key and value side by side) where segments may
//           be longer than a tile (by offsets always: their lengths are on the GPU).
//   cub     cub::DeviceSegmentedSort::StableSortPairs over the keys' ordered bits (the radix sorts'
//           transform: unsigned integers in the family's order), the keys (with their values)
//           carried as CUB's values: CUB sorts short segments by comparing keys with `<`, which
//           NaNs break. A pass makes the bits (and packs key and value) first; one unpacks after
//           (not needed for keys out of place). The segments' bounds come through an iterator
//           over the offsets (clamped as above). Scratch: 2 n ordered keys, 2 n packed elements.
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/segmented.hpp>  // fixed_segments, segments_argument: one way to name segments
#include <prism/sort.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism {

namespace detail {

// The segments as the compiled entries see them: offsets by their width, or a fixed size.
struct segment_list {
  const void* offsets = nullptr;  // int32 or int64 (offset_bytes), offsets_count of them
  std::size_t offsets_count = 0;
  unsigned offset_bytes = 0;  // 4 or 8; 0: a fixed size
  std::size_t fixed_size = 0;
};

template <class S>
  requires array_like<std::remove_reference_t<S>> && segment_offset<value_t<S>>
segment_list segment_list_of(S&& offsets) {
  const auto o = input_span(offsets);
  return {o.data(), o.size(), static_cast<unsigned>(sizeof(value_t<S>)), 0};
}
inline segment_list segment_list_of(fixed_segments f) { return {nullptr, 0, 0, f.size}; }

// The library's entry points (algorithms/sort/segmented_*.cu); values by their bits (V is
// uint32_t or uint64_t). keys_out may be keys_in, values_out values_in.
template <sort_key K>
void segmented_sort_keys(const execution_policy&, span<const K> keys_in, segment_list, span<K> keys_out, sort_order);
template <sort_key K, class V>
void segmented_sort_pairs(const execution_policy&, span<const K> keys_in, span<const V> values_in, segment_list,
                          span<K> keys_out, span<V> values_out, sort_order);

template <class KI, class VI, class KO, class VO>
void segmented_sort_pairs_of(const execution_policy& policy, KI&& keys_in, VI&& values_in, segment_list segments,
                             KO&& keys_out, VO&& values_out, sort_order order) {
  using K = value_t<KO>;
  using V = sort_bits<value_t<VO>>;
  segmented_sort_pairs<K, V>(policy, input_span(keys_in), reinterpret_span<const V>(input_span(values_in)), segments,
                             output_span(keys_out), reinterpret_span<V>(output_span(values_out)), order);
}

}  // namespace detail

namespace ops {
struct segmented_sort { static constexpr const char* name = "segmented_sort"; };
struct segmented_sort_by_key { static constexpr const char* name = "segmented_sort_by_key"; };

// keys_out = keys_in with every segment sorted (keys_out may be keys_in).
template <class X, class S, class O>
  requires sort_key_arrays<X, O> && segments_argument<S>
void run(segmented_sort, const execution_policy& policy, X&& keys_in, S&& segments, O&& keys_out,
         sort_order order = sort_order::ascending) {
  detail::segmented_sort_keys<value_t<O>>(policy, input_span(keys_in), detail::segment_list_of(segments),
                                          output_span(keys_out), order);
}
// In place.
template <class O, class S>
  requires sort_key_output<O> && segments_argument<S>
void run(segmented_sort, const execution_policy& policy, O&& keys, S&& segments,
         sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  detail::segmented_sort_keys<value_t<O>>(policy, span<const value_t<O>>(k), detail::segment_list_of(segments), k,
                                          order);
}

// keys and values reordered together, every segment by its keys, in place.
template <class K, class V, class S>
  requires sort_key_output<K> && sort_value_output<V> && segments_argument<S>
void run(segmented_sort_by_key, const execution_policy& policy, K&& keys, V&& values, S&& segments,
         sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  const auto v = output_span(values);
  detail::segmented_sort_pairs_of(policy, span<const value_t<K>>(k), span<const value_t<V>>(v),
                                  detail::segment_list_of(segments), k, v, order);
}
// Out of place: values_out[i] is the value that came with keys_out[i].
template <class KI, class VI, class S, class KO, class VO>
  requires sort_key_arrays<KI, KO> && sort_value_arrays<VI, VO> && segments_argument<S>
void run(segmented_sort_by_key, const execution_policy& policy, KI&& keys_in, VI&& values_in, S&& segments,
         KO&& keys_out, VO&& values_out, sort_order order = sort_order::ascending) {
  detail::segmented_sort_pairs_of(policy, keys_in, values_in, detail::segment_list_of(segments), keys_out, values_out,
                                  order);
}
}  // namespace ops

inline constexpr operation<ops::segmented_sort> segmented_sort{};
inline constexpr operation<ops::segmented_sort_by_key> segmented_sort_by_key{};

}  // namespace prism
