// SPDX-License-Identifier: Apache-2.0
#pragma once
// Warp- and block-wide reduction of any trivially copyable value, for every family's kernels
// (the tuned reduction; scan and histogram combine their tiles the same way).
#include <prism/primitives/device_std.cuh>

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

namespace prism::detail {

// A value moved between lanes one 32-bit word at a time: any size, any trivially copyable type
// (a bool, a __half, a (value, index) pair, a struct of moments).
template <class T>
__device__ T shuffle_down(const T& v, int delta) {
  static_assert(std::is_trivially_copyable_v<T>);
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) w[i] = __shfl_down_sync(0xFFFFFFFFu, w[i], delta);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// The 32 lanes' values combined by op; valid in lane 0. A tree of shuffles: 5 steps, no memory.
template <class T, class Op>
__device__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) v = op(v, shuffle_down(v, delta));
  return v;
}

// The block's values combined by op; valid in thread 0. Each warp reduces with shuffles, then the
// first warp reduces the warps' results. The order of combination is fixed: deterministic.
template <class T, class Op>
__device__ T block_reduce(T v, Op op, T identity) {
  __shared__ __align__(16) unsigned char storage[32 * sizeof(T)];
  T* warp_results = reinterpret_cast<T*>(storage);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce(v, op);
  __syncthreads();  // storage may still be read by a previous call
  if (lane == 0) memcpy(&warp_results[warp], &v, sizeof(T));
  __syncthreads();
  if (warp == 0) {
    if (lane < blockDim.x / 32) {
      memcpy(&v, &warp_results[lane], sizeof(T));
    } else {
      v = identity;
    }
    v = warp_reduce(v, op);
  }
  return v;
}

}  // namespace prism::detail
