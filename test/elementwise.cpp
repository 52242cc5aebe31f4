// SPDX-License-Identifier: Apache-2.0
// The element-wise family against its float64 host reference, in every registered implementation,
// and the conformance kit.
// Plain C++: the same calls a consumer of the compiled library makes.
#include <prism/elementwise.hpp>
#include <prism/reduce.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <random>
#include <functional>
#include <span>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <vector>

// NaN marks an unwritten 16-bit element, as it does for float (specialized before any use).
template <>
inline __half prism::testing::poison<__half>() {
  return __double2half(std::numeric_limits<double>::quiet_NaN());
}
template <>
inline __nv_bfloat16 prism::testing::poison<__nv_bfloat16>() {
  return __double2bfloat16(std::numeric_limits<double>::quiet_NaN());
}

namespace {

using namespace prism::testing;
using prism::impl;

// ---- element types ----------------------------------------------------------------------------

using all_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t,
                        __half, __nv_bfloat16>;
using signed_types = types<float, double, std::int32_t, std::int64_t, __half, __nv_bfloat16>;
using floating_types = types<float, double, __half, __nv_bfloat16>;

template <class T>
constexpr bool is_16_bit_float = prism::half_precision_element<T>;

template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return static_cast<double>(x);
  }
}

template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __double2half(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(x);
  } else {
    return static_cast<T>(x);
  }
}

// The precision of T: the gap above 1, and the smallest normal magnitude.
template <class T>
double epsilon() {
  if constexpr (std::is_same_v<T, __half>) return 0x1p-10;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return 0x1p-7;
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::epsilon();
  return 0;
}
template <class T>
double smallest_normal() {
  if constexpr (std::is_same_v<T, __half>) return 0x1p-14;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return 0x1p-126;
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::min();
  return 0;
}

// Element i of a random array: floating point uniform in [-1, 1) (never all zeros); integers
// small enough that products, sums and quotients are exact in float64 ([-2^15, 2^15) signed,
// [0, 2^16) unsigned); overflow is tested on its own.
template <class T>
T random_value(std::uint64_t seed, std::size_t i) {
  const std::uint64_t bits = mix(seed ^ mix(i));
  if constexpr (std::is_integral_v<T>) {
    const auto small = static_cast<std::int64_t>(bits >> 48);  // [0, 2^16)
    return static_cast<T>(std::is_signed_v<T> ? small - (1 << 15) : small);
  } else {
    return from_double<T>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
  }
}

// Threads only where they pay: a parallel region costs a scheduler quantum on a busy machine.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
#pragma omp parallel for if (n > 100000)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) v[i] = random_value<T>(seed, i);
  return v;
}

// ---- the reference and the comparison ---------------------------------------------------------

// An element's exact value, and the magnitude its rounding error is relative to (|value| for a
// correctly rounded operation, the sum of the terms' magnitudes for axpby and fma).
struct expected {
  double value;
  double scale;
};
expected exactly(double value) { return {value, std::abs(value)}; }

// Integers: the exact value wrapped into T. Floating point: NaN for NaN, the same infinity, the
// value rounded to T, or within `ulps` of T's precision at the scale of the result.
template <class T>
::testing::AssertionResult matches(T got, expected want, double ulps) {
  if constexpr (std::is_integral_v<T>) {
    const T wrapped = static_cast<T>(static_cast<std::int64_t>(want.value));
    if (got == wrapped) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << +got << ", want " << +wrapped;
  } else {
    const double g = to_double(got);
    if (std::isnan(want.value) ? std::isnan(g) : g == to_double(from_double<T>(want.value)))
      return ::testing::AssertionSuccess();
    const double tolerance = ulps * epsilon<T>() * std::max(want.scale, smallest_normal<T>());
    if (std::isfinite(want.value) && std::abs(g - want.value) <= tolerance)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << g << ", want " << want.value << " (within "
                                         << tolerance << ")";
  }
}

// How the arrays of one check are laid out.
struct layout {
  std::size_t n;
  std::size_t offset = 0;       // elements past an aligned address, every array
  bool in_place = false;        // the output is the first input
  bool inputs_shifted = false;  // the inputs one element further than the output
};

// Runs `call(inputs, out, which)` on K random arrays of I into a poisoned output of O, and checks
// every element against reference(x, i), where x holds the inputs' elements i as float64.
template <class O, class I, std::size_t K, class Call, class Reference>
void check(impl which, layout how, Call call, Reference reference, double ulps) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "output " << typeid(O).name() << ", input "
                                    << typeid(I).name() << ", n " << how.n << ", offset "
                                    << how.offset << (how.in_place ? ", in place" : "")
                                    << (how.inputs_shifted ? ", inputs shifted" : "") << ", seed "
                                    << seed);
  const auto where = memory_of(which);
  std::array<std::vector<I>, K> host;
  std::vector<placed_array<I>> inputs;
  inputs.reserve(K);
  std::array<prism::span<const I>, K> views;
  for (std::size_t k = 0; k < K; ++k) {
    host[k] = random_values<I>(how.n, seed + k);
    inputs.emplace_back(host[k], where, how.offset + (how.inputs_shifted ? 1 : 0));
  }
  for (std::size_t k = 0; k < K; ++k) views[k] = inputs[k].view();
  placed_array<O> out(std::vector<O>(how.n, poison<O>()), where, how.offset);

  std::vector<O> got;
  if constexpr (K > 0 && std::is_same_v<O, I>) {
    if (how.in_place) {
      call(views, inputs[0].view(), which);
      if (where == memory::device) prism::check(cudaDeviceSynchronize(), "sync");
      got = inputs[0].values();
    }
  }
  if (!how.in_place) {
    call(views, out.view(), which);
    if (where == memory::device) prism::check(cudaDeviceSynchronize(), "sync");
    got = out.values();
  }
  ASSERT_EQ(got.size(), how.n);
  std::size_t failures = 0;
  for (std::size_t i = 0; i < how.n && failures < 5; ++i) {
    std::array<double, K> x;
    for (std::size_t k = 0; k < K; ++k) x[k] = to_double(host[k][i]);
    const auto ok = matches(got[i], reference(x, i), ulps);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": " << ok.message();
    }
  }
}

// Every layout the foundation tests: sizes 0, 1, 3, 1000 and 2^16 + 1 (257 blocks of the GPU
// kernels, with a ragged tail; add also runs 2^20 + 1); misaligned starts (all arrays alike, and
// inputs misaligned against the output); in place where the operation allows.
template <class O, class I, std::size_t K, class Call, class Reference>
void check_layouts(impl which, Call call, Reference reference, double ulps = 1,
                   bool in_place = true) {
  for (std::size_t n : {0, 1, 3, 1000, (1 << 16) + 1})
    check<O, I, K>(which, {.n = n}, call, reference, ulps);
  for (std::size_t n : {1, 5, 4099}) check<O, I, K>(which, {.n = n, .offset = 1}, call, reference, ulps);
  if constexpr (K > 0) {
    check<O, I, K>(which, {.n = 4099, .inputs_shifted = true}, call, reference, ulps);
    if (in_place && std::is_same_v<O, I>) {
      check<O, I, K>(which, {.n = 1001, .in_place = true}, call, reference, ulps);
      check<O, I, K>(which, {.n = 1001, .offset = 3, .in_place = true}, call, reference, ulps);
    }
  }
}

// The reference of a one- or two-input operation given as a function of the values.
template <std::size_t K, class F>
auto of_values(F f) {
  return [f](const std::array<double, K>& x, std::size_t) { return std::apply(f, x); };
}

// ---- add: the foundation's tests, now over every type ---------------------------------------

class Add : public ::testing::TestWithParam<impl> {};

template <class T>
void check_add(impl which, layout how) {
  check<T, T, 2>(
      which, how, [](auto& in, prism::span<T> out, impl w) { prism::add(prism::par.with(w), in[0], in[1], out); },
      of_values<2>([](double a, double b) { return exactly(a + b); }), 1);
}

TEST_P(Add, MatchesReference) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, large((1 << 20) + 1)})
      check_add<T>(GetParam(), {.n = n});
  });
}

TEST_P(Add, MisalignedStart) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {1, 5, 1000, 4099}) check_add<T>(GetParam(), {.n = n, .offset = 1});
    check_add<T>(GetParam(), {.n = 4099, .inputs_shifted = true});
  });
}

TEST_P(Add, InPlace) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    check_add<T>(GetParam(), {.n = 1001, .in_place = true});
    check_add<T>(GetParam(), {.n = 1001, .offset = 3, .in_place = true});
  });
}

// Integers wrap around (two's complement) in every implementation, the cpu one included.
TEST_P(Add, IntegerOverflowWraps) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  constexpr auto max = std::numeric_limits<std::int32_t>::max();
  constexpr auto min = std::numeric_limits<std::int32_t>::min();
  placed_array<std::int32_t> a({max, min, -1}, where), b({1, -1, 1}, where),
      out(std::vector<std::int32_t>(3, poison<std::int32_t>()), where);
  prism::add(prism::par.with(GetParam()), a.view(), b.view(), out.view());
  EXPECT_EQ(out.values(), (std::vector<std::int32_t>{min, max, 0}));
}

TEST_P(Add, MismatchedSizesThrowAndChangeNothing) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  placed_array<float> a(random_vector<float>(10, fresh_seed()), where);
  placed_array<float> b(random_vector<float>(9, fresh_seed()), where);
  placed_array<float> out(std::vector<float>(10, 42.0f), where);
  try {
    prism::add(prism::par.with(GetParam()), a.view(), b.view(), out.view());
    FAIL() << "mismatched sizes were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the second input has 9 elements, expected 10"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.values(), std::vector<float>(10, 42.0f));
  // Inputs that agree and an output of another size: the output is the one named.
  placed_array<float> short_out(std::vector<float>(9, 42.0f), where);
  try {
    prism::add(prism::par.with(GetParam()), a.view(), a.view(), short_out.view());
    FAIL() << "an output of another size was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the output has 9 elements, expected 10"), std::string::npos) << e.what();
  }
  EXPECT_EQ(short_out.values(), std::vector<float>(9, 42.0f));
}

TEST_P(Add, PartialOverlapThrows) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  placed_array<float> a(random_vector<float>(11, fresh_seed()), where);
  const auto before = a.values();
  auto all = a.view();
  EXPECT_THROW(prism::add(prism::par.with(GetParam()), all.subspan(0, 10), all.subspan(0, 10), all.subspan(1, 10)),
               std::invalid_argument);
  EXPECT_EQ(a.values(), before);
}

// Memory on the wrong side of the bus is refused by name, before anything runs.
TEST_P(Add, WrongMemoryThrowsAndChangesNothing) {
  const impl which = GetParam();
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device: device memory cannot be made here";
  const bool gpu = memory_of(which) == memory::device;
  const auto wrong = gpu ? memory::host : memory::device;
  const auto right = memory_of(which);
  placed_array<float> a(random_vector<float>(100, fresh_seed()), wrong);
  placed_array<float> b(random_vector<float>(100, fresh_seed()), right);
  placed_array<float> out(std::vector<float>(100, 42.0f), right);
  try {
    prism::add(prism::par.with(which), a.view(), b.view(), out.view());
    FAIL() << "memory on the wrong side was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(gpu ? "host memory" : "device memory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.values(), std::vector<float>(100, 42.0f));
}

// Past 2^32 elements: 64-bit indexing in every GPU implementation (and no 32-bit count that
// wraps to a small one). The inputs repeat random patterns whose periods (2^20 + 7 and 2^20 + 13)
// share no factor with each other or with 2^32, so every element's pair of terms differs from
// its neighbours' and from those of the element 2^32 before it. 52 GB of device memory.
TEST_P(Add, HugePast2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = (std::size_t{1} << 32) + 7;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto pa = random_vector<float>((1u << 20) + 7, seed), pb = random_vector<float>((1u << 20) + 13, seed + 1);
  prism::device_buffer<float> da(n), db(n), out(n);
  fill_periodic(da.data(), n, pa);
  fill_periodic(db.data(), n, pb);
  prism::check(cudaMemset(out.data(), 0xFF, n * sizeof(float)), "cudaMemset");  // NaN everywhere
  prism::add(prism::par.with(which), da.view(), db.view(), out.view());
  std::size_t first_wrong = 0;
  const std::size_t wrong = count_wrong(
      out.data(), n, [&](std::size_t i, float got) { return got == pa[i % pa.size()] + pb[i % pb.size()]; },
      &first_wrong);
  EXPECT_EQ(wrong, 0u) << "first wrong element: " << first_wrong;
}

INSTANTIATE_TEST_SUITE_P(, Add, ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                                    std::end(prism::elementwise_implementations)),
                         impl_name);

// ---- every other operation ----------------------------------------------------------------------

class Operations : public ::testing::TestWithParam<impl> {};

// A test of a two-input operation over `type_list`: prism::OP<T>(a, b, out) against f(a, b).
template <class Types, class Call, class F>
void binary_test(impl which, Types type_list, Call call, F f, double ulps = 1) {
  for_each_type(type_list, [&]<class T>() {
    check_layouts<T, T, 2>(
        which, [&](auto& in, prism::span<T> out, impl w) { call.template operator()<T>(in[0], in[1], out, w); },
        of_values<2>(f), ulps);
  });
}

template <class Types, class Call, class F>
void unary_test(impl which, Types type_list, Call call, F f, double ulps = 1) {
  for_each_type(type_list, [&]<class T>() {
    check_layouts<T, T, 1>(
        which, [&](auto& in, prism::span<T> out, impl w) { call.template operator()<T>(in[0], out, w); },
        of_values<1>(f), ulps);
  });
}

TEST_P(Operations, Sub) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  binary_test(GetParam(), all_types{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::sub(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(a - b); });
}

TEST_P(Operations, Mul) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  binary_test(GetParam(), all_types{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::mul(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(a * b); });
}

// Integer quotients truncate toward zero, and x / 0 = 0 (random integers hit 0 now and then).
TEST_P(Operations, Div) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  binary_test(GetParam(), floating_types{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::div(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(a / b); });
  binary_test(GetParam(), types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::div(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(b == 0 ? 0 : std::trunc(a / b)); });
}

TEST_P(Operations, Min) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  binary_test(GetParam(), all_types{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::min(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(std::min(a, b)); });
}

TEST_P(Operations, Max) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  binary_test(GetParam(), all_types{},
              []<class T>(auto a, auto b, prism::span<T> out, impl w) { prism::max(prism::par.with(w), a, b, out); },
              [](double a, double b) { return exactly(std::max(a, b)); });
}

// The scalars of the linear operations: exact in every type, and not 1 or 0.
template <class T>
constexpr prism::scalar<T> alpha() {
  return std::is_unsigned_v<T> ? 3 : -3;
}
template <class T>
constexpr prism::scalar<T> beta() {
  return prism::scalar<T>(5);
}

TEST_P(Operations, Axpby) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const double a = alpha<T>(), b = beta<T>();
    check_layouts<T, T, 2>(
        GetParam(),
        [](auto& in, prism::span<T> out, impl w) {
          prism::axpby(prism::par.with(w), alpha<T>(), in[0], beta<T>(), in[1], out);
        },
        of_values<2>([&](double x, double y) {
          return expected{a * x + b * y, std::abs(a * x) + std::abs(b * y)};
        }),
        2);
  });
}

// axpy is in place by definition: y = alpha x + y.
TEST_P(Operations, Axpy) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const double a = alpha<T>();
    const auto reference = of_values<2>([&](double y, double x) {
      return expected{a * x + y, std::abs(a * x) + std::abs(y)};
    });
    const auto call = [](auto& in, prism::span<T> y, impl w) {
      prism::axpy(prism::par.with(w), alpha<T>(), in[1], y);
    };
    for (std::size_t n : {0, 1, 3, 1000, (1 << 16) + 1})
      check<T, T, 2>(GetParam(), {.n = n, .in_place = true}, call, reference, 2);
    check<T, T, 2>(GetParam(), {.n = 4099, .offset = 1, .in_place = true}, call, reference, 2);
  });
}

TEST_P(Operations, Fma) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    check_layouts<T, T, 3>(
        GetParam(),
        [](auto& in, prism::span<T> out, impl w) { prism::fma(prism::par.with(w), in[0], in[1], in[2], out); },
        of_values<3>([](double a, double b, double c) {
          return expected{a * b + c, std::abs(a * b) + std::abs(c)};
        }),
        1);
  });
}

// The condition is the first input's element i compared with its median; the mask itself is
// bytes with values other than 1 for true.
TEST_P(Operations, Where) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto mask_byte = [](std::size_t i) -> std::uint8_t { return mix(i) % 3 == 0 ? 0 : 1 + mix(i) % 200; };
  for_each_type(all_types{}, [&]<class T>() {
    const auto call = [&](auto& in, prism::span<T> out, impl w) {
      std::vector<std::uint8_t> mask(in[0].size());
      for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = mask_byte(i);
      placed_array<std::uint8_t> condition(mask, memory_of(w));
      prism::where(prism::par.with(w), condition.view(), in[0], in[1], out);
    };
    check_layouts<T, T, 2>(GetParam(), call,
                           [&](const std::array<double, 2>& x, std::size_t i) {
                             return exactly(mask_byte(i) != 0 ? x[0] : x[1]);
                           });
  });
}

TEST_P(Operations, Negate) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  unary_test(GetParam(), signed_types{},
             []<class T>(auto x, prism::span<T> out, impl w) { prism::negate(prism::par.with(w), x, out); },
             [](double x) { return exactly(-x); });
}

TEST_P(Operations, Abs) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  unary_test(GetParam(), signed_types{},
             []<class T>(auto x, prism::span<T> out, impl w) { prism::abs(prism::par.with(w), x, out); },
             [](double x) { return exactly(std::abs(x)); });
}

TEST_P(Operations, Square) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  unary_test(GetParam(), all_types{},
             []<class T>(auto x, prism::span<T> out, impl w) { prism::square(prism::par.with(w), x, out); },
             [](double x) { return exactly(x * x); });
}

TEST_P(Operations, Relu) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  unary_test(GetParam(), signed_types{},
             []<class T>(auto x, prism::span<T> out, impl w) { prism::relu(prism::par.with(w), x, out); },
             [](double x) { return exactly(x < 0 ? 0 : x); });
}

TEST_P(Operations, Scale) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const double a = alpha<T>();
    check_layouts<T, T, 1>(
        GetParam(), [](auto& in, prism::span<T> out, impl w) { prism::scale(prism::par.with(w), alpha<T>(), in[0], out); },
        of_values<1>([&](double x) { return exactly(a * x); }));
  });
}

// Bounds inside the inputs' range, so that both sides clamp.
TEST_P(Operations, Clamp) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const prism::scalar<T> lo = std::is_integral_v<T> ? (std::is_signed_v<T> ? -1000 : 1000) : -0.5;
    const prism::scalar<T> hi = std::is_integral_v<T> ? 30000 : 0.25;
    check_layouts<T, T, 1>(
        GetParam(), [&](auto& in, prism::span<T> out, impl w) { prism::clamp(prism::par.with(w), in[0], out, lo, hi); },
        of_values<1>([&](double x) { return exactly(std::min(std::max(x, double(lo)), double(hi))); }));
  });
}

TEST_P(Operations, Copy) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  unary_test(GetParam(), all_types{},
             []<class T>(auto x, prism::span<T> out, impl w) { prism::copy(prism::par.with(w), x, out); },
             [](double x) { return exactly(x); });
}

// The math functions, over [-1, 1): negative inputs of sqrt, rsqrt and log give NaN, which the
// reference expects too. CUDA's float and double functions are within 2 ulp (sigmoid composes
// three operations); the 16-bit types round a float result once.
template <class F, class Reference>
void math_test(impl which, F call, Reference f, double ulps) {
  for_each_type(floating_types{}, [&]<class T>() {
    check_layouts<T, T, 1>(
        which, [&](auto& in, prism::span<T> out, impl w) { call.template operator()<T>(in[0], out, w); },
        of_values<1>([&](double x) { return exactly(f(x)); }), is_16_bit_float<T> ? 1 : ulps);
  });
}

TEST_P(Operations, Sqrt) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::sqrt(prism::par.with(w), x, y); },
            [](double x) { return std::sqrt(x); }, 1);
}
TEST_P(Operations, Rsqrt) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::rsqrt(prism::par.with(w), x, y); },
            [](double x) { return 1 / std::sqrt(x); }, 3);
}
TEST_P(Operations, Exp) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::exp(prism::par.with(w), x, y); },
            [](double x) { return std::exp(x); }, 3);
}
TEST_P(Operations, Log) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::log(prism::par.with(w), x, y); },
            [](double x) { return std::log(x); }, 3);
}
TEST_P(Operations, Sin) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::sin(prism::par.with(w), x, y); },
            [](double x) { return std::sin(x); }, 3);
}
TEST_P(Operations, Cos) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::cos(prism::par.with(w), x, y); },
            [](double x) { return std::cos(x); }, 3);
}
TEST_P(Operations, Tanh) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::tanh(prism::par.with(w), x, y); },
            [](double x) { return std::tanh(x); }, 3);
}
TEST_P(Operations, Sigmoid) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  math_test(GetParam(), []<class T>(auto x, prism::span<T> y, impl w) { prism::sigmoid(prism::par.with(w), x, y); },
            [](double x) { return 1 / (1 + std::exp(-x)); }, 5);
}

// Conversions: the reference rounds the float64 value to the output type once, except float to
// integer, which truncates (inputs in [-1, 1) are scaled up by the call so that truncation
// matters). Rounding through float makes integer -> 16-bit values differ by at most one ulp.
template <class From, class To>
void cast_test(impl which) {
  constexpr double spread = std::is_integral_v<To> && !std::is_integral_v<From> ? 1e4 : 1;
  const auto call = [](auto& in, prism::span<To> out, impl w) {
    if constexpr (spread == 1) {
      prism::cast(prism::par.with(w), in[0], out);
    } else {
      // Scaled into the integer's range first, with the library's own scale.
      placed_array<From> wide(std::vector<From>(in[0].size()), memory_of(w));
      prism::scale(prism::par.with(w), static_cast<From>(spread), in[0], wide.view());
      prism::cast(prism::par.with(w), wide.view(), out);
    }
  };
  const auto reference = of_values<1>([](double x) {
    if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
      const double scaled = static_cast<double>(static_cast<From>(spread) * static_cast<From>(x));
      const double t = std::trunc(scaled);
      return exactly(std::is_unsigned_v<To> && t < 0 ? 0 : t);
    } else {
      return exactly(x);
    }
  });
  check_layouts<To, From, 1>(which, call, reference, 1, false);
}

TEST_P(Operations, Cast) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl which = GetParam();
  for_each_type(floating_types{}, [&]<class From>() {
    for_each_type(floating_types{}, [&]<class To>() {
      if constexpr (!std::is_same_v<From, To>) cast_test<From, To>(which);
    });
  });
  for_each_type(types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>{}, [&]<class I>() {
    cast_test<I, float>(which);
    cast_test<I, double>(which);
    cast_test<float, I>(which);
    cast_test<double, I>(which);
  });
  cast_test<std::int32_t, std::int64_t>(which);
  cast_test<std::int64_t, std::int32_t>(which);
  cast_test<std::uint32_t, std::uint64_t>(which);
  cast_test<std::uint64_t, std::uint32_t>(which);
}

TEST_P(Operations, Fill) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const prism::scalar<T> value = std::is_integral_v<T> ? 12345 : -0.375;
    check_layouts<T, T, 0>(
        GetParam(), [&](auto&, prism::span<T> out, impl w) { prism::fill(prism::par.with(w), out, value); },
        [&](const std::array<double, 0>&, std::size_t) { return exactly(double(value)); });
  });
}

// start + i * step, rounded as the type computes it (the scale covers both terms).
TEST_P(Operations, Sequence) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    const prism::scalar<T> start = std::is_integral_v<T> ? 7 : 0.5;
    const prism::scalar<T> step = std::is_integral_v<T> ? 3 : 0.25;
    check_layouts<T, T, 0>(
        GetParam(), [&](auto&, prism::span<T> out, impl w) { prism::sequence(prism::par.with(w), out, start, step); },
        [&](const std::array<double, 0>&, std::size_t i) {
          const double term = static_cast<double>(i) * step;
          return expected{start + term, start + term};
        },
        2);
  });
}

INSTANTIATE_TEST_SUITE_P(, Operations,
                         ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                             std::end(prism::elementwise_implementations)),
                         impl_name);

// ---- semantics: the edge cases elementwise.hpp promises -----------------------------------

class Semantics : public ::testing::TestWithParam<impl> {};

// Runs op on host values placed where `which` needs them, and returns the output.
template <class O, class... I, class Call>
std::vector<O> run_on(impl which, Call call, const std::vector<I>&... values) {
  const auto where = memory_of(which);
  const std::size_t n = std::get<0>(std::tie(values...)).size();
  std::tuple<placed_array<I>...> in{placed_array<I>(values, where)...};
  placed_array<O> out(std::vector<O>(n, poison<O>()), where);
  std::apply([&](auto&... a) { call(out.view(), a.view()...); }, in);
  return out.values();
}

TEST_P(Semantics, IntegerDivisionByZeroAndOverflowDoNotTrap) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  constexpr auto min32 = std::numeric_limits<std::int32_t>::min();
  constexpr auto min64 = std::numeric_limits<std::int64_t>::min();
  const auto div = [w](auto out, auto a, auto b) {
    using T = typename decltype(out)::value_type;
    prism::div(prism::par.with(w), a, b, out);
  };
  EXPECT_EQ(run_on<std::int32_t>(w, div, std::vector<std::int32_t>{7, -7, min32, min32, 9},
                                 std::vector<std::int32_t>{0, 0, -1, 0, -2}),
            (std::vector<std::int32_t>{0, 0, min32, 0, -4}));
  EXPECT_EQ(run_on<std::int64_t>(w, div, std::vector<std::int64_t>{7, min64}, std::vector<std::int64_t>{0, -1}),
            (std::vector<std::int64_t>{0, min64}));
  EXPECT_EQ(run_on<std::uint32_t>(w, div, std::vector<std::uint32_t>{7, 9}, std::vector<std::uint32_t>{0, 2}),
            (std::vector<std::uint32_t>{0, 4}));
  EXPECT_EQ(run_on<std::uint64_t>(w, div, std::vector<std::uint64_t>{7}, std::vector<std::uint64_t>{0}),
            (std::vector<std::uint64_t>{0}));
}

TEST_P(Semantics, IntegerOverflowWraps) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  using I = std::int32_t;
  constexpr I max = std::numeric_limits<I>::max(), min = std::numeric_limits<I>::min();
  const std::vector<I> x{max, min, 65536}, y{-1, 1, 65536};
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a, auto b) { prism::sub(prism::par.with(w), a, b, o); }, x, y),
            (std::vector<I>{min, max, 0}));
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a, auto b) { prism::mul(prism::par.with(w), a, b, o); }, x, y),
            (std::vector<I>{-max, min, 0}));
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a) { prism::negate(prism::par.with(w), a, o); }, x),
            (std::vector<I>{-max, min, -65536}));
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a) { prism::abs(prism::par.with(w), a, o); }, x),
            (std::vector<I>{max, min, 65536}));
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a) { prism::square(prism::par.with(w), a, o); }, x),
            (std::vector<I>{1, 0, 0}));
  EXPECT_EQ(run_on<I>(w, [w](auto o, auto a, auto b, auto c) { prism::fma(prism::par.with(w), a, b, c, o); },
                      x, y, std::vector<I>{1, -1, 5}),
            (std::vector<I>{min + 2, max, 5}));
  EXPECT_EQ(run_on<std::uint32_t>(w, [w](auto o, auto a) { prism::scale(prism::par.with(w), 2, a, o); },
                                  std::vector<std::uint32_t>{0x80000001u}),
            (std::vector<std::uint32_t>{2u}));
  placed_array<I> s(std::vector<I>(2, 0), memory_of(w));
  prism::sequence(prism::par.with(w), s.view(), max, 1);
  EXPECT_EQ(s.values(), (std::vector<I>{max, min}));
}

// NaN and infinity propagate as IEEE 754 says, in float and in the 16-bit types.
TEST_P(Semantics, NanAndInfinityPropagate) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for_each_type(floating_types{}, [&]<class T>() {
    SCOPED_TRACE(typeid(T).name());
    const auto values = [](std::initializer_list<double> v) {
      std::vector<T> out;
      for (double x : v) out.push_back(from_double<T>(x));
      return out;
    };
    const auto as_double = [](const std::vector<T>& v) {
      std::vector<double> out;
      for (T x : v) out.push_back(to_double(x));
      return out;
    };
    // `any` marks an element whose last bits are the math library's business, not this test's.
    const double any = std::numeric_limits<double>::lowest();
    const auto same = [any](const std::vector<double>& got, std::initializer_list<double> want) {
      ASSERT_EQ(got.size(), want.size());
      std::size_t i = 0;
      for (double x : want) {
        if (x != any) {
          EXPECT_TRUE(std::isnan(x) ? std::isnan(got[i]) : got[i] == x)
              << "element " << i << ": got " << got[i] << ", want " << x;
        }
        ++i;
      }
    };
    const auto x = values({nan, 1, inf, -inf, 0, -1});
    const auto y = values({1, nan, 1, 1, 0, 0});
    const auto binary = [&](auto op) { return as_double(run_on<T>(w, op, x, y)); };
    const auto unary = [&](auto op) { return as_double(run_on<T>(w, op, x)); };
    same(binary([w](auto o, auto a, auto b) { prism::add(prism::par.with(w), a, b, o); }), {nan, nan, inf, -inf, 0, -1});
    same(binary([w](auto o, auto a, auto b) { prism::div(prism::par.with(w), a, b, o); }), {nan, nan, inf, -inf, nan, -inf});
    same(binary([w](auto o, auto a, auto b) { prism::min(prism::par.with(w), a, b, o); }), {nan, nan, 1, -inf, 0, -1});
    same(binary([w](auto o, auto a, auto b) { prism::max(prism::par.with(w), a, b, o); }), {nan, nan, inf, 1, 0, 0});
    same(unary([w](auto o, auto a) { prism::relu(prism::par.with(w), a, o); }), {nan, 1, inf, 0, 0, 0});
    same(unary([w](auto o, auto a) { prism::clamp(prism::par.with(w), a, o, -0.5f, 0.5f); }), {nan, 0.5, 0.5, -0.5, 0, -0.5});
    same(unary([w](auto o, auto a) { prism::exp(prism::par.with(w), a, o); }), {nan, any, inf, 0, 1, any});
    same(unary([w](auto o, auto a) { prism::log(prism::par.with(w), a, o); }), {nan, 0, inf, nan, -inf, nan});
    same(unary([w](auto o, auto a) { prism::sqrt(prism::par.with(w), a, o); }), {nan, 1, inf, nan, 0, nan});
    same(unary([w](auto o, auto a) { prism::rsqrt(prism::par.with(w), a, o); }), {nan, any, 0, nan, inf, nan});
    same(unary([w](auto o, auto a) { prism::tanh(prism::par.with(w), a, o); }), {nan, any, 1, -1, 0, any});
    const auto s = unary([w](auto o, auto a) { prism::sigmoid(prism::par.with(w), a, o); });
    EXPECT_TRUE(std::isnan(s[0]));
    EXPECT_EQ(s[2], 1);
    EXPECT_EQ(s[3], 0);
    EXPECT_EQ(s[4], 0.5);
  });
}

// Float to integer truncates, saturates at the integer's range, and maps NaN to 0.
TEST_P(Semantics, CastSaturates) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{nan, 1e10f, -1e10f, 3.7f, -3.7f, inf, -inf};
  const auto cast_to = [&]<class I>() {
    return run_on<I>(w, [w](auto o, auto a) { prism::cast(prism::par.with(w), a, o); }, x);
  };
  using L32 = std::numeric_limits<std::int32_t>;
  using L64 = std::numeric_limits<std::uint64_t>;
  EXPECT_EQ(cast_to.operator()<std::int32_t>(),
            (std::vector<std::int32_t>{0, L32::max(), L32::min(), 3, -3, L32::max(), L32::min()}));
  EXPECT_EQ(cast_to.operator()<std::uint64_t>(),
            (std::vector<std::uint64_t>{0, 10000000000u, 0, 3, 0, L64::max(), 0}));
  const auto halves = run_on<__half>(w, [w](auto o, auto a) { prism::cast(prism::par.with(w), a, o); },
                                     std::vector<float>{1e6f, -1e6f, 1.0f / 3});
  EXPECT_EQ(to_double(halves[0]), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(halves[1]), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(halves[2]), to_double(__float2half_rn(1.0f / 3)));
}

// A mask of bool (one byte, 0 or 1) selects like a mask of bytes.
TEST_P(Semantics, WhereTakesBoolMask) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  const std::vector<std::uint8_t> bytes{1, 0, 0, 1};
  placed_array<std::uint8_t> mask(bytes, memory_of(w));
  const prism::span<const bool> condition{reinterpret_cast<const bool*>(mask.view().data()), bytes.size()};
  const auto got = run_on<float>(
      w, [&](auto o, auto a, auto b) { prism::where(prism::par.with(w), condition, a, b, o); },
      std::vector<float>{1, 2, 3, 4}, std::vector<float>{-1, -2, -3, -4});
  EXPECT_EQ(got, (std::vector<float>{1, -2, -3, 4}));
}

// Bit patterns that arithmetic would change: -0, a quiet NaN with a payload, a negative NaN, a
// signaling NaN, and 1.
template <class T>
std::vector<T> special_values() {
  using B = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  std::vector<B> bits;
  if constexpr (std::is_same_v<T, float>) {
    bits = {0x80000000u, 0x7fc12345u, 0xffc00001u, 0x7f800001u, 0x3f800000u};
  } else if constexpr (std::is_same_v<T, double>) {
    bits = {0x8000000000000000u, 0x7ff8000000012345u, 0xfff8000000000001u, 0x7ff0000000000001u,
            0x3ff0000000000000u};
  } else if constexpr (std::is_same_v<T, __half>) {
    bits = {0x8000u, 0x7e12u, 0xfe01u, 0x7c01u, 0x3c00u};
  } else {
    bits = {0x8000u, 0x7fc5u, 0xffc1u, 0x7f81u, 0x3f80u};
  }
  std::vector<T> out;
  for (B b : bits) out.push_back(std::bit_cast<T>(b));
  return out;
}

// copy, fill and where move bits (they run as unsigned integers of the element's size): NaN
// payloads, signaling NaNs and -0 arrive unchanged.
TEST_P(Semantics, CopyFillAndWhereKeepBits) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  for_each_type(floating_types{}, [&]<class T>() {
    SCOPED_TRACE(typeid(T).name());
    const std::vector<T> x = special_values<T>();
    const std::vector<T> y(x.rbegin(), x.rend());
    EXPECT_TRUE(same_bits(run_on<T>(w, [w](auto o, auto a) { prism::copy(prism::par.with(w), a, o); }, x), x));
    const std::vector<std::uint8_t> mask{1, 0, 0, 1, 0};
    std::vector<T> chosen;
    for (std::size_t i = 0; i < x.size(); ++i) chosen.push_back(mask[i] ? x[i] : y[i]);
    EXPECT_TRUE(same_bits(
        run_on<T>(w, [w](auto o, auto m, auto a, auto b) { prism::where(prism::par.with(w), m, a, b, o); }, mask, x, y),
        chosen));
    // fill's value is a scalar<T>: T itself for float and double (every bit pattern), float for
    // the 16-bit types (-0 rounds to -0).
    std::vector<T> values{x[0]};
    if constexpr (!is_16_bit_float<T>) values.insert(values.end(), x.begin() + 1, x.end());
    for (T v : values) {
      placed_array<T> out(std::vector<T>(7, poison<T>()), memory_of(w));
      prism::scalar<T> value;
      if constexpr (is_16_bit_float<T>) value = static_cast<float>(to_double(v));
      else value = v;
      prism::fill(prism::par.with(w), out.view(), value);
      EXPECT_TRUE(same_bits(out.values(), std::vector<T>(7, v)));
    }
  });
}

// Bad input: a clear exception, and the output is left alone.
// axpby and sequence round each product and then the sum, as the cpu computes them: the GPU's
// compiler must not fuse them into one multiply-add, which rounds once and differs in the last bit.
// The reference rounds each step through double, which is exact for float's product and sum.
TEST_P(Semantics, AxpbyAndSequenceRoundEachStep) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  for_each_type(types<float, double, __half>{}, [&]<class T>() {
    SCOPED_TRACE(typeid(T).name());
    using W = prism::scalar<T>;  // what the type computes in: float for __half
    const auto rounded = [](double x) { return static_cast<W>(x); };
    const auto product = [&](W a, W b) {
      if constexpr (std::is_same_v<W, double>) {
        volatile double p = a * b;
        return static_cast<double>(p);
      } else {
        return static_cast<double>(rounded(double(a) * double(b)));
      }
    };
    const std::size_t n = 4099;
    const W start = rounded(0.1), step = rounded(0.3), alpha = rounded(0.3), beta = rounded(-0.7);
    std::vector<T> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = from_double<T>(rounded(start + product(W(i), step)));
    placed_array<T> s(std::vector<T>(n, poison<T>()), memory_of(w));
    prism::sequence(prism::par.with(w), s.view(), start, step);
    EXPECT_TRUE(same_bits(s.values(), want)) << "sequence";
    const std::vector<T> x = random_values<T>(n, 11), y = random_values<T>(n, 12);
    for (std::size_t i = 0; i < n; ++i) {
      const W xi = static_cast<W>(to_double(x[i])), yi = static_cast<W>(to_double(y[i]));
      want[i] = from_double<T>(rounded(product(alpha, xi) + product(beta, yi)));
    }
    EXPECT_TRUE(same_bits(
        run_on<T>(w, [&](auto o, auto a, auto b) { prism::axpby(prism::par.with(w), alpha, a, beta, b, o); }, x, y),
        want))
        << "axpby";
  });
}

TEST_P(Semantics, BadInputThrowsAndChangesNothing) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const impl w = GetParam();
  const auto where = memory_of(w);
  placed_array<float> a(random_vector<float>(10, fresh_seed()), where),
      b(random_vector<float>(10, fresh_seed()), where), c(random_vector<float>(9, fresh_seed()), where),
      out(std::vector<float>(10, 42.0f), where);
  try {
    prism::fma(prism::par.with(w), a.view(), b.view(), c.view(), out.view());
    FAIL() << "a third input of another size was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fma: the third input has 9 elements"), std::string::npos) << e.what();
  }
  placed_array<std::uint8_t> mask(std::vector<std::uint8_t>(9, 1), where);
  EXPECT_THROW(prism::where(prism::par.with(w), mask.view(), a.view(), b.view(), out.view()),
               std::invalid_argument);
  EXPECT_THROW(prism::clamp(prism::par.with(w), a.view(), out.view(), 1.0f, -1.0f), std::invalid_argument);
  placed_array<double> wide(std::vector<double>(9, 1.0), where);
  EXPECT_THROW(prism::cast(prism::par.with(w), wide.view(), out.view()), std::invalid_argument);
  EXPECT_EQ(out.values(), std::vector<float>(10, 42.0f));
  auto all = a.view();
  EXPECT_THROW(prism::exp(prism::par.with(w), all.subspan(0, 9), all.subspan(1, 9)), std::invalid_argument);
}

// Past 2^32 elements in a generator: the index is 64-bit in every GPU implementation (and the
// int32 values wrap past 2^31 as they should). 17 GB of device memory.
TEST_P(Semantics, HugeSequencePast2To32) {
  const impl which = GetParam();
  if (memory_of(which) == memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = (std::size_t{1} << 32) + 7;
  prism::device_buffer<std::int32_t> out(n);
  prism::check(cudaMemset(out.data(), 0xFF, n * sizeof(std::int32_t)), "cudaMemset");
  prism::sequence(prism::par.with(which), out.view(), 5, 1);
  std::size_t first_wrong = 0;
  const std::size_t wrong = count_wrong(
      out.data(), n,
      [](std::size_t i, std::int32_t got) { return got == static_cast<std::int32_t>(static_cast<std::uint32_t>(i + 5)); },
      &first_wrong);
  EXPECT_EQ(wrong, 0u) << "first wrong element: " << first_wrong;
}

INSTANTIATE_TEST_SUITE_P(, Semantics,
                         ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                             std::end(prism::elementwise_implementations)),
                         impl_name);

// Operations that make no sense for a type are not offered: the call does not compile.
template <class T>
concept has_sqrt = requires(prism::span<const T> x, prism::span<T> y) { prism::sqrt(x, y); };
template <class T>
concept has_negate = requires(prism::span<const T> x, prism::span<T> y) { prism::negate(x, y); };
template <class T>
concept has_add = requires(prism::span<const T> x, prism::span<T> y) { prism::add(x, x, y); };
template <class From, class To>
concept has_cast = requires(prism::span<const From> x, prism::span<To> y) { prism::cast(x, y); };
static_assert(has_sqrt<float> && has_sqrt<__half> && !has_sqrt<std::int32_t> && !has_sqrt<std::uint64_t>);
static_assert(has_negate<std::int64_t> && has_negate<__nv_bfloat16> && !has_negate<std::uint32_t>);
static_assert(has_add<__half> && has_add<std::uint64_t> && !has_add<char> && !has_add<long double>);
static_assert(has_cast<float, __half> && has_cast<std::int32_t, double> && !has_cast<float, float> &&
              !has_cast<__half, std::int32_t>);
// Inputs of another type than the output do not compile either (no silent conversion).
template <class In, class Out>
concept adds_into = requires(std::vector<In> a, std::vector<Out> o) { prism::add(a, a, o); };
static_assert(adds_into<float, float> && !adds_into<double, float>);

// ---- calling: the element type from any array, the execution argument optional and partial ----

TEST(Calling, ElementTypeDeducedFromEveryKindOfArray) {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  std::vector<float> out(3);
  prism::add(a, b, out);  // host memory: automatic runs cpu, with or without a GPU
  EXPECT_EQ(out, (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(prism::sum(a), 6.0f);

  std::array<double, 3> x{1, 2, 3}, y{};
  prism::scale(2.0, x, y);
  EXPECT_EQ(y, (std::array<double, 3>{2, 4, 6}));
  std::int32_t c[4] = {1, 2, 3, 4}, d[4] = {};
  prism::negate(c, d);
  EXPECT_EQ(d[3], -4);
  prism::add(std::span<const float>(a), std::span<const float>(b), std::span<float>(out));  // rvalues
  prism::exp(prism::span{a}.subspan(1), prism::span{out}.subspan(1));                      // subspans
  EXPECT_FLOAT_EQ(out[2], std::exp(3.0f));
  EXPECT_EQ(out[0], 5.0f);
  std::vector<double> wide(3);
  prism::cast(a, wide);
  EXPECT_EQ(wide, (std::vector<double>{1, 2, 3}));
}

TEST(Calling, ExecutionArgumentInPartsOrWhole) {
  const std::vector<float> a{1, 2, 3}, b{4, 5, 6};
  std::vector<float> out(3, 0);
  prism::add(prism::impl::cpu, a, b, out);                 // an implementation alone
  prism::add(prism::par.with(prism::impl::cpu), a, b, out);
  prism::add(prism::par.on(nullptr), a, b, out);          // a stream alone (automatic: cpu here)
  EXPECT_EQ(out, (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(prism::sum(prism::impl::cpu, a), 6.0f);
  // Host memory and a GPU implementation: refused by name (no GPU: "no CUDA device").
  EXPECT_THROW(prism::add(prism::impl::raw, a, b, out), std::invalid_argument);
  // An implementation the family does not have is named as such, even on host memory.
  try {
    prism::sum(prism::impl::raw_naive, a);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no implementation named raw_naive"), std::string::npos) << e.what();
  }
}

// ---- adjacent_difference, gather, scatter -----------------------------------------------------

class Rearrange : public ::testing::TestWithParam<impl> {};

// Sizes around the raw kernel's tiles (256 threads x 16 bytes: 1024 floats, 2048 halves).
constexpr std::size_t rearrange_sizes[] = {0, 1, 3, 1000, 1023, 1024, 1025, 2048, 2049, 4097, (1 << 16) + 1};

TEST_P(Rearrange, AdjacentDifference) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : rearrange_sizes) {
      for (std::size_t offset : {0, 1}) {
        for (bool in_place : {false, true}) {
          const std::uint64_t seed = fresh_seed();
          SCOPED_TRACE(::testing::Message() << typeid(T).name() << ", n " << n << ", offset " << offset
                                            << (in_place ? ", in place" : "") << ", seed " << seed);
          const std::vector<T> x = random_values<T>(n, seed);
          placed_array<T> in(x, memory_of(which), offset), out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
          const auto target = in_place ? in.view() : out.view();
          prism::adjacent_difference(prism::par.with(which), in.view(), target);
          if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "sync");
          const std::vector<T> got = in_place ? in.values() : out.values();
          std::size_t failures = 0;
          for (std::size_t i = 0; i < n && failures < 5; ++i) {
            const double want = i == 0 ? to_double(x[0]) : to_double(x[i]) - to_double(x[i - 1]);
            const auto ok = matches(got[i], exactly(want), 1);
            if (!ok) {
              ++failures;
              ADD_FAILURE() << "element " << i << ": " << ok.message();
            }
          }
        }
      }
    }
  });
}

// The first element is copied, not computed: its bits (a NaN's payload, -0.0) come through.
TEST_P(Rearrange, AdjacentDifferenceKeepsTheFirstBits) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const float payload_nan = std::bit_cast<float>(0x7fc01234u);
  for (float first : {-0.0f, payload_nan}) {
    const std::vector<float> x{first, 1.0f, 1.0f};
    placed_array<float> in(x, memory_of(which)), out(std::vector<float>(3, 7.0f), memory_of(which));
    prism::adjacent_difference(prism::par.with(which), in.view(), out.view());
    const std::vector<float> got = out.values();
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got[0]), std::bit_cast<std::uint32_t>(first));
    EXPECT_EQ(got[2], 0.0f);
  }
}

// A random map into `limit` elements (repeats allowed), or a permutation of them.
template <class I>
std::vector<I> random_map(std::size_t n, std::size_t limit, std::uint64_t seed, bool permutation) {
  std::vector<I> map(n);
  if (permutation) {
    for (std::size_t i = 0; i < n; ++i) map[i] = static_cast<I>(i);
    std::mt19937_64 g(seed);
    std::shuffle(map.begin(), map.end(), g);
  } else {
    for (std::size_t i = 0; i < n; ++i) map[i] = static_cast<I>(mix(seed ^ mix(i)) % std::max<std::size_t>(limit, 1));
  }
  return map;
}

template <class T, class I>
void check_gather(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << typeid(T).name() << " by " << typeid(I).name() << ", n " << n << ", offset "
                                    << offset << ", seed " << seed);
  const std::size_t m = n + 5;  // the values: more than the map names
  const std::vector<T> values = random_values<T>(m, seed);
  const std::vector<I> map = random_map<I>(n, m, seed + 1, false);
  placed_array<T> v(values, memory_of(which), offset), out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  placed_array<I> mp(map, memory_of(which), offset);
  prism::gather(prism::par.with(which), mp.view(), v.view(), out.view());
  std::vector<T> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = values[map[i]];
  EXPECT_TRUE(same_bits(out.values(), want));
}

template <class T, class I>
void check_scatter(impl which, std::size_t n, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << typeid(T).name() << " by " << typeid(I).name() << ", n " << n << ", offset "
                                    << offset << ", seed " << seed);
  const std::size_t m = n + 3;  // the output: elements no index names keep their poison
  const std::vector<T> values = random_values<T>(n, seed);
  std::vector<I> map = random_map<I>(m, m, seed + 1, true);
  map.resize(n);  // distinct indices: which value wins a repeated one is not defined
  placed_array<T> v(values, memory_of(which), offset), out(std::vector<T>(m, poison<T>()), memory_of(which), offset);
  placed_array<I> mp(map, memory_of(which), offset);
  prism::scatter(prism::par.with(which), v.view(), mp.view(), out.view());
  std::vector<T> want(m, poison<T>());
  for (std::size_t i = 0; i < n; ++i) want[map[i]] = values[i];
  EXPECT_TRUE(same_bits(out.values(), want));
}

TEST_P(Rearrange, GatherAndScatter) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<std::uint8_t, __half, float, std::int64_t, double>{}, [&]<class T>() {
    for (std::size_t n : rearrange_sizes) {
      for (std::size_t offset : {0, 1}) {
        check_gather<T, std::int32_t>(which, n, offset);
        check_gather<T, std::int64_t>(which, n, offset);
        check_scatter<T, std::int32_t>(which, n, offset);
        check_scatter<T, std::int64_t>(which, n, offset);
      }
    }
  });
}

// A caller's own 16-byte type moves as its bits.
TEST_P(Rearrange, GatherOfSixteenByteElements) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  struct alignas(16) quad {
    float x, y, z, w;
  };
  // One access of the element's size moves it: a type aligned below its size is not offered.
  struct loose {
    float x, y;
  };
  static_assert(prism::movable_element<quad> && !prism::movable_element<loose>);
  std::vector<quad> values(100);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = {float(i), -float(i), 0.5f * i, 1.0f};
  const std::vector<std::int64_t> map = random_map<std::int64_t>(1001, values.size(), fresh_seed(), false);
  std::vector<quad> out(map.size());
  if (memory_of(which) == memory::device) {
    prism::device_buffer<quad> dv(values.size()), dout(map.size());
    prism::device_buffer<std::int64_t> dm(map);
    prism::check(cudaMemcpy(dv.data(), values.data(), values.size() * sizeof(quad), cudaMemcpyHostToDevice), "copy");
    prism::gather(prism::par.with(which), dm, dv, dout);
    prism::check(cudaMemcpy(out.data(), dout.data(), out.size() * sizeof(quad), cudaMemcpyDeviceToHost), "copy");
  } else {
    prism::gather(prism::par.with(which), map, values, out);
  }
  for (std::size_t i = 0; i < map.size(); ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &values[map[i]], sizeof(quad)), 0) << "element " << i;
  }
}

// bounds::checked refuses an index outside, naming it, with nothing written; every overlap of the
// output with the map or the values is refused.
TEST_P(Rearrange, CheckedBoundsAndOverlapsRefuseAndChangeNothing) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::vector<float> values{1, 2, 3, 4};
  for (std::int32_t bad : {-1, 4, 1 << 30}) {
    std::vector<std::int32_t> map{0, 3, 2, 1, 0, 2, 1, 3, 2};
    map[5] = bad;
    placed_array<float> v(values, memory_of(which)), out(std::vector<float>(9, 7.0f), memory_of(which));
    placed_array<std::int32_t> mp(map, memory_of(which));
    try {
      prism::gather(prism::par.with(which), mp.view(), v.view(), out.view(), prism::bounds::checked);
      ADD_FAILURE() << "gather with map[5] = " << bad << " was not refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("map[5] is " + std::to_string(bad)), std::string::npos) << e.what();
    }
    EXPECT_TRUE(same_bits(out.values(), std::vector<float>(9, 7.0f)));
    placed_array<float> nine(std::vector<float>(9, 1.0f), memory_of(which)), four(std::vector<float>(4, 7.0f), memory_of(which));
    EXPECT_THROW(prism::scatter(prism::par.with(which), nine.view(), mp.view(), four.view(), prism::bounds::checked),
                 std::invalid_argument);
    EXPECT_TRUE(same_bits(four.values(), std::vector<float>(4, 7.0f)));
  }
  // In range, checked: the same as unchecked.
  placed_array<float> v(values, memory_of(which)), out(std::vector<float>(2, 7.0f), memory_of(which));
  placed_array<std::int32_t> mp(std::vector<std::int32_t>{3, 0}, memory_of(which));
  prism::gather(prism::par.with(which), mp.view(), v.view(), out.view(), prism::bounds::checked);
  EXPECT_TRUE(same_bits(out.values(), std::vector<float>{4, 1}));
  // The output as the values: refused (a gather in place would read what it has overwritten).
  placed_array<float> same(std::vector<float>{1, 2}, memory_of(which));
  placed_array<std::int32_t> swap(std::vector<std::int32_t>{1, 0}, memory_of(which));
  EXPECT_THROW(prism::gather(prism::par.with(which), swap.view(), same.view(), same.view()), std::invalid_argument);
  EXPECT_THROW(prism::scatter(prism::par.with(which), same.view(), swap.view(), same.view()), std::invalid_argument);
  EXPECT_TRUE(same_bits(same.values(), std::vector<float>{1, 2}));
  // Sizes: gather's output has the map's size, scatter's map the values'.
  placed_array<float> three(std::vector<float>(3, 7.0f), memory_of(which));
  EXPECT_THROW(prism::gather(prism::par.with(which), swap.view(), v.view(), three.view()), std::invalid_argument);
  EXPECT_THROW(prism::scatter(prism::par.with(which), three.view(), swap.view(), v.view()), std::invalid_argument);
  EXPECT_TRUE(same_bits(three.values(), std::vector<float>(3, 7.0f)));
}

INSTANTIATE_TEST_SUITE_P(, Rearrange, ::testing::ValuesIn(std::begin(prism::elementwise_implementations),
                                                          std::end(prism::elementwise_implementations)),
                         impl_name);

// Past 2^32 elements: an adjacent difference of a periodic float array, and a reversing gather
// through an int64 map whose indices pass 2^32.
TEST(GpuRearrange, HugePast2To32) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::size_t n = (std::size_t{1} << 32) + 3;
  const std::vector<float> pattern{1, 4, 9, 16, 25, 36, 49};  // period 7: no factor of 2^32
  const std::vector<std::uint8_t> bytes = random_values<std::uint8_t>(251, fresh_seed());
  for (impl which : {impl::raw, impl::cub, impl::thrust}) {
    SCOPED_TRACE(prism::name(which));
    {
      prism::device_buffer<float> x(n), out(n);
      fill_periodic(x.data(), n, pattern);
      prism::adjacent_difference(prism::par.with(which), x, out);
      const std::size_t wrong = count_wrong(out.data(), n, [&](std::size_t i, float v) {
        return v == (i == 0 ? pattern[0] : pattern[i % 7] - pattern[(i - 1) % 7]);
      });
      EXPECT_EQ(wrong, 0u);
    }
    prism::device_buffer<std::int64_t> map(n);
    prism::sequence(map, static_cast<std::int64_t>(n - 1), std::int64_t{-1});
    prism::device_buffer<std::uint8_t> values(n), out(n);
    fill_periodic(values.data(), n, bytes);
    prism::gather(prism::par.with(which), map, values, out);
    const std::size_t wrong =
        count_wrong(out.data(), n, [&](std::size_t i, std::uint8_t v) { return v == bytes[(n - 1 - i) % 251]; });
    EXPECT_EQ(wrong, 0u);
  }
}

// ---- the conformance kit, with add of floats -------------------------------------------------

struct add_float {
  using T = float;
  using R = float;
  static std::span<const impl> implementations() { return prism::elementwise_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::add(policy, x, x, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    std::vector<double> r(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) r[i] = 2.0 * in[i];
    return r;
  }
  static double tolerance(const std::vector<float>&) { return 0; }  // 2x is exact
  static bool capturable(impl) { return true; }
  // Byte ranges overlapping across element sizes: a float -> double and a float -> half cast over
  // one buffer, a mask aliasing the output of where, an output one element past its input.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    const auto floats = [](std::byte* b, std::size_t at) { return prism::span<float>(reinterpret_cast<float*>(b) + at, 16); };
    return {
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::cast(p, floats(b, 0), prism::span<double>(reinterpret_cast<double*>(b), 16));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::cast(p, floats(b, 0), prism::span<__half>(reinterpret_cast<__half*>(b), 16));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::where(p, prism::span<const std::uint8_t>(reinterpret_cast<std::uint8_t*>(b), 16),
                       floats(b, 16), floats(b, 32), floats(b, 0));
        },
        [=](const prism::execution_policy& p, std::byte* b) {
          prism::add(p, floats(b, 0), floats(b, 16), floats(b, 1));
        },
    };
  }
};

// adjacent_difference: the element before crosses threads and blocks, in place included.
struct adjacent_difference_double {
  using T = double;
  using R = double;
  static std::span<const impl> implementations() { return prism::elementwise_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const double> x, prism::span<double> out) {
    prism::adjacent_difference(policy, x, out);
  }
  static std::vector<double> reference(const std::vector<double>& in) {
    std::vector<double> r(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) r[i] = i == 0 ? in[0] : in[i] - in[i - 1];
    return r;
  }
  static double tolerance(const std::vector<double>&) { return 0; }  // one rounding, the same everywhere
  static bool capturable(impl) { return true; }
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    const auto doubles = [](std::byte* b, std::size_t at) { return prism::span<double>(reinterpret_cast<double*>(b) + at, 16); };
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::adjacent_difference(p, doubles(b, 0), doubles(b, 1)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::adjacent_difference(p, doubles(b, 1), doubles(b, 0)); },
    };
  }
};

// gather: x gathered by itself (out[i] = x[x[i]]), its elements indices into it, so the map and the
// values are one array the kit makes; unchecked, so that every implementation can be captured.
struct gather_self_int32 {
  using T = std::int32_t;
  using R = std::int32_t;
  static std::span<const impl> implementations() { return prism::elementwise_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static std::vector<std::int32_t> input(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::int32_t> x(n);
    for (auto& v : x) v = static_cast<std::int32_t>(random() % n);
    return x;
  }
  static void run(const prism::execution_policy& policy, prism::span<const std::int32_t> x,
                  prism::span<std::int32_t> out) {
    prism::gather(policy, x, x, out);
  }
  static std::vector<double> reference(const std::vector<std::int32_t>& in) {
    std::vector<double> r(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) r[i] = in[static_cast<std::size_t>(in[i])];
    return r;
  }
  static double tolerance(const std::vector<std::int32_t>&) { return 0; }
  static bool capturable(impl) { return true; }
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    const auto ints = [](std::byte* b, std::size_t at) {
      return prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b) + at, 16);
    };
    return {
        [=](const prism::execution_policy& p, std::byte* b) { prism::gather(p, ints(b, 0), ints(b, 16), ints(b, 0)); },
        [=](const prism::execution_policy& p, std::byte* b) { prism::gather(p, ints(b, 0), ints(b, 1), ints(b, 16)); },
    };
  }
};

using elementwise_operations = ::testing::Types<add_float, adjacent_difference_double, gather_self_int32>;
INSTANTIATE_TYPED_TEST_SUITE_P(Elementwise, Conformance, elementwise_operations);
INSTANTIATE_TYPED_TEST_SUITE_P(Elementwise, GpuConformance, elementwise_operations);

}  // namespace
