// SPDX-License-Identifier: Apache-2.0
#pragma once
// The top-k lesson: the k largest of n float elements and their positions (int32), from sorting
// everything to selecting by the digits of the k-th value, then to one read for small k. The
// stages are the implementations' own (<prism/top_k.cuh>: thrust's and raw's two selections) run on
// device memory; this file says what each stage changes and what it costs. bench/top_k.cu's rows
// top_k_k<k>/float/thrust, .../radix_select and .../raw measure them (% of the read ceiling,
// n = 2^28, k = 1, 100 and 10,000). Compiled in top_k_k32_i32.cu, beside the kernels it runs.
//
// 1. sort_then_take (the thrust implementation). Rank every element (its bits in the sort
//    family's order, complemented for the largest), sort the ranks with their positions, keep the
//    first k. Correct for every k and every tie, and the answer every other stage must give bit for
//    bit. But a radix sort reads and writes every rank and position once per 8-bit digit: for 4-byte
//    elements and int32 positions, 4 passes of 2 x (4 + 4) bytes per element, 64 bytes, 16 times
//    the 4 a selection must read, to order the n - k elements nobody asked about.
//
// 2. radix_select (raw past k = 128; AIR top-k, Zhang et al., SC'23). Order only what is asked. The k-th best
//    rank is found one 8-bit digit at a time, most significant first: pass p histograms digit p of
//    the elements whose higher digits are the k-th rank's so far (a block-private histogram in
//    shared memory, added into one global one), and one thread walks the 256 counts to the bucket
//    where the k-th falls and how many of that bucket are still to take. After 4 passes (8 for
//    8-byte elements) the k-th rank is known exactly, and how many of its ties to take. One pass
//    counts, per tile, the elements better than it and those equal to it; a one-block scan of the
//    tile counts gives every tile its place; one more pass writes the chosen elements in index
//    order (so ties go to the lower index without a comparison of positions). Only then are the k
//    sorted, by a radix sort of k elements. Reads: 4 + 2 of x for 4-byte elements, 6 times the
//    minimum, all streaming, and k rather than n sorted.
//
// 3. fused_select (raw for k <= 128). Read x once. Each warp keeps the best k it has seen in
//    shared memory, sorted, and the k-th of them in registers as a limit
//    (<prism/primitives/warp_select.cuh>). An element that does not beat the limit costs a
//    comparison and a vote; one that does goes to a buffer of 32, merged into the list when full
//    (each candidate placed by counting those before it in the other list: no sort). Past the
//    first few hundred elements a warp sees, almost nothing beats its k-th best, so the pass runs
//    at the speed of the read. A block's warps' lists go through one more queue into the block's
//    best k, and the blocks' lists are cut down the same way, a launch or two. The best k of a union is among the best
//    k of its parts, and (rank, position) is a total order, so the answer is stage 1's bit for
//    bit. Its slow case is input ordered towards the best (every element beats the limit).
//
// What the lesson does not have yet, and what AIR top-k does beyond stage 2 for large k: its
// later passes read a buffer of the candidates left (those in the k-th rank's bucket) instead of
// all of x, so that after the first pass or two they read almost nothing.
#include <prism/top_k.cuh>

namespace prism::detail {

void top_k_by_stage(top_k_stage stage, const execution_policy& policy, span<const float> x, std::size_t k,
                    span<float> values, span<std::int32_t> indices) {
  // A GPU implementation: host arrays are refused by its checks, as the other lessons' are.
  const execution_policy gpu = policy.with(stage == top_k_stage::sort_then_take ? impl::thrust : impl::raw);
  top_k_spans(gpu, key_kind::floating_point, reinterpret_span<const std::uint32_t>(x), x.size(), k,
              reinterpret_span<std::uint32_t>(values), reinterpret_span<std::uint32_t>(indices), true, stage);
}

}  // namespace prism::detail
