// SPDX-License-Identifier: Apache-2.0
#pragma once
// The dispatch layer as the generic (.cuh) layer of every family uses it: the checks of
// <prism/dispatch.hpp>, plus what only CUDA code can do: refuse a __device__-only lambda on the
// cpu, translate Thrust's and CUB's failures into prism::cuda_error in one place, give Thrust
// its temporary storage from prism's scratch, and run a Thrust algorithm (run_thrust) or a CUB
// one (cub_call) the way every family does, and the one dispatch every operation calls.
#include <prism/dispatch.hpp>
#include <prism/error.hpp>
#include <prism/execution.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/scratch.hpp>

#include <thrust/execution_policy.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/detail/bad_alloc.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/system_error.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <list>
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

// Thrust's temporary storage from prism's scratch: the first request takes the stream's lease,
// given back when Thrust frees it (stream-ordered, so the next request on the stream may reuse
// it). A request while that lease is held (Thrust's in-place selections hold a copy of the input
// and their scan's storage at once) gets a block of its own: a second lease on the same stream
// would wait for the first.
class scratch_allocator {
 public:
  using value_type = char;
  scratch_allocator(const execution_policy& policy, const char* algorithm)
      : policy_(policy), algorithm_(algorithm) {}
  char* allocate(std::ptrdiff_t bytes) {
    const auto size = static_cast<std::size_t>(bytes);
    if (!lease_) {
      lease_.emplace(acquire_scratch(size, policy_, algorithm_));
      return static_cast<char*>(lease_->device());
    }
    separate_.push_back(acquire_separate_scratch(size, policy_, algorithm_));
    return static_cast<char*>(separate_.back().device());
  }
  void deallocate(char* p, std::size_t) noexcept {
    if (lease_ && p == lease_->device()) {
      lease_.reset();
      return;
    }
    const auto it = std::find_if(separate_.begin(), separate_.end(), [p](const scratch& s) { return s.device() == p; });
    if (it != separate_.end()) separate_.erase(it);
  }

 private:
  execution_policy policy_;
  const char* algorithm_;
  std::optional<scratch> lease_;
  std::list<scratch> separate_;
};

// An output array: array-like, elements not const.
template <class O>
concept writable_array = array_like<std::remove_reference_t<O>> && !std::is_const_v<element_t<O>>;

// dst = src, unless they are the same array: on the stream, or on the system a Thrust policy names
// (the host for thrust::omp::par).
template <class T>
void copy_unless_same(cudaStream_t stream, const T* src, T* dst, std::size_t n, const char* algorithm) {
  if (src == dst || n == 0) return;
  check(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync", algorithm);
}
template <class Policy, class T>
void copy_unless_same(const Policy&, const T* src, T* dst, std::size_t n, cudaStream_t stream, const char* algorithm) {
  if constexpr (std::is_same_v<Policy, std::decay_t<decltype(thrust::omp::par)>>) {
    if (src != dst && n != 0) std::memcpy(static_cast<void*>(dst), src, n * sizeof(T));
  } else {
    copy_unless_same(stream, src, dst, n, algorithm);
  }
}

// Scratch is carved in pieces of 256 bytes, the alignment CUB and every vector access want.
inline constexpr std::size_t round256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// ---- CUB's two phases ---------------------------------------------------------------------------

// What a CUB algorithm's temporary storage depends on besides the instantiation: the item count,
// and whatever else the call varies at run time (the order of a sort, the bins of a histogram).
struct cub_shape {
  std::size_t items;
  std::size_t variant = 0;
  bool operator==(const cub_shape&) const = default;
};

struct nothing_after {
  void operator()(void*) const {}
};

// CUB's two calls (the temporary storage's size, then the work) with the storage from prism's
// scratch. `extra` bytes of scratch come first, for the caller: call(temp, bytes, extra), then
// after(extra), enqueued while the scratch is still held. The size query costs about as much host
// time as the work itself (CUB asks the device's occupancy), and its answer depends only on the
// device and the shape for one instantiation: each host thread keeps its last answer, so a loop of
// same-size calls asks once.
template <class Call, class After = nothing_after>
void cub_call(const char* algorithm, const char* what, const execution_policy& policy, cub_shape shape,
              Call call, std::size_t extra = 0, After after = {}) {
  struct size_memo {
    int device = -1;
    cub_shape shape{0};
    std::size_t bytes = 0;
  };
  static thread_local size_memo memo;
  clear_stale_error();  // before the size query too: CUB reads the last error there as well
  int device = 0;
  if (device_count() != 1) check(cudaGetDevice(&device), "cudaGetDevice", algorithm);
  if (memo.device != device || !(memo.shape == shape)) {
    std::size_t bytes = 0;
    check(call(nullptr, bytes, nullptr), what, algorithm);
    memo = {device, shape, bytes};
  }
  std::size_t temp_bytes = memo.bytes;
  extra = round256(extra);
  const scratch lease = acquire_scratch(extra + temp_bytes, with_explicit_stream(policy), algorithm);
  auto* memory = static_cast<unsigned char*>(lease.device());
  check(call(memory + extra, temp_bytes, memory), what, algorithm);
  after(static_cast<void*>(memory));
}

// ---- the one dispatch ---------------------------------------------------------------------------

// An implementation an operation does not have.
struct absent {};

// The implementations of one operation, side by side, each a callable; the ones left out are
// absent, and the operation offers exactly the others:
//
//   dispatch(call, implementations{.cpu = on_thrust, .thrust = on_thrust, .raw = ..., .cub = ...});
//
// cpu and thrust are called with Thrust's execution policy (thrust::omp::par, or the caller's
// stream with prism's scratch); raw_naive, raw and cub with nothing: they capture what they use.
// An operation with a result gets its destination as the callables' last argument (below).
// cpu_check, where given, is impl::cpu's check of what the GPU implementations take unchecked (a
// segmented call's offsets): it runs before anything else, empty calls included.
template <class Cpu = absent, class Thrust = absent, class RawNaive = absent, class Raw = absent,
          class Cub = absent, class CpuCheck = absent>
struct implementations {
  Cpu cpu;
  Thrust thrust;
  RawNaive raw_naive;
  Raw raw;
  Cub cub;
  CpuCheck cpu_check;

  static constexpr bool offers(impl i) noexcept {
    return (i == impl::cpu && !std::is_same_v<Cpu, absent>) || (i == impl::thrust && !std::is_same_v<Thrust, absent>) ||
           (i == impl::raw_naive && !std::is_same_v<RawNaive, absent>) ||
           (i == impl::raw && !std::is_same_v<Raw, absent>) || (i == impl::cub && !std::is_same_v<Cub, absent>);
  }
};

// A call of one operation, as the dispatch sees it: its name and family (whose `automatic` table
// chooses), the policy, every array with its role and expected size, and n, the elements it runs
// over (nothing runs for none). `bytes_moved` picks automatic's row: by default every array's bytes.
struct operation_call {
  const char* algorithm;
  const family& offered;
  const execution_policy& policy;
  std::initializer_list<array_ref> arrays;
  std::size_t n;
  std::size_t bytes_moved = ~std::size_t{0};
};

// Where an operation's one value goes: returned (`into` null: the call waits, and a capturing
// stream is refused, since a graph cannot return a value), or into a one-element array (device
// memory; host memory for cpu), where nothing waits. `empty` is the value for no elements.
template <class R>
struct result_to {
  span<R>* into;
  R empty;
  const char* name = "the result";
  // Whether thrust delivers the value on the host even into an array (it waited for it), which a
  // capturing stream cannot take.
  bool thrust_waits = false;
};

// A cpu callable that may also run on Thrust's sequential system: below cpu_serial_below_bytes()
// it is called with thrust::seq, on the calling thread without entering OpenMP at all (a team of
// one thread still opens a parallel region, which costs more than a small call's work:
// docs/benchmarks/dispatch.md, "One compiled entry per call"). Marked where the callable is one
// Thrust algorithm whose cost per call matters (the element-wise operations, the reductions):
//   implementations{.cpu = serial_too{on_thrust}, ...}
template <class F>
struct serial_too {
  F f;
  template <class... A>
  decltype(auto) operator()(A&&... a) const {
    return f(std::forward<A>(a)...);
  }
};
template <class F>
serial_too(F) -> serial_too<F>;
template <class F>
constexpr bool runs_serially = false;
template <class F>
constexpr bool runs_serially<serial_too<F>> = true;

template <class T>
__global__ void write_value_kernel(T* destination, T value) {
  *destination = value;
}

// The one switch: the implementation `which` (resolved by prepare()) of `impls`, returning Ret.
// `result...` is the destination of an operation with a result; `serial`, whether a cpu call is
// below cpu_serial_below_bytes().
template <class Ret, class... F, class Impls, class... Result>
Ret run_implementation(impl which, bool serial, const char* algorithm, const execution_policy& policy,
                       const Impls& impls, Result... result) {
  switch (which) {
    case impl::cpu:
      if constexpr (Impls::offers(impl::cpu)) {
        if constexpr (host_callable<F...>) {
          if constexpr (runs_serially<std::decay_t<decltype(impls.cpu)>>) {
            if (serial) return static_cast<Ret>(impls.cpu(thrust::seq, result...));
          }
          return static_cast<Ret>(impls.cpu(thrust::omp::par, result...));
        } else {
          refuse_device_lambda(algorithm);
        }
      }
      break;
    case impl::thrust:
      if constexpr (Impls::offers(impl::thrust)) {
        scratch_allocator allocator(with_explicit_stream(policy), algorithm);
        clear_stale_error();
        return static_cast<Ret>(impls.thrust(thrust::cuda::par_nosync(allocator).on(policy.stream()), result...));
      }
      break;
    case impl::raw_naive:
      if constexpr (Impls::offers(impl::raw_naive)) return static_cast<Ret>(impls.raw_naive(result...));
      break;
    case impl::raw:
      if constexpr (Impls::offers(impl::raw)) return static_cast<Ret>(impls.raw(result...));
      break;
    case impl::cub:
      if constexpr (Impls::offers(impl::cub)) return static_cast<Ret>(impls.cub(result...));
      break;
    case impl::automatic:
      break;
  }
  throw std::logic_error(std::string("prism::") + algorithm + ": no " + std::string(name(which)) + " implementation");
}

// The implementations a set of callables offers, in impl's order: the family's registry, derived.
template <class Impls>
struct offered_list {
  static constexpr std::array<impl, 5> table = [] {
    std::array<impl, 5> out{impl::automatic, impl::automatic, impl::automatic, impl::automatic, impl::automatic};
    std::size_t k = 0;
    for (impl i : {impl::cpu, impl::thrust, impl::raw_naive, impl::raw, impl::cub})
      if (Impls::offers(i)) out[k++] = i;
    return out;
  }();
  static constexpr std::size_t count = [] {
    std::size_t k = 0;
    for (impl i : table) k += i != impl::automatic;
    return k;
  }();
  static std::span<const impl> list() noexcept { return {table.data(), count}; }
};

// The bytes a call moves: what it says, or its arrays' bytes.
inline std::size_t bytes_of(const operation_call& call) {
  std::size_t bytes = call.bytes_moved;
  if (bytes == ~std::size_t{0}) {
    bytes = 0;
    for (const array_ref& a : call.arrays) bytes += a.bytes;
  }
  return bytes;
}

// The checks (prepare(), then the cpu's own), with the implementations the callables offer and
// the family's table.
template <class Impls>
impl prepare_call(const operation_call& call, const Impls& impls, const array_ref* result = nullptr) {
  const family offered{offered_list<Impls>::list(), call.offered.automatic};
  const impl which = prepare(call.algorithm, offered, call.policy, call.arrays, bytes_of(call), result);
  if constexpr (!std::is_same_v<decltype(Impls::cpu_check), absent>) {
    if (which == impl::cpu) impls.cpu_check();
  }
  return which;
}

// Runs one operation without a result: the checks, the empty-input rule, one implementation, its
// failures translated. F... are the caller's functors (a __device__-only one refuses cpu).
template <class... F, class Impls>
void dispatch(const operation_call& call, const Impls& impls) {
  const impl which = prepare_call(call, impls);
  if (call.n == 0) return;
  const cpu_threads team(which == impl::cpu ? bytes_of(call) : ~std::size_t{0});
  translate_errors(call.algorithm,
                   [&] { run_implementation<void, F...>(which, team.serial(), call.algorithm, call.policy, impls); });
}

// Runs one operation with a value, delivered as `result` says. Each callable takes the device
// address the value may be written to on the stream (a pinned host slot when it is returned; the
// caller's array otherwise; on cpu, host memory) and returns std::nullopt when it has written it
// there, or the value when it has it on the host.
template <class... F, class R, class Impls>
R dispatch(const operation_call& call, const result_to<R>& result, const Impls& impls) {
  const bool returned = result.into == nullptr;
  const array_ref destination =
      returned ? array_ref{} : array_ref::output_apart(*result.into, result.name).sized(1);
  const impl which = prepare_call(call, impls, returned ? nullptr : &destination);
  const cudaStream_t stream = call.policy.stream();
  const bool on_gpu = which != impl::cpu;
  const cpu_threads team(on_gpu ? ~std::size_t{0} : bytes_of(call));
  if (on_gpu && (returned || (which == impl::thrust && result.thrust_waits))) {
    require_not_capturing(stream, call.algorithm);
  }
  static_assert(sizeof(R) <= host_slot::bytes, "a returned result must fit the pinned host slot");
  return translate_errors(call.algorithm, [&]() -> R {
    std::optional<host_slot> slot;
    R on_host{};
    R* at = returned ? &on_host : result.into->data();
    std::optional<R> value;
    if (call.n == 0) {
      value = result.empty;
    } else {
      if (returned && on_gpu) {
        slot.emplace(call.algorithm);
        at = static_cast<R*>(slot->get());
      }
      value = run_implementation<std::optional<R>, F...>(which, team.serial(), call.algorithm, call.policy, impls, at);
    }
    if (returned) {
      if (value) return *value;
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", call.algorithm);
      return *at;
    }
    if (value) {
      if (on_gpu) {  // the value rides in the launch: no copy
        launch(call.algorithm, "write_value_kernel", write_value_kernel<R>, 1, 1, stream, at, *value);
      } else {
        *at = *value;
      }
    }
    return R{};
  });
}

}  // namespace prism::detail
