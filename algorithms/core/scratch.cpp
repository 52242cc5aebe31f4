// SPDX-License-Identifier: Apache-2.0
// The scratch of every call (include/prism/scratch.hpp says where it comes from and why).
#include <prism/dispatch.hpp>
#include <prism/error.hpp>
#include <prism/scratch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace prism {
namespace {

// The zeroed word sits in the first bytes of every block; the scratch proper starts here.
constexpr std::size_t counter_bytes = 256;

std::atomic<std::size_t> allocations{0};

// Allocations a library makes may run while another thread captures a graph in the global mode,
// which forbids them; in the relaxed mode this thread may, and no capture is disturbed.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~relaxed_capture_mode() { (void)cudaThreadExchangeStreamCaptureMode(&mode_); }

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

struct entry {
  std::mutex mutex;
  void* block = nullptr;  // counter_bytes, then the scratch
  std::size_t bytes = 0;  // of the scratch
  std::uint64_t last_use = 0;
  bool evicted = false;  // freed and out of the cache: a lease that finds it so starts again
};

struct device_cache {
  std::mutex mutex;
  std::unordered_map<unsigned long long, std::shared_ptr<entry>> entries;
  std::uint64_t clock = 0;
};

// Caches live as long as the process: freeing them at exit would race with the CUDA runtime's
// own teardown, and the driver reclaims everything then anyway.
device_cache& cache_of(int device) {
  static std::mutex mutex;
  static auto* caches = new std::unordered_map<int, std::unique_ptr<device_cache>>;
  std::lock_guard lock(mutex);
  auto& c = (*caches)[device];
  if (!c) c = std::make_unique<device_cache>();
  return *c;
}

// The cache of every device, with its ordinal (none without a GPU).
std::vector<std::pair<int, device_cache*>> every_cache() {
  std::vector<std::pair<int, device_cache*>> all;
  for (int d = 0; d < detail::device_count(); ++d) all.emplace_back(d, &cache_of(d));
  return all;
}

// Frees `victims` once no lease holds them and the device has finished its work. Their streams
// may be destroyed already, so nothing can be ordered on them: the device is synchronized.
void free_entries(int device, std::vector<std::shared_ptr<entry>> victims) {
  std::vector<std::unique_lock<std::mutex>> held;
  for (auto& v : victims) held.emplace_back(v->mutex);
  relaxed_capture_mode relaxed;
  int current = 0;
  check(cudaGetDevice(&current), "cudaGetDevice", "release_scratch");
  if (current != device) check(cudaSetDevice(device), "cudaSetDevice", "release_scratch");
  const cudaError_t synced = cudaDeviceSynchronize();
  for (auto& v : victims) {
    if (synced == cudaSuccess && v->block != nullptr) (void)cudaFree(v->block);
    v->block = nullptr;
    v->bytes = 0;
    v->evicted = true;
  }
  if (current != device) (void)cudaSetDevice(current);
  check(synced, "cudaDeviceSynchronize", "release_scratch");
}

// Past the bound, the least recently used half of the entries leaves the cache.
void evict_if_full(int device, device_cache& cache) {
  std::vector<std::shared_ptr<entry>> victims;
  {
    std::lock_guard lock(cache.mutex);
    if (cache.entries.size() <= cached_streams_per_device) return;
    std::vector<std::pair<std::uint64_t, unsigned long long>> by_age;
    for (const auto& [id, e] : cache.entries) by_age.emplace_back(e->last_use, id);
    std::sort(by_age.begin(), by_age.end());
    for (std::size_t i = 0; i < by_age.size() / 2; ++i) {
      auto it = cache.entries.find(by_age[i].second);
      victims.push_back(std::move(it->second));
      cache.entries.erase(it);
    }
  }
  free_entries(device, std::move(victims));
}

// A host thread that exits with a stream-ordered allocation and work on it still queued on its
// per-thread default stream can leave the CUDA runtime's teardown of that stream spinning for
// good while other processes use the GPU (measured on the H200, driver 580, with raw CUDA calls:
// a new thread doing cudaMallocAsync and cudaMemsetAsync on cudaStreamPerThread and exiting
// stalled on the first try; the same thread synchronizing its stream before it exits never did,
// 300 threads in a row). The scratch allocates on the caller's stream, so a thread that has used
// its per-thread stream here waits for it, on each device it used, when it exits.
class per_thread_stream_drain {
 public:
  void used(int device) {
    if (std::find(devices_.begin(), devices_.end(), device) == devices_.end()) devices_.push_back(device);
  }
  ~per_thread_stream_drain() {
    int current = 0;
    if (devices_.empty() || cudaGetDevice(&current) != cudaSuccess) return;
    for (const int device : devices_) {
      if (cudaSetDevice(device) == cudaSuccess) (void)cudaStreamSynchronize(cudaStreamPerThread);
    }
    (void)cudaSetDevice(current);
  }

 private:
  std::vector<int> devices_;
};

}  // namespace

// How a lease gives its memory back: unlock the cache entry, free it into the graph being
// captured, or hand it back to the caller's resource.
struct scratch::state {
  std::shared_ptr<entry> cached;
  std::unique_lock<std::mutex> lock;
  void* owned = nullptr;  // a capture's or a resource's block
  std::size_t owned_bytes = 0;
  memory_resource* resource = nullptr;
  cudaStream_t stream = nullptr;
};

scratch::scratch(std::unique_ptr<state> s) noexcept : state_(std::move(s)) {}
scratch::scratch(scratch&& other) noexcept
    : state_(std::move(other.state_)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      counter_(std::exchange(other.counter_, nullptr)) {}

scratch::~scratch() {
  if (!state_ || state_->owned == nullptr) return;  // a cache lease: the lock goes with state_
  if (state_->resource != nullptr) {
    state_->resource->deallocate(state_->owned, state_->owned_bytes, state_->stream);
  } else {
    (void)cudaFreeAsync(state_->owned, state_->stream);  // a node of the captured graph
  }
}

scratch acquire_scratch(std::size_t bytes, const execution_policy& policy, const char* algorithm) {
  return scratch::acquire(bytes, policy, algorithm, false);
}

scratch acquire_separate_scratch(std::size_t bytes, const execution_policy& policy, const char* algorithm) {
  return scratch::acquire(bytes, policy, algorithm, true);
}

scratch scratch::acquire(std::size_t bytes, const execution_policy& policy, const char* algorithm, bool separate) {
  const cudaStream_t stream = policy.stream();
  auto s = std::make_unique<scratch::state>();
  s->stream = stream;
  void* block = nullptr;
  std::size_t usable = bytes;

  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (policy.resource() == nullptr && !separate) {
    check(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing", algorithm);
  }
  if (separate || policy.resource() != nullptr || capture == cudaStreamCaptureStatusActive) {
    const std::size_t total = counter_bytes + bytes;
    if (policy.resource() != nullptr) {
      block = policy.resource()->allocate(total, stream);
      if (block == nullptr) throw std::bad_alloc();
      s->resource = policy.resource();
    } else {
      check(cudaMallocAsync(&block, total, stream), "cudaMallocAsync", algorithm);
    }
    s->owned = block;
    s->owned_bytes = total;
    const cudaError_t zeroed = cudaMemsetAsync(block, 0, sizeof(unsigned), stream);
    if (zeroed != cudaSuccess) {
      scratch release(std::move(s));
      check(zeroed, "cudaMemsetAsync", algorithm);
    }
  } else {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice", algorithm);
    unsigned long long id = 0;
    check(cudaStreamGetId(stream, &id), "cudaStreamGetId", algorithm);
    if (stream == cudaStreamPerThread) {
      thread_local per_thread_stream_drain drain;
      drain.used(device);
    }
    device_cache& cache = cache_of(device);
    bool full = false;
    {
      std::lock_guard lock(cache.mutex);
      auto& slot = cache.entries[id];
      if (!slot) slot = std::make_shared<entry>();
      s->cached = slot;
      slot->last_use = ++cache.clock;
      full = cache.entries.size() > cached_streams_per_device;
    }
    // This entry is the most recently used: the eviction leaves it, and this thread holds no
    // entry's lock while it waits for the victims' leases to end.
    if (full) evict_if_full(device, cache);
    s->lock = std::unique_lock(s->cached->mutex);
    entry& e = *s->cached;
    if (e.evicted) {
      s->lock.unlock();
      return acquire(bytes, policy, algorithm, false);
    }
    if (bytes > e.bytes || e.block == nullptr) {
      // Grow geometrically, so that a run of slightly larger calls allocates O(log n) times.
      std::size_t grown = std::max(bytes, e.bytes + e.bytes / 2);
      void* fresh = nullptr;
      cudaError_t status = cudaSuccess;
      {
        relaxed_capture_mode relaxed;
        status = cudaMallocAsync(&fresh, counter_bytes + grown, stream);
        if (status == cudaErrorMemoryAllocation) {
          // Out of memory with the old block still held (it goes only once the new one is made) or
          // for the growth's margin: a huge call after another (say a raw sort's runs, then CUB's
          // larger temporary storage). The old block goes back first, the device's pool returns
          // what no queued work uses any more, and exactly the bytes asked for are tried again:
          // waiting here for this stream beats failing.
          (void)cudaGetLastError();
          if (e.block != nullptr) (void)cudaFreeAsync(e.block, stream);
          e.block = nullptr;
          e.bytes = 0;
          cudaMemPool_t pool = nullptr;
          if (cudaStreamSynchronize(stream) == cudaSuccess && cudaDeviceGetMemPool(&pool, device) == cudaSuccess) {
            (void)cudaMemPoolTrimTo(pool, 0);
          }
          grown = bytes;
          status = cudaMallocAsync(&fresh, counter_bytes + grown, stream);
        }
      }
      check(status, "cudaMallocAsync", algorithm);
      const cudaError_t zeroed = cudaMemsetAsync(fresh, 0, sizeof(unsigned), stream);
      if (zeroed != cudaSuccess) {
        (void)cudaFreeAsync(fresh, stream);
        check(zeroed, "cudaMemsetAsync", algorithm);
      }
      if (e.block != nullptr) (void)cudaFreeAsync(e.block, stream);  // after the work queued before
      e.block = fresh;
      e.bytes = grown;
      allocations.fetch_add(1, std::memory_order_relaxed);
    }
    block = e.block;
    usable = e.bytes;
  }
  scratch result(std::move(s));
  result.counter_ = static_cast<unsigned*>(block);
  result.data_ = static_cast<char*>(block) + counter_bytes;
  result.bytes_ = usable;
  return result;
}

namespace {
std::mutex slots_mutex;
std::vector<void*>* free_slots = new std::vector<void*>;
}  // namespace

host_slot::host_slot(const char* algorithm) {
  std::lock_guard lock(slots_mutex);
  if (free_slots->empty()) {
    constexpr std::size_t page = 4096;
    void* memory = nullptr;
    {
      relaxed_capture_mode relaxed;
      check(cudaMallocHost(&memory, page), "cudaMallocHost", algorithm);
    }
    for (std::size_t at = 0; at < page; at += bytes) free_slots->push_back(static_cast<char*>(memory) + at);
  }
  slot_ = free_slots->back();
  free_slots->pop_back();
}

host_slot::~host_slot() {
  std::lock_guard lock(slots_mutex);
  free_slots->push_back(slot_);
}

void require_not_capturing(cudaStream_t stream, const char* algorithm) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(stream, &capture), "cudaStreamIsCapturing", algorithm);
  if (capture != cudaStreamCaptureStatusNone) {
    throw std::invalid_argument(std::string("prism::") + algorithm +
                                ": the stream is capturing a graph, and a value returned to the "
                                "host cannot be captured; pass a one-element device array for "
                                "the result instead");
  }
}

std::size_t scratch_allocations() noexcept { return allocations.load(); }

std::size_t scratch_streams() noexcept {
  std::size_t n = 0;
  for (const auto& [device, c] : every_cache()) {
    std::lock_guard lock(c->mutex);
    n += c->entries.size();
  }
  return n;
}

void release_scratch() {
  for (const auto& [device, cache] : every_cache()) {
    std::vector<std::shared_ptr<entry>> victims;
    {
      std::lock_guard lock(cache->mutex);
      for (auto& [id, e] : cache->entries) victims.push_back(std::move(e));
      cache->entries.clear();
    }
    if (!victims.empty()) free_entries(device, std::move(victims));
  }
}

}  // namespace prism
