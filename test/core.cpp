// The core every algorithm uses: spans, errors, the device buffer, the temporary-storage cache.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/memory.hpp>
#include <prism/span.hpp>
#include <prism/temporary_storage.hpp>

#include "testing.hpp"

#include <array>
#include <vector>

namespace {

TEST(Span, ViewsContainersWithoutCopying) {
  std::vector<float> v(5, 1.0f);
  prism::span<const float> s = v;
  EXPECT_EQ(s.data(), v.data());
  EXPECT_EQ(s.size(), 5u);
  prism::span deduced{v};
  static_assert(std::is_same_v<decltype(deduced), prism::span<float>>);
  const std::vector<float>& cv = v;
  prism::span const_deduced{cv};
  static_assert(std::is_same_v<decltype(const_deduced), prism::span<const float>>);
  EXPECT_EQ(s.subspan(1, 3).data(), v.data() + 1);
  EXPECT_EQ(s.subspan(2).size(), 3u);
  // No conversion between element types of different representation.
  static_assert(!std::is_convertible_v<std::vector<int>&, prism::span<const float>>);
  static_assert(!std::is_convertible_v<prism::span<const float>, prism::span<float>>);
}

TEST(Span, SizesAre64Bit) {
  const prism::span<const char> s(nullptr, std::size_t{1} << 33);
  EXPECT_EQ(s.size(), std::size_t{1} << 33);
  EXPECT_EQ(s.size_bytes(), std::size_t{1} << 33);
}

TEST(CudaError, CarriesCallFileLineAndMessage) {
  try {
    prism::check(cudaErrorInvalidValue, "cudaSomething");
    FAIL();
  } catch (const prism::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_EQ(e.call(), "cudaSomething");
    EXPECT_NE(std::string(e.file()).find("core.cpp"), std::string::npos);
    EXPECT_GT(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidValue"), std::string::npos) << e.what();
  }
}

// Without a GPU this fails for want of a device, with one for want of memory: a
// prism::cuda_error either way, never a crash.
TEST(DeviceBuffer, AllocationFailureThrowsCudaError) {
  EXPECT_THROW(prism::device_buffer<char>(std::size_t{1} << 60), prism::cuda_error);
}

TEST(Memory, PlainHostMemoryIsHost) {
  std::vector<float> v(4);
  EXPECT_EQ(prism::residence_of(v.data()), prism::residence::host);
  EXPECT_NO_THROW(prism::require_memory(prism::span{v}, prism::memory::host, "test", "v"));
  EXPECT_THROW(prism::require_memory(prism::span{v}, prism::memory::device, "test", "v"),
               std::invalid_argument);
}

TEST(GpuMemory, DeviceMemoryIsDevice) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  prism::device_buffer<float> d(4);
  EXPECT_EQ(prism::residence_of(d.data()), prism::residence::device);
  EXPECT_THROW(prism::require_memory(d.view(), prism::memory::host, "test", "d"),
               std::invalid_argument);
  EXPECT_NO_THROW(prism::require_memory(d.view(), prism::memory::device, "test", "d"));
}

TEST(GpuDeviceBuffer, RoundTrip) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto values = prism::testing::random_vector<double>(1001, prism::testing::fresh_seed());
  prism::device_buffer<double> d(values);
  EXPECT_EQ(d.to_host(), values);
  prism::device_buffer<double> moved = std::move(d);
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_EQ(moved.to_host(), values);
}

// The steady state allocates nothing: the second and later requests of a size reuse the block.
TEST(GpuTemporaryStorage, SteadyStateDoesNotAllocate) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t stream;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  void* first = nullptr;
  { first = prism::acquire_temporary_storage(1 << 20, stream).device(); }
  const std::size_t allocations = prism::temporary_storage_allocations();
  for (int i = 0; i < 100; ++i) {
    auto lease = prism::acquire_temporary_storage(1000 + i * 1000, stream);
    EXPECT_EQ(lease.device(), first);
    EXPECT_GE(lease.device_bytes(), std::size_t{1} << 20);
    EXPECT_NE(lease.pinned_host(), nullptr);
  }
  EXPECT_EQ(prism::temporary_storage_allocations(), allocations);
  // A larger request grows the block once.
  { auto grown = prism::acquire_temporary_storage(std::size_t{8} << 20, stream); }
  EXPECT_EQ(prism::temporary_storage_allocations(), allocations + 1);
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

TEST(GpuTemporaryStorage, EachStreamHasItsOwn) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t s1, s2;
  prism::check(cudaStreamCreate(&s1), "cudaStreamCreate");
  prism::check(cudaStreamCreate(&s2), "cudaStreamCreate");
  void* a = prism::acquire_temporary_storage(4096, s1).device();
  void* b = prism::acquire_temporary_storage(4096, s2).device();
  EXPECT_NE(a, b);
  prism::check(cudaStreamDestroy(s1), "cudaStreamDestroy");
  prism::check(cudaStreamDestroy(s2), "cudaStreamDestroy");
}

}  // namespace
