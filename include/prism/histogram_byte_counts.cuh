// SPDX-License-Identifier: Apache-2.0
#pragma once
// A second raw kernel for samples of one byte, beside the library's (sub_histogram_kernel of
// <prism/histogram.cuh>): a counter per thread and bin instead of one sub-histogram per warp.
// Not the library's raw: it counts uniform bytes faster than that kernel and bytes all in one bin
// slower, and both below CUB (rows histogram_*/uint8/raw_thread_counts of bench_histogram;
// docs/benchmarks/histogram.md, "One-byte samples: counters per thread and bin").
#include <prism/histogram.cuh>

#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace prism::detail {

// ---- raw for samples of one byte: a counter per thread and bin ---------------------------------
// A byte has 256 values, so up to 256 bins each thread can keep counters of its own: no two lanes
// of a warp ever add to one word (no collisions, however skewed the input), and lane l's word of
// a row sits in bank l (no bank conflicts, however the bins fall). Bin b is row b, 32 words, one
// per lane; a lane of warp 0 counts in its word's low 16 bits, the same lane of warp 1 in the
// high 16: 256 rows of 128 bytes, 32 KB, so that six blocks of 64 threads fit an SM without
// asking for more than 48 KB each. A half counts up to 65,535: each thread adds at most
// 16 * byte_unroll to one between flushes of every byte_flush_steps block steps, when the block
// adds its rows to the counts and starts again. Counting a byte is then a shift, a mask that
// places the byte's row beside the lane's column, and one shared atomic add of the warp's half:
// atomic because two warps share each word, and a shared atomic whose result is not used holds no
// register, so a thread's increments to what may be one address issue back to back.
inline constexpr unsigned byte_threads = 64;
inline constexpr int byte_unroll = 8;  // 16-byte vectors in flight per thread
inline constexpr std::size_t byte_flush_steps = 65535 / (16 * byte_unroll);

template <class T>
concept one_byte_sample = std::is_integral_v<T> && sizeof(T) == 1;

template <class T, class Binner, class C>
  requires one_byte_sample<T>
__global__ void __launch_bounds__(byte_threads)
    byte_counts_kernel(const T* x, std::size_t n, std::size_t head, Binner binner, unsigned bins, C* counts) {
  static_assert(byte_threads == 64, "two warps share each word of a row");
  constexpr int U = byte_unroll;
  constexpr unsigned step_vectors = byte_threads * U;
  __shared__ int table[256];  // every byte's bin
  __shared__ unsigned cells[256 * 32];
  for (unsigned i = threadIdx.x; i < 256; i += byte_threads) table[i] = binner(static_cast<T>(i));
  for (unsigned i = threadIdx.x; i < 256 * 32; i += byte_threads) cells[i] = 0;
  __syncthreads();
  // Bins that are the bytes themselves (256 bins over [0, 256) of uint8) skip the table.
  bool own = bins == 256;
  for (unsigned i = threadIdx.x; i < 256; i += byte_threads) own &= table[i] == static_cast<int>(i);
  const bool identity = __syncthreads_and(own);

  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  auto* const base = reinterpret_cast<unsigned char*>(cells);
  const unsigned column = lane * 4, one = warp == 0 ? 1u : 0x10000u;
  // Bin b's word for this lane: byte offset b * 128 + lane * 4; row_bits is b * 128 (bits 7-14).
  const auto add_row = [&](unsigned row_bits) {
    atomicAdd(reinterpret_cast<unsigned*>(base + (row_bits | column)), one);
  };
  const auto add = [&](unsigned b) { add_row(b << 7); };
  // The rows added to the counts (a warp a row: each lane's word, both halves, then the warp's
  // sum) and zeroed.
  const auto flush = [&] {
    __syncthreads();
    for (unsigned r = warp; r < bins && r < 256; r += byte_threads / 32) {
      unsigned& word = cells[r * 32 + lane];
      const unsigned total = warp_reduce((word & 0xFFFFu) + (word >> 16), [](unsigned p, unsigned q) { return p + q; });
      word = 0;
      if (lane == 0 && total > 0) add_count(counts + r, total);
    }
    __syncthreads();
  };

  // Identity: the loop compiled twice, with and without the table, and chosen once.
  const auto count_all = [&](auto identity) {
    const auto count_byte = [&](unsigned byte) {
      if constexpr (decltype(identity)::value) {
        add(byte);
      } else {
        const int b = table[byte];
        if (static_cast<unsigned>(b) < bins) add(static_cast<unsigned>(b));
      }
    };
    const auto count_vector = [&](const uint4& v) {
      const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if constexpr (decltype(identity)::value) {
            // Byte k moved to bits 7-14 in one shift.
            add_row((k == 0 ? w[j] << 7 : w[j] >> (8 * k - 7)) & 0x7F80u);
          } else {
            count_byte(w[j] >> (8 * k) & 0xFFu);
          }
        }
      }
    };
    // Block steps of step_vectors consecutive 16-byte vectors, thread t the vectors t, t + 64, ...
    // of one (each warp's load is 512 contiguous bytes); full steps check no bounds.
    const uint4* body = reinterpret_cast<const uint4*>(x + head);
    const std::size_t vectors = (n - head) / 16, full_steps = vectors / step_vectors;
    std::size_t since_flush = 0;
    for (std::size_t s = blockIdx.x; s < full_steps; s += gridDim.x) {
      const uint4* p = body + s * step_vectors + threadIdx.x;
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = p[u * byte_threads];
#pragma unroll
      for (int u = 0; u < U; ++u) count_vector(v[u]);
      if (++since_flush == byte_flush_steps) {
        flush();
        since_flush = 0;
      }
    }
    // The last, partial step (one block's), then the samples before the first 16-byte boundary
    // and after the last whole vector, one per thread of the grid.
    if (blockIdx.x == full_steps % gridDim.x) {
      for (std::size_t i = full_steps * step_vectors + threadIdx.x; i < vectors; i += byte_threads)
        count_vector(body[i]);
    }
    const std::size_t tail = head + vectors * 16;
    for (std::size_t t = blockIdx.x * std::size_t{byte_threads} + threadIdx.x; t < head + (n - tail);
         t += std::size_t{gridDim.x} * byte_threads) {
      count_byte(static_cast<std::uint8_t>(x[t < head ? t : tail + (t - head)]));
    }
  };
  if (identity) {
    count_all(std::true_type{});
  } else {
    count_all(std::false_type{});
  }
  flush();
}

// Samples of one byte counted by byte_counts_kernel, at most 256 bins (bench_histogram's
// raw_thread_counts rows; the library's raw runs sub_histogram_kernel); in at most max_blocks
// blocks where that is not 0 (a test's way to make one block flush its counters).
template <class T, class C, class Binner>
  requires one_byte_sample<T>
void raw_byte_histogram(const execution_policy& policy, const T* x, std::size_t n, C* counts, std::size_t bins,
                        Binner binner, std::size_t max_blocks = 0) {
  const char* algorithm = "histogram";
  if (bins > 256) throw std::invalid_argument("prism::histogram: the byte kernel counts at most 256 bins");
  const cudaStream_t stream = policy.stream();
  check(cudaMemsetAsync(counts, 0, bins * sizeof(C), stream), "cudaMemsetAsync", algorithm);
  if (n == 0) return;
  const auto kernel = byte_counts_kernel<T, Binner, C>;
  const std::size_t head = std::min<std::size_t>(vector_aligned_head<16>(n, x), n);
  const std::size_t steps = ((n - head) / 16 + byte_threads * byte_unroll - 1) / (byte_threads * byte_unroll);
  std::size_t grid = std::min(resident_blocks(algorithm, kernel, byte_threads), steps);
  if (max_blocks > 0) grid = std::min(grid, max_blocks);
  grid = std::max<std::size_t>(grid, 1);
  launch(algorithm, "byte_counts_kernel", kernel, static_cast<unsigned>(grid), byte_threads, stream, x, n, head, binner,
         static_cast<unsigned>(bins), counts);
}

}  // namespace prism::detail
