// SPDX-License-Identifier: Apache-2.0
// The top-k family against a stable sort of the positions by the sort family's order
// (sorts_before, test/testing.hpp, written independently of the library's bits), in every
// registered implementation, and the conformance kit. Plain C++: the calls a consumer makes.
// Values and indices are compared exactly, values bit for bit (-0.0 is not +0.0 there).
#include <prism/top_k.hpp>

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
#include <string>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

using element_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

// ---- the reference ------------------------------------------------------------------------------

// The k best positions of each row, best first, equal elements by position.
template <class T>
std::vector<std::uint64_t> reference_positions(const std::vector<T>& x, std::size_t row_length, std::size_t k,
                                               bool largest) {
  std::vector<std::uint64_t> out;
  const std::size_t rows = row_length == 0 ? 0 : x.size() / row_length;
  std::vector<std::uint64_t> p(row_length);
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = x.data() + r * row_length;
    std::iota(p.begin(), p.end(), std::uint64_t{0});
    std::stable_sort(p.begin(), p.end(), [&](std::uint64_t a, std::uint64_t b) {
      return largest ? sorts_before(row[b], row[a]) : sorts_before(row[a], row[b]);
    });
    out.insert(out.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return out;
}

// Values that rank awkwardly: every float special (both NaNs, both zeros, both infinities,
// denormals, the extremes), the integers' extremes; a small pool, so that ties are many.
template <class T>
std::vector<T> pool() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    return {L::quiet_NaN(), -L::quiet_NaN(), L::infinity(), -L::infinity(), T(0), -T(0), L::denorm_min(),
            -L::denorm_min(), L::max(), L::lowest(), T(1), T(-1), T(0.5)};
  } else {
    return {L::min(), L::max(), T(0), T(1), static_cast<T>(L::max() / 2), T(7)};
  }
}

// Random bits (some NaNs among floats) half the time, a value of the pool otherwise.
template <class T>
std::vector<T> ranked_input(std::size_t n, std::uint64_t seed) {
  static const std::vector<T> p = pool<T>();
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix(seed ^ mix(i));
    if (r % 2 == 0) {
      v[i] = p[(r >> 8) % p.size()];
    } else {
      auto b = static_cast<decltype(element_bits(T{}))>(mix(r));
      std::memcpy(&v[i], &b, sizeof(T));
    }
  }
  return v;
}

class TopK : public ::testing::TestWithParam<impl> {};

// One call on rows of row_length of n elements, indices of type I, outputs poisoned, arrays
// `offset` elements past an aligned allocation.
template <class T, class I>
void check_top_k_of(impl which, const std::vector<T>& in, std::size_t row_length, std::size_t k, bool largest,
                    std::size_t offset = 0) {
  const std::size_t n = in.size();
  const std::size_t rows = row_length == 0 ? 0 : n / row_length;
  const memory where = memory_of(which);
  placed_array<T> x(in, where, offset);
  placed_array<T> values(std::vector<T>(rows * k, poison<T>()), where, offset);
  placed_array<I> indices(std::vector<I>(rows * k, poison<I>()), where, offset);
  const auto policy = prism::par.with(which);
  if (row_length == n) {
    prism::top_k(policy, x.view(), k, values.view(), indices.view(), largest);
  } else {
    prism::top_k_rows(policy, x.view(), row_length, k, values.view(), indices.view(), largest);
  }
  synchronize_for(which);
  const auto want = reference_positions(in, row_length, k, largest);
  const auto got_values = values.values();
  const auto got_indices = indices.values();
  for (std::size_t j = 0; j < want.size(); ++j) {
    const std::size_t row = j / k;
    ASSERT_EQ(static_cast<std::uint64_t>(got_indices[j]), want[j]) << "index " << j;
    ASSERT_EQ(element_bits(got_values[j]), element_bits(in[row * row_length + want[j]])) << "value " << j;
  }
  ASSERT_TRUE(same_bits(x.values(), in)) << "the input changed";
}

template <class T, class I>
void check_top_k(impl which, std::size_t n, std::size_t row_length, std::size_t k, bool largest,
                 std::size_t offset = 0) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " -> int" << sizeof(I) * 8 << " indices, n " << n
                                    << ", rows of " << row_length << ", k " << k
                                    << (largest ? ", largest" : ", smallest") << ", seed " << seed);
  check_top_k_of<T, I>(which, ranked_input<T>(n, seed), row_length, k, largest, offset);
}

// Sizes: tiny, odd, the raw kernels' tiles (4096 elements) and their edges, past 2^20; k from 1 to n.
const std::size_t sizes[] = {1, 2, 3, 1000, 4095, 4096, 4097, 100003};

TEST_P(TopK, EveryTypeSizeAndK) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(element_types{}, [&]<class T>() {
    for (std::size_t n : sizes) {
      for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{100}, n / 2, n - 1, n}) {
        if (k == 0 || k > n) continue;
        for (bool largest : {true, false}) check_top_k<T, std::int64_t>(GetParam(), n, n, k, largest);
      }
    }
  });
}

TEST_P(TopK, Int32IndicesMisaligned) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::int64_t, std::uint32_t>{}, [&]<class T>() {
    for (bool largest : {true, false}) {
      check_top_k<T, std::int32_t>(GetParam(), 4099, 4099, 77, largest, 1);
      check_top_k<T, std::int32_t>(GetParam(), 3, 3, 3, largest, 1);
    }
  });
}

TEST_P(TopK, Large) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double, std::uint32_t>{}, [&]<class T>() {
    const std::size_t n = large((1u << 20) + 1);
    for (std::size_t k : {std::size_t{1}, std::size_t{100}, std::size_t{10000}}) {
      check_top_k<T, std::int32_t>(GetParam(), n, n, k, true);
    }
    check_top_k<T, std::int64_t>(GetParam(), n, n, 4097, false);
  });
}

// Input already ordered, towards the best and away from it: raw's one-read selection for small k
// (up to 128) lets every element into its queues in the first case and almost none in the second;
// k on both sides of that limit.
TEST_P(TopK, OrderedInput) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::uint64_t>{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{4099}, large(std::size_t{300007})}) {
      std::vector<T> ascending(n);
      for (std::size_t i = 0; i < n; ++i) ascending[i] = static_cast<T>(i / 3);  // ties in threes
      const std::vector<T> descending(ascending.rbegin(), ascending.rend());
      for (std::size_t k : {std::size_t{1}, std::size_t{31}, std::size_t{128}, std::size_t{129}}) {
        for (bool largest : {true, false}) {
          SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", k " << k << ", largest " << largest);
          check_top_k_of<T, std::int64_t>(GetParam(), ascending, n, k, largest);
          check_top_k_of<T, std::int64_t>(GetParam(), descending, n, k, largest, 1);
        }
      }
    }
  });
}

// Every element equal: the first k positions, in order; and -0.0 with +0.0, which are equal.
TEST_P(TopK, TiesByTheLowerIndex) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(GetParam());
  const auto policy = prism::par.with(GetParam());
  for (std::size_t n : {std::size_t{5}, std::size_t{4097}, std::size_t{100003}}) {
    std::vector<float> zeros(n);
    for (std::size_t i = 0; i < n; ++i) zeros[i] = i % 3 == 0 ? -0.0f : 0.0f;
    placed_array<float> x(zeros, where);
    const std::size_t k = std::min<std::size_t>(n, 1000);
    for (bool largest : {true, false}) {
      placed_array<float> values(std::vector<float>(k, 1.0f), where);
      placed_array<std::int64_t> indices(std::vector<std::int64_t>(k, -1), where);
      prism::top_k(policy, x.view(), k, values.view(), indices.view(), largest);
      synchronize_for(GetParam());
      const auto v = values.values();
      const auto idx = indices.values();
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(idx[j], static_cast<std::int64_t>(j)) << "n " << n << ", " << j;
        ASSERT_EQ(std::signbit(v[j]), j % 3 == 0) << "n " << n << ", " << j;
      }
    }
  }
}

// The documented order by hand: +NaN above +inf, -NaN below -inf, the zeros equal.
TEST_P(TopK, FloatOrderAsDocumented) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double>{}, [&]<class T>() {
    using L = std::numeric_limits<T>;
    const T nan = L::quiet_NaN();
    const std::vector<T> in = {T(1), -nan, T(0), -L::infinity(), nan, -T(0), T(-2), L::infinity(), T(3)};
    const memory where = memory_of(GetParam());
    placed_array<T> x(in, where);
    const auto policy = prism::par.with(GetParam());
    placed_array<T> values(std::vector<T>(9, T(7)), where);
    placed_array<std::int32_t> indices(std::vector<std::int32_t>(9, -1), where);
    prism::top_k(policy, x.view(), 9, values.view(), indices.view());
    synchronize_for(GetParam());
    EXPECT_EQ(indices.values(), (std::vector<std::int32_t>{4, 7, 8, 0, 2, 5, 6, 3, 1}));
    prism::top_k(policy, x.view(), 4, values.view().subspan(0, 4), indices.view().subspan(0, 4), false);
    synchronize_for(GetParam());
    const auto smallest = indices.values();
    EXPECT_EQ(std::vector<std::int32_t>(smallest.begin(), smallest.begin() + 4),
              (std::vector<std::int32_t>{1, 3, 6, 2}));
    EXPECT_TRUE(std::signbit(values.values()[3]) == false);  // x[2] is +0.0, before x[5] (-0.0)
  });
}

// Rows of one length: each row its own top_k, indices within the row.
TEST_P(TopK, Rows) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::int32_t, std::uint64_t>{}, [&]<class T>() {
    for (bool largest : {true, false}) {
      check_top_k<T, std::int32_t>(GetParam(), 7 * 1000, 1000, 10, largest);
      check_top_k<T, std::int64_t>(GetParam(), 3 * 4097, 4097, 4097, largest, 1);
      check_top_k<T, std::int64_t>(GetParam(), 64, 1, 1, largest);
      check_top_k<T, std::int64_t>(GetParam(), 0, 5, 2, largest);
    }
  });
}

// k = 0 and empty input: nothing written; k > n, rows that do not divide the input, a row length of
// 0, wrong output sizes, overlaps and null: refused, nothing written.
TEST_P(TopK, EdgesAndRefusals) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const auto policy = prism::par.with(which);
  placed_array<float> x(std::vector<float>(64, 1.5f), where);
  placed_array<float> values(std::vector<float>(128, -3.0f), where);
  placed_array<std::int64_t> indices(std::vector<std::int64_t>(128, -1), where);
  const auto xs = x.view();
  const auto v = values.view();
  const auto i = indices.view();
  prism::top_k(policy, xs, 0, v.subspan(0, 0), i.subspan(0, 0));
  prism::top_k(policy, xs.subspan(0, 0), 0, v.subspan(0, 0), i.subspan(0, 0));
  EXPECT_THROW(prism::top_k(policy, xs, 65, v.subspan(0, 65), i.subspan(0, 65)), std::invalid_argument);
  EXPECT_THROW(prism::top_k(policy, xs.subspan(0, 0), 1, v.subspan(0, 1), i.subspan(0, 1)), std::invalid_argument);
  EXPECT_THROW(prism::top_k(policy, xs, 8, v.subspan(0, 7), i.subspan(0, 8)), std::invalid_argument);
  EXPECT_THROW(prism::top_k(policy, xs, 8, v.subspan(0, 8), i.subspan(0, 9)), std::invalid_argument);
  EXPECT_THROW(prism::top_k_rows(policy, xs, 10, 2, v.subspan(0, 12), i.subspan(0, 12)), std::invalid_argument);
  EXPECT_THROW(prism::top_k_rows(policy, xs, 0, 0, v.subspan(0, 0), i.subspan(0, 0)), std::invalid_argument);
  EXPECT_THROW(prism::top_k_rows(policy, xs, 8, 9, v.subspan(0, 72), i.subspan(0, 72)), std::invalid_argument);
  EXPECT_THROW(prism::top_k(policy, prism::span<const float>(nullptr, 64), 8, v.subspan(0, 8), i.subspan(0, 8)),
               std::invalid_argument);
  // values over the input, and the indices over the values (by bytes).
  EXPECT_THROW(prism::top_k(policy, xs, 8, xs.subspan(8, 8), i.subspan(0, 8)), std::invalid_argument);
  EXPECT_THROW(prism::top_k(policy, v.subspan(0, 64), 8, v.subspan(64, 8),
                            prism::span<std::int64_t>(reinterpret_cast<std::int64_t*>(v.data() + 66), 8)),
               std::invalid_argument);
  // More elements than int32 indices number: refused before anything is read.
  std::vector<std::int32_t> small(8, -1);
  EXPECT_THROW(prism::top_k(policy, prism::span<const float>(nullptr, std::size_t{1} << 31), 8, v.subspan(0, 8),
                            prism::span<std::int32_t>(small)),
               std::invalid_argument);
  synchronize_for(which);
  for (float f : values.values()) EXPECT_EQ(f, -3.0f);
  for (std::int64_t j : indices.values()) EXPECT_EQ(j, -1);
  for (float f : x.values()) EXPECT_EQ(f, 1.5f);
  EXPECT_TRUE(std::all_of(small.begin(), small.end(), [](std::int32_t s) { return s == -1; }));
}

// ---- segments by offsets ---------------------------------------------------------------------------

// Segments of the given sizes (offsets from `first`), k best of each against the reference of each
// segment alone; the slots past a short segment's end: index -1, value 0. Outputs poisoned first.
template <class T, class I, class O>
void check_top_k_segments(impl which, const std::vector<std::size_t>& sizes, std::size_t first, std::size_t k,
                          bool largest) {
  const std::uint64_t seed = fresh_seed();
  std::vector<O> offsets{static_cast<O>(first)};
  for (std::size_t m : sizes) offsets.push_back(static_cast<O>(offsets.back() + static_cast<O>(m)));
  const std::size_t n = static_cast<std::size_t>(offsets.back()) + 3;  // 3 elements in no segment
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " -> int" << sizeof(I) * 8 << " indices, int"
                                    << sizeof(O) * 8 << " offsets, " << sizes.size() << " segments, k " << k
                                    << (largest ? ", largest" : ", smallest") << ", seed " << seed);
  const auto in = ranked_input<T>(n, seed);
  const std::size_t slots = sizes.size() * k;
  const memory where = memory_of(which);
  placed_array<T> x(in, where);
  placed_array<O> o(offsets, where);
  placed_array<T> values(std::vector<T>(slots, poison<T>()), where);
  placed_array<I> indices(std::vector<I>(slots, poison<I>()), where);
  prism::top_k_segments(prism::par.with(which), x.view(), o.view(), k, values.view(), indices.view(), largest);
  synchronize_for(which);
  const auto got_values = values.values();
  const auto got_indices = indices.values();
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const auto begin = static_cast<std::size_t>(offsets[s]);
    const std::vector<T> segment(in.begin() + static_cast<std::ptrdiff_t>(begin),
                                 in.begin() + static_cast<std::ptrdiff_t>(begin + sizes[s]));
    const auto want = reference_positions(segment, sizes[s], std::min(k, sizes[s]), largest);
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t t = s * k + j;
      if (j < want.size()) {
        ASSERT_EQ(static_cast<std::uint64_t>(got_indices[t]), want[j]) << "segment " << s << ", slot " << j;
        ASSERT_EQ(element_bits(got_values[t]), element_bits(segment[want[j]])) << "segment " << s << ", slot " << j;
      } else {
        ASSERT_EQ(got_indices[t], I(-1)) << "segment " << s << ", padding slot " << j;
        ASSERT_EQ(element_bits(got_values[t]), element_bits(T{0})) << "segment " << s << ", padding slot " << j;
      }
    }
  }
  ASSERT_TRUE(same_bits(x.values(), in)) << "the input changed";
}

TEST_P(TopK, Segments) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  // Empty segments, segments shorter than k, one of the raw segmented sort's tile edges (2048),
  // long ones (several merge passes).
  const std::vector<std::size_t> mixed = {0, 1, 5, 0, 7, 2048, 2049, 3, large(20000), 0, 64};
  for_each_type(element_types{}, [&]<class T>() {
    for (bool largest : {true, false}) {
      check_top_k_segments<T, std::int32_t, std::int32_t>(which, mixed, 0, 5, largest);
      check_top_k_segments<T, std::int64_t, std::int64_t>(which, mixed, 11, 64, largest);
    }
  });
  std::vector<std::size_t> many(3000);
  for (std::size_t s = 0; s < many.size(); ++s) many[s] = mix(s) % 9;  // 0 to 8: many shorter than k
  check_top_k_segments<float, std::int32_t, std::int64_t>(which, many, 2, 4, true);
  check_top_k_segments<double, std::int64_t, std::int32_t>(which, {}, 0, 3, true);  // no segment
  check_top_k_segments<float, std::int64_t, std::int32_t>(which, {0, 0, 0}, 4, 2, true);
  check_top_k_segments<float, std::int64_t, std::int32_t>(which, {10, 20}, 0, 0, true);  // k = 0
}

// Many segments, as many as raw reads a block each (k up to 128): lengths from 0 to past a block's
// 256 threads, a few long ones; k on both sides of 128; and many rows of top_k_rows.
TEST_P(TopK, ManySegments) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::size_t> sizes(600);
  for (std::size_t s = 0; s < sizes.size(); ++s) sizes[s] = s % 97 == 0 ? large(20000) + s : mix(s) % 700;
  for (std::size_t k : {std::size_t{1}, std::size_t{8}, std::size_t{128}, std::size_t{129}}) {
    for (bool largest : {true, false}) check_top_k_segments<float, std::int32_t, std::int32_t>(which, sizes, 5, k, largest);
  }
  check_top_k_segments<std::uint64_t, std::int64_t, std::int64_t>(which, sizes, 0, 31, true);
  check_top_k_segments<std::int32_t, std::int64_t, std::int32_t>(which, sizes, 0, 100, false);
  for (std::size_t k : {std::size_t{1}, std::size_t{37}}) check_top_k<double, std::int32_t>(which, 300 * 333, 333, k, true);
}

// fixed_segments: the rows of a matrix, the same answer as top_k_rows.
TEST_P(TopK, SegmentsOfAFixedSize) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const std::size_t cols = 1000, rows = 7, k = 10;
  const auto in = ranked_input<float>(rows * cols, fresh_seed());
  placed_array<float> x(in, where);
  const std::vector<float> poisoned_values(rows * k, poison<float>());
  const std::vector<std::int32_t> poisoned_indices(rows * k, poison<std::int32_t>());
  placed_array<float> v1(poisoned_values, where), v2(poisoned_values, where);
  placed_array<std::int32_t> i1(poisoned_indices, where), i2(poisoned_indices, where);
  const auto policy = prism::par.with(which);
  prism::top_k_segments(policy, x.view(), prism::fixed_segments{cols}, k, v1.view(), i1.view());
  prism::top_k_rows(policy, x.view(), cols, k, v2.view(), i2.view());
  synchronize_for(which);
  EXPECT_TRUE(same_bits(v1.values(), v2.values()));
  EXPECT_EQ(i1.values(), i2.values());
}

// Wrong output sizes, a fixed size that does not divide the input, no offsets, overlaps: refused
// everywhere, nothing written; broken offsets refused by impl::cpu.
TEST_P(TopK, SegmentsRefused) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const auto policy = prism::par.with(which);
  placed_array<float> x(std::vector<float>(64, 1.5f), where);
  placed_array<std::int64_t> offsets(std::vector<std::int64_t>{0, 10, 64}, where);
  placed_array<float> values(std::vector<float>(16, -3.0f), where);
  placed_array<std::int32_t> indices(std::vector<std::int32_t>(16, 7), where);
  const auto v = values.view();
  const auto i = indices.view();
  EXPECT_THROW(prism::top_k_segments(policy, x.view(), offsets.view(), 4, v.subspan(0, 7), i.subspan(0, 8)),
               std::invalid_argument);
  EXPECT_THROW(prism::top_k_segments(policy, x.view(), offsets.view(), 4, v.subspan(0, 8), i.subspan(0, 9)),
               std::invalid_argument);
  EXPECT_THROW(prism::top_k_segments(policy, x.view(), offsets.view().subspan(0, 0), 4, v.subspan(0, 0),
                                     i.subspan(0, 0)),
               std::invalid_argument);
  EXPECT_THROW(prism::top_k_segments(policy, x.view(), prism::fixed_segments{10}, 1, v.subspan(0, 6),
                                     i.subspan(0, 6)),
               std::invalid_argument);
  EXPECT_THROW(prism::top_k_segments(policy, x.view(), offsets.view(), 4, x.view().subspan(0, 8), i.subspan(0, 8)),
               std::invalid_argument);
  if (which == impl::cpu) {
    placed_array<std::int64_t> broken(std::vector<std::int64_t>{0, 30, 20}, where);
    EXPECT_THROW(prism::top_k_segments(policy, x.view(), broken.view(), 4, v.subspan(0, 8), i.subspan(0, 8)),
                 std::invalid_argument);
    placed_array<std::int64_t> past(std::vector<std::int64_t>{0, 65}, where);
    EXPECT_THROW(prism::top_k_segments(policy, x.view(), past.view(), 4, v.subspan(0, 4), i.subspan(0, 4)),
                 std::invalid_argument);
    // k = 0: nothing to select, the offsets still checked.
    EXPECT_THROW(prism::top_k_segments(policy, x.view(), broken.view(), 0, v.subspan(0, 0), i.subspan(0, 0)),
                 std::invalid_argument);
  }
  synchronize_for(which);
  for (float f : values.values()) EXPECT_EQ(f, -3.0f);
  for (std::int32_t j : indices.values()) EXPECT_EQ(j, 7);
}

// ---- past 2^32 ------------------------------------------------------------------------------------

// 2^32 + 7 uint32 elements (17 GB): i mod 2^32 with the three largest, 2^32 - 1, repeated near the
// end; the top 5 then are known in closed form.
TEST_P(TopK, HugeUint32Past2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  constexpr std::size_t huge = (std::size_t{1} << 32) + 7;
  prism::device_buffer<std::uint32_t> x(huge);
  std::vector<std::uint32_t> pattern(std::size_t{1} << 20);
  std::iota(pattern.begin(), pattern.end(), 0u);
  fill_periodic(x.data(), huge, pattern);  // i mod 2^20: the largest, 2^20 - 1, at i = 2^20 - 1 + j 2^20
  prism::device_buffer<std::uint32_t> values(5);
  prism::device_buffer<std::int64_t> indices(5);
  // thrust sorts all n ranks with their 8-byte positions: about 28 bytes a key, 120 GB here.
  PRISM_HUGE_CALL(prism::top_k(prism::par.with(which), x, 5, values, indices));
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto v = values.to_host();
  const auto idx = indices.to_host();
  for (std::size_t j = 0; j < 5; ++j) {
    EXPECT_EQ(v[j], (1u << 20) - 1) << j;
    EXPECT_EQ(static_cast<std::uint64_t>(idx[j]), ((std::uint64_t{1} << 20) - 1) + (std::uint64_t{j} << 20)) << j;
  }
}

// The m largest of in, then their positions, in 2 slots doubles (values in the first half); the
// slots past m are padding: value 0, index -1.
std::vector<double> best_then_positions(const std::vector<std::int64_t>& in, std::size_t m, std::size_t slots) {
  const auto p = reference_positions(in, in.size(), m, true);
  std::vector<double> r(2 * slots);
  for (std::size_t j = 0; j < slots; ++j) {
    r[j] = j < m ? static_cast<double>(in[p[j]]) : 0.0;
    r[slots + j] = j < m ? static_cast<double>(p[j]) : -1.0;
  }
  return r;
}

// ---- the conformance kit: the 100 largest int64 (or all, fewer) values then indices, in one
// output of 2k int64: values in its first half, indices in its second. -------------------------

struct top_k_int64 {
  using T = std::int64_t;
  using R = std::int64_t;
  static constexpr const char* name = "top_k";
  static std::size_t k_of(std::size_t n) { return std::min<std::size_t>(n, 100); }
  static std::span<const impl> implementations() { return prism::top_k_implementations; }
  static std::size_t output_size(std::size_t n) { return 2 * k_of(n); }
  static void run(const prism::execution_policy& policy, prism::span<const std::int64_t> x,
                  prism::span<std::int64_t> out) {
    const std::size_t k = out.size() / 2;
    prism::top_k(policy, x, k, out.subspan(0, k), out.subspan(k, k));
  }
  static std::vector<double> reference(const std::vector<std::int64_t>& in) {
    return best_then_positions(in, k_of(in.size()), k_of(in.size()));
  }
  static double tolerance(const std::vector<std::int64_t>&) { return 0; }
  // thrust's baseline takes its n-element buffers from the stream-ordered pool, which a capture
  // records too; every implementation enqueues without waiting.
  static bool capturable(impl) { return true; }
  static constexpr std::size_t aliased_bytes = 512;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    constexpr auto s = &bytes_at<std::int64_t>;
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k(p, s(b, 0, 16), 4, s(b, 64, 4), s(b, 160, 4)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k(p, s(b, 0, 16), 4, s(b, 256, 4), s(b, 272, 4)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k(p, s(b, 0, 16), 4, s(b, 256, 4), s(b, 256, 4)); },
    };
  }
};

// top_k_segments in the kit: the whole input as one fixed-size segment, k = 100 whatever n is, so
// that short inputs are padded (index -1, value 0).
struct top_k_segments_int64 {
  using T = std::int64_t;
  using R = std::int64_t;
  static constexpr const char* name = "top_k_segments";
  static constexpr std::size_t k = 100;
  static std::span<const impl> implementations() { return prism::top_k_implementations; }
  static std::size_t output_size(std::size_t n) { return n == 0 ? 0 : 2 * k; }
  static void run(const prism::execution_policy& policy, prism::span<const std::int64_t> x,
                  prism::span<std::int64_t> out) {
    const std::size_t slots = out.size() / 2;
    prism::top_k_segments(policy, x, prism::fixed_segments{x.size()}, slots == 0 ? 0 : k, out.subspan(0, slots),
                          out.subspan(slots, slots));
  }
  static std::vector<double> reference(const std::vector<std::int64_t>& in) {
    if (in.empty()) return {};
    return best_then_positions(in, std::min(k, in.size()), k);
  }
  static double tolerance(const std::vector<std::int64_t>&) { return 0; }
  static bool capturable(impl) { return true; }
  static constexpr std::size_t aliased_bytes = 512;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    constexpr auto s = &bytes_at<std::int64_t>;
    const prism::fixed_segments rows{8};
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k_segments(p, s(b, 0, 16), rows, 2, s(b, 64, 4), s(b, 160, 4)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k_segments(p, s(b, 0, 16), rows, 2, s(b, 256, 4), s(b, 272, 4)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::top_k_segments(p, s(b, 0, 16), rows, 2, s(b, 256, 4), s(b, 256, 4)); },
    };
  }
};

// ---- the lesson -----------------------------------------------------------------------------------------

class GpuTopKLesson : public ::testing::TestWithParam<prism::top_k_stage> {};

TEST_P(GpuTopKLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (std::size_t n : {std::size_t{1}, std::size_t{4097}, std::size_t{100003}, large((1u << 20) + 1)}) {
    for (std::size_t k : {std::size_t{1}, std::size_t{100}, std::size_t{10000}}) {
      if (k > n) continue;
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "n " << n << ", k " << k << ", seed " << seed);
      const auto in = ranked_input<float>(n, seed);
      placed_array<float> x(in, memory::device, 1), values(std::vector<float>(k, poison<float>()), memory::device);
      placed_array<std::int32_t> indices(std::vector<std::int32_t>(k, -1), memory::device);
      prism::top_k(GetParam(), prism::par, x.view(), k, values.view(), indices.view());
      synchronize_for(impl::raw);
      const auto want = reference_positions(in, n, k, true);
      const auto got_values = values.values();
      const auto got_indices = indices.values();
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(static_cast<std::uint64_t>(got_indices[j]), want[j]) << "index " << j;
        ASSERT_EQ(element_bits(got_values[j]), element_bits(in[want[j]])) << "value " << j;
      }
    }
  }
}

TEST_P(GpuTopKLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<float> x(10, 1.0f);
  std::vector<float> values(2, 5.0f);
  std::vector<std::int32_t> indices(2, 5);
  EXPECT_THROW(prism::top_k(GetParam(), prism::par, x, 2, values, indices), std::invalid_argument);
  EXPECT_EQ(values, std::vector<float>(2, 5.0f));
  EXPECT_EQ(indices, std::vector<std::int32_t>(2, 5));
}

INSTANTIATE_TEST_SUITE_P(, GpuTopKLesson, ::testing::ValuesIn(prism::top_k_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

using top_ks = ::testing::Types<top_k_int64, top_k_segments_int64>;
INSTANTIATE_TYPED_TEST_SUITE_P(TopK, Conformance, top_ks);
INSTANTIATE_TYPED_TEST_SUITE_P(TopK, GpuConformance, top_ks);

INSTANTIATE_TEST_SUITE_P(, TopK, ::testing::ValuesIn(std::begin(prism::top_k_implementations),
                                                     std::end(prism::top_k_implementations)),
                         impl_name);

}  // namespace
