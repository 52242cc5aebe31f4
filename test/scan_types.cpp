// SPDX-License-Identifier: Apache-2.0
// The scan family's small element types (int8, uint8, int16, uint16, char as int8) in scans,
// compact, partition, unique and run_length_encode; flags of every compiled width (bool, uint8,
// int32, uint32, int64, uint64); run_length_encode's counts in int32, uint32, int64 and uint64.
// Against exact host references (integer sums wrap in their type), outputs poisoned first, in
// every implementation.
#include <prism/scan.hpp>

#include "testing.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::scan_op;

class ScanTypes : public ::testing::TestWithParam<impl> {};

using small_types = types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, char>;
const std::size_t type_sizes[] = {0, 1, 3, 1000, 4099, 100003};

// char is int8 (whatever its sign on the host): what min and max compare.
template <class T>
using ordered = std::conditional_t<std::is_same_v<T, char>, std::int8_t, T>;

template <class T>
T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}

template <class T>
std::vector<T> reference_scan(const std::vector<T>& x, scan_op op, bool exclusive) {
  std::vector<T> out(x.size());
  using O = ordered<T>;
  const O identity = op == scan_op::min ? std::numeric_limits<O>::max() : std::numeric_limits<O>::lowest();
  T running = op == scan_op::sum ? T(0) : static_cast<T>(identity);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (exclusive) out[i] = running;
    const O a = static_cast<O>(running), b = static_cast<O>(x[i]);
    running = op == scan_op::sum ? wrapping_add(running, x[i])
                                 : static_cast<T>(op == scan_op::min ? std::min(a, b) : std::max(a, b));
    if (!exclusive) out[i] = running;
  }
  return out;
}

template <class T>
void check_small_scans(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  placed_array<T> dx(x, memory_of(which));
  const auto policy = prism::par.with(which);
  for (scan_op op : {scan_op::sum, scan_op::min, scan_op::max}) {
    for (bool exclusive : {false, true}) {
      SCOPED_TRACE(::testing::Message() << prism::name(op) << (exclusive ? " exclusive" : " inclusive"));
      placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which));
      if (exclusive) {
        prism::exclusive_scan(policy, dx.view(), out.view(), op);
      } else {
        prism::inclusive_scan(policy, dx.view(), out.view(), op);
      }
      synchronize_for(which);
      EXPECT_TRUE(out.values() == reference_scan(x, op, exclusive));
    }
  }
}

TEST_P(ScanTypes, SmallIntegerScans) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : type_sizes) for_each_type(small_types{}, [&]<class T>() { check_small_scans<T>(GetParam(), n); });
}

// Flags of type F: nonzero keeps (values other than 1 among them).
template <class T, class F>
void check_flags(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " values, " << sizeof(F) << "-byte flags ("
                                    << (std::is_same_v<F, bool> ? "bool" : std::is_signed_v<F> ? "signed" : "unsigned")
                                    << "), n " << n << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  using Stored = std::conditional_t<std::is_same_v<F, bool>, std::uint8_t, F>;  // std::vector<bool> is bits
  std::vector<Stored> flags(n);
  std::vector<T> kept, others;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(seed ^ mix(i));
    const bool keep = h % 3 == 0;
    if constexpr (std::is_same_v<F, bool>) {
      flags[i] = keep;
    } else {
      // A kept flag with any of its bytes set: the high one alone, too.
      flags[i] = keep ? static_cast<F>(h % 2 ? F(1) << (sizeof(F) * 8 - 2) : static_cast<F>(1 + (h >> 8) % 100)) : F(0);
    }
    (keep ? kept : others).push_back(x[i]);
  }
  placed_array<T> dx(x, memory_of(which));
  placed_array<Stored> stored(flags, memory_of(which));
  const prism::span<const F> df(reinterpret_cast<const F*>(stored.view().data()), n);
  const auto policy = prism::par.with(which);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which));
  const std::size_t count = prism::compact(policy, dx.view(), df, out.view());
  ASSERT_EQ(count, kept.size());
  auto got = out.values();
  EXPECT_TRUE(std::equal(kept.begin(), kept.end(), got.begin()));
  for (std::size_t i = count; i < n; ++i) ASSERT_EQ(element_bits(got[i]), element_bits(poison<T>())) << "written past the count";
  placed_array<T> parted(std::vector<T>(n, poison<T>()), memory_of(which));
  EXPECT_EQ(prism::partition(policy, dx.view(), df, parted.view()), kept.size());
  std::vector<T> want = kept;
  want.insert(want.end(), others.begin(), others.end());
  EXPECT_TRUE(parted.values() == want);
}

TEST_P(ScanTypes, CompactAndPartitionEveryFlagWidth) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : type_sizes) {
    for_each_type(small_types{}, [&]<class T>() {
      check_flags<T, std::uint8_t>(GetParam(), n);
      check_flags<T, bool>(GetParam(), n);
    });
    check_flags<std::int8_t, std::int8_t>(GetParam(), n);
    for_each_type(types<float, double, std::int32_t, std::uint64_t>{}, [&]<class T>() {
      check_flags<T, std::int32_t>(GetParam(), n);
      check_flags<T, std::uint32_t>(GetParam(), n);
      check_flags<T, std::int64_t>(GetParam(), n);
      check_flags<T, std::uint64_t>(GetParam(), n);
      check_flags<T, char>(GetParam(), n);
    });
  }
}

template <class T, class C>
void check_runs(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " values, " << type_name<C>() << " counts, n " << n
                                    << ", seed " << seed);
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(mix(seed ^ mix(i / (1 + mix(seed) % 5))) % 3);
  std::vector<T> heads;
  std::vector<C> lengths;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || x[i - 1] != x[i]) {
      heads.push_back(x[i]);
      lengths.push_back(0);
    }
    ++lengths.back();
  }
  placed_array<T> dx(x, memory_of(which));
  const auto policy = prism::par.with(which);
  placed_array<T> unique(std::vector<T>(n, poison<T>()), memory_of(which));
  const std::size_t u = prism::unique(policy, dx.view(), unique.view());
  ASSERT_EQ(u, heads.size());
  auto got = unique.values();
  EXPECT_TRUE(std::equal(heads.begin(), heads.end(), got.begin()));
  placed_array<T> values(std::vector<T>(n, poison<T>()), memory_of(which));
  placed_array<C> counts(std::vector<C>(n, poison<C>()), memory_of(which));
  const std::size_t runs = prism::run_length_encode(policy, dx.view(), values.view(), counts.view());
  ASSERT_EQ(runs, heads.size());
  got = values.values();
  const auto got_counts = counts.values();
  EXPECT_TRUE(std::equal(heads.begin(), heads.end(), got.begin()));
  EXPECT_TRUE(std::equal(lengths.begin(), lengths.end(), got_counts.begin()));
  for (std::size_t i = runs; i < n; ++i) ASSERT_EQ(got_counts[i], poison<C>()) << "written past the count";
}

TEST_P(ScanTypes, UniqueAndRunLengthEncodeEveryCountType) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : type_sizes) {
    for_each_type(small_types{}, [&]<class T>() {
      check_runs<T, std::int32_t>(GetParam(), n);
      check_runs<T, std::uint64_t>(GetParam(), n);
    });
    for_each_type(types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>{}, [&]<class T>() {
      check_runs<T, std::int32_t>(GetParam(), n);
      check_runs<T, std::uint32_t>(GetParam(), n);
      check_runs<T, std::int64_t>(GetParam(), n);
    });
  }
}

// A char string's runs, as a std::string (the plain API takes it as an array of char).
TEST(ScanTypesCpu, RunLengthEncodeOfAString) {
  const std::string text = "aaabccddddde";
  std::string letters(text.size(), '?');
  std::vector<std::int32_t> lengths(text.size(), -1);
  const std::size_t runs = prism::run_length_encode(text, letters, lengths);
  ASSERT_EQ(runs, 5u);
  EXPECT_EQ(letters.substr(0, runs), "abcde");
  EXPECT_EQ(std::vector<std::int32_t>(lengths.begin(), lengths.begin() + 5), (std::vector<std::int32_t>{3, 1, 2, 5, 1}));
  EXPECT_EQ(letters.substr(runs), std::string(text.size() - runs, '?'));
}

INSTANTIATE_TEST_SUITE_P(, ScanTypes,
                         ::testing::ValuesIn(std::begin(prism::scan_implementations), std::end(prism::scan_implementations)),
                         impl_name);

}  // namespace
