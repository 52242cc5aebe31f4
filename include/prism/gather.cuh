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
// gather_if and scatter_if (<prism/gather.hpp>) are the same with a stencil: cpu and thrust run
// thrust::gather_if and thrust::scatter_if; raw_naive, raw and cub the kernels and the DeviceFor
// call above with a test of the stencil first (cub: DeviceFor for both, since DeviceTransform writes
// every output element and the unselected ones must stay untouched). reverse is the permutation
// n - 1 - i, below them.
#include <prism/dispatch.cuh>
#include <prism/elementwise.hpp>
#include <prism/gather.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/reduce.cuh>
#include <prism/span.hpp>

#include <cub/device/device_for.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reverse.h>
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

// The refusal of map[first], outside [0, limit): its value read from where the map lives.
template <class I>
[[noreturn]] void refuse_index(const char* algorithm, span<const I> map, std::uint64_t first, std::size_t limit,
                               const char* where) {
  I index{};
  if (placement_of(map.data()).where == residence::device) {
    check(cudaMemcpy(&index, map.data() + first, sizeof(I), cudaMemcpyDeviceToHost), "cudaMemcpy", algorithm);
  } else {
    index = map.data()[first];
  }
  throw std::invalid_argument(std::string("prism::") + algorithm + ": map[" + std::to_string(first) + "] is " +
                              std::to_string(index) + ", outside the " + std::to_string(limit) + " elements it indexes" +
                              where + " (bounds::checked)");
}

// Refuses the call if an index of `map` is outside [0, limit), naming the first. The reduction runs
// where the map lives (cpu for host memory, the fastest GPU reduction otherwise), on the stream.
template <class I>
void check_indices(const char* algorithm, const execution_policy& policy, span<const I> map, std::size_t limit) {
  const std::size_t n = map.size();
  const std::uint64_t first = reduce_spans<std::uint64_t>(
      algorithm, reduce_family, policy.with(impl::automatic), position_if_outside<I>{limit, n}, smaller{},
      std::uint64_t{n}, functors::no_finalize{}, static_cast<span<std::uint64_t>*>(nullptr), std::tuple{map});
  if (first != n) refuse_index(algorithm, map, first, limit, "");
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


// ---- gather_if and scatter_if: the same moves where a stencil is set ------------------------------

// The stencil's test, Thrust's default predicate for bytes.
struct is_set {
  __host__ __device__ bool operator()(std::uint8_t s) const { return s != 0; }
};

template <class I, class Pred>
struct position_if_selected_outside {
  std::uint64_t limit, none;
  Pred selected;
  template <class S>
  __host__ __device__ std::uint64_t operator()(std::int64_t i, I index, S s) const {
    return selected(s) && (index < 0 || static_cast<std::uint64_t>(index) >= limit) ? static_cast<std::uint64_t>(i)
                                                                                    : none;
  }
};

// check_indices for the selected indices only: an unselected map[i] is never used.
template <class I, class S, class Pred>
void check_selected_indices(const char* algorithm, const execution_policy& policy, span<const I> map,
                            span<const S> stencil, Pred selected, std::size_t limit) {
  const std::size_t n = map.size();
  const std::uint64_t first = reduce_spans<std::uint64_t>(
      algorithm, reduce_family, policy.with(impl::automatic),
      position_if_selected_outside<I, Pred>{limit, n, selected}, smaller{}, std::uint64_t{n}, functors::no_finalize{},
      static_cast<span<std::uint64_t>*>(nullptr), std::tuple{map, stencil});
  if (first != n) refuse_index(algorithm, map, first, limit, ", where the stencil is set");
}

// One thread per index; V indices per thread as one vector load in raw (the stencil's V bytes are
// read one by one: a byte load per element is a quarter of the map's bytes and coalesces).
template <int V, bool Gather, class T, class I, class S, class Pred>
__global__ void permute_if_kernel(const I* map, const S* stencil, Pred selected, const T* values, T* out,
                                  std::size_t n) {
  const std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) * V;
  const auto move = [&](std::size_t j, I index) {
    if constexpr (Gather) {
      out[j] = values[index];
    } else {
      out[index] = values[j];
    }
  };
  if (i + V <= n) {
    const vector_of<I, V> m = load_vector<V>(map + i);
    bool take[V];
#pragma unroll
    for (int k = 0; k < V; ++k) take[k] = selected(stencil[i + k]);
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (take[k]) move(i + k, m.element[k]);
  } else {
    for (std::size_t j = i; j < n; ++j)
      if (selected(stencil[j])) move(j, map[j]);
  }
}

template <bool Gather, class T, class I, class S, class Pred>
struct place_if {
  const I* map;
  const S* stencil;
  Pred selected;
  const T* values;
  T* out;
  __device__ void operator()(std::int64_t i) const {
    if (!selected(stencil[i])) return;
    if constexpr (Gather) {
      out[i] = values[map[i]];
    } else {
      out[map[i]] = values[i];
    }
  }
};

// Both moves, side by side; `limit` is the size of the array the map points into.
template <bool Gather, class T, class I, class S, class Pred>
void permute_if_spans(const char* algorithm, const execution_policy& policy, span<const I> map, span<const S> stencil,
                      Pred selected, span<const T> values, span<T> out, bounds checking) {
  const std::size_t n = map.size();
  const I* m = map.data();
  const S* s = stencil.data();
  const T* v = values.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto checked = [&] {
    if (checking == bounds::checked) {
      check_selected_indices(algorithm, policy, map, stencil, selected, Gather ? values.size() : out.size());
    }
  };
  const auto on_thrust = [&](const auto& p) {
    checked();
    if constexpr (Gather) {
      thrust::gather_if(p, m, m + n, s, v, o, selected);
    } else {
      thrust::scatter_if(p, v, v + n, m, s, o, selected);
    }
  };
  const auto on_kernel = [&](auto width) {
    checked();
    constexpr int V = decltype(width)::value;
    if (V == 1 || !aligned(m, sizeof(vector_of<I, V>))) {
      launch(algorithm, "permute_if_kernel", permute_if_kernel<1, Gather, T, I, S, Pred>, blocks_for(n), block_size,
             stream, m, s, selected, v, o, n);
    } else {
      launch(algorithm, "permute_if_kernel", permute_if_kernel<V, Gather, T, I, S, Pred>,
             blocks_for((n + V - 1) / V), block_size, stream, m, s, selected, v, o, n);
    }
  };
  const array_ref sequential_values =
      Gather ? array_ref::input(values, "the values") : array_ref::input(values, "the values").sized(n);
  dispatch<Pred>({algorithm, elementwise_family, policy,
                  {array_ref::input(map, "the map"), array_ref::input(stencil, "the stencil").sized(n),
                   sequential_values,
                   Gather ? array_ref::output_apart(out, "the output").sized(n)
                          : array_ref::output_apart(out, "the output")},
                  n, map.size_bytes() + stencil.size_bytes() + 2 * n * sizeof(T)},
                 implementations{
                     .cpu = on_thrust,
                     .thrust = on_thrust,
                     .raw_naive = [&] { on_kernel(std::integral_constant<int, 1>{}); },
                     .raw = [&] { on_kernel(std::integral_constant<int, vector_width<I>>{}); },
                     .cub =
                         [&] {
                           checked();
                           clear_stale_error();
                           check(cub::DeviceFor::ForEachN(thrust::counting_iterator<std::int64_t>(0),
                                                          static_cast<std::int64_t>(n),
                                                          place_if<Gather, T, I, S, Pred>{m, s, selected, v, o}, stream),
                                 "cub::DeviceFor::ForEachN", algorithm);
                         },
                 });
}

template <class T, class I, class S, class Pred = is_set>
void gather_if_spans(const execution_policy& policy, span<const I> map, span<const S> stencil, span<const T> values,
                     span<T> out, bounds checking, Pred selected = {}) {
  permute_if_spans<true>("gather_if", policy, map, stencil, selected, values, out, checking);
}

template <class T, class I, class S, class Pred = is_set>
void scatter_if_spans(const execution_policy& policy, span<const T> values, span<const I> map, span<const S> stencil,
                      span<T> out, bounds checking, Pred selected = {}) {
  permute_if_spans<false>("scatter_if", policy, map, stencil, selected, values, out, checking);
}

// ---- reverse: out[i] = x[n - 1 - i], in place or not ------------------------------------------------

// Thread t swaps vector t and vector count-1-t (each reversed): it reads both before it writes
// either, and no other thread touches them, so the same kernel runs in place. V = 1 is the
// textbook kernel (raw_naive); raw moves 16-byte vectors where both arrays are aligned and n is a
// whole number of vectors, which mirrors vectors onto vector boundaries.
template <int V, class T>
__global__ void reverse_kernel(const T* x, T* out, std::size_t vectors) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t >= (vectors + 1) / 2) return;
  const std::size_t u = vectors - 1 - t;
  const vector_of<T, V> a = load_vector<V>(x + t * V), b = load_vector<V>(x + u * V);
  vector_of<T, V> ra, rb;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    ra.element[k] = a.element[V - 1 - k];
    rb.element[k] = b.element[V - 1 - k];
  }
  store_vector<V>(out + u * V, ra);
  store_vector<V>(out + t * V, rb);
}

template <class T>
struct swap_mirrored {
  const T* x;
  T* out;
  std::size_t n;
  __device__ void operator()(std::int64_t i) const {
    const T a = x[i], b = x[n - 1 - i];
    out[n - 1 - i] = a;
    out[i] = b;
  }
};

template <class T>
void reverse_spans(const execution_policy& policy, span<const T> x, span<T> out) {
  const char* algorithm = "reverse";
  const std::size_t n = x.size();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    if (in == o) {
      thrust::reverse(p, o, o + n);
    } else {
      thrust::reverse_copy(p, in, in + n, o);
    }
  };
  const auto pairs = [&](auto width) {
    constexpr int V = decltype(width)::value;
    launch(algorithm, "reverse_kernel", reverse_kernel<V, T>, blocks_for((n / V + 1) / 2), block_size, stream, in, o,
           n / V);
  };
  dispatch({algorithm, elementwise_family, policy,
            {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
           implementations{
               .cpu = on_thrust,
               .thrust = on_thrust,
               .raw_naive = [&] { pairs(std::integral_constant<int, 1>{}); },
               .raw =
                   [&] {
                     constexpr int V = vector_width<T>;
                     if (V > 1 && n % V == 0 && aligned(in, 16) && aligned(o, 16)) {
                       pairs(std::integral_constant<int, V>{});
                     } else {
                       pairs(std::integral_constant<int, 1>{});
                     }
                   },
               .cub =
                   [&] {
                     clear_stale_error();
                     check(cub::DeviceFor::ForEachN(thrust::counting_iterator<std::int64_t>(0),
                                                    static_cast<std::int64_t>((n + 1) / 2), swap_mirrored<T>{in, o, n},
                                                    stream),
                           "cub::DeviceFor::ForEachN", algorithm);
                   },
           });
}

}  // namespace prism::detail

namespace prism::ops {
// The generic forms: a stencil of any type and a caller's predicate on it, as Thrust takes them.
template <class M, class S, class V, class O, class Pred>
  requires array_like<std::remove_reference_t<M>> && array_like<std::remove_reference_t<S>> &&
           array_like<std::remove_reference_t<O>> && array_of<V, value_t<O>> && (!std::is_same_v<Pred, bounds>)
void run(gather_if, const execution_policy& policy, M&& map, S&& stencil, V&& values, O&& out, Pred selected,
         bounds checking = bounds::unchecked) {
  detail::gather_if_spans(policy, input_span(map), input_span(stencil), input_span(values), output_span(out),
                          checking, selected);
}
template <class V, class M, class S, class O, class Pred>
  requires array_like<std::remove_reference_t<M>> && array_like<std::remove_reference_t<S>> &&
           array_like<std::remove_reference_t<O>> && array_of<V, value_t<O>> && (!std::is_same_v<Pred, bounds>)
void run(scatter_if, const execution_policy& policy, V&& values, M&& map, S&& stencil, O&& out, Pred selected,
         bounds checking = bounds::unchecked) {
  detail::scatter_if_spans(policy, input_span(values), input_span(map), input_span(stencil), output_span(out),
                           checking, selected);
}
}  // namespace prism::ops
