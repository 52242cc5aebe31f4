// Lesson 2: add up 2^26 floats, seven ways, each faster than the last.
//
// A reduction reads every element once and writes one value: its speed limit is how fast the
// GPU reads memory. The classic lesson (prism's algorithms/reduce/progression.cuh has the kernels,
// each with a comment on what it changes) starts from a tree in shared memory and removes one
// bottleneck per step; prism registers every step as an implementation of prism::sum, so this
// program only has to walk the list and time each one. Expect the first steps to be limited by
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

int main() {
  const std::size_t n = std::size_t{1} << 26;
  const double bytes = n * sizeof(float);
  // 1.0 everywhere: the exact sum is n = 67108864. Each implementation adds in its own order, and
  // a float stops counting ones at 2^24 = 16777216: an order that builds one long running sum
  // (cpu, in one chunk per OpenMP thread) loses ones there, while trees of short sums stay exact.
  const std::vector<float> host(n, 1.0f);

  if (!prism::gpu_available()) {
    const auto begin = std::chrono::steady_clock::now();
    const float s = prism::sum<float>(host, nullptr, prism::impl::cpu);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::printf("no GPU here: only the cpu implementation runs (Thrust on OpenMP)\n");
    std::printf("%-30s %10.1f GB/s   sum = %.0f\n", "cpu", bytes / seconds / 1e9, s);
    return 0;
  }

  prism::device_buffer<float> x(host), copy(n);
  prism::device_buffer<float> result(1);
  const double copy_seconds = median_seconds([&] {
    prism::check(cudaMemcpyAsync(copy.data(), x.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
  std::printf("n = 2^26 floats (%.0f MB)\n", bytes / 1e6);
  std::printf("%-30s %10.1f GB/s   (read + write: the ceiling)\n", "cudaMemcpy device to device",
              2 * bytes / copy_seconds / 1e9);

  for (prism::impl which : prism::sum_implementations()) {
    if (which == prism::impl::automatic) continue;
    double seconds = 0;
    float s = 0;
    if (which == prism::impl::cpu) {
      const auto begin = std::chrono::steady_clock::now();
      s = prism::sum<float>(host, nullptr, which);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    } else {
      // Into device memory, so that the time is the reduction's alone; then the value, once.
      seconds = median_seconds([&] { prism::sum<float>(x.view(), result.view(), nullptr, which); });
      s = prism::sum<float>(x.view(), nullptr, which);
    }
    std::printf("%-30s %10.1f GB/s   sum = %.0f\n", std::string(prism::name(which)).c_str(),
                bytes / seconds / 1e9, s);
  }
  return 0;
}
