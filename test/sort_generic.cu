// SPDX-License-Identifier: Apache-2.0
// The sort family's generic layer (<prism/sort.cuh>) from CUDA code: the caller's own element
// types and comparators, through every implementation. Records compared by one field only check
// stability (their other field is their input position); a 24-byte record takes the raw merge
// sort's smaller tiles; a __device__ lambda runs on the GPU and is refused on the cpu.
//
// Then the radix sort of the caller's own key types by a decomposer (<prism/radix_sort.cuh>): a
// {float, int32} key, a pair of 8-byte integers (16 passes, two counting launches), and a key
// of 3 bytes of fields in an 8-byte struct whose other bytes travel along (an odd number of
// passes, in place through the copy it makes first); values of 4, 8 and 12 bytes. The reference is std::stable_sort with the
// documented order written here (NaNs by sign and payload, -0.0 == +0.0, numbers by value, the
// fields lexicographically), independently of the library's bit twiddling; results are compared
// bit for bit, so an equal key out of its input order fails.
#include <prism/sort.cuh>

#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

struct record {
  std::int32_t key;
  std::uint32_t position;
  friend bool operator==(const record&, const record&) = default;
};
struct by_key {
  __host__ __device__ bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};
struct by_key_descending {
  __host__ __device__ bool operator()(const record& a, const record& b) const { return a.key > b.key; }
};

// 24 bytes: 4 per thread in the raw merge sort's tiles.
struct wide {
  double weight;
  std::uint64_t position;
  std::uint64_t padding;
  friend bool operator==(const wide&, const wide&) = default;
};
struct by_weight {
  __host__ __device__ bool operator()(const wide& a, const wide& b) const { return a.weight < b.weight; }
};

template <class T>
struct placed {
  std::vector<T> host;
  prism::device_buffer<T> device;
  bool on_device;
  placed(const std::vector<T>& values, impl which) : host(values), on_device(memory_of(which) == memory::device) {
    if (on_device) device = prism::device_buffer<T>(std::span<const T>(values));
  }
  prism::span<T> view() { return on_device ? device.view() : prism::span<T>(host); }
  std::vector<T> values() const { return on_device ? device.to_host() : host; }
};

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::vector<record> records(std::size_t n, int distinct, std::uint64_t seed) {
  std::vector<record> r(n);
  for (std::size_t i = 0; i < n; ++i)
    r[i] = {static_cast<std::int32_t>(mix(seed ^ mix(i)) % static_cast<std::uint64_t>(distinct)) - distinct / 2,
            static_cast<std::uint32_t>(i)};
  return r;
}

class GenericSort : public ::testing::TestWithParam<impl> {};

const std::size_t sizes[] = {0, 1, 3, 1000, 2047, 2048, 2049, large(100003), large((1 << 20) + 1)};

TEST_P(GenericSort, StableWithTheCallersComparator) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : sizes) {
    for (int distinct : {3, 1000, 1 << 30}) {
      for (bool in_place : {false, true}) {
        const std::uint64_t seed = fresh_seed();
        SCOPED_TRACE(::testing::Message() << "n " << n << ", " << distinct << " distinct keys"
                                          << (in_place ? ", in place" : "") << ", seed " << seed);
        const auto in = records(n, distinct, seed);
        placed<record> x(in, which);
        placed<record> out(std::vector<record>(n, record{-7, 0xFFFFFFFFu}), which);
        if (in_place) {
          prism::sort(prism::par.with(which), x.view(), by_key_descending{});
        } else {
          prism::sort(prism::par.with(which), x.view(), out.view(), by_key{});
        }
        synchronize(which);
        auto want = in;
        if (in_place) {
          std::stable_sort(want.begin(), want.end(), by_key_descending{});
        } else {
          std::stable_sort(want.begin(), want.end(), by_key{});
        }
        ASSERT_EQ(in_place ? x.values() : out.values(), want);
        if (!in_place) {
          ASSERT_EQ(x.values(), in) << "the input changed";
        }
      }
    }
  }
}

TEST_P(GenericSort, WideElements) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for (std::size_t n : {std::size_t{5}, std::size_t{1025}, std::size_t{300007}}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(::testing::Message() << "n " << n << ", seed " << seed);
    std::vector<wide> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = {static_cast<double>(mix(seed + i) % 5000) * 0.5, i, 0};
    placed<wide> x(in, which);
    placed<wide> out(std::vector<wide>(n, wide{-1, 0, 1}), which);
    prism::sort(prism::par.with(which), x.view(), out.view(), by_weight{});
    synchronize(which);
    auto want = in;
    std::stable_sort(want.begin(), want.end(), by_weight{});
    ASSERT_EQ(out.values(), want);
  }
}

// A __device__ lambda: sorted on the GPU, refused on the cpu.
TEST_P(GenericSort, DeviceLambda) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto in = records(5000, 50, fresh_seed());
  placed<record> x(in, which);
  const auto descending = [] __device__(const record& a, const record& b) { return a.key > b.key; };
  if (which == impl::cpu) {
    EXPECT_THROW(prism::sort(prism::par.with(which), x.view(), descending), std::invalid_argument);
    EXPECT_EQ(x.values(), in);
    return;
  }
  prism::sort(prism::par.with(which), x.view(), descending);
  synchronize(which);
  auto want = in;
  std::stable_sort(want.begin(), want.end(), by_key_descending{});
  EXPECT_EQ(x.values(), want);
}

// Extended lambdas cannot live in a TEST's body (a private member function): this one holds it.
void sort_descending_by_lambda(impl which, prism::span<const record> in, prism::span<record> out) {
  const auto descending = [] __device__(const record& a, const record& b) { return a.key > b.key; };
  prism::sort(prism::par.with(which), in, out, descending);
}

// Out of place, a __device__ lambda on the cpu (and automatic on host memory, which runs cpu) is
// refused before the output is touched.
TEST(GenericSortRefusal, DeviceLambdaOnTheCpuLeavesTheOutput) {
  const auto in = records(5000, 50, fresh_seed());
  const std::vector<record> poisoned(in.size(), record{-7, 7});
  for (impl which : {impl::cpu, impl::automatic}) {
    SCOPED_TRACE(prism::name(which));
    std::vector<record> out = poisoned;
    EXPECT_THROW(sort_descending_by_lambda(which, in, out), std::invalid_argument);
    EXPECT_EQ(out, poisoned);
  }
}

TEST_P(GenericSort, OverlapRefused) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const auto in = records(64, 10, fresh_seed());
  placed<record> x(in, which);
  EXPECT_THROW(prism::sort(prism::par.with(which), x.view().subspan(0, 32), x.view().subspan(1, 32), by_key{}),
               std::invalid_argument);
  EXPECT_EQ(x.values(), in);
}

INSTANTIATE_TEST_SUITE_P(, GenericSort,
                         ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                             std::end(prism::sort_implementations)),
                         impl_name);

// ---- the radix sort of the caller's keys, by a decomposer ----------------------------------------

// Ordered by energy, then by cell.
struct energy_cell {
  float energy;
  std::int32_t cell;
};
struct by_energy_then_cell {
  __host__ __device__ cuda::std::tuple<float&, std::int32_t&> operator()(energy_cell& k) const {
    return {k.energy, k.cell};
  }
};

// A pair of 8-byte integers, the signed one more significant.
struct wide_pair {
  std::int64_t high;
  std::uint64_t low;
};
struct by_high_then_low {
  __host__ __device__ cuda::std::tuple<std::int64_t&, std::uint64_t&> operator()(wide_pair& k) const {
    return {k.high, k.low};
  }
};

// 3 bytes of key (level, then tag) in an 8-byte struct (no padding: results are compared byte for
// byte): its other byte and its position travel with it, outside the order.
struct tagged {
  std::uint8_t tag;
  std::uint8_t spare;
  std::int16_t level;
  std::uint32_t position;
};
struct by_level_then_tag {
  __host__ __device__ cuda::std::tuple<std::int16_t&, std::uint8_t&> operator()(tagged& k) const {
    return {k.level, k.tag};
  }
};

static_assert(sizeof(energy_cell) == 8 && sizeof(wide_pair) == 16 && sizeof(tagged) == 8, "no padding");

template <class T>
auto bits_of(T v) {
  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> b;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// -1, 0, 1: a before, with, after b in the documented ascending order. Integers by value; floats:
// NaNs with the sign bit set first (the larger the payload, the earlier), then numbers by value
// (-0.0 == +0.0), then the other NaNs (by payload).
template <class T>
int field_order(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a < b ? -1 : (b < a ? 1 : 0);
  } else {
    const auto group = [](T x) { return std::isnan(x) ? (std::signbit(x) ? 0 : 2) : 1; };
    const int ga = group(a), gb = group(b);
    if (ga != gb) return ga < gb ? -1 : 1;
    if (ga == 1) return a < b ? -1 : (b < a ? 1 : 0);
    const auto pa = bits_of(a), pb = bits_of(b);
    if (pa == pb) return 0;
    return (ga == 0 ? pa > pb : pa < pb) ? -1 : 1;
  }
}
int key_order(const energy_cell& a, const energy_cell& b) {
  const int o = field_order(a.energy, b.energy);
  return o != 0 ? o : field_order(a.cell, b.cell);
}
int key_order(const wide_pair& a, const wide_pair& b) {
  const int o = field_order(a.high, b.high);
  return o != 0 ? o : field_order(a.low, b.low);
}
int key_order(const tagged& a, const tagged& b) {
  const int o = field_order(a.level, b.level);
  return o != 0 ? o : field_order(a.tag, b.tag);
}

template <class K>
std::vector<std::size_t> reference_order(const std::vector<K>& keys, prism::sort_order order) {
  std::vector<std::size_t> p(keys.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::stable_sort(p.begin(), p.end(), [&](std::size_t i, std::size_t j) {
    return order == prism::sort_order::ascending ? key_order(keys[i], keys[j]) < 0 : key_order(keys[j], keys[i]) < 0;
  });
  return p;
}
template <class T>
std::vector<T> permuted(const std::vector<T>& v, const std::vector<std::size_t>& p) {
  std::vector<T> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = v[p[i]];
  return out;
}

float float_from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Few distinct values, so that equal keys are many: the awkward floats (both zeros, both
// infinities, NaNs of both signs and two payloads, a denormal) among a handful of numbers.
float awkward_float(std::uint64_t r) {
  const float values[] = {-0.0f, 0.0f, 1.5f, -1.5f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), float_from_bits(0x7FC00000u),
                          float_from_bits(0x7FC00001u), float_from_bits(0xFFC00000u), float_from_bits(0xFFC00003u),
                          std::numeric_limits<float>::denorm_min(), -2.0e30f};
  return values[r % (sizeof values / sizeof values[0])];
}

template <class K>
std::vector<K> user_keys(std::size_t n, std::uint64_t seed) {
  std::vector<K> k(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = mix(seed ^ mix(i)), q = mix(r);
    if constexpr (std::is_same_v<K, energy_cell>) {
      k[i] = {awkward_float(r), static_cast<std::int32_t>(q % 5) - 2};
    } else if constexpr (std::is_same_v<K, wide_pair>) {
      const std::int64_t highs[] = {std::numeric_limits<std::int64_t>::min(), -1, 0, 1, 1ll << 40,
                                    std::numeric_limits<std::int64_t>::max()};
      k[i] = {highs[r % 6], (q % 3 == 0) ? q : q % 4};
    } else {
      k[i] = {static_cast<std::uint8_t>(q % 3 == 0 ? 255 : q % 4), static_cast<std::uint8_t>(q >> 56),
              static_cast<std::int16_t>(static_cast<int>(r % 7) * 9000 - 27000), static_cast<std::uint32_t>(i)};
    }
  }
  return k;
}

// Bytes no correct output holds.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> v(n);
  std::memset(static_cast<void*>(v.data()), 0xA5, n * sizeof(T));
  return v;
}

// A 12-byte value, moved as itself.
struct triple {
  std::uint32_t a, b, c;
};
template <class V>
V value_at(std::size_t i) {
  if constexpr (std::is_same_v<V, triple>) {
    return {static_cast<std::uint32_t>(i), ~static_cast<std::uint32_t>(i), 0x5EEDu};
  } else {
    return static_cast<V>(i);
  }
}

template <class K>
struct decomposer_of;
template <>
struct decomposer_of<energy_cell> {
  using type = by_energy_then_cell;
};
template <>
struct decomposer_of<wide_pair> {
  using type = by_high_then_low;
};
template <>
struct decomposer_of<tagged> {
  using type = by_level_then_tag;
};

using user_key_types = types<energy_cell, wide_pair, tagged>;

// Tile edges of the raw sort: 2048 keys of 8 or 16 bytes per tile.
const std::size_t radix_sizes[] = {0, 1, 3, 2047, 2048, 2049, 4097, large(100003), large((1 << 20) + 1)};

class GenericRadixSort : public ::testing::TestWithParam<impl> {};

TEST_P(GenericRadixSort, KeysByTheirFields) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(user_key_types{}, [&]<class K>() {
    using D = typename decomposer_of<K>::type;
    for (std::size_t n : radix_sizes) {
      for (prism::sort_order order : {prism::sort_order::ascending, prism::sort_order::descending}) {
        for (bool in_place : {false, true}) {
          const std::uint64_t seed = fresh_seed();
          SCOPED_TRACE(::testing::Message() << sizeof(K) << "-byte key, n " << n << ", " << prism::name(order)
                                            << (in_place ? ", in place" : "") << ", seed " << seed);
          const auto in = user_keys<K>(n, seed);
          placed<K> x(in, which);
          placed<K> out(poisoned<K>(n), which);
          if (in_place) {
            prism::sort(prism::par.with(which), x.view(), D{}, order);
          } else {
            prism::sort(prism::par.with(which), x.view(), out.view(), D{}, order);
          }
          synchronize(which);
          const auto want = permuted(in, reference_order(in, order));
          ASSERT_TRUE(same_bits(in_place ? x.values() : out.values(), want));
          if (!in_place) {
            ASSERT_TRUE(same_bits(x.values(), in)) << "the input changed";
          }
        }
      }
    }
  });
}

TEST_P(GenericRadixSort, PairsByTheKeysFields) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(user_key_types{}, [&]<class K>() {
    using D = typename decomposer_of<K>::type;
    // Values moved as 4 bytes (float), 8 (uint64) and as themselves (12 bytes).
    using V = std::conditional_t<std::is_same_v<K, energy_cell>, float,
                                 std::conditional_t<std::is_same_v<K, wide_pair>, std::uint64_t, triple>>;
    for (std::size_t n : radix_sizes) {
      for (prism::sort_order order : {prism::sort_order::ascending, prism::sort_order::descending}) {
        for (bool in_place : {false, true}) {
          const std::uint64_t seed = fresh_seed();
          SCOPED_TRACE(::testing::Message() << sizeof(K) << "-byte key, n " << n << ", " << prism::name(order)
                                            << (in_place ? ", in place" : "") << ", seed " << seed);
          const auto keys = user_keys<K>(n, seed);
          std::vector<V> values(n);
          for (std::size_t i = 0; i < n; ++i) values[i] = value_at<V>(i);  // the input position
          placed<K> k(keys, which);
          placed<V> v(values, which);
          placed<K> k_out(poisoned<K>(n), which);
          placed<V> v_out(poisoned<V>(n), which);
          if (in_place) {
            prism::sort_by_key(prism::par.with(which), k.view(), v.view(), D{}, order);
          } else {
            prism::sort_by_key(prism::par.with(which), k.view(), v.view(), k_out.view(), v_out.view(), D{}, order);
          }
          synchronize(which);
          const auto p = reference_order(keys, order);
          ASSERT_TRUE(same_bits(in_place ? k.values() : k_out.values(), permuted(keys, p)));
          ASSERT_TRUE(same_bits(in_place ? v.values() : v_out.values(), permuted(values, p)));
        }
      }
    }
  });
}

// Mismatched sizes, an overlap that is not in place and memory in the wrong place are refused
// before anything is written.
TEST_P(GenericRadixSort, RefusalsLeaveTheOutputs) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 1000;
  const auto keys = user_keys<energy_cell>(n, fresh_seed());
  const auto poison_keys = poisoned<energy_cell>(n);
  const auto poison_values = poisoned<std::uint32_t>(n);
  placed<energy_cell> k(keys, which);
  placed<energy_cell> k_out(poison_keys, which);
  placed<std::uint32_t> v(std::vector<std::uint32_t>(n, 7u), which);
  placed<std::uint32_t> v_out(poison_values, which);
  const auto policy = prism::par.with(which);
  const by_energy_then_cell d{};
  EXPECT_THROW(prism::sort(policy, k.view(), k_out.view().subspan(0, n - 1), d), std::invalid_argument);
  EXPECT_THROW(prism::sort(policy, k.view().subspan(0, n - 1), k.view().subspan(1, n - 1), d), std::invalid_argument);
  EXPECT_THROW(prism::sort(policy, k.view(), prism::span<energy_cell>(nullptr, n), d), std::invalid_argument);
  EXPECT_THROW(prism::sort_by_key(policy, k.view(), v.view().subspan(0, n - 1), k_out.view(), v_out.view(), d),
               std::invalid_argument);
  EXPECT_THROW(prism::sort_by_key(policy, k.view(), v.view(), k_out.view(), v_out.view().subspan(0, n - 1), d),
               std::invalid_argument);
  // The values' output over the keys' output, and the keys' output over the values.
  const prism::span<std::uint32_t> over_keys(reinterpret_cast<std::uint32_t*>(k_out.view().data()), n);
  EXPECT_THROW(prism::sort_by_key(policy, k.view(), v.view(), k_out.view(), over_keys, d), std::invalid_argument);
  const prism::span<energy_cell> over_values(reinterpret_cast<energy_cell*>(v.view().data()), n / 2);
  EXPECT_THROW(prism::sort_by_key(policy, k.view().subspan(0, n / 2), v.view().subspan(0, n / 2), over_values,
                                  v_out.view().subspan(0, n / 2), d),
               std::invalid_argument);
  // Host memory for a GPU implementation, device memory for the cpu.
  if (which != impl::cpu) {
    std::vector<energy_cell> host_out = poison_keys;
    EXPECT_THROW(prism::sort(policy, k.view(), prism::span<energy_cell>(host_out), d), std::invalid_argument);
    EXPECT_TRUE(same_bits(host_out, poison_keys));
  } else if (prism::gpu_available()) {
    prism::device_buffer<energy_cell> device_out(n);
    EXPECT_THROW(prism::sort(policy, k.view(), device_out.view(), d), std::invalid_argument);
  }
  synchronize(which);
  EXPECT_TRUE(same_bits(k.values(), keys));
  EXPECT_TRUE(same_bits(k_out.values(), poison_keys));
  EXPECT_TRUE(same_bits(v_out.values(), poison_values));
  EXPECT_EQ(v.values(), std::vector<std::uint32_t>(n, 7u));
}

// The digits the raw sort ranks by, checked on the host: an LSD sort by them (one stable counting
// pass per digit, least significant first) gives the reference order.
TEST(GenericRadixDigits, SortByThemInTheReferenceOrder) {
  for_each_type(user_key_types{}, [&]<class K>() {
    using D = typename decomposer_of<K>::type;
    using order_t = prism::detail::radix::decomposed_order<K, D>;
    for (prism::sort_order order : {prism::sort_order::ascending, prism::sort_order::descending}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << sizeof(K) << "-byte key, " << prism::name(order) << ", seed " << seed);
      const auto in = user_keys<K>(5000, seed);
      const order_t by_fields{D{}, order == prism::sort_order::descending};
      std::vector<K> keys = in, next(in.size());
      for (unsigned pass = 0; pass < order_t::passes; ++pass) {
        std::vector<std::size_t> start(prism::detail::radix::radix + 1, 0);
        for (const K& k : keys) ++start[by_fields.digit(k, pass) + 1];
        for (unsigned d = 0; d < prism::detail::radix::radix; ++d) start[d + 1] += start[d];
        for (const K& k : keys) next[start[by_fields.digit(k, pass)]++] = k;
        keys.swap(next);
      }
      const auto want = permuted(in, reference_order(in, order));
      EXPECT_TRUE(same_bits(keys, want));
      std::vector<K> compared = in;
      std::stable_sort(compared.begin(), compared.end(), by_fields);
      EXPECT_TRUE(same_bits(compared, want));
    }
  });
}

// The early-counts pass with SkipOneDigit (the library's; bench_sort's early_<K> rows go without),
// its copy in the pass kernel (the early_<shape>_copy rows) and apart (CopyApart, the library's):
// keys of 0 to 15 (passes 1 to 3 of one digit), of one value (every pass) and random (none), alone,
// with values and with indices, over tiles with a short last one, against a stable sort here.
template <bool CopyApart>
void check_one_digit_passes(int pattern) {
  namespace radix = prism::detail::radix;
  using K = std::uint32_t;
  using V = std::uint32_t;
  const radix::bits_order<K> bits{prism::detail::key_kind::unsigned_integer, false};
  const std::size_t n = 12 * 6144 + 1000;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "pattern " << pattern << ", copied apart " << CopyApart << ", seed " << seed);
  std::mt19937_64 random(seed);
  std::vector<K> keys(n);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = pattern == 0 ? K(random() % 16) : pattern == 1 ? K(7) : K(random());
    values[i] = V(random());
  }
  std::vector<V> order(n);
  std::iota(order.begin(), order.end(), V{0});
  std::stable_sort(order.begin(), order.end(), [&](V a, V b) { return keys[a] < keys[b]; });
  std::vector<K> want_keys(n);
  std::vector<V> want_values(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[order[i]], want_values[i] = values[order[i]];

  prism::device_buffer<K> k(keys), k_out(std::vector<K>(n, poison<K>()));
  radix::onesweep_sort<K, V, false, true, radix::pass_items<K, V, false>, radix::pass_threads<K, V, false>, false,
                       true, CopyApart>("sort", prism::par, k.data(), k_out.data(), static_cast<const V*>(nullptr),
                                        static_cast<V*>(nullptr), false, n, bits);
  EXPECT_EQ(k_out.to_host(), want_keys);

  prism::device_buffer<V> v(values), v_out(std::vector<V>(n, poison<V>()));
  k_out = prism::device_buffer<K>(std::vector<K>(n, poison<K>()));
  radix::onesweep_sort<K, V, true, true, radix::pass_items<K, V, true>, radix::pass_threads<K, V, true>, false, true,
                       CopyApart>(
      "sort_by_key", prism::par, k.data(), k_out.data(), v.data(), v_out.data(), false, n, bits);
  EXPECT_EQ(k_out.to_host(), want_keys);
  EXPECT_EQ(v_out.to_host(), want_values);

  v_out = prism::device_buffer<V>(std::vector<V>(n, poison<V>()));
  radix::onesweep_sort<K, V, true, true, radix::pass_items<K, V, true>, radix::pass_threads<K, V, true>, false, true,
                       CopyApart>(
      "argsort", prism::par, k.data(), k_out.data(), static_cast<const V*>(nullptr), v_out.data(), true, n, bits);
  EXPECT_EQ(v_out.to_host(), order);
  EXPECT_EQ(k.to_host(), keys);
}

TEST(GpuRadixOneDigitPasses, KeysStayInPlace) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (int pattern = 0; pattern < 3; ++pattern) {
    check_one_digit_passes<false>(pattern);
    check_one_digit_passes<true>(pattern);
  }
}

INSTANTIATE_TEST_SUITE_P(, GenericRadixSort,
                         ::testing::ValuesIn(std::begin(prism::sort_implementations),
                                             std::end(prism::sort_implementations)),
                         impl_name);

}  // namespace
