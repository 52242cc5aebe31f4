// SPDX-License-Identifier: Apache-2.0
#pragma once
// Scratch: the device memory a call needs for the work it enqueues (CUB's temporary storage, the
// partial results of a reduction), and pinned host memory for a value bound to the host.
//
// Where it comes from, in order:
//   - the policy's memory_resource, if it names one;
//   - inside a CUDA graph capture, the graph itself: a stream-ordered allocation on the
//     capturing stream and a free after the work, so the graph owns its scratch and a replay
//     never touches memory that a later call has freed or regrown. Nothing is allocated outside
//     the capture, so the first call on a stream may be inside one;
//   - otherwise prism's cache: one block per (device, stream), keyed by the stream's unique id
//     (cudaStreamGetId), not its handle, so the per-thread default stream of each host thread
//     has its own block and a handle reused after cudaStreamDestroy gets a fresh one. The block
//     grows stream-ordered (cudaMallocAsync / cudaFreeAsync on that stream) and is then reused:
//     the steady state allocates nothing. A lease holds the stream's lock while the call
//     enqueues, so host threads sharing a stream take turns. The cache keeps at most
//     `cached_streams_per_device` streams: past that the least recently used half is freed, after
//     the device has finished its work (one cudaDeviceSynchronize per eviction), so the
//     footprint does not grow with the number of streams a process has ever used. A host
//     thread that has used its cudaStreamPerThread here waits for that stream when it exits
//     (scratch.cpp says why: the CUDA runtime's own teardown of it can stall).
// Every block starts with a word that is zero when the call's work starts and that the work must
// leave zero (a kernel's arrival counter): no memset launch per call.
#include <prism/execution.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>

namespace prism {

inline constexpr std::size_t cached_streams_per_device = 64;

class scratch {
 public:
  scratch(scratch&& other) noexcept;
  scratch& operator=(scratch&&) = delete;
  ~scratch();

  void* device() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Zero when the work enqueued under this lease starts; the work must leave it zero.
  unsigned* zeroed_counter() const noexcept { return counter_; }

  struct state;

 private:
  friend scratch acquire_scratch(std::size_t, const execution_policy&, const char*);
  friend scratch acquire_separate_scratch(std::size_t, const execution_policy&, const char*);
  static scratch acquire(std::size_t bytes, const execution_policy& policy, const char* algorithm, bool separate);
  explicit scratch(std::unique_ptr<state> s) noexcept;
  std::unique_ptr<state> state_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned* counter_ = nullptr;
};

// At least `bytes` of device memory for work on the policy's stream (current device).
scratch acquire_scratch(std::size_t bytes, const execution_policy& policy, const char* algorithm);

// A block of its own rather than the stream's cached one (the policy's resource, else a
// stream-ordered allocation freed after the work): for a second allocation while the stream's
// lease is held, as Thrust's in-place selections make (a copy of the input, then the scan's).
scratch acquire_separate_scratch(std::size_t bytes, const execution_policy& policy, const char* algorithm);

// 256 bytes of pinned host memory, for a result that a call copies to the host and then waits
// for. Slots come from a shared pool: their number is the most calls ever waiting at once.
class host_slot {
 public:
  explicit host_slot(const char* algorithm);
  host_slot(const host_slot&) = delete;
  host_slot& operator=(const host_slot&) = delete;
  ~host_slot();
  void* get() const noexcept { return slot_; }
  static constexpr std::size_t bytes = 256;

 private:
  void* slot_;
};

// Throws std::invalid_argument if `stream` is capturing: a value returned to the host cannot be
// part of a graph. Called before anything is enqueued, so the caller's capture stays valid.
void require_not_capturing(cudaStream_t stream, const char* algorithm);

// What the cache holds, for tests and for programs that watch their memory.
std::size_t scratch_allocations() noexcept;  // device allocations it has made
std::size_t scratch_streams() noexcept;      // (device, stream) entries it holds now
// Frees every cached block after the device has finished with it (cudaDeviceSynchronize).
void release_scratch();

}  // namespace prism
