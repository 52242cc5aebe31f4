// SPDX-License-Identifier: Apache-2.0
#pragma once
// Warp- and block-wide scans of any trivially copyable value under any associative operator, for
// the kernels of the scan family (its single-pass tiles, the stages of its lesson). No identity is
// needed: a lane or thread that has nothing before it is told so (a `maybe` without a value)
// instead of being handed an identity, so that a scan of a user's operator without one (string
// concatenation, a max over a type without a lowest value) works as well as a sum.
#include <prism/primitives/block_reduce.cuh>

#include <prism/primitives/device_std.cuh>

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

namespace prism::detail {

// Lane `lane - delta`'s value (the caller's own below delta), one 32-bit word at a time.
template <class T>
__device__ T shuffle_up(const T& v, int delta) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = __shfl_up_sync(0xFFFFFFFFu, w[i], delta);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// Lane `lane`'s value, in every lane.
template <class T>
__device__ T shuffle_index(const T& v, int lane) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = __shfl_sync(0xFFFFFFFFu, w[i], lane);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// A value that may be absent: the prefix of the first element of a scan that has no initial value.
template <class T>
struct maybe {
  T value;
  bool present;
};

// a op b, where an absent a leaves b as it is.
template <class T, class Op>
__device__ T combine(const maybe<T>& a, const T& b, Op op) {
  return a.present ? op(a.value, b) : b;
}

// a op b for two values either of which may be absent.
template <class T, class Op>
__device__ maybe<T> combine(const maybe<T>& a, const maybe<T>& b, Op op) {
  if (!b.present) return a;
  return {combine(a, b.value, op), true};
}

// Inclusive scan across the 32 lanes: lane l gets v_0 op v_1 op ... op v_l. Kogge-Stone: 5 steps
// of shuffles, each lane combining with the lane `delta` below it (lanes below delta keep theirs),
// always the earlier value on the left, so the operator need not commute.
template <class T, class Op>
__device__ T warp_inclusive_scan(T v, Op op) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int delta = 1; delta < 32; delta *= 2) {
    const T earlier = shuffle_up(v, delta);
    if (lane >= delta) v = op(earlier, v);
  }
  return v;
}

// The values of lanes [0, last] combined in reverse lane order (lane last's value first, lane 0's
// last), valid in lane 0: what a look-back over the 32 tiles before a tile needs, where lane l
// holds tile (tile - 1 - l). A tree of shuffles in which lane i holds lanes [i, i + 2 delta) after
// the step of `delta`: contiguous ranges, so the operator need not commute.
template <class T, class Op>
__device__ T warp_reverse_reduce(T v, int last, Op op) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int delta = 1; delta < 32; delta *= 2) {
    const T later_lanes = shuffle_down(v, delta);
    if (lane + delta <= last) v = op(later_lanes, v);
  }
  return v;
}

// What the warps of a block have, combined across the block. Each warp's lane 31 hands in its
// warp's total; every thread gets its warp's exclusive prefix (absent in warp 0) and the block's
// total. `storage` holds one value per warp; a __syncthreads before and after make it reusable.
template <class T, class Op>
__device__ maybe<T> block_combine_warps(const T& warp_total, Op op, T* storage, T& block_total) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();  // storage may still be read by a previous call
  if (lane == 31) storage[warp] = warp_total;
  __syncthreads();
  maybe<T> prefix{storage[0], warp > 0};
  T total = storage[0];
  for (unsigned w = 1; w < warps; ++w) {
    const T next = storage[w];
    if (w < warp) prefix.value = op(prefix.value, next);
    total = op(total, next);
  }
  block_total = total;
  return prefix;
}

// Exclusive scan of one value per thread across the block, in thread order: thread t gets
// v_0 op ... op v_{t-1} (absent for thread 0), and every thread the block's total. Shuffles within
// each warp, then one value per warp through shared memory.
template <class T, class Op>
__device__ maybe<T> block_exclusive_scan(const T& v, Op op, T& block_total) {
  __shared__ __align__(16) unsigned char storage[32 * sizeof(T)];
  const T inclusive = warp_inclusive_scan(v, op);
  const T lane_exclusive = shuffle_up(inclusive, 1);
  const maybe<T> warp_prefix =
      block_combine_warps(inclusive, op, reinterpret_cast<T*>(storage), block_total);
  if (threadIdx.x % 32 == 0) return warp_prefix;
  return {combine(warp_prefix, lane_exclusive, op), true};
}

}  // namespace prism::detail
