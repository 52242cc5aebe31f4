// SPDX-License-Identifier: Apache-2.0
// Scans over sharded arrays. Rank r's outputs need the combination of every shard before its own
// (its prefix), which only the ranks before it can compute.
//
// The textbook way scans every shard alone, exchanges the shard totals, and adds each rank's
// prefix to its outputs afterwards: every rank but the first moves 4n bytes (read and write to
// scan, read and write again to add). prism instead runs a reduce-then-scan on every shard and
// does the exchange between its two passes:
//   1. tile totals   every block reduces one tile of 4096 elements: n bytes read, a few written;
//   2. tile prefixes an exclusive scan of the tile totals (a few KB, one CUB call); its last
//                    element is the shard's total;
//   3. exchange      the k shard totals are all-gathered (NCCL, k values);
//   4. scan          every block scans its tile again, starting from the combination of the shard
//                    totals before this rank and the tile totals before this tile: 2n bytes.
// 3n bytes per rank and no waiting between tiles: the second pass knows every tile's prefix
// before it starts, where the single-GPU scan's decoupled look-back (2n bytes, below the copy
// rate: docs/benchmarks/scan.md, row inclusive_scan/float/raw) chains every tile to its predecessors.
// bench/scale.cu measures what that buys. The prefix is read from device memory by the kernel:
// nothing waits on the host.
// With one GPU there is nothing to exchange: the single-GPU scan (prism::inclusive_scan, raw).
//
// Integer sums add as unsigned integers of their size (the same bits as a wrapping signed sum).
#include "collectives.hpp"

#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/scratch.hpp>

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_scan.cuh>

#include <climits>
#include <string>
#include <vector>

namespace prism::detail {
namespace {

// A tile: 256 threads x 16 elements, loaded and stored coalesced through shared memory.
constexpr int tile_threads = 256, tile_items_per_thread = 16;
constexpr std::size_t tile_elements = std::size_t{tile_threads} * tile_items_per_thread;

template <class S>
using tile_load = cub::BlockLoad<S, tile_threads, tile_items_per_thread, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
template <class S>
using tile_store = cub::BlockStore<S, tile_threads, tile_items_per_thread, cub::BLOCK_STORE_WARP_TRANSPOSE>;

// The elements of tile `blockIdx.x` (identity past n).
template <class S>
__device__ int load_tile(const S* x, std::size_t n, S identity, S (&v)[tile_items_per_thread],
                         typename tile_load<S>::TempStorage& temp) {
  const std::size_t base = blockIdx.x * tile_elements;
  const int valid = static_cast<int>(n - base < tile_elements ? n - base : tile_elements);
  tile_load<S>(temp).Load(x + base, v, valid, identity);
  return valid;
}

// Pass 1: totals[tile] for every tile, and totals[tiles] = identity (so that the exclusive scan of
// tiles + 1 totals ends with the shard's total).
template <class S, class Op>
__global__ void __launch_bounds__(tile_threads)
    tile_totals_kernel(const S* x, std::size_t n, Op op, S identity, S* totals, unsigned tiles) {
  using reduce = cub::BlockReduce<S, tile_threads>;
  __shared__ union {
    typename tile_load<S>::TempStorage load;
    typename reduce::TempStorage reduce;
  } temp;
  S v[tile_items_per_thread];
  load_tile(x, n, identity, v, temp.load);
  S part = v[0];
#pragma unroll
  for (int k = 1; k < tile_items_per_thread; ++k) part = op(part, v[k]);
  __syncthreads();  // the shared memory goes from the load to the reduce
  const S total = reduce(temp.reduce).Reduce(part, op);
  if (threadIdx.x == 0) {
    totals[blockIdx.x] = total;
    if (blockIdx.x == 0) totals[tiles] = identity;
  }
}

// What cub::BlockScan asks the first warp for: the combination of everything before the tile.
template <class S>
struct known_prefix {
  S value;
  __device__ S operator()(S) const { return value; }
};

// Pass 2: each tile scanned from its prefix: the shard totals of ranks 0 .. rank-1 (gathered),
// then the tile totals before it (tile_prefixes, the exclusive scan of pass 1's totals).
template <class S, class Op>
__global__ void __launch_bounds__(tile_threads)
    prefixed_tiles_kernel(const S* x, S* out, std::size_t n, Op op, S identity, bool exclusive,
                          const S* shard_totals, int rank, const S* tile_prefixes) {
  using scan = cub::BlockScan<S, tile_threads>;
  __shared__ union {
    typename tile_load<S>::TempStorage load;
    typename scan::TempStorage scan;
    typename tile_store<S>::TempStorage store;
  } temp;
  S v[tile_items_per_thread];
  const int valid = load_tile(x, n, identity, v, temp.load);
  S prefix = identity;
  for (int r = 0; r < rank; ++r) prefix = op(prefix, shard_totals[r]);
  prefix = op(prefix, tile_prefixes[blockIdx.x]);
  __syncthreads();
  known_prefix<S> from{prefix};
  if (exclusive) {
    scan(temp.scan).ExclusiveScan(v, v, op, from);
  } else {
    scan(temp.scan).InclusiveScan(v, v, op, from);
  }
  __syncthreads();
  tile_store<S>(temp.store).Store(out + blockIdx.x * tile_elements, v, valid);
}

// The shard-level steps for storage type S and operator op (x and out reinterpreted as S).
template <class T, class S, class Op>
void scan_shards(const char* algorithm, const execution_policy& policy, bool exclusive, const sharded<T>& x,
                 sharded<T>& out, Op op, S identity) {
  const communicator& comm = x.comm();
  const int local = comm.local_count();
  device_guard guard;
  // Each local GPU's scratch (tile totals, tile prefixes, CUB's storage), held from pass 1 to
  // pass 2: nothing else is enqueued on these streams in between but NCCL's all-gather.
  std::vector<scratch> leases;
  std::vector<S*> tile_prefixes(local, nullptr);
  leases.reserve(local);
  for (int g = 0; g < local; ++g) {
    guard.set(comm.device(g));
    const execution_policy p = with_explicit_stream(shard_policy(algorithm, policy, comm, g));
    const std::size_t n = x.local_size(g);
    const std::size_t tiles = (n + tile_elements - 1) / tile_elements;
    if (tiles >= UINT_MAX)
      throw std::invalid_argument(std::string("prism::") + algorithm + ": a shard of " + std::to_string(n) +
                                  " elements is more than 2^32 - 1 tiles");
    const auto* in = reinterpret_cast<const S*>(x.local(g).data());
    const cudaStream_t stream = p.stream();
    const std::size_t count = tiles + 1;  // the tiles' totals, and the identity after them
    std::size_t cub_bytes = 0;
    check(cub::DeviceScan::ExclusiveScan(nullptr, cub_bytes, static_cast<const S*>(nullptr), static_cast<S*>(nullptr),
                                         op, identity, static_cast<std::int64_t>(count), stream),
          "cub::DeviceScan::ExclusiveScan", algorithm);
    const std::size_t array_bytes = round256(count * sizeof(S));
    leases.push_back(acquire_scratch(2 * array_bytes + cub_bytes, p, algorithm));
    auto* memory = static_cast<unsigned char*>(leases.back().device());
    auto* totals = reinterpret_cast<S*>(memory);
    tile_prefixes[g] = reinterpret_cast<S*>(memory + array_bytes);
    if (n > 0) {
      launch(algorithm, "tile_totals_kernel", tile_totals_kernel<S, Op>, static_cast<unsigned>(tiles), tile_threads,
             stream, in, n, op, identity, static_cast<S*>(totals), static_cast<unsigned>(tiles));
    } else {
      launch(algorithm, "tile_totals_kernel", tile_totals_kernel<S, Op>, 1u, tile_threads, stream, in, std::size_t{0},
             op, identity, static_cast<S*>(totals), 0u);  // writes totals[0] = identity: the shard's total
    }
    clear_stale_error();
    check(cub::DeviceScan::ExclusiveScan(memory + 2 * array_bytes, cub_bytes, static_cast<const S*>(totals),
                                         tile_prefixes[g], op, identity, static_cast<std::int64_t>(count), stream),
          "cub::DeviceScan::ExclusiveScan", algorithm);
    // The shard's total, tile_prefixes[tiles], is what this rank sends.
    check(cudaMemcpyAsync(own_slot(comm, g), tile_prefixes[g] + tiles, sizeof(S), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync", algorithm);
  }
  all_gather_slots(algorithm, policy, comm, sizeof(S));
  for (int g = 0; g < local; ++g) {
    const std::size_t n = x.local_size(g);
    if (n == 0) continue;
    guard.set(comm.device(g));
    const cudaStream_t stream = stream_of(algorithm, policy, comm, g);
    const std::size_t tiles = (n + tile_elements - 1) / tile_elements;
    launch(algorithm, "prefixed_tiles_kernel", prefixed_tiles_kernel<S, Op>, static_cast<unsigned>(tiles), tile_threads,
           stream, reinterpret_cast<const S*>(x.local(g).data()), reinterpret_cast<S*>(out.local(g).data()), n, op,
           identity, exclusive, reinterpret_cast<const S*>(gathered_slots(comm, g)), comm.rank(g),
           static_cast<const S*>(tile_prefixes[g]));
  }
}

}  // namespace

template <scan_element T>
void scan_sharded(const execution_policy& policy, scan_kind kind, scan_op op, const sharded<T>& x, sharded<T>& out) {
  const char* algorithm = kind == scan_kind::inclusive ? "inclusive_scan" : "exclusive_scan";
  require_aligned(algorithm, {&out.layout(), &x.layout()});
  const impl which = policy.implementation();
  if (which != impl::automatic && which != impl::raw)
    throw std::invalid_argument(std::string("prism::") + algorithm + ": a sharded scan runs prism's own kernels "
                                "(impl::raw or automatic), not " + std::string(name(which)));
  const communicator& comm = x.comm();
  if (comm.size() == 1) {
    // One GPU: the single-GPU scan.
    device_guard guard(comm.device(0));
    const execution_policy p = shard_policy(algorithm, policy, comm, 0);
    if (kind == scan_kind::inclusive) {
      prism::inclusive_scan(p, x.local(0), out.local(0), op);
    } else {
      prism::exclusive_scan(p, x.local(0), out.local(0), op);
    }
    return;
  }
  translate_errors(algorithm, [&] {
    const bool exclusive = kind == scan_kind::exclusive;
    if (op == scan_op::sum) {
      using S = sum_storage<T>;
      scan_shards<T, S>(algorithm, policy, exclusive, x, out, functors::plus<S>{}, S(0));
    } else {
      const functors::extremum<T> extremum{op == scan_op::max};
      scan_shards<T, T>(algorithm, policy, exclusive, x, out, extremum, extremum.identity());
    }
  });
}

template void scan_sharded<float>(const execution_policy&, scan_kind, scan_op, const sharded<float>&, sharded<float>&);
template void scan_sharded<double>(const execution_policy&, scan_kind, scan_op, const sharded<double>&, sharded<double>&);
template void scan_sharded<std::int32_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::int32_t>&,
                                         sharded<std::int32_t>&);
template void scan_sharded<std::int64_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::int64_t>&,
                                         sharded<std::int64_t>&);
template void scan_sharded<std::uint32_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::uint32_t>&,
                                          sharded<std::uint32_t>&);
template void scan_sharded<std::uint64_t>(const execution_policy&, scan_kind, scan_op, const sharded<std::uint64_t>&,
                                          sharded<std::uint64_t>&);

}  // namespace prism::detail
