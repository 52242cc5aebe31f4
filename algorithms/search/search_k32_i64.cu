// SPDX-License-Identifier: Apache-2.0
// The search family for 4-byte elements (uint32, int32, float) and 64-bit positions: lower_bound,
// upper_bound and equal_range in every implementation.
// The lesson's stages (uint32 elements, int64 positions) reuse this file's kernels.
#include "entries.cuh"
#include "lesson.cuh"

namespace prism::detail {

template void search_entry<4>::bounds<std::uint64_t>(bound_sides, const execution_policy&, key_kind,
                                                   span<const std::uint32_t>, span<const std::uint32_t>,
                                                   span<std::uint64_t>, span<std::uint64_t>, query_order,
                                                   std::size_t);
// binary_search writes flags, not positions: compiled once per element size, here.
template void search_entry<4>::contains(const execution_policy&, key_kind, span<const std::uint32_t>,
                                        span<const std::uint32_t>, span<std::uint8_t>, query_order);

}  // namespace prism::detail
