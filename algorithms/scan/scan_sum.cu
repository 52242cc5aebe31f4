// SPDX-License-Identifier: Apache-2.0
// Prefix sums, inclusive and exclusive, in every implementation (operations.cuh): the unsigned
// integers carry the signed ones of their size too (the same bits), char among the bytes.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SCAN_SUM(T) \
  template void scan_sum<T>(const execution_policy&, scan_kind, \
      span<const T>, span<T>, const T*);
PRISM_SCAN_SUM(std::uint8_t)
PRISM_SCAN_SUM(std::uint16_t)
PRISM_SCAN_SUM(std::uint32_t)
PRISM_SCAN_SUM(std::uint64_t)
PRISM_SCAN_SUM(float)
PRISM_SCAN_SUM(double)
#undef PRISM_SCAN_SUM
}  // namespace prism::detail
