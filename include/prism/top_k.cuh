// SPDX-License-Identifier: Apache-2.0
#pragma once
// The top-k family's implementations, side by side (<prism/top_k.hpp> says what they compute). The
// elements arrive as their bits U (uint32_t or uint64_t) with their kind told at run time, so one
// instantiation serves every type of a size.
//
// Every implementation ranks element i by rank(x[i]) = the sort family's ordered bits
// (radix_order.cuh), complemented for the largest: the k best are the k smallest ranks, ties to
// the lower index. What decides the speed is how many times the n elements are read:
//   cpu, thrust  sort then take: the n ranks and positions sorted (a radix sort: 2 reads and 2
//                writes of both per 8-bit digit), for k of them. Wasteful, and the baseline.
//   raw          radix select: one read of x per 8-bit digit (4 for 4-byte elements, 8 for 8-byte),
//                each a histogram of that digit among the elements still in the running, which
//                fixes one more digit of the k-th rank; then one read to count, per tile, the
//                elements better than it and those equal to it, and one to write the chosen ones
//                in index order; then a radix sort of only k. AIR top-k (SC'23) goes further: its
//                later passes read a buffer of the candidates left rather than x (lesson.cuh).
//                For k up to warp_select_max_k (128), one read: each warp keeps its best k in a
//                queue (<prism/primitives/warp_select.cuh>), and a few small launches keep the
//                best k of the warps' (fused_select).
//   cub          cub::DeviceTopK, AIR top-k itself, on the pairs (rank, ~position) made on the fly
//                by an iterator: a pair per element, so the k chosen are exactly the documented
//                ones (CUB's own ties are unspecified); its output is unordered, so the k are then
//                sorted by position and stably by rank.
// Segments given by offsets (top_k_segments) are every implementation's sort then take: each
// element's rank and position sorted within its segment by the segmented sort of the
// implementation named (<prism/segmented_sort.hpp>), then the first k of every segment taken.
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/onesweep.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/primitives/warp_select.cuh>
#include <prism/scratch.hpp>
#include <prism/segmented_sort.cuh>
#include <prism/segments.cuh>
#include <prism/top_k.hpp>

#include <cub/device/device_topk.cuh>
#include <cuda/iterator>
#include <cuda/std/algorithm>
#include <cuda/std/tuple>
#include <cuda/stream_ref>
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace prism::detail {

inline radix::key_kind radix_kind(key_kind kind) {
  return kind == key_kind::floating_point   ? radix::key_kind::floating
         : kind == key_kind::signed_integer ? radix::key_kind::signed_integer
                                              : radix::key_kind::unsigned_integer;
}

// An element's rank: the smaller, the better.
template <class U>
struct top_k_rank {
  radix::key_kind kind;
  bool largest;
  __host__ __device__ U operator()(U bits) const { return radix::ordered(bits, kind, largest); }
};

// ---- cpu, thrust: sort then take ----------------------------------------------------------------

// ranks and positions: n each, on the policy's side (host for thrust::omp::par).
template <class P, class U, class I>
void sort_then_take(const P& p, const U* x, std::size_t n, std::size_t k, U* values, I* indices, top_k_rank<U> rank,
                    U* ranks, I* positions) {
  thrust::transform(p, x, x + n, ranks, rank);
  thrust::sequence(p, positions, positions + n);
  thrust::stable_sort_by_key(p, ranks, ranks + n, positions);
  thrust::copy(p, positions, positions + k, indices);
  thrust::gather(p, indices, indices + k, x, values);
}

// Device memory for the baseline's n ranks and positions: stream-ordered from the device's pool
// (Thrust takes prism's scratch for its own temporary storage, one lease a stream at a time).
class stream_buffer {
 public:
  stream_buffer(std::size_t bytes, cudaStream_t stream, const char* algorithm) : stream_(stream) {
    check(cudaMallocAsync(&data_, bytes, stream), "cudaMallocAsync", algorithm);
  }
  ~stream_buffer() { (void)cudaFreeAsync(data_, stream_); }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

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
  radix::onesweep_sort<U, I>(algorithm, policy, values, values, indices, indices, false, k,
                             radix::bits_order<U>{rank.kind, rank.largest});
}

// ---- raw for small k: one read of x (fused select) -----------------------------------------------

inline constexpr unsigned fused_threads = 256;  // 8 warps, a queue each
inline constexpr int fused_in_flight = 4;       // 16-byte vectors a lane loads at once

// Level 0: each warp's best k of the elements it reads (<prism/primitives/warp_select.cuh>), into
// its k slots of the candidates. Warps take 32 x fused_in_flight vectors at a time, grid-strided;
// a step none of whose elements beats the warp's k-th best so far costs one vote.
template <class U>
__global__ void __launch_bounds__(fused_threads)
    fused_select_kernel(const U* x, std::size_t n, std::size_t head, top_k_rank<U> rank, unsigned k, U* out_ranks,
                        std::uint64_t* out_positions) {
  constexpr int V = 16 / sizeof(U);
  extern __shared__ std::uint64_t queue_memory[];
  const unsigned lane = threadIdx.x % 32;
  warp_queue<U> queue(reinterpret_cast<unsigned char*>(queue_memory) + threadIdx.x / 32 * warp_queue<U>::bytes(k), k);
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
        if (valid(u) && queue.beats_limit(v[u].element[e], position(u, e))) entering |= 1u << (u * V + e);
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
  queue.write(out_ranks + warp * k, out_positions + warp * k);
}

// A later level: warp w's best k of candidates [w per_warp, (w + 1) per_warp) of the level before.
template <class U>
__global__ void __launch_bounds__(fused_threads)
    fused_merge_kernel(const U* ranks, const std::uint64_t* positions, std::size_t count, std::size_t per_warp,
                       std::size_t warps, unsigned k, U* out_ranks, std::uint64_t* out_positions) {
  extern __shared__ std::uint64_t queue_memory[];
  const std::size_t warp = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;  // the whole warp
  warp_queue<U> queue(reinterpret_cast<unsigned char*>(queue_memory) + threadIdx.x / 32 * warp_queue<U>::bytes(k), k);
  const std::size_t first = warp * per_warp, last = cuda::std::min(first + per_warp, count);
  for (std::size_t base = first; base < last; base += 32) {
    const std::size_t i = base + threadIdx.x % 32;
    const bool valid = i < last;
    queue.offer(valid, valid ? ranks[i] : U(0), valid ? positions[i] : 0);
  }
  queue.write(out_ranks + warp * k, out_positions + warp * k);
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

// k <= warp_select_max_k. Level 0 leaves k candidates per warp of a full GPU; each later level
// keeps the best k of every per_warp of them, until one warp's k remain, best first.
template <class U, class I>
void fused_select(const char* algorithm, const execution_policy& policy, const U* x, std::size_t n, std::size_t k,
                  U* values, I* indices, top_k_rank<U> rank) {
  constexpr int V = 16 / sizeof(U);
  constexpr unsigned warps_per_block = fused_threads / 32;
  const cudaStream_t stream = policy.stream();
  const auto kk = static_cast<unsigned>(k);
  const std::size_t shared = warps_per_block * warp_queue<U>::bytes(kk);
  int blocks_per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fused_select_kernel<U>, fused_threads, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor", algorithm);
  const std::size_t head = vector_aligned_head<V>(n, x);
  const std::size_t steps = ((n - head) / V + 32 * fused_in_flight - 1) / (32 * fused_in_flight);
  const auto blocks = static_cast<unsigned>(std::clamp<std::size_t>(
      (steps + warps_per_block - 1) / warps_per_block, 1,
      std::size_t(multiprocessor_count()) * static_cast<std::size_t>(std::max(blocks_per_sm, 1))));
  std::size_t count = std::size_t{blocks} * warps_per_block * k;  // candidates of level 0
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
  const std::size_t per_warp = std::max<std::size_t>(1024, 16 * k);
  int at = 0;
  while (count > k) {
    const std::size_t warps = (count + per_warp - 1) / per_warp;
    launch_shared(algorithm, "fused_merge_kernel", fused_merge_kernel<U>,
                  static_cast<unsigned>((warps + warps_per_block - 1) / warps_per_block), fused_threads, shared,
                  stream, static_cast<const U*>(ranks[at]), static_cast<const std::uint64_t*>(positions[at]), count,
                  per_warp, warps, kk, ranks[at ^ 1], positions[at ^ 1]);
    count = warps * k;
    at ^= 1;
  }
  launch(algorithm, "for_each_index_kernel", for_each_index_kernel<take_positions<U, I>>, stride_blocks(k),
         block_size, stream, take_positions<U, I>{x, positions[at], values, indices}, k);
}

// ---- cub: DeviceTopK on (rank, ~position) pairs ---------------------------------------------------

template <class U>
struct ranked_position {
  U rank;              // complemented: CUB keeps the largest
  std::uint64_t after; // ~position: the lower position is the larger
};
template <class U>
struct ranked_position_fields {
  __host__ __device__ cuda::std::tuple<U&, std::uint64_t&> operator()(ranked_position<U>& p) const {
    return {p.rank, p.after};
  }
};
template <class U>
struct make_ranked_position {
  const U* x;
  top_k_rank<U> rank;
  __host__ __device__ ranked_position<U> operator()(std::int64_t i) const {
    return {static_cast<U>(~rank(x[i])), ~static_cast<std::uint64_t>(i)};
  }
};

template <class U, class I>
__global__ void unpack_ranked_kernel(const ranked_position<U>* chosen, std::size_t k, const U* x, U* values,
                                     I* indices) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= k) return;
  const std::uint64_t i = ~chosen[j].after;
  indices[j] = static_cast<I>(i);
  values[j] = x[i];
}

template <class U, class I>
void cub_top_k(const char* algorithm, const execution_policy& policy, const U* x, std::size_t n, std::size_t k,
               U* values, I* indices, top_k_rank<U> rank) {
  const cudaStream_t stream = policy.stream();
  const auto items = static_cast<std::int64_t>(n), wanted = static_cast<std::int64_t>(k);
  const auto pairs = cuda::make_transform_iterator(cuda::counting_iterator<std::int64_t>(0),
                                                   make_ranked_position<U>{x, rank});
  const auto env = cuda::std::execution::env{
      cuda::stream_ref{stream}, cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                         cuda::execution::output_ordering::unsorted)};
  cub_call(
      algorithm, "cub::DeviceTopK::MaxKeys", policy, {n, k},
      [&](void* temp, std::size_t& bytes, void* extra) {
        return cub::DeviceTopK::MaxKeys(temp, bytes, pairs, static_cast<ranked_position<U>*>(extra), items, wanted,
                                        ranked_position_fields<U>{}, env);
      },
      k * sizeof(ranked_position<U>),
      [&](void* extra) {
        launch(algorithm, "unpack_ranked_kernel", unpack_ranked_kernel<U, I>, blocks_for(k), block_size, stream,
               static_cast<const ranked_position<U>*>(extra), k, x, values, indices);
      });
  // Unordered: by position (an unsigned sort of the indices), then stably by the family's order.
  radix::onesweep_sort<I, U>(algorithm, policy, indices, indices, values, values, false, k,
                             radix::bits_order<I>{radix::key_kind::unsigned_integer, false});
  radix::onesweep_sort<U, I>(algorithm, policy, values, values, indices, indices, false, k,
                             radix::bits_order<U>{rank.kind, rank.largest});
}

// ---- the implementations side by side -----------------------------------------------------------

[[noreturn]] inline void refuse_top_k(const std::string& why) {
  throw std::invalid_argument("prism::top_k: " + why);
}

// Rows of row_length of x (the plain form: one row of all of x), k best of each.
// `stage` is the lesson's: raw's selection (radix_select for any k, or for k up to
// warp_select_max_k the fused one).
template <class U, class I>
void top_k_spans(const execution_policy& policy, key_kind kind, span<const U> x, std::size_t row_length,
                 std::size_t k, span<U> values, span<I> indices, bool largest,
                 top_k_stage stage = top_k_stage::fused_select) {
  const char* algorithm = "top_k";
  const std::size_t n = x.size();
  if (row_length == 0 && n != 0) refuse_top_k("a row length of 0 for " + std::to_string(n) + " elements");
  if (row_length != 0 && n % row_length != 0) {
    refuse_top_k(std::to_string(n) + " elements are not rows of " + std::to_string(row_length));
  }
  if (k > row_length) {
    refuse_top_k("k = " + std::to_string(k) + " is more than the " + std::to_string(row_length) +
                 " elements of a row");
  }
  if (sizeof(I) == 4 && row_length > std::size_t{0x7FFFFFFF}) {
    refuse_top_k(std::to_string(row_length) + " elements are more than int32 indices can number; use int64");
  }
  const std::size_t rows = row_length == 0 ? 0 : n / row_length;
  const top_k_rank<U> rank{radix_kind(kind), largest};
  const U* in = x.data();
  U* v = values.data();
  I* idx = indices.data();
  const cudaStream_t stream = policy.stream();
  // One row at a time (each a whole top_k).
  const auto each_row = [&](auto&& run_row) {
    for (std::size_t r = 0; r < rows; ++r) run_row(in + r * row_length, v + r * k, idx + r * k);
  };
  dispatch({algorithm, top_k_family, policy,
            {array_ref::input(x, "the input"), array_ref::output_apart(values, "the values").sized(rows * k),
             array_ref::output_apart(indices, "the indices").sized(rows * k)},
            rows * k, x.size_bytes() + rows * k * (sizeof(U) + sizeof(I))},
           implementations{
               .cpu =
                   [&](const auto& p) {
                     std::vector<U> ranks(row_length);
                     std::vector<I> positions(row_length);
                     each_row([&](const U* row, U* out, I* out_idx) {
                       sort_then_take(p, row, row_length, k, out, out_idx, rank, ranks.data(), positions.data());
                     });
                   },
               .thrust =
                   [&](const auto& p) {
                     const stream_buffer ranks(row_length * sizeof(U), stream, algorithm);
                     const stream_buffer positions(row_length * sizeof(I), stream, algorithm);
                     each_row([&](const U* row, U* out, I* out_idx) {
                       sort_then_take(p, row, row_length, k, out, out_idx, rank, static_cast<U*>(ranks.get()),
                                      static_cast<I*>(positions.get()));
                     });
                   },
               .raw =
                   [&] {
                     const bool fused = stage == top_k_stage::fused_select && k <= warp_select_max_k;
                     each_row([&](const U* row, U* out, I* out_idx) {
                       if (fused) fused_select(algorithm, policy, row, row_length, k, out, out_idx, rank);
                       else radix_select(algorithm, policy, row, row_length, k, out, out_idx, rank);
                     });
                   },
               .cub =
                   [&] {
                     each_row([&](const U* row, U* out, I* out_idx) {
                       cub_top_k(algorithm, policy, row, row_length, k, out, out_idx, rank);
                     });
                   },
           });
}

// ---- segments by offsets: sort then take, in every implementation -------------------------------

// Element i's rank and its position: the pairs the segmented sort orders within each segment.
template <class U>
struct rank_and_position {
  const U* x;
  U* ranks;
  std::uint64_t* positions;
  top_k_rank<U> rank;
  __host__ __device__ void operator()(std::size_t i) const {
    ranks[i] = rank(x[i]);
    positions[i] = i;
  }
};

// Output slot t = s * k + j: segment s's j-th best (the position sorted to its begin + j), or, in a
// segment of j elements or fewer, the padding: index -1, value 0.
template <class U, class I>
struct take_segment_best {
  segment_bounds seg;
  std::size_t k;
  const U* x;
  const std::uint64_t* positions;
  U* values;
  I* indices;
  __host__ __device__ void operator()(std::size_t t) const {
    const auto s = static_cast<std::int64_t>(t / k), j = static_cast<std::int64_t>(t % k);
    const std::int64_t begin = seg.begin(s);
    if (begin + j < seg.end(s)) {
      const std::uint64_t p = positions[begin + j];
      values[t] = x[p];
      indices[t] = static_cast<I>(static_cast<std::int64_t>(p) - begin);
    } else {
      values[t] = U{0};
      indices[t] = I(-1);
    }
  }
};

// Segments (offsets or a fixed size) of x, k best of each: rows * k slots, padded.
template <class U, class I>
void top_k_segment_spans(const execution_policy& policy, key_kind kind, span<const U> x, segment_list list,
                         std::size_t k, span<U> values, span<I> indices, bool largest) {
  const char* algorithm = "top_k_segments";
  const std::size_t n = x.size();
  const segment_bounds seg = segment_bounds_of(algorithm, list, n);
  const auto segments = static_cast<std::size_t>(seg.segments);
  if (segments != 0 && k > std::numeric_limits<std::size_t>::max() / 16 / segments) {
    refuse_top_k("k = " + std::to_string(k) + " for " + std::to_string(segments) + " segments is too many slots");
  }
  if (sizeof(I) == 4 && n > std::size_t{0x7FFFFFFF}) {
    refuse_top_k(std::to_string(n) + " elements are more than int32 indices can number; use int64");
  }
  const std::size_t slots = segments * k;
  const cudaStream_t stream = policy.stream();
  // The ranks and positions are sorted within their segments, in place, by the segmented sort's
  // implementations themselves (<prism/segmented_sort.cuh>), not through its public call: the
  // checks are this call's, and the pairs are memory of this call's own, which a stream capturing
  // a graph has not made yet (a public call would refuse it as not device memory).
  namespace sorting = segmented_sorting;
  const radix::key_kind ranks_kind = radix::key_kind::unsigned_integer;
  const bool sorted = n > 0 && seg.segments > 0;  // without elements every slot is padding
  const auto on_thrust = [&](const auto& p, U* ranks, std::uint64_t* positions) {
    if (sorted) {
      thrust::for_each_n(p, thrust::counting_iterator<std::size_t>(0), n,
                         rank_and_position<U>{x.data(), ranks, positions, {radix_kind(kind), largest}});
      sorting::two_pass_sort(p, algorithm, policy, seg, sorting::ordered_key<U>{ranks_kind, false}, ranks, ranks,
                             positions, positions, stream);
    }
    thrust::for_each_n(p, thrust::counting_iterator<std::size_t>(0), slots,
                       take_segment_best<U, I>{seg, k, x.data(), positions, values.data(), indices.data()});
  };
  // The n ranks and positions on the device: from the stream-ordered pool, since the segmented
  // sort takes prism's scratch meanwhile.
  const auto with_device_pairs = [&](auto&& body) {
    const stream_buffer ranks(std::max<std::size_t>(n, 1) * sizeof(U), stream, algorithm);
    const stream_buffer positions(std::max<std::size_t>(n, 1) * sizeof(std::uint64_t), stream, algorithm);
    body(static_cast<U*>(ranks.get()), static_cast<std::uint64_t*>(positions.get()));
  };
  const auto on_gpu = [&](impl which) {
    with_device_pairs([&](U* r, std::uint64_t* q) {
      if (sorted) {
        launch(algorithm, "for_each_index_kernel", for_each_index_kernel<rank_and_position<U>>, stride_blocks(n),
               block_size, stream, rank_and_position<U>{x.data(), r, q, {radix_kind(kind), largest}}, n);
        if (which == impl::raw) {
          sorting::raw_segmented_sort(algorithm, policy, seg, radix::bits_order<U>{ranks_kind, false}, r, r, q, q);
        } else {
          sorting::cub_segmented_sort(algorithm, policy, seg, sorting::ordered_key<U>{ranks_kind, false}, r, r, q, q);
        }
      }
      launch(algorithm, "for_each_index_kernel", for_each_index_kernel<take_segment_best<U, I>>, stride_blocks(slots),
             block_size, stream, take_segment_best<U, I>{seg, k, x.data(), q, values.data(), indices.data()}, slots);
    });
  };
  const array_ref offsets{list.offsets, list.offsets_count, list.offsets_count * list.offset_bytes, false,
                          "the offsets"};
  dispatch({algorithm, top_k_family, policy,
            {array_ref::input(x, "the input"), offsets,
             array_ref::output_apart(values, "the values").sized(slots),
             array_ref::output_apart(indices, "the indices").sized(slots)},
            slots, x.size_bytes() + slots * (sizeof(U) + sizeof(I))},
           implementations{
               .cpu =
                   [&](const auto& p) {
                     check_segment_offsets(algorithm, seg);
                     std::vector<U> ranks(n);
                     std::vector<std::uint64_t> positions(n);  // n may be 0: take_segment_best reads none
                     on_thrust(p, ranks.data(), positions.data());
                   },
               .thrust =
                   [&](const auto& p) {
                     with_device_pairs([&](U* r, std::uint64_t* q) { on_thrust(p, r, q); });
                   },
               .raw = [&] { on_gpu(impl::raw); },
               .cub = [&] { on_gpu(impl::cub); },
           });
}

}  // namespace prism::detail
