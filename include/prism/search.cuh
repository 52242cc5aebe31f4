// SPDX-License-Identifier: Apache-2.0
#pragma once
// The search family's generic layer: lower_bound, upper_bound, equal_range and binary_search of many
// queries in one sorted array, with any element types and the caller's comparator, in every
// implementation.
//
//   prism::lower_bound(sorted, queries, out, comp);              // comp(element, query): before
//   prism::upper_bound(prism::par.on(s), sorted, queries, out, comp, prism::query_order::sorted);
//
// `comp` is a strict weak ordering, `comp(a, b)` true when a goes before b, callable with an element
// and a query either way round (as std::lower_bound and std::upper_bound call it); the array is
// sorted by it (and the queries too, with query_order::sorted). The compiled standard types
// (<prism/search.hpp>) are these same templates with the comparator of the documented order.
//
// What decides the speed. A binary search of n elements is log2(n) dependent loads: latency, not
// bandwidth, since each load decides where the next goes. The top levels of the search tree are
// the same few elements for every query (level k has 2^k of them), so they are hot in the caches
// anyway; what is slow is the chain itself. So:
//   cpu, thrust  thrust's vectorized lower_bound / binary_search: one scalar binary search per
//                query, through a for_each (OpenMP's threads, or CUB's DeviceFor on the GPU).
//   raw_naive    the same written out: one thread per query, every level read from global memory.
//   raw          each block stages the top 11 levels (2047 evenly spaced elements, the splitters)
//                in shared memory once and keeps them for many queries: those levels cost a
//                shared-memory load instead of an L1/L2 round trip; then each thread searches four
//                queries in step, so four independent global loads are in flight where one was.
//                Sorted queries (at least a sixteenth as many as elements): a sorted search by
//                merge path (moderngpu's sortedsearch): the queries and the array merged, each tile
//                of 2048 merged elements found by one binary search along its diagonal, then
//                merged in shared memory: every element and query read once, coalesced.
//                Many random queries in an array well past the L2 cache (standard keys only):
//                sorted first with their places by the radix sort, then the same merge path.
//   cub          cub::DeviceFind::LowerBound (a DeviceTransform with a binary search per query),
//                LowerBoundSortedValues / UpperBoundSortedValues (CUB's merge path) for sorted
//                queries.
// The upper bound is the lower bound under another "before": upper_bound(q) is the first element
// e with comp(q, e), so it is lower_bound with before(e, q) = !comp(q, e). Every binary search
// here calls before(element, query) only, which the upper bound's makes of the caller's comp: one
// kernel serves both sides, choosing at run time (bound_before). CUB's sorted searches call comp
// both ways and so get the caller's comp, by side.
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/radix_sort.cuh>
#include <prism/scratch.hpp>
#include <prism/search.hpp>
#include <prism/span.hpp>

#include <cub/device/device_find.cuh>
#include <cuda/std/algorithm>
#include <cuda/iterator>
#include <cuda/stream_ref>
#include <thrust/binary_search.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {
namespace detail {

// ---- the comparisons ------------------------------------------------------------------------------

// The standard elements compare by their bits in the documented order (<prism/search.hpp>, key_kind):
// key_order (<prism/primitives/radix_order.cuh>), the order the sorts and merges share.

// Whether an element goes before the query's position: for the lower bound comp(element, query),
// for the upper bound !comp(query, element) (element not after the query).
template <class Comp>
struct bound_before {
  Comp comp;
  bool upper;
  template <class T, class Q>
  __host__ __device__ bool operator()(const T& element, const Q& query) const {
    return upper ? !comp(query, element) : comp(element, query);
  }
};

// What a kernel writes for query i once its lower bound (under `before`) is `position`: the position
// itself, or whether the element there equals the query (binary_search).
template <class I>
struct write_position {
  I* out;
  template <class Q>
  __device__ void operator()(std::size_t i, std::size_t position, const Q&) const {
    out[i] = static_cast<I>(position);
  }
};
template <class T, class F, class Comp>
struct write_found {
  F* out;
  const T* sorted;
  std::size_t n;
  Comp comp;
  template <class Q>
  __device__ void operator()(std::size_t i, std::size_t position, const Q& query) const {
    out[i] = static_cast<F>(position < n && !comp(query, sorted[position]));
  }
};

// ---- raw_naive: one thread per query --------------------------------------------------------------

template <class T, class Q, class Before, class Out>
__global__ void search_naive_kernel(const T* sorted, std::size_t n, const Q* queries, std::size_t m, Before before,
                                    Out out) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= m) return;
  const Q query = queries[i];
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (before(sorted[mid], query)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  out(i, lo, query);
}

// ---- raw: the top of the tree in shared memory, several queries in flight -------------------------

// 2^11 - 1 splitters: the elements at ((k + 1) n) / 2^11, k < 2047, which cut the array into 2048
// parts of equal size (to one element): the top 11 levels of a binary search visit only these. 16
// KiB for 8-byte elements, so 8 blocks of 256 threads still fit an SM's shared memory; larger
// elements (the generic layer's) stage fewer levels in the same 16 KiB.
template <class T>
inline constexpr int staged_levels = sizeof(T) <= 8 ? 11 : sizeof(T) <= 16 ? 10 : sizeof(T) <= 32 ? 9 : 8;
template <class T>
inline constexpr unsigned staged_count = (1u << staged_levels<T>) - 1;
// Queries per thread searched in step (one global load of each in flight at once).
inline constexpr int queries_per_thread = 4;
// Blocks per SM of the persistent grid: each loads the splitters once and searches tile after tile.
inline constexpr unsigned staged_blocks_per_sm = 8;

// The position of splitter k of the array of n (arrays of at most `count` are staged whole).
template <class T>
__host__ __device__ std::size_t splitter_position(std::size_t k, std::size_t n) {
  return n <= staged_count<T> ? k : ((k + 1) * n) >> staged_levels<T>;
}

template <class T, class Q, class Before, class Out>
__global__ void __launch_bounds__(block_size) search_staged_kernel(const T* sorted, std::size_t n, const Q* queries,
                                                                    std::size_t m, Before before, Out out) {
  constexpr unsigned staged = staged_count<T>;
  __shared__ alignas(T) unsigned char storage[staged * sizeof(T)];
  T* splitters = reinterpret_cast<T*>(storage);
  // Small arrays are staged whole: the shared search is then the whole search.
  const unsigned count = n <= staged ? static_cast<unsigned>(n) : staged;
  for (unsigned k = threadIdx.x; k < count; k += blockDim.x) splitters[k] = sorted[splitter_position<T>(k, n)];
  __syncthreads();

  constexpr int V = queries_per_thread;
  const std::size_t tile = std::size_t{blockDim.x} * V;
  for (std::size_t base = blockIdx.x * tile; base < m; base += std::size_t{gridDim.x} * tile) {
    Q query[V];
    std::size_t first[V], length[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const std::size_t i = base + threadIdx.x + std::size_t{blockDim.x} * v;
      length[v] = 0;
      first[v] = 0;
      if (i >= m) continue;
      query[v] = queries[i];
      // The top levels: how many splitters go before the query.
      unsigned lo = 0, len = count;
      while (len > 0) {
        const unsigned half = len / 2;
        if (before(splitters[lo + half], query[v])) {
          lo += half + 1;
          len -= half + 1;
        } else {
          len = half;
        }
      }
      // The answer lies past splitter lo - 1 and at or before splitter lo.
      const std::size_t from = lo == 0 ? 0 : splitter_position<T>(lo - 1, n) + 1;
      const std::size_t to = lo == count ? n : splitter_position<T>(lo, n);
      first[v] = from;
      length[v] = to - from;
    }
    // The levels below, in global memory: every unfinished query's next element loaded first, then
    // all of them compared, so the loads of one step are in flight together.
    for (;;) {
      T element[V];
      bool any = false;
#pragma unroll
      for (int v = 0; v < V; ++v) {
        if (length[v] > 0) {
          element[v] = sorted[first[v] + length[v] / 2];
          any = true;
        }
      }
      if (!any) break;
#pragma unroll
      for (int v = 0; v < V; ++v) {
        if (length[v] > 0) {
          const std::size_t half = length[v] / 2;
          if (before(element[v], query[v])) {
            first[v] += half + 1;
            length[v] -= half + 1;
          } else {
            length[v] = half;
          }
        }
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const std::size_t i = base + threadIdx.x + std::size_t{blockDim.x} * v;
      if (i < m) out(i, first[v], query[v]);
    }
  }
}

// ---- raw: sorted search by merge path -------------------------------------------------------------
// The queries merged into the array, an element going first when before(element, query): a query's
// lower bound is then the number of elements merged ahead of it. The merged sequence is cut into
// tiles of search_tile = nt x vt items (256 threads x 8); where each tile starts in the array is one
// binary search along its diagonal (merge_partition_kernel); each block loads its tile's elements
// and queries into shared memory, each thread finds its own 8 items' start the same way there and
// merges them serially, and the positions go out through shared memory, coalesced. Larger elements
// (the generic layer's) take fewer items per thread, so a tile stays within 40 KiB.
template <class T, class Q>
inline constexpr unsigned search_items_per_thread = sizeof(T) + sizeof(Q) <= 16 ? 8 : sizeof(T) + sizeof(Q) <= 32 ? 4 : 1;
template <class T, class Q>
inline constexpr unsigned search_tile = block_size * search_items_per_thread<T, Q>;

// How many of the first `diagonal` merged items are elements. Reads only inside both arrays,
// whatever they hold.
template <class A, class B, class Before>
__device__ std::size_t merge_path(const A& a, std::size_t n, const B& b, std::size_t m, std::size_t diagonal,
                                  Before before) {
  std::size_t lo = diagonal > m ? diagonal - m : 0, hi = diagonal < n ? diagonal : n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (before(a[mid], b[diagonal - 1 - mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <class T, class Q, class Before>
__global__ void merge_partition_kernel(const T* sorted, std::size_t n, const Q* queries, std::size_t m,
                                       std::size_t tiles, Before before, std::size_t* starts) {
  const std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (t > tiles) return;
  const std::size_t diagonal = cuda::std::min(t * search_tile<T, Q>, n + m);
  starts[t] = merge_path(sorted, n, queries, m, diagonal, before);
}

template <class T, class Q, class Before, class Out>
__global__ void __launch_bounds__(block_size)
    sorted_search_kernel(const T* sorted, std::size_t n, const Q* queries, std::size_t m, const std::size_t* starts,
                         Before before, Out out) {
  constexpr unsigned vt = search_items_per_thread<T, Q>, tile = search_tile<T, Q>;
  __shared__ alignas(T) unsigned char element_storage[tile * sizeof(T)];
  __shared__ alignas(Q) unsigned char query_storage[tile * sizeof(Q)];
  __shared__ unsigned found[tile];
  T* elements = reinterpret_cast<T*>(element_storage);
  Q* tile_queries = reinterpret_cast<Q*>(query_storage);

  const std::size_t d0 = blockIdx.x * std::size_t{tile};
  const std::size_t d1 = cuda::std::min(d0 + tile, n + m);
  const std::size_t i0 = starts[blockIdx.x], i1 = starts[blockIdx.x + 1];
  const std::size_t j0 = d0 - i0;
  // Exact for sorted queries; clamped so that queries that are not sorted read nothing outside.
  const unsigned a_count = static_cast<unsigned>(cuda::std::min(i1 > i0 ? i1 - i0 : 0, d1 - d0));
  const unsigned b_count = static_cast<unsigned>(cuda::std::min<std::size_t>(d1 - d0 - a_count, m - j0));
  for (unsigned k = threadIdx.x; k < a_count; k += blockDim.x) elements[k] = sorted[i0 + k];
  for (unsigned k = threadIdx.x; k < b_count; k += blockDim.x) tile_queries[k] = queries[j0 + k];
  __syncthreads();

  const unsigned total = a_count + b_count;
  const unsigned diagonal = cuda::std::min(threadIdx.x * vt, total);
  unsigned ia = static_cast<unsigned>(merge_path(elements, a_count, tile_queries, b_count, diagonal, before));
  unsigned ib = diagonal - ia;
  // Each thread owns the queries from its start to the next thread's. Sorted queries give rising
  // starts; queries wrongly promised sorted may not, and then the starts are made rising (a running
  // maximum) so that no two threads write one query's slot and every slot is written.
  __shared__ unsigned query_start[block_size];
  const auto next_start = [&] { return threadIdx.x + 1 < blockDim.x ? query_start[threadIdx.x + 1] : b_count; };
  query_start[threadIdx.x] = ib;
  __syncthreads();
  unsigned next = next_start();
  if (!__syncthreads_and(ib <= next)) {
    if (threadIdx.x == 0) {
      for (unsigned t = 1; t < blockDim.x; ++t) query_start[t] = cuda::std::max(query_start[t], query_start[t - 1]);
    }
    __syncthreads();
    ib = query_start[threadIdx.x];
    ia = diagonal - ib;
    next = next_start();
  }
#pragma unroll
  for (unsigned k = 0; k < vt; ++k) {
    if (ia + ib >= total) break;
    if (ib < next && (ia >= a_count || !before(elements[ia], tile_queries[ib]))) {
      found[ib++] = ia;
    } else {
      ++ia;
    }
  }
  while (ib < next) found[ib++] = cuda::std::min(ia, a_count);  // only for queries that are not sorted
  __syncthreads();
  for (unsigned k = threadIdx.x; k < b_count; k += blockDim.x) out(j0 + k, i0 + found[k], tile_queries[k]);
  // The queries between this tile's last and the next tile's first: none with both sequences
  // sorted; an array or queries that are not sorted can leave some there, written here so that
  // every output is.
  const std::size_t next_j0 = cuda::std::min<std::size_t>(d1 - i1, m);
  for (std::size_t j = j0 + b_count + threadIdx.x; j < next_j0; j += blockDim.x) out(j, i0 + a_count, queries[j]);
}

// Sorted search pays for reading the whole array; one binary search per query pays log2(n) loads
// for each query. The merge wins once the queries are a sizable fraction of the array.
inline bool merge_pays(std::size_t n, std::size_t m) { return m >= n / 16; }

// Random queries pay a DRAM sector for each level of their search past the L2 cache; sorted first
// (the lesson's stage 4), they stream: about 40 bytes moved per 4-byte query, and a radix sort's
// dozen launches. Worth it for many queries in an array past the cache (bench_search's rows
// lower_bound/uint32/lesson_sort_first and lesson_staged_top at 2^22, 2^24, 2^26 and 2^28: the
// staged search ahead at 2^22, an array of 16 MB, behind from 2^24, 64 MB, past a 50 MB L2).
inline bool sort_first_pays(std::size_t n, std::size_t m, std::size_t element_bytes) {
  return m >= (std::size_t{1} << 24) && merge_pays(n, m) && n * element_bytes > l2_cache_bytes();
}

// The position found for the i-th query in sorted order goes to the query's own place.
template <class Out, class P>
struct to_query_place {
  Out out;
  const P* place;
  template <class Q>
  __device__ void operator()(std::size_t i, std::size_t position, const Q& query) const {
    out(place[i], position, query);
  }
};

// The queries (standard keys of `kind`, as bits B) sorted with their places by the sort family's
// raw radix sort, in the standard keys' order; then search(in_order, places) runs over them, the
// places (P: 4 bytes while they fit) saying where each result goes. Scratch: the places twice and
// the sorted queries, each piece 256-byte aligned, and the sort's own. False, with nothing written,
// where the GPU has no room for them: the search without sorting needs none.
template <class B, class Search>
bool with_queries_sorted(const char* algorithm, const execution_policy& policy, key_kind kind,
                         span<const B> queries, Search&& search) {
  const std::size_t m = queries.size();
  const auto sorted_with = [&]<class P>() {
    const execution_policy gpu = policy.with(impl::raw);
    const std::size_t places_bytes = round256(m * sizeof(P));
    const scratch lease = acquire_separate_scratch(2 * places_bytes + m * sizeof(B), gpu, algorithm);
    auto* const base = static_cast<unsigned char*>(lease.device());
    auto* const places = reinterpret_cast<P*>(base);
    auto* const sorted_places = reinterpret_cast<P*>(base + places_bytes);
    auto* const in_order = reinterpret_cast<B*>(base + 2 * places_bytes);
    launch(algorithm, "iota_kernel", sorting::iota_kernel<P>, stride_blocks(m), block_size, gpu.stream(), places, m);
    const auto sort_as = [&]<class K>() {
      sort_pairs<K, P>(gpu, span<const K>(reinterpret_cast<const K*>(queries.data()), m), span<const P>(places, m),
                       span<K>(reinterpret_cast<K*>(in_order), m), span<P>(sorted_places, m), sort_order::ascending);
    };
    switch (kind) {
      case key_kind::unsigned_integer: sort_as.template operator()<B>(); break;
      case key_kind::signed_integer: sort_as.template operator()<std::make_signed_t<B>>(); break;
      case key_kind::floating_point:
        sort_as.template operator()<std::conditional_t<sizeof(B) == 4, float, double>>();
        break;
    }
    search(static_cast<const B*>(in_order), static_cast<const P*>(sorted_places));
  };
  try {
    if (m <= std::numeric_limits<std::uint32_t>::max()) {
      sorted_with.template operator()<std::uint32_t>();
    } else {
      sorted_with.template operator()<std::uint64_t>();
    }
  } catch (const cuda_error& e) {
    if (e.code() != cudaErrorMemoryAllocation) throw;
    clear_stale_error();
    return false;
  }
  return true;
}

template <class Comp>
inline constexpr bool is_key_order = false;
template <class B>
inline constexpr bool is_key_order<key_order<B>> = true;

// raw's choice of how to search: run(queries, by_merge, to_place) runs every search of the call
// over `queries` (merging when by_merge), each output made by to_place(output). Queries promised
// sorted merge where merge_pays; random ones of the standard keys are sorted first where
// sort_first_pays (to_place then sends each result to its query's place); the rest are searched
// as they come, each output its own.
template <class T, class Q, class Comp, class Run>
void choose_raw_search(const char* algorithm, const execution_policy& policy, std::size_t n, span<const Q> queries,
                       const Comp& comp, bool sorted_queries, Run&& run) {
  const std::size_t m = queries.size();
  if constexpr (is_key_order<Comp> && std::is_same_v<T, Q>) {
    if (!sorted_queries && sort_first_pays(n, m, sizeof(T)) &&
        with_queries_sorted(algorithm, policy, comp.kind(), queries, [&]<class P>(const Q* in_order, const P* places) {
          run(in_order, true, [places]<class Out>(Out out) { return to_query_place<Out, P>{out, places}; });
        })) {
      return;
    }
  }
  run(queries.data(), sorted_queries && merge_pays(n, m), [](auto out) { return out; });
}

template <class T, class Q, class Before, class Out>
void search_raw(const char* algorithm, const execution_policy& policy, const T* sorted, std::size_t n,
                const Q* queries, std::size_t m, Before before, Out out, bool by_merge) {
  const cudaStream_t stream = policy.stream();
  if (by_merge) {
    constexpr std::size_t tile = search_tile<T, Q>;
    const std::size_t tiles = (n + m + tile - 1) / tile;
    const scratch lease = acquire_scratch((tiles + 1) * sizeof(std::size_t), with_explicit_stream(policy), algorithm);
    auto* starts = static_cast<std::size_t*>(lease.device());
    launch(algorithm, "merge_partition_kernel", merge_partition_kernel<T, Q, Before>, blocks_for(tiles + 1),
           block_size, stream, sorted, n, queries, m, tiles, before, starts);
    launch(algorithm, "sorted_search_kernel", sorted_search_kernel<T, Q, Before, Out>, static_cast<unsigned>(tiles),
           block_size, stream, sorted, n, queries, m, static_cast<const std::size_t*>(starts), before, out);
    return;
  }
  const std::size_t tile = std::size_t{block_size} * queries_per_thread;
  const std::size_t wanted = (m + tile - 1) / tile;
  const std::size_t resident = std::size_t{staged_blocks_per_sm} * multiprocessor_count();
  launch(algorithm, "search_staged_kernel", search_staged_kernel<T, Q, Before, Out>,
         static_cast<unsigned>(std::min(wanted, resident)), block_size, stream, sorted, n, queries, m, before, out);
}

template <class T, class Q, class Before, class Out>
void search_naive(const char* algorithm, cudaStream_t stream, const T* sorted, std::size_t n, const Q* queries,
                  std::size_t m, Before before, Out out) {
  launch(algorithm, "search_naive_kernel", search_naive_kernel<T, Q, Before, Out>, blocks_for(m), block_size, stream,
         sorted, n, queries, m, before, out);
}

// ---- cub ----------------------------------------------------------------------------------------

// binary_search through cub::DeviceFind::LowerBound: each position found goes through this output
// iterator's function, which compares the element there with the query.
template <class T, class Q, class F, class Comp>
struct found_at {
  F* out;
  const T* sorted;
  const Q* queries;
  std::int64_t n;
  Comp comp;
  __device__ void operator()(std::ptrdiff_t i, std::ptrdiff_t position) const {
    out[i] = static_cast<F>(position < n && !comp(queries[i], sorted[position]));
  }
};

// One CUB search of the queries' lower bounds under `comp` (sorted: by merge path, with the side's
// own mode) into `out`, temporary storage from prism's scratch.
template <class T, class Q, class O, class Comp>
void cub_search(const char* algorithm, const execution_policy& policy, const T* sorted, std::size_t n,
                const Q* queries, std::size_t m, O out, Comp comp, bool upper, bool by_merge) {
  const cudaStream_t stream = policy.stream();
  const auto range = static_cast<std::int64_t>(n), items = static_cast<std::int64_t>(m);
  if (by_merge && n > 0) {
    cub_call(algorithm, upper ? "cub::DeviceFind::UpperBoundSortedValues" : "cub::DeviceFind::LowerBoundSortedValues",
             policy, {m, n * 2 + upper}, [&](void* temp, std::size_t& bytes, void*) {
               if (upper) {
                 return cub::DeviceFind::UpperBoundSortedValues(temp, bytes, sorted, range, queries, items, out, comp,
                                                                stream);
               }
               return cub::DeviceFind::LowerBoundSortedValues(temp, bytes, sorted, range, queries, items, out, comp,
                                                              stream);
             });
    return;
  }
  cub_call(algorithm, "cub::DeviceFind::LowerBound", policy, {m, n}, [&](void* temp, std::size_t& bytes, void*) {
    return cub::DeviceFind::LowerBound(temp, bytes, sorted, range, queries, items, out,
                                       bound_before<Comp>{comp, upper}, cuda::stream_ref{stream});
  });
}

// ---- the implementations side by side -----------------------------------------------------------

[[noreturn]] inline void refuse_positions(const char* algorithm, std::size_t n, std::size_t limit) {
  throw std::invalid_argument(std::string("prism::") + algorithm + ": the sorted array has " + std::to_string(n) +
                              " elements, more positions than the output's type holds (up to " +
                              std::to_string(limit) + ")");
}

// The lower bounds into `lower`, the upper bounds into `upper`, or both (equal_range), as `sides`
// says; the other span is empty. `limit`: the largest position the output's type holds.
template <class T, class Q, class I, class Comp>
void bounds_spans(bound_sides sides, const execution_policy& policy, span<const T> sorted, span<const Q> queries,
                  span<I> lower, span<I> upper, Comp comp, query_order order,
                  std::size_t limit = static_cast<std::size_t>(std::numeric_limits<I>::max())) {
  const char* algorithm = sides == bound_sides::lower   ? "lower_bound"
                          : sides == bound_sides::upper ? "upper_bound"
                                                        : "equal_range";
  const std::size_t n = sorted.size(), m = queries.size();
  if (n > limit) refuse_positions(algorithm, n, limit);
  const bool want_lower = sides != bound_sides::upper, want_upper = sides != bound_sides::lower;
  const bool both = sides == bound_sides::both;
  const T* a = sorted.data();
  const Q* q = queries.data();
  const bool sorted_queries = order == query_order::sorted;
  const cudaStream_t stream = policy.stream();
  // Each implementation runs once per side asked for.
  const auto each_side = [&](auto&& run_side) {
    if (want_lower) run_side(lower.data(), false);
    if (want_upper) run_side(upper.data(), true);
  };
  const auto on_thrust = [&](const auto& p) {
    each_side([&](I* out, bool upper_side) {
      thrust::lower_bound(p, a, a + n, q, q + m, out, bound_before<Comp>{comp, upper_side});
    });
  };
  dispatch<Comp>(
      {algorithm, search_family, policy,
       {array_ref::input(sorted, "the sorted array"), array_ref::input(queries, "the queries"),
        array_ref::output_apart(lower, both ? "the lower bounds" : "the output").sized(want_lower ? m : 0),
        array_ref::output_apart(upper, both ? "the upper bounds" : "the output").sized(want_upper ? m : 0)},
       m, sorted.size_bytes() + queries.size_bytes() + (both ? 2 : 1) * m * sizeof(I)},
      implementations{
          .cpu = on_thrust,
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                each_side([&](I* out, bool upper_side) {
                  search_naive(algorithm, stream, a, n, q, m, bound_before<Comp>{comp, upper_side},
                               write_position<I>{out});
                });
              },
          .raw =
              [&] {
                choose_raw_search<T>(algorithm, policy, n, queries, comp, sorted_queries,
                                     [&](const Q* in_order, bool by_merge, auto to_place) {
                                       each_side([&](I* out, bool upper_side) {
                                         search_raw(algorithm, policy, a, n, in_order, m,
                                                    bound_before<Comp>{comp, upper_side},
                                                    to_place(write_position<I>{out}), by_merge);
                                       });
                                     });
              },
          .cub =
              [&] {
                each_side([&](I* out, bool upper_side) {
                  cub_search(algorithm, policy, a, n, q, m, out, comp, upper_side, sorted_queries);
                });
              },
      });
}

// found[i] = whether an element equals queries[i]: its lower bound, then one comparison.
template <class T, class Q, class F, class Comp>
void contains_spans(const execution_policy& policy, span<const T> sorted, span<const Q> queries, span<F> found,
                    Comp comp, query_order order) {
  const char* algorithm = "binary_search";
  const std::size_t n = sorted.size(), m = queries.size();
  const T* a = sorted.data();
  const Q* q = queries.data();
  F* f = found.data();
  const bool sorted_queries = order == query_order::sorted;
  const cudaStream_t stream = policy.stream();
  const bound_before<Comp> before{comp, false};
  const write_found<T, F, Comp> out{f, a, n, comp};
  const auto on_thrust = [&](const auto& p) { thrust::binary_search(p, a, a + n, q, q + m, f, comp); };
  dispatch<Comp>({algorithm, search_family, policy,
                  {array_ref::input(sorted, "the sorted array"), array_ref::input(queries, "the queries"),
                   array_ref::output_apart(found, "the output").sized(m)},
                  m},
                 implementations{
                     .cpu = on_thrust,
                     .thrust = on_thrust,
                     .raw_naive = [&] { search_naive(algorithm, stream, a, n, q, m, before, out); },
                     .raw =
                         [&] {
                           choose_raw_search<T>(algorithm, policy, n, queries, comp, sorted_queries,
                                                [&](const Q* in_order, bool by_merge, auto to_place) {
                                                  search_raw(algorithm, policy, a, n, in_order, m, before,
                                                             to_place(out), by_merge);
                                                });
                         },
                     .cub =
                         [&] {
                           const auto through = cuda::make_tabulate_output_iterator(
                               found_at<T, Q, F, Comp>{f, a, q, static_cast<std::int64_t>(n), comp});
                           cub_search(algorithm, policy, a, n, q, m, through, comp, false, false);
                         },
                 });
}

}  // namespace detail

// ---- the forms with the caller's comparator -----------------------------------------------------

template <class C>
concept not_query_order = !std::is_same_v<std::remove_cvref_t<C>, query_order>;
template <class O>
concept position_output = detail::writable_array<O> && std::is_integral_v<value_t<O>>;

namespace ops {

template <class S, class Q, class O, class Comp>
  requires array_like<std::remove_reference_t<S>> && array_like<std::remove_reference_t<Q>> && position_output<O> &&
           not_query_order<Comp>
void run(lower_bound, const execution_policy& policy, S&& sorted, Q&& queries, O&& out, Comp comp,
         query_order order = query_order::any) {
  detail::bounds_spans(detail::bound_sides::lower, policy, input_span(sorted), input_span(queries), output_span(out),
                       span<value_t<O>>(), comp, order);
}

template <class S, class Q, class O, class Comp>
  requires array_like<std::remove_reference_t<S>> && array_like<std::remove_reference_t<Q>> && position_output<O> &&
           not_query_order<Comp>
void run(upper_bound, const execution_policy& policy, S&& sorted, Q&& queries, O&& out, Comp comp,
         query_order order = query_order::any) {
  detail::bounds_spans(detail::bound_sides::upper, policy, input_span(sorted), input_span(queries),
                       span<value_t<O>>(), output_span(out), comp, order);
}

template <class S, class Q, class L, class U, class Comp>
  requires array_like<std::remove_reference_t<S>> && array_like<std::remove_reference_t<Q>> && position_output<L> &&
           writable_array_of<U, value_t<L>> && not_query_order<Comp>
void run(equal_range, const execution_policy& policy, S&& sorted, Q&& queries, L&& lower, U&& upper, Comp comp,
         query_order order = query_order::any) {
  detail::bounds_spans(detail::bound_sides::both, policy, input_span(sorted), input_span(queries), output_span(lower),
                       output_span(upper), comp, order);
}

// found[i] = whether an element is equivalent to queries[i] under comp; found's elements are
// assigned from bool.
template <class S, class Q, class F, class Comp>
  requires array_like<std::remove_reference_t<S>> && array_like<std::remove_reference_t<Q>> &&
           detail::writable_array<F> && std::is_assignable_v<value_t<F>&, bool> && not_query_order<Comp>
void run(binary_search, const execution_policy& policy, S&& sorted, Q&& queries, F&& found, Comp comp,
         query_order order = query_order::any) {
  detail::contains_spans(policy, input_span(sorted), input_span(queries), output_span(found), comp, order);
}

}  // namespace ops
}  // namespace prism
