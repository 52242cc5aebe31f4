// SPDX-License-Identifier: Apache-2.0
// compact and unique of sharded arrays: selections whose output size depends on the data.
//   1. local      every rank runs the single-GPU selection on its shard into a buffer of the
//                 shard's size, its count into device memory (nothing waits yet);
//   2. counts     every rank's state, (count, present, first element, last element), all-gathered
//                 in one NCCL call, and read back: every rank then knows every rank's count;
//   3. boundary   unique only: a shard's first element equal to the last element of the nearest
//                 non-empty shard before it is the continuation of that shard's last run, so
//                 it is dropped (the single-GPU unique kept it: it had nothing before it). Every
//                 rank decides this for every rank from the gathered states, with the single-GPU
//                 unique's equality (== in T: -0.0 equals +0.0, a NaN equals nothing);
//   4. output     the new sharded array, rank r's shard holding what rank r kept (a collective
//                 call), filled from the buffer.
// The shards follow the data: no rebalancing, so a selection that keeps little of one shard leaves
// that rank with little (every rank's elements stay on its GPU; nothing else crosses).
#include "collectives.hpp"

#include <prism/distributed_select.hpp>

#include <cstdint>
#include <vector>

namespace prism::detail {
namespace {

// One rank's part of a selection, as gathered. E is what unique compares (compact: unused).
template <class E>
struct selection_state {
  std::uint64_t count = 0;
  std::uint64_t present = 0;  // the shard holds elements
  E first{};
  E last{};
};
static_assert(sizeof(selection_state<double>) <= communicator::slot_bytes);

// The selection `select(g, policy, shard size, buffer, count)` on every local shard, the states
// exchanged, every rank's kept elements (after `dropped`), then the new shards filled.
template <class E, class P, class Select, class Dropped>
void select_sharded(const char* algorithm, const execution_policy& policy, const communicator& comm,
                    const shard_layout& layout, const std::vector<const void*>& values, Select select,
                    Dropped dropped, const make_selection& make) {
  using state = selection_state<E>;
  const int ranks = comm.size(), local = comm.local_count();
  device_guard guard;
  std::vector<on_device<P>> kept;
  for (int g = 0; g < local; ++g) {
    const std::uint64_t m = layout.count(comm.rank(g));
    kept.emplace_back(comm.device(g), m);
    guard.set(comm.device(g));
    const execution_policy p = shard_policy(algorithm, policy, comm, g);
    auto* own = reinterpret_cast<state*>(own_slot(comm, g));
    const state empty{0, m > 0 ? 1u : 0u, E{}, E{}};
    check(cudaMemcpyAsync(own, &empty, sizeof empty, cudaMemcpyHostToDevice, p.stream()), "cudaMemcpyAsync",
          algorithm);
    if (m == 0) continue;
    const auto* shard = static_cast<const P*>(values[g]);
    static_assert(sizeof(P) == sizeof(E));
    check(cudaMemcpyAsync(&own->first, shard, sizeof(P), cudaMemcpyDeviceToDevice, p.stream()), "cudaMemcpyAsync",
          algorithm);
    check(cudaMemcpyAsync(&own->last, shard + (m - 1), sizeof(P), cudaMemcpyDeviceToDevice, p.stream()),
          "cudaMemcpyAsync", algorithm);
    span<std::size_t> count(reinterpret_cast<std::size_t*>(&own->count), 1);
    select(g, p, m, span<P>(kept[g].data(), m), count);
  }
  all_gather_slots(algorithm, policy, comm, sizeof(state));
  std::vector<state> states(ranks);
  guard.set(comm.device(0));
  read_back(algorithm, stream_of(algorithm, policy, comm, 0), states.data(), gathered_slots(comm, 0),
            ranks * sizeof(state));

  std::vector<std::uint64_t> counts(ranks);
  std::vector<bool> present(ranks);
  for (int r = 0; r < ranks; ++r) {
    counts[r] = states[r].count;
    present[r] = states[r].present != 0;
  }
  const auto [sizes, skip] =
      plan_selection(counts, present, [&](int before, int r) { return dropped(states[before], states[r]); });
  const std::vector<void*> out = make(sizes);
  for (int g = 0; g < local; ++g) {
    const int r = comm.rank(g);
    if (sizes[r] == 0) continue;
    guard.set(comm.device(g));
    check(cudaMemcpyAsync(out[g], kept[g].data() + skip[r], sizes[r] * sizeof(P), cudaMemcpyDeviceToDevice,
                          stream_of(algorithm, policy, comm, g)),
          "cudaMemcpyAsync", algorithm);
  }
  // The buffers are freed on return (cudaFree waits for the device, so after these copies).
}

}  // namespace

template <class P, class S>
void compact_sharded(const execution_policy& policy, const communicator& comm, const shard_layout& layout,
                     const std::vector<const void*>& values, const std::vector<const void*>& flags,
                     const make_selection& make) {
  select_sharded<P, P>(
      "compact", policy, comm, layout, values,
      [&](int g, const execution_policy& p, std::uint64_t m, span<P> out, span<std::size_t> count) {
        prism::compact(p, span<const P>(static_cast<const P*>(values[g]), m),
                       span<const S>(static_cast<const S*>(flags[g]), m), out, count);
      },
      [](const auto&, const auto&) { return false; }, make);
}

template <class E>
void unique_sharded(const execution_policy& policy, const communicator& comm, const shard_layout& layout,
                    const std::vector<const void*>& values, const make_selection& make) {
  select_sharded<E, E>(
      "unique", policy, comm, layout, values,
      [&](int g, const execution_policy& p, std::uint64_t m, span<E> out, span<std::size_t> count) {
        prism::unique(p, span<const E>(static_cast<const E*>(values[g]), m), out, count);
      },
      [](const selection_state<E>& before, const selection_state<E>& now) { return before.last == now.first; }, make);
}

#define PRISM_COMPACT_SHARDED(P, S)                                                                                  \
  template void compact_sharded<P, S>(const execution_policy&, const communicator&, const shard_layout&,           \
                                      const std::vector<const void*>&, const std::vector<const void*>&,           \
                                      const make_selection&);
PRISM_COMPACT_SHARDED(std::uint8_t, std::uint8_t)
PRISM_COMPACT_SHARDED(std::uint16_t, std::uint8_t)
PRISM_COMPACT_SHARDED(std::uint32_t, std::uint8_t)
PRISM_COMPACT_SHARDED(std::uint64_t, std::uint8_t)
PRISM_COMPACT_SHARDED(std::uint32_t, std::uint32_t)
PRISM_COMPACT_SHARDED(std::uint32_t, std::uint64_t)
PRISM_COMPACT_SHARDED(std::uint64_t, std::uint32_t)
PRISM_COMPACT_SHARDED(std::uint64_t, std::uint64_t)
#undef PRISM_COMPACT_SHARDED

#define PRISM_UNIQUE_SHARDED(E)                                                                             \
  template void unique_sharded<E>(const execution_policy&, const communicator&, const shard_layout&,      \
                                  const std::vector<const void*>&, const make_selection&);
PRISM_UNIQUE_SHARDED(float)
PRISM_UNIQUE_SHARDED(double)
PRISM_UNIQUE_SHARDED(std::uint8_t)
PRISM_UNIQUE_SHARDED(std::uint16_t)
PRISM_UNIQUE_SHARDED(std::uint32_t)
PRISM_UNIQUE_SHARDED(std::uint64_t)
#undef PRISM_UNIQUE_SHARDED

}  // namespace prism::detail
