// SPDX-License-Identifier: Apache-2.0
// Top-k of sharded arrays: a candidate round, then the single-GPU top-k once more.
//   1. local      every rank's top min(k, shard) with the single-GPU prism::top_k (best first, ties
//                 to the lower index), its indices made global (+ the shard's start);
//   2. gather     one ncclAllGather of fixed blocks, k values and k indices per rank (a shard with
//                 fewer than k leaves its block's end as zeros: every rank knows every shard's size,
//                 so nobody needs to be told which candidates are real);
//   3. final      every GPU packs the real candidates in rank order and takes their top-k with the
//                 single-GPU top_k, then gathers the global indices by the candidates' positions.
// Why the final pick keeps the tie rule: the global top-k is among the candidates (any element
// better than a rank's k-th candidate, or tied with it at a lower index, is one of its candidates),
// and among equal values a candidate's position grows with its global index (blocks in rank order,
// each block's ties in index order), so "lower position first" is "lower global index first".
// k x k x 16 bytes cross the GPUs: nothing next to the n elements each GPU reads.
#include "collectives.hpp"

#include <prism/distributed_select.hpp>
#include <prism/elementwise.hpp>
#include <prism/primitives/launch.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace prism::detail {
namespace {

__global__ void offset_kernel(std::int64_t* indices, std::uint64_t count, std::int64_t start) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < count) indices[i] += start;
}

// Device memory from the device's stream-ordered pool, freed on the same stream after the work
// queued there: no cudaFree, which would wait for the whole device (and so for the other ranks'
// collectives queued behind this call).
struct stream_ordered {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::uint64_t* data = nullptr;
  stream_ordered(int d, cudaStream_t s, std::size_t words) : device(d), stream(s) {
    device_guard guard(d);
    void* memory = nullptr;
    check(cudaMallocAsync(&memory, words * sizeof(std::uint64_t), s), "cudaMallocAsync", "top_k");
    data = static_cast<std::uint64_t*>(memory);
  }
  stream_ordered(stream_ordered&& other) noexcept
      : device(other.device), stream(other.stream), data(std::exchange(other.data, nullptr)) {}
  stream_ordered& operator=(stream_ordered&&) = delete;
  ~stream_ordered() {
    if (data == nullptr) return;
    device_guard guard(device);
    (void)cudaFreeAsync(data, stream);
  }
};

// The single-GPU top-k as the element type the bits stand for.
template <class B>
void local_top_k(const execution_policy& p, key_kind kind, span<const B> x, std::size_t k, span<B> values,
                 span<std::int64_t> indices, bool largest) {
  top_k_entry<sizeof(B), sizeof(std::int64_t)>::run(p, kind, x, x.size(), k, values,
                                                    reinterpret_span<std::uint64_t>(indices), largest);
}

}  // namespace

template <class B>
void top_k_sharded(const execution_policy& policy, key_kind kind, const communicator& comm, const shard_layout& layout,
                   const std::vector<const void*>& shards, std::size_t k, bool largest,
                   const std::vector<void*>& values, const std::vector<std::int64_t*>& indices, void* host_values,
                   std::int64_t* host_indices) {
  const char* algorithm = "top_k";
  const int ranks = comm.size(), local = comm.local_count();
  const std::uint64_t n = layout.size();
  if (k > n)
    throw std::invalid_argument("prism::top_k: k = " + std::to_string(k) + " is more than the " + std::to_string(n) +
                                " elements");
  if (k == 0) return;
  device_guard guard;
  const auto shard = [&](int g) {
    return span<const B>(static_cast<const B*>(shards[g]), layout.count(comm.rank(g)));
  };
  const auto values_of = [&](int g) { return span<B>(static_cast<B*>(values[g]), k); };
  const auto indices_of = [&](int g) { return span<std::int64_t>(indices[g], k); };

  if (ranks == 1) {
    // One rank: the single-GPU top-k, whose indices are already global.
    guard.set(comm.device(0));
    local_top_k<B>(shard_policy(algorithm, policy, comm, 0), kind, shard(0), k, values_of(0), indices_of(0), largest);
  } else {
    // Per GPU: [own block | every rank's block, rank order | packed candidates], a block being k
    // values (padded to 8 bytes each) then k indices; and the final pick's positions.
    const std::size_t block = 2 * k;  // in 8-byte words
    const auto valid = [&](int r) { return std::min<std::uint64_t>(k, layout.count(r)); };
    std::uint64_t candidates = 0;
    for (int r = 0; r < ranks; ++r) candidates += valid(r);
    std::vector<stream_ordered> memory;
    for (int g = 0; g < local; ++g)
      memory.emplace_back(comm.device(g), stream_of(algorithm, policy, comm, g),
                          block * (static_cast<std::size_t>(ranks) + 1) + 2 * candidates + k);
    const auto own = [&](int g) { return memory[g].data; };
    const auto gathered = [&](int g) { return memory[g].data + block; };
    const auto packed = [&](int g) { return gathered(g) + block * ranks; };

    for (int g = 0; g < local; ++g) {
      guard.set(comm.device(g));
      const execution_policy p = shard_policy(algorithm, policy, comm, g);
      const int r = comm.rank(g);
      const std::uint64_t take = valid(r);
      // The padding is sent too: zeros rather than whatever the memory held.
      check(cudaMemsetAsync(own(g), 0, block * sizeof(std::uint64_t), p.stream()), "cudaMemsetAsync", algorithm);
      if (take == 0) continue;
      auto* own_indices = reinterpret_cast<std::int64_t*>(own(g) + k);
      local_top_k<B>(p, kind, shard(g), take, span<B>(reinterpret_cast<B*>(own(g)), take),
                     span<std::int64_t>(own_indices, take), largest);
      launch(algorithm, "offset_kernel", offset_kernel, blocks_for(take), block_size, p.stream(), own_indices, take,
             static_cast<std::int64_t>(layout.start(r)));
    }
    all_gather(algorithm, policy, comm, [&](int g) { return own(g); }, [&](int g) { return gathered(g); },
               block * sizeof(std::uint64_t));

    for (int g = 0; g < local; ++g) {
      guard.set(comm.device(g));
      const execution_policy p = shard_policy(algorithm, policy, comm, g);
      B* const packed_values = reinterpret_cast<B*>(packed(g));
      auto* const packed_indices = reinterpret_cast<std::int64_t*>(packed(g) + candidates);
      auto* const positions = reinterpret_cast<std::int64_t*>(packed(g) + 2 * candidates);
      std::uint64_t at = 0;
      for (int r = 0; r < ranks; ++r) {
        const std::uint64_t m = valid(r);
        if (m == 0) continue;
        const std::uint64_t* from = gathered(g) + block * r;
        check(cudaMemcpyAsync(packed_values + at, from, m * sizeof(B), cudaMemcpyDeviceToDevice, p.stream()),
              "cudaMemcpyAsync", algorithm);
        check(cudaMemcpyAsync(packed_indices + at, from + k, m * sizeof(std::int64_t), cudaMemcpyDeviceToDevice,
                              p.stream()),
              "cudaMemcpyAsync", algorithm);
        at += m;
      }
      local_top_k<B>(p, kind, span<const B>(packed_values, candidates), k, values_of(g),
                     span<std::int64_t>(positions, k), largest);
      // The global index of the j-th best candidate: packed_indices[positions[j]].
      prism::gather(p, span<const std::int64_t>(positions, k), span<const std::int64_t>(packed_indices, candidates),
                    indices_of(g));
    }
    // The scratch above goes back to the pool behind this work, on the same streams.
  }

  if (host_values != nullptr) {
    guard.set(comm.device(0));
    const cudaStream_t stream = stream_of(algorithm, policy, comm, 0);
    check(cudaMemcpyAsync(host_values, values[0], k * sizeof(B), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
          algorithm);
    read_back(algorithm, stream, host_indices, indices[0], k * sizeof(std::int64_t));  // waits for both
  }
}

#define PRISM_TOP_K_SHARDED(B)                                                                                      \
  template void top_k_sharded<B>(const execution_policy&, key_kind, const communicator&, const shard_layout&,       \
                                 const std::vector<const void*>&, std::size_t, bool, const std::vector<void*>&,     \
                                 const std::vector<std::int64_t*>&, void*, std::int64_t*);
PRISM_TOP_K_SHARDED(std::uint32_t)
PRISM_TOP_K_SHARDED(std::uint64_t)
#undef PRISM_TOP_K_SHARDED

}  // namespace prism::detail
