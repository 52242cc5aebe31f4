// SPDX-License-Identifier: Apache-2.0
// The scan family against host references, in every registered implementation and every stage of
// its lesson, and the conformance kit. Plain C++: the same calls a consumer of the compiled library
// makes.
//
// References and tolerances. Integer scans, minima and maxima, and every selection are exact (the
// integer references wrap around in the type, as the library does). A floating-point prefix sum
// of i + 1 terms, added in any order, errs by about eps(T) * sqrt(i + 1) * (the size of its
// partial sums) for random rounding errors; the partial sums are bounded by the largest prefix so
// far or the root of the sum of squares so far, whichever is larger. Element i's tolerance is 8
// times that: it grows with the prefix, as the error does.
#include <prism/scan.hpp>
#include <prism/elementwise.hpp>
#include <prism/scratch.hpp>

#include "conformance.hpp"
#include "testing.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;
using prism::scan_op;


using all_types = types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;
using key_types = types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>;

// 4096, 6144 and 8192 end exactly on a tile of several raw programs (unique of 8-byte keys, the
// compaction of 8-byte elements and the scan by key of 4-byte values hold 4,096, unique_by_key of
// int64 values 2,048; run-length encoding of 4-byte keys and the scan of 4-byte values 6,144;
// unique of 4-byte keys 8,192): the last element sits in a whole tile.
const std::size_t test_sizes[] = {0, 1, 3, 1000, 4096, 4099, 6144, 8192, large((1 << 20) + 1)};
// Runs of equal keys: single elements, pairs, long runs, and (0) one run over the whole array.
const std::size_t run_lengths[] = {1, 2, 1000, 0};

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// ---- references ---------------------------------------------------------------------------------

template <class T>
using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// a + b in T, integers wrapping around.
template <class T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<bits_of<T>>(static_cast<bits_of<T>>(a) + static_cast<bits_of<T>>(b)));
  } else {
    return a + b;
  }
}

// prism's min and max: a NaN wins; of equal values the earlier.
template <class T>
T extremum(T a, T b, bool largest) {
  if (a != a) return a;
  if (b != b) return b;
  return (largest ? a < b : b < a) ? b : a;
}

template <class T>
T identity(scan_op op) {
  using limits = std::numeric_limits<T>;
  if (op == scan_op::sum) return T(0);
  if constexpr (limits::has_infinity) {
    return op == scan_op::max ? -limits::infinity() : limits::infinity();
  } else {
    return op == scan_op::max ? limits::lowest() : limits::max();
  }
}

// Element i of a floating-point prefix sum: its float64 value and tolerance (in units of eps).
struct prefix_reference {
  std::vector<double> value, tolerance;
};

// The prefix sums of terms[0..i] for every i, with segments restarting where `starts` says.
inline prefix_reference prefix_sums(const std::vector<double>& terms, const std::vector<bool>* starts = nullptr) {
  prefix_reference r{std::vector<double>(terms.size()), std::vector<double>(terms.size())};
  double sum = 0, largest = 0, squares = 0, count = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (starts != nullptr && (*starts)[i]) sum = largest = squares = count = 0;
    sum += terms[i];
    squares += terms[i] * terms[i];
    largest = std::max(largest, std::abs(sum));
    count += 1;
    r.value[i] = sum;
    r.tolerance[i] = 8 * std::sqrt(count) * std::max(largest, std::sqrt(squares));
  }
  return r;
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a && b != b) return true;
  }
  return a == b;
}

// got against the scan of x by op, inclusive or exclusive: exact but for floating-point sums.
template <class T>
::testing::AssertionResult scan_matches(const std::vector<T>& got, const std::vector<T>& x, scan_op op, bool exclusive) {
  if (got.size() != x.size()) return ::testing::AssertionFailure() << "size " << got.size();
  const std::size_t n = x.size();
  if (op == scan_op::sum && std::is_floating_point_v<T>) {
    std::vector<double> terms(n);
    for (std::size_t i = 0; i < n; ++i) terms[i] = static_cast<double>(x[i]);
    const prefix_reference r = prefix_sums(terms);
    for (std::size_t i = 0; i < n; ++i) {
      const double want = exclusive ? (i == 0 ? 0.0 : r.value[i - 1]) : r.value[i];
      const double tolerance = (exclusive ? (i == 0 ? 0.0 : r.tolerance[i - 1]) : r.tolerance[i]) *
                                   std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::denorm_min();
      if (!(std::abs(static_cast<double>(got[i]) - want) <= tolerance)) {
        return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want
                                             << " (tolerance " << tolerance << ")";
      }
    }
    return ::testing::AssertionSuccess();
  }
  T running = identity<T>(op);
  for (std::size_t i = 0; i < n; ++i) {
    const T before = running;
    running = op == scan_op::sum ? add(running, x[i]) : extremum(running, x[i], op == scan_op::max);
    if (i == 0 && !exclusive) running = x[0];
    const T want = exclusive ? before : running;
    if (!same(got[i], want)) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want;
    }
  }
  return ::testing::AssertionSuccess();
}

// Keys in runs of `run` equal ones (0: one run), the run ids cycling through 0, 1, 2, so that
// equal keys also appear in runs that are not adjacent (separate runs all the same).
template <class K>
std::vector<K> runs_of(std::size_t n, std::size_t run) {
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<K>(run == 0 ? 7 : (i / run) % 3 + 1);
  return keys;
}

template <class K>
std::vector<bool> run_starts(const std::vector<K>& keys) {
  std::vector<bool> starts(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) starts[i] = i == 0 || !(keys[i - 1] == keys[i]);
  return starts;
}

// Runs f(count) twice: returned (count null), then into a one-element array (device memory for
// the GPU implementations): both counts must agree; the outputs are those of the second call.
template <class Call>
std::size_t both_deliveries(impl which, Call&& call) {
  const std::size_t returned = call(static_cast<prism::span<std::size_t>*>(nullptr));
  std::size_t delivered = 0;
  const std::size_t poisoned = 0xDEADBEEF;
  if (memory_of(which) == memory::device) {
    prism::device_buffer<std::size_t> count(std::vector<std::size_t>{poisoned});
    prism::span<std::size_t> c = count.view();
    call(&c);
    synchronize(which);
    delivered = count.to_host()[0];
  } else {
    std::vector<std::size_t> count{poisoned};
    prism::span<std::size_t> c{count};
    call(&c);
    delivered = count[0];
  }
  EXPECT_EQ(returned, delivered) << "the count returned and the count delivered to memory differ";
  return returned;
}

template <class T>
std::vector<T> first(const std::vector<T>& v, std::size_t count) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(count, v.size()))};
}

// ---- scans --------------------------------------------------------------------------------------

class Scan : public ::testing::TestWithParam<impl> {};

template <class T>
void check_scan(impl which, std::size_t n, std::size_t offset, scan_op op, bool exclusive, bool in_place = false) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " " << prism::name(op) << (exclusive ? " exclusive" : " inclusive")
                                    << ", n " << n << ", offset " << offset << (in_place ? ", in place" : "")
                                    << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const prism::span<T> to = in_place ? dx.view() : out.view();
  const auto policy = prism::par.with(which);
  if (exclusive) {
    prism::exclusive_scan(policy, dx.view(), to, op);
  } else {
    prism::inclusive_scan(policy, dx.view(), to, op);
  }
  synchronize(which);
  EXPECT_TRUE(scan_matches(in_place ? dx.values() : out.values(), x, op, exclusive));
  if (!in_place) EXPECT_EQ(dx.values(), x) << "the input changed";
}

TEST_P(Scan, MatchesReference) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (scan_op op : {scan_op::sum, scan_op::min, scan_op::max}) {
      for (bool exclusive : {false, true}) {
        for (std::size_t n : test_sizes) check_scan<T>(GetParam(), n, 0, op, exclusive);
      }
    }
  });
}

TEST_P(Scan, MisalignedStart) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {1, 5, 4099, 100003}) {
      check_scan<T>(GetParam(), n, 1, scan_op::sum, false);
      check_scan<T>(GetParam(), n, 1, scan_op::max, true);
    }
  });
}

TEST_P(Scan, InPlace) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, large((1 << 20) + 1)}) {
      check_scan<T>(GetParam(), n, 0, scan_op::sum, false, true);
      check_scan<T>(GetParam(), n, 1, scan_op::sum, true, true);
      check_scan<T>(GetParam(), n, 0, scan_op::min, false, true);
    }
  });
}

// std::exclusive_scan's form: out[0] is init, and init joins every prefix once (sum, min, max).
TEST_P(Scan, ExclusiveScanFromInit) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, large((1 << 20) + 1)}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    const auto x = random_vector<std::int32_t>(n, seed);
    placed_array<std::int32_t> dx(x, where);
    placed_array<std::int32_t> out(std::vector<std::int32_t>(n, -7), where);
    const auto policy = prism::par.with(GetParam());
    for (const std::int32_t init : {5, -1000000}) {
      for (scan_op op : {scan_op::sum, scan_op::min, scan_op::max}) {
        prism::exclusive_scan(policy, dx.view(), out.view(), init, op);
        synchronize(GetParam());
        const auto got = out.values();
        std::int64_t total = init;  // the sums of random int32 stay inside int64; wrapped to compare
        std::int32_t best = init;
        for (std::size_t i = 0; i < n; ++i) {
          const auto want = op == scan_op::sum ? static_cast<std::int32_t>(static_cast<std::uint32_t>(total)) : best;
          ASSERT_EQ(got[i], want) << "element " << i << ", init " << init << ", op " << int(op);
          total += x[i];
          best = op == scan_op::min ? std::min(best, x[i]) : std::max(best, x[i]);
        }
      }
    }
  }
  // A float init of floats: the same as the identity's scan plus init, for sums of small integers.
  const std::vector<float> small{1.0f, 2.0f, 3.0f};
  placed_array<float> dsmall(small, where);
  placed_array<float> fout(std::vector<float>(3, -1.0f), where);
  prism::exclusive_scan(prism::par.with(GetParam()), dsmall.view(), fout.view(), 0.5f);
  synchronize(GetParam());
  EXPECT_EQ(fout.values(), (std::vector<float>{0.5f, 1.5f, 3.5f}));
}

// int32 accumulates in int32: the prefix sums wrap around at 2^31, in every implementation.
TEST_P(Scan, IntegerSumsWrapInTheirType) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  placed_array<std::int32_t> x(std::vector<std::int32_t>(5000, big), where);
  placed_array<std::int32_t> out(std::vector<std::int32_t>(5000, 0), where);
  prism::inclusive_scan(prism::par.with(GetParam()), x.view(), out.view());
  synchronize(GetParam());
  const auto got = out.values();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto want = static_cast<std::int32_t>(static_cast<std::uint32_t>(big) * static_cast<std::uint32_t>(i + 1));
    ASSERT_EQ(got[i], want) << "element " << i;
  }
}

// From the first NaN on, every running minimum and maximum is NaN.
TEST_P(Scan, NaNPropagatesThroughMinAndMax) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{10}, large((1 << 20) + 1)}) {
    auto x = random_vector<float>(n, fresh_seed());
    const std::size_t at = n / 3;
    x[at] = std::numeric_limits<float>::quiet_NaN();
    placed_array<float> dx(x, memory_of(GetParam()));
    placed_array<float> out(std::vector<float>(n, 0.0f), memory_of(GetParam()));
    for (scan_op op : {scan_op::min, scan_op::max}) {
      prism::inclusive_scan(prism::par.with(GetParam()), dx.view(), out.view(), op);
      synchronize(GetParam());
      const auto got = out.values();
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::isnan(got[i]), i >= at) << "element " << i;
    }
  }
}

TEST_P(Scan, SizesThrowAndChangeNothing) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  placed_array<float> x(random_vector<float>(10, fresh_seed()), where);
  placed_array<float> out(std::vector<float>(9, 42.0f), where);
  try {
    prism::inclusive_scan(prism::par.with(GetParam()), x.view(), out.view());
    FAIL() << "a short output was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the output has 9 elements, expected 10"), std::string::npos) << e.what();
  }
  // A partial overlap (out one element past x) is refused; in place exactly is not.
  placed_array<float> both(random_vector<float>(11, fresh_seed()), where);
  EXPECT_THROW(prism::inclusive_scan(prism::par.with(GetParam()), both.view().subspan(0, 10), both.view().subspan(1, 10)),
               std::invalid_argument);
  EXPECT_EQ(out.values(), std::vector<float>(9, 42.0f));
}

// ---- scans by key -----------------------------------------------------------------------------

template <class K, class T>
void check_scan_by_key(impl which, std::size_t n, std::size_t run, bool exclusive, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << type_name<T>() << " values, n " << n << ", runs of "
                                    << run << (exclusive ? ", exclusive" : ", inclusive") << ", offset " << offset
                                    << ", seed " << seed);
  const auto keys = runs_of<K>(n, run);
  const auto x = random_vector<T>(n, seed);
  placed_array<K> dk(keys, memory_of(which), offset);
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const auto policy = prism::par.with(which);
  if (exclusive) {
    prism::exclusive_scan_by_key(policy, dk.view(), dx.view(), out.view());
  } else {
    prism::inclusive_scan_by_key(policy, dk.view(), dx.view(), out.view());
  }
  synchronize(which);
  const auto got = out.values();
  const auto starts = run_starts(keys);
  if constexpr (std::is_floating_point_v<T>) {
    std::vector<double> terms(n);
    for (std::size_t i = 0; i < n; ++i) terms[i] = static_cast<double>(x[i]);
    const prefix_reference r = prefix_sums(terms, &starts);
    for (std::size_t i = 0; i < n; ++i) {
      const bool head = starts[i];
      const double want = exclusive ? (head ? 0.0 : r.value[i - 1]) : r.value[i];
      const double tolerance = (exclusive ? (head ? 0.0 : r.tolerance[i - 1]) : r.tolerance[i]) *
                                   std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::denorm_min();
      ASSERT_LE(std::abs(static_cast<double>(got[i]) - want), tolerance) << "element " << i << ": got " << got[i];
    }
  } else {
    T running = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (starts[i]) running = 0;
      const T before = running;
      running = add(running, x[i]);
      ASSERT_EQ(got[i], exclusive ? before : running) << "element " << i;
    }
  }
}

TEST_P(Scan, ByKeyRestartsAtEveryRun) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    for_each_type(types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>{}, [&]<class T>() {
      for (std::size_t run : run_lengths) {
        for (bool exclusive : {false, true}) {
          for (std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{5000}, large((1 << 18) + 7)}) {
            check_scan_by_key<K, T>(GetParam(), n, run, exclusive, 0);
          }
        }
      }
      check_scan_by_key<K, T>(GetParam(), 70001, 2, false, 1);
    });
  });
}

// Minima and maxima by key, running (scans) and per run (reduce_by_key), bit for bit: the first of
// equal extremes is kept (so -0.0 and +0.0 report whichever came first), and the first NaN wins.
template <class T>
T first_extreme(T a, T b, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return (largest ? a < b : b < a) ? b : a;
}

template <class K, class T>
void check_by_key_extremum(impl which, std::size_t n, std::size_t run, bool largest) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << type_name<T>() << " values, n " << n << ", runs of "
                                    << run << (largest ? ", max" : ", min") << ", seed " << seed);
  const auto keys = runs_of<K>(n, run);
  auto x = random_vector<T>(n, seed);
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i + 2 < n; i += 7) {
      x[i] = T(0);
      x[i + 1] = -T(0);
    }
    if (n > 3) x[n / 3] = std::numeric_limits<T>::quiet_NaN();
  }
  const auto starts = run_starts(keys);
  const T identity = largest ? (std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                     : std::numeric_limits<T>::lowest())
                             : (std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                     : std::numeric_limits<T>::max());
  std::vector<T> inclusive(n), exclusive(n), per_run;
  std::vector<K> run_keys;
  T running = identity;
  for (std::size_t i = 0; i < n; ++i) {
    if (starts[i]) {
      running = x[i];
      exclusive[i] = identity;
      run_keys.push_back(keys[i]);
      per_run.push_back(x[i]);
    } else {
      exclusive[i] = running;
      running = first_extreme(running, x[i], largest);
      per_run.back() = running;
    }
    inclusive[i] = running;
  }
  const auto where = memory_of(which);
  const auto policy = prism::par.with(which);
  const scan_op op = largest ? scan_op::max : scan_op::min;
  placed_array<K> dk(keys, where);
  placed_array<T> dx(x, where, 1);
  for (bool is_exclusive : {false, true}) {
    placed_array<T> out(std::vector<T>(n, poison<T>()), where, 1);
    if (is_exclusive) {
      prism::exclusive_scan_by_key(policy, dk.view(), dx.view(), out.view(), op);
    } else {
      prism::inclusive_scan_by_key(policy, dk.view(), dx.view(), out.view(), op);
    }
    synchronize(which);
    ASSERT_TRUE(same_bits(out.values(), is_exclusive ? exclusive : inclusive)) << (is_exclusive ? "exclusive" : "inclusive");
  }
  placed_array<K> keys_out(std::vector<K>(n + 1, K(99)), where);
  placed_array<T> values_out(std::vector<T>(n + 1, poison<T>()), where);
  ASSERT_EQ(prism::reduce_by_key(policy, dk.view(), dx.view(), keys_out.view(), values_out.view(), op), per_run.size());
  EXPECT_EQ(first(keys_out.values(), per_run.size()), run_keys);
  const std::vector<T> written = values_out.values();  // one copy: begin and end of the same vector
  ASSERT_TRUE(same_bits(first(written, per_run.size()), per_run)) << "reduce_by_key";
  EXPECT_TRUE(same_bits(std::vector<T>(written.begin() + static_cast<std::ptrdiff_t>(per_run.size()), written.end()),
                        std::vector<T>(n + 1 - per_run.size(), poison<T>())))
      << "written past the runs";
}

TEST_P(Scan, ByKeyMinAndMax) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    for_each_type(types<float, double, std::int32_t, std::int64_t, std::uint32_t, std::uint64_t>{}, [&]<class T>() {
      for (std::size_t run : run_lengths) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5000}, large((1 << 18) + 7)}) {
          for (bool largest : {false, true}) check_by_key_extremum<K, T>(GetParam(), n, run, largest);
        }
      }
    });
  });
}

// ---- selections ---------------------------------------------------------------------------------

class Select : public ::testing::TestWithParam<impl> {};

enum class pattern { none, all, alternate, random, sparse };

const char* name_of(pattern p) {
  constexpr const char* names[] = {"none", "all", "alternate", "random", "sparse"};
  return names[static_cast<int>(p)];
}

// Flags as bytes: 0 or another value (not only 1: any nonzero flag keeps), 0 or 1 for bool.
template <class F>
std::vector<std::uint8_t> flags_of(std::size_t n, pattern p, std::uint64_t seed) {
  std::vector<std::uint8_t> f(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t h = mix(seed ^ mix(i));
    bool keep = false;
    switch (p) {
      case pattern::none: keep = false; break;
      case pattern::all: keep = true; break;
      case pattern::alternate: keep = i % 2 == 0; break;
      case pattern::random: keep = h & 1; break;
      case pattern::sparse: keep = h % 97 == 0; break;
    }
    if constexpr (std::is_same_v<F, bool>) {
      f[i] = keep;
    } else {
      f[i] = keep ? static_cast<std::uint8_t>(1 + (h >> 8) % 200) : 0;
    }
  }
  return f;
}

template <class T, class F>
void check_compact_and_partition(impl which, std::size_t n, pattern p, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << " values, " << type_name<F>() << " flags, n " << n << ", "
                                    << name_of(p) << ", offset " << offset << ", seed " << seed);
  const auto x = random_vector<T>(n, seed);
  const auto flags = flags_of<F>(n, p, seed);
  std::vector<T> kept, others;
  for (std::size_t i = 0; i < n; ++i) (flags[i] ? kept : others).push_back(x[i]);
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<std::uint8_t> flag_bytes(flags, memory_of(which), offset);
  const prism::span<const F> df(reinterpret_cast<const F*>(flag_bytes.view().data()), n);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const auto policy = prism::par.with(which);

  const std::size_t compacted = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::compact(policy, dx.view(), df, out.view());
    prism::compact(policy, dx.view(), df, out.view(), *count);
    return 0;
  });
  ASSERT_EQ(compacted, kept.size());
  EXPECT_EQ(first(out.values(), compacted), kept);

  placed_array<T> parted(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const std::size_t split = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::partition(policy, dx.view(), df, parted.view());
    prism::partition(policy, dx.view(), df, parted.view(), *count);
    return 0;
  });
  ASSERT_EQ(split, kept.size());
  std::vector<T> want = kept;
  want.insert(want.end(), others.begin(), others.end());
  EXPECT_EQ(parted.values(), want) << "partition: kept first, then the others, both in order";
  EXPECT_EQ(dx.values(), x) << "the input changed";
}

TEST_P(Select, CompactAndPartition) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, double, std::int32_t, std::uint64_t>{}, [&]<class T>() {
    for (pattern p : {pattern::none, pattern::all, pattern::alternate, pattern::random, pattern::sparse}) {
      for (std::size_t n : test_sizes) check_compact_and_partition<T, std::uint8_t>(GetParam(), n, p, 0);
      check_compact_and_partition<T, bool>(GetParam(), 100003, p, 1);
    }
  });
}

template <class T>
std::vector<T> values_in_runs(std::size_t n, std::size_t run) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t id = run == 0 ? 5 : (i / run) % 3 + 1;
    v[i] = static_cast<T>(std::is_floating_point_v<T> ? static_cast<double>(id) / 4 : static_cast<double>(id));
  }
  return v;
}

template <class T>
void check_unique_and_encode(impl which, std::size_t n, std::size_t run, std::size_t offset) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", runs of " << run << ", offset " << offset);
  const auto x = values_in_runs<T>(n, run);
  std::vector<T> heads;
  std::vector<std::uint64_t> lengths;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !(x[i - 1] == x[i])) {
      heads.push_back(x[i]);
      lengths.push_back(0);
    }
    ++lengths.back();
  }
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const auto policy = prism::par.with(which);
  const std::size_t unique = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::unique(policy, dx.view(), out.view());
    prism::unique(policy, dx.view(), out.view(), *count);
    return 0;
  });
  ASSERT_EQ(unique, heads.size());
  EXPECT_EQ(first(out.values(), unique), heads);

  placed_array<T> values(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(n, 0), memory_of(which), offset);
  const std::size_t runs = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::run_length_encode(policy, dx.view(), values.view(), counts.view());
    prism::run_length_encode(policy, dx.view(), values.view(), counts.view(), *count);
    return 0;
  });
  ASSERT_EQ(runs, heads.size());
  EXPECT_EQ(first(values.values(), runs), heads);
  EXPECT_EQ(first(counts.values(), runs), lengths);
}

TEST_P(Select, UniqueAndRunLengthEncode) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(all_types{}, [&]<class T>() {
    for (std::size_t run : run_lengths) {
      for (std::size_t n : test_sizes) check_unique_and_encode<T>(GetParam(), n, run, 0);
      check_unique_and_encode<T>(GetParam(), 9999, run, 1);
    }
  });
}

// -0.0 equals +0.0 (one run); a NaN equals nothing, itself included (a run of its own each).
TEST_P(Select, FloatingPointEquality) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{1.0f, -0.0f, 0.0f, 0.0f, nan, nan, 2.0f};
  placed_array<float> dx(x, memory_of(GetParam()));
  placed_array<float> out(std::vector<float>(x.size(), 7.0f), memory_of(GetParam()));
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(x.size(), 0), memory_of(GetParam()));
  const auto policy = prism::par.with(GetParam());
  ASSERT_EQ(prism::unique(policy, dx.view(), out.view()), 5u);
  const auto got = out.values();
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_TRUE(got[1] == 0.0f && std::signbit(got[1])) << "the first of a run is kept: -0.0";
  EXPECT_TRUE(std::isnan(got[2]) && std::isnan(got[3]));
  EXPECT_EQ(got[4], 2.0f);
  ASSERT_EQ(prism::run_length_encode(policy, dx.view(), out.view(), counts.view()), 5u);
  EXPECT_EQ(first(counts.values(), 5), (std::vector<std::uint64_t>{1, 3, 1, 1, 1}));
}

// Runs that mix -0.0 and +0.0, and NaNs with random payloads and signs (each a run of its own),
// among ordinary values: what a selection writes of a run is the bits of its first element.
template <class T>
std::vector<T> signed_zeros_and_nans(std::size_t n, std::uint64_t seed, bool only_nans = false) {
  using B = bits_of<T>;
  constexpr int mantissa = std::numeric_limits<T>::digits - 1;
  const B exponent_all_ones = ((B{1} << (sizeof(T) * 8 - 1)) - 1) & ~((B{1} << mantissa) - 1);
  std::vector<T> v(n);
  std::size_t i = 0;
  for (std::uint64_t r = 0; i < n; ++r) {
    const std::uint64_t draw = mix(seed ^ mix(r));
    const std::size_t length = std::min<std::size_t>(n - i, 1 + draw % 7);
    for (std::size_t j = 0; j < length; ++j, ++i) {
      const std::uint64_t bits = mix(draw + j);
      switch (only_nans ? 3 : draw >> 61) {
        case 0: case 1: case 2:  // a run of zeros, each of either sign
          v[i] = (bits & 1) ? T(-0.0) : T(0.0);
          break;
        case 3: {  // a NaN of any sign and payload (never zero: a payload of 0 would be infinity)
          const B payload = static_cast<B>(bits >> 8) & ((B{1} << mantissa) - 1);
          const B sign = (bits & 1) ? B{1} << (sizeof(T) * 8 - 1) : B{0};
          v[i] = std::bit_cast<T>(static_cast<B>(sign | exponent_all_ones | (payload == 0 ? 1 : payload)));
          break;
        }
        default:
          v[i] = static_cast<T>(draw % 3) - T(1);  // -1, 0 or 1 (of the run's draw: equal in the run)
      }
    }
  }
  return v;
}

template <class T>
void check_first_bits(impl which, std::size_t n, bool only_nans = false) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << prism::name(which) << ", " << type_name<T>() << ", n " << n << ", seed "
                                    << seed << (only_nans ? ", NaNs only" : ""));
  const auto x = signed_zeros_and_nans<T>(n, seed, only_nans);
  std::vector<T> heads;
  std::vector<std::uint64_t> lengths;
  std::vector<std::uint32_t> keys(n);
  std::vector<T> first_values;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !(x[i - 1] == x[i])) {
      heads.push_back(x[i]);
      lengths.push_back(0);
    }
    ++lengths.back();
    keys[i] = static_cast<std::uint32_t>(heads.size() / 2);  // runs of keys over pairs of value runs
    if (i == 0 || keys[i] != keys[i - 1]) first_values.push_back(x[i]);
  }
  const memory where = memory_of(which);
  const auto policy = prism::par.with(which);
  placed_array<T> dx(x, where), out(std::vector<T>(n, poison<T>()), where), values(std::vector<T>(n, poison<T>()), where);
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(n, 0), where);
  placed_array<std::uint32_t> dkeys(keys, where), keys_out(std::vector<std::uint32_t>(n, 0), where);

  const std::size_t unique = prism::unique(policy, dx.view(), out.view());
  ASSERT_EQ(unique, heads.size());
  EXPECT_TRUE(same_bits(first(out.values(), unique), heads)) << "unique";
  const std::size_t runs = prism::run_length_encode(policy, dx.view(), values.view(), counts.view());
  ASSERT_EQ(runs, heads.size());
  EXPECT_TRUE(same_bits(first(values.values(), runs), heads)) << "run_length_encode";
  EXPECT_EQ(first(counts.values(), runs), lengths);
  const std::size_t kept = prism::unique_by_key(policy, dkeys.view(), dx.view(), keys_out.view(), out.view());
  ASSERT_EQ(kept, first_values.size());
  EXPECT_TRUE(same_bits(first(out.values(), kept), first_values)) << "unique_by_key's values";
}

// Every implementation writes the bits of each run's first element (a run of -0.0 and +0.0 is
// reported by whichever came first; a NaN, a run of its own, keeps its payload). Arrays of NaNs
// alone put a NaN first in every tile, the last (partial) one included.
TEST_P(Select, RunsReportTheirFirstElementsBits) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{2}, std::size_t{3}, std::size_t{1001}, std::size_t{4099}, large((1 << 20) + 1)}) {
    for (bool only_nans : {false, true}) {
      check_first_bits<float>(GetParam(), n, only_nans);
      check_first_bits<double>(GetParam(), n, only_nans);
    }
  }
}

// automatic on device memory, at sizes where it picks each GPU implementation.
TEST(GpuSelectAutomatic, RunsReportTheirFirstElementsBits) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (std::size_t n : {std::size_t{1001}, large((1 << 20) + 1), large((1 << 23) + 3)}) {
    check_first_bits<float>(impl::automatic, n);
    check_first_bits<double>(impl::automatic, n);
  }
}

template <class K, class T>
void check_by_key(impl which, std::size_t n, std::size_t run, std::size_t offset) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<K>() << " keys, " << type_name<T>() << " values, n " << n
                                    << ", runs of " << run << ", offset " << offset << ", seed " << seed);
  const auto keys = runs_of<K>(n, run);
  const auto x = random_vector<T>(n, seed);
  const auto starts = run_starts(keys);
  std::vector<K> run_keys;
  std::vector<T> run_firsts;
  std::vector<double> sums, tolerances;
  std::vector<T> exact_sums;
  {
    double sum = 0, largest = 0, squares = 0, count = 0;
    T exact = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (starts[i]) {
        run_keys.push_back(keys[i]);
        run_firsts.push_back(x[i]);
        sum = largest = squares = count = 0;
        exact = 0;
      }
      sum += static_cast<double>(x[i]);
      squares += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      largest = std::max(largest, std::abs(sum));
      count += 1;
      exact = add(exact, x[i]);
      if (i + 1 == n || starts[i + 1]) {
        sums.push_back(sum);
        tolerances.push_back(8 * std::sqrt(count) * std::max(largest, std::sqrt(squares)));
        exact_sums.push_back(exact);
      }
    }
  }
  placed_array<K> dk(keys, memory_of(which), offset);
  placed_array<T> dx(x, memory_of(which), offset);
  placed_array<K> keys_out(std::vector<K>(n, poison<K>()), memory_of(which), offset);
  placed_array<T> out(std::vector<T>(n, poison<T>()), memory_of(which), offset);
  const auto policy = prism::par.with(which);

  const std::size_t unique = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::unique_by_key(policy, dk.view(), dx.view(), keys_out.view(), out.view());
    prism::unique_by_key(policy, dk.view(), dx.view(), keys_out.view(), out.view(), *count);
    return 0;
  });
  ASSERT_EQ(unique, run_keys.size());
  EXPECT_EQ(first(keys_out.values(), unique), run_keys);
  EXPECT_EQ(first(out.values(), unique), run_firsts);

  const std::size_t runs = both_deliveries(which, [&](prism::span<std::size_t>* count) -> std::size_t {
    if (count == nullptr) return prism::reduce_by_key(policy, dk.view(), dx.view(), keys_out.view(), out.view());
    prism::reduce_by_key(policy, dk.view(), dx.view(), keys_out.view(), out.view(), *count);
    return 0;
  });
  ASSERT_EQ(runs, run_keys.size());
  EXPECT_EQ(first(keys_out.values(), runs), run_keys);
  const auto got = out.values();
  for (std::size_t j = 0; j < runs; ++j) {
    if constexpr (std::is_floating_point_v<T>) {
      const double tolerance = tolerances[j] * std::numeric_limits<T>::epsilon() + std::numeric_limits<T>::denorm_min();
      ASSERT_LE(std::abs(static_cast<double>(got[j]) - sums[j]), tolerance) << "run " << j;
    } else {
      ASSERT_EQ(got[j], exact_sums[j]) << "run " << j;
    }
  }
}

TEST_P(Select, UniqueByKeyAndReduceByKey) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(key_types{}, [&]<class K>() {
    for_each_type(all_types{}, [&]<class T>() {
      for (std::size_t run : run_lengths) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, large((1 << 18) + 3)}) {
          check_by_key<K, T>(GetParam(), n, run, 0);
        }
      }
      check_by_key<K, T>(GetParam(), 50001, 2, 1);
    });
  });
}

// The selections run on separate arrays: an output that is an input, even exactly, is refused,
// and nothing changes.
// In place (the output is the input exactly): compact, partition (stably), unique and
// unique_by_key, in every implementation, at sizes around a tile's.
template <class T>
void check_in_place(impl which, std::size_t n) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", seed " << seed);
  const auto where = memory_of(which);
  const auto policy = prism::par.with(which);
  const auto x = random_vector<T>(n, seed);
  const auto flags = flags_of<std::uint8_t>(n, pattern::random, seed);
  std::vector<T> kept, others;
  for (std::size_t i = 0; i < n; ++i) (flags[i] ? kept : others).push_back(x[i]);
  placed_array<std::uint8_t> df(flags, where);

  placed_array<T> a(x, where);
  ASSERT_EQ(prism::compact(policy, a.view(), df.view(), a.view()), kept.size());
  EXPECT_EQ(first(a.values(), kept.size()), kept) << "compact in place";

  placed_array<T> b(x, where);
  ASSERT_EQ(prism::partition(policy, b.view(), df.view(), b.view()), kept.size());
  std::vector<T> parted = kept;
  parted.insert(parted.end(), others.begin(), others.end());
  EXPECT_EQ(b.values(), parted) << "partition in place";

  const auto runs = values_in_runs<T>(n, 3);
  std::vector<T> heads;
  std::vector<T> head_values;
  const auto payload = random_vector<T>(n, seed + 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !(runs[i - 1] == runs[i])) {
      heads.push_back(runs[i]);
      head_values.push_back(payload[i]);
    }
  }
  placed_array<T> c(runs, where);
  ASSERT_EQ(prism::unique(policy, c.view(), c.view()), heads.size());
  EXPECT_EQ(first(c.values(), heads.size()), heads) << "unique in place";

  if constexpr (prism::key_element<T>) {
    placed_array<T> keys(runs, where), values(payload, where);
    ASSERT_EQ(prism::unique_by_key(policy, keys.view(), values.view(), keys.view(), values.view()), heads.size());
    EXPECT_EQ(first(keys.values(), heads.size()), heads) << "unique_by_key in place: keys";
    EXPECT_EQ(first(values.values(), heads.size()), head_values) << "unique_by_key in place: values";
  }
}

TEST_P(Select, InPlace) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  for_each_type(types<float, std::int32_t, std::uint64_t>{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{6145}, std::size_t{100003},
                          large((1 << 20) + 1)})
      check_in_place<T>(GetParam(), n);
  });
}

// Partial overlaps are refused and change nothing; so is run-length encoding in place.
TEST_P(Select, PartialOverlapRefused) {
  if (auto why = missing_gpu(GetParam()); !why.empty()) GTEST_SKIP() << why;
  const auto where = memory_of(GetParam());
  const auto x = random_vector<float>(100, fresh_seed());
  placed_array<float> dx(x, where);
  placed_array<std::uint8_t> flags(std::vector<std::uint8_t>(100, 1), where);
  placed_array<std::uint64_t> counts(std::vector<std::uint64_t>(100, 0), where);
  const auto policy = prism::par.with(GetParam());
  const auto v = dx.view();
  EXPECT_THROW(prism::compact(policy, v.subspan(0, 99), flags.view().subspan(0, 99), v.subspan(1, 99)),
               std::invalid_argument);
  EXPECT_THROW(prism::partition(policy, v.subspan(1, 99), flags.view().subspan(0, 99), v.subspan(0, 99)),
               std::invalid_argument);
  EXPECT_THROW(prism::unique(policy, v.subspan(0, 99), v.subspan(1, 99)), std::invalid_argument);
  EXPECT_THROW(prism::run_length_encode(policy, v, v, counts.view()), std::invalid_argument);
  EXPECT_EQ(dx.values(), x);
}

// ---- past 2^32 elements (GPU; 17 to 38 GB of device memory) -------------------------------------

// Element i of the huge inputs, computed again on the host to check: values from prism::sequence
// (start - 7, step 3, wrapping), flags from a hash, almost all kept (the count passes 2^32).
inline std::int32_t huge_value(std::uint64_t i) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(-7) + static_cast<std::uint32_t>(i) * 3u);
}
inline std::uint8_t huge_flag(std::uint64_t i) { return mix(i) % 64 != 0; }

constexpr std::size_t huge_n = (std::size_t{1} << 32) + 4099;

bool skip_huge(impl which, std::string& why) {
  if (memory_of(which) == memory::host) {
    why = "GPU implementations only";
  } else if (which == impl::automatic) {
    why = "automatic runs raw or cub here (scan_family_of), each tested on its own";
  } else {
    why = missing_gpu(which);
  }
  return !why.empty();
}

// An in-place inclusive int32 sum over 2^32 + 4099 elements, checked chunk by chunk against the
// closed form of the prefix sums of -7 + 3k, in uint32 (int32 wraps).
inline std::int32_t huge_prefix(std::uint64_t i) {
  const std::uint64_t triangle = i % 2 == 0 ? (i / 2) * (i + 1) : i * ((i + 1) / 2);  // i (i + 1) / 2, mod 2^64
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(3 * triangle - 7 * (i + 1)));
}

TEST_P(Scan, HugeInt32SumPast2To32) {
  std::string why;
  if (skip_huge(GetParam(), why)) GTEST_SKIP() << why;
  prism::device_buffer<std::int32_t> x(huge_n);
  prism::sequence(prism::par.with(impl::raw), x.view(), -7, 3);
  prism::inclusive_scan(prism::par.with(GetParam()), x.view(), x.view());
  std::size_t first_wrong = 0;
  const std::size_t wrong = count_wrong(
      x.data(), huge_n, [](std::size_t i, std::int32_t got) { return got == huge_prefix(i); }, &first_wrong);
  EXPECT_EQ(wrong, 0u) << "first wrong element: " << first_wrong;
}

// Compaction of 2^32 + 2^27 int32 with 63 of 64 flags set: the count passes 2^32 (40 GB).
constexpr std::size_t huge_compact_n = (std::size_t{1} << 32) + (std::size_t{1} << 27);
TEST_P(Select, HugeCompactPast2To32) {
  std::string why;
  if (skip_huge(GetParam(), why)) GTEST_SKIP() << why;
  prism::device_buffer<std::int32_t> x(huge_compact_n), out(huge_compact_n);
  prism::device_buffer<std::uint8_t> flags(huge_compact_n);
  prism::sequence(prism::par.with(impl::raw), x.view(), -7, 3);
  {
    std::vector<std::uint8_t> host(huge_chunk);
    for (std::size_t start = 0; start < huge_compact_n; start += huge_chunk) {
      const std::size_t m = std::min(huge_chunk, huge_compact_n - start);
#pragma omp parallel for
      for (std::int64_t j = 0; j < static_cast<std::int64_t>(m); ++j) host[j] = huge_flag(start + j);
      prism::check(cudaMemcpy(flags.data() + start, host.data(), m, cudaMemcpyHostToDevice), "cudaMemcpy");
    }
  }
  prism::device_buffer<std::size_t> count(1);
  prism::compact(prism::par.with(GetParam()), x.view(), flags.view(), out.view(), count.view());
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  // Kept elements before each block of 2^16 inputs, counted in parallel: block b's kept elements
  // are out[kept_before[b], kept_before[b + 1]).
  constexpr std::size_t block = std::size_t{1} << 16;
  const std::size_t blocks = (huge_compact_n + block - 1) / block;
  std::vector<std::size_t> kept_before(blocks + 1, 0);
#pragma omp parallel for
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
    std::size_t kept = 0;
    for (std::size_t i = b * block; i < std::min(huge_compact_n, (b + 1) * block); ++i) kept += huge_flag(i);
    kept_before[b + 1] = kept;
  }
  for (std::size_t b = 0; b < blocks; ++b) kept_before[b + 1] += kept_before[b];
  const std::size_t want = kept_before[blocks];
  ASSERT_GT(want, std::size_t{1} << 32);
  ASSERT_EQ(count.to_host()[0], want);
  // A chunk of 2^10 blocks of inputs at a time: its kept elements copied back, each block checked
  // in parallel.
  constexpr std::size_t blocks_per_chunk = 1024;
  std::vector<std::int32_t> host(blocks_per_chunk * block);
  std::size_t wrong = 0, first_wrong = want;
  for (std::size_t b0 = 0; b0 < blocks; b0 += blocks_per_chunk) {
    const std::size_t b1 = std::min(blocks, b0 + blocks_per_chunk);
    const std::size_t begin = kept_before[b0];
    prism::check(cudaMemcpy(host.data(), out.data() + begin, (kept_before[b1] - begin) * sizeof(std::int32_t),
                            cudaMemcpyDeviceToHost),
                 "cudaMemcpy");
    std::size_t chunk_wrong = 0, chunk_first = want;
#pragma omp parallel for reduction(+ : chunk_wrong) reduction(min : chunk_first)
    for (std::int64_t b = static_cast<std::int64_t>(b0); b < static_cast<std::int64_t>(b1); ++b) {
      std::size_t k = kept_before[b];  // the output element the block's next kept input must be
      for (std::size_t i = b * block; i < std::min(huge_compact_n, (b + 1) * block); ++i) {
        if (!huge_flag(i)) continue;
        if (host[k - begin] != huge_value(i)) {
          ++chunk_wrong;
          chunk_first = std::min(chunk_first, k);
        }
        ++k;
      }
    }
    wrong += chunk_wrong;
    first_wrong = std::min(first_wrong, chunk_first);
  }
  EXPECT_EQ(wrong, 0u) << "first wrong kept element: " << first_wrong;
}

// The implementations whose dependency counts in int refuse more than 2^31 - 1 elements, by name,
// before touching anything (34 GB of device memory, never read).
TEST(GpuScanLimits, HugeIntCountingImplementationsRefuse) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::size_t n = std::size_t{1} << 31;
  prism::device_buffer<std::int32_t> a(n), b(n);
  prism::device_buffer<std::uint64_t> c(n);
  const prism::span<const std::int32_t> x(a.data(), n);
  const prism::span<std::int32_t> out(b.data(), n);
  const prism::span<std::uint64_t> counts(c.data(), n);
  const auto refuses = [](auto&& call) {
    try {
      call();
      ADD_FAILURE() << "accepted 2^31 elements";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("2^31 - 1"), std::string::npos) << e.what();
    }
  };
  refuses([&] { prism::unique(prism::par.with(impl::thrust), x, out); });
  refuses([&] { prism::run_length_encode(prism::par.with(impl::cub), x, out, counts); });
}

// ---- the lesson: every stage against the same reference ---------------------------------------

class GpuScanLesson : public ::testing::TestWithParam<prism::scan_stage> {};

TEST_P(GpuScanLesson, MatchesReference) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for_each_type(types<float, std::int32_t>{}, [&]<class T>() {
    for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{256}, std::size_t{257}, std::size_t{1000},
                          std::size_t{4097}, large((1 << 20) + 1), large((1 << 22) + 5)}) {
      for (std::size_t offset : {0, 1}) {
        for (bool in_place : {false, true}) {
          const std::uint64_t seed = fresh_seed();
          SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n " << n << ", offset " << offset
                                            << (in_place ? ", in place" : "") << ", seed " << seed);
          const auto x = random_vector<T>(n, seed);
          placed_array<T> dx(x, memory::device, offset);
          placed_array<T> out(std::vector<T>(n, poison<T>()), memory::device, offset);
          prism::inclusive_scan(GetParam(), prism::par, dx.view(), in_place ? dx.view() : out.view());
          synchronize(impl::raw);
          ASSERT_TRUE(scan_matches(in_place ? dx.values() : out.values(), x, scan_op::sum, false));
        }
      }
    }
  });
}

TEST_P(GpuScanLesson, RefusesHostMemory) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<float> x(10, 1.0f);
  std::vector<float> out(10);
  EXPECT_THROW(prism::inclusive_scan(GetParam(), prism::par, x, out), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(, GpuScanLesson, ::testing::ValuesIn(prism::scan_lesson),
                         [](const auto& info) { return std::string(prism::name(info.param)); });

// ---- the conformance kit, with the inclusive prefix sum of floats --------------------------------

struct inclusive_scan_float {
  using T = float;
  using R = float;
  static constexpr const char* name = "inclusive_scan";
  static std::span<const impl> implementations() { return prism::scan_implementations; }
  static std::size_t output_size(std::size_t n) { return n; }
  static void run(const prism::execution_policy& policy, prism::span<const float> x, prism::span<float> out) {
    prism::inclusive_scan(policy, x, out);
  }
  static std::vector<double> reference(const std::vector<float>& in) {
    std::vector<double> terms(in.begin(), in.end());
    return prefix_sums(terms).value;
  }
  // One tolerance for every element: the largest, the last prefix's.
  static double tolerance(const std::vector<float>& in) {
    if (in.empty()) return 0;
    std::vector<double> terms(in.begin(), in.end());
    const auto r = prefix_sums(terms);
    return *std::max_element(r.tolerance.begin(), r.tolerance.end()) * std::numeric_limits<float>::epsilon() +
           std::numeric_limits<float>::denorm_min();
  }
  // Every scan may be captured: Thrust's scans do not synchronize.
  static bool capturable(impl) { return true; }
  // An output one element past the input (a partial overlap), and a compaction whose output
  // overlaps its flags' bytes.
  static constexpr std::size_t aliased_bytes = 256;
  static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased() {
    return {
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::inclusive_scan(p, x.subspan(0, 15), x.subspan(1, 15));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto flags = prism::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(b + 128), 16);
          prism::compact(p, x, flags, prism::span<float>(reinterpret_cast<float*>(b + 120), 16));
        },
        // Overlaps the selections refuse, though they run in place over their values: the output
        // over the flags, shifted by one element; unique by key in place over one of its arrays
        // only. Exactly the same bytes as an input the output may not replace: run-length encoding
        // never runs in place; a scan by key over its values, not over its keys.
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          const auto over_flags = prism::span<float>(reinterpret_cast<float*>(b + 64), 16);
          prism::compact(p, x, prism::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(b + 64), 16), over_flags);
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::unique(p, x, x.subspan(1, 15));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto keys = prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b), 16);
          const auto values = prism::span<float>(reinterpret_cast<float*>(b + 64), 16);
          prism::unique_by_key(p, keys, values, keys, prism::span<float>(reinterpret_cast<float*>(b + 128), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto x = prism::span<float>(reinterpret_cast<float*>(b), 16);
          prism::run_length_encode(p, x, x, prism::span<std::uint64_t>(reinterpret_cast<std::uint64_t*>(b + 128), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto keys = prism::span<std::int32_t>(reinterpret_cast<std::int32_t*>(b), 16);
          const auto values = prism::span<float>(reinterpret_cast<float*>(b + 64), 16);
          prism::inclusive_scan_by_key(p, keys, values, prism::span<float>(reinterpret_cast<float*>(b), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto keys = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b), 16);
          const auto values = prism::span<float>(reinterpret_cast<float*>(b + 64), 16);
          prism::reduce_by_key(p, keys, values, keys, prism::span<float>(reinterpret_cast<float*>(b + 128), 16));
        },
        [](const prism::execution_policy& p, std::byte* b) {
          const auto keys = prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b), 16);
          const auto values = prism::span<float>(reinterpret_cast<float*>(b + 64), 16);
          prism::unique_by_key(p, keys, values, prism::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(b + 128), 16),
                               values);
        },
    };
  }
};

using scans = ::testing::Types<inclusive_scan_float>;
INSTANTIATE_TYPED_TEST_SUITE_P(InclusiveScan, Conformance, scans);
INSTANTIATE_TYPED_TEST_SUITE_P(InclusiveScan, GpuConformance, scans);

INSTANTIATE_TEST_SUITE_P(, Scan, ::testing::ValuesIn(std::begin(prism::scan_implementations),
                                                     std::end(prism::scan_implementations)),
                         impl_name);
INSTANTIATE_TEST_SUITE_P(, Select, ::testing::ValuesIn(std::begin(prism::scan_implementations),
                                                       std::end(prism::scan_implementations)),
                         impl_name);

}  // namespace
