// SPDX-License-Identifier: Apache-2.0
// sort_by_key and argsort of 32-bit keys with 64-bit values or indices, in every implementation
// (<prism/radix_sort.cuh>): argsort's CUB call is the same SortPairs as sort_by_key's, compiled once here.

// Thrust's merge sort (argsort's) on 64-bit offsets only: they work for every size and halve what
// is compiled. Before the first Thrust header.
#ifndef THRUST_FORCE_64_BIT_OFFSET_TYPE
#define THRUST_FORCE_64_BIT_OFFSET_TYPE
#endif
#include <prism/radix_sort.cuh>

namespace prism::detail {
template void sort_pairs<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<const std::uint64_t>, span<std::int32_t>, span<std::uint64_t>, sort_order);
template void argsort<std::int32_t, std::uint64_t>(const execution_policy&, span<const std::int32_t>, span<std::uint64_t>, sort_order);
template void sort_pairs<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<const std::uint64_t>, span<std::uint32_t>, span<std::uint64_t>, sort_order);
template void argsort<std::uint32_t, std::uint64_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint64_t>, sort_order);
template void sort_pairs<float, std::uint64_t>(const execution_policy&, span<const float>, span<const std::uint64_t>, span<float>, span<std::uint64_t>, sort_order);
template void argsort<float, std::uint64_t>(const execution_policy&, span<const float>, span<std::uint64_t>, sort_order);
}  // namespace prism::detail
