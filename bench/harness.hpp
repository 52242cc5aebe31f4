// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every prism benchmark shares: GPU time from CUDA events, the device-to-device copy
// ceiling measured in the same run, and the counters every row reports.
//
// Rows are named algorithm/type/implementation/n so that bench/report can tabulate them. Each
// row reports: bytes (the fewest that must move per call), GB/s, pct_of_copy (GB/s over the
// copy ceiling of this run, in %), and us (GPU time per call) which is the figure that matters
// for sizes too small to be bandwidth-bound.
#include <prism/buffer.hpp>
#include <prism/error.hpp>

#include <benchmark/benchmark.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace prism::bench {

// The type's name in row names.
template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, __half>) return "half";
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
}

// n = 2^10, 2^12, ..., 2^28.
inline std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> n;
  for (int p = 10; p <= 28; p += 2) n.push_back(std::int64_t{1} << p);
  return n;
}

inline std::string row_name(const std::string& algorithm, const std::string& type,
                            const std::string& implementation, std::int64_t n) {
  return algorithm + "/" + type + "/" + implementation + "/" + std::to_string(n);
}

// Times `run` (which enqueues one call on `stream`) with CUDA events around each call, after a
// warm-up, and sets the counters from `bytes` per call.
template <class Run>
void time_on_gpu(benchmark::State& state, cudaStream_t stream, double bytes, Run&& run) {
  for (int i = 0; i < 3; ++i) run();  // warm-up: first-touch, caches, lazy module loading
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  double total = 0;
  for (auto _ : state) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    run();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    state.SetIterationTime(ms / 1e3);
    total += ms / 1e3;
  }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  const double per_call = total / static_cast<double>(state.iterations());
  state.counters["bytes"] = bytes;
  state.counters["us"] = per_call * 1e6;
  state.counters["GB/s"] = bytes / per_call / 1e9;
}

// Host-side timing with a wall clock, for the cpu implementation.
template <class Run>
void time_on_host(benchmark::State& state, double bytes, Run&& run) {
  run();
  double total = 0;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    state.SetIterationTime(seconds);
    total += seconds;
  }
  const double per_call = total / static_cast<double>(state.iterations());
  state.counters["bytes"] = bytes;
  state.counters["us"] = per_call * 1e6;
  state.counters["GB/s"] = bytes / per_call / 1e9;
}

// The device-to-device copy ceiling in GB/s (bytes read + written), measured once per run on
// 2^28 floats: the median of 30 cudaMemcpyAsync calls.
inline double copy_ceiling_gbps() {
  static const double ceiling = [] {
    const std::size_t n = std::size_t{1} << 28;
    device_buffer<float> from(n), to(n);
    check(cudaMemset(from.data(), 1, n * sizeof(float)), "cudaMemset");
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<float> ms(30);
    for (int i = -3; i < 30; ++i) {
      check(cudaEventRecord(start), "cudaEventRecord");
      check(cudaMemcpyAsync(to.data(), from.data(), n * sizeof(float), cudaMemcpyDeviceToDevice),
            "cudaMemcpyAsync");
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      if (i >= 0) check(cudaEventElapsedTime(&ms[i], start, stop), "cudaEventElapsedTime");
    }
    check(cudaEventDestroy(start), "cudaEventDestroy");
    check(cudaEventDestroy(stop), "cudaEventDestroy");
    std::nth_element(ms.begin(), ms.begin() + 15, ms.end());
    return 2.0 * n * sizeof(float) / (ms[15] / 1e3) / 1e9;
  }();
  return ceiling;
}

// Adds pct_of_copy to a GPU row, and records the ceiling itself in the run's context.
inline void relate_to_ceiling(benchmark::State& state) {
  state.counters["pct_of_copy"] = 100.0 * state.counters["GB/s"] / copy_ceiling_gbps();
}

// Every row: manual time, repeated, reported as aggregates (the median is what docs/ quote).
inline benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b) {
  return b->UseManualTime()->Unit(benchmark::kMicrosecond)->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

// Registers the copy ceiling as rows of its own (copy/<type>/cudaMemcpy/n) so that every table
// has it beside the implementations, each repetition at least `min_seconds` long.
template <class T>
void register_copy_rows(const std::string& type, double min_seconds = 0.5) {
  for (std::int64_t n : sizes()) {
    configure(benchmark::RegisterBenchmark(
        row_name("copy", type, "cudaMemcpy", n).c_str(), [n](benchmark::State& state) {
          device_buffer<T> from(n), to(n);
          check(cudaMemset(from.data(), 1, n * sizeof(T)), "cudaMemset");
          time_on_gpu(state, nullptr, 2.0 * n * sizeof(T), [&] {
            check(cudaMemcpyAsync(to.data(), from.data(), n * sizeof(T),
                                  cudaMemcpyDeviceToDevice),
                  "cudaMemcpyAsync");
          });
          relate_to_ceiling(state);
        }))->MinTime(min_seconds);
  }
}

// The standard main: measures the ceiling first (GPU present) and records it in the context.
inline int run_main(int argc, char** argv, void (*register_rows)(bool gpu)) {
  const bool gpu = gpu_available();
  if (gpu) {
    benchmark::AddCustomContext("copy_ceiling_GBps", std::to_string(copy_ceiling_gbps()));
    cudaDeviceProp properties{};
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    benchmark::AddCustomContext("gpu", properties.name);
  } else {
    benchmark::AddCustomContext("gpu", "none: cpu implementation only");
  }
  register_rows(gpu);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace prism::bench
