// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernels of a user's own expression, compiled at run time by NVRTC (prism_primitives'
// ElementwiseKernel, ReductionKernel and ScanKernel): device code only, on the same primitives as
// prism's compiled kernels (16-byte vector access, warp shuffles, block reduce and scan, the
// last-block combine). What changes with the user's expression is a small struct generated per
// signature (python/src/runtime_kernels.cpp writes it) that says how one element, or one vector
// of V elements, of every array is read, mapped and written; the tiling is here, once:
//
//   struct arrays {                       // generated: one pointer per array, the user's scalars
//     template <int V> __device__ void vector(std::size_t i) const;   // elements i .. i + V - 1
//     __device__ void element(std::size_t i) const;                   // element i alone
//     using value = ...;                  // reductions and scans: the type being combined
//     template <int V> __device__ void map_vector(std::size_t i, value (&out)[V]) const;
//     __device__ value map_element(std::size_t i) const;
//     __device__ static value combine(const value& a, const value& b);
//   };
//
// Each pattern comes twice, as prism's compiled families have it: raw_naive, the textbook kernel
// (one thread per element, one scalar load per array), and raw, the tuned one (16-byte vectors,
// several in flight for a reduction), whose speed is the compiled raw kernel's: the same loads
// and tiles.
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/block_scan.cuh>
#include <prism/primitives/device_std.cuh>
#include <prism/primitives/last_block.cuh>
#include <prism/primitives/vector_access.cuh>

namespace prism::rtc {

using detail::maybe;
using detail::staged;

// ---- element-wise -----------------------------------------------------------------------------------

// raw_naive: one thread per element.
template <class Arrays>
__device__ void elementwise_naive(const Arrays& p, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) p.element(i);
}

// raw: one vector of every array per thread, one tile of blockDim.x vectors per block, the
// elements before the arrays reach vector alignment (head) and after the last whole vector one
// each to the threads past the last vector: transform_vector_kernel's scheme
// (<prism/transform.cuh>), so a user's c = a + b moves its bytes as prism.add does.
template <int V, class Arrays>
__device__ void elementwise_vector(const Arrays& p, std::size_t n, std::size_t head, std::size_t vectors) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < vectors) {
    p.template vector<V>(head + t * V);
  } else {
    const std::size_t edge = t - vectors;  // the head's elements first, then the tail's
    const std::size_t i = edge < head ? edge : head + vectors * V + (edge - head);
    if (i < n) p.element(i);
  }
}

// ---- reductions -------------------------------------------------------------------------------------

// combine() over maybe-absent values: a reduction or scan needs no identity from the user.
template <class Arrays>
struct combine_present {
  using value = typename Arrays::value;
  __device__ maybe<value> operator()(const maybe<value>& a, const maybe<value>& b) const {
    if (!a.present) return b;
    if (!b.present) return a;
    return {Arrays::combine(a.value, b.value), true};
  }
};

// The block's values, then the grid's through the last block, finished by p.finish(total) in one
// thread (the post-map and the store of the result).
template <class Arrays>
__device__ void reduce_finish(const Arrays& p, maybe<typename Arrays::value> v,
                              staged<maybe<typename Arrays::value>>* partials, unsigned* arrivals) {
  using M = maybe<typename Arrays::value>;
  const combine_present<Arrays> op;
  const M none{typename Arrays::value{}, false};
  const M block = detail::block_reduce(v, op, none);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) p.finish(block);
    return;
  }
  M total;
  if (detail::last_block_combine(block, op, none, partials, arrivals, total)) p.finish(total);
}

// raw_naive: one element per thread, the tree of shuffles and shared memory of the block, the
// last block combining the blocks' partials.
template <class Arrays>
__device__ void reduce_naive(const Arrays& p, std::size_t n, staged<maybe<typename Arrays::value>>* partials,
                             unsigned* arrivals) {
  using M = maybe<typename Arrays::value>;
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  M v{typename Arrays::value{}, false};
  if (i < n) v = {p.map_element(i), true};
  reduce_finish(p, v, partials, arrivals);
}

// raw: reduce_vector_kernel's scheme (<prism/reduce.cuh>): a grid that fills the GPU once, each
// thread walking the vectors with a grid-sized stride, four 16-byte vectors of every input in
// flight, the step's elements combined as a balanced tree; the scalar head and tail to the first
// threads.
template <int V, class Arrays>
__device__ void reduce_vector(const Arrays& p, std::size_t n, std::size_t head, std::size_t vectors,
                              staged<maybe<typename Arrays::value>>* partials, unsigned* arrivals) {
  using T = typename Arrays::value;
  constexpr int U = 4;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t first = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  maybe<T> acc{T{}, false};
  const auto add = [&](const T& x) { acc = acc.present ? maybe<T>{Arrays::combine(acc.value, x), true} : maybe<T>{x, true}; };
  std::size_t t = first;
  for (; t + (U - 1) * stride < vectors; t += U * stride) {
    T part[U * V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      T mapped[V];
      p.template map_vector<V>(head + (t + u * stride) * V, mapped);
#pragma unroll
      for (int k = 0; k < V; ++k) part[u * V + k] = mapped[k];
    }
#pragma unroll
    for (int level = 0; (1 << level) < U * V; ++level) {
#pragma unroll
      for (int j = 0; j < U * V; j += 2 << level) part[j] = Arrays::combine(part[j], part[j + (1 << level)]);
    }
    add(part[0]);
  }
  for (; t < vectors; t += stride) {
    T mapped[V];
    p.template map_vector<V>(head + t * V, mapped);
#pragma unroll
    for (int k = 0; k < V; ++k) add(mapped[k]);
  }
  if (first < head) add(p.map_element(first));
  const std::size_t tail = head + vectors * V;
  if (first < n - tail) add(p.map_element(tail + first));
  reduce_finish(p, acc, partials, arrivals);
}

// ---- scans ------------------------------------------------------------------------------------------
// Reduce, then scan: each block reduces its tile of `Items` elements per thread (pass 1), one block
// scans the tiles' totals (pass 2), each block scans its tile again from its tile's prefix and
// writes it (pass 3). The input is read twice: a third more traffic than the compiled raw scan's
// single pass with decoupled look-back, for a kernel any expression can be put into.

// The thread's `Items` elements of tile `tile`, mapped; absent past n.
template <int Items, class Arrays>
__device__ void scan_load(const Arrays& p, std::size_t n, std::size_t tile,
                          maybe<typename Arrays::value> (&x)[Items]) {
  const std::size_t first = (tile * blockDim.x + threadIdx.x) * std::size_t{Items};
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    const std::size_t i = first + k;
    x[k] = i < n ? maybe<typename Arrays::value>{p.map_element(i), true}
                 : maybe<typename Arrays::value>{typename Arrays::value{}, false};
  }
}

// Pass 1: the tile's total into totals[tile].
template <int Items, class Arrays>
__device__ void scan_tile_totals(const Arrays& p, std::size_t n, maybe<typename Arrays::value>* totals) {
  using M = maybe<typename Arrays::value>;
  const combine_present<Arrays> op;
  M x[Items];
  scan_load<Items>(p, n, blockIdx.x, x);
  M mine = x[0];
#pragma unroll
  for (int k = 1; k < Items; ++k) mine = op(mine, x[k]);
  M block;
  (void)detail::block_exclusive_scan(mine, op, block);
  if (threadIdx.x == 0) totals[blockIdx.x] = block;
}

// Pass 2, one block: totals[t] becomes the combination of totals[0 .. t - 1] (absent for 0).
template <class Arrays>
__device__ void scan_tile_prefixes(maybe<typename Arrays::value>* totals, std::size_t tiles) {
  using M = maybe<typename Arrays::value>;
  const combine_present<Arrays> op;
  M carry{typename Arrays::value{}, false};
  for (std::size_t base = 0; base < tiles; base += blockDim.x) {
    const std::size_t t = base + threadIdx.x;
    const M mine = t < tiles ? totals[t] : M{typename Arrays::value{}, false};
    M block;
    const maybe<M> before = detail::block_exclusive_scan(mine, op, block);
    __syncthreads();  // every thread has read its total before any is overwritten
    if (t < tiles) totals[t] = before.present ? op(carry, before.value) : carry;
    carry = op(carry, block);
  }
}

// Pass 3: every element's inclusive prefix, handed to p.write(i, prefix, element) (which writes
// the exclusive or the inclusive result).
template <int Items, class Arrays>
__device__ void scan_tile_write(const Arrays& p, std::size_t n, const maybe<typename Arrays::value>* prefixes) {
  using M = maybe<typename Arrays::value>;
  const combine_present<Arrays> op;
  M x[Items];
  scan_load<Items>(p, n, blockIdx.x, x);
  M mine = x[0];
#pragma unroll
  for (int k = 1; k < Items; ++k) mine = op(mine, x[k]);
  M block;
  const maybe<M> before = detail::block_exclusive_scan(mine, op, block);
  M running = op(prefixes[blockIdx.x], before.present ? before.value : M{typename Arrays::value{}, false});
  const std::size_t first = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) * std::size_t{Items};
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (first + k < n) {
      p.write(first + k, running, x[k].value);
      running = op(running, x[k]);
    }
  }
}

}  // namespace prism::rtc
