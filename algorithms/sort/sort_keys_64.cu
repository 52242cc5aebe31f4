// SPDX-License-Identifier: Apache-2.0
// sort of 8-byte keys in every implementation (operations.cuh).
#include "operations.cuh"

namespace prism::detail {
template void sort_keys<std::int64_t>(const execution_policy&, span<const std::int64_t>, span<std::int64_t>, sort_order);
template void sort_keys<std::uint64_t>(const execution_policy&, span<const std::uint64_t>, span<std::uint64_t>, sort_order);
template void sort_keys<double>(const execution_policy&, span<const double>, span<double>, sort_order);
}  // namespace prism::detail
