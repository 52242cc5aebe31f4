// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sort family, callable from plain C++: radix sorts of the standard key types, with or without
// values carried along, and the permutation that sorts (argsort). The standard types are compiled
// into the library (algorithms/sort/); CUDA code can sort any trivially copyable type with its own
// comparator through <prism/sort.cuh> (a merge sort).
//
//   prism::sort(keys_in, keys_out);                                   // ascending, out of place
//   prism::sort(prism::par.on(stream), keys, prism::sort_order::descending);   // in place
//   prism::sort_by_key(keys, values);                                 // both reordered by the keys
//   prism::sort_by_key(keys_in, values_in, keys_out, values_out);
//   prism::argsort(keys, indices);                                    // keys[indices[i]] is sorted
//
// Semantics, the same in every implementation (the cpu one included):
// - Key types int32, int64, uint32, uint64, float, double. Values of any of those types (any 4- or
//   8-byte type: they are moved by their bits). argsort's indices are int32 or int64 (int32 holds
//   positions below 2^31: larger arrays are refused with int32 indices).
// - Stable: keys that compare equal keep their input order (their values and indices too), in
//   ascending and descending order alike. Descending is the reverse order of the keys, not the
//   reverse of the ascending result: equal keys still keep their input order.
// - Floating-point order, CUB's radix order, which every implementation follows:
//       -NaN < -inf < ... < -denormals < -0.0 == +0.0 < +denormals < ... < +inf < +NaN
//   -0.0 and +0.0 are equal keys (so they keep their input order, interleaved). A NaN sorts by its
//   sign bit: with the sign bit clear (std::numeric_limits::quiet_NaN(), CUDA's 0.0f/0.0f) after
//   +inf, with it set (x86's 0.0/0.0 gives one) before -inf; NaNs of one sign are ordered by their
//   payload bits. Descending reverses all of it. This is a total order on the bits, so no
//   implementation ever sees a comparison that is not a strict weak ordering.
// - In place: sort(keys) and sort_by_key(keys, values) reorder the arrays themselves; the
//   out-of-place forms accept an output that is exactly its own input too. Every other overlap is
//   refused. Scratch: a radix sort ping-pongs between the array and a buffer of the same size, so
//   every GPU implementation takes n * sizeof(key) (+ n * sizeof(value)) bytes of scratch, in place
//   or not, plus its own small tables (cub: CUB's temporary storage; raw: 1 KiB per tile of 4096
//   (4-byte keys) or 2048 (8-byte keys) elements, and 8 KiB per 2^30 elements; thrust: Thrust's
//   buffer). argsort takes n * sizeof(key) more (the sorted keys, discarded) in cub and raw. thrust
//   and cpu out of place copy the input to the output first and sort there (n more bytes each way).
// - Sizes: 64-bit everywhere. cub (CUB 3.0.1 picks a 64-bit offset from a 64-bit count) and
//   thrust (64-bit counts) sort past 2^32 elements; so do cpu and raw (raw's look-back counts are
//   30 bits, so past 2^30 - 4096 keys it sorts in portions and counts each pass's digits first:
//   one more read of the keys per pass). The lesson's stages count in 32 bits and refuse 2^32
//   elements or more, every one of them (the last, onesweep, too, though as impl::raw it sorts any
//   size).
// - Nothing waits: every call is enqueued on the policy's stream (and may be captured into a CUDA
//   graph) except impl::cpu, which runs on the host.
//
// Implementations (figures: docs/benchmarks/sort.md):
//   cpu     Thrust's stable_sort / stable_sort_by_key through its OpenMP system (a parallel merge
//           sort), with a comparator on the keys' radix order above.
//   thrust  thrust::stable_sort / stable_sort_by_key with thrust::less / greater on the GPU, on the
//           caller's stream (par_nosync): CUB's radix sort underneath. argsort: thrust::sequence,
//           then a merge sort of the indices by their keys (Thrust has no argsort).
//   cub     cub::DeviceRadixSort::SortKeys / SortPairs (and Descending), temporary storage from
//           prism's scratch.
//   raw     a one-sweep LSD radix sort (Adinets and Merrill, 2022): one kernel counts every digit of
//           every pass, then one kernel per 8-bit digit ranks each tile's keys in shared memory and
//           finds where they go by decoupled look-back over the per-digit counts of the tiles before
//           it; 2n keys moved per pass, plus n for the counting. algorithms/sort/onesweep.cuh.
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry and its `automatic` table (device memory; host memory runs cpu), which
// include/prism/automatic.hpp holds, generated from docs/benchmarks/sort.json.gz.
inline constexpr impl sort_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub};
inline constexpr family sort_family{sort_implementations, sort_automatic};

enum class sort_order { ascending, descending };

constexpr std::string_view name(sort_order order) noexcept {
  return order == sort_order::ascending ? "ascending" : "descending";
}

// The key types compiled into the library.
template <class K>
concept sort_key = std::is_same_v<K, float> || std::is_same_v<K, double> || std::is_same_v<K, std::int32_t> ||
                   std::is_same_v<K, std::int64_t> || std::is_same_v<K, std::uint32_t> ||
                   std::is_same_v<K, std::uint64_t>;
// Values: anything of 4 or 8 bytes that can be copied as bits (the six key types among them).
template <class V>
concept sort_value = std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8);
template <class I>
concept sort_index = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

// ---- the lesson: from one bit per pass to the one-sweep radix sort --------------------------------
// algorithms/sort/lesson.cuh has the kernels, what each removes and what it costs in bytes moved.
enum class sort_stage {
  one_bit_split,     // 1: 32 passes of one bit, each a split by a scan of the bit's flags
  four_bit_counts,   // 2: 8 passes of 4 bits: per-block digit counts, a global scan, a scatter
  eight_bit_ranked,  // 3: 4 passes of 8 bits, ranked in shared memory so the scatter is coalesced
  onesweep,          // 4: one counting kernel, then one kernel per digit with look-back
  early_counts,      // 5: raw: onesweep ranked as CUB's: each tile's counts published before it ranks
};
inline constexpr sort_stage sort_lesson[] = {sort_stage::one_bit_split, sort_stage::four_bit_counts,
                                             sort_stage::eight_bit_ranked, sort_stage::onesweep,
                                             sort_stage::early_counts};
constexpr std::string_view name(sort_stage stage) noexcept {
  constexpr std::string_view names[] = {"one_bit_split", "four_bit_counts", "eight_bit_ranked", "onesweep",
                                        "early_counts"};
  return names[static_cast<int>(stage)];
}

namespace detail {

template <class T>
using sort_bits = bits_of_size<sizeof(T)>;

// The library's entry points (algorithms/sort/*.cu). keys_out may be keys_in (in place); values by
// their bits (V is uint32_t or uint64_t); indices as unsigned integers of their size.
template <sort_key K>
void sort_keys(const execution_policy&, span<const K> keys_in, span<K> keys_out, sort_order);
template <sort_key K, class V>
void sort_pairs(const execution_policy&, span<const K> keys_in, span<const V> values_in, span<K> keys_out,
                span<V> values_out, sort_order);
template <sort_key K, class I>
void argsort(const execution_policy&, span<const K> keys, span<I> indices, sort_order);
void sort_by_stage(sort_stage, const execution_policy&, span<const std::uint32_t> keys_in,
                   span<std::uint32_t> keys_out);

template <class KI, class VI, class KO, class VO>
void sort_pairs_of(const execution_policy& policy, KI&& keys_in, VI&& values_in, KO&& keys_out, VO&& values_out,
                   sort_order order) {
  using K = value_t<KO>;
  using V = sort_bits<value_t<VO>>;
  sort_pairs<K, V>(policy, input_span(keys_in), reinterpret_span<const V>(input_span(values_in)), output_span(keys_out),
                   reinterpret_span<V>(output_span(values_out)), order);
}

}  // namespace detail

// Writable keys of a compiled type, and readable ones of the same type.
template <class O>
concept sort_key_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && sort_key<value_t<O>>;
template <class X, class O>
concept sort_key_arrays = sort_key_output<O> && array_of<X, value_t<O>>;
template <class O>
concept sort_value_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && sort_value<value_t<O>>;
template <class X, class O>
concept sort_value_arrays = sort_value_output<O> && array_of<X, value_t<O>>;
template <class O>
concept sort_index_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && sort_index<value_t<O>>;

namespace ops {
struct sort { static constexpr const char* name = "sort"; };
struct sort_by_key { static constexpr const char* name = "sort_by_key"; };
struct argsort { static constexpr const char* name = "argsort"; };

// ---- sort -------------------------------------------------------------------------------------------

// keys_out = keys_in sorted (keys_out may be keys_in).
template <class X, class O>
  requires sort_key_arrays<X, O>
void run(sort, const execution_policy& policy, X&& keys_in, O&& keys_out, sort_order order = sort_order::ascending) {
  detail::sort_keys<value_t<O>>(policy, input_span(keys_in), output_span(keys_out), order);
}
// In place.
template <class O>
  requires sort_key_output<O>
void run(sort, const execution_policy& policy, O&& keys, sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  detail::sort_keys<value_t<O>>(policy, span<const value_t<O>>(k), k, order);
}

// ---- sort_by_key --------------------------------------------------------------------------------------

// keys and values reordered together by the keys, in place.
template <class K, class V>
  requires sort_key_output<K> && sort_value_output<V>
void run(sort_by_key, const execution_policy& policy, K&& keys, V&& values, sort_order order = sort_order::ascending) {
  const auto k = output_span(keys);
  const auto v = output_span(values);
  detail::sort_pairs_of(policy, span<const value_t<K>>(k), span<const value_t<V>>(v), k, v, order);
}
// Out of place: keys_out = keys_in sorted, values_out[i] the value that came with keys_out[i].
template <class KI, class VI, class KO, class VO>
  requires sort_key_arrays<KI, KO> && sort_value_arrays<VI, VO>
void run(sort_by_key, const execution_policy& policy, KI&& keys_in, VI&& values_in, KO&& keys_out, VO&& values_out,
                 sort_order order = sort_order::ascending) {
  detail::sort_pairs_of(policy, keys_in, values_in, keys_out, values_out, order);
}

// ---- argsort -----------------------------------------------------------------------------------------

// indices = the stable permutation that sorts keys: keys[indices[0]], keys[indices[1]], ... is
// sorted, and equal keys' indices increase. keys is not changed.
template <class X, class I>
  requires array_like<std::remove_reference_t<X>> && sort_key<value_t<X>> && sort_index_output<I>
void run(argsort, const execution_policy& policy, X&& keys, I&& indices, sort_order order = sort_order::ascending) {
  using U = detail::sort_bits<value_t<I>>;
  detail::argsort<value_t<X>, U>(policy, input_span(keys), detail::reinterpret_span<U>(output_span(indices)), order);
}

// ---- the lesson ----------------------------------------------------------------------------------------
// uint32 keys ascending by one stage of the lesson (device memory; the policy's stream and scratch;
// its implementation is not used). keys_out may be keys_in. Tested and timed beside the
// implementations.
template <class X, class O>
  requires array_of<X, std::uint32_t> && writable_array_of<O, std::uint32_t>
void run(sort, sort_stage stage, const execution_policy& policy, X&& keys_in, O&& keys_out) {
  detail::sort_by_stage(stage, policy, input_span(keys_in), output_span(keys_out));
}
}  // namespace ops

inline constexpr operation<ops::sort> sort{};
inline constexpr operation<ops::sort_by_key> sort_by_key{};
inline constexpr operation<ops::argsort> argsort{};

}  // namespace prism
