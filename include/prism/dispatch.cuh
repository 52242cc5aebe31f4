// SPDX-License-Identifier: Apache-2.0
#pragma once
// The dispatch layer as the generic (.cuh) layer of every family uses it: the checks of
// <prism/dispatch.hpp>, plus what only CUDA code can do: refuse a __device__-only lambda on the
// cpu, translate Thrust's and CUB's failures into prism::cuda_error in one place, give Thrust
// its temporary storage from prism's scratch, and run a Thrust algorithm (run_thrust) or a CUB
// one (cub_call) the way every family does.
#include <prism/dispatch.hpp>
#include <prism/error.hpp>
#include <prism/execution.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/scratch.hpp>

#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/detail/bad_alloc.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/system_error.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::detail {

// True for a __device__-only extended lambda, which the host (impl::cpu) cannot call.
template <class F>
constexpr bool device_only_lambda() {
#ifdef __NVCC__
  return __nv_is_extended_device_lambda_closure_type(F);
#else
  return false;
#endif
}

// Refuses the cpu implementation for a call any of whose functors is a __device__-only lambda.
template <class... F>
constexpr bool host_callable = !(device_only_lambda<F>() || ...);

[[noreturn]] inline void refuse_device_lambda(const char* algorithm) {
  throw std::invalid_argument(std::string("prism::") + algorithm +
                              ": a __device__ lambda cannot run on the cpu");
}

// The stream a null handle means in this translation unit: the per-thread default stream where
// it is built with --default-stream per-thread, the legacy one otherwise. The scratch cache needs
// the stream itself, not the handle, to tell threads apart.
inline execution_policy with_explicit_stream(const execution_policy& policy) {
  if (policy.stream() != nullptr) return policy;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  return policy.on(cudaStreamPerThread);
#else
  return policy.on(cudaStreamLegacy);
#endif
}

// Runs one implementation of `algorithm`: Thrust's exceptions become prism::cuda_error, and a
// cuda_error names the algorithm.
template <class Body>
decltype(auto) translate_errors(const char* algorithm, Body&& body) {
  try {
    return body();
  } catch (const thrust::system::detail::bad_alloc& e) {
    throw cuda_error(cudaErrorMemoryAllocation, std::string("Thrust's allocation (") + e.what() + ")",
                     algorithm);
  } catch (const thrust::system_error& e) {
    if (e.code().category() != thrust::cuda_category()) throw;
    throw cuda_error(static_cast<cudaError_t>(e.code().value()), std::string("Thrust (") + e.what() + ")",
                     algorithm);
  } catch (const cuda_error& e) {
    if (!e.operation().empty()) throw;
    throw e.of(algorithm);
  }
}

// Thrust's temporary storage from prism's scratch: the one request a Thrust algorithm makes per
// call takes the stream's lease, held until the call returns. A second request in one call would
// need a second lease on the same stream, so it is refused rather than deadlocked.
class scratch_allocator {
 public:
  using value_type = char;
  scratch_allocator(const execution_policy& policy, const char* algorithm)
      : policy_(policy), algorithm_(algorithm) {}
  char* allocate(std::ptrdiff_t bytes) {
    if (lease_) throw std::logic_error("prism: Thrust asked for a second temporary allocation in one call");
    lease_.emplace(acquire_scratch(static_cast<std::size_t>(bytes), policy_, algorithm_));
    return static_cast<char*>(lease_->device());
  }
  void deallocate(char*, std::size_t) noexcept {}

 private:
  execution_policy policy_;
  const char* algorithm_;
  std::optional<scratch> lease_;
};

// An output array: array-like, elements not const.
template <class O>
concept writable_array = array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>>;

// body(Thrust's execution policy): OpenMP for cpu (refused where a functor is __device__ only),
// the caller's stream for thrust, without synchronizing, temporary storage from prism's scratch.
template <class... F, class Body>
decltype(auto) run_thrust(impl which, const execution_policy& policy, const char* algorithm, Body&& body) {
  if (which == impl::cpu) {
    if constexpr (host_callable<F...>) {
      return body(thrust::omp::par);
    } else {
      refuse_device_lambda(algorithm);
    }
  }
  scratch_allocator allocator(with_explicit_stream(policy), algorithm);
  clear_stale_error();
  return body(thrust::cuda::par_nosync(allocator).on(policy.stream()));
}

// CUB's two calls (the temporary storage's size, then the work) with the storage from prism's
// scratch. `extra` bytes of scratch come first, for the caller: call(temp, bytes, extra), then
// after(extra), enqueued while the scratch is still held.
struct nothing_after {
  void operator()(void*) const {}
};
template <class Call, class After = nothing_after>
void cub_call(const char* algorithm, const char* what, const execution_policy& policy, Call call,
              std::size_t extra = 0, After after = {}) {
  clear_stale_error();  // before the size query too: CUB reads the last error there as well
  std::size_t temp_bytes = 0;
  check(call(nullptr, temp_bytes, nullptr), what, algorithm);
  extra = (extra + 255) / 256 * 256;
  const scratch lease = acquire_scratch(extra + temp_bytes, with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  check(call(memory + extra, temp_bytes, memory), what, algorithm);
  after(static_cast<void*>(memory));
}

}  // namespace prism::detail
