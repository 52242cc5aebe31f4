// SPDX-License-Identifier: Apache-2.0
#pragma once
// prism::transform: out[i] = f(in0[i], in1[i], ...) for any device functor, in every implementation.
// prism::tabulate:  out[i] = f(i), the same with no input (generators: fill, sequence, ...).
//
// This is the generic layer under the whole element-wise family: each operation (add, axpy, exp,
// ...) is one functor handed to prism::transform. CUDA translation units can call it with their own
// functors and types. The functor must be callable on the host too (a __host__ __device__ functor
// or lambda) for impl::cpu; a __device__-only extended lambda works with every GPU implementation
// and is refused by cpu with std::invalid_argument.
//
//   struct quadratic { float a, b; __host__ __device__ float operator()(float x) const {...} };
//   prism::transform(x, y, quadratic{2, 1});                                 // y = 2 x^2 + 1
//   prism::transform(prism::par.on(stream), prism::inputs(a, b), out, f);     // two inputs
//
// The five implementations, from the simplest to the fastest (figures: docs/benchmarks):
//   cpu        thrust::transform through Thrust's OpenMP system, on host memory.
//   thrust     thrust::transform on the GPU, on the caller's stream without synchronizing.
//   raw_naive  one thread per element, one 4- or 8-byte load per array: the tutorial kernel.
//   raw        one 16-byte vector per array per thread: a quarter of the memory instructions of
//              raw_naive for float, which is what it takes to keep enough bytes in flight.
//   cub        cub::DeviceTransform, which on Hopper streams tiles into shared memory with bulk
//              copies (TMA): the fewest instructions per byte of all.
#include <prism/dispatch.cuh>
#include <prism/elementwise.hpp>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/vector_access.cuh>
#include <prism/span.hpp>

#include <cub/device/device_transform.cuh>
#include <cuda/functional>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/transform.h>
#include <thrust/zip_function.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace prism {
namespace detail {

// ---- thrust (and cpu): the same call under two execution policies ------------------------------

// A generator's index: 64-bit, so that arrays past 2^31 elements are numbered right.
using index_t = std::int64_t;

// One or two inputs map onto thrust::transform's own overloads; more are zipped together, and
// none (a generator) reads a counting iterator, the index itself, which costs no memory traffic.
// Marking the functor's arguments as copyable is what lets Thrust take CUB's fast Hopper path
// (bulk copies into shared memory) for any functor, not just the typed ones from <functional>.
template <class Policy, class F, class Out, class... In>
void thrust_transform(const Policy& policy, F f, Out* out, std::size_t n, const In*... in) {
  const auto op = cuda::proclaim_copyable_arguments(f);
  const auto count = static_cast<std::int64_t>(n);
  if constexpr (sizeof...(In) == 0) {
    const thrust::counting_iterator<index_t> first(0);
    thrust::transform(policy, first, first + count, out, op);
  } else if constexpr (sizeof...(In) == 1) {
    (thrust::transform(policy, in, in + count, out, op), ...);
  } else if constexpr (sizeof...(In) == 2) {
    [&](const auto* a, const auto* b) { thrust::transform(policy, a, a + count, b, out, op); }(in...);
  } else {
    thrust::transform(policy, thrust::make_zip_iterator(in...),
                      thrust::make_zip_iterator((in + count)...), out, thrust::make_zip_function(op));
  }
}

// f applied to element i: f(in0[i], in1[i], ...), or f(i) for a generator.
template <class F, class... In>
__host__ __device__ auto apply_at(const F& f, std::size_t i, const In*... in) {
  if constexpr (sizeof...(In) == 0) {
    return f(static_cast<index_t>(i));
  } else {
    return f(in[i]...);
  }
}

// ---- raw_naive: the textbook kernel -------------------------------------------------------------

// One thread per element. The index is 64-bit: `blockIdx.x * blockDim.x + threadIdx.x` in int,
// as tutorials write it, wraps past 2^31 elements.
template <class F, class Out, class... In>
__global__ void transform_naive_kernel(F f, Out* out, std::size_t n, const In*... in) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = apply_at(f, i, in...);
}

// ---- raw: the tuned kernel ----------------------------------------------------------------------

// The 16-byte vectors (vector_of, load_vector, store_vector) are in <prism/vector_access.cuh>,
// shared with the tuned reduction.

// Each thread loads one vector from every input, applies f V times, stores one vector: one tile
// of blockDim.x vectors per block and no grid-stride loop, which measured faster on H200 than a
// grid-stride loop over fewer blocks (the hardware's block scheduler hands out tiles for free).
// The elements outside the whole vectors (the `head` before the arrays reach vector alignment,
// the few after the last whole vector) go one each to the threads past the last vector. Either a
// vector or one element, never both: ptxas then sizes the registers for the larger of the two
// jobs, not for both in one thread (46 registers against 26 for double sigmoid, which cost
// occupancy). A generator has no input to load: it stores one vector of f(i), ..., f(i + V - 1).
template <int V, class F, class Out, class... In>
__global__ void transform_vector_kernel(F f, Out* out, std::size_t n, std::size_t head,
                                        std::size_t vectors, const In*... in) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t < vectors) {
    const std::size_t i = head + t * V;
    [&](const auto&... x) {
      vector_of<Out, V> result;
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if constexpr (sizeof...(In) == 0) {
          result.element[k] = f(static_cast<index_t>(i + k));
        } else {
          result.element[k] = f(x.element[k]...);
        }
      }
      store_vector<V>(out + i, result);
    }(load_vector<V>(in + i)...);
  } else {
    const std::size_t edge = t - vectors;  // the head's elements first, then the tail's
    const std::size_t i = edge < head ? edge : head + vectors * V + (edge - head);
    if (i < n) out[i] = apply_at(f, i, in...);
  }
}

template <class F, class Out, class... In>
void transform_naive(const char* algorithm, F f, Out* out, std::size_t n, cudaStream_t stream,
                     const In*... in) {
  launch(algorithm, "transform_naive_kernel", transform_naive_kernel<F, Out, In...>, blocks_for(n),
         block_size, stream, f, out, n, in...);
}

template <class F, class Out, class... In>
void transform_vectorized(const char* algorithm, F f, Out* out, std::size_t n, cudaStream_t stream,
                          const In*... in) {
  constexpr int V = vector_width<Out, In...>;
  // Arrays misaligned with respect to each other have no vector-aligned start: the scalar kernel
  // does the whole job.
  std::size_t head = vector_aligned_head<V>(n, static_cast<const Out*>(out), in...);
  if (head == V) return transform_naive(algorithm, f, out, n, stream, in...);
  head = std::min(head, n);
  const std::size_t vectors = (n - head) / V;
  const std::size_t threads = vectors + (n - vectors * V);  // a vector or an edge element each
  launch(algorithm, "transform_vector_kernel", transform_vector_kernel<V, F, Out, In...>,
         blocks_for(threads), block_size, stream, f, out, n, head, vectors, in...);
}

// ---- cub ----------------------------------------------------------------------------------------

// A 64-bit item count selects CUB's 64-bit offsets, which arrays past 2^31 elements need.
// DeviceTransform never needs the addresses of its arguments, so it may always take the bulk-copy
// path; a generator reads a counting iterator, which CUB computes instead of loading. The functor
// is marked as thrust_transform marks it (CUB ignores the mark: Transform already copies
// arguments): the same functor type, iterators and offset make thrust::transform's kernel, so the
// two implementations share one compiled CUB kernel instead of two.
template <class F, class Out, class... In>
void transform_cub(const char* algorithm, F f, Out* out, std::size_t n, cudaStream_t stream,
                   const In*... in) {
  const auto op = cuda::proclaim_copyable_arguments(f);
  const auto count = static_cast<std::int64_t>(n);
  clear_stale_error();
  if constexpr (sizeof...(In) == 0) {
    check(cub::DeviceTransform::Transform(
              cuda::std::make_tuple(thrust::counting_iterator<index_t>(0)), out, count, op, stream),
          "cub::DeviceTransform::Transform", algorithm);
  } else {
    check(cub::DeviceTransform::Transform(cuda::std::make_tuple(in...), out, count, op, stream),
          "cub::DeviceTransform::Transform", algorithm);
  }
}

// The five implementations side by side: the one dispatch checks the call (every input of out's
// size; out may be one of them exactly) and runs the one the policy names, or automatic's choice.
template <class F, class Out, class... In>
void transform_spans(const char* algorithm, const execution_policy& policy, F f, span<Out> out,
                     std::tuple<span<In>...> inputs) {
  const std::size_t n = out.size();
  const cudaStream_t stream = policy.stream();
  std::apply(
      [&](const auto&... in) {
        std::size_t k = 0;  // which input, for the messages
        // Every array must have the first input's size: an output of another size is the one named.
        const std::size_t sizes[] = {in.size()..., n}, want = sizes[0];
        const auto on_thrust = [&](const auto& p) { thrust_transform(p, f, out.data(), n, in.data()...); };
        dispatch<F>({algorithm, elementwise_family, policy,
                     {array_ref::input(in, input_name(k++)).sized(want)...,
                      array_ref::output_of(out, "the output").sized(want)},
                     n},
                    implementations{
                        .cpu = serial_too{on_thrust},
                        .thrust = on_thrust,
                        .raw_naive = [&] { transform_naive(algorithm, f, out.data(), n, stream, in.data()...); },
                        .raw = [&] { transform_vectorized(algorithm, f, out.data(), n, stream, in.data()...); },
                        .cub = [&] { transform_cub(algorithm, f, out.data(), n, stream, in.data()...); },
                    });
      },
      inputs);
}

}  // namespace detail

namespace ops {
struct transform { static constexpr const char* name = "transform"; };
struct tabulate { static constexpr const char* name = "tabulate"; };

// out[i] = f(in[i]) for one input, or f(in0[i], in1[i], ...) for prism::inputs(...). out may be
// one of the inputs exactly (in place); every input must have out's size.
template <class F, class O, class... In>
  requires array_like<std::remove_reference_t<O>>
void run(transform, const execution_policy& policy, std::tuple<span<In>...> in, O&& out, F f) {
  detail::transform_spans("transform", policy, f, output_span(out), in);
}
template <class F, class A, class O>
  requires array_like<std::remove_reference_t<A>> && array_like<std::remove_reference_t<O>>
void run(transform, const execution_policy& policy, A&& in, O&& out, F f) {
  detail::transform_spans("transform", policy, f, output_span(out), std::tuple{input_span(in)});
}

// out[i] = f(i) for every i, where i is a std::int64_t: a generator (fill, sequence, a table of
// any function of the index) in every implementation, with no input array to read.
template <class F, class O>
  requires array_like<std::remove_reference_t<O>>
void run(tabulate, const execution_policy& policy, O&& out, F f) {
  detail::transform_spans("tabulate", policy, f, output_span(out), std::tuple<>{});
}
}  // namespace ops

inline constexpr operation<ops::transform> transform{};
inline constexpr operation<ops::tabulate> tabulate{};

}  // namespace prism
