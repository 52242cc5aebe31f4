#pragma once
// The arithmetic rules every family shares, defined once: integers wrap around, NaN is found the
// same way everywhere. Both the element-wise functors and the reduction operators build on these,
// so prism::add and prism::sum agree on what an int32 overflow gives, in every implementation.
#include <type_traits>

namespace prism::arithmetic {

// Signed overflow is undefined in C++, so integers compute as unsigned and convert back: the
// two's-complement wrap-around that every implementation (the CPU one included) then agrees on.
template <class T>
using wrapping_t = std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>,
                                      std::type_identity<T>>::type;

template <class T>
struct plus {
  __host__ __device__ T operator()(T a, T b) const {
    using W = wrapping_t<T>;
    return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
  }
};

template <class T>
struct multiplies {
  __host__ __device__ T operator()(T a, T b) const {
    using W = wrapping_t<T>;
    return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
  }
};

// Only NaN is unequal to itself; false for every integer.
template <class T>
__host__ __device__ constexpr bool is_nan(T x) {
  return x != x;
}

}  // namespace prism::arithmetic
