// SPDX-License-Identifier: Apache-2.0
#pragma once
// The NCCL calls of the distributed algorithms, each issued for every local GPU inside one group
// (in single_process mode one thread drives all the GPUs: NCCL needs the calls of one collective
// grouped, else the first would wait for the others forever).
#include <prism/distributed.hpp>

#include <prism/buffer.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism::detail {

inline void nccl_check(ncclResult_t code, const char* call, const char* operation) {
  if (code != ncclSuccess) throw nccl_error(code, call, operation);
}

template <class R>
constexpr ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<R, float>) return ncclFloat32;
  if constexpr (std::is_same_v<R, double>) return ncclFloat64;
  if constexpr (std::is_same_v<R, std::int32_t>) return ncclInt32;
  if constexpr (std::is_same_v<R, std::int64_t>) return ncclInt64;
  if constexpr (std::is_same_v<R, std::uint32_t>) return ncclUint32;
  if constexpr (std::is_same_v<R, std::uint64_t>) return ncclUint64;
}

// The stream of local GPU g for this call.
inline cudaStream_t stream_of(const char* algorithm, const execution_policy& policy, const communicator& comm, int g) {
  return shard_policy(algorithm, policy, comm, g).stream();
}

// Copies `bytes` of device memory to the host on `stream` (a local GPU's, current) and waits for
// them, and for everything queued on the stream before.
inline void read_back(const char* algorithm, cudaStream_t stream, void* host, const void* device, std::size_t bytes) {
  check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync", algorithm);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", algorithm);
}

// The workspace of local GPU g: slot 0 holds this rank's partial state, slots 1 .. k the gathered
// ones (each `bytes` long, packed from slot 1 on), the last slot a returned result.
inline unsigned char* own_slot(const communicator& comm, int g) {
  return static_cast<unsigned char*>(comm.workspace(g));
}
inline unsigned char* gathered_slots(const communicator& comm, int g) {
  return own_slot(comm, g) + communicator::slot_bytes;
}
inline unsigned char* result_slot(const communicator& comm, int g) {
  return own_slot(comm, g) + communicator::slot_bytes * (static_cast<std::size_t>(comm.size()) + 1);
}

// Every rank's `bytes` from send(g) into recv(g), in rank order, on every local GPU (one group).
template <class Send, class Recv>
void all_gather(const char* algorithm, const execution_policy& policy, const communicator& comm, Send send, Recv recv,
                std::size_t bytes) {
  nccl_check(ncclGroupStart(), "ncclGroupStart", algorithm);
  for (int g = 0; g < comm.local_count(); ++g) {
    const ncclResult_t status =
        ncclAllGather(send(g), recv(g), bytes, ncclUint8, comm.nccl(g), stream_of(algorithm, policy, comm, g));
    if (status != ncclSuccess) {
      (void)ncclGroupEnd();
      nccl_check(status, "ncclAllGather", algorithm);
    }
  }
  nccl_check(ncclGroupEnd(), "ncclGroupEnd", algorithm);
}

// Every rank's `bytes` from slot 0 into the gathered slots, in rank order, on every GPU.
inline void all_gather_slots(const char* algorithm, const execution_policy& policy, const communicator& comm,
                             std::size_t bytes) {
  all_gather(
      algorithm, policy, comm, [&](int g) { return own_slot(comm, g); },
      [&](int g) { return gathered_slots(comm, g); }, bytes);
}

// buffers[g][0 .. count) = the sum (product) over ranks, in place, on every GPU.
template <class R>
void all_reduce_in_place(const char* algorithm, const execution_policy& policy, const communicator& comm,
                         R* const* buffers, std::size_t count, ncclRedOp_t op) {
  nccl_check(ncclGroupStart(), "ncclGroupStart", algorithm);
  for (int g = 0; g < comm.local_count(); ++g) {
    const ncclResult_t status = ncclAllReduce(buffers[g], buffers[g], count, nccl_type<R>(), op, comm.nccl(g),
                                              stream_of(algorithm, policy, comm, g));
    if (status != ncclSuccess) {
      (void)ncclGroupEnd();
      nccl_check(status, "ncclAllReduce", algorithm);
    }
  }
  nccl_check(ncclGroupEnd(), "ncclGroupEnd", algorithm);
}

// Device memory of one local GPU, freed with that GPU current.
template <class T>
struct on_device {
  int device = 0;
  device_buffer<T> buffer;
  on_device() = default;
  on_device(int d, std::size_t n) : device(d) {
    device_guard guard(d);
    buffer = device_buffer<T>(n);
  }
  on_device(on_device&&) noexcept = default;
  on_device& operator=(on_device&&) noexcept = default;
  ~on_device() {
    if (buffer.data() == nullptr) return;
    device_guard guard(device);
    buffer = device_buffer<T>();
  }
  T* data() const noexcept { return buffer.data(); }
};

}  // namespace prism::detail
