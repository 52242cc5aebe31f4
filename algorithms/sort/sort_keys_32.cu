// SPDX-License-Identifier: Apache-2.0
// sort of 4-byte keys in every implementation (<prism/radix_sort.cuh>).

// Thrust's merge sort (argsort's) on 64-bit offsets only: they work for every size and halve what
// is compiled. Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/radix_sort.cuh>

namespace prism::detail {
template void sort_keys<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int32_t>, sort_order);
template void sort_keys<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, sort_order);
template void sort_keys<float>(const execution_policy&, span<const float>, span<float>, sort_order);
}  // namespace prism::detail
