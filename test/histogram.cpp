// SPDX-License-Identifier: Apache-2.0
// The histogram family against a host count, in every registered implementation and every stage
// of its lesson, and the conformance kit. Plain C++: the same calls a consumer of the compiled
// library makes.
//
// The reference counts by the rule the header states, by another route than the library's: for
// float and double samples it lists every edge with prism::histogram_edge and finds each sample's
// bin by binary search over them (the library guesses and settles); for integer samples it divides
// in 128-bit integers (the library multiplies and compares). Counts are compared exactly.
#include <prism/histogram.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace prism::testing;
using prism::histogram_level_t;
using prism::impl;


using sample_types = types<std::uint8_t, std::int32_t, float, double>;
using counter_types = types<std::uint32_t, std::uint64_t>;

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// ---- the reference --------------------------------------------------------------------------------

template <class T>
std::vector<std::uint64_t> reference_even(const std::vector<T>& x, histogram_level_t<T> lo, histogram_level_t<T> hi,
                                          std::size_t bins) {
  std::vector<std::uint64_t> counts(bins, 0);
  if constexpr (std::is_floating_point_v<T>) {
    std::vector<T> edges(bins + 1);
    for (std::size_t k = 0; k <= bins; ++k) edges[k] = prism::histogram_edge<T>(lo, hi, bins, k);
    for (T v : x) {
      if (!(v >= lo && v < hi)) continue;
      const auto k = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
      ++counts[k];
    }
  } else {
    const auto range = static_cast<unsigned __int128>(hi - lo);
    for (T v : x) {
      const auto s = static_cast<std::int64_t>(v);
      if (s < lo || s >= hi) continue;
      ++counts[static_cast<std::size_t>(static_cast<unsigned __int128>(s - lo) * bins / range)];
    }
  }
  return counts;
}

template <class T>
std::vector<std::uint64_t> reference_edges(const std::vector<T>& x, const std::vector<histogram_level_t<T>>& edges) {
  std::vector<std::uint64_t> counts(edges.size() - 1, 0);
  for (T v : x) {
    const auto s = static_cast<histogram_level_t<T>>(v);
    if (!(s >= edges.front() && s < edges.back())) continue;
    ++counts[static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), s) - edges.begin()) - 1];
  }
  return counts;
}

// got (uint32 counts wrap modulo 2^32) against want, exactly.
template <class C>
::testing::AssertionResult counts_match(const std::vector<C>& got, const std::vector<std::uint64_t>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size();
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (got[k] != static_cast<C>(want[k])) {
      return ::testing::AssertionFailure() << "bin " << k << ": got " << +got[k] << ", want " << want[k];
    }
  }
  return ::testing::AssertionSuccess();
}

// Random samples, some of them outside the bins chosen below: floats in [-1, 1), int32 in
// [-2^30, 2^30), bytes.
template <class T>
std::vector<T> random_samples(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(mix(seed ^ mix(i)) >> 56);
    return v;
  } else {
    return random_vector<T>(n, seed);
  }
}

// Bins that leave samples outside on both sides.
template <class T>
std::pair<histogram_level_t<T>, histogram_level_t<T>> partial_range() {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return {10, 250};
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return {-(std::int64_t{1} << 29), (std::int64_t{1} << 30) - 12345};
  } else {
    return {T(-0.75), T(0.5)};
  }
}

// One call with samples `x` (placed `offset` elements past an aligned allocation) into poisoned
// counts, against the reference.
template <class T, class C>
void check_even(impl which, const std::vector<T>& x, histogram_level_t<T> lo, histogram_level_t<T> hi,
                std::size_t bins, std::size_t offset = 0) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " samples, " << type_name<C>() << " counts, n " << x.size()
                                    << ", bins " << bins << " over [" << +lo << ", " << +hi << "), offset " << offset);
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<C> counts(std::vector<C>(bins, poison<C>()), memory_of(which));
  prism::histogram(prism::par.with(which), dx.view(), counts.view(), lo, hi);
  synchronize(which);
  EXPECT_TRUE(counts_match(counts.values(), reference_even(x, lo, hi, bins)));
  const std::vector<T> after = dx.values();  // compared bit for bit: NaN samples equal nothing
  EXPECT_TRUE(same_bits(after, x)) << "the samples changed";
}

class Histogram : public ::testing::TestWithParam<impl> {
 protected:
  void SetUp() override {
    if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  }
};

// ---- equal bins ---------------------------------------------------------------------------------

TEST_P(Histogram, EqualBinsMatchReference) {
  for_each_type(sample_types{}, [&]<class T>() {
    for_each_type(counter_types{}, [&]<class C>() {
      const auto [lo, hi] = partial_range<T>();
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1001}, std::size_t{4099},
                            large((1 << 20) + 1)}) {
        for (std::size_t bins : {1, 7, 256}) {
          const std::uint64_t seed = fresh_seed();
          SCOPED_TRACE(::testing::Message() << "seed " << seed);
          check_even<T, C>(GetParam(), random_samples<T>(n, seed), lo, hi, bins);
        }
      }
      check_even<T, C>(GetParam(), random_samples<T>(100003, fresh_seed()), lo, hi, 256, 1);  // misaligned
    });
  });
}

// Samples on the edges: lo (counted, bin 0), hi (not counted), every interior edge (the bin that
// starts there), the values next to each, NaN, +-inf, -0.0, denormals; bins whose edges are
// representable (4 over [0, 1)) and bins whose are not (10 over [0, 1), 3 over [-1, 1.5)).
TEST_P(Histogram, FloatEdgesExactly) {
  for_each_type(types<float, double>{}, [&]<class T>() {
    using limits = std::numeric_limits<T>;
    const struct {
      T lo, hi;
      std::size_t bins;
    } cases[] = {{0, 1, 4}, {0, 1, 10}, {-1, T(1.5), 3}, {T(-3.7), T(1e4), 1000}, {T(0.1), T(0.2), 65536}};
    for (const auto& c : cases) {
      std::vector<T> x = {c.lo, c.hi, limits::quiet_NaN(), limits::infinity(), -limits::infinity(), T(-0.0),
                          limits::denorm_min(), -limits::denorm_min(), std::nextafter(c.lo, T(-10)),
                          std::nextafter(c.hi, T(-10))};
      for (std::size_t k = 1; k < c.bins; ++k) {
        const T e = prism::histogram_edge<T>(c.lo, c.hi, c.bins, k);
        x.insert(x.end(), {e, std::nextafter(e, c.lo), std::nextafter(e, c.hi)});
      }
      // Many copies, so every GPU implementation takes its vector path too.
      std::vector<T> many;
      for (int r = 0; r < 40; ++r) many.insert(many.end(), x.begin(), x.end());
      check_even<T, std::uint32_t>(GetParam(), many, c.lo, c.hi, c.bins);
    }
  });
}

// The rule said out loud, for 4 bins over [0, 1): edges 0, 0.25, 0.5, 0.75, 1.
TEST_P(Histogram, StatedRule) {
  const std::vector<float> x = {0.0f,  -0.0f, 0.25f, 0.2499999f, 0.5f, 0.75f, 0.9999999f, 1.0f,
                                -1e-30f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  placed_array<float> dx(x, memory_of(GetParam()));
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(4, 99), memory_of(GetParam()));
  prism::histogram(prism::par.with(GetParam()), dx.view(), counts.view(), 0.0f, 1.0f);
  synchronize(GetParam());
  EXPECT_EQ(counts.values(), (std::vector<std::uint64_t>{3, 1, 1, 2}));
}

// Integers: every value of a byte; int32 at the ends of its range; bins that do not divide the
// range evenly.
TEST_P(Histogram, IntegerEdgesExactly) {
  std::vector<std::uint8_t> bytes;
  for (int r = 0; r < 50; ++r)
    for (int v = 0; v < 256; ++v) bytes.push_back(static_cast<std::uint8_t>(v));
  for (std::size_t bins : {1, 3, 7, 256, 300}) {
    check_even<std::uint8_t, std::uint32_t>(GetParam(), bytes, 0, 256, bins);
    check_even<std::uint8_t, std::uint32_t>(GetParam(), bytes, 5, 200, bins);
  }
  const std::int32_t low = std::numeric_limits<std::int32_t>::min(), high = std::numeric_limits<std::int32_t>::max();
  std::vector<std::int32_t> ints = {low, low + 1, -1, 0, 1, high - 1, high};
  const auto random = random_samples<std::int32_t>(5000, fresh_seed());
  ints.insert(ints.end(), random.begin(), random.end());
  for (std::size_t bins : {1, 3, 1000, 65536}) {
    check_even<std::int32_t, std::uint64_t>(GetParam(), ints, low, std::int64_t{high} + 1, bins);
    check_even<std::int32_t, std::uint64_t>(GetParam(), ints, -7, 13, bins);
  }
}

// Skewed data: every sample in one bin (atomics collide), and a normal distribution.
TEST_P(Histogram, SkewedData) {
  const std::size_t n = large((1 << 20) + 3);
  check_even<float, std::uint32_t>(GetParam(), std::vector<float>(n, 0.3f), 0.0f, 1.0f, 256);
  check_even<std::uint8_t, std::uint32_t>(GetParam(), std::vector<std::uint8_t>(n, 77), 0, 256, 256);
  std::mt19937_64 generator(fresh_seed());
  std::normal_distribution<float> normal(0.5f, 0.1f);
  std::vector<float> x(n);
  for (float& v : x) v = normal(generator);
  check_even<float, std::uint64_t>(GetParam(), x, 0.0f, 1.0f, 256);
  std::vector<double> y(x.begin(), x.end());
  check_even<double, std::uint32_t>(GetParam(), y, 0.0, 1.0, 100);
}

// Bins around what raw fits in shared memory (a copy per warp up to 1472, one copy up to 11776,
// global atomics beyond), and 65536; uint8 too (its table takes shared memory as well).
TEST_P(Histogram, ManyBins) {
  const auto x = random_samples<float>(large((1 << 20) + 1), fresh_seed());
  for (std::size_t bins : {1472, 1473, 1536, 11776, 11777, 12288, 65536}) {
    check_even<float, std::uint32_t>(GetParam(), x, -1.0f, 1.0f, bins);
  }
  const auto bytes = random_samples<std::uint8_t>(large((1 << 20) + 1), fresh_seed());
  for (std::size_t bins : {1472, 11776, 11777}) check_even<std::uint8_t, std::uint64_t>(GetParam(), bytes, 0, 256, bins);
  check_even<float, std::uint64_t>(GetParam(), std::vector<float>(100000, 0.5f), -1.0f, 1.0f, 65536);  // one bin
}

// The counts are overwritten: a second call gives the same counts, not twice them.
TEST_P(Histogram, CountsAreOverwritten) {
  const auto x = random_samples<float>(10007, fresh_seed());
  placed_array<float> dx(x, memory_of(GetParam()));
  placed_array<std::uint32_t> counts(std::vector<std::uint32_t>(64, 5), memory_of(GetParam()));
  for (int call = 0; call < 2; ++call) prism::histogram(prism::par.with(GetParam()), dx.view(), counts.view(), -1.0f, 1.0f);
  synchronize(GetParam());
  EXPECT_TRUE(counts_match(counts.values(), reference_even(x, -1.0f, 1.0f, 64)));
}

// ---- edges ----------------------------------------------------------------------------------------

template <class T, class C>
void check_edges(impl which, const std::vector<T>& x, const std::vector<histogram_level_t<T>>& edges) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " samples, " << type_name<C>() << " counts, n " << x.size()
                                    << ", " << edges.size() - 1 << " bins");
  placed_array<T> dx(x, memory_of(which), 1);
  placed_array<histogram_level_t<T>> de(edges, memory_of(which));
  placed_array<C> counts(std::vector<C>(edges.size() - 1, poison<C>()), memory_of(which));
  prism::histogram(prism::par.with(which), dx.view(), de.view(), counts.view());
  synchronize(which);
  EXPECT_TRUE(counts_match(counts.values(), reference_edges(x, edges)));
}

TEST_P(Histogram, EdgesMatchReference) {
  for_each_type(sample_types{}, [&]<class T>() {
    using L = histogram_level_t<T>;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    auto x = random_samples<T>(large((1 << 20) + 1), seed);
    for (std::size_t bins : {1, 5, 300, 5000}) {
      // Strictly increasing edges at random steps, covering part of the samples' range.
      std::vector<L> edges{std::is_same_v<T, std::uint8_t> ? L(3) : std::is_integral_v<T> ? L(-(1 << 29)) : L(-0.8)};
      const double step = (std::is_same_v<T, std::uint8_t> ? 240.0 : std::is_integral_v<T> ? 1.5e9 : 1.5) / bins;
      for (std::size_t k = 0; k < bins; ++k) {
        const double r = 0.5 + static_cast<double>(mix(seed + k) >> 11) * 0x1.0p-53;
        L next = static_cast<L>(static_cast<double>(edges.back()) + std::max(step * r, 1.0 / (1 << 20)));
        if (!(next > edges.back())) next = edges.back() + (std::is_integral_v<L> ? L(1) : L(1e-3));
        edges.push_back(next);
      }
      // Samples on the edges themselves.
      for (std::size_t k = 0; k < edges.size() && k < x.size(); ++k) x[k] = static_cast<T>(edges[k]);
      check_edges<T, std::uint32_t>(GetParam(), x, edges);
      check_edges<T, std::uint64_t>(GetParam(), x, edges);
    }
  });
  // NaN and infinities are not counted.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  check_edges<float, std::uint32_t>(GetParam(), {nan, inf, -inf, 0.0f, 1.0f, 2.0f, 3.0f}, {0.0f, 1.0f, 3.0f});
}

// ---- what is refused ------------------------------------------------------------------------------

TEST_P(Histogram, BadArgumentsRefusedAndNothingChanged) {
  const auto where = memory_of(GetParam());
  const auto policy = prism::par.with(GetParam());
  placed_array<float> x(random_samples<float>(100, fresh_seed()), where);
  placed_array<std::uint32_t> counts(std::vector<std::uint32_t>(10, 42), where);
  placed_array<std::uint32_t> none(std::vector<std::uint32_t>{}, where);
  const auto refused = [&](auto&& call, const char* words) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  refused([&] { prism::histogram(policy, x.view(), counts.view(), 1.0f, 1.0f); }, "lo must be less than hi");
  refused([&] { prism::histogram(policy, x.view(), counts.view(), 2.0f, 1.0f); }, "lo must be less than hi");
  refused([&] { prism::histogram(policy, x.view(), counts.view(), nan, 1.0f); }, "finite");
  refused([&] { prism::histogram(policy, x.view(), counts.view(), 0.0f, inf); }, "finite");
  refused([&] { prism::histogram(policy, x.view(), counts.view(), -3e38f, 3e38f); }, "hi - lo must be finite");
  refused([&] { prism::histogram(policy, x.view(), none.view(), 0.0f, 1.0f); }, "at least one bin");
  placed_array<std::uint8_t> bytes(std::vector<std::uint8_t>(10, 1), where);
  refused([&] { prism::histogram(policy, bytes.view(), counts.view(), 0, 257); }, "[0, 256]");
  refused([&] { prism::histogram(policy, bytes.view(), counts.view(), -1, 200); }, "[0, 256]");
  // The counts over the samples: exactly (in place) and partly.
  placed_array<float> both(std::vector<float>(10, 0.5f), where);
  const auto as_counts = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(both.view().data()), 10);
  refused([&] { prism::histogram(policy, both.view(), as_counts, 0.0f, 1.0f); }, "does not run in place");
  refused([&] { prism::histogram(policy, both.view().subspan(0, 5), as_counts.subspan(3, 4), 0.0f, 1.0f); }, "overlaps");
  // Edges: too few, the wrong number of counts.
  placed_array<float> one_edge(std::vector<float>{0.0f}, where);
  placed_array<float> edges(std::vector<float>{0.0f, 0.5f, 1.0f}, where);
  refused([&] { prism::histogram(policy, x.view(), one_edge.view(), none.view()); }, "at least two");
  refused([&] { prism::histogram(policy, x.view(), edges.view(), counts.view()); }, "the counts have 10 elements, expected 2");
  EXPECT_EQ(counts.values(), std::vector<std::uint32_t>(10, 42));
  EXPECT_EQ(both.values(), std::vector<float>(10, 0.5f));
}

// Host edges are checked: out of order or NaN is refused (device edges are the caller's promise).
TEST(HistogramEdges, CpuRefusesEdgesOutOfOrder) {
  const std::vector<float> x(100, 0.5f);
  std::vector<std::uint32_t> counts(3, 42);
  for (const auto& edges : {std::vector<float>{0, 1, 1, 2}, std::vector<float>{0, 2, 1, 3},
                            std::vector<float>{0, std::numeric_limits<float>::quiet_NaN(), 1, 3}}) {
    EXPECT_THROW(prism::histogram(prism::impl::cpu, x, edges, counts), std::invalid_argument);
  }
  EXPECT_EQ(counts, std::vector<std::uint32_t>(3, 42));
}

// The cpu implementation counts in parts of 2^24 samples (bounded host memory): two whole parts
// and a short one, the counts of the later parts added to the first's.
TEST(HistogramCpu, PartsAddUp) {
  for (const std::size_t n : {(std::size_t{2} << 24) + 4099, std::size_t{1} << 24}) {
    const auto x = random_samples<float>(n, fresh_seed());
    std::vector<std::uint32_t> counts(256, poison<std::uint32_t>());
    prism::histogram(prism::impl::cpu, x, counts, -0.75f, 0.5f);
    EXPECT_TRUE(counts_match(counts, reference_even(x, -0.75f, 0.5f, 256))) << "n " << n;
  }
}

// ---- past 2^32 samples ------------------------------------------------------------------------------

// 2^32 + 4099 bytes (4 GB) into 256 bins of uint64 counts and 100 bins of uint32 counts, checked
// against a count made on the host while the bytes were written.
inline std::uint8_t huge_byte(std::uint64_t i) { return static_cast<std::uint8_t>((i * 0x9E3779B97F4A7C15ull) >> 56); }

TEST_P(Histogram, HugeUint8Past2To32) {
  if (GetParam() == impl::cpu) GTEST_SKIP() << "GPU implementations only";
  const std::size_t n = (std::size_t{1} << 32) + 4099, chunk = std::size_t{1} << 26;
  prism::device_buffer<std::uint8_t> x(n);
  std::vector<std::uint64_t> per_value(256, 0);
  {
    std::vector<std::uint8_t> host(chunk);
    for (std::size_t start = 0; start < n; start += chunk) {
      const std::size_t m = std::min(chunk, n - start);
      for (std::size_t j = 0; j < m; ++j) ++per_value[host[j] = huge_byte(start + j)];
      prism::check(cudaMemcpy(x.data() + start, host.data(), m, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  prism::device_buffer<std::uint64_t> wide(256);
  prism::histogram(prism::par.with(GetParam()), x.view(), wide.view(), 0, 256);
  prism::device_buffer<std::uint32_t> narrow(100);
  prism::histogram(prism::par.with(GetParam()), x.view(), narrow.view(), 3, 250);
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  EXPECT_EQ(wide.to_host(), per_value);
  std::vector<std::uint64_t> want(100, 0);
  for (std::int64_t v = 3; v < 250; ++v) want[static_cast<std::size_t>((v - 3) * 100 / 247)] += per_value[v];
  EXPECT_TRUE(counts_match(narrow.to_host(), want));
}

// ---- the lesson: every stage against the same reference --------------------------------------------

class GpuHistogramLesson : public ::testing::TestWithParam<prism::histogram_stage> {};

TEST_P(GpuHistogramLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto run = [&](const std::vector<float>& x, std::size_t bins, std::size_t offset) {
    SCOPED_TRACE(::testing::Message() << "n " << x.size() << ", bins " << bins << ", offset " << offset);
    placed_array<float> dx(x, memory::device, offset);
    placed_array<std::uint32_t> counts(std::vector<std::uint32_t>(bins, poison<std::uint32_t>()), memory::device);
    prism::histogram(GetParam(), prism::par, dx.view(), counts.view(), -0.75f, 0.5f);
    synchronize(impl::raw);
    EXPECT_TRUE(counts_match(counts.values(), reference_even(x, -0.75f, 0.5f, bins)));
  };
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1001}, large((1 << 20) + 1), large((1 << 22) + 5)}) {
    for (std::size_t bins : {1, 256, 65536}) run(random_samples<float>(n, fresh_seed()), bins, n % 2);
  }
  run(std::vector<float>(large((1 << 20) + 1), 0.1f), 256, 0);
}

TEST_P(GpuHistogramLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<float> x(10, 0.5f);
  std::vector<std::uint32_t> counts(10);
  EXPECT_THROW(prism::histogram(GetParam(), prism::par, x, counts, 0.0f, 1.0f), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, GpuHistogramLesson, ::testing::ValuesIn(prism::histogram_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

// ---- the conformance kit, with 256 bins of float samples --------------------------------------------

struct histogram_float {
  using T = float;
  using R = std::uint32_t;
  static constexpr const char* name = "histogram";
  static constexpr std::size_t bins = 256;
  static std::span<const impl> implementations() { return prism::histogram_implementations; }
  static std::size_t output_size(std::size_t) { return bins; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<std::uint32_t> out) {
    prism::histogram(policy, x, out, -0.75f, 0.5f);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    const auto counts = reference_even(in, -0.75f, 0.5f, bins);
    return {counts.begin(), counts.end()};
  }
  static double tolerance(const std::vector<float>&) { return 0; }
  // Every implementation may be captured: nothing waits.
  static bool capturable(impl) { return true; }
  // The counts one element into the samples, exactly over them, and over the edges.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    return {
        [](const prism::execution_policy& p, std::byte* b) {
          prism::histogram(p, prism::span<float>(reinterpret_cast<float*>(b), 16),
                           prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 4), 8), 0.0f, 1.0f);
        },
        [](const prism::execution_policy& p, std::byte* b) {
          prism::histogram(p, prism::span<float>(reinterpret_cast<float*>(b), 16),
                           prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b), 16), 0.0f, 1.0f);
        },
        [](const prism::execution_policy& p, std::byte* b) {
          prism::histogram(p, prism::span<float>(reinterpret_cast<float*>(b + 128), 16),
                           prism::span<float>(reinterpret_cast<float*>(b), 9),
                           prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 16), 8));
        },
    };
  }
};

using histograms = ::testing::Types<histogram_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Histogram, Conformance, histograms);
INSTANTIATE_TYPED_TEST_SUITE_P(Histogram, GpuConformance, histograms);

std::vector<impl> with_automatic() {
  std::vector<impl> all(std::begin(prism::histogram_implementations), std::end(prism::histogram_implementations));
  all.push_back(impl::automatic);
  return all;
}
INSTANTIATE_TEST_SUITE_P(, Histogram, ::testing::ValuesIn(with_automatic()), impl_name);

}  // namespace
