// SPDX-License-Identifier: Apache-2.0
// The merge family: every implementation of merge side by side.
//
// Rows (algorithm/type/implementation/n, n the output's size):
//   merge/float/<impl>/1024        two sorted arrays of 2^9 floats: the latency a caller sees
//   merge/float/<impl>/268435456   two sorted arrays of 2^27 floats
//   merge/uint32/lesson_<stage>/268435456   the lesson's stages (algorithms/merge/lesson.cuh), the
//                                  same arrays merged as uint32 (positive floats' bits sort alike)
// Inputs: a[i] = (i + u_i) / 2^k with u_i uniform in [0, 1) (and b likewise, another stream), so
// both are sorted and interleave at random. Bytes: every input element read once and every output
// written once, 8 bytes per output element (read+write, held against the ceiling of that pattern).
// cpu rows only at the small size; `automatic` is not timed (it is cub, by merge_automatic). Each
// row checks its output once: sorted, n elements, and the same elements (a checksum of the bits).
#include <prism/merge.hpp>

#include "harness.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace prism::bench {
namespace {

constexpr std::int64_t cpu_largest = std::int64_t{1} << 22;

benchmark::internal::Benchmark* short_rows(benchmark::internal::Benchmark* b, double bytes, bool on_gpu) {
  const double expected = on_gpu ? 2e-5 + bytes / 2e12 : 2e-4 + bytes / 2e8;
  const auto calls = static_cast<benchmark::IterationCount>(std::clamp(2e-3 / expected, 1.0, 16.0));
  return configure(b)->Repetitions(5)->Iterations(calls);
}

inline float sorted_element(std::uint64_t stream, std::size_t i, std::size_t n) {
  return static_cast<float>((static_cast<double>(i) + uniform(seed(), stream, i)) / static_cast<double>(n));
}

__global__ void sorted_kernel(float* out, std::size_t n, std::uint64_t stream, std::uint64_t s) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<float>((static_cast<double>(i) + uniform(s, stream, i)) / static_cast<double>(n));
  }
}

std::uint64_t checksum(const float* v, std::size_t n) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, v + i, 4);
    sum += splitmix64(b);
  }
  return sum;
}

struct arrays {
  std::size_t half;
  std::vector<float> host_a, host_b, host_out;
  device_buffer<float> a, b, out;
  std::uint64_t want = 0;

  arrays(std::size_t n, bool gpu) : half(n / 2) {
    if (gpu) {
      a = device_buffer<float>(half);
      b = device_buffer<float>(n - half);
      out = device_buffer<float>(n);
      launch_resident(sorted_kernel, 256, nullptr, a.data(), a.size(), std::uint64_t{11}, seed());
      launch_resident(sorted_kernel, 256, nullptr, b.data(), b.size(), std::uint64_t{12}, seed());
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      host_a = a.to_host();
      host_b = b.to_host();
    } else {
      host_a.resize(half);
      host_b.resize(n - half);
      for (std::size_t i = 0; i < host_a.size(); ++i) host_a[i] = sorted_element(11, i, host_a.size());
      for (std::size_t i = 0; i < host_b.size(); ++i) host_b[i] = sorted_element(12, i, host_b.size());
    }
    host_out.assign(n, 0.0f);
    want = checksum(host_a.data(), host_a.size()) + checksum(host_b.data(), host_b.size());
    if (!gpu) host_a.shrink_to_fit();
  }

  // The lesson's uint32 merge, over the same arrays: positive floats' bits sort as they do.
  void call(merge_stage stage) {
    const auto bits = [](const device_buffer<float>& x) {
      return span<const std::uint32_t>(reinterpret_cast<const std::uint32_t*>(x.data()), x.size());
    };
    prism::merge(stage, par, bits(a), bits(b),
                 span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(out.data()), out.size()));
  }

  void call(impl which) {
    const execution_policy policy = par.with(which);
    if (which == impl::cpu) {
      prism::merge(policy, host_a, host_b, host_out);
    } else {
      prism::merge(policy, a.view(), b.view(), out.view());
    }
  }

  std::string check(bool on_gpu) {
    std::vector<float> got = on_gpu ? out.to_host() : host_out;
    if (break_requested() && got.size() > 1) std::swap(got.front(), got.back());
    for (std::size_t i = 1; i < got.size(); ++i)
      if (!(got[i - 1] <= got[i])) return "not sorted at " + std::to_string(i);
    if (checksum(got.data(), got.size()) != want) return "not the elements of the inputs";
    return "";
  }
};
void register_rows(bool gpu) {
  for (std::int64_t n : {std::int64_t{1} << 10, std::int64_t{1} << 28}) {
    const traffic bytes{4.0 * static_cast<double>(n), 4.0 * static_cast<double>(n)};
    for (impl which : merge_implementations) {
      const bool on_gpu = which != impl::cpu;
      if (on_gpu && !gpu) continue;
      if (!on_gpu && n > cpu_largest) continue;
      for (cache c : cache_modes(bytes, on_gpu)) {
        const std::string row = row_name("merge", "float", std::string(name(which)), n, c);
        short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                                [=](benchmark::State& state) {
                                                  arrays& a = row_arrays<arrays>(std::to_string(n), static_cast<std::size_t>(n), gpu_available());
                                                  if (on_gpu) {
                                                    time_on_gpu(state, bytes, c, [&] { a.call(which); });
                                                  } else {
                                                    time_on_host(state, bytes, [&] { a.call(which); });
                                                  }
                                                  verify(state, row, [&] { return a.check(on_gpu); });
                                                }),
                   bytes.total(), on_gpu);
      }
    }
  }
  // The lesson's stages at the large size (device memory only).
  if (!gpu) return;
  const std::int64_t n = std::int64_t{1} << 28;
  const traffic bytes{4.0 * static_cast<double>(n), 4.0 * static_cast<double>(n)};
  for (merge_stage stage : merge_lesson) {
    for (cache c : cache_modes(bytes)) {
      const std::string row = row_name("merge", "uint32", "lesson_" + std::string(name(stage)), n, c);
      short_rows(benchmark::RegisterBenchmark(row.c_str(),
                                              [=](benchmark::State& state) {
                                                arrays& a = row_arrays<arrays>(std::to_string(n), static_cast<std::size_t>(n), true);
                                                time_on_gpu(state, bytes, c, [&] { a.call(stage); });
                                                verify(state, row, [&] { return a.check(true); });
                                              }),
                 bytes.total(), true);
    }
  }
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
