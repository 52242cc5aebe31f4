// SPDX-License-Identifier: Apache-2.0
#pragma once
// How a call runs: the optional first argument of every prism algorithm.
//
//   prism::add(a, b, out);                                       // automatic, default stream
//   prism::add(prism::par.on(stream), a, b, out);                // on a stream
//   prism::add(prism::par.with(prism::impl::raw), a, b, out);    // a chosen implementation
//   prism::sum(prism::par.on(stream).with(pool), x, result);     // scratch from your memory
//   prism::add(prism::impl::cpu, a, b, out);                     // an impl or a stream alone
//
// Each of the three settings can be given without the others, in any order, as Thrust's
// `par.on(stream)` and the standard library's execution policies are spelled.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace prism {

// The strategies an algorithm can run. Each family lists the ones it has (its registry); the
// teaching stages of an algorithm (the reduction's six kernels, say) are its lesson, not impls.
enum class impl {
  automatic,  // host memory: cpu; device memory: the fastest of the others, from the family's
              // table of measurements (docs/benchmarks)
  cpu,        // Thrust on the host, through its OpenMP system: host memory, any machine
  thrust,     // Thrust on the GPU, on the caller's stream, without hidden synchronization
  raw_naive,  // the textbook hand-written kernel: one thread per element
  raw,        // the tuned hand-written kernel: whatever reaches the bandwidth ceiling
  cub,        // CUB's device-wide algorithm
};

constexpr std::string_view name(impl i) noexcept {
  switch (i) {
    case impl::automatic: return "automatic";
    case impl::cpu: return "cpu";
    case impl::thrust: return "thrust";
    case impl::raw_naive: return "raw_naive";
    case impl::raw: return "raw";
    case impl::cub: return "cub";
  }
  return "unknown";
}

// Every impl value, the invalid ones for a family included: what the conformance tests iterate.
inline std::span<const impl> all_implementations() noexcept {
  static constexpr impl all[] = {impl::automatic, impl::cpu, impl::thrust,
                                 impl::raw_naive, impl::raw, impl::cub};
  return all;
}

// Stream-ordered device memory for an algorithm's scratch (CUB's temporary storage, the partial
// results of a reduction). prism calls allocate() before it enqueues the work that uses the
// memory on `stream`, and deallocate() right after it has enqueued that work: as with
// cudaFreeAsync, the memory may be handed out again only to work ordered after it.
class memory_resource {
 public:
  virtual ~memory_resource() = default;
  virtual void* allocate(std::size_t bytes, cudaStream_t stream) = 0;
  virtual void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept = 0;
};

class execution_policy {
 public:
  constexpr execution_policy() noexcept = default;
  // An implementation or a stream alone converts: prism::sum(prism::impl::cub, x).
  constexpr execution_policy(impl which) noexcept : which_(which) {}
  constexpr execution_policy(cudaStream_t stream) noexcept : stream_(stream) {}

  constexpr execution_policy on(cudaStream_t stream) const noexcept {
    execution_policy p = *this;
    p.stream_ = stream;
    return p;
  }
  constexpr execution_policy with(impl which) const noexcept {
    execution_policy p = *this;
    p.which_ = which;
    return p;
  }
  // Scratch from `resource` instead of prism's per-stream cache; it must outlive the call.
  constexpr execution_policy with(memory_resource& resource) const noexcept {
    execution_policy p = *this;
    p.resource_ = &resource;
    return p;
  }

  constexpr cudaStream_t stream() const noexcept { return stream_; }
  constexpr impl implementation() const noexcept { return which_; }
  constexpr memory_resource* resource() const noexcept { return resource_; }

 private:
  cudaStream_t stream_ = nullptr;
  impl which_ = impl::automatic;
  memory_resource* resource_ = nullptr;
};

// The default: automatic, the default stream, prism's own scratch.
inline constexpr execution_policy par{};

}  // namespace prism
