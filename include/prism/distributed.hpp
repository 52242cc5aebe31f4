// SPDX-License-Identifier: Apache-2.0
#pragma once
// Beyond one GPU: arrays sharded over several GPUs, in one process or in many, and the element-wise,
// reduction and scan families over them. prism writes no communication of its own: the GPUs talk
// through NCCL (NVLink, PCIe or the network, whichever joins them), and several processes find each
// other through MPI (<prism/distributed_mpi.hpp>) or through an id the caller hands around.
//
//   prism::communicator comm = prism::communicator::single_process();  // every visible GPU
//   prism::sharded<float> x(comm, n), y(comm, n);                      // block-distributed
//   x.copy_from(host);                                                 // each GPU takes its part
//   prism::add(x, x, y);                                               // each shard on its GPU
//   float total = prism::sum(y);                                       // local sums, then all-reduce
//   prism::inclusive_scan(x, y);                                       // prefix over all shards
//
// The same program runs as one process per GPU: build the communicator with
// prism::mpi_communicator(MPI_COMM_WORLD) (or communicator::one_rank with an id from rank 0),
// and start it with `mpirun -np 2 ./program`; everything below is unchanged.
//
// Two ways to drive k GPUs (NCCL's two modes):
//   single_process  one process drives every GPU (ncclCommInitAll): it holds all k shards of an
//                   array, and every call enqueues work on all of them before it waits for any.
//   one_rank        one process per GPU (ncclCommInitRank): each holds one shard; every process
//                   makes the same calls in the same order (collective calls, as in MPI).
// Ranks are numbered 0 .. k-1 over all processes; a process drives `local_count()` of them,
// from `first_rank()` on. The communicator owns one stream per local GPU: every distributed call
// runs there, and nothing waits unless a value comes back to the host.
//
// Sharded arrays. sharded<T>(comm, n) splits n (64-bit) elements into k contiguous blocks, rank r
// holding [start(r), start(r + 1)): n / k each, the first n % k ranks one more, so shards differ by
// at most one element and a rank may hold none (n < k). sharded<T>(comm, sizes) takes the size of
// every rank's shard instead. Making one is collective: in one_rank mode the ranks compare what
// each was asked for (one small all-gather), and if any disagrees (another n, another list of
// sizes), or any failed to allocate its shard, every rank throws std::invalid_argument together,
// before anything else could wait on the one that threw. Every rank then holds the same table of
// shard boundaries, so the checks of each later call (are a, b and out split alike?) come out the
// same on every rank without talking: a mismatch throws on every rank, and no rank is left
// waiting in a collective.
//
// A shard is an ordinary device array: sharded.local(i) is a prism::span on the GPU of the i-th
// local rank, which every single-GPU prism call accepts (with that GPU current).
//
// The algorithms: each is the single-GPU implementation on every shard, plus NCCL where data
// must cross.
//   element-wise  every operation of <prism/elementwise.hpp>, shard by shard, no communication.
//                 The arrays must be split alike (the same communicator and the same boundaries).
//   reductions    every reduction of <prism/reduce.hpp>. sum, product, dot, norm1 and count reduce
//                 each shard into device memory and all-reduce that (ncclAllReduce, in place: the
//                 result lands in every rank's result). min, max, minmax, argmin, argmax, norm_inf,
//                 norm2, mean, variance and stddev all-gather each shard's partial state (a
//                 (value, global index) pair for argmin/argmax, (count, mean, squared deviations)
//                 for mean and variance) and every GPU combines the k states in rank order: the
//                 same result, bit for bit, on every rank. Empty shards contribute nothing; an
//                 empty array follows the single-GPU rules (throws where that does).
//   scans         inclusive and exclusive scans (sum, min, max). Each rank needs the combination
//                 of all the shards before its own. Every rank runs a reduce-then-scan on its
//                 shard and exchanges its total between the two passes: the tiles' totals (n bytes
//                 read), their exclusive scan (whose end is the shard's total), an all-gather of the
//                 k totals, then every tile scanned from its known prefix (2n bytes, no tile waiting
//                 for another). 3n bytes per rank, against 4n for scanning first and adding the
//                 prefix afterwards. One GPU alone runs the single-GPU scan (2n).
// Results of reductions come back returned (the call waits) or into a replicated<R>: one element
// on every local GPU, written without waiting.
//
// Execution policies: the implementation and the memory resource of a policy apply on every
// shard; the streams are the communicator's (a policy that names a stream is refused where a
// process drives several GPUs; with one local GPU its stream is used instead, and the caller
// keeps that stream for every call on the communicator). Scans over several GPUs run their own
// two kernels (algorithms/distributed/scan.cu): impl::raw or automatic, other choices are refused.
//
// Limits: NCCL calls are collective, so every rank must make the same distributed calls in the same
// order, and one host thread drives a communicator at a time. A failure on one rank only (a CUDA
// error, out of memory inside a call) cannot be announced to the others without a collective of
// its own; it throws there, and the others may then wait in their next collective, as with MPI.
#include <prism/buffer.hpp>
#include <prism/elementwise.hpp>
#include <prism/error.hpp>
#include <prism/execution.hpp>
#include <prism/reduce.hpp>
#include <prism/scan.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace prism {

// An NCCL call failed: the call, NCCL's message, and the prism operation.
class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& call, const std::string& operation);
  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

// The GPUs of a computation and the NCCL communicators between them.
class communicator {
 public:
  // One process drives every GPU listed (ranks 0 .. k-1 in that order); none listed: every GPU
  // this process can see. Throws std::invalid_argument without a GPU, or for a device listed
  // twice or out of range.
  static communicator single_process(std::vector<int> devices = {});

  // One process per GPU: this process is `rank` of `size`, on GPU `device`. Every process passes
  // the same id, made once by one of them with unique_id() and handed to the others (MPI,
  // a file, a socket: <prism/distributed_mpi.hpp> does it with MPI_Bcast).
  static ncclUniqueId unique_id();
  static communicator one_rank(const ncclUniqueId& id, int rank, int size, int device);

  int size() const noexcept;         // k: ranks (GPUs) over all processes
  int local_count() const noexcept;  // GPUs driven by this process
  int first_rank() const noexcept;   // the rank of local GPU 0
  int rank(int local = 0) const noexcept { return first_rank() + local; }
  int device(int local = 0) const;   // the CUDA device of a local GPU
  cudaStream_t stream(int local = 0) const;
  ncclComm_t nccl(int local = 0) const;
  bool single_process_mode() const noexcept;

  // Waits for every local GPU's stream.
  void synchronize() const;

  // Device memory of each local GPU for the partial states of a call (prism's own use).
  void* workspace(int local) const;
  static constexpr std::size_t slot_bytes = 256;
  void* pinned_slot() const;  // 256 bytes of pinned host memory

  bool operator==(const communicator& other) const noexcept { return state_ == other.state_; }
  // What tells communicators apart (arrays of different ones are never split alike).
  const void* identity() const noexcept { return state_.get(); }

  struct state;

 private:
  explicit communicator(std::shared_ptr<state> s) : state_(std::move(s)) {}
  std::shared_ptr<state> state_;
};

// Makes the given device current for its lifetime, then puts the caller's back.
class device_guard {
 public:
  device_guard() { check(cudaGetDevice(&saved_), "cudaGetDevice"); }
  explicit device_guard(int device) : device_guard() { set(device); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  ~device_guard() { (void)cudaSetDevice(saved_); }
  void set(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }

 private:
  int saved_ = 0;
};

// Where every rank's shard starts: starts[r] .. starts[r + 1], starts[k] = n. The same table on
// every rank (checked when the array is made).
struct shard_layout {
  const void* owner = nullptr;  // the communicator's identity()
  std::vector<std::uint64_t> starts;
  std::uint64_t size() const noexcept { return starts.empty() ? 0 : starts.back(); }
  std::uint64_t start(int rank) const noexcept { return starts[rank]; }
  std::uint64_t count(int rank) const noexcept { return starts[rank + 1] - starts[rank]; }
  bool operator==(const shard_layout&) const = default;
};

namespace detail {
// Block distribution: n / k per rank, the first n % k ranks one more.
std::vector<std::uint64_t> block_starts(std::uint64_t n, int k);
// Starts from the size of each rank's shard (one per rank, else std::invalid_argument).
std::vector<std::uint64_t> starts_of(const std::vector<std::uint64_t>& sizes, int k);
// The collective check of a new array: every rank's table and allocation agree, else every rank
// throws. `allocated` is false where this process failed to allocate (it then throws too).
void agree_on_layout(const communicator& comm, const shard_layout& layout, bool allocated,
                     const std::string& failure);
// Throws std::invalid_argument unless every array is split like the first.
void require_aligned(const char* algorithm, std::initializer_list<const shard_layout*> layouts);
// The policy for local GPU g: the communicator's stream (or the policy's own, see above).
execution_policy shard_policy(const char* algorithm, const execution_policy& policy,
                              const communicator& comm, int local);
void free_on(int device, void* memory) noexcept;
}  // namespace detail

// n elements of T over the communicator's GPUs, one contiguous shard per rank.
template <class T>
class sharded {
 public:
  using value_type = T;

  sharded(const communicator& comm, std::uint64_t n)
      : sharded(comm, detail::block_starts(n, comm.size()), 0) {}
  // Rank r holds shard_sizes[r] elements (one size per rank, the same list on every rank).
  sharded(const communicator& comm, const std::vector<std::uint64_t>& shard_sizes)
      : sharded(comm, detail::starts_of(shard_sizes, comm.size()), 0) {}
  sharded(sharded&&) noexcept = default;
  sharded& operator=(sharded&& other) noexcept {
    release();
    comm_ = std::move(other.comm_);
    layout_ = std::move(other.layout_);
    shards_ = std::move(other.shards_);
    return *this;
  }
  sharded(const sharded&) = delete;
  sharded& operator=(const sharded&) = delete;
  ~sharded() { release(); }

  const communicator& comm() const noexcept { return comm_; }
  const shard_layout& layout() const noexcept { return *layout_; }
  std::uint64_t size() const noexcept { return layout_->size(); }
  int local_count() const noexcept { return comm_.local_count(); }

  // The shard of local GPU `local`: device memory on comm().device(local).
  span<T> local(int local = 0) noexcept { return {shards_[local], local_size(local)}; }
  span<const T> local(int local = 0) const noexcept { return {shards_[local], local_size(local)}; }
  std::uint64_t local_size(int local = 0) const noexcept { return layout_->count(comm_.rank(local)); }
  // The global index of the shard's first element.
  std::uint64_t local_start(int local = 0) const noexcept { return layout_->start(comm_.rank(local)); }

  // Blocking copies between the whole array's host copy (size() elements) and the shards this
  // process holds: in single_process mode every shard; with one process per GPU each process
  // copies its own part (the rest of the host array is neither read nor written).
  void copy_from(std::span<const T> host) {
    require_host_size(host.size());
    device_guard guard;
    for (int g = 0; g < local_count(); ++g) {
      if (local_size(g) == 0) continue;
      guard.set(comm_.device(g));
      // On the communicator's stream, after what is queued there, and finished when this returns
      // (a plain cudaMemcpy from pageable memory may still be in flight when it returns, and
      // would not be ordered before the next call on that stream).
      check(cudaMemcpyAsync(shards_[g], host.data() + local_start(g), local_size(g) * sizeof(T),
                            cudaMemcpyHostToDevice, comm_.stream(g)),
            "cudaMemcpyAsync", "sharded::copy_from");
      check(cudaStreamSynchronize(comm_.stream(g)), "cudaStreamSynchronize", "sharded::copy_from");
    }
  }
  void copy_to(std::span<T> host) const {
    require_host_size(host.size());
    device_guard guard;
    for (int g = 0; g < local_count(); ++g) {
      if (local_size(g) == 0) continue;
      guard.set(comm_.device(g));
      // After the work queued on the communicator's stream.
      check(cudaMemcpyAsync(host.data() + local_start(g), shards_[g], local_size(g) * sizeof(T),
                            cudaMemcpyDeviceToHost, comm_.stream(g)),
            "cudaMemcpyAsync", "sharded::copy_to");
      check(cudaStreamSynchronize(comm_.stream(g)), "cudaStreamSynchronize", "sharded::copy_to");
    }
  }

 private:
  sharded(const communicator& comm, std::vector<std::uint64_t> starts, int /*from starts*/)
      : comm_(comm),
        layout_(std::make_shared<shard_layout>(shard_layout{comm.identity(), std::move(starts)})),
        shards_(comm.local_count(), nullptr) {
    bool allocated = true;
    std::string failure;
    {
      device_guard guard;
      for (int g = 0; g < local_count() && allocated; ++g) {
        if (local_size(g) == 0) continue;
        guard.set(comm_.device(g));
        void* memory = nullptr;
        const cudaError_t status = cudaMalloc(&memory, local_size(g) * sizeof(T));
        if (status != cudaSuccess) {
          (void)cudaGetLastError();
          allocated = false;
          failure = std::string("cudaMalloc of ") + std::to_string(local_size(g) * sizeof(T)) +
                    " bytes on device " + std::to_string(comm_.device(g)) + ": " + cudaGetErrorString(status);
        }
        shards_[g] = static_cast<T*>(memory);
      }
    }
    try {
      detail::agree_on_layout(comm_, *layout_, allocated, failure);
    } catch (...) {
      release();
      throw;
    }
  }
  void require_host_size(std::size_t n) const {
    if (n != size())
      throw std::invalid_argument("prism::sharded: the host array has " + std::to_string(n) +
                                  " elements, the sharded array " + std::to_string(size()));
  }
  void release() noexcept {
    for (std::size_t g = 0; g < shards_.size(); ++g)
      if (shards_[g] != nullptr) detail::free_on(comm_.device(static_cast<int>(g)), shards_[g]);
    shards_.clear();
  }

  communicator comm_;
  std::shared_ptr<const shard_layout> layout_;
  std::vector<T*> shards_;
};

// `count` elements of T on every local GPU: where a reduction delivers its result without waiting
// (each GPU gets the same value).
template <class T>
class replicated {
 public:
  explicit replicated(const communicator& comm, std::size_t count = 1) : comm_(comm) {
    device_guard guard;
    for (int g = 0; g < comm.local_count(); ++g) {
      guard.set(comm.device(g));
      copies_.emplace_back(count);
    }
  }
  const communicator& comm() const noexcept { return comm_; }
  span<T> local(int local = 0) noexcept { return copies_[local].view(); }
  span<const T> local(int local = 0) const noexcept { return copies_[local].view(); }
  // Local GPU `local`'s copy, after the communicator's work on it.
  std::vector<T> to_host(int local = 0) const {
    device_guard guard(comm_.device(local));
    check(cudaStreamSynchronize(comm_.stream(local)), "cudaStreamSynchronize", "replicated::to_host");
    return copies_[local].to_host();
  }
  ~replicated() {
    device_guard guard;
    for (std::size_t g = 0; g < copies_.size(); ++g) {
      if (cudaSetDevice(comm_.device(static_cast<int>(g))) == cudaSuccess) copies_[g] = device_buffer<T>();
    }
  }
  replicated(replicated&&) noexcept = default;
  replicated(const replicated&) = delete;
  replicated& operator=(const replicated&) = delete;

 private:
  communicator comm_;
  std::vector<device_buffer<T>> copies_;
};

// ---- element-wise: each shard on its own GPU -----------------------------------------------------

namespace detail {
template <class Body>
void each_shard(const char* algorithm, const execution_policy& policy, const communicator& comm,
                std::initializer_list<const shard_layout*> layouts, Body body) {
  require_aligned(algorithm, layouts);
  device_guard guard;
  for (int g = 0; g < comm.local_count(); ++g) {
    guard.set(comm.device(g));
    body(g, shard_policy(algorithm, policy, comm, g));
  }
}
}  // namespace detail

#define PRISM_SHARDED_BINARY(name)                                                                   \
  template <arithmetic_element T>                                                                    \
  void name(const execution_policy& policy, const sharded<T>& a, const sharded<T>& b,                \
            sharded<T>& out) {                                                                       \
    detail::each_shard(#name, policy, out.comm(), {&out.layout(), &a.layout(), &b.layout()},         \
                       [&](int g, const execution_policy& p) { name(p, a.local(g), b.local(g), out.local(g)); }); \
  }                                                                                                  \
  template <arithmetic_element T>                                                                    \
  void name(const sharded<T>& a, const sharded<T>& b, sharded<T>& out) {                             \
    name(par, a, b, out);                                                                            \
  }
PRISM_SHARDED_BINARY(add)
PRISM_SHARDED_BINARY(sub)
PRISM_SHARDED_BINARY(mul)
PRISM_SHARDED_BINARY(div)
PRISM_SHARDED_BINARY(min)
PRISM_SHARDED_BINARY(max)
#undef PRISM_SHARDED_BINARY

// Unary maps; `Requires` is the element types the single-GPU operation is offered for.
#define PRISM_SHARDED_UNARY(name, Requires)                                                          \
  template <Requires T>                                                                              \
  void name(const execution_policy& policy, const sharded<T>& x, sharded<T>& out) {                  \
    detail::each_shard(#name, policy, out.comm(), {&out.layout(), &x.layout()},                      \
                       [&](int g, const execution_policy& p) { name(p, x.local(g), out.local(g)); }); \
  }                                                                                                  \
  template <Requires T>                                                                              \
  void name(const sharded<T>& x, sharded<T>& out) {                                                  \
    name(par, x, out);                                                                               \
  }
PRISM_SHARDED_UNARY(negate, signed_element)
PRISM_SHARDED_UNARY(abs, signed_element)
PRISM_SHARDED_UNARY(relu, signed_element)
PRISM_SHARDED_UNARY(square, arithmetic_element)
PRISM_SHARDED_UNARY(copy, arithmetic_element)
PRISM_SHARDED_UNARY(sqrt, floating_point_element)
PRISM_SHARDED_UNARY(rsqrt, floating_point_element)
PRISM_SHARDED_UNARY(exp, floating_point_element)
PRISM_SHARDED_UNARY(log, floating_point_element)
PRISM_SHARDED_UNARY(sin, floating_point_element)
PRISM_SHARDED_UNARY(cos, floating_point_element)
PRISM_SHARDED_UNARY(tanh, floating_point_element)
PRISM_SHARDED_UNARY(sigmoid, floating_point_element)
#undef PRISM_SHARDED_UNARY

// out = alpha x + beta y.
template <arithmetic_element T>
void axpby(const execution_policy& policy, scalar<T> alpha, const sharded<T>& x, scalar<T> beta,
           const sharded<T>& y, sharded<T>& out) {
  detail::each_shard("axpby", policy, out.comm(), {&out.layout(), &x.layout(), &y.layout()},
                     [&](int g, const execution_policy& p) { axpby(p, alpha, x.local(g), beta, y.local(g), out.local(g)); });
}
template <arithmetic_element T>
void axpby(scalar<T> alpha, const sharded<T>& x, scalar<T> beta, const sharded<T>& y, sharded<T>& out) {
  axpby(par, alpha, x, beta, y, out);
}
// y = alpha x + y.
template <arithmetic_element T>
void axpy(const execution_policy& policy, scalar<T> alpha, const sharded<T>& x, sharded<T>& y) {
  detail::each_shard("axpy", policy, y.comm(), {&y.layout(), &x.layout()},
                     [&](int g, const execution_policy& p) { axpy(p, alpha, x.local(g), y.local(g)); });
}
template <arithmetic_element T>
void axpy(scalar<T> alpha, const sharded<T>& x, sharded<T>& y) {
  axpy(par, alpha, x, y);
}
// out = a b + c.
template <arithmetic_element T>
void fma(const execution_policy& policy, const sharded<T>& a, const sharded<T>& b, const sharded<T>& c,
         sharded<T>& out) {
  detail::each_shard("fma", policy, out.comm(), {&out.layout(), &a.layout(), &b.layout(), &c.layout()},
                     [&](int g, const execution_policy& p) { fma(p, a.local(g), b.local(g), c.local(g), out.local(g)); });
}
template <arithmetic_element T>
void fma(const sharded<T>& a, const sharded<T>& b, const sharded<T>& c, sharded<T>& out) {
  fma(par, a, b, c, out);
}
// out = condition ? a : b, the condition bytes (uint8_t or bool) sharded like the values.
template <class M, arithmetic_element T>
  requires(std::is_same_v<M, std::uint8_t> || std::is_same_v<M, bool>)
void where(const execution_policy& policy, const sharded<M>& condition, const sharded<T>& a,
           const sharded<T>& b, sharded<T>& out) {
  detail::each_shard("where", policy, out.comm(),
                     {&out.layout(), &condition.layout(), &a.layout(), &b.layout()},
                     [&](int g, const execution_policy& p) {
                       where(p, condition.local(g), a.local(g), b.local(g), out.local(g));
                     });
}
template <class M, arithmetic_element T>
  requires(std::is_same_v<M, std::uint8_t> || std::is_same_v<M, bool>)
void where(const sharded<M>& condition, const sharded<T>& a, const sharded<T>& b, sharded<T>& out) {
  where(par, condition, a, b, out);
}
// out = alpha x.
template <arithmetic_element T>
void scale(const execution_policy& policy, scalar<T> alpha, const sharded<T>& x, sharded<T>& out) {
  detail::each_shard("scale", policy, out.comm(), {&out.layout(), &x.layout()},
                     [&](int g, const execution_policy& p) { scale(p, alpha, x.local(g), out.local(g)); });
}
template <arithmetic_element T>
void scale(scalar<T> alpha, const sharded<T>& x, sharded<T>& out) {
  scale(par, alpha, x, out);
}
// out = x limited to [lo, hi].
template <arithmetic_element T>
void clamp(const execution_policy& policy, const sharded<T>& x, sharded<T>& out, scalar<T> lo, scalar<T> hi) {
  detail::each_shard("clamp", policy, out.comm(), {&out.layout(), &x.layout()},
                     [&](int g, const execution_policy& p) { clamp(p, x.local(g), out.local(g), lo, hi); });
}
template <arithmetic_element T>
void clamp(const sharded<T>& x, sharded<T>& out, scalar<T> lo, scalar<T> hi) {
  clamp(par, x, out, lo, hi);
}
// out = x converted to out's type.
template <class From, class To>
  requires castable<From, To>
void cast(const execution_policy& policy, const sharded<From>& x, sharded<To>& out) {
  detail::each_shard("cast", policy, out.comm(), {&out.layout(), &x.layout()},
                     [&](int g, const execution_policy& p) { cast(p, x.local(g), out.local(g)); });
}
template <class From, class To>
  requires castable<From, To>
void cast(const sharded<From>& x, sharded<To>& out) {
  cast(par, x, out);
}
// out[i] = value.
template <arithmetic_element T>
void fill(const execution_policy& policy, sharded<T>& out, scalar<T> value) {
  detail::each_shard("fill", policy, out.comm(), {&out.layout()},
                     [&](int g, const execution_policy& p) { fill(p, out.local(g), value); });
}
template <arithmetic_element T>
void fill(sharded<T>& out, scalar<T> value) {
  fill(par, out, value);
}
// out[i] = start + i step with i the global index: each shard starts at start + local_start * step.
template <arithmetic_element T>
void sequence(const execution_policy& policy, sharded<T>& out, scalar<T> start, scalar<T> step = scalar<T>(1)) {
  detail::each_shard("sequence", policy, out.comm(), {&out.layout()}, [&](int g, const execution_policy& p) {
    scalar<T> first;
    if constexpr (std::is_integral_v<scalar<T>>) {
      // Integers wrap: the start in unsigned arithmetic, as the single-GPU sequence computes.
      using U = std::make_unsigned_t<scalar<T>>;
      first = static_cast<scalar<T>>(static_cast<U>(start) + static_cast<U>(out.local_start(g)) * static_cast<U>(step));
    } else {
      first = static_cast<scalar<T>>(start + static_cast<double>(out.local_start(g)) * step);
    }
    sequence(p, out.local(g), first, step);
  });
}
template <arithmetic_element T>
void sequence(sharded<T>& out, scalar<T> start, scalar<T> step = scalar<T>(1)) {
  sequence(par, out, start, step);
}

// ---- reductions -------------------------------------------------------------------------------

// What a reduction over shards computes.
enum class sharded_reduction {
  sum, product, dot, norm1, count_if,        // all-reduced sums and products
  min, max, minmax, argmin, argmax, norm_inf,  // all-gathered (value, index) states
  norm2, mean, variance, stddev,             // all-gathered moments
};

namespace detail {
// The compiled entry point (algorithms/distributed/reduce.cu): `y` is dot's second array (else
// null), `into` the replicated result (null: returned).
template <class T, class R>
R reduce_sharded(const execution_policy& policy, sharded_reduction what, const sharded<T>& x,
                 const sharded<T>* y, comparison compare, T value, replicated<R>* into);
}  // namespace detail

#define PRISM_SHARDED_REDUCTION(name, Requires, Result)                                                \
  template <Requires T>                                                                                \
  Result name(const execution_policy& policy, const sharded<T>& x) {                                   \
    return detail::reduce_sharded<T, Result>(policy, sharded_reduction::name, x, nullptr,              \
                                             comparison::equal, T{}, nullptr);                         \
  }                                                                                                    \
  template <Requires T>                                                                                \
  void name(const execution_policy& policy, const sharded<T>& x, replicated<Result>& result) {         \
    detail::reduce_sharded<T, Result>(policy, sharded_reduction::name, x, nullptr, comparison::equal,  \
                                      T{}, &result);                                                   \
  }                                                                                                    \
  template <Requires T>                                                                                \
  Result name(const sharded<T>& x) {                                                                   \
    return name(par, x);                                                                               \
  }                                                                                                    \
  template <Requires T>                                                                                \
  void name(const sharded<T>& x, replicated<Result>& result) {                                         \
    name(par, x, result);                                                                              \
  }
PRISM_SHARDED_REDUCTION(sum, reduce_element, sum_type<T>)
PRISM_SHARDED_REDUCTION(product, signed_reduce_element, sum_type<T>)
PRISM_SHARDED_REDUCTION(min, reduce_element, T)
PRISM_SHARDED_REDUCTION(max, reduce_element, T)
PRISM_SHARDED_REDUCTION(minmax, reduce_element, minmax_result<T>)
PRISM_SHARDED_REDUCTION(argmin, reduce_element, std::size_t)
PRISM_SHARDED_REDUCTION(argmax, reduce_element, std::size_t)
PRISM_SHARDED_REDUCTION(norm1, floating_element, T)
PRISM_SHARDED_REDUCTION(norm2, floating_element, T)
PRISM_SHARDED_REDUCTION(norm_inf, floating_element, T)
PRISM_SHARDED_REDUCTION(mean, signed_reduce_element, real_type<T>)
PRISM_SHARDED_REDUCTION(variance, signed_reduce_element, real_type<T>)
PRISM_SHARDED_REDUCTION(stddev, signed_reduce_element, real_type<T>)
#undef PRISM_SHARDED_REDUCTION

// sum of a[i] * b[i], a and b split alike.
template <signed_reduce_element T>
sum_type<T> dot(const execution_policy& policy, const sharded<T>& a, const sharded<T>& b) {
  return detail::reduce_sharded<T, sum_type<T>>(policy, sharded_reduction::dot, a, &b, comparison::equal, T{}, nullptr);
}
template <signed_reduce_element T>
void dot(const execution_policy& policy, const sharded<T>& a, const sharded<T>& b, replicated<sum_type<T>>& result) {
  detail::reduce_sharded<T, sum_type<T>>(policy, sharded_reduction::dot, a, &b, comparison::equal, T{}, &result);
}
template <signed_reduce_element T>
sum_type<T> dot(const sharded<T>& a, const sharded<T>& b) {
  return dot(par, a, b);
}
template <signed_reduce_element T>
void dot(const sharded<T>& a, const sharded<T>& b, replicated<sum_type<T>>& result) {
  dot(par, a, b, result);
}

// How many elements satisfy `x[i] compare value`.
template <reduce_element T>
std::uint64_t count_if(const execution_policy& policy, const sharded<T>& x, comparison compare, T value) {
  return detail::reduce_sharded<T, std::uint64_t>(policy, sharded_reduction::count_if, x, nullptr, compare, value, nullptr);
}
template <reduce_element T>
void count_if(const execution_policy& policy, const sharded<T>& x, comparison compare, T value,
              replicated<std::uint64_t>& result) {
  detail::reduce_sharded<T, std::uint64_t>(policy, sharded_reduction::count_if, x, nullptr, compare, value, &result);
}
template <reduce_element T>
std::uint64_t count_if(const sharded<T>& x, comparison compare, T value) {
  return count_if(par, x, compare, value);
}
template <reduce_element T>
std::uint64_t count(const sharded<T>& x, T value) {
  return count_if(par, x, comparison::equal, value);
}
template <reduce_element T>
bool any(const sharded<T>& x, comparison compare, T value) {
  return count_if(par, x, compare, value) > 0;
}
template <reduce_element T>
bool all(const sharded<T>& x, comparison compare, T value) {
  return count_if(par, x, compare, value) == x.size();
}

// ---- scans ------------------------------------------------------------------------------------

namespace detail {
template <scan_element T>
void scan_sharded(const execution_policy& policy, scan_kind kind, scan_op op, const sharded<T>& x,
                  sharded<T>& out);
}  // namespace detail

// out[i] = x[0] op ... op x[i] over the whole array; out may be x.
template <scan_element T>
void inclusive_scan(const execution_policy& policy, const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  detail::scan_sharded(policy, detail::scan_kind::inclusive, op, x, out);
}
template <scan_element T>
void inclusive_scan(const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  inclusive_scan(par, x, out, op);
}
// out[i] = identity op x[0] op ... op x[i-1].
template <scan_element T>
void exclusive_scan(const execution_policy& policy, const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  detail::scan_sharded(policy, detail::scan_kind::exclusive, op, x, out);
}
template <scan_element T>
void exclusive_scan(const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  exclusive_scan(par, x, out, op);
}

}  // namespace prism
