// SPDX-License-Identifier: Apache-2.0
// prism from CUDA code: thrust::device_vector as spans, the generic transform layer with the
// caller's own functors and lambdas, streams, and several host threads at once.
#include <prism/elementwise.hpp>
#include <prism/transform.cuh>

#include "testing.hpp"

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <thread>
#include <vector>

namespace {

using namespace prism::testing;

TEST(GpuInterop, DeviceVectorIsASpan) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto a = random_vector<float>(1000, fresh_seed()), b = random_vector<float>(1000, fresh_seed());
  thrust::device_vector<float> da(a.begin(), a.end()), db(b.begin(), b.end()), out(1000, poison<float>());
  prism::add(da, db, out);
  thrust::host_vector<float> got = out;
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(close(got[i], double(a[i]) + double(b[i])));
}

// y = a*x^2 + b, fused into one pass, through every implementation of the generic layer.
struct quadratic {
  float a, b;
  __host__ __device__ float operator()(float x) const { return a * x * x + b; }
};

// Extended lambdas cannot live in a test body (a private member function): these free
// functions hold them.
void fused_multiply_add(prism::span<const float> a, prism::span<const double> b,
                        prism::span<const std::int32_t> c, prism::span<double> out, prism::impl which) {
  auto f = [] __host__ __device__(float x, double y, std::int32_t z) { return x * y + z; };
  prism::transform(prism::par.with(which), prism::inputs(a, b, c), out, f);
}

void twice_on_device(prism::span<const float> x, prism::span<float> out, prism::impl which) {
  auto twice = [] __device__(float v) { return 2 * v; };
  prism::transform(prism::par.with(which), x, out, twice);
}

class Transform : public ::testing::TestWithParam<prism::impl> {};

TEST_P(Transform, UserFunctor) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const auto x = random_vector<float>(4099, fresh_seed());
  placed_array<float> dx(x, where, 1), out(std::vector<float>(x.size(), poison<float>()), where, 1);
  prism::transform(prism::par.with(GetParam()), dx.view(), out.view(), quadratic{2.0f, 0.5f});
  const auto got = out.values();
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_TRUE(close(got[i], 2.0 * x[i] * x[i] + 0.5, 4)) << i;
}

// Three inputs of three types and an output of a fourth: the vector width follows the widest.
TEST_P(Transform, MixedTypesThreeInputs) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const std::size_t n = 1027;
  const auto a = random_vector<float>(n, fresh_seed());
  const auto b = random_vector<double>(n, fresh_seed());
  const auto c = random_vector<std::int32_t>(n, fresh_seed());
  placed_array<float> da(a, where);
  placed_array<double> db(b, where);
  placed_array<std::int32_t> dc(c, where);
  placed_array<double> out(std::vector<double>(n, poison<double>()), where);
  fused_multiply_add(da.view(), db.view(), dc.view(), out.view(), GetParam());
  const auto got = out.values();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_TRUE(close(got[i], double(a[i]) * b[i] + c[i], 4)) << i;
}

INSTANTIATE_TEST_SUITE_P(, Transform,
                         ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                             std::end(prism::elementwise_implementations)),
                         impl_name);

// A __device__-only lambda runs on every GPU implementation; cpu refuses it by name.
TEST(TransformOnCpu, DeviceLambdaIsRefused) {
  std::vector<float> x(10, 1.0f), out(10, 42.0f);
  EXPECT_THROW(twice_on_device(x, out, prism::impl::cpu), std::invalid_argument);
  EXPECT_EQ(out, std::vector<float>(10, 42.0f));
}

TEST_P(Transform, DeviceLambda) {
  if (memory_of(GetParam()) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto x = random_vector<float>(1001, fresh_seed());
  placed_array<float> dx(x, memory::device), out(std::vector<float>(x.size(), poison<float>()), memory::device);
  twice_on_device(dx.view(), out.view(), GetParam());
  const auto got = out.values();
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(close(got[i], 2.0 * x[i])) << i;
}

// Several host threads, each on its own stream, nothing synchronized until the end.
TEST(GpuStreams, ManyThreadsManyStreams) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  constexpr int threads = 8;
  const std::size_t n = large((1 << 18) + 3);
  std::vector<std::vector<float>> got(threads);
  const auto a = random_vector<float>(n, fresh_seed()), b = random_vector<float>(n, fresh_seed());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaStream_t stream;
      prism::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      prism::device_buffer<float> da(a), db(b), out(n);
      const prism::impl which = prism::elementwise_implementations[1 + t % 4];  // GPU ones
      for (int repeat = 0; repeat < 20; ++repeat)
        prism::add(prism::par.on(stream).with(which), da.view(), db.view(), out.view());
      prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      got[t] = out.to_host();
      prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    });
  }
  for (auto& t : pool) t.join();
  for (int t = 0; t < threads; ++t)
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(close(got[t][i], double(a[i]) + double(b[i])));
}

}  // namespace
