// SPDX-License-Identifier: Apache-2.0
#pragma once
// The dispatch layer every family shares: what a family offers, the checks every call makes
// before it touches anything, and the choice `automatic` makes.
//
// A call describes its arrays (address, bytes, role) and asks prepare() for the implementation to
// run. prepare() throws std::invalid_argument, naming the algorithm and the argument, when
//   - the policy names an implementation the family does not have (before any early return for
//     empty input, so that sum(par.with(impl::raw_naive), empty) fails as a non-empty one does);
//   - an array is null with a nonzero size;
//   - an output overlaps another array without being exactly it (same address, same byte length:
//     in place), judged by byte ranges, so a float -> double cast over one buffer is refused; or
//     is exactly an input it may not replace (each output says which inputs it may: any, its own,
//     or none);
//   - memory is in the wrong place: host memory for a GPU implementation, device memory for cpu,
//     memory of another GPU than the current one, host and device memory mixed.
// `automatic` then resolves as Thrust does from its iterators: host memory runs cpu, device memory
// the family's table of measurements (docs/benchmarks), by the bytes the call moves. Before cpu
// runs on pinned or managed memory, the policy's stream is synchronized: work the caller queued
// there (a copy into the array, say) lands before the CPU reads it.
#include <prism/execution.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <initializer_list>
#include <span>

namespace prism {

// Where memory lives, as CUDA sees it. Memory CUDA does not know (plain host memory), and
// everything on a machine without a GPU, is host memory; managed memory is reachable from both.
enum class residence { host, pinned_host, device, managed };

struct placement {
  residence where;
  int device;  // the GPU of device memory, else -1
};
placement placement_of(const void* address);

// The row of a family's `automatic` table: from this many bytes moved on (the largest row that
// applies wins), run `choice`. Chosen from cold-cache benchmark rows unless the table says why not.
struct automatic_row {
  std::size_t from_bytes;
  impl choice;
};

// What a family offers: its implementations (its registry, which the tests and benchmarks
// iterate) and its `automatic` table for device memory.
struct family {
  std::span<const impl> implementations;
  std::span<const automatic_row> automatic;

  bool has(impl which) const noexcept {
    for (impl i : implementations)
      if (i == which) return true;
    return false;
  }
};

// One array of a call, as the checks see it.
struct array_ref {
  // Which input an output may be exactly (in place): any of the call's inputs (element-wise maps,
  // scans), none (selections, histograms, argsort), or the one at this position in the call's list
  // (a sort's keys_out its keys, values_out its values).
  static constexpr int any_input = -1, no_input = -2;

  const void* data;
  std::size_t size;   // elements
  std::size_t bytes;  // size * element size
  bool output;
  const char* name;   // "the first input", "the output", ...
  int in_place_of = any_input;
  std::size_t expected = unchecked;  // the size the call requires of it, checked first

  static constexpr std::size_t unchecked = ~std::size_t{0};

  // The same array, required to have n elements.
  constexpr array_ref sized(std::size_t n) const {
    array_ref a = *this;
    a.expected = n;
    return a;
  }

  template <class T>
  static array_ref input(span<T> s, const char* name) {
    return {s.data(), s.size(), s.size_bytes(), false, name};
  }
  // An output that may be exactly any input, or only the input at position `of`.
  template <class T>
  static array_ref output_of(span<T> s, const char* name, int of = any_input) {
    return {s.data(), s.size(), s.size_bytes(), true, name, of};
  }
  // An output that overlaps no other array, not even exactly.
  template <class T>
  static array_ref output_apart(span<T> s, const char* name) {
    return output_of(s, name, no_input);
  }
};

// How messages name an algorithm's k-th input (from 0).
const char* input_name(std::size_t k) noexcept;

// Throws std::invalid_argument unless `actual` is `expected`.
void require_size(std::size_t expected, std::size_t actual, const char* algorithm,
                  const char* argument);

// The checks above (every array's required size first), then the implementation to run (never
// automatic). `bytes_moved` picks the row of the family's table; `result`, if given, is one more
// output (a reduction's one-element array).
impl prepare(const char* algorithm, const family& offered, const execution_policy& policy,
             std::span<const array_ref> arrays, std::size_t bytes_moved, const array_ref* result = nullptr);
inline impl prepare(const char* algorithm, const family& offered, const execution_policy& policy,
                    std::initializer_list<array_ref> arrays, std::size_t bytes_moved) {
  return prepare(algorithm, offered, policy, std::span<const array_ref>(arrays.begin(), arrays.size()), bytes_moved);
}

namespace detail {
// The cpu implementation's threads for one call: the calling thread alone when the call moves
// fewer than cpu_serial_below_bytes() bytes (waking OpenMP's team then costs more than the work:
// docs/benchmarks/dispatch.md, "One compiled entry per call"), OpenMP's team otherwise. The
// thread's own setting (omp_set_num_threads) is restored when it goes. serial() says which: the
// callables marked serial_too (dispatch.cuh) then run on Thrust's sequential system instead.
class cpu_threads {
 public:
  explicit cpu_threads(std::size_t bytes_moved) noexcept;
  ~cpu_threads();
  cpu_threads(const cpu_threads&) = delete;
  cpu_threads& operator=(const cpu_threads&) = delete;
  bool serial() const noexcept { return serial_; }

 private:
  int previous_ = 0;
  bool serial_ = false;
};
// The threshold: the measured default, or PRISM_CPU_SERIAL_BELOW (bytes) when set.
std::size_t cpu_serial_below_bytes() noexcept;

// The number of CUDA devices this process sees, asked once (0 without a driver or a device).
int device_count();
// The number of multiprocessors of the current device (cached per device): what a grid that fills
// the GPU once is sized from.
int multiprocessor_count();
// The L2 cache's bytes on the current device (cached per device): past it, a random access is a
// trip to DRAM.
std::size_t l2_cache_bytes();
}  // namespace detail

}  // namespace prism
