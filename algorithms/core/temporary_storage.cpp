#include <prism/error.hpp>
#include <prism/temporary_storage.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <utility>

namespace prism {
namespace {

struct entry {
  std::mutex mutex;
  void* device = nullptr;
  std::size_t bytes = 0;
  void* pinned_host = nullptr;
  unsigned* counter = nullptr;
};

std::atomic<std::size_t> allocations{0};

// Entries live as long as the process: freeing them at exit would race with the CUDA runtime's
// own teardown, and the driver reclaims everything then anyway.
entry& entry_for(int device, cudaStream_t stream) {
  static std::mutex registry_mutex;
  static auto* entries = new std::map<std::pair<int, cudaStream_t>, std::unique_ptr<entry>>;
  std::lock_guard lock(registry_mutex);
  auto& slot = (*entries)[{device, stream}];
  if (!slot) slot = std::make_unique<entry>();
  return *slot;
}

}  // namespace

temporary_storage_lease acquire_temporary_storage(std::size_t bytes, cudaStream_t stream) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  entry& e = entry_for(device, stream);
  std::unique_lock lock(e.mutex);
  if (e.pinned_host == nullptr) {
    check(cudaMallocHost(&e.pinned_host, temporary_storage_lease::pinned_host_bytes),
          "cudaMallocHost");
  }
  if (e.counter == nullptr) {
    void* counter = nullptr;
    check(cudaMallocAsync(&counter, sizeof(unsigned), stream), "cudaMallocAsync");
    check(cudaMemsetAsync(counter, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    e.counter = static_cast<unsigned*>(counter);
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (bytes > e.bytes) {
    // Grow geometrically so that a sequence of slightly larger calls allocates O(log n) times.
    const std::size_t grown = std::max(bytes, e.bytes + e.bytes / 2);
    void* fresh = nullptr;
    check(cudaMallocAsync(&fresh, grown, stream), "cudaMallocAsync");
    if (e.device != nullptr) check(cudaFreeAsync(e.device, stream), "cudaFreeAsync");
    e.device = fresh;
    e.bytes = grown;
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
  return {std::move(lock), e.device, e.bytes, e.pinned_host, e.counter};
}

std::size_t temporary_storage_allocations() noexcept { return allocations.load(); }

}  // namespace prism
