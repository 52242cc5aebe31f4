// SPDX-License-Identifier: Apache-2.0
// The segmented family against a host reference written from the documentation (float64 sums,
// exact minima, maxima and positions with the documented NaN and zero rules, integer sums and
// scans wrapping as documented), in every registered implementation, and the conformance kit.
// Plain C++: the same calls a consumer of the compiled library makes.
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>
#include <prism/segmented.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

using element_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

// ---- the reference ----------------------------------------------------------------------------------

template <class T>
auto bits_of(T v) {
  return element_bits(v);
}

// The documented min (largest: max) of two elements: a NaN wins, of two NaNs the smaller bits; of
// -0.0 and +0.0 the negative for min, the positive for max.
template <class T>
T reference_extremum(T a, T b, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) && std::isnan(b)) return bits_of(a) <= bits_of(b) ? a : b;
      return std::isnan(a) ? a : b;
    }
    if (a == b && a == T(0)) return (std::signbit(a) != largest) ? a : b;
  }
  if (largest) return b > a ? b : a;
  return b < a ? b : a;
}

template <class T>
T empty_extremum(bool largest) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) return largest ? -L::infinity() : L::infinity();
  return largest ? L::lowest() : L::max();
}

// Wrapping addition in T (integers as unsigned), exact float64 addition is done separately.
template <class T>
T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

struct segment {
  std::size_t begin, end;
};

template <class I>
std::vector<segment> segments_from(const std::vector<I>& offsets) {
  std::vector<segment> s;
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) s.push_back({std::size_t(offsets[k]), std::size_t(offsets[k + 1])});
  return s;
}

// ---- inputs -----------------------------------------------------------------------------------------

// Random elements with ties and, for floats, NaNs of two payloads and both zeros now and then.
template <class T>
std::vector<T> awkward_values(std::size_t n, std::uint64_t seed) {
  auto v = random_vector<T>(n, seed);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix(seed + 3 * i + 1);
    if (r % 16 == 0 && i > 0) v[i] = v[i - 1];  // a tie with the element before
    if constexpr (std::is_floating_point_v<T>) {
      if (r % 97 == 1) v[i] = std::numeric_limits<T>::quiet_NaN();
      if (r % 97 == 2) v[i] = -std::numeric_limits<T>::quiet_NaN();
      if (r % 31 == 3) v[i] = T(0);
      if (r % 31 == 4) v[i] = -T(0);
    }
  }
  return v;
}

enum class layout { random, tiny, one, huge_and_tiny, window, long_and_short, all_empty };
const layout layouts[] = {layout::random,        layout::tiny,           layout::one,      layout::huge_and_tiny,
                          layout::window,        layout::long_and_short, layout::all_empty};

// Offsets over n elements: non-decreasing, within [0, n].
template <class I>
std::vector<I> offsets_for(layout l, std::size_t n, std::uint64_t seed) {
  std::vector<I> o;
  std::uint64_t r = seed;
  const auto next = [&](std::uint64_t m) { r = mix(r); return m == 0 ? 0 : r % m; };
  const auto cut = [&](std::size_t from, std::size_t to, std::uint64_t longest) {
    for (std::size_t at = from; at < to;) {
      o.push_back(static_cast<I>(at));
      at = std::min(to, at + static_cast<std::size_t>(next(longest + 1)));
    }
  };
  switch (l) {
    case layout::random: cut(0, n, 2 * 37); break;
    case layout::tiny: cut(0, n, 3); break;
    case layout::one: o.push_back(0); break;
    case layout::huge_and_tiny:  // empty and tiny segments around one of nearly everything
      o = {0, 0, static_cast<I>(std::min<std::size_t>(n, 1))};
      o.push_back(static_cast<I>(n > 3 ? n - 2 : n));
      o.push_back(static_cast<I>(n > 3 ? n - 2 : n));
      break;
    case layout::window: cut(n / 5, n - n / 7, 300); break;  // elements before and after no segment
    case layout::long_and_short:  // both sides of raw's warp/block split (1024 elements)
      for (std::size_t at = 0; at < n;) {
        o.push_back(static_cast<I>(at));
        const std::size_t len = next(2) == 0 ? 1000 + next(3000) : next(40);
        at = std::min(n, at + len);
      }
      break;
    case layout::all_empty: o = {0, 0, 0, 0}; break;
  }
  o.push_back(static_cast<I>(l == layout::window ? n - n / 7 : l == layout::all_empty ? 0 : n));
  return o;
}

// ---- one check of every operation -------------------------------------------------------------------

template <class T, class S>
void check_all(impl which, const std::vector<T>& x, const S& segs_arg, const std::vector<segment>& segs,
               std::size_t offset) {
  using P = prism::segment_position_t<S>;
  using Sum = prism::sum_type<T>;
  const memory where = memory_of(which);
  const std::size_t count = segs.size();
  placed_array<T> values(x, where, offset);
  placed_array<Sum> sums(std::vector<Sum>(count, poison<Sum>()), where, offset);
  placed_array<T> minima(std::vector<T>(count, poison<T>()), where, offset),
      maxima(std::vector<T>(count, poison<T>()), where, offset);
  placed_array<P> argmin(std::vector<P>(count, poison<P>()), where, offset),
      argmax(std::vector<P>(count, poison<P>()), where, offset);
  placed_array<T> inclusive(std::vector<T>(x.size(), poison<T>()), where, offset),
      exclusive(std::vector<T>(x.size(), poison<T>()), where, offset), in_place(x, where, offset);
  const auto policy = prism::par.with(which);
  const auto run_all = [&](auto&& seg) {
    prism::segmented_sum(policy, values.view(), seg, sums.view());
    prism::segmented_min(policy, values.view(), seg, minima.view());
    prism::segmented_max(policy, values.view(), seg, maxima.view());
    prism::segmented_argmin(policy, values.view(), seg, argmin.view());
    prism::segmented_argmax(policy, values.view(), seg, argmax.view());
    prism::segmented_inclusive_scan(policy, values.view(), seg, inclusive.view());
    prism::segmented_exclusive_scan(policy, values.view(), seg, exclusive.view());
    prism::segmented_inclusive_scan(policy, in_place.view(), seg, in_place.view());
  };
  if constexpr (std::is_same_v<S, prism::fixed_segments>) {
    run_all(segs_arg);
  } else {
    placed_array<typename S::value_type> offsets(segs_arg, where, offset);
    run_all(offsets.view());
    synchronize_for(which);
    ASSERT_TRUE(same_bits(offsets.values(), segs_arg)) << "the offsets changed";
  }
  synchronize_for(which);
  const auto got_sums = sums.values();
  const auto got_min = minima.values(), got_max = maxima.values();
  const auto got_argmin = argmin.values(), got_argmax = argmax.values();
  const auto got_inclusive = inclusive.values(), got_exclusive = exclusive.values(), got_in_place = in_place.values();
  ASSERT_TRUE(same_bits(values.values(), x)) << "the values changed";
  constexpr double eps = std::numeric_limits<T>::epsilon();
  std::vector<T> want_inclusive(x.size(), poison<T>()), want_exclusive(x.size(), poison<T>());
  // Per element: how many terms its inclusive prefix has (0: in no segment) and their magnitude.
  std::vector<std::size_t> terms(x.size(), 0);
  std::vector<double> prefix_magnitude(x.size(), 0), exclusive_magnitude(x.size(), 0);
  for (std::size_t s = 0; s < count; ++s) {
    const auto [b, e] = segs[s];
    // Sum: float64 against the tolerance of a float sum of e - b terms; integers exactly (wrapping).
    double exact = 0, magnitude = 0;
    Sum wrapped{};
    T lo = empty_extremum<T>(false), hi = empty_extremum<T>(true);
    std::int64_t at_lo = -1, at_hi = -1;
    T running{};
    double running_magnitude = 0;
    for (std::size_t i = b; i < e; ++i) {
      exact += static_cast<double>(x[i]);
      magnitude += std::abs(static_cast<double>(x[i]));
      wrapped = wrapping_add(wrapped, static_cast<Sum>(x[i]));
      lo = reference_extremum(lo, x[i], false);
      hi = reference_extremum(hi, x[i], true);
      // The first NaN, else the first of the extreme value.
      const auto better = [&](std::int64_t at, bool largest) {
        if (at < 0) return true;
        const T c = x[at];
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(c)) return false;
          if (std::isnan(x[i])) return true;
        }
        return largest ? x[i] > c : x[i] < c;
      };
      if (better(at_lo, false)) at_lo = static_cast<std::int64_t>(i);
      if (better(at_hi, true)) at_hi = static_cast<std::int64_t>(i);
      want_exclusive[i] = running;
      running = wrapping_add(running, x[i]);
      want_inclusive[i] = running;
      exclusive_magnitude[i] = running_magnitude;
      running_magnitude += std::abs(static_cast<double>(x[i]));
      terms[i] = i - b + 1;
      prefix_magnitude[i] = running_magnitude;
    }
    SCOPED_TRACE(::testing::Message() << "segment " << s << " [" << b << ", " << e << ")");
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(exact)) {
        ASSERT_TRUE(std::isnan(got_sums[s])) << got_sums[s];
      } else {
        ASSERT_LE(std::abs(static_cast<double>(got_sums[s]) - exact), 2 * eps * magnitude * double(e - b + 1))
            << "sum " << got_sums[s] << ", want " << exact;
      }
    } else {
      ASSERT_EQ(got_sums[s], wrapped) << "sum";
    }
    ASSERT_EQ(bits_of(got_min[s]), bits_of(lo)) << "min " << +got_min[s] << ", want " << +lo;
    ASSERT_EQ(bits_of(got_max[s]), bits_of(hi)) << "max " << +got_max[s] << ", want " << +hi;
    ASSERT_EQ(static_cast<std::int64_t>(got_argmin[s]), at_lo) << "argmin";
    ASSERT_EQ(static_cast<std::int64_t>(got_argmax[s]), at_hi) << "argmax";
  }
  // Scans: integers exactly; floats within the tolerance of their prefix; untouched outside segments.
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (const auto* pair : {&got_inclusive, &got_exclusive, &got_in_place}) {
      const auto& got = *pair;
      const T want = pair == &got_exclusive ? want_exclusive[i] : want_inclusive[i];
      if constexpr (std::is_floating_point_v<T>) {
        if (pair == &got_in_place && terms[i] == 0) {  // not written: the input as it was
          ASSERT_TRUE(same_bits(std::vector<T>{got[i]}, std::vector<T>{x[i]})) << "in place, element " << i;
          continue;
        }
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got[i])) << "scan element " << i;
          continue;
        }
        // The exclusive prefix leaves element i out (a NaN there is not in it).
        const double magnitude = pair == &got_exclusive ? exclusive_magnitude[i] : prefix_magnitude[i];
        ASSERT_LE(std::abs(static_cast<double>(got[i]) - static_cast<double>(want)),
                  2 * eps * magnitude * double(terms[i] + 1))
            << "scan element " << i << ": got " << got[i] << ", want " << want;
      } else {
        ASSERT_EQ(got[i], pair == &got_in_place && terms[i] == 0 ? x[i] : want) << "scan element " << i;
      }
    }
  }
}

class Segmented : public ::testing::TestWithParam<impl> {};

const std::size_t sizes[] = {0, 1, 3, 31, 33, 1000, 1025, 4099, 100003};

TEST_P(Segmented, EveryTypeLayoutAndOffsetType) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(element_types{}, [&]<class T>() {
    for (std::size_t n : sizes) {
      for (layout l : layouts) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << type_name<T>() << " n " << n << " layout " << int(l) << " seed " << seed);
        const auto x = awkward_values<T>(n, seed);
        const auto o32 = offsets_for<std::int32_t>(l, n, seed);
        const auto o64 = offsets_for<std::int64_t>(l, n, seed + 1);
        check_all<T>(GetParam(), x, o32, segments_from(o32), 0);
        check_all<T>(GetParam(), x, o64, segments_from(o64), 1);
      }
    }
  });
}

TEST_P(Segmented, FixedSizeRows) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::int32_t, double, std::uint64_t>{}, [&]<class T>() {
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{0, 5}, {5, 0}, {1, 1}, {7, 1}, {3, 1000},
                              {100, 7}, {9, 1500}, {2000, 33},
                              // raw's short rows: blocks of 256 (128 of 8 bytes) rows, a partial last one
                              {1000, 32}, {777, 16}, {300, 2}, {513, 31}, {129, 8}}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << rows << " x " << cols << " seed " << seed);
      const auto x = awkward_values<T>(rows * cols, seed);
      std::vector<segment> segs;
      for (std::size_t r = 0; r < rows; ++r) segs.push_back({r * cols, r * cols + cols});
      if (cols == 0) {  // scans find no segment in no values; the reductions write `rows` identities
        check_all<T>(GetParam(), x, prism::fixed_segments{0}, std::vector<segment>{}, 0);
        const memory where = memory_of(GetParam());
        placed_array<T> v(x, where), m(std::vector<T>(rows, poison<T>()), where);
        placed_array<std::int64_t> a(std::vector<std::int64_t>(rows, 7), where);
        prism::segmented_max(prism::par.with(GetParam()), v.view(), prism::fixed_segments{0}, m.view());
        prism::segmented_argmax(prism::par.with(GetParam()), v.view(), prism::fixed_segments{0}, a.view());
        synchronize_for(GetParam());
        for (T got : m.values()) EXPECT_EQ(bits_of(got), bits_of(empty_extremum<T>(true)));
        for (std::int64_t got : a.values()) EXPECT_EQ(got, -1);
      } else {
        check_all<T>(GetParam(), x, prism::fixed_segments{cols}, segs, 1);
      }
    }
  });
}

// Hand-counted: NaNs, both zeros, ties, empty segments.
TEST_P(Segmented, DocumentedValues) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {3, 1, 1, 3, 0.0f, -0.0f, 0.0f, 2, nan, -nan, nan, 5, -1};
  const std::vector<std::int64_t> o = {0, 4, 4, 7, 11, 13};
  const memory where = memory_of(GetParam());
  const auto p = prism::par.with(GetParam());
  placed_array<float> v(x, where), lo(std::vector<float>(5, 9), where), hi(std::vector<float>(5, 9), where),
      sums(std::vector<float>(5, 9), where);
  placed_array<std::int64_t> offsets(o, where), amin(std::vector<std::int64_t>(5, 9), where),
      amax(std::vector<std::int64_t>(5, 9), where);
  prism::segmented_min(p, v.view(), offsets.view(), lo.view());
  prism::segmented_max(p, v.view(), offsets.view(), hi.view());
  prism::segmented_argmin(p, v.view(), offsets.view(), amin.view());
  prism::segmented_argmax(p, v.view(), offsets.view(), amax.view());
  prism::segmented_sum(p, v.view(), offsets.view(), sums.view());
  synchronize_for(GetParam());
  const auto l = lo.values(), h = hi.values(), s = sums.values();
  EXPECT_EQ(l[0], 1.0f);
  EXPECT_EQ(h[0], 3.0f);
  EXPECT_EQ(l[1], inf);  // empty
  EXPECT_EQ(h[1], -inf);
  EXPECT_TRUE(l[2] == 0 && std::signbit(l[2]));  // -0.0 is the min of the zeros
  EXPECT_TRUE(h[2] == 0 && !std::signbit(h[2]));
  EXPECT_TRUE(std::isnan(l[3]) && !std::signbit(l[3]));  // +NaN's bits are the smaller
  EXPECT_TRUE(std::isnan(h[3]) && !std::signbit(h[3]));
  EXPECT_EQ(l[4], -1.0f);
  EXPECT_EQ(h[4], 5.0f);
  EXPECT_EQ(amin.values(), (std::vector<std::int64_t>{1, -1, 4, 8, 12}));
  EXPECT_EQ(amax.values(), (std::vector<std::int64_t>{0, -1, 4, 8, 11}));
  EXPECT_EQ(s[0], 8.0f);
  EXPECT_EQ(s[1], 0.0f);
  EXPECT_TRUE(std::isnan(s[3]));
}

// cpu refuses broken offsets in calls with nothing to compute too: no segment to reduce, no value
// to scan.
TEST(SegmentedRefusals, BrokenOffsetsWithoutWorkOnTheCpu) {
  const auto p = prism::par.with(impl::cpu);
  const std::vector<float> three{1.0f, 2.0f, 3.0f}, none;
  std::vector<float> no_sums, scanned;
  std::vector<std::int64_t> no_positions;
  for (const std::vector<std::int64_t>& one : {std::vector<std::int64_t>{5}, std::vector<std::int64_t>{-1}}) {
    EXPECT_THROW(prism::segmented_sum(p, three, one, no_sums), std::invalid_argument);
    EXPECT_THROW(prism::segmented_argmin(p, three, one, no_positions), std::invalid_argument);
  }
  const std::vector<std::int32_t> past{0, 2}, backwards{1, 0};
  EXPECT_THROW(prism::segmented_inclusive_scan(p, none, past, scanned), std::invalid_argument);
  EXPECT_THROW(prism::segmented_exclusive_scan(p, none, backwards, scanned), std::invalid_argument);
  EXPECT_NO_THROW(prism::segmented_inclusive_scan(p, none, std::vector<std::int32_t>{0, 0}, scanned));
}

// Broken offsets: refused by cpu with every output untouched; the GPU implementations leave the
// results unspecified but touch nothing outside the arrays.
TEST_P(Segmented, BrokenOffsets) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const auto p = prism::par.with(which);
  const std::size_t n = 5000, guard = 512;
  placed_array<float> v(random_vector<float>(n, fresh_seed()), where);
  const std::vector<std::vector<std::int64_t>> broken = {
      {0, 100, 50, 5000}, {-3, 10, 20, 30}, {0, 10, 20, 5001}, {4000, 3000, 2000, 1000}, {0, 6000, 7000, 8000}};
  for (const auto& o : broken) {
    SCOPED_TRACE(::testing::Message() << "offsets " << o[0] << ", " << o[1] << ", " << o[2] << ", " << o[3]);
    placed_array<std::int64_t> offsets(o, where);
    placed_array<float> sums(std::vector<float>(3 + 2 * guard, -7.0f), where), scan(std::vector<float>(n + 2 * guard, -7.0f), where);
    placed_array<std::int64_t> positions(std::vector<std::int64_t>(3 + 2 * guard, -7), where);
    const auto inner = sums.view().subspan(guard, 3);
    const auto inner_positions = positions.view().subspan(guard, 3);
    const auto inner_scan = scan.view().subspan(guard, n);
    if (which == impl::cpu) {
      EXPECT_THROW(prism::segmented_sum(p, v.view(), offsets.view(), inner), std::invalid_argument);
      EXPECT_THROW(prism::segmented_argmax(p, v.view(), offsets.view(), inner_positions), std::invalid_argument);
      EXPECT_THROW(prism::segmented_inclusive_scan(p, v.view(), offsets.view(), inner_scan), std::invalid_argument);
      for (float f : sums.values()) ASSERT_EQ(f, -7.0f);
      for (float f : scan.values()) ASSERT_EQ(f, -7.0f);
      for (std::int64_t i : positions.values()) ASSERT_EQ(i, -7);
      continue;
    }
    prism::segmented_sum(p, v.view(), offsets.view(), inner);
    prism::segmented_argmax(p, v.view(), offsets.view(), inner_positions);
    prism::segmented_inclusive_scan(p, v.view(), offsets.view(), inner_scan);
    prism::segmented_exclusive_scan(p, v.view(), offsets.view(), inner_scan);
    synchronize_for(which);
    const auto a = sums.values(), s = scan.values();
    const auto q = positions.values();
    for (std::size_t i = 0; i < guard; ++i) {
      ASSERT_EQ(a[i], -7.0f);
      ASSERT_EQ(a[guard + 3 + i], -7.0f);
      ASSERT_EQ(q[i], -7);
      ASSERT_EQ(q[guard + 3 + i], -7);
      ASSERT_EQ(s[i], -7.0f);
      ASSERT_EQ(s[guard + n + i], -7.0f);
    }
    for (std::size_t k = 0; k < 3; ++k) ASSERT_TRUE(q[guard + k] >= -1 && q[guard + k] < std::int64_t(n)) << q[guard + k];
  }
}

TEST_P(Segmented, BadArgumentsRefusedWithNothingWritten) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const memory where = memory_of(which);
  const auto p = prism::par.with(which);
  placed_array<float> v(std::vector<float>(64, 1.0f), where), out(std::vector<float>(64, -1.0f), where);
  placed_array<std::int32_t> offsets(std::vector<std::int32_t>{0, 8, 16, 64}, where);
  const auto x = v.view();
  const auto o = out.view();
  const auto off = offsets.view();
  EXPECT_THROW(prism::segmented_sum(p, x, off, o.subspan(0, 2)), std::invalid_argument);  // 3 segments
  EXPECT_THROW(prism::segmented_sum(p, x, off, o.subspan(0, 4)), std::invalid_argument);
  EXPECT_THROW(prism::segmented_min(p, x, prism::fixed_segments{7}, o.subspan(0, 9)), std::invalid_argument);  // 63 != 64
  EXPECT_THROW(prism::segmented_inclusive_scan(p, x, prism::fixed_segments{5}, o), std::invalid_argument);
  // (2^63 + 32) x 2 wraps to 64: the values' count, but no two segments of that size.
  EXPECT_THROW(prism::segmented_sum(p, x, prism::fixed_segments{SIZE_MAX / 2 + 33}, o.subspan(0, 2)),
               std::invalid_argument);
  EXPECT_THROW(prism::segmented_min(p, x, prism::fixed_segments{SIZE_MAX / 2 + 33}, o.subspan(0, 2)),
               std::invalid_argument);
  EXPECT_THROW(prism::segmented_inclusive_scan(p, x, off, o.subspan(0, 63)), std::invalid_argument);
  EXPECT_THROW(prism::segmented_inclusive_scan(p, x, off.subspan(0, 0), o), std::invalid_argument);
  EXPECT_THROW(prism::segmented_inclusive_scan(p, x.subspan(0, 63), off, prism::span<float>(const_cast<float*>(x.data()) + 1, 63)),
               std::invalid_argument);  // in place partly
  EXPECT_THROW(prism::segmented_sum(p, x, off, prism::span<float>(const_cast<float*>(x.data()), 3)),
               std::invalid_argument);  // the output over the values
  EXPECT_THROW(prism::segmented_sum(p, prism::span<const float>(nullptr, 64), off, o.subspan(0, 3)),
               std::invalid_argument);
  synchronize_for(which);
  for (float f : out.values()) EXPECT_EQ(f, -1.0f);
  for (float f : v.values()) EXPECT_EQ(f, 1.0f);
}

// Millions of elements: more tiles than the GPU holds blocks, so raw's blocks carry segments across
// several tiles each, and long segments cross blocks; and raw's sums come out the same twice.
TEST_P(Segmented, ManyTilesPerBlock) {
  const impl which = GetParam();
  if (which == impl::cpu || !prism::gpu_available()) GTEST_SKIP() << "the GPU implementations' many-tile paths";
  const std::size_t n = large(6'000'007);
  for_each_type(types<float, std::int64_t>{}, [&]<class T>() {
    for (layout l : {layout::random, layout::one, layout::huge_and_tiny, layout::window, layout::long_and_short}) {
      if (which == impl::raw_naive && (l == layout::one || l == layout::huge_and_tiny)) continue;  // one thread
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << " n " << n << " layout " << int(l) << " seed " << seed);
      const auto x = awkward_values<T>(n, seed);
      const auto o = offsets_for<std::int64_t>(l, n, seed);
      check_all<T>(which, x, o, segments_from(o), 0);
    }
    const std::size_t cols = 1000;
    std::vector<segment> segs;
    for (std::size_t r = 0; r < n / cols; ++r) segs.push_back({r * cols, r * cols + cols});
    check_all<T>(which, awkward_values<T>(n / cols * cols, fresh_seed()), prism::fixed_segments{cols}, segs, 1);
  });
  if (which != impl::raw) return;
  // One segment of everything, twice: the same bits.
  auto x = random_vector<float>(n, fresh_seed());
  placed_array<float> v(x, memory::device), a(std::vector<float>(1, poison<float>()), memory::device),
      b(std::vector<float>(1, poison<float>()), memory::device);
  const std::vector<std::int64_t> whole{0, static_cast<std::int64_t>(n)};
  placed_array<std::int64_t> offsets(whole, memory::device);
  prism::segmented_sum(prism::par.with(which), v.view(), offsets.view(), a.view());
  prism::segmented_sum(prism::par.with(which), v.view(), offsets.view(), b.view());
  synchronize_for(which);
  EXPECT_TRUE(same_bits(a.values(), b.values())) << a.values()[0] << " then " << b.values()[0];
}

INSTANTIATE_TEST_SUITE_P(, Segmented,
                         ::testing::ValuesIn(std::begin(prism::segmented_implementations),
                                             std::end(prism::segmented_implementations)),
                         impl_name);

// ---- past 2^32 elements (GPU only): a segment longer than 2^32 among short ones -----------------

class GpuSegmentedHuge : public ::testing::TestWithParam<impl> {};

TEST_P(GpuSegmentedHuge, SumPast4G) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::size_t n = (std::size_t{1} << 32) + 4099;
  prism::device_buffer<std::int32_t> x(n);
  fill_periodic(x.data(), n, std::vector<std::int32_t>{1, 2, 3, -1});  // period 4, sum 5
  const std::vector<std::int64_t> o = {0, 3, 1000, std::int64_t(n) - 3, std::int64_t(n)};
  prism::device_buffer<std::int64_t> offsets(o), sums(4);
  prism::segmented_sum(prism::par.with(GetParam()), x.view(), offsets.view(), sums.view());
  const auto got = sums.to_host();
  // The sum of pattern[i % 4] over [b, e): whole periods of 5, then the ends one by one.
  const auto reference = [](std::int64_t b, std::int64_t e) {
    const std::int64_t pattern[4] = {1, 2, 3, -1};
    std::int64_t s = 0, i = b;
    for (; i < e && i % 4 != 0; ++i) s += pattern[i % 4];
    const std::int64_t periods = (e - i) / 4;
    s += periods * 5;
    for (i += periods * 4; i < e; ++i) s += pattern[i % 4];
    return s;
  };
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(got[k], reference(o[k], o[k + 1])) << k;
}

// Rows of 32 past 2^32 elements: raw's short-row kernel (2^27 + 129 rows), every row's sum 8 x 5.
TEST_P(GpuSegmentedHuge, RowsOf32Past4G) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::size_t cols = 32, rows = (std::size_t{1} << 27) + 129, n = rows * cols;
  prism::device_buffer<std::int32_t> x(n);
  fill_periodic(x.data(), n, std::vector<std::int32_t>{1, 2, 3, -1});
  prism::device_buffer<std::int64_t> sums(rows);
  prism::fill(prism::par.with(impl::raw), sums.view(), std::int64_t{-7});
  prism::segmented_sum(prism::par.with(GetParam()), x.view(), prism::fixed_segments{cols}, sums.view());
  EXPECT_EQ(prism::min(sums.view()), 40);
  EXPECT_EQ(prism::max(sums.view()), 40);
}

INSTANTIATE_TEST_SUITE_P(, GpuSegmentedHuge, ::testing::Values(impl::thrust, impl::raw, impl::cub), impl_name);

// ---- the conformance kit: the inclusive scan of float rows ----------------------------------------
// Rows of 4 elements where they divide n, else of 2, else of 1.

struct segmented_scan_float {
  using T = float;
  using R = float;
  static constexpr const char* name = "segmented_inclusive_scan";
  static std::size_t row(std::size_t n) { return n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1; }
  static std::span<const impl> implementations() { return prism::segmented_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::segmented_inclusive_scan(policy, x, prism::fixed_segments{row(x.size())}, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    std::vector<double> r(in.size());
    const std::size_t w = row(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) r[i] = (i % w == 0 ? 0.0 : r[i - 1]) + in[i];
    return r;
  }
  static double tolerance(const std::vector<float>&) { return 8 * std::numeric_limits<float>::epsilon(); }
  static bool capturable(impl) { return true; }  // nothing waits
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    constexpr auto f = &bytes_at<float>;
    constexpr auto i = &bytes_at<std::int64_t>;
    return {
        // The scan's output partly over its input; a reduction's over the values and the offsets.
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_inclusive_scan(p, f(b, 0, 8), prism::fixed_segments{2}, f(b, 4, 8));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_sum(p, f(b, 0, 8), prism::fixed_segments{4}, f(b, 0, 2));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_argmin(p, f(b, 0, 8), i(b, 64, 3), i(b, 72, 2));
        },
    };
  }
};

using segmented_kit = ::testing::Types<segmented_scan_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Segmented, Conformance, segmented_kit);
INSTANTIATE_TYPED_TEST_SUITE_P(Segmented, GpuConformance, segmented_kit);

}  // namespace
