// SPDX-License-Identifier: Apache-2.0
// sort of 8-byte keys in every implementation (<prism/radix_sort.cuh>).

// Thrust's merge sort (argsort's) on 64-bit offsets only: they work for every size and halve what
// is compiled. Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/radix_sort.cuh>

namespace prism::detail {
template void sort_keys<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>, sort_order);
template void sort_keys<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>, sort_order);
template void sort_keys<double>(const execution_policy&, span<const double>, span<double>, sort_order);
}  // namespace prism::detail
