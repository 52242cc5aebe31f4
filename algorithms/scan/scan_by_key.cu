// SPDX-License-Identifier: Apache-2.0
// Prefix sums by key, inclusive and exclusive, in every implementation (operations.cuh): keys as
// unsigned integers of their size (equality is equality of bits), values as the sums' storage.
#include "operations.cuh"

namespace prism::detail {
#define PRISM_SCAN_BY_KEY(K, T) \
  template void scan_by_key_sum<K, T>(const execution_policy&, scan_kind, span<const K>, span<const T>, span<T>);
PRISM_SCAN_BY_KEY(std::uint32_t, std::uint32_t)
PRISM_SCAN_BY_KEY(std::uint32_t, std::uint64_t)
PRISM_SCAN_BY_KEY(std::uint32_t, float)
PRISM_SCAN_BY_KEY(std::uint32_t, double)
PRISM_SCAN_BY_KEY(std::uint64_t, std::uint32_t)
PRISM_SCAN_BY_KEY(std::uint64_t, std::uint64_t)
PRISM_SCAN_BY_KEY(std::uint64_t, float)
PRISM_SCAN_BY_KEY(std::uint64_t, double)
#undef PRISM_SCAN_BY_KEY
}  // namespace prism::detail
