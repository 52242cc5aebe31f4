// SPDX-License-Identifier: Apache-2.0
// The reduction family against float64 host references, in every registered implementation and
// every stage of its lesson, and the conformance kit. Plain C++: the same calls a consumer of
// the compiled library makes.
//
// Tolerances. Integer results are exact (the references wrap around in 64 bits as the library
// does). A floating-point sum of n terms in T, in any order of combination, errs by about
// eps(T) * sqrt(n) * (the size of its partial sums) for random rounding errors; the partial sums
// are bounded here by the largest prefix sum of the sequential order or the root of the sum of
// squares of the terms, whichever is larger. The tolerance is 8 times that.
#include <prism/reduce.hpp>
#include <prism/scratch.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;


using all_types =
    types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
using signed_types = types<float, double, std::int32_t, std::int64_t>;
using floating_types = types<float, double>;

const std::size_t test_sizes[] = {0, 1, 3, 1000, large((1 << 20) + 1)};

void synchronize(impl which) {
  if (memory_of(which) == memory::device)
    prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// A result no correct call produces, for the one-element result arrays.
template <class R>
R poisoned() {
  if constexpr (std::is_arithmetic_v<R>) {
    return poison<R>();
  } else {
    return R{poison<decltype(R::min)>(), poison<decltype(R::max)>()};
  }
}

// Calls the reduction both ways, returned and into a one-element array, and checks that the two
// deliveries agree bit for bit (same implementation, same input: the same arithmetic).
template <class R, class Returned, class Delivered>
R both_deliveries(impl which, Returned&& returned_call, Delivered&& delivered_call) {
  const R returned = returned_call();
  std::vector<R> host(1, poisoned<R>());
  R delivered;
  if (memory_of(which) == memory::device) {
    prism::device_buffer<R> device(host);
    delivered_call(device.view());
    synchronize(which);
    delivered = device.to_host()[0];
  } else {
    delivered_call(prism::span<R>(host));
    delivered = host[0];
  }
  EXPECT_EQ(std::memcmp(&returned, &delivered, sizeof(R)), 0) << "the result returned and the "
                                                                  "result delivered to memory differ";
  return returned;
}

// ---- references ---------------------------------------------------------------------------------

struct floating_reference {
  double value;
  double tolerance;  // for a sum in a type with machine epsilon 1
};

// Kahan-compensated float64 sum of the terms, and the scale of the rounding error of any order.
inline floating_reference reference_sum(const std::vector<double>& terms) {
  double sum = 0, compensation = 0, prefix = 0, largest_prefix = 0, squares = 0;
  for (double t : terms) {
    const double y = t - compensation;
    const double next = sum + y;
    compensation = (next - sum) - y;
    sum = next;
    prefix += t;
    largest_prefix = std::max(largest_prefix, std::abs(prefix));
    squares += t * t;
  }
  const double n = static_cast<double>(terms.size());
  return {sum, 8 * std::sqrt(n) * std::max(largest_prefix, std::sqrt(squares))};
}

template <class T>
::testing::AssertionResult near(T got, floating_reference want) {
  const double tolerance = want.tolerance * std::numeric_limits<T>::epsilon() +
                           std::numeric_limits<T>::denorm_min();
  if (std::abs(static_cast<double>(got) - want.value) <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want.value << " within "
                                       << tolerance;
}

template <class T, class F>
std::vector<double> terms_of(const std::vector<T>& x, F f) {
  std::vector<double> terms(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) terms[i] = f(static_cast<double>(x[i]));
  return terms;
}

// Integer sums and products wrap around in 64 bits: unsigned arithmetic is the exact reference.
template <class T>
prism::sum_type<T> wrapped_sum(const std::vector<T>& x) {
  std::uint64_t s = 0;
  for (T v : x) s += static_cast<std::uint64_t>(static_cast<prism::sum_type<T>>(v));
  return static_cast<prism::sum_type<T>>(s);
}

// ---- the suites ---------------------------------------------------------------------------------

class Sum : public ::testing::TestWithParam<impl> {};
class Reduce : public ::testing::TestWithParam<impl> {};

// The sum of n random elements by an implementation, or by a stage of the lesson (on the GPU).
template <class T>
void check_sum(impl which, std::size_t n, std::size_t offset,
               std::optional<prism::reduce_stage> stage = std::nullopt) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", offset " << offset
                                    << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  placed_array<T> dx(x, memory_of(which), offset);
  using R = prism::sum_type<T>;
  const R got = both_deliveries<R>(
      which,
      [&] { return stage ? prism::sum(*stage, prism::par, dx.view()) : prism::sum(prism::par.with(which), dx.view()); },
      [&](prism::span<R> r) {
        if (stage) {
          prism::sum(*stage, prism::par, dx.view(), r);
        } else {
          prism::sum(prism::par.with(which), dx.view(), r);
        }
      });
  if constexpr (std::is_floating_point_v<T>) {
    EXPECT_TRUE(near(got, reference_sum(terms_of(x, [](double v) { return v; }))));
  } else {
    EXPECT_EQ(got, wrapped_sum(x));
  }
  EXPECT_EQ(dx.values(), x) << "the input changed";
}

TEST_P(Sum, MatchesReference) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) check_sum<T>(GetParam(), n, 0);
  });
}

TEST_P(Sum, MisalignedStart) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {1, 5, 1000, 4099, 100003}) check_sum<T>(GetParam(), n, 1);
  });
}

// Past 2^32 the int32 sum is no longer representable in 32 bits: the accumulator is 64-bit.
TEST_P(Sum, IntegersAccumulateIn64Bits) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  placed_array<std::int32_t> x(std::vector<std::int32_t>(1000, std::numeric_limits<std::int32_t>::max()), where);
  EXPECT_EQ(prism::sum(prism::par.with(GetParam()), x.view()),
            1000 * std::int64_t{std::numeric_limits<std::int32_t>::max()});
  placed_array<std::uint64_t> wraps(std::vector<std::uint64_t>{~std::uint64_t{0}, 2}, where);
  EXPECT_EQ(prism::sum(prism::par.with(GetParam()), wraps.view()), 1u);
}

// Run-to-run bitwise identical for the same input (every implementation says it is).
TEST_P(Sum, Deterministic) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(floating_types{}, [&]<class T>() {
    const auto x = random_vector<T>(large((1 << 22) + 3), fresh_seed());
    placed_array<T> dx(x, memory_of(GetParam()));
    const T first = prism::sum(prism::par.with(GetParam()), dx.view());
    for (int repeat = 0; repeat < 5; ++repeat) {
      const T again = prism::sum(prism::par.with(GetParam()), dx.view());
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(T)), 0) << first << " then " << again;
    }
  });
}

// Past 2^32 elements: 64-bit indexing in every GPU implementation (17 GB of device memory).
// int32 makes the check exact: one element missed or counted twice shows.
TEST_P(Sum, HugePast2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = (std::size_t{1} << 32) + 5;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto x = random_vector<std::int32_t>(n, seed);
  std::int64_t want = 0;
#pragma omp parallel for reduction(+ : want)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) want += x[i];
  prism::device_buffer<std::int32_t> dx(x);
  EXPECT_EQ(prism::sum(prism::par.with(which), dx.view()), want);
}

// ---- the other reductions -----------------------------------------------------------------------

template <class T>
void check_product(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
  // Factors near 1 for floating point, so that the product neither overflows nor underflows.
  auto x = random_vector<T>(n, seed);
  if constexpr (std::is_floating_point_v<T>) {
    for (T& v : x) v = T(1) + v / T(256);
  }
  placed_array<T> dx(x, memory_of(which), offset);
  using R = prism::sum_type<T>;
  const R got = both_deliveries<R>(
      which, [&] { return prism::product(prism::par.with(which), dx.view()); },
      [&](prism::span<R> r) { prism::product(prism::par.with(which), dx.view(), r); });
  if constexpr (std::is_floating_point_v<T>) {
    double want = 1;
    for (T v : x) want *= static_cast<double>(v);
    // Each product rounds once, relative eps/2, in a random direction.
    const double n_terms = static_cast<double>(std::max<std::size_t>(n, 1));
    EXPECT_TRUE(near(got, {want, 8 * std::sqrt(n_terms) * std::abs(want)}));
  } else {
    std::uint64_t want = 1;
    for (T v : x) want *= static_cast<std::uint64_t>(static_cast<R>(v));
    EXPECT_EQ(got, static_cast<R>(want));
  }
}

TEST_P(Reduce, Product) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(signed_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) check_product<T>(GetParam(), n, 0);
    check_product<T>(GetParam(), 4099, 1);
  });
}

template <class T>
void check_extrema(impl which, const std::vector<T>& x, std::size_t offset) {
  placed_array<T> dx(x, memory_of(which), offset);
  const T lo = both_deliveries<T>(
      which, [&] { return prism::min(prism::par.with(which), dx.view()); },
      [&](prism::span<T> r) { prism::min(prism::par.with(which), dx.view(), r); });
  const T hi = both_deliveries<T>(
      which, [&] { return prism::max(prism::par.with(which), dx.view()); },
      [&](prism::span<T> r) { prism::max(prism::par.with(which), dx.view(), r); });
  using M = prism::minmax_result<T>;
  const M both = both_deliveries<M>(
      which, [&] { return prism::minmax(prism::par.with(which), dx.view()); },
      [&](prism::span<M> r) { prism::minmax(prism::par.with(which), dx.view(), r); });
  EXPECT_EQ(lo, *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(hi, *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(both.min, lo);
  EXPECT_EQ(both.max, hi);
}

TEST_P(Reduce, MinMax) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, large((1 << 20) + 1)}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
      check_extrema<T>(GetParam(), random_vector<T>(n, seed), 0);
      check_extrema<T>(GetParam(), random_vector<T>(n, seed), 1);
    }
  });
}

// The extreme value planted twice, at i < j: argmin and argmax return i.
template <class T>
void check_arg(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", offset " << offset
                                    << ", seed " << seed);
  auto x = random_vector<T>(n, seed);
  const std::size_t i = mix(seed) % n, j = std::min(n - 1, i + 1 + mix(seed + 1) % n);
  auto lowest = x, highest = x;
  // The planted extremes are the only ones: an unsigned type's random values can be 0 (lowest).
  for (auto& v : lowest) v = std::max(v, static_cast<T>(std::numeric_limits<T>::lowest() + T(1)));
  for (auto& v : highest) v = std::min(v, static_cast<T>(std::numeric_limits<T>::max() - T(1)));
  lowest[i] = lowest[j] = std::numeric_limits<T>::lowest();
  highest[i] = highest[j] = std::numeric_limits<T>::max();
  placed_array<T> dlow(lowest, memory_of(which), offset);
  placed_array<T> dhigh(highest, memory_of(which), offset);
  const std::size_t at_min = both_deliveries<std::size_t>(
      which, [&] { return prism::argmin(prism::par.with(which), dlow.view()); },
      [&](prism::span<std::size_t> r) { prism::argmin(prism::par.with(which), dlow.view(), r); });
  const std::size_t at_max = both_deliveries<std::size_t>(
      which, [&] { return prism::argmax(prism::par.with(which), dhigh.view()); },
      [&](prism::span<std::size_t> r) { prism::argmax(prism::par.with(which), dhigh.view(), r); });
  EXPECT_EQ(at_min, i);
  EXPECT_EQ(at_max, i);
  // Without planting: the first position of the true extreme.
  placed_array<T> dx(x, memory_of(which), offset);
  EXPECT_EQ(prism::argmin(prism::par.with(which), dx.view()),
            std::size_t(std::min_element(x.begin(), x.end()) - x.begin()));
  EXPECT_EQ(prism::argmax(prism::par.with(which), dx.view()),
            std::size_t(std::max_element(x.begin(), x.end()) - x.begin()));
}

TEST_P(Reduce, ArgMinArgMaxFirstIndexOnTies) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, large((1 << 20) + 1)}) {
      check_arg<T>(GetParam(), n, 0);
      check_arg<T>(GetParam(), n, 1);
    }
    // All equal: index 0.
    placed_array<T> same(std::vector<T>(5003, T(7)), memory_of(GetParam()));
    EXPECT_EQ(prism::argmin(prism::par.with(GetParam()), same.view()), 0u);
    EXPECT_EQ(prism::argmax(prism::par.with(GetParam()), same.view()), 0u);
  });
}

// NaN wins min, max and minmax; argmin and argmax give the first NaN; norm_inf is NaN; a NaN
// counts as equal to nothing.
TEST_P(Reduce, NaNPropagates) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  for_each_type(floating_types{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, large((1 << 20) + 1)}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
      auto x = random_vector<T>(n, seed);
      const std::size_t i = mix(seed) % n, j = std::min(n - 1, i + 1 + mix(seed + 1) % n);
      x[i] = x[j] = std::numeric_limits<T>::quiet_NaN();
      placed_array<T> dx(x, memory_of(which));
      EXPECT_TRUE(std::isnan(prism::min(prism::par.with(which), dx.view())));
      EXPECT_TRUE(std::isnan(prism::max(prism::par.with(which), dx.view())));
      const auto both = prism::minmax(prism::par.with(which), dx.view());
      EXPECT_TRUE(std::isnan(both.min) && std::isnan(both.max));
      EXPECT_EQ(prism::argmin(prism::par.with(which), dx.view()), i);
      EXPECT_EQ(prism::argmax(prism::par.with(which), dx.view()), i);
      EXPECT_TRUE(std::isnan(prism::norm_inf(prism::par.with(which), dx.view())));
      EXPECT_EQ(prism::count(prism::par.with(which), dx.view(), std::numeric_limits<T>::quiet_NaN()), 0u);
      EXPECT_EQ(prism::count_if(prism::par.with(which), dx.view(), prism::comparison::not_equal, std::numeric_limits<T>::quiet_NaN()),
                n);
      EXPECT_TRUE(std::isnan(prism::sum(prism::par.with(which), dx.view())));
    }
  });
}

TEST_P(Reduce, CountAnyAll) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  using prism::comparison;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
      auto x = random_vector<T>(n, seed);
      // Plant repeats of one value, so that count(value) is more than 0 or 1.
      const T value = n > 0 ? x[n / 2] : T(3);
      for (std::size_t i = 0; i < n; i += 7) x[i] = value;
      placed_array<T> dx(x, memory_of(which), n % 2);
      const comparison all_comparisons[] = {comparison::equal,   comparison::not_equal,
                                            comparison::less,    comparison::less_equal,
                                            comparison::greater, comparison::greater_equal};
      const std::function<bool(T, T)> reference[] = {
          std::equal_to<T>{}, std::not_equal_to<T>{}, std::less<T>{},
          std::less_equal<T>{}, std::greater<T>{},   std::greater_equal<T>{}};
      for (int c = 0; c < 6; ++c) {
        const std::uint64_t want = static_cast<std::uint64_t>(
            std::count_if(x.begin(), x.end(), [&](T v) { return reference[c](v, value); }));
        const std::uint64_t got = both_deliveries<std::uint64_t>(
            which, [&] { return prism::count_if(prism::par.with(which), dx.view(), all_comparisons[c], value); },
            [&](prism::span<std::uint64_t> r) {
              prism::count_if(prism::par.with(which), dx.view(), all_comparisons[c], value, r);
            });
        EXPECT_EQ(got, want) << "comparison " << c;
        EXPECT_EQ(prism::any(prism::par.with(which), dx.view(), all_comparisons[c], value), want > 0);
        EXPECT_EQ(prism::all(prism::par.with(which), dx.view(), all_comparisons[c], value), want == n);
      }
      EXPECT_EQ(prism::count(prism::par.with(which), dx.view(), value),
                static_cast<std::uint64_t>(std::count(x.begin(), x.end(), value)));
    }
  });
}

template <class T>
void check_dot(impl which, std::size_t n, std::size_t offset_a, std::size_t offset_b) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", offsets " << offset_a
                                    << " " << offset_b << ", seed " << seed);
  const auto a = random_vector<T>(n, seed), b = random_vector<T>(n, seed + 1);
  placed_array<T> da(a, memory_of(which), offset_a), db(b, memory_of(which), offset_b);
  using R = prism::sum_type<T>;
  const R got = both_deliveries<R>(
      which, [&] { return prism::dot(prism::par.with(which), da.view(), db.view()); },
      [&](prism::span<R> r) { prism::dot(prism::par.with(which), da.view(), db.view(), r); });
  if constexpr (std::is_floating_point_v<T>) {
    std::vector<double> terms(n);
    for (std::size_t i = 0; i < n; ++i) terms[i] = double(a[i]) * double(b[i]);
    EXPECT_TRUE(near(got, reference_sum(terms)));
  } else {
    std::uint64_t want = 0;
    for (std::size_t i = 0; i < n; ++i) want += std::uint64_t(std::int64_t(a[i])) * std::uint64_t(std::int64_t(b[i]));
    EXPECT_EQ(got, static_cast<R>(want));
  }
}

TEST_P(Reduce, Dot) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(signed_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) check_dot<T>(GetParam(), n, 0, 0);
    check_dot<T>(GetParam(), 100003, 1, 1);  // aligned together after a scalar head
    check_dot<T>(GetParam(), 100003, 0, 1);  // never aligned together: element by element
  });
}

TEST_P(Reduce, Norms) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  for_each_type(floating_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
      const auto x = random_vector<T>(n, seed);
      placed_array<T> dx(x, memory_of(which), n % 3);
      const T one = both_deliveries<T>(
          which, [&] { return prism::norm1(prism::par.with(which), dx.view()); },
          [&](prism::span<T> r) { prism::norm1(prism::par.with(which), dx.view(), r); });
      const T two = both_deliveries<T>(
          which, [&] { return prism::norm2(prism::par.with(which), dx.view()); },
          [&](prism::span<T> r) { prism::norm2(prism::par.with(which), dx.view(), r); });
      const T inf = both_deliveries<T>(
          which, [&] { return prism::norm_inf(prism::par.with(which), dx.view()); },
          [&](prism::span<T> r) { prism::norm_inf(prism::par.with(which), dx.view(), r); });
      EXPECT_TRUE(near(one, reference_sum(terms_of(x, [](double v) { return std::abs(v); }))));
      // norm2 = sqrt(s): its error is half the relative error of s, plus the root's rounding.
      const auto squares = reference_sum(terms_of(x, [](double v) { return v * v; }));
      const double root = std::sqrt(squares.value);
      EXPECT_TRUE(near(two, {root, squares.value > 0 ? squares.tolerance / (2 * root) + root : 0}));
      double largest = 0;
      for (T v : x) largest = std::max(largest, std::abs(double(v)));
      EXPECT_EQ(inf, T(largest));
    }
  });
}

TEST_P(Reduce, MeanVarianceStddev) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  for_each_type(signed_types{}, [&]<class T>() {
    using R = prism::real_type<T>;
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, large((1 << 20) + 1)}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
      auto x = random_vector<T>(n, seed);
      // An offset mean: where sum(x^2)/n - mean^2 would cancel, the one-pass combine must not.
      if constexpr (std::is_floating_point_v<T>) {
        for (T& v : x) v += T(8);
      }
      placed_array<T> dx(x, memory_of(which), n % 2);
      const R mean = both_deliveries<R>(
          which, [&] { return prism::mean(prism::par.with(which), dx.view()); },
          [&](prism::span<R> r) { prism::mean(prism::par.with(which), dx.view(), r); });
      const R var = both_deliveries<R>(
          which, [&] { return prism::variance(prism::par.with(which), dx.view()); },
          [&](prism::span<R> r) { prism::variance(prism::par.with(which), dx.view(), r); });
      const R sd = both_deliveries<R>(
          which, [&] { return prism::stddev(prism::par.with(which), dx.view()); },
          [&](prism::span<R> r) { prism::stddev(prism::par.with(which), dx.view(), r); });
      const double nd = static_cast<double>(n);
      const auto sum = reference_sum(terms_of(x, [](double v) { return v; }));
      const double want_mean = sum.value / nd;
      EXPECT_TRUE(near(mean, {want_mean, sum.tolerance / nd + std::abs(want_mean)}));
      const auto deviations = reference_sum(terms_of(x, [&](double v) { return (v - want_mean) * (v - want_mean); }));
      const double want_var = deviations.value / nd;
      // Each update and combine rounds relative to the second moment about zero.
      const double scale = want_var + want_mean * want_mean;
      EXPECT_TRUE(near(var, {want_var, 8 * std::sqrt(nd) * scale}));
      EXPECT_TRUE(near(sd, {std::sqrt(want_var),
                            want_var > 0 ? 4 * std::sqrt(nd) * scale / std::sqrt(want_var) + std::sqrt(want_var) : 0}));
    }
  });
}

// ---- semantics at the edges ---------------------------------------------------------------------

// std::reduce's forms: init combined once (10 + the sum, not 10 per partial), and init alone for
// an empty input; min and max with an init that is not their identity.
TEST_P(Reduce, InitCombinedOnce) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  const auto policy = prism::par.with(which);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, large((1 << 20) + 1)}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    const auto x = random_vector<std::int32_t>(n, seed);
    placed_array<std::int32_t> dx(x, memory_of(which));
    std::int64_t sum = 0;
    for (auto v : x) sum += v;
    using R = std::int64_t;
    EXPECT_EQ(both_deliveries<R>(
                  which, [&] { return prism::reduce(policy, dx.view(), 10); },
                  [&](prism::span<R> r) { prism::reduce(policy, dx.view(), r, 10, std::plus<>{}); }),
              sum + 10);
    EXPECT_EQ(prism::reduce(policy, dx.view(), 10, std::plus<std::int64_t>{}), sum + 10);
    EXPECT_EQ(prism::reduce(policy, dx.view()), sum);
    const std::int32_t lo = n ? *std::min_element(x.begin(), x.end()) : 0;
    const std::int32_t hi = n ? *std::max_element(x.begin(), x.end()) : 0;
    // An init inside the range changes nothing; one outside it is the result.
    EXPECT_EQ(prism::reduce(policy, dx.view(), std::numeric_limits<std::int32_t>::max(), prism::min),
              n ? lo : std::numeric_limits<std::int32_t>::max());
    EXPECT_EQ(prism::reduce(policy, dx.view(), std::numeric_limits<std::int32_t>::min(), prism::min),
              std::numeric_limits<std::int32_t>::min());
    EXPECT_EQ(prism::reduce(policy, dx.view(), hi, prism::max), hi);
    EXPECT_EQ(prism::reduce(policy, dx.view(), -5, prism::max), n ? std::max(hi, -5) : -5);
    const std::vector<double> ones(n, 1.0);
    placed_array<double> dones(ones, memory_of(which));
    EXPECT_EQ(prism::reduce(policy, dones.view(), 3.0, std::multiplies<>{}), 3.0);
    EXPECT_EQ(prism::reduce(policy, dones.view(), 0.5), 0.5 + double(n));
    // A fractional init of integers is not cut (std::reduce's result is init's type): the exact
    // integer result, then init once, in double.
    static_assert(std::is_same_v<decltype(prism::reduce(policy, dx.view(), 0.5)), double>);
    EXPECT_EQ(prism::reduce(policy, dx.view(), 0.5), double(sum) + 0.5);
    EXPECT_EQ(prism::reduce(policy, dx.view(), 0.5, prism::max), n ? std::max(double(hi), 0.5) : 0.5);
    EXPECT_EQ(prism::reduce(policy, dx.view(), -0.5, prism::min), n ? std::min(double(lo), -0.5) : -0.5);
    EXPECT_EQ(prism::reduce(policy, dx.view(), 1e300, prism::min), n ? double(lo) : 1e300);
    // A NaN init propagates through min and max, as it does with float elements.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(prism::reduce(policy, dx.view(), nan, prism::min)));
    EXPECT_TRUE(std::isnan(prism::reduce(policy, dx.view(), nan, prism::max)));
  }
  // An implementation the family does not have is refused with a fractional init too, empty input
  // included (its init is not returned before the policy is checked).
  const std::vector<std::int32_t> none;
  EXPECT_THROW(prism::reduce(prism::impl::raw_naive, none, 0.5), std::invalid_argument);
  EXPECT_THROW(prism::reduce(prism::impl::raw_naive, none, 0.5, prism::max), std::invalid_argument);
}

// A float sum keeps its precision however long the input (every implementation adds in a tree;
// cpu pairwise, as NumPy): 2^23 times 0.1f is within a few ulp of the float64 sum of those floats.
TEST_P(Reduce, LongFloatSumsStayPrecise) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = std::size_t{1} << 23;
  placed_array<float> x(std::vector<float>(n, 0.1f), memory_of(GetParam()));
  const double want = double(0.1f) * double(n);
  const float got = prism::sum(prism::par.with(GetParam()), x.view());
  EXPECT_NEAR(got, want, want * 1e-6) << "the float sum of " << n << " times 0.1f";
  EXPECT_NEAR(prism::mean(prism::par.with(GetParam()), x.view()), double(0.1f), 1e-6);
}

TEST_P(Reduce, EmptyInputGivesIdentityOrThrows) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  const auto where = memory_of(which);
  placed_array<float> empty(std::vector<float>{}, where);
  placed_array<std::int32_t> empty_int(std::vector<std::int32_t>{}, where);
  const auto x = empty.view();
  using prism::comparison;
  EXPECT_EQ(prism::sum(prism::par.with(which), x), 0.0f);
  EXPECT_EQ(prism::sum(prism::par.with(which), empty_int.view()), 0);
  EXPECT_EQ(prism::product(prism::par.with(which), x), 1.0f);
  EXPECT_EQ(prism::count(prism::par.with(which), x, 1.0f), 0u);
  EXPECT_FALSE(prism::any(prism::par.with(which), x, comparison::greater, 0.0f));
  EXPECT_TRUE(prism::all(prism::par.with(which), x, comparison::greater, 0.0f));
  EXPECT_EQ(prism::dot(prism::par.with(which), x, x), 0.0f);
  EXPECT_EQ(prism::norm1(prism::par.with(which), x), 0.0f);
  EXPECT_EQ(prism::norm2(prism::par.with(which), x), 0.0f);
  EXPECT_EQ(prism::norm_inf(prism::par.with(which), x), 0.0f);
  // Delivered to memory too.
  placed_array<float> result(std::vector<float>{42.0f}, where);
  prism::sum(prism::par.with(which), x, result.view());
  synchronize(which);
  EXPECT_EQ(result.values()[0], 0.0f);

  const auto throws = [](auto&& call, const char* algorithm) {
    try {
      call();
      ADD_FAILURE() << algorithm << " of an empty input did not throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(algorithm), std::string::npos) << e.what();
    }
  };
  throws([&] { prism::min(prism::par.with(which), x); }, "min");
  throws([&] { prism::max(prism::par.with(which), x); }, "max");
  throws([&] { prism::minmax(prism::par.with(which), x); }, "minmax");
  throws([&] { prism::argmin(prism::par.with(which), x); }, "argmin");
  throws([&] { prism::argmax(prism::par.with(which), x); }, "argmax");
  throws([&] { prism::mean(prism::par.with(which), x); }, "mean");
  throws([&] { prism::variance(prism::par.with(which), x); }, "variance");
  throws([&] { prism::stddev(prism::par.with(which), x); }, "stddev");
  // The throwing ones write nothing.
  throws([&] { prism::min(prism::par.with(which), x, result.view()); }, "min");
  EXPECT_EQ(result.values()[0], 0.0f);
}

TEST_P(Reduce, MismatchedSizesThrowAndChangeNothing) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  const auto where = memory_of(which);
  placed_array<float> a(random_vector<float>(10, fresh_seed()), where);
  placed_array<float> b(random_vector<float>(9, fresh_seed()), where);
  placed_array<float> result(std::vector<float>{42.0f}, where);
  try {
    prism::dot(prism::par.with(which), a.view(), b.view(), result.view());
    FAIL() << "mismatched sizes were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("9 elements, expected 10"), std::string::npos) << e.what();
  }
  placed_array<float> two(std::vector<float>{42.0f, 42.0f}, where);
  try {
    prism::sum(prism::par.with(which), a.view(), two.view());
    FAIL() << "a two-element result was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the result has 2 elements, expected 1"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(result.values(), std::vector<float>{42.0f});
  EXPECT_EQ(two.values(), (std::vector<float>{42.0f, 42.0f}));
}

// Memory on the wrong side of the bus is refused by name, before anything runs.
TEST_P(Reduce, WrongMemoryThrowsAndChangesNothing) {
  const impl which = GetParam();
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device: device memory cannot be made here";
  const bool gpu = memory_of(which) == memory::device;
  const auto wrong = gpu ? memory::host : memory::device;
  const auto right = memory_of(which);
  placed_array<float> x_wrong(random_vector<float>(100, fresh_seed()), wrong);
  placed_array<float> x_right(random_vector<float>(100, fresh_seed()), right);
  placed_array<float> result_wrong(std::vector<float>{42.0f}, wrong);
  const std::string side = gpu ? "host memory" : "device memory";
  try {
    prism::sum(prism::par.with(which), x_wrong.view());
    FAIL() << "an input on the wrong side was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(side), std::string::npos) << e.what();
  }
  try {
    prism::sum(prism::par.with(which), x_right.view(), result_wrong.view());
    FAIL() << "a result on the wrong side was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the result"), std::string::npos) << e.what();
  }
  EXPECT_EQ(result_wrong.values(), std::vector<float>{42.0f});
}

TEST_P(Reduce, Deterministic) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  const auto x = random_vector<float>(large((1 << 22) + 3), fresh_seed());
  const auto y = random_vector<float>(large((1 << 22) + 3), fresh_seed());
  placed_array<float> dx(x, memory_of(which), 1), dy(y, memory_of(which), 1);
  const auto run = [&] {
    return std::vector<float>{prism::dot(prism::par.with(which), dx.view(), dy.view()),
                              prism::norm2(prism::par.with(which), dx.view()),
                              prism::mean(prism::par.with(which), dx.view()),
                              prism::variance(prism::par.with(which), dx.view()),
                              prism::product(prism::par.with(which), dx.view())};
  };
  const auto first = run();
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto again = run();
    EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)), 0);
  }
}

// After the first call of each reduction on a stream, repeated calls allocate nothing.
TEST_P(Reduce, SteadyStateDoesNotAllocate) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  cudaStream_t stream;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const auto x = random_vector<float>(large((1 << 20) + 1), fresh_seed());
  prism::device_buffer<float> dx(x), result(1);
  prism::device_buffer<std::size_t> index(1);
  const auto all = [&] {
    prism::sum(prism::par.on(stream).with(which), dx.view());
    prism::sum(prism::par.on(stream).with(which), dx.view(), result.view());
    prism::min(prism::par.on(stream).with(which), dx.view());
    prism::argmax(prism::par.on(stream).with(which), dx.view(), index.view());
    prism::dot(prism::par.on(stream).with(which), dx.view(), dx.view());
    prism::variance(prism::par.on(stream).with(which), dx.view());
    prism::count(prism::par.on(stream).with(which), dx.view(), 0.5f);
  };
  all();
  const std::size_t allocations = prism::scratch_allocations();
  for (int repeat = 0; repeat < 10; ++repeat) all();
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  EXPECT_EQ(prism::scratch_allocations(), allocations);
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

// 64-bit indices: the extreme planted past 2^32 is found, and the count covers every element.
TEST_P(Reduce, HugePast2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = (std::size_t{1} << 32) + 5;
  std::vector<float> x = random_vector<float>(n, fresh_seed());
  x[n - 3] = 2.0f;
  x[n - 2] = -2.0f;
  prism::device_buffer<float> dx(x);
  EXPECT_EQ(prism::argmax(prism::par.with(which), dx.view()), n - 3);
  EXPECT_EQ(prism::argmin(prism::par.with(which), dx.view()), n - 2);
  EXPECT_EQ(prism::count_if(prism::par.with(which), dx.view(), prism::comparison::less_equal, 2.0f), n);
}

// The raw kernel's last block sets the stream's arrival counter back to zero (no memset launch
// clears it): consecutive reductions of different inputs on one stream are each right, and the
// counter reads zero afterwards.
TEST(GpuRawReduction, ArrivalCounterReturnsToZero) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t stream;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  for (int repeat = 0; repeat < 4; ++repeat) {
    const auto x = random_vector<float>(large((1 << 20) + 1 + repeat), fresh_seed());
    prism::device_buffer<float> dx(x);
    prism::device_buffer<float> result(std::vector<float>{std::nanf("")});
    prism::sum(prism::par.on(stream).with(impl::raw), dx.view(), result.view());
    prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    EXPECT_TRUE(near(result.to_host()[0], reference_sum(terms_of(x, [](double v) { return v; }))));
  }
  unsigned counter = 1;
  {
    auto lease = prism::acquire_scratch(0, prism::par.on(stream), "test");
    prism::check(cudaMemcpyAsync(&counter, lease.zeroed_counter(), sizeof counter,
                                 cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync");
  }
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  EXPECT_EQ(counter, 0u);
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

// ---- the lesson: every stage against the same reference -----------------------------------------

class GpuSumLesson : public ::testing::TestWithParam<prism::reduce_stage> {};

TEST_P(GpuSumLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : test_sizes) check_sum<T>(impl::raw, n, n % 2, GetParam());
  });
}

TEST_P(GpuSumLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<float> x(10, 1.0f);
  EXPECT_THROW(prism::sum(GetParam(), prism::par, x), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, GpuSumLesson, ::testing::ValuesIn(prism::reduce_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

// ---- the conformance kit, with sum of floats into a one-element array ----------------------------

struct sum_float {
  using T = float;
  using R = float;
  static std::span<const impl> implementations() { return prism::reduce_implementations; }
  static std::size_t output_size(std::size_t) { return 1; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::sum(policy, x, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    return {reference_sum(terms_of(in, [](double v) { return v; })).value};
  }
  static double tolerance(const std::vector<float>& in) {
    return reference_sum(terms_of(in, [](double v) { return v; })).tolerance *
               std::numeric_limits<float>::epsilon() + std::numeric_limits<float>::denorm_min();
  }
  // Into a device array nothing waits, Thrust's reduce_into included: every implementation may be
  // captured.
  static bool capturable(impl) { return true; }
  // The result inside the input, and a result of another type over the input's bytes.
  static constexpr std::size_t aliased_bytes = 64;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    return {
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::sum(p, x, x.subspan(3, 1));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::argmax(p, x, prism::span<std::size_t>(reinterpret_cast<std::size_t*>(b + 8), 1));
        },
    };
  }
};

using reductions = ::testing::Types<sum_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(Sum, Conformance, reductions);
INSTANTIATE_TYPED_TEST_SUITE_P(Sum, GpuConformance, reductions);

INSTANTIATE_TEST_SUITE_P(, Sum, ::testing::ValuesIn(std::begin(prism::reduce_implementations),
                                                    std::end(prism::reduce_implementations)),
                         impl_name);
INSTANTIATE_TEST_SUITE_P(, Reduce, ::testing::ValuesIn(std::begin(prism::reduce_implementations),
                                                       std::end(prism::reduce_implementations)),
                         impl_name);

}  // namespace
