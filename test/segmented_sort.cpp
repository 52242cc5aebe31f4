// SPDX-License-Identifier: Apache-2.0
// The segmented sorts against a host reference (std::stable_sort of each segment with the family's
// order written independently in test/testing.hpp: sorts_before), in every registered
// implementation, and the conformance kit. Plain C++: the calls a consumer of the library makes.
//
// Results are compared bit for bit: a -0.0 where a +0.0 belongs (stability among equal keys), a NaN
// out of place, a value that did not travel with its key, or an element outside every segment that
// was written all fail. Values are the keys' input positions, so they show stability too.
#include <prism/segmented_sort.hpp>
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

// ---- inputs ------------------------------------------------------------------------------------------

// Keys that sort awkwardly: for floats both NaNs (with two payloads each), both zeros, both
// infinities, denormals and the extremes; for integers the extremes and zero; a quarter of the time
// one of those (so keys repeat), random bits otherwise (every sign and exponent).
template <class T>
std::vector<T> awkward_keys(std::size_t n, std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> pool;
  if constexpr (std::is_floating_point_v<T>) {
    const auto with_payload = [](T nan, unsigned payload) {
      auto b = element_bits(nan);
      b |= decltype(b)(payload);
      T x;
      std::memcpy(&x, &b, sizeof(T));
      return x;
    };
    pool = {L::quiet_NaN(), -L::quiet_NaN(), with_payload(L::quiet_NaN(), 5), with_payload(-L::quiet_NaN(), 5),
            L::infinity(), -L::infinity(), T(0), -T(0), L::denorm_min(), -L::denorm_min(), L::max(), L::lowest(),
            T(1), T(-1)};
  } else {
    pool = {L::min(), L::max(), T(0), T(1), static_cast<T>(L::max() / 2), T(7)};
  }
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix(seed ^ mix(i));
    if (r % 4 == 0) {
      v[i] = pool[(r >> 8) % pool.size()];
    } else {
      auto b = static_cast<decltype(element_bits(T{}))>(mix(r));
      std::memcpy(&v[i], &b, sizeof(T));
    }
  }
  return v;
}

// Segments of the shapes that matter, as S + 1 offsets into n keys.
struct shape {
  const char* name;
  std::vector<std::int64_t> offsets;
};

std::vector<std::int64_t> offsets_of(const std::vector<std::size_t>& sizes, std::size_t first = 0) {
  std::vector<std::int64_t> o{static_cast<std::int64_t>(first)};
  for (std::size_t s : sizes) o.push_back(o.back() + static_cast<std::int64_t>(s));
  return o;
}

std::vector<shape> shapes(std::uint64_t seed) {
  std::vector<std::size_t> tiny(3001), mixed;
  for (std::size_t i = 0; i < tiny.size(); ++i) tiny[i] = mix(seed + i) % 5;  // 0 to 4: many empty
  // Around raw's tiles (a short segment's: 2048 keys, 1024 keys with values; a long segment's:
  // 3840 4-byte elements, 1792 of 8 bytes, 768 of 16) and longer: several merge passes.
  for (std::size_t s : {0, 1, 2, 3, 31, 767, 768, 769, 1023, 1024, 1025, 1791, 1792, 1793, 2047, 2048, 2049, 0,
                        3839, 3840, 3841, 4097, 7681, 9000, 0, 5, 20000})
    mixed.push_back(s);
  std::vector<shape> all;
  all.push_back({"one segment of nothing", offsets_of({0})});
  all.push_back({"only empty segments", offsets_of({0, 0, 0})});
  all.push_back({"one segment", offsets_of({4099})});
  all.push_back({"one huge segment", offsets_of({large(300001)})});
  all.push_back({"many tiny", offsets_of(tiny)});
  all.push_back({"mixed sizes", offsets_of(mixed)});
  // Keys before the first offset and after the last: in no segment, never written.
  all.push_back({"keys outside the segments", offsets_of({3, 0, 2100, 7}, 13)});
  return all;
}

// ---- the reference -------------------------------------------------------------------------------------

// Each segment's positions stably sorted by their keys; positions in no segment map to themselves
// (and are checked to hold their poison).
template <class T>
std::vector<std::size_t> reference_permutation(const std::vector<T>& keys, const std::vector<std::int64_t>& offsets,
                                               sort_order order) {
  std::vector<std::size_t> p(keys.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    std::stable_sort(p.begin() + offsets[s], p.begin() + offsets[s + 1], [&](std::size_t i, std::size_t j) {
      return order == sort_order::ascending ? sorts_before(keys[i], keys[j]) : sorts_before(keys[j], keys[i]);
    });
  }
  return p;
}

// want[i] = keys[p[i]] inside the segments, `outside` elsewhere.
template <class T>
std::vector<T> expected(const std::vector<T>& keys, const std::vector<std::size_t>& p,
                        const std::vector<std::int64_t>& offsets, T outside) {
  std::vector<T> want(keys.size(), outside);
  for (std::int64_t i = offsets.front(); i < offsets.back(); ++i) want[i] = keys[p[i]];
  return want;
}

// In place, the elements in no segment keep what they were.
template <class T>
std::vector<T> kept_outside(std::vector<T> want, const std::vector<T>& original, const std::vector<std::int64_t>& offsets) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto at = static_cast<std::int64_t>(i);
    if (at < offsets.front() || at >= offsets.back()) want[i] = original[i];
  }
  return want;
}

template <class T>
::testing::AssertionResult bits_match(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << what << ": size " << got.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (element_bits(got[i]) != element_bits(want[i])) {
      return ::testing::AssertionFailure() << what << " " << i << ": got " << +got[i] << " (bits "
                                           << element_bits(got[i]) << "), want " << +want[i] << " (bits "
                                           << element_bits(want[i]) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// The offsets in the type I, placed where the implementation needs them.
template <class I>
std::vector<I> offsets_as(const std::vector<std::int64_t>& o) {
  return {o.begin(), o.end()};
}

// ---- every type, shape, order, offset type; keys alone and with values; in place and not -------------------

class SegmentedSort : public ::testing::TestWithParam<impl> {};

template <class T, class I, class V>
void check_shape(impl which, const shape& sh, sort_order order, bool in_place, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " keys, " << sizeof(I) * 8 << "-bit offsets, "
                                    << sizeof(V) * 8 << "-bit values, " << sh.name << ", " << prism::name(order)
                                    << (in_place ? ", in place" : "") << ", seed " << seed);
  const std::size_t n = static_cast<std::size_t>(sh.offsets.back()) + (sh.offsets.front() > 0 ? 5 : 0);
  const auto keys = awkward_keys<T>(n, seed);
  std::vector<V> values(n);
  std::iota(values.begin(), values.end(), V{0});
  const memory where = memory_of(which);
  placed_array<I> offsets(offsets_as<I>(sh.offsets), where, 1);
  const auto policy = prism::par.with(which);
  const auto p = reference_permutation(keys, sh.offsets, order);
  // Keys alone.
  {
    placed_array<T> in(keys, where, 1), out(std::vector<T>(n, poison<T>()), where, 1);
    if (in_place) {
      prism::segmented_sort(policy, in.view(), offsets.view(), order);
    } else {
      prism::segmented_sort(policy, in.view(), offsets.view(), out.view(), order);
    }
    synchronize_for(which);
    if (in_place) {
      ASSERT_TRUE(bits_match(in.values(), kept_outside(expected(keys, p, sh.offsets, T{}), keys, sh.offsets), "key"));
    } else {
      ASSERT_TRUE(bits_match(out.values(), expected(keys, p, sh.offsets, poison<T>()), "key"));
      ASSERT_TRUE(bits_match(in.values(), keys, "input key"));
    }
  }
  // Keys with values.
  placed_array<T> k(keys, where), k_out(std::vector<T>(n, poison<T>()), where, 1);
  placed_array<V> v(values, where, 1), v_out(std::vector<V>(n, poison<V>()), where);
  if (in_place) {
    prism::segmented_sort_by_key(policy, k.view(), v.view(), offsets.view(), order);
  } else {
    prism::segmented_sort_by_key(policy, k.view(), v.view(), offsets.view(), k_out.view(), v_out.view(), order);
  }
  synchronize_for(which);
  // In place, the keys outside every segment stay; out of place, their outputs keep the poison.
  const auto want_keys = expected(keys, p, sh.offsets, poison<T>());
  const auto want_values = expected(values, p, sh.offsets, poison<V>());
  if (in_place) {
    ASSERT_TRUE(bits_match(k.values(), kept_outside(want_keys, keys, sh.offsets), "key"));
    ASSERT_TRUE(bits_match(v.values(), kept_outside(want_values, values, sh.offsets), "value"));
  } else {
    ASSERT_TRUE(bits_match(k_out.values(), want_keys, "key"));
    ASSERT_TRUE(bits_match(v_out.values(), want_values, "value"));
    ASSERT_TRUE(bits_match(k.values(), keys, "input key"));
    ASSERT_TRUE(bits_match(v.values(), values, "input value"));
  }
}

TEST_P(SegmentedSort, EveryKeyTypeAndShape) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  for_each_type(key_types{}, [&]<class T>() {
    for (const shape& sh : shapes(seed)) {
      for (sort_order order : {sort_order::ascending, sort_order::descending}) {
        check_shape<T, std::int64_t, std::uint32_t>(GetParam(), sh, order, false, seed);
      }
    }
  });
}

TEST_P(SegmentedSort, OffsetTypesValueSizesInPlace) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  for_each_type(types<float, std::int64_t, std::uint32_t, double>{}, [&]<class T>() {
    for (const shape& sh : shapes(seed)) {
      check_shape<T, std::int32_t, std::uint64_t>(GetParam(), sh, sort_order::ascending, false, seed);
      check_shape<T, std::int32_t, std::uint32_t>(GetParam(), sh, sort_order::descending, true, seed + 1);
      check_shape<T, std::int64_t, std::uint64_t>(GetParam(), sh, sort_order::ascending, true, seed + 2);
    }
  });
}

// The rows of a matrix: fixed_segments, sizes on either side of raw's tiles.
TEST_P(SegmentedSort, FixedSizeRows) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  for_each_type(types<float, double, std::int32_t, std::uint64_t>{}, [&]<class T>() {
    for (std::size_t cols : {std::size_t{1}, std::size_t{7}, std::size_t{128}, std::size_t{1024}, std::size_t{2048},
                             std::size_t{2049}, std::size_t{3840}, std::size_t{3841}, std::size_t{1} << 16}) {
      const std::size_t rows = std::max<std::size_t>(1, large(300000) / cols);
      const std::size_t n = rows * cols;
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", " << rows << " rows of " << cols << ", seed " << seed);
      const auto keys = awkward_keys<T>(n, seed + cols);
      std::vector<std::int64_t> offsets(rows + 1);
      for (std::size_t r = 0; r <= rows; ++r) offsets[r] = static_cast<std::int64_t>(r * cols);
      for (sort_order order : {sort_order::ascending, sort_order::descending}) {
        const auto p = reference_permutation(keys, offsets, order);
        const memory where = memory_of(which);
        placed_array<T> in(keys, where), out(std::vector<T>(n, poison<T>()), where);
        std::vector<std::uint64_t> positions(n);
        std::iota(positions.begin(), positions.end(), std::uint64_t{0});
        placed_array<std::uint64_t> v(positions, where);
        prism::segmented_sort(prism::par.with(which), in.view(), prism::fixed_segments{cols}, out.view(), order);
        prism::segmented_sort_by_key(prism::par.with(which), in.view(), v.view(), prism::fixed_segments{cols}, order);
        synchronize_for(which);
        const auto want = expected(keys, p, offsets, poison<T>());
        ASSERT_TRUE(bits_match(out.values(), want, "key"));
        ASSERT_TRUE(bits_match(in.values(), want, "key sorted in place"));
        ASSERT_TRUE(bits_match(v.values(), expected(positions, p, offsets, std::uint64_t{0}), "value"));
      }
    }
  });
}

// Equal keys keep their input order: -0.0 and +0.0 interleaved, and NaNs of one payload, in both
// orders; every implementation writes the same bits.
TEST_P(SegmentedSort, StableAmongEqualKeysAndZeros) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> keys;
  for (int i = 0; i < 3000; ++i) {
    const float pool[] = {0.0f, -0.0f, 1.0f, nan, -nan, -1.0f};
    keys.push_back(pool[(i * 7 + i / 5) % 6]);
  }
  const std::vector<std::int64_t> offsets{0, 10, 10, 1500, 3000};
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    const auto p = reference_permutation(keys, offsets, order);
    const memory where = memory_of(which);
    placed_array<float> k(keys, where);
    std::vector<std::uint32_t> positions(keys.size());
    std::iota(positions.begin(), positions.end(), 0u);
    placed_array<std::uint32_t> v(positions, where);
    placed_array<std::int64_t> o(offsets, where);
    prism::segmented_sort_by_key(prism::par.with(which), k.view(), v.view(), o.view(), order);
    synchronize_for(which);
    ASSERT_TRUE(bits_match(k.values(), expected(keys, p, offsets, 0.0f), "key"));
    ASSERT_TRUE(bits_match(v.values(), expected(positions, p, offsets, 0u), "position"));
  }
}

// ---- bad input ----------------------------------------------------------------------------------------

// On the cpu the offsets are checked: broken ones are refused and nothing is written.
TEST(SegmentedSortRefusals, BrokenOffsetsOnTheCpu) {
  const std::vector<float> keys(10, 1.0f);
  for (const std::vector<std::int32_t>& broken : {std::vector<std::int32_t>{0, 5, 3, 10},
                                                  std::vector<std::int32_t>{0, 11}, std::vector<std::int32_t>{-1, 4}}) {
    std::vector<float> out(10, 7.0f);
    std::vector<std::uint32_t> values(10, 3u), values_out(10, 9u);
    EXPECT_THROW(prism::segmented_sort(prism::par.with(impl::cpu), keys, broken, out), std::invalid_argument);
    EXPECT_THROW(prism::segmented_sort_by_key(prism::par.with(impl::cpu), keys, values, broken, out, values_out),
                 std::invalid_argument);
    EXPECT_EQ(out, std::vector<float>(10, 7.0f));
    EXPECT_EQ(values_out, std::vector<std::uint32_t>(10, 9u));
  }
  // No key to sort: still refused.
  const std::vector<float> none;
  std::vector<float> none_out;
  EXPECT_THROW(prism::segmented_sort(prism::par.with(impl::cpu), none, std::vector<std::int32_t>{0, 3}, none_out),
               std::invalid_argument);
}

TEST(SegmentedSortRefusals, SizesAndOverlaps) {
  std::vector<float> keys(10, 1.0f), out(10, 7.0f), short_out(9, 7.0f);
  const std::vector<std::int64_t> no_offsets;
  const std::vector<std::int64_t> offsets{0, 10};
  const auto cpu = prism::par.with(impl::cpu);
  EXPECT_THROW(prism::segmented_sort(cpu, keys, no_offsets, out), std::invalid_argument);
  EXPECT_THROW(prism::segmented_sort(cpu, keys, prism::fixed_segments{3}, out), std::invalid_argument);
  EXPECT_THROW(prism::segmented_sort(cpu, keys, prism::fixed_segments{0}, out), std::invalid_argument);
  EXPECT_THROW(prism::segmented_sort(cpu, keys, offsets, short_out), std::invalid_argument);
  EXPECT_EQ(out, std::vector<float>(10, 7.0f));
  // The output over the offsets' bytes.
  std::vector<std::int64_t> shared(16, 0);
  shared[1] = 4;
  const prism::span<const std::int64_t> o(shared.data(), 2);
  const prism::span<std::int64_t> over(shared.data() + 1, 4);
  const std::vector<std::int64_t> k{4, 3, 2, 1};
  EXPECT_THROW(prism::segmented_sort(cpu, k, o, over), std::invalid_argument);
  EXPECT_EQ(shared[1], 4);
  // No keys, no segments: nothing to do, in every form.
  std::vector<float> none;
  const std::vector<std::int32_t> just_zero{0};
  EXPECT_NO_THROW(prism::segmented_sort(cpu, none, prism::fixed_segments{0}));
  EXPECT_NO_THROW(prism::segmented_sort(cpu, none, just_zero));
}

// ---- every implementation gives the same bits (GPU) ------------------------------------------------------

TEST(GpuSegmentedSort, EveryImplementationTheSameBits) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const shape& sh : shapes(seed)) {
    const std::size_t n = static_cast<std::size_t>(sh.offsets.back());
    const auto keys = awkward_keys<double>(n, seed);
    std::vector<double> first;
    for (impl which : prism::sort_implementations) {
      const memory where = memory_of(which);
      placed_array<double> k(keys, where);
      placed_array<std::int64_t> o(sh.offsets, where);
      prism::segmented_sort(prism::par.with(which), k.view(), o.view(), sort_order::descending);
      synchronize_for(which);
      if (first.empty()) {
        first = k.values();
      } else {
        ASSERT_TRUE(bits_match(k.values(), first, prism::name(which).data())) << sh.name;
      }
    }
  }
}

// 2^32 + 2^16 uint32 keys in rows of 2^16, every row the same random pattern: each row sorted must
// be the pattern sorted. In place; GPU implementations (thrust's four arrays of scratch do not fit).
TEST_P(SegmentedSort, HugeUint32RowsPast2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host || which == impl::thrust) GTEST_SKIP() << "raw and cub only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  constexpr std::size_t cols = std::size_t{1} << 16, n = (std::size_t{1} << 32) + cols;
  const auto pattern = random_vector<std::uint32_t>(cols, fresh_seed());
  auto sorted = pattern;
  std::sort(sorted.begin(), sorted.end());
  prism::device_buffer<std::uint32_t> x(n);
  fill_periodic(x.data(), n, pattern);
  // cub in place sorts ordered bits with the keys packed beside them: 20 bytes a key and CUB's own.
  PRISM_HUGE_CALL(prism::segmented_sort(prism::par.with(which), x.view(), prism::fixed_segments{cols}));
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::size_t first = 0;
  const std::size_t wrong =
      count_wrong(x.data(), n, [&](std::size_t i, std::uint32_t v) { return v == sorted[i % cols]; }, &first);
  EXPECT_EQ(wrong, 0u) << "first at " << first;
}

// ---- the conformance kit, with the segmented sort of floats in fixed segments ------------------------------
// The kit hands the adapter only the keys and the output: the segments are a fixed size, the
// smallest divisor of n past 1 (1001 keys in rows of 7, 4099 in one row, 2^20 + 1 in rows of 17).

std::size_t row_size(std::size_t n) {
  for (std::size_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return d;
  return n == 0 ? 1 : n;
}

struct segmented_sort_float {
  using T = float;
  using R = float;
  static constexpr const char* name = "segmented_sort";
  static std::span<const impl> implementations() { return prism::sort_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::segmented_sort(policy, x, prism::fixed_segments{row_size(x.size())}, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    std::vector<double> r(in.begin(), in.end());
    const std::size_t cols = row_size(in.size());
    for (std::size_t at = 0; at < r.size(); at += cols)
      std::sort(r.begin() + static_cast<std::ptrdiff_t>(at), r.begin() + static_cast<std::ptrdiff_t>(at + cols));
    return r;
  }
  static double tolerance(const std::vector<float>&) { return 0; }
  // Nothing waits in any GPU implementation.
  static bool capturable(impl) { return true; }
  // Outputs one element past their inputs, over the other input, over the offsets.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    constexpr auto f = &bytes_at<float>;
    constexpr auto u = &bytes_at<std::uint32_t>;
    return {
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_sort(p, f(b, 0, 15), prism::fixed_segments{5}, f(b, 4, 15));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_sort_by_key(p, f(b, 0, 16), u(b, 128, 16), prism::fixed_segments{4}, f(b, 0, 16),
                                       u(b, 32, 16));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::segmented_sort_by_key(p, f(b, 0, 16), u(b, 128, 16), prism::fixed_segments{4}, f(b, 128, 16),
                                       u(b, 192, 16));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          const prism::span<const std::int32_t> offsets(reinterpret_cast<const std::int32_t*>(b + 192), 3);
          prism::segmented_sort(p, f(b, 0, 16), offsets, f(b, 176, 16));
        },
    };
  }
};

using segmented_sorts = ::testing::Types<segmented_sort_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(SegmentedSort, Conformance, segmented_sorts);
INSTANTIATE_TYPED_TEST_SUITE_P(SegmentedSort, GpuConformance, segmented_sorts);

INSTANTIATE_TEST_SUITE_P(, SegmentedSort, ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                                              std::end(prism::sort_implementations)),
                         impl_name);

}  // namespace
