// SPDX-License-Identifier: Apache-2.0
#pragma once
// The merge family, callable from plain C++: merging two sorted arrays, with or without values
// carried along, and the set operations of two sorted arrays. The standard key types are compiled
// into the library (algorithms/merge/); CUDA code can merge any trivially copyable type with its
// own comparator through <prism/merge.cuh>.
//
//   prism::merge(a, b, out);                                   // out has a.size() + b.size()
//   prism::merge_by_key(keys_a, values_a, keys_b, values_b, keys_out, values_out);
//       // each input's keys then its values, as cub::DeviceMerge::MergePairs takes them; Thrust's
//       // merge_by_key takes both key ranges first (a port must reorder: with keys and values of
//       // one type and equal sizes, Thrust's order compiles here and merges the wrong arrays)
//   std::size_t n = prism::set_union(a, b, out);               // returned: the call waits
//   prism::set_intersection(prism::par.on(stream), a, b, out, count);  // into count[0]: nothing waits
//
// Semantics, the same in every implementation (the cpu one included):
// - Inputs sorted ascending in the order below; unsorted input gives an unspecified result (no
//   implementation checks, as none of Thrust's, CUB's or the standard library's does).
// - Key types int32, int64, uint32, uint64, float, double, in the sort family's order
//   (<prism/sort.hpp>): integers by value; floats
//       -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN
//   (NaNs by their sign bit, then by payload). -0.0 and +0.0 are equal keys: a merge keeps them in
//   their input order, a set operation counts them as the same value. Values of merge_by_key: any
//   4- or 8-byte trivially copyable type, moved by its bits.
// - merge and merge_by_key are stable: of elements that compare equal, a's come first, each
//   array's in its order. out has exactly a.size() + b.size() elements.
// - Set operations have the standard library's multiset semantics (std::set_union and the
//   others): a value m times in a and n times in b appears max(m, n) times in the union (a's m,
//   then b's last max(n - m, 0)), min(m, n) in the intersection (a's first min(m, n)), max(m - n, 0)
//   in the difference a - b (a's last m - n) and |m - n| in the symmetric difference (a's last m - n
//   or b's last n - m). The output is sorted. What is written is the bits of the chosen elements
//   (so a +0.0 of a and a -0.0 of b are one value, written as a's +0.0).
// - A set operation returns how many elements it wrote (the call waits) or writes the count into a
//   one-element array (device memory; host memory for cpu; nothing waits, except in impl::thrust,
//   whose set operations return their end to the host). Its output may have any size: one that
//   holds the worst case (a + b elements for the union and the symmetric difference, min(a, b) for
//   the intersection, a for the difference) is written as it is; a smaller one makes the call count
//   the result first (it waits for the count, so it cannot be captured into a graph) and refuse,
//   std::invalid_argument with nothing written, if the result does not fit. Only the first `count`
//   elements are written.
// - Overlaps: a and b may overlap each other (both are only read); an output overlaps no input, not
//   even exactly.
// - Sizes: 64-bit everywhere. merge and merge_by_key work past 2^32 elements in every
//   implementation; so do the set operations (Thrust's count in 64 bits).
// - Nothing waits: merge and merge_by_key are enqueued on the policy's stream (and may be captured)
//   except impl::cpu, which runs on the host.
//
// Implementations:
//   cpu        thrust::merge, merge_by_key and set_* through Thrust's OpenMP system.
//   thrust     the same on the GPU, on the caller's stream (par_nosync), temporary storage from
//              prism's scratch (thrust::merge is CUB's DeviceMerge underneath).
//   raw_naive  merge only: one thread per element, which finds its output position by a binary
//              search for its rank in the other array (the textbook parallel merge).
//   raw        merge path, tile-staged: a partition kernel finds where each tile of 512 x 15 outputs
//              (256 x 15 with values, fewer of wide types) starts in a and b; each block loads its two
//              ranges into shared memory (on sm_90 by two bulk copies of the copy engine), each thread
//              merges its 15 sequentially from a merge-path search in shared memory, and the block
//              writes its tile with coalesced stores. A set operation merges each tile the same way,
//              in one pass: it counts what it keeps, learns where its output starts from the tiles
//              before it (decoupled look-back), and writes it.
//   cub        merge only: cub::DeviceMerge::MergeKeys / MergePairs (CCCL 3.5), temporary storage
//              from prism's scratch. CUB has no set operations.
// The lesson (algorithms/merge/lesson.cuh; prism::merge(merge_stage, policy, a, b, out)): from
// one thread per element to a sequential merge per thread on fixed partitions, then merge path,
// its tile-staged form, and the tile brought in by the copy engine.
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/key_kind.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registries, which the tests and benchmarks iterate: merges, and set operations
// (which CUB has not). `automatic` (device memory; host memory runs cpu), until the family is
// measured: cub for merges, raw for set operations.
inline constexpr impl merge_implementations[] = {impl::cpu, impl::thrust, impl::raw_naive, impl::raw, impl::cub};
inline constexpr impl set_operation_implementations[] = {impl::cpu, impl::thrust, impl::raw};
inline constexpr automatic_row merge_automatic[] = {{0, impl::cub}};
inline constexpr automatic_row set_operation_automatic[] = {{0, impl::raw}};
inline constexpr family merge_family{merge_implementations, merge_automatic};
inline constexpr family set_operation_family{set_operation_implementations, set_operation_automatic};

// ---- the lesson: from a sequential merge per thread to merge path, tile-staged, bulk-copied ------
// algorithms/merge/lesson.cuh says what each stage changes and what it costs.
enum class merge_stage {
  rank,              // 1: raw_naive: one thread per element, its rank in the other array searched
  fixed_partitions,  // 2: a thread per fixed run of a, merged sequentially with the b's it spans
  merge_path,        // 3: a thread per fixed run of outputs, its start found on the merge path
  tile_staged,       // 4: tiles of outputs staged through shared memory, coalesced both ways
  bulk_copy,         // 5: raw: each tile's two ranges brought in by the copy engine (sm_90)
};
inline constexpr merge_stage merge_lesson[] = {merge_stage::rank, merge_stage::fixed_partitions,
                                               merge_stage::merge_path, merge_stage::tile_staged,
                                               merge_stage::bulk_copy};
constexpr std::string_view name(merge_stage stage) noexcept {
  constexpr std::string_view names[] = {"rank", "fixed_partitions", "merge_path", "tile_staged", "bulk_copy"};
  return names[static_cast<int>(stage)];
}

// The four set operations.
enum class set_operation { set_union, set_intersection, set_difference, set_symmetric_difference };

constexpr std::string_view name(set_operation op) noexcept {
  constexpr std::string_view names[] = {"set_union", "set_intersection", "set_difference",
                                        "set_symmetric_difference"};
  return names[static_cast<int>(op)];
}

// The key types compiled into the library.
template <class K>
concept merge_key = std::is_same_v<K, float> || std::is_same_v<K, double> || std::is_same_v<K, std::int32_t> ||
                    std::is_same_v<K, std::int64_t> || std::is_same_v<K, std::uint32_t> ||
                    std::is_same_v<K, std::uint64_t>;
// Values: anything of 4 or 8 bytes that can be copied as bits.
template <class V>
concept merge_value = std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8);

namespace detail {

// Keys are held as unsigned bits of their size and compared as <prism/key_kind.hpp> says: one
// instantiation per key size.

template <class T>
using merge_bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class To, class From>
span<To> as_merge_bits(span<From> s) noexcept {
  static_assert(sizeof(std::remove_cv_t<To>) == sizeof(std::remove_cv_t<From>));
  return {reinterpret_cast<To*>(s.data()), s.size()};
}

// The library's entry points (algorithms/merge/*.cu): keys as uint32_t or uint64_t with their
// kind, values as uint32_t or uint64_t; `count` is the one-element count array, or null: returned.
template <class B>
void merge_keys(const execution_policy&, key_kind, span<const B> a, span<const B> b, span<B> out);
template <class B, class V>
void merge_pairs(const execution_policy&, key_kind, span<const B> keys_a, span<const V> values_a,
                 span<const B> keys_b, span<const V> values_b, span<B> keys_out, span<V> values_out);
template <class B>
std::size_t set_operation_keys(const execution_policy&, set_operation, key_kind, span<const B> a, span<const B> b,
                               span<B> out, span<std::size_t>* count);

// The lesson's stages: uint32 keys (device memory).
void merge_by_stage(merge_stage stage, const execution_policy& policy, span<const std::uint32_t> a,
                    span<const std::uint32_t> b, span<std::uint32_t> out);

template <class A, class B, class O>
void merge_of(const execution_policy& policy, A&& a, B&& b, O&& out) {
  using K = value_t<O>;
  using U = merge_bits<K>;
  merge_keys<U>(policy, key_kind_of<K>, as_merge_bits<const U>(input_span(a)), as_merge_bits<const U>(input_span(b)),
                as_merge_bits<U>(output_span(out)));
}

template <class KA, class VA, class KB, class VB, class KO, class VO>
void merge_pairs_of(const execution_policy& policy, KA&& keys_a, VA&& values_a, KB&& keys_b, VB&& values_b,
                    KO&& keys_out, VO&& values_out) {
  using K = value_t<KO>;
  using U = merge_bits<K>;
  using V = merge_bits<value_t<VO>>;
  merge_pairs<U, V>(policy, key_kind_of<K>, as_merge_bits<const U>(input_span(keys_a)),
                    as_merge_bits<const V>(input_span(values_a)), as_merge_bits<const U>(input_span(keys_b)),
                    as_merge_bits<const V>(input_span(values_b)), as_merge_bits<U>(output_span(keys_out)),
                    as_merge_bits<V>(output_span(values_out)));
}

template <class A, class B, class O>
std::size_t set_operation_of(const execution_policy& policy, set_operation op, A&& a, B&& b, O&& out,
                             span<std::size_t>* count) {
  using K = value_t<O>;
  using U = merge_bits<K>;
  return set_operation_keys<U>(policy, op, key_kind_of<K>, as_merge_bits<const U>(input_span(a)),
                               as_merge_bits<const U>(input_span(b)), as_merge_bits<U>(output_span(out)), count);
}

}  // namespace detail

// Writable keys of a compiled type, and readable ones of the same type.
template <class O>
concept merge_key_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && merge_key<value_t<O>>;
template <class O, class... In>
concept merge_key_arrays = merge_key_output<O> && (array_of<In, value_t<O>> && ...);
template <class O>
concept merge_value_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && merge_value<value_t<O>>;
template <class O, class... In>
concept merge_value_arrays = merge_value_output<O> && (array_of<In, value_t<O>> && ...);
// A one-element array for a set operation's count.
template <class C>
concept merge_count_array = writable_array_of<C, std::size_t>;

namespace ops {
struct merge { static constexpr const char* name = "merge"; };
struct merge_by_key { static constexpr const char* name = "merge_by_key"; };
struct set_union { static constexpr const char* name = "set_union"; };
struct set_intersection { static constexpr const char* name = "set_intersection"; };
struct set_difference { static constexpr const char* name = "set_difference"; };
struct set_symmetric_difference { static constexpr const char* name = "set_symmetric_difference"; };

// The family's table of set operations, read by the forms below and the Python module: each tag's
// operation and what it keeps.
template <class Op>
struct set_algorithm;
template <>
struct set_algorithm<set_union> {
  static constexpr set_operation which = set_operation::set_union;
  static constexpr const char* doc = "Every value of either array, max(m, n) times.";
};
template <>
struct set_algorithm<set_intersection> {
  static constexpr set_operation which = set_operation::set_intersection;
  static constexpr const char* doc = "The values of both arrays, min(m, n) times (a's elements).";
};
template <>
struct set_algorithm<set_difference> {
  static constexpr set_operation which = set_operation::set_difference;
  static constexpr const char* doc = "The values of a not in b, max(m - n, 0) times.";
};
template <>
struct set_algorithm<set_symmetric_difference> {
  static constexpr set_operation which = set_operation::set_symmetric_difference;
  static constexpr const char* doc = "The values of one array not in the other, |m - n| times.";
};
using set_algorithms = type_list<set_union, set_intersection, set_difference, set_symmetric_difference>;

template <class Op>
concept set_algorithm_tag = requires { set_algorithm<Op>::which; };

// ---- merge, merge_by_key --------------------------------------------------------------------------

// out = a and b merged, stably (a's element first on ties); out has a.size() + b.size().
template <class A, class B, class O>
  requires merge_key_arrays<O, A, B>
void run(merge, const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::merge_of(policy, a, b, out);
}

// The lesson: uint32 keys merged by one stage (device memory; the policy's stream and scratch; its
// implementation is not used).
template <class A, class B, class O>
  requires array_of<A, std::uint32_t> && array_of<B, std::uint32_t> && writable_array_of<O, std::uint32_t>
void run(merge, merge_stage stage, const execution_policy& policy, A&& a, B&& b, O&& out) {
  detail::merge_by_stage(stage, policy, input_span(a), input_span(b), output_span(out));
}

// keys_out = keys_a and keys_b merged stably, values_out[i] the value that came with keys_out[i].
template <class KA, class VA, class KB, class VB, class KO, class VO>
  requires merge_key_arrays<KO, KA, KB> && merge_value_arrays<VO, VA, VB>
void run(merge_by_key, const execution_policy& policy, KA&& keys_a, VA&& values_a, KB&& keys_b, VB&& values_b,
         KO&& keys_out, VO&& values_out) {
  detail::merge_pairs_of(policy, keys_a, values_a, keys_b, values_b, keys_out, values_out);
}

// ---- set operations: the count returned, or into count[0] -----------------------------------------

template <class Op, class A, class B, class O>
  requires set_algorithm_tag<Op> && merge_key_arrays<O, A, B>
std::size_t run(Op, const execution_policy& policy, A&& a, B&& b, O&& out) {
  return detail::set_operation_of(policy, set_algorithm<Op>::which, a, b, out, nullptr);
}
template <class Op, class A, class B, class O, class C>
  requires set_algorithm_tag<Op> && merge_key_arrays<O, A, B> && merge_count_array<C>
void run(Op, const execution_policy& policy, A&& a, B&& b, O&& out, C&& count) {
  span<std::size_t> c = output_span(count);
  detail::set_operation_of(policy, set_algorithm<Op>::which, a, b, out, &c);
}
}  // namespace ops

inline constexpr operation<ops::merge> merge{};
inline constexpr operation<ops::merge_by_key> merge_by_key{};
inline constexpr operation<ops::set_union> set_union{};
inline constexpr operation<ops::set_intersection> set_intersection{};
inline constexpr operation<ops::set_difference> set_difference{};
inline constexpr operation<ops::set_symmetric_difference> set_symmetric_difference{};

}  // namespace prism
