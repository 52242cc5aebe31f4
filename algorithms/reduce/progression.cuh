#pragma once
// The reduction progression: six hand-written sum kernels, each one change away from the one
// before, from the textbook tree in shared memory to a kernel near the bandwidth ceiling (the
// seventh step is impl::raw in <prism/reduce.cuh>: 16-byte loads, four vectors in flight, one
// launch). Each kernel reduces a block's share of the input to one partial sum; the driver
// relaunches the same kernel on the partials until one value is left. Every step is
// deterministic: the order of additions is fixed by n.
#include <prism/buffer.hpp>
#include <prism/error.hpp>
#include <prism/reduce.cuh>
#include <prism/registry.hpp>
#include <prism/temporary_storage.hpp>

#include <algorithm>
#include <cstddef>

namespace prism::progression {

inline constexpr unsigned block = 256;

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
    if (tid % (2 * stride) == 0) s[tid] = reduction::plus<Acc>{}(s[tid], s[tid + stride]);
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
    if (index < blockDim.x) s[index] = reduction::plus<Acc>{}(s[index], s[index + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The tree of steps 3 and 4: halve the active threads each step, thread t adds t + s.
template <class Acc>
__device__ void sequential_tree(Acc* s, unsigned down_to) {
  for (unsigned stride = blockDim.x / 2; stride > down_to; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] = reduction::plus<Acc>{}(s[threadIdx.x], s[threadIdx.x + stride]);
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
  return reduction::plus<Acc>{}(element_or_zero<Acc>(x, i, n), element_or_zero<Acc>(x, i + blockDim.x, n));
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
    v = reduction::plus<Acc>{}(s[threadIdx.x], s[threadIdx.x + 32]);
    for (int delta = 16; delta > 0; delta /= 2)
      v = reduction::plus<Acc>{}(v, detail::shuffle_down(v, delta));
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
    v = reduction::plus<Acc>{}(v, static_cast<Acc>(x[i]));
  }
  s[threadIdx.x] = v;
  __syncthreads();
  v = tree_then_warp(s);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

inline bool is_step(impl which) {
  switch (which) {
    case impl::reduce_interleaved_divergent:
    case impl::reduce_interleaved:
    case impl::reduce_sequential:
    case impl::reduce_first_add:
    case impl::reduce_warp_shuffle:
    case impl::reduce_multiple:
      return true;
    default:
      return false;
  }
}

// The blocks one pass of `step` launches over n elements.
inline std::size_t blocks_for(impl step, std::size_t n) {
  switch (step) {
    case impl::reduce_first_add:
    case impl::reduce_warp_shuffle:
      return std::max<std::size_t>((n + 2 * block - 1) / (2 * block), 1);
    case impl::reduce_multiple:  // 8 blocks of 256: 2048 threads per SM
      return std::clamp<std::size_t>((n + block - 1) / block, 1,
                                     std::size_t(multiprocessor_count()) * 8);
    default:
      return std::max<std::size_t>((n + block - 1) / block, 1);
  }
}

template <class Acc, class In>
void launch(impl step, const In* x, std::size_t n, Acc* out, unsigned blocks, cudaStream_t stream) {
  const std::size_t shared = block * sizeof(Acc);
  switch (step) {
    case impl::reduce_interleaved_divergent:
      interleaved_divergent<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
    case impl::reduce_interleaved:
      interleaved<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
    case impl::reduce_sequential:
      sequential<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
    case impl::reduce_first_add:
      first_add_during_load<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
    case impl::reduce_warp_shuffle:
      warp_shuffle<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
    default:
      multiple_per_thread<Acc><<<blocks, block, shared, stream>>>(x, n, out);
      break;
  }
  check(cudaGetLastError(), "reduction progression kernel launch");
}

// The sum of x[0..n) (n > 0) in Acc with `step`, into device_result or, if null, returned: passes
// of the step's kernel over the partials of the pass before until one block is left, whose
// partial is the result (written straight into the stream's pinned host slot for the host).
template <class Acc, class In>
Acc sum(impl step, const In* x, std::size_t n, Acc* device_result, cudaStream_t stream) {
  const std::size_t first_blocks = blocks_for(step, n);
  // Step 6 finishes in one block whatever the number of partials: its threads loop.
  const auto next_blocks = [step](std::size_t partials) {
    return step == impl::reduce_multiple ? 1 : blocks_for(step, partials);
  };
  const std::size_t second_blocks = first_blocks > 1 ? next_blocks(first_blocks) : 0;
  auto lease = acquire_temporary_storage((first_blocks + second_blocks) * sizeof(Acc), stream);
  Acc* buffers[2] = {static_cast<Acc*>(lease.device()), static_cast<Acc*>(lease.device()) + first_blocks};
  Acc* result = device_result != nullptr ? device_result : static_cast<Acc*>(lease.pinned_host());

  std::size_t blocks = first_blocks;
  launch(step, x, n, blocks == 1 ? result : buffers[0], static_cast<unsigned>(blocks), stream);
  for (int pass = 1; blocks > 1; ++pass) {
    const std::size_t partials = blocks;
    blocks = next_blocks(partials);
    launch(step, static_cast<const Acc*>(buffers[(pass + 1) % 2]), partials,
           blocks == 1 ? result : buffers[pass % 2], static_cast<unsigned>(blocks), stream);
  }
  if (device_result != nullptr) return Acc{};
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *result;
}

}  // namespace prism::progression
