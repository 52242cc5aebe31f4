// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sharded sort, argsort, histogram, top-k, compact and unique: the part of <prism/distributed.hpp>
// (which includes this header, and whose opening comment describes them) whose results are sized
// or placed by the data. Include either header.
#include <prism/distributed.hpp>
#include <prism/histogram.hpp>
#include <prism/top_k.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace prism {

// ---- sorting ----------------------------------------------------------------------------------

// What a sharded sort did, for whoever measures it: the wall clock of each phase on this process
// (every local GPU waited for at the phase's end), and the balance of the result.
struct sharded_sort_report {
  double local_sort_ms = 0;  // each shard sorted alone
  double exchange_ms = 0;    // samples, splitters, cuts and the all-to-all exchange
  double merge_ms = 0;       // the received runs merged
  std::uint64_t largest_shard = 0;  // of the result, over every rank
  double imbalance = 0;             // largest_shard over n / k: 1 is perfectly even
};

// The keys and values of a sharded sort_by_key, split alike.
template <class K, class V>
struct sorted_by_key {
  sharded<K> keys;
  sharded<V> values;
};

namespace detail {
// Every local shard's memory, in local order: what the compiled entry points take.
template <class T>
std::vector<const void*> shard_pointers(const sharded<T>& a) {
  std::vector<const void*> pointers;
  for (int g = 0; g < a.local_count(); ++g) pointers.push_back(a.local(g).data());
  return pointers;
}

// A regular sample of a sorted shard: its key's place in the sort family's order (merge's
// key_order ordinal, -0.0 as +0.0) and where it is. (ordinal, rank, position) orders every key
// of every shard as the stable global sort does.
struct sort_sample {
  std::uint64_t ordinal = 0;
  std::uint32_t rank = 0;
  std::uint32_t valid = 0;  // 0: padding of a shard with fewer elements than samples
  std::uint64_t position = 0;
  std::uint64_t weight = 0;  // the keys it stands for: from it to its rank's next sample
};
inline constexpr std::uint64_t samples_per_rank = 1024;
// The k - 1 splitters: the valid samples sorted; splitter j is the first whose samples before it
// stand for j n / k keys or more (weighted, so shards of different sizes count by their keys).
std::vector<sort_sample> choose_splitters(std::vector<sort_sample> samples, int k);
// Where rank `rank`'s sorted shard is cut by a splitter, from the splitter's ordinal's lower and
// upper bounds in it: the keys that go before the splitter in (ordinal, rank, position) order.
constexpr std::uint64_t cut_at(const sort_sample& splitter, std::uint32_t rank, std::uint64_t lower,
                               std::uint64_t upper) noexcept {
  if (rank < splitter.rank) return upper;
  if (rank > splitter.rank) return lower;
  return splitter.position;  // the same rank: its keys equal to the splitter's before it
}
// From every rank's k + 1 cuts (rank-major): the size of every rank's shard after the exchange.
std::vector<std::uint64_t> sizes_after_exchange(const std::vector<std::uint64_t>& cuts, int k);

// The outputs of a sharded sort, made once their sizes are known (a collective call): every local
// shard's keys and values (none for sort).
struct sort_outputs {
  std::vector<void*> keys, values;
};
using make_sort_outputs = std::function<sort_outputs(const std::vector<std::uint64_t>& sizes)>;
// The compiled entry point (algorithms/distributed/sort.cu): B is the values' bits (uint32_t or
// uint64_t), or void for keys alone; values[g] is local GPU g's shard of them, split like the keys.
template <sort_key K, class B>
void sort_sharded(const execution_policy& policy, const sharded<K>& keys, const std::vector<const void*>& values,
                  const make_sort_outputs& make, sharded_sort_report* report);
template <class V>
using sort_value_bits = std::conditional_t<sizeof(V) == 4, std::uint32_t, std::uint64_t>;
}  // namespace detail

namespace ops {
// The keys in ascending order as a new sharded array (its shards sized by the data, see above).
template <sort_key K>
sharded<K> run(sort, const execution_policy& policy, const sharded<K>& keys, sharded_sort_report* report = nullptr) {
  std::optional<sharded<K>> out;
  detail::sort_sharded<K, void>(
      policy, keys, {},
      [&](const std::vector<std::uint64_t>& sizes) {
        out.emplace(keys.comm(), sizes);
        detail::sort_outputs made;
        for (int g = 0; g < keys.local_count(); ++g) made.keys.push_back(out->local(g).data());
        return made;
      },
      report);
  return std::move(*out);
}
// Keys and values (split alike) by key, stably, as two new sharded arrays split alike.
template <sort_key K, sort_value V>
sorted_by_key<K, V> run(sort_by_key, const execution_policy& policy, const sharded<K>& keys, const sharded<V>& values,
                        sharded_sort_report* report = nullptr) {
  detail::require_aligned("sort_by_key", {&keys.layout(), &values.layout()});
  std::optional<sharded<K>> out_keys;
  std::optional<sharded<V>> out_values;
  detail::sort_sharded<K, detail::sort_value_bits<V>>(
      policy, keys, detail::shard_pointers(values),
      [&](const std::vector<std::uint64_t>& sizes) {
        out_keys.emplace(keys.comm(), sizes);
        out_values.emplace(keys.comm(), sizes);
        detail::sort_outputs made;
        for (int g = 0; g < keys.local_count(); ++g) {
          made.keys.push_back(out_keys->local(g).data());
          made.values.push_back(out_values->local(g).data());
        }
        return made;
      },
      report);
  return {std::move(*out_keys), std::move(*out_values)};
}
}  // namespace ops

namespace ops {
// The global positions (int64) that sort the keys stably: keys[result[i]] is the i-th smallest.
// Split as the sort's result is (by the data).
template <sort_key K>
sharded<std::int64_t> run(argsort, const execution_policy& policy, const sharded<K>& keys,
                          sharded_sort_report* report = nullptr) {
  std::vector<std::uint64_t> sizes;
  for (int r = 0; r < keys.comm().size(); ++r) sizes.push_back(keys.layout().count(r));
  sharded<std::int64_t> positions(keys.comm(), sizes);
  run(sequence{}, policy, positions, std::int64_t{0}, std::int64_t{1});
  return run(sort_by_key{}, policy, keys, positions, report).values;
}
}  // namespace ops

// ---- histogram -------------------------------------------------------------------------------

namespace detail {
// The compiled entry point (algorithms/distributed/histogram.cu): every shard's histogram into
// `counts` on its GPU, then one all-reduce. `edges` null: equal bins over [lo, hi). `host` not
// null: the counts also come back there (the call waits).
template <class T, class C>
void histogram_sharded(const execution_policy& policy, const sharded<T>& samples, histogram_level_t<T> lo,
                       histogram_level_t<T> hi, const replicated<histogram_level_t<T>>* edges, replicated<C>& counts,
                       std::vector<C>* host);
template <class T>
concept sharded_histogram_sample = histogram_sample<T> && !std::is_same_v<T, char>;
}  // namespace detail

namespace ops {
// counts.local(g).size() equal bins over [lo, hi), the same counts on every local GPU (nothing waits).
template <detail::sharded_histogram_sample T, histogram_counter C>
void run(histogram, const execution_policy& policy, const sharded<T>& samples, replicated<C>& counts,
         histogram_level_t<T> lo, histogram_level_t<T> hi) {
  detail::histogram_sharded<T, C>(policy, samples, lo, hi, nullptr, counts, nullptr);
}
// `bins` equal bins over [lo, hi), returned (the call waits).
template <detail::sharded_histogram_sample T>
std::vector<std::uint64_t> run(histogram, const execution_policy& policy, const sharded<T>& samples, std::size_t bins,
                               histogram_level_t<T> lo, histogram_level_t<T> hi) {
  replicated<std::uint64_t> counts(samples.comm(), bins);
  std::vector<std::uint64_t> host;
  detail::histogram_sharded<T, std::uint64_t>(policy, samples, lo, hi, nullptr, counts, &host);
  return host;
}
// Bin k: edges[k] <= x < edges[k + 1], the edges on every local GPU; counts one fewer.
template <detail::sharded_histogram_sample T, histogram_counter C>
void run(histogram, const execution_policy& policy, const sharded<T>& samples,
         const replicated<histogram_level_t<T>>& edges, replicated<C>& counts) {
  detail::histogram_sharded<T, C>(policy, samples, {}, {}, &edges, counts, nullptr);
}
template <detail::sharded_histogram_sample T>
std::vector<std::uint64_t> run(histogram, const execution_policy& policy, const sharded<T>& samples,
                               const replicated<histogram_level_t<T>>& edges) {
  const std::size_t levels = edges.local(0).size();
  replicated<std::uint64_t> counts(samples.comm(), levels > 0 ? levels - 1 : 0);
  std::vector<std::uint64_t> host;
  detail::histogram_sharded<T, std::uint64_t>(policy, samples, {}, {}, &edges, counts, &host);
  return host;
}
}  // namespace ops

// ---- top-k -------------------------------------------------------------------------------------

// The k best elements of a sharded array, best first, and their global indices.
template <class T>
struct sharded_top_k {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

namespace detail {
// Throws std::invalid_argument unless `output` (of `size` elements on every local GPU) is on the
// communicator `comm` and holds `want` elements.
inline constexpr std::size_t any_size = ~std::size_t{0};
void require_replicated(const char* algorithm, const char* what, const communicator& comm, const communicator& output,
                        std::size_t size, std::size_t want = any_size);
// The compiled entry point (algorithms/distributed/top_k.cu), per element size: B the bits, the
// outputs checked. `host_values` not null: the result also comes back there (the call waits).
template <class B>
void top_k_sharded(const execution_policy& policy, key_kind kind, const communicator& comm, const shard_layout& layout,
                   const std::vector<const void*>& shards, std::size_t k, bool largest,
                   const std::vector<void*>& values, const std::vector<std::int64_t*>& indices, void* host_values,
                   std::int64_t* host_indices);

template <class T>
void top_k_of_shards(const execution_policy& policy, const sharded<T>& x, std::size_t k, replicated<T>& values,
                     replicated<std::int64_t>& indices, bool largest, T* host_values, std::int64_t* host_indices) {
  require_replicated("top_k", "the values", x.comm(), values.comm(), values.local(0).size(), k);
  require_replicated("top_k", "the indices", x.comm(), indices.comm(), indices.local(0).size(), k);
  std::vector<void*> v;
  std::vector<std::int64_t*> i;
  for (int g = 0; g < x.local_count(); ++g) {
    v.push_back(values.local(g).data());
    i.push_back(indices.local(g).data());
  }
  top_k_sharded<bits_of_size<sizeof(T)>>(policy, key_kind_of<T>, x.comm(), x.layout(), shard_pointers(x), k, largest,
                                         v, i, host_values, host_indices);
}
}  // namespace detail

namespace ops {
// values[j] and indices[j], j < k, on every local GPU: the j-th best element (largest, or smallest
// with largest = false) and its global index; ties to the lower index. k = 0 does nothing; k > n
// and outputs of another size than k or on another communicator are refused, nothing written.
template <top_k_element T>
void run(top_k, const execution_policy& policy, const sharded<T>& x, std::size_t k, replicated<T>& values,
         replicated<std::int64_t>& indices, bool largest = true) {
  detail::top_k_of_shards<T>(policy, x, k, values, indices, largest, nullptr, nullptr);
}
// The same, returned (the call waits).
template <top_k_element T>
sharded_top_k<T> run(top_k, const execution_policy& policy, const sharded<T>& x, std::size_t k, bool largest = true) {
  replicated<T> values(x.comm(), k);
  replicated<std::int64_t> indices(x.comm(), k);
  sharded_top_k<T> result{std::vector<T>(k), std::vector<std::int64_t>(k)};
  detail::top_k_of_shards<T>(policy, x, k, values, indices, largest, result.values.data(), result.indices.data());
  return result;
}
}  // namespace ops

// ---- compact and unique ---------------------------------------------------------------------------

namespace detail {
// The new shards of a selection, made once every rank's count is known (a collective call): every
// local shard's memory.
using make_selection = std::function<std::vector<void*>(const std::vector<std::uint64_t>& sizes)>;
// The compiled entry points (algorithms/distributed/select.cu), by bits: P the payload, S the
// flags, E what unique compares (equality_storage). Every shard's pointer in `values` (and `flags`).
template <class P, class S>
void compact_sharded(const execution_policy& policy, const communicator& comm, const shard_layout& layout,
                     const std::vector<const void*>& values, const std::vector<const void*>& flags,
                     const make_selection& make);
template <class E>
void unique_sharded(const execution_policy& policy, const communicator& comm, const shard_layout& layout,
                    const std::vector<const void*>& values, const make_selection& make);

// The new shards of a selection from every rank's count (present: the rank's shard holds elements):
// rank r skips its first kept element (skip[r] = 1) where continues(p, r) says that it continues
// the last run of p, the nearest rank before r whose shard holds elements.
struct selection_plan {
  std::vector<std::uint64_t> sizes, skip;
};
template <class Continues>
selection_plan plan_selection(const std::vector<std::uint64_t>& counts, const std::vector<bool>& present,
                              Continues continues) {
  selection_plan plan{counts, std::vector<std::uint64_t>(counts.size(), 0)};
  int before = -1;
  for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
    if (!present[r]) continue;
    if (before >= 0 && counts[r] > 0 && continues(before, r)) {
      plan.skip[r] = 1;
      plan.sizes[r] -= 1;
    }
    before = r;
  }
  return plan;
}

template <class T>
make_selection make_selected(const communicator& comm, std::optional<sharded<T>>& out) {
  return [&comm, &out](const std::vector<std::uint64_t>& sizes) {
    out.emplace(comm, sizes);
    std::vector<void*> memory;
    for (int g = 0; g < out->local_count(); ++g) memory.push_back(out->local(g).data());
    return memory;
  };
}
}  // namespace detail

namespace ops {
// The values whose flag is not 0 (flags split alike), in order, as a new sharded array whose
// shards follow the data: rank r holds what its own shard kept.
template <scan_element T, class F>
  requires flags_for<span<const F>, T>
sharded<T> run(compact, const execution_policy& policy, const sharded<T>& values, const sharded<F>& flags) {
  detail::require_aligned("compact", {&values.layout(), &flags.layout()});
  std::optional<sharded<T>> out;
  detail::compact_sharded<detail::bits_of<T>, detail::bits_of<F>>(policy, values.comm(), values.layout(),
                                                                  detail::shard_pointers(values),
                                                                  detail::shard_pointers(flags),
                                                                  detail::make_selected(values.comm(), out));
  return std::move(*out);
}
// Each element that differs from the one before it (the previous shard's last element for a
// shard's first), as a new sharded array whose shards follow the data, as compact's.
template <scan_element T>
sharded<T> run(unique, const execution_policy& policy, const sharded<T>& values) {
  std::optional<sharded<T>> out;
  detail::unique_sharded<detail::equality_storage<T>>(policy, values.comm(), values.layout(),
                                                      detail::shard_pointers(values),
                                                      detail::make_selected(values.comm(), out));
  return std::move(*out);
}
}  // namespace ops

}  // namespace prism
