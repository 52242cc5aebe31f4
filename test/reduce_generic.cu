// SPDX-License-Identifier: Apache-2.0
// prism::transform_reduce from CUDA code: the caller's own functors, operators and value types,
// the element index, and several inputs, through every implementation of the generic layer.
#include <prism/reduce.cuh>

#include "testing.hpp"

#include <cmath>
#include <vector>

namespace {

using namespace prism::testing;

// sum of (x - c)^2, a user functor on one input.
struct squared_distance {
  float c;
  __host__ __device__ double operator()(float x) const { return (double(x) - c) * (double(x) - c); }
};

// The largest i * x[i], a user value type and operator with the index.
struct weighted {
  double value;
  std::int64_t at;
};
struct weigh {
  __host__ __device__ weighted operator()(std::int64_t i, float x) const { return {double(i) * x, i}; }
};
struct heavier {
  __host__ __device__ weighted operator()(weighted a, weighted b) const {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.at < b.at ? a : b;
  }
};

// Extended lambdas cannot live in a test body (a private member function): these free
// functions hold them.
double sum_of_products(prism::span<const float> a, prism::span<const double> b,
                       prism::span<const std::int32_t> c, prism::impl which) {
  auto f = [] __host__ __device__(float x, double y, std::int32_t z) { return x * y * z; };
  return prism::transform_reduce(prism::par.with(which), prism::inputs(a, b, c), 0.0,
                                 prism::functors::plus<double>{}, f);
}

float device_lambda_sum(prism::span<const float> x, prism::impl which) {
  auto twice = [] __device__(float v) -> float { return 2 * v; };  // CUB needs the return type
  return prism::transform_reduce(prism::par.with(which), x, 0.0f, prism::functors::plus<float>{}, twice);
}

// A __device__-only operator (not only the map) is refused by cpu too.
float device_operator_sum(prism::span<const float> x, prism::impl which) {
  auto plus = [] __device__(float a, float b) -> float { return a + b; };
  return prism::transform_reduce(prism::par.with(which), x, 0.0f, plus, prism::functors::cast_to<float>{});
}

class TransformReduce : public ::testing::TestWithParam<prism::impl> {};

TEST_P(TransformReduce, UserFunctor) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto x = random_vector<float>(100003, fresh_seed());
  placed_array<float> dx(x, memory_of(GetParam()), 1);
  const double got = prism::transform_reduce(prism::par.with(GetParam()), dx.view(), 0.0,
                                             prism::functors::plus<double>{}, squared_distance{0.25f});
  double want = 0;
  for (float v : x) want += (double(v) - 0.25) * (double(v) - 0.25);
  EXPECT_TRUE(close(got, want, 1e3));
  // Into device memory (host memory for cpu), asynchronously.
  placed_array<double> result(std::vector<double>{poison<double>()}, memory_of(GetParam()));
  prism::transform_reduce(prism::par.with(GetParam()), dx.view(), result.view(), 0.0,
                          prism::functors::plus<double>{}, squared_distance{0.25f});
  EXPECT_EQ(result.values()[0], got);
}

TEST_P(TransformReduce, IndexedUserType) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  auto x = random_vector<float>(4099, fresh_seed());
  for (float& v : x) v = std::abs(v);
  placed_array<float> dx(x, memory_of(GetParam()));
  const weighted got = prism::transform_reduce(prism::par.with(GetParam()), dx.view(),
                                               weighted{-1.0, 0}, heavier{}, prism::indexed(weigh{}));
  weighted want{-1.0, 0};
  for (std::size_t i = 0; i < x.size(); ++i) want = heavier{}(want, weigh{}(std::int64_t(i), x[i]));
  EXPECT_EQ(got.at, want.at);
  EXPECT_EQ(got.value, want.value);
}

TEST_P(TransformReduce, ThreeInputsOfThreeTypes) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const std::size_t n = 1027;
  const auto a = random_vector<float>(n, fresh_seed());
  const auto b = random_vector<double>(n, fresh_seed());
  std::vector<std::int32_t> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<std::int32_t>(i % 7) - 3;
  placed_array<float> da(a, where);
  placed_array<double> db(b, where);
  placed_array<std::int32_t> dc(c, where);
  double want = 0;
  for (std::size_t i = 0; i < n; ++i) want += double(a[i]) * b[i] * c[i];
  EXPECT_NEAR(sum_of_products(da.view(), db.view(), dc.view(), GetParam()), want, 1e-9 * n);
}

TEST_P(TransformReduce, DeviceLambda) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  std::vector<float> x(1000, 0.5f);
  placed_array<float> dx(x, memory_of(GetParam()));
  if (GetParam() == prism::impl::cpu) {
    EXPECT_THROW(device_lambda_sum(dx.view(), GetParam()), std::invalid_argument);
    EXPECT_THROW(device_operator_sum(dx.view(), GetParam()), std::invalid_argument);
  } else {
    EXPECT_EQ(device_lambda_sum(dx.view(), GetParam()), 1000.0f);
    EXPECT_EQ(device_operator_sum(dx.view(), GetParam()), 500.0f);
  }
}

// Accumulators of any trivially copyable type, smaller than a word included: a bool (is any
// element negative?) and a 16-bit count that wraps.
struct is_negative {
  __host__ __device__ bool operator()(float x) const { return x < 0; }
};
struct either {
  __host__ __device__ bool operator()(bool a, bool b) const { return a || b; }
};
struct one {
  __host__ __device__ std::uint16_t operator()(float) const { return 1; }
};
struct add16 {
  __host__ __device__ std::uint16_t operator()(std::uint16_t a, std::uint16_t b) const {
    return static_cast<std::uint16_t>(a + b);
  }
};

TEST_P(TransformReduce, SmallAccumulators) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  std::vector<float> x(70001, 1.0f);
  placed_array<float> all_positive(x, memory_of(GetParam()));
  x[69999] = -1.0f;
  placed_array<float> one_negative(x, memory_of(GetParam()));
  const auto policy = prism::par.with(GetParam());
  EXPECT_FALSE(prism::transform_reduce(policy, all_positive.view(), false, either{}, is_negative{}));
  EXPECT_TRUE(prism::transform_reduce(policy, one_negative.view(), false, either{}, is_negative{}));
  EXPECT_EQ(prism::transform_reduce(policy, all_positive.view(), std::uint16_t{0}, add16{}, one{}),
            static_cast<std::uint16_t>(70001));
}

// Operators without an identity, and inits that are not one: init is combined once, and no
// partial starts from an identity.
//
// a + b + 1: n elements and init combine in n operations, so the result is init + sum + n
// exactly; an identity-seeded partial (0) would add one more per partial, an init used per
// partial its value again.
struct plus_one {
  __host__ __device__ std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a + b + 1; }
};
// Thrust's summary_statistics: (count, mean, M2) with Chan's combine, unguarded. Its "identity"
// (count 0) combined with itself is 0/0: NaN.
struct stats {
  double count, mean, m2;
};
struct one_stats {
  __host__ __device__ stats operator()(float x) const { return {1.0, double(x), 0.0}; }
};
struct combine_stats {
  __host__ __device__ stats operator()(const stats& a, const stats& b) const {
    const double count = a.count + b.count;
    const double delta = b.mean - a.mean;
    return {count, a.mean + delta * b.count / count, a.m2 + b.m2 + delta * delta * a.count * b.count / count};
  }
};

TEST_P(TransformReduce, InitOnceNoIdentity) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto policy = prism::par.with(GetParam());
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4099}, std::size_t{1000003}}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    const auto x = random_vector<std::int32_t>(n, seed);
    placed_array<std::int32_t> dx(x, memory_of(GetParam()), n % 3);
    std::int64_t sum = 0;
    for (auto v : x) sum += v;
    const std::int64_t want = 10 + sum + std::int64_t(n);
    EXPECT_EQ(prism::transform_reduce(policy, dx.view(), std::int64_t{10}, plus_one{},
                                      prism::functors::cast_to<std::int64_t>{}),
              want);
    EXPECT_EQ(prism::reduce(policy, dx.view(), std::int64_t{10}, plus_one{}), want);
    std::vector<std::int64_t> host(1, -1);
    placed_array<std::int64_t> result(host, memory_of(GetParam()));
    prism::reduce(policy, dx.view(), result.view(), std::int64_t{10}, plus_one{});
    if (memory_of(GetParam()) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    EXPECT_EQ(result.values()[0], want);

    const auto f = random_vector<float>(n, seed + 1);
    placed_array<float> df(f, memory_of(GetParam()), n % 2);
    const stats got = prism::transform_reduce(policy, df.view(), stats{0, 0, 0}, combine_stats{}, one_stats{});
    double mean = 0, m2 = 0;
    for (float v : f) mean += v;
    mean = n ? mean / double(n) : 0.0;
    for (float v : f) m2 += (v - mean) * (v - mean);
    EXPECT_EQ(got.count, double(n));
    EXPECT_NEAR(got.mean, mean, 1e-9 * (1 + std::abs(mean)));
    EXPECT_NEAR(got.m2, m2, 1e-9 * (1 + m2));
  }
}

// Without a policy: automatic, on host memory cpu.
TEST(ReduceWithoutPolicy, HostVectors) {
  const std::vector<std::int32_t> x = {1, 2, 3, 4};
  EXPECT_EQ(prism::reduce(x, std::int64_t{10}, plus_one{}), 10 + 10 + 4);
  EXPECT_EQ(prism::reduce(x, 10), 20);
  EXPECT_EQ(prism::transform_reduce(x, std::int64_t{10}, plus_one{}, prism::functors::cast_to<std::int64_t>{}), 24);
}

INSTANTIATE_TEST_SUITE_P(, TransformReduce,
                         ::testing::ValuesIn(std::begin(prism::reduce_implementations),
                                             std::end(prism::reduce_implementations)),
                         impl_name);

}  // namespace
