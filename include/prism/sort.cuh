// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sort family's generic layer: the radix sorts (<prism/radix_sort.cuh>: the standard key
// types, and the caller's key types by a decomposer of their fields) and, here, the comparison
// sort: any trivially copyable type, any comparator, in every implementation.
//
//   prism::sort(policy, x, out, comp)     out = x sorted by comp (out may be x)
//   prism::sort(policy, keys, comp)       in place
//   prism::sort(policy, keys, decomposer) a radix sort by the key's fields (<prism/radix_sort.cuh>)
//
// A merge sort, stable: elements that compare equal keep their input order. A radix sort of the
// same keys, where their order is their fields' (a decomposer says which), is several times
// faster; CUDA translation units call either with their own types.
//
// Contract. comp(a, b) says a goes before b; it must be a strict weak ordering (a float `<` with
// NaNs present is not). It must be __host__ __device__ for impl::cpu (a __device__-only lambda is
// refused there).
//
// The implementations:
//   cpu     thrust::stable_sort through its OpenMP system, on host memory.
//   thrust  thrust::stable_sort on the GPU (a merge sort for a comparator that is not thrust::less
//           or greater of an arithmetic type: CUB's DeviceMergeSort underneath), on the caller's
//           stream without synchronizing, temporary storage from prism's scratch. Out of place it
//           copies x to out first (Thrust sorts in place).
//   cub     cub::DeviceMergeSort::StableSortKeysCopy (out of place) or StableSortKeys (in place),
//           temporary storage from prism's scratch.
//   raw     a block sort, then merges: each block of 256 threads loads a tile (256 x 8 elements of
//           up to 8 bytes, fewer of larger ones) into shared memory, each thread sorts its own 8
//           (insertion sort), and the tile is merged in shared memory, width 8, 16, ... up to the
//           tile. Then one launch per doubling of the sorted runs' width merges pairs of runs in
//           global memory, ping-ponging between the output and a buffer in scratch. In every merge
//           each thread writes 8 consecutive outputs: it finds where they start in the two runs by
//           a binary search along its diagonal of the merge matrix ("merge path", Green, McColl and
//           Bader 2012; moderngpu's vocabulary), then merges them sequentially, taking the left run's
//           element when two compare equal (stable). log2(n / tile) global passes of 2n elements
//           each. Elements of up to 64 bytes (the tile's two buffers fit in 32 KiB of shared memory).
// Sizes: 64-bit everywhere (the cub and thrust implementations dispatch on 64-bit offsets).
// Scratch: thrust and cub take about n elements (their ping-pong buffer); raw n elements when the
// array is longer than one tile.
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/merge_path.cuh>
#include <prism/radix_sort.cuh>
#include <prism/scratch.hpp>
#include <prism/sort.hpp>
#include <prism/span.hpp>

#include <cub/device/device_merge_sort.cuh>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/omp/execution_policy.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {

namespace detail {

// ---- raw: block sort, then merge-path merges ---------------------------------------------------------

// Elements each thread of a block sort sorts (by insertion) and then merges: 8 of up to 8 bytes,
// fewer of larger ones, so that the tile's two buffers stay within 32 KiB of shared memory. A
// thread's insertion sort costs the square of its count, so a short segment (one tile) sorts 1.8x
// slower with merge_items' odd 15, while long segments gain from its bank-free merges: the
// segmented sort takes each where it pays (docs/benchmarks/segmented_sort.md, "The tile by the
// segment's length").
template <class T>
inline constexpr unsigned sort_items = sizeof(T) <= 8 ? 8 : sizeof(T) <= 16 ? 4 : sizeof(T) <= 32 ? 2 : 1;
template <class T>
inline constexpr unsigned sort_tile = block_size * sort_items<T>;

// Outputs [first, first + items) of merging each pair of sorted runs of `width` in src[0, n),
// handed to store(k, element) for output k (dst[k] = element, or the segmented sort's split of a
// keyed value into two arrays). items divides 2 * width, so one thread's outputs belong to one
// pair of runs.
template <class T, class Store, class Comp>
__device__ void merge_outputs_to(const T* src, Store store, std::size_t n, std::size_t width, std::size_t first,
                                 unsigned items, Comp comp) {
  if (first >= n) return;
  const std::size_t pair = first / (2 * width) * (2 * width);
  const std::size_t a_n = n - pair < width ? n - pair : width;
  const std::size_t b_n = n - pair - a_n < width ? n - pair - a_n : width;
  const T* a = src + pair;
  const T* b = a + a_n;
  const std::size_t diagonal = first - pair;
  std::size_t i = merge_path(a, a_n, b, b_n, diagonal, comp), j = diagonal - i;
  const std::size_t count = a_n + b_n - diagonal < items ? a_n + b_n - diagonal : items;
  for (std::size_t k = 0; k < count; ++k) {
    const bool take_a = i < a_n && (j >= b_n || !comp(b[j], a[i]));
    store(first + k, take_a ? a[i++] : b[j++]);
  }
}

template <class T>
struct store_to {
  T* dst;
  __device__ void operator()(std::size_t k, const T& x) const { dst[k] = x; }
};

template <class T, class Comp>
__device__ void merge_outputs(const T* src, T* dst, std::size_t n, std::size_t width, std::size_t first,
                              unsigned items, Comp comp) {
  merge_outputs_to(src, store_to<T>{dst}, n, width, first, items, comp);
}

// One block sorts m <= block_size * V elements, load(i) for i < m, stably, and hands them to
// store(i, element) in order; the two buffers are block_size * V elements of shared memory each.
// Every element is loaded before any is stored, so store may write where load reads. Every thread
// of the block calls it (it synchronizes the block).
template <class T, unsigned V = sort_items<T>, class Load, class Store, class Comp>
__device__ void block_sort_tile(unsigned m, Load load, Store store, Comp comp, T* buffer0, T* buffer1) {
  T* shared[2] = {buffer0, buffer1};
  for (unsigned i = threadIdx.x; i < m; i += block_size) shared[0][i] = load(i);
  __syncthreads();
  // Each thread's V elements: a stable insertion sort in place.
  const unsigned mine = threadIdx.x * V;
  if (mine < m) {
    T* s = shared[0] + mine;
    const unsigned count = m - mine < V ? m - mine : V;
    for (unsigned k = 1; k < count; ++k) {
      const T x = s[k];
      unsigned j = k;
      while (j > 0 && comp(x, s[j - 1])) {
        s[j] = s[j - 1];
        --j;
      }
      s[j] = x;
    }
  }
  __syncthreads();
  // Until one run holds all m (fewer passes than the tile's for a short segment).
  int from = 0;
  for (unsigned width = V; width < m; width *= 2) {
    merge_outputs(shared[from], shared[1 - from], m, width, mine, V, comp);
    __syncthreads();
    from = 1 - from;
  }
  for (unsigned i = threadIdx.x; i < m; i += block_size) store(i, shared[from][i]);
  __syncthreads();  // the buffers may be loaded again
}

template <class T>
struct load_from {
  const T* src;
  __device__ T operator()(std::size_t i) const { return src[i]; }
};

// Sorts each tile of in into the same tile of out (which may be in: a block reads its whole tile
// before it writes it).
template <class T, class Comp>
__global__ void __launch_bounds__(block_size) block_sort_kernel(const T* in, T* out, std::size_t n, Comp comp) {
  constexpr unsigned tile = sort_tile<T>;
  __shared__ shared_elements<T, 2 * tile> buffers;
  const std::size_t base = std::size_t{blockIdx.x} * tile;
  const unsigned m = static_cast<unsigned>(n - base < tile ? n - base : tile);
  block_sort_tile<T>(m, load_from<T>{in + base}, store_to<T>{out + base}, comp, buffers.data(), buffers.data() + tile);
}

// One global merge pass: runs of `width` -> runs of 2 width.
template <class T, class Comp>
__global__ void __launch_bounds__(block_size)
    merge_pass_kernel(const T* src, T* dst, std::size_t n, std::size_t width, Comp comp) {
  constexpr unsigned V = sort_items<T>;
  const std::size_t first = (std::size_t{blockIdx.x} * block_size + threadIdx.x) * V;
  merge_outputs(src, dst, n, width, first, V, comp);
}

template <class T, class Comp>
void raw_merge_sort(const char* algorithm, const execution_policy& policy, const T* in, T* out, std::size_t n,
                    Comp comp) {
  if constexpr (sizeof(T) > 64) {
    throw std::invalid_argument(std::string("prism::") + algorithm + ": the raw merge sort takes elements of up to 64 "
                                "bytes (this one has " + std::to_string(sizeof(T)) + "); use impl::cub or thrust");
  } else {
    constexpr std::size_t tile = sort_tile<T>;
    unsigned passes = 0;
    for (std::size_t width = tile; width < n; width *= 2) ++passes;
    const std::size_t tiles = (n + tile - 1) / tile;
    const std::size_t threads_per_pass = (n + sort_items<T> - 1) / sort_items<T>;
    if (tiles > 0x7FFFFFFFu || blocks_for(threads_per_pass) > 0x7FFFFFFFu) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                  " elements are more than the raw merge sort's grid can cover");
    }
    const cudaStream_t stream = policy.stream();
    if (passes == 0) {
      launch(algorithm, "block_sort_kernel", block_sort_kernel<T, Comp>, static_cast<unsigned>(tiles), block_size,
             stream, in, out, n, comp);
      return;
    }
    // The block sort writes where the last pass must not read: the output after an even number of
    // passes, the buffer after an odd one.
    const scratch lease = acquire_scratch(n * sizeof(T), with_explicit_stream(policy), algorithm);
    T* buffer = static_cast<T*>(lease.device());
    T* from = passes % 2 == 0 ? out : buffer;
    T* to = passes % 2 == 0 ? buffer : out;
    launch(algorithm, "block_sort_kernel", block_sort_kernel<T, Comp>, static_cast<unsigned>(tiles), block_size,
           stream, in, from, n, comp);
    for (std::size_t width = tile; width < n; width *= 2) {
      launch(algorithm, "merge_pass_kernel", merge_pass_kernel<T, Comp>, blocks_for(threads_per_pass), block_size,
             stream, static_cast<const T*>(from), to, n, width, comp);
      std::swap(from, to);
    }
  }
}

template <class T, class Comp>
void merge_sort_spans(const char* algorithm, const execution_policy& policy, span<const T> x, span<T> out, Comp comp) {
  static_assert(std::is_trivially_copyable_v<T>, "prism::sort moves elements as bytes: T must be trivially copyable");
  const std::size_t n = x.size();
  const T* in = x.data();
  T* o = out.data();
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    copy_unless_same(p, in, o, n, stream, algorithm);
    thrust::stable_sort(p, o, o + n, comp);
  };
  dispatch<Comp>({algorithm, sort_family, policy,
                  {array_ref::input(x, "the input"), array_ref::output_of(out, "the output").sized(n)}, n},
                 implementations{
                     .cpu = on_thrust,
                     .thrust = on_thrust,
                     .raw = [&] { raw_merge_sort(algorithm, policy, in, o, n, comp); },
                     .cub =
                         [&] {
                           const auto count = static_cast<std::int64_t>(n);
                           cub_call(algorithm, "cub::DeviceMergeSort", policy, {n, in == o},
                                    [&](void* temp, std::size_t& bytes, void*) {
                                      if (in != o) {
                                        return cub::DeviceMergeSort::StableSortKeysCopy(temp, bytes, in, o, count,
                                                                                         comp, stream);
                                      }
                                      return cub::DeviceMergeSort::StableSortKeys(temp, bytes, o, count, comp, stream);
                                    });
                         },
                 });
}

// A comparator of T: not an array, a sort_order, something that makes a policy, or a decomposer
// (which the radix sort takes).
template <class F, class T>
concept sort_comparator = !array_like<std::remove_reference_t<F>> &&
                          !std::is_same_v<std::remove_cvref_t<F>, sort_order> &&
                          !std::is_convertible_v<F, execution_policy> && !radix_decomposer<std::remove_cvref_t<F>, T>;

}  // namespace detail

namespace ops {

// out = x sorted by comp, stably. out may be x exactly (in place).
template <class X, class O, class Comp>
  requires detail::writable_array<O> && array_of<X, value_t<O>> && detail::sort_comparator<Comp, value_t<O>>
void run(sort, const execution_policy& policy, X&& x, O&& out, Comp comp) {
  detail::merge_sort_spans<value_t<O>>("sort", policy, input_span(x), output_span(out), comp);
}
// keys sorted by comp in place, stably.
template <class O, class Comp>
  requires detail::writable_array<O> && detail::sort_comparator<Comp, value_t<O>>
void run(sort, const execution_policy& policy, O&& keys, Comp comp) {
  const auto k = output_span(keys);
  detail::merge_sort_spans<value_t<O>>("sort", policy, span<const value_t<O>>(k), k, comp);
}
}  // namespace ops

}  // namespace prism
