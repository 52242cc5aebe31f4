// SPDX-License-Identifier: Apache-2.0
// Sorting sharded arrays: a sample sort (Shi and Schaeffer's regular sampling), every step of it
// on the GPUs but the choice of k - 1 splitters from k x 1024 samples.
//   1. local sort    every rank sorts its shard with the single-GPU sort (prism::sort, stable)
//                    into a buffer of its own;
//   2. samples       1024 regular samples of every sorted shard, as (ordinal, rank, position),
//                    all-gathered (NCCL); every rank sorts the same samples on the host and takes
//                    the same splitters, so all agree without another exchange;
//   3. cuts          every rank finds each splitter in its sorted shard (two binary searches per
//                    splitter, one thread each) and all-gathers its k + 1 cuts: every rank then
//                    knows what every rank sends to every other, and the new shards' sizes;
//   4. exchange      piece d of rank r's sorted shard goes to rank d: one NCCL group of ncclSend
//                    and ncclRecv with every peer (a copy for the piece a rank keeps), the
//                    received pieces laid out in rank order;
//   5. merge         the k sorted runs, pairwise (prism::merge, stable: the earlier run's element
//                    first on ties), the last round into the new array's shard.
// Telling keys apart by (key, rank, position) makes the splitters exact quantiles of the samples
// whatever the duplicates, and keeps the sort stable: equal keys stay in rank order, and in
// position order within a rank (the local sort is stable).
#include "collectives.hpp"

#include <prism/dispatch.cuh>
#include <prism/merge.cuh>
#include <prism/merge.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/sort.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace prism::detail {

// ---- the host's part: splitters and sizes --------------------------------------------------------

std::vector<sort_sample> choose_splitters(std::vector<sort_sample> samples, int k) {
  std::erase_if(samples, [](const sort_sample& s) { return s.valid == 0; });
  const auto key = [](const sort_sample& s) { return std::tie(s.ordinal, s.rank, s.position); };
  std::sort(samples.begin(), samples.end(), [&](const sort_sample& a, const sort_sample& b) { return key(a) < key(b); });
  std::vector<sort_sample> splitters;
  if (samples.empty()) return splitters;  // no keys anywhere: nothing is cut
  std::uint64_t n = 0;
  for (const sort_sample& s : samples) n += s.weight;
  std::uint64_t before = 0;  // the keys the samples before samples[i] stand for
  std::size_t i = 0;
  for (int j = 1; j < k; ++j) {
    const auto target = static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * j / k);
    while (i + 1 < samples.size() && before < target) before += samples[i++].weight;
    splitters.push_back(samples[i]);
  }
  return splitters;
}

std::vector<std::uint64_t> sizes_after_exchange(const std::vector<std::uint64_t>& cuts, int k) {
  std::vector<std::uint64_t> sizes(k, 0);
  const std::size_t row = static_cast<std::size_t>(k) + 1;
  for (int r = 0; r < k; ++r)
    for (int d = 0; d < k; ++d) sizes[d] += cuts[r * row + d + 1] - cuts[r * row + d];
  return sizes;
}

namespace {

// ---- the GPUs' part ------------------------------------------------------------------------------

// samples[i], i < per_rank: the key at i * n / per_rank of the sorted shard, standing for the keys
// up to the next sample (every key, each for itself, when the shard has fewer; the rest invalid).
template <class B>
__global__ void sample_kernel(const B* keys, std::uint64_t n, std::uint32_t rank, key_order<B> order,
                              sort_sample* samples) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= samples_per_rank) return;
  sort_sample s{};
  const bool spaced = n >= samples_per_rank;
  const std::uint64_t position = spaced ? i * n / samples_per_rank : i;
  if (position < n) {
    s.ordinal = order.ordinal(keys[position]);
    s.rank = rank;
    s.valid = 1;
    s.position = position;
    s.weight = spaced ? (i + 1 == samples_per_rank ? n : (i + 1) * n / samples_per_rank) - position : 1;
  }
  samples[i] = s;
}

// bounds[2j], bounds[2j + 1]: where ordinals[j] starts and ends among the sorted keys.
template <class B>
__global__ void bounds_kernel(const B* keys, std::uint64_t n, key_order<B> order, const std::uint64_t* ordinals,
                              int count, std::uint64_t* bounds) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= count) return;
  const std::uint64_t target = ordinals[j];
  for (int upper = 0; upper < 2; ++upper) {
    std::uint64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      const std::uint64_t o = order.ordinal(keys[mid]);
      if (upper ? o <= target : o < target) lo = mid + 1;
      else hi = mid;
    }
    bounds[2 * j + upper] = lo;
  }
}

using clock = std::chrono::steady_clock;
double ms_since(clock::time_point start) {
  return std::chrono::duration<double, std::milli>(clock::now() - start).count();
}

// An array of keys and maybe values (V void: none), as the merge rounds move them.
template <class K, class V>
struct pairs_view {
  K* keys;
  V* values;
};

// runs (begin, count), adjacent in rank order in `from`, merged stably into `out`: pairwise rounds
// through `spare` (as large as `from`), the last round into `out`.
template <class K, class V>
void merge_runs(const execution_policy& p, const char* algorithm, std::vector<std::pair<std::uint64_t, std::uint64_t>> runs,
                pairs_view<K, V> from, pairs_view<K, V> spare, pairs_view<K, V> out) {
  const auto copy = [&](pairs_view<K, V> to, pairs_view<K, V> src, std::uint64_t begin, std::uint64_t count,
                        std::uint64_t at) {
    check(cudaMemcpyAsync(to.keys + at, src.keys + begin, count * sizeof(K), cudaMemcpyDeviceToDevice, p.stream()),
          "cudaMemcpyAsync", algorithm);
    if constexpr (!std::is_void_v<V>)
      check(cudaMemcpyAsync(to.values + at, src.values + begin, count * sizeof(V), cudaMemcpyDeviceToDevice,
                            p.stream()),
            "cudaMemcpyAsync", algorithm);
  };
  const auto merge_two = [&](pairs_view<K, V> src, std::pair<std::uint64_t, std::uint64_t> a,
                             std::pair<std::uint64_t, std::uint64_t> b, pairs_view<K, V> to, std::uint64_t at) {
    const span<const K> ka(src.keys + a.first, a.second), kb(src.keys + b.first, b.second);
    const span<K> ko(to.keys + at, a.second + b.second);
    if constexpr (std::is_void_v<V>) {
      prism::merge(p, ka, kb, ko);
    } else {
      prism::merge_by_key(p, ka, span<const V>(src.values + a.first, a.second), kb,
                          span<const V>(src.values + b.first, b.second), ko,
                          span<V>(to.values + at, a.second + b.second));
    }
  };
  std::erase_if(runs, [](const auto& run) { return run.second == 0; });
  if (runs.empty()) return;
  if (runs.size() == 1) return copy(out, from, runs[0].first, runs[0].second, 0);
  while (runs.size() > 2) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> next;
    for (std::size_t i = 0; i < runs.size(); i += 2) {
      if (i + 1 == runs.size()) {
        copy(spare, from, runs[i].first, runs[i].second, runs[i].first);
        next.push_back(runs[i]);
      } else {
        merge_two(from, runs[i], runs[i + 1], spare, runs[i].first);
        next.push_back({runs[i].first, runs[i].second + runs[i + 1].second});
      }
    }
    std::swap(from, spare);
    runs = std::move(next);
  }
  merge_two(from, runs[0], runs[1], out, 0);
}

}  // namespace

template <sort_key K, class V>
void sort_sharded(const execution_policy& policy, const sharded<K>& keys, const std::vector<const void*>& values,
                  const make_sort_outputs& make, sharded_sort_report* report) {
  constexpr bool with_values = !std::is_void_v<V>;
  const char* algorithm = with_values ? "sort_by_key" : "sort";
  using B = merge_bits<K>;
  const key_order<B> order{key_kind_of<K>};
  const communicator& comm = keys.comm();
  const int k = comm.size(), local = comm.local_count();
  const std::uint64_t n = keys.size();
  device_guard guard;
  // Every step on local GPU g runs on one stream: the policy's there (the communicator's, or the
  // caller's with one local GPU), so the single-GPU sort and merge are ordered with the rest.
  const auto policy_of = [&](int g) { return shard_policy(algorithm, policy, comm, g); };
  std::vector<cudaStream_t> streams;
  for (int g = 0; g < local; ++g) streams.push_back(policy_of(g).stream());
  const auto wait_all = [&] {
    for (int g = 0; g < local; ++g) {
      guard.set(comm.device(g));
      check(cudaStreamSynchronize(streams[g]), "cudaStreamSynchronize", algorithm);
    }
  };
  const auto values_in = [&](int g) { return static_cast<const V*>(values[g]); };
  sharded_sort_report timing;
  auto started = clock::now();

  // One rank: the single-GPU sort into the new array.
  if (k == 1) {
    const sort_outputs out = make({n});
    guard.set(comm.device(0));
    const execution_policy p = policy_of(0);
    const span<K> keys_out(static_cast<K*>(out.keys[0]), n);
    if constexpr (with_values) {
      prism::sort_by_key(p, keys.local(0), span<const V>(values_in(0), n), keys_out,
                         span<V>(static_cast<V*>(out.values[0]), n));
    } else {
      prism::sort(p, keys.local(0), keys_out);
    }
    if (report != nullptr) {
      wait_all();
      timing.local_sort_ms = ms_since(started);
      timing.largest_shard = n;
      timing.imbalance = 1.0;
      *report = timing;
    }
    return;
  }

  // 1. Every shard sorted alone, into buffers of this call.
  std::vector<on_device<K>> sorted_keys;
  std::vector<on_device<std::conditional_t<with_values, V, char>>> sorted_values;
  for (int g = 0; g < local; ++g) {
    const std::uint64_t m = keys.local_size(g);
    sorted_keys.emplace_back(comm.device(g), m);
    if constexpr (with_values) sorted_values.emplace_back(comm.device(g), m);
    guard.set(comm.device(g));
    if (m == 0) continue;
    const execution_policy p = policy_of(g);
    if constexpr (with_values) {
      prism::sort_by_key(p, keys.local(g), span<const V>(values_in(g), m), span<K>(sorted_keys[g].data(), m),
                         span<V>(sorted_values[g].data(), m));
    } else {
      prism::sort(p, keys.local(g), span<K>(sorted_keys[g].data(), m));
    }
  }
  wait_all();
  timing.local_sort_ms = ms_since(started);
  started = clock::now();

  // 2. Samples, all-gathered; every rank picks the same splitters.
  const std::size_t per_rank = samples_per_rank;
  std::vector<on_device<sort_sample>> samples;
  for (int g = 0; g < local; ++g) {
    samples.emplace_back(comm.device(g), per_rank * (static_cast<std::size_t>(k) + 1));
    guard.set(comm.device(g));
    launch(algorithm, "sample_kernel", sample_kernel<B>, blocks_for(per_rank), block_size, streams[g],
           reinterpret_cast<const B*>(sorted_keys[g].data()), keys.local_size(g),
           static_cast<std::uint32_t>(comm.rank(g)), order, samples[g].data());
  }
  all_gather(
      algorithm, policy, comm, [&](int g) { return samples[g].data(); },
      [&](int g) { return samples[g].data() + per_rank; }, per_rank * sizeof(sort_sample));
  std::vector<sort_sample> gathered(per_rank * static_cast<std::size_t>(k));
  guard.set(comm.device(0));
  read_back(algorithm, streams[0], gathered.data(), samples[0].data() + per_rank,
            gathered.size() * sizeof(sort_sample));
  const std::vector<sort_sample> splitters = choose_splitters(std::move(gathered), k);

  // 3. Every rank's cuts at the splitters, all-gathered (k + 1 per rank: 0, the k - 1 cuts, its size).
  const std::size_t row = static_cast<std::size_t>(k) + 1;
  std::vector<std::uint64_t> ordinals;
  for (const sort_sample& s : splitters) ordinals.push_back(s.ordinal);
  const int count = static_cast<int>(ordinals.size());
  std::vector<on_device<std::uint64_t>> cut_memory;
  // [ordinals (count) | bounds (2 count) | own cuts (row) | every rank's cuts (k row)]
  const auto own_cuts_at = [&](int g) { return cut_memory[g].data() + 3 * ordinals.size(); };
  std::vector<std::vector<std::uint64_t>> bounds(local, std::vector<std::uint64_t>(2 * ordinals.size()));
  for (int g = 0; g < local; ++g) {
    cut_memory.emplace_back(comm.device(g), 3 * ordinals.size() + row * (static_cast<std::size_t>(k) + 1));
    guard.set(comm.device(g));
    std::uint64_t* memory = cut_memory[g].data();
    if (count > 0) {
      check(cudaMemcpyAsync(memory, ordinals.data(), count * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                            streams[g]),
            "cudaMemcpyAsync", algorithm);
      launch(algorithm, "bounds_kernel", bounds_kernel<B>, blocks_for(count), block_size, streams[g],
             reinterpret_cast<const B*>(sorted_keys[g].data()), keys.local_size(g), order,
             static_cast<const std::uint64_t*>(memory), count, memory + count);
      check(cudaMemcpyAsync(bounds[g].data(), memory + count, 2 * count * sizeof(std::uint64_t),
                            cudaMemcpyDeviceToHost, streams[g]),
            "cudaMemcpyAsync", algorithm);
    }
  }
  wait_all();
  std::vector<std::vector<std::uint64_t>> own_cuts(local, std::vector<std::uint64_t>(row));
  for (int g = 0; g < local; ++g) {
    const auto rank = static_cast<std::uint32_t>(comm.rank(g));
    own_cuts[g][0] = 0;
    for (int j = 0; j < k - 1; ++j) {
      // No splitters (no keys anywhere): every cut at the end.
      own_cuts[g][j + 1] = j < count ? cut_at(splitters[j], rank, bounds[g][2 * j], bounds[g][2 * j + 1])
                                     : keys.local_size(g);
    }
    own_cuts[g][k] = keys.local_size(g);
    guard.set(comm.device(g));
    check(cudaMemcpyAsync(own_cuts_at(g), own_cuts[g].data(), row * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                          streams[g]),
          "cudaMemcpyAsync", algorithm);
  }
  all_gather(algorithm, policy, comm, own_cuts_at, [&](int g) { return own_cuts_at(g) + row; },
             row * sizeof(std::uint64_t));
  std::vector<std::uint64_t> cuts(row * static_cast<std::size_t>(k));
  guard.set(comm.device(0));
  read_back(algorithm, streams[0], cuts.data(), own_cuts_at(0) + row, cuts.size() * sizeof(std::uint64_t));
  const std::vector<std::uint64_t> sizes = sizes_after_exchange(cuts, k);
  const auto piece = [&](int from, int to) { return cuts[from * row + to + 1] - cuts[from * row + to]; };
  const auto piece_start = [&](int from, int to) { return cuts[from * row + to]; };

  // 4. The new arrays (a collective call), then the exchange: piece d of every rank to rank d,
  // received in rank order.
  const sort_outputs out = make(sizes);
  std::vector<on_device<K>> received_keys, spare_keys;
  std::vector<on_device<std::conditional_t<with_values, V, char>>> received_values, spare_values;
  for (int g = 0; g < local; ++g) {
    const std::uint64_t m = sizes[comm.rank(g)];
    received_keys.emplace_back(comm.device(g), m);
    spare_keys.emplace_back(comm.device(g), k > 2 ? m : 0);
    if constexpr (with_values) {
      received_values.emplace_back(comm.device(g), m);
      spare_values.emplace_back(comm.device(g), k > 2 ? m : 0);
    }
  }
  const auto exchange = [&](auto element, const auto& from, const auto& into) {
    using T = decltype(element);
    nccl_check(ncclGroupStart(), "ncclGroupStart", algorithm);
    try {
      for (int g = 0; g < local; ++g) {
        guard.set(comm.device(g));
        const int r = comm.rank(g);
        std::uint64_t at = 0;
        for (int d = 0; d < k; ++d) {
          const std::uint64_t sent = piece(r, d), got = piece(d, r);
          T* const target = static_cast<T*>(into[g].data()) + at;
          if (d == r) {
            if (got > 0)
              check(cudaMemcpyAsync(target, static_cast<const T*>(from[g].data()) + piece_start(r, r), got * sizeof(T),
                                    cudaMemcpyDeviceToDevice, streams[g]),
                    "cudaMemcpyAsync", algorithm);
          } else {
            if (sent > 0)
              nccl_check(ncclSend(static_cast<const T*>(from[g].data()) + piece_start(r, d), sent * sizeof(T),
                                  ncclUint8, d, comm.nccl(g), streams[g]),
                         "ncclSend", algorithm);
            if (got > 0)
              nccl_check(ncclRecv(target, got * sizeof(T), ncclUint8, d, comm.nccl(g), streams[g]), "ncclRecv",
                         algorithm);
          }
          at += got;
        }
      }
    } catch (...) {
      (void)ncclGroupEnd();
      throw;
    }
    nccl_check(ncclGroupEnd(), "ncclGroupEnd", algorithm);
  };
  exchange(K{}, sorted_keys, received_keys);
  if constexpr (with_values) exchange(V{}, sorted_values, received_values);
  wait_all();
  timing.exchange_ms = ms_since(started);
  started = clock::now();

  // 5. The k runs received, merged into the new shards.
  for (int g = 0; g < local; ++g) {
    const int r = comm.rank(g);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
    std::uint64_t at = 0;
    for (int d = 0; d < k; ++d) {
      runs.push_back({at, piece(d, r)});
      at += piece(d, r);
    }
    guard.set(comm.device(g));
    const execution_policy p = policy_of(g);
    V* received_v = nullptr;  // V is void for keys alone: no values
    V* spare_v = nullptr;
    V* out_v = nullptr;
    if constexpr (with_values) {
      received_v = received_values[g].data();
      spare_v = spare_values[g].data();
      out_v = static_cast<V*>(out.values[g]);
    }
    merge_runs<K, V>(p, algorithm, std::move(runs), {received_keys[g].data(), received_v},
                      {spare_keys[g].data(), spare_v}, {static_cast<K*>(out.keys[g]), out_v});
  }
  wait_all();
  timing.merge_ms = ms_since(started);
  if (report != nullptr) {
    timing.largest_shard = *std::max_element(sizes.begin(), sizes.end());
    timing.imbalance = n == 0 ? 1.0 : static_cast<double>(timing.largest_shard) * k / static_cast<double>(n);
    *report = timing;
  }
}

#define PRISM_SORT_SHARDED(K)                                                                                   \
  template void sort_sharded<K, void>(const execution_policy&, const sharded<K>&, const std::vector<const void*>&, \
                                      const make_sort_outputs&, sharded_sort_report*);                           \
  template void sort_sharded<K, std::uint32_t>(const execution_policy&, const sharded<K>&,                      \
                                               const std::vector<const void*>&, const make_sort_outputs&,       \
                                               sharded_sort_report*);                                           \
  template void sort_sharded<K, std::uint64_t>(const execution_policy&, const sharded<K>&,                      \
                                               const std::vector<const void*>&, const make_sort_outputs&,       \
                                               sharded_sort_report*);
PRISM_SORT_SHARDED(float)
PRISM_SORT_SHARDED(double)
PRISM_SORT_SHARDED(std::int32_t)
PRISM_SORT_SHARDED(std::int64_t)
PRISM_SORT_SHARDED(std::uint32_t)
PRISM_SORT_SHARDED(std::uint64_t)
#undef PRISM_SORT_SHARDED

}  // namespace prism::detail
