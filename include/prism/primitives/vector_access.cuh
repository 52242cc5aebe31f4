// SPDX-License-Identifier: Apache-2.0
#pragma once
// 16-byte accesses, shared by the tuned kernels of every family (prism::transform's raw,
// prism::transform_reduce's raw). A thread that moves 16 bytes per load instead of 4 issues a
// quarter of the memory instructions for the same bytes, which is what keeps enough bytes in
// flight to reach the bandwidth ceiling.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace prism::detail {

// V consecutive elements moved as one aligned access. For __half and __nv_bfloat16 that is 8
// elements per 16 bytes.
template <class T, int V>
struct alignas(sizeof(T) * V) vector_of {
  T element[V];
};

// Elements per vector: enough for a 16-byte access to the widest of the arrays.
template <class... T>
constexpr int vector_width = static_cast<int>(16 / std::max({sizeof(T)...}));

// One vector moved as a single load or store of a plain word of its size. Copying vector_of<T, V>
// directly would copy element by element for types with their own copy (__half and
// __nv_bfloat16 are classes): eight 2-byte loads where one 16-byte load (LDG.E.128) will do.
template <std::size_t Bytes>
struct word_of;
template <> struct word_of<1> { using type = std::uint8_t; };
template <> struct word_of<2> { using type = std::uint16_t; };
template <> struct word_of<4> { using type = std::uint32_t; };
template <> struct word_of<8> { using type = std::uint64_t; };
template <> struct word_of<16> { using type = uint4; };

template <int V, class T>
__device__ vector_of<T, V> load_vector(const T* p) {
  using word = typename word_of<sizeof(vector_of<T, V>)>::type;
  const word bits = *reinterpret_cast<const word*>(p);
  vector_of<T, V> v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

template <int V, class T>
__device__ void store_vector(T* p, const vector_of<T, V>& v) {
  using word = typename word_of<sizeof(vector_of<T, V>)>::type;
  word bits;
  memcpy(&bits, &v, sizeof v);
  *reinterpret_cast<word*>(p) = bits;
}

template <class T>
bool aligned(const T* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

// The first index (below V and n) from which every array starts a vector-aligned run, or V if
// there is none: arrays misaligned with respect to each other can only be moved one element at
// a time.
template <int V, class... T>
std::size_t vector_aligned_head(std::size_t n, const T*... p) {
  std::size_t head = 0;
  while (head < V && head < n && !(aligned(p + head, sizeof(vector_of<T, V>)) && ...)) ++head;
  return head;
}

}  // namespace prism::detail
