// SPDX-License-Identifier: Apache-2.0
#pragma once
// How every hand-written kernel is launched: one block size, grids sized from it, and the launch
// checked by its own status.
#include <prism/dispatch.hpp>  // multiprocessor_count
#include <prism/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace prism::detail {

// Threads per block of every prism kernel. 128 to 1024 measured alike for the streaming kernels
// (docs/benchmarks); 256 leaves room for 8 blocks per SM at full occupancy.
inline constexpr unsigned block_size = 256;

// Blocks of block_size threads for `threads` threads, counted in size_t (past 2^32 blocks too).
inline std::size_t blocks_needed(std::size_t threads) { return (threads + block_size - 1) / block_size; }

// The grid of a one-thread-per-element launch (callers keep it within a grid's 2^31 - 1 blocks).
inline unsigned blocks_for(std::size_t threads) { return static_cast<unsigned>(blocks_needed(threads)); }

// Blocks for a grid-stride loop over `threads` threads: as many as they need, at most eight per
// multiprocessor (the GPU filled, each thread then taking several).
inline unsigned stride_blocks(std::size_t threads) {
  return static_cast<unsigned>(std::min<std::size_t>(blocks_needed(threads), std::size_t(multiprocessor_count()) * 8));
}

// Blocks of `kernel` resident on the whole GPU at once with `threads` threads and `shared` bytes
// of dynamic shared memory each (at least one per multiprocessor): the grid of a kernel whose
// blocks loop over the input until it is done.
template <class... Params>
std::size_t resident_blocks(const char* algorithm, void (*kernel)(Params...), unsigned threads,
                            std::size_t shared = 0) {
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor", algorithm);
  return std::size_t(multiprocessor_count()) * static_cast<std::size_t>(std::max(per_sm, 1));
}

// f(i) for every i < n, a grid-stride loop (launched with stride_blocks(n) blocks of block_size).
template <class F>
__global__ void for_each_index_kernel(F f, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    f(i);
}

// Launches kernel<<<grid, block, 0, stream>>>(args...) through cudaLaunchKernelEx, whose status
// is this launch's own: an error the caller left pending is not reported as prism's, nor cleared.
// With `shared_bytes` of dynamic shared memory per block:
template <class... Params, class... Args>
void launch_shared(const char* algorithm, const char* kernel_name, void (*kernel)(Params...),
                   unsigned grid, unsigned block, std::size_t shared_bytes, cudaStream_t stream,
                   const Args&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  check(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), kernel_name, algorithm);
}
template <class... Params, class... Args>
void launch(const char* algorithm, const char* kernel_name, void (*kernel)(Params...),
            unsigned grid, unsigned block, cudaStream_t stream, const Args&... args) {
  launch_shared(algorithm, kernel_name, kernel, grid, block, 0, stream, args...);
}

// CUB and Thrust read the last error after their launches: an error still pending from a launch
// of the caller's would be reported as theirs. Cleared before calling them.
inline void clear_stale_error() {
  if (cudaPeekAtLastError() != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace prism::detail
