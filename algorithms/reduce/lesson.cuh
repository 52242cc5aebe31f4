// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reduction lesson (prism::reduce_stage): six hand-written sum kernels, each one change away
// from the one before, from the textbook tree in shared memory to a kernel near the bandwidth
// ceiling (the seventh step is impl::raw in <prism/reduce.cuh>: 16-byte loads, four vectors in
// flight, one launch). Each kernel reduces a block's share of the input to one partial sum; the driver
// relaunches the same kernel on the partials until one value is left. Every step is
// deterministic: the order of additions is fixed by n.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/reduce.hpp>
#include <prism/scratch.hpp>

#include <algorithm>
#include <cstddef>

namespace prism::lesson {

using detail::block_size;

template <class Acc>
__device__ Acc* shared_partials() {
  extern __shared__ __align__(16) unsigned char memory[];
  return reinterpret_cast<Acc*>(memory);
}

template <class Acc, class In>
__device__ Acc element_or_zero(const In* x, std::size_t i, std::size_t n) {
  return i < n ? static_cast<Acc>(x[i]) : Acc(0);
}

// 1. Interleaved addressing with a divergent branch: in step s, threads whose index is a multiple
// of 2s add the partial s to their right. The active threads are scattered over every warp, so
// each step runs all warps for a handful of useful lanes, and `%` is slow.
template <class Acc, class In>
__global__ void interleaved_divergent(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  const unsigned tid = threadIdx.x;
  s[tid] = element_or_zero<Acc>(x, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] = functors::plus<Acc>{}(s[tid], s[tid + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2. Interleaved addressing, contiguous threads: thread t works on element 2*s*t, so the active
// threads are the first ones and whole warps retire. The strided shared-memory accesses now hit
// the same bank from many lanes (bank conflicts), which is what limits this step.
template <class Acc, class In>
__global__ void interleaved(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  const unsigned tid = threadIdx.x;
  s[tid] = element_or_zero<Acc>(x, blockIdx.x * std::size_t{blockDim.x} + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) s[index] = functors::plus<Acc>{}(s[index], s[index + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The tree of steps 3 and 4: halve the active threads each step, thread t adds t + s.
template <class Acc>
__device__ void sequential_tree(Acc* s, unsigned down_to) {
  for (unsigned stride = blockDim.x / 2; stride > down_to; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] = functors::plus<Acc>{}(s[threadIdx.x], s[threadIdx.x + stride]);
    __syncthreads();
  }
}

// 3. Sequential addressing: thread t adds t + s, s halving from blockDim/2. Consecutive lanes
// touch consecutive words: no bank conflicts. Half the threads idle from the first step on.
template <class Acc, class In>
__global__ void sequential(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  s[threadIdx.x] = element_or_zero<Acc>(x, blockIdx.x * std::size_t{blockDim.x} + threadIdx.x, n);
  __syncthreads();
  sequential_tree(s, 0);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// Two elements per thread, added as they are loaded: the half of the threads that step 3 left
// idle from the start now do useful work, and half the blocks cover the input.
template <class Acc, class In>
__device__ Acc first_add(const In* x, std::size_t n) {
  const std::size_t i = blockIdx.x * (2 * std::size_t{blockDim.x}) + threadIdx.x;
  return functors::plus<Acc>{}(element_or_zero<Acc>(x, i, n), element_or_zero<Acc>(x, i + blockDim.x, n));
}

// 4. First add during load (above), then step 3's tree.
template <class Acc, class In>
__global__ void first_add_during_load(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  s[threadIdx.x] = first_add<Acc>(x, n);
  __syncthreads();
  sequential_tree(s, 0);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

// The end of the tree in registers: once 64 partials are left, the first warp adds the upper 32
// and finishes with __shfl_down_sync, no shared memory and no __syncthreads. (The old trick, a
// `volatile` pointer and implicit warp synchrony, is undefined since Volta's independent thread
// scheduling; the shuffle is the correct form.)
template <class Acc>
__device__ Acc tree_then_warp(Acc* s) {
  sequential_tree(s, 32);
  Acc v = Acc(0);
  if (threadIdx.x < 32) {
    v = functors::plus<Acc>{}(s[threadIdx.x], s[threadIdx.x + 32]);
    for (int delta = 16; delta > 0; delta /= 2)
      v = functors::plus<Acc>{}(v, detail::shuffle_down(v, delta));
  }
  return v;
}

// 5. Warp unrolling: step 4, with the last six steps of the tree in one warp's shuffles.
template <class Acc, class In>
__global__ void warp_shuffle(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  s[threadIdx.x] = first_add<Acc>(x, n);
  __syncthreads();
  const Acc v = tree_then_warp(s);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// 6. Multiple elements per thread: a grid only as large as the GPU holds at once, each thread
// adding up its elements with a grid-sized stride before the tree. The tree's cost is paid once
// per thread instead of once per two elements, and the second pass has at most a few thousand
// partials instead of n/512.
template <class Acc, class In>
__global__ void multiple_per_thread(const In* x, std::size_t n, Acc* out) {
  Acc* s = shared_partials<Acc>();
  Acc v = Acc(0);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    v = functors::plus<Acc>{}(v, static_cast<Acc>(x[i]));
  }
  s[threadIdx.x] = v;
  __syncthreads();
  v = tree_then_warp(s);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// The blocks one pass of `stage` launches over n elements.
inline std::size_t blocks_for(reduce_stage stage, std::size_t n) {
  switch (stage) {
    case reduce_stage::first_add:
    case reduce_stage::warp_shuffle:
      return std::max<std::size_t>((n + 2 * block_size - 1) / (2 * block_size), 1);
    case reduce_stage::multiple:  // 8 blocks of 256: 2048 threads per SM
      return std::clamp<std::size_t>((n + block_size - 1) / block_size, 1,
                                     std::size_t(detail::multiprocessor_count()) * 8);
    default:
      return std::max<std::size_t>((n + block_size - 1) / block_size, 1);
  }
}

template <class Acc, class In>
void launch(reduce_stage stage, const In* x, std::size_t n, Acc* out, unsigned blocks,
            cudaStream_t stream) {
  const std::size_t shared = block_size * sizeof(Acc);
  const auto run = [&](auto kernel) {
    detail::launch_shared("sum", "reduce lesson kernel", kernel, blocks, block_size, shared,
                          stream, x, n, out);
  };
  switch (stage) {
    case reduce_stage::interleaved_divergent: return run(interleaved_divergent<Acc, In>);
    case reduce_stage::interleaved: return run(interleaved<Acc, In>);
    case reduce_stage::sequential: return run(sequential<Acc, In>);
    case reduce_stage::first_add: return run(first_add_during_load<Acc, In>);
    case reduce_stage::warp_shuffle: return run(warp_shuffle<Acc, In>);
    case reduce_stage::multiple: return run(multiple_per_thread<Acc, In>);
  }
}

// The sum of x[0..n) (n > 0) in Acc with `stage`, into `result` (device memory, or the pinned
// host slot the dispatch reads when the sum is returned): passes of the stage's kernel over the
// partials of the pass before until one block is left, whose partial is the result.
template <class Acc, class In>
void sum(reduce_stage stage, const execution_policy& policy, const In* x, std::size_t n, Acc* result) {
  const cudaStream_t stream = policy.stream();
  const std::size_t first_blocks = blocks_for(stage, n);
  // Stage 6 finishes in one block whatever the number of partials: its threads loop.
  const auto next_blocks = [stage](std::size_t partials) {
    return stage == reduce_stage::multiple ? 1 : blocks_for(stage, partials);
  };
  const std::size_t second_blocks = first_blocks > 1 ? next_blocks(first_blocks) : 0;
  const scratch lease = acquire_scratch((first_blocks + second_blocks) * sizeof(Acc),
                                        detail::with_explicit_stream(policy), "sum");
  Acc* buffers[2] = {static_cast<Acc*>(lease.device()), static_cast<Acc*>(lease.device()) + first_blocks};
  std::size_t blocks = first_blocks;
  launch(stage, x, n, blocks == 1 ? result : buffers[0], static_cast<unsigned>(blocks), stream);
  for (int pass = 1; blocks > 1; ++pass) {
    const std::size_t partials = blocks;
    blocks = next_blocks(partials);
    launch(stage, static_cast<const Acc*>(buffers[(pass + 1) % 2]), partials,
           blocks == 1 ? result : buffers[pass % 2], static_cast<unsigned>(blocks), stream);
  }
}

}  // namespace prism::lesson
