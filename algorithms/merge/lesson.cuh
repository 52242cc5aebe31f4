// SPDX-License-Identifier: Apache-2.0
#pragma once
// The merge lesson: two sorted arrays a and b (n elements together) merged stably, from the
// textbook kernel to the one that streams. Stages 1, 4 and 5 are the implementations' own kernels
// (<prism/merge.cuh>: raw_naive, raw's kernel loading through registers, and raw); 2 and 3 are
// here. Each says what it changes and what it costs; bench/merge.cu's lesson rows measure them
// (uint32 keys, % of the read+write ceiling). Compiled in merge_keys.cu, beside the uint32 merge
// whose kernels stages 1, 4 and 5 are.
//
// 1. rank (raw_naive). One thread per element: a[i] goes to i + (the b's before it), b[j] to
//    j + (the a's not after it), each found by a binary search in the other array. No thread
//    waits for another, but every element costs log2(n) dependent loads scattered over the other
//    array, and the writes scatter too: a latency-bound kernel, like the textbook search.
//
// 2. fixed_partitions. The sequential merge is the fastest merge there is (one comparison and one
//    move per output, every access in order), so give each thread a piece to merge sequentially:
//    a fixed run of 8 of a's elements, with the b's that fall between its first element and the
//    next run's (two binary searches per thread find them). The searches drop from one per element
//    to two per 8, but the pieces are fixed in a only: a thread's share of b depends on the data.
//    On uniform random keys each thread gets about 8 b's; where b's values cluster between two of
//    a's, one thread merges all of them while its warp waits (the test's skewed input does this:
//    the stage stays correct and gets slow). Parallel work must be divided by the output.
//
// 3. merge_path. Divide the output instead: thread t writes outputs [8t, 8t + 8). Where they come
//    from is the merge path's crossing of diagonal 8t (Green, McColl and Bader, 2012;
//    <prism/primitives/merge_path.cuh>): one binary search along the diagonal finds how many of
//    the first 8t outputs are a's. Every thread now does the same work whatever the data. What
//    remains is the memory access: each thread reads and writes its own 8 consecutive elements, so
//    a warp's load touches 32 places 32 bytes apart, one sector per lane per instruction.
//
// 4. tile_staged. Stage the tile through shared memory (moderngpu's kernel_merge): a
//    partition kernel finds the start of each tile of 256 threads x 15 outputs by the same search;
//    the block loads its two ranges into shared memory with coalesced reads (each thread issues
//    its 15 loads into registers before storing any: a load stored as it arrives costs a memory
//    latency each), each thread searches its 15 outputs' start there and merges them
//    sequentially, puts them back in shared memory at 15t + k, and the block writes the tile
//    back with coalesced stores. Every element is read once and written once, in full sectors: a
//    streaming kernel, whose ceiling is the bandwidth of its 2n elements moved. Why 15: with 8
//    outputs per thread, a warp's 32 stores to 8t + k land in 4 of shared memory's 32 banks (8
//    passes each); to 15t + k, an odd stride, in all 32 (one pass).
//
// 5. bulk_copy (raw). The loads of stage 4 go through registers: 15 load and 15 store instructions
//    per thread, and the block holds its tile's bytes in flight only as long as its threads have
//    registers to spare. Hopper's copy engine takes a whole range in one instruction
//    (cp.async.bulk): one thread issues a copy of each range's 16-byte-aligned middle into shared
//    memory, an mbarrier counts the bytes in, the threads copy the few elements before and after
//    (each range lands at its own offset within 16 bytes, as the copy needs), and every thread
//    waits on the barrier. No register holds a loaded element, so a tile of 512 x 15 fits where
//    256 x 15 did. CUB's DeviceMerge loads its tiles so on sm_90.
#include <prism/merge.cuh>

namespace prism::detail::merge_lesson_kernels {

// Outputs (or a's elements) per thread in stages 2 and 3.
inline constexpr unsigned run = 8;

// Stage 2: thread t merges a[t * run, +run) with the b's before the next run's first element.
template <class T, class Comp>
__global__ void fixed_partitions_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n, T* out,
                                        std::size_t threads, Comp comp) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t >= threads) return;
  const std::size_t a0 = t * run, a1 = cuda::std::min(a0 + run, a_n);
  // The b's before a[a0] merge before it (ties go to a): the first run takes every b from 0, the
  // last every b to the end.
  std::size_t j = t == 0 ? 0 : rank_in<false>(b, b_n, a[a0], comp);
  const std::size_t b1 = a1 < a_n ? rank_in<false>(b, b_n, a[a1], comp) : b_n;
  std::size_t i = a0, k = a0 + j;
  while (i < a1 || j < b1) {
    const bool take_a = i < a1 && (j >= b1 || !comp(b[j], a[i]));
    out[k++] = take_a ? a[i++] : b[j++];
  }
}

// Stage 3: thread t writes outputs [t * run, +run), from the merge path's crossing of diagonal t * run.
template <class T, class Comp>
__global__ void merge_path_kernel(const T* a, std::size_t a_n, const T* b, std::size_t b_n, T* out, Comp comp) {
  const std::size_t n = a_n + b_n;
  const std::size_t d0 = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * run;
  if (d0 >= n) return;
  const std::size_t d1 = cuda::std::min(d0 + run, n);
  std::size_t i = merge_path(a, a_n, b, b_n, d0, comp);
  std::size_t j = d0 - i;
  for (std::size_t k = d0; k < d1; ++k) {
    const bool take_a = i < a_n && (j >= b_n || !comp(b[j], a[i]));
    out[k] = take_a ? a[i++] : b[j++];
  }
}

}  // namespace prism::detail::merge_lesson_kernels

namespace prism::detail {

void merge_by_stage(merge_stage stage, const execution_policy& policy, span<const std::uint32_t> a,
                    span<const std::uint32_t> b, span<std::uint32_t> out) {
  namespace kernels = merge_lesson_kernels;
  const char* algorithm = "merge";
  const execution_policy gpu = policy.with(impl::raw);
  const std::size_t a_n = a.size(), b_n = b.size(), n = a_n + b_n;
  prepare(algorithm, merge_family, gpu,
          {array_ref::input(a, "the first input"), array_ref::input(b, "the second input"),
           array_ref::output_apart(out, "the output").sized(n)},
          a.size_bytes() + b.size_bytes() + out.size_bytes());
  if (n == 0) return;
  using Comp = key_order<std::uint32_t>;
  const Comp comp{key_kind::unsigned_integer};
  const cudaStream_t stream = policy.stream();
  const std::uint32_t *pa = a.data(), *pb = b.data();
  std::uint32_t* o = out.data();
  translate_errors(algorithm, [&] {
    switch (stage) {
      case merge_stage::rank:
        launch(algorithm, "merge_rank_kernel", merge_rank_kernel<std::uint32_t, no_values, Comp>, blocks_for(n),
               block_size, stream, pa, a_n, pb, b_n, o, static_cast<const no_values*>(nullptr),
               static_cast<const no_values*>(nullptr), static_cast<no_values*>(nullptr), comp);
        break;
      case merge_stage::fixed_partitions: {
        const std::size_t threads = a_n == 0 ? 1 : (a_n + kernels::run - 1) / kernels::run;
        launch(algorithm, "fixed_partitions_kernel", kernels::fixed_partitions_kernel<std::uint32_t, Comp>,
               blocks_for(threads), block_size, stream, pa, a_n, pb, b_n, o, threads, comp);
        break;
      }
      case merge_stage::merge_path:
        launch(algorithm, "merge_path_kernel", kernels::merge_path_kernel<std::uint32_t, Comp>,
               blocks_for((n + kernels::run - 1) / kernels::run), block_size, stream, pa, a_n, pb, b_n, o, comp);
        break;
      case merge_stage::tile_staged:
        raw_merge<block_size, 0, 0, tile_load::registers>(algorithm, policy, pa, a_n, pb, b_n, o,
                                                          static_cast<const no_values*>(nullptr),
                                                          static_cast<const no_values*>(nullptr),
                                                          static_cast<no_values*>(nullptr), comp);
        break;
      case merge_stage::bulk_copy:
        raw_merge(algorithm, policy, pa, a_n, pb, b_n, o, static_cast<const no_values*>(nullptr),
                  static_cast<const no_values*>(nullptr), static_cast<no_values*>(nullptr), comp);
        break;
    }
  });
}

}  // namespace prism::detail
