// SPDX-License-Identifier: Apache-2.0
// The scan family's generic layer (<prism/scan.cuh>) from CUDA code: the caller's own value types,
// operators, predicates and equalities, through every implementation. A non-commutative operator
// on an 8-byte struct checks that every implementation keeps the order of the elements (and runs
// raw's look-back on its split tile states); equalities other than == take the CUB paths that
// compare with the caller's functor.
#include <prism/scan.cuh>

#include "testing.hpp"

#include <cstdint>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

// x -> a x + b over the integers modulo 2^32. Composition is associative and does not commute.
struct affine {
  std::uint32_t a, b;
  friend bool operator==(const affine&, const affine&) = default;
};
// `first`, then `second`.
struct then {
  __host__ __device__ affine operator()(const affine& first, const affine& second) const {
    return {second.a * first.a, second.a * first.b + second.b};
  }
};

// Keys equal when they are in the same decade; values combined by the larger.
struct same_decade {
  __host__ __device__ bool operator()(std::int32_t a, std::int32_t b) const { return a / 10 == b / 10; }
};
struct larger {
  __host__ __device__ std::int64_t operator()(std::int64_t a, std::int64_t b) const { return a < b ? b : a; }
};
struct positive {
  __host__ __device__ bool operator()(float s) const { return s > 0; }
};

// An array of any trivially copyable T where an implementation needs it.
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

template <class T>
std::vector<T> first(const std::vector<T>& v, std::size_t count) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count)};
}

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

class GenericScan : public ::testing::TestWithParam<impl> {};

TEST_P(GenericScan, NonCommutativeOperatorKeepsTheOrder) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{4097}, large((1 << 20) + 3)}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    std::vector<affine> x(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = {static_cast<std::uint32_t>(mix(seed + 2 * i)) | 1u, static_cast<std::uint32_t>(mix(seed + 2 * i + 1))};
    }
    std::vector<affine> inclusive(n), exclusive(n);
    affine running{1, 0};
    for (std::size_t i = 0; i < n; ++i) {
      exclusive[i] = running;
      running = then{}(running, x[i]);
      inclusive[i] = running;
    }
    placed<affine> dx(x, which), out(std::vector<affine>(n, affine{0, 0}), which);
    prism::inclusive_scan(prism::par.with(which), dx.view(), out.view(), then{});
    synchronize(which);
    EXPECT_TRUE(out.values() == inclusive) << "inclusive";
    prism::exclusive_scan(prism::par.with(which), dx.view(), out.view(), affine{1, 0}, then{});
    synchronize(which);
    EXPECT_TRUE(out.values() == exclusive) << "exclusive";
  }
}

TEST_P(GenericScan, OwnEqualityAndOperator) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 100003;
  std::vector<std::int32_t> keys(n);
  std::vector<std::int64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::int32_t>(i / 7);  // decades of 70 elements: runs under same_decade
    values[i] = static_cast<std::int64_t>(mix(i) % 1000) - 500;
  }
  // The references: runs of keys in the same decade.
  std::vector<std::int64_t> scanned(n);
  std::vector<std::int32_t> run_keys;
  std::vector<std::int64_t> run_max, run_first;
  std::vector<std::uint32_t> run_lengths;
  for (std::size_t i = 0; i < n; ++i) {
    const bool head = i == 0 || !same_decade{}(keys[i - 1], keys[i]);
    if (head) {
      run_keys.push_back(keys[i]);
      run_max.push_back(values[i]);
      run_first.push_back(values[i]);
      run_lengths.push_back(0);
    }
    run_max.back() = larger{}(run_max.back(), values[i]);
    ++run_lengths.back();
    scanned[i] = run_max.back();
  }
  const std::size_t runs = run_keys.size();
  placed<std::int32_t> dk(keys, which), keys_out(std::vector<std::int32_t>(n, -1), which);
  placed<std::int64_t> dv(values, which), out(std::vector<std::int64_t>(n, -1), which);
  placed<std::uint32_t> lengths(std::vector<std::uint32_t>(n, 0), which);
  const auto policy = prism::par.with(which);

  prism::inclusive_scan_by_key(policy, dk.view(), dv.view(), out.view(), larger{}, same_decade{});
  synchronize(which);
  EXPECT_TRUE(out.values() == scanned) << "inclusive_scan_by_key";

  ASSERT_EQ(prism::unique(policy, dk.view(), keys_out.view(), same_decade{}), runs);
  EXPECT_TRUE(first(keys_out.values(), runs) == run_keys);

  ASSERT_EQ(prism::unique_by_key(policy, dk.view(), dv.view(), keys_out.view(), out.view(), same_decade{}), runs);
  EXPECT_TRUE(first(out.values(), runs) == run_first);

  ASSERT_EQ(prism::run_length_encode(policy, dk.view(), keys_out.view(), lengths.view(), same_decade{}), runs);
  EXPECT_TRUE(first(lengths.values(), runs) == run_lengths);
  // Counts too narrow for a run of n elements are refused before anything is written, as the
  // compiled run_length_encode refuses them.
  placed<std::int8_t> narrow(std::vector<std::int8_t>(n, 7), which);
  EXPECT_THROW(prism::run_length_encode(policy, dk.view(), keys_out.view(), narrow.view(), same_decade{}),
               std::invalid_argument);
  synchronize(which);
  for (std::int8_t c : narrow.values()) EXPECT_EQ(c, 7);

  ASSERT_EQ(prism::reduce_by_key(policy, dk.view(), dv.view(), keys_out.view(), out.view(), larger{}, same_decade{}), runs);
  EXPECT_TRUE(first(keys_out.values(), runs) == run_keys);
  EXPECT_TRUE(first(out.values(), runs) == run_max);
}

TEST_P(GenericScan, PredicateOnAStencil) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 100003;
  const auto x = random_vector<std::int64_t>(n, fresh_seed());
  const auto stencil = random_vector<float>(n, fresh_seed());
  std::vector<std::int64_t> kept, others;
  for (std::size_t i = 0; i < n; ++i) (positive{}(stencil[i]) ? kept : others).push_back(x[i]);
  placed<std::int64_t> dx(x, which), out(std::vector<std::int64_t>(n, 0), which);
  placed<float> ds(stencil, which);
  placed<std::size_t> count(std::vector<std::size_t>{0}, which);
  const auto policy = prism::par.with(which);
  prism::compact_if(policy, dx.view(), ds.view(), out.view(), count.view(), positive{});
  synchronize(which);
  ASSERT_EQ(count.values()[0], kept.size());
  EXPECT_TRUE(first(out.values(), kept.size()) == kept);
  ASSERT_EQ(prism::partition_if(policy, dx.view(), ds.view(), out.view(), positive{}), kept.size());
  kept.insert(kept.end(), others.begin(), others.end());
  EXPECT_TRUE(out.values() == kept) << "partition_if: stable on both sides";
}

// Extended lambdas cannot live in a test body (a private member function): this one holds it.
// Thrust's shorter forms: plus by default, == by default, the one functor after the by-key arrays
// the equality; and no policy (automatic: cpu on host memory, the fastest GPU one on device memory).
TEST_P(GenericScan, ThrustShorterForms) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 30011;
  std::vector<std::int32_t> keys(n);
  std::vector<std::int64_t> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::int32_t>(i / 7);
    values[i] = static_cast<std::int64_t>(mix(i) % 1000) - 500;
  }
  std::vector<std::int64_t> exclusive(n), exclusive_by_key(n), exclusive_by_decade(n), inclusive_by_decade(n);
  std::vector<std::int32_t> decade_keys;
  std::vector<std::int64_t> decade_sums;
  std::int64_t total = 5, run = 0, decade = 0;
  for (std::size_t i = 0; i < n; ++i) {
    exclusive[i] = total;
    total += values[i];
    if (i == 0 || keys[i - 1] != keys[i]) run = 5;
    exclusive_by_key[i] = run;
    run += values[i];
    if (i == 0 || !same_decade{}(keys[i - 1], keys[i])) {
      decade = 5;
      decade_keys.push_back(keys[i]);
      decade_sums.push_back(0);
    }
    exclusive_by_decade[i] = decade;
    decade += values[i];
    inclusive_by_decade[i] = decade - 5;
    decade_sums.back() += values[i];
  }
  placed<std::int32_t> dk(keys, which), keys_out(std::vector<std::int32_t>(n, -1), which);
  placed<std::int64_t> dv(values, which), out(std::vector<std::int64_t>(n, -1), which);
  const auto policy = prism::par.with(which);

  prism::exclusive_scan(policy, dv.view(), out.view(), std::int64_t{5});
  synchronize(which);
  EXPECT_TRUE(out.values() == exclusive) << "exclusive_scan(x, out, init)";
  prism::exclusive_scan_by_key(policy, dk.view(), dv.view(), out.view(), std::int64_t{5});
  synchronize(which);
  EXPECT_TRUE(out.values() == exclusive_by_key) << "exclusive_scan_by_key(keys, x, out, init)";
  prism::exclusive_scan_by_key(policy, dk.view(), dv.view(), out.view(), std::int64_t{5}, same_decade{});
  synchronize(which);
  EXPECT_TRUE(out.values() == exclusive_by_decade) << "exclusive_scan_by_key(keys, x, out, init, eq)";
  prism::inclusive_scan_by_key(dk.view(), dv.view(), out.view(), same_decade{});  // no policy
  synchronize(which);
  EXPECT_TRUE(out.values() == inclusive_by_decade) << "inclusive_scan_by_key(keys, x, out, eq)";
  const std::size_t runs = decade_keys.size();
  ASSERT_EQ(prism::reduce_by_key(dk.view(), dv.view(), keys_out.view(), out.view(), same_decade{}), runs);
  EXPECT_TRUE(first(keys_out.values(), runs) == decade_keys);
  EXPECT_TRUE(first(out.values(), runs) == decade_sums);
}

std::size_t keep_positive(prism::span<const float> x, prism::span<float> out, impl which) {
  auto pred = [] __device__(float v) -> bool { return v > 0; };
  return prism::compact_if(prism::par.with(which), x, x, out, pred);
}

// A __device__ lambda runs on every GPU implementation and is refused by cpu.
TEST_P(GenericScan, DeviceLambda) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto x = random_vector<float>(4099, fresh_seed());
  placed<float> dx(x, which), out(std::vector<float>(x.size(), 0.0f), which);
  if (which == impl::cpu) {
    EXPECT_THROW(keep_positive(dx.view(), out.view(), which), std::invalid_argument);
    EXPECT_EQ(out.values(), std::vector<float>(x.size(), 0.0f)) << "a refused call wrote its output";
    return;
  }
  std::size_t want = 0;
  for (float v : x) want += v > 0;
  EXPECT_EQ(keep_positive(dx.view(), out.view(), which), want);
}

INSTANTIATE_TEST_SUITE_P(, GenericScan,
                         ::testing::ValuesIn(std::begin(prism::scan_implementations),
                                             std::end(prism::scan_implementations)),
                         impl_name);

}  // namespace
