// SPDX-License-Identifier: Apache-2.0
// Running minima and maxima of the small integers (int8, uint8, int16, uint16; char as int8), in
// every implementation (operations.cuh): an order depends on the sign, so one per type.
#include "operations.cuh"

namespace prism::detail {
template void scan_extremum<std::int8_t>(const execution_policy&, scan_kind, bool, span<const std::int8_t>, span<std::int8_t>);
template void scan_extremum<std::uint8_t>(const execution_policy&, scan_kind, bool, span<const std::uint8_t>, span<std::uint8_t>);
template void scan_extremum<std::int16_t>(const execution_policy&, scan_kind, bool, span<const std::int16_t>, span<std::int16_t>);
template void scan_extremum<std::uint16_t>(const execution_policy&, scan_kind, bool, span<const std::uint16_t>, span<std::uint16_t>);
}  // namespace prism::detail
