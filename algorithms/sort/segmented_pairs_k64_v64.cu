// SPDX-License-Identifier: Apache-2.0
// segmented_sort_by_key of 64-bit keys with 64-bit values in every implementation
// (<prism/segmented_sort.cuh>): the keys are sorted as their ordered bits, so the three types share
// one instantiation of the work.

// Thrust's sorts on 64-bit offsets only, before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/segmented_sort.cuh>

namespace prism::detail {
template void segmented_sort_pairs<std::int64_t, std::uint64_t>(const execution_policy&, span<const std::int64_t>, span<const std::uint64_t>, segment_list, span<std::int64_t>, span<std::uint64_t>, sort_order);
template void segmented_sort_pairs<std::uint64_t, std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<const std::uint64_t>, segment_list, span<std::uint64_t>, span<std::uint64_t>, sort_order);
template void segmented_sort_pairs<double, std::uint64_t>(const execution_policy&, span<const double>, span<const std::uint64_t>, segment_list, span<double>, span<std::uint64_t>, sort_order);
}  // namespace prism::detail
