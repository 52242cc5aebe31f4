// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::adjacent_difference: out[0] = x[0], out[i] = op(x[i], x[i - 1]) for any device functor op
// (the difference by default), in every implementation; out may be x exactly (in place).
//
//   prism::adjacent_difference(x, out);                         // out[i] = x[i] - x[i - 1]
//   prism::adjacent_difference(prism::par.on(stream), x, x, op);  // in place, any operator
//
// What makes it more than an element-wise map is the element before: a thread needs its left
// neighbour's element, and in place that neighbour may already have been overwritten. The five
// implementations, side by side at the bottom:
//   cpu        thrust::adjacent_difference through Thrust's OpenMP system (a copy first in place).
//   thrust     thrust::adjacent_difference on the GPU: CUB's algorithm underneath.
//   raw_naive  one thread per element reading x[i] and x[i - 1]; in place it reads a copy of x.
//   raw        a tile of 16-byte vectors per block: every thread loads its vector, hands its last
//              element to the next thread through shared memory, and only then does anyone store,
//              so a tile never reads what it has written. The element before each tile is another
//              block's: out of place it is read from x, in place a first small kernel saves it.
//   cub        cub::DeviceAdjacentDifference::SubtractLeftCopy, or SubtractLeft in place.
#include <prism/dispatch.cuh>
#include <prism/elementwise.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/scratch.hpp>
#include <prism/span.hpp>

#include <cub/device/device_adjacent_difference.cuh>
#include <thrust/adjacent_difference.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism {
namespace detail {

// ---- raw_naive: the textbook kernel -------------------------------------------------------------

template <class T, class Op>
__global__ void adjacent_difference_naive_kernel(const T* x, T* out, std::size_t n, Op op) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = i == 0 ? x[0] : op(x[i], x[i - 1]);
}

// ---- raw: tiles of vectors ----------------------------------------------------------------------

// The element before each tile but the first, saved before an in-place pass overwrites it.
template <class T>
__global__ void tile_boundaries_kernel(const T* x, std::size_t tiles, std::size_t tile, T* boundary) {
  const std::size_t b = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (b > 0 && b < tiles) boundary[b] = x[b * tile - 1];
}

// One tile of blockDim.x * V elements per block. `boundary` holds the element before each tile
// (in place), or is null and x is read (out of place).
template <int V, class T, class Op>
__global__ void adjacent_difference_kernel(const T* x, T* out, std::size_t n, Op op, const T* boundary) {
  __shared__ alignas(T) unsigned char storage[block_size * sizeof(T)];
  T* last = reinterpret_cast<T*>(storage);
  const std::size_t start = blockIdx.x * std::size_t{blockDim.x} * V;
  const std::size_t i = start + std::size_t{threadIdx.x} * V;
  vector_of<T, V> v;
  const bool whole = i + V <= n;
  if (whole) {
    v = load_vector<V>(x + i);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (i + k < n) v.element[k] = x[i + k];
  }
  last[threadIdx.x] = v.element[V - 1];
  T before{};
  if (threadIdx.x == 0 && blockIdx.x > 0) before = boundary != nullptr ? boundary[blockIdx.x] : x[start - 1];
  __syncthreads();  // every element of the tile has been read: from here on the tile may write
  if (threadIdx.x > 0) before = last[threadIdx.x - 1];
  vector_of<T, V> r;
  r.element[0] = i == 0 ? v.element[0] : op(v.element[0], before);
#pragma unroll
  for (int k = 1; k < V; ++k) r.element[k] = op(v.element[k], v.element[k - 1]);
  if (whole) {
    store_vector<V>(out + i, r);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (i + k < n) out[i + k] = r.element[k];
  }
}

template <int V, class T, class Op>
void adjacent_difference_tiles(const char* algorithm, const execution_policy& policy, const T* x, T* out,
                               std::size_t n, Op op) {
  const std::size_t tile = std::size_t{block_size} * V;
  const std::size_t tiles = (n + tile - 1) / tile;
  const cudaStream_t stream = policy.stream();
  if (x != out || tiles == 1) {
    launch(algorithm, "adjacent_difference_kernel", adjacent_difference_kernel<V, T, Op>,
           static_cast<unsigned>(tiles), block_size, stream, x, out, n, op, static_cast<const T*>(nullptr));
    return;
  }
  const scratch lease = acquire_scratch(tiles * sizeof(T), with_explicit_stream(policy), algorithm);
  T* boundary = static_cast<T*>(lease.device());
  launch(algorithm, "tile_boundaries_kernel", tile_boundaries_kernel<T>, blocks_for(tiles), block_size, stream, x,
         tiles, tile, boundary);
  launch(algorithm, "adjacent_difference_kernel", adjacent_difference_kernel<V, T, Op>, static_cast<unsigned>(tiles),
         block_size, stream, x, out, n, op, static_cast<const T*>(boundary));
}

// ---- the implementations side by side -----------------------------------------------------------

template <class T, class Op>
void adjacent_difference_spans(const char* algorithm, const execution_policy& policy, span<const T> x, span<T> out,
                               Op op) {
  const std::size_t n = x.size();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) { thrust::adjacent_difference(p, in, in + n, o, op); };
  dispatch<Op>(
      {algorithm, elementwise_family, policy,
       {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                const T* from = in;
                std::optional<scratch> copy;
                if (in == o) {  // in place: the elements before are read from a copy
                  copy.emplace(acquire_scratch(n * sizeof(T), with_explicit_stream(policy), algorithm));
                  from = static_cast<const T*>(copy->device());
                  copy_unless_same(stream, in, static_cast<T*>(copy->device()), n, algorithm);
                }
                launch(algorithm, "adjacent_difference_naive_kernel", adjacent_difference_naive_kernel<T, Op>,
                       blocks_for(n), block_size, stream, from, o, n, op);
              },
          .raw =
              [&] {
                constexpr int V = vector_width<T>;
                if (aligned(in, sizeof(vector_of<T, V>)) && aligned(o, sizeof(vector_of<T, V>))) {
                  adjacent_difference_tiles<V>(algorithm, policy, in, o, n, op);
                } else {
                  adjacent_difference_tiles<1>(algorithm, policy, in, o, n, op);
                }
              },
          .cub =
              [&] {
                const auto items = static_cast<std::int64_t>(n);
                cub_call(algorithm, "cub::DeviceAdjacentDifference", policy, {n, in == o},
                         [&](void* temp, std::size_t& bytes, void*) {
                           if (in == o) return cub::DeviceAdjacentDifference::SubtractLeft(temp, bytes, o, items, op, stream);
                           return cub::DeviceAdjacentDifference::SubtractLeftCopy(temp, bytes, in, o, items, op, stream);
                         });
              },
      });
}

}  // namespace detail

namespace ops {


// out[0] = x[0], out[i] = op(x[i], x[i - 1]). out may be x exactly (in place).
template <class X, class O, class Op>
  requires detail::writable_array<O> && array_of<X, value_t<O>>
void run(adjacent_difference, const execution_policy& policy, X&& x, O&& out, Op op) {
  detail::adjacent_difference_spans<value_t<O>>("adjacent_difference", policy, input_span(x), output_span(out), op);
}
}  // namespace ops



}  // namespace prism
