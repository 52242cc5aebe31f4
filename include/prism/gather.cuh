// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::gather and prism::scatter, by an index array:
//   gather   out[i] = values[map[i]]   (out has the map's size)
//   scatter  out[map[i]] = values[i]   (the map has the values' size; an index that appears twice
//                                       leaves one of its values, which one is not defined)
// They only move elements, so the library compiles them per element size (any trivially copyable
// type of 1, 2, 4, 8 or 16 bytes aligned to its size moves as bits) and per index type (int32,
// int64). An index outside the array it points into is the caller's promise not to make under
// bounds::unchecked, as in Thrust; under bounds::checked every index is checked first (a reduction
// over the map, which the call waits for) and one outside refuses the call with nothing written.
//
// The implementations, side by side at the bottom. Every one reads the map in order and touches
// the values (gather) or the output (scatter) wherever the map points: the random side decides
// the speed, and the sequential side is what the raw kernel can tune.
//   cpu, thrust  thrust::gather and thrust::scatter (OpenMP, or the GPU on the caller's stream).
//   raw_naive    one thread per index.
//   raw          16 bytes of indices per thread as one vector load, then that many independent
//                element accesses in flight.
//   cub          cub::DeviceTransform over the map with a lookup (gather), cub::DeviceFor over the
//                positions (scatter).
#include <prism/dispatch.cuh>
#include <prism/elementwise.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/reduce.cuh>
#include <prism/span.hpp>

#include <cub/device/device_for.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scatter.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism::detail {

// ---- bounds::checked: the first index outside [0, limit), found by a reduction ---------------------

template <class I>
struct position_if_outside {
  std::uint64_t limit, none;
  __host__ __device__ std::uint64_t operator()(std::int64_t i, I index) const {
    return index < 0 || static_cast<std::uint64_t>(index) >= limit ? static_cast<std::uint64_t>(i) : none;
  }
};
struct smaller {
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a < b ? a : b; }
};

// Refuses the call if an index of `map` is outside [0, limit), naming the first. The reduction runs
// where the map lives (cpu for host memory, the fastest GPU reduction otherwise), on the stream.
template <class I>
void check_indices(const char* algorithm, const execution_policy& policy, span<const I> map, std::size_t limit) {
  const std::size_t n = map.size();
  const std::uint64_t first = reduce_spans<std::uint64_t>(
      algorithm, reduce_family, policy.with(impl::automatic), position_if_outside<I>{limit, n}, smaller{},
      std::uint64_t{n}, functors::no_finalize{}, static_cast<span<std::uint64_t>*>(nullptr), std::tuple{map});
  if (first == n) return;
  I index{};
  if (placement_of(map.data()).where == residence::device) {
    check(cudaMemcpy(&index, map.data() + first, sizeof(I), cudaMemcpyDeviceToHost), "cudaMemcpy", algorithm);
  } else {
    index = map.data()[first];
  }
  throw std::invalid_argument(std::string("prism::") + algorithm + ": map[" + std::to_string(first) + "] is " +
                              std::to_string(index) + ", outside the " + std::to_string(limit) +
                              " elements it indexes (bounds::checked)");
}

// ---- raw_naive and raw ------------------------------------------------------------------------------

template <class T, class I>
__global__ void gather_naive_kernel(const I* map, const T* values, T* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = values[map[i]];
}

template <class T, class I>
__global__ void scatter_naive_kernel(const T* values, const I* map, T* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[map[i]] = values[i];
}

// V indices per thread, loaded as one vector; the V element accesses they name are independent,
// so all V are in flight at once.
template <int V, bool Gather, class T, class I>
__global__ void permute_kernel(const I* map, const T* values, T* out, std::size_t n) {
  const std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * V;
  if (i + V <= n) {
    const vector_of<I, V> m = load_vector<V>(map + i);
    T r[V];
#pragma unroll
    for (int k = 0; k < V; ++k) r[k] = Gather ? values[m.element[k]] : values[i + k];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      if constexpr (Gather) {
        out[i + k] = r[k];
      } else {
        out[m.element[k]] = r[k];
      }
    }
  } else {
    for (std::size_t j = i; j < n; ++j) {
      if constexpr (Gather) {
        out[j] = values[map[j]];
      } else {
        out[map[j]] = values[j];
      }
    }
  }
}

template <bool Gather, class T, class I>
void permute_raw(const char* algorithm, cudaStream_t stream, const I* map, const T* values, T* out, std::size_t n) {
  constexpr int V = vector_width<I>;
  if (aligned(map, sizeof(vector_of<I, V>))) {
    launch(algorithm, "permute_kernel", permute_kernel<V, Gather, T, I>, blocks_for((n + V - 1) / V), block_size,
           stream, map, values, out, n);
  } else {
    launch(algorithm, "permute_kernel", permute_kernel<1, Gather, T, I>, blocks_for(n), block_size, stream, map,
           values, out, n);
  }
}

// ---- cub ----------------------------------------------------------------------------------------

template <class T>
struct lookup {
  const T* values;
  template <class I>
  __device__ T operator()(I index) const {
    return values[index];
  }
};

template <class T, class I>
struct place {
  const T* values;
  const I* map;
  T* out;
  __device__ void operator()(std::int64_t i) const { out[map[i]] = values[i]; }
};

// ---- the implementations side by side -----------------------------------------------------------

template <class T, class I>
void gather_spans(const execution_policy& policy, span<const I> map, span<const T> values, span<T> out,
                  bounds checking) {
  const char* algorithm = "gather";
  const std::size_t n = map.size();
  const I* m = map.data();
  const T* v = values.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto checked = [&] {
    if (checking == bounds::checked) check_indices(algorithm, policy, map, values.size());
  };
  const auto on_thrust = [&](const auto& p) {
    checked();
    thrust::gather(p, m, m + n, v, o);
  };
  dispatch({algorithm, elementwise_family, policy,
            {array_ref::input(map, "the map"), array_ref::input(values, "the values"),
             array_ref::output_apart(out, "the output").sized(n)},
            n, map.size_bytes() + 2 * out.size_bytes()},
           implementations{
               .cpu = on_thrust,
               .thrust = on_thrust,
               .raw_naive =
                   [&] {
                     checked();
                     launch(algorithm, "gather_naive_kernel", gather_naive_kernel<T, I>, blocks_for(n), block_size,
                            stream, m, v, o, n);
                   },
               .raw =
                   [&] {
                     checked();
                     permute_raw<true>(algorithm, stream, m, v, o, n);
                   },
               .cub =
                   [&] {
                     checked();
                     clear_stale_error();
                     check(cub::DeviceTransform::Transform(cuda::std::make_tuple(m), o, static_cast<std::int64_t>(n),
                                                           lookup<T>{v}, stream),
                           "cub::DeviceTransform::Transform", algorithm);
                   },
           });
}

template <class T, class I>
void scatter_spans(const execution_policy& policy, span<const T> values, span<const I> map, span<T> out,
                   bounds checking) {
  const char* algorithm = "scatter";
  const std::size_t n = values.size();
  const I* m = map.data();
  const T* v = values.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto checked = [&] {
    if (checking == bounds::checked) check_indices(algorithm, policy, map, out.size());
  };
  const auto on_thrust = [&](const auto& p) {
    checked();
    thrust::scatter(p, v, v + n, m, o);
  };
  dispatch({algorithm, elementwise_family, policy,
            {array_ref::input(values, "the values"), array_ref::input(map, "the map").sized(n),
             array_ref::output_apart(out, "the output")},
            n, map.size_bytes() + 2 * values.size_bytes()},
           implementations{
               .cpu = on_thrust,
               .thrust = on_thrust,
               .raw_naive =
                   [&] {
                     checked();
                     launch(algorithm, "scatter_naive_kernel", scatter_naive_kernel<T, I>, blocks_for(n), block_size,
                            stream, v, m, o, n);
                   },
               .raw =
                   [&] {
                     checked();
                     permute_raw<false>(algorithm, stream, m, v, o, n);
                   },
               .cub =
                   [&] {
                     checked();
                     clear_stale_error();
                     check(cub::DeviceFor::ForEachN(thrust::counting_iterator<std::int64_t>(0),
                                                    static_cast<std::int64_t>(n), place<T, I>{v, m, o}, stream),
                           "cub::DeviceFor::ForEachN", algorithm);
                   },
           });
}

}  // namespace prism::detail
