#pragma once
// Argument checks shared by every algorithm: sizes, overlaps, and where memory lives.
// Each throws std::invalid_argument, with a message naming the algorithm and the argument,
// before the algorithm has touched anything.
#include <prism/registry.hpp>
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace prism {

// Where `bytes` bytes at `address` live, as CUDA sees them. Memory that CUDA does not know
// (plain host memory), and everything on a machine without a GPU, is host memory; managed
// memory is reachable from both sides.
enum class residence { host, pinned_host, device, managed };
residence residence_of(const void* address);

// Throws unless a non-empty span lives where `needed` says. Pinned host memory counts as host.
void require_memory(const void* address, std::size_t bytes, memory needed, const char* algorithm,
                    const char* argument);

template <class T>
void require_memory(span<T> s, memory needed, const char* algorithm, const char* argument) {
  require_memory(s.data(), s.size_bytes(), needed, algorithm, argument);
}

// How messages name an algorithm's k-th input (from 0).
inline const char* input_name(std::size_t k) {
  static constexpr const char* names[] = {"the first input", "the second input", "the third input"};
  return k < 3 ? names[k] : "an input";
}

inline void require_same_size(std::size_t expected, std::size_t actual, const char* algorithm,
                              const char* argument) {
  if (expected != actual) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": " + argument + " has " +
                                std::to_string(actual) + " elements, expected " +
                                std::to_string(expected));
  }
}

// An output may be one of the inputs exactly (in place) but may not overlap it partly: a parallel
// algorithm would read elements that another thread has already overwritten.
template <class O, class I>
void require_no_partial_overlap(span<O> out, span<I> in, const char* algorithm,
                                const char* argument) {
  const auto o = reinterpret_cast<std::uintptr_t>(out.data());
  const auto i = reinterpret_cast<std::uintptr_t>(in.data());
  const bool overlap = o < i + in.size_bytes() && i < o + out.size_bytes();
  if (overlap && o != i) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the output overlaps " +
                                argument + " without being the same array");
  }
}

}  // namespace prism
