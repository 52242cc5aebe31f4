// SPDX-License-Identifier: Apache-2.0
// The search family for 8-byte elements (uint64, int64, double) and 32-bit positions: lower_bound,
// upper_bound and equal_range in every implementation.
#include "entries.cuh"

namespace prism::detail {

template void search_entry<8>::bounds<std::uint32_t>(bound_sides, const execution_policy&, key_kind,
                                                   span<const std::uint64_t>, span<const std::uint64_t>,
                                                   span<std::uint32_t>, span<std::uint32_t>, query_order,
                                                   std::size_t);

}  // namespace prism::detail
