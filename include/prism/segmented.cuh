// SPDX-License-Identifier: Apache-2.0
#pragma once
// The segmented family's generic layer: one reduction or one prefix sum per segment, the segments
// given by offsets or by a fixed size, in every implementation, for any reduction made of
// (load, combine, identity, finish) (<prism/segmented.hpp> compiles sum, min, max, argmin and
// argmax of the standard types from these templates).
//
// What decides the speed. A segmented reduction reads every element once and writes one value per
// segment: a read-only pattern, as a plain reduction is, but the work comes in pieces of sizes the
// GPU learns only from the offsets. The whole game is giving every thread an even share:
//   raw_naive  one thread per segment: neighbouring threads read addresses a segment apart (no
//              coalescing), and one long segment keeps one thread busy while the GPU idles.
//   raw        a warp per segment: 32 lanes read 32 neighbouring elements, combined by shuffles;
//              a segment longer than long_segment elements is left to the whole block (8 warps),
//              which takes it after its short segments. A segment of the whole array is still one
//              block's work (one SM's share of the bandwidth): the price of needing no pass over
//              the offsets before the launch, which CUB pays the same way.
//   thrust     no per-segment work at all: a scan over every element of (segment, value) pairs with
//              the segmented operator (a pair from another segment starts over), which is as
//              balanced as a scan is; the segment of each element is a binary search in the
//              offsets (cached: neighbouring elements search the same few offsets).
//   cub        cub::DeviceSegmentedReduce::Reduce (a block per segment, with warp-sized policies
//              for small ones) and cub::DeviceSegmentedScan (CCCL 3.5).
//   cpu        the thrust code through Thrust's OpenMP system, after checking the offsets.
// Every GPU implementation clamps each segment into [0, n] (begin_of, end_of): broken offsets,
// which only cpu refuses, read and write nothing outside the arrays.
#include <prism/dispatch.cuh>
#include <prism/functors.cuh>
#include <prism/primitives/block_reduce.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/segmented.hpp>
#include <prism/span.hpp>

#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_scan.cuh>
#include <cuda/iterator>
#include <cuda/std/bit>
#include <cuda/std/limits>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace prism {
namespace detail {

// ---- the segments ---------------------------------------------------------------------------------

// Segment s is [begin(s), end(s)), clamped into [0, n] whatever the offsets hold. segment_of(i) is
// the segment element i is in, for offsets that are right (-1 or count for an element in none);
// for broken ones some value in [-1, count], never decreasing in i.
template <class I>
struct offset_segments {
  const I* offsets;
  std::int64_t count, n;

  __host__ __device__ std::int64_t clamped(std::int64_t k, std::int64_t lo) const {
    const std::int64_t v = static_cast<std::int64_t>(offsets[k]);
    return v < lo ? lo : v > n ? n : v;
  }
  __host__ __device__ std::int64_t begin(std::int64_t s) const { return clamped(s, 0); }
  __host__ __device__ std::int64_t end(std::int64_t s) const { return clamped(s + 1, begin(s)); }
  // The number of offsets not after i, less one: an upper bound over offsets[0 .. count]. A
  // binary search is monotone in its query even over an unsorted array, so broken offsets still
  // give non-decreasing segments (what keeps thrust's scan inside its outputs).
  __host__ __device__ std::int64_t segment_of(std::int64_t i) const {
    std::int64_t lo = 0, len = count + 1;
    while (len > 0) {
      const std::int64_t half = len / 2;
      if (static_cast<std::int64_t>(offsets[lo + half]) <= i) {
        lo += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    return lo - 1;
  }
};

struct fixed_size_segments {
  std::int64_t size, count;
  __host__ __device__ std::int64_t begin(std::int64_t s) const { return s * size; }
  __host__ __device__ std::int64_t end(std::int64_t s) const { return s * size + size; }
  __host__ __device__ std::int64_t segment_of(std::int64_t i) const { return size == 0 ? count : i / size; }
};

template <class Segments>
struct begin_of {
  Segments segments;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return segments.begin(s); }
};
template <class Segments>
struct end_of {
  Segments segments;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return segments.end(s); }
};

// ---- the reductions ---------------------------------------------------------------------------------
// A reduction is load(x, i) -> A, combine(A, A) -> A (associative and commutative: CUB and the
// trees regroup and reorder), identity() (combine(identity, a) == a), and finish(A) -> R; an empty
// segment gets finish(identity()).

template <class T>
struct sum_reduction {
  using value_type = T;
  using accumulator = sum_type<T>;
  using result = sum_type<T>;
  __host__ __device__ accumulator load(T x, std::int64_t) const { return static_cast<accumulator>(x); }
  __host__ __device__ accumulator combine(accumulator a, accumulator b) const { return functors::plus<accumulator>{}(a, b); }
  __host__ __device__ accumulator identity() const { return accumulator{}; }
  __host__ __device__ result finish(accumulator a) const { return a; }
};

// min or max with one answer whatever the order of combination (prism::min's extremum keeps its
// first argument of two equal ones): of two NaNs the one with the smaller bits, of -0.0 and +0.0
// the negative for min and the positive for max. So every implementation writes the same bits.
template <class T>
struct order_free_extremum {
  bool largest;
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
      const bool a_nan = functors::is_nan(a), b_nan = functors::is_nan(b);
      if (a_nan || b_nan) {
        if (a_nan && b_nan) return cuda::std::bit_cast<U>(a) <= cuda::std::bit_cast<U>(b) ? a : b;
        return a_nan ? a : b;
      }
      if (a == b) {
        const bool a_negative = (cuda::std::bit_cast<U>(a) >> (sizeof(U) * 8 - 1)) != 0;
        return a_negative != largest ? a : b;
      }
    }
    return (largest ? a < b : b < a) ? b : a;
  }
};

template <class T>
struct extremum_reduction {
  using value_type = T;
  using accumulator = T;
  using result = T;
  bool largest;
  __host__ __device__ T load(T x, std::int64_t) const { return x; }
  __host__ __device__ T combine(T a, T b) const { return order_free_extremum<T>{largest}(a, b); }
  __host__ __device__ T identity() const { return functors::extremum<T>{largest}.identity(); }
  __host__ __device__ T finish(T a) const { return a; }
};

// (value, position): functors::arg_extremum, prism::argmin's (the first NaN, the lowest position
// of equal values), whose identity has a position no element has: it finishes as -1.
template <class T, class I>
struct arg_reduction {
  using value_type = T;
  using accumulator = functors::located<T>;
  using result = I;
  bool largest;
  __host__ __device__ accumulator load(T x, std::int64_t i) const { return {x, i}; }
  __host__ __device__ accumulator combine(accumulator a, accumulator b) const {
    return functors::arg_extremum<T>{largest}(a, b);
  }
  __host__ __device__ accumulator identity() const { return functors::arg_extremum<T>{largest}.identity(); }
  __host__ __device__ I finish(accumulator a) const {
    return a.index == cuda::std::numeric_limits<std::int64_t>::max() ? I(-1) : static_cast<I>(a.index);
  }
};

template <class Reduction>
struct combine_of {
  Reduction r;
  template <class A>
  __host__ __device__ A operator()(const A& a, const A& b) const {
    return r.combine(a, b);
  }
};

// ---- cpu and thrust: one scan of (segment, value) pairs -------------------------------------------

template <class A>
struct keyed {
  std::int64_t segment;
  A value;
};

// The segmented operator: a pair from a later segment starts over. Associative whenever the
// segments never decrease along the array (segment_of guarantees it).
template <class Combine>
struct segmented_op {
  Combine combine;
  template <class A>
  __host__ __device__ keyed<A> operator()(const keyed<A>& a, const keyed<A>& b) const {
    return b.segment == a.segment ? keyed<A>{b.segment, combine(a.value, b.value)} : b;
  }
};

template <class Reduction, class Segments>
struct load_keyed {
  const typename Reduction::value_type* x;
  Segments segments;
  Reduction r;
  __host__ __device__ keyed<typename Reduction::accumulator> operator()(std::int64_t i) const {
    return {segments.segment_of(i), r.load(x[i], i)};
  }
};

// Writes segment s's total where its last element's prefix comes by.
template <class Reduction, class Segments>
struct write_last_prefix {
  typename Reduction::result* out;
  Segments segments;
  Reduction r;
  __host__ __device__ void operator()(std::int64_t i, const keyed<typename Reduction::accumulator>& k) const {
    if (k.segment >= 0 && k.segment < segments.count && i + 1 == segments.end(k.segment)) {
      out[k.segment] = r.finish(k.value);
    }
  }
};

template <class Reduction, class Segments, class Policy>
void reduce_by_scan(const Policy& p, const typename Reduction::value_type* x, std::int64_t n,
                    typename Reduction::result* out, Segments segments, Reduction r) {
  thrust::fill_n(p, out, segments.count, r.finish(r.identity()));
  if (n == 0) return;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                  load_keyed<Reduction, Segments>{x, segments, r});
  thrust::inclusive_scan(p, in, in + n,
                         cuda::make_tabulate_output_iterator(write_last_prefix<Reduction, Segments>{out, segments, r}),
                         segmented_op<combine_of<Reduction>>{{r}});
}

// Scans: every prefix written where its element is in a segment. The exclusive scan is an
// exclusive scan of the pairs: its prefix at i comes from i - 1, and is 0 unless that is i's segment.
template <class T, class Segments>
struct write_prefix {
  T* out;
  Segments segments;
  bool exclusive;
  __host__ __device__ void operator()(std::int64_t i, const keyed<T>& k) const {
    const std::int64_t s = exclusive ? segments.segment_of(i) : k.segment;
    if (s < 0 || s >= segments.count) return;
    out[i] = exclusive && k.segment != s ? T{} : k.value;
  }
};

// The prefix sum as a reduction (load and combine in T, integers wrapping).
template <class T>
struct segment_scan_sum {
  using value_type = T;
  using accumulator = T;
  __host__ __device__ T load(T v, std::int64_t) const { return v; }
};

template <class T, class Segments, class Policy>
void scan_by_scan(const Policy& p, const T* x, std::int64_t n, T* out, Segments segments, bool exclusive) {
  if (n == 0) return;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                  load_keyed<segment_scan_sum<T>, Segments>{x, segments, {}});
  const auto to = cuda::make_tabulate_output_iterator(write_prefix<T, Segments>{out, segments, exclusive});
  const segmented_op<functors::plus<T>> op{};
  if (exclusive) {
    thrust::exclusive_scan(p, in, in + n, to, keyed<T>{-2, T{}}, op);
  } else {
    thrust::inclusive_scan(p, in, in + n, to, op);
  }
}

// ---- raw_naive: one thread per segment ----------------------------------------------------------

template <class Reduction, class Segments>
__global__ void segmented_reduce_naive_kernel(const typename Reduction::value_type* x,
                                              typename Reduction::result* out, Segments segments, Reduction r) {
  const std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (s >= segments.count) return;
  auto acc = r.identity();
  for (std::int64_t i = segments.begin(s), e = segments.end(s); i < e; ++i) acc = r.combine(acc, r.load(x[i], i));
  out[s] = r.finish(acc);
}

template <class T, class Segments>
__global__ void segmented_scan_naive_kernel(const T* x, T* out, Segments segments, bool exclusive) {
  const std::int64_t s = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (s >= segments.count) return;
  T sum{};
  for (std::int64_t i = segments.begin(s), e = segments.end(s); i < e; ++i) {
    const T v = x[i];  // read before the write: in place works
    const T next = functors::plus<T>{}(sum, v);
    out[i] = exclusive ? sum : next;
    sum = next;
  }
}

// ---- raw: a warp per short segment, the block for long ones ------------------------------------
// nt = 256 threads, 8 warps, one segment per warp. A segment of more than long_segment elements
// (32 loads per lane) is the block's, after the warps' short ones: a warp alone would read it at a
// warp's pace while its block's other warps wait at the barrier.
inline constexpr unsigned segment_warps = block_size / 32;
inline constexpr std::int64_t long_segment = 32 * 32;
// Blocks per SM of the grid (grid-stride over groups of 8 segments).
inline constexpr unsigned segmented_blocks_per_sm = 8;

template <class Segments, class Work>
__device__ void for_segments_by_warp_or_block(Segments segments, Work& work) {
  __shared__ unsigned long_ones;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t groups = (segments.count + segment_warps - 1) / segment_warps;
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    if (threadIdx.x == 0) long_ones = 0;
    __syncthreads();
    const std::int64_t s = g * segment_warps + warp;
    if (s < segments.count) {
      const std::int64_t b = segments.begin(s), e = segments.end(s);
      if (e - b > long_segment) {
        if (lane == 0) atomicOr(&long_ones, 1u << warp);
      } else {
        work.by_warp(s, b, e, lane);
      }
    }
    __syncthreads();
    const unsigned mask = long_ones;
    for (unsigned w = 0; w < segment_warps; ++w) {
      if ((mask >> w & 1u) == 0) continue;
      const std::int64_t t = g * segment_warps + w;
      work.by_block(t, segments.begin(t), segments.end(t));
    }
    __syncthreads();  // long_ones is read above before the next group resets it
  }
}

template <class Reduction>
struct reduce_work {
  const typename Reduction::value_type* x;
  typename Reduction::result* out;
  Reduction r;

  __device__ void by_warp(std::int64_t s, std::int64_t b, std::int64_t e, unsigned lane) {
    auto acc = r.identity();
    for (std::int64_t i = b + lane; i < e; i += 32) acc = r.combine(acc, r.load(x[i], i));
    acc = warp_reduce(acc, combine_of<Reduction>{r});
    if (lane == 0) out[s] = r.finish(acc);
  }
  __device__ void by_block(std::int64_t s, std::int64_t b, std::int64_t e) {
    auto acc = r.identity();
    for (std::int64_t i = b + threadIdx.x; i < e; i += blockDim.x) acc = r.combine(acc, r.load(x[i], i));
    acc = block_reduce(acc, combine_of<Reduction>{r}, r.identity());
    if (threadIdx.x == 0) out[s] = r.finish(acc);
  }
};

// The warp's inclusive sum (Kogge-Stone by shuffles); integers wrap.
template <class T>
__device__ T warp_inclusive_sum(T v, unsigned lane) {
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const T up = __shfl_up_sync(0xFFFFFFFFu, v, d);
    if (lane >= d) v = functors::plus<T>{}(up, v);
  }
  return v;
}

// Chunks of 32 (a warp) or 256 (the block): each chunk's scan plus the carry of the chunks before.
// Every element is read before any of its chunk is written, and no chunk reads another: in place works.
template <class T>
struct scan_work {
  const T* x;
  T* out;
  bool exclusive;

  __device__ void by_warp(std::int64_t, std::int64_t b, std::int64_t e, unsigned lane) {
    T carry{};
    for (std::int64_t base = b; base < e; base += 32) {
      const std::int64_t i = base + lane;
      const T v = i < e ? x[i] : T{};
      const T inclusive = warp_inclusive_sum(v, lane);
      const T before = __shfl_up_sync(0xFFFFFFFFu, inclusive, 1);
      if (i < e) out[i] = functors::plus<T>{}(carry, exclusive ? (lane == 0 ? T{} : before) : inclusive);
      carry = functors::plus<T>{}(carry, __shfl_sync(0xFFFFFFFFu, inclusive, 31));
    }
  }
  __device__ void by_block(std::int64_t, std::int64_t b, std::int64_t e) {
    __shared__ T warp_totals[segment_warps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T carry{};
    for (std::int64_t base = b; base < e; base += blockDim.x) {
      const std::int64_t i = base + threadIdx.x;
      const T v = i < e ? x[i] : T{};
      const T inclusive = warp_inclusive_sum(v, lane);
      T before = __shfl_up_sync(0xFFFFFFFFu, inclusive, 1);
      if (lane == 0) before = T{};
      if (lane == 31) warp_totals[warp] = inclusive;
      __syncthreads();
      T warp_carry{}, chunk{};
      for (unsigned w = 0; w < segment_warps; ++w) {
        if (w < warp) warp_carry = functors::plus<T>{}(warp_carry, warp_totals[w]);
        chunk = functors::plus<T>{}(chunk, warp_totals[w]);
      }
      const T prefix = functors::plus<T>{}(carry, warp_carry);
      if (i < e) out[i] = functors::plus<T>{}(prefix, exclusive ? before : inclusive);
      carry = functors::plus<T>{}(carry, chunk);
      __syncthreads();  // warp_totals is read above before the next chunk writes it
    }
  }
};

template <class Segments, class Work>
__global__ void __launch_bounds__(block_size) segmented_by_warp_or_block_kernel(Segments segments, Work work) {
  for_segments_by_warp_or_block(segments, work);
}

template <class Segments, class Work>
void launch_by_warp_or_block(const char* algorithm, cudaStream_t stream, Segments segments, Work work) {
  if (segments.count == 0) return;
  const std::int64_t groups = (segments.count + segment_warps - 1) / segment_warps;
  const std::int64_t resident = std::int64_t{segmented_blocks_per_sm} * multiprocessor_count();
  launch(algorithm, "segmented_by_warp_or_block_kernel", segmented_by_warp_or_block_kernel<Segments, Work>,
         static_cast<unsigned>(groups < resident ? groups : resident), block_size, stream, segments, work);
}

// ---- cub ------------------------------------------------------------------------------------------

template <class Reduction>
struct load_at {
  const typename Reduction::value_type* x;
  Reduction r;
  __host__ __device__ typename Reduction::accumulator operator()(std::int64_t i) const { return r.load(x[i], i); }
};
template <class Reduction>
struct finish_with {
  Reduction r;
  __host__ __device__ typename Reduction::result operator()(const typename Reduction::accumulator& a) const {
    return r.finish(a);
  }
};

template <class Segments>
auto cub_offsets(Segments segments) {
  const cuda::counting_iterator<std::int64_t> from(0);
  return std::pair{cuda::make_transform_iterator(from, begin_of<Segments>{segments}),
                   cuda::make_transform_iterator(from, end_of<Segments>{segments})};
}

// ---- the checks and the dispatch ----------------------------------------------------------------

// The segments of a call as the kernels take them, and the arrays the checks see.
template <class I>
struct call_segments {
  segments_view<I> view;
  std::size_t count, n;
  const char* algorithm;

  array_ref offsets_ref() const {
    return array_ref::input(view.offsets, "the offsets").sized(view.fixed ? 0 : count + 1);
  }
  void check_values_size() const {
    if (view.fixed && view.fixed_size * count != n) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(count) +
                                  " segments of " + std::to_string(view.fixed_size) + " need " +
                                  std::to_string(view.fixed_size * count) + " values, not " + std::to_string(n));
    }
  }
  void check_on_host() const {
    if (!view.fixed) check_offsets(algorithm, view.offsets, n);
  }
  // The cpu implementation: the offsets checked on the host, then Thrust's algorithm on them.
  template <class OnThrust>
  auto on_host(OnThrust on_thrust) const {
    return [this, on_thrust](const auto& p) {
      check_on_host();
      on_thrust(p);
    };
  }
  // f(segments): the offsets' functor or the fixed size's.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (view.fixed) {
      return f(fixed_size_segments{static_cast<std::int64_t>(view.fixed_size), static_cast<std::int64_t>(count)});
    }
    return f(offset_segments<I>{view.offsets.data(), static_cast<std::int64_t>(count), static_cast<std::int64_t>(n)});
  }
};

// A segmented reduction: out[s] = finish(the combine of segment s's loads).
template <class Reduction, class I>
void segmented_reduce_spans(const char* algorithm, const execution_policy& policy,
                            span<const typename Reduction::value_type> values, segments_view<I> view,
                            span<typename Reduction::result> out, Reduction r) {
  using T = typename Reduction::value_type;
  using R = typename Reduction::result;
  const call_segments<I> segs{view, out.size(), values.size(), algorithm};
  segs.check_values_size();
  const T* x = values.data();
  R* o = out.data();
  const auto n = static_cast<std::int64_t>(values.size());
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    segs.visit([&](auto segments) { reduce_by_scan(p, x, n, o, segments, r); });
  };
  dispatch<Reduction>(
      {algorithm, view.fixed ? segmented_rows_family : segmented_family, policy,
       {array_ref::input(values, "the values"), segs.offsets_ref(), array_ref::output_apart(out, "the output")},
       out.size(), values.size_bytes() + view.offsets.size_bytes() + out.size_bytes()},
      implementations{
          .cpu = segs.on_host(on_thrust),
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                segs.visit([&](auto segments) {
                  launch(algorithm, "segmented_reduce_naive_kernel",
                         segmented_reduce_naive_kernel<Reduction, decltype(segments)>, blocks_for(out.size()),
                         block_size, stream, x, o, segments, r);
                });
              },
          .raw = [&] { segs.visit([&](auto segments) { launch_by_warp_or_block(algorithm, stream, segments,
                                                                               reduce_work<Reduction>{x, o, r}); }); },
          .cub =
              [&] {
                segs.visit([&](auto segments) {
                  const auto [begins, ends] = cub_offsets(segments);
                  const auto in = cuda::make_transform_iterator(cuda::counting_iterator<std::int64_t>(0),
                                                                load_at<Reduction>{x, r});
                  const auto to = cuda::make_transform_output_iterator(o, finish_with<Reduction>{r});
                  // Rows: CUB's fixed-size form (its small-segment policies, no offsets read), which
                  // counts elements in int.
                  if constexpr (std::is_same_v<decltype(segments), fixed_size_segments>) {
                    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
                    if (segments.size > 0 && n <= int_max) {
                      cub_call(algorithm, "cub::DeviceSegmentedReduce::Reduce", policy,
                               {out.size(), static_cast<std::size_t>(segments.size)},
                               [&](void* temp, std::size_t& bytes, void*) {
                                 return cub::DeviceSegmentedReduce::Reduce(
                                     temp, bytes, in, to, static_cast<std::int64_t>(out.size()),
                                     static_cast<int>(segments.size), combine_of<Reduction>{r}, r.identity(), stream);
                               });
                      return;
                    }
                  }
                  cub_call(algorithm, "cub::DeviceSegmentedReduce::Reduce", policy, {out.size(), values.size()},
                           [&](void* temp, std::size_t& bytes, void*) {
                             return cub::DeviceSegmentedReduce::Reduce(
                                 temp, bytes, in, to, static_cast<std::int64_t>(out.size()), begins, ends,
                                 combine_of<Reduction>{r}, r.identity(), stream);
                           });
                });
              },
      });
}

// A segmented prefix sum of T (in place allowed: out exactly values).
template <class T, class I>
void segmented_scan_spans(const char* algorithm, const execution_policy& policy, span<const T> values,
                          segments_view<I> view, std::size_t count, span<T> out, bool exclusive) {
  const call_segments<I> segs{view, count, values.size(), algorithm};
  segs.check_values_size();
  const T* x = values.data();
  T* o = out.data();
  const auto n = static_cast<std::int64_t>(values.size());
  const cudaStream_t stream = policy.stream();
  const auto on_thrust = [&](const auto& p) {
    segs.visit([&](auto segments) { scan_by_scan(p, x, n, o, segments, exclusive); });
  };
  dispatch<T>(
      {algorithm, segmented_family, policy,
       {array_ref::input(values, "the values"), segs.offsets_ref(),
        array_ref::output_of(out, "the output", 0).sized(values.size())},
       values.size(), 2 * values.size_bytes() + view.offsets.size_bytes()},
      implementations{
          .cpu = segs.on_host(on_thrust),
          .thrust = on_thrust,
          .raw_naive =
              [&] {
                if (count == 0) return;
                segs.visit([&](auto segments) {
                  launch(algorithm, "segmented_scan_naive_kernel", segmented_scan_naive_kernel<T, decltype(segments)>,
                         blocks_for(count), block_size, stream, x, o, segments, exclusive);
                });
              },
          .raw = [&] { segs.visit([&](auto segments) { launch_by_warp_or_block(algorithm, stream, segments,
                                                                               scan_work<T>{x, o, exclusive}); }); },
          .cub =
              [&] {
                segs.visit([&](auto segments) {
                  const auto [begins, ends] = cub_offsets(segments);
                  const auto segments_count = static_cast<std::int64_t>(count);
                  cub_call(algorithm,
                           exclusive ? "cub::DeviceSegmentedScan::ExclusiveSegmentedScan"
                                     : "cub::DeviceSegmentedScan::InclusiveSegmentedScan",
                           policy, {values.size(), count * 2 + exclusive}, [&](void* temp, std::size_t& bytes, void*) {
                             if (exclusive) {
                               return cub::DeviceSegmentedScan::ExclusiveSegmentedScan(
                                   temp, bytes, x, o, begins, ends, segments_count, functors::plus<T>{}, T{}, stream);
                             }
                             return cub::DeviceSegmentedScan::InclusiveSegmentedScan(
                                 temp, bytes, x, o, begins, ends, segments_count, functors::plus<T>{}, stream);
                           });
                });
              },
      });
}

}  // namespace detail
}  // namespace prism
