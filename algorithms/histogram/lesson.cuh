// SPDX-License-Identifier: Apache-2.0
#pragma once
// The histogram lesson (prism::histogram_stage): counting float samples into equal bins three
// ways, each one change away from the one before. A histogram reads every sample once (4 bytes
// per float) and writes a few counters: the read ceiling is its speed limit, and what stands
// between a kernel and it is how often threads wait for each other on the same counter.
//
//   stage             atomics per sample     where                collisions on skewed data
//   1 global_atomics  1                      global memory (L2)   every sample of one bin
//   2 shared_atomics  1 (+ bins per block)   shared memory        all the block's samples
//   3 sub_histograms  1, aggregated across   shared, one copy     a warp's, combined in
//                     the warp's lanes       per warp             hardware (impl::raw)
//
// Stage 1 is the first kernel anyone writes: atomicAdd(&counts[bin], 1) per sample. Uniform data
// spreads the atomics over the bins and the L2 absorbs them; all-in-one-bin data sends every
// sample to one address, and the L2 serializes them.
// Stage 2 gives each block its own histogram in shared memory (fast atomics near the SM) and adds
// it to the global counts once at the end. One bin still serializes the block's 256 threads.
// Stage 3 is impl::raw (<prism/histogram.cuh>): 16-byte loads, a sub-histogram per warp, each
// vector's bins guessed without a branch per sample (the floor kept off the conversion unit), and
// one warp-aggregated increment per sample (the compiler's ATOMS.POPC.INC: lanes adding 1 to one
// address count themselves in one step).
//
// Every stage bins by the same rule (even_float_bins): the counts are exact and identical.
#include <prism/histogram.cuh>

#include <prism/primitives/launch.cuh>

namespace prism::lesson {

using detail::block_size;

// ---- 1. one global atomic per sample -------------------------------------------------------------
template <class Binner>
__global__ void global_atomics_kernel(const float* x, std::size_t n, Binner binner, unsigned* counts) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) {
    const int b = binner(x[i]);
    if (b >= 0) atomicAdd(counts + b, 1u);
  }
}

// ---- 2. a private histogram per block in shared memory -------------------------------------------
// A grid that fills the GPU once, each block striding over the samples; its histogram is merged
// with one global atomic per nonzero bin.
template <class Binner>
__global__ void shared_atomics_kernel(const float* x, std::size_t n, Binner binner, unsigned bins, unsigned* counts) {
  extern __shared__ unsigned block_counts[];
  for (unsigned i = threadIdx.x; i < bins; i += blockDim.x) block_counts[i] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const int b = binner(x[i]);
    if (b >= 0) atomicAdd(block_counts + b, 1u);
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < bins; i += blockDim.x)
    if (block_counts[i] > 0) atomicAdd(counts + i, block_counts[i]);
}

// Stages 1 and 2 (stage 3 is impl::raw). The counts are zeroed first, on the stream. Stage 2
// needs the bins in 46 KB of shared memory (raw's limit); more bins run stage 1.
inline void histogram(histogram_stage stage, const execution_policy& policy, const float* x, std::size_t n,
                      unsigned* counts, std::size_t bins, float lo, float hi) {
  const char* algorithm = "histogram";
  const cudaStream_t stream = policy.stream();
  const auto binner = detail::make_even_bins<float>(lo, hi, bins);
  check(cudaMemsetAsync(counts, 0, bins * sizeof(unsigned), stream), "cudaMemsetAsync", algorithm);
  if (n == 0) return;
  const std::size_t shared = bins * sizeof(unsigned);
  if (stage == histogram_stage::global_atomics || shared > detail::histogram_shared_bytes) {
    detail::launch(algorithm, "global_atomics_kernel", global_atomics_kernel<decltype(binner)>,
                   detail::blocks_for(n), block_size, stream, x, n, binner, counts);
    return;
  }
  const auto kernel = shared_atomics_kernel<decltype(binner)>;
  const std::size_t grid = std::min<std::size_t>(detail::resident_blocks(algorithm, kernel, block_size, shared),
                                                 detail::blocks_for(n));
  detail::launch_shared(algorithm, "shared_atomics_kernel", kernel, static_cast<unsigned>(std::max<std::size_t>(grid, (n >> 31) + 1)),
                        block_size, shared, stream, x, n, binner, static_cast<unsigned>(bins), counts);
}

}  // namespace prism::lesson
