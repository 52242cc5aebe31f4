// SPDX-License-Identifier: Apache-2.0
// Lesson 5, sorting (histograms are the other program of this lesson, histogram_lesson.cu).
//
// A radix sort never compares two keys. It sorts by one digit at a time, least significant first,
// and each pass is a stable partition by the digit: count the keys of each digit, scan the counts
// (where each digit's keys start), send each key to its digit's next place. After the pass on the
// most significant digit the keys are in order. With 8-bit digits, 32-bit keys take 4 passes; each
// pass must at least read and write every key, so a sort of n uint32 keys moves at least 32 n
// bytes, and its speed limit is the copy rate divided by 4.
//
// Floats and signed integers sort the same way once their bits are mapped to unsigned integers of
// the same order (flip the sign bit; for negative floats flip every bit). prism's order is CUB's:
// -NaN < -inf < ... < -0.0 == +0.0 < ... < +inf < +NaN, stable everywhere.
//
// The lesson's stages (algorithms/sort/lesson.cuh) go from one bit per pass (32 passes, each a
// split by a scan) to the one-sweep sort that is prism's raw implementation: one kernel per 8-bit
// digit that ranks its tile's keys in shared memory and learns where they go from the tiles before
// it (decoupled look-back). This program sorts small arrays on the cpu, checking each, then, with a
// GPU, times every stage and implementation on 2^26 uint32 keys, checking every result.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/sort.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

template <class T>
void print(const char* what, const std::vector<T>& v) {
  std::printf("%-30s [", what);
  for (std::size_t i = 0; i < v.size(); ++i) std::printf(i == 0 ? "%g" : ", %g", static_cast<double>(v[i]));
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

// Small sorts on host memory: the cpu implementation.
bool small_sorts() {
  bool ok = true;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{3.5f, -1.0f, inf, 0.0f, -0.0f, -inf, 2.0f, -1.0f};
  std::vector<float> up(x.size()), down(x.size());
  prism::sort(x, up);
  prism::sort(x, down, prism::sort_order::descending);
  print("x", x);
  print("sort(x)", up);
  print("sort(x, descending)", down);
  // -0.0 and +0.0 are equal keys: they keep their input order (+0.0 came first), both ways.
  ok &= up == std::vector<float>{-inf, -1.0f, -1.0f, 0.0f, -0.0f, 2.0f, 3.5f, inf};
  ok &= !std::signbit(up[3]) && std::signbit(up[4]) && !std::signbit(down[3]) && std::signbit(down[4]);
  ok &= down == std::vector<float>{inf, 3.5f, 2.0f, 0.0f, -0.0f, -1.0f, -1.0f, -inf};

  // Sort by key: the values follow their keys; equal keys keep their values' order (stable).
  std::vector<std::int32_t> keys{2, 0, 1, 0, 2, 1};
  std::vector<float> values{10, 11, 12, 13, 14, 15};
  prism::sort_by_key(keys, values);
  print("sort_by_key: keys", keys);
  print("sort_by_key: values", values);
  ok &= keys == std::vector<std::int32_t>{0, 0, 1, 1, 2, 2} && values == std::vector<float>{11, 13, 12, 15, 10, 14};

  // argsort: the permutation that sorts. Applied to the keys, it gives them in order.
  const std::vector<double> scores{0.5, -2.0, 7.0, 0.5};
  std::vector<std::int64_t> order(scores.size());
  prism::argsort(scores, order, prism::sort_order::descending);
  print("argsort(scores, descending)", order);
  ok &= order == std::vector<std::int64_t>{2, 0, 3, 1};

  std::printf("small sorts: %s\n", ok ? "right" : "WRONG");
  return ok;
}

// uint32 keys on the GPU: every stage of the lesson and every implementation, timed and checked.
bool sorts_on_the_gpu() {
  bool ok = true;
  const std::size_t n = std::size_t{1} << 26;
  std::vector<std::uint32_t> host(n);
  std::uint64_t state = 2026;
  for (auto& k : host) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;  // a 64-bit LCG: its high bits
    k = static_cast<std::uint32_t>(state >> 32);
  }
  std::vector<std::uint32_t> want = host;
  std::sort(want.begin(), want.end());
  prism::device_buffer<std::uint32_t> keys(host), out(n);
  const double bytes = 4.0 * 2 * n * sizeof(std::uint32_t);  // 4 passes, each reading and writing the keys

  const double copy_seconds = median_seconds([&] {
    prism::check(cudaMemcpyAsync(out.data(), keys.data(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice),
                 "cudaMemcpyAsync");
  });
  const double ceiling = 2.0 * n * sizeof(std::uint32_t) / copy_seconds / 1e9;
  std::printf("\nsort of n = 2^26 uint32 keys; the copy rate is %.0f GB/s, so 4 passes can reach %.1f Gkeys/s\n",
              ceiling, ceiling * 1e9 / (4 * 2 * sizeof(std::uint32_t)) / 1e9);
  const auto report = [&](const std::string& how, double seconds) {
    const bool right = out.to_host() == want;
    std::printf("%-34s %8.2f Gkeys/s  %7.1f GB/s (counting 4 passes)%s\n", how.c_str(), n / seconds / 1e9,
                bytes / seconds / 1e9, right ? "" : "   WRONG");
    return right;
  };
  for (prism::sort_stage stage : prism::sort_lesson) {
    prism::check(cudaMemset(out.data(), 0, n * sizeof(std::uint32_t)), "cudaMemset");
    const double seconds = median_seconds([&] { prism::sort(stage, prism::par, keys, out); }, 5);
    ok &= report("lesson: " + std::string(prism::name(stage)), seconds);
  }
  for (prism::impl which : prism::sort_implementations) {
    if (which == prism::impl::cpu) continue;
    prism::check(cudaMemset(out.data(), 0, n * sizeof(std::uint32_t)), "cudaMemset");
    const double seconds = median_seconds([&] { prism::sort(prism::par.with(which), keys, out); });
    ok &= report(std::string(prism::name(which)), seconds);
  }
  return ok;
}

int main() {
  bool ok = small_sorts();
  if (!prism::gpu_available()) {
    std::printf("no GPU here: only the cpu implementation runs (Thrust on OpenMP)\n");
    return ok ? 0 : 1;
  }
  ok &= sorts_on_the_gpu();
  return ok ? 0 : 1;
}
