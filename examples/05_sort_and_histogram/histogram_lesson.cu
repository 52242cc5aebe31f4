// SPDX-License-Identifier: Apache-2.0
// Lesson 5, histograms: counting samples into bins, and why atomics collide.
//
// A histogram reads every sample once and writes a handful of counters, so its speed limit is the
// read rate. What keeps a kernel from it is contention: many threads adding to the same counter
// wait for each other. Uniform samples spread their additions over the bins; skewed samples (all
// in one bin) send every addition to one address. The lesson's stages (algorithms/histogram/
// lesson.cuh) go from one global atomic per sample, through a private histogram per block in
// shared memory, to prism's raw kernel: a sub-histogram per warp, 16-byte loads, branch-free
// binning and one warp-aggregated increment per sample.
//
// This program checks small histograms on the cpu (the bin rule, the edges form), then, with a
// GPU, times every stage and implementation on 2^26 float samples, uniform and all in one bin,
// against the rate of a copy, checking every count.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/histogram.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

// The median time of `repeats` calls, after a warm-up, from CUDA events around each call.
template <class Call>
double median_seconds(Call&& call, int repeats = 11) {
  call();
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaEvent_t start, stop;
  prism::check(cudaEventCreate(&start), "cudaEventCreate");
  prism::check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms(repeats);
  for (float& m : ms) {
    prism::check(cudaEventRecord(start), "cudaEventRecord");
    call();
    prism::check(cudaEventRecord(stop), "cudaEventRecord");
    prism::check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    prism::check(cudaEventElapsedTime(&m, start, stop), "cudaEventElapsedTime");
  }
  prism::check(cudaEventDestroy(start), "cudaEventDestroy");
  prism::check(cudaEventDestroy(stop), "cudaEventDestroy");
  std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
  return ms[repeats / 2] / 1e3;
}

// The small examples, on host memory: the cpu implementation.
bool small_examples() {
  bool ok = true;
  // 4 bins over [0, 1): edges 0, 0.25, 0.5, 0.75, 1. A sample on an edge is in the bin that starts
  // there; 1.0 (= hi), NaN and infinities are not counted.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{0.0f, 0.1f, 0.25f, 0.5f, 0.6f, 0.7f, 0.75f, 0.99f, 1.0f, nan, inf, -0.5f};
  std::vector<std::uint32_t> counts(4);
  prism::histogram(x, counts, 0.0f, 1.0f);
  std::printf("4 bins over [0, 1):           [%u, %u, %u, %u]\n", counts[0], counts[1], counts[2], counts[3]);
  ok &= counts == std::vector<std::uint32_t>{2, 1, 3, 2};

  // Edges of your own: bin k is [edges[k], edges[k + 1]).
  const std::vector<float> edges{0.0f, 0.5f, 0.7f, 2.0f};
  std::vector<std::uint64_t> by_edges(3);
  prism::histogram(x, edges, by_edges);
  std::printf("edges [0, 0.5, 0.7, 2]:       [%llu, %llu, %llu]\n", static_cast<unsigned long long>(by_edges[0]),
              static_cast<unsigned long long>(by_edges[1]), static_cast<unsigned long long>(by_edges[2]));
  ok &= by_edges == std::vector<std::uint64_t>{3, 2, 4};

  // Bytes: 256 bins over [0, 256) count each byte value; 4 bins over [0, 256) its top two bits.
  const std::vector<std::uint8_t> bytes{0, 63, 64, 200, 255, 255};
  std::vector<std::uint32_t> quarters(4);
  prism::histogram(bytes, quarters, 0, 256);
  std::printf("bytes in 4 bins over [0, 256): [%u, %u, %u, %u]\n", quarters[0], quarters[1], quarters[2], quarters[3]);
  ok &= quarters == std::vector<std::uint32_t>{2, 1, 0, 3};
  std::printf("%s\n", ok ? "small examples: right" : "small examples: WRONG");
  return ok;
}

int main() {
  bool ok = small_examples();
  if (!prism::gpu_available()) {
    std::printf("no GPU here: only the cpu implementation runs (Thrust on OpenMP)\n");
    return ok ? 0 : 1;
  }

  const std::size_t n = std::size_t{1} << 26, bins = 256;
  const double bytes = static_cast<double>(n) * sizeof(float);  // every sample read once
  std::vector<float> uniform(n);
  for (std::size_t i = 0; i < n; ++i) uniform[i] = static_cast<float>((i * 0x9E3779B97F4A7C15ull >> 40) * 0x1.0p-24);
  const std::vector<float> one_bin(n, 0.3f);
  prism::device_buffer<float> x(uniform), copy(n);
  prism::device_buffer<std::uint32_t> counts(bins);

  const double copy_seconds = median_seconds([&] {
    prism::check(cudaMemcpyAsync(copy.data(), x.data(), n * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
  const double ceiling = 2 * bytes / copy_seconds / 1e9;
  std::printf("\nn = 2^26 float samples, %zu bins over [0, 1); a device-to-device copy moves %.0f GB/s\n", bins,
              ceiling);

  const std::vector<float>* shapes[] = {&uniform, &one_bin};
  for (const std::vector<float>* samples : shapes) {
    x.copy_from(*samples);
    // The counts every implementation must give: the cpu implementation's.
    std::vector<std::uint32_t> want(bins);
    prism::histogram(*samples, want, 0.0f, 1.0f);
    std::printf("\n%s samples\n", samples == &uniform ? "uniform" : "all in one bin (0.3)");
    const auto report = [&](const std::string& how, double seconds) {
      const bool good = counts.to_host() == want;
      const double gbps = bytes / seconds / 1e9;
      std::printf("%-30s %9.1f GB/s  %5.1f%% of copy%s\n", how.c_str(), gbps, 100 * gbps / ceiling, good ? "" : "   WRONG");
      ok &= good;
    };
    for (prism::histogram_stage stage : prism::histogram_lesson) {
      report("lesson " + std::string(prism::name(stage)),
             median_seconds([&] { prism::histogram(stage, prism::par, x, counts, 0.0f, 1.0f); }));
    }
    for (prism::impl which : {prism::impl::thrust, prism::impl::cub, prism::impl::raw}) {
      report(std::string(prism::name(which)),
             median_seconds([&] { prism::histogram(prism::par.with(which), x, counts, 0.0f, 1.0f); }));
    }
  }
  std::printf("\n%s\n", ok ? "every count right" : "SOME COUNTS WRONG");
  return ok ? 0 : 1;
}
