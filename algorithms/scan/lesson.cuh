// SPDX-License-Identifier: Apache-2.0
#pragma once
// The scan lesson (prism::scan_stage): the inclusive prefix sum six ways, each one change away
// from the one before, from the textbook algorithm to the single-pass kernel that is impl::raw.
//
// A scan reads n elements and writes n: 2n elements is the least any scan moves, and the copy
// ceiling is its speed limit. Every stage below is judged by how many times it moves the array
// and by the work it does per element on the way:
//
//   stage                  launches       elements moved        additions
//   1 hillis_steele_global log2 n         3n per step: 3n log2 n  n log2 n
//   2 hillis_steele_shared 3 per level    4n (+ the block sums)   n log2 256 per block
//   3 blelloch             3 per level    4n                      2n (work-efficient)
//   4 warp_shuffle         3 per level    4n                      about 2n, in registers
//   5 reduce_then_scan     3              3n                      about 3n
//   6 decoupled_look_back  2 (1 + memset) 2n                      about 2n
//
// Stages 2 to 4 are "scan, then propagate": each block scans its part and writes its total; the
// totals are scanned the same way (recursively); a third kernel adds each block's prefix back,
// reading and writing the output once more. Stage 5 reads the input twice instead of the output
// (reduce, scan the tile sums, scan again with the prefix): 3n. Stage 6 learns each tile's prefix
// from its predecessors while the tile is in registers: 2n, one pass.
//
// Every stage adds in T with prism's plus (integers wrap around, as the family does).
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/scan.cuh>
#include <prism/scan.hpp>
#include <prism/scratch.hpp>

#include <cstddef>
#include <vector>

namespace prism::lesson {

using detail::block_size;

template <class T>
using plus = functors::plus<T>;

// ---- 1. Hillis and Steele in global memory ------------------------------------------------------
// The textbook parallel scan (Hillis and Steele, 1986): in step k every element adds the one 2^k
// before it; after ceil(log2 n) steps each holds its inclusive prefix. Each step is a launch (the
// only grid-wide barrier there is), reads two elements and writes one per element, ping-ponging
// between two arrays: 3n log2 n elements moved and n log2 n additions where a sequential scan
// needs n. At n = 2^28 that is 84 passes over a gigabyte.
template <class T>
__global__ void hillis_steele_step(const T* in, T* out, std::size_t n, std::size_t distance) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = i >= distance ? plus<T>{}(in[i - distance], in[i]) : in[i];
}

// ---- 2. Hillis and Steele in shared memory, per block ---------------------------------------------
// The same steps on a block's 256 elements in shared memory, with __syncthreads as the barrier
// (double-buffered: a step must not overwrite what another thread still reads). Removes the
// launches and the global traffic of the steps: the block's part is read once and written once.
// The block's total goes to `block_sums`; the totals are scanned the same way and each block's
// prefix is added back by add_block_prefix: 4n elements moved. Still log2 256 = 8 additions per
// element, and 8 barriers.
template <class T>
__global__ void hillis_steele_block(const T* in, T* out, std::size_t n, T* block_sums) {
  __shared__ T buffer[2][block_size];
  const unsigned t = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + t;
  int from = 0;
  buffer[0][t] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned distance = 1; distance < blockDim.x; distance *= 2) {
    const int to = 1 - from;
    buffer[to][t] = t >= distance ? plus<T>{}(buffer[from][t - distance], buffer[from][t]) : buffer[from][t];
    __syncthreads();
    from = to;
  }
  if (i < n) out[i] = buffer[from][t];
  if (t == blockDim.x - 1) block_sums[blockIdx.x] = buffer[from][t];
}

// ---- 3. Blelloch's work-efficient scan, per block -------------------------------------------------
// Blelloch (1990): an up-sweep builds a tree of partial sums in place (n - 1 additions), a
// down-sweep pushes prefixes back down it (n - 1 more): 2n additions instead of n log2 n, two
// elements per thread. The traffic is stage 2's (4n with the add-back); what it removes is work.
// The tree's strided indices make many lanes hit one shared-memory bank at the deep levels (GPU
// Gems 3, chapter 39, pads the array to avoid it); the sweeps also leave most threads idle at the
// top of the tree, with a barrier per level: 2 log2 512 barriers.
template <class T>
__global__ void blelloch_block(const T* in, T* out, std::size_t n, T* block_sums) {
  __shared__ T s[2 * block_size];
  const unsigned t = threadIdx.x, m = 2 * blockDim.x;
  const std::size_t base = blockIdx.x * std::size_t{m};
  const T a = base + t < n ? in[base + t] : T(0);
  const T b = base + t + blockDim.x < n ? in[base + t + blockDim.x] : T(0);
  s[t] = a;
  s[t + blockDim.x] = b;
  unsigned offset = 1;
  for (unsigned d = m / 2; d > 0; d /= 2) {  // up-sweep: s[last of each pair] += s[first]
    __syncthreads();
    if (t < d) {
      const unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      s[right] = plus<T>{}(s[left], s[right]);
    }
    offset *= 2;
  }
  __syncthreads();
  const T total = s[m - 1];
  __syncthreads();
  if (t == 0) s[m - 1] = T(0);
  for (unsigned d = 1; d < m; d *= 2) {  // down-sweep: the left child gets the parent's prefix
    offset /= 2;
    __syncthreads();
    if (t < d) {
      const unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      const T l = s[left];
      s[left] = s[right];
      s[right] = plus<T>{}(s[right], l);
    }
  }
  __syncthreads();
  // s holds the exclusive scan; the inclusive one adds each element.
  if (base + t < n) out[base + t] = plus<T>{}(s[t], a);
  if (base + t + blockDim.x < n) out[base + t + blockDim.x] = plus<T>{}(s[t + blockDim.x], b);
  if (t == 0) block_sums[blockIdx.x] = total;
}

// ---- 4. Warp shuffles, several elements per thread, 16-byte loads ---------------------------------
// Each thread loads 16 consecutive elements with four 16-byte loads and scans them in registers
// (15 additions, no barrier); the threads' totals are scanned with warp shuffles and one value per
// warp through shared memory (<prism/primitives/block_scan.cuh>): two barriers per 4096
// elements instead of 16 per 512. The work is now about 2n additions, in registers, and a block
// covers 4096 elements, so the block sums are 16x fewer than stage 3's. Still scan-then-propagate:
// 4n. (Each thread's four loads are 64 bytes apart from its neighbour's, so one load instruction
// of a warp touches 2 KB: the cache, not the instruction, completes the lines. Stage 6 lets lane l
// load the l-th 16 bytes of each round instead.)
// With `tile_prefixes` (stage 5's third pass) block b adds tile_prefixes[b] and writes no sum.
inline constexpr int items_per_thread = 16;
inline constexpr std::size_t items_per_block = std::size_t{block_size} * items_per_thread;

template <class T>
__global__ void warp_shuffle_block(const T* in, T* out, std::size_t n, bool in_aligned, bool out_aligned,
                                   T* block_sums, const T* tile_prefixes) {
  constexpr int V = 16 / sizeof(T);
  const std::size_t first = blockIdx.x * items_per_block + threadIdx.x * std::size_t{items_per_thread};
  T v[items_per_thread];
#pragma unroll
  for (int q = 0; q < items_per_thread / V; ++q) {
    T part[V];
    detail::load_elements<V>(in, first + q * V, n, in_aligned, part);
#pragma unroll
    for (int k = 0; k < V; ++k) v[q * V + k] = first + q * V + k < n ? part[k] : T(0);
  }
#pragma unroll
  for (int k = 1; k < items_per_thread; ++k) v[k] = plus<T>{}(v[k - 1], v[k]);
  T total;
  const detail::maybe<T> before = detail::block_exclusive_scan(v[items_per_thread - 1], plus<T>{}, total);
  const T prefix = plus<T>{}(tile_prefixes != nullptr ? tile_prefixes[blockIdx.x] : T(0),
                             before.present ? before.value : T(0));
#pragma unroll
  for (int q = 0; q < items_per_thread / V; ++q) {
    T part[V];
#pragma unroll
    for (int k = 0; k < V; ++k) part[k] = plus<T>{}(prefix, v[q * V + k]);
    detail::store_elements<V>(out, first + q * V, n, out_aligned, part);
  }
  if (threadIdx.x == 0 && block_sums != nullptr) block_sums[blockIdx.x] = total;
}

// Stages 2 to 4, third kernel: every element of block b > 0 adds the inclusive scan of the block
// sums at b - 1. One more read and write of the whole output.
template <class T>
__global__ void add_block_prefix(T* out, std::size_t n, const T* scanned_sums, std::size_t per_block) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n && i >= per_block) out[i] = plus<T>{}(scanned_sums[i / per_block - 1], out[i]);
}

// ---- 5. Reduce, then scan --------------------------------------------------------------------------
// The propagation pass of stages 2-4 rewrites the output; reading the input twice costs the same
// and writes it once: reduce each tile to its sum (n read), scan the tile sums in one block, then
// scan each tile again starting from its prefix (n read, n written): 3n, three launches whatever n.
template <class T>
__global__ void tile_sums_kernel(const T* in, std::size_t n, bool aligned, T* sums) {
  constexpr int V = 16 / sizeof(T);
  const std::size_t base = blockIdx.x * items_per_block;
  T acc = T(0);
#pragma unroll
  for (int q = 0; q < items_per_thread / V; ++q) {
    // Lane-consecutive vectors: one load instruction of a warp reads 512 contiguous bytes.
    const std::size_t i = base + (q * std::size_t{block_size} + threadIdx.x) * V;
    T part[V];
    detail::load_elements<V>(in, i, n, aligned, part);
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (i + k < n) acc = plus<T>{}(acc, part[k]);
  }
  acc = detail::block_reduce(acc, plus<T>{}, T(0));
  if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}

// The tile sums to their exclusive prefixes, in place, by one block walking them 1024 at a time.
template <class T>
__global__ void scan_tile_sums(T* sums, std::size_t tiles) {
  T carry = T(0);
  for (std::size_t chunk = 0; chunk < tiles; chunk += blockDim.x) {
    const std::size_t i = chunk + threadIdx.x;
    const T v = i < tiles ? sums[i] : T(0);
    T total;
    const detail::maybe<T> before = detail::block_exclusive_scan(v, plus<T>{}, total);
    if (i < tiles) sums[i] = plus<T>{}(carry, before.present ? before.value : T(0));
    carry = plus<T>{}(carry, total);
  }
}

// ---- the driver -----------------------------------------------------------------------------------

// The number of blocks of the scan-then-propagate stages at each level: n, n / E, n / E^2, ... down
// to one block. E is the elements a block scans.
inline std::vector<std::size_t> levels(std::size_t n, std::size_t per_block) {
  std::vector<std::size_t> sizes{n};
  while (sizes.back() > per_block) sizes.push_back((sizes.back() + per_block - 1) / per_block);
  return sizes;
}

inline std::size_t elements_per_block(scan_stage stage) {
  switch (stage) {
    case scan_stage::hillis_steele_shared: return block_size;
    case scan_stage::blelloch: return 2 * std::size_t{block_size};
    default: return items_per_block;
  }
}

// One level of stages 2-4: the blocks scan `in` into `out`, their totals into `sums`.
template <class T>
void scan_level(scan_stage stage, const T* in, T* out, std::size_t n, T* sums, cudaStream_t stream) {
  const std::size_t per_block = elements_per_block(stage);
  const auto blocks = static_cast<unsigned>((n + per_block - 1) / per_block);
  const char* algorithm = "inclusive_scan";
  switch (stage) {
    case scan_stage::hillis_steele_shared:
      detail::launch(algorithm, "hillis_steele_block", hillis_steele_block<T>, blocks, block_size, stream, in, out, n,
                     sums);
      break;
    case scan_stage::blelloch:
      detail::launch(algorithm, "blelloch_block", blelloch_block<T>, blocks, block_size, stream, in, out, n, sums);
      break;
    default: {
      constexpr int V = 16 / sizeof(T);
      detail::launch(algorithm, "warp_shuffle_block", warp_shuffle_block<T>, blocks, block_size, stream, in, out, n,
                     detail::vector_aligned<V>(in), detail::vector_aligned<V>(out), sums, static_cast<const T*>(nullptr));
      break;
    }
  }
}

// The inclusive prefix sum of x[0, n) (n > 0, device memory) into out by `stage` (not the last,
// which is impl::raw), on the policy's stream, its scratch from the policy.
template <class T>
void inclusive_scan(scan_stage stage, const execution_policy& policy, const T* x, T* out, std::size_t n) {
  const char* algorithm = "inclusive_scan";
  const cudaStream_t stream = policy.stream();
  const auto policy_with_stream = detail::with_explicit_stream(policy);
  if (stage == scan_stage::hillis_steele_global) {
    // Steps ping-pong between out and a scratch copy, arranged so that the last lands in out. In
    // place, the first step must not write the array it reads: the input is copied aside first.
    std::size_t steps = 0;
    while ((std::size_t{1} << steps) < n) ++steps;
    const scratch lease = acquire_scratch(n * sizeof(T), policy_with_stream, algorithm);
    T* other = static_cast<T*>(lease.device());
    const T* from = x;
    if (steps == 0) {
      if (x != out) check(cudaMemcpyAsync(out, x, sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", algorithm);
      return;
    }
    if (x == out && steps % 2 == 1) {
      check(cudaMemcpyAsync(other, x, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", algorithm);
      from = other;
    }
    for (std::size_t k = 0; k < steps; ++k) {
      T* const to = (steps - 1 - k) % 2 == 0 ? out : other;
      detail::launch(algorithm, "hillis_steele_step", hillis_steele_step<T>, detail::blocks_for(n), block_size, stream,
                     from, to, n, std::size_t{1} << k);
      from = to;
    }
    if (from != out) {
      check(cudaMemcpyAsync(out, from, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", algorithm);
    }
    return;
  }

  if (stage == scan_stage::reduce_then_scan) {
    constexpr int V = 16 / sizeof(T);
    const std::size_t tiles = (n + items_per_block - 1) / items_per_block;
    const scratch lease = acquire_scratch(tiles * sizeof(T), policy_with_stream, algorithm);
    T* sums = static_cast<T*>(lease.device());
    const auto blocks = static_cast<unsigned>(tiles);
    detail::launch(algorithm, "tile_sums_kernel", tile_sums_kernel<T>, blocks, block_size, stream, x, n,
                   detail::vector_aligned<V>(x), sums);
    detail::launch(algorithm, "scan_tile_sums", scan_tile_sums<T>, 1, 1024, stream, sums, tiles);
    detail::launch(algorithm, "warp_shuffle_block", warp_shuffle_block<T>, blocks, block_size, stream, x, out, n,
                   detail::vector_aligned<V>(x), detail::vector_aligned<V>(out), static_cast<T*>(nullptr),
                   static_cast<const T*>(sums));
    return;
  }

  // Stages 2-4: scan every level's blocks (down to one block), then add the prefixes back, from
  // the top level down.
  const std::size_t per_block = elements_per_block(stage);
  const std::vector<std::size_t> sizes = levels(n, per_block);
  std::size_t sum_elements = 0;
  for (std::size_t l = 1; l < sizes.size(); ++l) sum_elements += sizes[l];
  const scratch lease = acquire_scratch((sum_elements + 1) * sizeof(T), policy_with_stream, algorithm);
  std::vector<T*> level_sums(sizes.size() + 1);
  T* next = static_cast<T*>(lease.device());
  for (std::size_t l = 1; l < sizes.size(); ++l) {
    level_sums[l] = next;
    next += sizes[l];
  }
  level_sums[sizes.size()] = next;  // the single block's total at the top: written, never read
  // Level 0 scans x into out; level l scans its sums in place.
  for (std::size_t l = 0; l < sizes.size(); ++l) {
    const T* in = l == 0 ? x : level_sums[l];
    T* to = l == 0 ? out : level_sums[l];
    scan_level(stage, in, to, sizes[l], level_sums[l + 1], stream);
  }
  for (std::size_t l = sizes.size() - 1; l-- > 0;) {
    T* to = l == 0 ? out : level_sums[l];
    detail::launch(algorithm, "add_block_prefix", add_block_prefix<T>, detail::blocks_for(sizes[l]), block_size,
                   stream, to, sizes[l], static_cast<const T*>(level_sums[l + 1]), per_block);
  }
}

}  // namespace prism::lesson
