// SPDX-License-Identifier: Apache-2.0
#pragma once
// The scan family, callable from plain C++: prefix sums (and running minima and maxima), the same
// restarting at every change of key, and the selections built on a scan of flags (compaction,
// stable partition, unique, run-length encoding, reduce by key). The standard operations on the
// standard types are compiled into the library (algorithms/scan/); CUDA code can run the same
// implementations with its own operators, predicates and equalities through <prism/scan.cuh>.
//
//   prism::inclusive_scan(x, out);                                   // out[i] = x[0] + ... + x[i]
//   prism::exclusive_scan(prism::par.on(stream), x, out);            // out[i] = x[0] + ... + x[i-1]
//   prism::exclusive_scan(x, out, init);                             // init + x[0] + ... + x[i-1]
//   prism::inclusive_scan(x, out, prism::scan_op::max);              // running maximum
//   prism::reduce_by_key(keys, x, keys_out, out, prism::scan_op::min); // each run's minimum
//   std::size_t kept = prism::compact(values, flags, out);           // returned: the call waits
//   prism::compact(prism::par.on(stream), values, flags, out, count); // into count[0]: nothing waits
//
// Semantics, the same in every implementation (the cpu one included):
// - Types: scans, compact, partition, unique and run_length_encode of float, double, int8,
//   uint8, int16, uint16, int32, int64, uint32, uint64 (char as int8: a std::string's bytes);
//   the by-key operations' values of the six wider ones. out has x's type, and a scan
//   accumulates in that type: an int32 prefix sum is int32 and wraps around (two's complement)
//   past 2^31, as prism's integer arithmetic does everywhere (torch.cumsum would widen to int64;
//   cast first if you need that). Floating-point scans add in T, in an order that differs between
//   implementations: the error of the prefix at i grows with i, as any float sum's does.
// - exclusive_scan starts at the operation's identity: 0 for sum, +infinity (the largest integer)
//   for min, -infinity (the lowest integer) for max; out[0] is that identity. Given an init
//   (std::exclusive_scan's form, init before the operator), it starts there: out[0] is init.
// - min and max propagate NaN: from the first NaN on, every inclusive prefix is NaN.
// - In place: out may be x exactly (same address, same size) for every scan; never partly.
// - By key: the sum (or min, max) restarts at every element whose key differs from the one before
//   it (keys compared with ==; equal keys that are not adjacent are separate runs). Keys int32,
//   int64, uint32 or uint64, values of the six wider types; exclusive_scan_by_key gives the
//   identity (as exclusive_scan's: 0 for sum) at the first element of every run. reduce_by_key
//   takes the same operations: each run's sum, min or max (NaN propagating, as the scans').
// - compact keeps values[i] where flags[i] != 0 (flags of bool or an integer type of 1 byte, or of
//   4 or 8 bytes over values of 4 or 8 bytes), in their order. partition
//   writes the kept ones first and the others after them, both in their original order (stable;
//   CUB's DevicePartition writes the others in reverse, which prism's cub implementation undoes).
//   unique drops every element equal to the one before it; unique_by_key does so by key, keeping
//   the value of each run's first element; run_length_encode writes each run's first element and
//   its length (in the counts' type: int32, uint32, int64 or uint64; an input longer than a
//   32-bit count holds is refused); reduce_by_key each run's first key and the sum of its
//   values (in the value type, wrapping for integers). Floating-point values compare with ==: -0.0 equals +0.0, a NaN equals
//   nothing (each NaN is a run of its own). What a selection writes of a run is the bits of its
//   first element (a run of -0.0 and +0.0 reports whichever came first), in every implementation.
// - Outputs of the selections: only the first `count` elements are written (partition writes all
//   n). An output of the input's size or larger (its first n elements are the call's) is written
//   as it is. A smaller one is a counted output, as std::copy_if's destination is: it is taken when
//   it holds what the call writes, which prism counts first, in the implementation that runs (a
//   pass over the flags for compact, over the values or keys for unique, unique_by_key,
//   run_length_encode and reduce_by_key: n bytes of flags, or n keys, read once more). In bytes
//   moved: a float compaction keeping half moves 7 bytes per element and 8 counted (+14%); a
//   float unique of runs of 4 moves 5 and 9 counted (+80%), the count pass reading every value
//   again; docs/benchmarks/scan.md's rows compact/float/<impl>_counted and
//   unique/float/<impl>_counted at 2^28 measure it against the input-sized rows. The call then
//   waits for that count (a counted output cannot be captured into a graph) and refuses,
//   std::invalid_argument naming the count with nothing written, an output too small. A
//   partition's output holds n or is refused. In place: compact,
//   partition (stably), unique and unique_by_key (both outputs) take their output equal to their
//   input exactly, in every implementation (raw's compaction and unique in their one pass; raw's
//   partition and cub through a copy of the input in scratch, n elements more read and written);
//   a partial overlap is refused, and run_length_encode and reduce_by_key never run in place.
//   The count comes back returned (the call waits for the stream) or into a
//   one-element array (device memory, host memory for cpu; nothing waits, except in
//   impl::thrust, whose Thrust algorithms return their count to the host).
// - Empty input: nothing is written; a selection's count is 0 (delivered as well).
// - Determinism: integer results, minima and maxima and what every selection keeps are exact.
//   Floating-point sums (scans, reduce_by_key) are not bitwise reproducible from run to run on the
//   GPU: raw, cub and thrust (CUB's scan) use decoupled look-back, where a tile adds up whichever
//   predecessors' states it finds published, so the grouping (and the last bits) can change. cpu
//   is reproducible on a machine with the same number of processors.
// - Sizes past 2^32 work in every implementation, except two that prism refuses with
//   std::invalid_argument naming the limit: cub's run_length_encode of integers (CUB's Encode
//   counts in int) and thrust's unique (Thrust's unique counts in int), past 2^31 - 1 elements.
// - Graph capture: every scan in every GPU implementation may be captured; a selection may be when
//   its count goes to a device array, its outputs are not counted, and the implementation is raw
//   or cub.
#include <prism/automatic.hpp>
#include <prism/dispatch.hpp>
#include <prism/execution.hpp>
#include <prism/operation.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace prism {

// The family's registry, which the tests and benchmarks iterate.
inline constexpr impl scan_implementations[] = {impl::cpu, impl::thrust, impl::raw, impl::cub};

// `automatic` on device memory (host memory runs cpu): raw's single launch is ahead on small
// arrays, CUB's kernels on large ones, from the bytes moved (every array's bytes) below on, by
// operation and width (the widest element type of the call): scan_cub_from_bytes, which
// include/prism/automatic.hpp holds, generated from docs/benchmarks/scan.json.gz;
// run_length_encode of floating-point values by a table of its own (its cub implementation is
// another CUB algorithm; scan_floating_runs_family below). run_length_encode of integers returns
// to raw past 2^31 - 1 elements, where cub refuses (CUB's Encode counts in int).
enum class scan_operation {
  scan, scan_by_key, compact, partition, unique, run_length_encode, unique_by_key, reduce_by_key
};

constexpr std::size_t scan_cub_from(scan_operation op, std::size_t width) noexcept {
  return scan_cub_from_bytes[static_cast<std::size_t>(op)][width > 4 ? 1 : 0];
}

// The family as one operation of one width offers it: raw, cub from CubFrom bytes moved, raw again
// from RawFrom.
template <std::size_t CubFrom, std::size_t RawFrom>
  requires(CubFrom <= RawFrom)  // dispatch takes the last row that applies: rows ascend
inline constexpr automatic_row scan_automatic_rows[3] = {{0, impl::raw}, {CubFrom, impl::cub}, {RawFrom, impl::raw}};
template <scan_operation Op, std::size_t Width, std::size_t RawFrom = SIZE_MAX>
inline constexpr family scan_family_of{scan_implementations, scan_automatic_rows<scan_cub_from(Op, Width), RawFrom>};
// run_length_encode of floating-point values (and under any equality but integers' ==), whose cub
// implementation is CUB's reduce-by-key dispatch carrying each run's first value (CUB's Encode
// would write each run's last): its own table, run_length_encode_floating_cub_from_bytes.
inline constexpr family scan_floating_runs_family{
    scan_implementations, scan_automatic_rows<run_length_encode_floating_cub_from_bytes, SIZE_MAX>};

// In place, CUB's selections copy their input into scratch first (n elements more read and
// written), while raw's compaction and unique run as they are: automatic stays on raw
// (docs/benchmarks/scan.md, "In place": cub_in_place against raw_in_place at 2^28).
inline constexpr automatic_row scan_in_place_rows[1] = {{0, impl::raw}};
inline constexpr family scan_in_place_family{scan_implementations, scan_in_place_rows};

// What a scan combines with.
enum class scan_op { sum, min, max };

constexpr std::string_view name(scan_op op) noexcept {
  switch (op) {
    case scan_op::sum: return "sum";
    case scan_op::min: return "min";
    case scan_op::max: return "max";
  }
  return "unknown";
}

// The element types of the by-key operations' values (scan_by_key, unique_by_key, reduce_by_key).
template <class T>
concept by_key_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint32_t> ||
    std::is_same_v<T, std::uint64_t>;

// The element types compiled into the library for the scans, compact, partition, unique and
// run_length_encode: those, and the small integers (char is int8: a char string's bytes).
template <class T>
concept scan_element = by_key_element<T> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> ||
                       std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t> ||
                       std::is_same_v<T, char>;

// The integer types of run_length_encode's counts: 32 bits hold runs of up to 2^31 - 1 (int32)
// or 2^32 - 1 (uint32) elements, and an input longer than that is refused.
template <class C>
concept run_count_element = std::is_same_v<C, std::int32_t> || std::is_same_v<C, std::int64_t> ||
                            std::is_same_v<C, std::uint32_t> || std::is_same_v<C, std::uint64_t>;

// The key types of the by-key operations.
template <class K>
concept key_element = std::is_same_v<K, std::int32_t> || std::is_same_v<K, std::int64_t> ||
                      std::is_same_v<K, std::uint32_t> || std::is_same_v<K, std::uint64_t>;

// ---- the lesson: from the textbook scan to the single-pass one, one kernel per stage ----------
// algorithms/scan/lesson.cuh has the kernels, what each removes and what it costs in bytes moved.
enum class scan_stage {
  hillis_steele_global,  // 1: one launch per step, each element adds the one 2^k before it
  hillis_steele_shared,  // 2: the same steps in shared memory per block, then block sums added back
  blelloch,              // 3: work-efficient up-sweep and down-sweep in shared memory
  warp_shuffle,          // 4: warp shuffles, several elements per thread, 16-byte loads
  reduce_then_scan,      // 5: reduce each tile, scan the tile sums, scan again: 3n bytes
  decoupled_look_back,   // 6: one pass, tiles learn their prefix from their predecessors: 2n
};
inline constexpr scan_stage scan_lesson[] = {
    scan_stage::hillis_steele_global, scan_stage::hillis_steele_shared, scan_stage::blelloch,
    scan_stage::warp_shuffle,         scan_stage::reduce_then_scan,     scan_stage::decoupled_look_back};
constexpr std::string_view name(scan_stage stage) noexcept {
  constexpr std::string_view names[] = {"hillis_steele_global", "hillis_steele_shared", "blelloch",
                                        "warp_shuffle",         "reduce_then_scan",     "decoupled_look_back"};
  return names[static_cast<int>(stage)];
}

// The types the lesson is compiled for.
template <class T>
concept lesson_element = std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>;

namespace detail {

// What the library is compiled for, by the bits that matter: an integer sum is the same bits
// signed or unsigned (two's complement), integer equality is equality of bits, and a selection
// only moves its payload. So int32 scans run as uint32, keys as unsigned integers of their size,
// payloads as uint32_t or uint64_t.
template <class T>
using bits_of = bits_of_size<sizeof(T)>;
template <class T>
using sum_storage = std::conditional_t<std::is_floating_point_v<T>, T, bits_of<T>>;
// What a minimum or maximum compares: the type itself, char as int8 (whatever char's sign).
template <class T>
using order_storage = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;
template <class T>
using equality_storage = sum_storage<T>;

enum class scan_kind { inclusive, exclusive };
enum class selection { compact, partition };

// The library's entry points (algorithms/scan/*.cu). `count` is the one-element count array, or
// null: the count is returned.
// `init`: where an exclusive scan starts, or null for the operation's identity.
template <class T>
void scan_sum(const execution_policy&, scan_kind, span<const T> x, span<T> out, const T* init);
template <class T>
void scan_extremum(const execution_policy&, scan_kind, bool largest, span<const T> x, span<T> out, const T* init);
template <class K, class T>
void scan_by_key_sum(const execution_policy&, scan_kind, span<const K> keys, span<const T> x, span<T> out);
template <class K, class T>
void scan_by_key_extremum(const execution_policy&, scan_kind, bool largest, span<const K> keys, span<const T> x,
                          span<T> out);
template <class P, class S>
std::size_t select_flagged(const execution_policy&, selection, span<const P> values, span<const S> flags, span<P> out,
                           span<std::size_t>* count);
template <class T>
std::size_t unique(const execution_policy&, span<const T> values, span<T> out, span<std::size_t>* count);
template <class K, class P>
std::size_t unique_by_key(const execution_policy&, span<const K> keys, span<const P> values,
                          span<K> keys_out, span<P> values_out, span<std::size_t>* count);
template <class T, class C>
std::size_t run_length_encode(const execution_policy&, span<const T> values, span<T> unique_out, span<C> counts_out,
                              span<std::size_t>* count);
template <class K, class T>
std::size_t reduce_by_key(const execution_policy&, span<const K> keys, span<const T> values,
                          span<K> keys_out, span<T> sums_out, span<std::size_t>* count);
template <class K, class T>
std::size_t reduce_by_key_extremum(const execution_policy&, bool largest, span<const K> keys, span<const T> values,
                                   span<K> keys_out, span<T> out, span<std::size_t>* count);
template <lesson_element T>
void inclusive_scan_by_stage(scan_stage, const execution_policy&, span<const T> x, span<T> out);

template <class T>
void scan(const execution_policy& policy, scan_kind kind, scan_op op, span<const T> x, span<T> out,
          const T* init = nullptr) {
  if (op == scan_op::sum) {
    using S = sum_storage<T>;
    const S start = init ? static_cast<S>(*init) : S(0);
    scan_sum<S>(policy, kind, reinterpret_span<const S>(x), reinterpret_span<S>(out), init ? &start : nullptr);
  } else {
    using E = order_storage<T>;
    const E start = init ? static_cast<E>(*init) : E{};
    scan_extremum<E>(policy, kind, op == scan_op::max, reinterpret_span<const E>(x), reinterpret_span<E>(out),
                     init ? &start : nullptr);
  }
}

template <class K, class T>
void scan_by_key(const execution_policy& policy, scan_kind kind, scan_op op, span<const K> keys, span<const T> x,
                 span<T> out) {
  using KB = bits_of<K>;
  if (op == scan_op::sum) {
    using S = sum_storage<T>;
    scan_by_key_sum<KB, S>(policy, kind, reinterpret_span<const KB>(keys), reinterpret_span<const S>(x),
                           reinterpret_span<S>(out));
  } else {
    scan_by_key_extremum<KB, T>(policy, kind, op == scan_op::max, reinterpret_span<const KB>(keys), x, out);
  }
}

// The count returned, or delivered into an array.
template <class Entry>
std::size_t count_returned(Entry entry) {
  return entry(static_cast<span<std::size_t>*>(nullptr));
}
template <class C, class Entry>
void count_into(C&& count, Entry entry) {
  span<std::size_t> c = output_span(count);
  entry(&c);
}

}  // namespace detail

// A writable output of a compiled element type, and inputs of its type.
template <class O>
concept scan_output =
    array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>> && scan_element<value_t<O>>;
template <class X, class O>
concept scan_arrays = scan_output<O> && array_of<X, value_t<O>>;
// The same, of the by-key operations' value types.
template <class X, class O>
concept by_key_arrays = scan_arrays<X, O> && by_key_element<value_t<O>>;
template <class K>
concept key_array = array_like<std::remove_reference_t<K>> && key_element<value_t<K>>;
// Flags: bool or any integer of 1, 4 or 8 bytes (nonzero keeps: only the bits matter); flags of 4
// or 8 bytes with values of 4 or 8 bytes.
template <class F>
concept flag_array = array_like<std::remove_reference_t<F>> &&
                     (std::is_same_v<value_t<F>, bool> || std::is_integral_v<value_t<F>>) &&
                     (sizeof(value_t<F>) == 1 || sizeof(value_t<F>) == 4 || sizeof(value_t<F>) == 8);
template <class F, class T>
concept flags_for = flag_array<F> && (sizeof(value_t<F>) == 1 || sizeof(T) >= 4);
// Counts of run_length_encode.
template <class N>
concept run_counts = array_like<std::remove_reference_t<N>> && !std::is_const_v<element_t<N>> &&
                     run_count_element<value_t<N>>;
// A one-element array for a count.
template <class C>
concept count_array = writable_array_of<C, std::size_t>;

namespace detail {
static_assert(sizeof(bool) == 1);  // bool is one byte holding 0 or 1 where CUDA runs
template <class X, class F, class O>
std::size_t select(const execution_policy& policy, selection which, X&& values, F&& flags, O&& out,
                   span<std::size_t>* count) {
  using P = bits_of<value_t<O>>;
  using S = bits_of<value_t<F>>;
  return select_flagged<P, S>(policy, which, reinterpret_span<const P>(input_span(values)),
                              reinterpret_span<const S>(input_span(flags)), reinterpret_span<P>(output_span(out)),
                              count);
}
template <class X, class O>
std::size_t unique_values(const execution_policy& policy, X&& values, O&& out, span<std::size_t>* count) {
  using E = equality_storage<value_t<O>>;
  return unique<E>(policy, reinterpret_span<const E>(input_span(values)), reinterpret_span<E>(output_span(out)), count);
}
template <class K, class X, class KO, class O>
std::size_t unique_pairs(const execution_policy& policy, K&& keys, X&& values, KO&& keys_out, O&& values_out,
                         span<std::size_t>* count) {
  using KB = bits_of<value_t<K>>;
  using P = bits_of<value_t<O>>;
  return unique_by_key<KB, P>(policy, reinterpret_span<const KB>(input_span(keys)), reinterpret_span<const P>(input_span(values)),
                              reinterpret_span<KB>(output_span(keys_out)), reinterpret_span<P>(output_span(values_out)), count);
}
// Counts of L hold any run of n elements, or the call is refused before anything is written.
template <class L>
void check_run_lengths(std::size_t n) {
  constexpr std::size_t longest = static_cast<std::size_t>(std::numeric_limits<L>::max());
  if (n > longest) {
    throw std::invalid_argument("prism::run_length_encode: " + std::to_string(n) + " elements are more than counts of " +
                                std::to_string(sizeof(L) * 8) + " bits hold (a run may be that long); use 64-bit counts");
  }
}
template <class X, class O, class C>
std::size_t encode_runs(const execution_policy& policy, X&& values, O&& unique_out, C&& counts_out,
                        span<std::size_t>* count) {
  using E = equality_storage<value_t<O>>;
  using N = bits_of<value_t<C>>;
  const auto x = input_span(values);
  check_run_lengths<value_t<C>>(x.size());
  return run_length_encode<E, N>(policy, reinterpret_span<const E>(x), reinterpret_span<E>(output_span(unique_out)),
                                 reinterpret_span<N>(output_span(counts_out)), count);
}
template <class K, class X, class KO, class O>
std::size_t reduce_runs(const execution_policy& policy, scan_op op, K&& keys, X&& values, KO&& keys_out, O&& out,
                        span<std::size_t>* count) {
  using KB = bits_of<value_t<K>>;
  const auto k = reinterpret_span<const KB>(input_span(keys));
  const auto ko = reinterpret_span<KB>(output_span(keys_out));
  if (op == scan_op::sum) {
    using S = sum_storage<value_t<O>>;
    return reduce_by_key<KB, S>(policy, k, reinterpret_span<const S>(input_span(values)), ko,
                                reinterpret_span<S>(output_span(out)), count);
  }
  return reduce_by_key_extremum<KB, value_t<O>>(policy, op == scan_op::max, k, input_span(values), ko,
                                                output_span(out), count);
}
}  // namespace detail

namespace ops {
struct inclusive_scan { static constexpr const char* name = "inclusive_scan"; };
struct exclusive_scan { static constexpr const char* name = "exclusive_scan"; };
struct inclusive_scan_by_key { static constexpr const char* name = "inclusive_scan_by_key"; };
struct exclusive_scan_by_key { static constexpr const char* name = "exclusive_scan_by_key"; };
struct compact { static constexpr const char* name = "compact"; };
struct partition { static constexpr const char* name = "partition"; };
struct unique { static constexpr const char* name = "unique"; };
struct unique_by_key { static constexpr const char* name = "unique_by_key"; };
struct run_length_encode { static constexpr const char* name = "run_length_encode"; };
struct reduce_by_key { static constexpr const char* name = "reduce_by_key"; };

// ---- scans: with a policy first or without (automatic, the default stream) ---------------------

// out[i] = x[0] op x[1] op ... op x[i].
template <class X, class O>
  requires scan_arrays<X, O>
void run(inclusive_scan, const execution_policy& policy, X&& x, O&& out, scan_op op = scan_op::sum) {
  detail::scan(policy, detail::scan_kind::inclusive, op, input_span(x), output_span(out));
}

// out[i] = identity op x[0] op ... op x[i-1]; out[0] is the identity.
template <class X, class O>
  requires scan_arrays<X, O>
void run(exclusive_scan, const execution_policy& policy, X&& x, O&& out, scan_op op = scan_op::sum) {
  detail::scan(policy, detail::scan_kind::exclusive, op, input_span(x), output_span(out));
}
// std::exclusive_scan's form: out[i] = init op x[0] op ... op x[i-1]; out[0] is init (in the
// elements' type: a fractional init of integers does not compile).
template <class X, class O, class I>
  requires scan_arrays<X, O> && std::is_arithmetic_v<I> && std::convertible_to<I, value_t<X>> &&
           (!std::is_floating_point_v<I> || std::is_floating_point_v<value_t<X>>)
void run(exclusive_scan, const execution_policy& policy, X&& x, O&& out, I init, scan_op op = scan_op::sum) {
  const auto start = static_cast<value_t<X>>(init);
  detail::scan(policy, detail::scan_kind::exclusive, op, input_span(x), output_span(out), &start);
}

// out[i] = the sum (or min, max) of x[j] for the j <= i of i's run of equal keys.
template <class K, class X, class O>
  requires key_array<K> && by_key_arrays<X, O>
void run(inclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, scan_op op = scan_op::sum) {
  detail::scan_by_key(policy, detail::scan_kind::inclusive, op, input_span(keys), input_span(x), output_span(out));
}

// out[i] = the sum (or min, max) of x[j] for the j < i of i's run of equal keys (the identity at
// each run's start: 0, or as exclusive_scan's).
template <class K, class X, class O>
  requires key_array<K> && by_key_arrays<X, O>
void run(exclusive_scan_by_key, const execution_policy& policy, K&& keys, X&& x, O&& out, scan_op op = scan_op::sum) {
  detail::scan_by_key(policy, detail::scan_kind::exclusive, op, input_span(keys), input_span(x), output_span(out));
}

// ---- selections: the count returned, or into count[0] -----------------------------------------

// The values whose flag is not 0, in order, to out[0, count).
template <class X, class F, class O>
  requires scan_arrays<X, O> && flags_for<F, value_t<O>>
std::size_t run(compact, const execution_policy& policy, X&& values, F&& flags, O&& out) {
  return detail::count_returned([&](auto* c) { return detail::select(policy, detail::selection::compact, values, flags, out, c); });
}
template <class X, class F, class O, class C>
  requires scan_arrays<X, O> && flags_for<F, value_t<O>> && count_array<C>
void run(compact, const execution_policy& policy, X&& values, F&& flags, O&& out, C&& count) {
  detail::count_into(count, [&](auto* c) { return detail::select(policy, detail::selection::compact, values, flags, out, c); });
}

// The values whose flag is not 0 first, then the others, each in its original order; returns (or
// delivers) how many were flagged.
template <class X, class F, class O>
  requires scan_arrays<X, O> && flags_for<F, value_t<O>>
std::size_t run(partition, const execution_policy& policy, X&& values, F&& flags, O&& out) {
  return detail::count_returned([&](auto* c) { return detail::select(policy, detail::selection::partition, values, flags, out, c); });
}
template <class X, class F, class O, class C>
  requires scan_arrays<X, O> && flags_for<F, value_t<O>> && count_array<C>
void run(partition, const execution_policy& policy, X&& values, F&& flags, O&& out, C&& count) {
  detail::count_into(count, [&](auto* c) { return detail::select(policy, detail::selection::partition, values, flags, out, c); });
}

// Each element that differs from the one before it (the first of every run of equal ones).
template <class X, class O>
  requires scan_arrays<X, O>
std::size_t run(unique, const execution_policy& policy, X&& values, O&& out) {
  return detail::count_returned([&](auto* c) { return detail::unique_values(policy, values, out, c); });
}
template <class X, class O, class C>
  requires scan_arrays<X, O> && count_array<C>
void run(unique, const execution_policy& policy, X&& values, O&& out, C&& count) {
  detail::count_into(count, [&](auto* c) { return detail::unique_values(policy, values, out, c); });
}

// The first key of every run of equal keys, and its value.
template <class K, class X, class KO, class O>
  requires key_array<K> && writable_array_of<KO, value_t<K>> && by_key_arrays<X, O>
std::size_t run(unique_by_key, const execution_policy& policy, K&& keys, X&& values, KO&& keys_out, O&& values_out) {
  return detail::count_returned(
      [&](auto* c) { return detail::unique_pairs(policy, keys, values, keys_out, values_out, c); });
}
template <class K, class X, class KO, class O, class C>
  requires key_array<K> && writable_array_of<KO, value_t<K>> && by_key_arrays<X, O> && count_array<C>
void run(unique_by_key, const execution_policy& policy, K&& keys, X&& values, KO&& keys_out, O&& values_out, C&& count) {
  detail::count_into(count, [&](auto* c) { return detail::unique_pairs(policy, keys, values, keys_out, values_out, c); });
}

// Every run of equal values as (value, length): unique_out[j] and counts_out[j] for j < count.
template <class X, class O, class N>
  requires scan_arrays<X, O> && run_counts<N>
std::size_t run(run_length_encode, const execution_policy& policy, X&& values, O&& unique_out, N&& counts_out) {
  return detail::count_returned([&](auto* c) { return detail::encode_runs(policy, values, unique_out, counts_out, c); });
}
template <class X, class O, class N, class C>
  requires scan_arrays<X, O> && run_counts<N> && count_array<C>
void run(run_length_encode, const execution_policy& policy, X&& values, O&& unique_out, N&& counts_out, C&& count) {
  detail::count_into(count, [&](auto* c) { return detail::encode_runs(policy, values, unique_out, counts_out, c); });
}

// Every run of equal keys as (key, sum of its values), or its min or max with scan_op.
template <class K, class X, class KO, class O>
  requires key_array<K> && writable_array_of<KO, value_t<K>> && by_key_arrays<X, O>
std::size_t run(reduce_by_key, const execution_policy& policy, K&& keys, X&& values, KO&& keys_out, O&& sums_out,
                scan_op op = scan_op::sum) {
  return detail::count_returned(
      [&](auto* c) { return detail::reduce_runs(policy, op, keys, values, keys_out, sums_out, c); });
}
template <class K, class X, class KO, class O, class C>
  requires key_array<K> && writable_array_of<KO, value_t<K>> && by_key_arrays<X, O> && count_array<C>
void run(reduce_by_key, const execution_policy& policy, K&& keys, X&& values, KO&& keys_out, O&& sums_out, C&& count,
         scan_op op = scan_op::sum) {
  detail::count_into(count, [&](auto* c) { return detail::reduce_runs(policy, op, keys, values, keys_out, sums_out, c); });
}

// ---- the lesson --------------------------------------------------------------------------------
// The inclusive prefix sum by one stage of the lesson (device memory; the policy's stream and
// scratch; its implementation is not used). Tested and timed beside the implementations.
template <class X, class O>
  requires scan_arrays<X, O> && lesson_element<value_t<O>>
void run(inclusive_scan, scan_stage stage, const execution_policy& policy, X&& x, O&& out) {
  detail::inclusive_scan_by_stage<value_t<O>>(stage, policy, input_span(x), output_span(out));
}
}  // namespace ops

inline constexpr operation<ops::inclusive_scan> inclusive_scan{};
inline constexpr operation<ops::exclusive_scan> exclusive_scan{};
inline constexpr operation<ops::inclusive_scan_by_key> inclusive_scan_by_key{};
inline constexpr operation<ops::exclusive_scan_by_key> exclusive_scan_by_key{};
inline constexpr operation<ops::compact> compact{};
inline constexpr operation<ops::partition> partition{};
inline constexpr operation<ops::unique> unique{};
inline constexpr operation<ops::unique_by_key> unique_by_key{};
inline constexpr operation<ops::run_length_encode> run_length_encode{};
inline constexpr operation<ops::reduce_by_key> reduce_by_key{};

}  // namespace prism
