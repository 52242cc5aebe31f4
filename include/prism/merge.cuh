// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism's merges and set operations of two sorted arrays: any trivially copyable type, any
// comparator, in every implementation.
//
//   prism::merge(policy, a, b, out, comp)                       out = a and b merged, stably
//   prism::merge_by_key(policy, ka, va, kb, vb, ko, vo, comp)   the values carried with their keys
//   prism::set_union(policy, a, b, out, comp)                   returns the count (the call waits)
//   prism::set_union(policy, a, b, out, count, comp)            into count[0] (nothing waits)
//   (set_intersection, set_difference, set_symmetric_difference alike)
//
// This is the generic layer under the compiled family of <prism/merge.hpp> (the standard key types
// in the sort family's order), with the same semantics: stable merges (a's element first on ties),
// the standard library's multiset semantics for the set operations, outputs apart from the inputs,
// a set operation's output of the worst case's size or counted first. CUDA translation units call it
// with their own types and comparators.
//
// Contract. a and b are sorted by comp; comp(x, y) says x goes before y and must be a strict weak
// ordering; it must be __host__ __device__ for impl::cpu (a __device__-only lambda is refused
// there). Two elements are the same value of a set operation when neither goes before the other.
//
// The implementations, side by side at the bottom:
//   cpu, thrust  thrust::merge, merge_by_key, set_union, ... (OpenMP, or the GPU on the caller's
//                stream with prism's scratch). thrust::merge is cub::DeviceMerge underneath; Thrust's
//                set operations return their end to the host (they wait).
//   raw_naive    merge only: one thread per element; a[i] goes to i + (the b's before it), found by
//                a binary search in b (b[j] likewise, ties to a): log n scattered reads per element
//                and scattered writes, but no coordination at all.
//   raw          merge path, tile-staged (moderngpu's kernel_merge): a partition kernel finds, by a
//                binary search along each tile's starting diagonal (<prism/primitives/merge_path.cuh>),
//                where the tile's nt x vt outputs start in a and b; each block then loads its two
//                ranges into shared memory (on sm_90 each by one bulk copy of the copy engine, as
//                CUB's DeviceMerge does there: stage 5 of the lesson; before, with coalesced reads),
//                each thread finds its vt outputs' start by the same search in shared memory and
//                merges them sequentially, and the block writes the tile back with coalesced stores
//                (merge_by_key carries each output's source position and gathers the values after).
//                2n elements moved. A set operation merges each tile the same way in one pass: the
//                tile counts what it keeps, learns where its output starts by decoupled look-back
//                (<prism/primitives/tile_state.cuh>), and compacts its kept elements in shared memory
//                and writes them.
//   cub          merge only: cub::DeviceMerge::MergeKeys / MergePairs. CUB documents its merge as
//                unstable; its kernels take the first sequence's element on ties (the same merge
//                path), which prism's tests check for every key type.
#include <prism/dispatch.cuh>
#include <prism/merge.hpp>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/merge_tile.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/primitives/tile_state.cuh>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_merge.cuh>
#include <cuda/std/algorithm>
#include <cuda/std/functional>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/merge.h>
#include <thrust/set_operations.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {
namespace detail {

// ---- raw merge --------------------------------------------------------------------------------------

// The widest element raw takes: a tile of one element per thread of 64 bytes is 16 KiB.
inline constexpr std::size_t raw_merge_widest = 64;

// No values: merge keeps only keys.
struct no_values {};

// One tile: each thread's vt outputs by a sequential merge from its merge-path start in shared
// memory, put back in shared memory in output order, then written with coalesced stores. With
// values, each output's source position in the tile (a's below an, b's above) picks its value.
// MinBlocks: __launch_bounds__'s blocks per SM (0: none asked); Load: load_tile's.
template <class T, class V, class Comp, unsigned Threads = block_size, unsigned Items = merge_items<T>,
          unsigned MinBlocks = 0, tile_load Load = tile_load::registers>
__global__ void __launch_bounds__(Threads, MinBlocks)
    merge_tile_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n, const std::size_t* partitions, T* out,
                      const V* values_a, const V* values_b, V* values_out, Comp comp) {
  constexpr unsigned vt = Items, tile = Threads * Items;
  constexpr bool with_values = !std::is_same_v<V, no_values>;
  __shared__ shared_elements<T, tile_room<T, tile, Load>> keys;
  __shared__ unsigned source[with_values ? tile : 1];
  T* s = keys.data();
  const tile_ranges r = load_tile<T, Threads, Items, Load>(blockIdx.x, a, a_n, b, b_n, partitions, s);
  const unsigned count = r.an + r.bn;
  __syncthreads();
  // Places in s: a's range is [a_at, a_end), b's [b_at, b_end).
  const unsigned a_end = r.a_at + r.an, b_end = r.b_at + r.bn;
  const unsigned diagonal = cuda::std::min(threadIdx.x * vt, count);
  const unsigned taken_a = merge_path<unsigned>(s + r.a_at, r.an, s + r.b_at, r.bn, diagonal, comp);
  unsigned i = r.a_at + taken_a;                // a's next element, as a place in s
  unsigned j = r.b_at + (diagonal - taken_a);  // b's
  // The sequential merge holds the next a and the next b in registers and reads one element of
  // shared memory per output (the one that replaces the element taken), not two. A finished side's
  // read is clamped into the tile and never taken.
  const unsigned last = b_end - 1;
  T next_a = s[cuda::std::min(i, last)], next_b = s[cuda::std::min(j, last)];
  T merged[vt];
  unsigned from[vt];
#pragma unroll
  for (unsigned k = 0; k < vt; ++k) {
    const bool take_a = i < a_end && (j >= b_end || !comp(next_b, next_a));
    merged[k] = take_a ? next_a : next_b;
    from[k] = take_a ? i++ : j++;
    if (take_a) {
      next_a = s[cuda::std::min(i, last)];
    } else {
      next_b = s[cuda::std::min(j, last)];
    }
  }
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < vt; ++k) {
    if (diagonal + k < count) {
      s[diagonal + k] = merged[k];
      if constexpr (with_values) source[diagonal + k] = from[k];
    }
  }
  __syncthreads();
  // Written back as loaded: vt coalesced stores per thread, and with values vt gathers in flight.
  V v[with_values ? vt : 1];
  if constexpr (with_values) {
#pragma unroll
    for (unsigned k = 0; k < vt; ++k) {
      const unsigned p = threadIdx.x + k * Threads;
      if (p < count) {
        const unsigned f = source[p];
        v[k] = f < a_end ? values_a[r.a0 + (f - r.a_at)] : values_b[r.b0 + (f - r.b_at)];
      }
    }
  }
#pragma unroll
  for (unsigned k = 0; k < vt; ++k) {
    const unsigned p = threadIdx.x + k * Threads;
    if (p < count) {
      out[r.first + p] = s[p];
      if constexpr (with_values) values_out[r.first + p] = v[k];
    }
  }
}

// raw's tile: 512 threads x 15 for keys of up to 4 bytes without values, 256 x merge_items
// otherwise, loaded by bulk copies (merge/float/raw_512x15_bulk, the best of bench_merge's shapes;
// merge_by_key/float/raw at 256 x 15: docs/benchmarks/merge.md, "The tile by bulk copy").
template <class T, class V>
inline constexpr unsigned raw_merge_threads = sizeof(T) <= 4 && std::is_same_v<V, no_values> ? 512 : block_size;

// Threads and Items 0: raw's own (above).
template <unsigned Threads = 0, unsigned Items = 0, unsigned MinBlocks = 0, tile_load Load = tile_load::bulk, class T,
          class V, class Comp>
void raw_merge(const char* algorithm, const execution_policy& policy, const T* a, std::size_t a_n, const T* b,
               std::size_t b_n, T* out, const V* values_a, const V* values_b, V* values_out, Comp comp) {
  constexpr unsigned threads = Threads != 0 ? Threads : raw_merge_threads<T, V>;
  constexpr unsigned items = Items != 0 ? Items : merge_items<T>, tile = threads * items;
  if constexpr (sizeof(T) > raw_merge_widest) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the raw merge takes elements of up to 64 "
                                "bytes (this one has " + std::to_string(sizeof(T)) + "); use impl::cub or thrust");
  } else {
    const std::size_t n = a_n + b_n;
    const std::size_t tiles = (n + tile - 1) / tile;
    if (tiles > 0x7FFFFFFFu) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                  " elements are more than the raw merge's grid can cover");
    }
    const cudaStream_t stream = policy.stream();
    const scratch lease = acquire_scratch((tiles + 1) * sizeof(std::size_t), with_explicit_stream(policy), algorithm);
    auto* partitions = static_cast<std::size_t*>(lease.device());
    launch(algorithm, "merge_partition_kernel", merge_partition_kernel<T, Comp, tile>, blocks_for(tiles + 1),
           block_size, stream, a, a_n, b, b_n, tiles, partitions, comp);
    launch(algorithm, "merge_tile_kernel", merge_tile_kernel<T, V, Comp, threads, items, MinBlocks, Load>,
           static_cast<unsigned>(tiles), threads, stream, a, a_n, b, b_n, static_cast<const std::size_t*>(partitions),
           out, values_a, values_b, values_out, comp);
  }
}

// ---- raw_naive merge: one thread per element --------------------------------------------------------

// The first position p of x[0, n) with !comp(x[p], key) (lower bound), or with comp(key, x[p])
// (upper bound): how many of x go before key.
template <bool Upper, class T, class Comp>
__device__ std::size_t rank_in(const T* x, std::size_t n, const T& key, Comp comp) {
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (Upper ? !comp(key, x[mid]) : comp(x[mid], key)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// a[i] goes after i of a and after the b's strictly before it; b[j] after j of b and after the a's
// not after it (ties to a: stable).
template <class T, class V, class Comp>
__global__ void merge_rank_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n, T* out, const V* values_a,
                                  const V* values_b, V* values_out, Comp comp) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k >= a_n + b_n) return;
  const bool in_a = k < a_n;
  const std::size_t own = in_a ? k : k - a_n;
  const T key = in_a ? a[own] : b[own];
  const std::size_t p = own + (in_a ? rank_in<false>(b, b_n, key, comp) : rank_in<true>(a, a_n, key, comp));
  out[p] = key;
  if constexpr (!std::is_same_v<V, no_values>) values_out[p] = in_a ? values_a[own] : values_b[own];
}

// ---- raw set operations -----------------------------------------------------------------------------

// Two elements are the same value when neither goes before the other.
template <class T, class Comp>
__device__ bool equivalent(const T& x, const T& y, Comp comp) {
  return !comp(x, y) && !comp(y, x);
}

// x[p], from the tile in shared memory when it holds it.
template <class T>
__device__ T element_at(const T* x, std::size_t p, std::size_t first, unsigned held, const T* shared) {
  return p - first < held ? shared[p - first] : x[p];
}

// The start of the run of equal values that x[first] belongs to (first when it starts there), in
// global or shared memory. Found by galloping back from first (x[first - 1], x[first - 2],
// x[first - 4], ...) until an element goes before it, then a binary search in the last step: one
// more load where the run starts at first, as most do, and about 2 log2(length) for a run of that
// length. (A binary search over x[0, first) took log2(first) dependent loads per thread: where x is
// a, the tile's start in global memory while the block's other threads waited for it.)
template <class T, class Comp>
__device__ std::size_t run_start_of(const T* x, std::size_t first, Comp comp) {
  const T v = x[first];
  std::size_t in_run = first, lo = 0, step = 1;  // x[in_run] is in the run; it starts in [lo, in_run]
  while (in_run >= step) {
    const std::size_t p = in_run - step;
    if (comp(x[p], v)) {
      lo = p + 1;
      break;
    }
    in_run = p;
    step *= 2;
  }
  return lo + rank_in<false>(x + lo, in_run - lo, v, comp);
}

// Whether the set operation keeps each of one thread's vt merged elements (bit k for its k-th), and
// the elements themselves. The rule, element by element, from the multiset semantics: a value m
// times in a and n times in b occupies, in the stable merge, a's m copies then b's n. a's copy of
// rank r in its run (r from 0) has a b copy of the same rank, b[lb + r] with lb the b's before it,
// exactly when r < n; b's copy of rank s has an a copy a[ub - 1 - s] (ub: the a's not after it)
// exactly when s < m. So
//   union: every a, and b where s >= m;   intersection: a where r < n;
//   difference: a where r >= n;            symmetric difference: a where r >= n, b where s >= m.
// A run's start (for r and s) is found once per thread: in the tile's shared copy, or before the
// tile (the block's run_start_a / run_start_b, found once in global memory).
template <class T, class Comp>
struct set_thread {
  T elements[merge_items<T>];
  unsigned kept = 0;  // bit k: elements[k] is kept
  unsigned count = 0;
};

// Which side's runs an operation reads: a's unless it keeps every a, b's only where it keeps some b.
template <set_operation Op>
inline constexpr bool reads_runs_of_a = Op != set_operation::set_union;
template <set_operation Op>
inline constexpr bool reads_runs_of_b = Op == set_operation::set_union || Op == set_operation::set_symmetric_difference;

template <set_operation Op, class T, class Comp>
__device__ set_thread<T, Comp> set_merge(const T* a, const T* b, std::size_t b_n, const tile_ranges& r, const T* tile,
                                         std::size_t run_start_a, std::size_t run_start_b, Comp comp) {
  constexpr unsigned vt = merge_items<T>;
  const unsigned count = r.an + r.bn;
  const unsigned diagonal = cuda::std::min(threadIdx.x * vt, count);
  const T* s = tile + r.a_at;   // the tile's range of a
  const T* sb = tile + r.b_at;  // and of b
  unsigned i = merge_path<unsigned>(s, r.an, sb, r.bn, diagonal, comp);
  unsigned j = diagonal - i;
  const unsigned i0 = i, j0 = j;
  std::size_t run_a = 0, run_b = 0;  // global starts of the current runs of a and b
  const auto run_start = [&](const T* x, unsigned p, std::size_t first, std::size_t before) {
    // The first position of x[0, p] holding x[p]'s value (by galloping: one read where the run
    // starts at p, as most do); where the run reaches back to the tile's start: `before`.
    const std::size_t lo = run_start_of(x, p, comp);
    return lo == 0 ? before : first + lo;
  };
  // The next a and the next b held in registers, as the merge's tile holds them: one shared-memory
  // read per element (the one replacing the element taken), clamped into the tile where a side is
  // done (every launched tile has an element); the last element taken from each side, for the run
  // test.
  const unsigned last = r.b_at + r.bn - 1;
  const auto at = [&](unsigned place) { return tile[cuda::std::min(place, last)]; };
  T next_a = at(r.a_at + i), next_b = at(r.b_at + j);
  T prev_a = next_a, prev_b = next_b;
  set_thread<T, Comp> t;
#pragma unroll
  for (unsigned k = 0; k < vt; ++k) {
    if (diagonal + k >= count) break;
    const bool take_a = i < r.an && (j >= r.bn || !comp(next_b, next_a));
    const T x = take_a ? next_a : next_b;
    bool keep = false;
    if (take_a) {
      if constexpr (reads_runs_of_a<Op>) {
        if (i == i0 || comp(prev_a, x)) run_a = i == i0 ? run_start(s, i, r.a0, run_start_a) : r.a0 + i;
        // a's copy of rank `rank` in its run is matched by b's copy of the same rank, if b has one.
        const std::size_t rank = r.a0 + i - run_a, probe = r.b0 + j + rank;
        const bool matched = probe < b_n && equivalent(element_at(b, probe, r.b0, r.bn, sb), x, comp);
        keep = matched == (Op == set_operation::set_intersection);
        prev_a = x;
      } else {
        keep = true;
      }
      next_a = at(r.a_at + ++i);
    } else {
      if constexpr (reads_runs_of_b<Op>) {
        if (j == j0 || comp(prev_b, x)) run_b = j == j0 ? run_start(sb, j, r.b0, run_start_b) : r.b0 + j;
        const std::size_t rank = r.b0 + j - run_b, after = r.a0 + i;  // after: the a's not after x
        keep = !(after > rank && equivalent(element_at(a, after - 1 - rank, r.a0, r.an, s), x, comp));
        prev_b = x;
      }
      next_b = at(r.b_at + ++j);
    }
    t.elements[k] = x;
    if (keep) {
      t.kept |= 1u << k;
      ++t.count;
    }
  }
  return t;
}

// One tile of a set operation, in one pass (as a selection of the scan family): the tile's kept
// elements counted, where they start in the output learnt by decoupled look-back over the tiles
// before it (<prism/primitives/tile_state.cuh>), then compacted in shared memory and written. The
// last tile writes the whole count to *total. CountOnly: each tile only adds its count to *total
// (zeroed first): the pass run before the other when the output may not hold the result.
template <set_operation Op, bool CountOnly, class T, class Comp>
__global__ void __launch_bounds__(block_size)
    set_tile_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n,
                    const std::size_t* partitions, tile_state<kept_count> states, unsigned* ticket, unsigned tiles,
                    T* out, std::size_t* total, Comp comp) {
  constexpr unsigned vt = merge_items<T>, tile_size = merge_tile<T>;
  __shared__ shared_elements<T, tile_room<T, tile_size, tile_load::bulk>> keys;
  __shared__ std::size_t run_starts[2];
  __shared__ unsigned tile_ticket;
  __shared__ std::size_t tile_offset;
  // Tiles in the order blocks start: every tile this one waits for in the look-back is running.
  take_ticket(ticket, tiles, tile_ticket);
  __syncthreads();
  const unsigned tile = tile_ticket;
  T* s = keys.data();
  // By the copy engine, as raw's merge loads its tiles (merge/float/raw_512x15_bulk against raw_256x15).
  const tile_ranges r = load_tile<T, block_size, vt, tile_load::bulk>(tile, a, a_n, b, b_n, partitions, s);
  if (threadIdx.x == 0 && reads_runs_of_a<Op>) run_starts[0] = r.an > 0 ? run_start_of(a, r.a0, comp) : r.a0;
  if (threadIdx.x == 32 && reads_runs_of_b<Op>) run_starts[1] = r.bn > 0 ? run_start_of(b, r.b0, comp) : r.b0;
  __syncthreads();
  const set_thread<T, Comp> t = set_merge<Op>(a, b, b_n, r, s, run_starts[0], run_starts[1], comp);
  unsigned tile_count = 0;
  const maybe<unsigned> before = block_exclusive_scan(t.count, cuda::std::plus<unsigned>{}, tile_count);
  if constexpr (CountOnly) {
    if (threadIdx.x == 0) atomicAdd(reinterpret_cast<unsigned long long*>(total), tile_count);
  } else {
    if (threadIdx.x < 32) {
      const unsigned lane = threadIdx.x;
      std::size_t exclusive = 0;
      if (tile == 0) {
        if (lane == 0 && tiles > 1) states.publish(0, tile_prefix, kept_count{tile_count});
      } else {
        exclusive = publish_and_look_back(states, tile, kept_count{tile_count}, add_counts{}).value;
      }
      if (lane == 0) {
        tile_offset = exclusive;
        if (tile == tiles - 1) *total = exclusive + tile_count;
      }
    }
    // The scan's barriers passed, every thread has read the tile: its kept elements are compacted
    // in place while warp 0 looks back (the other warps waited for the look-back before this).
    unsigned at = before.present ? before.value : 0;
#pragma unroll
    for (unsigned k = 0; k < vt; ++k)
      if (t.kept >> k & 1u) s[at++] = t.elements[k];
    __syncthreads();  // the tile compacted, and tile_offset known
    const std::size_t offset = tile_offset;
    for (unsigned k = threadIdx.x; k < tile_count; k += block_size) out[offset + k] = s[k];
  }
}

// The most elements a set operation can write.
inline std::size_t worst_case(set_operation op, std::size_t a_n, std::size_t b_n) {
  switch (op) {
    case set_operation::set_intersection: return std::min(a_n, b_n);
    case set_operation::set_difference: return a_n;
    default: return a_n + b_n;
  }
}

[[noreturn]] inline void refuse_small_output(const char* algorithm, std::size_t count, std::size_t capacity) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": the result has " + std::to_string(count) +
                              " elements, and the output holds " + std::to_string(capacity));
}

// The partitions, then one pass that counts and writes, its count to `destination` on the stream,
// when the output holds the worst case; otherwise a pass that only counts first, which the call
// waits for to refuse a result the output cannot hold, and returns.
template <class T, class Comp>
std::optional<std::size_t> raw_set_operation(const char* algorithm, const execution_policy& policy, set_operation op,
                                             const T* a, std::size_t a_n, const T* b, std::size_t b_n, T* out,
                                             std::size_t capacity, std::size_t* destination, Comp comp) {
  if constexpr (sizeof(T) > raw_merge_widest) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the raw set operations take elements of up "
                                "to 64 bytes (this one has " + std::to_string(sizeof(T)) + "); use impl::thrust");
  } else {
    const std::size_t n = a_n + b_n;
    const std::size_t tiles = (n + merge_tile<T> - 1) / merge_tile<T>;
    if (tiles > 0x7FFFFFFFu) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                  " elements are more than the raw set operations' grid can cover");
    }
    const cudaStream_t stream = policy.stream();
    const bool fits = capacity >= worst_case(op, a_n, b_n);
    if (!fits) require_not_capturing(stream, algorithm);  // it waits for the count
    // Scratch: [the count][the tiles' states][the partitions]; the first two zeroed.
    using states_t = tile_state<kept_count>;
    const std::size_t count_bytes = 256, state_bytes = round256(states_t::bytes(tiles));
    const scratch lease = acquire_scratch(count_bytes + state_bytes + (tiles + 1) * sizeof(std::size_t),
                                          with_explicit_stream(policy), algorithm);
    auto* memory = static_cast<unsigned char*>(lease.device());
    auto* total = reinterpret_cast<std::size_t*>(memory);
    const states_t states(memory + count_bytes, tiles);
    auto* partitions = reinterpret_cast<std::size_t*>(memory + count_bytes + state_bytes);
    check(cudaMemsetAsync(memory, 0, count_bytes + states_t::status_bytes(tiles), stream), "cudaMemsetAsync",
          algorithm);
    launch(algorithm, "merge_partition_kernel", merge_partition_kernel<T, Comp>, blocks_for(tiles + 1), block_size,
           stream, a, a_n, b, b_n, tiles, partitions, comp);
    const auto grid = static_cast<unsigned>(tiles);
    std::optional<std::size_t> counted;
    // The operation a compile-time constant: each of the four kernels holds only the runs it reads.
    const auto run = [&]<set_operation Op>(std::integral_constant<set_operation, Op>) {
      if (!fits) {
        launch(algorithm, "set_tile_kernel", set_tile_kernel<Op, true, T, Comp>, grid, block_size, stream, a, a_n, b,
               b_n, static_cast<const std::size_t*>(partitions), states, lease.zeroed_counter(), grid,
               static_cast<T*>(nullptr), total, comp);
        std::size_t result = 0;
        check(cudaMemcpyAsync(&result, total, sizeof(result), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
              algorithm);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", algorithm);
        if (result > capacity) refuse_small_output(algorithm, result, capacity);
        counted = result;
      }
      launch(algorithm, "set_tile_kernel", set_tile_kernel<Op, false, T, Comp>, grid, block_size, stream, a, a_n, b,
             b_n, static_cast<const std::size_t*>(partitions), states, lease.zeroed_counter(), grid, out,
             fits ? destination : total, comp);
    };
    using enum set_operation;
    switch (op) {
      case set_union: run(std::integral_constant<set_operation, set_union>{}); break;
      case set_intersection: run(std::integral_constant<set_operation, set_intersection>{}); break;
      case set_difference: run(std::integral_constant<set_operation, set_difference>{}); break;
      case set_symmetric_difference: run(std::integral_constant<set_operation, set_symmetric_difference>{}); break;
    }
    return counted;
  }
}

// ---- the implementations side by side ---------------------------------------------------------------

// A comparator: not an array, and nothing that makes a policy.
template <class F>
concept merge_comparator = !array_like<std::remove_reference_t<F>> && !std::is_convertible_v<F, execution_policy>;

// merge, and merge_by_key when V is not no_values.
template <class T, class V, class Comp>
void merge_spans(const char* algorithm, const execution_policy& policy, span<const T> a, span<const T> b, span<T> out,
                 span<const V> values_a, span<const V> values_b, span<V> values_out, Comp comp) {
  static_assert(std::is_trivially_copyable_v<T>, "prism::merge moves elements as bytes: T must be trivially copyable");
  constexpr bool with_values = !std::is_same_v<V, no_values>;
  const std::size_t a_n = a.size(), b_n = b.size(), n = a_n + b_n;
  const T* pa = a.data();
  const T* pb = b.data();
  T* o = out.data();
  const V* va = values_a.data();
  const V* vb = values_b.data();
  V* vo = values_out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if constexpr (with_values) {
      thrust::merge_by_key(p, pa, pa + a_n, pb, pb + b_n, va, vb, o, vo, comp);
    } else {
      thrust::merge(p, pa, pa + a_n, pb, pb + b_n, o, comp);
    }
  };
  const auto on_cub = [&] {
    const auto count_a = static_cast<std::int64_t>(a_n), count_b = static_cast<std::int64_t>(b_n);
    cub_call(algorithm, with_values ? "cub::DeviceMerge::MergePairs" : "cub::DeviceMerge::MergeKeys", policy,
             {n, a_n}, [&](void* temp, std::size_t& bytes, void*) {
               if constexpr (with_values) {
                 return cub::DeviceMerge::MergePairs(temp, bytes, pa, va, count_a, pb, vb, count_b, o, vo, comp,
                                                     stream);
               } else {
                 return cub::DeviceMerge::MergeKeys(temp, bytes, pa, count_a, pb, count_b, o, comp, stream);
               }
             });
  };
  const auto on_raw_naive = [&] {
    launch(algorithm, "merge_rank_kernel", merge_rank_kernel<T, V, Comp>, blocks_for(n), block_size, stream, pa, a_n,
           pb, b_n, o, va, vb, vo, comp);
  };
  const auto on_raw = [&] { raw_merge(algorithm, policy, pa, a_n, pb, b_n, o, va, vb, vo, comp); };
  const implementations impls{.cpu = on_thrust, .thrust = on_thrust, .raw_naive = on_raw_naive, .raw = on_raw,
                              .cub = on_cub};
  if constexpr (with_values) {
    dispatch<Comp>({algorithm, merge_family, policy,
                    {array_ref::input(a, "the keys of a"), array_ref::input(values_a, "the values of a").sized(a_n),
                     array_ref::input(b, "the keys of b"), array_ref::input(values_b, "the values of b").sized(b_n),
                     array_ref::output_apart(out, "the keys' output").sized(n),
                     array_ref::output_apart(values_out, "the values' output").sized(n)},
                    n},
                   impls);
  } else {
    dispatch<Comp>({algorithm, merge_family, policy,
                    {array_ref::input(a, "the first input"), array_ref::input(b, "the second input"),
                     array_ref::output_apart(out, "the output").sized(n)},
                    n},
                   impls);
  }
}

template <class T, class Comp>
std::size_t set_operation_spans(const char* algorithm, const execution_policy& policy, set_operation op,
                                span<const T> a, span<const T> b, span<T> out, Comp comp, span<std::size_t>* into) {
  static_assert(std::is_trivially_copyable_v<T>, "prism's set operations move elements as bytes");
  const std::size_t a_n = a.size(), b_n = b.size(), n = a_n + b_n, capacity = out.size();
  const T* pa = a.data();
  const T* pb = b.data();
  T* o = out.data();
  // Thrust's four algorithms, writing to `to` (the output, or a discard iterator that only counts).
  const auto run_thrust = [&](const auto& p, auto to) {
    switch (op) {
      case set_operation::set_union: return thrust::set_union(p, pa, pa + a_n, pb, pb + b_n, to, comp) - to;
      case set_operation::set_intersection:
        return thrust::set_intersection(p, pa, pa + a_n, pb, pb + b_n, to, comp) - to;
      case set_operation::set_difference: return thrust::set_difference(p, pa, pa + a_n, pb, pb + b_n, to, comp) - to;
      case set_operation::set_symmetric_difference:
        return thrust::set_symmetric_difference(p, pa, pa + a_n, pb, pb + b_n, to, comp) - to;
    }
    return decltype(to - to){0};
  };
  const auto on_thrust = [&](const auto& p, std::size_t*) -> std::optional<std::size_t> {
    if (capacity < worst_case(op, a_n, b_n)) {
      const auto count = static_cast<std::size_t>(run_thrust(p, thrust::make_discard_iterator()));
      if (count > capacity) refuse_small_output(algorithm, count, capacity);
    }
    return static_cast<std::size_t>(run_thrust(p, o));
  };
  return dispatch<Comp>(
      {algorithm, set_operation_family, policy,
       {array_ref::input(a, "the first input"), array_ref::input(b, "the second input"),
        array_ref::output_apart(out, "the output")},
       n},
      result_to<std::size_t>{into, 0, "the count", true},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw = [&](std::size_t* destination) {
            return raw_set_operation(algorithm, policy, op, pa, a_n, pb, b_n, o, capacity, destination, comp);
          },
      });
}

}  // namespace detail

namespace ops {

// out = a and b merged by comp, stably.
template <class A, class B, class O, class Comp>
  requires detail::writable_array<O> && array_of<A, value_t<O>> && array_of<B, value_t<O>> &&
           detail::merge_comparator<Comp>
void run(merge, const execution_policy& policy, A&& a, B&& b, O&& out, Comp comp) {
  using T = value_t<O>;
  detail::merge_spans<T, detail::no_values>("merge", policy, input_span(a), input_span(b), output_span(out), {}, {}, {},
                                            comp);
}

// The keys merged by comp, stably, each value with its key.
template <class KA, class VA, class KB, class VB, class KO, class VO, class Comp>
  requires detail::writable_array<KO> && detail::writable_array<VO> && array_of<KA, value_t<KO>> &&
           array_of<KB, value_t<KO>> && array_of<VA, value_t<VO>> && array_of<VB, value_t<VO>> &&
           detail::merge_comparator<Comp>
void run(merge_by_key, const execution_policy& policy, KA&& keys_a, VA&& values_a, KB&& keys_b, VB&& values_b,
         KO&& keys_out, VO&& values_out, Comp comp) {
  detail::merge_spans<value_t<KO>, value_t<VO>>("merge_by_key", policy, input_span(keys_a), input_span(keys_b),
                                                output_span(keys_out), input_span(values_a), input_span(values_b),
                                                output_span(values_out), comp);
}

// A set operation by comp: the count returned ...
template <class Op, class A, class B, class O, class Comp>
  requires set_algorithm_tag<Op> && detail::writable_array<O> && array_of<A, value_t<O>> &&
           array_of<B, value_t<O>> && detail::merge_comparator<Comp>
std::size_t run(Op, const execution_policy& policy, A&& a, B&& b, O&& out, Comp comp) {
  return detail::set_operation_spans<value_t<O>>(Op::name, policy, set_algorithm<Op>::which, input_span(a),
                                                 input_span(b), output_span(out), comp, nullptr);
}
// ... or into count[0].
template <class Op, class A, class B, class O, class C, class Comp>
  requires set_algorithm_tag<Op> && detail::writable_array<O> && array_of<A, value_t<O>> &&
           array_of<B, value_t<O>> && merge_count_array<C> && detail::merge_comparator<Comp>
void run(Op, const execution_policy& policy, A&& a, B&& b, O&& out, C&& count, Comp comp) {
  span<std::size_t> c = output_span(count);
  detail::set_operation_spans<value_t<O>>(Op::name, policy, set_algorithm<Op>::which, input_span(a), input_span(b),
                                          output_span(out), comp, &c);
}

}  // namespace ops
}  // namespace prism
