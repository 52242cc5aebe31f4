// SPDX-License-Identifier: Apache-2.0
// The merge family against the standard library, in every registered implementation, and the
// conformance kit. Plain C++: the same calls a consumer of the compiled library makes.
//
// The references are std::merge and std::set_union / set_intersection / set_difference /
// set_symmetric_difference with a comparator written here from the documented order (NaNs by sign
// and payload, -0.0 == +0.0, numbers by value). Inputs have many duplicates (few distinct values),
// and floats carry -0.0, +0.0 and NaNs of both signs, so stability and the choice among equal
// elements show: results are compared bit for bit.
#include <prism/merge.hpp>
#include <prism/elementwise.hpp>
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
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::set_operation;

using key_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

template <class T>
struct order {
  bool operator()(T a, T b) const { return sorts_before(a, b); }
};

// n sorted keys drawn from `distinct` values (so runs of equal keys, of every length), among them
// for floats -0.0 and +0.0 (equal keys of different bits), infinities and NaNs of both signs.
template <class T>
std::vector<T> sorted_keys(std::size_t n, std::size_t distinct, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix(seed ^ mix(i));
    const auto value = static_cast<std::int64_t>(r % distinct) - static_cast<std::int64_t>(distinct / 2);
    T x = static_cast<T>(value);
    if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T special[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN()};
      if ((r >> 40) % 8 == 0) x = special[(r >> 44) % std::size(special)];
      else x = x / 4;  // quarters: not only integers
    }
    v[i] = x;
  }
  std::stable_sort(v.begin(), v.end(), order<T>{});
  return v;
}

// (a's size, b's size) pairs: empty, one array empty, tiny, around raw's tile of 3840 outputs (4-byte
// keys, 256 threads x 15) and of 8-byte keys' 1792 (256 x 7), uneven, and past 2^20.
const std::pair<std::size_t, std::size_t> size_pairs[] = {
    {0, 0}, {0, 5}, {7, 0}, {1, 1}, {3, 1}, {1, 3}, {1024, 1024}, {2047, 2049}, {2048, 2048}, {1, 4099}, {896, 896}, {1791, 2}, {3839, 1}, {1920, 1921}, {3840, 3840},
    {4099, 1001}, {10007, 3}, {large((1u << 19) + 3), large((1u << 20) + 1)}};

// ---- merge, merge_by_key -----------------------------------------------------------------------------

class Merge : public ::testing::TestWithParam<impl> {};

template <class T>
void check_merge(impl which, const std::vector<T>& a, const std::vector<T>& b, std::size_t offset) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " a " << a.size() << ", b " << b.size() << ", offset "
                                    << offset);
  placed_array<T> x(a, memory_of(which), offset), y(b, memory_of(which));
  placed_array<T> out(std::vector<T>(a.size() + b.size(), poison<T>()), memory_of(which), offset);
  prism::merge(prism::par.with(which), x.view(), y.view(), out.view());
  synchronize_for(which);
  std::vector<T> want;
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want), order<T>{});
  ASSERT_TRUE(same_bits(out.values(), want));
  ASSERT_TRUE(same_bits(x.values(), a)) << "the input changed";
}

TEST_P(Merge, EveryTypeAndSize) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class T>() {
    for (const auto& [a_n, b_n] : size_pairs) {
      for (std::size_t distinct : {std::size_t{5}, std::size_t{1000}}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "distinct " << distinct << ", seed " << seed);
        const auto a = sorted_keys<T>(a_n, distinct, seed);
        const auto b = sorted_keys<T>(b_n, distinct, seed + 1);
        check_merge<T>(GetParam(), a, b, a_n % 2);
      }
    }
  });
}

// Values are the input positions (a's 0..a_n-1, b's after): a stable merge gives the reference's.
template <class K, class V>
void check_merge_by_key(impl which, const std::vector<K>& a, const std::vector<K>& b) {
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << sizeof(V) << "-byte values, a " << a.size()
                                    << ", b " << b.size());
  const std::size_t n = a.size() + b.size();
  std::vector<V> va(a.size()), vb(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) va[i] = static_cast<V>(i);
  for (std::size_t j = 0; j < b.size(); ++j) vb[j] = static_cast<V>(a.size() + j);
  const auto where = memory_of(which);
  placed_array<K> ka(a, where), kb(b, where), ko(std::vector<K>(n, poison<K>()), where);
  placed_array<V> xa(va, where), xb(vb, where), vo(std::vector<V>(n, poison<V>()), where);
  prism::merge_by_key(prism::par.with(which), ka.view(), xa.view(), kb.view(), xb.view(), ko.view(), vo.view());
  synchronize_for(which);
  std::vector<std::pair<K, V>> pa, pb, want;
  for (std::size_t i = 0; i < a.size(); ++i) pa.emplace_back(a[i], va[i]);
  for (std::size_t j = 0; j < b.size(); ++j) pb.emplace_back(b[j], vb[j]);
  std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(want),
             [](const auto& x, const auto& y) { return sorts_before(x.first, y.first); });
  std::vector<K> want_keys;
  std::vector<V> want_values;
  for (const auto& [k, v] : want) {
    want_keys.push_back(k);
    want_values.push_back(v);
  }
  ASSERT_TRUE(same_bits(ko.values(), want_keys));
  ASSERT_TRUE(same_bits(vo.values(), want_values));
}

TEST_P(Merge, ByKeyStableEveryKeyAndValueSize) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    for (const auto& [a_n, b_n] : size_pairs) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed);
      const auto a = sorted_keys<K>(a_n, 7, seed);
      const auto b = sorted_keys<K>(b_n, 7, seed + 1);
      check_merge_by_key<K, std::uint32_t>(GetParam(), a, b);
      check_merge_by_key<K, std::int64_t>(GetParam(), a, b);
    }
  });
  // Values of other types move by their bits.
  const auto a = sorted_keys<float>(3001, 9, fresh_seed()), b = sorted_keys<float>(2999, 9, fresh_seed());
  check_merge_by_key<float, float>(GetParam(), a, b);
  check_merge_by_key<float, double>(GetParam(), a, b);
}

// Outputs over an input, wrong sizes: refused, nothing changed.
TEST_P(Merge, BadArgumentsRefused) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const auto policy = prism::par.with(GetParam());
  const std::vector<std::uint32_t> init(64, 7u);
  placed_array<std::uint32_t> p(init, where), q(init, where);
  const auto x = p.view(), y = q.view();
  EXPECT_THROW(prism::merge(policy, x.subspan(0, 8), y.subspan(0, 8), y.subspan(0, 16)), std::invalid_argument);
  EXPECT_THROW(prism::merge(policy, x.subspan(0, 8), x.subspan(8, 8), x.subspan(16, 15)), std::invalid_argument);
  EXPECT_THROW(prism::merge(policy, x.subspan(0, 8), x.subspan(0, 8), x.subspan(4, 16)), std::invalid_argument);
  EXPECT_THROW(prism::merge_by_key(policy, x.subspan(0, 8), x.subspan(8, 8), x.subspan(16, 8), x.subspan(24, 7),
                                   y.subspan(0, 16), y.subspan(16, 16)),
               std::invalid_argument);
  EXPECT_THROW(prism::merge_by_key(policy, x.subspan(0, 8), x.subspan(8, 8), x.subspan(16, 8), x.subspan(24, 8),
                                   y.subspan(0, 16), y.subspan(8, 16)),
               std::invalid_argument);
  EXPECT_THROW(prism::set_union(policy, x.subspan(0, 8), x.subspan(8, 8), x.subspan(8, 16)), std::invalid_argument);
  synchronize_for(GetParam());
  EXPECT_EQ(p.values(), init);
  EXPECT_EQ(q.values(), init);
}

// ---- set operations ----------------------------------------------------------------------------------

class SetOperations : public ::testing::TestWithParam<impl> {};

constexpr set_operation set_operations[] = {set_operation::set_union, set_operation::set_intersection,
                                            set_operation::set_difference, set_operation::set_symmetric_difference};

template <class T>
std::vector<T> set_reference(set_operation op, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> r;
  auto to = std::back_inserter(r);
  switch (op) {
    case set_operation::set_union: std::set_union(a.begin(), a.end(), b.begin(), b.end(), to, order<T>{}); break;
    case set_operation::set_intersection:
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), to, order<T>{});
      break;
    case set_operation::set_difference: std::set_difference(a.begin(), a.end(), b.begin(), b.end(), to, order<T>{}); break;
    case set_operation::set_symmetric_difference:
      std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), to, order<T>{});
      break;
  }
  return r;
}

std::size_t worst(set_operation op, std::size_t a, std::size_t b) {
  return op == set_operation::set_intersection ? std::min(a, b) : op == set_operation::set_difference ? a : a + b;
}

// One set operation through the public objects: returned, or into a one-element array.
template <class X, class O>
std::size_t run_set(set_operation op, const prism::execution_policy& p, X a, X b, O out) {
  switch (op) {
    case set_operation::set_union: return prism::set_union(p, a, b, out);
    case set_operation::set_intersection: return prism::set_intersection(p, a, b, out);
    case set_operation::set_difference: return prism::set_difference(p, a, b, out);
    case set_operation::set_symmetric_difference: return prism::set_symmetric_difference(p, a, b, out);
  }
  return 0;
}
template <class X, class O, class C>
void run_set_into(set_operation op, const prism::execution_policy& p, X a, X b, O out, C count) {
  switch (op) {
    case set_operation::set_union: prism::set_union(p, a, b, out, count); break;
    case set_operation::set_intersection: prism::set_intersection(p, a, b, out, count); break;
    case set_operation::set_difference: prism::set_difference(p, a, b, out, count); break;
    case set_operation::set_symmetric_difference: prism::set_symmetric_difference(p, a, b, out, count); break;
  }
}

// Into an output of the worst case's size: the count returned and into an array, the rest of the
// output untouched; into one of exactly the result's size; into one an element short: refused,
// nothing written.
template <class T>
void check_set(impl which, set_operation op, const std::vector<T>& a, const std::vector<T>& b) {
  SCOPED_TRACE(::testing::Message() << prism::name(op) << " " << type_name<T>() << " a " << a.size() << ", b "
                                    << b.size());
  const auto where = memory_of(which);
  const auto policy = prism::par.with(which);
  const auto want = set_reference(op, a, b);
  placed_array<T> x(a, where, 1), y(b, where);
  const std::size_t capacity = worst(op, a.size(), b.size());
  {
    placed_array<T> out(std::vector<T>(capacity, poison<T>()), where, 1);
    const std::size_t count = run_set(op, policy, x.view(), y.view(), out.view());
    ASSERT_EQ(count, want.size());
    auto got = out.values();
    ASSERT_TRUE(std::all_of(got.begin() + count, got.end(), [](T v) { return element_bits(v) == element_bits(poison<T>()); }))
        << "written past the count";
    got.resize(count);
    ASSERT_TRUE(same_bits(got, want));
  }
  {
    placed_array<T> out(std::vector<T>(capacity, poison<T>()), where);
    placed_array<std::size_t> count(std::vector<std::size_t>{12345}, where);
    run_set_into(op, policy, x.view(), y.view(), out.view(), count.view());
    synchronize_for(which);
    ASSERT_EQ(count.values()[0], want.size());
    auto got = out.values();
    got.resize(want.size());
    ASSERT_TRUE(same_bits(got, want));
  }
  {
    placed_array<T> out(std::vector<T>(want.size(), poison<T>()), where);
    ASSERT_EQ(run_set(op, policy, x.view(), y.view(), out.view()), want.size());
    ASSERT_TRUE(same_bits(out.values(), want));
  }
  if (!want.empty()) {
    placed_array<T> out(std::vector<T>(want.size() - 1, poison<T>()), where);
    EXPECT_THROW(run_set(op, policy, x.view(), y.view(), out.view()), std::invalid_argument);
    synchronize_for(which);
    const auto untouched = out.values();
    EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](T v) { return element_bits(v) == element_bits(poison<T>()); }));
  }
}

TEST_P(SetOperations, EveryOperationTypeAndSize) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class T>() {
    for (const auto& [a_n, b_n] : size_pairs) {
      for (std::size_t distinct : {std::size_t{3}, std::size_t{50}, std::size_t{100000}}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "distinct " << distinct << ", seed " << seed);
        const auto a = sorted_keys<T>(a_n, distinct, seed);
        const auto b = sorted_keys<T>(b_n, distinct, seed + 1);
        for (set_operation op : set_operations) check_set<T>(GetParam(), op, a, b);
      }
    }
  });
}

// Sorted unique inputs (NumPy's union1d and friends on such inputs): every operation gives each
// value once; the same arrays as both inputs.
TEST_P(SetOperations, UniqueAndIdenticalInputs) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{1}, std::size_t{2048}, std::size_t{5003}}) {
    std::vector<std::int32_t> a(n), b(n + 17);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int32_t>(3 * i);
    for (std::size_t j = 0; j < b.size(); ++j) b[j] = static_cast<std::int32_t>(2 * j) - 10;
    for (set_operation op : set_operations) {
      check_set<std::int32_t>(GetParam(), op, a, b);
      check_set<std::int32_t>(GetParam(), op, a, a);
    }
  }
}

// ---- past 2^32 elements ------------------------------------------------------------------------------

// a = 0, 1, ..., 2^31 + 2 and b = 1, 2, ..., 2^31 + 4099 (uint32): 2^32 + 4102 outputs, 32 GB in all.
// out[0] = 0, then every value of both twice, then b's tail once: out[k] = (k + 1) / 2 up to
// 2^32 + 4, k - 2^31 - 2 after. Checked on the device's copy, chunk by chunk.
TEST_P(Merge, HugeUint32Past2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  constexpr std::size_t a_n = (std::size_t{1} << 31) + 3, b_n = (std::size_t{1} << 31) + 4099, n = a_n + b_n;
  prism::device_buffer<std::uint32_t> a(a_n), b(b_n), out(n);
  prism::sequence(prism::par.with(impl::raw), a.view(), 0u, 1u);
  prism::sequence(prism::par.with(impl::raw), b.view(), 1u, 1u);
  prism::merge(prism::par.with(which), a.view(), b.view(), out.view());
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  constexpr std::size_t doubled_end = 2 * ((std::size_t{1} << 31) + 2);
  std::size_t first = 0;
  const std::size_t wrong = count_wrong(
      out.data(), n,
      [](std::size_t k, std::uint32_t v) {
        const std::size_t want = k <= doubled_end ? (k + 1) / 2 : k - (std::size_t{1} << 31) - 2;
        return v == want;
      },
      &first);
  EXPECT_EQ(wrong, 0u) << "first wrong at " << first;
}

// ---- the conformance kit, with the merge of floats ---------------------------------------------------

// The kit's input is random: each half is sorted into the first n elements of the output (by the
// sort family, in the same place), then the two sorted halves are merged into the last n. The
// reference: the sorted halves, then everything sorted.
struct merge_float {
  using T = float;
  using R = float;
  static constexpr const char* name = "merge";
  static std::span<const impl> implementations() { return prism::merge_implementations; }
  static std::size_t output_size(std::size_t n) { return 2 * n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    const std::size_t n = x.size(), h = n / 2;
    // The sort family has no raw_naive: its raw sorts the halves then (the same memory rules).
    const auto sorting = policy.with(policy.implementation() == impl::raw_naive ? impl::raw : policy.implementation());
    if (out.size() == 2 * n && out.data() != nullptr) {
      prism::sort(sorting, x.subspan(0, h), out.subspan(0, h));
      prism::sort(sorting, x.subspan(h, n - h), out.subspan(h, n - h));
      prism::merge(policy, out.subspan(0, h), out.subspan(h, n - h), out.subspan(n, n));
    } else {
      prism::merge(policy, x.subspan(0, h), x.subspan(h, n - h), out);  // the kit's bad arguments
    }
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    const std::size_t h = in.size() / 2;
    std::vector<double> r(in.begin(), in.end());
    std::sort(r.begin(), r.begin() + h);
    std::sort(r.begin() + h, r.end());
    std::vector<double> all(in.begin(), in.end());
    std::sort(all.begin(), all.end());
    r.insert(r.end(), all.begin(), all.end());
    return r;
  }
  static double tolerance(const std::vector<float>&) { return 0; }
  // Nothing waits in any GPU implementation.
  static bool capturable(impl) { return true; }
  // An output over an input; merge_by_key's values' output over the keys' output; a set
  // operation's output exactly an input.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    return {
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 32);
          prism::merge(p, x.subspan(0, 8), x.subspan(8, 8), x.subspan(12, 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto k = prism::span<float>(reinterpret_cast<float*>(b), 32);
          const auto v = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 32);
          prism::merge_by_key(p, k.subspan(0, 4), v.subspan(0, 4), k.subspan(4, 4), v.subspan(4, 4), k.subspan(16, 8),
                              prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 80), 8));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 32);
          prism::set_union(p, x.subspan(0, 8), x.subspan(8, 8), x.subspan(8, 8));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b), 32);
          const auto count = prism::span<std::size_t>(reinterpret_cast<std::size_t*>(b + 96), 1);
          prism::set_intersection(p, x.subspan(16, 4), x.subspan(20, 4), x.subspan(24, 4), count);
        },
    };
  }
};

// ---- the lesson -----------------------------------------------------------------------------------------

class GpuMergeLesson : public ::testing::TestWithParam<prism::merge_stage> {};

// Every stage against std::merge, bit for bit: the size pairs above, and a skewed pair where all of
// b falls between two of a's elements (one thread of fixed_partitions merges it all).
TEST_P(GpuMergeLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  std::vector<std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>> inputs;
  for (const auto& [a_n, b_n] : size_pairs) {
    const std::uint64_t seed = fresh_seed();
    inputs.emplace_back(sorted_keys<std::uint32_t>(a_n, 1000, seed), sorted_keys<std::uint32_t>(b_n, 1000, seed + 1));
  }
  std::vector<std::uint32_t> spread(4099), clustered(10007, 77u);
  for (std::size_t i = 0; i < spread.size(); ++i) spread[i] = static_cast<std::uint32_t>(i < 2000 ? i : i + 100000);
  inputs.emplace_back(spread, clustered);
  for (const auto& [a, b] : inputs) {
    SCOPED_TRACE(::testing::Message() << "a " << a.size() << ", b " << b.size());
    placed_array<std::uint32_t> x(a, memory::device, 1), y(b, memory::device);
    placed_array<std::uint32_t> out(std::vector<std::uint32_t>(a.size() + b.size(), poison<std::uint32_t>()),
                                    memory::device, 1);
    prism::merge(GetParam(), prism::par, x.view(), y.view(), out.view());
    synchronize_for(impl::raw);
    std::vector<std::uint32_t> want;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want));
    ASSERT_TRUE(same_bits(out.values(), want));
  }
}

TEST_P(GpuMergeLesson, RefusesHostMemoryAndWrongSizes) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<std::uint32_t> a(10, 1u), b(10, 2u);
  std::vector<std::uint32_t> out(20, 5u);
  EXPECT_THROW(prism::merge(GetParam(), prism::par, a, b, out), std::invalid_argument);
  EXPECT_EQ(out, std::vector<std::uint32_t>(20, 5u));
  placed_array<std::uint32_t> x(a, memory::device), y(b, memory::device),
      short_out(std::vector<std::uint32_t>(19, 5u), memory::device);
  EXPECT_THROW(prism::merge(GetParam(), prism::par, x.view(), y.view(), short_out.view()), std::invalid_argument);
  EXPECT_EQ(short_out.values(), std::vector<std::uint32_t>(19, 5u));
}

INSTANTIATE_TEST_SUITE_P(, GpuMergeLesson, ::testing::ValuesIn(prism::merge_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

using merges = ::testing::Types<merge_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Merge, Conformance, merges);
INSTANTIATE_TYPED_TEST_SUITE_P(Merge, GpuConformance, merges);

INSTANTIATE_TEST_SUITE_P(, Merge, ::testing::ValuesIn(std::begin(prism::merge_implementations),
                                                      std::end(prism::merge_implementations)),
                         impl_name);
INSTANTIATE_TEST_SUITE_P(, SetOperations, ::testing::ValuesIn(std::begin(prism::set_operation_implementations),
                                                              std::end(prism::set_operation_implementations)),
                         impl_name);

}  // namespace
