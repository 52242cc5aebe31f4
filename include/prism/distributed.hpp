// SPDX-License-Identifier: Apache-2.0
#pragma once
// Beyond one GPU: arrays sharded over several GPUs, in one process or in many, and the element-wise,
// reduction, scan, sort, histogram, top-k and selection families over them. prism writes no
// communication of its own: the GPUs talk through NCCL (NVLink, PCIe or the network, whichever
// joins them), and several processes find each other through MPI (<prism/distributed_mpi.hpp>) or
// through an id the caller hands around.
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
//   sorting       sort and sort_by_key (ascending, stable, the sort family's order and key types):
//                 a sample sort. Every rank sorts its shard (the single-GPU sort), takes regular
//                 samples of it, and all ranks choose the same k - 1 splitters from the k x s
//                 samples; each rank cuts its sorted shard at the splitters, sends piece d to rank
//                 d in one grouped exchange (ncclSend and ncclRecv with every rank), and merges
//                 the k sorted runs it receives (the single-GPU merge, pairwise). The result is a
//                 new sharded array in global order whose shard sizes follow the data: rank r
//                 holds the keys between splitters r and r + 1. Keys are told apart by (key, rank,
//                 position), so duplicates balance like distinct keys: with s samples per rank
//                 (1024, or the whole shard when it is smaller), each standing for the keys up to
//                 its rank's next one, no rank gets more than about n / k + 2 n / s keys (n / k +
//                 n / s when the shards are even). With one rank it is the single-GPU sort into a
//                 new array. argsort: the global positions (int64) that sort the keys stably, a
//                 sort_by_key of the keys with their positions.
//   histogram     <prism/histogram.hpp>'s forms (equal bins over [lo, hi), or edges on every GPU)
//                 and binning: every shard's single-GPU histogram, one ncclAllReduce (sum) of the
//                 counts; the counts land in every rank's replicated<C> (or come back, uint64).
//   top_k         the k largest (or smallest) with their global indices (int64), ties to the lower
//                 index as <prism/top_k.hpp>: every shard's single-GPU top-k (min(k, shard)), the
//                 k-blocks all-gathered, and every GPU takes the final top-k of the candidates in
//                 rank order (which keeps the tie rule). Into replicated arrays, or returned.
//   compact       values where the flags (split alike) are not 0, and unique (drops an element
//   unique        equal to the one before it, across shard boundaries too): every shard selects
//                 alone, the counts and each shard's first and last elements are all-gathered, and
//                 the result is a new sharded array whose shards follow the data (rank r holds
//                 what its shard kept), not rebalanced.
// Results of reductions come back returned (the call waits) or into a replicated<R>: one element
// on every local GPU, written without waiting. A replicated array that a call reads (histogram's
// edges) is set by copy_from, which is ordered on the communicator's streams; a plain cudaMemcpy
// is not (those streams do not wait for the default stream, and a copy from pageable memory may
// still be in flight when cudaMemcpy returns).
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
#include <prism/sort.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
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
void require_aligned(const char* algorithm, std::span<const shard_layout* const> layouts);
inline void require_aligned(const char* algorithm, std::initializer_list<const shard_layout*> layouts) {
  require_aligned(algorithm, std::span<const shard_layout* const>(layouts.begin(), layouts.size()));
}
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
  // Every local GPU's copy set to `host` (count() elements), as sharded::copy_from does: on the
  // communicator's stream, after what is queued there, finished when this returns.
  void copy_from(std::span<const T> host) {
    if (host.size() != count())
      throw std::invalid_argument("prism::replicated: the host array has " + std::to_string(host.size()) +
                                  " elements, every GPU's copy " + std::to_string(count()));
    device_guard guard;
    for (int g = 0; g < comm_.local_count() && !host.empty(); ++g) {
      guard.set(comm_.device(g));
      check(cudaMemcpyAsync(copies_[g].data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice,
                            comm_.stream(g)),
            "cudaMemcpyAsync", "replicated::copy_from");
      check(cudaStreamSynchronize(comm_.stream(g)), "cudaStreamSynchronize", "replicated::copy_from");
    }
  }
  std::size_t count() const noexcept { return copies_.empty() ? 0 : copies_[0].size(); }
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
                std::span<const shard_layout* const> layouts, Body body) {
  require_aligned(algorithm, layouts);
  device_guard guard;
  for (int g = 0; g < comm.local_count(); ++g) {
    guard.set(comm.device(g));
    body(g, shard_policy(algorithm, policy, comm, g));
  }
}
}  // namespace detail

namespace ops {
// The element-wise operations that run shard by shard: every one of <prism/elementwise.hpp> whose
// element i depends on element i alone (adjacent_difference, gather, scatter and sequence read or
// write across shards).
template <class Op>
concept shard_by_shard = requires { binary<Op>::code; } || requires { unary<Op>::code; } ||
                         one_of<Op, scale, clamp, axpby, axpy, fma, where, cast, fill>;

template <class A>
concept sharded_argument = requires(const A& a) { a.layout(); a.comm(); };

// An argument of the call on local GPU g: a sharded array's shard there, anything else as it is.
template <class A>
decltype(auto) shard_of(A&& a, int g) {
  if constexpr (sharded_argument<std::remove_cvref_t<A>>) return a.local(g);
  else return std::forward<A>(a);
}
template <class A>
void add_layout(std::vector<const shard_layout*>& layouts, const communicator*& comm, const A& a) {
  if constexpr (sharded_argument<A>) {
    layouts.push_back(&a.layout());
    if (comm == nullptr) comm = &a.comm();
  }
}

// Every such operation over sharded arrays split alike: the one-GPU operation on each shard, on
// its GPU, with the same scalars. prism::add(policy, a, b, out) with a, b and out sharded<T>.
// (Where the name is also a reduction's, min(x) say, the one-GPU call is not element-wise: it
// returns a value, and the reduction over shards below is meant.)
template <class Op, class... A>
concept runs_on_shards = shard_by_shard<Op> && (sharded_argument<std::remove_cvref_t<A>> || ...) &&
                         runs_as_written<Op, const execution_policy&, decltype(shard_of(std::declval<A>(), 0))...> &&
                         std::is_void_v<decltype(call<Op>(par, shard_of(std::declval<A>(), 0)...))>;
template <class Op, class... A>
  requires runs_on_shards<Op, A...>
void run(Op, const execution_policy& policy, A&&... a) {
  std::vector<const shard_layout*> layouts;
  const communicator* comm = nullptr;
  (add_layout(layouts, comm, a), ...);  // the first sharded argument's communicator
  detail::each_shard(Op::name, policy, *comm, layouts, [&](int g, const execution_policy& p) {
    call<Op>(p, shard_of(a, g)...);
  });
}

// out[i] = start + i step with i the global index: each shard starts at start + local_start * step.
template <arithmetic_element T>
void run(sequence, const execution_policy& policy, sharded<T>& out, scalar<T> start, scalar<T> step = scalar<T>(1)) {
  const shard_layout* layouts[] = {&out.layout()};
  detail::each_shard("sequence", policy, out.comm(), layouts, [&](int g, const execution_policy& p) {
    scalar<T> first;
    if constexpr (std::is_integral_v<scalar<T>>) {
      // Integers wrap: the start in unsigned arithmetic, as the single-GPU sequence computes.
      using U = std::make_unsigned_t<scalar<T>>;
      first = static_cast<scalar<T>>(static_cast<U>(start) + static_cast<U>(out.local_start(g)) * static_cast<U>(step));
    } else {
      first = static_cast<scalar<T>>(start + static_cast<double>(out.local_start(g)) * step);
    }
    call<sequence>(p, out.local(g), first, step);
  });
}
}  // namespace ops

// ---- reductions -------------------------------------------------------------------------------

// What a reduction over shards computes.
enum class sharded_reduction {
  sum, product, dot, norm1, count_if,        // all-reduced sums and products
  min, max, minmax, argmin, argmax, norm_inf,  // all-gathered (value, index) states
  norm2, mean, variance, stddev,             // all-gathered moments
};
// The reduction of the family's table (<prism/reduce.hpp>) of that name.
constexpr sharded_reduction sharded_code(std::string_view name) {
  constexpr std::pair<std::string_view, sharded_reduction> codes[] = {
      {"sum", sharded_reduction::sum},         {"product", sharded_reduction::product},
      {"dot", sharded_reduction::dot},         {"norm1", sharded_reduction::norm1},
      {"count_if", sharded_reduction::count_if}, {"min", sharded_reduction::min},
      {"max", sharded_reduction::max},         {"minmax", sharded_reduction::minmax},
      {"argmin", sharded_reduction::argmin},   {"argmax", sharded_reduction::argmax},
      {"norm_inf", sharded_reduction::norm_inf}, {"norm2", sharded_reduction::norm2},
      {"mean", sharded_reduction::mean},       {"variance", sharded_reduction::variance},
      {"stddev", sharded_reduction::stddev}};
  for (auto [n, code] : codes)
    if (n == name) return code;
  throw std::invalid_argument("no sharded reduction of that name");  // a compile-time error
}

namespace detail {
// The compiled entry point (algorithms/distributed/reduce.cu): `y` is dot's second array (else
// null), `into` the replicated result (null: returned).
template <class T, class R>
R reduce_sharded(const execution_policy& policy, sharded_reduction what, const sharded<T>& x,
                 const sharded<T>* y, comparison compare, T value, replicated<R>* into);
}  // namespace detail

namespace ops {
// Every reduction of the family's table over a sharded array: returned, or into a replicated
// result (every GPU gets the value; nothing waits).
template <class Op, class T>
  requires requires { reduction<Op>::template entry<float>; } && (reduction<Op>::template offered<T>)
auto run(Op, const execution_policy& policy, const sharded<T>& x) {
  using R = typename reduction<Op>::template result<T>;
  return detail::reduce_sharded<T, R>(policy, sharded_code(Op::name), x, nullptr, comparison::equal, T{}, nullptr);
}
template <class Op, class T>
  requires requires { reduction<Op>::template entry<float>; } && (reduction<Op>::template offered<T>)
void run(Op, const execution_policy& policy, const sharded<T>& x,
         replicated<typename reduction<Op>::template result<T>>& result) {
  using R = typename reduction<Op>::template result<T>;
  detail::reduce_sharded<T, R>(policy, sharded_code(Op::name), x, nullptr, comparison::equal, T{}, &result);
}

// sum of a[i] * b[i], a and b split alike.
template <signed_reduce_element T>
sum_type<T> run(dot, const execution_policy& policy, const sharded<T>& a, const sharded<T>& b) {
  return detail::reduce_sharded<T, sum_type<T>>(policy, sharded_reduction::dot, a, &b, comparison::equal, T{}, nullptr);
}
template <signed_reduce_element T>
void run(dot, const execution_policy& policy, const sharded<T>& a, const sharded<T>& b, replicated<sum_type<T>>& result) {
  detail::reduce_sharded<T, sum_type<T>>(policy, sharded_reduction::dot, a, &b, comparison::equal, T{}, &result);
}

// How many elements satisfy `x[i] compare value` (count, any and all follow from it).
template <reduce_element T>
std::uint64_t run(count_if, const execution_policy& policy, const sharded<T>& x, comparison compare, T value) {
  return detail::reduce_sharded<T, std::uint64_t>(policy, sharded_reduction::count_if, x, nullptr, compare, value, nullptr);
}
template <reduce_element T>
void run(count_if, const execution_policy& policy, const sharded<T>& x, comparison compare, T value,
         replicated<std::uint64_t>& result) {
  detail::reduce_sharded<T, std::uint64_t>(policy, sharded_reduction::count_if, x, nullptr, compare, value, &result);
}
}  // namespace ops

// ---- scans ------------------------------------------------------------------------------------

namespace detail {
template <scan_element T>
void scan_sharded(const execution_policy& policy, scan_kind kind, scan_op op, const sharded<T>& x,
                  sharded<T>& out);
}  // namespace detail

namespace ops {
// out[i] = x[0] op ... op x[i] over the whole array; out may be x.
template <scan_element T>
void run(inclusive_scan, const execution_policy& policy, const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  detail::scan_sharded(policy, detail::scan_kind::inclusive, op, x, out);
}
// out[i] = identity op x[0] op ... op x[i-1].
template <scan_element T>
void run(exclusive_scan, const execution_policy& policy, const sharded<T>& x, sharded<T>& out, scan_op op = scan_op::sum) {
  detail::scan_sharded(policy, detail::scan_kind::exclusive, op, x, out);
}
}  // namespace ops

}  // namespace prism

// Sorting and the selections whose output size depends on the data.
#include <prism/distributed_select.hpp>
