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

}  // namespace prism
