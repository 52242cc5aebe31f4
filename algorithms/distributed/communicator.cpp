// SPDX-License-Identifier: Apache-2.0
// The communicator (NCCL's two ways of starting), the shard tables and the checks every
// distributed call makes before it enqueues anything.
#include <prism/distributed.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace prism {

nccl_error::nccl_error(ncclResult_t code, const std::string& call, const std::string& operation)
    : std::runtime_error("prism::" + (operation.empty() ? std::string("communicator") : operation) + ": " + call +
                         " failed: " + ncclGetErrorString(code) +
                         [] {
                           const char* last = ncclGetLastError(nullptr);
                           return last != nullptr && *last != '\0' ? std::string(" (") + last + ")" : std::string();
                         }()),
      code_(code) {}

namespace {
void nccl_check(ncclResult_t code, const char* call, const char* operation = "") {
  if (code != ncclSuccess) throw nccl_error(code, call, operation);
}
}  // namespace

struct communicator::state {
  int size = 0;
  int first_rank = 0;
  bool single_process = false;
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> workspaces;
  void* pinned = nullptr;

  // Per local GPU: a stream of its own and the workspace (a slot for this rank's partial state and
  // one per rank for the gathered ones), zeroed once so that nothing sent is ever uninitialized.
  // Zeroed on that stream and waited for: the stream does not wait for the legacy default stream
  // (cudaMemset's), and a zeroing still queued there could land after the first claim is written.
  void make_streams_and_workspaces() {
    device_guard guard;
    for (int device : devices) {
      guard.set(device);
      cudaStream_t stream = nullptr;
      check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", "communicator");
      streams.push_back(stream);
      void* memory = nullptr;
      const std::size_t bytes = slot_bytes * (static_cast<std::size_t>(size) + 2);
      check(cudaMalloc(&memory, bytes), "cudaMalloc", "communicator");
      workspaces.push_back(memory);
      check(cudaMemsetAsync(memory, 0, bytes, stream), "cudaMemsetAsync", "communicator");
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "communicator");
    }
    check(cudaHostAlloc(&pinned, slot_bytes, cudaHostAllocDefault), "cudaHostAlloc", "communicator");
  }

  ~state() {
    device_guard guard;
    for (std::size_t g = 0; g < devices.size(); ++g) {
      if (cudaSetDevice(devices[g]) != cudaSuccess) continue;
      if (g < streams.size()) (void)cudaStreamSynchronize(streams[g]);
    }
    // Finalize first (it flushes what is still queued and parts from the peers); one thread
    // finalizing several communicators must group the calls, or the first would wait for the rest.
    (void)ncclGroupStart();
    for (ncclComm_t comm : comms)
      if (comm != nullptr) (void)ncclCommFinalize(comm);
    (void)ncclGroupEnd();
    for (ncclComm_t comm : comms)
      if (comm != nullptr) (void)ncclCommDestroy(comm);
    for (std::size_t g = 0; g < devices.size(); ++g) {
      if (cudaSetDevice(devices[g]) != cudaSuccess) continue;
      if (g < streams.size()) (void)cudaStreamDestroy(streams[g]);
      if (g < workspaces.size()) (void)cudaFree(workspaces[g]);
    }
    if (pinned != nullptr) (void)cudaFreeHost(pinned);
  }
};

communicator communicator::single_process(std::vector<int> devices) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
    (void)cudaGetLastError();
    throw std::invalid_argument("prism::communicator: no CUDA device");
  }
  if (devices.empty()) {
    for (int d = 0; d < visible; ++d) devices.push_back(d);
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= visible)
      throw std::invalid_argument("prism::communicator: device " + std::to_string(devices[i]) + " does not exist (" +
                                  std::to_string(visible) + " visible)");
    if (std::count(devices.begin(), devices.end(), devices[i]) > 1)
      throw std::invalid_argument("prism::communicator: device " + std::to_string(devices[i]) + " listed twice");
  }
  auto s = std::make_shared<state>();
  s->size = static_cast<int>(devices.size());
  s->single_process = true;
  s->devices = devices;
  s->comms.resize(devices.size());
  {
    device_guard guard;  // NCCL changes the current device while it initializes
    nccl_check(ncclCommInitAll(s->comms.data(), s->size, devices.data()), "ncclCommInitAll");
  }
  s->make_streams_and_workspaces();
  return communicator(std::move(s));
}

ncclUniqueId communicator::unique_id() {
  ncclUniqueId id;
  nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return id;
}

communicator communicator::one_rank(const ncclUniqueId& id, int rank, int size, int device) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("prism::communicator: rank " + std::to_string(rank) + " of " + std::to_string(size));
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
    (void)cudaGetLastError();
    throw std::invalid_argument("prism::communicator: no CUDA device");
  }
  if (device < 0 || device >= visible)
    throw std::invalid_argument("prism::communicator: device " + std::to_string(device) + " does not exist (" +
                                std::to_string(visible) + " visible)");
  auto s = std::make_shared<state>();
  s->size = size;
  s->first_rank = rank;
  s->devices = {device};
  s->comms.resize(1);
  {
    device_guard guard(device);
    nccl_check(ncclCommInitRank(&s->comms[0], size, id, rank), "ncclCommInitRank");
  }
  s->make_streams_and_workspaces();
  return communicator(std::move(s));
}

int communicator::size() const noexcept { return state_->size; }
int communicator::local_count() const noexcept { return static_cast<int>(state_->devices.size()); }
int communicator::first_rank() const noexcept { return state_->first_rank; }
int communicator::device(int local) const { return state_->devices.at(local); }
cudaStream_t communicator::stream(int local) const { return state_->streams.at(local); }
ncclComm_t communicator::nccl(int local) const { return state_->comms.at(local); }
bool communicator::single_process_mode() const noexcept { return state_->single_process; }
void* communicator::workspace(int local) const { return state_->workspaces.at(local); }
void* communicator::pinned_slot() const { return state_->pinned; }

void communicator::synchronize() const {
  device_guard guard;
  for (int g = 0; g < local_count(); ++g) {
    guard.set(device(g));
    check(cudaStreamSynchronize(stream(g)), "cudaStreamSynchronize", "communicator::synchronize");
  }
}

namespace detail {

std::vector<std::uint64_t> block_starts(std::uint64_t n, int k) {
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(k) + 1);
  const std::uint64_t base = n / k, extra = n % k;
  for (int r = 0; r <= k; ++r) starts[r] = base * r + std::min<std::uint64_t>(r, extra);
  return starts;
}

std::vector<std::uint64_t> starts_of(const std::vector<std::uint64_t>& sizes, int k) {
  if (sizes.size() != static_cast<std::size_t>(k))
    throw std::invalid_argument("prism::sharded: " + std::to_string(sizes.size()) + " shard sizes for " +
                                std::to_string(k) + " ranks");
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(k) + 1, 0);
  for (int r = 0; r < k; ++r) starts[r + 1] = starts[r] + sizes[r];
  return starts;
}

namespace {
// What a rank says of a new array: its size, a digest of its table, whether it allocated its shard.
struct layout_claim {
  std::uint64_t size;
  std::uint64_t digest;
  std::uint64_t allocated;
  std::uint64_t spare;
};

std::uint64_t digest_of(const std::vector<std::uint64_t>& starts) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (std::uint64_t s : starts) {
    h ^= s;
    h *= 0x100000001b3ull;
  }
  return h;
}
}  // namespace

void agree_on_layout(const communicator& comm, const shard_layout& layout, bool allocated,
                     const std::string& failure) {
  // One process holds every rank's table and every allocation: nothing to compare.
  if (comm.local_count() == comm.size()) {
    if (!allocated) throw cuda_error(cudaErrorMemoryAllocation, failure, "sharded");
    return;
  }
  // Every rank publishes its claim; all of them see the same k claims, so all reach the same
  // verdict and throw (or not) together.
  const int k = comm.size();
  const layout_claim mine{layout.size(), digest_of(layout.starts), allocated ? 1u : 0u, 0};
  device_guard guard(comm.device(0));
  auto* slots = static_cast<unsigned char*>(comm.workspace(0));
  const cudaStream_t stream = comm.stream(0);
  check(cudaMemcpyAsync(slots, &mine, sizeof mine, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync", "sharded");
  nccl_check(ncclAllGather(slots, slots + communicator::slot_bytes, sizeof(layout_claim), ncclUint8, comm.nccl(0), stream),
             "ncclAllGather", "sharded");
  std::vector<layout_claim> claims(k);
  check(cudaMemcpyAsync(claims.data(), slots + communicator::slot_bytes, k * sizeof(layout_claim),
                        cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync", "sharded");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "sharded");
  for (int r = 0; r < k; ++r) {
    if (claims[r].allocated == 0)
      throw std::invalid_argument("prism::sharded: rank " + std::to_string(r) + " could not allocate its shard" +
                                  (r == comm.first_rank() ? " (" + failure + ")" : std::string()) +
                                  "; every rank gives up the array");
  }
  for (int r = 0; r < k; ++r) {
    if (claims[r].size != claims[0].size || claims[r].digest != claims[0].digest)
      throw std::invalid_argument("prism::sharded: the ranks disagree on the array: rank 0 asked for " +
                                  std::to_string(claims[0].size) + " elements, rank " + std::to_string(r) + " for " +
                                  std::to_string(claims[r].size) +
                                  (claims[r].size == claims[0].size ? " split differently" : "") +
                                  "; every rank throws");
  }
}

void require_aligned(const char* algorithm, std::span<const shard_layout* const> layouts) {
  const shard_layout& first = **layouts.begin();
  int k = 0;
  for (const shard_layout* l : layouts) {
    if (l->owner != first.owner)
      throw std::invalid_argument(std::string("prism::") + algorithm + ": array " + std::to_string(k) +
                                  " belongs to another communicator than array 0");
    if (l->starts != first.starts) {
      std::string what = std::string("prism::") + algorithm + ": array " + std::to_string(k) +
                         " is not split like array 0 (";
      if (l->size() != first.size()) {
        what += std::to_string(l->size()) + " elements against " + std::to_string(first.size());
      } else {
        for (std::size_t r = 0; r + 1 < first.starts.size(); ++r) {
          if (l->starts[r + 1] != first.starts[r + 1]) {
            what += "rank " + std::to_string(r) + "'s shard ends at " + std::to_string(l->starts[r + 1]) +
                    " against " + std::to_string(first.starts[r + 1]);
            break;
          }
        }
      }
      throw std::invalid_argument(what + "): shards must be aligned alike");
    }
    ++k;
  }
}

void require_replicated(const char* algorithm, const char* what, const communicator& comm, const communicator& output,
                        std::size_t size, std::size_t want) {
  if (!(output == comm))
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + what +
                                " belong to another communicator than the sharded array");
  if (want != any_size && size != want)
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + what + " hold " + std::to_string(size) +
                                " elements on every GPU, not " + std::to_string(want));
}

execution_policy shard_policy(const char* algorithm, const execution_policy& policy, const communicator& comm,
                              int local) {
  if (policy.stream() != nullptr) {
    if (comm.local_count() > 1)
      throw std::invalid_argument(std::string("prism::") + algorithm +
                                  ": a policy's stream cannot serve several GPUs; distributed calls run on the "
                                  "communicator's streams");
    return policy;
  }
  return policy.on(comm.stream(local));
}

void free_on(int device, void* memory) noexcept {
  int saved = 0;
  if (cudaGetDevice(&saved) != cudaSuccess) return;
  if (cudaSetDevice(device) == cudaSuccess) (void)cudaFree(memory);
  (void)cudaSetDevice(saved);
}

}  // namespace detail
}  // namespace prism
