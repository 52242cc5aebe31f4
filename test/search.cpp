// SPDX-License-Identifier: Apache-2.0
// The search family against std::lower_bound, std::upper_bound and std::binary_search, in every
// registered implementation and every stage of its lesson, and the conformance kit. Plain C++: the
// same calls a consumer of the compiled library makes.
//
// The reference orders elements by sorts_before (test/testing.hpp), written from the documented
// order (NaNs by sign and then payload, -0.0 == +0.0, numbers by value), independently of the
// library's keys of the bits. Positions are compared exactly.
#include <prism/elementwise.hpp>
#include <prism/search.hpp>
#include <prism/sort.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::query_order;

using element_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

// ---- the reference order ----------------------------------------------------------------------------

template <class T>
struct reference_less {
  bool operator()(T a, T b) const { return sorts_before(a, b); }
};

template <class T>
std::vector<std::uint64_t> reference_lower(const std::vector<T>& sorted, const std::vector<T>& queries) {
  std::vector<std::uint64_t> r(queries.size());
#pragma omp parallel for
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(queries.size()); ++i)
    r[i] = std::lower_bound(sorted.begin(), sorted.end(), queries[i], reference_less<T>{}) - sorted.begin();
  return r;
}
template <class T>
std::vector<std::uint64_t> reference_upper(const std::vector<T>& sorted, const std::vector<T>& queries) {
  std::vector<std::uint64_t> r(queries.size());
#pragma omp parallel for
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(queries.size()); ++i)
    r[i] = std::upper_bound(sorted.begin(), sorted.end(), queries[i], reference_less<T>{}) - sorted.begin();
  return r;
}
template <class T>
std::vector<std::uint64_t> reference_found(const std::vector<T>& sorted, const std::vector<T>& queries) {
  std::vector<std::uint64_t> r(queries.size());
#pragma omp parallel for
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(queries.size()); ++i)
    r[i] = std::binary_search(sorted.begin(), sorted.end(), queries[i], reference_less<T>{});
  return r;
}

template <class I>
::testing::AssertionResult positions_match(const std::vector<I>& got, const std::vector<std::uint64_t>& want,
                                           const char* what) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << what << ": size " << got.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (static_cast<std::uint64_t>(got[i]) != want[i]) {
      return ::testing::AssertionFailure() << what << " " << i << ": got " << +got[i] << ", want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// ---- inputs -------------------------------------------------------------------------------------------

// Values that search awkwardly: for floats every special (both NaNs, both zeros, both infinities,
// denormals, the extremes); for integers the extremes and zero. A small pool, so it repeats.
template <class T>
std::vector<T> pool() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    return {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity(), T(0), -T(0), L::denorm_min(),
            -L::denorm_min(), L::min(), -L::min(), L::max(), L::lowest(), T(1), T(-1), T(0.5), T(-0.5)};
  } else {
    return {L::min(), L::max(), T(0), T(1), static_cast<T>(L::max() / 2), static_cast<T>(L::min() / 2), T(7)};
  }
}

// Random bits (every sign and exponent: some NaNs among floats), a value of the pool a quarter of
// the time (so elements repeat).
template <class T>
T random_value(std::uint64_t seed, std::size_t i) {
  static const std::vector<T> p = pool<T>();
  const std::uint64_t r = mix(seed ^ mix(i));
  if (r % 4 == 0) return p[(r >> 8) % p.size()];
  auto b = static_cast<decltype(element_bits(T{}))>(mix(r));
  T x;
  std::memcpy(&x, &b, sizeof(T));
  return x;
}

// A sorted array of n, in the documented order.
template <class T>
std::vector<T> sorted_array(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = random_value<T>(seed, i);
  std::sort(v.begin(), v.end(), reference_less<T>{});
  return v;
}

// m queries: a third elements of the array (found), a third random values, a third of the pool; and
// sorted if asked.
template <class T>
std::vector<T> queries_for(const std::vector<T>& sorted, std::size_t m, std::uint64_t seed, bool in_order) {
  static const std::vector<T> p = pool<T>();
  std::vector<T> q(m);
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint64_t r = mix(seed + 0x51 + i);
    if (r % 3 == 0 && !sorted.empty()) {
      q[i] = sorted[(r >> 4) % sorted.size()];
    } else if (r % 3 == 1) {
      q[i] = random_value<T>(seed + 99, i);
    } else {
      q[i] = p[(r >> 4) % p.size()];
    }
  }
  if (in_order) std::sort(q.begin(), q.end(), reference_less<T>{});
  return q;
}

// ---- every operation, type, size and position type -------------------------------------------------------

class Search : public ::testing::TestWithParam<impl> {};

// One of each operation on (n, m), positions of type I, arrays starting `offset` elements past an
// aligned allocation, outputs poisoned.
template <class T, class I>
void check_search(impl which, std::size_t n, std::size_t m, bool sorted_queries, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " -> " << sizeof(I) * 8 << "-bit"
                                    << (std::is_signed_v<I> ? "" : " unsigned") << " positions, n " << n << ", m "
                                    << m << (sorted_queries ? ", sorted queries" : "") << ", offset " << offset
                                    << ", seed " << seed);
  const auto a = sorted_array<T>(n, seed);
  const auto q = queries_for<T>(a, m, seed, sorted_queries);
  const memory where = memory_of(which);
  placed_array<T> sorted(a, where, offset), queries(q, where, offset);
  const std::vector<I> poisoned(m, poison<I>());
  placed_array<I> lower(poisoned, where, offset), upper(poisoned, where, offset), both_lower(poisoned, where),
      both_upper(poisoned, where, offset);
  placed_array<std::uint8_t> found(std::vector<std::uint8_t>(m, 0x7F), where, offset);
  const auto policy = prism::par.with(which);
  const query_order order = sorted_queries ? query_order::sorted : query_order::any;
  prism::lower_bound(policy, sorted.view(), queries.view(), lower.view(), order);
  prism::upper_bound(policy, sorted.view(), queries.view(), upper.view(), order);
  prism::equal_range(policy, sorted.view(), queries.view(), both_lower.view(), both_upper.view(), order);
  prism::binary_search(policy, sorted.view(), queries.view(), found.view(), order);
  synchronize_for(which);
  const auto want_lower = reference_lower(a, q), want_upper = reference_upper(a, q);
  ASSERT_TRUE(positions_match(lower.values(), want_lower, "lower_bound"));
  ASSERT_TRUE(positions_match(upper.values(), want_upper, "upper_bound"));
  ASSERT_TRUE(positions_match(both_lower.values(), want_lower, "equal_range's lower"));
  ASSERT_TRUE(positions_match(both_upper.values(), want_upper, "equal_range's upper"));
  ASSERT_TRUE(positions_match(found.values(), reference_found(a, q), "binary_search"));
  ASSERT_TRUE(same_bits(sorted.values(), a)) << "the sorted array changed";
  ASSERT_TRUE(same_bits(queries.values(), q)) << "the queries changed";
}

// Sizes of the array and of the queries: empty, tiny, odd, the raw kernels' edges (2047 splitters
// staged, 2048-item merge tiles, 1024 queries per block), and past 2^20.
const std::size_t array_sizes[] = {0, 1, 3, 1000, 2047, 2048, 2049, 4095, 4097, 100003};
const std::size_t query_sizes[] = {0, 1, 3, 1023, 1025, 2048, 4099, 12289};

// Every pair of sizes for floats; for the other types every array size with two query sizes in
// turn (every query size is met): each check costs its allocations and copies, and the full grid
// for six types took a GPU implementation 80 s on a loaded H200 machine.
TEST_P(Search, EveryTypeAndSize) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(element_types{}, [&]<class T>() {
    constexpr std::size_t queries = std::size(query_sizes);
    for (std::size_t i = 0; i < std::size(array_sizes); ++i) {
      for (std::size_t j = 0; j < queries; ++j) {
        if (!std::is_same_v<T, float> && j != i % queries && j != (i + queries / 2) % queries) continue;
        for (bool sorted_queries : {false, true})
          check_search<T, std::int64_t>(GetParam(), array_sizes[i], query_sizes[j], sorted_queries, 0);
      }
    }
  });
}

TEST_P(Search, EveryPositionTypeMisaligned) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::int64_t>{}, [&]<class T>() {
    for (bool sorted_queries : {false, true}) {
      check_search<T, std::int32_t>(GetParam(), 4099, 5001, sorted_queries, 1);
      check_search<T, std::uint32_t>(GetParam(), 2049, 777, sorted_queries, 1);
      check_search<T, std::uint64_t>(GetParam(), 3, 4099, sorted_queries, 1);
      check_search<T, std::int64_t>(GetParam(), 100003, 1001, sorted_queries, 1);
    }
  });
}

// Past 2^20 elements and queries: many tiles, many splitter parts, several blocks per SM.
TEST_P(Search, Large) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::uint32_t, double, std::int64_t>{}, [&]<class T>() {
    for (bool sorted_queries : {false, true}) {
      check_search<T, std::int64_t>(GetParam(), large((1u << 20) + 1), large((1u << 20) + 1), sorted_queries, 0);
      check_search<T, std::int32_t>(GetParam(), large((1u << 20) + 3), 4097, sorted_queries, 1);
      check_search<T, std::int64_t>(GetParam(), 5000, large((1u << 21) + 7), sorted_queries, 0);
    }
  });
}

// Many random queries in an array well past the L2 cache: raw sorts the queries first (the
// lesson's stage 4, by the sort family's radix sort of each key kind) and searches by merge path,
// each result going to its query's place. Float (NaNs, both zeros), int32 and int64 keys; then an
// array that is not sorted, where every output must still be written.
TEST_P(Search, RawSortsManyRandomQueriesFirst) {
  const impl which = GetParam();
  if (which != impl::raw) GTEST_SKIP() << "raw's own path (sort_first_pays)";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  if (testing_small()) GTEST_SKIP() << "past the L2 cache: too large under PRISM_TEST_SMALL";
  const std::size_t m = (std::size_t{1} << 24) + 5;
  for_each_type(types<float, std::int32_t, std::int64_t>{}, [&]<class T>() {
    const std::size_t n = (std::size_t{1} << 28) / sizeof(T) + 3;
    ASSERT_GT(n * sizeof(T), 4 * prism::detail::l2_cache_bytes()) << "the array must be past the cache";
    check_search<T, std::int64_t>(which, n, m, false, 0);
  });
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "an array not sorted, seed " << seed);
  const std::size_t n = (std::size_t{1} << 26) + 3;
  std::vector<std::uint32_t> a(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint32_t>(mix(seed + i));
  const auto q = queries_for<std::uint32_t>(a, m, seed, false);
  placed_array<std::uint32_t> sorted(a, memory::device), queries(q, memory::device);
  placed_array<std::int64_t> out(std::vector<std::int64_t>(m, -7), memory::device);
  prism::lower_bound(prism::par.with(which), sorted.view(), queries.view(), out.view());
  synchronize_for(which);
  const auto got = out.values();
  for (std::size_t i = 0; i < m; ++i) {
    ASSERT_GE(got[i], 0) << "query " << i << " not written";
    ASSERT_LE(got[i], static_cast<std::int64_t>(n)) << "query " << i;
  }
}

// The documented order by hand: -0.0 and +0.0 are one value, NaNs sit by their sign bit, and the
// array prism::sort makes is the array these search.
TEST_P(Search, FloatOrderAsDocumented) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double>{}, [&]<class T>() {
    using L = std::numeric_limits<T>;
    const T nan = L::quiet_NaN();
    // Shuffled, then sorted by prism::sort (the cpu implementation).
    std::vector<T> keys = {T(1), -nan, T(0), -L::infinity(), nan, -T(0), T(-2), L::infinity(), T(0), -T(0), T(3)};
    std::vector<T> a(keys.size());
    prism::sort(prism::par.with(impl::cpu), keys, a);
    // -nan, -inf, -2, then four zeros of either sign, 1, 3, inf, nan.
    const std::vector<T> q = {-T(0), T(0), nan, -nan, -L::infinity(), L::infinity(), T(2), T(-2), T(-3)};
    const std::vector<std::uint64_t> want_lower = {3, 3, 10, 0, 1, 9, 8, 2, 2};
    const std::vector<std::uint64_t> want_upper = {7, 7, 11, 1, 2, 10, 8, 3, 2};
    const std::vector<std::uint64_t> want_found = {1, 1, 1, 1, 1, 1, 0, 1, 0};
    ASSERT_EQ(reference_lower(a, q), want_lower);  // the reference agrees with the hand count
    const memory where = memory_of(GetParam());
    placed_array<T> sorted(a, where), queries(q, where);
    placed_array<std::int64_t> lower(std::vector<std::int64_t>(q.size(), -1), where),
        upper(std::vector<std::int64_t>(q.size(), -1), where);
    placed_array<std::uint8_t> found(std::vector<std::uint8_t>(q.size(), 7), where);
    const auto policy = prism::par.with(GetParam());
    prism::equal_range(policy, sorted.view(), queries.view(), lower.view(), upper.view());
    prism::binary_search(policy, sorted.view(), queries.view(), found.view());
    synchronize_for(GetParam());
    EXPECT_TRUE(positions_match(lower.values(), want_lower, "lower"));
    EXPECT_TRUE(positions_match(upper.values(), want_upper, "upper"));
    EXPECT_TRUE(positions_match(found.values(), want_found, "found"));
  });
}

// binary_search into bool elements (a C array here: std::vector<bool> has no elements to point at).
TEST(SearchOnTheHost, BinarySearchIntoBool) {
  const std::vector<std::int32_t> a = {-5, 0, 0, 3, 9};
  const std::vector<std::int32_t> q = {0, 1, -5, 9, 10, 3, -6};
  bool found[7] = {true, true, false, false, true, false, true};
  prism::binary_search(a, q, found);
  const bool want[7] = {true, false, true, true, false, true, false};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(found[i], want[i]) << i;
  std::int64_t lower[7], upper[7];
  prism::equal_range(a, q, lower, upper);
  const std::int64_t want_lower[7] = {1, 3, 0, 4, 5, 3, 0}, want_upper[7] = {3, 3, 1, 5, 5, 4, 0};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(lower[i], want_lower[i]) << i;
    EXPECT_EQ(upper[i], want_upper[i]) << i;
  }
}

// Queries promised sorted that are not: unspecified results, but nothing outside the arrays is
// touched (the elements around the output keep their values), and the library stays usable.
TEST_P(Search, UnsortedQueriesPromisedSortedTouchNothingOutside) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::size_t n = 50000, m = 60000, guard = 4096;
  const auto a = sorted_array<std::uint32_t>(n, seed);
  const auto q = queries_for<std::uint32_t>(a, m, seed, false);
  const memory where = memory_of(GetParam());
  placed_array<std::uint32_t> sorted(a, where), queries(q, where);
  std::vector<std::int64_t> padded(m + 2 * guard, -7);
  placed_array<std::int64_t> out(padded, where);
  const auto policy = prism::par.with(GetParam());
  const auto inner = out.view().subspan(guard, m);
  prism::lower_bound(policy, sorted.view(), queries.view(), inner, query_order::sorted);
  prism::upper_bound(policy, sorted.view(), queries.view(), inner, query_order::sorted);
  synchronize_for(GetParam());
  const auto after = out.values();
  for (std::size_t i = 0; i < guard; ++i) {
    ASSERT_EQ(after[i], -7) << "before the output, " << guard - i;
    ASSERT_EQ(after[guard + m + i], -7) << "after the output, " << i;
  }
  check_search<std::uint32_t, std::int64_t>(GetParam(), 1000, 1000, true, 0);
}

TEST_P(Search, BadArgumentsRefusedWithNothingWritten) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const auto policy = prism::par.with(which);
  placed_array<float> sorted(std::vector<float>(64, 1.0f), where), queries(std::vector<float>(32, 1.0f), where);
  placed_array<std::int64_t> out(std::vector<std::int64_t>(64, -1), where), other(std::vector<std::int64_t>(32, -1), where);
  placed_array<std::uint8_t> found(std::vector<std::uint8_t>(31, 9), where);
  const auto s = sorted.view();
  const auto q = queries.view();
  const auto o = out.view();
  // The output's size is the queries'.
  EXPECT_THROW(prism::lower_bound(policy, s, q, o.subspan(0, 31)), std::invalid_argument);
  EXPECT_THROW(prism::equal_range(policy, s, q, o.subspan(0, 32), other.view().subspan(0, 31)), std::invalid_argument);
  EXPECT_THROW(prism::equal_range(policy, s, q, o.subspan(0, 32), prism::span<std::int64_t>()), std::invalid_argument);
  EXPECT_THROW(prism::binary_search(policy, s, q, found.view()), std::invalid_argument);
  // The two bounds of equal_range overlap: partly, and exactly.
  EXPECT_THROW(prism::equal_range(policy, s, q, o.subspan(0, 32), o.subspan(16, 32)), std::invalid_argument);
  EXPECT_THROW(prism::equal_range(policy, s, q, o.subspan(0, 32), o.subspan(0, 32)), std::invalid_argument);
  // Null with a nonzero size.
  EXPECT_THROW(prism::lower_bound(policy, prism::span<const float>(nullptr, 8), q, o.subspan(0, 32)),
               std::invalid_argument);
  EXPECT_THROW(prism::upper_bound(policy, s, prism::span<const float>(nullptr, 32), o.subspan(0, 32)),
               std::invalid_argument);
  // More elements than int32 positions hold: refused before anything is read.
  std::vector<std::int32_t> small(32, -1);
  EXPECT_THROW(prism::lower_bound(policy, prism::span<const float>(nullptr, std::size_t{1} << 31), q,
                                  prism::span<std::int32_t>(small)),
               std::invalid_argument);
  try {
    prism::lower_bound(policy, prism::span<const float>(nullptr, std::size_t{1} << 32), q,
                       prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(small.data()), 32));
    ADD_FAILURE() << "2^32 elements accepted with uint32 positions";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4294967295"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::all_of(small.begin(), small.end(), [](std::int32_t v) { return v == -1; }));
  synchronize_for(which);
  for (std::int64_t v : out.values()) EXPECT_EQ(v, -1);
  for (std::int64_t v : other.values()) EXPECT_EQ(v, -1);
  for (std::uint8_t v : found.values()) EXPECT_EQ(v, 9);
}

// Outputs over the inputs, by byte ranges across element sizes: refused, nothing written.
TEST_P(Search, OutputsOverTheInputsRefused) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  placed_array<std::uint32_t> buffer(std::vector<std::uint32_t>(64, 5u), memory_of(which));
  const auto b = buffer.view();
  const auto policy = prism::par.with(which);
  const auto as_i32 = [&](std::size_t at, std::size_t count) {
    return prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b.data() + at), count);
  };
  const auto as_i64 = [&](std::size_t at, std::size_t count) {
    return prism::span<std::int64_t>(reinterpret_cast<std::int64_t*>(b.data() + at), count);
  };
  const prism::span<const std::uint32_t> s = b.subspan(0, 16), q = b.subspan(16, 16);
  EXPECT_THROW(prism::lower_bound(policy, s, q, as_i32(16, 16)), std::invalid_argument);  // exactly the queries
  EXPECT_THROW(prism::lower_bound(policy, s, q, as_i64(24, 16)), std::invalid_argument);  // half over them
  EXPECT_THROW(prism::upper_bound(policy, s, q, as_i32(0, 16)), std::invalid_argument);   // the sorted array
  EXPECT_THROW(prism::equal_range(policy, s, q, as_i64(32, 16), as_i64(12, 16)), std::invalid_argument);
  EXPECT_THROW(prism::binary_search(policy, s, q,
                                    prism::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(b.data() + 30), 16)),
               std::invalid_argument);
  synchronize_for(which);
  for (std::uint32_t v : buffer.values()) EXPECT_EQ(v, 5u);
}

// ---- past 2^32 -----------------------------------------------------------------------------------------

// int64 elements. (a) 2^32 + 5 sorted elements 0, 2, 4, ... (34 GB) and 2^22 queries start + k * step
// reaching past both ends; (b) 2^32 + 5 sorted queries (34 GB, int32 positions) in 1000 elements.
// Checked chunk by chunk against the closed forms.
TEST_P(Search, HugeInt64Past2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto policy = prism::par.with(which);
  constexpr std::size_t huge = (std::size_t{1} << 32) + 5;
  {
    prism::device_buffer<std::int64_t> sorted(huge);
    prism::sequence(prism::par.with(impl::raw), sorted.view(), std::int64_t{0}, std::int64_t{2});
    const std::size_t m = std::size_t{1} << 22;
    constexpr std::int64_t start = -1000, step = 2049;  // odd and even values, below 0 and past 2 (n - 1)
    prism::device_buffer<std::int64_t> queries(m), lower(m);
    prism::sequence(prism::par.with(impl::raw), queries.view(), start, step);
    for (query_order order : {query_order::any, query_order::sorted}) {
      SCOPED_TRACE(prism::name(order));
      prism::fill(prism::par.with(impl::raw), lower.view(), std::int64_t{-1});
      prism::lower_bound(policy, sorted, queries, lower, order);
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      const auto want = [&](std::size_t k) {
        const std::int64_t v = start + step * static_cast<std::int64_t>(k);
        const std::int64_t p = v <= 0 ? 0 : (v + 1) / 2;  // elements 2i < v
        return std::min<std::int64_t>(p, static_cast<std::int64_t>(huge));
      };
      std::size_t first = 0;
      EXPECT_EQ(count_wrong(lower.data(), m, [&](std::size_t k, std::int64_t got) { return got == want(k); }, &first),
                0u)
          << "first at " << first;
    }
  }
  {
    const std::size_t n = 1000;
    constexpr std::int64_t gap = std::int64_t{1} << 23;
    prism::device_buffer<std::int64_t> sorted(n);
    prism::sequence(prism::par.with(impl::raw), sorted.view(), std::int64_t{0}, gap);
    prism::device_buffer<std::int64_t> queries(huge);
    prism::sequence(prism::par.with(impl::raw), queries.view(), std::int64_t{-3}, std::int64_t{2});
    prism::device_buffer<std::int32_t> upper(huge);
    for (query_order order : {query_order::any, query_order::sorted}) {
      SCOPED_TRACE(prism::name(order));
      prism::fill(prism::par.with(impl::raw), upper.view(), std::int32_t{-1});
      prism::upper_bound(policy, sorted, queries, upper, order);
      prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      const auto want = [&](std::size_t k) {
        const std::int64_t v = -3 + 2 * static_cast<std::int64_t>(k);
        const std::int64_t p = v < 0 ? 0 : v / gap + 1;  // elements i * gap <= v
        return static_cast<std::int32_t>(std::min<std::int64_t>(p, static_cast<std::int64_t>(n)));
      };
      std::size_t first = 0;
      EXPECT_EQ(count_wrong(upper.data(), huge, [&](std::size_t k, std::int32_t got) { return got == want(k); },
                            &first),
                0u)
          << "first at " << first;
    }
  }
}

// ---- the lesson -----------------------------------------------------------------------------------------

class GpuSearchLesson : public ::testing::TestWithParam<prism::search_stage> {};

TEST_P(GpuSearchLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const bool sorted_queries = GetParam() == prism::search_stage::merge_path;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{2047}, std::size_t{2049},
                        std::size_t{100003}, large((1 << 20) + 1)}) {
    for (std::size_t m : {std::size_t{1}, std::size_t{1025}, std::size_t{4099}, large((1 << 20) + 1)}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "n " << n << ", m " << m << ", seed " << seed);
      const auto a = sorted_array<std::uint32_t>(n, seed);
      const auto q = queries_for<std::uint32_t>(a, m, seed, sorted_queries);
      placed_array<std::uint32_t> sorted(a, memory::device, 1), queries(q, memory::device, 1);
      placed_array<std::int64_t> out(std::vector<std::int64_t>(m, -1), memory::device);
      prism::lower_bound(GetParam(), prism::par, sorted.view(), queries.view(), out.view());
      synchronize_for(impl::raw);
      ASSERT_TRUE(positions_match(out.values(), reference_lower(a, q), "lower_bound"));
    }
  }
}

TEST_P(GpuSearchLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::uint32_t> a(10, 1u), q(10, 1u);
  std::vector<std::int64_t> out(10);
  EXPECT_THROW(prism::lower_bound(GetParam(), prism::par, a, q, out), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, GpuSearchLesson, ::testing::ValuesIn(prism::search_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

// ---- the conformance kit, with lower_bound of float queries into int64 positions ---------------------------
// The kit hands the adapter the queries; the sorted array (1000 floats) is the adapter's own, one
// copy in host memory and one on every GPU, made before any test runs a call (implementations() is
// asked first), so that no call inside a graph capture allocates.

struct lower_bound_float {
  using T = float;
  using R = std::int64_t;
  static constexpr const char* name = "lower_bound";
  static constexpr std::size_t elements = 1000;

  static const std::vector<float>& host_sorted() {
    static const std::vector<float> a = [] {
      auto v = random_vector<float>(elements, 20261201);
      for (std::size_t i = 0; i < v.size(); i += 7) v[i] = v[i / 2];  // repeats
      std::sort(v.begin(), v.end());
      return v;
    }();
    return a;
  }
  // The copy on each GPU (never freed: it outlives every test).
  static const std::vector<prism::device_buffer<float>*>& device_sorted() {
    static const std::vector<prism::device_buffer<float>*> copies = [] {
      std::vector<prism::device_buffer<float>*> c;
      if (!prism::gpu_available()) return c;
      int devices = 0, home = 0;
      check_cuda(cudaGetDeviceCount(&devices));
      check_cuda(cudaGetDevice(&home));
      for (int d = 0; d < devices; ++d) {
        check_cuda(cudaSetDevice(d));
        c.push_back(new prism::device_buffer<float>(std::span<const float>(host_sorted())));
      }
      check_cuda(cudaSetDevice(home));
      return c;
    }();
    return copies;
  }
  static std::span<const impl> implementations() {
    (void)device_sorted();
    return prism::search_implementations;
  }
  static std::size_t output_size(std::size_t n) { return n; }
  // The sorted array where the queries are (on their GPU: another GPU's memory is refused by name).
  static void run(const prism::execution_policy& policy, prism::span<const float> q, prism::span<std::int64_t> out) {
    const prism::placement p = prism::placement_of(q.data());
    // No queries (a null pointer, which reads as host memory): a GPU implementation still gets
    // the GPU's copy, so that it runs rather than refusing the host array.
    const bool gpu = policy.implementation() != impl::cpu && policy.implementation() != impl::automatic;
    const bool host = q.empty() ? !gpu || !prism::gpu_available()
                                : p.where == prism::residence::host || p.where == prism::residence::pinned_host;
    if (host || policy.implementation() == impl::cpu) {
      prism::lower_bound(policy, host_sorted(), q, out);
    } else {  // device memory, or managed memory for a GPU implementation
      int device = p.device;
      if (p.where == prism::residence::managed || q.empty()) check_cuda(cudaGetDevice(&device));
      prism::lower_bound(policy, device_sorted().at(static_cast<std::size_t>(device))->view(), q, out);
    }
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    const auto r = reference_lower(host_sorted(), in);
    return {r.begin(), r.end()};
  }
  static double tolerance(const std::vector<float>&) { return 0; }
  // Nothing waits in any GPU implementation.
  static bool capturable(impl) { return true; }
  // Outputs over the queries and the sorted array, and equal_range's two over each other.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    constexpr auto f = &bytes_at<float>;
    constexpr auto i = &bytes_at<std::int64_t>;
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::lower_bound(p, f(b, 0, 8), f(b, 32, 8), i(b, 48, 8)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::lower_bound(p, f(b, 0, 16), f(b, 64, 8), i(b, 0, 8)); },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::equal_range(p, f(b, 0, 8), f(b, 32, 8), i(b, 64, 8), i(b, 96, 8));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::binary_search(p, f(b, 0, 8), f(b, 32, 8),
                               prism::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(b + 32), 8));
        },
    };
  }
};

using searches = ::testing::Types<lower_bound_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Search, Conformance, searches);
INSTANTIATE_TYPED_TEST_SUITE_P(Search, GpuConformance, searches);

INSTANTIATE_TEST_SUITE_P(, Search, ::testing::ValuesIn(std::begin(prism::search_implementations),
                                                       std::end(prism::search_implementations)),
                         impl_name);

}  // namespace
