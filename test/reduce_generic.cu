// SPDX-License-Identifier: Apache-2.0
// prism::transform_reduce from CUDA code: the caller's own functors, operators and value types,
// the element index, and several inputs, through every implementation of the generic layer.
#include <prism/reduce.cuh>

#include "testing.hpp"

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

INSTANTIATE_TEST_SUITE_P(, TransformReduce,
                         ::testing::ValuesIn(std::begin(prism::reduce_implementations),
                                             std::end(prism::reduce_implementations)),
                         impl_name);

}  // namespace
