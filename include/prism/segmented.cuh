// SPDX-License-Identifier: Apache-2.0
#pragma once
// The segmented family's generic layer: one reduction or one prefix sum per segment, the segments
// given by offsets or by a fixed size, in every implementation, for any reduction made of
// (load, combine, identity, finish) (<prism/segmented.hpp> compiles sum, min, max, argmin and
// argmax of the standard types from these templates).
//
// What decides the speed. A segmented reduction reads every element once and writes one value per
// segment: a read-only pattern, as a plain reduction is, but the work comes in pieces of sizes the
// GPU learns only from the offsets. The whole game is giving every thread an even share:
//   raw_naive  one thread per segment: neighbouring threads read addresses a segment apart (no
//              coalescing), and one long segment keeps one thread busy while the GPU idles.
//   raw        tiles of elements whatever the segments: every thread takes 64 contiguous bytes,
//              finds its segments in the offsets, and the reduction is a scan of (value, head)
//              pairs that starts over at each segment's first element; blocks carry a segment
//              across their tiles, and the last block to arrive finishes the segments that cross
//              blocks, in a fixed order (deterministic). One segment of everything runs at a
//              plain reduction's pace; a million short ones cost no more. Scans run the scan
//              family's single pass (decoupled look-back) with the same heads.
//   thrust     no per-segment work at all: a scan over every element of (segment, value) pairs with
//              the segmented operator (a pair from another segment starts over), which is as
//              balanced as a scan is; the segment of each element is a binary search in the
//              offsets (cached: neighbouring elements search the same few offsets).
//   cub        cub::DeviceSegmentedReduce::Reduce (a block per segment, with warp-sized policies
//              for small ones) and cub::DeviceSegmentedScan (CCCL 3.5).
//   cpu        the thrust code through Thrust's OpenMP system, after checking the offsets.
// Every GPU implementation clamps each segment into [0, n] (begin_of, end_of): broken offsets,
// which only cpu refuses, read and write nothing outside the arrays.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/last_block.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/single_pass.cuh>
#include <prism/scan_programs.cuh>
#include <prism/scratch.hpp>
#include <prism/segmented.hpp>
#include <prism/segments.cuh>
#include <prism/span.hpp>

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_scan.cuh>
#include <cuda/iterator>
#include <cuda/std/bit>
#include <cuda/std/limits>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {
namespace detail {

// ---- cpu and thrust: one scan of (segment, value) pairs -------------------------------------------

template <class A>
struct keyed {
  std::int64_t segment;
  A value;
};

// The segmented operator: a pair from a later segment starts over. Associative whenever the
// segments never decrease along the array (segment_of guarantees it).
template <class Combine>
struct segmented_op {
  Combine combine;
  template <class A>
  __host__ __device__ keyed<A> operator()(const keyed<A>& a, const keyed<A>& b) const {
    return b.segment == a.segment ? keyed<A>{b.segment, combine(a.value, b.value)} : b;
  }
};

template <class Reduction, class Segments>
struct load_keyed {
  const typename Reduction::value_type* x;
  Segments segments;
  Reduction r;
  __host__ __device__ keyed<typename Reduction::accumulator> operator()(std::int64_t i) const {
    return {segments.segment_of(i), r.load(x[i], i)};
  }
};

// Writes segment s's total where its last element's prefix comes by.
template <class Reduction, class Segments>
struct write_last_prefix {
  typename Reduction::result* out;
  Segments segments;
  Reduction r;
  __host__ __device__ void operator()(std::int64_t i, const keyed<typename Reduction::accumulator>& k) const {
    if (k.segment >= 0 && k.segment < segments.count && i + 1 == segments.end(k.segment)) {
      out[k.segment] = r.finish(k.value);
    }
  }
};

template <class Reduction, class Segments, class Policy>
void reduce_by_scan(const Policy& p, const typename Reduction::value_type* x, std::int64_t n,
                    typename Reduction::result* out, Segments segments, Reduction r) {
  thrust::fill_n(p, out, segments.count, r.finish(r.identity()));
  if (n == 0) return;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                  load_keyed<Reduction, Segments>{x, segments, r});
  thrust::inclusive_scan(p, in, in + n,
                         cuda::make_tabulate_output_iterator(write_last_prefix<Reduction, Segments>{out, segments, r}),
                         segmented_op<combine_of<Reduction>>{{r}});
}

// Scans: every prefix written where its element is in a segment. The exclusive scan is an
// exclusive scan of the pairs: its prefix at i comes from i - 1, and is 0 unless that is i's segment.
template <class T, class Segments>
struct write_prefix {
  T* out;
  Segments segments;
  bool exclusive;
  __host__ __device__ void operator()(std::int64_t i, const keyed<T>& k) const {
    const std::int64_t s = exclusive ? segments.segment_of(i) : k.segment;
    if (s < 0 || s >= segments.count) return;
    out[i] = exclusive && k.segment != s ? T{} : k.value;
  }
};

// The prefix sum as a reduction (load and combine in T, integers wrapping).
template <class T>
struct segment_scan_sum {
  using value_type = T;
  using accumulator = T;
  __host__ __device__ T load(T v, std::int64_t) const { return v; }
};

template <class T, class Segments, class Policy>
void scan_by_scan(const Policy& p, const T* x, std::int64_t n, T* out, Segments segments, bool exclusive) {
  if (n == 0) return;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                  load_keyed<segment_scan_sum<T>, Segments>{x, segments, {}});
  const auto to = cuda::make_tabulate_output_iterator(write_prefix<T, Segments>{out, segments, exclusive});
  const segmented_op<functors::plus<T>> op{};
  if (exclusive) {
    thrust::exclusive_scan(p, in, in + n, to, keyed<T>{-2, T{}}, op);
  } else {
    thrust::inclusive_scan(p, in, in + n, to, op);
  }
}

// ---- raw: tiles of elements, whatever the segments ------------------------------------------------
// The work is cut by elements, not by segments: every block takes an equal contiguous share of the
// array, tile by tile, and every thread `thread_items` contiguous elements of a tile, so one segment of
// everything keeps the whole GPU busy as a plain reduction does, and a million short ones cost no
// more. Each element learns its segment from the offsets (a binary search for a thread's first
// element among its block's segments, then a walk), and whether it starts one (a head) or ends
// one (a tail). A segmented reduction is then a scan of (value, head) pairs under the operator
// that starts over at a head (flagged and segmented, <prism/scan_programs.cuh>): each thread folds
// its elements, the block scans its threads' folds, and the element at a segment's tail holds the
// segment's total and writes it. Across the tiles of a block that total is carried along; a
// segment that begins in an earlier block is finished by the block that arrives last, which scans
// every block's carry in a fixed order: the sums are the same from run to run.

// A thread's place among the segments as it walks its elements in order: s is the first segment
// that ends after the element (the one holding it, or the next when the element lies before
// every segment's begin, in a gap).
template <class Segments>
struct segment_walk {
  Segments segments;
  std::int64_t s, begin, end;

  __device__ segment_walk(Segments g, std::int64_t j, std::int64_t lo, std::int64_t hi)
      : segments(g), s(g.locate(j, lo, hi)) {
    enter();
  }
  __device__ void enter() {
    if (s < segments.count) {
      begin = segments.begin(s), end = segments.end(s);
    } else {
      begin = end = cuda::std::numeric_limits<std::int64_t>::max();
    }
  }
  __device__ void to(std::int64_t j) {
    while (s < segments.count && end <= j) ++s, enter();
  }
  __device__ bool member(std::int64_t j) const { return begin <= j && j < end; }
  __device__ bool head(std::int64_t j) const { return j == begin; }
  __device__ bool tail(std::int64_t j) const { return j + 1 == end; }
  // The empty segments at position p (begin = end = p) from segment e on, written with `empty`:
  // each is written by the element just before p (element 0 for p = 0).
  template <class Write>
  __device__ void empties(std::int64_t e, std::int64_t p, Write write) const {
    for (; e < segments.count && segments.end(e) <= p; ++e) write(e);
  }
};

// 64 bytes of contiguous elements per thread: four 16-byte vectors.
inline constexpr int tile_vectors = 4;
template <class T>
constexpr int thread_items = vector_width<T> * tile_vectors;

// What a block hands on: its elements' fold (the open segment's value at its end, and whether a
// segment began in it), and, where its first segment began in an earlier block and ends in it,
// that segment's number and its elements in this block combined.
template <class A>
struct segment_carry {
  flagged<A> total;
  A first_piece;
  std::int64_t first_segment;
};

template <class Reduction, class Segments>
__global__ void __launch_bounds__(block_size)
    segmented_tiles_kernel(const typename Reduction::value_type* x, typename Reduction::result* out, Segments segments,
                           Reduction r, std::int64_t n, std::int64_t per_block, bool aligned,
                           staged<segment_carry<typename Reduction::accumulator>>* carries, unsigned* arrivals) {
  using T = typename Reduction::value_type;
  using A = typename Reduction::accumulator;
  using F = flagged<A>;
  constexpr int V = vector_width<T>, items = thread_items<T>;
  constexpr std::int64_t tile = std::int64_t{block_size} * items;
  const segmented<A, combine_of<Reduction>> op{{r}};
  const F none{r.identity(), 0};
  const auto finish_empty = [&](std::int64_t e) { out[e] = r.finish(r.identity()); };
  __shared__ std::int64_t block_segments[2];

  // The block's first and last elements' segments: every thread's search stays between them, and
  // starts, from its second tile on, where its last walk ended.
  const std::int64_t first = blockIdx.x * per_block, last = cuda::std::min(n, first + per_block);
  if (threadIdx.x == 0) block_segments[0] = segments.locate(first, 0, segments.count);
  if (threadIdx.x == 32) block_segments[1] = segments.locate(last - 1, 0, segments.count);
  __syncthreads();
  std::int64_t lo = block_segments[0];
  const std::int64_t hi = block_segments[1];
  segment_carry<A> carry{none, r.identity(), -1};
  for (std::int64_t base = first; base < last; base += tile) {
    const std::int64_t j0 = base + std::int64_t{threadIdx.x} * items;
    T v[tile_vectors][V];
#pragma unroll
    for (int k = 0; k < tile_vectors; ++k) load_elements<V>(x, j0 + k * V, last, aligned, v[k]);

    // This thread's elements folded, then the block's folds scanned. Most threads' elements lie
    // in one segment with no segment starting after the first of them (all, where segments are
    // longer than a thread's share): those fold their values alone, with no walk among the
    // segments. Walking every element cost about 100 instructions per element (ncu on the H200:
    // 2.7 instructions per cycle, DRAM 15% busy; docs/benchmarks/segmented.md).
    const std::int64_t stop = cuda::std::min(j0 + items, last);
    const segment_walk<Segments> at(segments, j0 < last ? j0 : last - 1, lo, hi);
    const bool inside = j0 < last && at.member(j0) && stop <= at.end;
    F mine = none;
    if (inside) {
      A acc = r.load(v[0][0], j0);
      if (stop == j0 + items) {
#pragma unroll
        for (int k = 1; k < items; ++k) acc = r.combine(acc, r.load(v[k / V][k % V], j0 + k));
      } else {
#pragma unroll
        for (int k = 1; k < items; ++k)
          if (j0 + k < stop) acc = r.combine(acc, r.load(v[k / V][k % V], j0 + k));
      }
      mine = F{acc, at.head(j0)};
    } else if (j0 < last) {
      segment_walk<Segments> w = at;
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const std::int64_t j = j0 + k;
        if (j >= last) break;
        w.to(j);
        if (w.member(j)) mine = op(mine, F{r.load(v[k / V][k % V], j), w.head(j)});
      }
    }
    F tile_total;
    const maybe<F> before = block_exclusive_scan(mine, op, tile_total);
    F running = before.present ? op(carry.total, before.value) : carry.total;

    // Again, now with everything before each element: tails write their segment's total.
    // A segment that began in an earlier block is left to the last block to arrive.
    const auto finish = [&](std::int64_t segment) {
      if (running.head || blockIdx.x == 0) {
        out[segment] = r.finish(running.value);
      } else {
        carry.first_piece = running.value, carry.first_segment = segment;
      }
    };
    if (j0 == 0) at.empties(0, 0, finish_empty);
    if (inside) {
      running = op(running, mine);
      if (stop == at.end) {  // the last element ends the segment
        finish(at.s);
        at.empties(at.s + 1, stop, finish_empty);
      }
      lo = at.s;
    } else if (j0 < last) {
      segment_walk<Segments> w = at;
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const std::int64_t j = j0 + k;
        if (j >= last) break;
        w.to(j);
        const bool member = w.member(j), tail = member && w.tail(j);
        if (member) {
          running = op(running, F{r.load(v[k / V][k % V], j), w.head(j)});
          if (tail) finish(w.s);
        }
        if (!member || tail) w.empties(member ? w.s + 1 : w.s, j + 1, finish_empty);
      }
      lo = w.s;
    }
    carry.total = op(carry.total, tile_total);
  }

  // The carries: one thread found the first piece (if any); thread 0 publishes them.
  __shared__ segment_carry<A> found;
  if (threadIdx.x == 0) found.first_segment = -1;
  __syncthreads();
  if (carry.first_segment >= 0) found = carry;
  __syncthreads();
  if (threadIdx.x == 0) {
    carry.first_piece = found.first_piece, carry.first_segment = found.first_segment;
    store_to_l2(carries + blockIdx.x, carry);
  }
  if (!last_to_arrive(arrivals)) return;
  // The last block: an exclusive scan of the blocks' totals in block order gives each block the
  // value its first segment had reached before it.
  maybe<F> running{none, false};
  for (std::int64_t b0 = 0; b0 < gridDim.x; b0 += blockDim.x) {
    const std::int64_t b = b0 + threadIdx.x;
    const segment_carry<A> c = b < gridDim.x ? load_from_l2(carries + b) : segment_carry<A>{none, r.identity(), -1};
    F chunk;
    const maybe<F> before = combine(running, block_exclusive_scan(c.total, op, chunk), op);
    if (c.first_segment >= 0) {
      out[c.first_segment] = r.finish(before.present ? r.combine(before.value.value, c.first_piece) : c.first_piece);
    }
    running = {combine(running, chunk, op), true};
  }
}

template <class Reduction, class Segments>
void run_segmented_tiles(const char* algorithm, const execution_policy& policy, const typename Reduction::value_type* x,
                         std::int64_t n, typename Reduction::result* out, Segments segments, Reduction r) {
  using T = typename Reduction::value_type;
  using A = typename Reduction::accumulator;
  if (segments.count == 0) return;
  const cudaStream_t stream = policy.stream();
  // Every segment written empty first where the offsets may be broken (every one when n is 0):
  // offsets that are not sorted can leave a segment no element whose walk ends it, and its output
  // must still hold a value. Sizes cannot be broken.
  if (n == 0 || !std::is_same_v<Segments, fixed_size_segments>) {
    const fixed_size_segments empty{0, segments.count};
    launch(algorithm, "segmented_reduce_naive_kernel", segmented_reduce_naive_kernel<Reduction, fixed_size_segments>,
           blocks_for(static_cast<std::size_t>(segments.count)), block_size, stream, x, out, empty, r);
  }
  if (n == 0) return;
  // Short rows of a fixed size: one thread per row, its row staged through shared memory
  // (segmented_rows_kernel; docs/benchmarks/segmented.md, rows *_rows32/*/raw against raw_naive).
  if constexpr (std::is_same_v<Segments, fixed_size_segments>) {
    if (segments.size <= short_row) {
      if constexpr (std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)) {
        constexpr std::int64_t rows = rows_per_block<T>;
        launch(algorithm, "segmented_rows_kernel", segmented_rows_kernel<Reduction>,
               static_cast<unsigned>((segments.count + rows - 1) / rows), block_size, stream, x, out, segments, r);
      } else {
        launch(algorithm, "segmented_reduce_naive_kernel", segmented_reduce_naive_kernel<Reduction, Segments>,
               blocks_for(static_cast<std::size_t>(segments.count)), block_size, stream, x, out, segments, r);
      }
      return;
    }
  }
  const auto kernel = segmented_tiles_kernel<Reduction, Segments>;
  static const int blocks_per_sm = [&] {
    int blocks = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_size, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor", algorithm);
    return std::max(blocks, 1);
  }();
  // As many blocks as are resident at once (each takes an equal share), at most 1,024.
  constexpr std::int64_t tile = std::int64_t{block_size} * thread_items<T>;
  const std::int64_t tiles = (n + tile - 1) / tile;
  const std::int64_t resident = std::min<std::int64_t>(std::int64_t{multiprocessor_count()} * blocks_per_sm, 1024);
  const std::int64_t per_block = (tiles + std::min(tiles, resident) - 1) / std::min(tiles, resident) * tile;
  const auto blocks = static_cast<unsigned>((n + per_block - 1) / per_block);
  const scratch lease =
      acquire_scratch(blocks * sizeof(staged<segment_carry<A>>), with_explicit_stream(policy), algorithm);
  launch(algorithm, "segmented_tiles_kernel", kernel, blocks, block_size, stream, x, out, segments, r, n, per_block,
         vector_aligned<vector_width<T>>(x), static_cast<staged<segment_carry<A>>*>(lease.device()),
         lease.zeroed_counter());
}

// ---- raw scans: the scan family's single pass, heads from the offsets -------------------------------
// A segmented scan is a scan by key whose runs are the segments: the single-pass engine of the scan
// family (<prism/primitives/single_pass.cuh>), its tiles joined by decoupled look-back, with each
// element's head and membership found as above. Before it, one search per tile of the tile's first
// segment, so each vector's search stays among its tile's segments.
template <class Segments>
__global__ void tile_segments_kernel(Segments segments, std::int64_t n, std::int64_t tile, std::int64_t tiles,
                                     std::int64_t* first) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t <= tiles) first[t] = segments.locate(t < tiles ? t * tile : n - 1, 0, segments.count);
}

template <class T, class Segments>
struct segmented_scan_program {
  using scan_type = flagged<T>;
  static constexpr int vector = scan_vector<T>;
  static constexpr int threads = scan_threads, rounds = scan_rounds;
  static constexpr bool counts_flags = false;
  static constexpr std::int64_t tile = std::int64_t{threads} * rounds * vector;
  struct items {
    unsigned member;  // bit k: element k is in a segment
  };
  using shared_storage = nothing;
  const T* x;
  T* out;
  Segments segments;
  std::int64_t n;
  bool exclusive, x_aligned, out_aligned;
  const std::int64_t* tile_first;  // tiles + 1 segments (none for fixed sizes)

  __device__ segmented<T, functors::plus<T>> combiner() const { return {}; }
  __device__ void prefetch(std::size_t i, std::size_t count) const { prefetch_l2(x, i, count, n); }
  __device__ maybe<scan_type> initial() const { return {scan_type{}, false}; }
  template <class Whole>
  __device__ void load(std::size_t i, items& it, scan_type (&s)[vector], Whole whole) const {
    T v[vector];
    load_elements<vector>(x, i, static_cast<std::size_t>(n), x_aligned, v, whole);
    const auto j0 = static_cast<std::int64_t>(i);
    const std::int64_t t = j0 / tile;
    segment_walk<Segments> w(segments, j0 < n ? j0 : n - 1, tile_first ? tile_first[t] : 0,
                             tile_first ? tile_first[t + 1] : segments.count);
    it.member = 0;
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      const std::int64_t j = j0 + k;
      s[k] = {T{}, 1};
      if (!Whole::value && j >= n) continue;
      w.to(j);
      if (!w.member(j)) continue;
      it.member |= 1u << k;
      s[k] = {v[k], w.head(j) ? 1u : 0u};
    }
  }
  __device__ void emit(std::size_t i, const items& it, const scan_type (&s)[vector], maybe<scan_type> running,
                       const tile_info<scan_type>&, shared_storage&) const {
    T o[vector];
    bool all = true;
#pragma unroll
    for (int k = 0; k < vector; ++k) {
      const T before = s[k].head || !running.present ? T{} : running.value.value;
      running = {combine(running, s[k], combiner()), true};
      o[k] = exclusive ? before : running.value.value;
      all = all && (it.member >> k & 1u);
    }
    if (all) {
      store_elements<vector>(out, i, static_cast<std::size_t>(n), out_aligned, o);
    } else {
#pragma unroll
      for (int k = 0; k < vector; ++k)
        if (it.member >> k & 1u) out[i + k] = o[k];
    }
  }
  __device__ void finish(const tile_info<scan_type>&, shared_storage&) const {}
};

template <class T, class Segments>
void run_segmented_scan(const char* algorithm, const execution_policy& policy, const T* x, std::int64_t n, T* out,
                        Segments segments, bool exclusive) {
  using Program = segmented_scan_program<T, Segments>;
  if (n == 0 || segments.count == 0) return;
  constexpr bool searched = !std::is_same_v<Segments, fixed_size_segments>;
  const std::int64_t tiles = (n + Program::tile - 1) / Program::tile;
  const auto make = [&](void* extra) {
    return Program{x, out, segments, n, exclusive, vector_aligned<Program::vector>(x), vector_aligned<Program::vector>(out),
                   searched ? static_cast<const std::int64_t*>(extra) : nullptr};
  };
  if constexpr (searched) {
    run_single_pass<Program>(algorithm, policy, static_cast<std::size_t>(n), make,
                             static_cast<std::size_t>(tiles + 1) * sizeof(std::int64_t),
                             [&](void* extra, cudaStream_t stream) {
                               launch(algorithm, "tile_segments_kernel", tile_segments_kernel<Segments>,
                                      blocks_for(static_cast<std::size_t>(tiles + 1)), block_size, stream, segments, n,
                                      Program::tile, tiles, static_cast<std::int64_t*>(extra));
                             });
  } else {
    run_single_pass<Program>(algorithm, policy, static_cast<std::size_t>(n), make);
  }
}

// ---- cub ------------------------------------------------------------------------------------------

template <class Reduction>
struct load_at {
  const typename Reduction::value_type* x;
  Reduction r;
  __host__ __device__ typename Reduction::accumulator operator()(std::int64_t i) const { return r.load(x[i], i); }
};
template <class Reduction>
struct finish_with {
  Reduction r;
  __host__ __device__ typename Reduction::result operator()(const typename Reduction::accumulator& a) const {
    return r.finish(a);
  }
};

template <class Segments>
auto cub_offsets(Segments segments) {
  const cuda::counting_iterator<std::int64_t> from(0);
  return std::pair{cuda::make_transform_iterator(from, begin_of<Segments>{segments}),
                   cuda::make_transform_iterator(from, end_of<Segments>{segments})};
}

// ---- the checks and the dispatch ----------------------------------------------------------------

// The segments of a call as the kernels take them, and the arrays the checks see.
template <class I>
struct call_segments {
  segments_view<I> view;
  std::size_t count, n;
  const char* algorithm;

  array_ref offsets_ref() const {
    return array_ref::input(view.offsets, "the offsets").sized(view.fixed ? 0 : count + 1);
  }
  // The segment count comes from a reduction's output (one element per segment) or from the
  // offsets (a scan's); where the values or the offsets disagree, the message names both sides.
  void check_sizes(bool counted_by_output) const {
    const std::string where = std::string("prism::") + algorithm + ": ";
    const std::string output = "the output has " + std::to_string(count) + " elements (one per segment), but ";
    // fixed_size * count == n, without the product wrapping past 2^64 (a wrapped one could equal n).
    const std::size_t size = view.fixed_size;
    const bool wraps = count != 0 && size > SIZE_MAX / count;
    if (view.fixed && (wraps || size * count != n)) {
      if (!counted_by_output || size == 0) {
        throw std::invalid_argument(where + std::to_string(count) + " segments of " + std::to_string(size) + " need " +
                                    (wraps ? "more than 2^64 - 1" : std::to_string(size * count)) + " values, not " +
                                    std::to_string(n));
      }
      throw std::invalid_argument(where + output + "the " + std::to_string(n) + " values are " +
                                  (n % view.fixed_size == 0 ? std::to_string(n / view.fixed_size) + " segments"
                                                            : "no whole number of segments") +
                                  " of " + std::to_string(view.fixed_size));
    }
    if (!view.fixed && counted_by_output && view.offsets.size() != count + 1) {
      throw std::invalid_argument(where + output +
                                  (view.offsets.empty() ? std::string("the offsets are empty")
                                                        : std::to_string(view.offsets.size()) + " offsets bound " +
                                                              std::to_string(view.offsets.size() - 1) + " segments"));
    }
  }
  // impl::cpu's check of the offsets (the dispatch's cpu_check).
  void check_on_host() const {
    if (!view.fixed) check_offsets(algorithm, view.offsets, n);
  }
  // f(segments): the offsets' functor or the fixed size's.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (view.fixed) {
      return f(fixed_size_segments{static_cast<std::int64_t>(view.fixed_size), static_cast<std::int64_t>(count)});
    }
    return f(offset_segments<I>{view.offsets.data(), static_cast<std::int64_t>(count), static_cast<std::int64_t>(n)});
  }
};

// A segmented reduction: out[s] = finish(the combine of segment s's loads).
template <class Reduction, class I>
void segmented_reduce_spans(const char* algorithm, const execution_policy& policy,
                            span<const typename Reduction::value_type> values, segments_view<I> view,
                            span<typename Reduction::result> out, Reduction r) {
  using T = typename Reduction::value_type;
  using R = typename Reduction::result;
  const call_segments<I> segs{view, out.size(), values.size(), algorithm};
  segs.check_sizes(true);
  const T* x = values.data();
  R* o = out.data();
  const auto n = static_cast<std::int64_t>(values.size());
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    segs.visit([&](auto segments) { reduce_by_scan(p, x, n, o, segments, r); });
  };
  dispatch<Reduction>(
      {algorithm, segmented_family, policy,
       {array_ref::input(values, "the values"), segs.offsets_ref(), array_ref::output_apart(out, "the output")},
       out.size(), values.size_bytes() + view.offsets.size_bytes() + out.size_bytes()},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                segs.visit([&](auto segments) {
                  launch(algorithm, "segmented_reduce_naive_kernel",
                         segmented_reduce_naive_kernel<Reduction, decltype(segments)>, blocks_for(out.size()),
                         block_size, stream, x, o, segments, r);
                });
              },
          .raw = [&] { segs.visit([&](auto segments) { run_segmented_tiles(algorithm, policy, x, n, o, segments, r); }); },
          .cub =
              [&] {
                segs.visit([&](auto segments) {
                  const auto [begins, ends] = cub_offsets(segments);
                  const auto in = cuda::make_transform_iterator(cuda::counting_iterator<std::int64_t>(0),
                                                                load_at<Reduction>{x, r});
                  const auto to = cuda::make_transform_output_iterator(o, finish_with<Reduction>{r});
                  // Rows: CUB's fixed-size form (its small-segment policies, no offsets read), which
                  // counts elements in int.
                  if constexpr (std::is_same_v<decltype(segments), fixed_size_segments>) {
                    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
                    if (segments.size > 0 && n <= int_max) {
                      cub_call(algorithm, "cub::DeviceSegmentedReduce::Reduce", policy,
                               {out.size(), static_cast<std::size_t>(segments.size)},
                               [&](void* temp, std::size_t& bytes, void*) {
                                 return cub::DeviceSegmentedReduce::Reduce(
                                     temp, bytes, in, to, static_cast<std::int64_t>(out.size()),
                                     static_cast<int>(segments.size), combine_of<Reduction>{r}, r.identity(), stream);
                               });
                      return;
                    }
                  }
                  cub_call(algorithm, "cub::DeviceSegmentedReduce::Reduce", policy, {out.size(), values.size()},
                           [&](void* temp, std::size_t& bytes, void*) {
                             return cub::DeviceSegmentedReduce::Reduce(
                                 temp, bytes, in, to, static_cast<std::int64_t>(out.size()), begins, ends,
                                 combine_of<Reduction>{r}, r.identity(), stream);
                           });
                });
              },
          .cpu_check = [&] { segs.check_on_host(); },
      });
}

// A segmented prefix sum of T (in place allowed: out exactly values).
template <class T, class I>
void segmented_scan_spans(const char* algorithm, const execution_policy& policy, span<const T> values,
                          segments_view<I> view, std::size_t count, span<T> out, bool exclusive) {
  const call_segments<I> segs{view, count, values.size(), algorithm};
  segs.check_sizes(false);
  const T* x = values.data();
  T* o = out.data();
  const auto n = static_cast<std::int64_t>(values.size());
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    segs.visit([&](auto segments) { scan_by_scan(p, x, n, o, segments, exclusive); });
  };
  dispatch<T>(
      {algorithm, segmented_family, policy,
       {array_ref::input(values, "the values"), segs.offsets_ref(),
        array_ref::output_of(out, "the output", 0).sized(values.size())},
       values.size(), 2 * values.size_bytes() + view.offsets.size_bytes()},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                if (count == 0) return;
                segs.visit([&](auto segments) {
                  launch(algorithm, "segmented_scan_naive_kernel", segmented_scan_naive_kernel<T, decltype(segments)>,
                         blocks_for(count), block_size, stream, x, o, segments, exclusive);
                });
              },
          .raw = [&] { segs.visit([&](auto segments) { run_segmented_scan(algorithm, policy, x, n, o, segments, exclusive); }); },
          .cub =
              [&] {
                segs.visit([&](auto segments) {
                  const auto [begins, ends] = cub_offsets(segments);
                  const auto segments_count = static_cast<std::int64_t>(count);
                  cub_call(algorithm,
                           exclusive ? "cub::DeviceSegmentedScan::ExclusiveSegmentedScan"
                                     : "cub::DeviceSegmentedScan::InclusiveSegmentedScan",
                           policy, {values.size(), count * 2 + exclusive}, [&](void* temp, std::size_t& bytes, void*) {
                             if (exclusive) {
                               return cub::DeviceSegmentedScan::ExclusiveSegmentedScan(
                                   temp, bytes, x, o, begins, ends, segments_count, functors::plus<T>{}, T{}, stream);
                             }
                             return cub::DeviceSegmentedScan::InclusiveSegmentedScan(
                                 temp, bytes, x, o, begins, ends, segments_count, functors::plus<T>{}, stream);
                           });
                });
              },
          .cpu_check = [&] { segs.check_on_host(); },
      });
}

}  // namespace detail
}  // namespace prism
