// SPDX-License-Identifier: Apache-2.0
// The sort family's generic layer (<prism/sort.cuh>) from CUDA code: the caller's own element
// types and comparators, through every implementation. Records compared by one field only check
// stability (their other field is their input position); a 24-byte record takes the raw merge
// sort's smaller tiles; a __device__ lambda runs on the GPU and is refused on the cpu.
#include <prism/sort.cuh>

#include "testing.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

struct record {
  std::int32_t key;
  std::uint32_t position;
  friend bool operator==(const record&, const record&) = default;
};
struct by_key {
  __host__ __device__ bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};
struct by_key_descending {
  __host__ __device__ bool operator()(const record& a, const record& b) const { return a.key > b.key; }
};

// 24 bytes: 4 per thread in the raw merge sort's tiles.
struct wide {
  double weight;
  std::uint64_t position;
  std::uint64_t padding;
  friend bool operator==(const wide&, const wide&) = default;
};
struct by_weight {
  __host__ __device__ bool operator()(const wide& a, const wide& b) const { return a.weight < b.weight; }
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

std::vector<record> records(std::size_t n, int distinct, std::uint64_t seed) {
  std::vector<record> r(n);
  for (std::size_t i = 0; i < n; ++i)
    r[i] = {static_cast<std::int32_t>(mix(seed ^ mix(i)) % static_cast<std::uint64_t>(distinct)) - distinct / 2,
            static_cast<std::uint32_t>(i)};
  return r;
}

class GenericSort : public ::testing::TestWithParam<impl> {};

const std::size_t sizes[] = {0, 1, 3, 1000, 2047, 2048, 2049, large(100003), large((1 << 20) + 1)};

TEST_P(GenericSort, StableWithTheCallersComparator) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : sizes) {
    for (int distinct : {3, 1000, 1 << 30}) {
      for (bool in_place : {false, true}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "n " << n << ", " << distinct << " distinct keys"
                                          << (in_place ? ", in place" : "") << ", seed " << seed);
        const auto in = records(n, distinct, seed);
        placed<record> x(in, which);
        placed<record> out(std::vector<record>(n, record{-7, 0xFFFFFFFFu}), which);
        if (in_place) {
          prism::sort(prism::par.with(which), x.view(), by_key_descending{});
        } else {
          prism::sort(prism::par.with(which), x.view(), out.view(), by_key{});
        }
        synchronize(which);
        auto want = in;
        if (in_place) {
          std::stable_sort(want.begin(), want.end(), by_key_descending{});
        } else {
          std::stable_sort(want.begin(), want.end(), by_key{});
        }
        ASSERT_EQ(in_place ? x.values() : out.values(), want);
        if (!in_place) {
          ASSERT_EQ(x.values(), in) << "the input changed";
        }
      }
    }
  }
}

TEST_P(GenericSort, WideElements) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{5}, std::size_t{1025}, std::size_t{300007}}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    std::vector<wide> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = {static_cast<double>(mix(seed + i) % 5000) * 0.5, i, 0};
    placed<wide> x(in, which);
    placed<wide> out(std::vector<wide>(n, wide{-1, 0, 1}), which);
    prism::sort(prism::par.with(which), x.view(), out.view(), by_weight{});
    synchronize(which);
    auto want = in;
    std::stable_sort(want.begin(), want.end(), by_weight{});
    ASSERT_EQ(out.values(), want);
  }
}

// A __device__ lambda: sorted on the GPU, refused on the cpu.
TEST_P(GenericSort, DeviceLambda) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto in = records(5000, 50, fresh_seed());
  placed<record> x(in, which);
  const auto descending = [] __device__(const record& a, const record& b) { return a.key > b.key; };
  if (which == impl::cpu) {
    EXPECT_THROW(prism::sort(prism::par.with(which), x.view(), descending), std::invalid_argument);
    EXPECT_EQ(x.values(), in);
    return;
  }
  prism::sort(prism::par.with(which), x.view(), descending);
  synchronize(which);
  auto want = in;
  std::stable_sort(want.begin(), want.end(), by_key_descending{});
  EXPECT_EQ(x.values(), want);
}

// Extended lambdas cannot live in a TEST's body (a private member function): this one holds it.
void sort_descending_by_lambda(impl which, prism::span<const record> in, prism::span<record> out) {
  const auto descending = [] __device__(const record& a, const record& b) { return a.key > b.key; };
  prism::sort(prism::par.with(which), in, out, descending);
}

// Out of place, a __device__ lambda on the cpu (and automatic on host memory, which runs cpu) is
// refused before the output is touched.
TEST(GenericSortRefusal, DeviceLambdaOnTheCpuLeavesTheOutput) {
  const auto in = records(5000, 50, fresh_seed());
  const std::vector<record> poisoned(in.size(), record{-7, 7});
  for (impl which : {impl::cpu, impl::automatic}) {
    SCOPED_TRACE(prism::name(which));
    std::vector<record> out = poisoned;
    EXPECT_THROW(sort_descending_by_lambda(which, in, out), std::invalid_argument);
    EXPECT_EQ(out, poisoned);
  }
}

TEST_P(GenericSort, OverlapRefused) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto in = records(64, 10, fresh_seed());
  placed<record> x(in, which);
  EXPECT_THROW(prism::sort(prism::par.with(which), x.view().subspan(0, 32), x.view().subspan(1, 32), by_key{}),
               std::invalid_argument);
  EXPECT_EQ(x.values(), in);
}

INSTANTIATE_TEST_SUITE_P(, GenericSort,
                         ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                             std::end(prism::sort_implementations)),
                         impl_name);

}  // namespace
