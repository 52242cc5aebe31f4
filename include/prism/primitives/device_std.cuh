// SPDX-License-Identifier: Apache-2.0
#pragma once
// The few standard names the device primitives use, so that they compile under NVRTC (which has
// no standard headers) as they do under nvcc: prism_primitives compiles a user's expressions at
// run time into kernels built on these same primitives (<prism/rtc/kernels.cuh>). Under nvcc this
// is the standard headers themselves.
#ifdef __CUDACC_RTC__
namespace std {
using size_t = decltype(sizeof 0);
using int32_t = int;
using int64_t = long long;
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
using uintptr_t = unsigned long long;

template <class T, T v>
struct integral_constant {
  static constexpr T value = v;
  constexpr operator T() const noexcept { return v; }
};
template <bool B>
using bool_constant = integral_constant<bool, B>;
template <class T>
inline constexpr bool is_trivially_copyable_v = __is_trivially_copyable(T);
template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;
template <class T>
constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T>
constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
}  // namespace std
#else
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#endif
