// SPDX-License-Identifier: Apache-2.0
// sort of 4-byte keys in every implementation (operations.cuh).
#include "operations.cuh"

namespace prism::detail {
template void sort_keys<std::int32_t>(const execution_policy&, span<const std::int32_t>, span<std::int32_t>, sort_order);
template void sort_keys<std::uint32_t>(const execution_policy&, span<const std::uint32_t>, span<std::uint32_t>, sort_order);
template void sort_keys<float>(const execution_policy&, span<const float>, span<float>, sort_order);
}  // namespace prism::detail
