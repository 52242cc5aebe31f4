// SPDX-License-Identifier: Apache-2.0
#pragma once
// The compiled entry points of <prism/segmented.hpp>: the generic layer (<prism/segmented.cuh>)
// with the family's reductions of the standard types. Each .cu file here instantiates one element
// type with both offset types (int64 also serving fixed_segments).
// One offset width for Thrust's scans over 64-bit counts, before its headers.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif

#include <prism/segmented.cuh>

#include <stdexcept>
#include <string>

namespace prism::detail {

template <class T, class I>
void segmented_entry<T, I>::sum(const execution_policy& policy, span<const T> values, segments_view<I> segments,
                                span<sum_type<T>> out) {
  segmented_reduce_spans("segmented_sum", policy, values, segments, out, sum_reduction<T>{});
}

template <class T, class I>
void segmented_entry<T, I>::extremum(const execution_policy& policy, bool largest, span<const T> values,
                                     segments_view<I> segments, span<T> out) {
  segmented_reduce_spans(largest ? "segmented_max" : "segmented_min", policy, values, segments, out,
                         extremum_reduction<T>{largest});
}

template <class T, class I>
void segmented_entry<T, I>::arg_extremum(const execution_policy& policy, bool largest, span<const T> values,
                                         segments_view<I> segments, span<I> out) {
  segmented_reduce_spans(largest ? "segmented_argmax" : "segmented_argmin", policy, values, segments, out,
                         arg_reduction<T, I>{largest});
}

// A scan has no output per segment: the segments are the offsets' size less one, or the values
// cut into pieces of the fixed size (which must divide them).
template <class T, class I>
void segmented_entry<T, I>::scan(const execution_policy& policy, bool exclusive, span<const T> values,
                                 segments_view<I> segments, span<T> out) {
  const char* algorithm = exclusive ? "segmented_exclusive_scan" : "segmented_inclusive_scan";
  const std::size_t n = values.size();
  std::size_t count = 0;
  if (segments.fixed) {
    const std::size_t size = segments.fixed_size;
    if ((size == 0 && n != 0) || (size != 0 && n % size != 0)) {
      throw std::invalid_argument(std::string("prism::") + algorithm + ": " + std::to_string(n) +
                                  " values are not segments of " + std::to_string(size));
    }
    count = size == 0 ? 0 : n / size;
  } else {
    if (segments.offsets.size() == 0) {
      throw std::invalid_argument(std::string("prism::") + algorithm +
                                  ": the offsets are empty (one more than the segments: 1 for none)");
    }
    count = segments.offsets.size() - 1;
  }
  segmented_scan_spans(algorithm, policy, values, segments, count, out, exclusive);
}

}  // namespace prism::detail

