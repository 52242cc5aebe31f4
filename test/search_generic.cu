// SPDX-License-Identifier: Apache-2.0
// The search family's generic layer (<prism/search.cuh>) from CUDA code: the caller's element types
// and comparators, through every implementation. Records searched by their key with int32 queries
// (the comparator takes a record and a key either way round); a descending order; a __device__
// lambda runs on the GPU and is refused on the cpu.
#include <prism/search.cuh>

#include "testing.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::query_order;

struct record {
  std::int32_t key;
  std::uint32_t payload;
};
struct by_key {
  __host__ __device__ bool operator()(const record& a, std::int32_t k) const { return a.key < k; }
  __host__ __device__ bool operator()(std::int32_t k, const record& a) const { return k < a.key; }
};

template <class T>
struct placed {
  std::vector<T> host;
  prism::device_buffer<T> device;
  bool on_device;
  placed(const std::vector<T>& values, impl which) : host(values), on_device(memory_of(which) == memory::device) {
    if (on_device) device = prism::device_buffer<T>(std::span<const T>(values));
  }
  prism::span<T> view() { return on_device ? device.view() : prism::span<T>(host); }
  std::vector<T> values() const { return on_device ? device.to_host() : host; }
};

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

class SearchGeneric : public ::testing::TestWithParam<impl> {};

TEST_P(SearchGeneric, RecordsByKeyWithKeyQueries) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{2049}, large((1u << 20) + 1)}) {
    for (bool sorted_queries : {false, true}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "n " << n << (sorted_queries ? ", sorted queries" : "") << ", seed " << seed);
      std::vector<record> a(n);
      for (std::size_t i = 0; i < n; ++i) a[i] = {static_cast<std::int32_t>(mix(seed ^ i) % 5000) - 2500, 7u};
      std::sort(a.begin(), a.end(), [](const record& x, const record& y) { return x.key < y.key; });
      const std::size_t m = 4099;
      std::vector<std::int32_t> q(m);
      for (std::size_t i = 0; i < m; ++i) q[i] = static_cast<std::int32_t>(mix(seed + 1 + i) % 6000) - 3000;
      if (sorted_queries) std::sort(q.begin(), q.end());
      placed<record> sorted(a, which);
      placed<std::int32_t> queries(q, which);
      placed<std::int64_t> lower(std::vector<std::int64_t>(m, -1), which), upper(std::vector<std::int64_t>(m, -1), which);
      placed<std::uint8_t> found(std::vector<std::uint8_t>(m, 9), which);
      const auto policy = prism::par.with(which);
      const query_order order = sorted_queries ? query_order::sorted : query_order::any;
      prism::equal_range(policy, sorted.view(), queries.view(), lower.view(), upper.view(), by_key{}, order);
      prism::binary_search(policy, sorted.view(), queries.view(), found.view(), by_key{}, order);
      synchronize(which);
      const auto lo = lower.values(), hi = upper.values();
      const auto f = found.values();
      for (std::size_t i = 0; i < m; ++i) {
        const auto l = std::lower_bound(a.begin(), a.end(), q[i], by_key{}) - a.begin();
        const auto u = std::upper_bound(a.begin(), a.end(), q[i], by_key{}) - a.begin();
        ASSERT_EQ(lo[i], l) << "lower " << i;
        ASSERT_EQ(hi[i], u) << "upper " << i;
        ASSERT_EQ(f[i], l != u ? 1 : 0) << "found " << i;
      }
    }
  }
}

TEST_P(SearchGeneric, DescendingDoublesUint32Positions) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  auto a = random_vector<double>(100003, seed);
  std::sort(a.begin(), a.end(), std::greater<>());
  auto q = random_vector<double>(20001, seed + 1);
  for (std::size_t i = 0; i < q.size(); i += 3) q[i] = a[(i * 7) % a.size()];
  placed<double> sorted(a, which), queries(q, which);
  placed<std::uint32_t> lower(std::vector<std::uint32_t>(q.size(), ~0u), which);
  prism::lower_bound(prism::par.with(which), sorted.view(), queries.view(), lower.view(),
                     [] __host__ __device__(double x, double y) { return x > y; });
  synchronize(which);
  const auto got = lower.values();
  for (std::size_t i = 0; i < q.size(); ++i)
    ASSERT_EQ(got[i], std::lower_bound(a.begin(), a.end(), q[i], std::greater<>()) - a.begin()) << i;
}

TEST_P(SearchGeneric, DeviceLambdaRefusedOnTheCpu) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::int64_t> a = {1, 3, 3, 8}, q = {0, 3, 9, 8};
  placed<std::int64_t> sorted(a, which), queries(q, which);
  placed<std::int32_t> out(std::vector<std::int32_t>(q.size(), -1), which);
  const auto call = [&] {
    prism::upper_bound(prism::par.with(which), sorted.view(), queries.view(), out.view(),
                       [] __device__(std::int64_t x, std::int64_t y) { return x < y; });
  };
  if (which == impl::cpu) {
    EXPECT_THROW(call(), std::invalid_argument);
    EXPECT_EQ(out.values(), std::vector<std::int32_t>(q.size(), -1));
  } else {
    call();
    synchronize(which);
    EXPECT_EQ(out.values(), (std::vector<std::int32_t>{0, 3, 4, 4}));
  }
}

INSTANTIATE_TEST_SUITE_P(, SearchGeneric, ::testing::ValuesIn(std::begin(prism::search_implementations),
                                                              std::end(prism::search_implementations)),
                         impl_name);

}  // namespace
