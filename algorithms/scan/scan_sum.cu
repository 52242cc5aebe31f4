// SPDX-License-Identifier: Apache-2.0
// Prefix sums, inclusive and exclusive, in every implementation (operations.cuh): the unsigned
// integers carry the signed ones of their size too (the same bits), char among the bytes.
#include "operations.cuh"

namespace prism::detail {
template void scan_sum<std::uint8_t>(const execution_policy&, scan_kind, span<const std::uint8_t>, span<std::uint8_t>);
template void scan_sum<std::uint16_t>(const execution_policy&, scan_kind, span<const std::uint16_t>, span<std::uint16_t>);
template void scan_sum<std::uint32_t>(const execution_policy&, scan_kind, span<const std::uint32_t>, span<std::uint32_t>);
template void scan_sum<std::uint64_t>(const execution_policy&, scan_kind, span<const std::uint64_t>, span<std::uint64_t>);
template void scan_sum<float>(const execution_policy&, scan_kind, span<const float>, span<float>);
template void scan_sum<double>(const execution_policy&, scan_kind, span<const double>, span<double>);
}  // namespace prism::detail
