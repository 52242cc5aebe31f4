#pragma once
// The per-stream cache of temporary storage.
//
// Algorithms that need scratch space (CUB's two-pass reductions, say) take it from here instead
// of calling cudaMalloc: each (device, stream) pair keeps one block of device memory that grows
// when a call needs more and is reused by every later call, so the steady state allocates
// nothing. Growth is stream-ordered (cudaMallocAsync / cudaFreeAsync on that stream), so work
// already queued on the stream keeps the old block until it is done with it.
//
// A lease holds the stream's lock until it is destroyed: keep it alive until the work that uses
// the memory has been enqueued, and two host threads sharing a stream cannot regrow the block
// under each other. Each entry also has a small pinned host block for results bound to the host,
// and a device counter for kernels whose blocks count their arrivals.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

namespace prism {

class temporary_storage_lease {
 public:
  void* device() const noexcept { return device_; }
  std::size_t device_bytes() const noexcept { return device_bytes_; }
  void* pinned_host() const noexcept { return pinned_host_; }
  static constexpr std::size_t pinned_host_bytes = 256;
  // A device word that is zero when work enqueued under this lease starts on the stream. Work that
  // uses it must leave it zero when it ends: then no launch is spent clearing it before each use.
  unsigned* zeroed_counter() const noexcept { return counter_; }

 private:
  friend temporary_storage_lease acquire_temporary_storage(std::size_t, cudaStream_t);
  temporary_storage_lease(std::unique_lock<std::mutex> lock, void* device, std::size_t bytes,
                          void* pinned, unsigned* counter)
      : lock_(std::move(lock)), device_(device), device_bytes_(bytes), pinned_host_(pinned),
        counter_(counter) {}
  std::unique_lock<std::mutex> lock_;
  void* device_;
  std::size_t device_bytes_;
  void* pinned_host_;
  unsigned* counter_;
};

// At least `bytes` of device memory for work on `stream` (on the current device).
temporary_storage_lease acquire_temporary_storage(std::size_t bytes, cudaStream_t stream);

// How many device allocations the cache has made in this process: constant in the steady state.
std::size_t temporary_storage_allocations() noexcept;

}  // namespace prism
