// SPDX-License-Identifier: Apache-2.0
// Lesson 4: prefix sums, and what they are for.
//
// An inclusive scan turns [x0, x1, x2, ...] into [x0, x0 + x1, x0 + x1 + x2, ...]. It looks
// sequential, each output needing the one before, yet it is one of the basic parallel algorithms:
// the exclusive scan of keep-flags is where each kept element goes, which is how a GPU compacts
// an array, partitions it, removes duplicates or encodes runs, all in one pass.
//
// A scan reads n elements and writes n: its speed limit is the copy rate. The lesson's stages
// (algorithms/scan/lesson.cuh has the kernels, each with what it removes and what it costs) go
// from Hillis and Steele's textbook scan, one launch per step and 3n log2 n elements moved, to the
// single-pass scan with decoupled look-back that moves 2n and is prism's raw implementation. This
// program checks small scans and a compaction on the cpu, then, with a GPU, times every stage and
// implementation on 2^26 int32 against the device-to-device copy rate, checking each result.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/scan.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

template <class T>
void print(const char* what, const std::vector<T>& v, std::size_t count) {
  std::printf("%-28s [", what);
  for (std::size_t i = 0; i < count; ++i) std::printf(i == 0 ? "%lld" : ", %lld", static_cast<long long>(v[i]));
  std::printf("]\n");
}

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
  const std::vector<std::int32_t> x{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<std::int32_t> sums(8), before(8);
  prism::inclusive_scan(x, sums);
  prism::exclusive_scan(x, before);
  print("x", x, 8);
  print("inclusive_scan(x)", sums, 8);
  print("exclusive_scan(x)", before, 8);
  ok &= sums == std::vector<std::int32_t>{1, 3, 6, 10, 15, 21, 28, 36};
  ok &= before == std::vector<std::int32_t>{0, 1, 3, 6, 10, 15, 21, 28};

  // Keep the even ones. The exclusive scan of the flags [0, 1, 0, 1, ...] is [0, 0, 1, 1, 2, ...]:
  // where each kept element goes.
  const std::vector<std::uint8_t> even{0, 1, 0, 1, 0, 1, 0, 1};
  std::vector<std::int32_t> kept(8, 0);
  const std::size_t count = prism::compact(x, even, kept);
  print("compact(x, even flags)", kept, count);
  ok &= count == 4 && std::vector<std::int32_t>(kept.begin(), kept.begin() + 4) == std::vector<std::int32_t>{2, 4, 6, 8};

  std::vector<std::int32_t> parted(8, 0);
  prism::partition(x, even, parted);
  print("partition(x, even flags)", parted, 8);
  ok &= parted == std::vector<std::int32_t>{2, 4, 6, 8, 1, 3, 5, 7};

  const std::vector<std::int32_t> runs{3, 3, 3, 1, 1, 7, 3, 3};
  std::vector<std::int32_t> values(8, 0);
  std::vector<std::uint64_t> lengths(8, 0);
  const std::size_t r = prism::run_length_encode(runs, values, lengths);
  print("run_length_encode values", values, r);
  print("run_length_encode lengths", lengths, r);
  ok &= r == 4 && std::vector<std::int32_t>(values.begin(), values.begin() + 4) == std::vector<std::int32_t>{3, 1, 7, 3} &&
        std::vector<std::uint64_t>(lengths.begin(), lengths.begin() + 4) == std::vector<std::uint64_t>{3, 2, 1, 2};
  std::printf("%s\n", ok ? "small examples: right" : "small examples: WRONG");
  return ok;
}

int main() {
  bool ok = small_examples();
  if (!prism::gpu_available()) {
    std::printf("no GPU here: only the cpu implementation runs (Thrust on OpenMP)\n");
    return ok ? 0 : 1;
  }

  // Prefix sums of ones are 1, 2, 3, ...: exact in int32, so every result can be checked whole.
  const std::size_t n = std::size_t{1} << 26;
  const double bytes = 2.0 * n * sizeof(std::int32_t);  // read n, write n
  const std::vector<std::int32_t> ones(n, 1);
  prism::device_buffer<std::int32_t> x(ones), out(n);
  const auto right = [&] {
    const std::vector<std::int32_t> got = out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != static_cast<std::int32_t>(i + 1)) return false;
    return true;
  };
  const auto report = [&](const std::string& how, double seconds, bool good, double ceiling) {
    const double gbps = bytes / seconds / 1e9;
    std::printf("%-32s %9.1f GB/s  %5.1f%% of copy%s\n", how.c_str(), gbps, 100 * gbps / ceiling, good ? "" : "   WRONG");
    return good;
  };

  const double copy_seconds = median_seconds([&] {
    prism::check(cudaMemcpyAsync(out.data(), x.data(), bytes / 2, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
  const double ceiling = bytes / copy_seconds / 1e9;
  std::printf("\nn = 2^26 int32 (%.0f MB read, %.0f MB written)\n", bytes / 2e6, bytes / 2e6);
  std::printf("%-32s %9.1f GB/s  (read + write: the ceiling)\n", "cudaMemcpy device to device", ceiling);

  for (prism::scan_stage stage : prism::scan_lesson) {
    prism::check(cudaMemset(out.data(), 0, bytes / 2), "cudaMemset");
    const double seconds = median_seconds([&] { prism::inclusive_scan(stage, prism::par, x, out); }, 5);
    ok &= report("lesson: " + std::string(prism::name(stage)), seconds, right(), ceiling);
  }
  for (prism::impl which : prism::scan_implementations) {
    if (which == prism::impl::cpu) continue;
    prism::check(cudaMemset(out.data(), 0, bytes / 2), "cudaMemset");
    const double seconds = median_seconds([&] { prism::inclusive_scan(prism::par.with(which), x, out); });
    ok &= report(std::string(prism::name(which)), seconds, right(), ceiling);
  }
  return ok ? 0 : 1;
}
