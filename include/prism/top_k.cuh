// SPDX-License-Identifier: Apache-2.0
#pragma once
// The top-k family's implementations, side by side (<prism/top_k.hpp> says what they compute). The
// elements arrive as their bits U (uint32_t or uint64_t) with their kind told at run time, so one
// instantiation serves every type of a size.
//
// Every implementation ranks element i by rank(x[i]) = the sort family's ordered bits
// (radix_order.cuh), complemented for the largest: the k best are the k smallest ranks, ties to
// the lower index. What decides the speed is how many times the n elements are read:
//   cpu, thrust  sort then take: the n ranks and positions sorted (a radix sort: 2 reads and 2
//                writes of both per 8-bit digit), for k of them. Wasteful, and the baseline.
//   raw          (<prism/top_k_select.cuh>) radix select: one read of x per 8-bit digit, then two
//                more, then a radix sort of only k; for k up to 128 one read, each warp keeping
//                its best k in a queue (fused select).
//   cub          cub::DeviceTopK, AIR top-k itself, on the pairs (rank, ~position) made on the fly
//                by an iterator: a pair per element, so the k chosen are exactly the documented
//                ones (CUB's own ties are unspecified); its output is unordered, so the k are then
//                sorted by position and stably by rank.
// Segments given by offsets (top_k_segments) are sort then take: each element's rank and position
// sorted within its segment by the segmented sort of the implementation named
// (<prism/segmented_sort.cuh>), then the first k of every segment taken; raw, for k up to 128 and
// at least a segment per multiprocessor, reads each segment once instead, a block per segment
// (segment_select; top_k_rows' raw too, for as many rows).
#include <prism/dispatch.cuh>
#include <prism/primitives/launch.cuh>
#include <prism/primitives/onesweep.cuh>
#include <prism/primitives/radix_order.cuh>
#include <prism/scratch.hpp>
#include <prism/segmented_sort.cuh>
#include <prism/segments.cuh>
#include <prism/top_k.hpp>
#include <prism/top_k_select.cuh>  // raw's selections

#include <cub/device/device_topk.cuh>
#include <cuda/iterator>
#include <cuda/std/algorithm>
#include <cuda/std/tuple>
#include <cuda/stream_ref>
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace prism::detail {

// ---- cpu, thrust: sort then take ----------------------------------------------------------------

// ranks and positions: n each, on the policy's side (host for thrust::omp::par).
template <class P, class U, class I>
void sort_then_take(const P& p, const U* x, std::size_t n, std::size_t k, U* values, I* indices, top_k_rank<U> rank,
                    U* ranks, I* positions) {
  thrust::transform(p, x, x + n, ranks, rank);
  thrust::sequence(p, positions, positions + n);
  thrust::stable_sort_by_key(p, ranks, ranks + n, positions);
  thrust::copy(p, positions, positions + k, indices);
  thrust::gather(p, indices, indices + k, x, values);
}

// ---- cub: DeviceTopK on (rank, ~position) pairs ---------------------------------------------------

template <class U>
struct ranked_position {
  U rank;              // complemented: CUB keeps the largest
  std::uint64_t after; // ~position: the lower position is the larger
};
template <class U>
struct ranked_position_fields {
  __host__ __device__ cuda::std::tuple<U&, std::uint64_t&> operator()(ranked_position<U>& p) const {
    return {p.rank, p.after};
  }
};
template <class U>
struct make_ranked_position {
  const U* x;
  top_k_rank<U> rank;
  __host__ __device__ ranked_position<U> operator()(std::int64_t i) const {
    return {static_cast<U>(~rank(x[i])), ~static_cast<std::uint64_t>(i)};
  }
};

template <class U, class I>
__global__ void unpack_ranked_kernel(const ranked_position<U>* chosen, std::size_t k, const U* x, U* values,
                                     I* indices) {
  const std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (j >= k) return;
  const std::uint64_t i = ~chosen[j].after;
  indices[j] = static_cast<I>(i);
  values[j] = x[i];
}

template <class U, class I>
void cub_top_k(const char* algorithm, const execution_policy& policy, const U* x, std::size_t n, std::size_t k,
               U* values, I* indices, top_k_rank<U> rank) {
  const cudaStream_t stream = policy.stream();
  const auto items = static_cast<std::int64_t>(n), wanted = static_cast<std::int64_t>(k);
  const auto pairs = cuda::make_transform_iterator(cuda::counting_iterator<std::int64_t>(0),
                                                   make_ranked_position<U>{x, rank});
  const auto env = cuda::std::execution::env{
      cuda::stream_ref{stream}, cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                         cuda::execution::output_ordering::unsorted)};
  cub_call(
      algorithm, "cub::DeviceTopK::MaxKeys", policy, {n, k},
      [&](void* temp, std::size_t& bytes, void* extra) {
        return cub::DeviceTopK::MaxKeys(temp, bytes, pairs, static_cast<ranked_position<U>*>(extra), items, wanted,
                                        ranked_position_fields<U>{}, env);
      },
      k * sizeof(ranked_position<U>),
      [&](void* extra) {
        launch(algorithm, "unpack_ranked_kernel", unpack_ranked_kernel<U, I>, blocks_for(k), block_size, stream,
               static_cast<const ranked_position<U>*>(extra), k, x, values, indices);
      });
  // Unordered: by position (an unsigned sort of the indices), then stably by the family's order.
  radix::onesweep_sort<I, U, true>(algorithm, policy, indices, indices, values, values, false, k,
                             radix::bits_order<I>{key_kind::unsigned_integer, false});
  radix::onesweep_sort<U, I, true>(algorithm, policy, values, values, indices, indices, false, k,
                             radix::bits_order<U>{rank});
}

// ---- the implementations side by side -----------------------------------------------------------

[[noreturn]] inline void refuse_top_k(const std::string& why) {
  throw std::invalid_argument("prism::top_k: " + why);
}

// Rows of row_length of x (the plain form: one row of all of x), k best of each.
// `stage` is the lesson's: raw's selection (radix_select for any k, or for k up to
// warp_select_max_k the fused one).
template <class U, class I>
void top_k_spans(const execution_policy& policy, key_kind kind, span<const U> x, std::size_t row_length,
                 std::size_t k, span<U> values, span<I> indices, bool largest,
                 top_k_stage stage = top_k_stage::fused_select) {
  const char* algorithm = "top_k";
  const std::size_t n = x.size();
  if (row_length == 0 && n != 0) refuse_top_k("a row length of 0 for " + std::to_string(n) + " elements");
  if (row_length != 0 && n % row_length != 0) {
    refuse_top_k(std::to_string(n) + " elements are not rows of " + std::to_string(row_length));
  }
  if (k > row_length) {
    refuse_top_k("k = " + std::to_string(k) + " is more than the " + std::to_string(row_length) +
                 " elements of a row");
  }
  if (sizeof(I) == 4 && row_length > std::size_t{0x7FFFFFFF}) {
    refuse_top_k(std::to_string(row_length) + " elements are more than int32 indices can number; use int64");
  }
  const std::size_t rows = row_length == 0 ? 0 : n / row_length;
  const top_k_rank<U> rank{kind, largest};
  const U* in = x.data();
  U* v = values.data();
  I* idx = indices.data();
  const cudaStream_t stream = policy.stream();
  // One row at a time (each a whole top_k).
  const auto each_row = [&](auto&& run_row) {
    for (std::size_t r = 0; r < rows; ++r) run_row(in + r * row_length, v + r * k, idx + r * k);
  };
  dispatch({algorithm, top_k_family, policy,
            {array_ref::input(x, "the input"), array_ref::output_apart(values, "the values").sized(rows * k),
             array_ref::output_apart(indices, "the indices").sized(rows * k)},
            rows * k, x.size_bytes() + rows * k * (sizeof(U) + sizeof(I))},
           implementations{
               .cpu =
                   [&](const auto& p) {
                     std::vector<U> ranks(row_length);
                     std::vector<I> positions(row_length);
                     each_row([&](const U* row, U* out, I* out_idx) {
                       sort_then_take(p, row, row_length, k, out, out_idx, rank, ranks.data(), positions.data());
                     });
                   },
               .thrust =
                   [&](const auto& p) {
                     // Blocks of their own: Thrust takes the stream's scratch for its sort meanwhile.
                     const scratch ranks = acquire_separate_scratch(row_length * sizeof(U), policy, algorithm);
                     const scratch positions = acquire_separate_scratch(row_length * sizeof(I), policy, algorithm);
                     each_row([&](const U* row, U* out, I* out_idx) {
                       sort_then_take(p, row, row_length, k, out, out_idx, rank, static_cast<U*>(ranks.device()),
                                      static_cast<I*>(positions.device()));
                     });
                   },
               .raw =
                   [&] {
                     const bool fused = stage == top_k_stage::fused_select && k <= warp_select_max_k;
                     if (fused && rows > 1 && segment_select_serves(rows, k)) {  // many rows: a block each
                       const segment_bounds each{nullptr, 0, static_cast<std::int64_t>(row_length),
                                                 static_cast<std::int64_t>(rows), static_cast<std::int64_t>(n)};
                       segment_select(algorithm, policy, in, each, k, v, idx, rank);
                       return;
                     }
                     each_row([&](const U* row, U* out, I* out_idx) {
                       if (fused) fused_select(algorithm, policy, row, row_length, k, out, out_idx, rank);
                       else radix_select(algorithm, policy, row, row_length, k, out, out_idx, rank);
                     });
                   },
               .cub =
                   [&] {
                     each_row([&](const U* row, U* out, I* out_idx) {
                       cub_top_k(algorithm, policy, row, row_length, k, out, out_idx, rank);
                     });
                   },
           });
}

// ---- segments by offsets: sort then take, in every implementation -------------------------------

// Element i's rank and its position: the pairs the segmented sort orders within each segment.
template <class U>
struct rank_and_position {
  const U* x;
  U* ranks;
  std::uint64_t* positions;
  top_k_rank<U> rank;
  __host__ __device__ void operator()(std::size_t i) const {
    ranks[i] = rank(x[i]);
    positions[i] = i;
  }
};

// Output slot t = s * k + j: segment s's j-th best (the position sorted to its begin + j), or, in a
// segment of j elements or fewer, the padding: index -1, value 0.
template <class U, class I>
struct take_segment_best {
  segment_bounds seg;
  std::size_t k;
  const U* x;
  const std::uint64_t* positions;
  U* values;
  I* indices;
  __host__ __device__ void operator()(std::size_t t) const {
    const auto s = static_cast<std::int64_t>(t / k), j = static_cast<std::int64_t>(t % k);
    const std::int64_t begin = seg.begin(s);
    if (begin + j < seg.end(s)) {
      const std::uint64_t p = positions[begin + j];
      values[t] = x[p];
      indices[t] = static_cast<I>(static_cast<std::int64_t>(p) - begin);
    } else {
      values[t] = U{0};
      indices[t] = I(-1);
    }
  }
};

// Segments (offsets or a fixed size) of x, k best of each: rows * k slots, padded.
template <class U, class I>
void top_k_segment_spans(const execution_policy& policy, key_kind kind, span<const U> x, segment_list list,
                         std::size_t k, span<U> values, span<I> indices, bool largest) {
  const char* algorithm = "top_k_segments";
  const std::size_t n = x.size();
  const segment_bounds seg = segment_bounds_of(algorithm, list, n);
  const auto segments = static_cast<std::size_t>(seg.segments);
  if (segments != 0 && k > std::numeric_limits<std::size_t>::max() / 16 / segments) {
    refuse_top_k("k = " + std::to_string(k) + " for " + std::to_string(segments) + " segments is too many slots");
  }
  if (sizeof(I) == 4 && n > std::size_t{0x7FFFFFFF}) {
    refuse_top_k(std::to_string(n) + " elements are more than int32 indices can number; use int64");
  }
  const std::size_t slots = segments * k;
  const cudaStream_t stream = policy.stream();
  // The ranks and positions are sorted within their segments, in place, by the segmented sort's
  // implementations themselves (<prism/segmented_sort.cuh>), not through its public call: the
  // checks are this call's, and the pairs are memory of this call's own, which a stream capturing
  // a graph has not made yet (a public call would refuse it as not device memory).
  namespace sorting = segmented_sorting;
  const key_kind ranks_kind = key_kind::unsigned_integer;
  const bool sorted = n > 0 && seg.segments > 0;  // without elements every slot is padding
  const auto on_thrust = [&](const auto& p, U* ranks, std::uint64_t* positions) {
    if (sorted) {
      thrust::for_each_n(p, thrust::counting_iterator<std::size_t>(0), n,
                         rank_and_position<U>{x.data(), ranks, positions, {kind, largest}});
      sorting::two_pass_sort(p, algorithm, policy, seg, radix::order_masks<U>{ranks_kind, false}, ranks, ranks,
                             positions, positions, stream);
    }
    thrust::for_each_n(p, thrust::counting_iterator<std::size_t>(0), slots,
                       take_segment_best<U, I>{seg, k, x.data(), positions, values.data(), indices.data()});
  };
  // The n ranks and positions on the device: blocks of their own, since the segmented sort takes
  // the stream's scratch meanwhile.
  const auto with_device_pairs = [&](auto&& body) {
    const scratch ranks = acquire_separate_scratch(std::max<std::size_t>(n, 1) * sizeof(U), policy, algorithm);
    const scratch positions =
        acquire_separate_scratch(std::max<std::size_t>(n, 1) * sizeof(std::uint64_t), policy, algorithm);
    body(static_cast<U*>(ranks.device()), static_cast<std::uint64_t*>(positions.device()));
  };
  const auto on_gpu = [&](impl which) {
    with_device_pairs([&](U* r, std::uint64_t* q) {
      if (sorted) {
        launch(algorithm, "for_each_index_kernel", for_each_index_kernel<rank_and_position<U>>, stride_blocks(n),
               block_size, stream, rank_and_position<U>{x.data(), r, q, {kind, largest}}, n);
        if (which == impl::raw) {
          sorting::raw_segmented_sort(algorithm, policy, seg, radix::bits_order<U>{ranks_kind, false}, r, r, q, q);
        } else {
          sorting::cub_segmented_sort(algorithm, policy, seg, radix::order_masks<U>{ranks_kind, false}, r, r, q, q);
        }
      }
      launch(algorithm, "for_each_index_kernel", for_each_index_kernel<take_segment_best<U, I>>, stride_blocks(slots),
             block_size, stream, take_segment_best<U, I>{seg, k, x.data(), q, values.data(), indices.data()}, slots);
    });
  };
  const array_ref offsets{list.offsets, list.offsets_count, list.offsets_count * list.offset_bytes, false,
                          "the offsets"};
  dispatch({algorithm, top_k_family, policy,
            {array_ref::input(x, "the input"), offsets,
             array_ref::output_apart(values, "the values").sized(slots),
             array_ref::output_apart(indices, "the indices").sized(slots)},
            slots, x.size_bytes() + slots * (sizeof(U) + sizeof(I))},
           implementations{
               .cpu =
                   [&](const auto& p) {
                     std::vector<U> ranks(n);
                     std::vector<std::uint64_t> positions(n);  // n may be 0: take_segment_best reads none
                     on_thrust(p, ranks.data(), positions.data());
                   },
               .thrust =
                   [&](const auto& p) {
                     with_device_pairs([&](U* r, std::uint64_t* q) { on_thrust(p, r, q); });
                   },
               .raw =
                   [&] {
                     if (segment_select_serves(segments, k)) {
                       segment_select(algorithm, policy, x.data(), seg, k, values.data(), indices.data(),
                                      top_k_rank<U>{kind, largest});
                     } else {
                       on_gpu(impl::raw);
                     }
                   },
               .cub = [&] { on_gpu(impl::cub); },
               .cpu_check = [&] { check_segment_offsets(algorithm, seg); },
           });
}

}  // namespace prism::detail
