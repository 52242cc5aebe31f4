// SPDX-License-Identifier: Apache-2.0
// Running minima and maxima, inclusive and exclusive, in every implementation (operations.cuh):
// one functor with the direction an argument, so min and max share their kernels.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SCAN_EXTREMUM(T) \
  template void scan_extremum<T>(const execution_policy&, scan_kind, bool, \
      span<const T>, span<T>, const T*);
PRISM_SCAN_EXTREMUM(float)
PRISM_SCAN_EXTREMUM(double)
PRISM_SCAN_EXTREMUM(std::int32_t)
PRISM_SCAN_EXTREMUM(std::int64_t)
PRISM_SCAN_EXTREMUM(std::uint32_t)
PRISM_SCAN_EXTREMUM(std::uint64_t)
#undef PRISM_SCAN_EXTREMUM
}  // namespace prism::detail
