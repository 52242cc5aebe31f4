// SPDX-License-Identifier: Apache-2.0
// merge_by_key of 32-bit keys with 4- and 8-byte values in every implementation (operations.cuh).
#include "operations.cuh"

namespace prism::detail {
template void merge_pairs<std::uint32_t, std::uint32_t>(const execution_policy&, key_kind, span<const std::uint32_t>,
                                                         span<const std::uint32_t>, span<const std::uint32_t>,
                                                         span<const std::uint32_t>, span<std::uint32_t>,
                                                         span<std::uint32_t>);
template void merge_pairs<std::uint32_t, std::uint64_t>(const execution_policy&, key_kind, span<const std::uint32_t>,
                                                         span<const std::uint64_t>, span<const std::uint32_t>,
                                                         span<const std::uint64_t>, span<std::uint32_t>,
                                                         span<std::uint64_t>);
}  // namespace prism::detail
