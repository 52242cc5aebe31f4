// SPDX-License-Identifier: Apache-2.0
#pragma once
// The conformance kit: what every family must do right under the ways real programs call a CUDA
// library. A family's test file instantiates it with an adapter that runs one representative
// operation of the family through the public API:
//
//   struct add_float {
//     using T = float;                       // input element type
//     using R = float;                       // output element type
//     static constexpr const char* name = "add";
//     static std::span<const prism::impl> implementations();   // the family's registry
//     static std::size_t output_size(std::size_t n);            // n, or 1 for a reduction
//     static void run(const prism::execution_policy&, prism::span<const T>, prism::span<R>);
//     static std::vector<double> reference(const std::vector<T>& in);       // float64, host
//     static double tolerance(const std::vector<T>& in);       // absolute, per output element
//     static bool capturable(prism::impl);                     // may run inside a graph capture
//     // Calls whose arrays overlap by byte ranges in a way the family refuses; each gets a
//     // buffer of `bytes` bytes in the memory the implementation needs.
//     static std::vector<std::function<void(const prism::execution_policy&, std::byte*)>> aliased();
//     static constexpr std::size_t aliased_bytes = ...;
//   };
//   INSTANTIATE_TYPED_TEST_SUITE_P(Add, Conformance, ::testing::Types<add_float>);
//   INSTANTIATE_TYPED_TEST_SUITE_P(Add, GpuConformance, ::testing::Types<add_float>);
//
// Conformance runs where there is no GPU (the cpu implementation, the checks); GpuConformance
// skips itself there and runs every GPU implementation on the GPU machine.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/execution.hpp>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include "testing.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

namespace prism::testing {

// n elements of T at byte `at` of an aliasing test's buffer (the adapters' aliased() calls).
template <class T>
prism::span<T> bytes_at(std::byte* buffer, std::size_t at, std::size_t n) {
  return {reinterpret_cast<T*>(buffer + at), n};
}

// Every implementation an adapter's family runs on the GPU, automatic included.
template <class A>
std::vector<prism::impl> gpu_implementations() {
  std::vector<prism::impl> all;
  for (prism::impl i : A::implementations())
    if (i != prism::impl::cpu) all.push_back(i);
  all.push_back(prism::impl::automatic);
  return all;
}

// Output element i against the reference, within the adapter's tolerance.
template <class A>
::testing::AssertionResult matches_reference(const std::vector<typename A::R>& got,
                                             const std::vector<typename A::T>& in) {
  const std::vector<double> want = A::reference(in);
  const double tolerance = A::tolerance(in);
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (!(std::abs(g - want[i]) <= tolerance)) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << want[i]
                                           << " (tolerance " << tolerance << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

inline void check_cuda(cudaError_t e) { prism::check(e, "test"); }

// A stream the test owns.
class owned_stream {
 public:
  owned_stream() { check_cuda(cudaStreamCreate(&s_)); }
  ~owned_stream() { (void)cudaStreamDestroy(s_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// ---- what needs no GPU ------------------------------------------------------------------------

// The inputs of a call: random elements, or the adapter's own where its operation needs inputs of
// a shape (indices into the input itself, say).
template <class A>
std::vector<typename A::T> kit_input(std::size_t n, std::uint64_t seed) {
  if constexpr (requires { A::input(n, seed); }) {
    return A::input(n, seed);
  } else {
    return random_vector<typename A::T>(n, seed);
  }
}

template <class A>
class Conformance : public ::testing::Test {};
TYPED_TEST_SUITE_P(Conformance);

// One call of `which` on n random elements placed `where`, starting one element past an aligned
// allocation, into a poisoned output: the result against the reference.
template <class A>
void check_size(prism::impl which, memory where, std::size_t n) {
  const auto seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << prism::name(which) << " n=" << n << " seed=" << seed);
  const auto in = kit_input<A>(n, seed);
  placed_array<typename A::T> x(in, where, 1);
  placed_array<typename A::R> out(std::vector<typename A::R>(A::output_size(n), poison<typename A::R>()),
                                  where, 1);
  A::run(prism::par.with(which), x.view(), out.view());
  ASSERT_TRUE(matches_reference<A>(out.values(), in));
}

inline const std::size_t kit_sizes[] = {0, 1, 3, 1001, 4099, large((1u << 20) + 1)};

// Sizes 0, 1, 3, odd, not a multiple of 4 or of a block, 2^20 + 1; starts misaligned by one
// element; outputs poisoned; the cpu implementation and automatic on host memory.
TYPED_TEST_P(Conformance, SizesOnTheHost) {
  for (prism::impl which : {prism::impl::cpu, prism::impl::automatic})
    for (std::size_t n : kit_sizes) check_size<TypeParam>(which, memory::host, n);
}

// A null pointer with a nonzero size is refused by every implementation, before any work.
TYPED_TEST_P(Conformance, NullWithNonzeroSize) {
  using A = TypeParam;
  std::vector<typename A::R> out(A::output_size(5), poison<typename A::R>());
  for (prism::impl which : prism::all_implementations()) {
    SCOPED_TRACE(prism::name(which));
    EXPECT_THROW(A::run(prism::par.with(which), prism::span<const typename A::T>(nullptr, 5), prism::span{out}),
                 std::invalid_argument);
  }
  for (const auto& v : out) EXPECT_TRUE(std::isnan(double(v)) || v == poison<typename A::R>());
}

// Empty input, every impl value: the family's own run (or skip for want of a GPU), any other is
// refused by name, as a non-empty call is.
TYPED_TEST_P(Conformance, EmptyInputEveryImplementation) {
  using A = TypeParam;
  const auto offered = A::implementations();
  for (prism::impl which : prism::all_implementations()) {
    SCOPED_TRACE(prism::name(which));
    const bool has = which == prism::impl::automatic ||
                     std::find(offered.begin(), offered.end(), which) != offered.end();
    std::vector<typename A::T> in;
    std::vector<typename A::R> out(A::output_size(0), poison<typename A::R>());
    if (!has) {
      try {
        A::run(prism::par.with(which), prism::span{in}, prism::span{out});
        ADD_FAILURE() << "accepted an implementation the family does not have";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no implementation named"), std::string::npos) << e.what();
      }
    } else if (which == prism::impl::cpu || which == prism::impl::automatic) {
      A::run(prism::par.with(which), prism::span{in}, prism::span{out});  // host memory: cpu
      EXPECT_TRUE(matches_reference<A>(out, in));
    }
  }
}

// Arrays overlapping by byte ranges (across element sizes) are refused and left as they were.
TYPED_TEST_P(Conformance, ByteRangeAliasingRefused) {
  using A = TypeParam;
  for (const auto& call : A::aliased()) {
    std::vector<std::byte> buffer(A::aliased_bytes);
    for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = std::byte(i * 37 + 11);
    const std::vector<std::byte> before = buffer;
    EXPECT_THROW(call(prism::par.with(prism::impl::cpu), buffer.data()), std::invalid_argument);
    EXPECT_EQ(buffer, before);
  }
}

REGISTER_TYPED_TEST_SUITE_P(Conformance, SizesOnTheHost, NullWithNonzeroSize,
                            EmptyInputEveryImplementation, ByteRangeAliasingRefused);

// ---- on the GPU -------------------------------------------------------------------------------

template <class A>
class GpuConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!prism::gpu_available()) GTEST_SKIP() << "no CUDA device";
  }
};
TYPED_TEST_SUITE_P(GpuConformance);

// One call's worth of device arrays: the input, a poisoned output, and the host reference.
template <class A>
struct device_case {
  std::vector<typename A::T> in;
  prism::device_buffer<typename A::T> x;
  prism::device_buffer<typename A::R> out;
  device_case(std::size_t n, std::uint64_t seed)
      : in(kit_input<A>(n, seed)), x(in), out(A::output_size(n)) {
    poison_output();
  }
  void poison_output() {
    const std::vector<typename A::R> p(out.size(), poison<typename A::R>());
    if (!p.empty()) out.copy_from(p);
  }
  ::testing::AssertionResult check() const { return matches_reference<A>(out.to_host(), in); }
};

// Every GPU implementation on the same sizes, misaligned by one element.
TYPED_TEST_P(GpuConformance, SizesEveryImplementation) {
  for (prism::impl which : gpu_implementations<TypeParam>())
    for (std::size_t n : kit_sizes) check_size<TypeParam>(which, memory::device, n);
}

// 8 host threads, each with its own data, on its own stream, on cudaStreamPerThread, and all on
// one shared stream.
TYPED_TEST_P(GpuConformance, HostThreads) {
  using A = TypeParam;
  constexpr int threads = 8;
  const int calls = repeats(20);
  const std::size_t n = large((1u << 18) + 3);
  owned_stream shared;
  for (prism::impl which : gpu_implementations<A>()) {
    for (int mode = 0; mode < 3; ++mode) {
      SCOPED_TRACE(::testing::Message() << prism::name(which) << " streams: "
                                        << (mode == 0 ? "own" : mode == 1 ? "per-thread default" : "shared"));
      std::vector<int> failures(threads, 0);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          owned_stream own;
          const cudaStream_t s = mode == 0 ? own.get() : mode == 1 ? cudaStreamPerThread : shared.get();
          for (int c = 0; c < calls; ++c) {
            device_case<A> call(n, fresh_seed());
            A::run(prism::par.on(s).with(which), call.x, call.out);
            check_cuda(cudaStreamSynchronize(s));
            if (!call.check()) ++failures[t];
          }
        });
      }
      for (auto& th : pool) th.join();
      for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
    }
  }
}

// 32 streams, each used and destroyed with its work still queued, new ones created meanwhile
// (the driver reuses the handles): every result right, and the scratch cache stays bounded.
TYPED_TEST_P(GpuConformance, StreamsDestroyedWithWorkQueued) {
  using A = TypeParam;
  const std::size_t n = large((1u << 20) + 1);
  for (prism::impl which : gpu_implementations<A>()) {
    SCOPED_TRACE(prism::name(which));
    std::vector<std::unique_ptr<device_case<A>>> cases;
    for (int round = 0; round < 32; ++round) {
      cudaStream_t s;
      check_cuda(cudaStreamCreate(&s));
      cases.push_back(std::make_unique<device_case<A>>(n, fresh_seed()));
      A::run(prism::par.on(s).with(which), cases.back()->x, cases.back()->out);
      check_cuda(cudaStreamDestroy(s));  // its work is still queued
    }
    check_cuda(cudaDeviceSynchronize());
    for (const auto& c : cases) EXPECT_TRUE(c->check());
  }
  EXPECT_LE(prism::scratch_streams(), 2 * prism::cached_streams_per_device);
}

// The first call on a new stream inside a capture; then a larger call outside it on the same
// stream (the cache grows); then three replays, each with new input: every result right.
TYPED_TEST_P(GpuConformance, GraphCapture) {
  using A = TypeParam;
  for (prism::impl which : gpu_implementations<A>()) {
    SCOPED_TRACE(prism::name(which));
    owned_stream s;
    device_case<A> small(4099, fresh_seed());
    cudaGraph_t graph;
    check_cuda(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeGlobal));
    bool refused = false;
    try {
      A::run(prism::par.on(s.get()).with(which), small.x, small.out);
    } catch (const std::invalid_argument&) {
      refused = true;  // an implementation that cannot be captured says so before enqueuing
    }
    check_cuda(cudaStreamEndCapture(s.get(), &graph));  // the capture is still valid
    EXPECT_EQ(refused, !A::capturable(which));
    if (refused) {
      check_cuda(cudaGraphDestroy(graph));
      continue;
    }
    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, 0));

    device_case<A> larger(large((1u << 22) + 5), fresh_seed());
    A::run(prism::par.on(s.get()).with(which), larger.x, larger.out);
    check_cuda(cudaStreamSynchronize(s.get()));
    EXPECT_TRUE(larger.check());
    for (int replay = 0; replay < 3; ++replay) {
      small.in = kit_input<A>(small.in.size(), fresh_seed());
      small.x.copy_from(small.in);
      small.poison_output();
      prism::device_buffer<char> neighbour(1u << 20);  // memory a freed scratch block could become
      check_cuda(cudaMemset(neighbour.data(), 7, neighbour.size()));
      check_cuda(cudaGraphLaunch(exec, s.get()));
      check_cuda(cudaStreamSynchronize(s.get()));
      EXPECT_TRUE(small.check()) << "replay " << replay;
      const auto bytes = neighbour.to_host();
      EXPECT_TRUE(std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 7; }));
    }
    check_cuda(cudaGraphExecDestroy(exec));
    check_cuda(cudaGraphDestroy(graph));
  }
}

// cpu on pinned and managed memory waits for the policy's stream: an asynchronous copy queued
// there lands before the CPU reads.
TYPED_TEST_P(GpuConformance, PinnedAndManagedOnTheCpu) {
  using A = TypeParam;
  constexpr std::size_t n = 1u << 22;
  owned_stream s;
  for (bool managed : {false, true}) {
    SCOPED_TRACE(managed ? "managed" : "pinned");
    typename A::T* x = nullptr;
    typename A::R* out = nullptr;
    const std::size_t out_n = A::output_size(n);
    if (managed) {
      check_cuda(cudaMallocManaged(reinterpret_cast<void**>(&x), n * sizeof(typename A::T)));
      check_cuda(cudaMallocManaged(reinterpret_cast<void**>(&out), out_n * sizeof(typename A::R)));
    } else {
      check_cuda(cudaMallocHost(reinterpret_cast<void**>(&x), n * sizeof(typename A::T)));
      check_cuda(cudaMallocHost(reinterpret_cast<void**>(&out), out_n * sizeof(typename A::R)));
    }
    std::fill(x, x + n, typename A::T{});
    std::fill(out, out + out_n, poison<typename A::R>());
    const auto in = kit_input<A>(n, fresh_seed());
    prism::device_buffer<typename A::T> source(in);
    check_cuda(cudaMemcpyAsync(x, source.data(), n * sizeof(typename A::T), cudaMemcpyDefault, s.get()));
    A::run(prism::par.on(s.get()).with(prism::impl::cpu), prism::span<const typename A::T>(x, n),
           prism::span<typename A::R>(out, out_n));
    EXPECT_TRUE(matches_reference<A>(std::vector<typename A::R>(out, out + out_n), in));
    if (managed) {
      check_cuda(cudaFree(x));
      check_cuda(cudaFree(out));
    } else {
      check_cuda(cudaFreeHost(x));
      check_cuda(cudaFreeHost(out));
    }
  }
}

// Bad input (host memory for a GPU implementation, aliasing, a wrong size) changes nothing,
// leaves no CUDA error behind, and the next call works.
TYPED_TEST_P(GpuConformance, BadInputLeavesEverythingUsable) {
  using A = TypeParam;
  for (prism::impl which : gpu_implementations<A>()) {
    SCOPED_TRACE(prism::name(which));
    device_case<A> good(1001, fresh_seed());
    std::vector<typename A::T> host_in(1001, typename A::T{});
    if (which != prism::impl::automatic) {  // automatic runs cpu on host memory, by design
      EXPECT_THROW(A::run(prism::par.with(which), prism::span{host_in}, good.out), std::invalid_argument);
    }
    // A short input is refused where the output's size follows the input's (not a reduction's
    // one element, nor a histogram's bins).
    const bool sized_by_input = A::output_size(1000) != A::output_size(1001);
    prism::device_buffer<typename A::T> short_in(sized_by_input ? 1000 : 0);
    if (sized_by_input) {
      EXPECT_THROW(A::run(prism::par.with(which), short_in, good.out), std::invalid_argument);
    }
    for (const auto& call : A::aliased()) {
      prism::device_buffer<std::byte> buffer(A::aliased_bytes);
      check_cuda(cudaMemset(buffer.data(), 0x5A, buffer.size()));
      EXPECT_THROW(call(prism::par.with(which), buffer.data()), std::invalid_argument);
      const auto after = buffer.to_host();
      EXPECT_TRUE(std::all_of(after.begin(), after.end(), [](std::byte b) { return b == std::byte(0x5A); }));
    }
    const auto untouched = good.out.to_host();
    for (const auto& v : untouched) EXPECT_TRUE(std::isnan(double(v)) || v == poison<typename A::R>());
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    A::run(prism::par.with(which), good.x, good.out);
    EXPECT_TRUE(good.check());
  }
}

// An error the caller left pending (a failed allocation here) is not reported as prism's.
TYPED_TEST_P(GpuConformance, CallersPendingErrorIsNotPrisms) {
  using A = TypeParam;
  for (prism::impl which : gpu_implementations<A>()) {
    SCOPED_TRACE(prism::name(which));
    device_case<A> call(4099, fresh_seed());
    void* p = nullptr;
    ASSERT_NE(cudaMalloc(&p, std::size_t{1} << 60), cudaSuccess);  // leaves an error pending
    EXPECT_NO_THROW(A::run(prism::par.with(which), call.x, call.out));
    check_cuda(cudaDeviceSynchronize());
    EXPECT_TRUE(call.check());
    (void)cudaGetLastError();
  }
}

// Memory of another GPU than the current one is refused with a message naming both, before any
// work; with that GPU made current the same arrays work.
TYPED_TEST_P(GpuConformance, MemoryOfAnotherGpuIsRefused) {
  using A = TypeParam;
  int devices = 0;
  check_cuda(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two GPUs (" << devices << " here)";
  int home = 0;
  check_cuda(cudaGetDevice(&home));
  const int other = home == 0 ? 1 : 0;
  for (prism::impl which : gpu_implementations<A>()) {
    SCOPED_TRACE(prism::name(which));
    check_cuda(cudaSetDevice(other));
    std::optional<device_case<A>> there;
    there.emplace(4099, fresh_seed());
    check_cuda(cudaSetDevice(home));
    try {
      A::run(prism::par.with(which), there->x, there->out);
      ADD_FAILURE() << "memory of GPU " << other << " accepted while GPU " << home << " is current";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("GPU " + std::to_string(other)), std::string::npos) << e.what();
    }
    check_cuda(cudaSetDevice(other));
    const auto untouched = there->out.to_host();
    for (const auto& v : untouched) EXPECT_TRUE(std::isnan(double(v)) || v == poison<typename A::R>());
    A::run(prism::par.with(which), there->x, there->out);
    EXPECT_TRUE(there->check());
    there.reset();
    check_cuda(cudaSetDevice(home));
  }
}

REGISTER_TYPED_TEST_SUITE_P(GpuConformance, SizesEveryImplementation, HostThreads,
                            StreamsDestroyedWithWorkQueued, GraphCapture, PinnedAndManagedOnTheCpu,
                            BadInputLeavesEverythingUsable, CallersPendingErrorIsNotPrisms,
                            MemoryOfAnotherGpuIsRefused);

}  // namespace prism::testing
