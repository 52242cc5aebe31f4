// SPDX-License-Identifier: Apache-2.0
#pragma once
// The top-k family's hand-written selections (impl::raw of <prism/top_k.cuh>), on the elements'
// bits U with their kind told at run time. An element's rank is the sort family's ordered bits
// (radix_order.cuh), complemented for the largest: the k best are the k smallest ranks, ties to
// the lower index.
//   radix_select    any k: the k-th rank found one 8-bit digit per read of x, then one read to
//                   count and one to write the chosen in index order, then a radix sort of k.
//   fused_select    k up to warp_select_max_k (128): one read of x, each warp's best k kept in a
//                   queue (<prism/primitives/warp_select.cuh>), then a few small launches keep the
//                   best k of the blocks' (each block's warps' lists through one more queue).
//   segment_select  the same queues for many segments at once (top_k_segments, top_k_rows): a
//                   block per segment, its warps' queues over strided shares of it, then one queue
//                   over the warps' lists.
// algorithms/top_k/lesson.cuh is the lesson these stages make.
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/onesweep.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/primitives/warp_select.cuh>
#include <prism/scratch.hpp>
#include <prism/segments.cuh>
#include <prism/top_k.hpp>

#include <cuda/std/algorithm>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace prism::detail {

// An element's rank: the smaller, the better (the sort family's order, reversed for the largest:
// top_k_rank<U>{kind, largest}).
template <class U>
using top_k_rank = radix::order_masks<U>;

// ---- raw: radix select, filter, sort of k --------------------------------------------------------

inline constexpr unsigned select_threads = 256;
inline constexpr unsigned select_items = 16;  // per thread in the filter
inline constexpr unsigned select_tile = select_threads * select_items;

// What the passes learn: the k-th rank's digits so far and how many of the elements with those
// digits are still to be taken; a histogram per pass.
template <class U>
struct select_state {
  static constexpr unsigned passes = sizeof(U);
  unsigned long long remaining;
  unsigned long long prefix;
  unsigned long long counts[passes][radix::radix];
};

template <class U>
__host__ __device__ inline unsigned digit_shift(unsigned pass) {
  return (select_state<U>::passes - 1 - pass) * radix::digit_bits;
}
// The digits above pass `pass`'s: those already fixed.
template <class U>
__host__ __device__ inline U fixed_mask(unsigned pass) {
  return pass == 0 ? U(0) : U(~U(0) << (digit_shift<U>(pass) + radix::digit_bits));
}

// Pass p: the histogram of digit p among the elements whose fixed digits are the k-th rank's.
template <class U>
__global__ void __launch_bounds__(select_threads)
    select_histogram_kernel(const U* x, std::size_t n, top_k_rank<U> rank, unsigned pass, select_state<U>* state) {
  __shared__ unsigned counts[radix::radix];
  counts[threadIdx.x] = 0;
  __syncthreads();
  const unsigned shift = digit_shift<U>(pass);
  const U mask = fixed_mask<U>(pass), prefix = static_cast<U>(state->prefix) & mask;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const U r = rank(x[i]);
    if ((r & mask) == prefix) atomicAdd(&counts[(r >> shift) & (radix::radix - 1)], 1u);
  }
  __syncthreads();
  if (counts[threadIdx.x] != 0) atomicAdd(&state->counts[pass][threadIdx.x], (unsigned long long)counts[threadIdx.x]);
}

// One thread: the digit of pass p in which the k-th rank lies, and how many are left to take in it.
template <class U>
__global__ void select_digit_kernel(select_state<U>* state, unsigned pass, unsigned long long k) {
  const unsigned long long want = pass == 0 ? k : state->remaining;
  unsigned long long before = 0;
  for (unsigned d = 0; d < radix::radix; ++d) {
    const unsigned long long c = state->counts[pass][d];
    if (before + c >= want) {
      state->prefix |= static_cast<unsigned long long>(d) << digit_shift<U>(pass);
      state->remaining = want - before;
      return;
    }
    before += c;
  }
}

// Per tile: the elements ranked before the k-th rank, and those equal to it.
template <class U>
__global__ void __launch_bounds__(select_threads)
    select_count_kernel(const U* x, std::size_t n, top_k_rank<U> rank, const select_state<U>* state,
                        unsigned long long* tile_counts) {
  __shared__ unsigned better, equal;
  if (threadIdx.x == 0) better = equal = 0;
  __syncthreads();
  const U kth = static_cast<U>(state->prefix);
  const std::size_t base = std::size_t{blockIdx.x} * select_tile;
  unsigned b = 0, e = 0;
  for (unsigned j = 0; j < select_items; ++j) {
    const std::size_t i = base + threadIdx.x + j * select_threads;
    if (i < n) {
      const U r = rank(x[i]);
      b += r < kth;
      e += r == kth;
    }
  }
  atomicAdd(&better, b);
  atomicAdd(&equal, e);
  __syncthreads();
  if (threadIdx.x == 0) {
    tile_counts[2 * blockIdx.x] = better;
    tile_counts[2 * blockIdx.x + 1] = equal;
  }
}

// One block: the tiles' counts made exclusive prefixes, in place (each thread a run of tiles).
template <class = void>  // a template, so that every translation unit may define it
__global__ void __launch_bounds__(1024) select_prefix_kernel(unsigned long long* tile_counts, std::size_t tiles) {
  __shared__ unsigned long long sums[2][1024];
  const std::size_t per = (tiles + blockDim.x - 1) / blockDim.x;
  const std::size_t first = threadIdx.x * per, last = cuda::std::min(first + per, tiles);
  unsigned long long b = 0, e = 0;
  for (std::size_t t = first; t < last; ++t) {
    b += tile_counts[2 * t];
    e += tile_counts[2 * t + 1];
  }
  sums[0][threadIdx.x] = b;
  sums[1][threadIdx.x] = e;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long rb = 0, re = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) {
      const unsigned long long sb = sums[0][t], se = sums[1][t];
      sums[0][t] = rb;
      sums[1][t] = re;
      rb += sb;
      re += se;
    }
  }
  __syncthreads();
  b = sums[0][threadIdx.x];
  e = sums[1][threadIdx.x];
  for (std::size_t t = first; t < last; ++t) {
    const unsigned long long cb = tile_counts[2 * t], ce = tile_counts[2 * t + 1];
    tile_counts[2 * t] = b;
    tile_counts[2 * t + 1] = e;
    b += cb;
    e += ce;
  }
}

// The chosen elements in index order: an element ranked before the k-th rank, or one of the first
// `remaining` equal to it. The place of a chosen element is the number chosen before it: those
// better before it, plus its equals before it up to `remaining`. Each thread takes 16 consecutive
// elements, so that its counts are in index order; a scan across the block's threads. (Its loads
// are strided, 64 bytes apart across a warp: L1 serves the rest of each line. Loading the tile
// coalesced into shared memory first is the next step.)
template <class U, class I>
__global__ void __launch_bounds__(select_threads)
    select_write_kernel(const U* x, std::size_t n, top_k_rank<U> rank, const select_state<U>* state,
                        const unsigned long long* tile_prefixes, U* values, I* indices) {
  __shared__ unsigned scan[2][select_threads];
  const U kth = static_cast<U>(state->prefix);
  const unsigned long long take = state->remaining;
  const std::size_t first = std::size_t{blockIdx.x} * select_tile + std::size_t{threadIdx.x} * select_items;
  unsigned b = 0, e = 0;
  for (unsigned j = 0; j < select_items; ++j) {
    if (first + j < n) {
      const U r = rank(x[first + j]);
      b += r < kth;
      e += r == kth;
    }
  }
  scan[0][threadIdx.x] = b;
  scan[1][threadIdx.x] = e;
  __syncthreads();
  for (unsigned offset = 1; offset < select_threads; offset *= 2) {  // inclusive scan, Hillis-Steele
    const unsigned pb = threadIdx.x >= offset ? scan[0][threadIdx.x - offset] : 0;
    const unsigned pe = threadIdx.x >= offset ? scan[1][threadIdx.x - offset] : 0;
    __syncthreads();
    scan[0][threadIdx.x] += pb;
    scan[1][threadIdx.x] += pe;
    __syncthreads();
  }
  unsigned long long better = tile_prefixes[2 * blockIdx.x] + scan[0][threadIdx.x] - b;
  unsigned long long equal = tile_prefixes[2 * blockIdx.x + 1] + scan[1][threadIdx.x] - e;
  for (unsigned j = 0; j < select_items; ++j) {
    const std::size_t i = first + j;
    if (i >= n) break;
    const U v = x[i];
    const U r = rank(v);
    if (r < kth || (r == kth && equal < take)) {
      const unsigned long long at = better + (equal < take ? equal : take);
      values[at] = v;
      indices[at] = static_cast<I>(i);
    }
    better += r < kth;
    equal += r == kth;
  }
}

template <class U, class I>
void radix_select(const char* algorithm, const execution_policy& policy, const U* x, std::size_t n, std::size_t k,
                  U* values, I* indices, top_k_rank<U> rank) {
  const cudaStream_t stream = policy.stream();
  const std::size_t tiles = (n + select_tile - 1) / select_tile;
  if (tiles > 0x7FFFFFFFu) throw std::invalid_argument(std::string("prism::") + algorithm + ": too many elements");
  {
    const std::size_t state_bytes = round256(sizeof(select_state<U>));
    const scratch lease = acquire_scratch(state_bytes + 2 * tiles * sizeof(unsigned long long),
                                          with_explicit_stream(policy), algorithm);
    auto* memory = static_cast<unsigned char*>(lease.device());
    auto* state = reinterpret_cast<select_state<U>*>(memory);
    auto* tile_counts = reinterpret_cast<unsigned long long*>(memory + state_bytes);
    check(cudaMemsetAsync(state, 0, sizeof(select_state<U>), stream), "cudaMemsetAsync", algorithm);
    const unsigned grid = stride_blocks(n);
    for (unsigned pass = 0; pass < select_state<U>::passes; ++pass) {
      launch(algorithm, "select_histogram_kernel", select_histogram_kernel<U>, grid, select_threads, stream, x, n,
             rank, pass, state);
      launch(algorithm, "select_digit_kernel", select_digit_kernel<U>, 1, 1, stream, state, pass,
             static_cast<unsigned long long>(k));
    }
    const auto tile_grid = static_cast<unsigned>(tiles);
    const select_state<U>* chosen = state;
    launch(algorithm, "select_count_kernel", select_count_kernel<U>, tile_grid, select_threads, stream, x, n, rank,
           chosen, tile_counts);
    launch(algorithm, "select_prefix_kernel", select_prefix_kernel<>, 1, 1024, stream, tile_counts, tiles);
    launch(algorithm, "select_write_kernel", select_write_kernel<U, I>, tile_grid, select_threads, stream, x, n, rank,
           chosen, static_cast<const unsigned long long*>(tile_counts), values, indices);
  }
  // The k chosen, in index order: a stable sort by the sort family's order puts them best first,
  // equals in index order (a lease of its own: the one above has been given back).
  radix::onesweep_sort<U, I, true>(algorithm, policy, values, values, indices, indices, false, k,
                             radix::bits_order<U>{rank});
}

// ---- raw for small k: one read of x (fused select) -----------------------------------------------

inline constexpr unsigned fused_threads = 256;  // 8 warps, a queue each
inline constexpr int fused_in_flight = 4;       // 16-byte vectors a lane loads at once

template <class U>
using block_of_queues = block_queues<U, fused_threads / 32>;

// The block's best k (warp 0, after block_of_queues::best) into slots [slot k, slot k + k).
template <class U>
__device__ void write_block_best(void* memory, unsigned k, std::size_t slot, U* out_ranks,
                                 std::uint64_t* out_positions) {
  if (threadIdx.x >= 32) return;
  for (unsigned j = threadIdx.x; j < k; j += 32) {
    out_ranks[slot * k + j] = block_of_queues<U>::best_ranks(memory, k)[j];
    out_positions[slot * k + j] = block_of_queues<U>::best_positions(memory, k)[j];
  }
}

// Level 0: each block's best k of the elements its warps read (a queue each,
// <prism/primitives/warp_select.cuh>, then one over the warps' lists), into its k slots of the
// candidates. Warps take 32 x fused_in_flight vectors at a time, grid-strided; a step none of
// whose elements beats the warp's k-th best so far costs one vote.
template <class U>
__global__ void __launch_bounds__(fused_threads)
    fused_select_kernel(const U* x, std::size_t n, std::size_t head, top_k_rank<U> rank, unsigned k, U* out_ranks,
                        std::uint64_t* out_positions) {
  constexpr int V = 16 / sizeof(U);
  extern __shared__ std::uint64_t queue_memory[];
  const unsigned lane = threadIdx.x % 32;
  warp_queue<U> queue(block_of_queues<U>::region(queue_memory, threadIdx.x / 32, k), k);
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const std::size_t warps = std::size_t{gridDim.x} * blockDim.x / 32;
  const std::size_t vectors = (n - head) / V;
  constexpr std::size_t step = 32 * fused_in_flight;
  for (std::size_t base = warp * step; base < vectors; base += warps * step) {
    vector_of<U, V> v[fused_in_flight] = {};
#pragma unroll
    for (int u = 0; u < fused_in_flight; ++u) {
      const std::size_t t = base + u * 32 + lane;
      if (t < vectors) v[u] = load_vector<V>(x + head + t * V);
    }
    const auto position = [&](int u, int e) { return head + (base + u * 32 + lane) * V + e; };
    const auto valid = [&](int u) { return base + u * 32 + lane < vectors; };
    // Bit u V + e: element e of vector u beats the limit (the value itself is not needed again:
    // its rank replaces it).
    unsigned entering = 0;
#pragma unroll
    for (int u = 0; u < fused_in_flight; ++u) {
#pragma unroll
      for (int e = 0; e < V; ++e) {
        v[u].element[e] = rank(v[u].element[e]);
        // The warp's steps go up in position, so the rank alone decides (warp_queue::may_enter).
        if (valid(u) && queue.may_enter(v[u].element[e])) entering |= 1u << (u * V + e);
      }
    }
    // The rare case, out of the loop's way: one candidate per lane per round, lowest bit first.
    while (__any_sync(~0u, entering != 0)) {
      const int pick = entering != 0 ? __ffs(entering) - 1 : 0;
      U r = 0;
#pragma unroll
      for (int j = 0; j < fused_in_flight * V; ++j) r = j == pick ? v[j / V].element[j % V] : r;
      queue.offer(entering != 0, r, position(pick / V, pick % V));
      entering &= entering - 1;
    }
  }
  // The elements outside the vectors (before the first aligned one, after the last whole one;
  // fewer than 2V): warp 0's.
  if (warp == 0) {
    const std::size_t tail = head + vectors * V;
    const bool valid = lane < head + (n - tail);
    const std::size_t i = lane < head ? lane : tail + (lane - head);
    queue.offer(valid, valid ? rank(x[i]) : U(0), i);
  }
  block_of_queues<U>::best(queue, queue_memory, k);
  write_block_best(queue_memory, k, blockIdx.x, out_ranks, out_positions);
}

// A later level: block b's best k of candidates [b per_block, (b + 1) per_block) of the level
// before, its warps taking 32 of them in turn.
template <class U>
__global__ void __launch_bounds__(fused_threads)
    fused_merge_kernel(const U* ranks, const std::uint64_t* positions, std::size_t count, std::size_t per_block,
                       unsigned k, U* out_ranks, std::uint64_t* out_positions) {
  extern __shared__ std::uint64_t queue_memory[];
  warp_queue<U> queue(block_of_queues<U>::region(queue_memory, threadIdx.x / 32, k), k);
  const std::size_t first = blockIdx.x * per_block, last = cuda::std::min(first + per_block, count);
  for (std::size_t base = first + threadIdx.x / 32 * 32; base < last; base += fused_threads) {
    const std::size_t i = base + threadIdx.x % 32;
    const bool valid = i < last;
    queue.offer(valid, valid ? ranks[i] : U(0), valid ? positions[i] : 0);
  }
  block_of_queues<U>::best(queue, queue_memory, k);
  write_block_best(queue_memory, k, blockIdx.x, out_ranks, out_positions);
}

// The final list's positions into the outputs.
template <class U, class I>
struct take_positions {
  const U* x;
  const std::uint64_t* positions;
  U* values;
  I* indices;
  __device__ void operator()(std::size_t j) const {
    const std::uint64_t p = positions[j];
    values[j] = x[p];
    indices[j] = static_cast<I>(p);
  }
};

// k <= warp_select_max_k. Level 0 leaves k candidates per block of a full GPU; each later level
// keeps the best k of every per_block of them, until one block's k remain, best first.
template <class U, class I>
void fused_select(const char* algorithm, const execution_policy& policy, const U* x, std::size_t n, std::size_t k,
                  U* values, I* indices, top_k_rank<U> rank) {
  constexpr int V = 16 / sizeof(U);
  constexpr unsigned warps_per_block = fused_threads / 32;
  const cudaStream_t stream = policy.stream();
  const auto kk = static_cast<unsigned>(k);
  const std::size_t shared = block_of_queues<U>::block_bytes(kk);
  const std::size_t head = vector_aligned_head<V>(n, x);
  const std::size_t steps = ((n - head) / V + 32 * fused_in_flight - 1) / (32 * fused_in_flight);
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(
      (steps + warps_per_block - 1) / warps_per_block, 1,
      resident_blocks(algorithm, fused_select_kernel<U>, fused_threads, shared)));
  std::size_t count = std::size_t{blocks} * k;  // candidates of level 0
  const std::size_t side = round256(count * sizeof(std::uint64_t)) + round256(count * sizeof(U));
  const scratch lease = acquire_scratch(2 * side, with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  U* ranks[2];
  std::uint64_t* positions[2];
  for (int b = 0; b < 2; ++b) {
    positions[b] = reinterpret_cast<std::uint64_t*>(memory + b * side);
    ranks[b] = reinterpret_cast<U*>(memory + b * side + round256(count * sizeof(std::uint64_t)));
  }
  launch_shared(algorithm, "fused_select_kernel", fused_select_kernel<U>, blocks, fused_threads, shared, stream, x, n,
                std::min(head, n), rank, kk, ranks[0], positions[0]);
  const std::size_t per_block = 8192;  // at least 8 lists of k (<= 128) per warp
  int at = 0;
  while (count > k) {
    const std::size_t merging = (count + per_block - 1) / per_block;
    launch_shared(algorithm, "fused_merge_kernel", fused_merge_kernel<U>, static_cast<unsigned>(merging),
                  fused_threads, shared, stream, static_cast<const U*>(ranks[at]),
                  static_cast<const std::uint64_t*>(positions[at]), count, per_block, kk, ranks[at ^ 1],
                  positions[at ^ 1]);
    count = merging * k;
    at ^= 1;
  }
  launch(algorithm, "for_each_index_kernel", for_each_index_kernel<take_positions<U, I>>, stride_blocks(k),
         block_size, stream, take_positions<U, I>{x, positions[at], values, indices}, k);
}

// ---- many segments at once: a block per segment (segment_select) ----------------------------------

// Segment s (grid-strided over the segments) by block s: warp w's queue over its steps of
// 32 x fused_in_flight elements, w, w + 8, ..., of it, then the block's best k (block_queues). Slot s k + j: the j-th best
// (position within the segment), or, past a short segment's end, the padding (index -1, value 0).
template <class U, class I>
__global__ void __launch_bounds__(fused_threads)
    segment_select_kernel(const U* x, segment_bounds seg, top_k_rank<U> rank, unsigned k, U* values, I* indices) {
  extern __shared__ std::uint64_t queue_memory[];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (std::int64_t s = blockIdx.x; s < seg.segments; s += gridDim.x) {
    const std::int64_t begin = seg.begin(s);
    const auto m = static_cast<std::size_t>(seg.end(s) - begin);
    warp_queue<U> queue(block_of_queues<U>::region(queue_memory, warp, k), k);
    // fused_in_flight elements a lane at a time, loaded before any is offered; the warp's
    // positions only go up, so the rank alone filters them (warp_queue::may_enter).
    constexpr std::size_t step = 32 * fused_in_flight;
    for (std::size_t base = std::size_t{warp} * step; base < m; base += fused_threads * fused_in_flight) {
      U r[fused_in_flight];
#pragma unroll
      for (int u = 0; u < fused_in_flight; ++u) {
        const std::size_t i = base + u * 32 + lane;
        r[u] = i < m ? rank(x[begin + i]) : U(0);
      }
      unsigned entering = 0;
#pragma unroll
      for (int u = 0; u < fused_in_flight; ++u) {
        if (base + u * 32 + lane < m && queue.may_enter(r[u])) entering |= 1u << u;
      }
      if (!__any_sync(~0u, entering != 0)) continue;
#pragma unroll
      for (int u = 0; u < fused_in_flight; ++u) queue.offer((entering >> u) & 1, r[u], base + u * 32 + lane);
    }
    block_of_queues<U>::best(queue, queue_memory, k);
    if (warp == 0) {
      const std::uint64_t* best = block_of_queues<U>::best_positions(queue_memory, k);
      for (unsigned j = lane; j < k; j += 32) {
        const std::uint64_t p = best[j];
        const std::size_t t = static_cast<std::size_t>(s) * k + j;
        const bool held = p < m;  // padding holds the largest position
        values[t] = held ? x[begin + static_cast<std::int64_t>(p)] : U{0};
        indices[t] = held ? static_cast<I>(p) : I(-1);
      }
    }
    __syncthreads();  // the queues' memory is the next segment's
  }
}

// Whether segment_select serves `segments` segments of k: k within the queue's reach, and enough
// segments to give every multiprocessor a block (fewer, longer ones read faster by other means).
inline bool segment_select_serves(std::size_t segments, std::size_t k) {
  return k >= 1 && k <= warp_select_max_k && segments >= std::size_t(multiprocessor_count());
}

template <class U, class I>
void segment_select(const char* algorithm, const execution_policy& policy, const U* x, const segment_bounds& seg,
                    std::size_t k, U* values, I* indices, top_k_rank<U> rank) {
  const auto kk = static_cast<unsigned>(k);
  const std::size_t shared = block_of_queues<U>::block_bytes(kk);
  const std::size_t resident = resident_blocks(algorithm, segment_select_kernel<U, I>, fused_threads, shared);
  const auto blocks =
      static_cast<unsigned>(std::min<std::size_t>(static_cast<std::size_t>(seg.segments), resident * 4));
  launch_shared(algorithm, "segment_select_kernel", segment_select_kernel<U, I>, blocks, fused_threads, shared,
                policy.stream(), x, seg, rank, kk, values, indices);
}

}  // namespace prism::detail
