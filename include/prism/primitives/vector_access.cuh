// SPDX-License-Identifier: Apache-2.0
#pragma once
// 16-byte accesses, shared by the tuned kernels of every family (prism::transform's raw,
// prism::transform_reduce's raw, the scan family's programs and lesson). A thread that moves 16
// bytes per load instead of 4 issues a quarter of the memory instructions for the same bytes,
// which is what keeps enough bytes in flight to reach the bandwidth ceiling. Below them, what a
// tile's threads use at any alignment and size (load_elements, store_elements: one vector where
// it can be, element by element where it cannot) and a prefetch of a range into L2.
// Device-only where it is device code: it compiles under NVRTC too (<prism/primitives/device_std.cuh>).
#include <prism/primitives/device_std.cuh>

namespace prism::detail {

// V consecutive elements moved as one aligned access. For __half and __nv_bfloat16 that is 8
// elements per 16 bytes.
template <class T, int V>
struct alignas(sizeof(T) * V) vector_of {
  T element[V];
};

// The largest of some sizes.
template <class... S>
constexpr std::size_t largest_of(S... s) {
  std::size_t m = 0;
  ((m = s > m ? s : m), ...);
  return m;
}

// Elements per vector: enough for a 16-byte access to the widest of the arrays.
template <class... T>
constexpr int vector_width = static_cast<int>(16 / largest_of(sizeof(T)...));

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

// A run of V elements wider than 16 bytes (a thread's consecutive elements in a blocked
// arrangement) moves as several 16-byte accesses, where 16 bytes hold whole elements.
template <class T, int V>
constexpr bool vectorizable = std::is_trivially_copyable_v<T> &&
                              (sizeof(T) * V == 1 || sizeof(T) * V == 2 || sizeof(T) * V == 4 ||
                               sizeof(T) * V == 8 || sizeof(T) * V % 16 == 0) &&
                              (sizeof(T) * V <= 16 || 16 % sizeof(T) == 0);
// The bytes of one access of a V-element vector, and its elements.
template <class T, int V>
constexpr std::size_t access_bytes = sizeof(T) * V < 16 ? sizeof(T) * V : 16;
template <class T, int V>
constexpr int access_width = static_cast<int>(access_bytes<T, V> / sizeof(T));

// Whether p can be accessed with V-element vectors from element 0 on (every vector of a tile then
// is aligned: tiles and vectors start at multiples of V).
// (A warp's V elements a lane moved through shared memory, stage_transposed below, need only the
// 16-byte accesses of the warp's whole span, whatever V is.)
template <int V, class T>
bool vector_aligned(const T* p) {
  if constexpr (vectorizable<T, V> || (sizeof(T) * V > 16 && 16 % sizeof(T) == 0)) {
    return aligned(p, access_bytes<T, V>);
  } else {
    return false;
  }
}

// Elements i .. i + V - 1 (those below n): one 16-byte load where the array is aligned and the
// vector whole, element by element otherwise. Elements past n repeat element n - 1 (never read
// past the array); the programs ignore them. `whole` says at compile time that the vector lies
// inside the array (in every tile but the last), so no bound is checked.
template <int V, class T, bool Whole = false>
__device__ void load_elements(const T* p, std::size_t i, std::size_t n, bool aligned, T (&out)[V],
                              std::bool_constant<Whole> = {}) {
  if constexpr (vectorizable<T, V>) {
    if (aligned && (Whole || i + V <= n)) {
      constexpr int W = access_width<T, V>;
#pragma unroll
      for (int c = 0; c < V; c += W) {
        const vector_of<T, W> v = load_vector<W>(p + i + c);
#pragma unroll
        for (int k = 0; k < W; ++k) out[c + k] = v.element[k];
      }
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = p[i + k < n ? i + k : n - 1];
}

// Whether a warp's span of 32 V elements moves as whole 16-byte vectors.
template <int V, class T>
constexpr bool span_vectorizable = 16 % sizeof(T) == 0 && 32 * V * sizeof(T) % 16 == 0;
// A lane's share of a warp's whole span of 32 V elements as 16-byte vectors (lane l's are vectors
// l, l + 32, ...), held in registers between their loads and their stores, so that every load of
// a span (of every array a program reads) is issued before the first store waits on one.
template <int V, class T>
struct span_share {
  static constexpr int W = static_cast<int>(16 / sizeof(T)), vectors = 32 * V / W, count = (vectors + 31) / 32;
  vector_of<T, W> v[count];
  static __device__ bool mine(int t) { return vectors % 32 == 0 || t * 32 + static_cast<int>(threadIdx.x % 32) < vectors; }
  __device__ void load(const T* from) {
#pragma unroll
    for (int t = 0; t < count; ++t)
      if (mine(t)) v[t] = load_vector<W>(from + (t * 32 + threadIdx.x % 32) * W);
  }
  __device__ void store(T* to) const {
#pragma unroll
    for (int t = 0; t < count; ++t)
      if (mine(t)) store_vector<W>(to + (t * 32 + threadIdx.x % 32) * W, v[t]);
  }
};
// A lane's V elements of a span read element by element (a misaligned array, the last tile's
// span), lane l the elements l, l + 32, ...; elements past n repeat element n - 1.
template <int V, class T>
struct span_elements {
  T e[V];
  __device__ void load(const T* p, std::size_t first, std::size_t n) {
#pragma unroll
    for (int t = 0; t < V; ++t) {
      const std::size_t j = first + t * 32 + threadIdx.x % 32;
      e[t] = p[j < n ? j : n - 1];
    }
  }
  __device__ void store(T* staging) const {
#pragma unroll
    for (int t = 0; t < V; ++t) staging[t * 32 + threadIdx.x % 32] = e[t];
  }
};

// A warp's 32 V consecutive elements from `first`, in the blocked arrangement (lane l's V elements
// at first + l V), read the way the striped rounds are: consecutive lanes on consecutive 16-byte
// vectors (where the array is aligned and the span whole; element by element otherwise), put in
// the warp's `staging` (32 V elements of shared memory), and after a __syncwarp each lane takes its
// own: CUB's warp-transposed load, in two halves so that a program's arrays are all requested
// before any waits (the overload of two arrays loads both before storing either). Elements past n
// repeat element n - 1. An odd V keeps the lanes' reads of 8-byte elements, and any of 4-byte
// ones, off each other's banks.
template <int V, class T, bool Whole>
__device__ void stage_transposed(const T* p, std::size_t first, std::size_t n, bool aligned, T* staging,
                                 std::bool_constant<Whole>) {
  if constexpr (span_vectorizable<V, T>) {
    if (aligned && (Whole || first + 32 * V <= n)) {
      span_share<V, T> s;
      s.load(p + first);
      s.store(staging);
      return;
    }
  }
  span_elements<V, T> s;
  s.load(p, first, n);
  s.store(staging);
}
template <int V, class K, class T, bool Whole>
__device__ void stage_transposed(const K* keys, const T* values, std::size_t first, std::size_t n, bool keys_aligned,
                                 bool values_aligned, K* key_staging, T* value_staging,
                                 std::bool_constant<Whole> whole) {
  if constexpr (span_vectorizable<V, K> && span_vectorizable<V, T>) {
    if (keys_aligned && values_aligned && (Whole || first + 32 * V <= n)) {
      span_share<V, K> k;
      span_share<V, T> v;
      k.load(keys + first);
      v.load(values + first);
      k.store(key_staging);
      v.store(value_staging);
      return;
    }
  }
  stage_transposed<V>(keys, first, n, keys_aligned, key_staging, whole);
  stage_transposed<V>(values, first, n, values_aligned, value_staging, whole);
}
template <int V, class T>
__device__ void take_transposed(const T* staging, T (&out)[V]) {
  const int lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int k = 0; k < V; ++k) out[k] = staging[lane * V + k];
}
// The other way: each lane's V elements put in `staging`, then written by consecutive lanes on
// consecutive 16-byte vectors (those below n). The caller's __syncwarp goes between the halves.
template <int V, class T>
__device__ void give_transposed(T* staging, const T (&in)[V]) {
  const int lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int k = 0; k < V; ++k) staging[lane * V + k] = in[k];
}
template <int V, class T>
__device__ void store_transposed(T* p, std::size_t first, std::size_t n, bool aligned, const T* staging) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if constexpr (span_vectorizable<V, T>) {
    if (aligned && first + 32 * V <= n) {
      span_share<V, T> s;
      s.load(staging);
      s.store(p + first);
      return;
    }
  }
#pragma unroll
  for (int t = 0; t < V; ++t) {
    const std::size_t j = first + t * 32 + lane;
    if (j < n) p[j] = staging[t * 32 + lane];
  }
}

template <int V, class T>
__device__ void store_elements(T* p, std::size_t i, std::size_t n, bool aligned, const T (&in)[V]) {
  if constexpr (vectorizable<T, V>) {
    if (aligned && i + V <= n) {
      constexpr int W = access_width<T, V>;
#pragma unroll
      for (int c = 0; c < V; c += W) {
        vector_of<T, W> v;
#pragma unroll
        for (int k = 0; k < W; ++k) v.element[k] = in[c + k];
        store_vector<W>(p + i + c, v);
      }
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k)
    if (i + k < n) p[i + k] = in[k];
}

// Asks L2 for elements first .. first + count - 1 of p (those below n), without waiting: one
// bulk prefetch (sm_90 on: cp.async.bulk.prefetch.L2) of the 16-byte-aligned bytes inside that
// range. A hint only; older GPUs skip it.
template <class T>
__device__ void prefetch_l2(const T* p, std::size_t first, std::size_t count, std::size_t n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (p == nullptr || first >= n) return;
  const std::size_t last = first + count < n ? first + count : n;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p + first) + 15) / 16 * 16;
  const auto end = reinterpret_cast<std::uintptr_t>(p + last) / 16 * 16;
  if (end <= begin) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(static_cast<unsigned>(end - begin))
               : "memory");
#endif
}

}  // namespace prism::detail
