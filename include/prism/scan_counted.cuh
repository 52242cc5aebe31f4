// SPDX-License-Identifier: Apache-2.0
#pragma once
// The count pass of the selections' counted outputs (<prism/scan.cuh> includes this header; include
// that one): an output smaller than its input is taken when it holds what the call writes, which
// the implementation that runs counts first.
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/scan_programs.cuh>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace prism::detail {

// The grid of a counting kernel: vectors of V elements, up to 8 blocks per multiprocessor.
inline unsigned count_blocks(std::size_t n, int V) {
  return stride_blocks((n + V - 1) / V);
}

// ---- counted outputs ------------------------------------------------------------------------------
// An output smaller than the input is taken when it holds what the call writes: the call counts
// that first, in the implementation it runs (the kept flags of compact, the runs of unique,
// run_length_encode and reduce_by_key), waits for the count (so it cannot be captured into a
// graph), and refuses, std::invalid_argument with nothing written, when the output is too small.
// The pass reads the flags (n bytes) or the keys (n elements) once more; an output of the input's
// size (or larger: only its first n elements are the call's) needs no pass.
[[noreturn]] inline void refuse_counted(const char* algorithm, std::size_t count, std::size_t capacity) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": the call writes " + std::to_string(count) +
                              " elements (counted first: the output is smaller than the input), and the output "
                              "holds " + std::to_string(capacity));
}

// Whether element i is written: its flag kept...
template <class S, class Pred>
struct kept_at {
  const S* stencil;
  Pred pred;
  __host__ __device__ std::size_t operator()(std::size_t i) const { return pred(stencil[i]) ? 1 : 0; }
};
// ... or it starts a run.
template <class K, class Eq>
struct run_start_at {
  const K* keys;
  Eq eq;
  __host__ __device__ std::size_t operator()(std::size_t i) const { return i == 0 || !eq(keys[i - 1], keys[i]) ? 1 : 0; }
};

// The count pass of cpu and thrust: Thrust's transform_reduce (it returns to the host).
template <class Policy, class Indicator>
std::size_t count_on_thrust(const Policy& p, Indicator indicator, std::size_t n) {
  return thrust::transform_reduce(p, thrust::counting_iterator<std::size_t>(0), thrust::counting_iterator<std::size_t>(n),
                                  indicator, std::size_t{0}, cuda::std::plus<std::size_t>{});
}

// raw's: the flags or the run starts counted by a kernel into a zeroed word of scratch, copied back.
template <class Launch>
std::size_t count_on_stream(const char* algorithm, const execution_policy& policy, Launch count_into) {
  const cudaStream_t stream = policy.stream();
  require_not_capturing(stream, algorithm);
  const scratch lease = acquire_scratch(sizeof(unsigned long long), with_explicit_stream(policy), algorithm);
  auto* total = static_cast<unsigned long long*>(lease.device());
  check(cudaMemsetAsync(total, 0, sizeof(*total), stream), "cudaMemsetAsync", algorithm);
  count_into(total, stream);
  unsigned long long counted = 0;
  check(cudaMemcpyAsync(&counted, total, sizeof(counted), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync", algorithm);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", algorithm);
  return static_cast<std::size_t>(counted);
}
template <class S, class Pred>
std::size_t count_kept_raw(const char* algorithm, const execution_policy& policy, const S* stencil, Pred pred,
                           std::size_t n) {
  constexpr int W = scan_vector<S>;
  return count_on_stream(algorithm, policy, [&](unsigned long long* total, cudaStream_t s) {
    launch(algorithm, "count_kept_kernel", count_kept_kernel<W, S, Pred>, count_blocks(n, W), block_size, s, stencil,
           pred, n, vector_aligned<W>(stencil), total);
  });
}
template <class K, class Eq>
std::size_t count_runs_raw(const char* algorithm, const execution_policy& policy, const K* keys, Eq eq, std::size_t n) {
  constexpr int W = scan_vector<K>;
  return count_on_stream(algorithm, policy, [&](unsigned long long* total, cudaStream_t s) {
    launch(algorithm, "count_heads_kernel", count_heads_kernel<W, K, Eq>, count_blocks(n, W), block_size, s, keys, eq,
           n, vector_aligned<W>(keys), total);
  });
}

// cub's: DeviceReduce::Sum over the indicator, into scratch, copied back.
template <class Indicator>
std::size_t count_on_cub(const char* algorithm, const execution_policy& policy, Indicator indicator, std::size_t n) {
  const cudaStream_t stream = policy.stream();
  require_not_capturing(stream, algorithm);
  const auto ones = thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0), indicator);
  std::size_t counted = 0;
  cub_call(
      algorithm, "cub::DeviceReduce::Sum", policy, {n},
      [&](void* temp, std::size_t& bytes, void* extra) {
        return cub::DeviceReduce::Sum(temp, bytes, ones, static_cast<std::size_t*>(extra), static_cast<std::int64_t>(n),
                                      stream);
      },
      sizeof(std::size_t),
      [&](void* extra) {
        check(cudaMemcpyAsync(&counted, extra, sizeof(counted), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
              algorithm);
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", algorithm);
      });
  return counted;
}

// The outputs a call hands the dispatch: the first n elements of one that holds n or more (so the
// in-place rules see the input's size), the whole of a smaller one (counted first).
template <class T>
span<T> first_n(span<T> out, std::size_t n) {
  return out.size() >= n ? out.subspan(0, n) : out;
}
// Refuses a count the output cannot hold; the count otherwise.
inline void require_fits(const char* algorithm, std::size_t count, std::size_t capacity) {
  if (count > capacity) refuse_counted(algorithm, count, capacity);
}

}  // namespace prism::detail
