#pragma once
// The element-wise family, callable from plain C++: the standard operations on the standard
// types are compiled into the library (algorithms/elementwise/). CUDA code can run the same
// implementations on its own functors with <prism/transform.cuh>.
//
//   prism::add<float>(a, b, out);                          // fastest implementation, default stream
//   prism::add<float>(a, b, out, stream, prism::impl::raw);  // a chosen one, on a stream
//
// Inputs convert from any span or container of T (thrust::device_vector, prism::device_buffer,
// std::vector for impl::cpu); naming T picks the overload, or pass a prism::span<T> as `out`.
#include <prism/registry.hpp>
#include <prism/span.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

namespace prism {

// The element types compiled into the library for arithmetic.
template <class T>
concept arithmetic_element =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t>;

// An input span deduced from the output's element type, so that containers convert.
template <class T>
using input = std::type_identity_t<span<const T>>;

// out[i] = a[i] + b[i]. out may be a or b. Integer overflow wraps (two's complement).
template <arithmetic_element T>
void add(input<T> a, input<T> b, span<T> out, cudaStream_t stream = nullptr,
         impl which = impl::automatic);

}  // namespace prism
