// SPDX-License-Identifier: Apache-2.0
// The generic layer with Thrust's iterators as inputs (<prism/iterators.cuh>) and gather_if with
// a caller's predicate (<prism/gather.cuh>), in every implementation each offers, against exact
// host references, outputs poisoned first.
#include <prism/gather.cuh>
#include <prism/iterators.cuh>

#include "testing.hpp"

#include <cuda/iterator>
#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

struct twice_plus_one {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return 2 * i + 1; }
};
struct square {
  __host__ __device__ double operator()(std::int64_t i) const { return double(i) * double(i); }
};
struct is_odd {
  __host__ __device__ bool operator()(std::int32_t s) const { return (s & 1) != 0; }
};

constexpr std::size_t sizes[] = {0, 1, 3, 1000, 1025, (1 << 16) + 1};

class IteratorInputs : public ::testing::TestWithParam<impl> {};

TEST_P(IteratorInputs, Transform) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : sizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    placed_array<std::int64_t> out(std::vector<std::int64_t>(n, poison<std::int64_t>()), memory_of(which));
    prism::transform(prism::par.with(which), thrust::make_counting_iterator<std::int64_t>(5), out.view(),
                     twice_plus_one{});
    synchronize_for(which);
    std::vector<std::int64_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 2 * (5 + std::int64_t(i)) + 1;
    EXPECT_EQ(out.values(), want);
  }
}

INSTANTIATE_TEST_SUITE_P(, IteratorInputs,
                         ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                             std::end(prism::elementwise_implementations)),
                         impl_name);

class IteratorReductions : public ::testing::TestWithParam<impl> {};

TEST_P(IteratorReductions, TransformReduceAndReduce) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto p = prism::par.with(which);
  for (std::size_t n : sizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const auto first = thrust::make_counting_iterator<std::int64_t>(0);
    // Squares up to 2^16 sum exactly in double.
    double want = 0;
    for (std::size_t i = 0; i < n; ++i) want += double(i) * double(i);
    EXPECT_EQ(prism::transform_reduce(p, first, first + n, 0.0, prism::functors::plus<double>{}, square{}), want);
    const auto ones = cuda::make_constant_iterator(std::int64_t{3});
    EXPECT_EQ(prism::reduce(p, ones, ones + n, std::int64_t{7}, prism::functors::plus<std::int64_t>{}),
              7 + 3 * std::int64_t(n));
    placed_array<double> result(std::vector<double>(1, -1.0), memory_of(which));
    prism::transform_reduce(p, first, first + n, result.view(), 0.0, prism::functors::plus<double>{}, square{});
    synchronize_for(which);
    EXPECT_EQ(result.values()[0], want);
  }
}

// A permutation iterator over an array: the reduction reads values[map[i]].
TEST_P(IteratorReductions, PermutationIterator) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 4099;
  const std::vector<std::int64_t> values = random_vector<std::int64_t>(n, fresh_seed());
  std::vector<std::int32_t> map(n);
  for (std::size_t i = 0; i < n; ++i) map[i] = std::int32_t((i * 7) % n);
  placed_array<std::int64_t> v(values, memory_of(which));
  placed_array<std::int32_t> m(map, memory_of(which));
  std::int64_t want = 0;
  for (std::size_t i = 0; i < n; ++i) want += values[map[i]];
  if (memory_of(which) == memory::device) {
    const auto first = thrust::make_permutation_iterator(thrust::device_pointer_cast(v.view().data()),
                                                         thrust::device_pointer_cast(m.view().data()));
    EXPECT_EQ(prism::reduce(prism::par.with(which), first, first + n, std::int64_t{0},
                            prism::functors::plus<std::int64_t>{}),
              want);
  } else {
    // A host pointer's iterator is of Thrust's host system: automatic runs cpu.
    const auto first = thrust::make_permutation_iterator(v.view().data(), m.view().data());
    EXPECT_EQ(prism::reduce(prism::par, first, first + n, std::int64_t{0}, prism::functors::plus<std::int64_t>{}),
              want);
  }
}

TEST_P(IteratorReductions, Scans) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : sizes) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    placed_array<std::int64_t> out(std::vector<std::int64_t>(n, poison<std::int64_t>()), memory_of(which));
    const auto ones = cuda::make_constant_iterator(std::int64_t{1});
    prism::inclusive_scan(prism::par.with(which), ones, out.view(), prism::functors::plus<std::int64_t>{});
    synchronize_for(which);
    std::vector<std::int64_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = std::int64_t(i) + 1;
    EXPECT_EQ(out.values(), want);
    const auto first = thrust::make_counting_iterator<std::int64_t>(0);
    prism::exclusive_scan(prism::par.with(which), first, out.view(), std::int64_t{10},
                          prism::functors::plus<std::int64_t>{});
    synchronize_for(which);
    for (std::size_t i = 0; i < n; ++i) want[i] = 10 + std::int64_t(i) * (std::int64_t(i) - 1) / 2;
    EXPECT_EQ(out.values(), want);
  }
}

// The iterator forms have no raw implementation: asked for, it is refused.
TEST(IteratorForms, RawIsRefused) {
  const auto first = thrust::make_counting_iterator<std::int64_t>(0);
  EXPECT_THROW(prism::transform_reduce(prism::par.with(impl::raw), first, first + 10, 0.0,
                                       prism::functors::plus<double>{}, square{}),
               std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, IteratorReductions, ::testing::Values(impl::cpu, impl::thrust, impl::cub, impl::automatic),
                         impl_name);

// gather_if with a caller's stencil type and predicate, as Thrust takes them.
TEST_P(IteratorInputs, GatherIfWithAPredicate) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 2049;
  const std::vector<float> values = random_vector<float>(n, fresh_seed());
  std::vector<std::int32_t> map(n), stencil(n);
  for (std::size_t i = 0; i < n; ++i) {
    map[i] = std::int32_t(n - 1 - i);
    stencil[i] = std::int32_t(mix(i) & 0xff);
  }
  placed_array<float> v(values, memory_of(which)), out(std::vector<float>(n, -2.0f), memory_of(which));
  placed_array<std::int32_t> m(map, memory_of(which)), s(stencil, memory_of(which));
  prism::gather_if(prism::par.with(which), m.view(), s.view(), v.view(), out.view(), is_odd{});
  std::vector<float> want(n, -2.0f);
  for (std::size_t i = 0; i < n; ++i)
    if (stencil[i] & 1) want[i] = values[map[i]];
  EXPECT_TRUE(same_bits(out.values(), want));
}

}  // namespace
