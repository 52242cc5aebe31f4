// SPDX-License-Identifier: Apache-2.0
// Lesson 2: add up 2^26 floats, seven ways, each faster than the last.
//
// A reduction reads every element once and writes one value: its speed limit is how fast the
// GPU reads memory. The classic lesson (prism's algorithms/reduce/lesson.cuh has the kernels,
// each with a comment on what it changes) starts from a tree in shared memory and removes one
// bottleneck per step; prism registers every step as the lesson of prism::sum (reduce_lesson), so
// this program only has to walk the list and time each one, then the implementations. Expect the first steps to be limited by
// instructions and synchronization (a few hundred GB/s), and the last ones, raw and cub, to come
// close to the device-to-device copy rate printed first.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/reduce.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

// The median time of `repeats` calls, after a warm-up, from CUDA events around each call.
template <class Call>
double median_seconds(Call&& call, int repeats = 21) {
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

// Sums of 2^26 ones: every GPU implementation and stage adds in trees of short partial sums, all
// exact in float, so each must give n exactly; that is this program's check.
bool report(const char* how, double gb_per_s, float sum, float want) {
  const bool right = sum == want;
  std::printf("%-30s %10.1f GB/s   sum = %.0f%s\n", how, gb_per_s, sum, right ? "" : "   WRONG");
  return right;
}

// The cpu implementation adds each OpenMP thread's chunk in one long running sum: a float stops
// counting ones at 2^24 = 16777216 (1 more rounds back down), so a chunk past 2^24 elements comes
// out short. The same ones summed as doubles (53-bit significand) are exact.
bool cpu_sums(const std::vector<float>& ones) {
  const auto begin = std::chrono::steady_clock::now();
  const float s = prism::sum(ones);  // host memory: the cpu implementation
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const std::vector<double> wide(ones.size(), 1.0);
  const double exact = prism::sum(wide);
  std::printf("%-30s %10.1f GB/s   sum = %.0f\n", "cpu (float)", ones.size() * 4.0 / seconds / 1e9, s);
  std::printf("%-30s %10s        sum = %.0f\n", "cpu (double)", "", exact);
  if (s != exact) {
    std::printf("  The float sum is short: a float stops counting ones at 2^24, and the cpu adds each\n"
                "  thread's chunk in one running sum; the double sum (and every GPU tree) is exact.\n");
  }
  // The float sum cannot be above n nor below 2^24 per chunk; the double sum is exact.
  return exact == double(ones.size()) && s <= exact && s >= 16777216.0f;
}

int main() {
  const std::size_t n = std::size_t{1} << 26;
  const double bytes = n * sizeof(float);
  const std::vector<float> host(n, 1.0f);
  bool ok = cpu_sums(host);
  if (!prism::gpu_available()) {
    std::printf("no GPU here: only the cpu implementation runs (Thrust on OpenMP)\n");
    return ok ? 0 : 1;
  }

  prism::device_buffer<float> x(host), copy(n);
  prism::device_buffer<float> result(1);
  const double copy_seconds = median_seconds([&] {
    prism::check(cudaMemcpyAsync(copy.data(), x.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
  std::printf("n = 2^26 floats (%.0f MB)\n", bytes / 1e6);
  std::printf("%-30s %10.1f GB/s   (read + write: the ceiling)\n", "cudaMemcpy device to device",
              2 * bytes / copy_seconds / 1e9);

  // Into device memory, so that the time is the reduction's alone; then the value, once.
  for (prism::reduce_stage stage : prism::reduce_lesson) {
    const double seconds = median_seconds([&] { prism::sum(stage, prism::par, x, result); });
    const std::string how = "lesson: " + std::string(prism::name(stage));
    ok &= report(how.c_str(), bytes / seconds / 1e9, prism::sum(stage, prism::par, x), float(n));
  }
  for (prism::impl which : prism::reduce_implementations) {
    if (which == prism::impl::cpu) continue;
    const auto policy = prism::par.with(which);
    const double seconds = median_seconds([&] { prism::sum(policy, x, result); });
    ok &= report(std::string(prism::name(which)).c_str(), bytes / seconds / 1e9, prism::sum(policy, x), float(n));
  }
  return ok ? 0 : 1;
}
