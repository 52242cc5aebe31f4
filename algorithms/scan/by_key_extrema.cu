// SPDX-License-Identifier: Apache-2.0
// Minima and maxima by key: running (inclusive and exclusive scans by key) and per run
// (reduce_by_key), in every implementation (operations.cuh). Keys as unsigned integers of their
// size; values as themselves, since their order is the type's.
#include "operations.cuh"

namespace prism::detail {

#define PRISM_BY_KEY_EXTREMA(K, T)                                                                                   \
  template void scan_by_key_extremum<K, T>(const execution_policy&, scan_kind, bool, span<const K>, span<const T>,  \
                                           span<T>);                                                                \
  template std::size_t reduce_by_key_extremum<K, T>(const execution_policy&, bool, span<const K>, span<const T>,    \
                                                    span<K>, span<T>, span<std::size_t>*);
#define PRISM_BY_KEY_EXTREMA_OF(K)           \
  PRISM_BY_KEY_EXTREMA(K, float)             \
  PRISM_BY_KEY_EXTREMA(K, double)            \
  PRISM_BY_KEY_EXTREMA(K, std::int32_t)      \
  PRISM_BY_KEY_EXTREMA(K, std::int64_t)      \
  PRISM_BY_KEY_EXTREMA(K, std::uint32_t)     \
  PRISM_BY_KEY_EXTREMA(K, std::uint64_t)
PRISM_BY_KEY_EXTREMA_OF(std::uint32_t)
PRISM_BY_KEY_EXTREMA_OF(std::uint64_t)
#undef PRISM_BY_KEY_EXTREMA_OF
#undef PRISM_BY_KEY_EXTREMA

}  // namespace prism::detail
