// SPDX-License-Identifier: Apache-2.0
// gather_if, scatter_if and reverse (<prism/gather.hpp>) in every implementation against exact
// host references, outputs poisoned first; and the generated inputs of <prism/generators.hpp>.
#include <prism/gather.hpp>
#include <prism/generators.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <cuda_fp16.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace {
struct alignas(16) quad {
  std::uint32_t x, y, z, w;
};
}  // namespace

// The padding of placed arrays, for the types testing.hpp's poison() has no arithmetic for.
template <>
inline __half prism::testing::poison<__half>() {
  return __ushort_as_half(0x7e5a);
}
template <>
inline quad prism::testing::poison<quad>() {
  return {0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u, 0xA5A5A5A5u};
}

namespace {

using namespace prism::testing;
using prism::impl;

// Sizes around the raw kernels' tiles (256 threads x 16 bytes) and vectors.
constexpr std::size_t sizes[] = {0, 1, 2, 3, 7, 8, 1000, 1023, 1024, 1025, 2048, 2049, 4097, (1 << 16) + 1};

template <class T>
std::vector<T> random_bits(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t b[(sizeof(T) + 7) / 8];  // any bits: NaN payloads and -0.0 included
    for (std::size_t w = 0; w < std::size(b); ++w) b[w] = mix(seed ^ mix(i * std::size(b) + w));
    std::memcpy(&v[i], b, sizeof(T));
  }
  return v;
}

template <class T>
T poisoned() {
  T p;
  std::memset(&p, 0xA5, sizeof p);
  return p;
}

std::vector<std::uint8_t> random_stencil(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = (mix(seed ^ mix(i)) & 3) == 0 ? 0 : std::uint8_t(1 + i % 7);
  return s;
}

class Permute : public ::testing::TestWithParam<impl> {};

template <class T, class I>
void check_gather_if(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte by " << sizeof(I) << ", n " << n << ", offset " << offset
                                    << ", seed " << seed);
  const std::size_t m = n + 5;
  const std::vector<T> values = random_bits<T>(m, seed);
  const std::vector<std::uint8_t> stencil = random_stencil(n, seed + 2);
  std::vector<I> map(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Unselected indices are never used: make them invalid, as Thrust allows.
    map[i] = stencil[i] ? static_cast<I>(mix(seed + 1 + i) % m) : static_cast<I>(-1 - static_cast<I>(i % 3));
  }
  placed_array<T> v(values, memory_of(which), offset), out(std::vector<T>(n, poisoned<T>()), memory_of(which), offset);
  placed_array<I> mp(map, memory_of(which), offset);
  placed_array<std::uint8_t> st(stencil, memory_of(which), offset);
  prism::gather_if(prism::par.with(which), mp.view(), st.view(), v.view(), out.view(), prism::bounds::checked);
  std::vector<T> want(n, poisoned<T>());
  for (std::size_t i = 0; i < n; ++i)
    if (stencil[i]) want[i] = values[map[i]];
  EXPECT_TRUE(same_bits(out.values(), want));
}

template <class T, class I>
void check_scatter_if(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte by " << sizeof(I) << ", n " << n << ", offset " << offset
                                    << ", seed " << seed);
  const std::size_t m = n + 3;
  const std::vector<T> values = random_bits<T>(n, seed);
  const std::vector<std::uint8_t> stencil = random_stencil(n, seed + 2);
  std::vector<I> map(m);
  std::iota(map.begin(), map.end(), I{0});
  std::mt19937_64 g(seed + 1);
  std::shuffle(map.begin(), map.end(), g);
  map.resize(n);  // distinct indices
  for (std::size_t i = 0; i < n; ++i)
    if (!stencil[i]) map[i] = static_cast<I>(m + i);  // never used
  placed_array<T> v(values, memory_of(which), offset), out(std::vector<T>(m, poisoned<T>()), memory_of(which), offset);
  placed_array<I> mp(map, memory_of(which), offset);
  placed_array<std::uint8_t> st(stencil, memory_of(which), offset);
  prism::scatter_if(prism::par.with(which), v.view(), mp.view(), st.view(), out.view(), prism::bounds::checked);
  std::vector<T> want(m, poisoned<T>());
  for (std::size_t i = 0; i < n; ++i)
    if (stencil[i]) want[map[i]] = values[i];
  EXPECT_TRUE(same_bits(out.values(), want));
}

TEST_P(Permute, GatherIfAndScatterIf) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<std::uint8_t, __half, float, double, quad>{}, [&]<class T>() {
    for (std::size_t n : sizes) {
      for (std::size_t offset : {0, 1}) {
        check_gather_if<T, std::int32_t>(which, n, offset);
        check_gather_if<T, std::int64_t>(which, n, offset);
        check_scatter_if<T, std::int32_t>(which, n, offset);
        check_scatter_if<T, std::int64_t>(which, n, offset);
      }
    }
  });
}

// A bool stencil is the same bytes.
TEST_P(Permute, BoolStencil) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::vector<float> values{10, 11, 12, 13};
  const std::vector<std::int32_t> map{3, 2, 1, 0};
  const std::vector<std::uint8_t> stencil{1, 0, 0, 1};  // as bool: true, false, false, true
  placed_array<float> v(values, memory_of(which)), out(std::vector<float>(4, -1.0f), memory_of(which));
  placed_array<std::int32_t> mp(map, memory_of(which));
  placed_array<std::uint8_t> st(stencil, memory_of(which));
  const auto s = st.view();
  const prism::span<const bool> flags{reinterpret_cast<const bool*>(s.data()), s.size()};
  prism::gather_if(prism::par.with(which), mp.view(), flags, v.view(), out.view());
  EXPECT_EQ(out.values(), (std::vector<float>{13, -1, -1, 10}));
}

// Refusals leave every output byte as it was.
TEST_P(Permute, Refusals) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::vector<float> values(8, 1.0f);
  std::vector<std::int32_t> map{0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<std::uint8_t> stencil(8, 1);
  map[5] = 8;
  placed_array<float> v(values, memory_of(which)), out(std::vector<float>(8, 7.0f), memory_of(which));
  placed_array<std::int32_t> mp(map, memory_of(which));
  placed_array<std::uint8_t> st(stencil, memory_of(which)), shorter(std::vector<std::uint8_t>(7, 1), memory_of(which));
  const auto p = prism::par.with(which);
  EXPECT_THROW(prism::gather_if(p, mp.view(), st.view(), v.view(), out.view(), prism::bounds::checked),
               std::invalid_argument);
  EXPECT_THROW(prism::scatter_if(p, v.view(), mp.view(), st.view(), out.view(), prism::bounds::checked),
               std::invalid_argument);
  EXPECT_THROW(prism::gather_if(p, mp.view(), shorter.view(), v.view(), out.view()), std::invalid_argument);
  EXPECT_THROW(prism::scatter_if(p, v.view(), mp.view(), shorter.view(), out.view()), std::invalid_argument);
  EXPECT_THROW(prism::gather_if(p, mp.view(), st.view(), out.view(), out.view()), std::invalid_argument);
  EXPECT_THROW(prism::reverse(p, v.view(), out.view().subspan(0, 7)), std::invalid_argument);
  EXPECT_THROW(prism::reverse(p, out.view().subspan(1, 7), out.view().subspan(0, 7)), std::invalid_argument);
  EXPECT_TRUE(same_bits(out.values(), std::vector<float>(8, 7.0f)));
  // map[5] = 8 is fine where the stencil is not set.
  stencil[5] = 0;
  placed_array<std::uint8_t> st5(stencil, memory_of(which));
  prism::gather_if(p, mp.view(), st5.view(), v.view(), out.view(), prism::bounds::checked);
  EXPECT_EQ(out.values(), (std::vector<float>{1, 1, 1, 1, 1, 7, 1, 1}));
}

template <class T>
void check_reverse(impl which, std::size_t n, std::size_t offset, bool in_place) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte, n " << n << ", offset " << offset
                                    << (in_place ? ", in place" : "") << ", seed " << seed);
  const std::vector<T> x = random_bits<T>(n, seed);
  placed_array<T> in(x, memory_of(which), offset), out(std::vector<T>(n, poisoned<T>()), memory_of(which), offset);
  if (in_place) {
    prism::reverse(prism::par.with(which), in.view());
  } else {
    prism::reverse(prism::par.with(which), in.view(), out.view());
  }
  const std::vector<T> want(x.rbegin(), x.rend());
  EXPECT_TRUE(same_bits(in_place ? in.values() : out.values(), want));
  if (!in_place) EXPECT_TRUE(same_bits(in.values(), x));
}

TEST_P(Permute, Reverse) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<std::uint8_t, __half, float, double, quad>{}, [&]<class T>() {
    for (std::size_t n : sizes)
      for (std::size_t offset : {0, 1})
        for (bool in_place : {false, true}) check_reverse<T>(which, n, offset, in_place);
  });
}

INSTANTIATE_TEST_SUITE_P(, Permute,
                         ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                             std::end(prism::elementwise_implementations)),
                         impl_name);

// ---- generated inputs: prism::iota and prism::constant ---------------------------------------------

class Generated : public ::testing::TestWithParam<impl> {};

TEST_P(Generated, Reductions) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto p = prism::par.with(which);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{(1 << 16) + 1}}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    const std::int64_t sum = prism::sum(p, prism::iota<std::int64_t>(3, n, 2));
    EXPECT_EQ(sum, static_cast<std::int64_t>(3 * n + n * (n - (n > 0)) ));  // 3n + 2 * n(n-1)/2
    EXPECT_EQ(prism::sum(p, prism::constant(std::int32_t{5}, n)), static_cast<std::int64_t>(5 * n));
    if (n > 0) {
      EXPECT_EQ(prism::argmax(p, prism::iota(0.0f, n, -1.0f)), 0u);
      EXPECT_EQ(prism::max(p, prism::iota<std::int32_t>(-7, n)), static_cast<std::int32_t>(n) - 8);
      EXPECT_DOUBLE_EQ(prism::mean(p, prism::constant(2.5, n)), 2.5);
    }
  }
}

TEST_P(Generated, ReductionIntoAnArray) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  placed_array<std::int64_t> result(std::vector<std::int64_t>(1, -1), memory_of(which));
  prism::sum(prism::par.with(which), prism::iota<std::int64_t>(1, 100), result.view());
  synchronize_for(which);
  EXPECT_EQ(result.values()[0], 5050);
}

TEST_P(Generated, ElementwiseInputs) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto p = prism::par.with(which);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1025}}) {
    const std::vector<float> x = random_vector<float>(n, fresh_seed());
    placed_array<float> in(x, memory_of(which)), out(std::vector<float>(n, poison<float>()), memory_of(which));
    prism::mul(p, in.view(), prism::constant(2.0f, n), out.view());
    std::vector<float> got = out.values(), want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = x[i] * 2.0f;
    EXPECT_TRUE(same_bits(got, want));
    prism::sub(p, prism::iota(0.0f, n, 0.5f), in.view(), out.view());
    got = out.values();
    for (std::size_t i = 0; i < n; ++i) want[i] = 0.5f * static_cast<float>(i) - x[i];
    EXPECT_TRUE(same_bits(got, want));
    prism::add(p, prism::iota(1.0f, n), prism::constant(-1.0f, n), out.view());
    got = out.values();
    for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<float>(i);
    EXPECT_TRUE(same_bits(got, want));
    prism::negate(p, prism::iota(1.0f, n), out.view());
    got = out.values();
    for (std::size_t i = 0; i < n; ++i) want[i] = -static_cast<float>(i + 1);
    EXPECT_TRUE(same_bits(got, want));
    // A generated input of another size is refused, the output untouched.
    placed_array<float> fresh(std::vector<float>(n, 7.0f), memory_of(which));
    EXPECT_THROW(prism::add(p, in.view(), prism::constant(1.0f, n + 1), fresh.view()), std::invalid_argument);
    EXPECT_TRUE(same_bits(fresh.values(), std::vector<float>(n, 7.0f)));
  }
}

TEST_P(Generated, CompactValues) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 4099;
  const std::vector<std::uint8_t> flags = random_stencil(n, fresh_seed());
  placed_array<std::uint8_t> f(flags, memory_of(which));
  placed_array<std::int64_t> out(std::vector<std::int64_t>(n, poison<std::int64_t>()), memory_of(which));
  const std::size_t count = prism::compact(prism::par.with(which), prism::iota<std::int64_t>(0, n), f.view(), out.view());
  std::vector<std::int64_t> want;
  for (std::size_t i = 0; i < n; ++i)
    if (flags[i]) want.push_back(static_cast<std::int64_t>(i));
  ASSERT_EQ(count, want.size());
  std::vector<std::int64_t> got = out.values();
  got.resize(count);
  EXPECT_EQ(got, want);
}

TEST_P(Generated, SortByKeyValues) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 3001;
  const std::uint64_t seed = fresh_seed();
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(mix(seed ^ i) % 97);
  placed_array<std::uint32_t> k(keys, memory_of(which)), ko(std::vector<std::uint32_t>(n, 0), memory_of(which));
  placed_array<std::uint32_t> vo(std::vector<std::uint32_t>(n, ~0u), memory_of(which));
  prism::sort_by_key(prism::par.with(which), k.view(), prism::iota<std::uint32_t>(0, n), ko.view(), vo.view());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  EXPECT_EQ(vo.values(), order);
}

INSTANTIATE_TEST_SUITE_P(, Generated, ::testing::Values(impl::cpu, impl::automatic, impl::raw), impl_name);

// ---- the conformance kit, on reverse -----------------------------------------------------------------

struct reverse_double {
  using T = double;
  using R = double;
  static constexpr const char* name = "reverse";
  static std::span<const impl> implementations() { return prism::elementwise_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static std::vector<double> input(std::size_t n, std::uint64_t seed) { return random_vector<double>(n, seed); }
  static void run(const prism::execution_policy& policy, prism::span<const double> x, prism::span<double> out) {
    prism::reverse(policy, x, out);
  }
  static std::vector<double> reference(const std::vector<double>& in) { return {in.rbegin(), in.rend()}; }
  static double tolerance(const std::vector<double>&) { return 0; }
  static bool capturable(impl) { return true; }
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    const auto doubles = [](std::byte* b, std::size_t at) {
      return prism::span<double>(reinterpret_cast<double*>(b) + at, 16);
    };
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::reverse(p, doubles(b, 0), doubles(b, 1)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::reverse(p, doubles(b, 1), doubles(b, 0)); },
    };
  }
};

using permute_operations = ::testing::Types<reverse_double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Permute, Conformance, permute_operations);
INSTANTIATE_TYPED_TEST_SUITE_P(Permute, GpuConformance, permute_operations);

}  // namespace
