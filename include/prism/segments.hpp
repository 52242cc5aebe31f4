// SPDX-License-Identifier: Apache-2.0
#pragma once
// How an operation on segments is told where they are, shared by the families that work per
// segment (<prism/segmented_sort.hpp>, the segmented reductions and scans): an offsets array of
// int32 or int64, one element more than there are segments (segment s is [offsets[s],
// offsets[s+1]), as CSR rows are), or a fixed size (the rows of a row-major matrix).
#include <prism/span.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace prism {

// Segments of one fixed size: the rows of a row-major matrix of `size` columns.
struct fixed_segments {
  std::size_t size;
};

template <class I>
concept segment_offset = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

}  // namespace prism
