// The element-wise family against its float64 host reference, in every registered implementation.
// Plain C++: the same calls a consumer of the compiled library makes.
#include <prism/elementwise.hpp>
#include <prism/memory.hpp>

#include "testing.hpp"

#include <cstdint>
#include <stdexcept>
#include <tuple>

namespace {

using namespace prism::testing;
using prism::impl;

class Add : public ::testing::TestWithParam<impl> {};

// Calls body.template operator()<T>() for each standard element type.
template <class F>
void for_each_type(F&& body) {
  body.template operator()<float>();
  body.template operator()<double>();
  body.template operator()<std::int32_t>();
  body.template operator()<std::int64_t>();
}

// Runs add on random a, b of size n (starting `offset` elements past an aligned address) into a
// poisoned output, and checks every element against the float64 reference.
template <class T>
void check_add(impl which, std::size_t n, std::size_t offset, bool in_place = false) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "type " << typeid(T).name() << ", n " << n << ", offset "
                                    << offset << ", seed " << seed << (in_place ? ", in place" : ""));
  const auto a = random_vector<T>(n, seed);
  const auto b = random_vector<T>(n, seed + 1);
  const auto where = prism::memory_of(which);
  placed_array<T> da(a, where, offset), db(b, where, offset);
  placed_array<T> out(std::vector<T>(n, poison<T>()), where, offset);

  prism::span<T> result = in_place ? da.view() : out.view();
  prism::add<T>(da.view(), db.view(), result, nullptr, which);
  if (where == prism::memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  const auto got = in_place ? da.values() : out.values();
  ASSERT_EQ(got.size(), n);
  std::size_t failures = 0;
  for (std::size_t i = 0; i < n && failures < 5; ++i) {
    const double want = static_cast<double>(a[i]) + static_cast<double>(b[i]);
    const auto ok = close(got[i], want);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": " << ok.message();
    }
  }
}

TEST_P(Add, MatchesReference) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type([&]<class T>() {
    for (std::size_t n : {0, 1, 3, 1000, (1 << 20) + 1}) check_add<T>(GetParam(), n, 0);
  });
}

TEST_P(Add, MisalignedStart) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type([&]<class T>() {
    for (std::size_t n : {1, 5, 1000, 4099}) check_add<T>(GetParam(), n, 1);
  });
}

TEST_P(Add, InPlace) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type([&]<class T>() {
    check_add<T>(GetParam(), 1001, 0, /*in_place=*/true);
    check_add<T>(GetParam(), 1001, 3, /*in_place=*/true);
  });
}

// Integers wrap around (two's complement) in every implementation, the cpu one included.
TEST_P(Add, IntegerOverflowWraps) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = prism::memory_of(GetParam());
  constexpr auto max = std::numeric_limits<std::int32_t>::max();
  constexpr auto min = std::numeric_limits<std::int32_t>::min();
  placed_array<std::int32_t> a({max, min, -1}, where), b({1, -1, 1}, where),
      out(std::vector<std::int32_t>(3, poison<std::int32_t>()), where);
  prism::add<std::int32_t>(a.view(), b.view(), out.view(), nullptr, GetParam());
  EXPECT_EQ(out.values(), (std::vector<std::int32_t>{min, max, 0}));
}

TEST_P(Add, MismatchedSizesThrowAndChangeNothing) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = prism::memory_of(GetParam());
  placed_array<float> a(random_vector<float>(10, fresh_seed()), where);
  placed_array<float> b(random_vector<float>(9, fresh_seed()), where);
  placed_array<float> out(std::vector<float>(10, 42.0f), where);
  try {
    prism::add<float>(a.view(), b.view(), out.view(), nullptr, GetParam());
    FAIL() << "mismatched sizes were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("9 elements, expected 10"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.values(), std::vector<float>(10, 42.0f));
}

TEST_P(Add, PartialOverlapThrows) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = prism::memory_of(GetParam());
  placed_array<float> a(random_vector<float>(11, fresh_seed()), where);
  const auto before = a.values();
  auto all = a.view();
  EXPECT_THROW(prism::add<float>(all.subspan(0, 10), all.subspan(0, 10), all.subspan(1, 10),
                                 nullptr, GetParam()),
               std::invalid_argument);
  EXPECT_EQ(a.values(), before);
}

// Memory on the wrong side of the bus is refused by name, before anything runs.
TEST_P(Add, WrongMemoryThrowsAndChangesNothing) {
  const impl which = GetParam();
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device: device memory cannot be made here";
  const bool gpu = prism::memory_of(which) == prism::memory::device;
  const auto wrong = gpu ? prism::memory::host : prism::memory::device;
  const auto right = prism::memory_of(which);
  placed_array<float> a(random_vector<float>(100, fresh_seed()), wrong);
  placed_array<float> b(random_vector<float>(100, fresh_seed()), right);
  placed_array<float> out(std::vector<float>(100, 42.0f), right);
  try {
    prism::add<float>(a.view(), b.view(), out.view(), nullptr, which);
    FAIL() << "memory on the wrong side was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(gpu ? "host memory" : "device memory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.values(), std::vector<float>(100, 42.0f));
}

// Past 2^31 elements: 64-bit indexing in every GPU implementation. 26 GB of device memory.
TEST_P(Add, HugePast2To31) {
  const impl which = GetParam();
  if (prism::memory_of(which) == prism::memory::host) GTEST_SKIP() << "GPU implementations only";
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = (std::size_t{1} << 31) + 7;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto a = random_vector<float>(n, seed), b = random_vector<float>(n, seed + 1);
  prism::device_buffer<float> da(a), db(b), out(n);
  prism::check(cudaMemset(out.data(), 0xFF, n * sizeof(float)), "cudaMemset");  // NaN everywhere
  prism::add<float>(da.view(), db.view(), out.view(), nullptr, which);
  const auto got = out.to_host();
  std::int64_t wrong = 0, first_wrong = -1;
#pragma omp parallel for reduction(+ : wrong)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
    if (!close(got[i], static_cast<double>(a[i]) + static_cast<double>(b[i]))) ++wrong;
  }
  if (wrong > 0) {
    for (std::size_t i = 0; i < n && first_wrong < 0; ++i)
      if (!close(got[i], static_cast<double>(a[i]) + static_cast<double>(b[i]))) first_wrong = i;
  }
  EXPECT_EQ(wrong, 0) << "first wrong element: " << first_wrong;
}

INSTANTIATE_TEST_SUITE_P(, Add, ::testing::ValuesIn(prism::elementwise_implementations().begin(),
                                                    prism::elementwise_implementations().end()),
                         impl_name);

}  // namespace
