// SPDX-License-Identifier: Apache-2.0
// segmented_sort of 32-bit keys in every implementation (<prism/segmented_sort.cuh>): the keys
// are sorted as their ordered bits, so the three types share one instantiation of the work.

// Thrust's sorts on 64-bit offsets only, before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/segmented_sort.cuh>

namespace prism::detail {
template void segmented_sort_keys<std::int32_t>(const execution_policy&, span<const std::int32_t>, segment_list, span<std::int32_t>, sort_order);
template void segmented_sort_keys<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, segment_list, span<std::uint32_t>, sort_order);
template void segmented_sort_keys<float>(const execution_policy&, span<const float>, segment_list, span<float>, sort_order);
}  // namespace prism::detail
