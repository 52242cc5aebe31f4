#pragma once
// The implementations an algorithm can run, and the registry that lists them.
//
// Every algorithm names the implementations it has in one list (its family's `*_implementations()`),
// the tests and benchmarks iterate that list, and a call picks one with a prism::impl argument
// (default: impl::automatic, the fastest for the size and type from our measurements).
#include <span>
#include <string_view>

namespace prism {

enum class impl {
  automatic,  // the fastest of the others for this size and type (measured; see docs/benchmarks)
  cpu,        // Thrust on the host, through its OpenMP system: host memory, any machine
  thrust,     // Thrust on the GPU, on the caller's stream, without hidden synchronization
  raw_naive,  // the textbook hand-written kernel: one thread per element
  raw,        // the tuned hand-written kernel: whatever reaches the bandwidth ceiling
  cub,        // CUB's device-wide algorithm
  // The classic reduction progression (sum only), one hand-written kernel per step:
  reduce_interleaved_divergent,  // 1: interleaved addressing, divergent branch (tid % (2s) == 0)
  reduce_interleaved,            // 2: interleaved addressing, contiguous active threads
  reduce_sequential,             // 3: sequential addressing, no shared-memory bank conflicts
  reduce_first_add,              // 4: the first addition during the load, half the blocks
  reduce_warp_shuffle,           // 5: the last warp reduces with __shfl_down_sync
  reduce_multiple,               // 6: many elements per thread, a grid of the GPU's size
};

// Where the data of an implementation must live.
enum class memory { host, device };

constexpr std::string_view name(impl which) noexcept {
  switch (which) {
    case impl::automatic: return "automatic";
    case impl::cpu: return "cpu";
    case impl::thrust: return "thrust";
    case impl::raw_naive: return "raw_naive";
    case impl::raw: return "raw";
    case impl::cub: return "cub";
    case impl::reduce_interleaved_divergent: return "reduce_interleaved_divergent";
    case impl::reduce_interleaved: return "reduce_interleaved";
    case impl::reduce_sequential: return "reduce_sequential";
    case impl::reduce_first_add: return "reduce_first_add";
    case impl::reduce_warp_shuffle: return "reduce_warp_shuffle";
    case impl::reduce_multiple: return "reduce_multiple";
  }
  return "unknown";
}

constexpr memory memory_of(impl which) noexcept {
  return which == impl::cpu ? memory::host : memory::device;
}

// The registry of the element-wise family (every operation built on prism::transform).
inline std::span<const impl> elementwise_implementations() noexcept {
  static constexpr impl all[] = {impl::cpu,       impl::thrust, impl::raw_naive,
                                 impl::raw,       impl::cub,    impl::automatic};
  return all;
}

// The registry of the reduction family (every operation built on prism::transform_reduce).
inline std::span<const impl> reduce_implementations() noexcept {
  static constexpr impl all[] = {impl::cpu, impl::thrust, impl::raw, impl::cub, impl::automatic};
  return all;
}

// sum has the reduction progression besides: from the textbook kernel to the tuned one.
inline std::span<const impl> sum_implementations() noexcept {
  static constexpr impl all[] = {impl::cpu,
                                 impl::thrust,
                                 impl::reduce_interleaved_divergent,
                                 impl::reduce_interleaved,
                                 impl::reduce_sequential,
                                 impl::reduce_first_add,
                                 impl::reduce_warp_shuffle,
                                 impl::reduce_multiple,
                                 impl::raw,
                                 impl::cub,
                                 impl::automatic};
  return all;
}

}  // namespace prism
