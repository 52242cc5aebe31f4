// SPDX-License-Identifier: Apache-2.0
// Histograms of the integer samples beyond uint8 and int32: int8 (char among them), int16,
// uint16 and uint32, in equal bins and between edges, every implementation, against an exact
// reference (the bin computed in 128-bit integers), counts poisoned first.
#include <prism/histogram.hpp>

#include "testing.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

class HistogramTypes : public ::testing::TestWithParam<impl> {};

template <class T>
using level = prism::histogram_level_t<T>;

// floor((x - lo) * bins / (hi - lo)) for x in [lo, hi), exactly.
std::vector<std::uint64_t> reference_even(const std::vector<std::int64_t>& x, std::int64_t lo, std::int64_t hi,
                                          std::size_t bins) {
  std::vector<std::uint64_t> counts(bins, 0);
  for (std::int64_t v : x) {
    if (v < lo || v >= hi) continue;
    const auto k = static_cast<unsigned __int128>(v - lo) * bins / static_cast<unsigned __int128>(hi - lo);
    ++counts[static_cast<std::size_t>(k)];
  }
  return counts;
}

template <class T>
void check_samples(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " samples, n " << n << ", seed " << seed);
  using L = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;
  std::vector<T> x(n);
  std::vector<std::int64_t> wide(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(mix(seed ^ mix(i)));
    wide[i] = static_cast<L>(x[i]);
  }
  placed_array<T> dx(x, memory_of(which));
  const auto policy = prism::par.with(which);
  const std::int64_t full_lo = std::numeric_limits<L>::min(), full_hi = std::int64_t{std::numeric_limits<L>::max()} + 1;
  // The whole range, a part of it, bins that do not divide it.
  const std::int64_t span = full_hi - full_lo;
  struct levels {
    std::int64_t lo, hi;
    std::size_t bins;
  };
  for (const levels l : {levels{full_lo, full_hi, 256}, levels{full_lo + span / 3, full_hi - span / 5, 7},
                         levels{full_lo, full_hi, 1}, levels{-3 > full_lo ? -3 : full_lo, 100, 13}}) {
    SCOPED_TRACE(::testing::Message() << "[" << l.lo << ", " << l.hi << "), " << l.bins << " bins");
    placed_array<std::uint32_t> counts(std::vector<std::uint32_t>(l.bins, poison<std::uint32_t>()), memory_of(which));
    prism::histogram(policy, dx.view(), counts.view(), level<T>(l.lo), level<T>(l.hi));
    synchronize_for(which);
    const auto want = reference_even(wide, l.lo, l.hi, l.bins);
    const auto got = counts.values();
    for (std::size_t k = 0; k < l.bins; ++k) ASSERT_EQ(got[k], want[k]) << "bin " << k;
  }
  // Edges: bin k is [edges[k], edges[k + 1]).
  const std::vector<level<T>> edges{full_lo, full_lo + span / 4, full_lo + span / 2 + 1, full_hi - 7, full_hi};
  placed_array<level<T>> de(edges, memory_of(which));
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(edges.size() - 1, poison<std::uint64_t>()),
                                     memory_of(which));
  prism::histogram(policy, dx.view(), de.view(), counts.view());
  synchronize_for(which);
  std::vector<std::uint64_t> want(edges.size() - 1, 0);
  for (std::int64_t v : wide) {
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      if (edges[k] <= v && v < edges[k + 1]) ++want[k];
    }
  }
  EXPECT_EQ(counts.values(), want);
}

TEST_P(HistogramTypes, IntegerSamples) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{100003}}) {
    for_each_type(types<std::int8_t, std::int16_t, std::uint16_t, std::uint32_t, char>{},
                  [&]<class T>() { check_samples<T>(GetParam(), n); });
  }
}

// Levels outside the sample type's range are refused, the counts untouched.
TEST(HistogramTypesCpu, LevelsOutsideTheTypeRefused) {
  const std::vector<std::uint32_t> x{1, 2, 3};
  std::vector<std::uint32_t> counts(4, 99);
  EXPECT_THROW(prism::histogram(x, counts, std::int64_t{-1}, std::int64_t{10}), std::invalid_argument);
  EXPECT_THROW(prism::histogram(x, counts, std::int64_t{0}, (std::int64_t{1} << 32) + 1), std::invalid_argument);
  EXPECT_EQ(counts, std::vector<std::uint32_t>(4, 99));
  prism::histogram(x, counts, std::int64_t{0}, std::int64_t{1} << 32);
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{3, 0, 0, 0}));
}

INSTANTIATE_TEST_SUITE_P(, HistogramTypes,
                         ::testing::ValuesIn(std::begin(prism::histogram_implementations),
                                             std::end(prism::histogram_implementations)),
                         impl_name);

}  // namespace
