// SPDX-License-Identifier: Apache-2.0
#pragma once
// The last-block combine: a one-launch way to finish a grid-wide reduction. Each block publishes
// its partial and counts its arrival; the block that arrives last combines every partial in a
// fixed order (deterministic) and sets the counter back to zero for the next launch on the
// stream, so no memset launch is needed between calls.
#include <prism/primitives/block_reduce.cuh>

#include <prism/primitives/device_std.cuh>

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif

namespace prism::detail {

// A value padded to whole 32-bit words: what crosses between blocks through L2.
template <class T>
struct alignas(4) staged {
  unsigned char bytes[(sizeof(T) + 3) / 4 * 4];
};

// Every word stored with st.global.cg and loaded with ld.global.cg: the partials are written by
// one block and read by another, so they must bypass L1.
template <class T>
__device__ void store_to_l2(staged<T>* p, const T& v) {
  unsigned w[sizeof(staged<T>) / 4] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < int(sizeof(staged<T>) / 4); ++i) __stcg(reinterpret_cast<unsigned*>(p) + i, w[i]);
}

template <class T>
__device__ T load_from_l2(const staged<T>* p) {
  unsigned w[sizeof(staged<T>) / 4];
#pragma unroll
  for (int i = 0; i < int(sizeof(staged<T>) / 4); ++i) w[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// Called by every thread of every block once thread 0 has stored the block's partial (store_to_l2):
// true in every thread of the block that arrives last, which then sees every block's partial.
// `arrivals` must be zero at the launch; the last block sets it back to zero (the caller's last
// use of it: every other block has counted itself, and none reads it again).
__device__ inline bool last_to_arrive(unsigned* arrivals) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();  // the partial is visible before the arrival is counted
    last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
    if (last) *arrivals = 0;
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// Called by every thread of every block with the block's reduced value (valid in thread 0).
// Returns true in thread 0 of the last block to arrive, with `total` the combination of every
// block's partial; `arrivals` must be zero at the launch and is zero again when the grid ends.
template <class T, class Op>
__device__ bool last_block_combine(const T& block_value, Op op, T identity, staged<T>* partials,
                                   unsigned* arrivals, T& total) {
  if (threadIdx.x == 0) store_to_l2(partials + blockIdx.x, block_value);
  if (!last_to_arrive(arrivals)) return false;
  T c = identity;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) c = op(c, load_from_l2(partials + i));
  c = block_reduce(c, op, identity);
  if (threadIdx.x == 0) total = c;
  return threadIdx.x == 0;
}

}  // namespace prism::detail
