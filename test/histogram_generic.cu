// SPDX-License-Identifier: Apache-2.0
// The histogram family's generic layer (<prism/histogram.cuh>) from CUDA code: the caller's own
// binner, over samples of the caller's own types, through every implementation. The reference
// asks the same binner on the host and counts each sample whose answer is a bin; the library's
// counting (sub-histograms, CUB's levels, Thrust's sorted runs) is what is checked. Samples of 8
// bytes aligned to 4 start at byte 4 past an aligned address, where no 16-byte vector of them is
// aligned (every sample read alone); 6-byte samples never make a vector; uint8 samples take the
// raw kernel's table; bins up to past what shared memory holds (global atomics). The byte kernel
// (a counter per thread and bin, an opt-in kernel beside raw's) is checked on its own below.
#include <prism/histogram.cuh>
#include <prism/histogram_byte_counts.cuh>

#include "testing.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace {

using namespace prism::testing;
using prism::impl;

// A detector hit: counted by its detector, which may be none of the bins.
struct hit {
  std::int32_t detector;
  float energy;
};
struct by_detector {
  __host__ __device__ int operator()(const hit& h) const { return h.detector; }
};

// A voxel, binned by its first two coordinates into a grid of `width` columns: an unsigned
// answer, so a negative coordinate lands past every bin.
struct voxel {
  std::int16_t x, y, z;
};
struct by_column {
  std::uint32_t width;
  __host__ __device__ std::uint64_t operator()(const voxel& v) const {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v.y) * width + v.x);
  }
};

// Bytes by their residue modulo 7 (5 and 6 are not counted with 5 bins).
struct by_residue {
  __host__ __device__ long long operator()(std::uint8_t b) const { return b % 7; }
};

// Floats by their tenth: negative ones (and NaN) fall below bin 0.
struct by_tenth {
  __host__ __device__ int operator()(float x) const { return x >= 0 ? static_cast<int>(x * 10) : -1; }
};

template <class T>
T sample(std::uint64_t r, std::size_t bins);
template <>
hit sample<hit>(std::uint64_t r, std::size_t bins) {
  return {static_cast<std::int32_t>(r % (bins + 10)) - 5, static_cast<float>(r >> 40)};
}
template <>
voxel sample<voxel>(std::uint64_t r, std::size_t bins) {
  const auto span = static_cast<std::int64_t>(bins / 16 + 2);
  return {static_cast<std::int16_t>(static_cast<std::int64_t>(r % 16) - 1),
          static_cast<std::int16_t>(static_cast<std::int64_t>((r >> 8) % span) - 1), static_cast<std::int16_t>(r >> 48)};
}
template <>
std::uint8_t sample<std::uint8_t>(std::uint64_t r, std::size_t) {
  return static_cast<std::uint8_t>(r);
}
template <>
float sample<float>(std::uint64_t r, std::size_t bins) {
  return static_cast<float>(static_cast<double>(r >> 11) * 0x1.0p-53 * (bins + 4) / 10.0 - 0.2);
}

template <class T>
auto binner_for(std::size_t) {
  if constexpr (std::is_same_v<T, hit>) return by_detector{};
  if constexpr (std::is_same_v<T, voxel>) return by_column{16};
  if constexpr (std::is_same_v<T, std::uint8_t>) return by_residue{};
  if constexpr (std::is_same_v<T, float>) return by_tenth{};
}

template <class T, class Binner>
std::vector<std::uint64_t> reference(const std::vector<T>& x, std::size_t bins, Binner bin) {
  std::vector<std::uint64_t> counts(bins, 0);
  for (const T& s : x) {
    const auto b = bin(s);
    if constexpr (std::is_signed_v<decltype(b)>) {
      if (b < 0) continue;
    }
    if (static_cast<std::uint64_t>(b) < bins) ++counts[static_cast<std::size_t>(b)];
  }
  return counts;
}

// Samples `offset` bytes past an aligned allocation, where the implementation needs them.
template <class T>
class placed_samples {
 public:
  placed_samples(const std::vector<T>& values, impl which, std::size_t offset)
      : on_device_(memory_of(which) == memory::device), offset_(offset), n_(values.size()),
        bytes_(offset + values.size() * sizeof(T)) {
    std::vector<unsigned char> all(bytes_, 0x5A);
    std::memcpy(all.data() + offset, values.data(), values.size() * sizeof(T));
    if (on_device_) {
      device_ = prism::device_buffer<unsigned char>(all);
    } else {
      host_ = all;
    }
  }
  prism::span<const T> view() const {
    const unsigned char* base = on_device_ ? device_.data() : host_.data();
    return {reinterpret_cast<const T*>(base + offset_), n_};
  }

 private:
  bool on_device_;
  std::size_t offset_, n_, bytes_;
  std::vector<unsigned char> host_;
  prism::device_buffer<unsigned char> device_;
};

template <class C>
struct placed_counts {
  std::vector<C> host;
  prism::device_buffer<C> device;
  bool on_device;
  placed_counts(std::size_t bins, impl which) : host(bins, poison<C>()), on_device(memory_of(which) == memory::device) {
    if (on_device) device = prism::device_buffer<C>(std::span<const C>(host));
  }
  prism::span<C> view() { return on_device ? device.view() : prism::span<C>(host); }
  std::vector<C> values() const { return on_device ? device.to_host() : host; }
};

void synchronize(impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

using generic_samples = types<hit, voxel, std::uint8_t, float>;
using counter_types = types<std::uint32_t, std::uint64_t>;

class GenericHistogram : public ::testing::TestWithParam<impl> {};

TEST_P(GenericHistogram, CallersBinnerMatchesReference) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  for_each_type(generic_samples{}, [&]<class T>() {
    for_each_type(counter_types{}, [&]<class C>() {
      for (std::size_t bins : {std::size_t{1}, std::size_t{5}, std::size_t{256}, std::size_t{3000}, std::size_t{20000}}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{4097},
                              large((1 << 20) + 1)}) {
          // 8-byte samples aligned to 4 at byte 4: no vector of them aligned.
          for (std::size_t offset : {std::size_t{0}, alignof(T) == 4 && sizeof(T) == 8 ? std::size_t{4} : alignof(T)}) {
            const std::uint64_t seed = fresh_seed();
            SCOPED_TRACE(::testing::Message() << sizeof(T) << "-byte samples, " << sizeof(C) << "-byte counts, "
                                              << bins << " bins, n " << n << ", offset " << offset << ", seed " << seed);
            std::vector<T> x(n);
            for (std::size_t i = 0; i < n; ++i) x[i] = sample<T>(mix(seed ^ mix(i)), bins);
            const auto bin = binner_for<T>(bins);
            placed_samples<T> samples(x, which, offset);
            placed_counts<C> counts(bins, which);
            prism::histogram(prism::par.with(which), samples.view(), counts.view(), bin);
            synchronize(which);
            const auto want = reference(x, bins, bin);
            const auto got = counts.values();
            for (std::size_t k = 0; k < bins; ++k) ASSERT_EQ(got[k], static_cast<C>(want[k])) << "bin " << k;
          }
        }
      }
    });
  });
}

// A __device__ lambda binner: counted on the GPU, refused on the cpu.
void histogram_by_lambda(impl which, prism::span<const hit> samples, prism::span<std::uint32_t> counts) {
  const auto by_detector_twice = [] __device__(const hit& h) -> int { return 2 * h.detector; };
  prism::histogram(prism::par.with(which), samples, counts, by_detector_twice);
}

TEST_P(GenericHistogram, DeviceLambda) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 5000, bins = 64;
  std::vector<hit> x(n);
  const std::uint64_t seed = fresh_seed();
  for (std::size_t i = 0; i < n; ++i) x[i] = sample<hit>(mix(seed ^ mix(i)), bins);
  placed_samples<hit> samples(x, which, 0);
  placed_counts<std::uint32_t> counts(bins, which);
  if (which == impl::cpu) {
    EXPECT_THROW(histogram_by_lambda(which, samples.view(), counts.view()), std::invalid_argument);
    EXPECT_EQ(counts.values(), std::vector<std::uint32_t>(bins, poison<std::uint32_t>()));
    return;
  }
  histogram_by_lambda(which, samples.view(), counts.view());
  synchronize(which);
  std::vector<std::uint32_t> want(bins, 0);
  for (const hit& h : x)
    if (h.detector >= 0 && 2 * h.detector < static_cast<int>(bins)) ++want[2 * h.detector];
  EXPECT_EQ(counts.values(), want);
}

// No bins, too many, counts over the samples, memory in the wrong place: refused, nothing written.
TEST_P(GenericHistogram, RefusalsLeaveTheCounts) {
  const impl which = GetParam();
  if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
  const std::size_t n = 1000, bins = 16;
  std::vector<hit> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = sample<hit>(mix(i), bins);
  placed_samples<hit> samples(x, which, 0);
  placed_counts<std::uint32_t> counts(bins, which);
  const auto policy = prism::par.with(which);
  EXPECT_THROW(prism::histogram(policy, samples.view(), counts.view().subspan(0, 0), by_detector{}),
               std::invalid_argument);
  EXPECT_THROW(prism::histogram(policy, samples.view(),
                                prism::span<std::uint32_t>(counts.view().data(), prism::histogram_max_bins + 1),
                                by_detector{}),
               std::invalid_argument);
  const prism::span<std::uint32_t> over_samples(const_cast<std::uint32_t*>(
                                                    reinterpret_cast<const std::uint32_t*>(samples.view().data())),
                                                bins);
  EXPECT_THROW(prism::histogram(policy, samples.view(), over_samples, by_detector{}), std::invalid_argument);
  EXPECT_THROW(prism::histogram(policy, prism::span<const hit>(nullptr, n), counts.view(), by_detector{}),
               std::invalid_argument);
  if (which != impl::cpu) {
    std::vector<std::uint32_t> host_counts(bins, 3u);
    EXPECT_THROW(prism::histogram(policy, samples.view(), prism::span<std::uint32_t>(host_counts), by_detector{}),
                 std::invalid_argument);
    EXPECT_EQ(host_counts, std::vector<std::uint32_t>(bins, 3u));
  }
  synchronize(which);
  EXPECT_EQ(counts.values(), std::vector<std::uint32_t>(bins, poison<std::uint32_t>()));
}

// ---- the byte kernel (a counter per thread and bin), opt-in beside raw's ------------------------

// Its bins by the table or, for 256 bins over [0, 256) of uint8, the bytes themselves; misaligned
// starts (the head read alone), tails past the last vector and the one block's partial step; and,
// in one block, inputs long enough that its 16-bit counters are flushed twice, skewed to one byte
// so that one counter per thread counts all the way up to the flush.
template <class T, class C, class Binner>
void expect_byte_counts(const std::vector<T>& values, std::size_t offset, std::size_t bins, Binner binner,
                        std::size_t max_blocks, const std::string& what) {
  const placed_samples<T> x(values, impl::raw, offset);
  placed_counts<C> counts(bins, impl::raw);
  prism::detail::raw_byte_histogram(prism::par, x.view().data(), values.size(), counts.view().data(), bins, binner,
                                    max_blocks);
  synchronize(impl::raw);
  EXPECT_EQ(counts.values(), [&] {
    const auto want = reference(values, bins, binner);
    return std::vector<C>(want.begin(), want.end());
  }()) << what;
}

template <class T>
std::vector<T> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(mix(seed ^ i));
  return v;
}

TEST(GpuByteHistogram, EveryBinnerSizeAndStart) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto bytes = prism::detail::make_even_integer_bins<std::uint8_t>(0, 256, 256);       // the bytes themselves
  const auto narrow = prism::detail::make_even_integer_bins<std::uint8_t>(10, 200, 37);      // some bytes in none
  const auto signed_all = prism::detail::make_even_integer_bins<std::int8_t>(-128, 128, 256);  // a table all the same
  const auto signed_few = prism::detail::make_even_integer_bins<std::int8_t>(-50, 50, 7);
  const prism::detail::caller_bins<std::uint8_t, by_residue> residues{by_residue{}, 5};
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (std::size_t n : std::vector<std::size_t>{0, 1, 15, 16, 17, 8191, 8192, 8193, 8192 * 3 + 100, (1 << 20) + 7}) {
    for (std::size_t offset : std::vector<std::size_t>{0, 1, 3, 15}) {
      const std::string what = "n " + std::to_string(n) + ", offset " + std::to_string(offset);
      const auto u = random_bytes<std::uint8_t>(n, seed + n * 31 + offset);
      const auto s = random_bytes<std::int8_t>(n, seed + n * 37 + offset);
      expect_byte_counts<std::uint8_t, std::uint32_t>(u, offset, 256, bytes, 0, what + ", 256 bins");
      expect_byte_counts<std::uint8_t, std::uint64_t>(u, offset, 37, narrow, 0, what + ", 37 bins over [10, 200)");
      expect_byte_counts<std::int8_t, std::uint32_t>(s, offset, 256, signed_all, 0, what + ", int8, 256 bins");
      expect_byte_counts<std::int8_t, std::uint64_t>(s, offset, 7, signed_few, 0, what + ", int8, 7 bins");
      expect_byte_counts<std::uint8_t, std::uint32_t>(u, offset, 5, residues, 0, what + ", residues");
    }
  }
}

TEST(GpuByteHistogram, OneBlockFlushesItsCounters) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto bytes = prism::detail::make_even_integer_bins<std::uint8_t>(0, 256, 256);
  const auto narrow = prism::detail::make_even_integer_bins<std::uint8_t>(10, 200, 37);
  // One block's steps of 8 KB, a flush every 511 of them: 10 MB flushes twice, then its tail.
  const std::size_t n = 10 * (1 << 20) + 3;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto uniform = random_bytes<std::uint8_t>(n, seed);
  const std::vector<std::uint8_t> same(n, 200), low(n, 77);
  expect_byte_counts<std::uint8_t, std::uint32_t>(uniform, 1, 256, bytes, 1, "uniform, 256 bins");
  expect_byte_counts<std::uint8_t, std::uint32_t>(same, 0, 256, bytes, 1, "every byte 200");
  expect_byte_counts<std::uint8_t, std::uint64_t>(low, 2, 256, bytes, 1, "every byte 77");
  expect_byte_counts<std::uint8_t, std::uint32_t>(low, 0, 37, narrow, 1, "every byte 77, by the table");
  expect_byte_counts<std::uint8_t, std::uint32_t>(uniform, 0, 256, bytes, 3, "uniform, three blocks");
}

INSTANTIATE_TEST_SUITE_P(, GenericHistogram,
                         ::testing::ValuesIn(std::begin(prism::histogram_implementations),
                                             std::end(prism::histogram_implementations)),
                         impl_name);

}  // namespace
