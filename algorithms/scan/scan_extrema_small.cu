// SPDX-License-Identifier: Apache-2.0
// Running minima and maxima of the small integers (int8, uint8, int16, uint16; char as int8), in
// every implementation (operations.cuh): an order depends on the sign, so one per type.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SCAN_EXTREMUM(T) \
  template void scan_extremum<T>(const execution_policy&, scan_kind, bool, \
      span<const T>, span<T>, const T*);
PRISM_SCAN_EXTREMUM(std::int8_t)
PRISM_SCAN_EXTREMUM(std::uint8_t)
PRISM_SCAN_EXTREMUM(std::int16_t)
PRISM_SCAN_EXTREMUM(std::uint16_t)
#undef PRISM_SCAN_EXTREMUM
}  // namespace prism::detail
