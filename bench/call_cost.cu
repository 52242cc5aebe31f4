// SPDX-License-Identifier: Apache-2.0
// What one call costs at the launch floor: prism's calls at n = 2^10 floats beside the direct
// calls they are made of, in one run, warm (the data stays in L2). Both timings of the harness:
// `us`, the latency a caller sees (events around the call on an idle stream), and `gpu_us`, the
// GPU time alone (the call queued behind a held stream); the difference between prism's row and
// the direct one is prism's own cost per call. bench/report tabulates prism / direct.
//
//   add/float/raw/1024/warm           prism::add(par.with(impl::raw), ...)
//   add/float/bare_launch/1024/warm   the same kernel (detail::transform_vector_kernel) launched
//                                     with <<<>>> and no checks: the floor for raw
//   add/float/cub/1024/warm           prism::add(par.with(impl::cub), ...)
//   add/float/cub_direct/1024/warm    cub::DeviceTransform::Transform called directly
//   sum/float/raw/1024/warm           prism::sum(par.with(impl::raw), x, result): into device memory
//   sum/float/automatic/1024/warm     the same with the default policy
//   sum/float/cub/1024/warm           prism::sum(par.with(impl::cub), x, result)
//   sum/float/cub_direct/1024/warm    cub::DeviceReduce::Sum into device memory, temporary storage
//                                     allocated once beforehand
#include <prism/elementwise.hpp>
#include <prism/functors.cuh>
#include <prism/reduce.hpp>
#include <prism/transform.cuh>

#include "harness.hpp"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>

#include <cmath>

namespace prism::bench {
namespace {

constexpr std::int64_t n = 1024;

// Many short calls: the median of 15 repetitions of 200 calls each.
benchmark::internal::Benchmark* latency_row(benchmark::internal::Benchmark* b) {
  return configure(b)->Iterations(200)->Repetitions(15);
}

struct arrays {
  device_buffer<float> a, b, out, result;
  arrays() : a(std::size_t(n)), b(std::size_t(n)), out(std::size_t(n)), result(1) {
    generate(a.view(), {0, 0.5, 1.5});
    generate(b.view(), {1, -2, 2});
  }
};

// add: every element of out against a + b; sum: against the float64 sum.
std::string check_arrays(const char* algorithm, arrays& x) {
  const std::vector<float> a = x.a.to_host(), b = x.b.to_host();
  if (std::string_view(algorithm) == "add") {
    if (break_requested()) perturb(x.out.data(), 0, true);
    const std::vector<float> out = x.out.to_host();
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (out[i] != a[i] + b[i])
        return "at index " + std::to_string(i) + " got " + describe(out[i]) + ", expected " + describe(a[i] + b[i]);
    }
    return "";
  }
  if (break_requested()) perturb(x.result.data(), 0, true);
  double want = 0;
  for (float v : a) want += v;
  const double got = x.result.to_host()[0];
  return close(got, want, 1e-4, 0) ? "" : "sum = " + describe(got) + ", expected " + describe(want);
}

void register_rows(bool gpu) {
  if (!gpu) return;
  const traffic add_bytes{2.0 * n * sizeof(float), 1.0 * n * sizeof(float)};
  const traffic sum_bytes{1.0 * n * sizeof(float), 0};
  const auto row = [](const char* algorithm, const char* implementation, traffic bytes, auto call) {
    const std::string name = row_name(algorithm, "float", implementation, n, cache::warm);
    latency_row(benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
      arrays x;
      time_on_gpu(state, bytes, cache::warm, [&] { call(x); });
      verify(state, name, [&] {
        check(cudaMemset(x.out.data(), 0x7F, n * sizeof(float)), "cudaMemset");
        check(cudaMemset(x.result.data(), 0x7F, sizeof(float)), "cudaMemset");
        call(x);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        return check_arrays(algorithm, x);
      });
    }));
  };
  row("add", "raw", add_bytes, [](arrays& x) { add(par.with(impl::raw), x.a, x.b, x.out); });
  row("add", "bare_launch", add_bytes, [](arrays& x) {
    // n = 1024 aligned floats: 256 whole vectors, no edge elements.
    detail::transform_vector_kernel<4><<<1, 256>>>(functors::plus<float>{}, x.out.data(),
                                                  std::size_t(n), std::size_t{0}, std::size_t(n / 4),
                                                  static_cast<const float*>(x.a.data()),
                                                  static_cast<const float*>(x.b.data()));
  });
  row("add", "cub", add_bytes, [](arrays& x) { add(par.with(impl::cub), x.a, x.b, x.out); });
  row("add", "cub_direct", add_bytes, [](arrays& x) {
    (void)cub::DeviceTransform::Transform(cuda::std::make_tuple(x.a.data(), x.b.data()), x.out.data(),
                                          n, functors::plus<float>{}, nullptr);
  });
  row("sum", "raw", sum_bytes, [](arrays& x) { sum(par.with(impl::raw), x.a, x.result); });
  row("sum", "automatic", sum_bytes, [](arrays& x) { sum(x.a, x.result); });
  row("sum", "cub", sum_bytes, [](arrays& x) { sum(par.with(impl::cub), x.a, x.result); });
  // CUB's temporary storage, sized and allocated once, as a direct caller would keep it.
  static std::size_t temp_bytes = 0;
  static device_buffer<char> temp;
  row("sum", "cub_direct", sum_bytes, [](arrays& x) {
    if (temp.size() == 0) {
      check(cub::DeviceReduce::Sum(nullptr, temp_bytes, x.a.data(), x.result.data(), n), "cub");
      temp = device_buffer<char>(temp_bytes);
    }
    (void)cub::DeviceReduce::Sum(temp.data(), temp_bytes, x.a.data(), x.result.data(), n);
  });
}

}  // namespace
}  // namespace prism::bench

int main(int argc, char** argv) { return prism::bench::run_main(argc, argv, prism::bench::register_rows); }
