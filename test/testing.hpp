// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every prism test needs: random inputs with fresh seeds, arrays placed where an
// implementation needs them, poisoned outputs, and the GPU-or-skip rule.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/execution.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace prism::testing {

// The name of an element type in test names and messages.
template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  if constexpr (std::is_same_v<T, char>) return "char";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  return "other";
}

// Where a test places the arrays of an implementation: host memory for cpu, device memory for
// the others (automatic included: on device memory it runs a GPU implementation).
enum class memory { host, device };
inline memory memory_of(prism::impl which) {
  return which == prism::impl::cpu ? memory::host : memory::device;
}

// Waits for the GPU where `which` runs there, so that the host reads what a call wrote.
inline void synchronize_for(prism::impl which) {
  if (memory_of(which) == memory::device) prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

// An element's bits, as the unsigned integer of its size (1, 2, 4 or 8 bytes).
template <class T>
auto element_bits(T v) {
  std::conditional_t<sizeof(T) == 1, std::uint8_t,
                     std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                        std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>
      b;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// The sort family's one order (<prism/sort.hpp>), written here independently of the library, for
// the sorts, searches and merges: a before b ascending: integers by value; floats: NaNs with the
// sign bit set first (the larger the payload, the earlier), then numbers by value
// (-0.0 == +0.0), then the other NaNs (by payload).
template <class T>
bool sorts_before(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a < b;
  } else {
    const auto group = [](T x) { return std::isnan(x) ? (std::signbit(x) ? 0 : 2) : 1; };
    const int ga = group(a), gb = group(b);
    if (ga != gb) return ga < gb;
    if (ga == 1) return a < b;
    const auto pa = element_bits(a), pb = element_bits(b);
    return ga == 0 ? pa > pb : pa < pb;
  }
}

// Why a test of `which` cannot run here (it needs a GPU and none is present), or "" if it can:
//   if (auto why = missing_gpu(which); !why.empty()) GTEST_SKIP() << why;
inline std::string missing_gpu(prism::impl which) {
  if (memory_of(which) == memory::device && !prism::gpu_available())
    return "no CUDA device: the " + std::string(prism::name(which)) + " implementation runs on the GPU";
  return "";
}

// A list of element types, and a loop over it: for_each_type(types<float, double>{}, body) calls
// body.template operator()<T>() for each T of the list.
template <class... T>
struct types {};

template <class... T, class F>
void for_each_type(types<T...>, F&& body) {
  (body.template operator()<T>(), ...);
}

// A large test size, as given unless PRISM_TEST_SMALL is set (scripts/gpu-check.sh sets it for
// the sanitizers, which slow kernels a hundredfold and more): then a size past 2^16 becomes 2^16
// plus its low 12 bits (odd stays odd, 2^20 + 3 becomes 2^16 + 3): still many tiles of every
// kernel and several blocks of every grid, where a hazard shows as well as in the thousandth.
inline bool testing_small() {
  static const bool small = std::getenv("PRISM_TEST_SMALL") != nullptr;
  return small;
}
inline std::size_t large(std::size_t n) {
  constexpr std::size_t cap = std::size_t{1} << 16;
  return testing_small() && n > cap ? cap + (n & 0xFFF) : n;
}

// A test's repetitions (calls per host thread, rounds), as given unless PRISM_TEST_SMALL is set:
// then 2, enough for the tools to see two calls share a stream's scratch.
inline int repeats(int n) { return testing_small() ? std::min(n, 2) : n; }

// A fresh seed per call, reported by the caller through SCOPED_TRACE so a failure can be replayed.
inline std::uint64_t fresh_seed() { return std::random_device{}() * 0x9E3779B97F4A7C15ull + 1; }

// splitmix64: a counter-based generator, so element i of a huge array is computed independently
// (in parallel, and again for checking) instead of read off one sequential stream.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Element i of a random array: floats uniform in [-1, 1) (never all zeros), integers in
// [-2^30, 2^30) so that sums and differences stay exact in the type and in float64.
template <class T>
T random_element(std::uint64_t seed, std::size_t i) {
  const std::uint64_t bits = mix(seed ^ mix(i));
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0);
  } else {
    return static_cast<T>(static_cast<std::int64_t>(bits >> 33) - (std::int64_t{1} << 30));
  }
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
#pragma omp parallel for
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) v[i] = random_element<T>(seed, i);
  return v;
}

// A value no correct result takes here: NaN for floating point, an out-of-range integer.
template <class T>
T poison() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return std::numeric_limits<T>::max() - 7;
  }
}

// An array placed where an implementation needs it (host or device), `offset` elements past an
// aligned allocation so that misaligned starts can be tested.
template <class T>
class placed_array {
 public:
  placed_array(const std::vector<T>& values, memory where, std::size_t offset = 0)
      : where_(where), offset_(offset), size_(values.size()) {
    std::vector<T> padded(offset + values.size(), poison<T>());
    std::copy(values.begin(), values.end(), padded.begin() + offset);
    if (where_ == memory::device) {
      device_ = prism::device_buffer<T>(padded);
    } else {
      host_ = std::move(padded);
    }
  }
  prism::span<T> view() {
    T* base = where_ == memory::device ? device_.data() : host_.data();
    return {base + offset_, size_};
  }
  std::vector<T> values() const {
    std::vector<T> all = where_ == memory::device ? device_.to_host() : host_;
    return {all.begin() + offset_, all.end()};
  }

 private:
  memory where_;
  std::size_t offset_;
  std::size_t size_;
  std::vector<T> host_;
  prism::device_buffer<T> device_;
};

// |got - want| within `ulps` units of T's precision at |want| (exact for integers).
template <class T>
::testing::AssertionResult close(T got, double want, double ulps = 1) {
  if constexpr (std::is_floating_point_v<T>) {
    const double tolerance = ulps * std::numeric_limits<T>::epsilon() * std::abs(want);
    if (std::abs(static_cast<double>(got) - want) <= tolerance) return ::testing::AssertionSuccess();
  } else {
    if (static_cast<double>(got) == want) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << +got << ", want " << want;
}

// ---- past 2^32 elements ----------------------------------------------------------------------
// A host copy of a huge array takes tens of GB and a serial check of it minutes: the huge tests
// build their inputs on the device and check device arrays chunk by chunk, each chunk in parallel.
inline constexpr std::size_t huge_chunk = std::size_t{1} << 26;

// The GPU's memory in bytes (0 without one).
inline std::size_t device_memory() {
  std::size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? total : 0;
}

// A huge call whose working set passes this GPU's memory is refused (prism::cuda_error with
// cudaErrorMemoryAllocation, the caller's data untouched): on such a GPU the test is a skip that
// says so, and any other failure stays the test's.
//   PRISM_HUGE_CALL(prism::top_k(policy, x, 5, values, indices));
#define PRISM_HUGE_CALL(call)                                                                        \
  do {                                                                                               \
    try {                                                                                            \
      call;                                                                                          \
    } catch (const ::prism::cuda_error& e) {                                                         \
      if (e.code() != cudaErrorMemoryAllocation) throw;                                              \
      GTEST_SKIP() << "too large for this GPU's " << (::prism::testing::device_memory() >> 20)        \
                   << " MiB: " << e.what();                                                          \
    }                                                                                                \
  } while (false)

// device[i] = pattern[i % pattern.size()] for i < n: a huge random array from a small random one,
// copied over once, then doubled on the device (every copy's start is a multiple of the period).
template <class T>
void fill_periodic(T* device, std::size_t n, const std::vector<T>& pattern) {
  const std::size_t first = std::min(n, pattern.size());
  prism::check(cudaMemcpy(device, pattern.data(), first * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  for (std::size_t have = first; have < n;) {
    const std::size_t more = std::min(have, n - have);
    prism::check(cudaMemcpy(device + have, device, more * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    have += more;
  }
}

// How many elements of a device array fail ok(i, value), copied back a chunk at a time; the first
// that fails goes to *first (n if none does).
template <class T, class Ok>
std::size_t count_wrong(const T* device, std::size_t n, Ok&& ok, std::size_t* first = nullptr) {
  std::vector<T> host(std::min(n, huge_chunk));
  std::size_t wrong = 0, first_wrong = n;
  for (std::size_t start = 0; start < n; start += huge_chunk) {
    const std::size_t m = std::min(huge_chunk, n - start);
    prism::check(cudaMemcpy(host.data(), device + start, m * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::size_t chunk_wrong = 0, chunk_first = n;
#pragma omp parallel for reduction(+ : chunk_wrong) reduction(min : chunk_first)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(m); ++j) {
      if (!ok(start + j, host[j])) {
        ++chunk_wrong;
        chunk_first = std::min<std::size_t>(chunk_first, start + j);
      }
    }
    wrong += chunk_wrong;
    first_wrong = std::min(first_wrong, chunk_first);
  }
  if (first != nullptr) *first = first_wrong;
  return wrong;
}

// The same elements bit for bit: -0.0 is not +0.0, a NaN equals itself only with the same payload.
// Elements of any trivially copyable type; the first that differs is named (with its bits, for
// elements of 1, 2, 4 or 8 bytes).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      auto failure = ::testing::AssertionFailure() << "element " << i;
      if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
        failure << ": bits " << +element_bits(got[i]) << ", want " << +element_bits(want[i]);
      }
      return failure;
    }
  }
  return ::testing::AssertionSuccess();
}
// Names the implementation in a parameterized test's name: Add/Matches/thrust.
inline std::string impl_name(const ::testing::TestParamInfo<prism::impl>& info) {
  return std::string(prism::name(info.param));
}

}  // namespace prism::testing
