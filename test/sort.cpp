// SPDX-License-Identifier: Apache-2.0
// The sort family against a host reference, in every registered implementation and every stage of
// its lesson, and the conformance kit. Plain C++: the same calls a consumer of the compiled library
// makes.
//
// The reference is std::stable_sort with a comparator written here from the documented order (NaNs
// by sign, -0.0 == +0.0, numbers by value), independently of the library's bit twiddling. Sorts are
// exact: results are compared bit for bit, so a -0.0 where a +0.0 belongs (stability among equal
// keys) fails, and so does any NaN out of place.
#include <prism/elementwise.hpp>
#include <prism/sort.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::sort_order;

using key_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

// ---- the reference order (sorts_before: test/testing.hpp) -----------------------------------------

// The stable permutation that sorts keys.
template <class T>
std::vector<std::size_t> reference_order(const std::vector<T>& keys, sort_order order) {
  std::vector<std::size_t> p(keys.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::stable_sort(p.begin(), p.end(), [&](std::size_t i, std::size_t j) {
    return order == sort_order::ascending ? sorts_before(keys[i], keys[j]) : sorts_before(keys[j], keys[i]);
  });
  return p;
}

template <class T>
std::vector<T> permuted(const std::vector<T>& v, const std::vector<std::size_t>& p) {
  std::vector<T> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = v[p[i]];
  return out;
}

// ---- inputs -------------------------------------------------------------------------------------------

enum class pattern { random, sorted, reversed, all_equal, few_distinct };
constexpr pattern patterns[] = {pattern::random, pattern::sorted, pattern::reversed, pattern::all_equal,
                                pattern::few_distinct};
constexpr const char* pattern_name(pattern p) {
  constexpr const char* names[] = {"random", "sorted", "reversed", "all equal", "few distinct"};
  return names[static_cast<int>(p)];
}

// Random keys over the whole range of the type (every sign, every exponent: bits at random, NaNs
// included for floats about 1 in 256 times), or shaped by `p`.
template <class T>
std::vector<T> keys_of(pattern p, std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto b = static_cast<decltype(element_bits(T{}))>(mix(seed ^ mix(i)));
    T x;
    std::memcpy(&x, &b, sizeof(T));
    if (p == pattern::few_distinct) x = static_cast<T>(static_cast<int>(mix(seed + i) % 7) - 3);
    if (p == pattern::all_equal) x = static_cast<T>(5);
    v[i] = x;
  }
  if (p == pattern::sorted || p == pattern::reversed) {
    std::stable_sort(v.begin(), v.end(), [](T a, T b) { return sorts_before(a, b); });
    if (p == pattern::reversed) std::reverse(v.begin(), v.end());
  }
  return v;
}

// Every special float value, each several times, among random numbers of both signs.
template <class T>
std::vector<T> specials(std::size_t n, std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  const T special[] = {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity(), T(0), -T(0),
                       L::denorm_min(), -L::denorm_min(), L::min() / 4, -L::min() / 4, L::min(), -L::min(),
                       L::max(), L::lowest(), T(1), T(-1)};
  std::vector<T> v = random_vector<T>(n, seed);
  for (std::size_t i = 0; i < n; i += 3) v[i] = special[mix(seed + i) % std::size(special)];
  return v;
}

// ---- sort ------------------------------------------------------------------------------------------------

class Sort : public ::testing::TestWithParam<impl> {};

template <class T>
void check_sort(impl which, const std::vector<T>& keys, sort_order order, bool in_place, std::size_t offset,
                const char* what) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << what << ", n " << keys.size() << ", "
                                    << prism::name(order) << (in_place ? ", in place" : "") << ", offset " << offset);
  placed_array<T> x(keys, memory_of(which), offset);
  placed_array<T> out(std::vector<T>(keys.size(), poison<T>()), memory_of(which), offset);
  const auto policy = prism::par.with(which);
  if (in_place) {
    prism::sort(policy, x.view(), order);
  } else {
    prism::sort(policy, x.view(), out.view(), order);
  }
  synchronize_for(which);
  const auto want = permuted(keys, reference_order(keys, order));
  ASSERT_TRUE(same_bits(in_place ? x.values() : out.values(), want));
  if (!in_place) {
    ASSERT_TRUE(same_bits(x.values(), keys)) << "the input changed";
  }
}

const std::size_t test_sizes[] = {0, 1, 3, 1000, 4099, 12289};

TEST_P(Sort, EveryTypePatternAndOrder) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class T>() {
    for (pattern p : patterns) {
      for (std::size_t n : test_sizes) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "seed " << seed);
        const auto keys = keys_of<T>(p, n, seed);
        for (sort_order order : {sort_order::ascending, sort_order::descending})
          check_sort<T>(GetParam(), keys, order, false, 0, pattern_name(p));
      }
    }
  });
}

// Past 2^20 keys: several tiles, and (raw) many look-back steps; in place and misaligned too.
TEST_P(Sort, LargeInPlaceAndMisaligned) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::uint32_t, std::int64_t, double>{}, [&]<class T>() {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const auto keys = keys_of<T>(pattern::random, large((1u << 20) + 7), seed);
    check_sort<T>(GetParam(), keys, sort_order::ascending, false, 1, "random");
    check_sort<T>(GetParam(), keys, sort_order::descending, true, 0, "random");
    const auto few = keys_of<T>(pattern::few_distinct, large((1u << 21) + 1), seed);
    check_sort<T>(GetParam(), few, sort_order::ascending, true, 1, "few distinct");
  });
}

TEST_P(Sort, FloatSpecialValues) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double>{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{17}, std::size_t{5000}, std::size_t{100003}}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed);
      const auto keys = specials<T>(n, seed);
      for (sort_order order : {sort_order::ascending, sort_order::descending}) {
        check_sort<T>(GetParam(), keys, order, false, 0, "specials");
        check_sort<T>(GetParam(), keys, order, true, 1, "specials");
      }
    }
  });
}

// The documented order, spelled out on a handful of values.
TEST_P(Sort, FloatOrderAsDocumented) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  using L = std::numeric_limits<float>;
  const std::vector<float> keys = {L::quiet_NaN(), 1.0f, -0.0f, L::infinity(), 0.0f, -L::quiet_NaN(), -L::infinity(),
                                   L::denorm_min(), -0.0f, -1.0f};
  placed_array<float> x(keys, memory_of(GetParam()));
  prism::sort(prism::par.with(GetParam()), x.view());
  synchronize_for(GetParam());
  const std::vector<float> want = {-L::quiet_NaN(), -L::infinity(), -1.0f, -0.0f, 0.0f, -0.0f, L::denorm_min(),
                                   1.0f, L::infinity(), L::quiet_NaN()};
  EXPECT_TRUE(same_bits(x.values(), want));
}

// ---- sort by key, argsort ------------------------------------------------------------------------------

// Values are the input positions (as V): a stable sort gives the reference permutation itself.
template <class K, class V>
void check_pairs(impl which, const std::vector<K>& keys, sort_order order, bool in_place) {
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << sizeof(V) << "-byte values, n " << keys.size()
                                    << ", " << prism::name(order) << (in_place ? ", in place" : ""));
  std::vector<V> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) values[i] = static_cast<V>(i);
  placed_array<K> k(keys, memory_of(which));
  placed_array<V> v(values, memory_of(which));
  placed_array<K> ko(std::vector<K>(keys.size(), poison<K>()), memory_of(which));
  placed_array<V> vo(std::vector<V>(keys.size(), poison<V>()), memory_of(which));
  const auto policy = prism::par.with(which);
  if (in_place) {
    prism::sort_by_key(policy, k.view(), v.view(), order);
  } else {
    prism::sort_by_key(policy, k.view(), v.view(), ko.view(), vo.view(), order);
  }
  synchronize_for(which);
  const auto p = reference_order(keys, order);
  ASSERT_TRUE(same_bits(in_place ? k.values() : ko.values(), permuted(keys, p)));
  ASSERT_TRUE(same_bits(in_place ? v.values() : vo.values(), permuted(values, p)));
}

template <class K, class I>
void check_argsort(impl which, const std::vector<K>& keys, sort_order order) {
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << type_name<I>() << " indices, n " << keys.size()
                                    << ", " << prism::name(order));
  placed_array<K> k(keys, memory_of(which));
  placed_array<I> idx(std::vector<I>(keys.size(), I(-1)), memory_of(which));
  prism::argsort(prism::par.with(which), k.view(), idx.view(), order);
  synchronize_for(which);
  const auto got = idx.values();
  const auto p = reference_order(keys, order);
  std::vector<std::size_t> as_positions(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_GE(got[i], I(0));
    ASSERT_LT(static_cast<std::size_t>(got[i]), keys.size());
    as_positions[i] = static_cast<std::size_t>(got[i]);
  }
  // Applied to the keys, the permutation sorts them; and it is the stable one.
  ASSERT_TRUE(same_bits(permuted(keys, as_positions), permuted(keys, p)));
  ASSERT_EQ(as_positions, p);
  ASSERT_TRUE(same_bits(k.values(), keys)) << "the keys changed";
}

class SortByKey : public ::testing::TestWithParam<impl> {};

TEST_P(SortByKey, StableWithEveryKeyAndValueSize) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{999}, std::size_t{8193}, large((1 << 20) + 3)}) {
      // Random keys fill every digit of every pass; few distinct ones make long runs of equal
      // keys, where stability shows.
      for (pattern p : {pattern::random, pattern::few_distinct}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
        const auto keys = keys_of<K>(p, n, seed);
        for (sort_order order : {sort_order::ascending, sort_order::descending}) {
          check_pairs<K, std::uint32_t>(GetParam(), keys, order, false);
          check_pairs<K, std::int64_t>(GetParam(), keys, order, order == sort_order::descending);
        }
      }
    }
  });
  // Values of other types move by their bits.
  const auto keys = keys_of<float>(pattern::few_distinct, 3001, fresh_seed());
  check_pairs<float, float>(GetParam(), keys, sort_order::ascending, false);
  check_pairs<float, double>(GetParam(), keys, sort_order::descending, true);
}

TEST_P(SortByKey, FloatSpecialsKeepTheirValuesInOrder) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double>{}, [&]<class K>() {
    const auto keys = specials<K>(20001, fresh_seed());
    for (sort_order order : {sort_order::ascending, sort_order::descending}) {
      check_pairs<K, std::uint32_t>(GetParam(), keys, order, false);
      check_argsort<K, std::int32_t>(GetParam(), keys, order);
    }
  });
}

TEST_P(SortByKey, ArgsortEveryKeyTypeBothIndexTypes) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    // Random keys fill every digit of every pass; few distinct ones leave long runs.
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}, large((1 << 20) + 1)}) {
      for (pattern p : {pattern::random, pattern::few_distinct}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
        const auto keys = keys_of<K>(p, n, seed);
        check_argsort<K, std::int32_t>(GetParam(), keys, sort_order::ascending);
        check_argsort<K, std::int64_t>(GetParam(), keys, sort_order::descending);
      }
    }
  });
}

// Overlaps other than an output being exactly its own input, and wrong sizes: refused, nothing
// changed.
TEST_P(SortByKey, BadArgumentsRefused) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const auto policy = prism::par.with(GetParam());
  const std::vector<std::uint32_t> init(64, 7u);
  placed_array<std::uint32_t> a(init, where), b(init, where);
  const auto x = a.view(), y = b.view();
  EXPECT_THROW(prism::sort(policy, x.subspan(0, 32), x.subspan(1, 32)), std::invalid_argument);
  EXPECT_THROW(prism::sort(policy, x.subspan(0, 32), y.subspan(0, 31)), std::invalid_argument);
  // keys_out is values_in: exact, but another array than its own input.
  EXPECT_THROW(prism::sort_by_key(policy, x.subspan(0, 16), y.subspan(0, 16), y.subspan(0, 16), x.subspan(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(prism::sort_by_key(policy, x.subspan(0, 16), y.subspan(0, 16), x.subspan(32, 16), x.subspan(32, 16)),
               std::invalid_argument);
  EXPECT_THROW(prism::sort_by_key(policy, x.subspan(0, 16), y.subspan(0, 15)), std::invalid_argument);
  const prism::span<std::int32_t> indices(reinterpret_cast<std::int32_t*>(x.data() + 8), 16);
  EXPECT_THROW(prism::argsort(policy, x.subspan(0, 16), indices), std::invalid_argument);
  synchronize_for(GetParam());
  EXPECT_EQ(a.values(), init);
  EXPECT_EQ(b.values(), init);
}

// argsort's indices exactly over the keys' bytes (int32 indices over float keys, int64 over
// double): refused, the keys left as they were (sort.hpp: the keys are not changed).
TEST_P(SortByKey, ArgsortIndicesOverTheKeysRefused) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const auto policy = prism::par.with(GetParam());
  const auto floats = random_vector<float>(1001, fresh_seed());
  const auto doubles = random_vector<double>(1001, fresh_seed());
  placed_array<float> f(floats, where);
  placed_array<double> d(doubles, where);
  const prism::span<std::int32_t> over_floats(reinterpret_cast<std::int32_t*>(f.view().data()), 1001);
  const prism::span<std::int64_t> over_doubles(reinterpret_cast<std::int64_t*>(d.view().data()), 1001);
  EXPECT_THROW(prism::argsort(policy, f.view(), over_floats), std::invalid_argument);
  EXPECT_THROW(prism::argsort(policy, d.view(), over_doubles), std::invalid_argument);
  synchronize_for(GetParam());
  EXPECT_TRUE(same_bits(f.values(), floats));
  EXPECT_TRUE(same_bits(d.values(), doubles));
}

// The lesson's stages count in 32 bits: every one, the last (onesweep) too, refuses 2^32 keys
// before reading any (16 GB of device memory, never written).
TEST(GpuSortLessonLimits, HugeEveryStageRefuses2To32Keys) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::size_t n = std::size_t{1} << 32;
  prism::device_buffer<std::uint32_t> keys(n);
  prism::check(cudaMemset(keys.data(), 0x5A, 4096), "cudaMemset");
  for (prism::sort_stage stage : prism::sort_lesson) {
    SCOPED_TRACE(std::string(prism::name(stage)));
    try {
      prism::sort(stage, prism::par, keys.view(), keys.view());
      ADD_FAILURE() << "2^32 keys accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("32 bits"), std::string::npos) << e.what();
    }
  }
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<std::uint32_t> head(1024);
  prism::check(cudaMemcpy(head.data(), keys.data(), 4096, cudaMemcpyDeviceToHost), "cudaMemcpy");
  EXPECT_EQ(head, std::vector<std::uint32_t>(1024, 0x5A5A5A5Au));
}

// int32 indices number at most 2^31 keys: more are refused before anything is read.
TEST(SortLimits, Int32IndicesRefusePast2To31) {
  std::vector<float> keys(1);
  std::vector<std::int32_t> indices(1);
  const std::size_t n = (std::size_t{1} << 31) + 1;
  try {
    prism::argsort(prism::par.with(impl::cpu), prism::span<const float>(keys.data(), n),
                   prism::span<std::int32_t>(indices.data(), n));
    ADD_FAILURE() << "accepted 2^31 + 1 keys with int32 indices";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2^31"), std::string::npos) << e.what();
  }
}

// ---- past 2^32 keys ----------------------------------------------------------------------------------------

// 2^32 + 4099 uint32 keys, in place (32 GB with the scratch): k * step modulo 2^32 for an odd step,
// so the first 2^32 keys are every uint32 once and the last 4099 repeat the first 4099. Checked
// chunk by chunk: non-decreasing, the right number of equal neighbours, the right sum.
TEST_P(Sort, HugeUint32Past2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  constexpr std::size_t extra = 4099, n = (std::size_t{1} << 32) + extra;
  constexpr std::int32_t step = -1640531535;  // 2654435761 as int32: odd
  prism::device_buffer<std::int32_t> x(n);
  prism::sequence(prism::par.with(impl::raw), x.view(), 12345, step);
  const prism::span<std::uint32_t> keys(reinterpret_cast<std::uint32_t*>(x.data()), n);
  prism::sort(prism::par.with(which), keys);
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::uint64_t want_sum = (std::uint64_t{1} << 32) * ((std::uint64_t{1} << 32) - 1) / 2;  // every uint32 once
  for (std::size_t k = 0; k < extra; ++k) want_sum += static_cast<std::uint32_t>(12345u + static_cast<std::uint32_t>(step) * k);
  constexpr std::size_t chunk = huge_chunk;
  std::vector<std::uint32_t> host(chunk);
  std::uint64_t sum = 0, equal_neighbours = 0;
  std::uint32_t previous = 0;
  for (std::size_t start = 0; start < n; start += chunk) {
    const std::size_t m = std::min(chunk, n - start);
    prism::check(cudaMemcpy(host.data(), keys.data() + start, m * sizeof(std::uint32_t), cudaMemcpyDeviceToHost),
                 "cudaMemcpy");
    for (std::size_t j = 0; j < m; ++j) {
      if (start + j > 0) {
        ASSERT_LE(previous, host[j]) << "element " << start + j;
        equal_neighbours += previous == host[j];
      }
      previous = host[j];
      sum += host[j];
    }
  }
  EXPECT_EQ(equal_neighbours, extra);
  EXPECT_EQ(sum, want_sum);
}

// ---- the lesson -----------------------------------------------------------------------------------------------

class GpuSortLesson : public ::testing::TestWithParam<prism::sort_stage> {};

TEST_P(GpuSortLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{256}, std::size_t{257}, std::size_t{1000},
                        std::size_t{4097}, large((1 << 20) + 1), large((1 << 22) + 5)}) {
    for (bool in_place : {false, true}) {
      for (pattern p : {pattern::random, pattern::few_distinct}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "n " << n << (in_place ? ", in place" : "") << ", " << pattern_name(p)
                                          << ", seed " << seed);
        const auto keys = keys_of<std::uint32_t>(p, n, seed);
        placed_array<std::uint32_t> x(keys, memory::device, in_place ? 0 : 1);
        placed_array<std::uint32_t> out(std::vector<std::uint32_t>(n, poison<std::uint32_t>()), memory::device);
        prism::sort(GetParam(), prism::par, x.view(), in_place ? x.view() : out.view());
        synchronize_for(impl::raw);
        auto want = keys;
        std::sort(want.begin(), want.end());
        ASSERT_EQ(in_place ? x.values() : out.values(), want);
      }
    }
  }
}

TEST_P(GpuSortLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::uint32_t> x(10, 1u);
  std::vector<std::uint32_t> out(10);
  EXPECT_THROW(prism::sort(GetParam(), prism::par, x, out), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, GpuSortLesson, ::testing::ValuesIn(prism::sort_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

// ---- the conformance kit, with the sort of floats ------------------------------------------------------------

struct sort_float {
  using T = float;
  using R = float;
  static constexpr const char* name = "sort";
  static std::span<const impl> implementations() { return prism::sort_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::sort(policy, x, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    std::vector<double> r(in.begin(), in.end());
    std::sort(r.begin(), r.end());
    return r;
  }
  static double tolerance(const std::vector<float>&) { return 0; }
  // Nothing waits in any GPU implementation.
  static bool capturable(impl) { return true; }
  // An output one element past the input; sort_by_key with the values' output over the keys'
  // bytes; argsort's indices over the keys.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    return {
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::sort(p, x.subspan(0, 15), x.subspan(1, 15));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto v = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 16);
          prism::sort_by_key(p, k, v, k, prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 32), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::argsort(p, k, prism::span<std::int64_t>(reinterpret_cast<std::int64_t*>(b + 32), 16));
        },
        // Exactly the same bytes as another array than the output's own input.
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::argsort(p, k, prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto v = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 16);
          prism::sort_by_key(p, k, v, prism::span<float>(reinterpret_cast<float*>(b + 128), 16),
                             prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 192), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto v = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 16);
          prism::sort_by_key(p, k, v, prism::span<float>(reinterpret_cast<float*>(b + 64), 16),
                             prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto v = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 16);
          prism::sort_by_key(p, k, v, prism::span<float>(reinterpret_cast<float*>(b + 192), 16),
                             prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 192), 16));
        },
    };
  }
};

using sorts = ::testing::Types<sort_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Sort, Conformance, sorts);
INSTANTIATE_TYPED_TEST_SUITE_P(Sort, GpuConformance, sorts);

INSTANTIATE_TEST_SUITE_P(, Sort, ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                                     std::end(prism::sort_implementations)),
                         impl_name);
INSTANTIATE_TEST_SUITE_P(, SortByKey, ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                                          std::end(prism::sort_implementations)),
                         impl_name);

}  // namespace
