// SPDX-License-Identifier: Apache-2.0
#pragma once
// The radix-sort lesson (prism::sort_stage): uint32 keys sorted five ways, each one change away
// from the one before, from the textbook split to the one-sweep sort (stage 4), ranked as CUB's
// Onesweep ranks its tiles in stage 5, which is impl::raw.
//
// An LSD radix sort makes one stable pass per digit, least significant first. Each pass must read
// every key and write it to its place; 2n keys is the least a pass can move, and the number of
// passes is 32 / (bits per digit). So the stages are judged by passes x keys moved per pass:
//
//   stage                 digit  passes  keys moved per pass              kernels per pass
//   1 one_bit_split       1      32      3n (count, scatter reads again)   5 (count, scan x3, scatter)
//   2 four_bit_counts     4       8      3n                                5
//   3 eight_bit_ranked    8       4      3n, the writes coalesced          5
//   4 onesweep            8       4      2n (+ n once, for all counts)     1 (+ a memset)
//   5 early_counts        8       4      2n (+ n once, for all counts)     1 (+ a memset)
//
// Stages 1 to 3 share one shape: a counting kernel counts each block's keys of each digit
// (digit-major: counts[digit][block]); a scan of those counts (three small kernels) makes counts[d][b]
// where block b's keys of digit d start in the output (every key of a smaller digit, then digit d
// of the blocks before b); a scatter kernel sends each key to its block's start for its digit plus
// its rank among the block's keys of that digit. In stages 1 and 2 a block of 256 keys ranks by
// one block-wide scan of flags per digit value (2, then 16 scans) and each thread writes its own
// key: the keys of a warp land in up to 16 places, so every store is its own memory transaction.
// Stage 3 ranks 4096 keys per block in shared memory (the tile kernel of
// <prism/primitives/onesweep.cuh>) and writes them out in digit order: consecutive threads write
// consecutive addresses within each digit's run. It still needs the counting pass. Stage 4 folds
// the counting into the scatter (look-back over the tiles' digit counts) and counts every pass's
// digits in one kernel at the start. Stage 5 moves no fewer bytes: it changes when a tile tells its
// successors its counts (before ranking its keys, not after) and how much work ranking takes (each
// key's final place in one step): early_counts_pass_kernel in <prism/primitives/onesweep.cuh>,
// with 24 keys a thread where stage 4 takes 16 (its registers allow it: sort/uint32/early_24).
// And where one digit holds every key of a pass (the counts of the start say so), a stable pass
// moves no key: stage 5 copies such a pass's keys to the same places, unranked, by a kernel of its
// own that fills every SM (SkipOneDigit and CopyApart; sort_few's small integers skip three of four
// passes' ranking).
//
// The stages count in 32 bits: every one refuses 2^32 keys or more, stages 4 and 5 too (called as
// impl::raw, stage 5's kernel sorts any size).
#include <prism/dispatch.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/onesweep.cuh>
#include <prism/scratch.hpp>
#include <prism/sort.hpp>

#include <cstddef>
#include <cstdint>

namespace prism::lesson {

using detail::block_size;
using detail::radix::add;

// Counts block b's keys of each digit: counts[digit * blocks + b]. A block counts `per_block` keys.
template <unsigned Bits>
__global__ void count_digits_kernel(const std::uint32_t* keys, std::size_t n, unsigned shift, unsigned per_block,
                                    unsigned* counts, unsigned blocks) {
  constexpr unsigned digits = 1u << Bits;
  __shared__ unsigned count[digits];
  for (unsigned d = threadIdx.x; d < digits; d += blockDim.x) count[d] = 0;
  __syncthreads();
  const std::size_t begin = std::size_t{blockIdx.x} * per_block;
  for (unsigned i = threadIdx.x; i < per_block && begin + i < n; i += blockDim.x)
    atomicAdd(&count[(keys[begin + i] >> shift) & (digits - 1)], 1u);
  __syncthreads();
  for (unsigned d = threadIdx.x; d < digits; d += blockDim.x) counts[std::size_t(d) * blocks + blockIdx.x] = count[d];
}

// The exclusive scan of the m counts, in three kernels (reduce, then scan, then scan again with
// the prefixes: the scan lesson's stage 5): each block of 256 threads sums a segment of 4096
// counts; one block scans those sums; each block rewrites its segment with its prefix added.
inline constexpr unsigned segment_items = 16;
inline constexpr unsigned segment = block_size * segment_items;

__global__ void __launch_bounds__(block_size) segment_sums_kernel(const unsigned* counts, std::size_t m, unsigned* sums) {
  const std::size_t base = std::size_t{blockIdx.x} * segment;
  unsigned sum = 0;
  for (unsigned k = 0; k < segment_items; ++k) {
    const std::size_t i = base + k * block_size + threadIdx.x;  // coalesced
    if (i < m) sum += counts[i];
  }
  unsigned total;
  (void)detail::block_exclusive_scan(sum, add{}, total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// One block of 1024 threads scans the segment sums (m / 4096 of them): each thread a contiguous
// chunk, the chunks' sums across the block, each chunk rewritten.
__global__ void scan_sums_kernel(unsigned* sums, std::size_t m) {
  const std::size_t chunk = (m + blockDim.x - 1) / blockDim.x;
  const std::size_t begin = threadIdx.x * chunk, end = begin + chunk < m ? begin + chunk : m;
  unsigned sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += sums[i];
  unsigned total;
  const detail::maybe<unsigned> before = detail::block_exclusive_scan(sum, add{}, total);
  unsigned running = before.present ? before.value : 0u;
  for (std::size_t i = begin; i < end; ++i) {
    const unsigned c = sums[i];
    sums[i] = running;
    running += c;
  }
}

__global__ void __launch_bounds__(block_size)
    segment_scan_kernel(unsigned* counts, std::size_t m, const unsigned* prefixes) {
  const std::size_t first = std::size_t{blockIdx.x} * segment + threadIdx.x * segment_items;
  unsigned c[segment_items], sum = 0;
  for (unsigned k = 0; k < segment_items; ++k) {
    c[k] = first + k < m ? counts[first + k] : 0u;
    sum += c[k];
  }
  unsigned total;
  const detail::maybe<unsigned> before = detail::block_exclusive_scan(sum, add{}, total);
  unsigned running = prefixes[blockIdx.x] + (before.present ? before.value : 0u);
  for (unsigned k = 0; k < segment_items; ++k) {
    if (first + k < m) counts[first + k] = running;
    running += c[k];
  }
}

// Stages 1 and 2: one key per thread; its rank among the block's keys of its digit by one block
// scan of flags per digit value; each thread writes its key to its own place.
template <unsigned Bits>
__global__ void __launch_bounds__(block_size)
    split_scatter_kernel(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, unsigned shift,
                         const unsigned* offsets, unsigned blocks) {
  constexpr unsigned digits = 1u << Bits;
  const std::size_t i = std::size_t{blockIdx.x} * block_size + threadIdx.x;
  const bool valid = i < n;
  const std::uint32_t key = valid ? keys_in[i] : 0u;
  const unsigned digit = valid ? (key >> shift) & (digits - 1) : digits;
  for (unsigned d = 0; d < digits; ++d) {
    unsigned total;
    const unsigned flag = digit == d ? 1u : 0u;
    const detail::maybe<unsigned> rank = detail::block_exclusive_scan(flag, add{}, total);
    if (flag) keys_out[offsets[std::size_t(d) * blocks + blockIdx.x] + (rank.present ? rank.value : 0u)] = key;
  }
}

// Stages 1 to 3 (Bits = 1, 4, 8): passes of count, scan, scatter. Passes alternate between the
// output and a scratch buffer as in onesweep_sort (an even number of passes: the last writes out).
template <unsigned Bits>
void counted_radix_sort(const char* algorithm, const execution_policy& policy, const std::uint32_t* in,
                        std::uint32_t* out, std::size_t n) {
  constexpr unsigned passes = 32 / Bits, digits = 1u << Bits;
  static_assert(passes % 2 == 0);
  // Stage 3 ranks tiles of onesweep's size; 1 and 2 blocks of 256 keys.
  using order = detail::radix::bits_order<std::uint32_t>;
  constexpr unsigned per_block = Bits == 8 ? detail::radix::tile_items<std::uint32_t, std::uint32_t> : block_size;
  const std::size_t blocks = (n + per_block - 1) / per_block;
  const std::size_t keys_bytes = detail::round256(n * sizeof(std::uint32_t));
  const std::size_t counts_count = std::size_t{digits} * blocks;
  const std::size_t counts_bytes = detail::round256(counts_count * sizeof(unsigned));
  const std::size_t segments = (counts_count + segment - 1) / segment;
  const scratch lease = acquire_scratch(keys_bytes + counts_bytes + segments * sizeof(unsigned),
                                        detail::with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  auto* alt = reinterpret_cast<std::uint32_t*>(memory);
  auto* counts = reinterpret_cast<unsigned*>(memory + keys_bytes);
  auto* sums = reinterpret_cast<unsigned*>(memory + keys_bytes + counts_bytes);
  const cudaStream_t stream = policy.stream();
  for (unsigned p = 0; p < passes; ++p) {
    const std::uint32_t* from = p == 0 ? in : (p % 2 == 1 ? alt : out);
    std::uint32_t* to = p % 2 == 0 ? alt : out;
    const unsigned shift = p * Bits;
    detail::launch(algorithm, "count_digits_kernel", count_digits_kernel<Bits>, static_cast<unsigned>(blocks),
                   block_size, stream, from, n, shift, per_block, counts, static_cast<unsigned>(blocks));
    detail::launch(algorithm, "segment_sums_kernel", segment_sums_kernel, static_cast<unsigned>(segments), block_size,
                   stream, static_cast<const unsigned*>(counts), counts_count, sums);
    detail::launch(algorithm, "scan_sums_kernel", scan_sums_kernel, 1, 1024, stream, sums, segments);
    detail::launch(algorithm, "segment_scan_kernel", segment_scan_kernel, static_cast<unsigned>(segments), block_size,
                   stream, counts, counts_count, static_cast<const unsigned*>(sums));
    if constexpr (Bits == 8) {
      detail::radix::pass_args<std::uint32_t, std::uint32_t, order> a{};
      a.keys_in = from;
      a.keys_out = to;
      a.begin = 0;
      a.count = n;
      a.order = {detail::key_kind::unsigned_integer, false};
      a.pass = p;
      a.tile_offsets = counts;
      a.tiles = static_cast<unsigned>(blocks);
      detail::launch(algorithm, "tile_pass_kernel",
                     detail::radix::tile_pass_kernel<std::uint32_t, std::uint32_t, order, false, false>,
                     static_cast<unsigned>(blocks), block_size, stream, a);
    } else {
      detail::launch(algorithm, "split_scatter_kernel", split_scatter_kernel<Bits>, static_cast<unsigned>(blocks),
                     block_size, stream, from, to, n, shift, static_cast<const unsigned*>(counts),
                     static_cast<unsigned>(blocks));
    }
  }
}

// Stage 4: onesweep_sort with the ranked pass kernel (tile_pass_kernel). Stage 5 is raw's sort: the
// same with the early-counts pass kernel (early_counts_pass_kernel).
inline void ranked_onesweep_sort(const char* algorithm, const execution_policy& policy, const std::uint32_t* in,
                                 std::uint32_t* out, std::size_t n) {
  using order = detail::radix::bits_order<std::uint32_t>;
  detail::radix::onesweep_sort<std::uint32_t, std::uint32_t, false, false>(
      algorithm, policy, in, out, nullptr, nullptr, false, n, order{detail::key_kind::unsigned_integer, false});
}

}  // namespace prism::lesson
