// SPDX-License-Identifier: Apache-2.0
// Running minima and maxima, inclusive and exclusive, in every implementation (operations.cuh):
// one functor with the direction an argument, so min and max share their kernels.
#include "operations.cuh"

namespace prism::detail {
template void scan_extremum<float>(const execution_policy&, scan_kind, bool, span<const float>, span<float>);
template void scan_extremum<double>(const execution_policy&, scan_kind, bool, span<const double>, span<double>);
template void scan_extremum<std::int32_t>(const execution_policy&, scan_kind, bool, span<const std::int32_t>, span<std::int32_t>);
template void scan_extremum<std::int64_t>(const execution_policy&, scan_kind, bool, span<const std::int64_t>, span<std::int64_t>);
template void scan_extremum<std::uint32_t>(const execution_policy&, scan_kind, bool, span<const std::uint32_t>, span<std::uint32_t>);
template void scan_extremum<std::uint64_t>(const execution_policy&, scan_kind, bool, span<const std::uint64_t>, span<std::uint64_t>);
}  // namespace prism::detail
