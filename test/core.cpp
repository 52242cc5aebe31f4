// SPDX-License-Identifier: Apache-2.0
// The core every algorithm uses: spans, errors, the device buffer, the dispatch checks, scratch.
#include <prism/buffer.hpp>
#include <prism/dispatch.hpp>
#include <prism/error.hpp>
#include <prism/scratch.hpp>
#include <prism/span.hpp>
#include <prism/version.hpp>

#include "testing.hpp"

#include <array>
#include <list>
#include <span>
#include <thread>
#include <utility>
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

TEST(Span, EveryKindOfArray) {
  std::array<int, 3> a{1, 2, 3};
  int c[2] = {4, 5};
  std::vector<double> v(7);
  static_assert(std::is_same_v<decltype(prism::span{a}), prism::span<int>>);
  static_assert(std::is_same_v<decltype(prism::span{c}), prism::span<int>>);
  static_assert(std::is_same_v<prism::value_t<const std::vector<double>&>, double>);
  EXPECT_EQ(prism::span{c}.size(), 2u);
  const prism::span<const double> from_rvalue = std::span<double>(v).subspan(2);  // a temporary view
  EXPECT_EQ(from_rvalue.data(), v.data() + 2);
  EXPECT_EQ(from_rvalue.size(), 5u);
  static_assert(prism::array_like<std::vector<float>> && !prism::array_like<float>);
}

TEST(Version, MatchesTheMacros) {
  EXPECT_EQ(std::string(prism::version),
            std::to_string(PRISM_VERSION_MAJOR) + "." + std::to_string(PRISM_VERSION_MINOR) + "." +
                std::to_string(PRISM_VERSION_PATCH));
}

TEST(CudaError, CarriesCallOperationFileLineAndMessage) {
  try {
    prism::check(cudaErrorInvalidValue, "cudaSomething", "add");
    FAIL();
  } catch (const prism::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_EQ(e.call(), "cudaSomething");
    EXPECT_EQ(e.operation(), "add");
    EXPECT_NE(std::string(e.file()).find("core.cpp"), std::string::npos);
    EXPECT_GT(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find("prism::add"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidValue"), std::string::npos) << e.what();
  }
}

// Without a GPU: "no CUDA device" (or driver), said of device_buffer at the caller's line.
TEST(CudaError, NoDeviceIsSaidPlainly) {
  if (prism::gpu_available()) GTEST_SKIP() << "a GPU is present";
  try {
    prism::device_buffer<float> b(4);
    FAIL();
  } catch (const prism::cuda_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("no CUDA device") != std::string::npos ||
                what.find("no CUDA driver") != std::string::npos) << what;
    EXPECT_NE(what.find("device_buffer"), std::string::npos) << what;
    EXPECT_NE(what.find("core.cpp"), std::string::npos) << what;  // the caller's file, not a header
  }
}

// Without a GPU this fails for want of a device, with one for want of memory: a
// prism::cuda_error either way, never a crash.
TEST(DeviceBuffer, AllocationFailureThrowsCudaError) {
  EXPECT_THROW(prism::device_buffer<char>(std::size_t{1} << 60), prism::cuda_error);
}

TEST(Dispatch, PlainHostMemoryIsHost) {
  std::vector<float> v(4);
  EXPECT_EQ(prism::placement_of(v.data()).where, prism::residence::host);
}

// The checks of every call, on host memory: overlap by byte ranges, null with a size.
TEST(Dispatch, OverlapIsJudgedByByteRanges) {
  constexpr prism::impl cpu_only[] = {prism::impl::cpu};
  const prism::family f{cpu_only, {}};
  alignas(8) std::byte buffer[64] = {};
  const auto floats = prism::span<float>(reinterpret_cast<float*>(buffer), 4);
  const auto doubles = prism::span<double>(reinterpret_cast<double*>(buffer), 4);
  using prism::array_ref;
  // Same address, same bytes: in place.
  EXPECT_EQ(prism::prepare("t", f, prism::par, {array_ref::input(floats, "in"), array_ref::output_of(floats, "out")}, 0),
            prism::impl::cpu);
  // Same address, other length: refused.
  EXPECT_THROW(prism::prepare("t", f, prism::par, {array_ref::input(floats, "in"), array_ref::output_of(doubles, "out")}, 0),
               std::invalid_argument);
  // Two outputs over the same bytes: refused.
  EXPECT_THROW(prism::prepare("t", f, prism::par, {array_ref::output_of(floats, "a"), array_ref::output_of(floats, "b")}, 0),
               std::invalid_argument);
  // Disjoint: fine.
  EXPECT_NO_THROW(prism::prepare("t", f, prism::par, {array_ref::input(floats.subspan(0, 2), "in"),
                                                      array_ref::output_of(floats.subspan(2, 2), "out")}, 0));
  EXPECT_THROW(prism::prepare("t", f, prism::par, {array_ref::input(prism::span<float>(nullptr, 3), "in")}, 0),
               std::invalid_argument);
  EXPECT_THROW(prism::prepare("t", f, prism::par.with(prism::impl::cub), {}, 0), std::invalid_argument);
}

TEST(GpuDispatch, DeviceMemoryIsDeviceAndAutomaticPicksTheTable) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  prism::device_buffer<float> d(4);
  const auto p = prism::placement_of(d.data());
  EXPECT_EQ(p.where, prism::residence::device);
  int current = -1;
  prism::check(cudaGetDevice(&current), "cudaGetDevice");
  EXPECT_EQ(p.device, current);
  constexpr prism::impl offered[] = {prism::impl::cpu, prism::impl::raw, prism::impl::cub};
  constexpr prism::automatic_row table[] = {{0, prism::impl::raw}, {1000, prism::impl::cub}};
  const prism::family f{offered, table};
  using prism::array_ref;
  EXPECT_EQ(prism::prepare("t", f, prism::par, {array_ref::input(d.view(), "in")}, 999), prism::impl::raw);
  EXPECT_EQ(prism::prepare("t", f, prism::par, {array_ref::input(d.view(), "in")}, 1000), prism::impl::cub);
  std::vector<float> h(4);
  EXPECT_THROW(prism::prepare("t", f, prism::par, {array_ref::input(d.view(), "a"), array_ref::input(prism::span{h}, "b")}, 0),
               std::invalid_argument);
  EXPECT_THROW(prism::prepare("t", f, prism::par.with(prism::impl::cpu), {array_ref::input(d.view(), "a")}, 0),
               std::invalid_argument);
}


// Every kind of memory a caller can hand in, each asked from a thread whose first CUDA call this
// is (no context current yet), and again from the thread that made it.
TEST(GpuDispatch, EveryKindOfMemoryIsPlacedFromAnyThread) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  int current = -1;
  prism::check(cudaGetDevice(&current), "cudaGetDevice");
  prism::device_buffer<float> device(64);
  void* pinned = nullptr;
  void* managed = nullptr;
  void* pooled = nullptr;
  prism::check(cudaMallocHost(&pinned, 256), "cudaMallocHost");
  prism::check(cudaMallocManaged(&managed, 256), "cudaMallocManaged");
  cudaStream_t stream = nullptr;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  prism::check(cudaMallocAsync(&pooled, 256, stream), "cudaMallocAsync");
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<float> pageable(64);
  std::vector<float> registered(1024);
  prism::check(cudaHostRegister(registered.data(), registered.size() * sizeof(float), cudaHostRegisterDefault),
               "cudaHostRegister");
  using prism::residence;
  const std::vector<std::pair<const void*, residence>> cases = {
      {device.data(), residence::device},      {device.data() + 17, residence::device},
      {pooled, residence::device},             {pinned, residence::pinned_host},
      {managed, residence::managed},           {pageable.data(), residence::host},
      {registered.data() + 3, residence::pinned_host}};
  auto check_all = [&] {
    for (const auto& [address, where] : cases) {
      const prism::placement p = prism::placement_of(address);
      EXPECT_EQ(p.where, where) << address;
      if (where == residence::device || where == residence::managed) EXPECT_EQ(p.device, current);
    }
  };
  std::thread fresh([&] {
    // A new thread starts on device 0; the allocations were made on `current`.
    if (current != 0) prism::check(cudaSetDevice(current), "cudaSetDevice");
    check_all();
  });
  fresh.join();
  check_all();
  prism::check(cudaHostUnregister(registered.data()), "cudaHostUnregister");
  prism::check(cudaFreeAsync(pooled, stream), "cudaFreeAsync");
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  prism::check(cudaFree(managed), "cudaFree");
  prism::check(cudaFreeHost(pinned), "cudaFreeHost");
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

// resize keeps the first elements and zeroes the new ones; get and set one element; made from a
// list and from a range that is not contiguous.
TEST(GpuDeviceBuffer, ResizeGetSetAndHostRanges) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  prism::device_buffer<std::int32_t> d{1, 2, 3};
  EXPECT_EQ(d.to_host(), (std::vector<std::int32_t>{1, 2, 3}));
  d.resize(5);
  EXPECT_EQ(d.to_host(), (std::vector<std::int32_t>{1, 2, 3, 0, 0}));
  d.set(4, 7);
  EXPECT_EQ(d.get(4), 7);
  EXPECT_EQ(d.get(0), 1);
  EXPECT_THROW(d.get(5), std::out_of_range);
  EXPECT_THROW(d.set(5, 1), std::out_of_range);
  d.resize(2);
  EXPECT_EQ(d.to_host(), (std::vector<std::int32_t>{1, 2}));
  d.resize(0);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.data(), nullptr);
  const std::list<float> host = {0.5f, 1.5f};
  prism::device_buffer<float> from_list(host);
  EXPECT_EQ(from_list.to_host(), (std::vector<float>{0.5f, 1.5f}));
  prism::device_buffer<float> from_iterators(host.begin(), host.end());
  EXPECT_EQ(from_iterators.to_host(), (std::vector<float>{0.5f, 1.5f}));
}

// The steady state allocates nothing: the second and later requests of a size reuse the block.
TEST(GpuScratch, SteadyStateDoesNotAllocate) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t stream;
  prism::check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const auto policy = prism::par.on(stream);
  void* first = nullptr;
  { first = prism::acquire_scratch(1 << 20, policy, "test").device(); }
  const std::size_t allocations = prism::scratch_allocations();
  for (int i = 0; i < 100; ++i) {
    auto lease = prism::acquire_scratch(1000 + i * 1000, policy, "test");
    EXPECT_EQ(lease.device(), first);
    EXPECT_GE(lease.bytes(), std::size_t{1} << 20);
  }
  EXPECT_EQ(prism::scratch_allocations(), allocations);
  { auto grown = prism::acquire_scratch(std::size_t{8} << 20, policy, "test"); }
  EXPECT_EQ(prism::scratch_allocations(), allocations + 1);
  prism::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  prism::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

// Keyed by the stream itself: each stream, and each host thread's per-thread default stream,
// has its own block.
TEST(GpuScratch, EachStreamAndEachThreadsDefaultStreamHasItsOwn) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t s1, s2;
  prism::check(cudaStreamCreate(&s1), "cudaStreamCreate");
  prism::check(cudaStreamCreate(&s2), "cudaStreamCreate");
  void* a = prism::acquire_scratch(4096, prism::par.on(s1), "test").device();
  void* b = prism::acquire_scratch(4096, prism::par.on(s2), "test").device();
  EXPECT_NE(a, b);
  void* mine = prism::acquire_scratch(4096, prism::par.on(cudaStreamPerThread), "test").device();
  void* theirs = nullptr;
  std::thread([&] { theirs = prism::acquire_scratch(4096, prism::par.on(cudaStreamPerThread), "test").device(); }).join();
  EXPECT_NE(mine, theirs);
  prism::check(cudaStreamDestroy(s1), "cudaStreamDestroy");
  prism::check(cudaStreamDestroy(s2), "cudaStreamDestroy");
}

// The footprint is bounded: hundreds of streams used once each leave at most the bound cached.
TEST(GpuScratch, FootprintDoesNotGrowWithStreamsEverUsed) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  for (int i = 0; i < 300; ++i) {
    cudaStream_t s;
    prism::check(cudaStreamCreate(&s), "cudaStreamCreate");
    { auto lease = prism::acquire_scratch(1 << 16, prism::par.on(s), "test"); }
    prism::check(cudaStreamDestroy(s), "cudaStreamDestroy");
  }
  EXPECT_LE(prism::scratch_streams(), prism::cached_streams_per_device + 1);
  prism::release_scratch();
  EXPECT_EQ(prism::scratch_streams(), 0u);
}

// A caller's memory resource serves the scratch instead of the cache.
TEST(GpuScratch, MemoryResourceIsUsed) {
  if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  struct counting : prism::memory_resource {
    int allocations = 0, deallocations = 0;
    void* allocate(std::size_t bytes, cudaStream_t s) override {
      ++allocations;
      void* p = nullptr;
      prism::check(cudaMallocAsync(&p, bytes, s), "cudaMallocAsync");
      return p;
    }
    void deallocate(void* p, std::size_t, cudaStream_t s) noexcept override {
      ++deallocations;
      (void)cudaFreeAsync(p, s);
    }
  } resource;
  { auto lease = prism::acquire_scratch(4096, prism::par.with(resource), "test"); }
  EXPECT_EQ(resource.allocations, 1);
  EXPECT_EQ(resource.deallocations, 1);
  prism::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

}  // namespace
